//! Criterion bench for `lint` over a 20,000-long CompositePodGroup parent chain (issue 46 item
//! 4: the chain check was cubic, a 4,000-long chain took 28 s; it is one memoised walk now,
//! target ≤ 0.5 s). `20000_long`: the input is made as text, as a user's file would be, and the
//! whole of `lint` is timed: the loader's cut, the positioned parse (the loader's verdict is
//! asked for only where that parse cannot vouch for it), every rule and
//! the cross-object checks. `20000_long_hierarchy_only`: the hierarchy checks alone
//! (`references::check_hierarchy`: parent cycles, depth, mixed Workloads) over the same chain,
//! already parsed. Run with `cargo bench --features testutil --bench lint`. No test asserts on
//! timing.

#![allow(clippy::print_stderr)]

use std::fmt::Write as _;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use wasctl::lint::span::SpanNode;
use wasctl::lint::{Config, Document, Emitter, Input, Object, ObjectId, Options, lint, rules};

/// `n` CompositePodGroups `c0 ← c1 ← … ← c(n-1)`, each naming the one before as parent.
fn chain(n: usize) -> String {
    let mut text = String::from(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: pipeline, namespace: ml}\nspec:\n  compositePodGroupTemplates:\n  - name: stage\n    schedulingPolicy: {basic: {}}\n",
    );
    for i in 0..n {
        let _ = write!(
            text,
            "---\napiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {{name: c{i}, namespace: ml}}\nspec:\n  workloadRef: {{workloadName: pipeline, templateName: stage}}\n  schedulingPolicy: {{basic: {{}}}}\n"
        );
        if i > 0 {
            let _ = writeln!(text, "  parentCompositePodGroupName: c{}", i - 1);
        }
    }
    text
}

/// The objects of [`chain`]`(n)` as lint holds them after parsing (the Workload is not needed).
fn chain_objects(n: usize) -> Vec<Object> {
    (0..n)
        .map(|i| {
            let mut value = json!({
                "apiVersion": "scheduling.k8s.io/v1alpha3",
                "kind": "CompositePodGroup",
                "metadata": {"name": format!("c{i}"), "namespace": "ml"},
                "spec": {
                    "workloadRef": {"workloadName": "pipeline", "templateName": "stage"},
                    "schedulingPolicy": {"basic": {}},
                },
            });
            if i > 0 {
                value["spec"]["parentCompositePodGroupName"] = Value::from(format!("c{}", i - 1));
            }
            Object {
                doc: 0,
                prefix: Vec::new(),
                value,
                api_version: "scheduling.k8s.io/v1alpha3".to_owned(),
                kind: "CompositePodGroup".to_owned(),
                id: ObjectId {
                    kind: "CompositePodGroup".to_owned(),
                    namespace: Some("ml".to_owned()),
                    name: format!("c{i}"),
                },
                namespace: "ml".to_owned(),
            }
        })
        .collect()
}

fn parent_chain(c: &mut Criterion) {
    let inputs = vec![Input {
        name: "chain.yaml".to_owned(),
        text: Ok(chain(20_000)),
    }];
    let options = Options::default();
    let report = lint(&inputs, &options, None);
    eprintln!(
        "{} objects, {} errors (WAS314: the chain is deeper than 4 levels)",
        report.summary.objects, report.summary.errors
    );
    let mut group = c.benchmark_group("lint_parent_chain");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("20000_long", |b| {
        b.iter(|| lint(&inputs, &options, None));
    });
    let objects = chain_objects(20_000);
    let docs = [Document {
        file: "chain.yaml".to_owned(),
        line: 1,
        tree: SpanNode::unpositioned(&Value::Null, (1, 1)),
    }];
    let config = Config::default();
    group.bench_function("20000_long_hierarchy_only", |b| {
        b.iter(|| {
            let mut em = Emitter::new(&docs, &config);
            rules::references::check_hierarchy(&objects, None, &mut em);
            em
        });
    });
    group.finish();
}

criterion_group!(benches, parent_chain);
criterion_main!(benches);
