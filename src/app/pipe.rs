//! A closed stdout (`a2a-conform suite list | head`) ends the process
//! quietly, as Unix tools end on SIGPIPE, instead of with a panic.
//!
//! Rust ignores SIGPIPE, so `println!` to a closed pipe panics. Restoring the
//! default signal would make a write to a peer's closed socket kill the
//! process too; catching the one panic `println!` raises keeps sockets out
//! of it.

/// Installs the hook: a panic that is `println!`/`print!` failing on a
/// broken pipe exits with [`a2a_conform_report::exit::BROKEN_PIPE`] and prints nothing; any other
/// panic is reported as before.
pub fn exit_quietly_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if is_broken_stdout(message) {
            std::process::exit(a2a_conform_report::exit::BROKEN_PIPE);
        }
        default(info);
    }));
}

/// Whether a panic message is std's for a write to a closed stdout.
fn is_broken_stdout(message: &str) -> bool {
    message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_broken_stdout_is_quiet() {
        assert!(is_broken_stdout(
            "failed printing to stdout: Broken pipe (os error 32)"
        ));
        assert!(!is_broken_stdout("failed printing to stdout: disk full"));
        assert!(!is_broken_stdout("index out of bounds"));
    }
}
