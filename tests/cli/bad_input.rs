//! Bad input: every file in testdata/manifests/bad/ fails with exit 2 and an error that names
//! the file, line and column (and the object and field when the YAML itself is fine).

use std::io::Write;
use std::process::Stdio;

use crate::support::{files_in, root, run, wasctl};

#[test]
fn every_bad_manifest_fails_with_file_line_and_field() {
    let bad = files_in(
        &root().join("testdata/manifests/bad"),
        &["yaml", "yml", "json"],
    );
    assert!(bad.len() >= 5);
    for file in bad {
        let rel = file
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let r = run(&["tree", "-A", "--from", &rel]);
        assert_eq!(r.code, 2, "{rel}: {}", r.transcript());
        assert!(
            r.stderr.starts_with(&format!("error: {rel}:")),
            "{rel}: stderr names the file: {}",
            r.stderr
        );
        let stem = file.file_stem().unwrap().to_str().unwrap().to_owned();
        insta::assert_snapshot!(format!("bad_{stem}"), r.stderr);
    }
}

#[test]
fn missing_file_and_empty_directory_exit_2() {
    let r = run(&["tree", "--from", "no/such/file.yaml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with("error: cannot read `no/such/file.yaml`\n  caused by:"),
        "{}",
        r.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    let r = run(&["tree", "--from", dir.path().to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("contains no `.yaml`"), "{}", r.stderr);
}

fn stdin_run(input: &[u8]) -> (i32, String) {
    let mut child = wasctl()
        .args(["tree", "-A", "--from", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The loader may stop reading early; a closed pipe here is fine.
    let _ = stdin.write_all(input);
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn deep_nesting_and_alias_bombs_fail_cleanly_not_crash() {
    let deep = format!(
        "apiVersion: v1\nkind: Node\nmetadata: {{name: n}}\nx: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let (code, stderr) = stdin_run(deep.as_bytes());
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with("error: <stdin>:4:"), "{stderr}");
    let deep_json = format!("{}{}", "{\"a\":".repeat(50_000), "}".repeat(50_000));
    let (code, stderr) = stdin_run(deep_json.as_bytes());
    assert_eq!(code, 2, "{stderr}");
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..15 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let (code, stderr) = stdin_run(bomb.as_bytes());
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn unknown_kinds_are_counted_in_a_warning() {
    let input = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: b}\n";
    let mut child = wasctl()
        .args(["tree", "-A", "--from", "-", "-o", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let w = &v["warnings"][0];
    assert_eq!(w["code"], "UnknownKinds");
    assert_eq!(
        w["message"],
        "2 object(s) of kinds wasctl does not model were not loaded: 1 example.com/v1/Widget (`b`), 1 v1/ConfigMap (`a`)"
    );
}

/// Names, paths and messages with terminal escapes, bidi controls and zero-width characters
/// reach neither stderr (error chains) nor `lint -o github`'s job log raw.
#[test]
fn terminal_escapes_never_reach_stderr_or_github_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let evil = dir.path().join("evil\u{1b}]0;pwned\u{7}\u{202e}.yaml");
    std::fs::write(
        &evil,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"x\\e[2J\\u200b\"\n  namespace: ml\nspec:\n  containers: {}\n",
    )
    .unwrap();
    let path = evil.to_str().unwrap();
    for args in [
        vec!["tree", "-A", "--from", path],
        vec!["lint", path],
        vec!["lint", path, "-o", "github"],
    ] {
        let r = run(&args);
        assert_ne!(r.code, 0, "{args:?}: {}", r.transcript());
        for (stream, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            assert!(
                !text.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{200b}']),
                "{args:?}: raw control characters on {stream}: {text:?}"
            );
        }
        assert!(
            r.stderr.contains("\\x1b") || r.stdout.contains("\\x1b"),
            "{args:?}: the escape is shown visibly: {}",
            r.transcript()
        );
    }
}
