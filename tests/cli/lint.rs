//! `lint` on the built binary: exit codes, formats (several at once), rule listing and docs,
//! config, stdin, input errors; and the files in `plugins/` (k9s `TestValidatePluginDir`).

use std::io::Write;
use std::process::Stdio;

use crate::support::{files_in, root, run, wasctl};

const BAD: &str = "testdata/manifests/lint/bad";
const GOOD: &str = "testdata/manifests/lint/good";

#[test]
fn clean_manifests_exit_0_and_say_so() {
    let r = run(&["lint", GOOD]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.contains("0 error(s), 0 warning(s)"),
        "{}",
        r.stdout
    );
}

#[test]
fn findings_at_or_above_fail_on_exit_1() {
    let file = format!("{BAD}/WAS301-missing-pod-group.yaml");
    insta::assert_snapshot!(
        "lint_missing_pod_group_text",
        run(&["lint", &file]).transcript()
    );
    assert_eq!(run(&["lint", "--fail-on", "error", &file]).code, 0);
    assert_eq!(
        run(&[
            "lint",
            "--fail-on",
            "info",
            &format!("{BAD}/WAS404-prefer-stable-version.yaml")
        ])
        .code,
        1
    );
    assert_eq!(
        run(&["lint", &format!("{BAD}/WAS404-prefer-stable-version.yaml")]).code,
        0
    );
}

#[test]
fn syntax_errors_are_findings_and_the_rest_is_still_linted() {
    let r = run(&[
        "lint",
        "-f",
        &format!("{BAD}/WAS001-syntax-error.yaml"),
        "-o",
        "github",
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    insta::assert_snapshot!("lint_syntax_error_github", r.stdout);
}

#[test]
fn demo_cluster_lints_to_its_planted_findings() {
    let r = run(&["lint", "testdata/clusters/demo.yaml", "-o", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["apiVersion"], "wasctl.dev/v1alpha1");
    assert_eq!(v["kind"], "LintReport");
    let mut serious: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "info")
        .map(|f| {
            format!(
                "{} {}:{} {}",
                f["rule"].as_str().unwrap(),
                f["line"],
                f["column"],
                f["object"]["name"].as_str().unwrap()
            )
        })
        .collect();
    serious.sort();
    assert_eq!(
        serious,
        [
            "WAS301 4546:5 lost-0",
            "WAS302 2643:5 infer-b-0",
            "WAS302 2690:5 infer-b-1",
            "WAS401 4556:13 old-group",
        ]
    );
    for f in v["findings"].as_array().unwrap() {
        for key in [
            "rule", "severity", "file", "line", "column", "object", "message", "fix",
        ] {
            assert!(!f[key].is_null(), "finding lacks `{key}`: {f}");
        }
    }
}

#[test]
fn several_outputs_at_once_write_files_and_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("out.sarif");
    let junit = dir.path().join("out.xml");
    let r = run(&[
        "lint",
        &format!("{BAD}/WAS302-pod-claim-mismatch.yaml"),
        "-o",
        &format!("sarif={}", sarif.display()),
        "-o",
        &format!("junit={}", junit.display()),
        "-o",
        "text",
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert!(r.stdout.contains("WAS302 warning"), "{}", r.stdout);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    // The SARIF 2.1.0 shape GitHub code scanning requires.
    assert_eq!(log["version"], "2.1.0");
    let run0 = &log["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "wasctl");
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    let result = &run0["results"][0];
    assert_eq!(result["ruleId"], "WAS302");
    let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
    assert_eq!(rules[index]["id"], "WAS302");
    assert_eq!(result["level"], "warning");
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(23), Some(5))
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"<testcase name="Pod research/infer-0""#),
        "{xml}"
    );
    assert!(xml.contains("<failure"), "{xml}");
    // GitHub code scanning: a percent-encoded URI relative to %SRCROOT%, the driver's version,
    // and a helpUri at a heading of the committed rules page.
    let location = &result["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(location["uriBaseId"], "%SRCROOT%");
    assert_eq!(
        location["uri"],
        "testdata/manifests/lint/bad/WAS302-pod-claim-mismatch.yaml"
    );
    assert_eq!(run0["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    let page = std::fs::read_to_string(root().join("schemas/rules.md")).unwrap();
    for rule in rules {
        let uri = rule["helpUri"].as_str().unwrap();
        let (page_uri, anchor) = uri.split_once('#').unwrap();
        assert!(page_uri.ends_with("/schemas/rules.md"), "{uri}");
        let heading = format!("## {}", anchor.to_ascii_uppercase());
        assert!(
            page.lines().any(|l| l == heading),
            "no `{heading}` in schemas/rules.md"
        );
    }
}

#[test]
fn two_formats_never_share_stdout_or_a_file() {
    // See: issue 17 item 7 (one `-o` per stream).
    let file = format!("{BAD}/WAS302-pod-claim-mismatch.yaml");
    let r = run(&["lint", &file, "-o", "json", "-o", "text"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr.contains("would all write to stdout"),
        "{}",
        r.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let r = run(&[
        "lint",
        &file,
        "-o",
        &format!("json={}", out.display()),
        "-o",
        &format!("sarif={}", out.display()),
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("named by two `-o` options"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
}

#[test]
fn kubectl_templates_run_on_the_json_report_and_share_stdout_with_nothing() {
    // Issue 51 item 4: `jsonpath=` and `custom-columns=` are templates (kubectl's prefixes),
    // never `FORMAT=FILE`; the rows of custom columns are the findings.
    let file = format!("{BAD}/WAS302-pod-claim-mismatch.yaml");
    let r = run(&["lint", &file, "-o", "jsonpath={.findings[*].rule}"]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert_eq!(r.stdout, "WAS302");
    let r = run(&[
        "lint",
        &file,
        "-o",
        "custom-columns=RULE:.rule,LINE:.line,COL:.column",
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert_eq!(r.stdout, "RULE    LINE  COL\nWAS302  23    5\n");
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("out.sarif");
    let r = run(&[
        "lint",
        &file,
        "-o",
        "jsonpath={.summary.warnings}",
        "-o",
        &format!("sarif={}", sarif.display()),
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert_eq!(r.stdout, "1");
    assert!(sarif.exists());
    let r = run(&["lint", &file, "-o", "jsonpath={.kind}", "-o", "json"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("`-o jsonpath`, `-o json` would all write to stdout"),
        "{}",
        r.stderr
    );
    let r = run(&["lint", &file, "-o", "jsonpath={.findings[0"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
}

#[test]
fn stdin_is_read_with_a_dash() {
    let mut child = wasctl()
        .args(["lint", "-", "-o", "github"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: w, namespace: ml}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("lint_stdin_github", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn unknown_kinds_are_reported_and_rejected_on_request() {
    let file = format!("{BAD}/WAS002-unknown-kind.yaml");
    let r = run(&["lint", &file, "-o", "github"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with("::notice "), "{}", r.stdout);
    let r = run(&["lint", &file, "--reject-unknown", "-o", "github"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.starts_with("::error "), "{}", r.stdout);
}

#[test]
fn lint_and_the_loader_give_one_verdict_on_malformed_input() {
    // See: issue 17 item 5 (a JSON trailing comma passed lint but failed `--from`).
    for file in [
        format!("{BAD}/WAS001-trailing-comma.json"),
        format!("{BAD}/WAS001-syntax-error.yaml"),
    ] {
        let from = run(&["tree", "-A", "--from", &file]);
        assert_eq!(from.code, 2, "{}", from.transcript());
        let lint = run(&["lint", &file, "-o", "json"]);
        assert_eq!(lint.code, 1, "{}", lint.transcript());
        let report: serde_json::Value = serde_json::from_str(&lint.stdout).unwrap();
        let syntax: Vec<&serde_json::Value> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "WAS001")
            .collect();
        assert_eq!(syntax.len(), 1, "{}", lint.stdout);
        // The same position and message as the loader's error.
        let at = format!("{file}:{}:{}: ", syntax[0]["line"], syntax[0]["column"]);
        let message = syntax[0]["message"].as_str().unwrap();
        assert!(
            from.stderr.contains(&format!("{at}{message}")),
            "{}\n{}",
            from.stderr,
            lint.stdout
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("flow.json");
    std::fs::write(
        &good,
        r#"{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}}"#,
    )
    .unwrap();
    assert_eq!(
        run(&["tree", "-A", "--from", good.to_str().unwrap()]).code,
        0
    );
    assert_eq!(run(&["lint", good.to_str().unwrap()]).code, 0);
}

#[test]
fn unknown_fields_are_errors_unless_field_validation_says_otherwise() {
    // See: issue 17 item 1 (kubectl validates strictly by default).
    let file = format!("{BAD}/WAS003-unknown-field.yaml");
    let r = run(&["lint", &file, "-o", "github"]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert!(
        r.stdout.starts_with("::error ") && r.stdout.contains("WAS003"),
        "{}",
        r.stdout
    );
    let strict = run(&["lint", "--strict", &file, "-o", "github"]);
    assert_eq!((strict.code, &strict.stdout), (1, &r.stdout));
    let explicit = run(&["lint", "--field-validation=strict", &file, "-o", "github"]);
    assert_eq!((explicit.code, &explicit.stdout), (1, &r.stdout));
    let warn = run(&["lint", "--field-validation=warn", &file, "-o", "github"]);
    let was003: Vec<&str> = warn
        .stdout
        .lines()
        .filter(|l| l.contains("title=WAS003"))
        .collect();
    assert_eq!(was003.len(), 4, "{}", warn.stdout);
    assert!(
        was003.iter().all(|l| l.starts_with("::warning ")),
        "{}",
        warn.stdout
    );
    let ignore = run(&["lint", "--field-validation=ignore", &file, "-o", "github"]);
    assert_eq!(ignore.code, 1, "{}", ignore.transcript());
    // Only the claim entry left empty by its `source:` wrapper is still an error.
    assert!(!ignore.stdout.contains("title=WAS003"), "{}", ignore.stdout);
    assert_eq!(ignore.stdout.lines().count(), 1, "{}", ignore.stdout);
    assert!(ignore.stdout.contains("WAS503"), "{}", ignore.stdout);
    assert_eq!(run(&["lint", "--field-validation=lax", &file]).code, 2);
}

#[test]
fn config_disables_rules_and_changes_severities() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".wasctl.yaml");
    let file = format!("{BAD}/WAS301-missing-pod-group.yaml");
    std::fs::write(&config, "lint:\n  disable: [missing-pod-group]\n").unwrap();
    assert_eq!(
        run(&["lint", "--config", config.to_str().unwrap(), &file]).code,
        0
    );
    std::fs::write(&config, "lint:\n  severity: {WAS301: error}\n").unwrap();
    let r = run(&[
        "lint",
        "--config",
        config.to_str().unwrap(),
        "--fail-on",
        "error",
        &file,
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    std::fs::write(&config, "lint:\n  disable: [WAS999]\n").unwrap();
    let r = run(&["lint", "--config", config.to_str().unwrap(), &file]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown rule `WAS999`"), "{}", r.stderr);
}

#[test]
fn cluster_source_enables_cluster_aware_rules() {
    let dir = tempfile::tempdir().unwrap();
    let pod = dir.path().join("pod.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: research}\nspec:\n  priorityClassName: hihg\n  schedulingGroup: {podGroupName: infer-b}\n  containers: [{name: c, image: busybox}]\n",
    )
    .unwrap();
    let alone = run(&["lint", pod.to_str().unwrap(), "-o", "github"]);
    assert!(alone.stdout.contains("WAS301"), "{}", alone.stdout);
    assert!(!alone.stdout.contains("WAS308"), "{}", alone.stdout);
    let with_demo = run(&["lint", "--demo", pod.to_str().unwrap(), "-o", "github"]);
    assert!(
        !with_demo.stdout.contains("WAS301"),
        "infer-b exists in the demo: {}",
        with_demo.stdout
    );
    assert!(with_demo.stdout.contains("WAS308"), "{}", with_demo.stdout);
}

#[test]
fn feasibility_simulates_linted_gangs_on_the_empty_demo_cluster() {
    let file = format!("{BAD}/WAS312-gang-cannot-fit.yaml");
    let r = run(&["lint", "--demo", "--feasibility", &file, "-o", "github"]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert!(r.stdout.contains("WAS312"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Insufficient nvidia.com/gpu"),
        "{}",
        r.stdout
    );
    let without = run(&["lint", "--demo", &file, "-o", "github"]);
    assert!(!without.stdout.contains("WAS312"), "{}", without.stdout);
}

#[test]
fn list_rules_and_explain() {
    let r = run(&["lint", "--list-rules"]);
    assert_eq!(r.code, 0);
    insta::assert_snapshot!("lint_list_rules", r.stdout);
    let r = run(&["lint", "--explain", "WAS302"]);
    assert_eq!(r.code, 0);
    for heading in [
        "## What it does",
        "## Why is this bad?",
        "## Example",
        "Use instead:",
        "## References",
    ] {
        assert!(r.stdout.contains(heading), "{}", r.stdout);
    }
    let r = run(&["lint", "--explain", "WAS999"]);
    assert_eq!(r.code, 2);
}

#[test]
fn guide_rule_table_matches_the_code_table() {
    let readme = std::fs::read_to_string(root().join("docs/guide/lint.md")).unwrap();
    let listed = run(&["lint", "--list-rules"]).stdout;
    for line in listed.lines().skip(1) {
        let mut parts = line.split_whitespace();
        let (code, name, severity) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let summary = parts.collect::<Vec<_>>().join(" ");
        let row = format!("| {code} | `{name}` | {severity} | {summary} |");
        assert!(
            readme.contains(&row),
            "docs/guide/lint.md lacks the row\n{row}"
        );
    }
}

#[test]
fn input_errors_exit_2() {
    insta::assert_snapshot!(
        "lint_missing_file",
        run(&["lint", "no/such/file.yaml"]).transcript()
    );
    assert_eq!(run(&["lint"]).code, 2);
    assert_eq!(run(&["lint", GOOD, "--target-version", "1.36"]).code, 2);
    assert_eq!(run(&["lint", GOOD, "-o", "xml"]).code, 2);
    let r = run(&["lint", GOOD, "--feasibility"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("`--feasibility` needs a cluster"),
        "{}",
        r.stderr
    );
}

fn yaml(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_plugin_file_parses_and_has_its_required_keys() {
    let plugins = root().join("plugins");
    let mut checked = 0;
    // pre-commit: a list of hooks with id, name, entry, language; the root copy is identical.
    let hooks_path = plugins.join("pre-commit/.pre-commit-hooks.yaml");
    let hooks = yaml(&hooks_path);
    for hook in hooks.as_array().unwrap() {
        for key in ["id", "name", "entry", "language"] {
            assert!(
                hook[key].is_string(),
                "pre-commit hook lacks `{key}`: {hook}"
            );
        }
        assert!(
            hook["entry"]
                .as_str()
                .unwrap()
                .starts_with("kubectl-wasctl lint")
        );
    }
    assert_eq!(
        std::fs::read_to_string(&hooks_path).unwrap(),
        std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap()
    );
    checked += 1;
    // GitHub Action: name, description, runs; runs lint and uploads SARIF.
    let action = yaml(&plugins.join("github-action/action.yml"));
    for key in ["name", "description", "inputs", "runs"] {
        assert!(!action[key].is_null(), "action.yml lacks `{key}`");
    }
    assert_eq!(action["runs"]["using"], "composite");
    let steps = action["runs"]["steps"].as_array().unwrap();
    assert!(steps.iter().any(|s| {
        s["run"]
            .as_str()
            .is_some_and(|r| r.contains("kubectl-wasctl lint") && r.contains("sarif="))
    }));
    assert!(steps.iter().any(|s| {
        s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
    }));
    checked += 1;
    // k9s: validated against k9s's plugin schema and run in tests/cli/integrations.rs.
    assert!(plugins.join("k9s/plugins.yaml").is_file());
    checked += 1;
    // Nothing in plugins/ goes unchecked.
    let mut files = Vec::new();
    for sub in ["pre-commit", "github-action", "k9s"] {
        files.extend(files_in(&plugins.join(sub), &["yaml", "yml"]));
    }
    assert_eq!(files.len(), checked, "unvalidated plugin files: {files:?}");
}

#[test]
fn committed_schemas_match_the_types() {
    let r = run(&["generate", "schemas", "--check"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
}

#[test]
fn good_manifests_validate_against_the_committed_schemas() {
    let schemas = root().join("schemas");
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schemas.join("index.json")).unwrap())
            .unwrap();
    let mut validated = 0;
    for file in files_in(&root().join(GOOD), &["yaml", "yml", "json"]) {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut objects = Vec::new();
        for doc in text.split("\n---") {
            let value: serde_json::Value = serde_saphyr::from_str(doc).unwrap();
            match value.get("items").and_then(|i| i.as_array()) {
                Some(items) => objects.extend(items.iter().cloned()),
                None => objects.push(value),
            }
        }
        // Custom resources are checked against the CRDs beside them (`tests/cli/lint_crd.rs`),
        // not against the committed schemas of the built-in kinds.
        let defined: Vec<(String, String)> = objects
            .iter()
            .filter(|o| o["kind"] == "CustomResourceDefinition")
            .map(|o| {
                (
                    o["spec"]["group"].as_str().unwrap_or_default().to_owned(),
                    o["spec"]["names"]["kind"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                )
            })
            .collect();
        objects.retain(|o| {
            let group = o["apiVersion"]
                .as_str()
                .and_then(|v| v.rsplit_once('/'))
                .map_or("", |(g, _)| g);
            o["kind"] != "CustomResourceDefinition"
                && !defined
                    .iter()
                    .any(|(g, k)| g == group && o["kind"].as_str() == Some(k.as_str()))
        });
        for object in objects {
            let entry =
                index["schemas"].as_array().unwrap().iter().find(|e| {
                    e["apiVersion"] == object["apiVersion"] && e["kind"] == object["kind"]
                });
            let Some(entry) = entry else {
                panic!(
                    "{}: no schema for {} {}",
                    file.display(),
                    object["apiVersion"],
                    object["kind"]
                );
            };
            let schema: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(schemas.join(entry["schema"].as_str().unwrap())).unwrap(),
            )
            .unwrap();
            let validator = jsonschema::validator_for(&schema).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&object)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", file.display());
            validated += 1;
        }
    }
    assert!(validated >= 12, "only {validated} objects validated");
}

/// The SARIF output validates against the official SARIF 2.1.0 JSON Schema. The schema is not
/// vendored: `cargo xtask setup` unpacks it from the npm package `@microsoft/jest-sarif` (or
/// `WASCTL_SARIF_SCHEMA` points at a copy); without it the test fails.
#[test]
fn sarif_validates_against_the_sarif_2_1_0_schema() {
    let schema_path = crate::support::sarif_schema();
    let mut schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&schema_path).unwrap()).unwrap();
    // The published 2.1.0 schema has a malformed `language` pattern (a stray `]`) that a strict
    // meta-schema check rejects; wasctl never writes `language`, so drop those patterns.
    fn drop_bad_patterns(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                if map
                    .get("pattern")
                    .and_then(serde_json::Value::as_str)
                    .is_some_and(|p| p.ends_with("]?$"))
                {
                    map.remove("pattern");
                }
                map.values_mut().for_each(drop_bad_patterns);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(drop_bad_patterns),
            _ => {}
        }
    }
    drop_bad_patterns(&mut schema);
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let r = run(&["lint", "testdata/manifests/lint/bad", "-o", "sarif"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let sarif: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF schema violations: {errors:#?}");
}

/// `-o sarif=FILE` is written whole or not at all: through a symlink the link stays and its
/// target is replaced; on a full device the error says "disk full" (exit 2) and the device
/// node survives.
#[cfg(unix)]
#[test]
fn sarif_files_are_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.sarif");
    std::fs::write(&real, "old").unwrap();
    let link = dir.path().join("out.sarif");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let input = format!("{BAD}/WAS302-pod-claim-mismatch.yaml");
    let r = run(&["lint", &input, "-o", &format!("sarif={}", link.display())]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let r = run(&["lint", &input, "-o", "sarif=/dev/full"]);
        assert_eq!(r.code, 2, "{}", r.transcript());
        assert!(
            r.stderr
                .contains("cannot write `/dev/full`: disk full (no space left on device)"),
            "{}",
            r.stderr
        );
        assert!(
            std::fs::metadata("/dev/full")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}

/// Issue 45 item 7 on the binary: a PodGroup and a Workload written as `scheduling.k8s.io/v1`
/// fail lint (exit 1) with "served as scheduling.k8s.io/v1beta1"; the third-party kind in the
/// same file is only info.
#[test]
fn scheduling_v1_pod_groups_fail_lint_naming_the_served_version() {
    let file = format!("{BAD}/WAS401-scheduling-v1.yaml");
    let r = run(&["lint", &file, "-o", "json"]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    let errors: Vec<&serde_json::Value> =
        findings.iter().filter(|f| f["rule"] == "WAS401").collect();
    assert_eq!(errors.len(), 2, "{:#}", v);
    for f in errors {
        assert_eq!(f["severity"], "error");
        assert!(
            f["message"]
                .as_str()
                .unwrap_or_default()
                .contains("served as scheduling.k8s.io/v1beta1"),
            "{f}"
        );
    }
}

/// Issue 45 item 7: WAS308 is a warning on its own and an error under `--feasibility` when
/// the cluster (the demo) lacks the class too.
#[test]
fn a_missing_priority_class_fails_lint_feasibility() {
    let file = format!("{BAD}/WAS308-missing-priority-class.yaml");
    let severity = |args: &[&str]| {
        let r = run(args);
        assert_eq!(r.code, 1, "{}", r.transcript());
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let f = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "WAS308")
            .cloned()
            .unwrap_or_else(|| panic!("{v:#}"));
        f["severity"].as_str().unwrap_or_default().to_owned()
    };
    assert_eq!(severity(&["lint", &file, "-o", "json"]), "warning");
    assert_eq!(
        severity(&["lint", "--demo", &file, "-o", "json"]),
        "warning"
    );
    assert_eq!(
        severity(&["lint", "--demo", "--feasibility", &file, "-o", "json"]),
        "error"
    );
}
