//! Admission (issue 45): manifests are simulated as kube-apiserver would store them, stored
//! objects (a dump, the demo) exactly as they are. Fixtures under testdata/admission/.

use serde_json::Value;

use crate::support::{root, run};

const FIXTURE: &str = "testdata/admission/priority-class";

fn path(file: &str) -> String {
    format!("{FIXTURE}/{file}")
}

#[test]
fn a_gang_naming_only_its_priority_class_preempts_the_low_gang() {
    let (running, urgent) = (path("running.yaml"), path("urgent.yaml"));
    let r = run(&["simulate", "--from", &running, "--add", &urgent]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("PodGroup/urgent"))
        .unwrap_or_default();
    assert!(line.contains("Preempting"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("No preemption victims found"),
        "{}",
        r.stdout
    );
    // Said once, on stderr: the `low` gang (3 objects) and the urgent one (3 objects).
    assert_eq!(
        r.stderr
            .matches("admitted: priority set from priorityClassName on 6 objects")
            .count(),
        1,
        "{}",
        r.stderr
    );
    let r = run(&[
        "simulate", "--from", &running, "--add", &urgent, "-o", "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let unit = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "urgent")
        .unwrap();
    assert_eq!(unit["priority"], 100_000);
    assert_eq!(unit["outcome"], "Preempting");
    // Both urgent pods fit on one node once a pod of the `low` gang (priority 1000) goes.
    assert_eq!(unit["victims"][0]["group"], "PodGroup/batch", "{unit}");
    assert_eq!(unit["victims"][0]["priority"], 1000, "{unit}");
    assert_eq!(
        v["settings"]["admitted"],
        serde_json::json!([{"change": "PriorityFromClass",
            "message": "priority set from priorityClassName", "count": 6}])
    );
}

#[test]
fn explain_gives_the_same_answer_and_says_what_was_admitted() {
    let r = run(&[
        "explain",
        "pg/urgent",
        "--from",
        &path("running.yaml"),
        "--add",
        &path("urgent.yaml"),
        "-o",
        "json",
    ]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{}", r.transcript()));
    assert_eq!(v["verdict"], "NeedsPreemption", "{}", r.stdout);
    assert_eq!(v["admitted"][0]["change"], "PriorityFromClass");
}

#[test]
fn a_class_that_exists_nowhere_is_an_input_error_naming_the_object_and_the_class() {
    let r = run(&[
        "simulate",
        "--from",
        &path("running.yaml"),
        "--add",
        &path("missing-class.yaml"),
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr
            .starts_with("error: 3 manifests would be refused by the API server:"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("  PodGroup ml/urgent: priorityClassName `urgent` names no PriorityClass\n"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("  Pod ml/urgent-0: "), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("(read from `testdata/admission/priority-class/missing-class.yaml`)"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_priority_written_without_its_class_is_refused_not_simulated() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("numbers.yaml");
    let text = std::fs::read_to_string(root().join(path("urgent.yaml")))
        .unwrap()
        .replace("priorityClassName: high", "priority: 100000");
    std::fs::write(&file, text).unwrap();
    let r = run(&[
        "simulate",
        "--from",
        &path("running.yaml"),
        "--add",
        file.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains(
            "Pod ml/urgent-0: priority 100000 is written but no priorityClassName and no globalDefault PriorityClass gives 0"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn stored_objects_are_not_admitted_dumps_and_the_demo_report_nothing() {
    let inputs: [&[&str]; 3] = [
        &["--from", "testdata/dumps/kubectl-get-list.yaml"],
        &["--from", "testdata/dumps/kubectl-get-list.json"],
        &["--demo"],
    ];
    for input in inputs {
        let mut args = vec!["simulate", "-A", "-o", "json"];
        args.extend_from_slice(input);
        let r = run(&args);
        assert_eq!(r.code, 0, "{input:?}: {}", r.transcript());
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(
            v["settings"].get("admitted").is_none(),
            "{input:?}: {}",
            v["settings"]
        );
        let mut args = vec!["simulate", "-A"];
        args.extend_from_slice(input);
        let r = run(&args);
        assert!(!r.stderr.contains("admitted:"), "{input:?}: {}", r.stderr);
    }
}

/// `simulate --from cluster.yaml --add pods.yaml` in a fixture folder, as text.
fn simulate_folder(folder: &str) -> crate::support::Run {
    let dir = format!("testdata/admission/{folder}");
    run(&[
        "simulate",
        "--from",
        &format!("{dir}/cluster.yaml"),
        "--add",
        &format!("{dir}/pods.yaml"),
    ])
}

fn outcome_of<'a>(stdout: &'a str, pod: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.contains(&format!("Pod/{pod} ")))
        .unwrap_or_default()
}

#[test]
fn a_pod_without_requests_uses_the_namespace_limit_range_defaults() {
    let r = simulate_folder("limit-range");
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        outcome_of(&r.stdout, "web-0").contains("Scheduled"),
        "{}",
        r.stdout
    );
    assert!(
        outcome_of(&r.stdout, "web-1").contains("Unschedulable"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Insufficient cpu"), "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "admitted: container requests set from the namespace's LimitRange defaults on 2 objects"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn a_runtime_class_adds_its_overhead_and_node_selector() {
    let r = simulate_folder("runtime-class");
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        outcome_of(&r.stdout, "sandboxed-0").contains("Scheduled"),
        "{}",
        r.stdout
    );
    assert!(
        outcome_of(&r.stdout, "sandboxed-1").contains("Unschedulable"),
        "{}",
        r.stdout
    );
    let json = run(&[
        "simulate",
        "--from",
        "testdata/admission/runtime-class/cluster.yaml",
        "--add",
        "testdata/admission/runtime-class/pods.yaml",
        "-o",
        "json",
    ]);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    let placed: Vec<&str> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|u| u["placements"].as_array().unwrap())
        .map(|p| p["node"].as_str().unwrap())
        .collect();
    assert_eq!(placed, ["sandbox-1"], "{}", json.stdout);
    let changes: Vec<&str> = v["settings"]["admitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["change"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["RuntimeClassOverhead", "RuntimeClassScheduling"]);
}

#[test]
fn capacity_admits_its_shape_file_as_simulate_admits_added_manifests() {
    let r = run(&[
        "capacity",
        "--from",
        &path("running.yaml"),
        "--shape",
        &path("urgent.yaml"),
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    // No room without preemption; at priority 100000 the copies preempt the `low` gang.
    assert_eq!(v["copies"], 0, "{}", r.stdout);
    assert_eq!(v["copiesWithPreemption"], 2, "{}", r.stdout);
    assert_eq!(v["settings"]["admitted"][0]["change"], "PriorityFromClass");
    let r = run(&[
        "capacity",
        "--from",
        &path("running.yaml"),
        "--shape",
        &path("missing-class.yaml"),
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("PodGroup ml/urgent: priorityClassName `urgent` names no PriorityClass"),
        "{}",
        r.stderr
    );
}

// Controller expansion (issue 45, item 2): testdata/admission/jobs/.

const JOBS: &str = "testdata/admission/jobs";

fn job_file(file: &str) -> String {
    format!("{JOBS}/{file}")
}

fn units(stdout: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(stdout).unwrap();
    v["units"].as_array().cloned().unwrap_or_default()
}

#[test]
fn simulate_add_and_capacity_shape_expand_the_same_gang_job_identically() {
    let cluster = "testdata/capacity/c02-gangs-in-one-rack/cluster.yaml";
    let job = job_file("gang-job.yaml");
    let r = run(&["simulate", "--from", cluster, "--add", &job, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let all = units(&r.stdout);
    let unit = all
        .iter()
        .find(|u| u["name"].as_str().unwrap_or_default().starts_with("sweep-"))
        .unwrap_or_else(|| panic!("no unit for the Job: {}", r.stdout));
    // The PodGroup the 1.37 Job controller names `<workload>-<template>-<hash>`.
    let name = unit["name"].as_str().unwrap();
    assert!(name.contains("-sweep-pgt-0-"), "{name}");
    assert_eq!(unit["kind"], "PodGroup");
    assert_eq!(unit["namespace"], "default");
    assert_eq!(unit["minCount"], 4, "minCount defaulted from parallelism");
    let pods: Vec<&str> = unit["placements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pod"].as_str().unwrap())
        .collect();
    assert_eq!(pods, ["sweep-0", "sweep-1", "sweep-2", "sweep-3"]);
    let r = run(&["capacity", "--from", cluster, "--shape", &job, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["target"]["name"], name, "{}", r.stdout);
    assert_eq!(v["target"]["namespace"], "default");
    assert_eq!(v["target"]["pods"], 4);
    assert_eq!(v["target"]["minCount"], 4);
    assert_eq!(v["target"]["topologyKey"], "rack");
    // explain finds the Job's PodGroup through the same expansion (it said "no PodGroup").
    let r = run(&["explain", "--from", cluster, "--add", &job, "job/sweep"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains(&format!("PodGroup/default/{name}")),
        "{}",
        r.stdout
    );
}

#[test]
fn the_help_example_drain_gpu_a1_add_new_job_gives_rows_for_the_jobs_pods() {
    // `simulate --help`: `kubectl wasctl simulate --drain gpu-a1 --add new-job.yaml`.
    let job = job_file("new-job.yaml");
    let r = run(&["simulate", "--demo", "--drain", "gpu-a1", "--add", &job]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    for pod in ["Pod/finetune-0", "Pod/finetune-1"] {
        assert!(
            r.stdout.lines().any(|l| l.contains(pod)),
            "{pod}: {}",
            r.stdout
        );
    }
    // The demo's kube-controller-manager runs WorkloadWithJob=false: the Job's gang block is
    // dropped, and that is said.
    assert!(
        r.stderr
            .contains("Job `ml/finetune` sets `spec.scheduling`, but WorkloadWithJob is off"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("admitted: Job expanded into the pods its controller creates on 1 object"),
        "{}",
        r.stderr
    );
    // Priority from the template's priorityClassName (`low`, 1000) on both pods.
    let r = run(&[
        "simulate", "--demo", "--drain", "gpu-a1", "--add", &job, "-o", "json",
    ]);
    let all = units(&r.stdout);
    let pod = all.iter().find(|u| u["name"] == "finetune-1").unwrap();
    assert_eq!(pod["priority"], 1000, "{pod}");
}

#[test]
fn a_suspended_job_is_reported_not_dropped() {
    let job = job_file("suspended-job.yaml");
    let r = run(&["simulate", "--demo", "--add", &job]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("Job ml/later is suspended: no pods until it is resumed"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("later-"), "{}", r.stdout);
    // Issue #45: its unit is `Suspended` (the one outcome vocabulary), with its 2 pods.
    let row = r
        .stdout
        .lines()
        .find(|l| l.contains("Job/later"))
        .unwrap_or_else(|| panic!("no Job/later row:\n{}", r.stdout));
    assert!(row.contains("Suspended"), "{row}");
    assert!(r.stdout.contains(", 1 suspended"), "{}", r.stdout);
    let r = run(&["simulate", "--demo", "--add", &job, "-o", "json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let admitted = v["settings"]["admitted"].as_array().unwrap();
    assert!(
        admitted
            .iter()
            .any(|a| a["change"] == "JobSuspended" && a["count"] == 1),
        "{admitted:?}"
    );
    let unit = units(&r.stdout)
        .into_iter()
        .find(|u| u["kind"] == "Job" && u["name"] == "later")
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert_eq!(unit["outcome"], "Suspended", "{unit}");
    assert_eq!(unit["pending"], 2, "{unit}");
    assert_eq!(v["summary"]["suspended"], 1, "{}", v["summary"]);
    // explain job/later says the same word, and why.
    let r = run(&[
        "explain",
        "--demo",
        "--add",
        &job,
        "job/later",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let d: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(d["outcome"], "Suspended", "{d:#}");
    assert_eq!(d["verdict"], "Waiting", "{d:#}");
    assert!(
        d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "WASE008"),
        "{d:#}"
    );
    // A demo without it has no summary count for it (omitted when 0).
    let r = run(&["simulate", "--demo", "-o", "json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["summary"].get("suspended").is_none(), "{}", v["summary"]);
}

#[test]
fn a_deployment_becomes_its_replicas_and_kinds_that_cannot_be_expanded_are_named() {
    let file = job_file("deployment.yaml");
    let r = run(&["simulate", "--demo", "--add", &file]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let rows: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("Pod/nginx-deployment-"))
        .collect();
    assert_eq!(rows.len(), 3, "{}", r.stdout);
    for (row, suffix) in rows.iter().zip(["-00000", "-00001", "-00002"]) {
        let name = row.split_whitespace().nth(1).unwrap();
        // `<deployment>-<pod-template-hash>-<5 characters>`.
        let hash = name
            .strip_prefix("Pod/nginx-deployment-")
            .and_then(|n| n.strip_suffix(suffix))
            .unwrap_or_else(|| panic!("{name}"));
        assert!(!hash.is_empty() && !hash.contains('-'), "{name}");
    }
    for kind in [
        "DaemonSet kube-system/fluentd-elasticsearch (apps/v1) is not expanded",
        "JobSet default/pytorch (jobset.x-k8s.io/v1alpha2) is not expanded",
        // A kind wasctl does not load at all is named too (it was only counted).
        "1 v1/ConfigMap (`default/nginx-config`)",
    ] {
        assert!(r.stderr.contains(kind), "{kind}: {}", r.stderr);
    }
}

#[test]
fn lint_feasibility_reports_a_gang_job_that_cannot_fit_on_the_job() {
    let file = job_file("too-big-job.yaml");
    let r = run(&["lint", "--demo", "--feasibility", &file, "-o", "github"]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("WAS312"))
        .unwrap_or_else(|| panic!("no WAS312: {}", r.stdout));
    assert!(
        line.contains("Job ml/too-big: PodGroup `ml/too-big-"),
        "{line}"
    );
    assert!(line.contains("Insufficient nvidia.com/gpu"), "{line}");
}

/// Issue 45 item 2: a suspended Job stored in the cluster (a dump; the Job controller
/// created no pods, pkg/controller/job `syncJob` with `spec.suspend`) is a `Suspended` unit in
/// simulate, explain and tree, as a suspended manifest Job is; a stored suspended Job whose
/// pod still exists is not (its pods are what the snapshot holds).
#[test]
fn a_stored_suspended_job_is_a_suspended_unit_in_simulate_explain_and_tree() {
    let cluster = "testdata/admission/suspended/cluster.yaml";
    let r = run(&["simulate", "--from", cluster, "-A", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let jobs: Vec<(String, String, u64)> = units(&r.stdout)
        .iter()
        .filter(|u| u["kind"] == "Job")
        .map(|u| {
            (
                u["name"].as_str().unwrap_or_default().to_owned(),
                u["outcome"].as_str().unwrap_or_default().to_owned(),
                u["pending"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        jobs,
        [
            ("later".to_owned(), "Suspended".to_owned(), 2),
            ("queued".to_owned(), "Suspended".to_owned(), 1)
        ],
        "{}",
        r.stdout
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["summary"]["suspended"], 2, "{}", v["summary"]);
    let r = run(&["explain", "--from", cluster, "-n", "ml", "job/later"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("Job/ml/later: Suspended")
            && r.stdout
                .contains("WASE008 the Job is suspended: no pods until it is resumed"),
        "{}",
        r.stdout
    );
    let r = run(&["tree", "--from", cluster, "-A"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let row = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
    };
    // NAMESPACE NAME STATUS SIMULATED … (AGE follows the wall clock: not compared).
    let later = row("Job/later").unwrap_or_else(|| panic!("no Job/later root:\n{}", r.stdout));
    assert!(
        later.starts_with("ml Job/later 0 active, 0 succeeded Suspended"),
        "{later}"
    );
    assert!(row("Job/draining").is_none(), "{}", r.stdout);
}

/// Kueue suspends the Jobs it queues: with Kueue's objects (ClusterQueue, LocalQueue) in the
/// input, a stored suspended Job labelled `kueue.x-k8s.io/queue-name` is left to Kueue's
/// admission stage (issue 49), not reported as Suspended; the other suspended Job still is.
#[test]
fn a_suspended_job_queued_in_kueue_is_left_to_kueue_when_kueue_is_in_the_input() {
    let r = run(&[
        "simulate",
        "--from",
        "testdata/admission/suspended/cluster.yaml",
        "--from",
        "testdata/admission/suspended/kueue.yaml",
        "-A",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let jobs: Vec<String> = units(&r.stdout)
        .iter()
        .filter(|u| u["kind"] == "Job")
        .map(|u| u["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(jobs, ["later"], "{}", r.stdout);
}

/// `snapshot` keeps what makes a stored Job suspended and Kueue-queued (`spec.suspend`, the
/// queue label, Kueue's objects): the exported file simulates as its input does.
#[test]
fn a_snapshot_keeps_suspended_jobs_and_their_kueue_queue() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("snap.yaml");
    let r = run(&[
        "snapshot",
        "--from",
        "testdata/admission/suspended/cluster.yaml",
        "--from",
        "testdata/admission/suspended/kueue.yaml",
        "-A",
        "-o",
        "yaml",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("suspend: true"), "{}", r.stdout);
    std::fs::write(&out, &r.stdout).unwrap();
    let r = run(&["simulate", "--from", out.to_str().unwrap(), "-A"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("Job/later") && !r.stdout.contains("Job/queued"),
        "{}",
        r.stdout
    );
}

/// Issue 45 item 1 (ResourceQuota): the namespace's quota (`gpu-quota`: 8 GPUs, 4 used, as
/// the snapshot holds it) lets the Job controller create 2 of the gang Job's 4 pods of 2
/// GPUs; the others are refused, as in a cluster, so the gang has 2 members of 4 and waits.
/// The `admitted:` line (text) and the `admitted` entry (JSON) say so.
#[test]
fn a_resource_quota_lets_the_job_controller_create_only_the_pods_it_allows() {
    let cluster = "testdata/admission/resource-quota/cluster.yaml";
    let job = job_file("gang-job.yaml");
    let r = run(&["simulate", "--from", cluster, "--add", &job]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let said = "admitted: the Job controller could create 2 of 4 pods of Job default/sweep: quota `gpu-quota` has 0 of 8 `requests.nvidia.com/gpu` left (used 8), and a pod needs 2";
    assert!(r.stderr.contains(said), "{}", r.transcript());
    let r = run(&["simulate", "--from", cluster, "--add", &job, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let admitted = v["settings"]["admitted"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let quota = admitted
        .iter()
        .find(|a| a["change"] == "QuotaExceeded")
        .unwrap_or_else(|| panic!("no QuotaExceeded entry: {admitted:?}"));
    assert_eq!(quota["count"], 2);
    let unit = units(&r.stdout)
        .into_iter()
        .find(|u| u["name"].as_str().unwrap_or_default().starts_with("sweep-"))
        .unwrap_or_else(|| panic!("no unit for the Job: {}", r.stdout));
    assert_eq!(unit["outcome"], "Waiting", "{unit:#}");
    assert_eq!(unit["pending"], 2, "the 2 pods the quota allowed: {unit:#}");
    // Without the quota the same Job gets its 4 pods (the c02 cluster has none).
    let r = run(&[
        "simulate",
        "--from",
        "testdata/capacity/c02-gangs-in-one-rack/cluster.yaml",
        "--add",
        &job,
    ]);
    assert!(!r.stderr.contains("could create"), "{}", r.transcript());
}

/// A ResourceQuota with `limits.*` entries: wasctl keeps pods' requests only, so it cannot
/// count them; where the added Job's pods are created under it, a `QuotaLimitsNotCounted`
/// warning says so (pkg/quota/v1/evaluator/core/pods.go would refuse these pods: "must
/// specify limits.cpu"), for `simulate --add` and `capacity --shape`; a dump alone, where no
/// pod is created, gets no such warning.
#[test]
fn a_limits_quota_is_said_not_counted_where_pods_are_created_under_it() {
    let cluster = "testdata/admission/resource-quota/cluster.yaml";
    let limits = "testdata/admission/resource-quota/limits-quota.yaml";
    let job = job_file("gang-job.yaml");
    let said = "warning: ResourceQuota `compute` (`limits.cpu`, `limits.memory`) of namespace `default` counts container limits, which wasctl does not keep (requests only)";
    let r = run(&[
        "simulate", "--from", cluster, "--from", limits, "--add", &job,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stderr.contains(said), "{}", r.transcript());
    let r = run(&[
        "capacity", "--from", cluster, "--from", limits, "--shape", &job,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stderr.contains(said), "{}", r.transcript());
    let r = run(&["simulate", "--from", cluster, "--from", limits]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        !r.stderr.contains("QuotaLimits") && !r.stderr.contains("counts container limits"),
        "{}",
        r.stderr
    );
}

/// The open question of issue 45, settled from the 1.37 sources: the Job controller creates a
/// gang Job's PodGroup without the pod template's `priorityClassName`
/// (job_scheduling_manager.go `podGroupSpecFromTemplate`), so the PodGroup has priority 0 and
/// the pods 100000, and kube-scheduler's `validatePodGroup` refuses the gang. wasctl does the
/// same (outcome Error) and says why and what to do.
#[test]
fn a_gang_job_naming_a_priority_class_is_refused_by_the_scheduler_as_in_1_37() {
    let cluster = "testdata/capacity/c02-gangs-in-one-rack/cluster.yaml";
    let job = job_file("priority-gang-job.yaml");
    let r = run(&["simulate", "--from", cluster, "--add", &job, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let unit = units(&r.stdout)
        .into_iter()
        .find(|u| {
            u["name"]
                .as_str()
                .unwrap_or_default()
                .starts_with("urgent-")
        })
        .unwrap_or_else(|| panic!("no unit for the Job: {}", r.stdout));
    assert_eq!(unit["outcome"], "Error", "{unit:#}");
    let message = unit["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("has priority 100000 but its group's priority is 0")
            && message.contains("the Job controller creates the PodGroup without the pod template's priorityClassName"),
        "{message}"
    );
}
