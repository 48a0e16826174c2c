//! A reader that goes away early (`wasctl … | head -1`): the output ends quietly and the exit
//! status is still that of what the command found, not success.

use std::process::Stdio;

use crate::support::wasctl;

/// Runs the binary with stdout on a pipe whose read end is closed before anything is written,
/// so every write gets EPIPE; returns the exit code and stderr.
fn run_with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = wasctl()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn lint_findings_fail_even_when_the_reader_closes_early() {
    let (code, stderr) = run_with_closed_stdout(&["lint", "testdata/manifests/lint/bad"]);
    assert_eq!(code, Some(1), "stderr: {stderr}");
    assert!(!stderr.to_lowercase().contains("pipe"), "stderr: {stderr}");
}

#[test]
fn doctor_fail_on_keeps_its_status_on_a_closed_pipe() {
    let (code, stderr) = run_with_closed_stdout(&["doctor", "--demo", "--fail-on", "error"]);
    assert_eq!(code, Some(1), "stderr: {stderr}");
    assert!(!stderr.to_lowercase().contains("pipe"), "stderr: {stderr}");
}

#[test]
fn explain_exit_code_keeps_its_status_on_a_closed_pipe() {
    let args = [
        "explain",
        "--demo",
        "pg/urgent",
        "--feature-gates",
        "GenericWorkload=true",
        "--exit-code",
    ];
    let (code, stderr) = run_with_closed_stdout(&args);
    assert_eq!(code, Some(1), "stderr: {stderr}");
    assert!(!stderr.to_lowercase().contains("pipe"), "stderr: {stderr}");
}

#[test]
fn a_clean_run_on_a_closed_pipe_still_succeeds() {
    let (code, stderr) = run_with_closed_stdout(&["lint", "testdata/manifests/lint/good"]);
    assert_eq!(code, Some(0), "stderr: {stderr}");
}

/// `-o json` is streamed to stdout (not buffered whole): a closed pipe mid-stream still ends
/// quietly, with the command's own status.
#[test]
fn streamed_json_on_a_closed_pipe_keeps_the_status() {
    let (code, stderr) = run_with_closed_stdout(&["simulate", "--demo", "-A", "-o", "json"]);
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(!stderr.to_lowercase().contains("pipe"), "stderr: {stderr}");
    let args = ["lint", "testdata/manifests/lint/bad", "-o", "json"];
    let (code, stderr) = run_with_closed_stdout(&args);
    assert_eq!(code, Some(1), "stderr: {stderr}");
    assert!(!stderr.to_lowercase().contains("pipe"), "stderr: {stderr}");
}
