//! kubectl plugin dispatch: with the binary on PATH, `kubectl plugin list` shows it and
//! `kubectl wasctl version` runs it. The kubectl is the 1.37 client `cargo xtask setup`
//! installs (or the one on `PATH`); without one the test fails.

use std::process::Command;

use crate::support::tool;

#[test]
fn kubectl_finds_and_runs_the_plugin() {
    let kubectl = tool("kubectl");
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("kubectl-wasctl");
    std::fs::copy(env!("CARGO_BIN_EXE_kubectl-wasctl"), &bin).unwrap();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let list = Command::new(&kubectl)
        .args(["plugin", "list"])
        .env("PATH", &path)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(
        listed.contains(&bin.display().to_string()),
        "plugin list: {listed}"
    );
    let run = Command::new(&kubectl)
        .args(["wasctl", "version"])
        .env("PATH", &path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stdout).contains("kubernetes: 1.37"));
}
