//! `simulate --watch` end to end against the fake API server: the result, then one line per
//! unit whose result changed as scripted changes come in (a pod deleted, a node cordoned),
//! through a 410, a dropped and a stalled stream; Ctrl-C ends with 0, a lost server with 3;
//! the requests made are one list and a few watches per resource, not one per change.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::fake_apiserver::{FakeApiServer, FakeConfig, Step, WatchFault, WatchFaultKind};
use crate::support::{HANDED_OUT_CREDENTIALS, run, wasctl};

pub(crate) fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "uid": "uid-n1"},
           "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
}

pub(crate) fn pod(name: &str, cpu: &str, node: Option<&str>) -> Value {
    let mut p = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "uid": format!("uid-{name}"),
                     "creationTimestamp": "2026-11-29T11:00:00Z"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": "Pending"}});
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
        p["status"]["phase"] = json!("Running");
    }
    p
}

/// One node of 4 CPUs, a running pod holding 3 of them and a pending pod asking for 2:
/// unschedulable until the blocker goes.
pub(crate) fn cluster() -> Vec<Value> {
    vec![
        node("n1"),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}}),
        pod("blocker", "3", Some("n1")),
        pod("w-3", "2", None),
    ]
}

/// The running command, its stdout lines as they come, and its stderr.
pub(crate) struct Watching {
    child: Child,
    lines: Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl Watching {
    fn start(server: &FakeApiServer, dir: &std::path::Path, extra: &[&str]) -> Self {
        let mut args = vec!["simulate", "--watch"];
        args.extend(extra);
        Self::command(server, dir, &args)
    }

    /// Runs `args` (a command with `--watch`) in namespace `ml` against the fake server.
    pub(crate) fn command(server: &FakeApiServer, dir: &std::path::Path, args: &[&str]) -> Self {
        let kubeconfig = server.write_kubeconfig(dir);
        let mut child = wasctl()
            .args(args)
            .args(["-n", "ml", "--request-timeout", "2s"])
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Self {
            child,
            lines,
            stderr,
        }
    }

    /// The lines up to and including the first that `done` accepts (panics after 20 s).
    pub(crate) fn until(&self, what: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let stop = done(&line);
                    seen.push(line);
                    if stop {
                        return seen;
                    }
                }
                Err(_) => break,
            }
        }
        panic!("no {what} within 20 s; stdout so far: {seen:#?}");
    }

    /// The process id.
    pub(crate) fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` and waits (at most 30 s) for the exit; returns the code and stderr.
    pub(crate) fn end(mut self, signal: Option<&str>) -> (i32, String) {
        if let Some(signal) = signal {
            let status = std::process::Command::new("kill")
                .args([signal, &self.child.id().to_string()])
                .status()
                .expect("kill runs");
            assert!(status.success());
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        let code = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status.code().unwrap_or(-1);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the command did not end within 30 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let stderr = self.stderr.join().expect("stderr read");
        for c in HANDED_OUT_CREDENTIALS {
            assert!(!stderr.contains(c), "a credential on stderr: {stderr}");
        }
        (code, stderr)
    }
}

#[test]
fn watch_prints_one_line_per_changed_unit_with_its_cause_through_a_410_a_drop_and_a_stall() {
    let config = FakeConfig {
        bookmark_every: Duration::from_millis(300),
        watch_faults: vec![
            // The pods' first watch: its version expired (the pods are listed again).
            WatchFault::once("", "pods", WatchFaultKind::Gone),
            // The nodes' first watch breaks at once (the drop is found first), the second
            // stalls past the 2 s idle limit; the third behaves.
            WatchFault::once("", "nodes", WatchFaultKind::DropAfter(0)),
            WatchFault {
                times: 2,
                ..WatchFault::once("", "nodes", WatchFaultKind::Stall)
            },
            // Listing is allowed, watching is not: a warning, the rest goes on.
            WatchFault {
                times: usize::MAX,
                ..WatchFault::once("", "limitranges", WatchFaultKind::Status(403))
            },
        ],
        ..FakeConfig::default()
    };
    let server = FakeApiServer::start(cluster(), config);
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::start(&server, dir.path(), &[]);
    let first = w.until("the first result", |l| l.contains("w-3"));
    assert!(
        first.last().is_some_and(|l| l.contains("Unschedulable")),
        "{first:#?}"
    );
    server.play(&[Step::delete_pod("ml", "blocker")]);
    let change = w.until("the pod's change", |l| l.starts_with("Pod ml/w-3:"));
    assert_eq!(
        change.last().map(String::as_str),
        Some("Pod ml/w-3: Unschedulable → Scheduled (newly schedulable): pod ml/blocker deleted")
    );
    // After the stalls, the node's watch is open again: a cordon arrives.
    std::thread::sleep(Duration::from_secs(5));
    server.play(&[Step::Cordon("n1".to_owned())]);
    let change = w.until("the node's change", |l| l.starts_with("Pod ml/w-3:"));
    assert_eq!(
        change.last().map(String::as_str),
        Some("Pod ml/w-3: Scheduled → Unschedulable (newly unschedulable): node n1 cordoned")
    );
    let (code, stderr) = w.end(Some("-INT"));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("`limitranges` is no longer watched: watching it is forbidden"),
        "{stderr}"
    );
    // O(resources): every resource listed once (pods twice: the 410), and watched a few
    // times (nodes 3: a drop, a stall, then the one that stays) — not once per change.
    let log = server.requests();
    let pod_lists = log
        .iter()
        .filter(|r| r.path == "/api/v1/pods" && !r.query.contains("watch=true"))
        .count();
    assert_eq!(pod_lists, 2, "{log:#?}");
    let node_watches = log
        .iter()
        .filter(|r| r.path == "/api/v1/nodes" && r.query.contains("watch=true"))
        .count();
    assert_eq!(node_watches, 3, "{log:#?}");
    let lists = log
        .iter()
        .filter(|r| !r.query.contains("watch=true"))
        .count();
    let watches = log.len() - lists;
    assert!(
        watches <= lists + 8,
        "{watches} watches for {lists} other requests"
    );
    assert!(log.iter().all(|r| r.method == "GET"), "read-only: {log:#?}");
    let resume = log
        .iter()
        .rfind(|r| r.path == "/api/v1/nodes" && r.query.contains("watch=true"))
        .map(|r| r.query.clone())
        .unwrap_or_default();
    assert!(
        resume.contains("allowWatchBookmarks=true") && resume.contains("resourceVersion="),
        "{resume}"
    );
}

#[test]
fn watch_json_streams_one_watch_event_per_line() {
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::start(&server, dir.path(), &["-o", "json"]);
    let first = w.until("the first result", |l| l.contains("SimulationReport"));
    let report: Value = serde_json::from_str(first.last().unwrap()).expect("one JSON line");
    assert_eq!(report["units"][0]["outcome"], "Unschedulable");
    server.play(&[
        Step::Create(pod("w-4", "1", None)),
        Step::delete_pod("ml", "blocker"),
    ]);
    let lines = w.until("the events", |l| l.contains("\"w-3\""));
    let events: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let w3 = events.last().unwrap();
    assert_eq!(w3["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(w3["kind"], "WatchEvent");
    assert_eq!(w3["type"], "NewlySchedulable");
    assert_eq!(
        w3["unit"],
        json!({"kind": "Pod", "namespace": "ml", "name": "w-3"})
    );
    assert_eq!(
        (&w3["before"], &w3["after"]),
        (&json!("Unschedulable"), &json!("Scheduled"))
    );
    assert!(
        w3["causes"]
            .as_array()
            .is_some_and(|c| c.contains(&json!("pod ml/blocker deleted"))),
        "{w3}"
    );
    let (code, _) = w.end(Some("-TERM"));
    assert_eq!(code, 0);
}

#[test]
fn a_lost_api_server_ends_the_watch_with_exit_3() {
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::start(&server, dir.path(), &[]);
    w.until("the first result", |l| l.contains("w-3"));
    drop(server);
    let (code, stderr) = w.end(None);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("lost the Kubernetes API server"),
        "{stderr}"
    );
    assert!(stderr.contains("hint:"), "{stderr}");
}

#[test]
fn watch_needs_a_live_cluster_and_a_streamed_format() {
    let demo = run(&["simulate", "--watch", "--demo"]);
    assert_eq!(demo.code, 2, "{}", demo.transcript());
    assert!(
        demo.stderr.contains("`--watch` follows a live cluster"),
        "{}",
        demo.stderr
    );
    let from = run(&["simulate", "-w", "--from", "testdata/doctor/kueue.yaml"]);
    assert_eq!(from.code, 2, "{}", from.transcript());
    let yaml = run(&[
        "simulate",
        "-w",
        "-o",
        "yaml",
        "--server",
        "http://127.0.0.1:1",
    ]);
    assert_eq!(yaml.code, 2, "{}", yaml.transcript());
}

/// [`cluster`] with a gang: PodGroup `g` (minCount 1) and its pending pod `g-0` asking for 2
/// CPUs, unschedulable until the blocker goes.
fn cluster_with_gang() -> Vec<Value> {
    let mut objects = cluster();
    objects.push(
        json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "ml", "uid": "uid-g",
                     "creationTimestamp": "2026-11-29T11:00:00Z"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}}}),
    );
    let mut member = pod("g-0", "2", None);
    member["spec"]["schedulingGroup"] = json!({"podGroupName": "g"});
    objects.push(member);
    objects
}

#[test]
fn tree_watch_prints_a_line_per_object_whose_simulated_outcome_changed() {
    let server = FakeApiServer::start(cluster_with_gang(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::command(&server, dir.path(), &["tree", "--watch"]);
    let first = w.until("the tree", |l| l.contains("Pod/g-0"));
    assert!(
        first.last().is_some_and(|l| l.contains("Unschedulable")),
        "{first:#?}"
    );
    server.play(&[Step::delete_pod("ml", "blocker")]);
    let change = w.until("the pod's change", |l| l.starts_with("Pod ml/g-0:"));
    assert_eq!(
        change.last().map(String::as_str),
        Some(
            "Pod ml/g-0: Pending (simulated Unschedulable) → Pending (simulated Scheduled) (simulated outcome changed): pod ml/blocker deleted"
        )
    );
    // The pretend scheduler binds it: its recorded status changes.
    server.play(&[Step::bind("ml", "g-0", "n1")]);
    let bound = w.until("the bind", |l| l.starts_with("Pod ml/g-0:"));
    let line = bound.last().unwrap();
    assert!(
        line.contains("→ Running on n1 (status changed): pod ml/g-0"),
        "{line}"
    );
    let (code, stderr) = w.end(Some("-INT"));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn tree_watch_json_streams_watch_events_for_objects() {
    let server = FakeApiServer::start(cluster_with_gang(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::command(&server, dir.path(), &["tree", "-w", "-o", "json"]);
    let first = w.until("the tree", |l| l.contains("\"Tree\""));
    let tree: Value = serde_json::from_str(first.last().unwrap()).expect("one JSON line");
    assert_eq!(tree["kind"], "Tree");
    server.play(&[Step::delete_pod("ml", "blocker")]);
    let lines = w.until("the pod's event", |l| l.contains("\"g-0\""));
    let e: Value = serde_json::from_str(lines.last().unwrap()).expect("one JSON object");
    assert_eq!(e["kind"], "WatchEvent");
    assert_eq!(e["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(e["type"], "SimulatedChanged");
    assert_eq!(
        e["object"],
        json!({"kind": "Pod", "namespace": "ml", "name": "g-0"})
    );
    assert_eq!(e["before"], "Pending (simulated Unschedulable)");
    assert_eq!(e["after"], "Pending (simulated Scheduled)");
    assert_eq!(e["causes"], json!(["pod ml/blocker deleted"]));
    let (code, _) = w.end(Some("-TERM"));
    assert_eq!(code, 0);
}

#[test]
fn doctor_watch_prints_a_line_per_finding_that_appeared_or_went_away() {
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::command(
        &server,
        dir.path(),
        &["doctor", "--watch", "--only", "WASD012"],
    );
    w.until("the findings", |l| l.contains("no findings"));
    let mut lost = pod("lost-0", "1", None);
    lost["spec"]["schedulingGroup"] = json!({"podGroupName": "nope"});
    server.play(&[Step::Create(lost)]);
    let appeared = w.until("the finding", |l| l.starts_with("WASD012"));
    let line = appeared.last().unwrap();
    assert!(
        line.starts_with(
            "WASD012 error Pod ml/lost-0: `spec.schedulingGroup.podGroupName` names PodGroup `nope`"
        ),
        "{line}"
    );
    assert!(
        line.ends_with("(finding appeared): pod ml/lost-0 created"),
        "{line}"
    );
    server.play(&[Step::delete_pod("ml", "lost-0")]);
    let resolved = w.until("the resolution", |l| l.starts_with("WASD012"));
    assert_eq!(
        resolved.last().map(String::as_str),
        Some("WASD012 error Pod ml/lost-0: resolved (finding resolved): pod ml/lost-0 deleted")
    );
    let (code, stderr) = w.end(Some("-INT"));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn explain_watch_prints_a_line_when_the_verdict_changes() {
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::command(&server, dir.path(), &["explain", "pod/w-3", "--watch"]);
    w.until("the explanation", |l| {
        l.starts_with("Pod/ml/w-3: Unschedulable")
    });
    server.play(&[Step::delete_pod("ml", "blocker")]);
    let change = w.until("the verdict", |l| l.contains("(verdict changed)"));
    assert_eq!(
        change.last().map(String::as_str),
        Some("Pod ml/w-3: Unschedulable → Schedulable (verdict changed): pod ml/blocker deleted")
    );
    let (code, stderr) = w.end(Some("-INT"));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn explain_watch_json_streams_the_target_changes() {
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::command(
        &server,
        dir.path(),
        &["explain", "pod/w-3", "-w", "-o", "json"],
    );
    let first = w.until("the diagnosis", |l| l.contains("\"Diagnosis\""));
    let d: Value = serde_json::from_str(first.last().unwrap()).expect("one JSON line");
    assert_eq!(d["verdict"], "Unschedulable");
    server.play(&[Step::delete_pod("ml", "blocker")]);
    let lines = w.until("the verdict", |l| l.contains("VerdictChanged"));
    let e: Value = serde_json::from_str(lines.last().unwrap()).expect("one JSON object");
    assert_eq!(e["kind"], "WatchEvent");
    assert_eq!(
        (&e["before"], &e["after"]),
        (&json!("Unschedulable"), &json!("Schedulable"))
    );
    assert_eq!(e["object"]["name"], "w-3");
    let (code, _) = w.end(Some("-TERM"));
    assert_eq!(code, 0);
}

#[test]
fn tree_doctor_and_explain_watch_need_a_live_cluster_and_a_streamed_format() {
    for args in [
        &["tree", "-w", "--demo"][..],
        &["doctor", "--watch", "--demo"],
        &["explain", "pg/big-train-workers", "-w", "--demo"],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{}", r.transcript());
        assert!(
            r.stderr.contains("`--watch` follows a live cluster"),
            "{}",
            r.stderr
        );
    }
    for args in [
        &["tree", "-w", "-o", "name", "--server", "http://127.0.0.1:1"][..],
        &[
            "doctor",
            "-w",
            "-o",
            "yaml",
            "--server",
            "http://127.0.0.1:1",
        ],
        &[
            "explain",
            "pod/x",
            "-w",
            "--drain",
            "n1",
            "--server",
            "http://127.0.0.1:1",
        ],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{}", r.transcript());
    }
}

#[test]
fn watching_many_changes_lists_and_watches_each_resource_once() {
    // O(resources), never O(events): 31 scripted changes (ten pods created, bound by a
    // pretend scheduler and deleted, then a cordon) cost no list and no watch beyond the
    // first of each resource, on a server whose streams neither break nor expire.
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = Watching::start(&server, dir.path(), &[]);
    w.until("the first result", |l| l.contains("w-3"));
    let rounds = 10;
    for k in 0..rounds {
        let name = format!("w-new-{k}");
        let line =
            |l: &str, words: &str| l.starts_with(&format!("Pod ml/{name}:")) && l.contains(words);
        server.play(&[Step::Create(pod(&name, "1", None))]);
        w.until("the new pod's line", |l| line(l, "(new)"));
        // Bound where it was predicted: no line; the next pod's line follows both changes.
        server.play(&[Step::bind("ml", &name, "n1"), Step::delete_pod("ml", &name)]);
    }
    server.play(&[Step::Create(pod("w-last", "1", None))]);
    w.until("the last pod's line", |l| l.starts_with("Pod ml/w-last:"));
    server.play(&[Step::Cordon("n1".to_owned())]);
    let cordoned = w.until("the cordon's line", |l| {
        l.starts_with("Pod ml/w-last:") && l.contains("node n1 cordoned")
    });
    assert!(
        cordoned
            .last()
            .is_some_and(|l| l.starts_with("Pod ml/w-last: Scheduled → Unschedulable")),
        "{cordoned:#?}"
    );
    let (code, stderr) = w.end(Some("-INT"));
    assert_eq!(code, 0, "{stderr}");
    let log = server.requests();
    assert!(log.iter().all(|r| r.method == "GET"), "read-only: {log:#?}");
    let watched: std::collections::BTreeSet<&str> = log
        .iter()
        .filter(|r| r.query.contains("watch=true"))
        .map(|r| r.path.as_str())
        .collect();
    for path in ["/api/v1/pods", "/api/v1/nodes"] {
        assert!(watched.contains(path), "{path} is watched: {log:#?}");
    }
    for path in &watched {
        let of = |watch: bool| {
            log.iter()
                .filter(|r| r.path == *path && r.query.contains("watch=true") == watch)
                .count()
        };
        assert_eq!(
            (of(false), of(true)),
            (1, 1),
            "one LIST and one WATCH of {path}: {log:#?}"
        );
    }
    // Nothing else is asked twice either (discovery, version, metrics: once each).
    let mut seen = std::collections::BTreeSet::new();
    for r in &log {
        assert!(
            seen.insert((r.path.as_str(), r.query.as_str())),
            "asked twice: {} {}?{}",
            r.method,
            r.path,
            r.query
        );
    }
}
