//! `kubectl-wasctl`: parse the command line, run it, map the result to an exit code.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use wasctl::cli::Cli;
use wasctl::error::{ExitStatus, write_error_chain};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitStatus::Input
            } else {
                ExitStatus::Success
            }
            .into();
        }
    };
    match wasctl::cli::run(cli) {
        Ok(status) => status.into(),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stderr().write_all(write_error_chain(&e).as_bytes());
            e.exit_status().into()
        }
    }
}
