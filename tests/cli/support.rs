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

/// The credentials the tests' kubeconfigs and fake servers hand out: no run may print one,
/// whatever fails (issue 46: an exec plugin's token was echoed in the error).
/// `fake-token` is every fake kubeconfig's token, and the HTML error pages of the fake API
/// server echo it (as a debugging proxy might), so a message that quotes a proxy's page fails.
pub const HANDED_OUT_CREDENTIALS: &[&str] = &[
    "fake-token",
    "SECRET-TOKEN",
    "file-token",
    "t0k3n",
    "the-right-one",
];

/// Runs a prepared command, and checks that it printed no credential the tests hand out.
pub fn run_cmd(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("the binary runs");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    for secret in HANDED_OUT_CREDENTIALS {
        assert!(
            !run.stdout.contains(secret) && !run.stderr.contains(secret),
            "the run printed the credential `{secret}`: {}",
            run.transcript()
        );
    }
    run
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

/// Where `cargo xtask setup` puts the tools the tests need (`WASCTL_TOOLS_DIR`, else
/// `target/xtask` beside the test binary's profile directory).
pub fn tools_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("WASCTL_TOOLS_DIR") {
        return PathBuf::from(dir);
    }
    // CARGO_BIN_EXE is TARGET/PROFILE/kubectl-wasctl.
    Path::new(env!("CARGO_BIN_EXE_kubectl-wasctl"))
        .ancestors()
        .nth(2)
        .map_or_else(|| root().join("target"), Path::to_path_buf)
        .join("xtask")
}

/// A tool a test runs: the copy `cargo xtask setup` installed, else the one on `PATH`. A
/// missing tool fails the test (never a silent skip) and says how to get it.
pub fn tool(name: &str) -> PathBuf {
    let installed = tools_dir().join("venv/bin").join(name);
    if installed.is_file() {
        return installed;
    }
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    on_path.unwrap_or_else(|| {
        panic!("`{name}` is needed by this test and is not installed: run `cargo xtask setup` (or `cargo xtask test`)")
    })
}

/// The SARIF 2.1.0 JSON Schema: `WASCTL_SARIF_SCHEMA`, else the copy `cargo xtask setup`
/// unpacked from its npm package. Missing fails the test and says how to get it.
pub fn sarif_schema() -> PathBuf {
    let path = std::env::var_os("WASCTL_SARIF_SCHEMA")
        .map_or_else(|| tools_dir().join("sarif-2.1.0.json"), PathBuf::from);
    assert!(
        path.is_file(),
        "the SARIF 2.1.0 schema is not at {}: run `cargo xtask setup` (or `cargo xtask test`)",
        path.display()
    );
    path
}
