//! Prompts a card offers outside its skill examples: the quoted phrases and
//! the example sentences of a description (`Try "plan a trip"`, `e.g. book
//! a table for two`), which is where generated cards, with no `examples`,
//! put their trigger phrases. Bounded: only the start of a description is
//! read, and only a few short phrases are kept from it.

/// The most phrases taken from one description.
pub(crate) const MAX_PER_DESCRIPTION: usize = 3;
/// The longest phrase kept, in characters: a longer one is prose, not a prompt.
pub(crate) const MAX_CHARS: usize = 160;
/// The shortest phrase kept, in characters.
const MIN_CHARS: usize = 3;
/// How much of a description is read, in characters.
const MAX_READ: usize = 4000;

/// Opening and closing quotes, straight and typographic.
const QUOTES: [(char, char); 4] = [('"', '"'), ('“', '”'), ('‘', '’'), ('\'', '\'')];

/// Words after which a description gives an example (matched as whole
/// words, ASCII case-insensitive).
const CUES: [&str; 4] = ["e.g.", "for example", "such as", "try"];

/// The phrases `description` offers as prompts, in order: its quoted
/// phrases, then the text after each cue up to the end of its sentence.
/// Each is trimmed of spaces and quotes; repeats, and phrases shorter than
/// [`MIN_CHARS`] or longer than [`MAX_CHARS`], are left out; at most
/// [`MAX_PER_DESCRIPTION`].
pub(crate) fn phrases(description: &str) -> Vec<String> {
    let text: String = description.chars().take(MAX_READ).collect();
    let mut out: Vec<String> = Vec::new();
    for phrase in quoted(&text).into_iter().chain(cued(&text)) {
        let phrase = phrase
            .trim_matches(|c: char| c.is_whitespace() || is_quote(c))
            .to_string();
        let chars = phrase.chars().count();
        if !(MIN_CHARS..=MAX_CHARS).contains(&chars) || out.contains(&phrase) {
            continue;
        }
        out.push(phrase);
        if out.len() == MAX_PER_DESCRIPTION {
            break;
        }
    }
    out
}

fn is_quote(c: char) -> bool {
    QUOTES.iter().any(|(open, close)| c == *open || c == *close)
}

/// The text between matching quotes. A straight single quote opens only
/// at the start of a word and closes only at its end, so an apostrophe
/// (`don't`, `card's`) is no quote.
fn quoted(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let Some(close) = QUOTES.iter().find(|(open, _)| *open == c).map(|q| q.1) else {
            i += 1;
            continue;
        };
        let straight = c == '\'';
        if straight && i > 0 && chars[i - 1].1.is_alphanumeric() {
            i += 1;
            continue;
        }
        let end = (i + 1..chars.len()).find(|&j| {
            chars[j].1 == close
                && (!straight || chars.get(j + 1).is_none_or(|(_, n)| !n.is_alphanumeric()))
        });
        match end {
            Some(j) => {
                out.push(&text[start + c.len_utf8()..chars[j].0]);
                i = j + 1;
            }
            None => i += 1,
        }
    }
    out
}

/// The text after each cue word, up to the end of its sentence (`.`, `!`,
/// `?`, `;`, a closing parenthesis or a line break), in the order the cues
/// appear.
fn cued(text: &str) -> Vec<&str> {
    // ASCII lowercase keeps every byte offset of `text`.
    let lower = text.to_ascii_lowercase();
    let mut found: Vec<(usize, usize)> = Vec::new();
    for cue in CUES {
        for (at, _) in lower.match_indices(cue) {
            let before = lower[..at].chars().next_back();
            let after = lower[at + cue.len()..].chars().next();
            let word_start = before.is_none_or(|c| !c.is_alphanumeric());
            let word_end = cue.ends_with('.') || after.is_none_or(|c| !c.is_alphanumeric());
            if word_start && word_end {
                found.push((at, at + cue.len()));
            }
        }
    }
    found.sort_unstable();
    found
        .into_iter()
        .map(|(_, from)| {
            let rest = text[from..]
                .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | '('));
            let end = rest
                .find(['.', '!', '?', ';', ')', '\n'])
                .unwrap_or(rest.len());
            &rest[..end]
        })
        // A cue followed by a quote: the quoted phrase is taken already.
        .filter(|sentence| !sentence.starts_with(is_quote))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_phrases_come_first_then_the_sentences_after_a_cue() {
        assert_eq!(
            phrases(r#"Plans trips. Try "plan a trip to Lisbon": it asks where from."#),
            ["plan a trip to Lisbon"]
        );
        assert_eq!(
            phrases("Books tables, e.g. book a table for two. Also “cancel my booking”."),
            ["cancel my booking", "book a table for two"]
        );
        assert_eq!(
            phrases("Answers questions such as: what is the weather in Paris? For example (weather in Rome)"),
            ["what is the weather in Paris", "weather in Rome"]
        );
        assert_eq!(
            phrases("Say 'book it' or ‘cancel it’ to start"),
            ["book it", "cancel it"]
        );
    }

    #[test]
    fn apostrophes_backticks_and_words_that_contain_a_cue_are_no_phrases() {
        assert!(
            phrases("The card's skill doesn't retry; it answers `need-input` entries.").is_empty()
        );
        assert!(phrases("A country (trying hard) with a \"\" and \"ab\"").is_empty());
    }

    #[test]
    fn a_description_gives_a_few_short_phrases_at_most() {
        let many = (0..10)
            .map(|i| format!("\"phrase {i}\""))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(phrases(&many), ["phrase 0", "phrase 1", "phrase 2"]);
        let long = format!("Try {}.", "x".repeat(MAX_CHARS + 1));
        assert!(phrases(&long).is_empty());
        let unclosed = "Say \"never closed";
        assert!(phrases(unclosed).is_empty());
        // Multi-byte text around a cue keeps its offsets.
        assert_eq!(phrases("Ünïcode — e.g. grüß mich."), ["grüß mich"]);
    }
}
