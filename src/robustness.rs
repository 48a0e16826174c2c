//! Property tests over the whole pipeline (issue 14): fixtures from `testdata/` mutated at
//! random (a line dropped or repeated, a value replaced by a hostile one: huge, negative, empty,
//! of another type, with terminal escapes) go through every pure command core: load, graph and
//! tree, simulate, explain of the first unit, doctor, lint, and the text renderers. No input may
//! panic; errors are fine. The loader's own property tests are in `snapshot::source::files`;
//! `fuzz/` fuzzes the loader for longer.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;

use crate::graph::Graph;
use crate::snapshot::source::Collector;
use crate::snapshot::source::files::load_str;

/// Values a mutation puts in place of a scalar.
const HOSTILE: &[&str] = &[
    "\"\"",
    "-1",
    "0",
    "2147483647",
    "-2147483648",
    "9223372036854775807",
    "1e308",
    "\"7Ei\"",
    "\"-5\"",
    "\"NaN\"",
    "null",
    "[]",
    "{}",
    "true",
    "\"\\u001b[2J\\u0007\"",
    "\"a/b/../../c\"",
    "\"x\u{202e}y\"",
];

/// The corpus: every scenario cluster and the explain, doctor, capacity and diff fixtures.
fn corpus() -> &'static [(PathBuf, String)] {
    static CORPUS: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut files = Vec::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|x| x == "yaml" || x == "json")
                    && !path.to_string_lossy().contains("/manifests/bad")
                    && let Ok(text) = std::fs::read_to_string(&path)
                    && text.len() < 200_000
                {
                    files.push((path, text));
                }
            }
        }
        files.sort();
        files
    })
}

/// Replaces one value of `line` by `value`: in a block line (`key: value`) the whole value,
/// in a flow line (`{"a": 1, "b": {"c": 2}}`, as the scenario fixtures are written) the
/// `pick`-th value, up to the next `,` or closing bracket at its depth.
fn replace_value(line: &str, pick: usize, value: &str) -> String {
    let starts: Vec<usize> = line.match_indices(": ").map(|(i, _)| i + 2).collect();
    if starts.is_empty() {
        return line.to_owned();
    }
    let start = starts[pick % starts.len()];
    let mut depth = 0i32;
    let mut quoted = false;
    let mut end = line.len();
    let mut escaped = false;
    for (i, c) in line[start..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '{' | '[' if !quoted => depth += 1,
            '}' | ']' if !quoted && depth == 0 => {
                end = start + i;
                break;
            }
            '}' | ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                end = start + i;
                break;
            }
            _ => {}
        }
    }
    format!("{}{value}{}", &line[..start], &line[end..])
}

fn mutate(text: &str, line: usize, how: u8, value: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return text.to_owned();
    }
    let at = line % lines.len();
    match how % 4 {
        0 => {
            lines.remove(at);
        }
        1 => {
            let copy = lines[at].clone();
            lines.insert(at, copy);
        }
        _ => {
            let replaced = replace_value(&lines[at], line / lines.len(), value);
            lines[at] = replaced;
        }
    }
    lines.join("\n")
}

/// Every core a command runs, on `text` loaded as `name`.
fn run_everything(text: &str, name: &str) {
    let mut c = Collector::new();
    if load_str(text, name, &mut c).is_ok() {
        let s = c.finish();
        let g = Graph::build(&s);
        let now = s.now();
        let options = crate::sched::Options::default();
        let plan = crate::sched::simulate(&s, &options);
        let tree = crate::tree::build(
            &s,
            &g,
            &crate::tree::TreeScope::default(),
            now,
            Vec::new(),
            Some(&plan),
        );
        let mut out = Vec::new();
        let _ = crate::render::tree::write_text(
            &mut out,
            &tree,
            crate::render::color::ColorChoice::Never.styler(),
            crate::render::tree::TextOptions::default(),
        );
        let _ = crate::render::plan::write_text(
            &mut out,
            &plan,
            crate::render::color::ColorChoice::Never.styler(),
            crate::render::plan::TextOptions::default(),
        );
        if let Some(u) = plan.units.first() {
            let d = crate::explain::explain(&s, &options, &u.obj_ref());
            let _ = crate::render::explain::write_text(
                &mut out,
                &d,
                crate::render::color::ColorChoice::Never.styler(),
            );
        }
        let _ = crate::doctor::report(
            &s,
            &g,
            &crate::doctor::Options {
                now,
                gate_overrides: std::collections::BTreeMap::new(),
                stuck_after: crate::doctor::DEFAULT_STUCK_AFTER,
            },
            &crate::doctor::Selection::default(),
        );
    }
    let input = crate::lint::Input {
        name: name.to_owned(),
        text: Ok(text.to_owned()),
    };
    let _ = crate::lint::lint(&[input], &crate::lint::Options::default(), None);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixtures_never_panic_any_command(
        file in 0usize..10_000,
        line in 0usize..10_000,
        how in 0u8..4,
        value in 0usize..HOSTILE.len(),
    ) {
        let corpus = corpus();
        prop_assume!(!corpus.is_empty());
        let (path, text) = &corpus[file % corpus.len()];
        let mutated = mutate(text, line, how, HOSTILE[value]);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("x.yaml");
        run_everything(&mutated, name);
    }
}

#[test]
fn values_are_replaced_in_block_and_flow_lines() {
    assert_eq!(replace_value("  minCount: 3", 0, "-1"), "  minCount: -1");
    let flow = r#"{"kind": "Pod", "spec": {"a": [1, 2], "b": "x,y"}, "z": 1}"#;
    assert_eq!(
        replace_value(flow, 0, "null"),
        r#"{"kind": null, "spec": {"a": [1, 2], "b": "x,y"}, "z": 1}"#
    );
    assert_eq!(
        replace_value(flow, 1, "[]"),
        r#"{"kind": "Pod", "spec": [], "z": 1}"#
    );
    assert_eq!(
        replace_value(flow, 3, "0"),
        r#"{"kind": "Pod", "spec": {"a": [1, 2], "b": 0}, "z": 1}"#
    );
    assert_eq!(replace_value("no value", 0, "0"), "no value");
}

#[test]
fn the_corpus_is_not_empty_and_runs_unmutated() {
    let corpus = corpus();
    assert!(corpus.len() > 100, "{} fixtures", corpus.len());
    // A sample of the corpus unmutated (all of it would repeat the scenario tests).
    for (path, text) in corpus.iter().step_by(17) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("x.yaml");
        run_everything(text, name);
    }
}
