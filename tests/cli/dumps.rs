//! Real-world input: a dump as `kubectl get nodes,pods,podgroups -A -o yaml` (and `-o json`)
//! prints it — a `kind: List` of API-server objects with managedFields, nodeInfo and status,
//! no wasctl ClusterFacts, and only the kinds it was asked for. Every command must give the
//! same answer a complete snapshot would, say once what it could not check, and never report
//! a reference into a kind the dump lacks as dangling.

use crate::support::run;

const DUMPS: [&str; 2] = [
    "testdata/dumps/kubectl-get-list.yaml",
    "testdata/dumps/kubectl-get-list.json",
];

#[test]
fn gangs_in_a_kubectl_get_dump_are_scheduled_as_gangs() {
    for dump in DUMPS {
        let r = run(&["simulate", "--from", dump]);
        assert_eq!(r.code, 0, "{dump}: {}", r.transcript());
        let first = r.stdout.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("kube-scheduler feature gates:")
                && first.contains("GenericWorkload=on"),
            "{dump}: {first}"
        );
        // PodGroups are units (all-or-nothing), not pods one by one.
        assert!(
            r.stdout
                .contains("ml         PodGroup/big    Unschedulable  0/3     3"),
            "{}",
            r.stdout
        );
        assert!(
            r.stdout.contains("research   PodGroup/small  Scheduled"),
            "{}",
            r.stdout
        );
        assert!(!r.stdout.contains("Pod/big-"), "{}", r.stdout);
        // Why the gates are on, and what the dump lacks: once, on stderr.
        assert!(
            r.stderr.contains(
                "kube-scheduler GenericWorkload on: assumed equal to kube-apiserver's, which is inferred from 3 PodGroups in scheduling.k8s.io/v1beta1, 9 pods with spec.schedulingGroup"
            ),
            "{}",
            r.stderr
        );
        assert_eq!(
            r.stderr.matches("the input is incomplete").count(),
            1,
            "{}",
            r.stderr
        );
        for missing in ["no Jobs", "no PriorityClasses", "no ResourceClaimTemplates"] {
            assert!(r.stderr.contains(missing), "{missing}: {}", r.stderr);
        }
        assert!(
            r.stderr.contains("ages are relative to the wall clock"),
            "{}",
            r.stderr
        );
        // A running pod whose claim is not in the dump is not "stuck".
        assert!(!r.stdout.contains("stuck:"), "{}", r.stdout);
        assert!(
            !r.stdout.contains("warning:") && !r.stdout.contains("assumed:"),
            "{}",
            r.stdout
        );
    }
}

#[test]
fn the_scheduler_gate_from_the_flag_says_pod_by_pod_first() {
    let r = run(&[
        "simulate",
        "--from",
        DUMPS[0],
        "--feature-gates",
        "GenericWorkload=false",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let second = r.stdout.lines().nth(1).unwrap_or_default();
    assert!(
        second.starts_with("warning: gangs are scheduled pod by pod: kube-scheduler runs with GenericWorkload off (set by --feature-gates)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Pod/big-0"), "{}", r.stdout);
}

#[test]
fn doctor_reports_no_dangling_reference_into_kinds_the_dump_lacks() {
    for dump in DUMPS {
        let r = run(&["doctor", "--from", dump, "-o", "json"]);
        assert_eq!(r.code, 0, "{}", r.transcript());
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["summary"]["error"], 0, "{}", r.stdout);
        assert_eq!(v["summary"]["warning"], 0, "{}", r.stdout);
        let warnings = v["warnings"].as_array().unwrap();
        assert!(
            warnings.iter().any(|w| w["code"] == "IncompleteInput"),
            "{}",
            r.stdout
        );
    }
}

#[test]
fn explain_agrees_with_simulate_on_a_dump() {
    let r = run(&[
        "explain", "pg", "big", "-n", "ml", "--from", DUMPS[0], "-o", "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["verdict"], "Unschedulable");
    assert_eq!(v["fit"]["minCount"], 3);
    for f in v["findings"].as_array().unwrap() {
        assert_ne!(f["id"], "WASE003", "no dangling-reference cause: {f}");
    }
    let r = run(&[
        "explain", "pg/small", "-n", "research", "--from", DUMPS[0], "-o", "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["verdict"], "Schedulable");
    for f in v["findings"].as_array().unwrap() {
        assert_ne!(
            f["severity"], "error",
            "a schedulable unit has no error cause: {f}"
        );
    }
}

#[test]
fn tree_shows_recorded_status_and_simulated_outcome() {
    let r = run(&["tree", "-n", "ml", "--from", DUMPS[0]]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let header = r.stdout.lines().nth(1).unwrap_or_default();
    assert!(header.starts_with("NAME "), "-n hides NAMESPACE: {header}");
    assert!(
        header.contains("STATUS") && header.contains("SIMULATED"),
        "{header}"
    );
    assert!(
        r.stdout.lines().any(|l| l.starts_with("PodGroup/big ")
            && l.contains("Pending")
            && l.contains("Unschedulable")),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("missing"), "{}", r.stdout);
}

#[test]
fn a_dump_without_nodes_is_refused_not_simulated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pods.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {containers: [{name: c, image: i}]}\n",
    )
    .unwrap();
    let r = run(&["simulate", "--from", path.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr
            .starts_with("error: the input holds no Node objects"),
        "{}",
        r.stderr
    );
}

#[test]
fn unknown_feature_gates_are_rejected_and_repeated_flags_merge() {
    let r = run(&[
        "simulate",
        "--demo",
        "--feature-gates",
        "genericworkload=true",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with(
            "error: unknown feature gate `genericworkload`; did you mean `GenericWorkload`?"
        ),
        "{}",
        r.stderr
    );
    let r = run(&[
        "simulate",
        "--demo",
        "--feature-gates",
        "GenericWorkload=false,CompositePodGroup=false",
        "--feature-gates",
        "GenericWorkload=true",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["settings"]["featureGates"]["GenericWorkload"], true,
        "later wins"
    );
    assert_eq!(
        v["settings"]["featureGates"]["CompositePodGroup"], false,
        "merged"
    );
}

#[test]
fn no_arguments_print_a_short_usage_and_exit_0() {
    let r = run(&[]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("kubectl wasctl simulate -A"),
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stdout.matches("\n  kubectl wasctl ").count(),
        5,
        "{}",
        r.stdout
    );
}

#[test]
fn every_subcommand_help_has_examples_and_global_flags_apart() {
    for cmd in [
        "simulate", "explain", "doctor", "tree", "lint", "snapshot", "version",
    ] {
        let r = run(&[cmd, "--help"]);
        assert_eq!(r.code, 0, "{cmd}");
        assert!(r.stdout.contains("\nExamples:\n"), "{cmd}: {}", r.stdout);
        assert!(
            r.stdout.contains("\nGlobal flags:\n"),
            "{cmd}: {}",
            r.stdout
        );
    }
    let r = run(&["lint", "-A", "x.yaml"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
}

/// Issue 13 §6: `lint` does not offer `-n` (nor `-A`): not in its help, its completion or its
/// man page; typed anyway, before or after the command, it is a usage error that names
/// `--default-namespace`, which does what `kubectl apply -n` does to manifests without one.
#[test]
fn lint_does_not_offer_namespace_flags() {
    let help = run(&["lint", "--help"]);
    assert_eq!(help.code, 0, "{}", help.transcript());
    assert!(!help.stdout.contains("--namespace"), "{}", help.stdout);
    assert!(!help.stdout.contains("--all-namespaces"), "{}", help.stdout);
    assert!(
        help.stdout.contains("--default-namespace"),
        "{}",
        help.stdout
    );
    // Other commands keep them.
    assert!(run(&["tree", "--help"]).stdout.contains("--namespace"));
    let completion = run(&["__complete", "lint", "--"]);
    assert!(
        !completion.stdout.contains("--namespace"),
        "{}",
        completion.stdout
    );
    assert!(
        completion.stdout.contains("--default-namespace"),
        "{}",
        completion.stdout
    );
    let man =
        std::fs::read_to_string(crate::support::root().join("packaging/man/kubectl-wasctl-lint.1"))
            .expect("lint man page");
    assert!(
        !man.contains("\\-\\-namespace"),
        "the lint man page lists -n"
    );
    for args in [
        &["lint", "-n", "ml", "x.yaml"][..],
        &["-n", "ml", "lint", "x.yaml"][..],
        &["lint", "--namespace=ml", "x.yaml"][..],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.transcript());
        assert!(r.stderr.contains("does not take `-n`"), "{}", r.stderr);
        assert!(r.stderr.contains("--default-namespace"), "{}", r.stderr);
    }
    let r = run(&["lint", "-A", "x.yaml"]);
    assert!(r.stderr.contains("--default-namespace"), "{}", r.stderr);

    // `--default-namespace` places manifests without a namespace, for the cross-object rules.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gang.yaml");
    std::fs::write(
        &file,
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec:\n  schedulingPolicy: {gang: {minCount: 1}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  schedulingGroup: {podGroupName: g}\n  containers: [{name: c, image: busybox}]\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let default = run(&["lint", "-o", "json", file]);
    assert!(
        default.stdout.contains("WAS301"),
        "{}",
        default.transcript()
    );
    let placed = run(&["lint", "-o", "json", "--default-namespace", "ml", file]);
    assert!(!placed.stdout.contains("WAS301"), "{}", placed.transcript());
}
