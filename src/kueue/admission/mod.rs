//! Kueue's scheduling loop (`pkg/scheduler/scheduler.go` `schedule`), run over a snapshot
//! until it settles: every cycle takes the head of each ClusterQueue's queue, assigns
//! flavors, orders the heads as Kueue's classical iterator does, and admits, preempts or
//! requeues each. Preempted workloads go back to their queues; the loop stops when a cycle
//! changes nothing.
//!
//! Queues (`pkg/cache/queue/cluster_queue.go`): `BestEffortFIFO` moves a head that cannot be
//! admitted aside until quota is freed in its cohort (an eviction), so the next workload gets
//! its turn; `StrictFIFO` keeps it at the head, blocking the queue. Ordering of the heads
//! (`makeClassicalIterator`): borrowing height, then priority, then queue-order time.
//! In a cycle (`processEntry`): a head whose assignment no longer fits after earlier
//! admissions is skipped; one whose preemption targets overlap another's waits; a preemptor
//! that found no targets reserves the quota it could use for the rest of the cycle
//! (`reserveCapacityForUnreclaimablePreempt`).
//!
//! Kueue's configuration ([`Options`]): `resources.excludeResourcePrefixes` and
//! `resources.transformations` change pending workloads' requests
//! ([`super::workload::RequestOptions`]); `waitForPodsReady` is reported on the result
//! ([`Admission::wait_for_pods_ready`]) for the placement stage to say when Kueue would
//! evict an admitted workload whose pods cannot all start; with `fairSharing` on, every
//! ClusterQueue of a cohort is listed in [`Admission::fair_sharing_not_simulated`].
//!
//! Not modelled: fair sharing and admission fair sharing orderings, partial admission,
//! Kueue's topology-aware scheduling, the second pass, workload slices, `waitForPodsReady`
//! timeouts and `blockAdmission`, backoff, `quotaCheckStrategy: IgnoreUndeclared`.
//! Admission checks are left pending (the workload holds quota and waits).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use serde::Serialize;

use super::flavor::{self, Assignment, Context, Mode};
use super::preempt::{self, Holder, State, StateOracle, Target};
use super::quota::{Amount, FlavorResource, QuotaError, Tree};
use super::workload::{Info, PriorityClasses, RequestOptions, admitted_usage};
use crate::sched::selector::LabelSelector;
use crate::snapshot::kueue::{
    ClusterQueue, KueueObjects, PreemptionPolicy, QueueingStrategy, ResourceFlavor, StopPolicy,
    Workload, condition, is_true,
};
use crate::snapshot::kueue_config::{GoDuration, KueueConfiguration};

pub(crate) use crate::sched::plan::AdmissionOutcome;

/// One pod set's flavors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PodSetResult {
    /// The pod set.
    pub name: String,
    /// Pods.
    pub count: i32,
    /// Resource → flavor.
    pub flavors: BTreeMap<String, String>,
}

/// What happened to one Kueue Workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorkloadResult {
    /// Index in `KueueObjects::workloads`.
    pub index: usize,
    /// The outcome.
    pub outcome: AdmissionOutcome,
    /// The ClusterQueue it is queued in or admitted to (empty when none).
    pub cluster_queue: String,
    /// Flavors of an admitted workload.
    pub pod_sets: Vec<PodSetResult>,
    /// Workloads it preempts (namespace, name).
    pub preempts: Vec<(String, String)>,
    /// It was preempted in this run and not admitted again.
    pub evicted: bool,
    /// What it lacks, per resource (QuotaPending).
    pub shortfall: BTreeMap<String, String>,
    /// Its effective priority (Kueue's: the WorkloadPriorityClass, else the pods' class).
    pub priority: i32,
    /// Kueue's words for why it waits, or what was not simulated.
    pub message: String,
    /// It held quota in the snapshot already.
    pub held_before: bool,
}

/// The settled admission.
#[derive(Debug, Clone, Default)]
pub(crate) struct Admission {
    /// One result per Kueue Workload that is not finished, in the input's order.
    pub workloads: Vec<WorkloadResult>,
    /// Scheduling cycles run until nothing changed.
    pub cycles: usize,
    /// It did not settle within the cycle bound (preemptions kept changing the state).
    pub unsettled: bool,
    /// Kueue's `waitForPodsReady`, when it runs with it ([`Options::wait_for_pods_ready`]).
    pub wait_for_pods_ready: Option<PodsReady>,
    /// ClusterQueues (in cohorts) whose fair-sharing order was not simulated, by name, when
    /// Kueue runs with `fairSharing`.
    pub fair_sharing_not_simulated: Vec<String>,
}

/// Kueue's `waitForPodsReady` settings, as the plan reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodsReady {
    /// An admitted workload whose pods are not all ready by then is evicted and requeued.
    pub timeout: GoDuration,
    /// Kueue admits nothing else until every admitted workload's pods are ready (not
    /// simulated).
    pub block_admission: bool,
    /// Requeues before Kueue deactivates the workload (`None`: endless).
    pub backoff_limit_count: Option<i32>,
}

impl PodsReady {
    /// From Kueue's configuration (`None` when waitForPodsReady is off).
    pub(crate) fn from_config(c: &KueueConfiguration) -> Option<Self> {
        let w = c.wait_for_pods_ready()?;
        Some(Self {
            timeout: w.timeout.unwrap_or_default(),
            block_admission: w.block_admission.unwrap_or(false),
            backoff_limit_count: w
                .requeuing_strategy
                .as_ref()
                .and_then(|r| r.backoff_limit_count),
        })
    }

    /// What Kueue does with an admitted workload whose pods cannot all be placed.
    pub(crate) fn eviction_words(&self) -> String {
        let mut s = format!(
            "Kueue would evict and requeue it after {} (waitForPodsReady)",
            self.timeout
        );
        if let Some(n) = self.backoff_limit_count {
            s.push_str(&format!(", and deactivate it after {n} requeues"));
        }
        s
    }
}

/// Why a queue admits nothing, if it does not.
fn queue_problem(
    k: &KueueObjects,
    tree: &Tree,
    flavors: &BTreeMap<String, &ResourceFlavor>,
    cq: &ClusterQueue,
) -> Option<String> {
    let name = cq.name();
    if cq.spec.stop_policy != StopPolicy::None {
        return Some(format!(
            "ClusterQueue {name} is stopped (stopPolicy {:?})",
            cq.spec.stop_policy
        ));
    }
    if tree
        .cluster_queue(name)
        .is_some_and(|n| tree.nodes[n].in_cycle)
    {
        return Some(format!(
            "ClusterQueue {name} is inactive: its cohort has a cycle"
        ));
    }
    for g in &cq.spec.resource_groups {
        for f in &g.flavors {
            if !flavors.contains_key(&f.name) {
                return Some(format!(
                    "ClusterQueue {name} is inactive: flavor {} not found",
                    f.name
                ));
            }
        }
    }
    for c in cq
        .spec
        .admission_checks_strategy
        .iter()
        .flat_map(|s| &s.admission_checks)
    {
        if !k.admission_checks.iter().any(|a| a.name() == c.name) {
            return Some(format!(
                "ClusterQueue {name} is inactive: admission check {} not found",
                c.name
            ));
        }
    }
    None
}

struct Pending {
    info: Info,
    cq: usize,
    assignment: Option<Assignment>,
    preempts: Vec<(String, String)>,
    evicted: bool,
}

struct Run<'a> {
    k: &'a KueueObjects,
    /// Kinds not read completely ([`Options::unread`]).
    unread: Vec<&'static str>,
    /// [`Options::requests`].
    requests: RequestOptions,
    state: State,
    flavors: BTreeMap<String, &'a ResourceFlavor>,
    /// Pending workloads by index.
    pending: BTreeMap<usize, Pending>,
    /// Per ClusterQueue node: pending indexes in queue order.
    queues: BTreeMap<usize, Vec<usize>>,
    /// BestEffortFIFO heads set aside until quota is freed in their cohort.
    inadmissible: BTreeSet<usize>,
    results: BTreeMap<usize, WorkloadResult>,
    /// Cycle counter used as the reservation time of admissions in the run (newest last).
    clock: i64,
}

fn holder_of(k: &KueueObjects, tree: &Tree, index: usize, info: Info) -> Option<Holder> {
    let w = &k.workloads[index];
    let cq = w
        .status
        .admission
        .as_ref()
        .and_then(|a| tree.cluster_queue(&a.cluster_queue))?;
    let reserved_at = condition(&w.status.conditions, "QuotaReserved")
        .map_or(0, |c| c.last_transition_time.0.as_second());
    Some(Holder {
        usage: admitted_usage(w, &info),
        info,
        cq,
        evicted: is_true(&w.status.conditions, "Evicted"),
        reserved_at,
    })
}

/// Whether a ClusterQueue's namespaceSelector admits the namespace (`ValidateAdmissibility`):
/// absent selects nothing, `{}` everything.
fn namespace_allowed(cq: &ClusterQueue, ns: &str, namespaces: &[Namespace]) -> Option<bool> {
    let sel = cq.spec.namespace_selector.as_ref()?;
    let labels = namespaces
        .iter()
        .find(|n| n.metadata.name.as_deref() == Some(ns))
        .and_then(|n| n.metadata.labels.clone())
        .unwrap_or_default();
    Some(LabelSelector::compile(sel).matches(&labels))
}

/// How [`run_with`] runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// Stop after this many scheduling cycles (`None`: until it settles). One cycle is what
    /// Kueue's `scheduler.schedule` does once, as its unit tests (`TestSchedule`) run it.
    pub max_cycles: Option<usize>,
    /// Kinds that were not read completely (`LocalQueue`, `ClusterQueue`, `Namespace`): a
    /// queue of such a kind that is not in the input is reported as not read, never as
    /// missing; a workload whose Namespace is not in the input has an unknown admission
    /// under a ClusterQueue whose namespaceSelector is not `{}`.
    pub unread: Vec<&'static str>,
    /// How Kueue's configuration changes pending workloads' requests.
    pub requests: RequestOptions,
    /// Kueue's `waitForPodsReady` (reported on the result, not simulated in time).
    pub wait_for_pods_ready: Option<PodsReady>,
    /// Kueue runs with `fairSharing`: its ordering is not simulated.
    pub fair_sharing: bool,
}

impl Options {
    /// The options Kueue's configuration gives (`unread` and `max_cycles` left default).
    pub(crate) fn from_config(c: &KueueConfiguration) -> Self {
        Self {
            requests: RequestOptions::from_config(c),
            wait_for_pods_ready: PodsReady::from_config(c),
            fair_sharing: c.fair_sharing_enabled(),
            ..Self::default()
        }
    }
}

/// Runs Kueue's admission over the snapshot's Kueue objects until it settles.
pub(crate) fn run(
    k: &KueueObjects,
    namespaces: &[Namespace],
    priority_classes: &[PriorityClass],
) -> Result<Admission, QuotaError> {
    run_with(k, namespaces, priority_classes, Options::default())
}

/// [`run`], with [`Options`]. A run cut short by `max_cycles` reports a workload whose
/// preemptions were issued in its last cycle as `Preempting` (its victims are evicted, the
/// quota not yet free), as Kueue's `schedule` leaves it.
pub(crate) fn run_with(
    k: &KueueObjects,
    namespaces: &[Namespace],
    priority_classes: &[PriorityClass],
    options: Options,
) -> Result<Admission, QuotaError> {
    let classes = PriorityClasses::of(k, priority_classes);
    let tree = Tree::build(k)?;
    let flavors: BTreeMap<String, &ResourceFlavor> = k
        .resource_flavors
        .iter()
        .map(|f| (f.name().to_owned(), f))
        .collect();
    let queues_by_node: BTreeMap<usize, ClusterQueue> = k
        .cluster_queues
        .iter()
        .filter_map(|c| tree.cluster_queue(c.name()).map(|n| (n, c.clone())))
        .collect();
    let mut run = Run {
        k,
        unread: options.unread.clone(),
        requests: options.requests.clone(),
        state: State {
            tree,
            holders: BTreeMap::new(),
            queues: queues_by_node,
        },
        flavors,
        pending: BTreeMap::new(),
        queues: BTreeMap::new(),
        inadmissible: BTreeSet::new(),
        results: BTreeMap::new(),
        clock: i64::MAX / 2,
    };
    for (index, w) in k.workloads.iter().enumerate() {
        run.take_in(index, w, &classes, namespaces);
    }
    for list in run.queues.values_mut() {
        let pending = &run.pending;
        list.sort_by(|a, b| pending[a].info.queue_order(&pending[b].info));
    }
    let bound = 4 * (k.workloads.len() + 4);
    let mut cycles = 0;
    let mut unsettled = false;
    let mut cut_short = false;
    loop {
        if options.max_cycles.is_some_and(|m| cycles >= m) {
            cut_short = true;
            break;
        }
        if cycles >= bound {
            unsettled = true;
            break;
        }
        if !run.cycle() {
            break;
        }
        cycles += 1;
    }
    run.finish(cut_short);
    let mut workloads: Vec<WorkloadResult> = run.results.into_values().collect();
    for r in &mut workloads {
        r.priority =
            Info::with_options(r.index, &k.workloads[r.index], &classes, &options.requests)
                .priority;
    }
    let fair_sharing_not_simulated = if options.fair_sharing {
        let mut v: Vec<String> = k
            .cluster_queues
            .iter()
            .filter(|c| c.spec.cohort_name.as_deref().is_some_and(|n| !n.is_empty()))
            .map(|c| c.name().to_owned())
            .collect();
        v.sort();
        v.dedup();
        v
    } else {
        Vec::new()
    };
    Ok(Admission {
        workloads,
        cycles,
        unsettled,
        wait_for_pods_ready: options.wait_for_pods_ready,
        fair_sharing_not_simulated,
    })
}

impl Run<'_> {
    fn result(
        &self,
        index: usize,
        outcome: AdmissionOutcome,
        cq: &str,
        message: String,
    ) -> WorkloadResult {
        WorkloadResult {
            index,
            outcome,
            cluster_queue: cq.to_owned(),
            pod_sets: Vec::new(),
            preempts: Vec::new(),
            evicted: false,
            shortfall: BTreeMap::new(),
            priority: 0,
            message,
            held_before: false,
        }
    }

    /// Why a queue is not there: it does not exist, or its kind was not read.
    fn absent(&self, kind: &str, name: &str) -> String {
        if self.unread.contains(&kind) {
            format!(
                "{kind} {name} is not in the input ({kind}s were not read): its admission is unknown"
            )
        } else {
            format!("{kind} {name} doesn't exist")
        }
    }

    /// The ClusterQueue node `w` queues in, through its LocalQueue; or why it has none: the
    /// outcome, the ClusterQueue's name (if known) and the reason.
    fn queue_of(
        &self,
        w: &Workload,
        namespaces: &[Namespace],
    ) -> Result<usize, (AdmissionOutcome, String, String)> {
        let ns = w.namespace();
        let lq = self
            .k
            .local_queues
            .iter()
            .find(|q| q.namespace() == ns && q.name() == w.spec.queue_name);
        let Some(lq) = lq else {
            let why = if w.spec.queue_name.is_empty() {
                "the workload names no queue".to_owned()
            } else {
                self.absent("LocalQueue", &w.spec.queue_name)
            };
            return Err((AdmissionOutcome::NoQueue, String::new(), why));
        };
        let cq_name = lq.spec.cluster_queue.clone();
        if lq.spec.stop_policy != StopPolicy::None {
            return Err((
                AdmissionOutcome::QueueStopped,
                cq_name.clone(),
                format!("LocalQueue {} is stopped", lq.name()),
            ));
        }
        let cq = self.k.cluster_queues.iter().find(|c| c.name() == cq_name);
        let (Some(cq), Some(node)) = (cq, self.state.tree.cluster_queue(&cq_name)) else {
            return Err((
                AdmissionOutcome::NoQueue,
                cq_name.clone(),
                self.absent("ClusterQueue", &cq_name),
            ));
        };
        if let Some(why) = queue_problem(self.k, &self.state.tree, &self.flavors, cq) {
            return Err((AdmissionOutcome::QueueStopped, cq_name.clone(), why));
        }
        let ns_known = namespaces
            .iter()
            .any(|n| n.metadata.name.as_deref() == Some(ns));
        let selects_all = cq.spec.namespace_selector.as_ref().is_some_and(|s| {
            s.match_labels.as_ref().is_none_or(|m| m.is_empty())
                && s.match_expressions.as_ref().is_none_or(|e| e.is_empty())
        });
        if !ns_known && self.unread.contains(&"Namespace") && !selects_all {
            // Namespaces were not read: whether the selector admits it is unknown, not "does
            // not match" (its labels are not known).
            return Err((
                AdmissionOutcome::NoQueue,
                cq_name.clone(),
                format!(
                    "Namespace {ns} is not in the input (Namespaces were not read): whether the namespaceSelector of ClusterQueue {cq_name} admits it is unknown"
                ),
            ));
        }
        if namespace_allowed(cq, ns, namespaces) != Some(true) {
            return Err((
                AdmissionOutcome::NoQueue,
                cq_name.clone(),
                format!(
                    "namespace {ns} doesn't match the namespaceSelector of ClusterQueue {cq_name}"
                ),
            ));
        }
        Ok(node)
    }

    /// Sorts one workload into holders, pending queues or a final outcome.
    fn take_in(
        &mut self,
        index: usize,
        w: &Workload,
        classes: &PriorityClasses,
        namespaces: &[Namespace],
    ) {
        if w.is_finished() {
            return;
        }
        let info = Info::with_options(index, w, classes, &self.requests);
        if w.has_quota_reservation() {
            let cq = w
                .status
                .admission
                .as_ref()
                .map(|a| a.cluster_queue.clone())
                .unwrap_or_default();
            let outcome = if w.is_admitted() {
                AdmissionOutcome::Admitted
            } else {
                AdmissionOutcome::WaitingForAdmissionCheck
            };
            let mut r = self.result(index, outcome, &cq, String::new());
            r.held_before = true;
            r.pod_sets = stored_pod_sets(w);
            self.results.insert(index, r);
            if let Some(h) = holder_of(self.k, &self.state.tree, index, info) {
                self.state.add(h);
            }
            return;
        }
        if !w.spec.active {
            let r = self.result(
                index,
                AdmissionOutcome::Inactive,
                "",
                "the workload is deactivated (spec.active: false)".to_owned(),
            );
            self.results.insert(index, r);
            return;
        }
        let node = match self.queue_of(w, namespaces) {
            Ok(node) => node,
            Err((outcome, cq_name, why)) => {
                let r = self.result(index, outcome, &cq_name, why);
                self.results.insert(index, r);
                return;
            }
        };
        self.queues.entry(node).or_default().push(index);
        self.pending.insert(
            index,
            Pending {
                info,
                cq: node,
                assignment: None,
                preempts: Vec::new(),
                evicted: false,
            },
        );
    }

    /// The head of each queue.
    fn heads(&self) -> Vec<usize> {
        let mut heads = Vec::new();
        for (node, list) in &self.queues {
            let strict = self
                .state
                .queues
                .get(node)
                .is_some_and(|c| c.spec.queueing_strategy == QueueingStrategy::StrictFIFO);
            let head = list
                .iter()
                .find(|i| strict || !self.inadmissible.contains(i));
            heads.extend(head.copied());
        }
        heads
    }

    fn assign(&mut self, index: usize) -> (Assignment, Vec<Target>) {
        let p = &self.pending[&index];
        let (info, node) = (p.info.clone(), p.cq);
        let Some(cq) = self.state.queues.get(&node).cloned() else {
            return (Assignment::default(), Vec::new());
        };
        let obj = &self.k.workloads[index];
        let ctx = Context {
            cq: &cq,
            cq_node: node,
            flavors: &self.flavors,
        };
        let a = flavor::assign(
            &ctx,
            &info,
            obj,
            &mut StateOracle {
                state: &mut self.state,
            },
        );
        let targets = if a.mode() == Mode::Preempt {
            preempt::targets(&mut self.state, &info, node, &a)
        } else {
            Vec::new()
        };
        (a, targets)
    }

    /// One scheduling cycle; false when it changed nothing.
    fn cycle(&mut self) -> bool {
        let heads = self.heads();
        if heads.is_empty() {
            return false;
        }
        let mut entries: Vec<(usize, Assignment, Vec<Target>)> = heads
            .into_iter()
            .map(|i| {
                let (a, t) = self.assign(i);
                (i, a, t)
            })
            .collect();
        // makeClassicalIterator (PrioritySortingWithinCohort on).
        entries.sort_by(|(a, aa, _), (b, ba, _)| {
            let (ia, ib) = (&self.pending[a].info, &self.pending[b].info);
            aa.borrowing
                .cmp(&ba.borrowing)
                .then(ib.priority.cmp(&ia.priority))
                .then(ia.timestamp.cmp(&ib.timestamp))
        });
        let mut changed = false;
        let mut preempted: BTreeSet<usize> = BTreeSet::new();
        let mut reserved: Vec<(usize, BTreeMap<FlavorResource, Amount>)> = Vec::new();
        for (index, a, targets) in entries {
            let node = self.pending[&index].cq;
            let mode = a.mode();
            match mode {
                Mode::NoFit => {
                    changed |= self.set_aside(index, a);
                }
                Mode::Preempt if targets.is_empty() => {
                    // reserveCapacityForUnreclaimablePreempt: a queue that can always reclaim
                    // what it lends (`preemption.CanAlwaysReclaim`: reclaimWithinCohort Any)
                    // reserves nothing, so others in its cohort may borrow meanwhile
                    // (PrioritizePreemptorWorkloads, alpha and off by default, is not modelled).
                    let can_always_reclaim = self.state.queues.get(&node).is_some_and(|c| {
                        c.spec.preemption.reclaim_within_cohort == PreemptionPolicy::Any
                    });
                    let usage = if can_always_reclaim {
                        BTreeMap::new()
                    } else {
                        self.reservable(node, &a)
                    };
                    changed |= self.set_aside(index, a);
                    self.reserve(node, &usage);
                    reserved.push((node, usage));
                }
                _ => {
                    if targets.iter().any(|t| preempted.contains(&t.index)) {
                        self.pending
                            .entry(index)
                            .and_modify(|p| p.assignment = Some(a));
                        continue;
                    }
                    if !self.fits_now(node, &a, &targets) {
                        self.pending
                            .entry(index)
                            .and_modify(|p| p.assignment = Some(a));
                        continue;
                    }
                    if mode == Mode::Preempt {
                        preempted.extend(targets.iter().map(|t| t.index));
                        self.reserve(node, &a.usage);
                        reserved.push((node, a.usage.clone()));
                        self.preempt(index, &targets);
                    } else {
                        self.admit(index, a);
                    }
                    changed = true;
                }
            }
        }
        for (node, usage) in reserved {
            for (fr, v) in usage {
                self.state.tree.remove_usage(node, &fr, v);
            }
        }
        changed
    }

    /// Requeues a head that cannot be admitted: set aside (BestEffortFIFO), or kept at the
    /// head (StrictFIFO). True when that changed the queue.
    fn set_aside(&mut self, index: usize, a: Assignment) -> bool {
        let node = self.pending[&index].cq;
        let strict = self
            .state
            .queues
            .get(&node)
            .is_some_and(|c| c.spec.queueing_strategy == QueueingStrategy::StrictFIFO);
        self.pending
            .entry(index)
            .and_modify(|p| p.assignment = Some(a));
        !strict && self.inadmissible.insert(index)
    }

    /// `quotaResourcesToReserve` for a preemptor without targets.
    fn reservable(&self, node: usize, a: &Assignment) -> BTreeMap<FlavorResource, Amount> {
        let n = &self.state.tree.nodes[node];
        a.usage
            .iter()
            .map(|(fr, usage)| {
                let q = n.quotas.get(fr).copied().unwrap_or_default();
                let used = n.used(fr);
                let v = if a.borrowing > 0 {
                    match q.borrowing_limit {
                        None => *usage,
                        Some(b) => (*usage).min(q.nominal + b - used),
                    }
                } else {
                    (*usage).min(q.nominal - used).max(0)
                };
                (fr.clone(), v)
            })
            .collect()
    }

    fn reserve(&mut self, node: usize, usage: &BTreeMap<FlavorResource, Amount>) {
        for (fr, v) in usage {
            self.state.tree.add_usage(node, fr, *v);
        }
    }

    /// `fits`: the assignment's usage fits once this cycle's victims and its own targets are
    /// gone.
    fn fits_now(&mut self, node: usize, a: &Assignment, targets: &[Target]) -> bool {
        let removed: Vec<Holder> = targets
            .iter()
            .filter_map(|t| self.state.remove(t.index))
            .collect();
        let ok = a
            .usage
            .iter()
            .all(|(fr, v)| self.state.tree.available(node, fr) >= *v);
        for h in removed {
            self.state.add(h);
        }
        ok
    }

    fn admit(&mut self, index: usize, a: Assignment) {
        let Some(p) = self.pending.remove(&index) else {
            return;
        };
        if let Some(list) = self.queues.get_mut(&p.cq) {
            list.retain(|i| *i != index);
        }
        self.inadmissible.remove(&index);
        self.clock += 1;
        let cq = self.state.queues.get(&p.cq).cloned();
        let cq_name = cq.as_ref().map(|c| c.name().to_owned()).unwrap_or_default();
        let used_flavors: BTreeSet<&str> = a
            .pod_sets
            .iter()
            .flat_map(|ps| ps.flavors.values().map(|c| c.flavor.as_str()))
            .collect();
        let checks = cq
            .as_ref()
            .into_iter()
            .flat_map(|c| c.spec.admission_checks_strategy.iter())
            .flat_map(|s| &s.admission_checks)
            .any(|r| {
                r.on_flavors.is_empty()
                    || r.on_flavors
                        .iter()
                        .any(|f| used_flavors.contains(f.as_str()))
            });
        let outcome = if !p.preempts.is_empty() {
            AdmissionOutcome::Preempting
        } else if checks {
            AdmissionOutcome::WaitingForAdmissionCheck
        } else {
            AdmissionOutcome::Admitted
        };
        let mut r = self.result(index, outcome, &cq_name, String::new());
        r.pod_sets = pod_set_results(&a);
        r.preempts = p.preempts.clone();
        if checks && !p.preempts.is_empty() {
            r.message =
                "admission checks are pending once the preempted workloads are evicted".to_owned();
        }
        self.results.insert(index, r);
        self.state.add(Holder {
            usage: a.usage,
            info: p.info,
            cq: p.cq,
            evicted: false,
            reserved_at: self.clock,
        });
    }

    /// Evicts the targets: their quota is freed, they go back to their queues, and the heads
    /// set aside in their cohorts get another turn.
    fn preempt(&mut self, preemptor: usize, targets: &[Target]) {
        for t in targets {
            let Some(h) = self.state.remove(t.index) else {
                continue;
            };
            let w = &self.k.workloads[t.index];
            if let Some(p) = self.pending.get_mut(&preemptor) {
                p.preempts
                    .push((w.namespace().to_owned(), w.name().to_owned()));
            }
            self.results.remove(&t.index);
            let root = self.root_of(h.cq);
            let requeued: Vec<usize> = self
                .inadmissible
                .iter()
                .copied()
                .filter(|i| {
                    self.pending
                        .get(i)
                        .is_some_and(|p| self.root_of(p.cq) == root)
                })
                .collect();
            for i in requeued {
                self.inadmissible.remove(&i);
            }
            self.queues.entry(h.cq).or_default().push(t.index);
            self.pending.insert(
                t.index,
                Pending {
                    info: h.info,
                    cq: h.cq,
                    assignment: None,
                    preempts: Vec::new(),
                    evicted: true,
                },
            );
            let pending = &self.pending;
            if let Some(list) = self.queues.get_mut(&h.cq) {
                list.sort_by(|a, b| pending[a].info.queue_order(&pending[b].info));
            }
        }
    }

    fn root_of(&self, node: usize) -> usize {
        self.state.tree.ancestors(node).last().unwrap_or(node)
    }

    /// Outcomes of the workloads still pending (`cut_short`: the run stopped at its cycle
    /// bound, so preemptions issued in the last cycle are still under way).
    fn finish(&mut self, cut_short: bool) {
        let indexes: Vec<usize> = self.pending.keys().copied().collect();
        for index in indexes {
            let a = match self.pending.get(&index).and_then(|p| p.assignment.clone()) {
                Some(a) => a,
                None => self.assign(index).0,
            };
            let Some(p) = self.pending.get(&index) else {
                continue;
            };
            let cq_name = self
                .state
                .queues
                .get(&p.cq)
                .map(|c| c.name().to_owned())
                .unwrap_or_default();
            let mut r = self.result(
                index,
                AdmissionOutcome::QuotaPending,
                &cq_name,
                a.reasons().join("; "),
            );
            r.evicted = p.evicted;
            if cut_short && !p.preempts.is_empty() {
                r.outcome = AdmissionOutcome::Preempting;
                r.preempts = p.preempts.clone();
                r.pod_sets = pod_set_results(&a);
            } else {
                r.shortfall = self.shortfall(p.cq, &p.info, &a);
            }
            if self.k.workloads[index]
                .spec
                .pod_sets
                .iter()
                .any(|ps| ps.topology_request.is_some())
            {
                r.message
                    .push_str(if r.message.is_empty() { "" } else { "; " });
                r.message
                    .push_str("Kueue's topology assignment is not simulated");
            }
            self.results.insert(index, r);
        }
    }

    /// What the workload lacks per resource: for each resource, the least that any flavor
    /// of its resource group is short by now.
    fn shortfall(&self, node: usize, info: &Info, a: &Assignment) -> BTreeMap<String, String> {
        let tree = &self.state.tree;
        let Some(cq) = self.state.queues.get(&node) else {
            return BTreeMap::new();
        };
        let mut out = BTreeMap::new();
        for (res, want) in info.total_requests() {
            if want <= 0 {
                continue;
            }
            let chosen = a
                .pod_sets
                .iter()
                .find_map(|p| p.flavors.get(&res))
                .map(|c| c.flavor.clone());
            let group = cq
                .spec
                .resource_groups
                .iter()
                .find(|g| g.covered_resources.contains(&res));
            let candidates: Vec<String> = match (&chosen, group) {
                (Some(f), _) => vec![f.clone()],
                (None, Some(g)) => g.flavors.iter().map(|f| f.name.clone()).collect(),
                (None, None) => Vec::new(),
            };
            let short = candidates
                .iter()
                .map(|f| (want - tree.available(node, &FlavorResource::new(f, &res))).max(0))
                .min()
                .unwrap_or(want);
            if short > 0 {
                out.insert(res.clone(), flavor::show(&res, short));
            }
        }
        out
    }
}

/// The flavors of an assignment, per pod set.
fn pod_set_results(a: &Assignment) -> Vec<PodSetResult> {
    a.pod_sets
        .iter()
        .map(|ps| PodSetResult {
            name: ps.name.clone(),
            count: ps.count,
            flavors: ps
                .flavors
                .iter()
                .map(|(res, c)| (res.clone(), c.flavor.clone()))
                .collect(),
        })
        .collect()
}

/// The flavors an admitted workload's status records.
fn stored_pod_sets(w: &Workload) -> Vec<PodSetResult> {
    w.status
        .admission
        .iter()
        .flat_map(|a| &a.pod_set_assignments)
        .map(|psa| PodSetResult {
            name: psa.name.clone(),
            count: psa.count.unwrap_or_else(|| {
                w.spec
                    .pod_sets
                    .iter()
                    .find(|p| p.name == psa.name)
                    .map_or(0, |p| p.count)
            }),
            flavors: psa.flavors.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
