//! One bad fixture per rule with the exact positions it must report, good fixtures that must
//! lint clean, and the demo cluster's planted findings (style §3.5: folders of fixtures are
//! the test list; ruff's `#[test_case(Rule, fixture)]` rows).

use std::path::{Path, PathBuf};

use super::codes::ALL;
use super::{Input, LintReport, Options, Severity, lint, read_inputs};
use crate::snapshot::source::{Collector, files};

fn dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/manifests/lint")
        .join(kind)
}

/// Which cluster snapshot a fixture is linted against.
#[derive(Clone, Copy)]
enum Cluster {
    /// No cluster: only the linted set.
    None,
    /// The fixture's own objects.
    Own,
    /// The embedded demo cluster.
    Demo,
    /// The demo cluster, with `--feasibility`.
    DemoFeasibility,
}

fn lint_file(path: &Path, strict: bool, cluster: Cluster) -> LintReport {
    let cluster_kind = cluster;
    let inputs = read_inputs(&[path.to_path_buf()]).unwrap();
    let cluster = match cluster {
        Cluster::None => None,
        Cluster::Own => {
            let mut c = Collector::new();
            files::load_path(path, &mut c).unwrap();
            Some(c.finish())
        }
        Cluster::Demo | Cluster::DemoFeasibility => {
            Some(crate::snapshot::source::demo::load().unwrap())
        }
    };
    let options = Options {
        field_validation: if strict {
            super::FieldValidation::Strict
        } else {
            super::FieldValidation::Ignore
        },
        feasibility: matches!(cluster_kind, Cluster::DemoFeasibility),
        default_namespace: "default".to_owned(),
        ..Options::default()
    };
    lint(&inputs, &options, cluster.as_ref())
}

/// (fixture, `--strict`, the cluster, expected `RULE@line:col`).
const BAD: &[(&str, bool, Cluster, &str)] = &[
    (
        "WAS001-syntax-error.yaml",
        false,
        Cluster::None,
        "WAS001@3:7 WAS110@13:7",
    ),
    (
        "WAS001-trailing-comma.json",
        false,
        Cluster::None,
        "WAS001@5:58",
    ),
    (
        "WAS002-unknown-kind.yaml",
        false,
        Cluster::None,
        "WAS002@2:1",
    ),
    (
        "WAS003-unknown-field.yaml",
        true,
        Cluster::None,
        "WAS003@11:7 WAS003@20:3 WAS003@33:3 WAS503@40:5 WAS003@41:5",
    ),
    (
        "WAS004-invalid-object.yaml",
        false,
        Cluster::None,
        "WAS004@9:7 WAS004@11:1",
    ),
    (
        "WAS005-not-kubernetes.yaml",
        false,
        Cluster::None,
        "WAS005@2:1",
    ),
    (
        "WAS006-empty-input.yaml",
        false,
        Cluster::None,
        "WAS006@1:1",
    ),
    (
        "WAS007-crd-rule-failed.yaml",
        true,
        Cluster::None,
        "WAS007@53:5",
    ),
    (
        "WAS008-crd-check-skipped.yaml",
        true,
        Cluster::None,
        "WAS008@35:3",
    ),
    (
        "WAS101-invalid-object-name.yaml",
        false,
        Cluster::None,
        "WAS101@4:9",
    ),
    (
        "WAS102-invalid-template-name.yaml",
        false,
        Cluster::None,
        "WAS102@8:5 WAS102@11:5",
    ),
    (
        "WAS103-invalid-reference-name.yaml",
        false,
        Cluster::None,
        "WAS103@8:5 WAS301@8:5 WAS103@21:5 WAS304@21:5 WAS103@31:3",
    ),
    (
        "WAS104-too-many-templates.yaml",
        false,
        Cluster::None,
        "WAS104@32:5",
    ),
    (
        "WAS105-template-tree-too-deep.yaml",
        false,
        Cluster::None,
        "WAS105@17:11",
    ),
    (
        "WAS106-too-many-topology-constraints.yaml",
        false,
        Cluster::None,
        "WAS106@13:7",
    ),
    (
        "WAS107-invalid-topology-key.yaml",
        false,
        Cluster::None,
        "WAS107@12:7",
    ),
    (
        "WAS108-too-many-resource-claims.yaml",
        false,
        Cluster::None,
        "WAS108@14:5",
    ),
    (
        "WAS109-priority-out-of-range.yaml",
        false,
        Cluster::None,
        "WAS109@9:3",
    ),
    (
        "WAS110-min-count-below-one.yaml",
        false,
        Cluster::None,
        "WAS110@9:7 WAS303@17:17 WAS110@19:5",
    ),
    (
        "WAS111-annotations-too-large.yaml",
        false,
        Cluster::None,
        "WAS002@4:1 WAS111@8:3",
    ),
    (
        "WAS201-template-list-union.yaml",
        false,
        Cluster::None,
        "WAS201@10:3",
    ),
    (
        "WAS202-scheduling-policy-union.yaml",
        false,
        Cluster::None,
        "WAS202@7:3",
    ),
    (
        "WAS203-disruption-mode-union.yaml",
        false,
        Cluster::None,
        "WAS203@9:3",
    ),
    (
        "WAS204-claim-source-union.yaml",
        false,
        Cluster::None,
        "WAS204@10:5",
    ),
    (
        "WAS205-composite-template-without-children.yaml",
        false,
        Cluster::None,
        "WAS205@8:5",
    ),
    (
        "WAS206-duplicate-template-name.yaml",
        false,
        Cluster::None,
        "WAS206@16:7",
    ),
    (
        "WAS207-mixed-template-priorities.yaml",
        false,
        Cluster::None,
        "WAS207@13:5",
    ),
    (
        "WAS208-missing-workload-ref.yaml",
        false,
        Cluster::None,
        "WAS208@7:3 WAS208@16:1",
    ),
    (
        "WAS209-claim-status-name-mismatch.yaml",
        false,
        Cluster::None,
        "WAS209@14:5",
    ),
    (
        "WAS210-job-gang-exceeds-parallelism.yaml",
        false,
        Cluster::None,
        "WAS210@11:9",
    ),
    (
        "WAS301-missing-pod-group.yaml",
        false,
        Cluster::None,
        "WAS301@8:5",
    ),
    (
        "WAS302-pod-claim-mismatch.yaml",
        false,
        Cluster::None,
        "WAS302@23:5",
    ),
    (
        "WAS303-missing-workload.yaml",
        false,
        Cluster::None,
        "WAS303@8:5",
    ),
    (
        "WAS304-missing-template.yaml",
        false,
        Cluster::None,
        "WAS304@19:5",
    ),
    (
        "WAS305-policy-mismatch.yaml",
        false,
        Cluster::None,
        "WAS305@22:5",
    ),
    (
        "WAS306-missing-parent-composite.yaml",
        false,
        Cluster::None,
        "WAS306@23:3",
    ),
    (
        "WAS307-missing-group-template.yaml",
        false,
        Cluster::None,
        "WAS307@21:44",
    ),
    (
        "WAS308-missing-priority-class.yaml",
        false,
        Cluster::None,
        "WAS308@13:3",
    ),
    (
        "WAS309-missing-device-class.yaml",
        false,
        Cluster::None,
        "WAS309@21:28",
    ),
    (
        "WAS310-unknown-topology-key.yaml",
        false,
        Cluster::Own,
        "WAS310@20:7",
    ),
    (
        "WAS311-immutable-field-changed.yaml",
        false,
        Cluster::Demo,
        "WAS311@9:5 WAS311@10:3",
    ),
    (
        "WAS312-gang-cannot-fit.yaml",
        false,
        Cluster::DemoFeasibility,
        "WAS312@8:3",
    ),
    (
        "WAS312-limit-range-default-cannot-fit.yaml",
        false,
        Cluster::DemoFeasibility,
        "WAS002@5:1 WAS312@21:3",
    ),
    (
        "WAS313-parent-cycle.yaml",
        false,
        Cluster::None,
        "WAS313@23:3 WAS313@43:3",
    ),
    (
        "WAS314-hierarchy-mixed-workloads.yaml",
        false,
        Cluster::None,
        "WAS314@43:17",
    ),
    (
        "WAS314-hierarchy-too-deep.yaml",
        false,
        Cluster::None,
        "WAS314@64:3 WAS314@113:3",
    ),
    (
        "WAS401-removed-api-version.yaml",
        false,
        Cluster::None,
        "WAS401@1:13 WAS401@11:13 WAS401@17:13 WAS401@28:13",
    ),
    (
        "WAS401-scheduling-v1.yaml",
        false,
        Cluster::None,
        "WAS401@4:13 WAS401@14:13 WAS002@28:1",
    ),
    (
        "WAS402-renamed-disruption-mode.yaml",
        false,
        Cluster::None,
        "WAS402@9:19",
    ),
    (
        "WAS403-alpha-feature-gate.yaml",
        false,
        Cluster::None,
        "WAS403@18:3 WAS403@19:3",
    ),
    (
        "WAS404-prefer-stable-version.yaml",
        false,
        Cluster::None,
        "WAS404@1:13",
    ),
    (
        "WAS405-deprecated-api-version.yaml",
        false,
        Cluster::None,
        "WAS405@2:13",
    ),
    (
        "WAS501-invalid-enum-value.yaml",
        false,
        Cluster::None,
        "WAS501@7:21 WAS501@24:27",
    ),
    (
        "WAS502-invalid-format.yaml",
        false,
        Cluster::None,
        "WAS502@7:5 WAS502@9:22 WAS502@11:11",
    ),
    (
        "WAS502-metadata-of-any-kind.yaml",
        false,
        Cluster::None,
        "WAS002@4:1 WAS502@6:9 WAS502@7:14 WAS502@9:5 WAS502@10:11 WAS002@14:1 WAS502@16:9 WAS502@25:9",
    ),
    (
        "WAS503-union-members.yaml",
        false,
        Cluster::None,
        "WAS503@13:5 WAS503@23:7",
    ),
    (
        "WAS504-duplicate-list-key.yaml",
        false,
        Cluster::None,
        "WAS504@13:9",
    ),
    (
        "WAS505-out-of-range.yaml",
        false,
        Cluster::None,
        "WAS505@12:16 WAS505@24:22",
    ),
    (
        "WAS601-cel-cost-limit.yaml",
        false,
        Cluster::None,
        "WAS601@8:19",
    ),
    (
        "WAS601-invalid-cel-selector.yaml",
        false,
        Cluster::None,
        "WAS601@8:19 WAS601@23:25",
    ),
    (
        "WAS602-invalid-device-request.yaml",
        false,
        Cluster::None,
        "WAS602@14:11 WAS602@16:20",
    ),
    (
        "WAS602-too-many-devices.yaml",
        false,
        Cluster::None,
        "WAS602@13:18 WAS602@34:16",
    ),
    (
        "WAS603-invalid-capacity.yaml",
        false,
        Cluster::None,
        "WAS603@19:11 WAS603@20:30",
    ),
    (
        "WAS604-invalid-priority-class.yaml",
        false,
        Cluster::None,
        "WAS604@4:9 WAS604@5:8",
    ),
    (
        "WAS605-invalid-quantity.yaml",
        false,
        Cluster::None,
        "WAS605@12:14 WAS605@15:14 WAS605@17:13 WAS605@26:13",
    ),
];

#[test]
fn every_bad_fixture_reports_its_rule_at_the_exact_position() {
    let mut failures = Vec::new();
    for (file, strict, cluster, expected) in BAD {
        let code = &file[..6];
        let report = lint_file(&dir("bad").join(file), *strict, *cluster);
        // The gate notes (WAS403) accompany many fixtures; they are asserted in their own.
        let got: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.rule != "WAS403" || code == "WAS403")
            .map(|f| format!("{}@{}:{}", f.rule, f.line, f.column))
            .collect();
        if got.join(" ") != *expected {
            failures.push(format!(
                "{file}: expected `{expected}`, got `{}`",
                got.join(" ")
            ));
        }
        assert!(expected.contains(code), "{file} must expect its own rule");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_bad_fixture_and_every_fixture_is_listed() {
    for rule in ALL {
        assert!(
            BAD.iter().any(|(f, ..)| f.starts_with(rule.code())),
            "{} has no bad fixture",
            rule.code()
        );
    }
    let mut on_disk: Vec<String> = std::fs::read_dir(dir("bad"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let listed: Vec<String> = BAD.iter().map(|(f, ..)| (*f).to_owned()).collect();
    assert_eq!(on_disk, listed);
}

#[test]
fn good_fixtures_have_no_warning_or_error() {
    let report = lint_file(&dir("good"), true, Cluster::None);
    assert!(report.summary.objects > 10, "{:?}", report.summary);
    let bad: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning || f.rule == "WAS002")
        .map(|f| {
            format!(
                "{}:{}:{} {} {}",
                f.file, f.line, f.column, f.rule, f.message
            )
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn demo_cluster_reports_exactly_its_planted_findings() {
    let text = crate::snapshot::source::demo::DEMO_YAML;
    let inputs = [Input {
        name: "demo.yaml".to_owned(),
        text: Ok(text.to_owned()),
    }];
    let options = Options {
        default_namespace: "default".to_owned(),
        ..Options::default()
    };
    let report = lint(&inputs, &options, None);
    // Linted against itself as the cluster, nothing is immutable-changed or new.
    let against_itself = lint(
        &inputs,
        &options,
        Some(&crate::snapshot::source::demo::load().unwrap()),
    );
    assert_eq!(
        against_itself
            .findings
            .iter()
            .filter(|f| f.severity >= Severity::Warning)
            .count(),
        4,
        "{:?}",
        against_itself
            .findings
            .iter()
            .filter(|f| f.rule != "WAS403")
            .collect::<Vec<_>>()
    );
    let planted: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning)
        .map(|f| format!("{} {}", f.rule, f.object))
        .collect();
    // old-group is a stale v1alpha2 object, lost-0 names a missing PodGroup, and the infer-b
    // pods' claim entry differs from the PodGroup's (demo.yaml header).
    assert_eq!(
        planted,
        [
            "WAS302 Pod research/infer-b-0",
            "WAS302 Pod research/infer-b-1",
            "WAS301 Pod ml/lost-0",
            "WAS401 PodGroup ml/old-group",
        ]
    );
    // Below warnings: WAS403, and the demo's Kueue objects, which lint has no rules for
    // (WAS002, info).
    let kueue = |f: &crate::lint::Finding| {
        f.rule == "WAS002" && f.message.contains("`kueue.x-k8s.io/v1beta2`")
    };
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.severity >= Severity::Warning || f.rule == "WAS403" || kueue(f))
    );
    assert_eq!(report.findings.iter().filter(|f| kueue(f)).count(), 9);
}

#[test]
fn many_objects_are_linted_in_parallel_with_the_same_findings() {
    let text = crate::snapshot::source::demo::DEMO_YAML;
    let options = Options {
        default_namespace: "default".to_owned(),
        ..Options::default()
    };
    let one = lint(
        &[Input {
            name: "demo.yaml".to_owned(),
            text: Ok(text.to_owned()),
        }],
        &options,
        None,
    );
    let inputs: Vec<Input> = (0..4)
        .map(|i| Input {
            name: format!("demo-{i}.yaml"),
            text: Ok(text.to_owned()),
        })
        .collect();
    let four = lint(&inputs, &options, None);
    assert!(four.summary.objects >= 4 * 64, "{:?}", four.summary);
    assert_eq!(four.summary.objects, 4 * one.summary.objects);
    let key = |r: &LintReport, file: &str| -> Vec<String> {
        r.findings
            .iter()
            .filter(|f| f.file == file)
            .map(|f| format!("{}@{}:{} {}", f.rule, f.line, f.column, f.message))
            .collect()
    };
    for i in 0..4 {
        assert_eq!(
            key(&four, &format!("demo-{i}.yaml")),
            key(&one, "demo.yaml")
        );
    }
}

#[test]
fn gate_findings_are_warnings_when_the_facts_say_off_and_info_when_unknown() {
    let report = lint_file(
        &dir("bad").join("WAS403-alpha-feature-gate.yaml"),
        false,
        Cluster::None,
    );
    let got: Vec<(usize, Severity)> = report
        .findings
        .iter()
        .map(|f| (f.line, f.severity))
        .collect();
    // preemptionPolicy: off on kube-scheduler (ClusterFacts); schedulingConstraints: unknown.
    assert_eq!(got, [(18, Severity::Warning), (19, Severity::Info)]);
    assert!(
        report.findings[0].message.contains("off on kube-scheduler"),
        "{}",
        report.findings[0].message
    );
}

/// The k8s.io/api round-trip fixtures (`testdata/HEAD`, placeholder values such as `nameValue`)
/// of the kinds lint knows: a 1.37 API server rejects every one, so lint must report errors,
/// and these are the rules that catch each (the error codes reported, sorted).
/// See: issue 17 ("fixtures built from the public k8s.io/api testdata/HEAD roundtrip files").
const ROUNDTRIP: &[(&str, &str)] = &[
    ("apps.v1.DaemonSet.yaml", "WAS501 WAS502"),
    ("apps.v1.Deployment.yaml", "WAS501 WAS502"),
    ("apps.v1.ReplicaSet.yaml", "WAS501 WAS502"),
    ("apps.v1.StatefulSet.yaml", "WAS501 WAS502"),
    ("batch.v1.CronJob.yaml", "WAS501 WAS502"),
    ("batch.v1.Job.yaml", "WAS003 WAS501 WAS505"),
    ("core.v1.Namespace.yaml", "WAS003"),
    ("core.v1.Node.yaml", "WAS003 WAS501 WAS502"),
    ("core.v1.Pod.yaml", "WAS003 WAS501 WAS502"),
    ("policy.v1.PodDisruptionBudget.yaml", "WAS502"),
    ("resource.k8s.io.v1.DeviceClass.yaml", "WAS502 WAS601"),
    ("resource.k8s.io.v1.DeviceTaintRule.yaml", "WAS501 WAS502"),
    (
        "resource.k8s.io.v1.ResourceClaim.yaml",
        "WAS501 WAS502 WAS503 WAS601 WAS602",
    ),
    (
        "resource.k8s.io.v1.ResourceClaimTemplate.yaml",
        "WAS501 WAS502 WAS503 WAS601 WAS602",
    ),
    (
        "resource.k8s.io.v1.ResourceSlice.yaml",
        "WAS004 WAS501 WAS502 WAS503 WAS603",
    ),
    ("scheduling.k8s.io.v1.PriorityClass.yaml", "WAS003 WAS501"),
    (
        "scheduling.k8s.io.v1alpha3.CompositePodGroup.yaml",
        "WAS101 WAS103 WAS202 WAS203 WAS502",
    ),
    (
        "scheduling.k8s.io.v1alpha3.PodGroup.yaml",
        "WAS101 WAS103 WAS202 WAS203 WAS204 WAS501 WAS502",
    ),
    (
        "scheduling.k8s.io.v1alpha3.Workload.yaml",
        "WAS101 WAS102 WAS103 WAS201 WAS202 WAS203 WAS204 WAS205 WAS206 WAS207 WAS502",
    ),
    (
        "scheduling.k8s.io.v1beta1.PodGroup.yaml",
        "WAS101 WAS103 WAS202 WAS203 WAS204 WAS501 WAS502",
    ),
    (
        "scheduling.k8s.io.v1beta1.Workload.yaml",
        "WAS101 WAS102 WAS103 WAS201 WAS202 WAS203 WAS204 WAS206 WAS207 WAS501 WAS502",
    ),
];

#[test]
fn every_roundtrip_fixture_is_rejected_by_the_rules_listed() {
    let mut failures = Vec::new();
    for (file, expected) in ROUNDTRIP {
        let report = lint_file(&dir("roundtrip").join(file), true, Cluster::None);
        let mut codes: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.rule)
            .collect();
        codes.sort_unstable();
        codes.dedup();
        let got = codes.join(" ");
        if got != *expected {
            failures.push(format!("{file}: expected `{expected}`, got `{got}`"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let mut on_disk: Vec<String> = std::fs::read_dir(dir("roundtrip"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = ROUNDTRIP.iter().map(|(f, _)| *f).collect();
    assert_eq!(on_disk, listed);
    // One per kind lint knows, named as upstream names its files (`apps.v1.StatefulSet.yaml`).
    for k in crate::lint::schema::KINDS {
        let group_version = match k.api_version.split_once('/') {
            Some((group, version)) => format!("{group}.{version}"),
            None => format!("core.{}", k.api_version),
        };
        let file = format!("{group_version}.{}.yaml", k.kind);
        assert!(
            listed.contains(&file.as_str()),
            "no roundtrip fixture {file}"
        );
    }
}

/// Issue 45 item 7: a PodGroup or Workload in `scheduling.k8s.io/v1` (which serves only
/// PriorityClass, `k8s.io/api/scheduling/v1/register.go`) is an error that names the served
/// version; a third-party kind stays info.
#[test]
fn scheduling_v1_pod_group_and_workload_are_errors_naming_v1beta1() {
    let report = lint_file(
        &dir("bad").join("WAS401-scheduling-v1.yaml"),
        false,
        Cluster::None,
    );
    let v1: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule == "WAS401")
        .collect();
    assert_eq!(v1.len(), 2, "{:?}", report.findings);
    for f in v1 {
        assert_eq!(f.severity, Severity::Error);
        assert!(
            f.message.contains("served as scheduling.k8s.io/v1beta1"),
            "{}",
            f.message
        );
    }
    let widget = report
        .findings
        .iter()
        .find(|f| f.rule == "WAS002")
        .expect("the third-party kind");
    assert_eq!(widget.severity, Severity::Info);
    assert!(
        widget.message.contains("example.com/v1"),
        "{}",
        widget.message
    );
}

/// Issue 45 item 7: WAS308 (a `priorityClassName` naming no PriorityClass of the linted files)
/// is a warning, and an error under `--feasibility` when the cluster lacks the class too: the
/// API server would refuse the object.
#[test]
fn a_missing_priority_class_is_an_error_under_feasibility() {
    let file = dir("bad").join("WAS308-missing-priority-class.yaml");
    let severity = |cluster| {
        lint_file(&file, false, cluster)
            .findings
            .into_iter()
            .find(|f| f.rule == "WAS308")
            .map(|f| (f.severity, f.message))
    };
    let (plain, _) = severity(Cluster::None).expect("WAS308 without a cluster");
    assert_eq!(plain, Severity::Warning);
    let (demo, _) = severity(Cluster::Demo).expect("WAS308 against the demo");
    assert_eq!(demo, Severity::Warning);
    let (feasible, message) = severity(Cluster::DemoFeasibility).expect("WAS308 --feasibility");
    assert_eq!(feasible, Severity::Error);
    assert!(message.contains("`hihg`"), "{message}");
}

/// What lint, doctor and the simulator (whose plan explain reads) say about the hierarchy of
/// one cluster file: lint's WAS313/WAS314 findings, doctor's WASD013/WASD014 findings, the
/// simulator's units refused with an invalid hierarchy; each as (object name, message).
type Verdicts = [Vec<(String, String)>; 3];

fn hierarchy_verdicts(path: &str) -> Verdicts {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let lint = lint_file(&path, false, Cluster::None)
        .findings
        .into_iter()
        .filter(|f| f.rule == "WAS313" || f.rule == "WAS314")
        .map(|f| (f.object.name, f.message))
        .collect();
    let mut c = Collector::new();
    files::load_path(&path, &mut c).unwrap();
    let s = c.finish();
    let g = crate::graph::Graph::build(&s);
    let options = crate::doctor::Options {
        now: crate::doctor::test_support::NOW.parse().unwrap(),
        gate_overrides: std::collections::BTreeMap::new(),
        stuck_after: crate::doctor::DEFAULT_STUCK_AFTER,
    };
    let doctor = crate::doctor::check(&s, &g, &options)
        .0
        .into_iter()
        .filter(|f| matches!(f.id.id(), "WASD013" | "WASD014"))
        .map(|f| (f.object.name, f.message))
        .collect();
    let sim = crate::sched::simulate(&s, &crate::sched::Options::default())
        .units
        .into_iter()
        .filter(|u| u.message.starts_with("invalid hierarchy"))
        .map(|u| (u.name, u.message))
        .collect();
    [lint, doctor, sim]
}

/// The group names of the `a → b → a` chain a message ends with, as a sorted set.
fn cycle_members(message: &str) -> std::collections::BTreeSet<String> {
    let chain = message
        .rsplit_once(": ")
        .map_or(message, |(_, c)| c)
        .trim_start_matches(|c: char| !c.is_alphanumeric());
    let chain = chain.rsplit_once('(').map_or(chain, |(_, c)| c);
    chain
        .trim_end_matches(')')
        .split(" → ")
        .map(str::to_owned)
        .collect()
}

// issue 46 item 4: lint and simulate, explain (the simulator's plan) and doctor read one walk
// (`snapshot::hierarchy::Resolution`), so they agree on every hierarchy verdict: the same
// cycle, the same PodGroup five levels deep (upstream hierarchy_validation_test.go, "hierarchy
// depth 5 exceeds maximum allowed depth 4"), the same group of another Workload ("Pod group
// hierarchy referencing multiple distinct Workloads fails validation in scheduling cycle").
#[test]
fn lint_doctor_and_the_simulator_agree_on_a_cycle() {
    let [lint, doctor, sim] =
        hierarchy_verdicts("testdata/scenarios/h03-hierarchy-cycle-is-invalid/cluster.yaml");
    let one = |v: &[(String, String)]| -> Vec<std::collections::BTreeSet<String>> {
        v.iter().map(|(_, m)| cycle_members(m)).collect()
    };
    let ab: std::collections::BTreeSet<String> = ["a".to_owned(), "b".to_owned()].into();
    let expected = std::slice::from_ref(&ab);
    assert_eq!(one(&lint), expected, "{lint:?}");
    assert_eq!(one(&doctor), expected, "{doctor:?}");
    assert_eq!(one(&sim), expected, "{sim:?}");
}

#[test]
fn lint_doctor_and_the_simulator_agree_on_a_depth_5_tree() {
    let [lint, doctor, sim] = hierarchy_verdicts(
        "testdata/scenarios/upstream-hierarchy-depth-5-is-an-error/cluster.yaml",
    );
    let depth_5 = |v: &[(String, String)]| -> Vec<String> {
        v.iter()
            .filter(|(_, m)| m.contains("hierarchy depth 5 exceeds maximum allowed depth 4"))
            .map(|(n, _)| n.clone())
            .collect()
    };
    assert_eq!(depth_5(&lint), ["pg1"], "{lint:?}");
    assert_eq!(depth_5(&doctor), ["pg1"], "{doctor:?}");
    assert_eq!(depth_5(&sim), ["pg1"], "{sim:?}");
}

#[test]
fn lint_doctor_and_the_simulator_agree_on_a_mixed_workload_tree() {
    let [lint, doctor, sim] = hierarchy_verdicts(
        "testdata/scenarios/upstream-hierarchy-mixed-workloads-is-an-error/cluster.yaml",
    );
    assert_eq!(lint.len(), 1, "{lint:?}");
    assert_eq!(lint[0].0, "pg1");
    assert!(
        lint[0]
            .1
            .contains("references Workload `wl-1`, this group Workload `wl-2`")
    );
    let named =
        "podgroup/default/pg1 references Workload wl-2, but the hierarchy belongs to Workload wl-1";
    assert_eq!(doctor.len(), 1, "{doctor:?}");
    assert_eq!(doctor[0].0, "pg1");
    assert!(doctor[0].1.contains(named), "{doctor:?}");
    assert_eq!(sim.len(), 1, "{sim:?}");
    assert!(sim[0].1.contains(named), "{sim:?}");
}

/// The loader's verdict on a file: a syntax error's position and message, if any.
type Verdict = Option<((usize, usize), String)>;

/// Whether lint asks the loader for its verdict on `text`, named `name`, and the loader's
/// verdict.
fn loader_asked(name: &str, text: &str) -> (bool, Verdict) {
    let (documents, stopped) = files::split_documents(name, text);
    let chunks: Vec<super::Chunk> = documents
        .into_iter()
        .map(|d| {
            let json = d.format == files::Format::Json;
            (name.to_owned(), d.line, d.text, json)
        })
        .collect();
    let parsed: Vec<super::ParsedChunk> = chunks
        .iter()
        .map(|(f, l, t, j)| super::parse_chunk(f, *l, t, *j))
        .collect();
    (
        super::needs_loader_verdict(stopped.is_some(), &chunks, &parsed),
        super::loader_syntax_error(name, text),
    )
}

// issue 46 item 4: lint parses each document once; the loader is asked for its verdict only
// on a file lint's parse does not vouch for. Wherever it is not asked, its verdict is "no
// syntax error": every manifest fixture, and the YAML corners where the two could part (keys
// that are not strings, tags, huge numbers, anchors and merge keys, duplicate keys, tabs).
#[test]
fn the_loader_is_asked_wherever_its_verdict_could_be_a_syntax_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/manifests");
    let mut stack = vec![root];
    let mut texts: Vec<(String, String)> = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                texts.push((path.display().to_string(), text));
            }
        }
    }
    assert!(texts.len() > 50, "{} fixtures", texts.len());
    let corners = [
        "a: 1\n1: x\n",
        "a: 1\ntrue: x\n",
        "a: 1\n~: x\n",
        "a: 1\nnull: x\n",
        "a: 1\n: x\n",
        "a: 1\n1.5: x\n",
        "? [a, b]\n: x\n",
        "? {a: 1}\n: x\n",
        "a: !!binary aGVsbG8=\n",
        "a: !custom x\n",
        "a: 123456789012345678901234567890\n",
        "a: -123456789012345678901234567890\n",
        "a: .nan\nb: .inf\n",
        "a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n  e: 2\n",
        "a: 1\na: 2\n",
        "a:\n\t- b\n",
        "a: *missing\n",
        "a: [1, 2,]\n",
        "{\"a\": [1, 2,]}\n",
        "kind: List\nitems:\n- a: 1\n- b: [\n",
        "a: \"\\x\"\n",
        "a: 'it''s'\nb: |\n  text\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: 1\n---\nb: [\n---\nc: 3\n",
    ];
    for (i, text) in corners.iter().enumerate() {
        texts.push((format!("corner-{i}.yaml"), (*text).to_owned()));
    }
    let mut asked = 0;
    for (name, text) in &texts {
        let (ask, verdict) = loader_asked(name, text);
        asked += usize::from(ask);
        assert!(
            ask || verdict.is_none(),
            "{name}: not asked, but the loader says {verdict:?}"
        );
    }
    assert!(
        asked < texts.len(),
        "{asked} of {} files asked",
        texts.len()
    );
}

// The whole of `lint` over a chain of CompositePodGroups (the B8c input, `benches/lint.rs`)
// asks the loader nothing: one parse per document. A file with a syntax error, a JSON file
// and a List are still given the loader's verdict, in its words.
#[test]
fn lint_parses_a_chain_once_and_asks_the_loader_only_where_needed() {
    let mut chain = String::new();
    for i in 0..200 {
        chain.push_str(&format!(
            "---\napiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {{name: c{i}, namespace: ml}}\nspec:\n  workloadRef: {{workloadName: pipeline, templateName: stage}}\n  schedulingPolicy: {{basic: {{}}}}\n"
        ));
    }
    let input = |name: &str, text: &str| Input {
        name: name.to_owned(),
        text: Ok(text.to_owned()),
    };
    let options = Options::default();
    let (report, asked) = super::lint_counting(&[input("chain.yaml", &chain)], &options, None);
    assert_eq!(asked, 0);
    assert_eq!(report.summary.objects, 200);
    let inputs = [
        input("chain.yaml", &chain),
        input("bad.yaml", "a: 1\n---\nb: [\n"),
        input(
            "one.json",
            "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"x\"}}",
        ),
        input(
            "list.yaml",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: y}\n",
        ),
    ];
    let (report, asked) = super::lint_counting(&inputs, &options, None);
    assert_eq!(asked, 3);
    let syntax: Vec<(&str, usize)> = report
        .findings
        .iter()
        .filter(|f| f.rule == "WAS001")
        .map(|f| (f.file.as_str(), f.line))
        .collect();
    assert_eq!(syntax, [("bad.yaml", 3)], "{:#?}", report.findings);
}
