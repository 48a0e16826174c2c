//! Issue 14 items 2, 4 and 6 on the real binary: counts and sizes from input or flags, CEL
//! selector cost, and quantities. Each run is bounded in memory (1 GiB of address space) and
//! CPU time (a generous 300 s, so a regression fails instead of hanging); nothing here asserts
//! on timing. Inputs: `testdata/reliability/`.

use std::process::Command;

use crate::support::{Run, root, run_cmd};

/// Runs the binary with `args` under `ulimit -v` (1 GiB) and `ulimit -t` (300 s of CPU).
fn bounded(args: &[&str]) -> Run {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(r#"ulimit -v 1048576 && ulimit -t 300 && exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_kubectl-wasctl"))
        .args(args)
        .current_dir(root())
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .env("HOME", std::env::temp_dir().join("wasctl-test-home"));
    run_cmd(&mut cmd)
}

fn fixture(name: &str) -> String {
    format!("testdata/reliability/{name}")
}

#[test]
fn a_huge_device_count_is_refused_before_anything_is_allocated() {
    for (file, total) in [
        ("huge-device-count.yaml", "2147483647"),
        ("all-mode-too-many-devices.yaml", "128"),
    ] {
        let f = fixture(file);
        let r = bounded(&["explain", "pod/trainer", "-n", "default", "--from", &f]);
        assert_eq!(r.code, 0, "{file}: {}", r.transcript());
        assert!(
            r.stdout.contains(&format!(
                "number of requested devices {total} exceeds the claim limit of 32"
            )),
            "{file}: {}",
            r.stdout
        );
        let r = bounded(&["simulate", "--from", &f, "-o", "json"]);
        assert_eq!(r.code, 0, "{file}: {}", r.transcript());
        assert!(
            r.stdout.contains("\"Unschedulable\""),
            "{file}: {}",
            r.stdout
        );
    }
}

#[test]
fn add_nodes_is_capped_with_a_usage_error() {
    let f = fixture("huge-device-count.yaml");
    for n in ["4294967296", "5001", "18446744073709551616"] {
        let r = bounded(&[
            "simulate",
            "--from",
            &f,
            "--add-nodes",
            n,
            "--like",
            "worker-0",
        ]);
        assert_eq!(r.code, 2, "{n}: {}", r.transcript());
        assert!(
            r.stderr.contains("--add-nodes") && r.stderr.contains("5000"),
            "{n}: {}",
            r.stderr
        );
    }
    let r = bounded(&[
        "simulate",
        "--from",
        &f,
        "--add-nodes",
        "5000",
        "--like",
        "worker-0",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
}

#[test]
fn lint_flags_a_claim_that_can_never_be_allocated() {
    let r = bounded(&["lint", &fixture("huge-device-count.yaml")]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert!(
        r.stdout.contains("WAS602") && r.stdout.contains("a claim holds at most 32"),
        "{}",
        r.stdout
    );
}

#[test]
fn cel_selectors_over_the_cost_limit_stop_as_upstream_stops_them() {
    let estimated = fixture("cel-cost-estimated.yaml");
    let r = bounded(&[
        "explain",
        "pod/trainer",
        "-n",
        "default",
        "--from",
        &estimated,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("CEL cost limit exceeded: estimated cost"),
        "{}",
        r.stdout
    );
    let runtime = fixture("cel-cost-runtime.yaml");
    let r = bounded(&[
        "explain",
        "pod/trainer",
        "-n",
        "default",
        "--from",
        &runtime,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("CEL runtime error: operation cancelled: actual cost limit exceeded"),
        "{}",
        r.stdout
    );
    // lint: the estimate, as the API server refuses it.
    let r = bounded(&["lint", &estimated]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert!(
        r.stdout.contains("WAS601") && r.stdout.contains("CEL cost limit exceeded"),
        "{}",
        r.stdout
    );
    // lint --feasibility simulates the linted gang with the selector: WAS312 names the limit.
    let gang = fixture("cel-cost-gang.yaml");
    let r = bounded(&["lint", "--feasibility", "--from", &runtime, &gang]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert!(
        r.stdout.contains("WAS312")
            && r.stdout.contains("claim trainer-0-gpu: selector")
            && r.stdout.contains("actual cost limit exceeded"),
        "{}",
        r.stdout
    );
}

#[test]
fn invalid_quantities_are_input_errors_at_their_field() {
    for (file, value, message) in [
        ("quantity-abc.yaml", "abc", "is not a quantity"),
        ("quantity-nan.yaml", "NaN", "is not a quantity"),
        ("quantity-space.yaml", "1 e3", "is not a quantity"),
        (
            "quantity-negative.yaml",
            "-5",
            "must be greater than or equal to 0",
        ),
    ] {
        let f = fixture(file);
        for command in [&["simulate"][..], &["tree", "-A"][..]] {
            let mut args = command.to_vec();
            args.extend(["--from", &f]);
            let r = bounded(&args);
            assert_eq!(r.code, 2, "{file}: {}", r.transcript());
            assert!(
                r.stderr.starts_with(&format!(
                    "error: {f}:22:16: Pod default/trainer: field `spec.containers[0].resources.requests.cpu`: `{value}` {message}"
                )),
                "{file}: {}",
                r.stderr
            );
        }
        let r = bounded(&["lint", &f]);
        assert_eq!(r.code, 1, "{file}: {}", r.transcript());
        assert!(
            r.stdout.contains(&format!("{f}:22:16: WAS605 error")),
            "{}",
            r.stdout
        );
    }
}

/// DRA quantities (a device's capacity here; also counters and the capacity a claim
/// requests) that are not quantities are input errors at their field too.
#[test]
fn invalid_dra_quantities_are_input_errors_at_their_field() {
    let f = fixture("quantity-dra-capacity.yaml");
    let r = bounded(&["simulate", "--from", &f]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.starts_with(&format!(
            "error: {f}:24:17: ResourceSlice gpu-1-slice: field `spec.devices[1].capacity.memory`: `80 Gi` is not a quantity"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn huge_quantities_do_not_fit_and_sums_do_not_wrap() {
    let r = bounded(&["simulate", "--from", &fixture("quantity-huge.yaml")]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("Insufficient cpu"), "{}", r.stdout);
    let r = bounded(&["simulate", "--from", &fixture("quantity-overflow.yaml")]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("Pod/small") && r.stdout.contains("Insufficient memory"),
        "{}",
        r.stdout
    );
}
