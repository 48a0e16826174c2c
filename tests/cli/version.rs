//! `version` and `--help`.

use crate::support::run;

#[test]
fn version_reports_build_and_kubernetes_version() {
    let r = run(&["version", "-o", "json"]);
    assert_eq!(r.code, 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(v["kind"], "Version");
    assert_eq!(v["kubernetes"], "1.37");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    for key in ["commit", "buildDate", "target"] {
        assert!(v[key].as_str().is_some_and(|s| !s.is_empty()), "{key}");
    }
    let text = run(&["version"]);
    assert!(
        text.stdout
            .starts_with(&format!("wasctl {}\n", env!("CARGO_PKG_VERSION")))
    );
    let flag = run(&["--version"]);
    assert_eq!(flag.code, 0);
}

#[test]
fn help_lists_every_command() {
    let r = run(&["--help"]);
    assert_eq!(r.code, 0);
    for cmd in ["tree", "snapshot", "version"] {
        assert!(
            r.stdout.contains(&format!("  {cmd} ")),
            "{cmd} in help:\n{}",
            r.stdout
        );
    }
    assert!(r.stdout.contains("--kubeconfig") && r.stdout.contains("--all-namespaces"));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["no-such-command"]).code, 2);
    assert_eq!(run(&["tree", "--demo", "--from", "x.yaml"]).code, 2);
    let r = run(&["tree", "--demo", "--feature-gates", "GenericWorkload"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("invalid `--feature-gates`"),
        "{}",
        r.stderr
    );
}

#[test]
fn broken_pipe_exits_0() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = crate::support::wasctl()
        .args(["snapshot", "--demo"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}
