//! The `a2a-conform` binary: parse the command line (with its env vars and
//! config file, [`a2a_conform::config`]), run, exit with the code the run
//! calls for.

fn main() -> std::process::ExitCode {
    a2a_conform::app::pipe::exit_quietly_on_broken_pipe();
    let code = match a2a_conform::config::parse() {
        Ok(parsed) => a2a_conform::app::run_parsed(parsed),
        Err(e) => {
            let e = a2a_conform::error::AppError::from(e);
            e.print();
            e.exit_code()
        }
    };
    std::process::ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX))
}
