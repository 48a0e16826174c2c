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

/// The Jobs, pods and nodes beside [`DUMP`]'s Kueue objects (issue 49 items 2 and 6).
const JOBS: &str = "testdata/dumps/kueue-jobs.yaml";

fn kueue_tree(args: &[&str]) -> crate::support::Run {
    let mut all = vec!["tree", "--from", DUMP, "--from", JOBS];
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn tree_of_a_kueue_workload_shows_its_job_pod_group_and_pods_below_it() {
    let r = kueue_tree(&["-n", "ml", "kwl/job-pretrain-8f2c1", "--no-simulate"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    insta::assert_snapshot!(r.stdout);
    // The long name names the same object; the native Workload is another kind.
    let long = kueue_tree(&[
        "-n",
        "ml",
        "workloads.kueue.x-k8s.io/job-pretrain-8f2c1",
        "--no-simulate",
    ]);
    assert_eq!(long.stdout, r.stdout, "{}", long.transcript());
    let native = kueue_tree(&["-n", "ml", "workload/job-pretrain-8f2c1"]);
    assert_eq!(native.code, 2, "{}", native.transcript());
}

#[test]
fn tree_of_a_job_or_pod_group_kueue_manages_shows_the_kueue_workload_above_it() {
    for target in ["job/pretrain", "pg/pretrain-main", "pod/pretrain-1"] {
        let r = kueue_tree(&["-n", "ml", target, "--no-simulate"]);
        assert_eq!(r.code, 0, "{}", r.transcript());
        let first = r.stdout.lines().nth(1).unwrap_or_default();
        assert!(
            first.starts_with("Workload.kueue.x-k8s.io/job-pretrain-8f2c1  Admitted"),
            "{target}:\n{}",
            r.stdout
        );
    }
    // A suspended Job that waits for quota: its Kueue Workload says why.
    let r = kueue_tree(&["-n", "ml", "job/finetune", "--no-simulate"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("Workload.kueue.x-k8s.io/job-finetune-3a9d0  Pending"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("└─ Job/finetune"), "{}", r.stdout);
    assert!(r.stdout.contains("8 more needed"), "{}", r.stdout);
}

#[test]
fn tree_without_a_target_puts_kueue_workloads_above_their_jobs() {
    let r = kueue_tree(&["-A", "--no-simulate"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    insta::assert_snapshot!(r.stdout);
    // Every Kueue-managed tree is rooted at its Kueue Workload: the PodGroup is no root.
    assert!(!r.stdout.contains("\nml         PodGroup/"), "{}", r.stdout);
    let json = kueue_tree(&["-A", "--no-simulate", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let roots = v["roots"].as_array().unwrap();
    let pretrain = roots
        .iter()
        .find(|r| r["name"] == "job-pretrain-8f2c1")
        .unwrap();
    assert_eq!(pretrain["kind"], "Workload.kueue.x-k8s.io");
    assert_eq!(pretrain["kueue"]["state"], "Admitted");
    assert_eq!(pretrain["kueue"]["clusterQueue"], "team-a");
    assert_eq!(pretrain["kueue"]["priority"], 10000);
    assert_eq!(pretrain["kueue"]["podSets"][0]["count"], 2);
    assert_eq!(
        pretrain["kueue"]["podSets"][0]["requests"]["nvidia.com/gpu"],
        "8"
    );
    assert_eq!(
        pretrain["kueue"]["podSets"][0]["flavors"]["nvidia.com/gpu"],
        "h100"
    );
    assert_eq!(pretrain["children"][0]["kind"], "Job");
    assert_eq!(pretrain["children"][0]["children"][0]["kind"], "PodGroup");
}

#[test]
fn tree_of_a_cluster_queue_shows_quota_per_flavor_and_the_workloads_in_queue_order() {
    let r = kueue_tree(&["cq/team-a"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    insta::assert_snapshot!(r.stdout);
    let json = kueue_tree(&["clusterqueue/team-a", "-o", "json"]);
    assert_eq!(json.code, 0, "{}", json.transcript());
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["kind"], "QueueTree");
    assert_eq!(v["cohorts"], serde_json::json!(["research"]));
    let gpu = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == "nvidia.com/gpu")
        .unwrap();
    assert_eq!(gpu["nominal"], "16");
    assert_eq!(gpu["borrowingLimit"], "8");
    assert_eq!(gpu["used"], "16");
    assert_eq!(gpu["recorded"], "16");
    // finetune (8 GPUs × 2) and eval (4) wait: 20 GPUs pending.
    assert_eq!(gpu["pending"], "20");
    // Queue order: priority 10000 before priority 0.
    let pending: Vec<&str> = v["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(pending, ["job-finetune-3a9d0", "job-eval-77aa1"]);
    assert_eq!(v["admitted"][0]["name"], "job-pretrain-8f2c1");
    let names = kueue_tree(&["cq/team-a", "-o", "name"]);
    assert_eq!(
        names.stdout.lines().next(),
        Some("clusterqueue.kueue.x-k8s.io/team-a"),
        "{}",
        names.stdout
    );
}

#[test]
fn tree_of_a_local_queue_shows_its_cluster_queue_and_only_its_workloads() {
    let r = kueue_tree(&["-n", "ml", "lq/user-queue"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .starts_with("LocalQueue ml/user-queue → ClusterQueue team-a, cohort research"),
        "{}",
        r.stdout
    );
    let names = kueue_tree(&["-n", "ml", "localqueue/user-queue", "-o", "name"]);
    assert_eq!(
        names.stdout,
        "localqueue.kueue.x-k8s.io/user-queue\nworkload.kueue.x-k8s.io/job-pretrain-8f2c1\nworkload.kueue.x-k8s.io/job-finetune-3a9d0\nworkload.kueue.x-k8s.io/job-eval-77aa1\n"
    );
    let yaml = kueue_tree(&["-n", "ml", "lq/user-queue", "-o", "yaml"]);
    assert!(yaml.stdout.contains("kind: QueueTree"), "{}", yaml.stdout);
    assert!(
        yaml.stdout
            .contains("localQueue:\n  namespace: ml\n  name: user-queue"),
        "{}",
        yaml.stdout
    );
    let other = kueue_tree(&["-n", "default", "lq/user-queue"]);
    assert_eq!(other.code, 2, "{}", other.transcript());
    let missing = kueue_tree(&["cq/nope"]);
    assert_eq!(missing.code, 2, "{}", missing.transcript());
    assert!(
        missing.stderr.contains("ClusterQueue `nope` not found"),
        "{}",
        missing.stderr
    );
}

#[test]
fn a_status_that_disagrees_with_the_workloads_holding_quota_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(DUMP).unwrap().replace(
        "{name: nvidia.com/gpu, total: \"16\", borrowed: \"0\"}",
        "{name: nvidia.com/gpu, total: \"8\", borrowed: \"0\"}",
    );
    let path = dir.path().join("kueue.yaml");
    std::fs::write(&path, text).unwrap();
    let r = run(&["tree", "--from", path.to_str().unwrap(), "cq/team-a"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("note: status.flavorsUsage records 8 of nvidia.com/gpu in flavor h100; the workloads holding quota use 16"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_queue_borrowing_from_its_cohort_shows_borrowed_and_the_lender_shows_lent() {
    // pretrain admitted to team-b with 24 GPUs: 8 beyond team-b's nominal 16, borrowed from
    // team-a's unused quota in cohort `research`.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(DUMP)
        .unwrap()
        .replace(
            "      clusterQueue: team-a\n      podSetAssignments",
            "      clusterQueue: team-b\n      podSetAssignments",
        )
        .replace(
            "resourceUsage: {cpu: \"16\", memory: 128Gi, nvidia.com/gpu: \"16\"}",
            "resourceUsage: {cpu: \"16\", memory: 128Gi, nvidia.com/gpu: \"24\"}",
        );
    let path = dir.path().join("kueue.yaml");
    std::fs::write(&path, text).unwrap();
    let gpu_row = |cq: &str| {
        let r = run(&[
            "tree",
            "--from",
            path.to_str().unwrap(),
            &format!("cq/{cq}"),
            "-o",
            "json",
        ]);
        assert_eq!(r.code, 0, "{}", r.transcript());
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["resource"] == "nvidia.com/gpu")
            .cloned()
            .unwrap()
    };
    let b = gpu_row("team-b");
    assert_eq!(
        (&b["used"], &b["borrowed"], &b["lent"]),
        (&"24".into(), &"8".into(), &"0".into())
    );
    let a = gpu_row("team-a");
    assert_eq!(
        (&a["used"], &a["borrowed"], &a["lent"]),
        (&"0".into(), &"0".into(), &"8".into())
    );
}

/// A PodGroup of one pod that asks for a whole H100 node, without the GPU toleration (Kueue
/// adds the flavor's).
const ONE_GPU_NODE_SHAPE: &str = "apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: probe, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: probe-0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: probe}
  containers:
  - name: c
    image: registry.example.com/probe:1
    resources: {requests: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"8\"}}
";

/// Two more free H100 nodes: with h100-c, three nodes hold a copy each.
const MORE_NODES: &str = "apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: h100-d, labels: {kubernetes.io/hostname: h100-d, cloud.example.com/gpu: h100}}
  spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
  status: {allocatable: {cpu: \"64\", memory: 512Gi, nvidia.com/gpu: \"8\", pods: \"110\"}}
- apiVersion: v1
  kind: Node
  metadata: {name: h100-e, labels: {kubernetes.io/hostname: h100-e, cloud.example.com/gpu: h100}}
  spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
  status: {allocatable: {cpu: \"64\", memory: 512Gi, nvidia.com/gpu: \"8\", pods: \"110\"}}
";

#[test]
fn capacity_with_a_queue_says_whether_the_quota_or_the_nodes_limit_first() {
    let dir = tempfile::tempdir().unwrap();
    let shape = dir.path().join("probe.yaml");
    std::fs::write(&shape, ONE_GPU_NODE_SHAPE).unwrap();
    let nodes = dir.path().join("nodes.yaml");
    std::fs::write(&nodes, MORE_NODES).unwrap();
    let capacity = |extra: &[&str]| {
        let mut args = vec![
            "capacity",
            "--from",
            DUMP,
            "--from",
            JOBS,
            "--from",
            nodes.to_str().unwrap(),
            "-n",
            "ml",
            "--shape",
            shape.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    // Without the queue the pod lacks the GPU toleration: no tainted node takes it.
    let plain = capacity(&["-o", "json"]);
    assert_eq!(plain.code, 0, "{}", plain.transcript());
    let v: serde_json::Value = serde_json::from_str(&plain.stdout).unwrap();
    assert_eq!(v["copies"], 0, "{}", plain.stdout);
    assert!(v.get("queue").is_none());
    // With it: flavor h100's toleration is added; 3 free nodes hold 3 copies, but team-a has
    // 0 of its 16 GPUs left and may borrow 8 (borrowingLimit) from team-b: 1 copy.
    let r = capacity(&["--queue", "user-queue", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let q = &v["queue"];
    assert_eq!(q["localQueue"], "ml/user-queue", "{}", r.stdout);
    assert_eq!(q["clusterQueue"], "team-a");
    assert_eq!(q["byQuota"], 1, "{}", r.stdout);
    assert_eq!(q["byNodes"], 3, "{}", r.stdout);
    assert_eq!(q["limitedBy"], "quota");
    assert_eq!(
        q["flavors"],
        serde_json::json!([{"flavor": "h100", "copies": 1}])
    );
    assert_eq!(q["nodeFlavor"], "h100");
    let text = capacity(&["--queue", "user-queue"]);
    assert!(
        text.stdout.contains("Kueue: LocalQueue ml/user-queue → ClusterQueue team-a: 1 copy fit the quota (1 on h100), 3 the nodes with flavor h100"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("the quota limits first"),
        "{}",
        text.stdout
    );
    // Unknown LocalQueue: exit 2 with a hint; LocalQueues not read: said so.
    let unknown = capacity(&["--queue", "nope"]);
    assert_eq!(unknown.code, 2, "{}", unknown.transcript());
    assert!(
        unknown.stderr.contains("LocalQueue `ml/nope` not found"),
        "{}",
        unknown.stderr
    );
    let unread = run(&[
        "capacity",
        "--from",
        nodes.to_str().unwrap(),
        "-n",
        "ml",
        "--shape",
        shape.to_str().unwrap(),
        "--queue",
        "user-queue",
    ]);
    assert_eq!(unread.code, 2, "{}", unread.transcript());
    assert!(
        unread.stderr.contains("LocalQueues were not read"),
        "{}",
        unread.stderr
    );
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

const SINGLE_CQ: &str = "testdata/kueue-sim/single-clusterqueue.yaml";
const SAMPLE_JOB: &str = "testdata/kueue-sim/sample-job.yaml";
/// `job-sample-job-` and the first 5 hex digits of SHA-1("Job\nbatch\nsample-job\n"): a
/// manifest has no uid yet (kueue `jobframework/workload_names.go`).
const SAMPLE_WORKLOAD: &str = "job-sample-job-4b8c4";

/// Issue 49, the main what-if: the Kueue docs' Job (`kubectl create -f sample-job.yaml`)
/// gets the Kueue Workload Kueue's job controller creates, Kueue admits it (5 of the queue's
/// 9 CPUs are free), and its three pods are placed: the job would start.
#[test]
fn simulate_add_of_a_kueue_job_creates_its_kueue_workload_and_says_it_would_start() {
    let r = run(&[
        "simulate", "--from", SINGLE_CQ, "--add", SAMPLE_JOB, "-o", "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let units = doc["units"].as_array().expect("units");
    let w = units
        .iter()
        .find(|u| u["name"] == SAMPLE_WORKLOAD)
        .unwrap_or_else(|| panic!("no Kueue Workload unit: {}", r.stdout));
    assert_eq!(w["kind"], "Workload");
    assert_eq!(w["admission"]["outcome"], "Admitted");
    assert_eq!(w["admission"]["clusterQueue"], "cluster-queue");
    assert_eq!(w["admission"]["podSets"][0]["name"], "main");
    assert_eq!(w["admission"]["podSets"][0]["count"], 3);
    assert_eq!(w["outcome"], "Scheduled", "{w}");
    assert_eq!(w["placement"]["kind"], "Pod");
    let pods: Vec<&serde_json::Value> = units
        .iter()
        .filter(|u| {
            u["kind"] == "Pod"
                && u["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("sample-job-"))
        })
        .collect();
    assert_eq!(pods.len(), 3, "{}", r.stdout);
    assert!(
        pods.iter()
            .all(|p| p["placements"][0]["node"] == "worker-2")
    );
    // The text view: the Workload's line says it is admitted and placed.
    let text = run(&["simulate", "--from", SINGLE_CQ, "--add", SAMPLE_JOB]);
    assert_eq!(text.code, 0, "{}", text.transcript());
    insta::assert_snapshot!(text.stdout);
}

/// Kueue's webhook suspends a Job with the queue label even when it says `suspend: false`
/// (`jobframework.ApplyDefaultForSuspend`): with 6 CPUs asked and 5 free, Kueue holds it,
/// and no pod of it is created.
#[test]
fn a_kueue_job_created_unsuspended_is_held_by_kueue_until_admitted() {
    let dir = tempfile::tempdir().unwrap();
    let job = std::fs::read_to_string(SAMPLE_JOB).unwrap().replace(
        "  parallelism: 3\n  completions: 3\n",
        "  suspend: false\n  parallelism: 6\n  completions: 6\n",
    );
    assert!(job.contains("suspend: false"));
    let path = dir.path().join("job.yaml");
    std::fs::write(&path, job).unwrap();
    let path = path.to_str().unwrap();
    let r = run(&["simulate", "--from", SINGLE_CQ, "--add", path, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let units = doc["units"].as_array().expect("units");
    let w = units
        .iter()
        .find(|u| u["name"] == SAMPLE_WORKLOAD)
        .unwrap_or_else(|| panic!("no Kueue Workload unit: {}", r.stdout));
    assert_eq!(w["admission"]["outcome"], "QuotaPending");
    assert_eq!(w["admission"]["shortfall"]["cpu"], "1");
    assert_eq!(w["outcome"], "Waiting");
    assert!(
        !units.iter().any(|u| u["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("sample-job-"))),
        "no pod of a held Job: {}",
        r.stdout
    );
    // explain of the new Workload, with the same --add.
    let e = run(&[
        "explain",
        "--from",
        SINGLE_CQ,
        "--add",
        path,
        &format!("kwl/{SAMPLE_WORKLOAD}"),
        "-n",
        "default",
    ]);
    assert_eq!(e.code, 0, "{}", e.transcript());
    assert!(e.stdout.contains("cluster-queue"), "{}", e.stdout);
}

/// A v1beta1 Kueue Workload whose priority comes only from `priorityClassSource:
/// scheduling.k8s.io/priorityclass` + `priorityClassName` (no `spec.priority`): Kueue's
/// effective priority is the class's value, so it is admitted before an older workload of
/// priority 0 (kueue `pkg/util/priority` `Priority`, `workload.go` queue order).
const PRIORITY_FROM_CLASS: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: worker-1, uid: uid-w1}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: idle, namespace: ml, uid: uid-idle}
spec: {nodeName: worker-1, containers: [{name: c, image: x}]}
status: {phase: Running}
---
apiVersion: v1
kind: Namespace
metadata: {name: ml, uid: uid-ns}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: urgent, uid: uid-pc}
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor, uid: uid-rf}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cluster-queue, uid: uid-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default-flavor, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: user-queue, namespace: ml, uid: uid-lq}
spec: {clusterQueue: cluster-queue}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: early, namespace: ml, uid: uid-early, creationTimestamp: "2026-12-01T09:00:00Z"}
spec:
  queueName: user-queue
  priority: 0
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "4"}}}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: late, namespace: ml, uid: uid-late, creationTimestamp: "2026-12-01T10:00:00Z"}
spec:
  queueName: user-queue
  priorityClassSource: scheduling.k8s.io/priorityclass
  priorityClassName: urgent
  podSets: [{name: main, count: 1, template: {spec: {priorityClassName: urgent, containers: [{name: c, image: x, resources: {requests: {cpu: "4"}}}]}}}]
"#;

#[test]
fn a_kueue_workload_whose_priority_comes_only_from_its_priority_class_name_is_ordered_by_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dump.yaml");
    std::fs::write(&path, PRIORITY_FROM_CLASS).unwrap();
    let r = run(&["simulate", "--from", path.to_str().unwrap(), "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let unit = |name: &str| {
        doc["units"]
            .as_array()
            .expect("units")
            .iter()
            .find(|u| u["name"] == name)
            .unwrap_or_else(|| panic!("no unit {name}: {}", r.stdout))
            .clone()
    };
    let late = unit("late");
    assert_eq!(late["priority"], 1000, "{late}");
    assert_eq!(late["admission"]["outcome"], "Admitted", "{late}");
    assert_eq!(unit("early")["admission"]["outcome"], "QuotaPending");
}

/// A partial dump (`kubectl get workloads.kueue.x-k8s.io,localqueues -A -o yaml`): the
/// LocalQueue names a ClusterQueue, and ClusterQueues were not read. The answer is "not read",
/// never "missing" or "doesn't exist".
#[test]
fn a_partial_dump_without_cluster_queues_says_not_read_never_missing() {
    let partial: String = PRIORITY_FROM_CLASS
        .split("\n---\n")
        .filter(|d| !d.contains("kind: ClusterQueue") && !d.contains("kind: ResourceFlavor"))
        .collect::<Vec<_>>()
        .join("\n---\n");
    assert!(partial.contains("kind: LocalQueue") && !partial.contains("kind: ClusterQueue"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("partial.yaml");
    std::fs::write(&path, partial).unwrap();
    let path = path.to_str().unwrap();
    let r = run(&["simulate", "--from", path]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let out = format!("{}{}", r.stdout, r.stderr);
    assert!(
        out.contains(
            "ClusterQueue cluster-queue is not in the input (ClusterQueues were not read): its admission is unknown"
        ),
        "{out}"
    );
    let d = run(&["doctor", "--from", path]);
    let all = format!("{}{}{}", out, d.stdout, d.stderr);
    for word in ["missing", "doesn't exist", "does not exist"] {
        assert!(
            !all.lines()
                .any(|l| l.contains("cluster-queue") && l.contains(word)),
            "`{word}` said of a kind that was not read:\n{all}"
        );
    }
}

// ---- The demo's Kueue setup (issue 49 item 1): two ClusterQueues in cohort `gpus`, flavors
// h100 and a100 for the two GPU pools, a Job waiting on quota and one admitted that the nodes
// cannot place (testdata/clusters/demo.yaml, KUEUE section).

const DEMO_DISTILL: &str = "job-distill-32367";
const DEMO_FINETUNE: &str = "job-finetune-943b8";

fn json_of(r: &crate::support::Run) -> serde_json::Value {
    assert_eq!(r.code, 0, "{}", r.transcript());
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

/// distill waits on team-ml's a100 quota, held by finetune; cohort gpus lends none (the
/// other queue's a100 quota has lendingLimit 0): the shortfall with the queue's numbers, and
/// a fix verified by running Kueue's admission again.
#[test]
fn the_demos_queued_job_waits_on_quota_with_the_queues_numbers() {
    let r = run(&["explain", "--demo", &format!("kwl/{DEMO_DISTILL}")]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    insta::assert_snapshot!(r.stdout);
    let doc = json_of(&run(&[
        "explain",
        "--demo",
        &format!("workloads.kueue.x-k8s.io/{DEMO_DISTILL}"),
        "-o",
        "json",
    ]));
    assert_eq!(doc["outcome"], "Waiting");
    let finding = &doc["findings"][0];
    assert_eq!(finding["id"], "WASE100");
    let quota = &finding["evidence"]["quota"][0];
    assert_eq!(quota["flavor"], "a100");
    assert_eq!(quota["needs"], "8");
    assert_eq!(quota["nominal"], "8");
    assert_eq!(quota["used"], "8");
    assert_eq!(quota["free"], "0");
    assert_eq!(quota["cohort"], "gpus");
    assert_eq!(quota["lendable"], "0");
    assert_eq!(
        quota["usedBy"],
        serde_json::json!([format!("ml/{DEMO_FINETUNE} (priority 1000)")])
    );
    assert_eq!(
        finding["evidence"]["admittedAfter"]["workloads"][0]["name"],
        DEMO_FINETUNE
    );
    assert_eq!(
        doc["fixes"],
        serde_json::json!([
            "raise ClusterQueue team-ml's nominalQuota of nvidia.com/gpu of flavor a100 from 8 to 16 (verified: Kueue then admits it)"
        ])
    );
    // The plan's unit: QuotaPending with the shortfall, no placement.
    let plan = json_of(&run(&["simulate", "--demo", "-o", "json"]));
    let unit = plan["units"]
        .as_array()
        .and_then(|u| u.iter().find(|u| u["name"] == DEMO_DISTILL))
        .unwrap_or_else(|| panic!("no unit {DEMO_DISTILL}"));
    assert_eq!(unit["kind"], "Workload");
    assert_eq!(unit["apiVersion"], "kueue.x-k8s.io/v1beta2");
    assert_eq!(unit["admission"]["outcome"], "QuotaPending");
    assert_eq!(unit["admission"]["clusterQueue"], "team-ml");
    assert_eq!(
        unit["admission"]["shortfall"],
        serde_json::json!({"nvidia.com/gpu": "8"})
    );
    assert_eq!(unit["outcome"], "Waiting");
    assert!(unit.get("placement").is_none(), "{unit}");
}

/// finetune holds team-ml's a100 quota, but its pod, pinned to the A100 nodes by the
/// flavor, finds rack c full and preempts nothing: "admitted but unschedulable", followed by
/// the pod's diagnosis.
#[test]
fn the_demos_admitted_job_is_admitted_but_unschedulable() {
    let r = run(&["explain", "--demo", &format!("kwl/{DEMO_FINETUNE}")]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    insta::assert_snapshot!(r.stdout);
    let doc = json_of(&run(&[
        "explain",
        "--demo",
        &format!("kwl/{DEMO_FINETUNE}"),
        "-o",
        "json",
    ]));
    assert_eq!(doc["outcome"], "Unschedulable");
    assert!(
        doc["target"]
            .as_str()
            .is_some_and(|t| t.starts_with("Pod/ml/finetune-")),
        "{}",
        doc["target"]
    );
    let finding = &doc["findings"][0];
    assert_eq!(finding["id"], "WASE101");
    let detail = finding["detail"].as_str().unwrap_or_default();
    assert!(
        detail
            .starts_with("admitted but unschedulable: ClusterQueue team-ml has quota (flavor a100"),
        "{detail}"
    );
    assert!(detail.contains("waitForPodsReady"), "{detail}");
    assert!(detail.contains("2 Insufficient nvidia.com/gpu"), "{detail}");
    assert_eq!(
        finding["evidence"]["podSets"][0]["flavors"]["nvidia.com/gpu"],
        "a100"
    );
    // The plan: admitted with its flavors, unschedulable, pointing at its pod's unit.
    let plan = json_of(&run(&["simulate", "--demo", "-o", "json"]));
    let units = plan["units"].as_array().cloned().unwrap_or_default();
    let unit = units
        .iter()
        .find(|u| u["name"] == DEMO_FINETUNE)
        .unwrap_or_else(|| panic!("no unit {DEMO_FINETUNE}"));
    assert_eq!(unit["admission"]["outcome"], "Admitted");
    assert_eq!(unit["admission"]["evicted"], false);
    assert_eq!(unit["admission"]["podSets"][0]["count"], 1);
    assert_eq!(unit["outcome"], "Unschedulable");
    assert_eq!(unit["placement"]["kind"], "Pod");
    let pod = units
        .iter()
        .find(|u| u["name"] == unit["placement"]["name"])
        .unwrap_or_else(|| panic!("no pod unit: {unit}"));
    assert_eq!(pod["outcome"], "Unschedulable");
    // The rest of the demo's story is intact, and each job is counted once.
    let outcome = |name: &str| {
        units
            .iter()
            .find(|u| u["name"] == name)
            .map(|u| u["outcome"].clone())
            .unwrap_or_default()
    };
    assert_eq!(outcome("urgent"), "Preempting");
    assert_eq!(outcome("big-train-workers"), "Unschedulable");
    assert_eq!(outcome("infer-a"), "Scheduled");
    assert_eq!(outcome("lost-0"), "Waiting");
    assert_eq!(
        plan["summary"],
        serde_json::json!({"scheduled": 2, "unschedulable": 2, "waiting": 2, "preempting": 1, "error": 0})
    );
}

/// `tree cq/NAME --demo`: the quota per flavor with the admitted and the waiting workload;
/// the other queue of the cohort keeps its a100 quota (lendingLimit 0); the Kueue Workloads
/// in the namespace tree carry the dry run's answer.
#[test]
fn tree_shows_the_demos_cluster_queues_and_kueue_workloads() {
    let r = run(&["tree", "--demo", "cq/team-ml"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    insta::assert_snapshot!(r.stdout);
    let v = json_of(&run(&["tree", "--demo", "cq/team-ml", "-o", "json"]));
    assert_eq!(v["cohorts"], serde_json::json!(["gpus"]));
    assert_eq!(v["admitted"][0]["name"], DEMO_FINETUNE);
    assert_eq!(v["pending"][0]["name"], DEMO_DISTILL);
    let gpu = v["resources"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["resource"] == "nvidia.com/gpu"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(gpu["flavor"], "a100");
    assert_eq!(gpu["nominal"], "8");
    assert_eq!(gpu["used"], "8");
    assert_eq!(gpu["pending"], "8");
    let research = json_of(&run(&["tree", "--demo", "cq/team-research", "-o", "json"]));
    let a100 = research["resources"]
        .as_array()
        .and_then(|r| {
            r.iter()
                .find(|r| r["resource"] == "nvidia.com/gpu" && r["flavor"] == "a100")
        })
        .cloned()
        .unwrap_or_default();
    assert_eq!(a100["lendingLimit"], "0");
    assert_eq!(a100["lent"], "0");
    let ns = run(&["tree", "--demo", "-n", "ml"]);
    assert_eq!(ns.code, 0, "{}", ns.transcript());
    let row = |name: &str| {
        ns.stdout
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_default()
            .to_owned()
    };
    let finetune = row(&format!("Workload.kueue.x-k8s.io/{DEMO_FINETUNE}"));
    assert!(
        finetune.contains("Admitted") && finetune.contains("Unschedulable"),
        "{}",
        ns.stdout
    );
    let distill = row(&format!("Workload.kueue.x-k8s.io/{DEMO_DISTILL}"));
    assert!(
        distill.contains("Pending") && distill.contains("Waiting"),
        "{}",
        ns.stdout
    );
}
