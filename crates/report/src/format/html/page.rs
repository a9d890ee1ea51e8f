//! The shell every page shares: one inline style sheet and no script. The
//! style sheet is allowed by its SHA-256 in the Content-Security-Policy
//! (not `'unsafe-inline'`), so no style a peer string could smuggle in
//! applies, and nothing else loads: an air-gapped operator sees the same
//! page as anyone.

use base64::Engine as _;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use sha2::{Digest, Sha256};

/// The one style sheet, inline in every page.
const CSS: &str = "\
body{font-family:system-ui,-apple-system,'DejaVu Sans',sans-serif;margin:1.5rem;color:#1d2329;background:#fff;line-height:1.4}\
h1{font-size:1.4rem;margin:0 0 .5rem}h2{font-size:1.15rem;margin:1.5rem 0 .4rem;overflow-wrap:anywhere}\
h3{font-size:1rem;margin:1rem 0 .3rem}\
table{border-collapse:collapse;margin:.4rem 0 1rem}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;vertical-align:top;text-align:left}\
th{background:#f3f5f7}td.why{max-width:48rem;overflow-wrap:anywhere}\
code,pre{font-family:'DejaVu Sans Mono',monospace;font-size:.85rem}\
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0}\
.muted{color:#57606a}.note{border-left:4px solid #d4a72c;padding:.2rem .6rem;background:#fff8e1}\
.verdict{display:inline-block;padding:0 .4rem;border-radius:.3rem;font-weight:600;white-space:nowrap}\
.v-honoured,.s-pass{background:#d1f0dc;color:#14532d}.v-diverged,.s-fail{background:#fbd3d0;color:#7f1d1d}\
.v-unverified,.s-inconclusive,.s-error{background:#fdf0c4;color:#6b4e00}\
.v-not-declared,.s-skipped{background:#eceff1;color:#455a64}.v-over-delivers,.s-flaky{background:#d6e4ff;color:#1e3a8a}\
.r-pass{background:#d1f0dc;color:#14532d}.r-fail,.r-error{background:#fbd3d0;color:#7f1d1d}.r-unverified{background:#fdf0c4;color:#6b4e00}\
.scroll{overflow-x:auto}.grid td{text-align:center}.grid th.peer{min-width:16rem;max-width:26rem;overflow-wrap:anywhere}.grid thead th{max-width:9rem;overflow-wrap:anywhere;font-size:.8rem}\
.cell a{color:inherit;text-decoration:none}\
details{margin:.3rem 0 .6rem;border:1px solid #d0d7de;border-radius:.3rem;padding:.3rem .6rem}\
summary{cursor:pointer}.steps td{font-size:.85rem}.steps td.at{white-space:nowrap;text-align:right}\
svg.axis{display:block;margin:.4rem 0}\
";

/// A bidirectional embedding, override or isolate (U+202A–U+202E,
/// U+2066–U+2069): a browser shows its reference alike, and a terminal or
/// an editor showing the raw page cannot be made to reorder what it shows.
fn bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `'sha256-…'`: the style sheet's source in a CSP.
fn style_source() -> String {
    let digest = Sha256::digest(CSS.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The Content-Security-Policy of the dashboard's responses: nothing loads
/// but the inline style sheet (by hash) and images from the dashboard
/// itself or `data:`; no script, no form, no frame, no base.
pub fn content_security_policy() -> String {
    format!(
        "default-src 'none'; style-src {}; img-src 'self' data:; form-action 'none'; \
         frame-ancestors 'none'; base-uri 'none'",
        style_source()
    )
}

/// The policy a report file carries in a `<meta>` (opened from disk, it has
/// no headers): the same, less what a meta policy cannot say.
fn file_policy() -> String {
    format!(
        "default-src 'none'; style-src {}; img-src data:; form-action 'none'; base-uri 'none'",
        style_source()
    )
}

/// Where a page is shown: served by the dashboard (its policy in the
/// response's headers) or written as a file (its policy in a `<meta>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// Served over HTTP, the policy in the response's headers.
    Served,
    /// Written to a file, the policy in a `<meta>`.
    File,
}

/// A whole page: `title` (text, escaped) and `body`.
pub fn page(shell: Shell, title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                @if shell == Shell::File {
                    meta http-equiv="Content-Security-Policy" content=(file_policy());
                }
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body { (body) }
        }
    }
    .into_string()
    .chars()
    .fold(String::new(), |mut out, c| {
        // maud escapes markup, not control characters: a peer's ESC would
        // reach a terminal that `check --html -` writes to. As a character
        // reference it is inert there and shown alike by a browser.
        if (c.is_control() && !matches!(c, '\n' | '\t')) || bidi_control(c) {
            out.push_str(&format!("&#x{:X};", u32::from(c)));
        } else {
            out.push(c);
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_allows_the_style_sheet_by_its_hash_and_no_script() {
        let policy = content_security_policy();
        assert!(policy.starts_with("default-src 'none'; style-src 'sha256-"));
        assert!(!policy.contains("script"));
        assert!(!policy.contains("unsafe"));
        let page = page(Shell::File, "<t>", html! { p { "x" } });
        assert!(page.contains(&style_source()), "{page}");
        assert!(page.contains("<title>&lt;t&gt;</title>"), "{page}");
    }

    fn page_of(title: &str) -> String {
        page(Shell::File, title, html! { p { "x" } })
    }

    #[test]
    fn control_characters_are_character_references() {
        let page = page(
            Shell::File,
            "a\u{1b}]0;pwned\u{7}",
            html! { p { "x\u{1b}[2J\r" } },
        );
        assert!(
            !page.chars().any(|c| c.is_control() && c != '\n'),
            "{page:?}"
        );
        assert!(page.contains("a&#x1B;]0;pwned&#x7;"), "{page}");
        assert!(page.contains("x&#x1B;[2J&#xD;"), "{page}");
        let page = page_of("\u{202e}gpj.exe\u{2066}");
        assert!(page.contains("&#x202E;gpj.exe&#x2066;"), "{page}");
    }
}
