//! `tree`: snapshot tests of the rendered output for every cluster in testdata/clusters/,
//! targets of every kind, and usage errors.

use crate::support::{files_in, root, run};

#[test]
fn tree_of_every_cluster_fixture_is_snapshotted() {
    let clusters = files_in(&root().join("testdata/clusters"), &["yaml", "yml", "json"]);
    assert!(!clusters.is_empty());
    for cluster in clusters {
        let stem = cluster
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name")
            .to_owned();
        let path = cluster.to_str().expect("utf-8 path");
        let text = run(&["tree", "-A", "--from", path]);
        assert_eq!(text.code, 0, "{}", text.stderr);
        insta::assert_snapshot!(format!("{stem}_text"), text.stdout);
        let json = run(&["tree", "-A", "--from", path, "-o", "json"]);
        assert_eq!(json.code, 0, "{}", json.stderr);
        insta::assert_snapshot!(format!("{stem}_json"), json.stdout);
    }
}

#[test]
fn demo_flag_and_demo_file_print_the_same_tree() {
    let from_flag = run(&["tree", "-A", "--demo"]);
    let from_file = run(&["tree", "-A", "--from", "testdata/clusters/demo.yaml"]);
    assert_eq!(from_flag.code, 0);
    assert_eq!(from_flag.stdout, from_file.stdout);
}

#[test]
fn pod_target_shows_the_path_up_to_its_workload_only() {
    let r = run(&["tree", "--demo", "pod/pipeline-decode-1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!(r.stdout);
    assert!(
        !r.stdout.contains("pipeline-decode-0"),
        "siblings are pruned"
    );
    assert!(!r.stdout.contains("prefill"), "other branches are pruned");
}

#[test]
fn targets_of_every_kind_resolve() {
    for target in [
        "workload/train-a",
        "wl/train-a",
        "compositepodgroup/pipeline",
        "cpg/pipeline",
        "podgroup/train-a-workers",
        "pg/infer-b",
        "podgroups.scheduling.k8s.io/notebook",
        "job/train-a",
        "resourceclaim/pipeline-decode-kv-x7k2p",
        "pod/lost-0",
    ] {
        let r = run(&["tree", "--demo", target, "-o", "json"]);
        assert_eq!(r.code, 0, "{target}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
        assert_eq!(v["kind"], "Tree");
        let name = target.rsplit('/').next().unwrap();
        assert!(
            r.stdout.contains(&format!("\"name\": \"{name}\"")),
            "{target} appears in its own tree"
        );
    }
}

#[test]
fn job_target_shows_the_job_above_its_workload() {
    let r = run(&["tree", "--demo", "job/train-a"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].starts_with("kube-scheduler feature gates:"));
    assert!(lines[2].contains("Job/train-a"), "{}", r.stdout);
    assert!(lines[3].contains("└─ Workload/train-a"), "{}", r.stdout);
}

#[test]
fn dangling_references_are_marked() {
    let r = run(&["tree", "--demo", "pod/lost-0"]);
    assert!(
        r.stdout
            .contains("✗ missing schedulingGroup: PodGroup `lost-group`"),
        "{}",
        r.stdout
    );
}

#[test]
fn namespace_flag_limits_the_roots() {
    let r = run(&["tree", "--demo", "-n", "research", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let roots = v["roots"].as_array().expect("roots");
    assert!(!roots.is_empty());
    assert!(roots.iter().all(|r| r["namespace"] == "research"));
}

#[test]
fn unknown_target_type_and_missing_object_exit_2_with_a_hint() {
    let r = run(&["tree", "--demo", "deployment/x"]);
    assert_eq!(r.code, 2);
    insta::assert_snapshot!(r.stderr, @r"
    error: unknown type `deployment` in `deployment/x`

    hint: write `TYPE/NAME` with TYPE one of `workload`, `compositepodgroup` (`cpg`), `podgroup` (`pg`), `pod`, `job`, `resourceclaim`, `node`, or Kueue's `workloads.kueue.x-k8s.io` (`kwl`), `clusterqueue` (`cq`), `localqueue` (`lq`), `resourceflavor` (`rf`), `cohort`, or Volcano's `podgroups.scheduling.volcano.sh` (`vcpg`) and `jobs.batch.volcano.sh` (`vcjob`), or a YuniKorn `taskgroup/APP_ID:TASK_GROUP` (`tg`)
    ");
    let r = run(&["tree", "--demo", "pg/nope"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with("error: PodGroup `nope` not found"),
        "{}",
        r.stderr
    );
}

#[test]
fn colors_only_when_asked_or_on_a_terminal() {
    let plain = run(&["tree", "--demo", "pod/lost-0"]);
    assert!(!plain.stdout.contains('\u{1b}'));
    let forced = run(&["tree", "--demo", "pod/lost-0", "--color", "always"]);
    assert!(forced.stdout.contains("\u{1b}["));
}

#[test]
fn control_characters_in_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evil.yaml");
    std::fs::write(
        &path,
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: \"evil\\e[2J\\a\"\n  namespace: ml\nspec:\n  schedulingPolicy:\n    basic: {}\n",
    )
    .unwrap();
    let r = run(&["tree", "-A", "--from", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains('\u{1b}'), "{:?}", r.stdout);
    assert!(r.stdout.contains("evil\\x1b[2J\\x07"), "{}", r.stdout);
}

#[test]
fn yaml_output_is_the_json_report_with_the_envelope_first() {
    let yaml = run(&["tree", "-A", "--demo", "-o", "yaml"]);
    assert!(
        yaml.stdout
            .starts_with("apiVersion: wasctl.dev/v1alpha1\nkind: Tree\n"),
        "{}",
        &yaml.stdout[..80]
    );
    let json = run(&["tree", "-A", "--demo", "-o", "json"]);
    let from_yaml: serde_json::Value = serde_saphyr::from_str(&yaml.stdout).unwrap();
    let from_json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(from_yaml, from_json);
}

/// Parent references that loop (`self` → `self`, `a` → `b` → `a`) end with a note in `tree`,
/// are one finding each in `doctor` (WASD013) and `lint` (WAS313): nothing recurses forever.
#[test]
fn parent_reference_cycles_end_and_are_reported() {
    let file = "testdata/cycles/parent-cycles.yaml";
    let r = run(&["tree", "--from", file, "-A"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("(reference cycle: a → b → a)")
            && r.stdout.contains("(reference cycle: self → self)")
            && r.stdout.contains("PodGroup/leaf"),
        "{}",
        r.stdout
    );
    // The chain up from a PodGroup under the loop ends too.
    let r = run(&["tree", "--from", file, "pg/leaf", "-n", "ml"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("└─ PodGroup/leaf"), "{}", r.stdout);

    let r = run(&["doctor", "--from", file, "-A", "-o", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let cycles: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "WASD013")
        .map(|f| f["object"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(cycles, ["a", "self"], "{}", r.stdout);

    let r = run(&[
        "lint",
        "testdata/manifests/lint/bad/WAS313-parent-cycle.yaml",
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert_eq!(r.stdout.matches("WAS313 error").count(), 2, "{}", r.stdout);
}

/// `--no-simulate`: the same tree with the recorded status only. Every line of the simulated
/// tree is there, the SIMULATED column and the `simulated` keys are not, and nothing else
/// differs (the demo has pending groups, so the simulated tree does show them).
#[test]
fn no_simulate_shows_the_recorded_tree_without_the_simulated_column() {
    let with = run(&["tree", "-A", "--demo", "-o", "json"]);
    let without = run(&["tree", "-A", "--demo", "-o", "json", "--no-simulate"]);
    assert_eq!((with.code, without.code), (0, 0), "{}", without.stderr);
    assert!(with.stdout.contains("\"simulated\""));
    assert!(
        !without.stdout.contains("\"simulated\""),
        "{}",
        without.stdout
    );
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("simulated");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut a: serde_json::Value = serde_json::from_str(&with.stdout).expect("json");
    let mut b: serde_json::Value = serde_json::from_str(&without.stdout).expect("json");
    strip(&mut a);
    strip(&mut b);
    assert_eq!(a["roots"], b["roots"]);
    let text = run(&["tree", "-A", "--demo", "--no-simulate"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(run(&["tree", "-A", "--demo"]).stdout.contains("SIMULATED"));
    assert!(!text.stdout.contains("SIMULATED"), "{}", text.stdout);
}

/// An empty tree names the scope that emptied it, as `simulate` does (issue 45 item 6): the
/// namespace, with how many trees the others hold, or the selector.
#[test]
fn an_empty_tree_names_the_namespace_or_the_selector() {
    let r = run(&["tree", "--demo", "-n", "default"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("No Workloads, PodGroups or CompositePodGroups"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        line.starts_with("No Workloads, PodGroups or CompositePodGroups in namespace default (")
            && line.ends_with(" in other namespaces; use -A)."),
        "{line}"
    );
    let r = run(&["tree", "--demo", "-A", "-l", "app=nothing"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "No Workloads, PodGroups or CompositePodGroups match the selector app=nothing ("
        ),
        "{}",
        r.stdout
    );
}
