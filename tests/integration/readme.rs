//! The README tells the truth about what ships: its option table lists every
//! `check` flag (and no other), its mock-peer table every behaviour, and its
//! default-suite table every scenario of the embedded suite with the
//! declaration it verifies. Each side is read from the binary itself
//! (`--help`, `suite list`), so a flag, behaviour or scenario added without
//! its README line fails here.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_a2a-conform");

fn readme() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The README table whose header row is `header`, up to the blank line.
fn table<'a>(readme: &'a str, header: &str) -> &'a str {
    let start = readme
        .find(&format!("\n{header}\n"))
        .unwrap_or_else(|| panic!("README has no table `{header}`"));
    let rest = &readme[start + 1..];
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
    let readme = readme();
    let rows = table(&readme, "| option | meaning |");
    let documented: BTreeSet<String> = rows
        .lines()
        .flat_map(|row| long_flags(row.split(" | ").next().unwrap_or("")))
        .collect();
    assert_eq!(
        shown.difference(&documented).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "flags of `check --help` missing from the README option table"
    );
    assert_eq!(
        documented.difference(&shown).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "README option table rows for flags `check` does not have"
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
    let readme = readme();
    let rows = table(&readme, "| behaviour | what it does |");
    let documented: BTreeSet<String> = rows
        .lines()
        .filter_map(|row| row.strip_prefix("| `"))
        .filter_map(|row| row.split_once('`').map(|(name, _)| name.to_string()))
        .collect();
    assert_eq!(behaviours, documented, "mock-peer --help vs README");
}

#[test]
fn the_suite_table_lists_every_scenario_and_what_it_verifies() {
    let list = stdout(&["suite", "list"]);
    let readme = readme();
    let rows = table(&readme, "| id | verifies | what it checks |");
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
    assert_eq!(missing, Vec::<String>::new(), "README suite table:\n{rows}");
}
