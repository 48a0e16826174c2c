//! kubectl's output formats on every command that prints objects or units (`-o jsonpath=`,
//! `-o custom-columns=`, their `-file=` forms, `-o name`), and fitting the terminal's width
//! (`COLUMNS`).

use crate::support::{run, run_cmd, wasctl};

fn json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let r = run(&all);
    // doctor and diff exit 1 on what they find; the document is the same.
    assert!(r.code == 0 || r.code == 1, "{}", r.transcript());
    serde_json::from_str(&r.stdout).expect("json")
}

fn names(v: &serde_json::Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .expect("array")
        .iter()
        .map(|u| u["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn simulate_jsonpath_reads_the_json_document() {
    let doc = json(&["simulate", "--demo", "-A"]);
    let r = run(&[
        "simulate",
        "--demo",
        "-A",
        "-o",
        "jsonpath={.units[*].name}",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(r.stdout, names(&doc, "units").join(" "));
    // kubectl's range, filter and quoted newline.
    let r = run(&[
        "simulate",
        "--demo",
        "-A",
        "-o",
        r#"jsonpath={range .units[?(@.outcome=="Scheduled")]}{.namespace}/{.name}{"\n"}{end}"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let scheduled: Vec<String> = doc["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["outcome"] == "Scheduled")
        .map(|u| {
            format!(
                "{}/{}\n",
                u["namespace"].as_str().unwrap(),
                u["name"].as_str().unwrap()
            )
        })
        .collect();
    assert!(!scheduled.is_empty());
    assert_eq!(r.stdout, scheduled.concat());
    // The notes stay off stdout, and the template gets no notes on stderr either.
    assert!(!r.stdout.contains("note:"));
}

#[test]
fn simulate_custom_columns_rows_are_the_units() {
    let doc = json(&["simulate", "--demo", "-A"]);
    let r = run(&[
        "simulate",
        "--demo",
        "-A",
        "-o",
        "custom-columns=NAME:.name,OUTCOME:.outcome,VICTIMS:.victims[*].name",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].starts_with("NAME "), "{}", r.stdout);
    assert!(lines[0].contains("OUTCOME") && lines[0].ends_with("VICTIMS"));
    let units = doc["units"].as_array().unwrap();
    assert_eq!(lines.len(), units.len() + 1, "{}", r.stdout);
    for (line, u) in lines[1..].iter().zip(units) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[0], u["name"].as_str().unwrap());
        assert_eq!(cells[1], u["outcome"].as_str().unwrap());
        // A unit without victims: `<none>`, as kubectl prints a missing value.
        if u.get("victims")
            .is_none_or(|v| v.as_array().is_none_or(Vec::is_empty))
        {
            assert_eq!(cells[2], "<none>", "{line}");
        }
    }
}

#[test]
fn tree_doctor_explain_capacity_and_diff_take_the_templates() {
    // tree: rows are the objects, depth first (as many as `-o name` prints).
    let names = run(&["tree", "--demo", "-A", "-o", "name"]);
    let cols = run(&[
        "tree",
        "--demo",
        "-A",
        "-o",
        "custom-columns=KIND:.kind,NAME:.name",
    ]);
    assert_eq!(cols.code, 0, "{}", cols.transcript());
    assert_eq!(
        cols.stdout.lines().count(),
        names.stdout.lines().count() + 1
    );
    // doctor: rows are the findings.
    let doc = json(&["doctor", "--demo", "-A"]);
    let r = run(&[
        "doctor",
        "--demo",
        "-A",
        "-o",
        "custom-columns=ID:.id,SEVERITY:.severity",
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.transcript());
    assert_eq!(
        r.stdout.lines().count(),
        doc["findings"].as_array().unwrap().len() + 1,
        "{}",
        r.stdout
    );
    let r = run(&["doctor", "--demo", "-A", "-o", "jsonpath={.summary.error}"]);
    assert_eq!(r.stdout, doc["summary"]["error"].to_string());
    // explain: the Diagnosis document.
    let d = json(&["explain", "--demo", "pg/big-train-workers"]);
    let r = run(&[
        "explain",
        "--demo",
        "pg/big-train-workers",
        "-o",
        "jsonpath={.verdict} {.findings[0].id}",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(
        r.stdout,
        format!(
            "{} {}",
            d["verdict"].as_str().unwrap(),
            d["findings"][0]["id"].as_str().unwrap()
        )
    );
    let r = run(&[
        "explain",
        "--demo",
        "pg/big-train-workers",
        "-o",
        "custom-columns=TARGET:.target,VERDICT:.verdict",
    ]);
    assert_eq!(r.stdout.lines().count(), 2, "{}", r.stdout);
    // capacity: one row, the report.
    let c = json(&["capacity", "--demo", "pg/infer-b"]);
    let r = run(&[
        "capacity",
        "--demo",
        "pg/infer-b",
        "-o",
        "custom-columns=COPIES:.copies",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(r.stdout, format!("COPIES\n{}\n", c["copies"]));
    // diff: rows are the units that changed.
    let old = "testdata/diff/d01-node-removed/old.yaml";
    let new = "testdata/diff/d01-node-removed/new.yaml";
    let d = json(&["diff", "--from", old, "--to", new]);
    let r = run(&[
        "diff",
        "--from",
        old,
        "--to",
        new,
        "-o",
        "custom-columns=NAME:.name,AFTER:.after",
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.transcript());
    assert_eq!(
        r.stdout.lines().count(),
        d["units"].as_array().unwrap().len() + 1,
        "{}",
        r.stdout
    );
    let r = run(&["diff", "--from", old, "--to", new, "-o", "jsonpath={.kind}"]);
    assert_eq!(r.stdout, "PlanDiff");
}

#[test]
fn template_files_work_as_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("units.jsonpath");
    std::fs::write(&path, "{range .units[*]}{.name}{\"\\n\"}{end}").unwrap();
    let r = run(&[
        "simulate",
        "--demo",
        "-A",
        "-o",
        &format!("jsonpath-file={}", path.display()),
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let doc = json(&["simulate", "--demo", "-A"]);
    let expect: String = names(&doc, "units")
        .iter()
        .map(|n| format!("{n}\n"))
        .collect();
    assert_eq!(r.stdout, expect);
    let cols = dir.path().join("cols.txt");
    std::fs::write(&cols, "NAME          OUTCOME\n.name         .outcome\n").unwrap();
    let r = run(&[
        "simulate",
        "--demo",
        "-A",
        "-o",
        &format!("custom-columns-file={}", cols.display()),
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert_eq!(r.stdout.lines().count(), names(&doc, "units").len() + 1);
}

#[test]
fn a_bad_template_is_a_usage_error_worded_as_kubectls() {
    let r = run(&["simulate", "--demo", "-A", "-o", "jsonpath={.units["]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr
            .starts_with("error: error parsing jsonpath {.units[, unterminated array"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    let r = run(&["doctor", "--demo", "-o", "custom-columns=NAME"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"),
        "{}",
        r.stderr
    );
    let r = run(&[
        "simulate",
        "--demo",
        "-o",
        "jsonpath-file=/nonexistent/t.jsonpath",
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("cannot read template file"),
        "{}",
        r.stderr
    );
    // An index past the end fails when run, not silently.
    let r = run(&[
        "simulate",
        "--demo",
        "-A",
        "-o",
        "jsonpath={.units[99].name}",
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("array index out of bounds"),
        "{}",
        r.stderr
    );
    // An unknown format lists the ones there are, templates included.
    let r = run(&["simulate", "--demo", "-o", "table"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stderr.contains("custom-columns="), "{}", r.stderr);
}

#[test]
fn name_is_spelled_as_kubectl_spells_it_in_tree_and_simulate() {
    for args in [
        &["tree", "--demo", "-A", "-o", "name"][..],
        &["simulate", "--demo", "-A", "-o", "name"][..],
    ] {
        let r = run(args);
        assert_eq!(r.code, 0, "{}", r.transcript());
        assert!(
            r.stdout.contains("podgroup.scheduling.k8s.io/"),
            "{}",
            r.stdout
        );
        for line in r.stdout.lines() {
            let kind = line.split('/').next().unwrap();
            assert!(
                kind == "pod" || kind == "node" || kind.contains('.'),
                "{args:?}: `{line}` is not kubectl's spelling"
            );
        }
    }
}

#[test]
fn columns_fits_tables_and_wraps_prose() {
    // A pipe without COLUMNS: whole (the demo's messages are longer than 80 columns).
    let whole = run(&["simulate", "--demo", "-A"]);
    assert!(whole.stdout.lines().any(|l| l.chars().count() > 120));
    let fitted = run_cmd(
        wasctl()
            .args(["simulate", "--demo", "-A"])
            .env("COLUMNS", "100"),
    );
    assert_eq!(fitted.code, 0, "{}", fitted.transcript());
    for line in fitted.stdout.lines() {
        assert!(line.chars().count() <= 100, "`{line}` is wider than 100");
    }
    assert!(fitted.stdout.contains('…'), "{}", fitted.stdout);
    // Every column is still there.
    let header = fitted
        .stdout
        .lines()
        .find(|l| l.starts_with("NAMESPACE  NAME "))
        .unwrap();
    for h in ["NAME", "OUTCOME", "PLACED", "MIN", "NODES", "MESSAGE"] {
        assert!(header.contains(h), "{header}");
    }
    // `-o wide` prints whole, as kubectl does.
    let wide = run_cmd(
        wasctl()
            .args(["simulate", "--demo", "-A", "-o", "wide"])
            .env("COLUMNS", "100"),
    );
    assert!(wide.stdout.lines().any(|l| l.chars().count() > 120));
    // Prose wraps at word boundaries: no line wider, no word cut.
    let explain = run_cmd(
        wasctl()
            .args(["explain", "--demo", "pg/big-train-workers"])
            .env("COLUMNS", "60"),
    );
    assert_eq!(explain.code, 0, "{}", explain.transcript());
    let unwrapped = run(&["explain", "--demo", "pg/big-train-workers"]);
    let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(words(&explain.stdout), words(&unwrapped.stdout));
    for line in explain.stdout.lines() {
        assert!(
            line.chars().count() <= 60 || !line.trim().contains(' '),
            "`{line}` is wider than 60"
        );
    }
}

/// Issue 51, the empty-keys sweep: `-o json` omits a key whose value is empty (kubectl's
/// omitempty) and keeps it when it has a value, per command.
mod empty_keys {
    use crate::support::run;

    fn json(args: &[&str]) -> serde_json::Value {
        let r = run(args);
        assert_eq!(r.code, 0, "{}", r.transcript());
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
    }

    #[test]
    fn explain_omits_an_empty_message_fixes_node_reasons_domains_and_assumed() {
        // infer-a schedules: no message, fix, rejected node or domain; with the one gate
        // the demo leaves unknown given, nothing assumed.
        let empty = json(&[
            "explain",
            "--demo",
            "pg/infer-a",
            "--feature-gates",
            "WorkloadWithJob=true",
            "-o",
            "json",
        ]);
        for key in ["message", "fixes", "nodeReasons", "assumed"] {
            assert!(empty.get(key).is_none(), "{key}: {empty}");
        }
        assert!(empty["fit"].get("domains").is_none(), "{empty}");
        assert_eq!(empty["fit"]["placeable"], 2);
        // big-train is stuck in its racks: every one of them filled.
        let filled = json(&["explain", "--demo", "pg/big-train-workers", "-o", "json"]);
        for key in ["message", "fixes", "nodeReasons", "assumed"] {
            assert!(
                filled.get(key).is_some_and(|v| v != &serde_json::json!([])),
                "{key}: {filled}"
            );
        }
        assert!(
            filled["fit"]["domains"]
                .as_array()
                .is_some_and(|d| d.len() == 3)
        );
    }

    #[test]
    fn capacity_omits_domains_without_a_topology_key() {
        let empty = json(&["capacity", "--demo", "pg/infer-a", "-o", "json"]);
        assert!(empty.get("domains").is_none(), "{empty}");
        let filled = json(&["capacity", "--demo", "pg/big-train-workers", "-o", "json"]);
        assert_eq!(filled["domains"][0]["value"], "rack-a", "{filled}");
    }

    #[test]
    fn diff_omits_settings_assumed_when_nothing_was_assumed() {
        let filled = json(&["diff", "--demo", "--drain", "gpu-a1", "-o", "json"]);
        assert!(
            filled["settings"]["assumed"]
                .as_array()
                .is_some_and(|a| !a.is_empty()),
            "{filled}"
        );
        let empty = json(&[
            "diff",
            "--demo",
            "--drain",
            "gpu-a1",
            "--feature-gates",
            "WorkloadWithJob=true",
            "-o",
            "json",
        ]);
        assert!(empty["settings"].get("assumed").is_none(), "{empty}");
    }

    #[test]
    fn simulate_omits_an_empty_trace_devices_and_holds() {
        let plan = json(&["simulate", "--demo", "-o", "json"]);
        let units = plan["units"].as_array().cloned().unwrap_or_default();
        let unit = |name: &str| {
            units
                .iter()
                .find(|u| u["name"] == name)
                .cloned()
                .unwrap_or_else(|| panic!("no unit {name}"))
        };
        // trace: a Kueue Workload waiting on quota has none; big-train's is filled.
        assert!(unit("job-distill-32367").get("trace").is_none());
        assert!(unit("big-train-workers")["trace"]["pods"].is_array());
        // devices: urgent's pods use the extended resource, infer-a's a DRA claim.
        let urgent = unit("urgent");
        assert!(urgent["placements"][0].get("devices").is_none(), "{urgent}");
        assert!(unit("infer-a")["placements"][0]["devices"].is_array());
        // holds: batch-low is evicted whole, so it keeps nothing running and holds nothing.
        let left = &urgent["blastRadius"]["groups"][0]["left"];
        assert_eq!(left["running"], 0, "{urgent}");
        assert!(left.get("holds").is_none(), "{urgent}");
    }
}
