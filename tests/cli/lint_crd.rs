//! `lint` of custom resources against their CRDs on the built binary (issue 52 item 4): CRDs
//! given with `--crd`, among the linted files, or read from the cluster (the fake API
//! server) with `--crd-from-cluster`; fixtures in `testdata/manifests/crd/` (excerpts of
//! Volcano's PodGroup and Kueue's ClusterQueue/LocalQueue CRDs, named in each file).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::fake_apiserver::{FakeApiServer, FakeConfig};
use crate::support::{run, run_cmd, wasctl};

const VOLCANO: &str = "testdata/manifests/crd/volcano-podgroup-crd.yaml";
const KUEUE: &str = "testdata/manifests/crd/kueue-queues-crds.yaml";
const VALID: &str = "testdata/manifests/crd/resources/valid.yaml";
const INVALID: &str = "testdata/manifests/crd/resources/invalid.yaml";

/// `RULE@line` of every finding of a JSON report, and the report.
fn findings(stdout: &str) -> (BTreeSet<String>, Value) {
    let report: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let set = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}@{}", f["rule"].as_str().unwrap(), f["line"]))
        .collect();
    (set, report)
}

fn message<'a>(report: &'a Value, rule: &str, line: u64) -> &'a str {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == rule && f["line"] == line)
        .and_then(|f| f["message"].as_str())
        .unwrap_or_else(|| panic!("no {rule} at line {line}: {report}"))
}

/// What the invalid resources must report, wherever the CRDs come from.
const INVALID_FINDINGS: &[&str] = &[
    // The unrendered template name `network-topology-job-<jobUID>` (metadata rules, any kind).
    "WAS502@8",
    // `minMember: "four"`.
    "WAS004@11",
    // `minMembr`: pruned by the API server, refused by strict field validation.
    "WAS003@12",
    // `mode: strict`, not in the enum.
    "WAS004@14",
    // Kueue's two CEL rules: borrowingLimit without a cohort (at `spec`), flavors vs
    // coveredResources (at the resource group).
    "WAS007@23",
    "WAS007@25",
    // `v1alpha1` is not served.
    "WAS004@34",
    // `v1beta1` is deprecated.
    "WAS405@41",
];

fn assert_invalid_findings(stdout: &str) {
    let (got, report) = findings(stdout);
    let want: BTreeSet<String> = INVALID_FINDINGS.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(got, want, "{report:#}");
    assert!(
        message(&report, "WAS502", 8).contains("network-topology-job-<jobUID>"),
        "{report:#}"
    );
    assert!(
        message(&report, "WAS003", 12).contains("did you mean `minMember`?"),
        "{report:#}"
    );
    assert!(
        message(&report, "WAS007", 23).contains("borrowingLimit must be nil when cohort is empty"),
        "{report:#}"
    );
    assert!(
        message(&report, "WAS007", 25)
            .contains("flavors must have the same number of resources as the coveredResources"),
        "{report:#}"
    );
    assert!(
        message(&report, "WAS405", 41).contains("Use v1beta2 instead"),
        "{report:#}"
    );
}

#[test]
fn crd_files_check_custom_resources() {
    let r = run(&[
        "lint", "--crd", VOLCANO, "--crd", KUEUE, INVALID, "-o", "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert_invalid_findings(&r.stdout);
}

#[test]
fn crds_among_the_linted_files_count_too() {
    let r = run(&["lint", VOLCANO, KUEUE, INVALID, "-o", "json"]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    let (got, report) = findings(&r.stdout);
    // The CRDs themselves are checked (and clean), not "not checked".
    assert!(!got.iter().any(|f| f.starts_with("WAS002")), "{report:#}");
    let (want, _) = findings(
        &run(&[
            "lint", "--crd", VOLCANO, "--crd", KUEUE, INVALID, "-o", "json",
        ])
        .stdout,
    );
    assert_eq!(got, want);
}

#[test]
fn valid_custom_resources_pass_and_transition_rules_are_info() {
    let r = run(&[
        "lint",
        "--crd",
        VOLCANO,
        "--crd",
        KUEUE,
        VALID,
        "-o",
        "json",
        "--reject-unknown",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let (got, report) = findings(&r.stdout);
    // LocalQueue's `self == oldSelf` is a transition rule: named, info, never an error.
    assert_eq!(got, BTreeSet::from(["WAS008@64".to_owned()]), "{report:#}");
    let m = message(&report, "WAS008", 64);
    assert!(
        m.contains("self == oldSelf") && m.contains("transition rule"),
        "{m}"
    );
    assert_eq!(report["findings"][0]["severity"], "info");
}

#[test]
fn without_their_crds_custom_resources_stay_not_checked() {
    let r = run(&["lint", VALID, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let (got, _) = findings(&r.stdout);
    assert_eq!(
        got,
        BTreeSet::from(["WAS002@5", "WAS002@34", "WAS002@59"].map(str::to_owned))
    );
    let r = run(&["lint", VALID, "--reject-unknown"]);
    assert_eq!(r.code, 1, "{}", r.transcript());
}

#[test]
fn a_crd_path_without_crds_or_with_a_cluster_file_is_a_usage_error() {
    let r = run(&["lint", "--crd", VALID, VALID]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("--crd") && r.stderr.contains("CustomResourceDefinition"),
        "{}",
        r.stderr
    );
    let r = run(&["lint", "--crd-from-cluster", "--demo", VALID]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stderr.contains("--crd-from-cluster"), "{}", r.stderr);
}

fn yaml_documents(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(crate::support::root().join(path)).unwrap();
    text.split("\n---\n")
        .map(|doc| serde_saphyr::from_str::<Value>(doc).unwrap())
        .collect()
}

#[test]
fn crds_from_the_cluster_check_custom_resources() {
    let mut objects = crate::support::demo_objects();
    objects.extend(yaml_documents(VOLCANO));
    objects.extend(yaml_documents(KUEUE));
    let server = FakeApiServer::start(
        objects,
        FakeConfig {
            page_size: Some(1),
            ..FakeConfig::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run_cmd(wasctl().args([
        "lint",
        "--crd-from-cluster",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        INVALID,
        "-o",
        "json",
    ]));
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert_invalid_findings(&r.stdout);
    let requests = server.requests();
    let crd_lists: Vec<_> = requests
        .iter()
        .filter(|q| q.path == "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
        .collect();
    // Three CRDs, one per page: the continue token is followed.
    assert_eq!(crd_lists.len(), 3, "{requests:?}");
    assert!(requests.iter().all(|q| q.method == "GET"), "{requests:?}");
}
