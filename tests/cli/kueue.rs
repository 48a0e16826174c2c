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

const TWO_STAGES: &str = "testdata/kueue-sim/two-stages.yaml";

/// Issue 49: Kueue's admission first, then kube-scheduler on the cluster it leaves, in one
/// plan: one unit per Kueue Workload, its pods' units once.
#[test]
fn simulate_runs_kueues_admission_then_the_scheduler_in_one_plan() {
    let r = run(&["simulate", "--from", TWO_STAGES]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn each_kueue_workload_is_one_json_unit_pointing_at_its_pods() {
    let r = run(&["simulate", "--from", TWO_STAGES, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let units = doc["units"].as_array().expect("units");
    let unit = |name: &str| {
        units
            .iter()
            .find(|u| u["name"] == name)
            .unwrap_or_else(|| panic!("no unit {name}"))
    };
    let a = unit("job-train-a-5c7e1");
    assert_eq!(a["kind"], "Workload");
    assert_eq!(a["apiVersion"], "kueue.x-k8s.io/v1beta2");
    assert_eq!(a["namespace"], "ml");
    assert_eq!(a["admission"]["outcome"], "Admitted");
    assert_eq!(a["admission"]["clusterQueue"], "team-a");
    assert_eq!(a["admission"]["podSets"][0]["name"], "main");
    assert_eq!(a["admission"]["podSets"][0]["count"], 1);
    assert_eq!(
        a["admission"]["podSets"][0]["flavors"]["nvidia.com/gpu"],
        "h100"
    );
    assert_eq!(a["admission"]["evicted"], false);
    assert_eq!(a["outcome"], "Scheduled");
    // Its placements are held by the unit it points at, not repeated.
    assert_eq!(a["placements"], serde_json::json!([]));
    let at = &a["placement"];
    assert_eq!(at["kind"], "Pod");
    let pod = unit(at["name"].as_str().expect("name"));
    assert_eq!(pod["placements"][0]["node"], "gpu-1");
    let b = unit("job-train-b-5c7e1");
    assert_eq!(b["admission"]["outcome"], "Admitted");
    assert_eq!(b["outcome"], "Unschedulable");
    let c = unit("job-train-c-5c7e1");
    assert_eq!(c["admission"]["outcome"], "QuotaPending");
    assert_eq!(c["admission"]["shortfall"]["nvidia.com/gpu"], "8");
    assert_eq!(c["outcome"], "Waiting");
    assert!(c.get("placement").is_none());
    assert_eq!(unit("job-orphan-5c7e1")["admission"]["outcome"], "NoQueue");
    // Each job once: a and b by their pods' units, c and the orphan as waiting.
    assert_eq!(
        doc["summary"],
        serde_json::json!({"scheduled": 1, "unschedulable": 1, "waiting": 2, "preempting": 0, "error": 0})
    );
    assert!(doc["kueue"]["cycles"].as_u64().is_some_and(|c| c > 0));
}

#[test]
fn simulate_o_name_spells_kueues_workload_with_its_group() {
    let r = run(&["simulate", "--from", TWO_STAGES, "-o", "name"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .lines()
            .any(|l| l == "workload.kueue.x-k8s.io/job-train-c-5c7e1"),
        "{}",
        r.stdout
    );
}

/// Issue 49: explain on a Kueue Workload says which stage blocks it, with numbers.
#[test]
fn explain_a_quota_pending_kueue_workload_gives_the_queues_numbers_and_a_verified_fix() {
    let r = run(&[
        "explain",
        "--from",
        TWO_STAGES,
        "workloads.kueue.x-k8s.io/job-train-c-5c7e1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!(r.stdout);
    let r = run(&[
        "explain",
        "--from",
        TWO_STAGES,
        "kwl/job-train-c-5c7e1",
        "-o",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(doc["findings"][0]["id"], "WASE100");
    assert_eq!(doc["outcome"], "Waiting");
    assert_eq!(doc["findings"][0]["evidence"]["quota"][0]["free"], "0");
}

#[test]
fn explain_an_admitted_kueue_workload_goes_on_with_its_pods_diagnosis() {
    let r = run(&[
        "explain",
        "--from",
        TWO_STAGES,
        "kwl/job-train-b-5c7e1",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(doc["findings"][0]["id"], "WASE101");
    assert_eq!(doc["outcome"], "Unschedulable");
    assert!(
        doc["target"]
            .as_str()
            .is_some_and(|t| t.starts_with("Pod/ml/train-b-")),
        "{}",
        doc["target"]
    );
}

#[test]
fn workload_without_a_group_is_the_native_one() {
    // `workload/NAME` never finds a Kueue Workload.
    let r = run(&[
        "explain",
        "--from",
        TWO_STAGES,
        "workload/job-train-c-5c7e1",
    ]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("not found"), "{}", r.stderr);
}
