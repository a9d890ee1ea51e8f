//! `--shard K/N`: which slice of a check's plan one CI job runs. The
//! engine keeps a shard's runs, the report records it and `merge` joins the
//! shards back; the type lives here so every one of them reads the same.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// `--shard K/N`: the K-th of N deterministic slices (1-based). Item `i` of
/// the plan belongs to shard `i mod N + 1`, so the N shards cover the plan
/// once, with no overlap, and each gets a near-equal share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// K: which slice (1-based).
    pub index: u32,
    /// N: how many slices the plan is cut into.
    pub count: u32,
}

impl Shard {
    /// Whether the item at `position` (0-based, plan order) is this shard's.
    pub fn keeps(self, position: usize) -> bool {
        position % self.count as usize == (self.index - 1) as usize
    }

    /// The plan position of this shard's `nth` item (the inverse of [`Shard::keeps`]).
    pub fn position(self, nth: usize) -> usize {
        nth * self.count as usize + (self.index - 1) as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A `--shard` value that is not `K/N` with 1 ≤ K ≤ N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be K/N with 1 <= K <= N, e.g. 2/4")]
pub struct ShardSyntaxError;

impl FromStr for Shard {
    type Err = ShardSyntaxError;

    fn from_str(text: &str) -> Result<Shard, ShardSyntaxError> {
        let (k, n) = text.split_once('/').ok_or(ShardSyntaxError)?;
        let index: u32 = k.trim().parse().map_err(|_| ShardSyntaxError)?;
        let count: u32 = n.trim().parse().map_err(|_| ShardSyntaxError)?;
        if index == 0 || count == 0 || index > count {
            return Err(ShardSyntaxError);
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_plan_once() {
        for count in 1..=5u32 {
            let mut owners = vec![0u32; 23];
            for index in 1..=count {
                let shard = Shard { index, count };
                let mut nth = 0;
                for (position, owner) in owners.iter_mut().enumerate() {
                    if shard.keeps(position) {
                        *owner += 1;
                        assert_eq!(shard.position(nth), position);
                        nth += 1;
                    }
                }
            }
            assert!(owners.iter().all(|&o| o == 1), "{count}: {owners:?}");
        }
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/3", "4/3", "1", "a/b", "1/0"] {
            assert_eq!(bad.parse::<Shard>(), Err(ShardSyntaxError), "{bad}");
        }
    }
}
