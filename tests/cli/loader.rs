//! One loader for every path (issue 46 item 3): the same text read through `--from FILE`,
//! `--from -` and `lint` gives the same objects, with kubectl's acceptance of YAML streams,
//! JSON streams (concatenated, or `---`-separated as kubectl's `YAMLOrJSONDecoder` in
//! k8s.io/apimachinery/pkg/util/yaml/decoder.go reads them), JSON arrays, `List`s, and YAML
//! anchors within a document; parser wording never reaches the user.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::Stdio;

use crate::support::{Run, run, run_cmd, wasctl};

const NODE_A: &str = r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}"#;
const NODE_B: &str = r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}}"#;

/// The inputs of the issue, each with the nodes it holds.
fn inputs() -> Vec<(&'static str, String)> {
    vec![
        (
            "a JSON stream with ---",
            format!("{NODE_A}\n---\n{NODE_B}\n"),
        ),
        ("a JSON array", format!("[{NODE_A},\n {NODE_B}]\n")),
        (
            "concatenated objects",
            format!("{NODE_A}\n{NODE_B}\n"),
        ),
        (
            "a YAML alias to an anchor earlier in the same List",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n    labels: &common {zone: z1, rack: r1}\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n    labels: *common\n".to_owned(),
        ),
        (
            "a YAML stream",
            "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n".to_owned(),
        ),
        (
            "a YAML flow mapping then JSON",
            "{apiVersion: v1, kind: Node, metadata: {name: a}}\n---\n{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"b\"}}\n".to_owned(),
        ),
    ]
}

/// The nodes `snapshot` wrote, by name.
fn snapshot_nodes(r: &Run) -> BTreeSet<String> {
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| {
        panic!("snapshot -o json prints JSON ({e}): {}", r.transcript());
    });
    v["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|o| o["kind"] == "Node")
        .map(|o| o["metadata"]["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

fn from_stdin(text: &str) -> Run {
    let mut cmd = wasctl();
    cmd.args(["snapshot", "-o", "json", "--from", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("the binary ends");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn the_same_text_gives_the_same_objects_through_from_file_from_stdin_and_lint() {
    let dir = tempfile::tempdir().unwrap();
    let want: BTreeSet<String> = ["a".to_owned(), "b".to_owned()].into();
    for (what, text) in inputs() {
        for name in ["in.yaml", "in.json", "in.txt"] {
            // A `.json` file is strict JSON: YAML in it is not read as YAML.
            if name == "in.json" && !text.trim_start().starts_with(['{', '[']) {
                continue;
            }
            if name == "in.json" && text.contains("{apiVersion") {
                continue;
            }
            let path = dir.path().join(name);
            std::fs::write(&path, &text).unwrap();
            let path = path.to_str().unwrap();
            let file = run(&["snapshot", "-o", "json", "--from", path]);
            assert_eq!(file.code, 0, "{what} in {name}: {}", file.transcript());
            assert_eq!(snapshot_nodes(&file), want, "{what} in {name}");
            // JUnit names one testcase per linted object (`Kind namespace/name`).
            let lint = run(&["lint", path, "-o", "junit"]);
            let linted: BTreeSet<String> = lint
                .stdout
                .split("<testcase name=\"Node ")
                .skip(1)
                .filter_map(|rest| rest.split('"').next())
                .map(str::to_owned)
                .collect();
            assert_eq!(linted, want, "{what} in {name}: {}", lint.transcript());
            assert!(
                !lint.stdout.contains("WAS001"),
                "{what} in {name}: lint refuses what --from reads: {}",
                lint.stdout
            );
        }
        let stdin = from_stdin(&text);
        assert_eq!(stdin.code, 0, "{what} on stdin: {}", stdin.transcript());
        assert_eq!(snapshot_nodes(&stdin), want, "{what} on stdin");
    }
}

/// Library wording never leaks: serde-saphyr's advice to its caller and the Rust type of a
/// field are said in our words, with the file, line and field.
#[test]
fn parser_wording_is_ours() {
    let dir = tempfile::tempdir().unwrap();
    let dup = dir.path().join("dup.yaml");
    std::fs::write(
        &dup,
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  name: b\n",
    )
    .unwrap();
    let r = run(&["tree", "--from", dup.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(!r.stderr.contains("DuplicateKeyPolicy"), "{}", r.stderr);
    assert!(
        r.stderr.contains("duplicate key `name` at line 5"),
        "{}",
        r.stderr
    );
    let lint = run(&["lint", dup.to_str().unwrap()]);
    assert!(
        !lint.stdout.contains("DuplicateKeyPolicy"),
        "{}",
        lint.stdout
    );

    let big = dir.path().join("big.yaml");
    std::fs::write(
        &big,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  priority: 2147483648\n  containers: [{name: c, image: i}]\n",
    )
    .unwrap();
    let r = run(&["tree", "--from", big.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        !r.stderr.contains("expected an integer, found the number"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("spec.priority")
            && r.stderr
                .contains("2147483648 is out of range: the field takes a 32-bit integer"),
        "{}",
        r.stderr
    );
    // lint says the same, in the same words.
    let lint = run(&["lint", big.to_str().unwrap()]);
    assert_eq!(lint.code, 1, "{}", lint.transcript());
    assert!(
        lint.stdout.contains("field `spec.priority`")
            && lint.stdout.contains("2147483648 is out of range")
            && !lint.stdout.contains("expected i32")
            && !lint.stdout.contains("invalid value"),
        "{}",
        lint.stdout
    );
}

/// `--add` and `capacity --shape` read through the same loader: a JSON stream with `---`
/// is read there too.
#[test]
fn add_reads_what_from_reads() {
    let dir = tempfile::tempdir().unwrap();
    let add = dir.path().join("add.yaml");
    std::fs::write(&add, format!("{NODE_A}\n---\n{NODE_B}\n")).unwrap();
    let r = run_cmd(wasctl().args([
        "simulate",
        "--demo",
        "--add",
        add.to_str().unwrap(),
        "-o",
        "json",
    ]));
    assert_eq!(r.code, 0, "{}", r.transcript());
}
