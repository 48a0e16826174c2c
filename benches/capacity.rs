//! Criterion bench for `capacity` (issue 20): 100 copies of an 8-pod gang on 5,000 nodes with
//! 150,000 running pods, with and without a rack constraint. Each iteration starts from a clone
//! of the loaded snapshot (made outside the timed section: loading is B1) and times everything
//! `capacity` does: adding the copies, preparing once, the run without preemption and (when a
//! unit of it did not fit) the run with it. Freeing the snapshot and the state afterwards is
//! not timed: the command leaves them to the exiting process (`capacity_keeping`). `prepare`
//! times the preparation alone (the cluster state, queue and victim index that every simulating
//! command builds once, as B1 counts it), so that the copies' share is the difference. Run with
//! `cargo bench --features testutil --bench capacity`; the figures are in docs/performance.md. No
//! test asserts on timing.

// The copy counts are printed to stderr so a run shows what was measured.
#![allow(clippy::print_stderr)]

use std::time::Duration;
use wasctl::snapshot::{ObjKind, ObjRef};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use wasctl::plan::capacity::{CapacityOptions, Shape, capacity, capacity_keeping};
use wasctl::sched::schedule_one::Mode;
use wasctl::sched::{Options, prepare};
use wasctl::testutil::synthetic::{Profile, snapshot};

fn copies(c: &mut Criterion) {
    let mut group = c.benchmark_group("B9_capacity_100_copies_8_pod_gang_5k_nodes");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(40));
    for rack in [false, true] {
        let s = snapshot(
            &Profile {
                gangs: vec![(1, 8)],
                rack_constraint: rack,
                ..Profile::with_nodes(5_000)
            },
            9,
        );
        let shape =
            Shape::from_snapshot(&s, &ObjRef::new(ObjKind::PodGroup, "train", "gang-00000"))
                .expect("the synthetic gang exists");
        let copt = CapacityOptions {
            max_copies: 100,
            domain_key: Some("topology.kubernetes.io/rack".to_owned()),
        };
        let options = Options {
            mode: Mode::Exhaustive,
            ..Options::default()
        };
        let report = capacity(s.clone(), &shape, &options, &copt);
        eprintln!(
            "rack constraint {rack}: {} copies, {} with preemption",
            report.copies, report.copies_with_preemption
        );
        let name = if rack { "rack_constraint" } else { "anywhere" };
        group.bench_function(format!("{name}/prepare"), |b| {
            b.iter_with_large_drop(|| prepare(&s, &options));
        });
        group.bench_function(name, |b| {
            b.iter_batched(
                || s.clone(),
                |s| capacity_keeping(s, &shape, &options, &copt),
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, copies);
criterion_main!(benches);
