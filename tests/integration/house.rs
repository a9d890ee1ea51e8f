//! The house rules the compiler does not check, checked here so they hold
//! without a reviewer: the crates depend on each other only down the
//! pipeline (docs/architecture.md), no file of a crate imports a file that
//! imports it back, nor a top-level module of a crate one that imports it
//! back (the crate stacks as floors), the report formats are one table
//! (every `Format`'s flag on `check` and `merge`, spelled nowhere else), no
//! function passes 100 lines, no `Result<_, String>`,
//! every source file opens with a `//!`, and every library crate denies
//! missing docs.
//!
//! The import graph is read from the source text (`use` paths and inline
//! `crate::`/`super::`/`self::` paths, re-exports followed to the file that
//! defines the item), test code left out: a test module importing its
//! parent is no cycle of the product.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Each crate of the workspace, its source folder, and the workspace
/// crates its `[dependencies]` may name (dev-dependencies are free).
const LAYERS: &[(&str, &str, &[&str])] = &[
    ("a2a-conform-protocol", "crates/protocol", &[]),
    (
        "a2a-conform-client",
        "crates/client",
        &["a2a-conform-protocol"],
    ),
    ("a2a-conform-mock", "crates/mock", &["a2a-conform-protocol"]),
    ("a2a-conform-report-schema", "crates/report-schema", &[]),
    (
        "a2a-conform-report",
        "crates/report",
        &["a2a-conform-protocol", "a2a-conform-report-schema"],
    ),
    (
        "a2a-conform-engine",
        "crates/engine",
        &[
            "a2a-conform-protocol",
            "a2a-conform-client",
            "a2a-conform-report",
        ],
    ),
    (
        "a2a-conform-history",
        "crates/history",
        &["a2a-conform-report"],
    ),
    (
        "a2a-conform-guard",
        "crates/guard",
        &[
            "a2a-conform-protocol",
            "a2a-conform-client",
            "a2a-conform-report-schema",
        ],
    ),
    (
        "a2a-conform-cassette",
        "crates/cassette",
        &["a2a-conform-report", "a2a-conform-client"],
    ),
    (
        "a2a-conform-dashboard",
        "crates/dashboard",
        &["a2a-conform-report", "a2a-conform-history"],
    ),
    (
        "a2a-conform-watch",
        "crates/watch",
        &[
            "a2a-conform-client",
            "a2a-conform-report",
            "a2a-conform-history",
        ],
    ),
    (
        "a2a-conform",
        ".",
        &[
            "a2a-conform-protocol",
            "a2a-conform-client",
            "a2a-conform-mock",
            "a2a-conform-report-schema",
            "a2a-conform-report",
            "a2a-conform-engine",
            "a2a-conform-guard",
            "a2a-conform-cassette",
            "a2a-conform-dashboard",
            "a2a-conform-history",
            "a2a-conform-watch",
        ],
    ),
];

/// The workspace crates a manifest's `[dependencies]` table names.
fn workspace_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut in_deps = false;
    let mut found = BTreeSet::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && line.starts_with("a2a-conform") {
            let name = line.split(['.', ' ', '=']).next().unwrap_or_default();
            found.insert(name.to_string());
        }
    }
    found
}

#[test]
fn crates_depend_only_down_the_pipeline() {
    let members: BTreeSet<String> = std::fs::read_dir(Path::new(ROOT).join("crates"))
        .expect("crates/ is listed")
        .map(|entry| {
            entry
                .expect("a crates/ entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let layered: BTreeSet<String> = LAYERS
        .iter()
        .filter_map(|(_, dir, _)| dir.strip_prefix("crates/").map(str::to_string))
        .collect();
    assert_eq!(
        members, layered,
        "every crate has its place in LAYERS (and in docs/architecture.md)"
    );
    for (name, dir, allowed) in LAYERS {
        let manifest = std::fs::read_to_string(Path::new(ROOT).join(dir).join("Cargo.toml"))
            .expect("the manifest is readable");
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{dir} is {name}"
        );
        for dependency in workspace_dependencies(&manifest) {
            assert!(
                allowed.contains(&dependency.as_str()),
                "{name} depends on {dependency}, which is not below it in the pipeline"
            );
        }
    }
}

/// A crate's source files by module path (`lib.rs` is the empty path).
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut found = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder is listed") {
            let path = entry.expect("a source entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("below src");
            let mut segments: Vec<String> = relative
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                segments.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                segments.pop();
            }
            found.insert(segments, path);
        }
    }
    found
}

/// A file's text without its test code: everything from the first
/// `#[cfg(test)]` at the start of a line (the tests module sits last).
fn product_text(text: &str) -> &str {
    text.find("\n#[cfg(test)]").map_or(text, |at| &text[..at])
}

/// The paths of `use` items, braces expanded: `a::{b, c::d}` is `a::b`
/// and `a::c::d`; `self` in a group is the group's prefix.
fn expand_use(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        let path = path.strip_suffix("::self").unwrap_or(path);
        if path == "self" {
            out.push(prefix.trim_end_matches("::").to_string());
        } else if !path.is_empty() {
            out.push(format!("{prefix}{path}"));
        }
        return;
    };
    let head = &tree[..open];
    let body = tree[open + 1..].trim_end().trim_end_matches('}');
    let mut depth = 0;
    let mut start = 0;
    for (i, ch) in body.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand_use(&body[start..i], &format!("{prefix}{head}"), out);
                start = i + 1;
            }
            _ => {}
        }
    }
    expand_use(&body[start..], &format!("{prefix}{head}"), out);
}

/// What one file imports and re-exports, as paths relative to its module.
struct FileImports {
    /// Every path the file names (`use` items and inline paths).
    paths: Vec<String>,
    /// `pub use` items: the name they are known by here, and their path.
    reexports: Vec<(String, String)>,
    /// Child modules the file declares (`mod x;`), which its relative
    /// paths may start with.
    children: BTreeSet<String>,
}

fn read_imports(text: &str) -> FileImports {
    // Comments (doc links among them) name paths without importing them.
    let code: String = product_text(text)
        .lines()
        .map(|line| line.split("//").next().unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let mut paths = Vec::new();
    let mut reexports = Vec::new();
    let mut children = BTreeSet::new();
    let statements = text.split(';');
    for statement in statements {
        let code: String = statement
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join(" ");
        let code = code.trim();
        let tail = code.rsplit(['}', ']']).next().unwrap_or(code).trim();
        let item = if code.contains("use ") { code } else { tail };
        if let Some(at) = item.find("use ") {
            let before = item[..at].trim_end();
            if before.is_empty()
                || before.ends_with("pub")
                || before.ends_with(')')
                || before.ends_with('}')
                || before.ends_with(']')
            {
                let mut expanded = Vec::new();
                expand_use(&item[at + 4..], "", &mut expanded);
                if before.ends_with("pub") || before.ends_with(')') && before.contains("pub(") {
                    for path in &expanded {
                        let name = path.rsplit("::").next().unwrap_or(path).to_string();
                        reexports.push((name, path.clone()));
                    }
                }
                paths.extend(expanded);
            }
        }
        if let Some(name) = tail
            .strip_prefix("mod ")
            .or_else(|| tail.strip_prefix("pub mod "))
            .or_else(|| tail.strip_prefix("pub(crate) mod "))
        {
            children.insert(name.trim().to_string());
        }
    }
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
        if word.starts_with("crate::") || word.starts_with("super::") || word.starts_with("self::")
        {
            paths.push(word.trim_end_matches(':').to_string());
        }
    }
    FileImports {
        paths,
        reexports,
        children,
    }
}

/// A path named in module `at` as absolute segments of the crate, or
/// `None` when it leaves the crate (std, another crate).
fn absolute(path: &str, at: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<String> = match segments.first().copied() {
        Some("crate") => {
            segments.remove(0);
            Vec::new()
        }
        Some("self") => {
            segments.remove(0);
            at.to_vec()
        }
        Some("super") => {
            let mut base = at.to_vec();
            while segments.first() == Some(&"super") {
                segments.remove(0);
                base.pop();
            }
            base
        }
        Some(first) if children.contains(first) => at.to_vec(),
        _ => return None,
    };
    base.extend(segments.iter().map(|s| s.to_string()));
    Some(base)
}

struct Crate {
    files: BTreeMap<Vec<String>, PathBuf>,
    imports: BTreeMap<Vec<String>, FileImports>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let files = modules(src);
        let imports = files
            .iter()
            .map(|(module, path)| {
                let text = std::fs::read_to_string(path).expect("a source file is readable");
                (module.clone(), read_imports(&text))
            })
            .collect();
        Crate { files, imports }
    }

    /// The module whose file defines what `target` names: the longest
    /// prefix that is a file, following that file's re-exports.
    fn defining_file(&self, target: &[String], hops: usize) -> Option<Vec<String>> {
        let module = (0..=target.len())
            .rev()
            .map(|n| target[..n].to_vec())
            .find(|prefix| self.files.contains_key(prefix))?;
        let Some(item) = target.get(module.len()) else {
            return Some(module);
        };
        let imports = &self.imports[&module];
        let reexport = imports
            .reexports
            .iter()
            .find(|(name, _)| name == item || name == "*");
        match reexport {
            Some((_, path)) if hops < 8 => {
                let mut next = absolute(path, &module, &imports.children)?;
                if next.last().is_some_and(|s| s == "*") {
                    next.pop();
                    next.push(item.clone());
                }
                next.extend(target[module.len() + 1..].iter().cloned());
                self.defining_file(&next, hops + 1).or(Some(module))
            }
            _ => Some(module),
        }
    }

    fn edges(&self) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (module, imports) in &self.imports {
            if module.iter().any(|s| s == "tests") {
                continue;
            }
            for path in &imports.paths {
                let Some(target) = absolute(path, module, &imports.children) else {
                    continue;
                };
                // A module naming its own children (declaring or
                // re-exporting them) is how Rust nests; only the way back
                // up can close a cycle.
                if target.starts_with(module) {
                    continue;
                }
                if let Some(to) = self.defining_file(&target, 0) {
                    if &to != module && !to.iter().any(|s| s == "tests") {
                        edges.entry(module.clone()).or_default().insert(to);
                    }
                }
            }
        }
        edges
    }
}

/// Strongly connected components of more than one file (Tarjan).
fn cycles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<Vec<String>, usize>,
        low: BTreeMap<Vec<String>, usize>,
        stack: Vec<Vec<String>>,
        on_stack: BTreeSet<Vec<String>>,
        found: Vec<Vec<Vec<String>>>,
    }
    fn visit(state: &mut State, node: &Vec<String>) {
        let n = state.index.len();
        state.index.insert(node.clone(), n);
        state.low.insert(node.clone(), n);
        state.stack.push(node.clone());
        state.on_stack.insert(node.clone());
        for next in state.edges.get(node).into_iter().flatten() {
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node.clone(), low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node.clone(), low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(&top);
                let done = &top == node;
                component.push(top);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let mut report = Vec::new();
    for (name, dir, _) in LAYERS {
        let src = Path::new(ROOT).join(dir).join("src");
        let krate = Crate::read(&src);
        for component in cycles(&krate.edges()) {
            let files: Vec<String> = component
                .iter()
                .map(|m| {
                    krate.files[m]
                        .strip_prefix(ROOT)
                        .unwrap_or(&krate.files[m])
                        .display()
                        .to_string()
                })
                .collect();
            report.push(format!("{name}: {}", files.join(" <-> ")));
        }
    }
    assert!(report.is_empty(), "import cycles:\n{}", report.join("\n"));
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let mut edges = BTreeMap::new();
    let (a, b, c) = (
        vec!["a".to_string()],
        vec!["b".to_string()],
        vec!["c".to_string()],
    );
    edges.insert(a.clone(), BTreeSet::from([b.clone()]));
    edges.insert(b.clone(), BTreeSet::from([a.clone(), c.clone()]));
    let found = cycles(&edges);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 2);
    let imports =
        read_imports("use crate::{a::{self, B}, c::D as E};\npub use inner::F;\nmod inner;\n");
    assert!(
        imports.paths.contains(&"crate::a".to_string()),
        "{:?}",
        imports.paths
    );
    assert!(
        imports.paths.contains(&"crate::c::D".to_string()),
        "{:?}",
        imports.paths
    );
    assert_eq!(
        imports.reexports,
        [("F".to_string(), "inner::F".to_string())]
    );
    assert!(imports.children.contains("inner"));
}

/// Every `.rs` file of the product: each crate's `src/`.
fn product_files() -> Vec<PathBuf> {
    LAYERS
        .iter()
        .flat_map(|(_, dir, _)| modules(&Path::new(ROOT).join(dir).join("src")).into_values())
        .collect()
}

/// Functions longer than `max` lines: from a `fn` line to the `}` at its
/// indentation.
fn long_functions(text: &str, max: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let signature = code
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ")
            .trim_start_matches("const ")
            .trim_start_matches("async ");
        let Some(rest) = signature.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
            let length = end + 2;
            let declaration_only = lines[i..=i + end]
                .iter()
                .any(|l| l.trim_end().ends_with(';') && !l.contains('{'))
                && !lines[i..=i + end].iter().any(|l| l.contains('{'));
            if length > max && !declaration_only {
                found.push((i + 1, name, length));
            }
        }
    }
    found
}

#[test]
fn no_function_passes_a_hundred_lines() {
    let mut report = Vec::new();
    for path in product_files() {
        let text = std::fs::read_to_string(&path).expect("a source file is readable");
        for (line, name, length) in long_functions(&text, 100) {
            report.push(format!("{}:{line} {name}: {length} lines", path.display()));
        }
    }
    assert!(
        report.is_empty(),
        "functions over 100 lines:\n{}",
        report.join("\n")
    );
    assert!(string_errors("fn f() -> Result<Vec<u8>, String> {"));
    assert!(!string_errors(
        "fn f() -> Result<BTreeMap<String, String>, UsageError> {"
    ));
    let long = format!("fn f() {{\n{}}}\n", "    x();\n".repeat(101));
    assert_eq!(
        long_functions(&long, 100).len(),
        1,
        "the measure sees a long function"
    );
}

/// Whether a line names a `Result` whose error type is a bare `String`
/// (the type arguments split at their top-level comma).
fn string_errors(code: &str) -> bool {
    code.match_indices("Result<").any(|(at, _)| {
        let mut depth = 0;
        let mut comma = None;
        for (i, ch) in code[at + 7..].char_indices() {
            match ch {
                '<' | '(' => depth += 1,
                ',' if depth == 0 => comma = Some(i),
                '>' | ')' if depth == 0 => {
                    let error = comma.map(|c| code[at + 7 + c + 1..at + 7 + i].trim());
                    return error == Some("String");
                }
                '>' | ')' => depth -= 1,
                _ => {}
            }
        }
        false
    })
}

#[test]
fn errors_are_typed_and_every_file_says_its_job() {
    let mut report = Vec::new();
    for path in product_files() {
        let text = std::fs::read_to_string(&path).expect("a source file is readable");
        if !text.trim_start().starts_with("//!") {
            report.push(format!(
                "{}: opens without a `//!` saying its job",
                path.display()
            ));
        }
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or(line);
            if string_errors(code) {
                report.push(format!(
                    "{}:{}: a Result with a String error",
                    path.display(),
                    n + 1
                ));
            }
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn library_crates_deny_missing_docs() {
    for (name, dir, _) in LAYERS.iter().filter(|(_, dir, _)| *dir != ".") {
        let lib = std::fs::read_to_string(Path::new(ROOT).join(dir).join("src/lib.rs"))
            .expect("lib.rs is readable");
        assert!(
            lib.contains("#![deny(missing_docs)]"),
            "{name}'s lib.rs denies missing docs"
        );
    }
}

/// Folder-level back-up imports still to be undone (issue 35, item 5: the
/// run toolkit moves below `steps/`); no new pair may join them.
const KNOWN_FOLDER_CYCLES: &[&str] = &["a2a-conform-engine: steps <-> scenario <-> runner"];

/// Within a crate, its top-level modules (a folder, or a file beside
/// `lib.rs`) stack: none imports one that imports it back, so the crate
/// reads bottom-up as floors (no arrow runs back up inside it).
#[test]
fn no_folder_imports_a_folder_that_imports_it_back() {
    let mut found = Vec::new();
    for (name, dir, _) in LAYERS {
        let src = Path::new(ROOT).join(dir).join("src");
        let krate = Crate::read(&src);
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (from, targets) in krate.edges() {
            let Some(top) = from.first() else {
                continue;
            };
            for to in targets {
                if let Some(other) = to.first().filter(|other| *other != top) {
                    edges
                        .entry(vec![top.clone()])
                        .or_default()
                        .insert(vec![other.clone()]);
                }
            }
        }
        for component in cycles(&edges) {
            let names: Vec<String> = component.iter().map(|m| m.join("::")).collect();
            found.push(format!("{name}: {}", names.join(" <-> ")));
        }
    }
    let new: Vec<&String> = found
        .iter()
        .filter(|cycle| !KNOWN_FOLDER_CYCLES.contains(&cycle.as_str()))
        .collect();
    assert!(
        new.is_empty(),
        "top-level modules importing each other:\n{}",
        new.iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for known in KNOWN_FOLDER_CYCLES {
        assert!(
            found.iter().any(|c| c == known),
            "{known} is undone: take it off KNOWN_FOLDER_CYCLES"
        );
    }
}

/// The report formats are one table: every `Format` has its flag on both
/// `check` and `merge` (one `ReportFiles` struct), and no product file but
/// the format table and that struct spells a format's flag.
#[test]
fn report_formats_are_one_table() {
    use a2a_conform_report::Format;
    for command in ["check", "merge"] {
        let help = crate::common::run(&[command, "--help"]);
        for format in Format::all() {
            assert!(
                help.stdout.contains(&format!("{} <FILE>", format.flag())),
                "{command} --help has no {}:\n{}",
                format.flag(),
                help.stdout
            );
        }
    }
    let table = [
        Path::new(ROOT).join("crates/report/src/format/mod.rs"),
        Path::new(ROOT).join("src/cli.rs"),
    ];
    let mut spelled = Vec::new();
    for file in product_files() {
        if table.contains(&file) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable");
        for format in Format::all() {
            if product_text(&text).contains(&format!("\"{}\"", format.flag())) {
                spelled.push(format!("{} spells \"{}\"", file.display(), format.flag()));
            }
        }
    }
    assert!(spelled.is_empty(), "{}", spelled.join("\n"));
}

/// The packages `cargo tree` lists for `package`'s normal dependencies.
fn packages(package: &str, extra: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            package,
            "-e",
            "normal",
        ])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(extra)
        .current_dir(ROOT)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The databases are features: the CLI's default build has the PostgreSQL
/// client, a `--no-default-features` build none of it (SQLite stays).
#[test]
fn postgres_is_a_feature_of_the_cli() {
    let has =
        |tree: &str, package: &str| tree.lines().any(|l| l.starts_with(&format!("{package} v")));
    let default = packages("a2a-conform", &[]);
    assert!(
        has(&default, "postgres") && has(&default, "rusqlite"),
        "{default}"
    );
    let lean = packages("a2a-conform", &["--no-default-features"]);
    assert!(
        !has(&lean, "postgres") && !has(&lean, "tokio-postgres"),
        "{lean}"
    );
    assert!(has(&lean, "rusqlite"), "{lean}");
}

/// The report's schema crate is lean, as nextest-metadata is: a consumer
/// of `check --json` compiles serde, serde_json, strum, thiserror and
/// humantime and what they need — never clap, tokio, reqwest, the client
/// or the protocol crate.
#[test]
fn the_report_schema_crate_needs_no_runtime() {
    let tree = packages("a2a-conform-report-schema", &[]);
    for heavy in [
        "clap",
        "tokio",
        "reqwest",
        "schemars",
        "a2a-conform-protocol",
        "a2a-conform-client",
    ] {
        assert!(
            !tree.lines().any(|l| l.starts_with(&format!("{heavy} v"))),
            "{heavy} in the schema crate's tree:\n{tree}"
        );
    }
    let packages: BTreeSet<&str> = tree.lines().filter_map(|l| l.split(' ').next()).collect();
    // 22 today (serde and strum derive through syn): the report crate pulls 119.
    assert!(packages.len() <= 25, "{} packages:\n{tree}", packages.len());
}
