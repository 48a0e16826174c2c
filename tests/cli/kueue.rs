//! Kueue's objects in the snapshot (issue 49 item 1): both served versions read from a dump
//! shaped like `kubectl get -o yaml` output, kept typed, exported in Kueue's storage version
//! with what `snapshot` prunes pruned, and a malformed object named with its field.

use crate::support::run;

const DUMP: &str = "testdata/dumps/kueue-get-list.yaml";

#[test]
fn a_kueue_dump_is_snapshotted_in_the_storage_version_and_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let first = run(&["snapshot", "--from", DUMP, "-A", "-o", "yaml"]);
    assert_eq!(first.code, 0, "{}", first.transcript());
    let out = &first.stdout;
    for kind in [
        "ResourceFlavor",
        "ClusterQueue",
        "LocalQueue",
        "WorkloadPriorityClass",
        "Workload",
    ] {
        assert!(
            out.contains(&format!(
                "apiVersion: kueue.x-k8s.io/v1beta2\nkind: {kind}\n"
            )),
            "{kind} missing:\n{out}"
        );
    }
    assert!(!out.contains("kueue.x-k8s.io/v1beta1"), "{out}");
    // v1beta1's `cohort` and `priorityClassSource` are converted as Kueue's webhook does.
    assert!(out.contains("cohortName: research"), "{out}");
    assert!(
        out.contains("priorityClassRef:\n    group: kueue.x-k8s.io\n    kind: WorkloadPriorityClass\n    name: high"),
        "{out}"
    );
    assert!(out.contains("whenCanBorrow: MayStopSearch"), "{out}");
    // The pod set templates are pruned as a Job's: no args, env or annotations survive.
    for secret in ["hunter2", "plaintext-key", "do-not-keep", "managedFields"] {
        assert!(!out.contains(secret), "`{secret}` survived:\n{out}");
    }
    let path = dir.path().join("snap.yaml");
    std::fs::write(&path, out).unwrap();
    let second = run(&[
        "snapshot",
        "--from",
        path.to_str().unwrap(),
        "-A",
        "-o",
        "yaml",
    ]);
    assert_eq!(second.code, 0, "{}", second.transcript());
    assert_eq!(
        &second.stdout, out,
        "a snapshot of the snapshot is the same"
    );
}

#[test]
fn a_malformed_kueue_object_is_an_error_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cq.yaml");
    std::fs::write(
        &path,
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: team-a\nspec:\n  queueingStrategy: Random\n",
    )
    .unwrap();
    let r = run(&["snapshot", "--from", path.to_str().unwrap(), "-o", "yaml"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stderr.contains("spec.queueingStrategy"), "{}", r.stderr);
    assert!(r.stderr.contains("ClusterQueue team-a"), "{}", r.stderr);
}
