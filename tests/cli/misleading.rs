//! Issue 46 item 6, on the real binary: kubectl's label-selector grammar, stale-version
//! targets named as doctor names them, timestamps the API server accepts, and lint's metadata
//! rules on objects of any kind. Each with its words and its exit code.

use crate::support::{run, wasctl};

/// k8s.io/apimachinery/pkg/labels `Parse`: what it refuses is a usage error (exit 2) in its
/// words; what it accepts runs (`x in ()` is upstream's set of the empty value).
#[test]
fn selectors_are_parsed_as_kubectl_parses_them() {
    for (selector, words) in [
        ("a=b,,c=d", "found ',', expected: identifier after ','"),
        ("a=b,", "found '', expected: identifier after ','"),
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("!x=a", "found '=', expected: ',' or 'end of string'"),
        (
            "x<a",
            "for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        (
            "x=a||y",
            "a valid label must be an empty string or consist of alphanumeric characters",
        ),
        ("a in (xyz abc)", "found 'abc', expected: ',' or ')'"),
    ] {
        let r = run(&["tree", "--demo", "-l", selector]);
        assert_eq!(r.code, 2, "{selector}: {}", r.transcript());
        assert!(
            r.stderr
                .contains(&format!("error: invalid `--selector` `{selector}`: "))
                && r.stderr.contains(words),
            "{selector}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{selector}: {}", r.stdout);
    }
    for selector in [
        "a in ()",
        "x notin (, a)",
        "app=train,tier!=cpu",
        "x>1",
        "!canary",
    ] {
        let r = run(&["tree", "--demo", "-l", selector]);
        assert_eq!(r.code, 0, "{selector}: {}", r.transcript());
    }
}

/// The demo's `PodGroup ml/old-group` is a left-over `scheduling.k8s.io/v1alpha2` object:
/// doctor names it (WASD107); tree, explain and capacity say the same of it, exit 1, instead
/// of "not found".
#[test]
fn stale_version_targets_are_named_as_doctor_names_them() {
    let doctor = run(&["doctor", "--demo"]);
    assert!(doctor.stdout.contains("old-group"), "{}", doctor.stdout);
    for args in [
        vec!["tree", "--demo", "pg/old-group"],
        vec!["explain", "--demo", "pg/old-group"],
        vec!["capacity", "--demo", "pg/old-group"],
        vec!["tree", "--demo", "-n", "ml", "podgroup", "old-group"],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.transcript());
        assert!(
            r.stderr.contains(
                "error: PodGroup `ml/old-group` is stored as `scheduling.k8s.io/v1alpha2`, which 1.37 no longer serves: nothing acts on it (doctor `WASD107`)"
            ),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr
                .contains("re-create it as `scheduling.k8s.io/v1beta1`"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("not found"), "{args:?}: {}", r.stderr);
    }
    // In another namespace it is not there: still "not found", exit 2.
    let r = run(&["tree", "--demo", "-n", "research", "pg/old-group"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("not found in namespace `research`"),
        "{}",
        r.stderr
    );
}

/// The demo with batch-low-0 started at Go's zero time and batch-low-1 at the API server's
/// last second: the file loads (the whole file was rejected), both times are warned about,
/// and the preemption of both counts no GPU-hours for them (it said 142068384).
#[test]
fn implausible_timestamps_are_warned_about_not_turned_into_gpu_hours() {
    let demo = std::fs::read_to_string(crate::support::root().join("testdata/clusters/demo.yaml"))
        .unwrap();
    let mut docs: Vec<String> = demo.split("\n---\n").map(str::to_owned).collect();
    for (pod, time) in [
        ("batch-low-0", "0001-01-01T00:00:00Z"),
        ("batch-low-1", "9999-12-31T23:59:59Z"),
    ] {
        let doc = docs
            .iter_mut()
            .find(|d| d.contains("kind: Pod\n") && d.contains(&format!("  name: {pod}\n")))
            .unwrap();
        let at = doc.find("  startTime: \"").unwrap() + "  startTime: \"".len();
        let end = at + doc[at..].find('"').unwrap();
        doc.replace_range(at..end, time);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("odd-times.yaml");
    std::fs::write(&file, docs.join("\n---\n")).unwrap();
    let file = file.to_string_lossy().into_owned();
    let r = run(&["simulate", "--from", &file]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout
            .contains("evicts 2 pod(s): PodGroup/ml/batch-low; frees 16 GPU(s), loses 0 GPU-hours"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("warning: 2 implausible timestamp(s), not used for ages or GPU-hours: Pod `ml/batch-low-0` `status.startTime` `0001-01-01T00:00:00Z` (Go's zero time), Pod `ml/batch-low-1` `status.startTime` `9999-12-30T22:00:00Z or later` (in the future)"),
        "{}",
        r.stderr
    );
    let r = run(&["explain", "pg/urgent", "--from", &file]);
    assert!(
        r.stdout.contains("loses 0 GPU-hours of work"),
        "{}",
        r.transcript()
    );
}

/// Lint applies the API server's metadata rules to every kind: a custom resource's name,
/// namespace, label key and value, a Service's DNS-1035 name, a CronJob's 52-character limit,
/// and the 262,144-byte annotation total. Errors, exit 1.
#[test]
fn lint_enforces_metadata_rules_on_every_kind() {
    let r = run(&[
        "lint",
        "testdata/manifests/lint/bad/WAS502-metadata-of-any-kind.yaml",
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    for words in [
        "`metadata.name`: `Bad_Name` is not a DNS subdomain: a lowercase RFC 1123 subdomain must consist of",
        "`metadata.namespace`: `Team_A` is not a DNS label",
        "key `a/b/c` is not a qualified name",
        "is not a label value: must be no more than 63 characters",
        "`metadata.name`: `1-train` is not a DNS-1035 label",
        "is not a DNS subdomain of at most 52 characters: must be no more than 52 characters",
    ] {
        assert!(r.stdout.contains(words), "{words}: {}", r.stdout);
    }
    let r = run(&[
        "lint",
        "testdata/manifests/lint/bad/WAS111-annotations-too-large.yaml",
    ]);
    assert_eq!(r.code, 1, "{}", r.transcript());
    assert!(
        r.stdout.contains("WAS111") && r.stdout.contains(
            "`metadata.annotations` total 264076 bytes (keys and values); the API server allows at most 262144 bytes"
        ),
        "{}",
        r.stdout
    );
    // Under the limit is clean (for WAS111), whatever the kind.
    let mut cmd = wasctl();
    cmd.args(["lint", "-"]).stdin(std::process::Stdio::piped());
    let small = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ok\n  annotations:\n    example.com/a: b\n";
    let r = {
        use std::io::Write;
        let mut child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(small.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    assert_eq!(r.0, Some(0), "{}", r.1);
    assert!(
        !r.1.contains("WAS111") && !r.1.contains("WAS502"),
        "{}",
        r.1
    );
}
