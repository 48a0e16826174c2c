//! Scenario fixtures: every folder in testdata/scenarios/ holds a `cluster.yaml` and an
//! `expected.yaml` (outcomes, messages, placements, PlacementFeasible sequences, topology
//! domains, written from semantics §10). One test walks the directory, simulates each, checks
//! the expectations and snapshots the whole plan as `{scenario}_plan`.

use std::collections::BTreeMap;

use serde::Deserialize;
use wasctl::sched::plan::Plan;
use wasctl::sched::{Options, simulate, whatif};
use wasctl::snapshot::Snapshot;
use wasctl::snapshot::source::{Collector, files};

use crate::support::root;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Expected {
    /// Where an `upstream-…` scenario comes from (required for those folders).
    #[serde(default)]
    upstream: Option<Upstream>,
    #[serde(default)]
    what_if: Option<WhatIf>,
    #[serde(default)]
    stuck_pods: Vec<String>,
    /// Claims whose binding failed (a binding failure condition is True): allocation cleared.
    #[serde(default)]
    binding_failures: Vec<String>,
    #[serde(default)]
    no_preemption: bool,
    units: Vec<ExpectedUnit>,
}

/// The upstream test a scenario ports.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Upstream {
    /// File in kubernetes/kubernetes.
    file: String,
    /// Test function and case name.
    case: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WhatIf {
    add_nodes: usize,
    like: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ExpectedUnit {
    unit: String,
    outcome: String,
    message: Option<String>,
    message_starts_with: Option<String>,
    placement_feasible: Option<Vec<String>>,
    placements: Option<BTreeMap<String, String>>,
    domains: Option<BTreeMap<String, String>>,
    /// pod → `pool/device` in allocation order.
    devices: Option<BTreeMap<String, Vec<String>>>,
    /// pod → the binding conditions its binding waits for (DRADeviceBindingConditions); pods
    /// not listed wait for none.
    binding_waits: Option<BTreeMap<String, Vec<String>>>,
    /// How long those waits last (DynamicResources `bindingTimeout` of the pods' profile,
    /// seconds); default 600, kube-scheduler's.
    binding_timeout_seconds: Option<u32>,
    /// A substring of some member's DynamicResources claim reason.
    claim_reason: Option<String>,
    message_ends_with: Option<String>,
    /// A substring of the message (upstream conditions checked with MessageContains).
    message_contains: Option<String>,
    /// Victim pod names (any order).
    victims: Option<Vec<String>>,
    /// How many victims, when upstream leaves open which of `victimsAmong` they are.
    victim_count: Option<usize>,
    /// Every victim is one of these.
    victims_among: Option<Vec<String>>,
    /// The blast radius says an `all` group died for part of its nodes.
    whole_group: Option<bool>,
    pdb_violations: Option<u32>,
    gpus_freed: Option<u32>,
    /// Pods placed on some of these nodes (upstream `VerifyAssignments`).
    placed_among: Option<Vec<PlacedAmong>>,
    /// Pods placed in one domain of a topology key (upstream `VerifyAssignedInOneDomain`).
    same_domain: Option<Vec<SameDomain>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PlacedAmong {
    pods: Vec<String>,
    nodes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SameDomain {
    pods: Vec<String>,
    key: String,
}

fn check(name: &str, plan: &Plan, expected: &Expected, snapshot: &Snapshot) {
    let mut last_index = None;
    for e in &expected.units {
        let (index, unit) = plan
            .units
            .iter()
            .enumerate()
            .find(|(_, u)| format!("{}/{}/{}", u.kind, u.namespace, u.name) == e.unit)
            .unwrap_or_else(|| panic!("{name}: unit {} not in plan: {:#?}", e.unit, plan.units));
        assert!(
            last_index < Some(index),
            "{name}: {} is out of queue order",
            e.unit
        );
        last_index = Some(index);
        let ctx = format!("{name}: {}: {:#?}", e.unit, unit);
        assert_eq!(format!("{:?}", unit.outcome), e.outcome, "{ctx}");
        if let Some(m) = &e.message {
            assert_eq!(&unit.message, m, "{ctx}");
        }
        if let Some(m) = &e.message_starts_with {
            assert!(
                unit.message.starts_with(m.as_str()),
                "{ctx}\nexpected prefix: {m}"
            );
        }
        if let Some(m) = &e.message_ends_with {
            assert!(
                unit.message.ends_with(m.as_str()),
                "{ctx}\nexpected suffix: {m}"
            );
        }
        if let Some(m) = &e.message_contains {
            assert!(
                unit.message.contains(m.as_str()),
                "{ctx}\nexpected to contain: {m}"
            );
        }
        if let Some(v) = &e.victims {
            let mut got: Vec<&str> = unit.victims.iter().map(|v| &*v.name).collect();
            got.sort_unstable();
            let mut want: Vec<&str> = v.iter().map(String::as_str).collect();
            want.sort_unstable();
            assert_eq!(got, want, "{ctx}");
        }
        if let Some(n) = e.victim_count {
            assert_eq!(unit.victims.len(), n, "{ctx}");
        }
        if let Some(among) = &e.victims_among {
            for v in &unit.victims {
                assert!(
                    among.iter().any(|a| **a == *v.name),
                    "{ctx}\nunexpected victim {}",
                    v.name
                );
            }
        }
        let blast = unit.blast_radius.as_ref();
        if let Some(w) = e.whole_group {
            assert_eq!(
                blast.map(|b| b.whole_group_for_part_of_its_nodes),
                Some(w),
                "{ctx}"
            );
        }
        if let Some(n) = e.pdb_violations {
            assert_eq!(blast.map(|b| b.pdb_violations), Some(n), "{ctx}");
        }
        if let Some(n) = e.gpus_freed {
            assert_eq!(blast.map(|b| b.gpus_freed), Some(n), "{ctx}");
        }
        if let Some(seq) = &e.placement_feasible {
            assert_eq!(&unit.trace.placement_feasible, seq, "{ctx}");
        }
        if let Some(p) = &e.placements {
            let got: BTreeMap<String, String> = unit
                .placements
                .iter()
                .map(|p| (p.pod.clone(), p.node.clone()))
                .collect();
            assert_eq!(&got, p, "{ctx}");
        }
        if let Some(devices) = &e.devices {
            for (pod, want) in devices {
                let p = unit
                    .placements
                    .iter()
                    .find(|p| &p.pod == pod)
                    .unwrap_or_else(|| panic!("{ctx}: no placement for {pod}"));
                let got: Vec<String> = p
                    .devices
                    .iter()
                    .map(|d| format!("{}/{}", d.pool, d.device))
                    .collect();
                assert_eq!(&got, want, "{ctx}");
            }
        }
        if let Some(waits) = &e.binding_waits {
            for p in &unit.placements {
                let got: Vec<String> = p
                    .devices
                    .iter()
                    .flat_map(|d| d.binding_conditions.iter().cloned())
                    .collect();
                let want = waits.get(&p.pod).cloned().unwrap_or_default();
                assert_eq!(got, want, "{ctx}: binding conditions of {}", p.pod);
                assert_eq!(
                    p.binding_timeout_seconds,
                    (!want.is_empty()).then_some(e.binding_timeout_seconds.unwrap_or(600)),
                    "{ctx}: binding timeout of {}",
                    p.pod
                );
            }
        }
        if let Some(reason) = &e.claim_reason {
            let found = unit
                .trace
                .pods
                .iter()
                .flat_map(|p| p.claim_reasons.values())
                .flat_map(|m| m.keys())
                .any(|k| k.contains(reason.as_str()));
            assert!(found, "{ctx}\nno claim reason contains: {reason}");
        }
        let placed = |pod: &str| {
            unit.placements
                .iter()
                .find(|p| p.pod == pod)
                .map(|p| p.node.clone())
                .unwrap_or_else(|| panic!("{ctx}\nno placement for {pod}"))
        };
        for among in e.placed_among.iter().flatten() {
            for pod in &among.pods {
                let node = placed(pod);
                assert!(
                    among.nodes.contains(&node),
                    "{ctx}\n{pod} on {node}, not among {:?}",
                    among.nodes
                );
            }
        }
        for same in e.same_domain.iter().flatten() {
            let values: std::collections::BTreeSet<Option<String>> = same
                .pods
                .iter()
                .map(|pod| {
                    let node = placed(pod);
                    snapshot
                        .nodes
                        .iter()
                        .find(|n| n.metadata.name.as_deref() == Some(node.as_str()))
                        .and_then(|n| n.metadata.labels.as_ref()?.get(&same.key).cloned())
                })
                .collect();
            assert!(
                values.len() == 1 && !values.contains(&None),
                "{ctx}\n{:?} are not in one {} domain: {values:?}",
                same.pods,
                same.key
            );
        }
        if let Some(domains) = &e.domains {
            let got: BTreeMap<String, String> = unit
                .trace
                .domains
                .iter()
                .map(|d| {
                    let state = if d.chosen {
                        "chosen"
                    } else if d.feasible {
                        "feasible"
                    } else {
                        "unfeasible"
                    };
                    (d.value.clone(), state.to_owned())
                })
                .collect();
            assert_eq!(&got, domains, "{ctx}");
        }
    }
    assert_eq!(
        plan.units.len(),
        expected.units.len(),
        "{name}: every unit of the plan is expected: {:#?}",
        plan.units
    );
    let stuck: Vec<&str> = plan.stuck_pods.iter().map(|s| s.pod.as_str()).collect();
    assert_eq!(stuck, expected.stuck_pods, "{name}: stuck pods");
    let failed: Vec<&str> = plan
        .binding_failures
        .iter()
        .map(|f| f.claim.as_str())
        .collect();
    assert_eq!(
        failed, expected.binding_failures,
        "{name}: binding failures"
    );
}

#[test]
fn every_scenario_matches_its_expected_outcome() {
    let dir = root().join("testdata/scenarios");
    // Every folder is a scenario (README.md beside them lists the upstream tests ported).
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.len() >= 25);
    for name in names {
        let folder = dir.join(&name);
        let mut collector = Collector::new();
        files::load_path(&folder.join("cluster.yaml"), &mut collector).unwrap();
        let mut snapshot = collector.finish();
        // A scenario may run with the cluster's own scheduler configuration (issue 48).
        let config = folder.join("scheduler-config.yaml");
        if config.exists() {
            let text = std::fs::read_to_string(&config).unwrap();
            let parsed: wasctl::snapshot::scheduler_config::KubeSchedulerConfiguration =
                serde_saphyr::from_str(&text)
                    .unwrap_or_else(|e| panic!("{name}/scheduler-config.yaml: {e}"));
            snapshot.scheduler_config = Some(wasctl::snapshot::LoadedSchedulerConfig {
                config: wasctl::snapshot::scheduler_config::effective(&parsed),
                written: parsed,
                source: "scheduler-config.yaml".to_owned(),
            });
        }
        let text = std::fs::read_to_string(folder.join("expected.yaml")).unwrap();
        let expected: Expected =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{name}/expected.yaml: {e}"));
        if name.starts_with("upstream-") {
            let u = expected.upstream.as_ref();
            assert!(
                u.is_some_and(|u| !u.file.is_empty() && !u.case.is_empty()),
                "{name}: an upstream scenario names its source file and case"
            );
        }
        let mut options = Options {
            no_preemption: expected.no_preemption,
            ..Options::default()
        };
        if let Some(w) = &expected.what_if {
            whatif::add_nodes(&mut snapshot, w.add_nodes, &w.like).unwrap();
            options
                .what_if
                .push(format!("added {} node(s) like `{}`", w.add_nodes, w.like));
        }
        let plan = simulate(&snapshot, &options);
        check(&name, &plan, &expected, &snapshot);
        let json = serde_json::to_string_pretty(&plan).unwrap();
        insta::assert_snapshot!(format!("{name}_plan"), json);
    }
}
