//! Where a check's reports go and how they look: report paths checked
//! before the first request, `-` for stdout, colour and progress, and the
//! last step that writes every report and picks the exit code.

use crate::cli::{ColorArg, OutputArgs, ProgressArg, RunArgs};
use crate::error::{AppError, UsageError};
use crate::progress::ProgressMode;
use a2a_conform_report::exit;
use a2a_conform_report::inert::terminal;
use a2a_conform_report::{self, human, junit, markdown, RunReport};
use std::io::IsTerminal;
use std::path::Path;

/// The report files a check writes: `-` is stdout.
pub(super) struct Outputs<'a> {
    pub(super) files: [(&'static str, Option<&'a Path>); 3],
}

impl<'a> Outputs<'a> {
    pub(super) fn new(args: &'a RunArgs) -> Outputs<'a> {
        Outputs {
            files: [
                ("--json", args.json.as_deref()),
                ("--junit", args.junit.as_deref()),
                ("--markdown", args.markdown.as_deref()),
            ],
        }
    }

    /// Whether a report goes to stdout (the terminal report then goes to stderr).
    pub(super) fn stdout_taken(&self) -> bool {
        self.files.iter().any(|(_, p)| p.is_some_and(is_stdout))
    }

    /// Checks, before the first request, that every report can be written:
    /// a check that runs for minutes must not end in "cannot write".
    pub(super) fn check(&self) -> Result<(), UsageError> {
        let to_stdout = self
            .files
            .iter()
            .filter(|(_, p)| p.is_some_and(is_stdout))
            .count();
        if to_stdout > 1 {
            return Err(UsageError::StdoutTwice);
        }
        for (flag, path) in self.files {
            if let Some(path) = path.filter(|p| !is_stdout(p)) {
                a2a_conform_report::check_writable(path).map_err(|source| {
                    UsageError::ReportPath {
                        flag,
                        path: path.to_path_buf(),
                        source,
                    }
                })?;
            }
        }
        Ok(())
    }
}

pub(super) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `--progress` resolved: `auto` is a bar on a terminal, lines in a log,
/// nothing under `-q`.
pub(super) fn progress_mode(output: &OutputArgs) -> ProgressMode {
    match output.progress {
        ProgressArg::Bar => ProgressMode::Bar,
        ProgressArg::Lines => ProgressMode::Lines,
        ProgressArg::None => ProgressMode::None,
        ProgressArg::Auto if output.quiet => ProgressMode::None,
        ProgressArg::Auto if std::io::stderr().is_terminal() => ProgressMode::Bar,
        ProgressArg::Auto => ProgressMode::Lines,
    }
}

/// Whether to colour text bound for stdout (or stderr, `on_stderr`).
pub(super) fn use_color(color: ColorArg, on_stderr: bool) -> bool {
    match color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && if on_stderr {
                    std::io::stderr().is_terminal()
                } else {
                    std::io::stdout().is_terminal()
                }
        }
    }
}

pub(super) fn style(output: &OutputArgs, on_stderr: bool) -> human::Style {
    let color = use_color(output.color, on_stderr);
    // The table is cut to the width of the terminal it goes to, if any.
    let on_terminal = if on_stderr {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    let width = on_terminal
        .then(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
        .flatten();
    human::Style {
        color,
        verbose: output.verbose,
        quiet: output.quiet,
        width,
    }
}

/// Writes the requested files, prints the terminal report, and picks the exit code.
pub(super) fn finish(
    report: &RunReport,
    args: &RunArgs,
    outputs: &Outputs<'_>,
) -> Result<i32, AppError> {
    let report = &RunReport {
        summary: Some(a2a_conform_report::verdict::summarize(report)),
        ..report.clone()
    };
    if outputs.stdout_taken() {
        eprint!("{}", human::render(report, style(&args.output, true)));
    } else {
        print!("{}", human::render(report, style(&args.output, false)));
    }
    let junit = args
        .junit
        .as_ref()
        .map(|_| junit::render(report))
        .transpose()
        .map_err(|e| AppError::RenderReport(e.to_string()))?;
    let files = [
        (&args.json, Some(report.to_json())),
        (&args.junit, junit),
        (
            &args.markdown,
            args.markdown.as_ref().map(|_| markdown::render(report)),
        ),
    ];
    // Every file is attempted; all failures are shown, the last one by `run`.
    let mut unwritten: Vec<AppError> = Vec::new();
    for (path, contents) in files {
        if let (Some(path), Some(contents)) = (path, contents) {
            if is_stdout(path) {
                print!("{contents}");
                continue;
            }
            if let Err(source) = a2a_conform_report::write_atomically(path, &contents) {
                unwritten.push(AppError::WriteReport {
                    path: path.clone(),
                    source,
                });
            }
        }
    }
    if let Some(last) = unwritten.pop() {
        unwritten.iter().for_each(AppError::print);
        return Err(last);
    }
    for peer in &report.peers {
        if let Some(error) = &peer.card_error {
            eprintln!("error: {}", terminal(error));
        }
    }
    // Already shown through `inert::terminal` by the human renderer.
    for warning in human::baseline_warnings(report) {
        eprintln!("warning: {warning}");
    }
    let code = a2a_conform_report::verdict::exit_code(report);
    // Exit 1 and exit 4 always say why, one line per row that decides it.
    for reason in a2a_conform_report::verdict::exit_reasons(report) {
        eprintln!("fails the run: {}", terminal(&reason));
    }
    if code == exit::PEER_UNREACHABLE {
        for reason in a2a_conform_report::verdict::malfunction_reasons(report) {
            eprintln!("fails the run (exit 3): {}", terminal(&reason));
        }
    }
    Ok(code)
}
