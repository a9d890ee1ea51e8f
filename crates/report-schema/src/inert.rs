//! Text from a peer or a report file, made inert for the place it is shown.
//!
//! A peer chooses its card's name, its skill ids (and so declaration and run
//! ids), its error messages and every byte of evidence; a report file given
//! to `diff` may come from anyone. Shown raw, such text could clear the
//! screen and forge a green `honoured` line, turn a Markdown summary into
//! links and images, make a JUnit file no CI can parse, or ping a Slack channel
//! from an alert. Each sink has one
//! function here, applied where the text is written, never earlier: the JSON
//! report keeps the peer's exact text (serde escapes it).
//!
//! A control character is shown, not dropped: `\u{1b}` tells a reader the
//! peer sent an escape sequence, and the text stays one line.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether a terminal would act on `c` rather than print it: C0 and C1
/// controls, DEL, and the bidirectional overrides and isolates that reorder
/// what follows them (the "Trojan Source" characters).
fn acts_on_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// Rewrites the characters `escape` picks as `\u{…}` (`\r` and `\t` by name);
/// borrows when there is nothing to rewrite.
fn escape_with(text: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            _ if !escape(c) => out.push(c),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            _ => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// One line for a terminal: every control character (ESC, CSI and OSC
/// introducers, CR, LF, BEL, backspace, DEL, C1) and bidi override shown
/// visibly, so the text can neither move the cursor nor start a new line.
pub fn terminal(text: &str) -> Cow<'_, str> {
    escape_with(text, acts_on_terminal)
}

/// A YAML double-quoted scalar holding `text` as written: `"` and the
/// backslash escaped, and every character [`terminal`] would show visibly (and the
/// line and paragraph separators, which YAML reads as line breaks) as a
/// `\uXXXX` escape, so the scalar is one line that neither a YAML reader
/// nor a terminal printing the file acts on.
pub fn yaml_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if acts_on_terminal(c) || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// [`terminal`], but newlines and tabs are kept: for multi-line messages
/// such as a YAML error with its snippet.
pub fn terminal_block(text: &str) -> Cow<'_, str> {
    escape_with(text, |c| c != '\n' && c != '\t' && acts_on_terminal(c))
}

/// The characters that open or close an inline Markdown construct:
/// emphasis, code, links and images, raw HTML and entities, strikethrough,
/// GitHub's math, table cells, and the escape itself.
const MARKDOWN_SPECIAL: &str = "\\`*_[]<>|!#~&$";

/// Text for a Markdown paragraph or table cell, shown as written: the
/// characters ``\`*_[]<>|!#~&$`` are backslash-escaped (so `|`,
/// `![img](…)`, links, emphasis, headings and HTML tags are inert), so is a
/// list or heading marker at the start; a word holding a URL (`://`,
/// `www.`) becomes a code span (the `:`, `;`, `,` or `.` ending a clause
/// after it left outside) and `@` one of its own, so GFM's extended
/// autolinks and mentions find no URL, address or user (they are found
/// after escapes and entities are decoded, but never inside code); and
/// controls, including newlines, are shown as in [`terminal`], so a table
/// row never breaks.
pub fn markdown_text(text: &str) -> String {
    let shown = terminal(text);
    let mut out = String::with_capacity(shown.len() + 16);
    // Until the first character that cannot start a block marker.
    let mut at_start = true;
    for (n, word) in shown.split(' ').enumerate() {
        if n > 0 {
            out.push(' ');
        }
        let lower = word.to_ascii_lowercase();
        if lower.contains("://") || lower.contains("www.") {
            // Sentence punctuation after a URL (`…/card.json: refused`)
            // stays outside the code span, as a reader sees it.
            let url = word.trim_end_matches([':', ';', ',', '.']);
            out.push_str(&markdown_code(url));
            out.push_str(&word[url.len()..]);
            at_start = false;
            continue;
        }
        let mut chars = word.chars();
        let mut digits = false;
        while let Some(c) = chars.next() {
            // `- `, `+ `, `=`, `1. `, `1) `: a list item, a setext underline
            // or a thematic break when the text starts a line.
            let marker = at_start
                && match c {
                    '+' | '-' | '=' => !digits,
                    '.' | ')' => digits && chars.clone().next().is_none(),
                    _ => false,
                };
            digits = c.is_ascii_digit();
            match c {
                '@' => out.push_str("`@`"),
                _ if marker || MARKDOWN_SPECIAL.contains(c) => {
                    out.push('\\');
                    out.push(c);
                }
                _ => out.push(c),
            }
            at_start = at_start && c.is_ascii_digit();
        }
        at_start = at_start && word.is_empty();
    }
    out
}

/// Text as Markdown inline code that fits in a table cell: fenced by more
/// backticks than any run inside it, `|` escaped (GFM reads `\|` as `|`
/// inside a cell's code span), controls shown as in [`terminal`].
pub fn markdown_code(text: &str) -> String {
    let text = terminal(text).replace('|', "\\|");
    let longest = longest_run(&text, '`');
    let ticks = "`".repeat(longest + 1);
    if longest > 0 || text.is_empty() || text.starts_with(' ') || text.ends_with(' ') {
        format!("{ticks} {text} {ticks}")
    } else {
        format!("{ticks}{text}{ticks}")
    }
}

/// A fenced Markdown code block whose fence is longer than any backtick run
/// in `body`; controls other than newlines are shown as in [`terminal`].
pub fn markdown_fenced(lang: &str, body: &str) -> String {
    let body = terminal_block(body);
    let fence = "`".repeat(longest_run(&body, '`').max(2) + 1);
    format!("{fence}{lang}\n{body}{fence}")
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut now) = (0, 0);
    for ch in s.chars() {
        if ch == c {
            now += 1;
            best = best.max(now);
        } else {
            now = 0;
        }
    }
    best
}

/// Whether Slack would start a new line at `c`, or a terminal act on it.
fn breaks_slack_line(c: char) -> bool {
    acts_on_terminal(c) || c == '\u{2028}' || c == '\u{2029}'
}

/// `&`, `<` and `>`, the characters Slack parses in message text (`<!channel>`
/// pings a channel, `<url|label>` shows a link under a label of the
/// sender's choice), as the only entities Slack decodes.
fn slack_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Text of our own for a Slack message's `text`, outside code: `&`, `<`
/// and `>` as Slack's entities, and controls and line separators shown as
/// in [`terminal`], so the text is one line that mentions and links nobody.
/// Slack's mrkdwn emphasis (`*`, `_`, `~`, backtick) has no escape: text a
/// peer chose goes in [`slack_code`].
pub fn slack_text(text: &str) -> String {
    slack_entities(&escape_with(text, breaks_slack_line))
}

/// Text a peer chose, as a Slack inline code span, inside which mrkdwn
/// formats nothing (`*bold*`, `_`, `~`, `:emoji:` stay as written): `&`,
/// `<` and `>` as Slack's entities (Slack parses them inside code too), and
/// controls, line separators and the backtick — which would end the span,
/// and which Slack cannot escape — shown as in [`terminal`] (`\u{60}`).
pub fn slack_code(text: &str) -> String {
    let shown = escape_with(text, |c| c == '`' || breaks_slack_line(c));
    format!("`{}`", slack_entities(&shown))
}

/// Whether XML 1.0 forbids `c` (`Char` production): C0 controls other than
/// tab, LF and CR, and U+FFFE / U+FFFF. A Rust string holds no surrogates.
fn xml_illegal(c: char) -> bool {
    (c.is_control() && u32::from(c) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
        || matches!(c, '\u{fffe}' | '\u{ffff}')
}

/// Text for an XML 1.0 document (JUnit): the characters XML forbids, and
/// DEL, C1 controls and bidi overrides that CI logs would pass to a
/// terminal, shown as in [`terminal`]; tab, LF and CR stay. The XML writer
/// still escapes `<`, `>`, `&` and quotes.
pub fn xml(text: &str) -> Cow<'_, str> {
    escape_with(text, |c| {
        xml_illegal(c) || (!matches!(c, '\t' | '\n' | '\r') && acts_on_terminal(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORGED: &str = "\x1b[2J\x1b[H\x1b[32m✔ honoured\x1b[0m\r\x07\x08\x7f\u{9b}\u{202e}x";

    #[test]
    fn a_yaml_scalar_is_one_inert_line() {
        let quoted = yaml_quoted(&format!("a\"b\\c\n{FORGED}\u{2028}"));
        assert!(!quoted.chars().any(acts_on_terminal), "{quoted}");
        assert!(!quoted.contains('\u{2028}'), "{quoted}");
        assert!(
            quoted.starts_with("\"a\\\"b\\\\c\\u000a\\u001b[2J"),
            "{quoted}"
        );
        assert!(quoted.ends_with("\\u202ex\\u2028\""), "{quoted}");
        assert_eq!(yaml_quoted("plain ✔"), "\"plain ✔\"");
    }

    #[test]
    fn terminal_text_has_no_control_left() {
        let shown = terminal(FORGED);
        assert!(!shown.chars().any(acts_on_terminal), "{shown}");
        assert_eq!(
            shown,
            "\\u{1b}[2J\\u{1b}[H\\u{1b}[32m✔ honoured\\u{1b}[0m\\r\\u{7}\\u{8}\\u{7f}\\u{9b}\\u{202e}x"
        );
        assert_eq!(terminal("a\nb"), "a\\nb");
        assert_eq!(terminal_block("a\n\tb\x1b"), "a\n\tb\\u{1b}");
        assert!(matches!(terminal("plain ✔ text"), Cow::Borrowed(_)));
    }

    #[test]
    fn markdown_text_escapes_every_construct() {
        assert_eq!(
            markdown_text("![x](http://e.vil/a.png) *b* | <img> www.e.vil me@e.vil\n# h"),
            "`![x](http://e.vil/a.png)` \\*b\\* \\| \\<img\\> `www.e.vil` me`@`e.vil\\\\n\\# h"
        );
        assert_eq!(
            markdown_text("cannot reach http://p/a|b: refused"),
            "cannot reach `http://p/a\\|b`: refused"
        );
        assert_eq!(
            markdown_text("at http://p/x. Then www.e.vil/a:b;, done"),
            "at `http://p/x`. Then `www.e.vil/a:b`;, done"
        );
        assert_eq!(markdown_text("1. item"), "1\\. item");
        assert_eq!(markdown_text("- item - x"), "\\- item - x");
        assert_eq!(markdown_text("a.b: c"), "a.b: c");
        assert_eq!(markdown_text("1.0 ---"), "1.0 ---");
        assert_eq!(
            markdown_text("2026-12-01T05:27:00Z"),
            "2026-12-01T05:27:00Z"
        );
        assert_eq!(markdown_text("---"), "\\---");
    }

    #[test]
    fn markdown_code_outfences_backticks_and_keeps_cells() {
        assert_eq!(markdown_code("a|b"), "`a\\|b`");
        assert_eq!(markdown_code("x ``` y"), "```` x ``` y ````");
        assert_eq!(markdown_code("a\nb"), "`a\\nb`");
        assert_eq!(markdown_fenced("text", "``` x\n"), "````text\n``` x\n````");
    }

    #[test]
    fn slack_text_and_code_mention_link_and_format_nothing() {
        let hostile = "<!channel> <https://e.vil|Click me> & *bold* _i_ ~s~ `c`\n>q\u{2028}";
        assert_eq!(
            slack_code(hostile),
            "`&lt;!channel&gt; &lt;https://e.vil|Click me&gt; &amp; *bold* _i_ ~s~ \\u{60}c\\u{60}\\n&gt;q\\u{2028}`"
        );
        assert_eq!(slack_text("a <b> & c\n"), "a &lt;b&gt; &amp; c\\n");
        assert_eq!(slack_code("lifecycle.cancel"), "`lifecycle.cancel`");
    }

    #[test]
    fn xml_text_has_only_legal_characters() {
        let shown = xml("a\x00b\x1bc\td\u{ffff}\u{85}\n");
        assert_eq!(shown, "a\\u{0}b\\u{1b}c\td\\u{ffff}\\u{85}\n");
    }
}
