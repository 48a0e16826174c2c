//! The scheduler simulator: a dry run of kube-scheduler 1.37's default profile plus the
//! workload-aware plugins (gang scheduling, CompositePodGroup trees, topology-aware
//! placement) over a [`Snapshot`].
//!
//! Pure: no IO, no printing. [`simulate`] takes a snapshot and [`Options`] and returns a
//! [`Plan`]: every pending unit in queue order, each placement updating the state the next
//! unit sees. Semantics: `../shared/design/semantics.md` §3–5, §8; module docs cite upstream.
//!
//! DRA claims are allocated by the DynamicResources filter ([`dra`]). A unit that stays
//! unschedulable goes through preemption ([`preempt`]): workload-aware preemption for group
//! roots, DefaultPreemption for single pods; the plan then continues as if the victims were
//! evicted and the preemptor bound.

pub(crate) mod default_spread;
pub(crate) mod dra;
pub(crate) mod filter;
pub(crate) mod gang;
pub(crate) mod node;
pub mod node_state;
pub mod plan;
pub(crate) mod pod_req;
pub mod preempt;
pub mod profile;
pub mod queue;
pub(crate) mod resources;
pub mod schedule_one;
pub(crate) mod score;
pub(crate) mod selector;
pub(crate) mod status;
pub mod whatif;

use crate::snapshot::{ObjKind, ObjRef};
use std::collections::BTreeMap;

use node_state::ClusterState;
use plan::{
    Outcome, Placement, Plan, PodTrace, ReasonTexts, Settings, Summary, UnitResult, UnitTrace,
};
use queue::{Unit, UnitBody};
use schedule_one::{Mode, Sampler, fit_error, schedule_pod};

use crate::snapshot::Snapshot;
use crate::snapshot::facts::{ASSUMED_WAS_GATES, Component, SUPPORTED_KUBERNETES};

/// The gate behind which preemption frees a victim's DRA devices (KEP-5690, alpha in 1.37).
const DRA_PREEMPTION: &str = "DRAPreemption";
/// The gate behind which devices' `nodeAllocatableResources` add to their pods' requests
/// (KEP-5517, alpha in 1.37).
const DRA_NODE_ALLOCATABLE: &str = "DRANodeAllocatableResources";
/// The gate behind which devices with `bindingConditions` are allocated and binding waits for
/// the conditions (beta, on in 1.37).
const DRA_BINDING_CONDITIONS: &str = "DRADeviceBindingConditions";

/// How to simulate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Exhaustive or compat filtering.
    pub mode: Mode,
    /// `--feature-gates` overrides.
    pub gate_overrides: BTreeMap<String, bool>,
    /// Only this unit; the rest of the queue is ignored.
    pub only: Option<ObjRef>,
    /// What-ifs already applied to the snapshot, for the report.
    pub what_if: Vec<String>,
    /// Include the per-device map (`simulate --devices`).
    pub device_map: bool,
    /// Do not simulate preemption (`--no-preemption`).
    pub no_preemption: bool,
    /// The scheduling profiles (`--scheduler-config`; default: kube-scheduler's default
    /// profile).
    pub profiles: profile::Profiles,
}

/// The "gangs are scheduled pod by pod" sentence, when pending pods name a PodGroup and
/// kube-scheduler's `GenericWorkload` is off.
fn pod_by_pod(
    snapshot: &Snapshot,
    gates: &crate::snapshot::facts::FeatureGates,
    options: &Options,
) -> Option<String> {
    if gates.enabled("GenericWorkload") {
        return None;
    }
    let grouped = snapshot
        .pods
        .iter()
        .filter_map(|p| p.spec.as_ref())
        .filter(|s| s.node_name.is_none() && s.scheduling_group.is_some())
        .count();
    (grouped > 0).then(|| {
        format!(
            "gangs are scheduled pod by pod: kube-scheduler runs with GenericWorkload off ({}), so {grouped} pending pod(s) naming a PodGroup are placed one at a time, all-or-nothing is not enforced",
            snapshot.facts.gate_source(
                Component::KubeScheduler,
                "GenericWorkload",
                &options.gate_overrides
            )
        )
    })
}

/// Runs the simulation: [`prepare`] then [`Prepared::into_plan`].
pub fn simulate(snapshot: &Snapshot, options: &Options) -> Plan {
    prepare(snapshot, options).into_plan()
}

/// A snapshot compiled for simulation: the cluster state (every node and pod as integer
/// vectors), the queue and the victim index, built once. Cloning is cheaper than building again
/// (no quantity or selector parsing), so benchmarks and repeated runs start from a clone.
#[derive(Debug, Clone)]
pub struct Prepared<'a> {
    snapshot: &'a Snapshot,
    options: Options,
    gates: crate::snapshot::facts::FeatureGates,
    state: ClusterState,
    units: Vec<Unit>,
    /// Read-only during runs: clones share it.
    victims: std::rc::Rc<preempt::victims::VictimIndex>,
    /// Whether a run has changed the state (see [`Prepared::with_changed_groups`]).
    started: bool,
    /// Upstream's `nextStartNodeIndex`, carried from one call of a run to the next, so a
    /// queue run in steps samples the nodes as one run does.
    sampler: Sampler,
}

/// The profiles a simulation of `snapshot` runs with: the ones `options` sets, else the
/// snapshot's own scheduler configuration (`--scheduler-config`, or a
/// `KubeSchedulerConfiguration` document of the input), else kube-scheduler's default profile.
pub(crate) fn profiles_for(snapshot: &Snapshot, options: &Options) -> profile::Profiles {
    if options.profiles.configured {
        return options.profiles.clone();
    }
    match &snapshot.scheduler_config {
        Some(loaded) => profile::Profiles::from_config(&loaded.config),
        None => options.profiles.clone(),
    }
}

/// Builds the state, the queue (in upstream order, `--only` applied) and the victim index.
pub fn prepare<'a>(snapshot: &'a Snapshot, options: &Options) -> Prepared<'a> {
    let gates = snapshot
        .facts
        .gates_for(Component::KubeScheduler, &options.gate_overrides);
    let profiles = profiles_for(snapshot, options);
    let state = ClusterState::build_with(snapshot, &gates, &profiles);
    let mut units = queue::build(snapshot, &state, &gates);
    if let Some(only) = &options.only {
        units.retain(|u| u.is(only));
    }
    let victims = std::rc::Rc::new(preempt::victims::VictimIndex::build(
        snapshot, &state, &gates,
    ));
    Prepared {
        snapshot,
        options: options.clone(),
        gates,
        state,
        units,
        victims,
        started: false,
        sampler: Sampler::default(),
    }
}

/// A prepared simulation without its borrow of the snapshot: what is left to free after the
/// runs. At 150,000 pods freeing it takes about half a second (the compiled pods, the victim
/// index), so a caller can keep it past the answer: a command about to exit leaks it, a bench
/// drops it outside its timed section.
pub(crate) struct Retained {
    _state: ClusterState,
    _units: Vec<Unit>,
    _victims: std::rc::Rc<preempt::victims::VictimIndex>,
}

impl<'a> Prepared<'a> {
    /// This prepared simulation for `changed`, a copy of its snapshot whose PodGroups and
    /// CompositePodGroups differ only in their gang `minCount` or topology constraints: the
    /// state (the compiled nodes and pods, the DRA claims) and the victim index read neither,
    /// so they are shared as they are, and only the queue, which does, is built again from
    /// `changed`. What explain's fixes cost at 150,000 pods is then the run, not compiling
    /// every pod again.
    ///
    /// On a simulation that has already run part of its queue (see
    /// [`Prepared::advance_until`]) the state is the one those units left, and the queue keeps
    /// only the units still queued here, rebuilt from `changed`. That equals running `changed`
    /// from the start when the changed groups are only in units still queued: the units before
    /// them read none of their objects (a unit's run reads its own group and pods, and the
    /// state), so they place the same pods on the same nodes. Explain's fixes change the
    /// target's own group, which is queued.
    pub(crate) fn with_changed_groups<'b>(&self, changed: &'b Snapshot) -> Prepared<'b> {
        let gates = changed
            .facts
            .gates_for(Component::KubeScheduler, &self.options.gate_overrides);
        if gates != self.gates || (self.started && self.evicted_from_queued()) {
            // The change moved a gate inferred from the objects, or a unit ahead preempted
            // pods of a group still queued, which changed what that group holds (its bound
            // members are pending again, its queue time may move): built from the state here,
            // its unit would differ from the one a run from the start builds. Compile
            // everything again.
            return prepare(changed, &self.options);
        }
        let mut units = queue::build(changed, &self.state, &self.gates);
        if let Some(only) = &self.options.only {
            units.retain(|u| u.is(only));
        }
        if self.started {
            // The units run so far are done; a unit that failed there is pending again in the
            // state and would be queued anew.
            let queued: std::collections::HashMap<(&ObjKind, &str, &str), bool> = self
                .units
                .iter()
                .map(|u| {
                    let held = matches!(u.body, UnitBody::Held { .. });
                    ((&u.kind, u.namespace.as_str(), u.name.as_str()), held)
                })
                .collect();
            units
                .retain(|u| queued.contains_key(&(&u.kind, u.namespace.as_str(), u.name.as_str())));
            // A unit held at PreEnqueue before the change and not after (or the other way) had
            // its pods' nominations dropped, or kept, when the run began: compile afresh.
            let same = units.len() == self.units.len()
                && units.iter().all(|u| {
                    queued.get(&(&u.kind, u.namespace.as_str(), u.name.as_str()))
                        == Some(&matches!(u.body, UnitBody::Held { .. }))
                });
            if !same {
                return prepare(changed, &self.options);
            }
        }
        self.derived(changed, self.state.clone(), units)
    }

    /// This simulation for `changed`, a copy of its snapshot in which only the pods
    /// `namespace`/`names` differ, and only in what the filters and scores read of a pod (its
    /// tolerations, say): those pods are compiled again from `changed` into a copy of the
    /// state, and everything else (the other compiled pods and nodes, the DRA claims, the
    /// victim index, the queue) is kept. The pods must not be placed in the state (a pending
    /// group's members, before its turn): a placed pod has added its requests and labels to a
    /// node, so then, or if a pod is missing on either side, or the change moved a gate,
    /// everything is compiled from `changed` again (from the start of the queue).
    ///
    /// On a simulation that has run part of its queue this equals running `changed` from the
    /// start when the pods belong to a unit still queued, by the argument of
    /// [`Prepared::with_changed_groups`]: the units before read nothing of them.
    pub(crate) fn with_changed_pods<'b>(
        &self,
        changed: &'b Snapshot,
        namespace: &str,
        names: &[&str],
    ) -> Prepared<'b> {
        let gates = changed
            .facts
            .gates_for(Component::KubeScheduler, &self.options.gate_overrides);
        let ids: Option<Vec<(usize, &crate::snapshot::Pod)>> = names
            .iter()
            .map(|name| {
                let id = self.state.pod_id(namespace, name)?;
                let object = changed.pod(namespace, name)?;
                self.state.placement[id].is_none().then_some((id, object))
            })
            .collect();
        let (Some(ids), true) = (ids, gates == self.gates) else {
            return prepare(changed, &self.options);
        };
        let mut state = self.state.clone();
        for (id, object) in ids {
            let mut compiled = pod_req::PodReq::compile(object, &mut state.table);
            state.profile_pod(&mut compiled);
            state.pods.set(id, compiled);
        }
        self.derived(changed, state, self.units.clone())
    }

    /// This simulation with `count` empty nodes like node `like` (see [`whatif::node_like`])
    /// added to the state as it stands, after every other node: for a quick search of how
    /// many nodes a queued unit needs. It is not what a snapshot holding those nodes plans:
    /// there the units already run could have used the new nodes, and the nodes would be
    /// ordered by name. None when `like` is not a node of the snapshot, or has node-local
    /// ResourceSlices (the DRA state is built from the snapshot's slices, which this state
    /// would lack: copy the snapshot with [`whatif::add_nodes`] instead).
    pub(crate) fn with_nodes_like(&self, like: &str, count: usize) -> Option<Prepared<'a>> {
        if whatif::has_node_local_slices(self.snapshot, like) {
            return None;
        }
        let template = self
            .snapshot
            .nodes
            .iter()
            .find(|n| crate::snapshot::name_of(&n.metadata) == like)?;
        let mut state = self.state.clone();
        let added: Vec<_> = (1..=count)
            .map(|i| state.compile_node(&whatif::node_like(template, i)))
            .collect();
        state.append_nodes(added);
        Some(self.derived(self.snapshot, state, self.units.clone()))
    }

    /// This simulation, not run yet, for a copy of its snapshot with `count` nodes like node
    /// `like` added (what [`whatif::add_nodes`] does): the compiled pods, the queue and the
    /// victim index read no node, so they are kept, and the nodes are compiled into a copy of
    /// the state in name order, as a state built from that copy orders them. What explain's
    /// add-nodes fix costs at 150,000 pods is then the run from the start, not compiling every
    /// pod again. None when `like` is not a node of the snapshot, when a run has started here
    /// (the units run so far did not see the nodes), or when a new node's name is taken (see
    /// [`ClusterState::insert_nodes`]), or when `like` has node-local ResourceSlices (see
    /// [`Self::with_nodes_like`]).
    pub(crate) fn with_nodes_added(&self, like: &str, count: usize) -> Option<Prepared<'a>> {
        if self.started
            || count > whatif::MAX_ADD_NODES
            || whatif::has_node_local_slices(self.snapshot, like)
        {
            return None;
        }
        let template = self
            .snapshot
            .nodes
            .iter()
            .find(|n| crate::snapshot::name_of(&n.metadata) == like)?;
        let mut state = self.state.clone();
        let added: Vec<_> = (1..=count)
            .map(|i| state.compile_node(&whatif::node_like(template, i)))
            .collect();
        state.insert_nodes(added)?;
        Some(self.derived(self.snapshot, state, self.units.clone()))
    }

    /// Whether a bound member of a group still queued has lost its place (a unit run so far
    /// preempted it).
    fn evicted_from_queued(&self) -> bool {
        let mut bound = Vec::new();
        self.units.iter().any(|u| match &u.body {
            UnitBody::Group(g) => {
                bound.clear();
                g.bound_pods(&mut bound);
                bound.iter().any(|p| !self.state.is_bound(*p))
            }
            _ => false,
        })
    }

    /// This simulation's options, gates, victim index, progress and sampler, on `snapshot` with
    /// `state` and the queue `units`.
    fn derived<'b>(
        &self,
        snapshot: &'b Snapshot,
        state: ClusterState,
        units: Vec<Unit>,
    ) -> Prepared<'b> {
        Prepared {
            snapshot,
            options: self.options.clone(),
            gates: self.gates.clone(),
            state,
            units,
            victims: std::rc::Rc::clone(&self.victims),
            started: self.started,
            sampler: self.sampler,
        }
    }

    /// Whether part of the queue has run on this state: false for a simulation compiled
    /// afresh, which is what the `with_changed_*` methods return when they cannot resume (the
    /// results of earlier steps do not belong before such a plan).
    pub(crate) fn has_run(&self) -> bool {
        self.started
    }

    /// The units not run yet, in queue order.
    pub(crate) fn queued(&self) -> &[Unit] {
        &self.units
    }

    /// Runs every unit in queue order, each placement updating the state the next one sees.
    pub fn into_plan(mut self) -> Plan {
        self.run()
    }

    /// Ends the borrow of the snapshot, keeping what a drop would free (see [`Retained`]).
    pub(crate) fn retire(self) -> Retained {
        Retained {
            _state: self.state,
            _units: self.units,
            _victims: self.victims,
        }
    }

    /// Runs the queue in place: afterwards the state holds every placement and the queue is
    /// empty (a second run plans nothing). Lets a caller drop the state outside a timed section.
    pub fn run(&mut self) -> Plan {
        self.run_until(|_| false)
    }

    /// Turns preemption on or off for the next run (as `--no-preemption` does), so one prepared
    /// state can answer both with and without preemption from clones.
    pub(crate) fn set_preemption(&mut self, on: bool) {
        self.options.no_preemption = !on;
    }

    /// Runs the queue in order until `stop` returns true for a unit's result (that unit
    /// included). The units not tried stay queued: a later call continues where this one
    /// stopped, on the state this one left. The plan lists the units tried in this call.
    pub(crate) fn run_until(&mut self, stop: impl FnMut(&UnitResult) -> bool) -> Plan {
        self.plan_after(Vec::new(), stop)
    }

    /// Runs the units before the first queued unit for which `next` holds (all of them if
    /// none does), and returns their results; that unit and the ones after it stay queued.
    /// A caller asking several questions about one unit (explain's fixes) runs what comes
    /// before it once and answers each question from a clone.
    pub(crate) fn advance_until(&mut self, next: impl FnMut(&Unit) -> bool) -> Vec<UnitResult> {
        self.run_units(next, |_| false)
    }

    /// [`Prepared::run_until`] after earlier steps: the plan lists `earlier` (the results of
    /// those steps, e.g. from [`Prepared::advance_until`]) and then the units this call tries.
    pub(crate) fn plan_after(
        &mut self,
        mut earlier: Vec<UnitResult>,
        stop: impl FnMut(&UnitResult) -> bool,
    ) -> Plan {
        earlier.extend(self.run_units(|_| false, stop));
        self.plan_of(earlier)
    }

    /// Runs queued units in order, before one for which `before` holds and up to one whose
    /// result `stop` holds for (included).
    fn run_units(
        &mut self,
        mut before: impl FnMut(&Unit) -> bool,
        mut stop: impl FnMut(&UnitResult) -> bool,
    ) -> Vec<UnitResult> {
        let queued_units = std::mem::take(&mut self.units);
        let Prepared {
            snapshot,
            options,
            gates,
            state,
            victims,
            units: rest,
            started,
            sampler,
        } = self;
        *started = true;
        let (snapshot, gates, victims, options) = (*snapshot, &*gates, &**victims, &*options);
        let all_nodes: Vec<usize> = (0..state.nodes.len()).collect();
        let ctx = UnitContext {
            snapshot,
            gates,
            victims,
            preemption: !options.no_preemption,
            now: snapshot.now().as_second(),
        };
        // Pods held at PreEnqueue never reach kube-scheduler's active queue, so they are not
        // in its nominator (scheduling_queue.go: AddNominatedPod runs when a pod moves to
        // activeQ on add/update) and their nominations hold no room.
        let held: std::collections::HashSet<usize> = queued_units
            .iter()
            .filter_map(|u| match &u.body {
                UnitBody::Held {
                    error: false, pods, ..
                } => Some(pods.iter().copied()),
                _ => None,
            })
            .flatten()
            .collect();
        if !held.is_empty() {
            state.nominated.retain(|p| !held.contains(p));
        }
        // One pass, each unit tried once in queue order, as upstream's queue orders retries
        // (scheduling_queue.go, newest 1.37): PrioritySort compares priority, then
        // `Timestamp`; a pod that fails gets `Timestamp = now` (AddUnschedulablePodIfNotPresent)
        // and a pod group whose cycle was rejected or is waiting on its preemption gets it too
        // (AddAttemptedPodGroupIfNeeded) and goes to backoffQ, popped only when activeQ is
        // empty: a failed unit comes back behind every unit already queued, on a state that
        // only other units changed. The one exception, a group whose cycle succeeded with
        // members left (its timestamp preserved "to trigger preemption immediately after the
        // current cycle"), is `preempt_for_members_left`. Not modelled: the retry itself. It
        // can only change an outcome when a later unit's preemption frees room the failed one
        // could not take itself (its policy is Never): by priority order the later unit's
        // victims were candidates of the failed unit's own preemption.
        let mut queued = queued_units.into_iter().peekable();
        let mut results = Vec::with_capacity(queued.len());
        while let Some(unit) = queued.next_if(|u| !before(u)) {
            let result = run_unit(state, &ctx, unit, &all_nodes, options.mode, sampler);
            let done = stop(&result);
            results.push(result);
            if done {
                break;
            }
        }
        *rest = queued.collect();
        results
    }

    /// The plan of `results`, run on this simulation, as its state now stands.
    fn plan_of(&self, results: Vec<UnitResult>) -> Plan {
        let Prepared {
            snapshot,
            options,
            gates,
            state,
            ..
        } = self;
        let (snapshot, gates) = (*snapshot, gates);
        let (feature_gates, assumed) = shown_gates(state, gates);
        use crate::notes::{Note, NoteUse};
        let percentage = state.profiles.percentage_note(options.mode == Mode::Compat);
        let mut plan = Plan {
            settings: Settings {
                mode: options.mode,
                feature_gates,
                assumed: assumed
                    .into_iter()
                    .chain(snapshot.facts.assumed.iter().cloned())
                    .collect(),
                // Every note a simulation may meet (the percentage one only when set, Kueue's
                // when Kueue's stage runs: `kueue::dry_run::join` adds them); the ones this
                // run met are `relevant_notes`, filled from the units below.
                notes: crate::notes::SIMULATION
                    .iter()
                    .filter(|n| {
                        !matches!(
                            n,
                            Note::PercentageCompat
                                | Note::PercentageExhaustive
                                | Note::KueueTopology
                                | Note::KueueFairSharing
                        )
                    })
                    .map(|n| n.text().to_owned())
                    .chain(percentage.as_ref().map(NoteUse::sentence))
                    .collect(),
                relevant_notes: Vec::new(),
                setting_notes: percentage.into_iter().collect(),
                node_images: snapshot.nodes.iter().any(|n| {
                    n.status
                        .as_ref()
                        .and_then(|s| s.images.as_ref())
                        .is_some_and(|i| !i.is_empty())
                }),
                what_if: options.what_if.clone(),
                admitted: snapshot.admitted.clone(),
                pod_by_pod: pod_by_pod(snapshot, gates, options),
                profiles: state
                    .profiles
                    .iter()
                    .filter(|p| !p.is_default())
                    .map(profile::Profile::describe)
                    .collect(),
                extenders: state.profiles.extenders.clone(),
            },
            warnings: snapshot.warnings.clone(),
            kueue: None,
            device_map: if options.device_map {
                device_map(state)
            } else {
                Vec::new()
            },
            stuck_pods: stuck_pods(state),
            binding_failures: binding_failures(state),
            summary: Summary::of(&results),
            units: results,
        };
        plan.refresh_notes();
        plan
    }
}

/// The feature gates a plan shows (the workload-aware ones, and the DRA ones where claims
/// exist) and what was assumed about them.
fn shown_gates(
    state: &ClusterState,
    gates: &crate::snapshot::facts::FeatureGates,
) -> (BTreeMap<String, bool>, Vec<String>) {
    let mut feature_gates: BTreeMap<String, bool> = BTreeMap::new();
    for g in ASSUMED_WAS_GATES.iter().chain(&["WorkloadWithJob"]) {
        feature_gates.insert((*g).to_owned(), gates.enabled(g));
    }
    let mut assumed: Vec<String> = gates.assumed.clone();
    // Where claims exist, whether preemption may free devices decides outcomes: the gate is
    // shown, and an assumed default is said on the one "no feature-gate facts" line.
    if !state.dra.claims.is_empty() {
        // Whether claims add cpu, memory and hugepages to their pods (KEP-5517).
        feature_gates.insert(
            DRA_NODE_ALLOCATABLE.to_owned(),
            gates.enabled(DRA_NODE_ALLOCATABLE),
        );
        // Where some device has binding conditions, whether binding waits for them.
        if state.dra.inventory.devices.iter().any(|d| d.binding) {
            feature_gates.insert(
                DRA_BINDING_CONDITIONS.to_owned(),
                gates.enabled(DRA_BINDING_CONDITIONS),
            );
        }
        let on = gates.enabled(DRA_PREEMPTION);
        feature_gates.insert(DRA_PREEMPTION.to_owned(), on);
        // A component whose gates are known runs an unlisted alpha gate at its default:
        // nothing to say then.
        if !on
            && let Some(line) = assumed
                .iter_mut()
                .find(|a| a.starts_with("no feature-gate facts"))
        {
            line.push_str(&format!(
                " and {DRA_PREEMPTION} off (the {SUPPORTED_KUBERNETES} default: preemption frees no DRA devices)"
            ));
        }
    }
    (feature_gates, assumed)
}

/// Pre-scheduled pods whose claims are not allocated.
fn stuck_pods(state: &ClusterState) -> Vec<plan::StuckPod> {
    state
        .dra
        .stuck
        .iter()
        .map(|s| {
            let p = &state.pods[s.pod];
            plan::StuckPod {
                namespace: p.namespace.clone(),
                pod: p.name.to_string(),
                node: state.placement[s.pod]
                    .map(|n| state.nodes[n].name.to_string())
                    .unwrap_or_default(),
                message: s.message.clone(),
            }
        })
        .collect()
}

/// Allocated claims whose binding failed or timed out.
fn binding_failures(state: &ClusterState) -> Vec<plan::BindingFailure> {
    state
        .dra
        .binding_failures
        .iter()
        .map(|f| {
            let c = &state.dra.claims[f.claim];
            plan::BindingFailure {
                namespace: c.namespace.clone(),
                claim: c.name.clone(),
                conditions: f.conditions.clone(),
                pods: f
                    .pods
                    .iter()
                    .map(|p| state.pods[*p].name.to_string())
                    .collect(),
                binding_timeout_seconds: f.timeout_seconds,
            }
        })
        .collect()
}

fn placements(state: &ClusterState, placed: &[(usize, usize)]) -> Vec<Placement> {
    placed
        .iter()
        .map(|(p, n)| Placement {
            pod: state.pods[*p].name.to_string(),
            node: state.nodes[*n].name.to_string(),
            devices: state.dra.devices_of(*p),
            // DynamicResources' `bindingTimeout` (`DynamicResourcesArgs`) of the pod's profile:
            // how long PreBind waits for a device's binding conditions before it clears the
            // allocation and the pod is scheduled again.
            binding_timeout_seconds: Some(
                state
                    .profiles
                    .get(state.pods[*p].profile)
                    .dra_binding_timeout_seconds,
            ),
        })
        .map(|mut p| {
            if p.devices.iter().all(|d| d.binding_conditions.is_empty()) {
                p.binding_timeout_seconds = None;
            }
            p
        })
        .collect()
}

/// What every unit's run needs besides the state.
struct UnitContext<'a> {
    snapshot: &'a Snapshot,
    gates: &'a crate::snapshot::facts::FeatureGates,
    victims: &'a preempt::victims::VictimIndex,
    preemption: bool,
    now: i64,
}

impl UnitContext<'_> {
    /// The preemption policy of a group root is Never (semantics §6.1): with
    /// PodGroupPreemptionPolicy on, the group's own policy; otherwise Never if any member says so.
    fn group_never(
        &self,
        state: &ClusterState,
        unit: &UnitResult,
        tree: &queue::GroupNode,
    ) -> bool {
        if self.gates.enabled("PodGroupPreemptionPolicy") {
            let (namespace, name) = (unit.namespace.as_str(), unit.name.as_str());
            let policy = match unit.kind {
                ObjKind::CompositePodGroup => self
                    .snapshot
                    .composite_pod_group(namespace, name)
                    .and_then(|c| c.spec.preemption_policy.clone()),
                _ => self
                    .snapshot
                    .pod_group(namespace, name)
                    .and_then(|p| p.spec.preemption_policy.clone()),
            };
            policy.as_deref() == Some("Never")
        } else {
            let mut pods = Vec::new();
            tree.pending_pods(&mut pods);
            tree.bound_pods(&mut pods);
            pods.iter().any(|p| state.pods[*p].preempt_never)
        }
    }
}

fn apply_preemption(
    state: &mut ClusterState,
    ctx: &UnitContext<'_>,
    result: &mut UnitResult,
    p: preempt::Preemption,
) {
    let (victims, mut blast) = preempt::describe(state, ctx.victims, &p, ctx.now);
    let snapshot = ctx.snapshot;
    let members = |ns: &str, group: &str| -> Vec<node_state::PodId> {
        snapshot
            .index
            .pods_by_group
            .get(ns, group)
            .iter()
            .filter_map(|i| snapshot.pods.get(*i))
            .filter_map(|pod| state.pod_id(ns, crate::snapshot::name_of(&pod.metadata)))
            .collect()
    };
    let min_count = |ns: &str, group: &str| -> Option<u32> {
        let gang = snapshot
            .pod_group(ns, group)?
            .spec
            .scheduling_policy
            .gang
            .as_ref()?;
        u32::try_from(gang.min_count).ok()
    };
    blast.groups = preempt::groups_left(state, ctx.victims, &p.victims, &members, &min_count);
    preempt::apply(state, &p);
    result.outcome = Outcome::Preempting;
    result.placements = placements(state, &p.placements);
    result.victims = victims;
    result.blast_radius = Some(blast);
    result.trace.preemption = p.log;
    result.trace.preemption_domains = p.domains;
}

/// The members a successful group cycle left unplaced, retried as upstream does: binding a
/// member is an assigned-pod event for its own group (GangScheduling's
/// `isSchedulableAfterPodAdded` → Queue), so the group comes back at once with only those
/// members, places none of them ("pod group is unschedulable", quorum already met) and runs its
/// PostFilter for them (podgrouppreemption_test.go "Binding first before preemption for gang
/// policy" asserts the events Bind:high-1, PodGroupPostFilter:pg1, Bind:high-2). The next cycle
/// itself is not re-run: on the unchanged state it fails the same way. When victims are found
/// the unit is Preempting: its placements are the members bound now, then the nominated ones.
fn preempt_for_members_left(
    state: &mut ClusterState,
    ctx: &UnitContext<'_>,
    result: &mut UnitResult,
    tree: &queue::GroupNode,
    placed: &[(usize, usize)],
    all_nodes: &[usize],
    mode: Mode,
) {
    let requeued = tree.with_bound(placed);
    let never = ctx.group_never(state, result, &requeued);
    let verdict = preempt::preempt_group(
        state,
        ctx.victims,
        preempt::GroupPreemptor {
            tree: &requeued,
            priority: result.priority,
            never,
        },
        all_nodes,
        mode,
    );
    if let preempt::Verdict::Preempt(p) = verdict {
        let bound_now = std::mem::take(&mut result.placements);
        apply_preemption(state, ctx, result, p);
        let left = requeued_pending(&requeued);
        result.message = format!(
            "{left} member(s) did not fit; pod group preemption for them: found a placement for podgroup, preempting {} victims",
            result.victims.len()
        );
        let nominated = std::mem::take(&mut result.placements);
        result.placements = bound_now.into_iter().chain(nominated).collect();
    }
}

fn requeued_pending(tree: &queue::GroupNode) -> usize {
    let mut pods = Vec::new();
    tree.pending_pods(&mut pods);
    pods.len()
}

fn run_unit(
    state: &mut ClusterState,
    ctx: &UnitContext<'_>,
    unit: Unit,
    all_nodes: &[usize],
    mode: Mode,
    sampler: &mut Sampler,
) -> UnitResult {
    let mut result = UnitResult {
        kind: unit.kind.clone(),
        namespace: unit.namespace,
        name: unit.name,
        outcome: Outcome::Waiting,
        message: String::new(),
        placements: Vec::new(),
        victims: Vec::new(),
        blast_radius: None,
        min_count: None,
        known: None,
        scheduled_before: 0,
        pending: 0,
        priority: unit.priority,
        profile: unit_profile(state, &unit.body),
        trace: UnitTrace::default(),
        kueue: None,
    };
    match unit.body {
        UnitBody::NotSimulated { scheduler, pods } => {
            result.outcome = Outcome::NotSimulated;
            result.message = format!("scheduled by `{scheduler}`, not simulated");
            result.pending = pods;
        }
        UnitBody::Held {
            error,
            message,
            pods,
            gang,
        } => {
            result.outcome = if error {
                Outcome::Error
            } else {
                Outcome::Waiting
            };
            result.message = message;
            result.pending = u32::try_from(pods.len()).unwrap_or(u32::MAX);
            // minCount whatever the outcome: a gang held at PreEnqueue still has one.
            if let Some(g) = gang {
                result.min_count = Some(g.min);
                result.scheduled_before = g.bound;
                result.known = (!error).then_some(g.known);
            }
        }
        UnitBody::Suspended { pods, min_count } => {
            result.outcome = Outcome::Suspended;
            result.message = format!(
                "Job {}/{} is suspended (spec.suspend: true): no pods until it is resumed",
                result.namespace, result.name
            );
            result.pending = pods;
            result.min_count = min_count;
        }
        UnitBody::Pod(pod) => run_pod_unit(state, ctx, &mut result, pod, all_nodes, mode, sampler),
        UnitBody::Group(tree) => {
            run_group_unit(state, ctx, &mut result, &tree, all_nodes, mode, sampler);
        }
    }
    result
}

/// The `schedulerName` of the profile that simulates `body` (its first pending pod's), or the
/// scheduler a `NotSimulated` unit names.
fn unit_profile(state: &ClusterState, body: &UnitBody) -> String {
    let of_pod = |p: node_state::PodId| {
        state
            .profiles
            .get(state.pods[p].profile)
            .scheduler_name
            .clone()
    };
    match body {
        UnitBody::NotSimulated { scheduler, .. } => scheduler.clone(),
        UnitBody::Pod(p) => of_pod(*p),
        UnitBody::Held { pods, .. } => pods.first().map(|p| of_pod(*p)).unwrap_or_default(),
        UnitBody::Group(tree) => {
            let mut pods = Vec::new();
            tree.pending_pods(&mut pods);
            pods.first().map(|p| of_pod(*p)).unwrap_or_default()
        }
        UnitBody::Suspended { .. } => String::new(),
    }
}

/// One pod's scheduling cycle into `result`: assumed on its node, or an error (no
/// PostFilter), or unschedulable with the fit error and, with preemption on, the pod's
/// PostFilter verdict appended.
fn run_pod_unit(
    state: &mut ClusterState,
    ctx: &UnitContext<'_>,
    result: &mut UnitResult,
    pod: node_state::PodId,
    all_nodes: &[usize],
    mode: Mode,
    sampler: &mut Sampler,
) {
    result.pending = 1;
    let attempt = schedule_pod(state, pod, all_nodes, mode, sampler);
    result.trace.pods.push(PodTrace::of_attempt(
        state,
        pod,
        &attempt,
        None,
        &mut ReasonTexts::default(),
    ));
    match attempt.node {
        Some(node) => {
            state.assume(pod, node);
            result.outcome = Outcome::Scheduled;
            result.placements = placements(state, &[(pod, node)]);
        }
        // A filter's error (a CEL runtime error in a device selector): schedulePod
        // returns it, which is no FitError, so there is no PostFilter (preemption).
        None if attempt.diagnosis.error.is_some() => {
            result.outcome = Outcome::Error;
            result.message = attempt.diagnosis.error.clone().unwrap_or_default();
        }
        None => {
            result.outcome = Outcome::Unschedulable;
            result.message = fit_error(all_nodes.len(), &attempt.diagnosis, &state.table);
            if ctx.preemption {
                match preempt::preempt_pod(state, ctx.victims, pod, all_nodes, mode) {
                    preempt::Verdict::Preempt(p) => {
                        apply_preemption(state, ctx, result, p);
                        result.message = format!(
                            "{} preemption: nominated node {}, preempting {} victim(s)",
                            result.message,
                            result.placements.first().map_or("", |p| p.node.as_str()),
                            result.victims.len()
                        );
                    }
                    preempt::Verdict::Refused(why) => {
                        result.message = format!("{} {why}", result.message);
                    }
                    // Only group preemption reports an ongoing preemption; a pod in
                    // that state is refused (PodEligibleToPreemptOthers).
                    preempt::Verdict::Ongoing { .. } => {}
                }
            }
        }
    }
}

/// One pod group's cycle into `result`: its counts, its trace, then by the cycle's status
/// the placements (with preemption for members left over), or the PostFilter for the group,
/// or the error.
fn run_group_unit(
    state: &mut ClusterState,
    ctx: &UnitContext<'_>,
    result: &mut UnitResult,
    tree: &queue::GroupNode,
    all_nodes: &[usize],
    mode: Mode,
    sampler: &mut Sampler,
) {
    let mut pending = Vec::new();
    tree.pending_pods(&mut pending);
    let mut bound = Vec::new();
    tree.bound_pods(&mut bound);
    result.pending = u32::try_from(pending.len()).unwrap_or(u32::MAX);
    result.scheduled_before = u32::try_from(bound.len()).unwrap_or(u32::MAX);
    result.min_count = Some(tree.min);
    let mut trace = UnitTrace::default();
    let run = gang::Cycle::new(state, mode, sampler, &mut trace).run(tree, all_nodes, true);
    // A topology gang traces every member in every domain: thousands of traces per
    // unit, kept for the whole plan, so not with a growing vector's spare room.
    trace.pods.shrink_to_fit();
    trace.domains.shrink_to_fit();
    trace.placement_feasible.shrink_to_fit();
    result.trace = trace;
    match run.status {
        gang::Status::Success => {
            result.outcome = Outcome::Scheduled;
            result.placements = placements(state, &run.placed);
            let left = pending.len() - run.placed.len();
            if left > 0 {
                result.message = format!("{left} member(s) were not placed and stay pending");
                if ctx.preemption {
                    preempt_for_members_left(
                        state,
                        ctx,
                        result,
                        tree,
                        &run.placed,
                        all_nodes,
                        mode,
                    );
                }
            }
        }
        gang::Status::Unschedulable => {
            result.outcome = Outcome::Unschedulable;
            result.message = run.message;
            if ctx.preemption {
                preempt_for_group(state, ctx, result, tree, all_nodes, mode);
            }
        }
        gang::Status::Error => {
            result.outcome = Outcome::Error;
            result.message = run.message;
        }
    }
}

/// The pod group PostFilter after an unschedulable group cycle: its verdict is appended to
/// the cycle's message; victims found make the unit preempting with its nominations, and an
/// earlier preemption still in flight keeps the members' nominations and changes nothing.
fn preempt_for_group(
    state: &mut ClusterState,
    ctx: &UnitContext<'_>,
    result: &mut UnitResult,
    tree: &queue::GroupNode,
    all_nodes: &[usize],
    mode: Mode,
) {
    let never = ctx.group_never(state, result, tree);
    match preempt::preempt_group(
        state,
        ctx.victims,
        preempt::GroupPreemptor {
            tree,
            priority: result.priority,
            never,
        },
        all_nodes,
        mode,
    ) {
        preempt::Verdict::Preempt(p) => {
            apply_preemption(state, ctx, result, p);
            // Upstream keeps the cycle's status and appends the
            // PostFilter's ("minCount (1) cannot be satisfied: …; pod
            // group preemption: found a placement for podgroup, preempting
            // 1 victims", TestPodGroupPreemptionStatus).
            let found = format!(
                "pod group preemption: found a placement for podgroup, preempting {} victims",
                result.victims.len()
            );
            result.message = if result.message.is_empty() {
                found
            } else {
                format!("{}; {found}", result.message)
            };
        }
        preempt::Verdict::Refused(why) => {
            result.message = format!("{}; pod group preemption: {why}", result.message);
        }
        preempt::Verdict::Ongoing { nominations, log } => {
            // An earlier preemption is in flight: members keep their
            // nominations, nothing is evicted or bound (the state is
            // unchanged).
            result.outcome = Outcome::Preempting;
            result.message = format!("pod group preemption: {}", preempt::MSG_ONGOING);
            result.placements = nominations
                .iter()
                .filter_map(|(p, n)| {
                    n.map(|n| Placement {
                        pod: state.pods[*p].name.to_string(),
                        node: state.nodes[n].name.to_string(),
                        devices: Vec::new(),
                        binding_timeout_seconds: None,
                    })
                })
                .collect();
            result.trace.preemption = log;
        }
    }
}

/// Every device with the claim, pods and group that hold it after the simulation: one row per
/// (device, claim), so a shared device (`allowMultipleAllocations`) lists every claim holding a
/// share; a free device has one row without a claim.
fn device_map(state: &ClusterState) -> Vec<plan::DeviceUse> {
    let dra = &state.dra;
    let inv = &dra.inventory;
    let mut holders: std::collections::HashMap<usize, Vec<usize>> =
        std::collections::HashMap::new();
    for (ci, c) in dra.claims.iter().enumerate() {
        for a in c.allocation.iter().flat_map(|(d, _)| d) {
            let list = holders.entry(a.device).or_default();
            if !list.contains(&ci) {
                list.push(ci);
            }
        }
    }
    let mut consumers: std::collections::HashMap<usize, Vec<String>> =
        std::collections::HashMap::new();
    let mut pods: Vec<_> = dra.pod_claims.iter().collect();
    pods.sort_by_key(|(p, _)| **p);
    for (pod, pc) in pods {
        if state.placement[*pod].is_none() {
            continue;
        }
        for (_, ci) in &pc.entries {
            consumers
                .entry(*ci)
                .or_default()
                .push(state.pods[*pod].name.to_string());
        }
    }
    let mut rows = Vec::with_capacity(inv.devices.len());
    for (id, d) in inv.devices.iter().enumerate() {
        let pool = &inv.pools[d.pool];
        let node = match &d.scope {
            dra::inventory::Scope::Node(n) => n.clone(),
            dra::inventory::Scope::AllNodes => "(all nodes)".to_owned(),
            dra::inventory::Scope::Selector(_) => "(node selector)".to_owned(),
        };
        let row = |claim: Option<usize>| {
            let c = claim.map(|ci| &dra.claims[ci]);
            plan::DeviceUse {
                node: node.clone(),
                driver: d.driver.clone(),
                pool: pool.name.clone(),
                device: d.name.clone(),
                claim: c.map(|c| format!("{}/{}", c.namespace, c.name)),
                simulated: claim
                    .is_some_and(|ci| dra.claims[ci].hypothetical || dra.reserved_claim(ci)),
                pods: claim
                    .and_then(|ci| consumers.get(&ci).cloned())
                    .unwrap_or_default(),
                group: c.and_then(|c| c.group.clone()),
                binds_to_node: d.extra.as_deref().is_some_and(|e| e.binds_to_node),
                binding_conditions: c.map(|c| dra.pending_binding(c, id)).unwrap_or_default(),
            }
        };
        match holders.get(&id) {
            Some(list) => rows.extend(list.iter().map(|ci| row(Some(*ci)))),
            None => rows.push(row(None)),
        }
    }
    rows
}

#[cfg(test)]
mod step_tests {
    use super::{Mode, Options, prepare};
    use crate::testutil::synthetic::{Profile, snapshot};

    /// A queue run in steps (`advance_until`, then `plan_after`) plans as one run, also in
    /// compat mode at a size where upstream samples the nodes: the sampler's start index
    /// (`nextStartNodeIndex`) carries from one step to the next.
    /// A cluster large enough that upstream samples the nodes (compat mode), with gangs and
    /// pods pending, and the options that sample.
    pub(super) fn sampled(seed: u64) -> (crate::snapshot::Snapshot, Options) {
        let mut p = Profile::with_nodes(400);
        p.running_pods = 400 * 4;
        p.pending_pods = 60;
        p.gangs = vec![(6, 4)];
        let options = Options {
            mode: Mode::Compat,
            ..Options::default()
        };
        (snapshot(&p, seed), options)
    }

    #[test]
    fn a_queue_run_in_steps_plans_as_one_run() {
        let (s, options) = sampled(7);
        let prepared = prepare(&s, &options);
        let whole = serde_json::to_value(&prepared.clone().into_plan().units).expect("plan");
        let n = prepared.queued().len();
        assert!(n > 40, "{n} units");
        for at in [1, n / 3, n / 2, n - 1] {
            let key = {
                let u = &prepared.queued()[at];
                (u.kind.clone(), u.namespace.clone(), u.name.clone())
            };
            let mut steps = prepared.clone();
            let earlier = steps
                .advance_until(|u| (&u.kind, &u.namespace, &u.name) == (&key.0, &key.1, &key.2));
            assert_eq!(earlier.len(), at);
            let plan = steps.plan_after(earlier, |_| false);
            assert_eq!(
                serde_json::to_value(&plan.units).expect("plan"),
                whole,
                "split before unit {at}"
            );
        }
    }
}

#[cfg(test)]
mod added_nodes_tests {
    use super::{Options, prepare, simulate, whatif};
    use crate::snapshot::{Snapshot, name_of};

    fn units(plan: &super::Plan) -> serde_json::Value {
        serde_json::to_value(&plan.units).expect("plan")
    }

    /// The plan of `s` with `count` nodes like `like` added, both ways: compiled into the
    /// state not run yet, and built from a copy of the snapshot holding the nodes.
    fn both_ways(
        s: &Snapshot,
        options: &Options,
        like: &str,
        count: usize,
    ) -> (serde_json::Value, serde_json::Value) {
        let added = prepare(s, options)
            .with_nodes_added(like, count)
            .expect("nodes added to the compiled state")
            .into_plan();
        let mut copy = s.clone();
        whatif::add_nodes(&mut copy, count, like).expect("nodes added to the copy");
        (units(&added), units(&simulate(&copy, options)))
    }

    /// Nodes added to the compiled state plan as a snapshot holding them does (what explain's
    /// add-nodes fix verifies), for every explain and scenario fixture, with the first, a
    /// middle and the last node copied once and three times: the new nodes sort among the
    /// others by name, and the bound pods follow their renumbered nodes.
    #[test]
    fn nodes_added_to_the_compiled_state_plan_as_a_snapshot_holding_them() {
        let mut compared = 0;
        for (dir, s) in crate::testutil::fixture_clusters() {
            let Some(last) = s.nodes.len().checked_sub(1) else {
                continue;
            };
            let mut picks = vec![0, last / 2, last];
            picks.dedup();
            for i in picks {
                let like = name_of(&s.nodes[i].metadata).to_owned();
                // A node with devices of its own is copied with its ResourceSlices, which the
                // compiled state cannot take: the caller copies the snapshot instead.
                if whatif::has_node_local_slices(&s, &like) {
                    assert!(
                        prepare(&s, &Options::default())
                            .with_nodes_added(&like, 1)
                            .is_none(),
                        "{} like {like}",
                        dir.display()
                    );
                    continue;
                }
                for count in [1, 3] {
                    let (added, copied) = both_ways(&s, &Options::default(), &like, count);
                    assert_eq!(added, copied, "{} like {like} x{count}", dir.display());
                    compared += 1;
                }
            }
        }
        assert!(compared > 40, "only {compared} compared");
    }

    /// In compat mode at a size where upstream samples the nodes, which nodes a pod sees
    /// depends on their order: the added nodes are where a built state has them.
    #[test]
    fn nodes_added_in_the_middle_sample_as_a_snapshot_holding_them() {
        let (s, options) = super::step_tests::sampled(11);
        let like = name_of(&s.nodes[123].metadata).to_owned();
        let (added, copied) = both_ways(&s, &options, &like, 5);
        assert_eq!(added, copied);
    }

    /// The cases a state cannot take the nodes into, where the caller compiles the copy: a
    /// run has started, a new name is taken by a node, a pod names a new node.
    #[test]
    fn nodes_are_not_added_where_a_built_state_would_differ() {
        use crate::testutil::synthetic::{Profile, snapshot};
        let mut p = Profile::with_nodes(4);
        p.pending_pods = 2;
        let s = snapshot(&p, 3);
        let like = name_of(&s.nodes[0].metadata).to_owned();
        let mut started = prepare(&s, &Options::default());
        assert!(
            started.with_nodes_added(&like, 1).is_some(),
            "nothing ran yet"
        );
        let _ = started.run_until(|_| true);
        assert!(started.with_nodes_added(&like, 1).is_none(), "a unit ran");
        assert!(
            prepare(&s, &Options::default())
                .with_nodes_added("no-such-node", 1)
                .is_none()
        );

        let mut taken = s.clone();
        let mut twin = taken.nodes[1].clone();
        twin.metadata.name = Some(format!("{like}-sim-2"));
        taken.nodes.push(twin);
        let taken = taken.build();
        assert!(
            prepare(&taken, &Options::default())
                .with_nodes_added(&like, 1)
                .is_some()
        );
        assert!(
            prepare(&taken, &Options::default())
                .with_nodes_added(&like, 2)
                .is_none()
        );

        let mut named = s.clone();
        let pod = named
            .pods
            .iter_mut()
            .find(|p| p.spec.as_ref().is_some_and(|sp| sp.node_name.is_none()))
            .expect("a pending pod");
        if let Some(spec) = std::sync::Arc::make_mut(pod).spec.as_mut() {
            spec.node_name = Some(format!("{like}-sim-1"));
        }
        let named = named.build();
        assert!(
            prepare(&named, &Options::default())
                .with_nodes_added(&like, 1)
                .is_none()
        );
    }
}

#[cfg(test)]
mod bound_to_missing_node_tests {
    use super::{Options, Outcome, simulate};
    use crate::snapshot::source::{Collector, files};

    fn snapshot(text: &str) -> crate::snapshot::Snapshot {
        let mut c = Collector::new();
        files::load_str(text, "test.yaml", &mut c).expect("fixture loads");
        c.finish()
    }

    const FACTS: &str = r#"{"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts", "snapshotTime": "2026-11-20T12:00:00Z", "serverVersion": "v1.37.0", "components": [{"component": "kube-scheduler", "version": "v1.37.0", "featureGates": {"GenericWorkload": true, "TopologyAwareWorkloadScheduling": true}}]}"#;

    fn pod(name: &str, node: Option<&str>, group: bool) -> String {
        let node = node
            .map(|n| format!(r#", "nodeName": "{n}""#))
            .unwrap_or_default();
        let group = if group {
            r#", "schedulingGroup": {"podGroupName": "pg"}"#
        } else {
            ""
        };
        let phase = if node.is_empty() {
            "Pending"
        } else {
            "Running"
        };
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}", "namespace": "default", "creationTimestamp": "2026-11-20T10:00:00Z"}}, "spec": {{"containers": [{{"name": "c", "image": "i", "resources": {{"requests": {{"cpu": "1"}}}}}}]{group}{node}}}, "status": {{"phase": "{phase}"}}}}"#
        )
    }

    fn cluster(topology: bool, pods: &[String]) -> String {
        let constraints = if topology {
            r#", "schedulingConstraints": {"topology": [{"key": "rack"}]}"#
        } else {
            ""
        };
        let mut docs = vec![
            FACTS.to_owned(),
            r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"rack": "a"}}, "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "110"}}}"#.to_owned(),
            format!(
                r#"{{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {{"name": "pg", "namespace": "default"}}, "spec": {{"schedulingPolicy": {{"gang": {{"minCount": 2}}}}{constraints}}}}}"#
            ),
        ];
        docs.extend(pods.iter().cloned());
        docs.join("\n---\n")
    }

    /// kube-scheduler never queues an assigned pod, even one whose Node is gone (its cache
    /// holds it under a node entry the snapshot leaves out); its pod group state counts it as
    /// assigned. The pod's CPU counts on no node: n1 (1 CPU) still takes the pending member.
    #[test]
    fn a_pod_bound_to_a_missing_node_is_a_running_member_and_never_queued() {
        let s = snapshot(&cluster(
            false,
            &[
                pod("gone", Some("n-removed"), true),
                pod("p", None, true),
                pod("solo-gone", Some("n-removed"), false),
            ],
        ));
        let plan = simulate(&s, &Options::default());
        assert_eq!(plan.units.len(), 1, "{:#?}", plan.units);
        let u = &plan.units[0];
        assert_eq!(u.name, "pg");
        assert!(matches!(u.outcome, Outcome::Scheduled), "{u:#?}");
        assert_eq!(u.scheduled_before, 1);
        assert_eq!(u.placements.len(), 1);
        assert_eq!(u.placements[0].node, "n1");
    }

    /// With a topology constraint, upstream looks the running member's node up in the snapshot
    /// (`getScheduledPodsTopologyDomain` → `NodeInfos().Get`), which fails for a missing node.
    #[test]
    fn a_topology_gang_with_a_member_on_a_missing_node_cannot_determine_its_domain() {
        let s = snapshot(&cluster(
            true,
            &[pod("gone", Some("n-removed"), true), pod("p", None, true)],
        ));
        let plan = simulate(&s, &Options::default());
        assert_eq!(plan.units.len(), 1, "{:#?}", plan.units);
        let u = &plan.units[0];
        assert!(matches!(u.outcome, Outcome::Error), "{u:#?}");
        assert_eq!(
            u.message,
            "cannot determine domain for already scheduled pods: getting node for pod default/gone: nodeinfo not found for node name \"n-removed\""
        );
    }
}

#[cfg(test)]
mod profile_tests {
    //! Profiles end to end: the pod's `schedulerName` picks the profile, the profile's Fit
    //! strategy decides the node, and a name no profile serves is `NotSimulated`.
    use super::{Options, Outcome, simulate};
    use crate::sched::profile::{Profile, Profiles, ResourceSpec, ScoringStrategy, Strategy};
    use crate::snapshot::source::{Collector, files};

    fn snapshot(docs: &[String]) -> crate::snapshot::Snapshot {
        let mut c = Collector::new();
        files::load_str(&docs.join("\n---\n"), "test.yaml", &mut c).expect("fixture loads");
        c.finish()
    }

    fn node(name: &str, gpus: u32) -> String {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Node", "metadata": {{"name": "{name}", "labels": {{"kubernetes.io/hostname": "{name}"}}}}, "status": {{"allocatable": {{"cpu": "64", "memory": "256Gi", "pods": "110", "nvidia.com/gpu": "{gpus}"}}}}}}"#
        )
    }

    fn pod(name: &str, node: Option<&str>, gpus: u32, scheduler: &str) -> String {
        let node = node
            .map(|n| format!(r#", "nodeName": "{n}""#))
            .unwrap_or_default();
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}", "namespace": "ml", "creationTimestamp": "2026-11-20T10:00:00Z"}}, "spec": {{"schedulerName": "{scheduler}", "containers": [{{"name": "c", "image": "i", "resources": {{"requests": {{"cpu": "1", "nvidia.com/gpu": "{gpus}"}}, "limits": {{"nvidia.com/gpu": "{gpus}"}}}}}}]{node}}}}}"#
        )
    }

    /// Two 8-GPU nodes, `busy` already running a 6-GPU pod; one pending 2-GPU pod.
    fn cluster(scheduler: &str) -> crate::snapshot::Snapshot {
        snapshot(&[
            node("busy", 8),
            node("idle", 8),
            pod("running", Some("busy"), 6, "default-scheduler"),
            pod("train", None, 2, scheduler),
        ])
    }

    fn binpack(name: &str) -> Profile {
        Profile {
            scheduler_name: name.to_owned(),
            fit: ScoringStrategy {
                strategy: Strategy::MostAllocated,
                resources: vec![ResourceSpec::new("nvidia.com/gpu", 1)],
            },
            ..Profile::default()
        }
    }

    fn node_of(plan: &super::Plan) -> &str {
        plan.units[0].placements[0].node.as_str()
    }

    #[test]
    fn the_default_profile_spreads_and_most_allocated_on_gpus_packs() {
        let s = cluster("default-scheduler");
        let plan = simulate(&s, &Options::default());
        assert_eq!(
            node_of(&plan),
            "idle",
            "LeastAllocated prefers the emptier node"
        );
        assert!(plan.settings.profiles.is_empty());
        let options = Options {
            profiles: Profiles::new(vec![binpack("default-scheduler")], Vec::new()),
            ..Options::default()
        };
        let plan = simulate(&s, &options);
        assert_eq!(
            node_of(&plan),
            "busy",
            "MostAllocated on nvidia.com/gpu packs"
        );
        assert_eq!(
            plan.settings.profiles,
            vec!["profile default-scheduler: MostAllocated on nvidia.com/gpu".to_owned()]
        );
    }

    #[test]
    fn a_pod_that_requests_none_of_the_strategys_resources_scores_zero_on_every_node() {
        // Upstream `calculateResourceAllocatableRequest` bypasses an extended resource the pod
        // does not request, and a zero weight sum scores 0: the scorer's shortcut
        // (`FitScorer::bypasses`) must agree with the per-node pass.
        use crate::sched::node_state::ClusterState;
        use crate::sched::pod_req::PodReq;
        use crate::sched::score::strategy::FitScorer;
        let s = snapshot(&[
            node("busy", 8),
            node("idle", 8),
            pod("running", Some("busy"), 6, "default-scheduler"),
            pod("cpu-only", None, 0, "default-scheduler"),
            pod("train", None, 2, "default-scheduler"),
        ]);
        let gates = s.facts.gates_for(
            crate::snapshot::facts::Component::KubeScheduler,
            &Default::default(),
        );
        let mut state = ClusterState::build(&s, &gates);
        let find = |name: &str| {
            s.pods
                .iter()
                .find(|p| p.metadata.name.as_deref() == Some(name))
                .expect("fixture pod")
        };
        let cpu_only = PodReq::compile(find("cpu-only"), &mut state.table);
        let train = PodReq::compile(find("train"), &mut state.table);
        let mut fit = FitScorer::new(&binpack("default-scheduler").fit, &state.table);
        assert!(fit.bypasses(&cpu_only));
        assert!(!fit.bypasses(&train));
        for n in &state.nodes {
            assert_eq!(fit.score(&cpu_only, n), 0);
        }
        let scores: Vec<i64> = state.nodes.iter().map(|n| fit.score(&train, n)).collect();
        assert!(scores.iter().any(|&x| x > 0), "{scores:?}");
    }

    #[test]
    fn the_pods_scheduler_name_picks_its_profile() {
        let s = cluster("gpu-binpack");
        let options = Options {
            profiles: Profiles::new(vec![Profile::default(), binpack("gpu-binpack")], Vec::new()),
            ..Options::default()
        };
        let plan = simulate(&s, &options);
        assert_eq!(plan.units[0].profile, "gpu-binpack");
        assert_eq!(node_of(&plan), "busy");
        let json = serde_json::to_value(&plan.units[0]).expect("json");
        assert_eq!(json["profile"], "gpu-binpack");
    }

    #[test]
    fn pods_no_profile_serves_are_not_simulated_and_never_placed() {
        let s = snapshot(&[
            node("n1", 8),
            pod("a", None, 1, "volcano"),
            pod("b", None, 1, "volcano"),
            pod("c", None, 1, "default-scheduler"),
        ]);
        let plan = simulate(&s, &Options::default());
        let not: Vec<(&str, &str, &str)> = plan
            .units
            .iter()
            .filter(|u| u.outcome == Outcome::NotSimulated)
            .map(|u| (u.name.as_str(), u.profile.as_str(), u.message.as_str()))
            .collect();
        assert_eq!(
            not,
            vec![
                ("a", "volcano", "scheduled by `volcano`, not simulated"),
                ("b", "volcano", "scheduled by `volcano`, not simulated"),
            ]
        );
        assert!(
            plan.units
                .iter()
                .all(|u| u.outcome != Outcome::NotSimulated || u.placements.is_empty())
        );
        assert_eq!(plan.units[0].name, "c", "simulated units first");
        assert_eq!(plan.summary.not_simulated, 2);
        // A configuration whose only profile is not default-scheduler: default pods too.
        let options = Options {
            profiles: Profiles::new(vec![binpack("gpu-binpack")], Vec::new()),
            ..Options::default()
        };
        let plan = simulate(&s, &options);
        assert_eq!(plan.summary.not_simulated, 3);
    }
}

#[cfg(test)]
mod default_spread_tests {
    use super::{Options, simulate};
    use crate::sched::profile::{Profile, Profiles, SpreadDefaults};
    use crate::snapshot::source::{Collector, files};

    /// testdata/scenarios/x20: the system defaults move db-2 off `big`; with
    /// `defaultingType: List` and no constraints (spreading off) it stays there.
    #[test]
    fn system_default_spreading_decides_the_statefulset_pods_node() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "testdata/scenarios/x20-system-default-spreading-moves-a-statefulset-pod/cluster.yaml",
        );
        let mut c = Collector::new();
        files::load_path(&path, &mut c).expect("fixture loads");
        let s = c.finish();
        let node_of = |plan: &super::Plan| {
            plan.units
                .iter()
                .find(|u| u.name == "db-2")
                .map(|u| u.placements[0].node.clone())
        };
        assert_eq!(
            node_of(&simulate(&s, &Options::default())).as_deref(),
            Some("small")
        );
        let off = Options {
            profiles: Profiles::new(
                vec![Profile {
                    spread: SpreadDefaults::List(Vec::new()),
                    ..Profile::default()
                }],
                Vec::new(),
            ),
            ..Options::default()
        };
        assert_eq!(node_of(&simulate(&s, &off)).as_deref(), Some("big"));
    }
}

#[cfg(test)]
mod scenario_contrast_tests {
    //! The upstream scoring-strategy scenarios decide differently under the default profile:
    //! their configuration is what places the pod.
    use super::{Options, simulate};
    use crate::snapshot::source::{Collector, files};

    fn node_with_default_profile(folder: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/scenarios")
            .join(folder)
            .join("cluster.yaml");
        let mut c = Collector::new();
        files::load_path(&path, &mut c).expect("fixture loads");
        let plan = simulate(&c.finish(), &Options::default());
        plan.units[0].placements[0].node.clone()
    }

    #[test]
    fn without_their_configuration_the_strategy_scenarios_place_elsewhere() {
        assert_eq!(
            node_with_default_profile("upstream-fit-most-allocated-differently-sized-nodes"),
            "node2"
        );
        assert_eq!(
            node_with_default_profile("upstream-fit-rtcr-single-extended-less-resources"),
            "node1"
        );
    }
}

/// Which modelling notes a run records (`settings.relevantNotes`): only those that could have
/// changed its answer (issue 51, "quiet by default").
#[cfg(test)]
mod note_tests {
    use super::{Options, Outcome, simulate};
    use crate::notes::Note;
    use crate::snapshot::source::{Collector, files};

    const FACTS: &str = r#"{"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts", "snapshotTime": "2026-11-20T12:00:00Z", "serverVersion": "v1.37.0", "components": [{"component": "kube-scheduler", "version": "v1.37.0", "featureGates": {"GenericWorkload": true}}]}"#;

    fn node(name: &str, cpu: u32) -> String {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Node", "metadata": {{"name": "{name}"}}, "status": {{"allocatable": {{"cpu": "{cpu}", "memory": "8Gi", "pods": "110"}}}}}}"#
        )
    }

    fn pod(name: &str, node: Option<&str>, priority: i32) -> String {
        let bound = node
            .map(|n| format!(r#", "nodeName": "{n}""#))
            .unwrap_or_default();
        let phase = if node.is_some() { "Running" } else { "Pending" };
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}", "namespace": "default", "creationTimestamp": "2026-11-20T10:00:00Z"}}, "spec": {{"priority": {priority}, "containers": [{{"name": "c", "image": "i", "resources": {{"requests": {{"cpu": "1"}}}}}}]{bound}}}, "status": {{"phase": "{phase}"}}}}"#
        )
    }

    fn notes_of(docs: &[String]) -> (Vec<Outcome>, Vec<&'static str>) {
        let text = std::iter::once(FACTS.to_owned())
            .chain(docs.iter().cloned())
            .collect::<Vec<_>>()
            .join("\n---\n");
        let mut c = Collector::new();
        files::load_str(&text, "test.yaml", &mut c).expect("fixture loads");
        let plan = simulate(&c.finish(), &Options::default());
        (
            plan.units.iter().map(|u| u.outcome).collect(),
            plan.settings
                .relevant_notes
                .iter()
                .map(|n| n.note.id())
                .collect(),
        )
    }

    #[test]
    fn two_equal_nodes_make_the_tie_note_relevant_and_one_node_makes_none() {
        let (outcomes, notes) = notes_of(&[node("n1", 4), node("n2", 4), pod("p", None, 0)]);
        assert_eq!(outcomes, [Outcome::Scheduled]);
        assert_eq!(notes, [Note::Ties.id()]);

        let (outcomes, notes) = notes_of(&[node("n1", 4), pod("p", None, 0)]);
        assert_eq!(outcomes, [Outcome::Scheduled]);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn unequal_nodes_chosen_by_scores_make_no_tie_note_and_image_locality_needs_node_images() {
        // n2 has room left after p (LeastAllocated prefers it): scores differ, no tie; the
        // nodes list no images, so ImageLocality scores them alike.
        let (outcomes, notes) = notes_of(&[node("n1", 2), node("n2", 8), pod("p", None, 0)]);
        assert_eq!(outcomes, [Outcome::Scheduled]);
        assert!(notes.is_empty(), "{notes:?}");
        // A node that lists images: ImageLocality could have scored the choice.
        let imaged = node("n2", 8).replace(
            r#""status": {"#,
            r#""status": {"images": [{"names": ["i"], "sizeBytes": 300000000}], "#,
        );
        let (_, notes) = notes_of(&[node("n1", 2), imaged, pod("p", None, 0)]);
        assert_eq!(notes, [Note::ImageLocality.id()]);
    }

    #[test]
    fn a_pod_preemption_makes_the_timing_note_relevant_but_not_the_group_one() {
        let (outcomes, notes) = notes_of(&[
            node("n1", 1),
            pod("low", Some("n1"), 0),
            pod("high", None, 100),
        ]);
        assert_eq!(outcomes, [Outcome::Preempting]);
        assert_eq!(notes, [Note::PreemptionTiming.id()]);
    }
}
