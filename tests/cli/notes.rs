//! Quiet by default (issue 51 item 1): a modelling note is printed only when it could have
//! changed the run's answer, once; `assumed:` facts fold into one line; `-q` leaves stderr to
//! errors; `--verbose` prints every note. The catalogue: docs/fidelity.md, "Notes".

use crate::support::run;

/// The `note:` lines of a run's stderr.
fn notes(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("note:")).collect()
}

/// The ids and sentences of `settings.relevantNotes` in the run's JSON.
fn relevant(args: &[&str]) -> Vec<(String, String)> {
    let mut args = args.to_vec();
    args.extend(["-o", "json"]);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    v["settings"]["relevantNotes"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|n| {
                    (
                        n["id"].as_str().unwrap_or_default().to_owned(),
                        n["note"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_demo_prints_only_the_notes_its_run_met_once_each() {
    let r = run(&["simulate", "--demo"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let printed = notes(&r.stderr);
    let met = relevant(&["simulate", "--demo"]);
    let ids: Vec<&str> = met.iter().map(|(id, _)| id.as_str()).collect();
    // urgent (a PodGroup) preempts; equal GPU nodes tie. The demo's nodes list no images, no
    // shared device is allocated, no profile sets percentageOfNodesToScore.
    assert_eq!(
        ids,
        ["ties", "preemption-timing", "group-preemption"],
        "{}",
        r.stderr
    );
    let expected: Vec<String> = met.iter().map(|(_, n)| format!("note: {n}")).collect();
    assert_eq!(printed, expected, "{}", r.stderr);
    for gone in ["ImageLocality", "shareIDs", "could not read", "whose code"] {
        assert!(!r.stderr.contains(gone), "{gone}: {}", r.stderr);
    }
    assert!(
        r.stderr
            .lines()
            .filter(|l| l.starts_with("assumed:"))
            .count()
            <= 1
    );
}

#[test]
fn a_tie_prints_the_tie_note_once_and_nothing_else() {
    let r = run(&["simulate", "--from", "testdata/notes/tie.yaml"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let printed = notes(&r.stderr);
    assert_eq!(printed.len(), 1, "{}", r.stderr);
    assert!(printed[0].starts_with("note: ties between equally scored nodes"));
    // Two `assumed:` facts (feature gates, snapshot time), one line.
    let assumed: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("assumed:"))
        .collect();
    assert_eq!(assumed.len(), 1, "{}", r.stderr);
    assert!(assumed[0].contains("; "), "{}", assumed[0]);
}

#[test]
fn a_preemption_prints_the_timing_note_once_and_no_group_or_tie_note() {
    let r = run(&["simulate", "--from", "testdata/notes/preemption.yaml"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let printed = notes(&r.stderr);
    assert_eq!(printed.len(), 1, "{}", r.stderr);
    assert!(printed[0].starts_with("note: preemption acts at once"));
    // explain says the same of the unit it explains.
    let r = run(&[
        "explain",
        "pod/high",
        "-n",
        "default",
        "--from",
        "testdata/notes/preemption.yaml",
    ]);
    assert_eq!(notes(&r.stderr).len(), 1, "{}", r.transcript());
    assert!(notes(&r.stderr)[0].starts_with("note: preemption acts at once"));
}

#[test]
fn shared_devices_print_the_share_id_note_once() {
    let cluster = "testdata/scenarios/x06-consumable-capacity-shares-one-gpu/cluster.yaml";
    let r = run(&["simulate", "--from", cluster]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let share: Vec<&str> = notes(&r.stderr)
        .into_iter()
        .filter(|l| l.contains("shareIDs"))
        .collect();
    assert_eq!(share.len(), 1, "{}", r.stderr);
    assert!(
        relevant(&["simulate", "--from", cluster])
            .iter()
            .any(|(id, _)| id == "share-ids")
    );
}

#[test]
fn quiet_prints_only_errors_and_keeps_the_report_and_the_exit_code() {
    let loud = run(&["simulate", "--demo"]);
    let quiet = run(&["simulate", "--demo", "-q"]);
    assert_eq!(quiet.code, 0, "{}", quiet.transcript());
    assert_eq!(quiet.stderr, "", "{}", quiet.transcript());
    assert_eq!(quiet.stdout, loud.stdout);
    assert!(!loud.stderr.is_empty());
    // Warnings too: a file without kube-system pods warns, except with `--quiet`.
    let r = run(&["tree", "--from", "testdata/notes/tie.yaml", "--quiet"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{}", r.transcript());
    // The same exit code: explain --exit-code of the demo's unschedulable gang.
    let loud = run(&["explain", "pg/big-train-workers", "--demo", "--exit-code"]);
    let quiet = run(&[
        "explain",
        "pg/big-train-workers",
        "--demo",
        "--exit-code",
        "-q",
    ]);
    assert_eq!(loud.code, 1, "{}", loud.transcript());
    assert_eq!(quiet.code, loud.code);
    assert_eq!(quiet.stderr, "");
    // An error is still printed, with its exit code.
    let r = run(&[
        "simulate",
        "-q",
        "--from",
        "testdata/notes/no-such-file.yaml",
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    // `-q` and `--verbose` contradict each other.
    let r = run(&["simulate", "--demo", "-q", "--verbose"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
}

#[test]
fn verbose_prints_every_note_once_marking_those_the_run_did_not_meet() {
    let r = run(&["simulate", "--from", "testdata/notes/tie.yaml", "--verbose"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let lines: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("note")).collect();
    // ties (met) and the eight other notes a simulation may meet, each once.
    assert_eq!(lines.len(), 9, "{}", r.stderr);
    assert!(lines[0].starts_with("note: ties between"));
    for needle in [
        "ImageLocality is not scored",
        "shareIDs",
        "preemption acts at once",
        "group preemption places",
        "is applied as upstream's numFeasibleNodesToFind",
        "is not applied in exhaustive mode",
        "Kueue's topology assignment is not simulated",
        "Kueue runs with fair sharing",
    ] {
        let found: Vec<&&str> = lines.iter().filter(|l| l.contains(needle)).collect();
        assert_eq!(found.len(), 1, "{needle}: {}", r.stderr);
        assert!(
            found[0].starts_with("note (not met by this run; relevant when "),
            "{}",
            found[0]
        );
    }
    // capacity adds its own.
    let r = run(&[
        "capacity",
        "pg/infer-a",
        "-n",
        "research",
        "--demo",
        "--verbose",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(
        r.stderr
            .matches("copies are counted as if created now")
            .count(),
        1
    );
}
