//! `snapshot`: round trip through `--from`, JSON and YAML, and redaction.

use crate::support::{Run, run};

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

/// See: issue 46 item 5. `snapshot` cuts owner objects and templates as it cuts pods: a
/// Secret-looking value planted in an owner's container args and env, in object and
/// template annotations, and in DRA opaque driver parameters (ResourceClaim,
/// ResourceClaimTemplate, DeviceClass) is absent from the snapshot; the objects are there.
#[test]
fn secrets_planted_in_owners_templates_and_dra_parameters_are_not_in_the_snapshot() {
    let template = |secret: &str| {
        format!(
            "template:\n      metadata:\n        labels: {{app: x}}\n        annotations: {{vault.io/token: {secret}-TA}}\n      spec:\n        containers:\n        - name: c\n          image: i\n          args: [\"--password={secret}-ARG\"]\n          command: [run, \"--token={secret}-CMD\"]\n          env: [{{name: PW, value: {secret}-ENV}}]\n          resources: {{requests: {{cpu: \"1\"}}}}"
        )
    };
    let opaque = |secret: &str| {
        format!(
            "config:\n    - opaque: {{driver: gpu.example.com, parameters: {{apiKey: {secret}-OPQ}}}}"
        )
    };
    let manifest = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: ns, annotations: {{note: S3CR3T-DEP-ANN}}}}\nspec:\n  selector: {{matchLabels: {{app: x}}}}\n  {}\n---\n\
apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db, namespace: ns}}\nspec:\n  serviceName: db\n  selector: {{matchLabels: {{app: x}}}}\n  {}\n---\n\
apiVersion: batch/v1\nkind: Job\nmetadata: {{name: train, namespace: ns, annotations: {{note: S3CR3T-JOB-ANN}}}}\nspec:\n  {}\n---\n\
apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ns, annotations: {{note: S3CR3T-POD-ANN}}}}\nspec:\n  containers: [{{name: c, image: i, args: [\"--password=S3CR3T-POD-ARG\"]}}]\n---\n\
apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: gpu}}\nspec:\n  {}\n---\n\
apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: claim, namespace: ns}}\nspec:\n  devices:\n    requests: [{{name: r, exactly: {{deviceClassName: gpu}}}}]\n    {}\n---\n\
apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: tmpl, namespace: ns}}\nspec:\n  spec:\n    devices:\n      requests: [{{name: r, exactly: {{deviceClassName: gpu}}}}]\n      {}\n",
        template("S3CR3T-DEP").replace('\n', "\n  "),
        template("S3CR3T-STS").replace('\n', "\n  "),
        template("S3CR3T-JOB").replace('\n', "\n  "),
        opaque("S3CR3T-DC").replace('\n', "\n  "),
        opaque("S3CR3T-RC").replace('\n', "\n    "),
        opaque("S3CR3T-RCT").replace('\n', "\n      "),
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("planted.yaml");
    std::fs::write(&input, &manifest).unwrap();
    // The manifest holds every planted value (the test can fail).
    assert_eq!(manifest.matches("S3CR3T").count(), 19, "{manifest}");
    for output in ["yaml", "json"] {
        let r = run(&["snapshot", "-o", output, "--from", input.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}", r.transcript());
        assert!(
            !r.stdout.contains("S3CR3T"),
            "a planted value survived into the {output} snapshot:\n{}",
            r.stdout
        );
        for kept in [
            "kind: Deployment",
            "kind: StatefulSet",
            "kind: Job",
            "kind: DeviceClass",
            "kind: ResourceClaimTemplate",
            "gpu.example.com",
        ] {
            let kept = if output == "json" {
                kept.replace("kind: ", "\"kind\": \"")
            } else {
                kept.to_owned()
            };
            assert!(
                r.stdout.contains(kept.trim_end_matches('"')),
                "{kept} is kept: {}",
                r.stdout
            );
        }
        // What capacity reads of a template survives.
        assert!(r.stdout.contains("cpu"), "{}", r.stdout);
    }
    // The snapshot reads back.
    let snap = dir.path().join("snap.yaml");
    let r = run(&[
        "snapshot",
        "--from",
        input.to_str().unwrap(),
        "--file",
        snap.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let back = run(&["snapshot", "--from", snap.to_str().unwrap()]);
    assert_eq!(back.code, 0, "{}", back.transcript());
    assert_eq!(std::fs::read_to_string(&snap).unwrap(), back.stdout);
}

/// See: issue 46 item 5. `snapshot` prints on stderr the incomplete-input warnings `tree`
/// prints for the same input (it printed none).
#[test]
fn snapshot_prints_the_incomplete_input_warnings_tree_prints() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("partial.yaml");
    std::fs::write(
        &input,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  schedulingGroup: {podGroupName: g}\n  containers: [{name: c, image: i}]\n---\napiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1}\n",
    )
    .unwrap();
    let path = input.to_str().unwrap();
    let warnings = |r: &Run| -> Vec<String> {
        r.stderr
            .lines()
            .filter(|l| l.starts_with("warning:"))
            .map(str::to_owned)
            .collect()
    };
    let tree = run(&["tree", "-A", "--from", path]);
    assert_eq!(tree.code, 0, "{}", tree.transcript());
    let tree_warnings = warnings(&tree);
    assert!(tree_warnings.len() >= 2, "{}", tree.transcript());
    let snap = run(&["snapshot", "--from", path]);
    assert_eq!(snap.code, 0, "{}", snap.transcript());
    assert_eq!(warnings(&snap), tree_warnings, "{}", snap.transcript());
    assert!(!snap.stdout.contains("warning:"));
}
