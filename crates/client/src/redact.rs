//! Redaction by value: every configured secret is masked wherever it shows,
//! also in the encodings a peer can reflect it in — JSON `\u` escapes,
//! percent-encoding, base64 (standard or URL-safe, padded or not, also of a
//! longer text such as `user:pass` that contains it). A leaf: it knows
//! strings and JSON values, not where they come from.

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use serde_json::Value;
use std::ops::Range;

/// Secrets that must never appear in a report, a transcript or a reproduction line.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Longest first, no empty or repeated values.
    secrets: Vec<String>,
}

impl Redactor {
    /// What a secret is replaced with.
    pub const MASK: &'static str = "«redacted»";

    /// Every non-empty value is a secret, however short: a short token is
    /// still a token. One shorter than six characters is masked where it
    /// stands as a word of its own (not glued to letters or digits
    /// on either side): `--header 'X-Trace: 1'` must not mask every `1` of a
    /// report, and a short value inside a longer word is not that value.
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Redactor {
        let mut secrets: Vec<String> = secrets.into_iter().filter(|s| !s.is_empty()).collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Redactor { secrets }
    }

    /// This redactor plus one more secret.
    pub fn with_secret(&self, secret: String) -> Redactor {
        let mut secrets = self.secrets.clone();
        secrets.push(secret);
        Redactor::new(secrets)
    }

    /// The secrets themselves (to build a redactor with more).
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// Whether there is no secret to mask (redacting then copies nothing).
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every secret, in any of the encodings above, replaced by
    /// [`Redactor::MASK`]. Matches are found on the original text and
    /// replaced in one pass, so a mask never creates or hides another match.
    pub fn redact(&self, text: &str) -> String {
        if self.secrets.is_empty() || text.is_empty() {
            return text.to_string();
        }
        let mut spans: Vec<Range<usize>> = Vec::new();
        for secret in &self.secrets {
            let chars: Vec<char> = secret.chars().collect();
            let first = chars[0];
            for (at, c) in text.char_indices() {
                // Cheap first test: the secret's first character, or the
                // start of an escape that may encode it.
                if c != first && c != '\\' && c != '%' && !(first == ' ' && c == '+') {
                    continue;
                }
                if let Some(end) = match_encoded(text, at, &chars) {
                    if chars.len() >= SHORT_SECRET || stands_alone(text, at..end) {
                        spans.push(at..end);
                    }
                }
            }
        }
        spans.extend(self.base64_spans(text));
        if spans.is_empty() {
            return text.to_string();
        }
        spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
        let mut out = String::with_capacity(text.len());
        let mut done = 0;
        for span in spans {
            if span.end <= done {
                continue;
            }
            if span.start >= done {
                out.push_str(&text[done..span.start]);
                out.push_str(Self::MASK);
            }
            done = span.end;
        }
        out.push_str(&text[done..]);
        out
    }

    /// Every string of a JSON value redacted, object keys too.
    pub fn redact_value(&self, value: Value) -> Value {
        if self.secrets.is_empty() {
            return value;
        }
        match value {
            Value::String(s) => Value::String(self.redact(&s)),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.redact_value(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (self.redact(&k), self.redact_value(v)))
                    .collect(),
            ),
            other => other,
        }
    }

    /// Runs of base64 characters that decode (from one of the four
    /// alignments, either alphabet) to text containing a secret.
    fn base64_spans(&self, text: &str) -> Vec<Range<usize>> {
        let shortest = self.secrets.last().map_or(1, String::len);
        // A secret of n bytes takes at least 4n/3 characters of base64.
        let min_run = (shortest * 4).div_ceil(3).max(2);
        let bytes = text.as_bytes();
        let is_b64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_');
        let mut spans = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if !is_b64(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && is_b64(bytes[i]) {
                i += 1;
            }
            let run = &text[start..i];
            while i < bytes.len() && bytes[i] == b'=' {
                i += 1;
            }
            if run.len() >= min_run && self.decodes_to_secret(run) {
                spans.push(start..i);
            }
        }
        spans
    }

    fn decodes_to_secret(&self, run: &str) -> bool {
        (0..4.min(run.len())).any(|shift| {
            let mut body = &run[shift..];
            if body.len() % 4 == 1 {
                body = &body[..body.len() - 1];
            }
            [&LENIENT_STANDARD, &LENIENT_URL_SAFE].iter().any(|engine| {
                let Ok(decoded) = engine.decode(body) else {
                    return false;
                };
                // Ordinary words decode to binary noise; a reflected secret
                // decodes to text. Only text is searched.
                let Ok(decoded) = String::from_utf8(decoded) else {
                    return false;
                };
                if decoded
                    .chars()
                    .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
                {
                    return false;
                }
                self.secrets.iter().any(|s| decoded.contains(s.as_str()))
            })
        })
    }
}

const LENIENT: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_decode_padding_mode(DecodePaddingMode::Indifferent)
    .with_decode_allow_trailing_bits(true);
const LENIENT_STANDARD: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT);
const LENIENT_URL_SAFE: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT);

/// Secrets shorter than this many characters are masked only where they
/// stand alone (see [`Redactor::new`]).
pub(crate) const SHORT_SECRET: usize = 6;

/// Whether a span of `text` has no letter or digit right before or after it.
fn stands_alone(text: &str, span: Range<usize>) -> bool {
    let before = text[..span.start].chars().next_back();
    let after = text[span.end..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// Where a match of `secret` starting at `at` ends, each character written
/// as itself or escaped: `\uXXXX` (any number of backslashes, surrogate pairs
/// too), `%XX` per UTF-8 byte, `\/` for `/`, `+` for a space.
fn match_encoded(text: &str, at: usize, secret: &[char]) -> Option<usize> {
    let mut pos = at;
    for &c in secret {
        let rest = &text[pos..];
        if rest.starts_with(c) {
            pos += c.len_utf8();
        } else if let Some(len) = json_escape(rest, c) {
            pos += len;
        } else if let Some(len) = percent_escape(rest, c) {
            pos += len;
        } else if (c == '/' && rest.starts_with("\\/")) || (c == ' ' && rest.starts_with('+')) {
            pos += if c == '/' { 2 } else { 1 };
        } else {
            return None;
        }
    }
    Some(pos)
}

/// The length of a `\uXXXX` escape (or a surrogate pair) of `c` at the start
/// of `rest`; JSON inside JSON doubles the backslashes, so any number count.
fn json_escape(rest: &str, c: char) -> Option<usize> {
    let mut units = [0u16; 2];
    let units = c.encode_utf16(&mut units);
    let mut pos = 0;
    for &unit in units.iter() {
        let slashes = rest[pos..].bytes().take_while(|&b| b == b'\\').count();
        if slashes == 0 {
            return None;
        }
        pos += slashes;
        let tail = rest.get(pos..pos + 5)?;
        if !tail.starts_with(['u', 'U']) {
            return None;
        }
        let value = u16::from_str_radix(&tail[1..], 16).ok()?;
        if value != unit {
            return None;
        }
        pos += 5;
    }
    Some(pos)
}

/// The length of the `%XX` escapes of `c`'s UTF-8 bytes at the start of `rest`.
fn percent_escape(rest: &str, c: char) -> Option<usize> {
    let mut buf = [0u8; 4];
    let encoded = c.encode_utf8(&mut buf).as_bytes();
    let mut pos = 0;
    for &byte in encoded {
        let tail = rest.get(pos..pos + 3)?;
        if !tail.starts_with('%') || u8::from_str_radix(&tail[1..], 16).ok()? != byte {
            return None;
        }
        pos += 3;
    }
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

    const MASK: &str = Redactor::MASK;

    #[test]
    fn masks_every_occurrence_and_longest_first() {
        let r = Redactor::new(vec!["s3cr3t-token".to_string(), "s3cr3t".to_string()]);
        assert_eq!(
            r.redact("Bearer s3cr3t-token and s3cr3t"),
            format!("Bearer {MASK} and {MASK}")
        );
    }

    #[test]
    fn short_secrets_are_masked_too() {
        let r = Redactor::new(vec!["k9".to_string()]);
        assert_eq!(r.redact("key k9 here"), format!("key {MASK} here"));
        assert_eq!(r.redact("\"k9\","), format!("\"{MASK}\","));
        // Inside a longer word it is not the value: a header `X-Trace: 1`
        // must not mask every digit of a report.
        let one = Redactor::new(vec!["1".to_string()]);
        assert_eq!(one.redact("run 1 took 10s"), format!("run {MASK} took 10s"));
        assert_eq!(r.redact("ak9z"), "ak9z");
        assert_eq!(Redactor::new(vec![String::new()]).redact("x"), "x");
    }

    #[test]
    fn json_escapes_of_the_secret_are_masked() {
        let r = Redactor::new(vec!["tok/é1".to_string()]);
        let every = "\\u0074\\u006f\\u006B\\u002f\\u00e9\\u0031";
        assert_eq!(r.redact(&format!("\"{every}\"")), format!("\"{MASK}\""));
        // Mixed, `\/`, and doubled backslashes (JSON in a JSON string).
        assert_eq!(r.redact("t\\u006fk\\/é1!"), format!("{MASK}!"));
        assert_eq!(r.redact("\\\\u0074ok/\\\\u00e91"), MASK);
        let emoji = Redactor::new(vec!["a😀b".to_string()]);
        assert_eq!(emoji.redact("a\\ud83d\\ude00b"), MASK);
    }

    #[test]
    fn percent_encodings_of_the_secret_are_masked() {
        let r = Redactor::new(vec!["a b/é:c".to_string()]);
        assert_eq!(r.redact("?t=a%20b%2F%C3%A9%3ac&x"), format!("?t={MASK}&x"));
        assert_eq!(r.redact("?t=a+b/%c3%a9:c"), format!("?t={MASK}"));
        assert_eq!(
            r.redact("%61%20%62%2f%c3%a9%3a%63"),
            MASK,
            "every byte escaped"
        );
    }

    #[test]
    fn base64_of_the_secret_or_of_a_text_containing_it_is_masked() {
        let secret = "hunter2-secret";
        let r = Redactor::new(vec![secret.to_string()]);
        for encoded in [
            STANDARD.encode(secret),
            URL_SAFE_NO_PAD.encode(secret),
            STANDARD.encode(format!("user:{secret}")),
            STANDARD.encode(format!("ab:{secret}")),
            URL_SAFE_NO_PAD.encode(format!("x{secret}??>>")),
        ] {
            let text = format!("Authorization: Basic {encoded}; done");
            assert_eq!(
                r.redact(&text),
                format!("Authorization: Basic {MASK}; done"),
                "{encoded}"
            );
        }
        // Glued onto other characters, at any alignment.
        for glue in ["t", "to", "tok"] {
            let text = format!("{glue}{}", STANDARD.encode(format!("p:{secret}")));
            assert!(!r.redact(&text).contains("aHVudGVy"), "{text}");
        }
        // Ordinary words are left alone.
        let short = Redactor::new(vec!["pw".to_string()]);
        let prose = "the quick brown fox jumps over lazy dogs again and again";
        assert_eq!(short.redact(prose), prose);
        assert_eq!(
            short.redact(&STANDARD.encode("user:pw")),
            MASK,
            "a short password inside Basic credentials"
        );
    }

    #[test]
    fn json_values_are_redacted_in_strings_and_keys() {
        let r = Redactor::new(vec!["zz-top".to_string()]);
        let v = serde_json::json!({"zz-top": ["a zz-top", 1, {"k": "zz-top"}]});
        assert_eq!(
            r.redact_value(v),
            serde_json::json!({MASK: [format!("a {MASK}"), 1, {"k": MASK}]})
        );
    }

    #[test]
    fn a_mask_never_makes_another_match() {
        let r = Redactor::new(vec!["dactyl".to_string(), "xredax".to_string()]);
        assert_eq!(r.redact("xredaxdactyl"), format!("{MASK}{MASK}"));
    }
}
