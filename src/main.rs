//! The `a2a-conform` binary: parse the command line, run, exit with the code
//! the run calls for.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = a2a_conform::cli::Cli::parse();
    let code = a2a_conform::app::run(cli);
    std::process::ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX))
}
