//! Markdown as GitHub renders it: the tool's Markdown reports and the
//! README are rendered to HTML by cmark-gfm (`cmarkgfm`, pinned, installed
//! on first need by tests/support/install-cmarkgfm.sh; a missing one fails,
//! never skips).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// `markdown` rendered to HTML by GitHub's cmark-gfm.
pub fn github_html(markdown: &str) -> String {
    static ONCE: OnceLock<()> = OnceLock::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ONCE.get_or_init(|| {
        let _ = Command::new("bash")
            .arg(root.join("tests/support/install-cmarkgfm.sh"))
            .status();
    });
    let python = root.join("tests/support/markdown/.venv/bin/python");
    let mut child = Command::new(python)
        .arg(root.join("tests/support/markdown/render.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run cmarkgfm ({e}): the Markdown checks need it. \
                 Install it: bash tests/support/install-cmarkgfm.sh"
            )
        });
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(markdown.as_bytes())
        .expect("cmarkgfm reads its input");
    let out = child.wait_with_output().expect("cmarkgfm ends");
    assert!(out.status.success(), "cmarkgfm failed");
    String::from_utf8(out.stdout).expect("cmarkgfm writes UTF-8")
}
