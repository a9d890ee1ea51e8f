//! The documentation tells the truth about what ships. The option table
//! (docs/options.md) lists every `check` flag and no other, the mock-peer
//! table (docs/mock-peer.md) every behaviour, and the default-suite table
//! (docs/scenarios.md) every scenario of the embedded suite with the
//! declaration it verifies; each side is read from the binary itself
//! (`--help`, `suite list`), so a flag, behaviour or scenario added without
//! its row fails here. The README's demo output is the real output. Every
//! relative link and `#anchor` in README.md and docs/*.md resolves (GitHub's
//! anchor rules, on the HTML GitHub's own cmark-gfm renders), every heading
//! and table renders as one, the README stays a newcomer's page, and nothing
//! unpublished is described as shipping.

use crate::common::markdown::github_html;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_a2a-conform");

/// A documentation page, by its path from the repository root.
fn page(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// README.md and every docs/*.md, by path from the root, sorted.
fn pages() -> Vec<String> {
    let mut paths = vec!["README.md".to_string()];
    let docs = Path::new(ROOT).join("docs");
    let mut more: Vec<String> = std::fs::read_dir(&docs)
        .unwrap_or_else(|e| panic!("{}: {e}", docs.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    more.sort();
    paths.extend(more);
    paths
}

fn output(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = output(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The table of `doc` whose header row is `header`, up to the blank line.
fn table<'a>(doc: &'a str, header: &str) -> &'a str {
    let start = doc
        .find(&format!("\n{header}\n"))
        .unwrap_or_else(|| panic!("no table `{header}`"));
    let rest = &doc[start + 1..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

/// The long flags (`--name`) in `text`.
fn long_flags(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.len() > 2 && w.starts_with("--") && w.as_bytes()[2].is_ascii_lowercase())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_option_table_lists_every_check_flag_and_no_other() {
    let help = stdout(&["check", "--help"]);
    // The flag column of each option line: `      --name <VALUE>` or `  -q, --quiet`.
    let mut shown: BTreeSet<String> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .flat_map(|l| long_flags(l.split("  ").find(|p| !p.is_empty()).unwrap_or("")))
        .collect();
    shown.remove("--help");
    let options = page("docs/options.md");
    let rows = table(&options, "| option | meaning |");
    let documented: BTreeSet<String> = rows
        .lines()
        .flat_map(|row| long_flags(row.split(" | ").next().unwrap_or("")))
        .collect();
    assert_eq!(
        shown.difference(&documented).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "flags of `check --help` missing from the option table of docs/options.md"
    );
    assert_eq!(
        documented.difference(&shown).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "docs/options.md option table rows for flags `check` does not have"
    );
}

#[test]
fn the_mock_peer_table_lists_every_behaviour() {
    let help = stdout(&["mock-peer", "--help"]);
    let behaviours: BTreeSet<String> = help
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- "))
        .filter_map(|l| l.split_once(':').map(|(name, _)| name.to_string()))
        .collect();
    assert!(
        behaviours.contains("honest") && behaviours.len() > 10,
        "{help}"
    );
    let mock = page("docs/mock-peer.md");
    let rows = table(&mock, "| behaviour | what it does |");
    let documented: BTreeSet<String> = rows
        .lines()
        .filter_map(|row| row.strip_prefix("| `"))
        .filter_map(|row| row.split_once('`').map(|(name, _)| name.to_string()))
        .collect();
    assert_eq!(
        behaviours, documented,
        "mock-peer --help vs docs/mock-peer.md"
    );
}

#[test]
fn the_suite_table_lists_every_scenario_and_what_it_verifies() {
    let list = stdout(&["suite", "list"]);
    let scenarios = page("docs/scenarios.md");
    let rows = table(&scenarios, "| id | verifies | what it checks |");
    let mut missing = Vec::new();
    for line in list.lines().filter(|l| l.contains("  verifies ")) {
        let (id, rest) = line.split_once("  verifies ").unwrap();
        let row = rows.lines().find(|row| {
            row.split(" | ")
                .next()
                .unwrap_or("")
                .contains(&format!("`{id}`"))
        });
        let Some(row) = row else {
            missing.push(format!("scenario {id}"));
            continue;
        };
        // A fixed id must be in its row; a `for_each` family's (`${declaration}`)
        // is written as a pattern there, e.g. `interfaces[<BINDING> <version>]`.
        for declaration in rest.split(" (").next().unwrap_or("").split(", ") {
            if !declaration.starts_with("${") && !row.contains(&format!("`{declaration}`")) {
                missing.push(format!("{declaration} in the row of {id}"));
            }
        }
    }
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "docs/scenarios.md suite table:\n{rows}"
    );
}

/// `text` with every loopback port written `PORT`, as the docs write it.
fn ports_replaced(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("127.0.0.1:") {
        let (head, tail) = rest.split_at(at + "127.0.0.1:".len());
        out.push_str(head);
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push_str("PORT");
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// The fenced block of `doc` whose first line starts with `first`.
fn block<'a>(doc: &'a str, first: &str) -> &'a str {
    let start = doc
        .find(&format!("```text\n{first}"))
        .or_else(|| doc.find(&format!("```\n{first}")))
        .unwrap_or_else(|| panic!("no block opening with {first}"));
    let body = &doc[doc[start..].find('\n').unwrap() + start + 1..];
    &body[..body.find("```").expect("closing fence")]
}

#[test]
fn the_readme_shows_the_real_demo_output() {
    let readme = page("README.md");
    let shown = block(&readme, "a2a-conform mock peer (honest)");
    let real = ports_replaced(&stdout(&["demo", "--no-config", "--progress", "none"]));
    assert_eq!(shown, real, "README's demo block vs `a2a-conform demo`");
}

#[test]
fn the_verdicts_page_shows_the_real_cancel_leak_table() {
    let verdicts = page("docs/verdicts.md");
    let shown = block(&verdicts, "a2a-conform mock peer (cancel-leak)");
    let out = output(&[
        "demo",
        "--no-config",
        "--progress",
        "none",
        "--behaviour",
        "cancel-leak",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let real = ports_replaced(&String::from_utf8(out.stdout).unwrap());
    // Each row's declaration and verdict (the `why` of the diverged row
    // counts events, which timing may vary), then the headline.
    let rows = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.trim_start().starts_with("DECLARATION"))
            .take_while(|l| !l.is_empty())
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert!(rows(shown).len() > 10, "{shown}");
    assert_eq!(rows(shown), rows(&real), "docs/verdicts.md vs the demo");
    let headline = |text: &str| text.trim_end().lines().last().unwrap_or("").to_string();
    assert_eq!(headline(shown), headline(&real));
}

#[test]
fn the_readme_stays_a_newcomers_page() {
    let readme = page("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 500,
        "README.md has {lines} lines: move reference into docs/"
    );
    for heading in [
        "## Install and first run",
        "## Checking a peer",
        "## Using it in CI",
        "## Exit codes",
        "## Where the rest is",
    ] {
        assert!(
            readme.lines().any(|l| l == heading),
            "README has no `{heading}`"
        );
    }
}

/// Words that describe a published artefact: a line holding one must say
/// "once" (as in "once published") in its block or in the block before it.
const UNPUBLISHED: &[&str] = &[
    "binstall",
    "cargo install --locked a2a-conform",
    "crates.io",
    "releases/download",
    "ghcr.io",
];

#[test]
fn nothing_unpublished_is_described_as_shipping() {
    let mut wrong = Vec::new();
    for path in pages() {
        let text = page(&path);
        let blocks: Vec<&str> = text.split("\n\n").collect();
        for (i, chunk) in blocks.iter().enumerate() {
            let says_once = |b: &str| b.to_lowercase().contains("once");
            let near = says_once(chunk) || (i > 0 && says_once(blocks[i - 1]));
            for word in UNPUBLISHED {
                if chunk.contains(word) && !near {
                    wrong.push(format!("{path}: `{word}` in:\n{chunk}"));
                }
            }
        }
    }
    assert_eq!(wrong, Vec::<String>::new());
}

/// HTML text with its tags removed and the entities cmark-gfm writes decoded.
fn html_text(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// GitHub's anchor for a heading's text (github-slugger): lower case, every
/// character but letters, digits, `-`, `_` and spaces dropped, each space a
/// `-`.
fn slug(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The text of every `<hN>` element of `html`, in order.
fn headings(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<h") {
        rest = &rest[at + 2..];
        let level = rest.chars().next().unwrap_or(' ');
        if !('1'..='6').contains(&level) || !rest[1..].starts_with('>') {
            continue;
        }
        let close = format!("</h{level}>");
        let end = rest.find(&close).expect("closed heading");
        found.push(html_text(&rest[2..end]));
        rest = &rest[end..];
    }
    found
}

/// The anchors GitHub gives a page's headings: a repeated slug gets `-1`,
/// `-2`, ….
fn anchors(html: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut anchors = BTreeSet::new();
    for heading in headings(html) {
        let base = slug(&heading);
        let n = seen.entry(base.clone()).or_insert(0);
        anchors.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    anchors
}

/// Every `href` of `html`, entities decoded.
fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .map(|rest| html_text(&rest[..rest.find('"').unwrap_or(rest.len())]))
        .collect()
}

/// `path` relative to `dir` within `root`, `..` and `.` resolved; `None`
/// when it climbs out of the root.
fn resolve(dir: &Path, path: &str) -> Option<PathBuf> {
    let mut parts: Vec<Component> = dir.components().collect();
    for part in Path::new(path).components() {
        match part {
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            other => parts.push(other),
        }
    }
    Some(parts.iter().collect())
}

/// What is wrong with the relative links of the pages under `root` (paths
/// relative to it): a link to a file that does not exist, or an anchor that
/// is not a heading of its page.
fn broken_links(root: &Path, paths: &[String]) -> Vec<String> {
    let html: BTreeMap<&String, String> = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(root.join(p)).unwrap();
            (p, github_html(&text))
        })
        .collect();
    let mut anchors_of: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for (path, page_html) in &html {
        anchors_of.insert(PathBuf::from(path), anchors(page_html));
    }
    let mut broken = Vec::new();
    for (path, page_html) in &html {
        let dir = Path::new(path.as_str()).parent().unwrap_or(Path::new(""));
        for href in hrefs(page_html) {
            if href.contains("://") || href.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = href.split_once('#').unwrap_or((&href, ""));
            let target = if file.is_empty() {
                PathBuf::from(path.as_str())
            } else {
                match resolve(dir, file) {
                    Some(t) => t,
                    None => {
                        broken.push(format!("{path}: {href} leaves the repository"));
                        continue;
                    }
                }
            };
            if !root.join(&target).exists() {
                broken.push(format!("{path}: {href}: no file {}", target.display()));
                continue;
            }
            if anchor.is_empty() {
                continue;
            }
            match anchors_of.get(&target) {
                Some(known) if known.contains(anchor) => {}
                Some(known) => broken.push(format!(
                    "{path}: {href}: no heading #{anchor} in {} (it has: {known:?})",
                    target.display()
                )),
                None => broken.push(format!(
                    "{path}: {href}: an anchor into {}, which is no checked page",
                    target.display()
                )),
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_and_anchor_in_the_docs_resolves() {
    let paths = pages();
    assert!(paths.len() > 10, "{paths:?}");
    let broken = broken_links(Path::new(ROOT), &paths);
    assert_eq!(broken, Vec::<String>::new());
}

#[test]
fn the_link_check_catches_a_broken_link_and_follows_githubs_anchors() {
    assert_eq!(
        slug("Comparing releases: `diff`"),
        "comparing-releases-diff"
    );
    assert_eq!(slug("The tool's own caps"), "the-tools-own-caps");
    assert_eq!(
        slug("Fleets, sharding and merge"),
        "fleets-sharding-and-merge"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("README.md"),
        "# T\n\n## Runs\n\n## Runs\n\n## `config show`\n\n\
         [a](#runs) [b](#runs-1) [c](#config-show) [d](docs/x.md#x-y) [e](LICENSE)\n\
         [f](#runs-2) [g](docs/none.md) [h](docs/x.md#nope) `[i](#in-code)`\n\n\
         ```\n[j](#in-a-block)\n```\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("docs/x.md"),
        "# X: y\n\n[k](../README.md#t)\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("LICENSE"), "").unwrap();
    let paths = ["README.md".to_string(), "docs/x.md".to_string()];
    let broken = broken_links(dir.path(), &paths);
    let named: Vec<&str> = broken
        .iter()
        .map(|b| b.split(": ").nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        named,
        ["#runs-2", "docs/none.md", "docs/x.md#nope"],
        "{broken:#?}"
    );
}

/// Lines outside fenced code blocks.
fn prose_lines(markdown: &str) -> Vec<&str> {
    let mut fenced = false;
    markdown
        .lines()
        .filter(|line| {
            if line.starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

#[test]
fn every_heading_table_and_code_block_renders_as_one() {
    let mut wrong = Vec::new();
    for path in pages() {
        let text = page(&path);
        let html = github_html(&text);
        let prose = prose_lines(&text);
        let heading_lines = prose
            .iter()
            .filter(|l| {
                let hashes = l.len() - l.trim_start_matches('#').len();
                (1..=6).contains(&hashes) && l[hashes..].starts_with(' ')
            })
            .count();
        let fences = text.lines().filter(|l| l.starts_with("```")).count();
        let blocks = html.matches("<pre").count();
        if fences != 2 * blocks {
            wrong.push(format!(
                "{path}: {fences} fence lines, {blocks} code blocks (one left open?)"
            ));
        }
        let rendered = headings(&html).len();
        if heading_lines != rendered {
            wrong.push(format!(
                "{path}: {heading_lines} heading lines, {rendered} headings"
            ));
        }
        let delimiter =
            |l: &&&str| l.starts_with("|-") || l.starts_with("|:") || l.starts_with("| -");
        let tables = prose.iter().filter(delimiter).count();
        let rows = prose.iter().filter(|l| l.starts_with('|')).count() - tables;
        let (html_tables, html_rows) = (
            html.matches("<table>").count(),
            html.matches("<tr>").count(),
        );
        if (tables, rows) != (html_tables, html_rows) {
            wrong.push(format!(
                "{path}: {tables} tables of {rows} rows written, {html_tables} of {html_rows} rendered"
            ));
        }
        wrong.extend(ragged_rows(&path, &prose));
    }
    assert_eq!(wrong, Vec::<String>::new());
}

/// Table rows with another number of cell separators than their table's
/// header: GitHub drops the cells past the header's silently, so a `|` left
/// unescaped (even in a code span) cuts a row short.
fn ragged_rows(path: &str, prose: &[&str]) -> Vec<String> {
    let separators = |row: &str| {
        let bytes = row.as_bytes();
        (0..bytes.len())
            .filter(|&i| bytes[i] == b'|' && (i == 0 || bytes[i - 1] != b'\\'))
            .count()
    };
    let mut wrong = Vec::new();
    let mut header: Option<usize> = None;
    for line in prose {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let n = separators(line);
        match header {
            None => header = Some(n),
            Some(want) if want != n => wrong.push(format!(
                "{path}: {n} separators, the header has {want}: {line}"
            )),
            Some(_) => {}
        }
    }
    wrong
}
