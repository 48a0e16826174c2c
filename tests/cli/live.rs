//! Live mode end to end: the binary reads the demo cluster from a fake API server on
//! 127.0.0.1 through a temporary kubeconfig, and prints the same tree as `--from`.

use std::collections::BTreeMap;

use crate::fake_apiserver::{FakeApiServer, FakeConfig};
use crate::support::{demo_objects, run, run_cmd, wasctl};

fn demo_server() -> FakeApiServer {
    let gates: BTreeMap<String, bool> = [
        "GenericWorkload",
        "CompositePodGroup",
        "TopologyAwareWorkloadScheduling",
        "DRAWorkloadResourceClaims",
        "PodGroupPreemptionPolicy",
        "WorkloadWithJob",
    ]
    .into_iter()
    .map(|g| (g.to_owned(), true))
    .collect();
    FakeApiServer::start(
        demo_objects(),
        FakeConfig {
            feature_gates: gates,
            forbidden: vec![(String::new(), "namespaces".to_owned())],
            missing_groups: vec!["policy".to_owned()],
            page_size: Some(7),
            ..FakeConfig::default()
        },
    )
}

/// The tree as JSON without what legitimately differs between live and file mode: warnings
/// (the fake server forbids and hides some APIs), assumptions, and ages (live ages are
/// measured from now, file ages from the snapshot's `snapshotTime`).
fn comparable(json: &str) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("age");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(json).expect("json");
    v.as_object_mut().expect("object").remove("warnings");
    v.as_object_mut().expect("object").remove("assumed");
    strip(&mut v);
    v
}

#[test]
fn live_tree_matches_the_file_tree_and_only_gets() {
    let server = demo_server();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let live = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", kubeconfig.to_str().unwrap()]));
    assert_eq!(live.code, 0, "{}", live.transcript());
    let live_json = run_cmd(wasctl().args([
        "tree",
        "-A",
        "-o",
        "json",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
    ]));
    let file_json = run(&[
        "tree",
        "-A",
        "-o",
        "json",
        "--from",
        "testdata/clusters/demo.yaml",
    ]);
    assert_eq!(comparable(&live_json.stdout), comparable(&file_json.stdout));
    // The 403 and the missing group are warnings on stderr, not failures.
    assert!(
        live.stderr
            .contains("warning: listing `namespaces` is forbidden: none were read"),
        "{}",
        live.stderr
    );
    assert!(
        live.stderr
            .contains("warning: the server does not serve API group `policy`"),
        "{}",
        live.stderr
    );
    assert!(!live.stdout.contains("warning:"), "{}", live.stdout);

    let requests = server.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.method, "GET", "only GET requests: {r:?}");
        assert!(!r.path.contains("secrets"), "Secrets are never read: {r:?}");
    }
    assert!(requests.iter().any(|r| r.path == "/version"));
    assert!(requests.iter().any(|r| r.path == "/metrics"));
    assert!(
        requests.iter().any(|r| r.path == "/apis"),
        "discovery first"
    );
    assert!(
        requests
            .iter()
            .any(|r| r.path == "/api/v1/pods" && r.query.contains("continue=")),
        "pods are paginated: {requests:?}"
    );
}

#[test]
fn live_snapshot_records_facts_from_version_and_metrics() {
    let server = demo_server();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run_cmd(wasctl().args([
        "snapshot",
        "-o",
        "json",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
    ]));
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let facts = &v["items"][0];
    assert_eq!(facts["kind"], "ClusterFacts");
    assert_eq!(facts["serverVersion"], "v1.37.0");
    assert_eq!(
        facts["servedVersions"]["scheduling.k8s.io"],
        serde_json::json!(["v1", "v1beta1", "v1alpha3", "v1alpha2"]),
        "the demo's stale object makes the fake server serve v1alpha2"
    );
    let apiserver = facts["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["component"] == "kube-apiserver")
        .expect("kube-apiserver facts");
    assert_eq!(apiserver["source"], "metrics");
    assert_eq!(apiserver["featureGates"]["GenericWorkload"], true);
    let scheduler = facts["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["component"] == "kube-scheduler")
        .unwrap();
    assert_eq!(scheduler["source"], "static-pod");
    assert_eq!(scheduler["featureGates"]["GenericWorkload"], true);
    // "Now" is the server's clock (its Date header), not this machine's.
    assert_eq!(facts["snapshotTime"], "2026-11-29T12:00:00Z");
}

#[test]
fn kubeconfig_env_and_context_flags_are_honoured() {
    let server = demo_server();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run_cmd(
        wasctl()
            .args(["tree", "-n", "ml", "pg/notebook"])
            .env("KUBECONFIG", &kubeconfig),
    );
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("PodGroup/notebook"));
    let r = run_cmd(
        wasctl()
            .args(["tree", "--context", "nope"])
            .env("KUBECONFIG", &kubeconfig),
    );
    assert_eq!(r.code, 3, "{}", r.transcript());
    assert!(
        r.stderr
            .starts_with("error: cannot load a kubeconfig for context `nope`"),
        "{}",
        r.stderr
    );
    // A wrong context lists the contexts that exist.
    assert!(
        r.stderr
            .contains("context `nope` does not exist; the kubeconfig has `fake`"),
        "{}",
        r.stderr
    );
    // KUBECONFIG=a:b with a missing file: skipped, as kubectl does.
    let missing = dir.path().join("missing-config");
    let list = std::env::join_paths([missing.as_path(), kubeconfig.as_path()]).unwrap();
    let r = run_cmd(
        wasctl()
            .args(["tree", "-n", "ml", "pg/notebook"])
            .env("KUBECONFIG", &list),
    );
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("PodGroup/notebook"), "{}", r.stdout);
}

#[test]
fn server_and_token_flags_need_no_kubeconfig() {
    let server = demo_server();
    let dir = tempfile::tempdir().unwrap();
    let r = run_cmd(
        wasctl()
            .args([
                "tree",
                "-n",
                "ml",
                "pg",
                "notebook",
                "--server",
                &server.url(),
                "--token",
                "t0k3n",
                "--as",
                "jane",
                "--as-group",
                "ops",
            ])
            .env("KUBECONFIG", dir.path().join("none"))
            .env("HOME", dir.path()),
    );
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("PodGroup/notebook"), "{}", r.stdout);
    assert!(
        !r.transcript().contains("t0k3n"),
        "the token is never printed"
    );
}

#[test]
fn unreachable_cluster_exits_3_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on: bind, learn the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let kubeconfig = dir.path().join("config");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:{port}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\nusers:\n- name: u\n  user:\n    token: t\n"
        ),
    )
    .unwrap();
    let r = run_cmd(wasctl().args(["tree", "--kubeconfig", kubeconfig.to_str().unwrap()]));
    assert_eq!(r.code, 3, "{}", r.transcript());
    assert!(
        r.stderr.contains("hint: check `kubectl cluster-info`"),
        "{}",
        r.stderr
    );
}

#[test]
fn live_simulation_matches_the_file_simulation() {
    // Every API served (PDBs matter to preemption's reprieve order).
    let server = FakeApiServer::start(demo_objects(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let args = [
        "simulate",
        "-A",
        "-o",
        "json",
        "--feature-gates",
        "GenericWorkload=true",
    ];
    let live = run_cmd(
        wasctl()
            .args(args)
            .args(["--kubeconfig", kubeconfig.to_str().unwrap()]),
    );
    assert_eq!(live.code, 0, "{}", live.transcript());
    let file = run_cmd(
        wasctl()
            .args(args)
            .args(["--from", "testdata/clusters/demo.yaml"]),
    );
    // GPU-hours lost are measured up to the snapshot's time: now in live mode.
    let units = |text: &str| {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        for u in v["units"].as_array_mut().unwrap() {
            if let Some(b) = u
                .get_mut("blastRadius")
                .and_then(serde_json::Value::as_object_mut)
            {
                b.remove("gpuHoursLost");
            }
        }
        v["units"].clone()
    };
    assert_eq!(units(&live.stdout), units(&file.stdout));
    assert!(server.requests().iter().all(|r| r.method == "GET"));
}
