//! `shadow` end to end: the fake API server plays a pretend scheduler that binds a pending
//! pod where wasctl predicted (agreed), elsewhere (disagreed: nodes, with the tie as a likely
//! cause), or never (undecided after a short `--undecided-after`); Ctrl-C prints the summary
//! and exits 0.

use serde_json::{Value, json};

use crate::fake_apiserver::{FakeApiServer, FakeConfig, Step};
use crate::support::run;
use crate::watch::{Watching, pod};

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "uid": format!("uid-{name}")},
           "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
}

/// Two empty nodes alike and one pending pod: wasctl predicts n1 (the first of two equal
/// scores).
fn cluster() -> Vec<Value> {
    vec![
        node("n1"),
        node("n2"),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}}),
        pod("w", "1", None),
    ]
}

fn start(server: &FakeApiServer, dir: &std::path::Path, extra: &[&str]) -> Watching {
    let mut args = vec!["shadow"];
    args.extend(extra);
    Watching::command(server, dir, &args)
}

#[test]
fn a_pod_bound_where_predicted_agrees_and_the_summary_counts_it() {
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = start(&server, dir.path(), &[]);
    let first = w.until("the prediction", |l| l.starts_with("Pod ml/w:"));
    assert_eq!(
        first.last().map(String::as_str),
        Some("Pod ml/w: predicted Scheduled on n1")
    );
    server.play(&[Step::bind("ml", "w", "n1")]);
    let settled = w.until("the score", |l| l.starts_with("Pod ml/w:"));
    assert_eq!(
        settled.last().map(String::as_str),
        Some("Pod ml/w: agreed: Scheduled on n1")
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let signal = std::process::Command::new("kill")
        .args(["-INT", &w_id(&w)])
        .status()
        .expect("kill runs");
    assert!(signal.success());
    let summary = w.until("the summary", |l| l.starts_with("Summary"));
    assert!(
        summary.last().is_some_and(
            |l| l.ends_with("1 prediction(s): 1 agreed, 0 disagreed, 0 undecided, 0 pending")
        ),
        "{summary:#?}"
    );
    let (code, stderr) = w.end(None);
    assert_eq!(code, 0, "{stderr}");
}

fn w_id(w: &Watching) -> String {
    w.id().to_string()
}

#[test]
fn a_pod_bound_elsewhere_disagrees_by_nodes_and_names_the_tie() {
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = start(&server, dir.path(), &[]);
    w.until("the prediction", |l| l.starts_with("Pod ml/w:"));
    server.play(&[Step::bind("ml", "w", "n2")]);
    let settled = w.until("the score", |l| l.starts_with("Pod ml/w:"));
    let line = settled.last().unwrap();
    assert!(
        line.starts_with("Pod ml/w: disagreed (nodes): predicted n1, bound to n2; likely causes: "),
        "{line}"
    );
    assert!(line.contains("scored equally"), "{line}");
    assert!(line.contains("no `--scheduler-config` given"), "{line}");
    let (code, stderr) = w.end(Some("-INT"));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_pod_never_bound_is_undecided_and_json_streams_events_and_the_report() {
    let server = FakeApiServer::start(cluster(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let w = start(
        &server,
        dir.path(),
        &[
            "--undecided-after",
            "2s",
            "--summary-every",
            "1h",
            "-o",
            "json",
        ],
    );
    let first = w.until("the prediction", |l| l.contains("\"Predicted\""));
    let p: Value = serde_json::from_str(first.last().unwrap()).expect("one JSON object");
    assert_eq!(p["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(p["kind"], "ShadowEvent");
    assert_eq!(
        p["unit"],
        json!({"kind": "Pod", "namespace": "ml", "name": "w"})
    );
    assert_eq!(p["predicted"]["nodes"], json!({"w": "n1"}));
    let undecided = w.until("the undecided unit", |l| l.contains("\"Undecided\""));
    let u: Value = serde_json::from_str(undecided.last().unwrap()).expect("one JSON object");
    assert_eq!(u["message"], "still pending after 2s");
    let signal = std::process::Command::new("kill")
        .args(["-TERM", &w_id(&w)])
        .status()
        .expect("kill runs");
    assert!(signal.success());
    let report = w.until("the report", |l| l.contains("\"ShadowReport\""));
    let r: Value = serde_json::from_str(report.last().unwrap()).expect("one JSON object");
    assert_eq!(
        (&r["predictions"], &r["undecided"], &r["pending"]),
        (&json!(1), &json!(1), &json!(0))
    );
    let (code, _) = w.end(None);
    assert_eq!(code, 0);
}

#[test]
fn shadow_needs_a_live_cluster_and_durations_kubectl_writes() {
    let demo = run(&["shadow", "--demo"]);
    assert_eq!(demo.code, 2, "{}", demo.transcript());
    assert!(demo.stderr.contains("live cluster"), "{}", demo.stderr);
    let bad = run(&[
        "shadow",
        "--undecided-after",
        "soon",
        "--server",
        "http://127.0.0.1:1",
    ]);
    assert_eq!(bad.code, 2, "{}", bad.transcript());
    assert!(
        bad.stderr.contains("invalid `--undecided-after`"),
        "{}",
        bad.stderr
    );
}
