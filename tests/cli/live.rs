//! Live mode end to end: the binary reads the demo cluster from a fake API server on
//! 127.0.0.1 through a temporary kubeconfig, and prints the same tree as `--from`.

use std::collections::BTreeMap;

use crate::fake_apiserver::{FakeApiServer, FakeConfig, Fault, FaultKind, LoggedRequest};
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
    // The facts document is the last item.
    let facts = v["items"].as_array().unwrap().last().unwrap();
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

/// The demo served with `faults` (pages of 7), read with `snapshot -o json` and
/// `--request-timeout 1s`: the run, the parsed snapshot and the requests it sent.
fn faulty_snapshot(
    faults: Vec<Fault>,
    extra_discovery: Vec<(String, String, String, String)>,
) -> (crate::support::Run, serde_json::Value, Vec<LoggedRequest>) {
    let server = FakeApiServer::start(
        demo_objects(),
        FakeConfig {
            page_size: Some(7),
            faults,
            extra_discovery,
            ..FakeConfig::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run_cmd(wasctl().args([
        "snapshot",
        "-o",
        "json",
        "--request-timeout",
        "1s",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
    ]));
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_default();
    let requests = server.requests();
    for q in &requests {
        assert_eq!(q.method, "GET", "only GET requests: {q:?}");
        assert!(
            !q.path.to_ascii_lowercase().contains("secrets") && !q.path.contains('%'),
            "Secrets are never read, no encoded paths: {q:?}"
        );
    }
    (r, v, requests)
}

fn pod_coverage(snapshot: &serde_json::Value) -> serde_json::Value {
    snapshot["items"]
        .as_array()
        .and_then(|items| items.iter().find(|o| o["kind"] == "ClusterFacts"))
        .map_or(serde_json::Value::Null, |facts| {
            facts["coverage"]["Pod"].clone()
        })
}

fn pods_in(snapshot: &serde_json::Value) -> usize {
    snapshot["items"].as_array().map_or(0, |items| {
        items.iter().filter(|o| o["kind"] == "Pod").count()
    })
}

#[test]
fn every_failed_or_malformed_pod_list_marks_pods_unreadable() {
    // See: issue 14 item 8.
    for (kind, reason) in [
        (FaultKind::Status(500), "HTTP 500"),
        (FaultKind::Status(404), "HTTP 404"),
        (FaultKind::Status(403), "forbidden"),
        (FaultKind::Truncated, "cut off"),
        (
            FaultKind::Garbage,
            "the API server answered 200 OK with an HTML page, not JSON",
        ),
        (FaultKind::MalformedJson, "malformed list response"),
        (
            FaultKind::HtmlPage(502),
            "the API server answered 502 Bad Gateway with an HTML page",
        ),
        (FaultKind::UnrequestedGzip, "`gzip`-encoded body"),
        (
            FaultKind::Redirect("http://user:pw@evil.example/api/v1/pods".to_owned()),
            "redirect to `http://evil.example/api/v1/pods` (not followed)",
        ),
        (FaultKind::StatusBody, "with a `Status`: etcdserver"),
        (FaultKind::ItemsNotList, "`items` is not a list"),
        (FaultKind::RepeatedContinue, "repeated a `continue` token"),
    ] {
        let (r, v, _) = faulty_snapshot(vec![Fault::new("", "pods", kind.clone())], Vec::new());
        assert_eq!(r.code, 0, "{kind:?}: {}", r.transcript());
        let coverage = pod_coverage(&v);
        assert_eq!(coverage["read"], "unreadable", "{kind:?}: {coverage}");
        let why = coverage["reason"].as_str().unwrap_or_default();
        assert!(why.contains(reason), "{kind:?}: {why}");
        assert_eq!(
            pods_in(&v),
            0,
            "{kind:?}: a failed list contributes no pods"
        );
        assert!(
            !r.stderr.contains("pw@"),
            "{kind:?}: userinfo leaked: {}",
            r.stderr
        );
        // The other kinds are still read.
        assert!(
            v["items"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o["kind"] == "Node")
        );
    }
}

#[test]
fn a_server_that_never_answers_or_trickles_times_out_per_request() {
    // See: issue 14 item 5.
    for kind in [FaultKind::Hang, FaultKind::Trickle] {
        let (r, v, _) = faulty_snapshot(vec![Fault::new("", "pods", kind.clone())], Vec::new());
        assert_eq!(r.code, 0, "{kind:?}: {}", r.transcript());
        let coverage = pod_coverage(&v);
        assert_eq!(coverage["read"], "unreadable", "{kind:?}: {coverage}");
        assert_eq!(coverage["reason"], "no answer within 1s", "{kind:?}");
    }
}

#[test]
fn an_expired_continue_token_lists_again_from_the_start() {
    // See: issue 14 item 5 (client-go's pager re-lists on 410 Gone).
    let (r, v, requests) = faulty_snapshot(
        vec![Fault::new("", "pods", FaultKind::GoneOnce)],
        Vec::new(),
    );
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(pod_coverage(&v)["read"], "complete");
    let demo = demo_objects().iter().filter(|o| o["kind"] == "Pod").count();
    assert_eq!(pods_in(&v), demo, "no pod lost or doubled by the re-list");
    let starts = requests
        .iter()
        .filter(|q| q.path == "/api/v1/pods" && !q.query.contains("continue="))
        .count();
    assert_eq!(starts, 2, "{requests:?}");
}

#[test]
fn request_timeout_is_validated() {
    let r = run(&["tree", "--request-timeout", "soon"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("invalid `--request-timeout`"),
        "{}",
        r.stderr
    );
}

#[test]
fn resource_names_from_discovery_are_never_put_in_paths_unchecked() {
    // See: issue 14 item 13.
    let extra = ["..%2F..%2Fapi%2Fv1%2Fsecrets", "secrets", "Gadgets", "a/b"]
        .iter()
        .map(|plural| {
            (
                "scheduling.k8s.io".to_owned(),
                "v1alpha2".to_owned(),
                (*plural).to_owned(),
                "Secret".to_owned(),
            )
        })
        .collect();
    let (r, _, requests) = faulty_snapshot(Vec::new(), extra);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        requests
            .iter()
            .any(|q| q.path == "/apis/scheduling.k8s.io/v1alpha2/podgroups"),
        "the stale version is still read: {requests:?}"
    );
}

/// No error path prints a credential: a kubeconfig with a type error or a syntax error next
/// to a token and a key, a server URL with `user:password@` (in the kubeconfig and in
/// `--server`), and `--token`, against a port nothing listens on. Each names the file, line
/// and field instead of quoting the file.
#[test]
fn credentials_never_reach_an_error_message() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let users =
        "users:\n- name: u\n  user:\n    token: PLANTED-TOKEN\n    client-key-data: PLANTED-KEY\n";
    let contexts =
        "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n";
    let cases = [
        (
            "type error",
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:{port}\n    insecure-skip-tls-verify: \"PLANTED-VALUE\"\n{contexts}{users}"
            ),
            true,
        ),
        (
            "syntax error",
            format!("apiVersion: v1\nkind: Config\n{users}  bad: [PLANTED-VALUE\nclusters: []\n"),
            true,
        ),
        (
            "userinfo in the server URL",
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://admin:PLANTED-PASSWORD@127.0.0.1:{port}\n{contexts}{users}"
            ),
            false,
        ),
    ];
    // Every failure to load or reach the cluster exits 3, as the other access errors.
    for (what, text, names_the_file) in cases {
        let kubeconfig = dir.path().join("config");
        std::fs::write(&kubeconfig, &text).unwrap();
        let r =
            run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", kubeconfig.to_str().unwrap()]));
        assert_eq!(r.code, 3, "{what}: {}", r.transcript());
        assert!(
            !r.transcript().contains("PLANTED"),
            "{what}: {}",
            r.transcript()
        );
        if names_the_file {
            assert!(
                r.stderr.contains(&format!("`{}`:", kubeconfig.display())),
                "{what}: names the file: {}",
                r.stderr
            );
        }
    }
    // Flags: `--server` with user information, `--token`.
    let r = run_cmd(
        wasctl()
            .env_remove("KUBECONFIG")
            .env("HOME", dir.path())
            .args([
                "tree",
                "-A",
                "--server",
                &format!("http://admin:PLANTED-PASSWORD@127.0.0.1:{port}"),
                "--token",
                "PLANTED-TOKEN",
            ]),
    );
    assert_eq!(r.code, 3, "{}", r.transcript());
    assert!(!r.transcript().contains("PLANTED"), "{}", r.transcript());
    assert!(
        r.stderr.contains(&format!("127.0.0.1:{port}")),
        "{}",
        r.stderr
    );
}

/// A server that rejects the credentials says so ("401 Unauthorized", exit 3, a hint about the
/// user), not "cannot reach", and without a debug dump of the `Status`.
#[test]
fn rejected_credentials_are_unauthorized_not_unreachable() {
    let server = FakeApiServer::start(
        demo_objects(),
        FakeConfig {
            required_token: Some("the-right-one".to_owned()),
            ..FakeConfig::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", kubeconfig.to_str().unwrap()]));
    assert_eq!(r.code, 3, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("rejected the credentials (401 Unauthorized)")
            && r.stderr.contains("kubectl auth whoami"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("cannot reach") && !r.stderr.contains("Status {"),
        "{}",
        r.stderr
    );
    // With the right token (`--token` replaces the kubeconfig's), it reads the cluster.
    let r = run_cmd(wasctl().args([
        "tree",
        "-A",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "--token",
        "the-right-one",
    ]));
    assert_eq!(r.code, 0, "{}", r.transcript());
}

/// With PodGroups or pods forbidden (403), doctor never concludes they are missing: no finding
/// advises `kubectl delete`, none says a PodGroup or a claim's consumer does not exist, and the
/// report warns which kinds it could not read.
/// Runs `args` against the demo served with `config`, through a temporary kubeconfig: the run
/// and the requests it sent.
fn live_run(config: FakeConfig, args: &[&str]) -> (crate::support::Run, Vec<LoggedRequest>) {
    let server = FakeApiServer::start(demo_objects(), config);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run_cmd(
        wasctl()
            .args(args)
            .args(["--kubeconfig", kubeconfig.to_str().unwrap()]),
    );
    (r, server.requests())
}

#[test]
fn forbidden_kinds_never_lead_to_destructive_doctor_advice() {
    // With everything readable, the demo's stale claim does get that advice (WASD001).
    let (r, _) = live_run(FakeConfig::default(), &["doctor", "-A"]);
    assert!(
        r.stdout.contains("kubectl delete resourceclaim"),
        "{}",
        r.transcript()
    );
    // (group, plural, the kind a finding must never call missing, delete advice allowed: the
    // stale claim's consumer is a Pod, which stays readable when only PodGroups are forbidden)
    for (group, plural, kind, delete_allowed) in [
        ("scheduling.k8s.io", "podgroups", "PodGroup `", true),
        ("", "pods", "Pod `", false),
        (
            "resource.k8s.io",
            "resourceclaims",
            "ResourceClaim `",
            false,
        ),
    ] {
        let (r, requests) = live_run(
            FakeConfig {
                forbidden: vec![(group.to_owned(), plural.to_owned())],
                ..FakeConfig::default()
            },
            &["doctor", "-A", "-o", "json"],
        );
        assert!(r.code == 0 || r.code == 1, "{plural}: {}", r.transcript());
        let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(
            delete_allowed || !r.stdout.contains("kubectl delete"),
            "{plural} forbidden: destructive advice in {}",
            r.stdout
        );
        for f in report["findings"].as_array().unwrap() {
            let message = f["message"].as_str().unwrap();
            assert!(
                !(message.contains(kind) && message.contains("does not exist")),
                "{plural} forbidden: concluded absent from unreadable: {message}"
            );
        }
        let warnings = report["warnings"].to_string();
        assert!(
            warnings.contains(plural) || warnings.contains("forbidden"),
            "{plural} forbidden: the report says what it could not read: {warnings}"
        );
        // GET-only, never Secrets.
        for req in requests {
            assert_eq!(req.method, "GET", "{req:?}");
            assert!(!req.path.contains("secrets"), "{req:?}");
        }
    }
}

/// A kubeconfig for `server` whose user is `user` (YAML lines under `user:`, indented by 4).
fn kubeconfig_with_user(dir: &std::path::Path, url: &str, user: &str) -> std::path::PathBuf {
    let path = dir.join("kubeconfig");
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {url}\n\
         users:\n- name: u\n  user:\n{user}\
         contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n    namespace: default\n\
         current-context: x\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// An executable shell script `name` in `dir`.
#[cfg(unix)]
fn script(dir: &std::path::Path, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// An exec credential plugin that prints malformed JSON, or prints a credential and exits 1:
/// the message is an authentication failure naming the plugin, its exit status and stderr (as
/// kubectl shows it), never its stdout (the token), never a debug dump.
#[cfg(unix)]
#[test]
fn a_failing_exec_credential_plugin_is_named_and_its_token_never_shown() {
    let server = FakeApiServer::start(
        demo_objects(),
        FakeConfig {
            required_token: Some("SECRET-TOKEN-123".to_owned()),
            ..FakeConfig::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let credential = r#"{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": "SECRET-TOKEN-123"}}"#;
    let cases = [
        (
            "malformed",
            script(
                dir.path(),
                "malformed.sh",
                "printf '%s\\n' '{\"token\": \"SECRET-TOKEN-123\"'\n",
            ),
            "",
            "printed no valid ExecCredential on stdout".to_owned(),
        ),
        (
            "exit 1",
            script(
                dir.path(),
                "fails.sh",
                &format!(
                    "printf '%s\\n' '{credential}'\necho 'login required: run sso-login' >&2\nexit 1\n"
                ),
            ),
            "      interactiveMode: Never\n",
            "failed: exit status 1: login required: run sso-login".to_owned(),
        ),
        (
            "exit 1, interactive",
            script(
                dir.path(),
                "fails-interactive.sh",
                &format!("printf '%s\\n' '{credential}'\nexit 1\n"),
            ),
            "",
            "failed: exit status 1\n".to_owned(),
        ),
    ];
    for (what, plugin, extra, expected) in cases {
        let kubeconfig = kubeconfig_with_user(
            dir.path(),
            &server.url(),
            &format!(
                "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n{extra}",
                plugin.display()
            ),
        );
        let r =
            run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", kubeconfig.to_str().unwrap()]));
        assert_eq!(r.code, 3, "{what}: {}", r.transcript());
        assert!(
            !r.transcript().contains("SECRET-TOKEN"),
            "{what}: {}",
            r.transcript()
        );
        let headline = format!(
            "error: cannot authenticate to the Kubernetes API server at `{}/`: the kubeconfig's exec credential plugin `{}` ",
            server.url().trim_end_matches('/'),
            plugin.display()
        );
        assert!(r.stderr.starts_with(&headline), "{what}: {}", r.stderr);
        assert!(r.stderr.contains(&expected), "{what}: {}", r.stderr);
        assert!(
            !r.stderr.contains("cannot reach")
                && !r.stderr.contains("Output {")
                && !r.stderr.contains("caused by"),
            "{what}: {}",
            r.stderr
        );
    }
    // The same plugin printing a good credential and exiting 0 reads the cluster.
    let good = script(
        dir.path(),
        "good.sh",
        &format!("printf '%s\\n' '{credential}'\n"),
    );
    let kubeconfig = kubeconfig_with_user(
        dir.path(),
        &server.url(),
        &format!(
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n",
            good.display()
        ),
    );
    let r = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", kubeconfig.to_str().unwrap()]));
    assert_eq!(r.code, 0, "{}", r.transcript());
}

/// `tokenFile` written by `echo TOKEN > file` ends with a newline, which client-go trims.
#[test]
fn a_token_file_with_a_trailing_newline_works() {
    let server = FakeApiServer::start(
        demo_objects(),
        FakeConfig {
            required_token: Some("file-token".to_owned()),
            ..FakeConfig::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "file-token\n").unwrap();
    let kubeconfig = kubeconfig_with_user(
        dir.path(),
        &server.url(),
        &format!("    tokenFile: {}\n", token.display()),
    );
    let r = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", kubeconfig.to_str().unwrap()]));
    assert_eq!(r.code, 0, "{}", r.transcript());
    // A token file that cannot be read is named, as an authentication failure.
    let kubeconfig = kubeconfig_with_user(
        dir.path(),
        &server.url(),
        &format!("    tokenFile: {}\n", dir.path().join("missing").display()),
    );
    let r = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", kubeconfig.to_str().unwrap()]));
    assert_eq!(r.code, 3, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("cannot read the kubeconfig's `tokenFile`")
            && r.stderr.contains("no such file or directory"),
        "{}",
        r.stderr
    );
}

/// A kubeconfig larger than any real one (`/dev/zero`, a huge file) is refused at a cap, not
/// read until memory runs out.
#[test]
fn a_kubeconfig_larger_than_the_cap_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(33 << 20)
        .unwrap();
    let mut paths = vec![huge.clone()];
    if std::path::Path::new("/dev/zero").exists() {
        paths.push("/dev/zero".into());
    }
    for path in paths {
        let r = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", path.to_str().unwrap()]));
        assert_eq!(r.code, 3, "{}", r.transcript());
        assert!(
            r.stderr.contains(&format!(
                "`{}`: more than 32 MiB: not a kubeconfig",
                path.display()
            )),
            "{}",
            r.stderr
        );
    }
    // Through `KUBECONFIG` too.
    let r = run_cmd(wasctl().env("KUBECONFIG", &huge).args(["tree", "-A"]));
    assert_eq!(r.code, 3, "{}", r.transcript());
    assert!(r.stderr.contains("more than 32 MiB"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------------
// Issue 46: live failures say what happened, with the hint that fits.
// ---------------------------------------------------------------------------------------------

/// The demo served with `config` (every API served), read by `args` through a kubeconfig
/// with `--request-timeout 5s`: the run (checked for the tokens the tests hand out by
/// `run_cmd`), how long it took, and the requests.
fn timed_live_run(
    config: FakeConfig,
    args: &[&str],
) -> (crate::support::Run, std::time::Duration, Vec<LoggedRequest>) {
    let server = FakeApiServer::start(demo_objects(), config);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let start = std::time::Instant::now();
    let r = run_cmd(wasctl().args(args).args([
        "--request-timeout",
        "5s",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
    ]));
    (r, start.elapsed(), server.requests())
}

/// Upstream: only a 403 is an RBAC problem (`apierrors.IsForbidden`); a proxy's 502 page, a
/// body cut in the middle, an encoding nobody asked for are something else, and the hint says
/// so instead of "wasctl needs `list` on pods cluster-wide".
#[test]
fn a_pod_list_failure_is_named_by_what_happened_with_the_hint_that_fits() {
    let cases = [
        (
            FaultKind::HtmlPage(502),
            "the API server answered 502 Bad Gateway with an HTML page (a proxy or load balancer in front of it?)",
            "something between wasctl and the API server answered in its place",
        ),
        (
            FaultKind::HtmlPage(503),
            "the API server answered 503 Service Unavailable with an HTML page",
            "something between wasctl and the API server answered in its place",
        ),
        (
            FaultKind::MalformedJson,
            "malformed list response: EOF while parsing",
            "`kubectl get --raw '/api/v1/pods?limit=1'` shows what the server answers",
        ),
        (
            FaultKind::UnrequestedGzip,
            "the API server answered with a `gzip`-encoded body wasctl did not ask for",
            "something between wasctl and the API server answered in its place",
        ),
        (
            FaultKind::Status(500),
            "HTTP 500 Internal Server Error",
            "the API server failed while answering",
        ),
        (
            FaultKind::Status(403),
            "forbidden",
            "wasctl needs `list` on pods cluster-wide",
        ),
    ];
    for (kind, said, hint) in cases {
        let (r, _, _) = timed_live_run(
            FakeConfig {
                faults: vec![Fault::new("", "pods", kind.clone())],
                ..FakeConfig::default()
            },
            &["simulate", "-A"],
        );
        assert_eq!(r.code, 3, "{kind:?}: {}", r.transcript());
        assert!(
            r.stderr.contains(&format!(
                "error: cannot simulate: pods could not be read: {said}"
            )),
            "{kind:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains(&format!("hint: {hint}")),
            "{kind:?}: {}",
            r.stderr
        );
        if kind != FaultKind::Status(403) {
            assert!(!r.stderr.contains("needs `list`"), "{kind:?}: {}", r.stderr);
        }
        assert!(
            !r.stderr.contains("<html") && !r.stderr.contains("nginx"),
            "{kind:?}: a proxy's page is never quoted: {}",
            r.stderr
        );
    }
}

/// Discovery answered by a proxy (HTML 502, an unrequested gzip, a malformed body, a 2xx
/// login page) is "cannot read … : what happened", never "cannot reach", never a debug dump.
#[test]
fn a_discovery_failure_is_named_by_what_happened() {
    for (kind, said) in [
        (
            FaultKind::HtmlPage(502),
            "the API server answered 502 Bad Gateway with an HTML page (a proxy or load balancer in front of it?)",
        ),
        (
            FaultKind::HtmlPage(200),
            "the API server answered 200 OK with an HTML page, not JSON (a proxy or load balancer in front of it?)",
        ),
        (
            FaultKind::UnrequestedGzip,
            "the API server answered with a `gzip`-encoded body wasctl did not ask for",
        ),
        (
            FaultKind::MalformedJson,
            "malformed list response: EOF while parsing",
        ),
    ] {
        let (r, _, _) = timed_live_run(
            FakeConfig {
                path_faults: vec![("/apis".to_owned(), kind.clone())],
                ..FakeConfig::default()
            },
            &["tree", "-A"],
        );
        assert_eq!(r.code, 3, "{kind:?}: {}", r.transcript());
        assert!(
            r.stderr
                .starts_with("error: cannot read the Kubernetes API server at `http://127.0.0.1:")
                && r.stderr.contains(said),
            "{kind:?}: {}",
            r.stderr
        );
        assert!(
            !r.stderr.contains("cannot reach")
                && !r.stderr.contains("needs `list`")
                && !r.stderr.contains("Status {")
                && !r.stderr.contains("<html"),
            "{kind:?}: {}",
            r.stderr
        );
    }
}

/// client-go honours `Retry-After` on a 429 (`checkWait` in `rest/request.go`): a short wait
/// is waited and the list completes; one longer than `--request-timeout` is named at once,
/// not reported as "no answer within 5s" after 5 s.
#[test]
fn retry_after_is_honoured_within_the_request_timeout_and_named_beyond_it() {
    let (r, _, requests) = timed_live_run(
        FakeConfig {
            path_faults: vec![(
                "/api/v1/pods".to_owned(),
                FaultKind::TooManyRequests {
                    retry_after: 1,
                    times: 1,
                },
            )],
            ..FakeConfig::default()
        },
        &["snapshot", "-o", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(pod_coverage(&v)["read"], "complete", "{}", r.stderr);
    let demo = demo_objects().iter().filter(|o| o["kind"] == "Pod").count();
    assert_eq!(pods_in(&v), demo);
    let pod_lists = requests.iter().filter(|q| q.path == "/api/v1/pods").count();
    assert_eq!(pod_lists, 2, "refused once, then sent again: {requests:?}");

    let long = FaultKind::TooManyRequests {
        retry_after: 120,
        times: usize::MAX,
    };
    let (r, took, _) = timed_live_run(
        FakeConfig {
            path_faults: vec![("/api/v1/pods".to_owned(), long.clone())],
            ..FakeConfig::default()
        },
        &["snapshot", "-o", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let said = "the API server asked to retry after 120s, longer than --request-timeout 5s (429 Too Many Requests)";
    assert_eq!(pod_coverage(&v)["reason"], said, "{}", r.stderr);
    assert!(!r.transcript().contains("no answer within"), "{}", r.stderr);
    assert!(
        took < std::time::Duration::from_secs(5),
        "named at once: {took:?}"
    );
    // At discovery, the same words, as the error.
    let (r, _, _) = timed_live_run(
        FakeConfig {
            path_faults: vec![("/apis".to_owned(), long)],
            ..FakeConfig::default()
        },
        &["tree", "-A"],
    );
    assert_eq!(r.code, 3, "{}", r.transcript());
    assert!(r.stderr.contains(said), "{}", r.stderr);
    assert!(
        r.stderr.contains("hint: the API server is overloaded"),
        "{}",
        r.stderr
    );
}

/// A 500 on `/version` is a warning in words (no `Status { … }` dump); a 302 is reported, not
/// silently ignored; the rest of the cluster is read.
#[test]
fn version_failures_are_reported_in_words() {
    for (kind, said) in [
        (
            FaultKind::Status(500),
            "warning: cannot read `/version`: HTTP 500 Internal Server Error (injected fault)",
        ),
        (
            FaultKind::Redirect("https://login.example/sso?next=/version".to_owned()),
            "warning: cannot read `/version`: HTTP 302 redirect to `https://login.example/sso?next=/version` (not followed)",
        ),
        (
            FaultKind::HtmlPage(502),
            "warning: cannot read `/version`: the API server answered 502 Bad Gateway with an HTML page",
        ),
    ] {
        let (r, _, _) = timed_live_run(
            FakeConfig {
                path_faults: vec![("/version".to_owned(), kind.clone())],
                ..FakeConfig::default()
            },
            &["tree", "-A"],
        );
        assert_eq!(r.code, 0, "{kind:?}: {}", r.transcript());
        assert!(r.stderr.contains(said), "{kind:?}: {}", r.stderr);
        assert!(
            !r.stderr.contains("Status {")
                && !r.stderr.contains("ApiError")
                && !r.stderr.contains("ErrorResponse"),
            "{kind:?}: no debug dump: {}",
            r.stderr
        );
    }
}

/// A line break in `--as` (or `--as-group`, `--token`) is a usage error naming the flag
/// (exit 2), not "cannot reach the API server"; the value is not echoed.
#[test]
fn header_values_with_line_breaks_are_usage_errors() {
    let server = FakeApiServer::start(demo_objects(), FakeConfig::default());
    for (flag, value) in [
        ("--as", "jane\r\nX-Injected: 1"),
        ("--as", "jane\n"),
        ("--as-group", "ops\rx"),
        ("--token", "SECRET-TOKEN\r\nX: y"),
    ] {
        let r = run_cmd(wasctl().args(["tree", "-A", "--server", &server.url(), flag, value]));
        assert_eq!(r.code, 2, "{flag}: {}", r.transcript());
        assert!(
            r.stderr.starts_with(&format!(
                "error: invalid {flag} value: it holds a line break or another control character"
            )),
            "{flag}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("cannot reach"), "{flag}: {}", r.stderr);
    }
    assert!(server.requests().is_empty(), "nothing was sent");
}

/// With pods forbidden cluster-wide and `-n ml` allowed, the fallback reads `ml`, warns that
/// the other namespaces' pods are unread, and keeps the gates it can still learn: from the
/// control plane's static pods in `kube-system` when RBAC allows reading them (the same gates
/// as with every pod readable), else it says they are unknown.
#[test]
fn the_namespace_fallback_warns_of_unread_pods_and_keeps_the_gates_it_can_read() {
    let config = |allowed: &[&str]| FakeConfig {
        forbidden_except_in: allowed
            .iter()
            .map(|ns| (String::new(), "pods".to_owned(), (*ns).to_owned()))
            .collect(),
        ..FakeConfig::default()
    };
    let args = ["simulate", "-n", "ml", "-o", "json"];
    let (all, _, _) = timed_live_run(config(&[]), &args);
    let (fallback, _, requests) = timed_live_run(config(&["ml", "kube-system"]), &args);
    let (blind, _, _) = timed_live_run(config(&["ml"]), &args);
    for r in [&all, &fallback, &blind] {
        assert!(r.code == 0 || r.code == 1, "{}", r.transcript());
    }
    assert!(
        requests
            .iter()
            .any(|q| q.path == "/api/v1/namespaces/ml/pods"),
        "{requests:?}"
    );
    assert!(
        requests
            .iter()
            .any(|q| q.path == "/api/v1/namespaces/kube-system/pods"
                && q.query.contains("labelSelector=tier%3Dcontrol-plane")),
        "{requests:?}"
    );
    // With `-o json` the warnings are in the report.
    let unread = "listing `pods` in all namespaces is forbidden: read namespace `ml` only; the pods of every other namespace are unread: what they use of the nodes is unknown, so free capacity is overstated";
    assert!(
        fallback.transcript().contains(unread),
        "{}",
        fallback.transcript()
    );
    assert!(
        fallback.transcript().contains("(the control plane's static pods in `kube-system` were read, for the components' feature gates)"),
        "{}",
        fallback.transcript()
    );
    assert!(
        blind.transcript().contains(unread),
        "{}",
        blind.transcript()
    );
    assert!(
        blind.transcript().contains("and the control plane's static pods in `kube-system` could not be read (forbidden): the scheduler's feature gates are those of kube-apiserver or assumed"),
        "{}",
        blind.transcript()
    );
    let assumed = |r: &crate::support::Run| -> String {
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["settings"]["assumed"].to_string()
    };
    let gates = |r: &crate::support::Run| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["settings"]["featureGates"].clone()
    };
    assert_eq!(gates(&all), gates(&fallback));
    assert_eq!(
        assumed(&all),
        assumed(&fallback),
        "the same sources as with every pod"
    );
    assert_ne!(assumed(&all), assumed(&blind));
    assert!(gates(&all).is_object(), "{}", all.stdout);
    // Every pod readable: the scheduler's gates are known from its static pod; in the
    // fallback they still are.
    assert!(
        !assumed(&all).contains("no feature-gate facts"),
        "{}",
        assumed(&all)
    );
    assert!(
        !assumed(&fallback).contains("no feature-gate facts"),
        "the gates from the static pods are kept: {}",
        assumed(&fallback)
    );
    // Without kube-system, the gates the objects prove (PodGroups in v1beta1, …) are kept as
    // inferred, never flipped to "no feature-gate facts: assumed on".
    assert!(
        !assumed(&blind).contains("no feature-gate facts")
            && assumed(&blind).contains("kube-scheduler GenericWorkload on: assumed equal to kube-apiserver's, which is inferred from 9 PodGroups"),
        "{}",
        assumed(&blind)
    );
}

/// Standard base64 (RFC 4648 §4), for `certificate-authority-data`.
fn base64(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ABC[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A TLS front on 127.0.0.1 for the fake API server, serving `testdata/tls/self-signed-ca.crt`
/// (a self-signed certificate with `CA:TRUE`): each connection's one request is passed to the
/// fake and its answer back.
struct TlsFront {
    port: u16,
}

impl TlsFront {
    fn start(backend: &FakeApiServer) -> Self {
        use rustls::pki_types::pem::PemObject as _;
        use std::io::{Read as _, Write as _};
        let root = crate::support::root().join("testdata/tls");
        let cert =
            rustls::pki_types::CertificateDer::from_pem_file(root.join("self-signed-ca.crt"))
                .expect("the fixture certificate");
        let key = rustls::pki_types::PrivateKeyDer::from_pem_file(root.join("self-signed-ca.key"))
            .expect("the fixture key");
        let config = std::sync::Arc::new(
            rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap(),
        );
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let backend = backend.url().trim_start_matches("http://").to_owned();
        // The thread ends with the test process; each connection is bounded by its timeouts.
        std::thread::spawn(move || {
            for tcp in listener.incoming().flatten() {
                let config = std::sync::Arc::clone(&config);
                let backend = backend.clone();
                std::thread::spawn(move || {
                    let _ = tcp.set_read_timeout(Some(std::time::Duration::from_secs(10)));
                    let Ok(conn) = rustls::ServerConnection::new(config) else {
                        return;
                    };
                    let mut tls = rustls::StreamOwned::new(conn, tcp);
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match tls.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let Ok(mut upstream) = std::net::TcpStream::connect(&backend) else {
                        return;
                    };
                    let mut answer = Vec::new();
                    if upstream.write_all(&head).is_err()
                        || upstream.read_to_end(&mut answer).is_err()
                    {
                        return;
                    }
                    let _ = tls.write_all(&answer);
                    tls.conn.send_close_notify();
                    let _ = tls.flush();
                });
            }
        });
        Self { port }
    }
}

/// kubectl accepts a self-signed server certificate with `CA:TRUE` when it is itself the
/// kubeconfig's `certificate-authority-data` (Go's `x509.Certificate.Verify` trusts a leaf that
/// is in the root pool); rustls alone refuses it (`CaUsedAsEndEntity`). wasctl accepts it as
/// kubectl does — and still refuses it under another CA or for another name.
#[test]
fn a_self_signed_ca_server_certificate_is_trusted_as_kubectl_trusts_it() {
    let server = FakeApiServer::start(demo_objects(), FakeConfig::default());
    let front = TlsFront::start(&server);
    let dir = tempfile::tempdir().unwrap();
    let tls = crate::support::root().join("testdata/tls");
    let kubeconfig = |ca: &str, extra: &str| {
        let data = base64(&std::fs::read(tls.join(ca)).unwrap());
        let path = dir.path().join("kubeconfig");
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:{}\n    certificate-authority-data: {data}\n{extra}\
                 users:\n- name: u\n  user:\n    token: fake-token\n\
                 contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n",
                front.port
            ),
        )
        .unwrap();
        path
    };
    let trusted = kubeconfig("self-signed-ca.crt", "");
    let r = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", trusted.to_str().unwrap()]));
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("PodGroup/"), "{}", r.stdout);
    assert!(!r.stderr.contains("CaUsedAsEndEntity"), "{}", r.stderr);

    // Another CA: refused, as a certificate problem.
    let other = kubeconfig("other-ca.crt", "");
    let r = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", other.to_str().unwrap()]));
    assert_eq!(r.code, 3, "{}", r.transcript());
    // In words, never rustls's Debug text (`invalid peer certificate: Other(OtherError(…))`).
    assert!(
        r.stderr
            .contains("the TLS handshake failed: its certificate"),
        "{}",
        r.stderr
    );
    for leak in ["Other(", "invalid peer certificate", "OtherError"] {
        assert!(!r.stderr.contains(leak), "{leak}: {}", r.stderr);
    }
    // The right CA, another name: refused, named as a name mismatch.
    let renamed = kubeconfig("self-signed-ca.crt", "    tls-server-name: kube.example\n");
    let r = run_cmd(wasctl().args(["tree", "-A", "--kubeconfig", renamed.to_str().unwrap()]));
    assert_eq!(r.code, 3, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("its certificate is not valid for the name wasctl connected to"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("tls-server-name"), "{}", r.stderr);
}

/// `pg/<TAB>` against a server that accepts and never answers gives no names within about
/// 5 s (the shell's prompt waits meanwhile), not after `--request-timeout` (60 s) per request.
#[test]
fn completion_on_a_hung_server_gives_up_after_5_seconds() {
    for path in ["/apis", "/apis/scheduling.k8s.io/v1beta1/podgroups"] {
        let server = FakeApiServer::start(
            demo_objects(),
            FakeConfig {
                path_faults: vec![(path.to_owned(), FaultKind::Hang)],
                ..FakeConfig::default()
            },
        );
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.write_kubeconfig(dir.path());
        let start = std::time::Instant::now();
        let r = run_cmd(wasctl().args([
            "__complete",
            "--",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "tree",
            "pg/",
        ]));
        let took = start.elapsed();
        assert_eq!(r.code, 0, "{path}: {}", r.transcript());
        assert!(
            took >= std::time::Duration::from_secs(4) && took < std::time::Duration::from_secs(9),
            "{path}: answered after {took:?}"
        );
        assert_eq!(r.stdout.trim(), ":4", "{path}: no names: {}", r.stdout);
    }
    // A server that answers still completes.
    let server = FakeApiServer::start(demo_objects(), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run_cmd(wasctl().args([
        "__complete",
        "--",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "-n",
        "ml",
        "tree",
        "pg/note",
    ]));
    assert!(r.stdout.contains("pg/notebook"), "{}", r.transcript());
}

/// Issue 46 item 2: every failure mode of the fake API server, on discovery, a list,
/// `/version` and `/metrics`, run through `run_cmd`, which fails a run that prints a token
/// the tests hand out (the kubeconfig's `fake-token`, which the fake's HTML pages and a
/// redirect's userinfo also carry). Every run ends with exit 0 (warnings) or 3 (access).
#[test]
fn no_failure_mode_of_the_api_server_prints_a_credential() {
    let modes = [
        FaultKind::Status(500),
        FaultKind::Status(503),
        FaultKind::GoneOnce,
        FaultKind::Truncated,
        FaultKind::Garbage,
        FaultKind::Redirect("http://admin:fake-token@proxy.example/login".to_owned()),
        FaultKind::RepeatedContinue,
        FaultKind::StatusBody,
        FaultKind::ItemsNotList,
        FaultKind::HtmlPage(502),
        FaultKind::HtmlPage(200),
        FaultKind::MalformedJson,
        FaultKind::UnrequestedGzip,
        FaultKind::TooManyRequests {
            retry_after: 120,
            times: usize::MAX,
        },
    ];
    let paths = ["/apis", "/api/v1/pods", "/version", "/metrics"];
    let mut runs = 0;
    for kind in &modes {
        for path in paths {
            let (r, _, _) = timed_live_run(
                FakeConfig {
                    path_faults: vec![(path.to_owned(), kind.clone())],
                    ..FakeConfig::default()
                },
                &["tree", "-A"],
            );
            assert!(
                r.code == 0 || r.code == 3,
                "{kind:?} on {path}: {}",
                r.transcript()
            );
            assert!(
                !r.stderr.contains("Status {") && !r.stderr.contains("Error {"),
                "{kind:?} on {path}: a debug dump: {}",
                r.stderr
            );
            runs += 1;
        }
    }
    // A hung or trickling list: once each.
    for kind in [FaultKind::Hang, FaultKind::Trickle] {
        let (r, _, _) = faulty_snapshot(vec![Fault::new("", "pods", kind.clone())], Vec::new());
        assert_eq!(r.code, 0, "{kind:?}: {}", r.transcript());
        runs += 1;
    }
    assert_eq!(runs, modes.len() * paths.len() + 2);
}
