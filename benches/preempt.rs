//! Criterion benches for preemption what-ifs (shared/design/performance.md B6 and B6g; B6t and
//! B6d are ours) on seeded synthetic clusters. Run with `cargo bench --features testutil --bench preempt`; no test
//! asserts on timing.
//!
//! Every iteration starts from a clone of the prepared state (made outside the timed section)
//! and times the whole queue run: the preemptor's failing scheduling attempt, then the
//! preemption. The `*_no_preemption` benches time the same run with `--no-preemption`, so the
//! difference is the preemption itself.

use std::hash::{Hash, Hasher};
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use wasctl::sched::plan::Outcome;
use wasctl::sched::schedule_one::Mode;
use wasctl::sched::{Options, Prepared, prepare};
use wasctl::snapshot::Snapshot;
use wasctl::testutil::synthetic::{Profile, snapshot};

/// Times the queue run of a fresh clone of `prepared`; cloning and dropping stay untimed.
fn run(b: &mut criterion::Bencher<'_>, prepared: &Prepared<'_>) {
    b.iter_batched_ref(|| prepared.clone(), Prepared::run, BatchSize::LargeInput);
}

fn options(no_preemption: bool, dra_preemption: bool) -> Options {
    let mut o = Options {
        mode: Mode::Compat,
        no_preemption,
        ..Options::default()
    };
    if dra_preemption {
        o.gate_overrides.insert("DRAPreemption".to_owned(), true);
    }
    o
}

/// Benches `name` (with preemption) and `name_no_preemption` on `s`, after checking once that
/// the single unit really preempts.
#[allow(
    clippy::print_stderr,
    reason = "the victim count goes next to criterion's figures"
)]
fn bench_pair(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    s: &Snapshot,
    dra_preemption: bool,
) {
    let prepared = prepare(s, &options(false, dra_preemption));
    let plan = prepared.clone().run();
    let unit = plan.units.first().expect("one pending unit");
    assert_eq!(
        unit.outcome,
        Outcome::Preempting,
        "{name}: {}",
        unit.message
    );
    // A digest of the whole plan, to compare before and after an optimisation.
    let mut hasher = std::hash::DefaultHasher::new();
    serde_json::to_string(&plan)
        .expect("plans serialize")
        .hash(&mut hasher);
    eprintln!(
        "{name}: {} victim(s), {} preemptor pod(s) placed, plan digest {:016x}",
        unit.victims.len(),
        unit.placements.len(),
        hasher.finish()
    );
    group.bench_function(name, |b| run(b, &prepared));
    let baseline = prepare(s, &options(true, dra_preemption));
    group.bench_function(format!("{name}_no_preemption"), |b| run(b, &baseline));
}

/// A bench group `group` of one case, `name` on the snapshot of `profile` (with `seed`), sampled
/// 10 times over 20 s (the 5,000-node preemptions).
fn one_case(c: &mut Criterion, group: &str, name: &str, profile: &Profile, seed: u64) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    bench_pair(&mut g, name, &snapshot(profile, seed), false);
    g.finish();
}

/// B6: one high-priority pod (62 cpu) on 5,000 nodes that run 20,000 low-priority pods (4 a
/// node, 4–8 cpu in use): it fits nowhere, every node is a candidate (compat samples 500).
fn single_pod(c: &mut Criterion) {
    let s = snapshot(
        &Profile {
            running_pods: 20_000,
            running_priority: 10,
            preemptor_pods: 1,
            ..Profile::with_nodes(5_000)
        },
        6,
    );
    let mut group = c.benchmark_group("B6_pod_preemption");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    bench_pair(&mut group, "5k_nodes_20k_victims", &s, false);
    group.finish();
}

/// B6g: a high-priority gang (every member 62 cpu, minCount = size) that needs preemption on
/// every node it lands on. 100 nodes × 10 low-priority pods with a 100-pod gang; 5,000 nodes ×
/// 30 low-priority pods (150,000) with a 256-pod gang.
fn gang(c: &mut Criterion) {
    let mut group = c.benchmark_group("B6g_gang_preemption");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    let small = snapshot(
        &Profile {
            running_pods: 1_000,
            running_priority: 10,
            preemptor_gangs: vec![(1, 100)],
            ..Profile::with_nodes(100)
        },
        7,
    );
    bench_pair(&mut group, "100_nodes_1k_victims", &small, false);
    let large = snapshot(
        &Profile {
            running_pods: 150_000,
            running_priority: 10,
            preemptor_gangs: vec![(1, 256)],
            ..Profile::with_nodes(5_000)
        },
        8,
    );
    bench_pair(&mut group, "5k_nodes_150k_pods", &large, false);
    group.finish();
}

/// B6t: a high-priority gang under a rack topology constraint (16 members of 62 cpu, minCount
/// 16) on 5,000 nodes in racks of 16 that run 150,000 low-priority pods: no rack has room, so
/// the group preempts for its best rack (newest 1.37; older code refused). Both cycles, the
/// failing one and the one with every candidate victim removed, try all 313 racks.
fn topology_gang(c: &mut Criterion) {
    let profile = Profile {
        running_pods: 150_000,
        running_priority: 10,
        preemptor_gangs: vec![(1, 16)],
        rack_constraint: true,
        ..Profile::with_nodes(5_000)
    };
    one_case(
        c,
        "B6t_topology_gang_preemption",
        "5k_nodes_150k_pods_rack_gang",
        &profile,
        9,
    );
}

/// B6d: a high-priority gang whose members each need a GPU through a claim template (16
/// members of 62 cpu, minCount 16) on 5,000 nodes of 8 devices each, where 150,000 low-priority
/// pods run and 8 of each node's 30 hold its devices through allocated claims: every member
/// needs a device holder evicted too. A preemptor with claims takes the victim-aware cost's
/// filter path (victims put back with their devices, the filters run per victim unit).
///
/// Run with the DRAPreemption gate **on** (alpha, off by default in 1.37): only with it does
/// the preemption dry run free the victims' devices. `B6d_…_gate_off` times the default, where
/// the dry run frees no device and the gang stays Unschedulable.
fn dra_gang(c: &mut Criterion) {
    let profile = Profile {
        running_pods: 150_000,
        running_priority: 10,
        devices_per_node: 8,
        running_claims_per_node: 8,
        preemptor_gangs: vec![(1, 16)],
        preemptor_claims: true,
        ..Profile::with_nodes(5_000)
    };
    let s = snapshot(&profile, 10);
    let mut g = c.benchmark_group("B6d_dra_gang_preemption");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    bench_pair(&mut g, "5k_nodes_150k_pods_40k_claims", &s, true);
    let gate_off = prepare(&s, &options(false, false));
    let plan = gate_off.clone().run();
    let unit = plan.units.first().expect("one pending unit");
    assert_eq!(
        unit.outcome,
        Outcome::Unschedulable,
        "gate off: {}",
        unit.message
    );
    g.bench_function("5k_nodes_150k_pods_40k_claims_gate_off", |b| {
        run(b, &gate_off)
    });
    g.finish();
}

criterion_group!(benches, single_pod, gang, topology_gang, dra_gang);
criterion_main!(benches);
