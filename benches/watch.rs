//! B11: a watch event to an updated plan at S (1,000 nodes, 30,000 running pods, 50 pending
//! 8-pod gangs), on a seeded synthetic cluster (docs/performance.md). Run with
//! `cargo bench --features testutil --bench watch`. No test asserts on timing.
//!
//! Each iteration applies the next event of a scripted churn ([`churn_event`]: a pod
//! created, bound, a running pod deleted and created again, the pod deleted, a node cordoned
//! or uncordoned) as `--watch` does, then refreshes what is derived from the objects:
//! `in_place` as `--watch` does now (the index updated per event, the rest from what the
//! event touched), `rebuild` as it did before (every index and derived fact built again).
//! The `event_to_plan` cases then simulate the cluster (a fresh `prepare` and queue run:
//! the prepared state is not kept across events yet), and `snapshot_clone` times the copy
//! of the snapshot `--watch` keeps of the previous result per batch.

use std::cell::Cell;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use wasctl::sched::{Options, simulate};
use wasctl::snapshot::Snapshot;
use wasctl::testutil::synthetic::{
    Profile, apply_event, churn_event, refresh_in_place, refresh_rebuild, snapshot,
};

/// S: 1,000 nodes, 30,000 running pods, 50 pending 8-pod gangs.
fn profile() -> Profile {
    Profile {
        gangs: vec![(50, 8)],
        ..Profile::with_nodes(1_000)
    }
}

/// Applies the next churn event to `s` and refreshes it with `refresh`.
fn step(p: &Profile, s: &mut Snapshot, t: &Cell<usize>, refresh: fn(&mut Snapshot)) {
    let e = churn_event(p, t.get());
    t.set(t.get() + 1);
    apply_event(s, &e).expect("churn events fit their types");
    refresh(s);
}

fn watch(c: &mut Criterion) {
    let p = profile();
    let mut s = snapshot(&p, 1);
    let t = Cell::new(0);
    let mut group = c.benchmark_group("B11_watch_event_1k_nodes_30k_pods");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("event_to_index/in_place", |b| {
        b.iter(|| step(&p, &mut s, &t, refresh_in_place));
    });
    group.bench_function("event_to_index/rebuild", |b| {
        b.iter(|| step(&p, &mut s, &t, refresh_rebuild));
    });
    group.bench_function("snapshot_clone", |b| {
        b.iter_with_large_drop(|| black_box(&s).clone());
    });
    group.sample_size(10);
    let options = Options::default();
    group.bench_function("event_to_plan/in_place", |b| {
        b.iter_with_large_drop(|| {
            step(&p, &mut s, &t, refresh_in_place);
            simulate(&s, &options)
        });
    });
    group.bench_function("event_to_plan/rebuild", |b| {
        b.iter_with_large_drop(|| {
            step(&p, &mut s, &t, refresh_rebuild);
            simulate(&s, &options)
        });
    });
    group.finish();
}

criterion_group!(benches, watch);
criterion_main!(benches);
