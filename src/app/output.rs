//! Where a check's (or a merge's) reports go and how they look: report
//! paths checked before the first request, `-` for stdout, colour and
//! progress, and the last step that shows and writes every format of the
//! concluded report and exits with the code its summary holds.

use crate::cli::{ColorArg, OutputArgs, ProgressArg, ReportFiles, RunArgs};
use crate::error::{AppError, UsageError};
use crate::progress::ProgressMode;
use a2a_conform_report::format::human;
use a2a_conform_report::inert::terminal;
use a2a_conform_report::Summarized;
use a2a_conform_report::{self, verdict, Format, RunReport};
use std::io::IsTerminal;
use std::path::Path;

/// The report files a command writes, one per requested [`Format`], in the
/// order of [`Format::all`]: `-` is stdout.
pub(super) struct Outputs<'a> {
    files: Vec<(Format, &'a Path)>,
}

impl<'a> Outputs<'a> {
    pub(super) fn new(reports: &'a ReportFiles) -> Outputs<'a> {
        Outputs {
            files: reports.requested().collect(),
        }
    }

    /// Whether a report goes to stdout (the terminal report then goes to stderr).
    pub(super) fn stdout_taken(&self) -> bool {
        self.files.iter().any(|(_, p)| is_stdout(p))
    }

    /// Checks, before the first request, that every report can be written:
    /// a check that runs for minutes must not end in "cannot write".
    pub(super) fn check(&self) -> Result<(), UsageError> {
        let to_stdout = self.files.iter().filter(|(_, p)| is_stdout(p)).count();
        if to_stdout > 1 {
            return Err(UsageError::StdoutTwice);
        }
        let files: Vec<(&'static str, &Path)> = self
            .files
            .iter()
            .filter(|(_, path)| !is_stdout(path))
            .map(|(format, path)| (format.flag(), *path))
            .collect();
        for (flag, path) in &files {
            a2a_conform_report::check_writable(path).map_err(|source| UsageError::ReportPath {
                flag,
                path: path.to_path_buf(),
                source,
            })?;
        }
        for (n, (first, path)) in files.iter().enumerate() {
            if let Some((second, _)) = files[n + 1..]
                .iter()
                .find(|(_, other)| a2a_conform_report::same_report_file(path, other))
            {
                return Err(UsageError::SameReportFile {
                    first,
                    second,
                    path: path.to_path_buf(),
                });
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

impl Outputs<'_> {
    /// Prints the terminal report: on stdout, or on stderr when a report
    /// file goes to stdout.
    pub(super) fn show(&self, report: &RunReport, output: &OutputArgs) {
        if self.stdout_taken() {
            eprint!("{}", human::render(report, style(output, true)));
        } else {
            print!("{}", human::render(report, style(output, false)));
        }
    }

    /// Renders and writes every requested format. Every file is attempted;
    /// all failures are shown, the last one returned (for `run` to show).
    pub(super) fn write(&self, report: &RunReport) -> Result<(), AppError> {
        let mut unwritten: Vec<AppError> = Vec::new();
        for (format, path) in &self.files {
            let contents = format
                .render(report)
                .map_err(|e| AppError::RenderReport(e.to_string()))?;
            if is_stdout(path) {
                print!("{contents}");
                continue;
            }
            if let Err(source) = a2a_conform_report::write_atomically(path, &contents) {
                unwritten.push(AppError::WriteReport {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
        match unwritten.pop() {
            Some(last) => {
                unwritten.iter().for_each(AppError::print);
                Err(last)
            }
            None => Ok(()),
        }
    }
}

/// Shows and writes every format of the concluded `report` (see
/// `a2a_conform_report::conclude`), says on stderr what fails the run, and returns the
/// exit code its summary holds.
pub(super) fn finish(
    report: &RunReport,
    args: &RunArgs,
    outputs: &Outputs<'_>,
) -> Result<i32, AppError> {
    outputs.show(report, &args.output);
    outputs.write(report)?;
    for peer in &report.peers {
        if let Some(error) = &peer.card_error {
            eprintln!("error: {}", terminal(error));
        }
    }
    // Already shown through `inert::terminal` by the human renderer.
    for warning in human::baseline_warnings(report) {
        eprintln!("warning: {warning}");
    }
    let code = report.summary().exit_code;
    // Every class that fails the run says why, one line per row or run in
    // it, not only the class that decides the exit code; a class that did
    // not decide it names its own code, and one line says which won.
    let classes = verdict::failing_classes(report);
    for class in &classes {
        let mark = class.mark(code);
        for reason in &class.reasons {
            eprintln!("fails the run{mark}: {}", terminal(reason));
        }
    }
    if let Some(note) = verdict::precedence_note(&classes) {
        eprintln!("{note} (see `a2a-conform check --help`)");
    }
    Ok(code)
}
