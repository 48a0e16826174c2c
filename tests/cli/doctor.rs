//! `doctor`: every fixture in testdata/doctor/ produces exactly the findings its `# expect:`
//! lines name, the demo produces exactly its planted findings (snapshotted as text and JSON),
//! and the flags (`--fail-on`, `--only`, `--skip`, `-n`, `-o yaml`) behave.

use crate::support::{files_in, root, run};

/// `ID Kind/namespace/name` of every finding in a `-o json` report, sorted.
fn findings(json: &str) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_str(json).expect("doctor prints JSON");
    assert_eq!(report["kind"], "DoctorReport");
    assert_eq!(report["apiVersion"], "wasctl.dev/v1alpha1");
    let mut out: Vec<String> = report["findings"]
        .as_array()
        .expect("findings is a list")
        .iter()
        .map(|f| {
            let o = &f["object"];
            let ns = o["namespace"]
                .as_str()
                .map(|n| format!("{n}/"))
                .unwrap_or_default();
            format!(
                "{} {}/{ns}{}",
                f["id"].as_str().unwrap(),
                o["kind"].as_str().unwrap(),
                o["name"].as_str().unwrap()
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_doctor_fixture_produces_exactly_its_expected_findings() {
    let fixtures = files_in(&root().join("testdata/doctor"), &["yaml"]);
    assert!(fixtures.len() >= 9, "fixtures: {fixtures:?}");
    for fixture in fixtures {
        let text = std::fs::read_to_string(&fixture).unwrap();
        let mut expected: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# expect: "))
            .filter(|l| *l != "(none)")
            .map(str::to_owned)
            .collect();
        expected.sort();
        assert!(
            text.contains("# expect: "),
            "{} has no `# expect:` line",
            fixture.display()
        );
        let path = fixture.to_str().unwrap();
        let r = run(&["doctor", "--from", path, "-o", "json"]);
        assert_eq!(r.code, 0, "{}: {}", fixture.display(), r.stderr);
        assert_eq!(findings(&r.stdout), expected, "{}", fixture.display());
    }
}

#[test]
fn clean_cluster_has_no_finding_and_passes_fail_on_warning() {
    let r = run(&[
        "doctor",
        "--from",
        "testdata/doctor/clean.yaml",
        "--fail-on",
        "warning",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.stdout, "no findings\n");
}

#[test]
fn demo_produces_exactly_its_planted_findings() {
    let r = run(&["doctor", "--demo", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        findings(&r.stdout),
        [
            "WASD001 ResourceClaim/ml/stale-claim",
            "WASD007 PodGroup/ml/notebook",
            "WASD007 PodGroup/research/infer-a",
            "WASD007 PodGroup/research/infer-b",
            "WASD007 Workload/ml/pipeline",
            "WASD012 Pod/ml/lost-0",
            "WASD101 Node/gpu-c2",
            "WASD103 Component/kube-controller-manager",
            "WASD107 PodGroup/ml/old-group",
            "WASD202 CompositePodGroup/ml/pipeline",
            "WASD203 PodGroup/research/infer-b",
            // Kueue's Jobs beside native PodGroups in ml (the demo's KUEUE section).
            "WASD302 Namespace/ml",
        ]
    );
    insta::assert_snapshot!("doctor_demo_json", r.stdout);
}

#[test]
fn demo_healthy_objects_have_no_error_or_warning() {
    let r = run(&["doctor", "--demo", "-o", "json"]);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    for f in report["findings"].as_array().unwrap() {
        let name = f["object"]["name"].as_str().unwrap();
        let healthy = [
            "train-a",
            "pipeline",
            "notebook",
            "batch-low",
            "big-train",
            "urgent",
        ]
        .iter()
        .any(|h| name == *h || name.starts_with(&format!("{h}-")));
        if healthy {
            assert_eq!(f["severity"], "info", "false positive: {f}");
        }
    }
}

#[test]
fn demo_text_is_grouped_by_severity() {
    let r = run(&["doctor", "--demo"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains('\u{1b}'), "no color off a terminal");
    insta::assert_snapshot!("doctor_demo_text", r.stdout);
}

#[test]
fn fail_on_sets_the_exit_code() {
    assert_eq!(run(&["doctor", "--demo", "--fail-on", "error"]).code, 1);
    assert_eq!(run(&["doctor", "--demo", "--fail-on", "warning"]).code, 1);
    let only_info = run(&[
        "doctor",
        "--demo",
        "--only",
        "WASD007,WASD202",
        "--fail-on",
        "warning",
    ]);
    assert_eq!(only_info.code, 0, "{}", only_info.stdout);
    assert_eq!(run(&["doctor", "--demo", "--fail-on", "info"]).code, 2);
}

#[test]
fn only_and_skip_select_checks_and_unknown_ids_are_usage_errors() {
    let r = run(&["doctor", "--demo", "--only", "wasd001", "-o", "json"]);
    assert_eq!(
        findings(&r.stdout),
        ["WASD001 ResourceClaim/ml/stale-claim"]
    );
    let r = run(&[
        "doctor", "--demo", "--skip", "WASD007", "--skip", "WASD202", "-o", "json",
    ]);
    assert!(!r.stdout.contains("WASD007") && !r.stdout.contains("WASD202"));
    assert!(r.stdout.contains("WASD001"));
    let r = run(&["doctor", "--demo", "--only", "WASD999"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown check `WASD999`"), "{}", r.stderr);
}

#[test]
fn namespace_scopes_namespaced_findings_and_keeps_cluster_ones() {
    let r = run(&["doctor", "--demo", "-n", "research", "-o", "json"]);
    assert_eq!(
        findings(&r.stdout),
        [
            "WASD007 PodGroup/research/infer-a",
            "WASD007 PodGroup/research/infer-b",
            "WASD101 Node/gpu-c2",
            "WASD103 Component/kube-controller-manager",
            "WASD203 PodGroup/research/infer-b",
        ]
    );
}

#[test]
fn yaml_output_has_the_envelope() {
    let r = run(&["doctor", "--demo", "-o", "yaml", "--only", "WASD001"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines.contains(&"apiVersion: wasctl.dev/v1alpha1"),
        "{}",
        r.stdout
    );
    assert!(lines.contains(&"kind: DoctorReport"), "{}", r.stdout);
    let v: serde_json::Value = serde_saphyr::from_str(&r.stdout).unwrap();
    assert_eq!(v["findings"][0]["id"], "WASD001", "{}", r.stdout);
}

#[test]
fn list_checks_names_every_id() {
    let r = run(&["doctor", "--list-checks"]);
    assert_eq!(r.code, 0);
    for id in [
        "WASD001", "WASD012", "WASD107", "WASD203", "WASD302", "WASD405",
    ] {
        assert!(r.stdout.contains(id), "{id} missing");
    }
}

/// An empty doctor report names the scope that emptied it (issue 45 item 6): a selector that
/// matches nothing says so and how many findings there are without it, never a bare
/// "no findings". (Under `-n`, doctor keeps the cluster-scoped findings, so the demo's
/// namespaces are never empty.)
#[test]
fn an_empty_doctor_report_names_the_selector() {
    let r = run(&["doctor", "--demo", "-A", "-l", "app=nothing"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("no findings match the selector app=nothing ("),
        "{}",
        r.stdout
    );
}
