//! Criterion bench for `lint` over a 20,000-long CompositePodGroup parent chain (issue 46 item
//! 4: the chain check was cubic, a 4,000-long chain took 28 s; it is one memoised walk now,
//! target ≤ 0.5 s). The input is made as text, as a user's file would be, and the whole of
//! `lint` is timed: the loader's cut and verdict, the positioned parse, every rule and the
//! cross-object checks. Run with `cargo bench --features testutil --bench lint`. No test
//! asserts on timing.

#![allow(clippy::print_stderr)]

use std::fmt::Write as _;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use wasctl::lint::{Input, Options, lint};

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
    group.finish();
}

criterion_group!(benches, parent_chain);
criterion_main!(benches);
