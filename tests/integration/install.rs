//! How users get a2a-conform: the GitHub workflows (CI and release) pass
//! actionlint, the composite action's metadata passes action-validator (the
//! SchemaStore action schema) and its scripts shellcheck, the release
//! archives are the names `cargo binstall` and the action download, the
//! workflows and GitLab job the README and docs/ci.md show are valid, and
//! the binary prints completions and a man page.
//!
//! The validators are pinned in tests/support/validators/ and installed by
//! tests/support/install-actionlint.sh (on first need, here too). A missing
//! validator fails these tests, naming the script: they are never skipped.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_a2a-conform");
const INSTALL: &str = "bash tests/support/install-actionlint.sh";

pub(crate) fn validators() -> PathBuf {
    Path::new(ROOT).join("tests/support/validators")
}

fn actionlint() -> PathBuf {
    validators().join(".venv/bin/actionlint")
}

fn action_validator() -> PathBuf {
    validators().join("node_modules/.bin/action-validator")
}

/// Runs the install script once per test binary when a validator is missing;
/// the script is idempotent, so a second run (from .ci/run) is a no-op.
fn ensure_validators() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let present = actionlint().is_file()
            && action_validator().is_file()
            && validators().join(".venv/bin/kubernetes-validate").is_file()
            && Command::new("shellcheck").arg("--version").output().is_ok();
        if !present {
            let script = Path::new(ROOT).join("tests/support/install-actionlint.sh");
            let _ = Command::new("bash").arg(script).status();
        }
    });
}

/// Runs a validator; a validator that is not there is a loud failure.
pub(crate) fn run(tool: &Path, args: &[&Path], cwd: &Path) -> Output {
    ensure_validators();
    match Command::new(tool).args(args).current_dir(cwd).output() {
        Ok(out) => out,
        Err(e) => panic!(
            "cannot run {} ({e}): the workflow and action checks need it. Install it: {INSTALL}",
            tool.display()
        ),
    }
}

fn shellcheck(script: &Path) -> Output {
    ensure_validators();
    match Command::new("shellcheck")
        .args(["--shell=bash", "--severity=style"])
        .arg(script)
        .output()
    {
        Ok(out) => out,
        Err(e) => panic!("cannot run shellcheck ({e}). Install it: {INSTALL}"),
    }
}

pub(crate) fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn workflows() -> Vec<PathBuf> {
    let dir = Path::new(ROOT).join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    files
}

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn workflows_pass_actionlint() {
    let files = workflows();
    let names: Vec<_> = files.iter().filter_map(|p| p.file_name()).collect();
    assert!(names.contains(&"ci.yml".as_ref()), "{names:?}");
    assert!(names.contains(&"release.yml".as_ref()), "{names:?}");
    let args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = run(&actionlint(), &args, Path::new(ROOT));
    assert!(out.status.success(), "actionlint:\n{}", text(&out));
}

#[test]
fn actionlint_rejects_a_broken_workflow() {
    // The control: the same invocation does fail on a workflow with faults.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.yml");
    std::fs::write(
        &file,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      \
         - run: echo ${{ github.nope }}\n      - uses: actions/checkout@v6\n        with: { nope: 1 }\n",
    )
    .unwrap();
    let out = run(&actionlint(), &[&file], dir.path());
    assert!(!out.status.success(), "actionlint passed:\n{}", text(&out));
    assert!(text(&out).contains("nope"), "{}", text(&out));
}

#[test]
fn action_metadata_passes_action_validator() {
    let out = run(
        &action_validator(),
        &[Path::new("action.yml")],
        Path::new(ROOT),
    );
    assert!(out.status.success(), "action-validator:\n{}", text(&out));
}

#[test]
fn action_validator_rejects_broken_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("action.yml");
    // A composite step without `shell`, and no description.
    std::fs::write(
        &file,
        "name: x\nruns:\n  using: composite\n  steps:\n    - run: echo\n",
    )
    .unwrap();
    let out = run(&action_validator(), &[&file], dir.path());
    assert!(
        !out.status.success(),
        "action-validator passed:\n{}",
        text(&out)
    );
}

#[test]
fn action_declares_its_interface() {
    let action = yaml(&Path::new(ROOT).join("action.yml"));
    for input in ["card-url", "args", "version"] {
        assert!(action["inputs"][input].is_object(), "no input {input}");
    }
    assert_eq!(action["inputs"]["card-url"]["required"], true);
    assert!(action["outputs"]["junit"]["value"].is_string());
    assert_eq!(action["runs"]["using"], "composite");
}

#[test]
fn action_scripts_pass_shellcheck() {
    let action = yaml(&Path::new(ROOT).join("action.yml"));
    let steps = action["runs"]["steps"].as_array().expect("runs.steps");
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (i, step) in steps.iter().enumerate() {
        let Some(script) = step["run"].as_str() else {
            continue;
        };
        assert_eq!(step["shell"], "bash", "step {i}");
        assert!(
            !script.contains("${{"),
            "step {i} interpolates an expression into its script; pass it through env"
        );
        let file = dir.path().join(format!("step-{i}.sh"));
        std::fs::write(&file, format!("#!/usr/bin/env bash\n{script}")).unwrap();
        let out = shellcheck(&file);
        assert!(
            out.status.success(),
            "shellcheck, step {i}:\n{}",
            text(&out)
        );
        checked += 1;
    }
    assert_eq!(checked, 2, "the install and check steps");
}

/// The release matrix's targets, from release.yml.
fn release_targets() -> Vec<String> {
    let release = yaml(&Path::new(ROOT).join(".github/workflows/release.yml"));
    release["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .expect("build matrix")
        .iter()
        .map(|row| row["target"].as_str().expect("target").to_string())
        .collect()
}

#[test]
fn release_builds_what_binstall_and_the_action_download() {
    let targets = release_targets();
    for want in [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(
            targets.iter().any(|t| t == want),
            "{want} not in {targets:?}"
        );
    }
    let action = std::fs::read_to_string(Path::new(ROOT).join("action.yml")).unwrap();
    for target in &targets {
        assert!(
            action.contains(&format!("target={target}")),
            "action.yml has no {target}"
        );
    }
    // One archive name everywhere: a2a-conform-v<version>-<target>.
    let release =
        std::fs::read_to_string(Path::new(ROOT).join(".github/workflows/release.yml")).unwrap();
    assert!(release.contains(r#"name="a2a-conform-v$version-$TARGET""#));
    assert!(action.contains(r#"name="a2a-conform-$tag-$target""#));
    let manifest = std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    assert!(manifest.contains(
        r#"pkg-url = "{ repo }/releases/download/v{ version }/{ name }-v{ version }-{ target }{ archive-suffix }""#
    ));
    assert!(
        manifest.contains(r#"bin-dir = "{ name }-v{ version }-{ target }/{ bin }{ binary-ext }""#)
    );
    assert!(manifest.contains(r#"repository = "https://github.com/a2a-conform/a2a-conform""#));
    assert!(action.contains("REPO_URL: https://github.com/a2a-conform/a2a-conform\n"));
}

#[test]
fn completions_for_every_shell_know_check() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = Command::new(BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}: {}", text(&out));
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains("check"), "{shell}:\n{script}");
    }
    let out = Command::new(BIN)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn man_prints_roff_documenting_check() {
    let out = Command::new(BIN).arg("man").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{page}");
    assert!(page.contains(".TH a2a-conform 1"), "{page}");
    assert!(page.contains("check"), "{page}");

    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["man", "--out-dir"])
        .arg(dir.path().join("man"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let check = std::fs::read_to_string(dir.path().join("man/a2a-conform-check.1")).unwrap();
    assert!(check.contains(".TH a2a-conform-check 1"), "{check}");
}

/// The ```yaml block of the page `doc` (README.md, docs/ci.md, …) that
/// opens with `first_line`.
pub(crate) fn doc_yaml(doc: &str, first_line: &str) -> String {
    let text = std::fs::read_to_string(Path::new(ROOT).join(doc)).unwrap();
    let start = text
        .find(&format!("```yaml\n{first_line}\n"))
        .unwrap_or_else(|| panic!("{doc} has no yaml block opening with {first_line}"));
    let block = &text[start + "```yaml\n".len()..];
    block[..block.find("```").expect("closing fence")].to_string()
}

/// actionlint's verdict on a workflow written in a page of the docs.
fn lint_doc_workflow(doc: &str, workflow: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a2a-conformance.yml");
    std::fs::write(&file, workflow).unwrap();
    let out = run(&actionlint(), &[&file], dir.path());
    assert!(
        out.status.success(),
        "actionlint, {doc} workflow:\n{}",
        text(&out)
    );
}

#[test]
fn readme_workflow_passes_actionlint_and_uses_the_action() {
    let workflow = doc_yaml("README.md", "# .github/workflows/a2a-conformance.yml");
    assert!(
        workflow.contains("uses: a2a-conform/a2a-conform@v"),
        "{workflow}"
    );
    lint_doc_workflow("README", &workflow);
}

/// The job docs/ci.md offers before a release is published builds the
/// binary from a checkout, as the README's install section does.
#[test]
fn docs_workflow_before_a_release_passes_actionlint_and_builds_from_a_checkout() {
    let workflow = doc_yaml(
        "docs/ci.md",
        "# .github/workflows/a2a-conformance.yml, before a release is published",
    );
    assert!(
        workflow.contains("run: cargo install --locked --path "),
        "{workflow}"
    );
    assert!(!workflow.contains("uses: a2a-conform/"), "{workflow}");
    lint_doc_workflow("docs/ci.md", &workflow);
}

#[test]
fn docs_gitlab_job_downloads_the_release_binary() {
    let job = doc_yaml("docs/ci.md", "# .gitlab-ci.yml");
    let parsed: Value = serde_saphyr::from_str(&job).expect("the GitLab job is YAML");
    let setup = parsed["a2a-conformance"]["before_script"].to_string();
    assert!(setup.contains("x86_64-unknown-linux-musl"), "{setup}");
    assert!(setup.contains("sha256sum -c"), "{setup}");
    assert!(setup.contains("https://github.com/a2a-conform/a2a-conform/releases/download/"));
}

/// The README's first command runs the demo against the built-in mock peer,
/// its second runs the tests, and `.ci/run` runs that same test command.
#[test]
fn readme_opens_with_the_demo_then_the_test_command_ci_runs() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README has a ```sh block");
    let commands: Vec<&str> = block
        .lines()
        .map(|l| l.split(" #").next().unwrap_or(l).trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        commands.first(),
        Some(&"cargo run --release -- demo"),
        "{block}"
    );
    assert_eq!(commands.get(1), Some(&"cargo test --locked"), "{block}");
    let ci = std::fs::read_to_string(Path::new(ROOT).join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test --locked"),
        ".ci/run must run the README's test command"
    );
}
