//! Runs the built binary and captures what it did.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a run of the binary produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// `exit_code`, stdout and stderr together, for snapshots.
    pub fn transcript(&self) -> String {
        format!(
            "exit_code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A command for the binary with a clean, colorless environment.
pub fn wasctl() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-wasctl"));
    cmd.current_dir(root())
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .env("HOME", std::env::temp_dir().join("wasctl-test-home"))
        .stdin(Stdio::null());
    cmd
}

/// Runs the binary with `args`.
pub fn run(args: &[&str]) -> Run {
    run_cmd(wasctl().args(args))
}

/// Runs a prepared command.
pub fn run_cmd(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("the binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every file with one of `extensions` directly in `dir`, sorted.
pub fn files_in(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture directory exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        })
        .collect();
    files.sort();
    files
}

/// The demo cluster's objects as JSON, as the fake API server takes them.
pub fn demo_objects() -> Vec<serde_json::Value> {
    let snapshot = wasctl::snapshot::source::demo::load().expect("demo loads");
    wasctl::snapshot::export::documents(&snapshot).expect("demo exports")
}
