//! Volcano and YuniKorn gangs (issue 52): read from files and from a live cluster (optional
//! APIs: a forbidden list is a warning), kept by `snapshot`, shown by `tree` beside native
//! gangs with their scheduler named, targeted by their own type names (`vcpg/`, never the
//! native `pg/`), explained without simulating their scheduler, and checked by doctor.

use serde_json::Value;

use crate::fake_apiserver::{FakeApiServer, FakeConfig};
use crate::support::{root, run};

const CLUSTER: &str = "testdata/clusters/volcano-yunikorn.yaml";
const BIG: &str = "big-batch";
const EXECUTORS: &str = "spark-pi:spark-executor";

fn cluster() -> String {
    root().join(CLUSTER).to_string_lossy().into_owned()
}

fn json_of(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The fixture's objects, as a live server would serve them.
fn objects() -> Vec<Value> {
    let mut c = wasctl::snapshot::source::Collector::new();
    wasctl::snapshot::source::files::load_path(&root().join(CLUSTER), &mut c).unwrap();
    wasctl::snapshot::export::documents(&c.finish()).unwrap()
}

fn roots(tree: &Value) -> Vec<(String, String, String)> {
    tree["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_owned(),
                r["name"].as_str().unwrap().to_owned(),
                r["scheduler"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn tree_shows_volcano_and_yunikorn_gangs_with_their_scheduler() {
    let c = cluster();
    let r = run(&["tree", "--from", &c, "-A", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let tree = json_of(&r.stdout);
    let roots = roots(&tree);
    for (kind, name, scheduler) in [
        ("PodGroup.scheduling.volcano.sh", BIG, "volcano"),
        ("TaskGroup.yunikorn.apache.org", EXECUTORS, "yunikorn"),
        (
            "TaskGroup.yunikorn.apache.org",
            "spark-pi:spark-driver",
            "yunikorn",
        ),
    ] {
        assert!(
            roots.contains(&(kind.to_owned(), name.to_owned(), scheduler.to_owned())),
            "{roots:?}"
        );
    }
    let big = tree["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == BIG)
        .unwrap();
    assert_eq!(big["status"], "Pending");
    assert_eq!(big["policy"], "gang 0/4");
    assert_eq!(big["conditions"][0], "Unschedulable(NotEnoughResources)");
    assert_eq!(big["children"].as_array().unwrap().len(), 4);
    // The placeholder sits under its task group, marked.
    let r = run(&[
        "tree",
        "--from",
        &c,
        "-n",
        "spark",
        &format!("tg/{EXECUTORS}"),
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let tree = json_of(&r.stdout);
    let group = &tree["roots"][0];
    assert_eq!(group["policy"], "gang 2/2");
    let notes: Vec<String> = group["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}:{}", c["name"], c["notes"]))
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("tg-spark-pi-spark-executor-0")
                && n.contains("YuniKorn placeholder")),
        "{notes:?}"
    );
    // `-o name` spells the kinds as kubectl does.
    let r = run(&["tree", "--from", &c, "-A", "-o", "name"]);
    assert!(
        r.stdout
            .contains("podgroup.scheduling.volcano.sh/big-batch\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn volcanos_pod_group_is_never_the_native_one() {
    let c = cluster();
    for target in [
        "vcpg/big-batch",
        "podgroups.scheduling.volcano.sh/big-batch",
        "podgroup.scheduling.volcano.sh/big-batch",
    ] {
        let r = run(&["tree", "--from", &c, target, "-o", "json"]);
        assert_eq!(r.code, 0, "{target}: {}", r.transcript());
        assert_eq!(
            json_of(&r.stdout)["roots"][0]["kind"],
            "PodGroup.scheduling.volcano.sh",
            "{target}"
        );
    }
    // `pg/` and `podgroups.scheduling.k8s.io/` are the native PodGroup: none is named so.
    for target in ["pg/big-batch", "podgroups.scheduling.k8s.io/big-batch"] {
        let r = run(&["tree", "--from", &c, target]);
        assert_eq!(r.code, 2, "{target}: {}", r.transcript());
        assert!(r.stderr.contains("not found"), "{}", r.stderr);
    }
    // A member pod's tree climbs to its Volcano gang.
    let r = run(&["tree", "--from", &c, "pod/big-batch-1", "-o", "json"]);
    assert_eq!(json_of(&r.stdout)["roots"][0]["name"], BIG);
}

#[test]
fn snapshot_keeps_the_gangs_and_reads_back_the_same_tree() {
    let c = cluster();
    let r = run(&["snapshot", "--from", &c, "-A", "-o", "yaml"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    for kept in [
        "kind: Queue",
        "scheduling.k8s.io/group-name: big-batch",
        "yunikorn.apache.org/task-groups:",
        "yunikorn.apache.org/placeholder: \"true\"",
        "minMember: 4",
    ] {
        assert!(r.stdout.contains(kept), "{kept}: {}", r.stdout);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("snap.yaml");
    std::fs::write(&path, &r.stdout).unwrap();
    let p = path.to_str().unwrap();
    let direct = run(&["tree", "--from", &c, "-A", "-o", "json"]);
    let back = run(&["tree", "--from", p, "-A", "-o", "json"]);
    assert_eq!(back.stdout, direct.stdout);
}

#[test]
fn a_wrong_field_of_a_volcano_object_names_it() {
    let text = std::fs::read_to_string(root().join(CLUSTER))
        .unwrap()
        .replace("minMember: 4", "minMember: four");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(&path, text).unwrap();
    let r = run(&["tree", "--from", path.to_str().unwrap(), "-A"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("PodGroup batch/big-batch: field `spec.minMember`"),
        "{}",
        r.stderr
    );
}

#[test]
fn live_gangs_are_read_and_a_forbidden_list_is_a_warning() {
    let server = FakeApiServer::start(objects(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let r = run(&["tree", "-A", "-o", "json", "--kubeconfig", kc]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let roots = roots(&json_of(&r.stdout));
    assert!(
        roots.contains(&(
            "PodGroup.scheduling.volcano.sh".to_owned(),
            BIG.to_owned(),
            "volcano".to_owned()
        )),
        "{roots:?}"
    );
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .any(|q| q.path == "/apis/scheduling.volcano.sh/v1beta1/queues"),
        "{requests:?}"
    );

    let server = FakeApiServer::start(
        objects(),
        FakeConfig {
            forbidden: vec![("scheduling.volcano.sh".to_owned(), "podgroups".to_owned())],
            ..FakeConfig::default()
        },
    );
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let r = run(&["tree", "-A", "-o", "json", "--kubeconfig", kc]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let tree = json_of(&r.stdout);
    let warnings = tree["warnings"].to_string();
    assert!(
        warnings.contains("podgroups.scheduling.volcano.sh"),
        "{warnings}"
    );
    // The pods' references are unknown, not dangling: nothing says the groups are missing.
    assert!(!r.stdout.contains("missing"), "{}", r.stdout);
}

#[test]
fn explain_says_first_that_volcano_is_not_simulated_then_checks_any_scheduler_holds() {
    let c = cluster();
    let r = run(&["explain", "vcpg/big-batch", "--from", &c]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let first = r.stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains("wasctl does not simulate Volcano's scheduler"),
        "{first}"
    );
    for said in [
        "Unschedulable=True(NotEnoughResources)",
        "Volcano Queue `research` is `Closed`",
        "cpu: 6 x 4 = 24, allocatable 16",
        "2 node(s) cpu=8,memory=32Gi: 1 member(s) each when empty",
        "1 of 4 with every pod removed from the nodes; 0 of 4 now",
        "if kube-scheduler's filters applied",
    ] {
        assert!(r.stdout.contains(said), "{said}: {}", r.stdout);
    }
    let r = run(&["explain", "vcpg/big-batch", "--from", &c, "--exit-code"]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    let r = run(&["explain", "vcpg/big-batch", "--from", &c, "-o", "json"]);
    let d = json_of(&r.stdout);
    assert_eq!(d["kind"], "GangDiagnosis");
    assert_eq!(d["scheduler"], "volcano");
    assert_eq!(d["kubeSchedulerFit"]["onEmptyNodes"], 1);
    assert_eq!(d["checks"][0]["id"], "Capacity");

    // The running gangs fit; YuniKorn's queue config is said to be unread.
    let r = run(&[
        "explain",
        &format!("tg/{EXECUTORS}"),
        "-n",
        "spark",
        "--from",
        &c,
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let d = json_of(&r.stdout);
    assert!(d["notSimulated"].as_str().unwrap().contains("YuniKorn"));
    assert_eq!(d["recorded"]["placeholders"]["total"], 1);
    assert_eq!(d["kubeSchedulerFit"]["now"], 2);
    assert!(d["checks"].to_string().contains("yunikorn-configs"));
}

#[test]
fn doctor_finds_the_stuck_group_the_stray_pod_and_the_left_placeholder() {
    let c = cluster();
    let r = run(&["doctor", "--from", &c, "-A", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let findings = json_of(&r.stdout)["findings"].clone();
    let found: Vec<(String, String)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["object"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for (id, name) in [
        ("WASD304", BIG),
        ("WASD305", "big-batch-3"),
        ("WASD306", EXECUTORS),
    ] {
        assert!(
            found.contains(&(id.to_owned(), name.to_owned())),
            "{id} {name}: {found:?}"
        );
    }
    assert!(findings.to_string().contains("NotEnoughResources"));
    // The threshold is a flag: three hours is not exceeded.
    let r = run(&[
        "doctor",
        "--from",
        &c,
        "-A",
        "--stuck-after",
        "3h",
        "--only",
        "WASD304",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(!r.stdout.contains("WASD304"), "{}", r.stdout);
    let r = run(&["doctor", "--from", &c, "--stuck-after", "soon"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
}

/// The Volcano dump: `kubectl get podgroups,queues,jobs.batch.volcano.sh,pods -A -o yaml`,
/// the nodes and the events, as kubectl prints them.
const DUMP: &str = "testdata/dumps/volcano";
const LLM: &str = "llm-pretrain-3b9d2e51-7c0a-4f1e-9d2b-5a6c7e8f9012";

fn dump() -> String {
    root().join(DUMP).to_string_lossy().into_owned()
}

#[test]
fn explain_reports_volcanos_events_min_resources_and_tasks() {
    let d = dump();
    let target = format!("vcpg/{LLM}");
    let r = run(&["explain", &target, "-n", "ml", "--from", &d]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    for said in [
        "Warning Unschedulable on PodGroup",
        "(x118, last 2026-11-20T11:58:00Z, by volcano)",
        "Warning FailedScheduling on 2 Pods (llm-pretrain-worker-0, llm-pretrain-worker-1)",
        "Warning FailedCreatePod on Job llm-pretrain",
        "`minResources` asks 64 nvidia.com/gpu; the cluster has 48 allocatable",
        "task `worker`: `minTaskMember` 8, but 6 pod(s) with `volcano.sh/task-spec: worker` exist",
        "worker: 6 pod(s), 0 bound, minTaskMember 8; 6 fit with every pod removed, 5 now",
        "nvidia.com/gpu: 0 x 1 + 8 x 8 = 64, allocatable 48",
        "7 of 9 with every pod removed from the nodes; 6 of 9 now",
    ] {
        assert!(r.stdout.contains(said), "{said}: {}", r.stdout);
    }
    // The kubelet's events are not Volcano's: dropped as read.
    assert!(!r.stdout.contains("Pulled"), "{}", r.stdout);
    let r = run(&["explain", &target, "-n", "ml", "--from", &d, "-o", "json"]);
    let j = json_of(&r.stdout);
    let events = &j["recorded"]["events"];
    assert_eq!(events[0]["reason"], "Unschedulable");
    assert_eq!(events[0]["kind"], "PodGroup");
    assert_eq!(events[0]["count"], 118);
    assert_eq!(events[1]["objects"].as_array().unwrap().len(), 2);
    assert_eq!(events[2]["reason"], "FailedCreatePod");
    assert_eq!(j["kubeSchedulerFit"]["onEmptyNodes"], 7);
    let gpu = j["minResources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["resource"] == "nvidia.com/gpu")
        .unwrap();
    assert_eq!(gpu["asked"], "64");
    assert_eq!(gpu["fits"], false);
    // Quota keys Volcano writes are not node resources: `count/pods`, `limits.*` left out,
    // `requests.X` read as X.
    let keys: Vec<&str> = j["minResources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["resource"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["cpu", "memory", "nvidia.com/gpu", "pods"]);
    assert_eq!(j["tasks"][1]["task"], "worker");
    assert_eq!(j["tasks"][1]["pods"]["total"], 6);
    assert_eq!(j["tasks"][1]["kubeSchedulerFit"]["now"], 5);

    // The running job's gang is fine.
    let r = run(&[
        "explain",
        "vcpg/mnist-c41f8a20-5e3b-4d6c-8a7f-0b1c2d3e4f56",
        "-n",
        "ml",
        "--from",
        &d,
        "--exit-code",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("Normal Scheduled on Pod mnist-worker-0"),
        "{}",
        r.stdout
    );
}

#[test]
fn explain_of_a_member_pod_explains_its_gang_and_says_so() {
    let d = dump();
    let r = run(&[
        "explain",
        "pod/llm-pretrain-worker-3",
        "-n",
        "ml",
        "--from",
        &d,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let first = r.stdout.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "Pod/ml/llm-pretrain-worker-3 is a member of Volcano PodGroup `{LLM}`: explaining the gang"
        )
    );
    assert!(
        r.stdout
            .contains("wasctl does not simulate Volcano's scheduler"),
        "{}",
        r.stdout
    );
    let r = run(&[
        "explain",
        "pod/llm-pretrain-worker-3",
        "-n",
        "ml",
        "--from",
        &d,
        "-o",
        "json",
    ]);
    let j = json_of(&r.stdout);
    assert_eq!(j["kind"], "GangDiagnosis");
    assert_eq!(j["redirectedFrom"], "Pod/ml/llm-pretrain-worker-3");
    assert_eq!(
        j["target"],
        format!("PodGroup.scheduling.volcano.sh/ml/{LLM}")
    );
    // A YuniKorn task group's pod likewise.
    let c = cluster();
    let r = run(&[
        "explain",
        "pod/spark-pi-exec-1",
        "-n",
        "spark",
        "--from",
        &c,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.starts_with(
            "Pod/spark/spark-pi-exec-1 is a member of YuniKorn task group `spark-pi:spark-executor`: explaining the gang\n"
        ),
        "{}",
        r.stdout
    );
    // A member that names kube-scheduler is kube-scheduler's pod: explained as before.
    let r = run(&["explain", "pod/big-batch-3", "-n", "batch", "--from", &c]);
    assert!(!r.stdout.contains("is a member of"), "{}", r.stdout);
    assert!(r.stdout.contains("Pod/batch/big-batch-3"), "{}", r.stdout);
}

#[test]
fn doctor_quotes_the_newest_event_and_finds_a_task_short_of_min_task_member() {
    let d = dump();
    let r = run(&["doctor", "--from", &d, "-A", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let findings = json_of(&r.stdout)["findings"].clone();
    let of = |id: &str| -> Vec<Value> {
        findings
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["id"] == id)
            .cloned()
            .collect()
    };
    let stuck = of("WASD304");
    assert_eq!(stuck.len(), 1, "{findings}");
    assert_eq!(stuck[0]["object"]["name"], LLM);
    let message = stuck[0]["message"].as_str().unwrap();
    assert!(
        message.contains("newest event: `Unschedulable` on PodGroup")
            && message.contains("(x118, ")
            && message.contains("by volcano): 7/7 tasks in gang unschedulable"),
        "{message}"
    );
    let short = of("WASD307");
    assert_eq!(short.len(), 1, "{findings}");
    assert!(
        short[0]["message"]
            .as_str()
            .unwrap()
            .contains("task `worker` has 6 pod(s) of `minTaskMember` 8"),
        "{}",
        short[0]
    );
    // The running gang has all its tasks' pods.
    assert!(!findings.to_string().contains("mnist"), "{findings}");
}

#[test]
fn events_are_kept_by_snapshot_and_read_live_and_unreadable_ones_are_said() {
    let d = dump();
    let r = run(&["snapshot", "--from", &d, "-o", "yaml"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    for kept in [
        "reason: FailedScheduling",
        "reason: FailedCreatePod",
        "volcano.sh/task-spec: worker",
    ] {
        assert!(r.stdout.contains(kept), "{kept}");
    }
    assert!(!r.stdout.contains("reason: Pulled"));
    let mut c = wasctl::snapshot::source::Collector::new();
    wasctl::snapshot::source::files::load_path(&root().join(DUMP), &mut c).unwrap();
    let objects = wasctl::snapshot::export::documents(&c.finish()).unwrap();
    let target = format!("vcpg/{LLM}");
    let server = FakeApiServer::start(objects.clone(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let r = run(&["explain", &target, "-n", "ml", "--kubeconfig", kc]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("Warning FailedCreatePod on Job llm-pretrain")
    );
    assert!(
        server.requests().iter().any(|q| q.path == "/api/v1/events"),
        "{:?}",
        server.requests()
    );
    let server = FakeApiServer::start(
        objects,
        FakeConfig {
            forbidden: vec![(String::new(), "events".to_owned())],
            ..FakeConfig::default()
        },
    );
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let r = run(&["explain", &target, "-n", "ml", "--kubeconfig", kc]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("Events: unreadable (forbidden): what Volcano recorded in Events is unknown"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_volcano_job_owns_its_group_in_tree_and_explain_goes_to_the_group() {
    let d = dump();
    let r = run(&["tree", "--from", &d, "-A", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let tree = json_of(&r.stdout);
    let job = &tree["roots"][0];
    assert_eq!(job["kind"], "Job.batch.volcano.sh");
    assert_eq!(job["name"], "llm-pretrain");
    assert_eq!(job["status"], "Pending");
    assert_eq!(job["policy"], "minAvailable 9");
    assert_eq!(job["scheduler"], "volcano");
    assert_eq!(job["children"][0]["kind"], "PodGroup.scheduling.volcano.sh");
    assert_eq!(job["children"][0]["name"], LLM);
    assert_eq!(job["children"][0]["children"].as_array().unwrap().len(), 7);
    // Its own type names; `job/` is the batch/v1 Job.
    for target in [
        "vcjob/llm-pretrain",
        "jobs.batch.volcano.sh/llm-pretrain",
        "job.batch.volcano.sh/llm-pretrain",
    ] {
        let r = run(&["tree", "--from", &d, "-n", "ml", target, "-o", "json"]);
        assert_eq!(r.code, 0, "{target}: {}", r.transcript());
        assert_eq!(
            json_of(&r.stdout)["roots"][0]["kind"],
            "Job.batch.volcano.sh"
        );
    }
    let r = run(&["tree", "--from", &d, "-n", "ml", "job/llm-pretrain"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    // A pod's tree climbs through its PodGroup to the Job.
    let r = run(&[
        "tree",
        "--from",
        &d,
        "-n",
        "ml",
        "pod/llm-pretrain-worker-0",
        "-o",
        "json",
    ]);
    assert_eq!(json_of(&r.stdout)["roots"][0]["name"], "llm-pretrain");
    let r = run(&["tree", "--from", &d, "-A", "-o", "name"]);
    assert!(
        r.stdout.starts_with("job.batch.volcano.sh/llm-pretrain\n"),
        "{}",
        r.stdout
    );

    let r = run(&["explain", "vcjob/llm-pretrain", "-n", "ml", "--from", &d]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(
        r.stdout.lines().next().unwrap_or_default(),
        format!(
            "Job.batch.volcano.sh/ml/llm-pretrain owns Volcano PodGroup `{LLM}`: explaining the gang"
        )
    );
    let r = run(&[
        "explain",
        "vcjob/llm-pretrain",
        "-n",
        "ml",
        "--from",
        &d,
        "-o",
        "json",
    ]);
    let j = json_of(&r.stdout);
    assert_eq!(j["redirectedFrom"], "Job.batch.volcano.sh/ml/llm-pretrain");
    assert_eq!(j["minMember"], 9);

    // A wrong field of a Volcano Job names it.
    let text = std::fs::read_to_string(root().join(DUMP).join("get-list.yaml"))
        .unwrap()
        .replace("replicas: 8", "replicas: eight");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(&path, text).unwrap();
    let r = run(&["tree", "--from", path.to_str().unwrap(), "-A"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("Job ml/llm-pretrain: field `items[3].spec.tasks[1].replicas`"),
        "{}",
        r.stderr
    );
}

#[test]
fn live_volcano_jobs_are_listed_and_own_their_groups() {
    let mut c = wasctl::snapshot::source::Collector::new();
    wasctl::snapshot::source::files::load_path(&root().join(DUMP), &mut c).unwrap();
    let objects = wasctl::snapshot::export::documents(&c.finish()).unwrap();
    let server = FakeApiServer::start(objects, FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let r = run(&["tree", "-A", "-o", "json", "--kubeconfig", kc]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let tree = json_of(&r.stdout);
    assert_eq!(tree["roots"][0]["kind"], "Job.batch.volcano.sh");
    assert_eq!(tree["roots"][0]["children"][0]["name"], LLM);
    assert!(
        server
            .requests()
            .iter()
            .any(|q| q.path == "/apis/batch.volcano.sh/v1alpha1/jobs"),
        "{:?}",
        server.requests()
    );
}

#[test]
fn pods_naming_volcano_on_a_server_without_volcanos_api_warn_once() {
    // The fixture's pods (schedulerName volcano, group annotations) without Volcano's objects.
    let pods: Vec<Value> = objects()
        .into_iter()
        .filter(|o| {
            !o["apiVersion"]
                .as_str()
                .is_some_and(|a| a.contains("volcano.sh"))
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let expected = "pods name scheduler volcano, but the API server does not serve scheduling.volcano.sh: Volcano PodGroups cannot be read";
    // Not discovered at all, and discovered but its list answering 404.
    for config in [
        FakeConfig {
            missing_groups: vec!["scheduling.volcano.sh".to_owned()],
            ..FakeConfig::default()
        },
        FakeConfig {
            faults: vec![crate::fake_apiserver::Fault::new(
                "scheduling.volcano.sh",
                "podgroups",
                crate::fake_apiserver::FaultKind::Status(404),
            )],
            ..FakeConfig::default()
        },
    ] {
        let mut served = pods.clone();
        if config.missing_groups.is_empty() {
            // A Queue makes the group discovered.
            served.push(
                serde_json::json!({"apiVersion": "scheduling.volcano.sh/v1beta1",
                "kind": "Queue", "metadata": {"name": "default"}, "spec": {"weight": 1}}),
            );
        }
        let server = FakeApiServer::start(served, config);
        let kubeconfig = server.write_kubeconfig(dir.path());
        let kc = kubeconfig.to_str().unwrap();
        let r = run(&["tree", "-A", "--kubeconfig", kc]);
        assert_eq!(r.code, 0, "{}", r.transcript());
        assert_eq!(r.stderr.matches(expected).count(), 1, "{}", r.stderr);
    }
    // A server that serves it says nothing of the kind.
    let server = FakeApiServer::start(objects(), FakeConfig::default());
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run(&["tree", "-A", "--kubeconfig", kubeconfig.to_str().unwrap()]);
    assert!(
        !r.stderr.contains("does not serve scheduling.volcano.sh"),
        "{}",
        r.stderr
    );
}

#[test]
fn yunikorns_queue_is_checked_against_its_config_map_or_said_unreadable() {
    let c = cluster();
    let target = format!("tg/{EXECUTORS}");
    let queue = |args: &[&str]| -> Value {
        let r = run(args);
        assert_eq!(r.code, 0, "{}", r.transcript());
        let d = json_of(&r.stdout);
        d["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "QueueConfig")
            .cloned()
            .unwrap()
    };
    let configs = root().join("testdata/dumps/yunikorn");
    let cm = configs.to_str().unwrap();
    let q = queue(&[
        "explain", &target, "-n", "spark", "--from", &c, "--from", cm, "-o", "json",
    ]);
    assert_eq!(q["result"], "ok");
    assert!(
        q["message"].as_str().unwrap().contains(
            "YuniKorn queue `root.sandbox` exists in partition `default` of ConfigMap yunikorn/yunikorn-configs (max memory=64Gi, vcore=16)"
        ),
        "{q}"
    );
    let q = queue(&[
        "explain", &target, "-n", "spark", "--from", &c, "-o", "json",
    ]);
    assert_eq!(q["result"], "unknown");
    assert!(
        q["message"]
            .as_str()
            .unwrap()
            .contains("which is not in the input")
    );
    // A queue the configuration lacks is a problem.
    let text = std::fs::read_to_string(configs.join("yunikorn-configs.yaml"))
        .unwrap()
        .replace("name: sandbox", "name: batch");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cm.yaml");
    std::fs::write(&path, text).unwrap();
    let q = queue(&[
        "explain",
        &target,
        "-n",
        "spark",
        "--from",
        &c,
        "--from",
        path.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(q["result"], "problem", "{q}");
    // Live: read by name; forbidden is said, never "no queue".
    let mut objs = objects();
    let mut collector = wasctl::snapshot::source::Collector::new();
    wasctl::snapshot::source::files::load_path(&configs, &mut collector).unwrap();
    objs.extend(wasctl::snapshot::export::documents(&collector.finish()).unwrap());
    let server = FakeApiServer::start(objs.clone(), FakeConfig::default());
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let q = queue(&[
        "explain",
        &target,
        "-n",
        "spark",
        "--kubeconfig",
        kc,
        "-o",
        "json",
    ]);
    assert_eq!(q["result"], "ok", "{q}");
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.path == "/api/v1/namespaces/yunikorn/configmaps/yunikorn-configs"),
        "{:?}",
        server.requests()
    );
    let server = FakeApiServer::start(
        objs,
        FakeConfig {
            forbidden: vec![(String::new(), "configmaps".to_owned())],
            ..FakeConfig::default()
        },
    );
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let q = queue(&[
        "explain",
        &target,
        "-n",
        "spark",
        "--kubeconfig",
        kc,
        "-o",
        "json",
    ]);
    assert_eq!(q["result"], "unknown");
    assert!(
        q["message"].as_str().unwrap().contains(
            "YuniKorn's queues are in ConfigMap yunikorn/yunikorn-configs, which could not be read: forbidden"
        ),
        "{q}"
    );
}

/// Events are listed for Volcano's gangs only: a live cluster that does not serve Volcano is
/// not asked for its Event list (often the longest list of a busy cluster).
#[test]
fn a_cluster_without_volcano_is_not_asked_for_its_events() {
    let mut c = wasctl::snapshot::source::Collector::new();
    wasctl::snapshot::source::files::load_path(&root().join("testdata/clusters/demo.yaml"), &mut c)
        .unwrap();
    let objects = wasctl::snapshot::export::documents(&c.finish()).unwrap();
    let server = FakeApiServer::start(objects, FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run(&[
        "simulate",
        "-A",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let requests = server.requests();
    assert!(
        requests.iter().any(|q| q.path == "/api/v1/pods"),
        "{requests:?}"
    );
    assert!(
        !requests.iter().any(|q| q.path.ends_with("/events")),
        "{requests:?}"
    );
}
