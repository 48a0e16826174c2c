//! `diff`: one before/after pair per kind of change under testdata/diff/ (expected units,
//! outcomes and causes in each expected.yaml), the JSON contract, exit codes, what-ifs as NEW,
//! and NEW read live from the fake API server.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::fake_apiserver::{FakeApiServer, FakeConfig};
use crate::support::{demo_objects, root, run, run_cmd, wasctl};

fn diff(folder: &Path, more: &[&str]) -> crate::support::Run {
    let (old, new) = (folder.join("old.yaml"), folder.join("new.yaml"));
    let mut args = vec![
        "diff",
        "--from",
        old.to_str().unwrap(),
        "--to",
        new.to_str().unwrap(),
    ];
    args.extend(more);
    run(&args)
}

#[test]
fn diff_fixtures_name_the_change_and_its_causes() {
    let dir = root().join("testdata/diff");
    let mut folders: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(folders.len() >= 7, "{folders:?}");
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(folder.join("expected.yaml")).unwrap();
        let e: Value = serde_saphyr::from_str(&text).unwrap_or_else(|err| panic!("{name}: {err}"));
        let r = diff(&folder, &["-o", "json"]);
        assert_eq!(
            Value::from(r.code),
            e["exitCode"],
            "{name}: {}",
            r.transcript()
        );
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let units = v["units"].as_array().unwrap();
        let expected = e["units"].as_array().unwrap();
        assert_eq!(units.len(), expected.len(), "{name}: {}", r.stdout);
        for (u, x) in units.iter().zip(expected) {
            let id = format!(
                "{}/{}/{}",
                u["kind"].as_str().unwrap(),
                u["namespace"].as_str().unwrap(),
                u["name"].as_str().unwrap()
            );
            assert_eq!(Value::from(id), x["unit"], "{name}");
            for key in [
                "before",
                "after",
                "change",
                "causes",
                "beforeDomain",
                "afterDomain",
            ] {
                if let Some(want) = x.get(key) {
                    assert_eq!(&u[key], want, "{name}: {key}\n{}", r.stdout);
                }
            }
        }
        assert_eq!(
            v["summary"]["changed"],
            Value::from(expected.len()),
            "{name}"
        );
    }
}

#[test]
fn diff_json_keeps_the_contract() {
    let r = diff(
        &root().join("testdata/diff/d01-node-removed"),
        &["-o", "json"],
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(v["kind"], "PlanDiff");
    let u = &v["units"][0];
    for key in ["kind", "namespace", "name", "before", "after", "causes"] {
        assert!(u.get(key).is_some(), "units[].{key}: {}", r.stdout);
    }
    assert!(u["causes"].is_array());
    assert_eq!(v["summary"]["newlyUnschedulable"], 1);
    assert!(
        v["settings"]["from"]
            .as_str()
            .unwrap()
            .ends_with("old.yaml")
    );
    assert!(v["settings"]["to"].as_str().unwrap().ends_with("new.yaml"));
}

#[test]
fn diff_text_reads_like_git_diff_stat() {
    for name in ["d03-taint-added", "d05-domain-changed"] {
        let r = diff(&root().join("testdata/diff").join(name), &[]);
        insta::assert_snapshot!(format!("diff_text_{name}"), r.stdout);
    }
}

#[test]
fn identical_snapshots_have_no_changes_and_exit_0() {
    let old = root().join("testdata/diff/d01-node-removed/old.yaml");
    let old = old.to_str().unwrap();
    let r = run(&["diff", "--from", old, "--to", old]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("0 unit(s) changed, 0 newly unschedulable, 0 newly schedulable"),
        "{}",
        r.stdout
    );
}

#[test]
fn what_ifs_are_the_new_side_without_to() {
    let r = run(&[
        "diff",
        "--demo",
        "--feature-gates",
        "GenericWorkload=true",
        "--drain",
        "gpu-a1",
        "-o",
        "json",
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.transcript());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["settings"]["to"], "demo with what-ifs");
    let drained = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "train-a-workers")
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert_eq!(drained["before"], "NotPending");
    assert!(
        drained["causes"]
            .as_array()
            .unwrap()
            .contains(&Value::from("node `gpu-a1` cordoned")),
        "{drained}"
    );
}

#[test]
fn diff_needs_two_sides() {
    let r = run(&["diff"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stderr.contains("needs two sides"), "{}", r.stderr);
}

#[test]
fn new_side_defaults_to_the_live_cluster_read_only() {
    let gates: BTreeMap<String, bool> = ["GenericWorkload", "DRAWorkloadResourceClaims"]
        .into_iter()
        .map(|g| (g.to_owned(), true))
        .collect();
    let server = FakeApiServer::start(
        demo_objects(),
        FakeConfig {
            feature_gates: gates,
            ..FakeConfig::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let demo = root().join("testdata/clusters/demo.yaml");
    let r = run_cmd(wasctl().args([
        "diff",
        "-A",
        "--from",
        demo.to_str().unwrap(),
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "--feature-gates",
        "GenericWorkload=true",
        "-o",
        "json",
    ]));
    assert!(r.code == 0 || r.code == 1, "{}", r.transcript());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["kind"], "PlanDiff");
    assert!(
        v["settings"]["to"].as_str().unwrap().starts_with("cluster"),
        "{}",
        r.stdout
    );
    for req in server.requests() {
        assert_eq!(req.method, "GET", "{req:?}");
        assert!(!req.path.contains("secrets"), "{req:?}");
    }
}
