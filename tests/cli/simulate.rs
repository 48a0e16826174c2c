//! `simulate` on the built binary: the demo's output, the JSON contract, what-ifs and errors.

use crate::support::run;

#[test]
fn demo_simulation_text_is_snapshotted() {
    let r = run(&["simulate", "--demo"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!("demo_simulate_text", r.stdout);
    // With the scheduler's GenericWorkload off, the gangs are taken pod by pod, and the
    // report says so first, above the table.
    let off = run(&[
        "simulate",
        "--demo",
        "--feature-gates",
        "GenericWorkload=false",
    ]);
    assert!(
        off.stdout.lines().nth(1).is_some_and(|l| l.starts_with(
            "warning: gangs are scheduled pod by pod: kube-scheduler runs with GenericWorkload off (set by --feature-gates)"
        )),
        "{}",
        off.stdout
    );
    insta::assert_snapshot!("demo_simulate_gates_off_text", off.stdout);
}

#[test]
fn json_report_keeps_the_documented_keys() {
    let r = run(&[
        "simulate",
        "--demo",
        "--feature-gates",
        "GenericWorkload=true",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(v["kind"], "SimulationReport");
    assert_eq!(v["settings"]["mode"], "exhaustive");
    assert_eq!(v["settings"]["featureGates"]["GenericWorkload"], true);
    for key in ["scheduled", "unschedulable", "waiting", "preempting"] {
        assert!(v["summary"][key].is_u64(), "summary.{key}");
    }
    let units = v["units"].as_array().unwrap();
    let big = units
        .iter()
        .find(|u| u["name"] == "big-train-workers")
        .expect("big-train unit");
    for key in [
        "kind",
        "namespace",
        "name",
        "outcome",
        "message",
        "placements",
        "victims",
    ] {
        assert!(big.get(key).is_some(), "units[].{key}");
    }
    assert_eq!(big["outcome"], "Unschedulable");
    let lost = units
        .iter()
        .find(|u| u["name"] == "lost-0")
        .expect("a pod naming a missing PodGroup is listed");
    assert_eq!(lost["outcome"], "Waiting");
}

#[test]
fn what_ifs_change_the_outcome() {
    let r = run(&[
        "simulate",
        "--demo",
        "--feature-gates",
        "GenericWorkload=true",
        "--add-nodes",
        "2",
        "--like",
        "gpu-b1",
        "--only",
        "pg/big-train-workers",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["units"].as_array().unwrap().len(),
        1,
        "--only keeps one unit"
    );
    assert_eq!(
        v["units"][0]["outcome"], "Scheduled",
        "two more rack-b nodes make room for the gang"
    );
    assert_eq!(v["units"][0]["placements"].as_array().unwrap().len(), 6);
    assert!(
        v["settings"]["whatIf"][0]
            .as_str()
            .unwrap()
            .starts_with("added 2 node(s) like `gpu-b1`")
    );

    let drained = run(&["simulate", "--demo", "--drain", "gpu-a1", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&drained.stdout).unwrap();
    let names: Vec<&str> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"train-a-workers"),
        "train-a's gang on the drained node is pending again: {names:?}"
    );
}

#[test]
fn added_manifests_become_pending_units() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.yaml");
    std::fs::write(
        &path,
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: extra, namespace: ml}\nspec:\n  schedulingPolicy: {gang: {minCount: 1}}\n  priorityClassName: low\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: extra-0, namespace: ml}\nspec:\n  priorityClassName: low\n  schedulingGroup: {podGroupName: extra}\n  containers: [{name: c, image: busybox, resources: {requests: {cpu: '1'}}}]\n",
    )
    .unwrap();
    let r = run(&[
        "simulate",
        "--demo",
        "--feature-gates",
        "GenericWorkload=true",
        "--add",
        path.to_str().unwrap(),
        "--only",
        "pg/extra",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("ml         PodGroup/extra  Scheduled"),
        "{}",
        r.stdout
    );
}

#[test]
fn bad_what_ifs_and_targets_exit_2() {
    let r = run(&["simulate", "--demo", "--drain", "no-such-node"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with("error: node `no-such-node` not found"),
        "{}",
        r.stderr
    );
    let r = run(&["simulate", "--demo", "--only", "workload/train-a"]);
    assert_eq!(r.code, 2);
    let r = run(&["simulate", "--demo", "--only", "pg/train-a-workers"]);
    assert_eq!(r.code, 2, "a running group is not a pending unit");
    assert!(r.stderr.contains("is not a pending unit"), "{}", r.stderr);
    assert_eq!(
        run(&["simulate", "--demo", "--add-nodes", "2"]).code,
        2,
        "--add-nodes needs --like"
    );
}

#[test]
fn compat_mode_runs_and_says_so() {
    let r = run(&["simulate", "--demo", "--mode", "compat", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["settings"]["mode"], "compat");
}

#[test]
fn device_map_lists_every_claim_sharing_a_device() {
    let r = run(&[
        "simulate",
        "--from",
        "testdata/scenarios/x06-consumable-capacity-shares-one-gpu/cluster.yaml",
        "--devices",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let rows: Vec<(&str, &str, bool)> = v["deviceMap"]
        .as_array()
        .expect("deviceMap")
        .iter()
        .map(|d| {
            (
                d["device"].as_str().unwrap_or_default(),
                d["claim"].as_str().unwrap_or_default(),
                d["simulated"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("gpu-0", "default/running-gpu", false),
            ("gpu-0", "default/a-gpu", true),
            ("gpu-0", "default/b-gpu", true),
        ],
        "one row per share of the shared GPU"
    );
    let placed = &v["units"][0]["placements"][0]["devices"][0];
    assert!(
        placed["shareID"].is_string() && placed["consumedCapacity"].is_object(),
        "{placed}"
    );
}

/// A gang in `disruptionMode: single` that loses a member to preemption and falls below its
/// minCount: simulate says what it keeps and holds (text), and `-o json` has it per victim
/// group under `blastRadius.groups[].left`.
#[test]
fn preemption_says_what_a_victim_gang_keeps_below_its_min_count() {
    let cluster = "testdata/scenarios/upstream-wap-single-mode-gang-victim-gang-preemptor-below-mincount/cluster.yaml";
    let r = run(&["simulate", "--from", cluster]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "gang `default/victim-pg` keeps 2 of 3 running, below its minCount 3: its remaining pods make no progress"
        ),
        "{}",
        r.stdout
    );
    let r = run(&["simulate", "--from", cluster, "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let unit = &v["units"][0];
    assert_eq!(
        unit["blastRadius"]["groups"][0],
        serde_json::json!({"group": "PodGroup/default/victim-pg", "evicted": 1,
            "left": {"running": 2, "minCount": 3}}),
        "no GPUs held: `holds` omitted"
    );
}

/// An empty result names the scope that emptied it, as kubectl does (issue 45 item 6): a
/// namespace with nothing pending says how much is pending elsewhere; a selector that matches
/// nothing says so; neither claims that every pod is bound.
#[test]
fn empty_results_name_the_namespace_or_the_selector() {
    let r = run(&["simulate", "--demo", "-n", "default"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "No pending units in namespace default (8 pending in other namespaces; use -A)."
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("every pod is bound"), "{}", r.stdout);
    let r = run(&["simulate", "--demo", "-n", "ml", "-l", "app=nothing"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("No pending units match the selector app=nothing (6 pending without it)."),
        "{}",
        r.stdout
    );
}

/// DRA node-allocatable resources (KEP-5517), the documentation's CPU driver: with
/// DRANodeAllocatableResources on (the fixture's facts) the second pod's mapped CPUs do not fit
/// beside the running pod's recorded 120; `--feature-gates DRANodeAllocatableResources=false`
/// (the 1.37 default) charges nothing and both fit. The header lists the gate.
#[test]
fn node_allocatable_resources_charge_claims_cpu_to_their_pods() {
    let cluster = "testdata/scenarios/x12-dra-cpu-driver-mapping-counts-on-the-node/cluster.yaml";
    let r = run(&["simulate", "--from", cluster]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("DRANodeAllocatableResources=on"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("0/1 nodes are available: 1 Insufficient cpu."),
        "{}",
        r.stdout
    );
    let off = run(&[
        "simulate",
        "--from",
        cluster,
        "--feature-gates",
        "DRANodeAllocatableResources=false",
        "-o",
        "json",
    ]);
    assert_eq!(off.code, 0, "{}", off.stderr);
    let v: serde_json::Value = serde_json::from_str(&off.stdout).unwrap();
    assert_eq!(
        v["settings"]["featureGates"]["DRANodeAllocatableResources"],
        false
    );
    assert_eq!(v["summary"]["scheduled"], 2, "{}", off.stdout);
}

/// DRA binding conditions: the documentation's slice places the pod with its binding waiting for
/// `dra.example.com/is-prepared` (text `binding:` line; JSON `bindingConditions`,
/// `bindingTimeoutSeconds`, `bindsToNode` in the placement and the device map); a claim whose
/// binding failure condition is True is listed as failed and its pod scheduled again.
#[test]
fn binding_conditions_wait_and_failed_bindings_reschedule() {
    let cluster = "testdata/scenarios/x18-dra-binding-conditions-slice/cluster.yaml";
    let r = run(&["simulate", "--from", cluster]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "binding: Pod/default/a: pod a is placed on node-3, its binding waits up to 600 s (DynamicResources bindingTimeout) for dra.example.com/is-prepared on dra.example.com/gpu-pool/gpu-1"
        ),
        "{}",
        r.stdout
    );
    let r = run(&["simulate", "--from", cluster, "--devices", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let placement = &v["units"][0]["placements"][0];
    assert_eq!(placement["bindingTimeoutSeconds"], 600);
    assert_eq!(
        placement["devices"][0]["bindingConditions"],
        serde_json::json!(["dra.example.com/is-prepared"])
    );
    assert_eq!(placement["devices"][0]["bindsToNode"], true);
    assert_eq!(v["deviceMap"][0]["bindsToNode"], true, "{}", v["deviceMap"]);
    let failed = "testdata/scenarios/upstream-dra-binding-failure-reschedules-taints/cluster.yaml";
    let r = run(&["simulate", "--from", failed]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "binding failed: claim default/claim-a (dra.example.com/worker-0-with-binding/with-binding: failed is True): the scheduler clears its allocation and pod(s) a go back to scheduling"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("worker-1"), "{}", r.stdout);
}

/// `--add` of an object named like one of the snapshot's replaces it and says so on stderr
/// (issue 46 item 6: a Node named like an existing one was replaced silently), whatever the
/// output format; an added object with a new name says nothing.
#[test]
fn an_added_node_named_like_an_existing_one_is_reported_as_replaced() {
    let file = "testdata/whatif/gpu-a1-replacement.yaml";
    for output in ["text", "json"] {
        let r = run(&["simulate", "--demo", "--add", file, "-o", output]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stderr.contains("note: replaced Node/gpu-a1"),
            "{output}: {}",
            r.stderr
        );
        assert_eq!(r.stderr.matches("replaced").count(), 1, "{}", r.stderr);
    }
    let r = run(&[
        "simulate",
        "--demo",
        "--add",
        "testdata/admission/jobs/gang-job.yaml",
    ]);
    assert!(!r.stderr.contains("replaced"), "{}", r.stderr);
}

/// Issue 45 item 3: `--add-nodes 1 --like gpu-n1` copies the node's node-local ResourceSlice
/// (a pool of its own for the copy), so the DRA gang of 4 one-GPU pods that fits only 3 on
/// the 3 GPU nodes is Scheduled with one more node; the what-if line says what was copied.
#[test]
fn added_nodes_carry_their_devices_so_a_dra_gang_fits() {
    let cluster = "testdata/explain/m12-dra-gang-needs-one-more-gpu-node/cluster.yaml";
    let before = run(&["simulate", "--from", cluster, "-o", "json"]);
    assert_eq!(before.code, 0, "{}", before.stderr);
    let v: serde_json::Value = serde_json::from_str(&before.stdout).unwrap();
    assert_eq!(v["units"][0]["outcome"], "Unschedulable", "{v:#}");
    let r = run(&[
        "simulate",
        "--from",
        cluster,
        "--add-nodes",
        "1",
        "--like",
        "gpu-n1",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let unit = &v["units"][0];
    assert_eq!(unit["outcome"], "Scheduled", "{v:#}");
    let nodes: Vec<&str> = unit["placements"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["node"].as_str())
        .collect();
    assert!(nodes.contains(&"gpu-n1-sim-1"), "{nodes:?}");
    let what_if = v["settings"]["whatIf"][0].as_str().unwrap_or_default();
    assert!(
        what_if.starts_with("added 1 node(s) like `gpu-n1`: gpu-n1-sim-1; each with a copy of its 1 node-local ResourceSlice(s)"),
        "{what_if}"
    );
}

#[test]
fn pods_of_another_scheduler_are_counted_once_per_scheduler() {
    let cluster = "testdata/scenarios/x21-pods-of-another-scheduler-are-not-simulated/cluster.yaml";
    let r = run(&["simulate", "--from", cluster]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("scheduled by `volcano`, not simulated: 2 pods"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("scheduled by `yunikorn`, not simulated: 1 pod\n"),
        "{}",
        r.stdout
    );
    // Not row by row: the table lists the simulated unit only.
    assert!(!r.stdout.contains("PodGroup/vc-gang"), "{}", r.stdout);
    assert!(r.stdout.contains(", 2 not simulated"), "{}", r.stdout);
}

/// `simulate` text on a scenario folder with its `scheduler-config.yaml`.
fn simulate_scenario(folder: &str) -> crate::support::Run {
    let dir = crate::support::root()
        .join("testdata/scenarios")
        .join(folder);
    let cluster = dir.join("cluster.yaml").display().to_string();
    let config = dir.join("scheduler-config.yaml").display().to_string();
    crate::support::run(&[
        "simulate",
        "-A",
        "--from",
        &cluster,
        "--scheduler-config",
        &config,
    ])
}

#[test]
fn text_names_each_units_profile_when_a_unit_ran_under_another_one() {
    // Issue 48: the profiles' scoring above the table, and a PROFILE column per unit.
    let r = simulate_scenario("x22-second-profile-packs-gpus");
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("profile gpu-binpack: MostAllocated on nvidia.com/gpu"),
        "{}",
        r.stdout
    );
    let row = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(r.stdout.contains("PROFILE"), "{}", r.stdout);
    assert!(row("Pod/train").contains("gpu-binpack"), "{}", r.stdout);
    assert!(
        row("Pod/serve").contains("default-scheduler"),
        "{}",
        r.stdout
    );
    // The default profile alone: no column.
    let d = crate::support::run(&["simulate", "--demo"]);
    assert!(!d.stdout.contains("PROFILE"), "{}", d.stdout);
}

#[test]
fn a_binding_that_outlived_its_timeout_is_reported_in_text() {
    // upstream TimeoutRecovery: the 5 s bindingTimeout passed, the allocation is cleared.
    let r = simulate_scenario("upstream-dra-binding-timeout-recovery");
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains(
            "binding timed out: claim default/claim-timeout (its binding conditions were not all True 5 s after its allocation"
        ),
        "{}",
        r.stdout
    );
}

/// Issue 51: a node without `status` made every pod `Insufficient cpu` with no hint; the
/// loader now names the node and the `status.allocatable` it lacks (and `-q` drops it).
#[test]
fn a_node_without_status_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bare.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Node\nmetadata: {name: bare}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: '1'}}}]\n",
    )
    .unwrap();
    let path = file.display().to_string();
    let r = run(&["simulate", "--from", &path]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("Insufficient cpu"), "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "warning: 1 node without `status.allocatable`: `bare` offers no cpu, memory or pods"
        ),
        "{}",
        r.stderr
    );
    let q = run(&["simulate", "--from", &path, "-q"]);
    assert_eq!((q.code, q.stderr.as_str()), (0, ""), "{}", q.transcript());
}

/// Issue 51: the JSON had empty keys (`"warnings": []`) that docs/json.md says are omitted.
#[test]
fn empty_warnings_and_assumptions_are_omitted_from_the_json() {
    for args in [
        &["simulate", "--demo", "-o", "json"][..],
        &["doctor", "--demo", "-o", "json"],
        &["tree", "--demo", "-o", "json"],
    ] {
        let r = run(args);
        assert_eq!(r.code, 0, "{}", r.transcript());
        assert!(!r.stdout.contains("\"warnings\": []"), "{args:?}");
        assert!(!r.stdout.contains("\"assumed\": []"), "{args:?}");
    }
    // The demo has no loader warnings: the key is absent, not empty.
    let r = run(&["simulate", "--demo", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v.get("warnings").is_none(), "{}", r.stdout);
}
