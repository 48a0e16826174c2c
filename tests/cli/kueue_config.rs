//! `kubectl wasctl kueue-config` and `--kueue-config` (issue 49): Kueue's manager
//! configuration read from a file, a ConfigMap or the live cluster's
//! `kueue-system/kueue-manager-config`, converted and defaulted as Kueue does, checked (exit 2
//! naming the field path), kept by `snapshot`; and a live cluster whose Kueue API is absent
//! (404) or forbidden (403), or whose ConfigMap is, gives Kueue's defaults with an `assumed:`
//! line, never an error.

use serde_json::{Value, json};

use crate::fake_apiserver::{FakeApiServer, FakeConfig, Fault, FaultKind};
use crate::support::{demo_objects, root, run};

const DUMP: &str = "testdata/dumps/kueue-get-list.yaml";
const KUEUE_PLURALS: [&str; 8] = [
    "workloads",
    "localqueues",
    "clusterqueues",
    "resourceflavors",
    "cohorts",
    "workloadpriorityclasses",
    "admissionchecks",
    "topologies",
];
const CM_PATH: &str = "/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config";

fn fixture(name: &str) -> String {
    root()
        .join("testdata/kueue-config")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn json_of(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The demo cluster with the Kueue dump's objects (and, if given, Kueue's ConfigMap).
fn kueue_objects(config: Option<&str>) -> Vec<Value> {
    let mut c = wasctl::snapshot::source::Collector::new();
    wasctl::snapshot::source::files::load_path(&root().join(DUMP), &mut c).unwrap();
    let mut objects = demo_objects();
    objects.extend(
        wasctl::snapshot::export::documents(&c.finish())
            .unwrap()
            .into_iter()
            .filter(|o| {
                o["apiVersion"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("kueue.x-k8s.io/"))
            }),
    );
    if let Some(text) = config {
        objects.push(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
            "data": {"controller_manager_config.yaml": text, "other.yaml": "x: 1"},
        }));
    }
    objects
}

#[test]
fn a_file_is_printed_converted_and_defaulted() {
    let r = run(&["kueue-config", &fixture("gpu-cluster.yaml"), "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let c = json_of(&r.stdout);
    assert_eq!(c["apiVersion"], "config.kueue.x-k8s.io/v1beta2");
    assert_eq!(c["waitForPodsReady"]["timeout"], "5m0s");
    assert_eq!(
        c["waitForPodsReady"]["recoveryTimeout"], "5m0s",
        "defaulted to the timeout"
    );
    assert_eq!(c["resources"]["transformations"][0]["strategy"], "Replace");
    assert_eq!(
        c["resources"]["excludeResourcePrefixes"][0],
        "networking.example.com/"
    );
    assert_eq!(
        c["fairSharing"]["preemptionStrategies"][1],
        "LessThanInitialShare"
    );
    assert!(
        c.get("webhook").is_none(),
        "fields the simulation does not use are not kept"
    );

    // v1beta1, converted as Kueue converts it (timeout 5m, blockAdmission = enable).
    let r = run(&["kueue-config", &fixture("v1beta1.yaml")]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.starts_with("# Kueue's effective configuration"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("apiVersion: config.kueue.x-k8s.io/v1beta2"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("blockAdmission: true"), "{}", r.stdout);
    assert!(
        r.stdout.contains("manageJobsWithoutQueueName: true"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("fairSharing"), "{}", r.stdout);

    // Without any source: Kueue's defaults (waitForPodsReady on in v1beta2, 30m).
    let r = run(&["kueue-config", "--from", DUMP, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(json_of(&r.stdout)["waitForPodsReady"]["timeout"], "30m0s");
}

#[test]
fn a_bad_field_is_exit_2_naming_the_file_and_field_path() {
    let r = run(&["kueue-config", &fixture("bad-timeout.yaml")]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("waitForPodsReady.timeout"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("bad-timeout.yaml"), "{}", r.stderr);
    // The global flag on a simulation: the same error, before anything runs.
    let r = run(&[
        "simulate",
        "--from",
        DUMP,
        "-A",
        "--kueue-config",
        &fixture("bad-timeout.yaml"),
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("waitForPodsReady.timeout"),
        "{}",
        r.stderr
    );
    // A file with no Configuration in it.
    let r = run(&["kueue-config", DUMP]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("holds no Kueue Configuration"),
        "{}",
        r.stderr
    );
}

#[test]
fn snapshot_keeps_the_configuration_and_files_read_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(&[
        "snapshot",
        "--from",
        DUMP,
        "-A",
        "-o",
        "yaml",
        "--kueue-config",
        &fixture("gpu-cluster.yaml"),
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("---\napiVersion: config.kueue.x-k8s.io/v1beta2\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("\nkind: Configuration\n"), "{}", r.stdout);
    let path = dir.path().join("snap.yaml");
    std::fs::write(&path, &r.stdout).unwrap();
    let p = path.to_str().unwrap();
    let back = run(&["kueue-config", "--from", p, "-o", "json"]);
    assert_eq!(back.code, 0, "{}", back.transcript());
    let direct = run(&["kueue-config", &fixture("gpu-cluster.yaml"), "-o", "json"]);
    assert_eq!(
        back.stdout, direct.stdout,
        "the dump carries the same configuration"
    );
    let again = run(&["snapshot", "--from", p, "-A", "-o", "yaml"]);
    assert_eq!(again.code, 0, "{}", again.transcript());
    assert_eq!(
        again.stdout, r.stdout,
        "a snapshot of the snapshot is the same"
    );
}

#[test]
fn the_live_clusters_configmap_is_read_by_name_when_kueue_is_served() {
    let text = std::fs::read_to_string(fixture("gpu-cluster.yaml")).unwrap();
    let server = FakeApiServer::start(kueue_objects(Some(&text)), FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let r = run(&["kueue-config", "-o", "json", "--kubeconfig", kc]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(json_of(&r.stdout)["waitForPodsReady"]["timeout"], "5m0s");
    let requests = server.requests();
    assert!(requests.iter().any(|q| q.path == CM_PATH), "{requests:?}");
    assert!(
        !requests.iter().any(|q| q.path.ends_with("/configmaps")),
        "never listed: {requests:?}"
    );

    // An explicit ConfigMap source picks Kueue's key among several.
    let r = run(&[
        "kueue-config",
        "configmap/kueue-system/kueue-manager-config",
        "-o",
        "json",
        "--kubeconfig",
        kc,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(
        json_of(&r.stdout)["resources"]["transformations"][0]["input"],
        "nvidia.com/mig-4g.20gb"
    );

    // A snapshot of the cluster carries it.
    let r = run(&["snapshot", "-A", "-o", "yaml", "--kubeconfig", kc]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("kind: Configuration\n"), "{}", r.stdout);
    assert!(r.stdout.contains("timeout: 5m0s"), "{}", r.stdout);
}

#[test]
fn an_absent_or_forbidden_configmap_gives_kueues_defaults_with_an_assumed_line() {
    for (label, config) in [
        ("404", FakeConfig::default()),
        (
            "403",
            FakeConfig {
                path_faults: vec![(CM_PATH.to_owned(), FaultKind::Status(403))],
                ..FakeConfig::default()
            },
        ),
    ] {
        let server = FakeApiServer::start(kueue_objects(None), config);
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.write_kubeconfig(dir.path());
        let kc = kubeconfig.to_str().unwrap();
        let r = run(&["simulate", "-A", "--kubeconfig", kc]);
        assert!(r.code == 0 || r.code == 1, "{label}: {}", r.transcript());
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains("assumed: Kueue's configuration: Kueue's defaults"),
            "{label}: {all}"
        );
        if label == "403" {
            assert!(all.contains("forbidden"), "{label}: {all}");
            assert!(
                !all.contains("does not exist"),
                "a 403 is not an absence: {all}"
            );
        } else {
            assert!(all.contains("does not exist"), "{label}: {all}");
        }
        let r = run(&["kueue-config", "-o", "json", "--kubeconfig", kc]);
        assert_eq!(r.code, 0, "{label}: {}", r.transcript());
        assert_eq!(json_of(&r.stdout)["waitForPodsReady"]["timeout"], "30m0s");
    }
}

#[test]
fn kueue_apis_absent_or_forbidden_are_a_warning_and_kueue_less_results() {
    for (label, config) in [
        (
            "404",
            FakeConfig {
                faults: KUEUE_PLURALS
                    .iter()
                    .map(|p| Fault::new("kueue.x-k8s.io", p, FaultKind::Status(404)))
                    .collect(),
                ..FakeConfig::default()
            },
        ),
        (
            "absent",
            FakeConfig {
                missing_groups: vec!["kueue.x-k8s.io".to_owned()],
                ..FakeConfig::default()
            },
        ),
        (
            "403",
            FakeConfig {
                forbidden: KUEUE_PLURALS
                    .iter()
                    .map(|p| ("kueue.x-k8s.io".to_owned(), (*p).to_owned()))
                    .collect(),
                ..FakeConfig::default()
            },
        ),
    ] {
        let server = FakeApiServer::start(kueue_objects(None), config);
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.write_kubeconfig(dir.path());
        let kc = kubeconfig.to_str().unwrap();
        for cmd in ["doctor", "simulate"] {
            let r = run(&[cmd, "-A", "--kubeconfig", kc]);
            assert!(
                r.code == 0 || r.code == 1,
                "{label} {cmd}: {}",
                r.transcript()
            );
            let all = format!("{}{}", r.stdout, r.stderr);
            let lower = all.to_lowercase();
            for wrong in ["no kueue", "kueue is not installed", "not configured"] {
                assert!(
                    !lower.contains(wrong),
                    "{label} {cmd} says `{wrong}`: {all}"
                );
            }
            if label == "404" {
                assert!(
                    lower.contains("warning"),
                    "{label} {cmd}: the lists' 404 is a warning: {all}"
                );
            }
            if label == "403" {
                assert!(
                    all.contains("forbidden") || all.contains("Forbidden"),
                    "{label} {cmd}: {all}"
                );
            }
        }
        let requests = server.requests();
        let read_cm = requests.iter().any(|q| q.path == CM_PATH);
        assert_eq!(
            read_cm,
            label != "absent",
            "{label}: the ConfigMap is read only when Kueue's API is served: {requests:?}"
        );
    }
}
