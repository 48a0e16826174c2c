//! Criterion benches on seeded synthetic clusters (shared/design/performance.md B1, B2, B2x,
//! B4, B4t, B5). Run with `cargo bench --features testutil`; figures are in docs/performance.md.
//! No test asserts on timing.
//!
//! B1 measures loading and indexing (parse, snapshot, compiled cluster state and queue). The
//! scheduling benches start each iteration from a clone of the prepared state (made outside
//! the timed section, as scheduler_perf excludes its init pods) and time the queue run.

// Figures criterion cannot report (a p99, a verdict) are printed to stderr.
#![allow(clippy::print_stderr)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use wasctl::sched::node_state::ClusterState;
use wasctl::sched::preempt::victims::VictimIndex;
use wasctl::sched::profile::{
    Profile as SchedulerProfile, Profiles, ResourceSpec, ScoringStrategy, Strategy,
};
use wasctl::sched::queue;
use wasctl::sched::schedule_one::Mode;
use wasctl::sched::{Options, Prepared, prepare};
use wasctl::snapshot::Snapshot;
use wasctl::snapshot::facts::Component;
use wasctl::snapshot::source::Collector;
use wasctl::snapshot::source::files::load_str;
use wasctl::testutil::kueue::{KueueProfile, snapshot as kueue_snapshot, stage_one};
use wasctl::testutil::synthetic::{Profile, json_text, snapshot};

/// The bin-packing profile of GPU clusters (issue 48): NodeResourcesFit `MostAllocated` on
/// `nvidia.com/gpu`, as the `default-scheduler` profile. Its B2/B4/B4t cases should stay within
/// 10 % of the default profile's.
fn gpu_binpack() -> Profiles {
    Profiles::new(
        vec![SchedulerProfile {
            fit: ScoringStrategy {
                strategy: Strategy::MostAllocated,
                resources: vec![ResourceSpec::new("nvidia.com/gpu", 1)],
            },
            ..SchedulerProfile::default()
        }],
        Vec::new(),
    )
}

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
    // Freeing the snapshot and the state is left out of the timed section
    // (`iter_with_large_drop`): a command exits instead.
    group.bench_function("json_5k_nodes_150k_pods", |b| {
        b.iter_with_large_drop(|| {
            let mut collector = Collector::new();
            load_str(black_box(&text), "bench.json", &mut collector).expect("synthetic JSON loads");
            let snapshot = collector.finish();
            let gates = snapshot
                .facts
                .gates_for(Component::KubeScheduler, &Default::default());
            let state = ClusterState::build(&snapshot, &gates);
            let units = queue::build(&snapshot, &state, &gates);
            let victims = VictimIndex::build(&snapshot, &state, &gates);
            (snapshot, state, units, victims)
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
    let binpack = Options {
        mode: Mode::Compat,
        profiles: gpu_binpack(),
        ..Options::default()
    };
    let prepared = prepare(&s, &binpack);
    group.bench_function("compat_most_allocated_gpu", |b| run(b, &prepared));
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
    let binpack = Options {
        profiles: gpu_binpack(),
        ..compat.clone()
    };
    let prepared = prepare(&plain, &binpack);
    group.bench_function("3_pod_gangs_compat_most_allocated_gpu", |b| {
        run(b, &prepared);
    });
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
    let prepared = prepare(&tas, &binpack);
    group.bench_function("4_pod_rack_gangs_compat_most_allocated_gpu", |b| {
        run(b, &prepared);
    });
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

/// B5p: the DynamicResources filter per (claim, node) on the half-filled 500 × 10 cluster: the
/// mean from criterion, and the p99 over every (pod, node) pair of 100 pods, printed.
fn dra_filter_p99(c: &mut Criterion) {
    let s = snapshot(
        &Profile {
            running_pods: 0,
            devices_per_node: 10,
            claim_pods: 2_600,
            ..Profile::with_nodes(500)
        },
        5,
    );
    // Place the first 2,500 claim pods (half the devices), then time the next ones' filters.
    let mut prepared = prepare(&s, &Options::default());
    let plan = prepared.run();
    let gates = s
        .facts
        .gates_for(Component::KubeScheduler, &Default::default());
    let mut state = ClusterState::build(&s, &gates);
    for unit in plan.units.iter().take(2_500) {
        for p in &unit.placements {
            if let (Some(pod), Some(node)) = (
                state.pod_id(&unit.namespace, &p.pod),
                state.node_ids.get(&p.node).copied(),
            ) {
                state.assume(pod, node);
            }
        }
    }
    let pods: Vec<usize> = plan.units[2_500..]
        .iter()
        .filter_map(|u| state.pod_id(&u.namespace, &u.name))
        .collect();
    let mut times: Vec<Duration> = Vec::new();
    for &pod in &pods {
        for node in &state.nodes {
            let t = Instant::now();
            black_box(state.dra.filter(pod, node));
            times.push(t.elapsed());
        }
    }
    times.sort_unstable();
    if let Some(p99) = times.get(times.len() * 99 / 100) {
        eprintln!(
            "B5p DynamicResources filter per (claim, node): p99 {:.1} µs over {} calls (target ≤ 50 µs)",
            p99.as_secs_f64() * 1e6,
            times.len()
        );
    }
    let mut group = c.benchmark_group("B5p_dra_filter");
    group.throughput(Throughput::Elements(state.nodes.len() as u64));
    let pod = pods[0];
    group.bench_function("one_claim_all_500_nodes", |b| {
        b.iter(|| {
            for node in &state.nodes {
                black_box(state.dra.filter(pod, node));
            }
        });
    });
    group.finish();
}

/// A cluster of `nodes` identical nodes, each with its own slice of 64 devices in three
/// attribute groups of at most 22, and one pod whose claim has 32 one-device requests under one
/// matchAttribute constraint: no solution anywhere.
fn pathological(nodes: usize) -> Snapshot {
    let devices: Vec<serde_json::Value> = (0..64)
        .map(|d| {
            serde_json::json!({"name": format!("dev-{d:02}"),
            "attributes": {"numa": {"int": d % 3}, "index": {"int": d}}})
        })
        .collect();
    let requests: Vec<serde_json::Value> = (0..32)
        .map(|r| {
            serde_json::json!({"name": format!("r{r:02}"),
            "exactly": {"deviceClassName": "dev.example.com"}})
        })
        .collect();
    let mut items = vec![
        serde_json::json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "dev.example.com"},
         "spec": {"selectors": [{"cel": {"expression": "device.driver == \"dev.example.com\""}}]}}),
        serde_json::json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "wide", "namespace": "default"},
         "spec": {"devices": {"requests": requests,
                  "constraints": [{"matchAttribute": "dev.example.com/numa"}]}}}),
        serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "wide", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "x"}],
                  "resourceClaims": [{"name": "all", "resourceClaimName": "wide"}]},
         "status": {"phase": "Pending"}}),
    ];
    for n in 0..nodes {
        let name = format!("node-{n:04}");
        items.push(
            serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name,
            "labels": {"kubernetes.io/hostname": name}},
         "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110"}}}),
        );
        items.push(serde_json::json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": format!("{name}-dev")},
         "spec": {"driver": "dev.example.com", "nodeName": name,
                  "pool": {"name": name, "generation": 1, "resourceSliceCount": 1}, "devices": devices}}));
    }
    let objects = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    let mut collector = Collector::new();
    load_str(&objects.to_string(), "pathological.json", &mut collector)
        .expect("pathological cluster loads");
    collector.finish()
}

/// B5x: the pathological claim on one node must end on the step budget, with the budget
/// verdict; on 5,000 identical nodes node equivalence answers all but the first node's filter
/// without searching again.
fn dra_pathological(c: &mut Criterion) {
    let mut group = c.benchmark_group("B5x_dra_pathological");
    group.sample_size(10);
    for (nodes, name) in [
        (1, "32_requests_64_devices_match_attribute"),
        (5_000, "same_claim_5000_identical_nodes"),
    ] {
        let s = pathological(nodes);
        let prepared = prepare(&s, &Options::default());
        let plan = prepared.clone().into_plan();
        let reasons = plan
            .units
            .first()
            .and_then(|u| u.trace.pods.first())
            .map(|p| format!("{:?}", p.claim_reasons))
            .unwrap_or_default();
        eprintln!("B5x pathological claim on {nodes} node(s), verdict: {reasons}");
        group.bench_function(name, |b| run(b, &prepared));
    }
    group.finish();
}

/// B7 (issue 49): Kueue's stage one, admission until it settles and the admitted Jobs
/// started, with 1,000 ClusterQueues in 50 cohorts and 10,000 pending Kueue Workloads over
/// the L node set (5,000 nodes, 150,000 running pods). Target: at most 1 s beyond loading.
fn kueue_stage_one(c: &mut Criterion) {
    let s = kueue_snapshot(&Profile::with_nodes(5_000), 1, &KueueProfile::issue_49());
    let start = Instant::now();
    let admitted = stage_one(&s);
    eprintln!(
        "B7_kueue_stage_one: {admitted} of 10000 workloads admitted, first run {:.3} s",
        start.elapsed().as_secs_f64()
    );
    let mut group = c.benchmark_group("B7_kueue_stage_one");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("1000_cqs_50_cohorts_10k_workloads_5k_nodes", |b| {
        b.iter(|| stage_one(black_box(&s)));
    });
    group.finish();
}

criterion_group!(
    benches,
    load_index,
    basic_pods,
    gangs,
    dra,
    dra_filter_p99,
    dra_pathological,
    kueue_stage_one
);
criterion_main!(benches);
