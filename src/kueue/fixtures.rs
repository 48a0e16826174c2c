//! Kueue's own scheduler test cases, ported as scenario fixtures under `testdata/kueue/`
//! (see its README for the list and what was skipped).
//!
//! Each fixture directory holds `input.yaml` (Kueue objects and Namespaces, its first line a
//! comment naming the upstream file, function and case) and `expected.yaml`: `cycles: 1` when
//! the upstream case is one `scheduler.schedule` call (then upstream's `wantAssignments` are
//! `Admitted`, or `Preempting` for a workload whose victims were evicted in that cycle, and
//! `wantLeft`/`wantInadmissibleLeft` are `QuotaPending`), and per workload (`NAMESPACE/NAME`,
//! every workload that is not finished): `outcome` (an [`AdmissionOutcome`] name), and
//! optionally `clusterQueue`, `flavors` (pod set → resource → flavor), `preempts`
//! (`NAMESPACE/NAME` list, any order), `evicted` and `messageContains`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::Namespace;
use serde::Deserialize;
use serde_json::Value;

use super::admission::{Admission, AdmissionOutcome, Options, run_with};
use crate::snapshot::kueue::{KueueObjects, is_typed, parse};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    #[serde(default)]
    cycles: Option<usize>,
    workloads: BTreeMap<String, ExpectedWorkload>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ExpectedWorkload {
    outcome: AdmissionOutcome,
    #[serde(default)]
    cluster_queue: Option<String>,
    #[serde(default)]
    flavors: Option<BTreeMap<String, BTreeMap<String, String>>>,
    #[serde(default)]
    preempts: Option<Vec<String>>,
    #[serde(default)]
    evicted: Option<bool>,
    #[serde(default)]
    message_contains: Option<String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/kueue")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The Kueue objects and Namespaces of an `input.yaml`.
fn load(path: &Path) -> (KueueObjects, Vec<Namespace>) {
    let text = read(path);
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut k = KueueObjects::default();
    let mut namespaces = Vec::new();
    for (i, d) in docs.into_iter().enumerate() {
        if d.is_null() {
            continue;
        }
        let api_version = d.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = d.get("kind").and_then(Value::as_str).unwrap_or("");
        if api_version == "v1" && kind == "Namespace" {
            let ns: Namespace = serde_json::from_value(d)
                .unwrap_or_else(|e| panic!("{} document {i}: {e}", path.display()));
            namespaces.push(ns);
            continue;
        }
        assert!(
            is_typed(api_version, kind),
            "{} document {i}: {api_version} {kind} is not a Kueue kind",
            path.display()
        );
        let o = parse(d).unwrap_or_else(|e| panic!("{} document {i}: {e}", path.display()));
        k.push(o);
    }
    (k, namespaces)
}

fn key(k: &KueueObjects, index: usize) -> String {
    let w = &k.workloads[index];
    format!("{}/{}", w.namespace(), w.name())
}

/// Differences between a run and a fixture's expectations, one line each.
fn compare(k: &KueueObjects, got: &Admission, want: &Expected) -> Vec<String> {
    let mut diffs = Vec::new();
    let results: BTreeMap<String, _> = got.workloads.iter().map(|r| (key(k, r.index), r)).collect();
    for name in results.keys() {
        if !want.workloads.contains_key(name) {
            diffs.push(format!(
                "{name}: has a result but expected.yaml does not list it"
            ));
        }
    }
    for (name, w) in &want.workloads {
        let Some(r) = results.get(name) else {
            diffs.push(format!("{name}: no result"));
            continue;
        };
        if w.outcome != r.outcome {
            diffs.push(format!(
                "{name}: outcome: want {:?}, got {:?} ({:?})",
                w.outcome, r.outcome, r.message
            ));
        }
        let mut d = |field: &str, want: String, got: String| {
            if want != got {
                diffs.push(format!("{name}: {field}: want {want}, got {got}"));
            }
        };
        if let Some(cq) = &w.cluster_queue {
            d("clusterQueue", cq.clone(), r.cluster_queue.clone());
        }
        if let Some(f) = &w.flavors {
            let got: BTreeMap<String, BTreeMap<String, String>> = r
                .pod_sets
                .iter()
                .map(|p| (p.name.clone(), p.flavors.clone()))
                .collect();
            d("flavors", format!("{f:?}"), format!("{got:?}"));
        }
        if let Some(p) = &w.preempts {
            let mut want: Vec<String> = p.clone();
            want.sort();
            let mut got: Vec<String> = r.preempts.iter().map(|(n, m)| format!("{n}/{m}")).collect();
            got.sort();
            d("preempts", format!("{want:?}"), format!("{got:?}"));
        }
        if let Some(e) = w.evicted {
            d("evicted", e.to_string(), r.evicted.to_string());
        }
        if let Some(m) = &w.message_contains
            && !r.message.contains(m.as_str())
        {
            diffs.push(format!(
                "{name}: message: want it to contain {m:?}, got {:?}",
                r.message
            ));
        }
    }
    diffs
}

fn run_fixture(dir: &Path) -> Result<(), String> {
    let input = dir.join("input.yaml");
    let head = read(&input);
    let first = head.lines().next().unwrap_or_default();
    if !first.starts_with("# kueue ") {
        return Err(format!(
            "input.yaml must start with `# kueue <upstream file> <function> \"<case>\"`, found {first:?}"
        ));
    }
    let (k, namespaces) = load(&input);
    let expected_path = dir.join("expected.yaml");
    let want: Expected = serde_saphyr::from_str(&read(&expected_path))
        .map_err(|e| format!("{}: {e}", expected_path.display()))?;
    let got = run_with(
        &k,
        &namespaces,
        &[],
        Options {
            max_cycles: want.cycles,
            ..Options::default()
        },
    )
    .map_err(|e| e.0)?;
    let mut diffs = compare(&k, &got, &want);
    if want.cycles.is_none() && got.unsettled {
        diffs.push(format!(
            "admission did not settle within {} cycles",
            got.cycles
        ));
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(diffs.join("\n  "))
    }
}

fn fixture_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap_or_else(|e| panic!("testdata/kueue: {e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("input.yaml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Issue #49: at least 30 of Kueue's own cases.
#[test]
fn at_least_thirty_kueue_cases_are_ported() {
    let n = fixture_dirs().len();
    assert!(n >= 30, "only {n} Kueue fixtures");
}

#[test]
fn kueue_upstream_fixtures() {
    let dirs = fixture_dirs();
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            run_fixture(d).err().map(|e| {
                format!(
                    "{}:\n  {e}",
                    d.file_name().unwrap_or_default().to_string_lossy()
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} Kueue fixtures disagree:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}

#[test]
fn every_fixture_is_listed_in_the_readme() {
    let readme = read(&root().join("README.md"));
    for e in std::fs::read_dir(root()).unwrap_or_else(|e| panic!("{e}")) {
        let Ok(e) = e else { continue };
        if e.path().is_dir() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(
                readme.contains(&format!("`{name}`")),
                "testdata/kueue/README.md does not list `{name}`"
            );
        }
    }
}

/// The harness reports a wrong expectation, naming the workload and the field.
#[test]
fn a_wrong_expectation_is_reported_with_the_workload_and_field() {
    let dir = root().join("schedule-single-cluster-queue-full");
    let (k, namespaces) = load(&dir.join("input.yaml"));
    let got = run_with(
        &k,
        &namespaces,
        &[],
        Options {
            max_cycles: Some(1),
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let mut want: Expected =
        serde_saphyr::from_str(&read(&dir.join("expected.yaml"))).unwrap_or_else(|e| panic!("{e}"));
    assert!(compare(&k, &got, &want).is_empty());
    if let Some(w) = want.workloads.get_mut("sales/new") {
        w.outcome = AdmissionOutcome::Admitted;
        w.flavors = Some(BTreeMap::from([(
            "one".to_owned(),
            BTreeMap::from([("cpu".to_owned(), "default".to_owned())]),
        )]));
    }
    want.workloads.remove("sales/assigned");
    let diffs = compare(&k, &got, &want);
    assert_eq!(diffs.len(), 3, "{diffs:#?}");
    assert!(
        diffs[0].starts_with("sales/assigned: has a result"),
        "{diffs:#?}"
    );
    assert!(
        diffs[1].starts_with("sales/new: outcome: want Admitted, got QuotaPending"),
        "{diffs:#?}"
    );
    assert!(diffs[2].starts_with("sales/new: flavors:"), "{diffs:#?}");
}
