//! Scenario fixtures: every folder in testdata/scenarios/ holds a `cluster.yaml` and an
//! `expected.yaml` (outcomes, messages, placements, PlacementFeasible sequences, topology
//! domains, written from semantics §10). One test walks the directory, simulates each, checks
//! the expectations and snapshots the whole plan as `{scenario}_plan`.

use std::collections::BTreeMap;

use serde::Deserialize;
use wasctl::sched::plan::Plan;
use wasctl::sched::{Options, simulate, whatif};
use wasctl::snapshot::source::{Collector, files};

use crate::support::root;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Expected {
    #[serde(default)]
    what_if: Option<WhatIf>,
    units: Vec<ExpectedUnit>,
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
}

fn check(name: &str, plan: &Plan, expected: &Expected) {
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
}

#[test]
fn every_scenario_matches_its_expected_outcome() {
    let dir = root().join("testdata/scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.len() >= 25);
    for name in names {
        let folder = dir.join(&name);
        let mut collector = Collector::new();
        files::load_path(&folder.join("cluster.yaml"), &mut collector).unwrap();
        let mut snapshot = collector.finish();
        let text = std::fs::read_to_string(folder.join("expected.yaml")).unwrap();
        let expected: Expected =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{name}/expected.yaml: {e}"));
        let mut options = Options::default();
        if let Some(w) = &expected.what_if {
            whatif::add_nodes(&mut snapshot, w.add_nodes, &w.like).unwrap();
            options
                .what_if
                .push(format!("added {} node(s) like `{}`", w.add_nodes, w.like));
        }
        let plan = simulate(&snapshot, &options);
        check(&name, &plan, &expected);
        let json = serde_json::to_string_pretty(&plan).unwrap();
        insta::assert_snapshot!(format!("{name}_plan"), json);
    }
}
