//! Criterion benches on seeded synthetic clusters (shared/design/performance.md B1, B2, B2x,
//! B4, B4t, B5). Run with `cargo bench --features testutil`; figures are quoted in README.
//! No test asserts on timing.
//!
//! B1 measures loading and indexing (parse, snapshot, compiled cluster state and queue). The
//! scheduling benches start each iteration from a clone of the prepared state (made outside
//! the timed section, as scheduler_perf excludes its init pods) and time the queue run.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use wasctl::sched::schedule_one::Mode;
use wasctl::sched::{Options, Prepared, prepare};
use wasctl::snapshot::source::Collector;
use wasctl::snapshot::source::files::load_str;
use wasctl::testutil::synthetic::{Profile, json_text, snapshot};

/// Times the queue run of a fresh clone of `prepared`; cloning and dropping stay untimed.
fn run(b: &mut criterion::Bencher<'_>, prepared: &Prepared<'_>) {
    b.iter_batched_ref(|| prepared.clone(), Prepared::run, BatchSize::LargeInput);
}

/// B1: load + index 5,000 nodes and 150,000 pods from one JSON List.
fn load_index(c: &mut Criterion) {
    let profile = Profile {
        running_pods: 150_000,
        ..Profile::with_nodes(5_000)
    };
    let text = json_text(&profile, 1);
    let mut group = c.benchmark_group("B1_load_index");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("json_5k_nodes_150k_pods", |b| {
        b.iter(|| {
            let mut collector = Collector::new();
            load_str(black_box(&text), "bench.json", &mut collector).expect("synthetic JSON loads");
            let snapshot = collector.finish();
            black_box(prepare(&snapshot, &Options::default()).units());
            snapshot
        });
    });
    group.finish();
}

/// B2/B2x: basic pods on 5,000 nodes, compat sampling and exhaustive scan.
fn basic_pods(c: &mut Criterion) {
    let pending = 2_000;
    let profile = Profile {
        pending_pods: pending,
        ..Profile::with_nodes(5_000)
    };
    let s = snapshot(&profile, 2);
    let mut group = c.benchmark_group("B2_basic_pods_5k_nodes");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(pending as u64));
    for mode in [Mode::Compat, Mode::Exhaustive] {
        let options = Options {
            mode,
            ..Options::default()
        };
        let prepared = prepare(&s, &options);
        group.bench_function(format!("{mode:?}").to_lowercase(), |b| run(b, &prepared));
    }
    group.finish();
}

/// B4: 3-pod gang attempts (1,000 gangs) on 5,000 nodes, compat mode; B4t: 4-pod gangs with a
/// rack constraint.
fn gangs(c: &mut Criterion) {
    let mut group = c.benchmark_group("B4_gang_attempts_5k_nodes");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    let plain = snapshot(
        &Profile {
            gangs: vec![(1_000, 3)],
            ..Profile::with_nodes(5_000)
        },
        3,
    );
    group.throughput(Throughput::Elements(1_000));
    let compat = Options {
        mode: Mode::Compat,
        ..Options::default()
    };
    let prepared = prepare(&plain, &compat);
    group.bench_function("3_pod_gangs_compat", |b| run(b, &prepared));
    let tas = snapshot(
        &Profile {
            gangs: vec![(250, 4)],
            rack_constraint: true,
            ..Profile::with_nodes(5_000)
        },
        4,
    );
    group.throughput(Throughput::Elements(250));
    let prepared = prepare(&tas, &compat);
    group.bench_function("4_pod_rack_gangs_compat", |b| run(b, &prepared));
    group.finish();
}

/// B5: DRA. 500 nodes × 10 (and × 20) devices filled by pods with one-device claims, and a
/// pathological claim that ends on the step budget.
fn dra(c: &mut Criterion) {
    let mut group = c.benchmark_group("B5_dra");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    for devices in [10, 20] {
        let pods = 500 * devices;
        let s = snapshot(
            &Profile {
                running_pods: 0,
                devices_per_node: devices,
                claim_pods: pods,
                ..Profile::with_nodes(500)
            },
            5,
        );
        group.throughput(Throughput::Elements(pods as u64));
        let compat = Options {
            mode: Mode::Compat,
            ..Options::default()
        };
        let prepared = prepare(&s, &compat);
        group.bench_function(format!("500_nodes_x_{devices}_devices_compat"), |b| {
            run(b, &prepared);
        });
    }
    group.finish();
}

criterion_group!(benches, load_index, basic_pods, gangs, dra);
criterion_main!(benches);
