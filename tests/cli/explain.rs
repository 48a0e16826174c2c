//! `explain`: verdicts, findings with numbers, verified fixes, the JSON contract and exit codes.

use crate::support::run;

const ON: [&str; 2] = ["--feature-gates", "GenericWorkload=true"];

#[test]
fn demo_explanations_are_snapshotted() {
    for target in [
        "pg/big-train-workers",
        "pg/urgent",
        "pod/lost-0",
        "pg/infer-b",
        "pg/train-a-workers",
    ] {
        let r = run(&["explain", "--demo", target, ON[0], ON[1]]);
        assert_eq!(r.code, 0, "{target}: {}", r.stderr);
        insta::assert_snapshot!(format!("explain_{}", target.replace('/', "_")), r.stdout);
    }
    let off = run(&[
        "explain",
        "--demo",
        "pg/big-train-workers",
        "--feature-gates",
        "GenericWorkload=false",
    ]);
    insta::assert_snapshot!("explain_pg_big-train-workers_gate_off", off.stdout);
}

#[test]
fn topology_gang_gets_domain_numbers_and_verified_fixes() {
    let r = run(&[
        "explain",
        "--demo",
        "pg/big-train-workers",
        ON[0],
        ON[1],
        "-o",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(v["kind"], "Diagnosis");
    assert_eq!(v["target"], "PodGroup/ml/big-train-workers");
    assert_eq!(v["verdict"], "Unschedulable");
    assert_eq!(v["fit"]["minCount"], 6);
    assert_eq!(v["fit"]["placeable"], 4);
    let domains = v["fit"]["domains"].as_array().unwrap();
    assert_eq!(domains.len(), 3);
    for d in domains {
        assert!(d["key"].is_string() && d["value"].is_string() && d["placeable"].is_u64());
    }
    assert_eq!(v["nodeReasons"]["Insufficient nvidia.com/gpu"], 2);
    let f = &v["findings"][0];
    for key in ["id", "severity", "title", "detail"] {
        assert!(f.get(key).is_some(), "findings[].{key}");
    }
    let fixes: Vec<&str> = v["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        fixes.contains(&"lower minCount of PodGroup big-train-workers to 4"),
        "{fixes:?}"
    );
    assert!(
        fixes
            .iter()
            .any(|f| f.starts_with("add 1 node(s) like gpu-b")),
        "{fixes:?}"
    );

    // The fixes really work: apply one with simulate's what-ifs.
    let sim = run(&[
        "simulate",
        "--demo",
        ON[0],
        ON[1],
        "--add-nodes",
        "1",
        "--like",
        "gpu-b1",
        "--only",
        "pg/big-train-workers",
        "-o",
        "json",
    ]);
    let s: serde_json::Value = serde_json::from_str(&sim.stdout).unwrap();
    assert_eq!(s["units"][0]["outcome"], "Scheduled");
}

#[test]
fn preemption_verdict_carries_the_blast_radius() {
    let r = run(&["explain", "--demo", "pg/urgent", ON[0], ON[1], "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["verdict"], "NeedsPreemption");
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "WASE030")
        .expect("preemption finding");
    assert_eq!(f["evidence"]["gpusFreed"], 16);
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains("batch-low-0 on gpu-c1")
    );
}

#[test]
fn exit_code_flag_and_targets_of_every_kind() {
    assert_eq!(
        run(&[
            "explain",
            "--demo",
            "pg/urgent",
            ON[0],
            ON[1],
            "--exit-code"
        ])
        .code,
        1
    );
    assert_eq!(
        run(&[
            "explain",
            "--demo",
            "pg/infer-b",
            ON[0],
            ON[1],
            "--exit-code"
        ])
        .code,
        0
    );
    assert_eq!(
        run(&["explain", "--demo", "pg/urgent", ON[0], ON[1]]).code,
        0,
        "without --exit-code"
    );
    for target in [
        "workload/big-train",
        "job/big-train",
        "pod/big-train-0",
        "cpg/pipeline",
    ] {
        let r = run(&["explain", "--demo", target, ON[0], ON[1], "-o", "json"]);
        assert_eq!(r.code, 0, "{target}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(
            v["kind"] == "Diagnosis" || v["kind"] == "DiagnosisList",
            "{target}"
        );
    }
    let r = run(&["explain", "--demo", "resourceclaim/stale-claim"]);
    assert_eq!(r.code, 2);
}

/// One fixture per failure mode of operations.md: `testdata/explain/<mode>/` holds
/// `cluster.yaml` and `expected.yaml` (`target`, `verdict`, the finding IDs that must appear,
/// optional `outcome` (simulate's word, issue #45), severities, finding title substrings,
/// finding IDs that must not appear, and fix substrings).
#[test]
fn every_failure_mode_fixture_explains_as_expected() {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Expected {
        target: String,
        verdict: String,
        findings: Vec<String>,
        #[serde(default)]
        severity: std::collections::BTreeMap<String, String>,
        #[serde(default)]
        fixes_contain: Vec<String>,
        #[serde(default)]
        outcome: Option<String>,
        #[serde(default)]
        titles_contain: std::collections::BTreeMap<String, String>,
        #[serde(default)]
        absent: Vec<String>,
    }
    let dir = crate::support::root().join("testdata/explain");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert!(names.len() >= 8);
    for folder in names {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let e: Expected =
            serde_saphyr::from_str(&std::fs::read_to_string(folder.join("expected.yaml")).unwrap())
                .unwrap();
        let cluster = folder.join("cluster.yaml");
        let r = run(&[
            "explain",
            "--from",
            cluster.to_str().unwrap(),
            &e.target,
            "-o",
            "json",
        ]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["verdict"], e.verdict.as_str(), "{name}: {:#}", v);
        let ids: Vec<&str> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_str().unwrap())
            .collect();
        for want in &e.findings {
            assert!(
                ids.contains(&want.as_str()),
                "{name}: finding {want} missing from {ids:?}\n{:#}",
                v
            );
        }
        if let Some(outcome) = &e.outcome {
            assert_eq!(v["outcome"], outcome.as_str(), "{name}: {:#}", v);
        }
        for id in &e.absent {
            assert!(
                !ids.contains(&id.as_str()),
                "{name}: {id} in {ids:?}\n{:#}",
                v
            );
        }
        for (id, want) in &e.titles_contain {
            let titles: Vec<&str> = v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["id"] == id.as_str())
                .map(|f| f["title"].as_str().unwrap())
                .collect();
            assert!(
                titles.iter().any(|t| t.contains(want.as_str())),
                "{name}: no {id} title contains {want:?}: {titles:?}"
            );
        }
        for (id, sev) in &e.severity {
            let f = v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["id"] == id.as_str())
                .unwrap();
            assert_eq!(f["severity"], sev.as_str(), "{name}: {id}");
        }
        // `fixes` is omitted when there is none.
        let fixes: Vec<&str> = v["fixes"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        for want in &e.fixes_contain {
            assert!(
                fixes.iter().any(|f| f.contains(want.as_str())),
                "{name}: no fix contains {want:?}: {fixes:?}"
            );
        }
    }
}

/// A topology-constrained gang that preempts (newest 1.37): explain names the domain it would
/// preempt in, from the plan's trace, in the text and in the finding's JSON evidence (the blast
/// radius keys kept, `domain` and `victimPodsInDomain` added).
#[test]
fn topology_gang_preemption_names_its_domain() {
    let cluster = crate::support::root()
        .join("testdata/explain/m03b-topology-gang-preempts-in-one-rack/cluster.yaml");
    let cluster = cluster.to_str().unwrap();
    let r = run(&["explain", "--from", cluster, "pg/high", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["verdict"], "NeedsPreemption");
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "WASE030")
        .unwrap();
    assert_eq!(
        f["title"],
        "preemption would evict 3 pod(s) in rack=r2 to make room"
    );
    assert_eq!(
        f["evidence"]["domain"],
        serde_json::json!([{"key": "rack", "value": "r2"}])
    );
    assert_eq!(f["evidence"]["victimPodsInDomain"], 3);
    assert_eq!(f["evidence"]["victimPods"], 3);
    let text = run(&["explain", "--from", cluster, "pg/high"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    insta::assert_snapshot!("explain_topology_gang_preempts_in_one_rack", text.stdout);
}

/// Issue #45, item 4: a gang of 7 on 6 GPUs (testdata/explain/m12): 6 members are placed and
/// rolled back, only llm-6 finds no device. explain's claim finding (WASE023) and lint
/// `--feasibility`'s WAS312 name llm-6's claim only, never the claims of the members that were
/// placed (whose attempts were also rejected on the node without GPUs).
#[test]
fn claim_findings_name_only_the_members_that_failed() {
    let cluster = crate::support::root()
        .join("testdata/explain/m12-only-the-failed-members-claims/cluster.yaml");
    let cluster = cluster.to_str().unwrap();
    let r = run(&["explain", "--from", cluster, "pg/llm", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let claims: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "WASE023")
        .map(|f| f["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        claims,
        ["claim `llm-6-gpu` cannot be allocated for pod llm-6"],
        "{v:#}"
    );
    let r = run(&[
        "lint",
        "--from",
        cluster,
        "--feasibility",
        cluster,
        "-o",
        "github",
    ]);
    let was312: Vec<&str> = r.stdout.lines().filter(|l| l.contains("WAS312")).collect();
    assert_eq!(was312.len(), 1, "{}", r.transcript());
    assert!(was312[0].contains("claim `llm-6-gpu`"), "{}", was312[0]);
    for placed in 0..6 {
        let claim = format!("llm-{placed}-gpu");
        assert!(!was312[0].contains(&claim), "{}", was312[0]);
    }
}

/// Issue #45, items 4 and 5: one word per unit. The demo's urgent gang preempts: explain's
/// text says `Preempting` as simulate and tree do, its JSON keeps `verdict: NeedsPreemption` and
/// adds `outcome: Preempting`, and what does not fit before the preemption is not an error.
#[test]
fn explain_says_simulates_word_and_a_successful_preemption_is_no_error() {
    let r = run(&["explain", "--demo", "pg/urgent"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("PodGroup/ml/urgent: Preempting"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("NeedsPreemption"), "{}", r.stdout);
    assert!(!r.stdout.contains("error WASE021"), "{}", r.stdout);
    assert!(!r.stdout.contains("error WASE02"), "{}", r.stdout);
    let r = run(&["explain", "--demo", "pg/urgent", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["verdict"], "NeedsPreemption");
    assert_eq!(v["outcome"], "Preempting");
    let sim = run(&["simulate", "--demo", "-o", "json"]);
    let s: serde_json::Value = serde_json::from_str(&sim.stdout).unwrap();
    let unit = s["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "urgent")
        .unwrap();
    assert_eq!(unit["outcome"], v["outcome"]);
    // A unit that is already running has no outcome of its own: the text says Scheduled.
    let r = run(&["explain", "--demo", "pg/train-a-workers", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["verdict"], "Scheduled");
    assert!(v.get("outcome").is_none(), "{v:#}");
}

/// Issue #45, item 4: a gang held at PreEnqueue (testdata/explain/m01: minCount 4, 2 pods)
/// was never tried: explain says how many members it waits for and how many of those it has
/// would fit, never "0 member(s) fit at once"; simulate's MIN (and JSON `minCount`) is 4.
#[test]
fn a_gang_held_at_pre_enqueue_says_how_many_would_fit() {
    let cluster = crate::support::root()
        .join("testdata/explain/m01-members-pending-fewer-pods-than-min-count/cluster.yaml");
    let cluster = cluster.to_str().unwrap();
    let r = run(&["explain", "--from", cluster, "pg/train"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("waiting for 2 more members (2 known); once they exist, 2 would fit"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("0 member(s) fit"), "{}", r.stdout);
    assert!(
        r.stdout.contains("PodGroup/default/train: Waiting"),
        "{}",
        r.stdout
    );
    let r = run(&["simulate", "--from", cluster]);
    let row = r
        .stdout
        .lines()
        .find(|l| l.contains("PodGroup/train"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    let cells: Vec<&str> = row
        .split_whitespace()
        .skip_while(|c| !c.starts_with("PodGroup/"))
        .collect();
    assert_eq!(
        &cells[..4],
        ["PodGroup/train", "Waiting", "0/2", "4"],
        "{row}"
    );
    let r = run(&["simulate", "--from", cluster, "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let unit = &v["units"][0];
    assert_eq!(unit["minCount"], 4, "{unit}");
    assert_eq!(unit["known"], 2, "{unit}");
}

/// Issue #45, item 4: the demo's CompositePodGroup `pipeline` runs 4 pods in 2 child groups
/// with minGroupCount 2: explain counts child groups against minGroupCount, never pods.
#[test]
fn a_composite_pod_group_counts_child_groups_not_pods() {
    let r = run(&["explain", "--demo", "cpg/pipeline"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("WASE010 2 of 2 child group(s) running, minGroupCount 2"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("member(s) running"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("2 child group(s) fit at once (ignoring preemption), minGroupCount 2"),
        "{}",
        r.stdout
    );
}

#[test]
fn explain_names_the_profile_and_its_scoring_strategy() {
    // Issue 48: explain's score explanation names the strategy of the unit's profile, in text
    // and JSON; a unit of the default profile names none.
    let folder = crate::support::root().join("testdata/scenarios/x22-second-profile-packs-gpus");
    let (cluster, config) = (
        folder.join("cluster.yaml").display().to_string(),
        folder.join("scheduler-config.yaml").display().to_string(),
    );
    let base = ["explain", "--from", &cluster, "--scheduler-config", &config];
    let r = run(&[&base[..], &["pod/train", "-n", "ml"]].concat());
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("profile gpu-binpack: MostAllocated on nvidia.com/gpu: NodeResourcesFit scores nodes with this strategy"),
        "{}",
        r.stdout
    );
    let j = run(&[&base[..], &["pod/train", "-n", "ml", "-o", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["profile"], "gpu-binpack", "{}", j.stdout);
    assert_eq!(
        v["scoring"],
        "profile gpu-binpack: MostAllocated on nvidia.com/gpu"
    );
    let d = run(&[&base[..], &["pod/serve", "-n", "ml", "-o", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&d.stdout).unwrap();
    assert!(
        v.get("profile").is_none() && v.get("scoring").is_none(),
        "{}",
        d.stdout
    );
}
