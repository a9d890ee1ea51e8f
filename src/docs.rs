//! Documentation generated from the command line itself: shell completion
//! scripts (clap_complete) and man pages (clap_mangen). Both are built from
//! [`crate::cli::Cli`], so they can never drift from the options the binary
//! actually accepts; the release archives ship their output.

use crate::error::AppError;
use a2a_conform_report::exit;
use clap_complete::Shell;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The binary's name as completion scripts register it.
const BIN_NAME: &str = "a2a-conform";

/// Writes the completion script for `shell` to `out`.
pub fn write_completions(shell: Shell, out: &mut dyn Write) -> io::Result<()> {
    let mut command = crate::config::command();
    // clap_complete writes through a `&mut dyn Write` and cannot report an
    // error itself (it panics), so render into memory and write once.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, BIN_NAME, &mut script);
    out.write_all(&script)
}

/// Writes the top-level man page, a2a-conform(1), as roff to `out`.
pub fn write_man_page(out: &mut dyn Write) -> io::Result<()> {
    clap_mangen::Man::new(crate::config::command()).render(out)
}

/// Writes a2a-conform(1) and one page per subcommand (a2a-conform-check(1),
/// …) into `dir`, which must exist.
pub fn write_man_pages(dir: &Path) -> io::Result<()> {
    clap_mangen::generate_to(crate::config::command(), dir)
}

/// `a2a-conform completions SHELL`: the script on stdout.
pub fn completions(shell: Shell) -> Result<i32, AppError> {
    to_stdout(|out| write_completions(shell, out))
}

/// `a2a-conform man [--out-dir DIR]`: the page on stdout, or every page in DIR.
pub fn man(out_dir: Option<&Path>) -> Result<i32, AppError> {
    match out_dir {
        None => to_stdout(write_man_page),
        Some(dir) => std::fs::create_dir_all(dir)
            .and_then(|()| write_man_pages(dir))
            .map(|()| exit::OK)
            .map_err(|source| AppError::WriteReport {
                path: dir.to_path_buf(),
                source,
            }),
    }
}

/// Writes to stdout; a reader that closed it (`| head`) ends the command
/// quietly with [`exit::BROKEN_PIPE`], as every other command's output does.
fn to_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<i32, AppError> {
    let mut stdout = io::stdout().lock();
    match write(&mut stdout).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(exit::OK),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(exit::BROKEN_PIPE),
        Err(source) => Err(AppError::WriteReport {
            path: PathBuf::from("standard output"),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_gets_a_script_that_knows_check() {
        for shell in [
            Shell::Bash,
            Shell::Zsh,
            Shell::Fish,
            Shell::PowerShell,
            Shell::Elvish,
        ] {
            let mut out = Vec::new();
            write_completions(shell, &mut out).unwrap();
            let script = String::from_utf8(out).unwrap();
            assert!(script.contains("check"), "{shell}: no `check` in\n{script}");
            assert!(script.contains("junit"), "{shell}: no `--junit` option");
            assert!(script.contains(BIN_NAME), "{shell}: no binary name");
        }
    }

    #[test]
    fn man_page_is_roff_naming_the_subcommands() {
        let mut out = Vec::new();
        write_man_page(&mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{page}");
        assert!(page.contains(".TH a2a-conform 1"), "{page}");
        assert!(page.contains("a2a\\-conform\\-check(1)"), "{page}");
    }

    #[test]
    fn man_pages_cover_every_subcommand() {
        let dir = tempfile::tempdir().unwrap();
        write_man_pages(dir.path()).unwrap();
        for page in [
            "a2a-conform.1",
            "a2a-conform-check.1",
            "a2a-conform-suite-lint.1",
        ] {
            let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
            assert!(text.contains(".TH"), "{page}: {text}");
        }
        let check = std::fs::read_to_string(dir.path().join("a2a-conform-check.1")).unwrap();
        assert!(check.contains("\\-\\-junit"), "{check}");
    }
}
