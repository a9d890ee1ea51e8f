//! `config show [PEER]`: what a `check` of PEER would use before any flag
//! is given — each setting's value, the layer it came from, the lower
//! layers it won over — resolved by the same code `check` resolves with,
//! then the config file's peer sections.

use super::check::OwnLayers;
use super::options::run_top;
use crate::config::{ConfigFile, FILE_NAMES};
use crate::error::AppError;
use crate::settings::{render, Profiles, ShowLine};
use a2a_conform_report::exit;

pub(super) fn config_show(
    config: Option<&ConfigFile>,
    peer: Option<&str>,
) -> Result<i32, AppError> {
    let effective = crate::config::effective(config)?;
    // The peer's layers as `check` finds them: `--profile` (from its env
    // var or the config's top level here) and the peer's section.
    let mut profiles = Profiles::default();
    let profile = effective
        .args
        .run
        .profile
        .as_deref()
        .map(|path| profiles.layer(path))
        .transpose()?;
    let layers = match peer {
        Some(peer) => OwnLayers {
            config,
            profile,
            profiles,
        }
        .of(peer, None)?,
        None => profile.into_iter().collect(),
    };
    let sources = &effective.sources;
    let resolved = run_top(&effective.args.run, sources)?.resolve(&layers, &[]);
    let mut lines: Vec<ShowLine> = Vec::new();
    for (long, values) in &effective.values {
        match resolved.show_lines(long, sources) {
            Some(resolved) => lines.extend(resolved),
            None => lines.push(ShowLine::from_values(long, values, sources)),
        }
    }
    let file = match config {
        Some(c) => c.path.display().to_string(),
        None => format!(
            "none ({} or {} walking up from the working directory, or --config FILE)",
            FILE_NAMES[0], FILE_NAMES[1]
        ),
    };
    let section = |name: &str| {
        peer.is_none_or(|p| config.and_then(|c| c.section(p)).map(|(n, _)| n) == Some(name))
    };
    let sections: Vec<(String, Vec<String>)> = config
        .map(|c| {
            c.peers
                .iter()
                .filter(|(name, _)| section(name))
                .map(|(name, settings)| (name.clone(), settings.describe()))
                .collect()
        })
        .unwrap_or_default();
    print!("{}", render(&file, &lines, &sections));
    if let Some(peer) = peer.filter(|_| sections.is_empty()) {
        println!("peer {peer}: no section of the config file names it");
    }
    Ok(exit::OK)
}
