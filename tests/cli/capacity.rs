//! `capacity`: the fixtures under testdata/capacity/ (expected numbers computed by hand in each
//! expected.yaml), the JSON contract, `--max`, the text view and usage errors.

use std::path::Path;

use serde_json::Value;

use crate::support::{root, run};

/// Runs `capacity` on a fixture folder with the args of its expected.yaml (`shape.yaml`
/// resolved in the folder) and extra `more` args.
fn capacity(folder: &Path, args: &[String], more: &[&str]) -> crate::support::Run {
    let cluster = folder.join("cluster.yaml");
    let mut all: Vec<String> = vec![
        "capacity".into(),
        "--from".into(),
        cluster.display().to_string(),
    ];
    all.extend(args.iter().map(|a| {
        if a.ends_with(".yaml") {
            folder.join(a).display().to_string()
        } else {
            a.clone()
        }
    }));
    all.extend(more.iter().map(|s| (*s).to_owned()));
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    run(&refs)
}

fn expected(folder: &Path) -> Value {
    let text = std::fs::read_to_string(folder.join("expected.yaml")).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
}

fn args_of(e: &Value) -> Vec<String> {
    e["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn capacity_fixtures_match_the_hand_computed_numbers() {
    let dir = root().join("testdata/capacity");
    let mut folders: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(folders.len() >= 4, "{folders:?}");
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let e = expected(&folder);
        let r = capacity(&folder, &args_of(&e), &["-o", "json"]);
        assert_eq!(r.code, 0, "{name}: {}", r.transcript());
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        for key in ["copies", "copiesWithPreemption", "capped"] {
            assert_eq!(v[key], e[key], "{name}: {key}\n{}", r.stdout);
        }
        if let Some(domains) = e.get("domains").and_then(Value::as_object) {
            let got: serde_json::Map<String, Value> = v["domains"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| (d["value"].as_str().unwrap().to_owned(), d["copies"].clone()))
                .collect();
            assert_eq!(&got, domains, "{name}: domains");
        }
        // The profile that simulated the copies (issue 48): named when not the default.
        for key in ["profile", "scoring"] {
            match e.get(key) {
                Some(want) => assert_eq!(&v["target"][key], want, "{name}: target.{key}"),
                None => assert!(
                    v["target"].get(key).is_none(),
                    "{name}: target.{key}\n{}",
                    r.stdout
                ),
            }
        }
        if let Some(across) = e.get("copiesAcrossDomains") {
            let got = v
                .get("copiesAcrossDomains")
                .cloned()
                .unwrap_or(Value::from(0));
            assert_eq!(&got, across, "{name}: copiesAcrossDomains");
        }
        if e["preempting"] == true {
            assert!(
                !v["preemptions"].as_array().unwrap().is_empty(),
                "{name}: preemptions"
            );
        }
        let (el, l) = (&e["limit"], &v["limit"]);
        for key in ["verdict", "placeable", "minCount"] {
            assert_eq!(l[key], el[key], "{name}: limit.{key}\n{}", r.stdout);
        }
        if let Some(d) = el.get("closestDomain") {
            assert_eq!(&l["closestDomain"]["value"], d, "{name}: closestDomain");
        }
        if let Some(s) = el.get("short") {
            assert_eq!(&l["short"], s, "{name}: short");
        }
        if let Some(n) = el.get("nodeReasons") {
            assert_eq!(&l["nodeReasons"], n, "{name}: nodeReasons");
        }
        // The ResourceQuota keys are absent unless the fixture expects them.
        for key in ["quotaLimit", "limitedBy"] {
            match e.get(key) {
                Some(Value::Object(want)) => {
                    for (k, want) in want {
                        assert_eq!(&v[key][k], want, "{name}: {key}.{k}\n{}", r.stdout);
                    }
                }
                Some(want) => assert_eq!(&v[key], want, "{name}: {key}"),
                None => assert!(v.get(key).is_none(), "{name}: {key}\n{}", r.stdout),
            }
        }
        if let Some(w) = e.get("whatIf") {
            let got = &v["whatIf"];
            for key in ["copiesBefore", "copiesWithPreemptionBefore"] {
                assert_eq!(got[key], w[key], "{name}: whatIf.{key}");
            }
            for (unit, replaced) in w["displaced"].as_object().unwrap() {
                let d = got["displaced"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|d| d["name"] == unit.as_str())
                    .unwrap_or_else(|| panic!("{name}: displaced {unit}: {got}"));
                assert_eq!(&d["replaced"], replaced, "{name}: displaced {unit}");
            }
        }
    }
}

#[test]
fn capacity_json_keeps_the_contract() {
    let folder = root().join("testdata/capacity/c02-gangs-in-one-rack");
    let r = capacity(&folder, &args_of(&expected(&folder)), &["-o", "json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(v["kind"], "CapacityReport");
    for key in [
        "target",
        "copies",
        "copiesWithPreemption",
        "domains",
        "limit",
        "settings",
    ] {
        assert!(v.get(key).is_some(), "{key} missing: {}", r.stdout);
    }
    assert_eq!(v["target"]["name"], "train-rack");
    assert_eq!(v["target"]["topologyKey"], "rack");
    for d in v["domains"].as_array().unwrap() {
        assert_eq!(d["key"], "rack");
        assert!(d["value"].is_string() && d["copies"].is_u64(), "{d}");
    }
    assert_eq!(v["settings"]["maxCopies"], 100);
    assert_eq!(v["settings"]["mode"], "exhaustive");
    // YAML carries the same data.
    let y = capacity(&folder, &args_of(&expected(&folder)), &["-o", "yaml"]);
    let yv: Value = serde_saphyr::from_str(&y.stdout).unwrap();
    assert_eq!(yv, v);
}

#[test]
fn max_caps_the_count_and_leaves_no_limit() {
    let folder = root().join("testdata/capacity/c01-gangs-anywhere");
    let r = capacity(
        &folder,
        &["pg/train".to_owned()],
        &["--max", "3", "-o", "json"],
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["copies"], 3);
    assert_eq!(v["copiesWithPreemption"], 3);
    assert_eq!(v["capped"], true);
    assert!(v["limit"].is_null(), "{}", r.stdout);
    let text = capacity(&folder, &["pg/train".to_owned()], &["--max", "3"]);
    assert!(
        text.stdout.contains("at least 3 more copies fit"),
        "{}",
        text.stdout
    );
}

#[test]
fn no_preemption_reports_the_copies_without_it() {
    let folder = root().join("testdata/capacity/c01-gangs-anywhere");
    let r = capacity(
        &folder,
        &["pg/train".to_owned()],
        &["--no-preemption", "-o", "json"],
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["copies"], 7);
    assert_eq!(v["copiesWithPreemption"], 7);
    assert_eq!(v["settings"]["preemption"], false);
}

#[test]
fn capacity_text_is_snapshotted() {
    for (name, folder) in [
        ("c02", "c02-gangs-in-one-rack"),
        ("c04", "c04-drain-two-nodes"),
        ("c05", "c05-quota-limits-copies"),
        ("c06", "c06-binpack-profile"),
    ] {
        let folder = root().join("testdata/capacity").join(folder);
        let r = capacity(&folder, &args_of(&expected(&folder)), &[]);
        assert_eq!(r.code, 0, "{}", r.transcript());
        let stdout = r.stdout.replace(&root().display().to_string(), "<root>");
        insta::assert_snapshot!(format!("capacity_text_{name}"), stdout);
        // Only c04 queues another unit with the copies (the drained gang `train`, placed
        // again first): the `capacity-copies` note is printed there only, once.
        assert_eq!(
            r.stderr
                .matches("note: copies are counted as if created now")
                .count(),
            usize::from(name == "c04"),
            "{name}: {}",
            r.stderr
        );
    }
}

#[test]
fn capacity_of_a_job_counts_the_podgroup_it_creates() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.yaml");
    std::fs::write(
        &job,
        r#"apiVersion: batch/v1
kind: Job
metadata: {name: sweep, namespace: default}
spec:
  parallelism: 4
  scheduling:
    schedulingPolicy: {gang: {minCount: 4}}
    schedulingConstraints: {topology: [{key: rack}]}
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: registry.example/train:1
          resources: {requests: {nvidia.com/gpu: "2"}, limits: {nvidia.com/gpu: "2"}}
"#,
    )
    .unwrap();
    let folder = root().join("testdata/capacity/c02-gangs-in-one-rack");
    let r = capacity(
        &folder,
        &["--shape".to_owned(), job.display().to_string()],
        &["-o", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    // 4 pods x 2 GPUs = 8 GPUs per copy in one rack, as c02's 8 x 1 GPU, except that a pod
    // needs 2 GPUs on one node: r1 (4 free on each of 3 nodes: 2 pods per node) holds 1 copy
    // (4 left), r2 4, r3 (3 free per node: 1 pod per node, 4 in all) 1 → 6.
    assert_eq!(v["target"]["pods"], 4);
    assert_eq!(v["target"]["minCount"], 4);
    assert_eq!(v["copies"], 6, "{}", r.stdout);
}

#[test]
fn capacity_usage_errors_exit_2() {
    let cluster = root().join("testdata/capacity/c01-gangs-anywhere/cluster.yaml");
    let cluster = cluster.to_str().unwrap();
    for (args, needle) in [
        (vec!["capacity", "--from", cluster], "TYPE/NAME"),
        (
            vec!["capacity", "--from", cluster, "pod/train-0"],
            "not a Pod",
        ),
        (vec!["capacity", "--from", cluster, "pg/nope"], "not found"),
        (
            vec!["capacity", "--from", cluster, "pg/train", "--max", "0"],
            "0",
        ),
        (
            vec!["capacity", "--from", cluster, "--shape", cluster],
            "must hold one PodGroup",
        ),
    ] {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.transcript());
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
    }
}

/// A gang looked up in a namespace that does not hold it says where it is (issue 45 item 6:
/// empty results name the scope), for `capacity` as for every command that takes a target.
#[test]
fn a_gang_in_another_namespace_is_named_with_its_namespace() {
    let r = run(&[
        "capacity",
        "--demo",
        "-n",
        "default",
        "pg/big-train-workers",
    ]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "PodGroup `big-train-workers` not found in namespace `default` (it is in namespace `ml`)"
        ) && r.stderr.contains("-n ml"),
        "{}",
        r.stderr
    );
}

/// Issue 45 (ResourceQuota): the exact command of the issue's quota fixture, as `capacity`:
/// `gpu-quota` (8 GPUs, 4 used) leaves 4 GPUs, and a copy of the gang Job needs 8 (4 pods x
/// 2), so the quota allows no copy though one fits on the nodes. The shape itself is a
/// template, never created: it keeps its 4 pods (the quota used to cut it to the 2 pods the
/// Job controller could create, a shape that never fit).
#[test]
fn a_resource_quota_limits_the_copies_of_a_shape() {
    let cluster = "testdata/admission/resource-quota/cluster.yaml";
    let shape = "testdata/admission/jobs/gang-job.yaml";
    let r = run(&["capacity", "--from", cluster, "--shape", shape]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    for line in [
        "  0 more copies fit, 0 with preemption",
        "  1 copy fits on nodes; quota `gpu-quota` (requests.nvidia.com/gpu: 4 used of 8) allows none",
        "What stops the next copy on the nodes (without preemption)",
    ] {
        assert!(r.stdout.lines().any(|l| l == line), "{line}\n{}", r.stdout);
    }
    assert!(!r.stderr.contains("could create"), "{}", r.transcript());
    let r = run(&[
        "capacity", "--from", cluster, "--shape", shape, "-o", "json",
    ]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["target"]["pods"], 4, "{}", r.stdout);
    assert_eq!(
        (&v["copies"], &v["limitedBy"]),
        (&0.into(), &"ResourceQuota".into())
    );
    let q = &v["quotaLimit"];
    assert_eq!(
        (&q["copies"], &q["copiesOnNodes"]),
        (&0.into(), &1.into()),
        "{q}"
    );
    // Without the quota (the c02 cluster has none) no quota key is written.
    let folder = root().join("testdata/capacity/c02-gangs-in-one-rack");
    let shape = root().join(shape).display().to_string();
    let r = capacity(&folder, &["--shape".to_owned(), shape], &["-o", "json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(
        v.get("quotaLimit").is_none() && v.get("limitedBy").is_none(),
        "{}",
        r.stdout
    );
}

/// Pods that a what-if adds hold quota too: `--add` of a 4-GPU pod in namespace `ml` leaves
/// `gpu-quota` of c05 4 GPUs, one copy's worth (the pods are admitted when added, and the
/// copies are counted against what is left).
#[test]
fn pods_added_by_a_what_if_use_up_the_quota_the_copies_are_counted_against() {
    let dir = tempfile::tempdir().unwrap();
    let pod = dir.path().join("pod.yaml");
    std::fs::write(
        &pod,
        r#"apiVersion: v1
kind: Pod
metadata: {name: extra, namespace: ml}
spec:
  containers:
    - name: main
      image: registry.example/x:1
      resources: {requests: {nvidia.com/gpu: "4"}, limits: {nvidia.com/gpu: "4"}}
"#,
    )
    .unwrap();
    let folder = root().join("testdata/capacity/c05-quota-limits-copies");
    let r = capacity(
        &folder,
        &["--shape".to_owned(), "shape.yaml".to_owned()],
        &["--add", pod.to_str().unwrap(), "-o", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["whatIf"]["copiesBefore"], 2, "{}", r.stdout);
    assert_eq!(v["copies"], 1, "{}", r.stdout);
    assert_eq!(v["quotaLimit"]["used"], "12", "{}", r.stdout);
}

#[test]
fn capacity_text_names_the_profile_that_simulated_the_copies() {
    // Issue 48: the copies are simulated by the profile their pods name, and text names it
    // when it is not the default one.
    let folder = root().join("testdata/capacity/c06-binpack-profile");
    let r = capacity(&folder, &args_of(&expected(&folder)), &[]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let first = r.stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains("profile gpu-binpack: MostAllocated on nvidia.com/gpu"),
        "{}",
        r.stdout
    );
    // The default profile's shapes are not labelled.
    let folder = root().join("testdata/capacity/c01-gangs-anywhere");
    let r = capacity(&folder, &["pg/train".to_owned()], &[]);
    assert!(!r.stdout.contains("profile"), "{}", r.stdout);
}
