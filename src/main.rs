//! `kubectl-wasctl`: parse the command line, run it, map the result to an exit code.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use wasctl::cli::Cli;
use wasctl::error::{ExitStatus, write_error_chain};

fn main() -> ExitCode {
    no_transparent_huge_pages();
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

/// Turns transparent huge pages off for this process (Linux; the flag is per process and is
/// read at every page fault, so it applies to memory mapped before this call too).
///
/// Where THP is `always` (RHEL's default, and this project's CI machines), every first touch of a
/// 2 MiB-aligned range of the heap makes the kernel zero a whole huge page. A snapshot is many
/// small objects allocated while the input streams by, and the allocator returns freed ranges
/// to the kernel and takes them back: `simulate -A` on 150,000 real pods spent 4 to 10 s of its
/// 8 to 18 s in the kernel's `clear_page`, and 60 MB more RSS, against 1.2 to 2 s with THP off
/// (issue 15; mimalloc's own `MIMALLOC_ALLOW_THP=0` does the same, but is read before `main`).
/// Nothing here gains from huge pages: the working set is pointer-chasing over small records.
fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    {
        // Best effort: an old kernel (< 3.15) refuses the call, and nothing changes.
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
}
