//! `snapshot`: round trip through `--from`, JSON and YAML, and redaction.

use crate::support::run;

#[test]
fn yaml_round_trip_reproduces_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.yaml");
    let r = run(&["snapshot", "--demo", "--file", first.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let again = run(&["snapshot", "--from", first.to_str().unwrap()]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        std::fs::read_to_string(&first).unwrap(),
        again.stdout,
        "export → load → export is stable"
    );
    let tree_demo = run(&["tree", "-A", "--demo", "-o", "json"]);
    let tree_back = run(&[
        "tree",
        "-A",
        "--from",
        first.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(tree_demo.stdout, tree_back.stdout);
}

#[test]
fn json_round_trip_matches_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    assert_eq!(
        run(&[
            "snapshot",
            "--demo",
            "-o",
            "json",
            "--file",
            json.to_str().unwrap()
        ])
        .code,
        0
    );
    let from_json = run(&["snapshot", "--from", json.to_str().unwrap()]);
    let from_demo = run(&["snapshot", "--demo"]);
    assert_eq!(from_json.stdout, from_demo.stdout);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["kind"], "List");
    // The facts document comes last and counts the objects before it.
    let items = v["items"].as_array().unwrap();
    let facts = items.last().unwrap();
    assert_eq!(facts["kind"], "ClusterFacts");
    assert_eq!(facts["formatVersion"], 2);
    assert_eq!(facts["objectCount"], items.len() - 1);
}

#[test]
fn snapshot_keeps_stale_objects_and_their_versions() {
    let r = run(&["snapshot", "--demo"]);
    assert!(
        r.stdout.contains("apiVersion: scheduling.k8s.io/v1alpha2"),
        "stale objects are exported"
    );
    assert!(r.stdout.contains("kind: ClusterFacts"));
}

#[test]
fn secrets_and_env_values_never_leave_in_a_snapshot() {
    let demo = std::fs::read_to_string(crate::support::root().join("testdata/clusters/demo.yaml"))
        .unwrap();
    assert!(
        demo.contains("kubectl.kubernetes.io/last-applied-configuration"),
        "the demo has something to redact"
    );
    let r = run(&["snapshot", "--demo"]);
    assert!(!r.stdout.contains("last-applied-configuration"));
    // Container env is pruned at load (no command reads it), so no value can leave; what is
    // left of a container is what the simulator reads.
    assert!(!r.stdout.contains("env:"), "env is pruned");
    assert!(r.stdout.contains("resources:"));
    for value in [
        "jt-3f9c2a7d1b8e4c60a5d7",
        "hf_DemoOnlyNotARealToken0123456789",
        "secret-access-key",
    ] {
        assert!(demo.contains(value), "the demo still carries `{value}`");
        assert!(
            !r.stdout.contains(value),
            "`{value}` leaked into the snapshot"
        );
    }
}

/// `--file LINK` replaces the link's target whole and keeps the link and the target's mode;
/// a failed write leaves the old file as it was.
#[cfg(unix)]
#[test]
fn snapshot_file_through_a_symlink_keeps_the_link_and_replaces_its_target() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.yaml");
    std::fs::write(&real, "old\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink("real.yaml", &link).unwrap();
    let r = run(&["snapshot", "--demo", "--file", link.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let written = std::fs::read_to_string(&real).unwrap();
    assert_eq!(written, run(&["snapshot", "--demo"]).stdout);
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o7777,
        0o600
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
}

/// `--file /dev/full`: a clean "disk full" error, exit 2, and the device is still there.
#[cfg(target_os = "linux")]
#[test]
fn snapshot_file_on_a_full_device_says_disk_full_and_deletes_nothing() {
    use std::os::unix::fs::FileTypeExt as _;
    if !std::fs::metadata("/dev/full").is_ok_and(|m| m.file_type().is_char_device()) {
        return;
    }
    let r = run(&["snapshot", "--demo", "--file", "/dev/full"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("error: cannot write `/dev/full`: disk full (no space left on device)\n"),
        "{}",
        r.stderr
    );
    assert!(
        std::fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

/// A snapshot cut short (killed mid-write, a disk that filled up) is named on read: simulate
/// warns "snapshot FILE is truncated", never reads it in silence; the whole file warns nothing.
#[test]
fn a_truncated_snapshot_file_is_named_when_read() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.yaml");
    let r = run(&["snapshot", "--demo", "--file", whole.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&whole).unwrap();
    let r = run(&["simulate", "--from", whole.to_str().unwrap()]);
    assert!(!r.stderr.contains("truncated"), "{}", r.stderr);

    // Cut at a document boundary after the pods (objects and the facts document are lost):
    // simulate runs, and warns.
    let boundaries: Vec<usize> = text.match_indices("\n---\n").map(|(i, _)| i + 1).collect();
    let last_pod = text.rfind("\nkind: Pod\n").unwrap();
    let after_pods = *boundaries.iter().find(|b| **b > last_pod).unwrap();
    let cut = dir.path().join("cut.yaml");
    let warning = format!(
        "snapshot `{}` is truncated: its ClusterFacts document, written last, is missing",
        cut.display()
    );
    std::fs::write(&cut, &text[..after_pods]).unwrap();
    let r = run(&["simulate", "--from", cut.to_str().unwrap()]);
    assert!(
        r.stderr.contains(&format!("warning: {warning}")),
        "{}",
        r.transcript()
    );
    // Cut before the pods: the error that follows names the truncation.
    std::fs::write(&cut, &text[..boundaries[boundaries.len() / 4]]).unwrap();
    let r = run(&["simulate", "--from", cut.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains(&format!("hint: {warning}")),
        "{}",
        r.transcript()
    );
    // The JSON form: facts last with the count; a cut is a syntax error (exit 2).
    let json = dir.path().join("s.json");
    let r = run(&[
        "snapshot",
        "--demo",
        "-o",
        "json",
        "--file",
        json.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&json).unwrap();
    std::fs::write(cut.with_extension("json"), &text[..text.len() / 2]).unwrap();
    let r = run(&[
        "simulate",
        "--from",
        cut.with_extension("json").to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
}
