//! The simulator's output: a [`Plan`] with one [`UnitResult`] per queueing unit tried, in
//! order, and a trace that explain and the TUI read (they never re-run the algorithm).
//!
//! Serialized as `kind: SimulationReport` (docs/json.md); keys are a stable contract.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Serialize;

use super::node_state::{ClusterState, PodId};
use super::resources::ResourceTable;
use super::schedule_one::{Mode, PodAttempt};
use super::status::Reason;
use crate::snapshot::{ObjKind, ObjRef};

/// What happened to a unit: the one vocabulary of wasctl. simulate's and tree's tables,
/// explain's text (and its JSON `outcome`, beside its documented `verdict`), capacity, diff,
/// the TUI and every JSON (`outcome`, `before`/`after`, summary counts) say these words and no
/// others; a later capability extends this enum, never a parallel one (README "JSON output",
/// "Outcomes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Outcome {
    /// Placed (bound in the simulation).
    Scheduled,
    /// Tried, no placement.
    Unschedulable,
    /// Held before scheduling (PreEnqueue): quorum, missing PodGroup, scheduling gates.
    Waiting,
    /// Would preempt victims and then be placed.
    Preempting,
    /// The scheduler would report an error (invalid group, topology domain conflicts).
    Error,
    /// A suspended Job (`spec.suspend: true`): its controller creates no pods until it is
    /// resumed, so there is nothing to schedule.
    Suspended,
    /// Its pods name a `schedulerName` no profile of the scheduler configuration serves (a
    /// secondary scheduler such as volcano or yunikorn): that scheduler places them, the
    /// simulation does not (the unit's `profile` holds the name).
    NotSimulated,
}

impl Outcome {
    /// Every outcome, in the order reports count them.
    #[cfg(test)]
    pub(crate) const ALL: [Outcome; 7] = [
        Outcome::Scheduled,
        Outcome::Unschedulable,
        Outcome::Waiting,
        Outcome::Preempting,
        Outcome::Error,
        Outcome::Suspended,
        Outcome::NotSimulated,
    ];

    /// The word, as every report writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Scheduled => "Scheduled",
            Outcome::Unschedulable => "Unschedulable",
            Outcome::Waiting => "Waiting",
            Outcome::Preempting => "Preempting",
            Outcome::Error => "Error",
            Outcome::Suspended => "Suspended",
            Outcome::NotSimulated => "NotSimulated",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One pod placed on one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Placement {
    /// The pod's name (same namespace as the unit).
    pub pod: String,
    /// The node.
    pub node: String,
    /// DRA devices allocated for the pod (`claim`, `request`, `driver`, `pool`, `device`);
    /// omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<super::dra::DeviceRef>,
    /// When a device's `bindingConditions` are not all `True` yet: the pod is placed, but its
    /// binding waits in PreBind for them, at most this many seconds (DynamicResources'
    /// `bindingTimeout`), after which the allocation is cleared and the pod scheduled again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding_timeout_seconds: Option<u32>,
}

/// An allocated claim whose binding failed: a device's `bindingFailureConditions` entry is
/// `True` and none of its pods is bound. The scheduler clears the allocation and its pods go
/// back to scheduling (the simulation schedules them again, with the devices free).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingFailure {
    /// Namespace.
    pub namespace: String,
    /// The claim.
    pub claim: String,
    /// `driver/pool/device: condition` for each failure condition that is `True` (empty when
    /// the binding timed out instead).
    pub conditions: Vec<String>,
    /// Its pods, back to scheduling.
    pub pods: Vec<String>,
    /// When the binding timed out: the `bindingTimeout` (DynamicResources, of the pod's
    /// profile) that passed between the claim's `allocationTimestamp` and the snapshot's
    /// time with its binding conditions still not all `True`. Absent for a failure condition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding_timeout_seconds: Option<u32>,
}

/// Why one member pod fit or did not (aggregated: reasons with node counts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodTrace {
    /// Pod name.
    pub pod: Arc<str>,
    /// Chosen node, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<Arc<str>>,
    /// Nodes evaluated.
    pub evaluated: u32,
    /// Nodes that passed every filter.
    pub feasible: u32,
    /// Nodes where preemption cannot help (UnschedulableAndUnresolvable).
    pub unresolvable: u32,
    /// Filter reason → node count.
    #[serde(skip_serializing_if = "ReasonCounts::is_empty")]
    pub node_reasons: ReasonCounts,
    /// DynamicResources: claim → why no device → node count.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub claim_reasons: BTreeMap<String, BTreeMap<String, u32>>,
    /// Which placement (topology domain) this attempt belongs to, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<Arc<str>>,
    /// Whether several nodes shared the best score and the node was chosen by name (the
    /// `ties` note's condition; not serialized: `settings.relevantNotes` says it).
    #[serde(skip)]
    pub tied: bool,
}

impl PodTrace {
    /// The trace of `pod`'s `attempt`, within `placement` (a topology domain) if any; the
    /// reason texts come from (and go into) `texts`.
    pub(crate) fn of_attempt(
        state: &ClusterState,
        pod: PodId,
        attempt: &PodAttempt,
        placement: Option<Arc<str>>,
        texts: &mut ReasonTexts,
    ) -> Self {
        let d = &attempt.diagnosis;
        Self {
            pod: state.pods[pod].name.clone(),
            node: attempt.node.map(|n| state.nodes[n].name.clone()),
            evaluated: d.evaluated,
            feasible: d.feasible,
            unresolvable: d.unresolvable,
            node_reasons: d
                .reasons
                .iter()
                .map(|(r, n)| (texts.text(*r, &state.table), *n))
                .collect(),
            claim_reasons: d.claim_reasons.clone(),
            placement,
            tied: attempt.tied,
        }
    }
}

/// Filter reason → node count, sorted by reason, serialized as a map.
///
/// A topology-constrained gang traces every member in every domain: 640,000 traces for the
/// gangs of a 5,000-node cluster. A `BTreeMap<String, u32>` costs each of them a tree node
/// and a copy of every reason's text; here they share the text (`ReasonTexts`) and hold an
/// exact-size slice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReasonCounts(Box<[(Arc<str>, u32)]>);

impl ReasonCounts {
    /// No reasons.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// (reason, node count), in reason order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        self.0.iter().map(|(r, n)| (&**r, *n))
    }

    /// The reasons, in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(r, _)| &**r)
    }

    /// The node count of `reason`.
    #[cfg(test)]
    pub(crate) fn get(&self, reason: &str) -> Option<u32> {
        self.0
            .binary_search_by(|(r, _)| (**r).cmp(reason))
            .ok()
            .map(|i| self.0[i].1)
    }
}

/// Collects (reason, count) pairs in any order; a reason given twice adds up.
impl<K: Into<Arc<str>>> FromIterator<(K, u32)> for ReasonCounts {
    fn from_iter<I: IntoIterator<Item = (K, u32)>>(iter: I) -> Self {
        let mut v: Vec<(Arc<str>, u32)> = iter.into_iter().map(|(k, n)| (k.into(), n)).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = kept.1.saturating_add(later.1);
            }
            same
        });
        Self(v.into_boxed_slice())
    }
}

impl Serialize for ReasonCounts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

/// The texts of the filter reasons met so far, each allocated once.
#[derive(Debug, Default)]
pub(crate) struct ReasonTexts(HashMap<Reason, Arc<str>>);

impl ReasonTexts {
    /// `reason`'s text.
    pub(crate) fn text(&mut self, reason: Reason, table: &ResourceTable) -> Arc<str> {
        self.0
            .entry(reason)
            .or_insert_with(|| Arc::from(reason.text(table)))
            .clone()
    }
}

/// One topology domain tried for a group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainTrace {
    /// The group the domain was generated for (`PodGroup/x` or `CompositePodGroup/x`).
    pub group: String,
    /// Topology key.
    pub key: String,
    /// Domain value.
    pub value: String,
    /// Nodes in the domain.
    pub nodes: u32,
    /// Members that fit in it (trying every member, not stopping at the first failure).
    pub placeable: u32,
    /// Whether the group algorithm succeeded in it.
    pub feasible: bool,
    /// Its status message when not feasible.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Placement score (PodGroupPodsCount + NodeResourcesFit), when feasible.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
    /// Whether it was chosen.
    pub chosen: bool,
}

/// The trace of one unit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnitTrace {
    /// PlacementFeasible results in order: `Success`, `Wait`, `Unschedulable` (one group level
    /// each entry, prefixed with the group when the unit is a tree).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placement_feasible: Vec<Cow<'static, str>>,
    /// Member attempts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<PodTrace>,
    /// Topology domains tried.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<DomainTrace>,
    /// Preemption: why each candidate victim was evicted or spared, in reprieve order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preemption: Vec<String>,
    /// Preemption of a topology-constrained group: the domains tried with every candidate
    /// victim removed, with their placement scores; the `chosen` one is the domain the group
    /// preempts in (its nominations all lie there).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preemption_domains: Vec<DomainTrace>,
}

impl UnitTrace {
    /// Nothing traced: the unit's `trace` is omitted from the JSON.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// What Kueue's admission does with a Kueue Workload (stage one of a dry run on a cluster
/// that runs Kueue): the `admission.outcome` of the JSON contract (docs/json.md). Its own
/// vocabulary, beside [`Outcome`], which stays the placement stage's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub enum AdmissionOutcome {
    /// Quota is reserved and every admission check passed: its pods are created.
    Admitted,
    /// Not enough quota; it waits in its queue.
    QuotaPending,
    /// Admitted once the workloads it preempts are evicted.
    Preempting,
    /// Quota is reserved; an admission check has not passed yet.
    WaitingForAdmissionCheck,
    /// `spec.active: false`: deactivated.
    Inactive,
    /// Its LocalQueue or ClusterQueue admits nothing (stopped, or inactive).
    QueueStopped,
    /// Its queue does not exist, or does not accept its namespace.
    NoQueue,
}

impl AdmissionOutcome {
    /// The word, as every report writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Admitted => "Admitted",
            Self::QuotaPending => "QuotaPending",
            Self::Preempting => "Preempting",
            Self::WaitingForAdmissionCheck => "WaitingForAdmissionCheck",
            Self::Inactive => "Inactive",
            Self::QueueStopped => "QueueStopped",
            Self::NoQueue => "NoQueue",
        }
    }
}

/// One pod set of an admitted Kueue Workload: its count and the flavor of each resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmittedPodSet {
    /// The pod set.
    pub name: String,
    /// Pods.
    pub count: i32,
    /// Resource → flavor.
    pub flavors: BTreeMap<String, String>,
}

/// A namespaced object named by namespace and name (a preempted Kueue Workload).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamespacedName {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
}

/// Stage one's answer for a Kueue Workload (`admission` in the JSON contract).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KueueAdmission {
    /// What Kueue does with it.
    pub outcome: AdmissionOutcome,
    /// The ClusterQueue it is queued in or admitted to (empty when none).
    pub cluster_queue: String,
    /// Flavors of an admitted workload, per pod set.
    pub pod_sets: Vec<AdmittedPodSet>,
    /// The Kueue Workloads it preempts.
    pub preempts: Vec<NamespacedName>,
    /// It was preempted in this run and not admitted again.
    pub evicted: bool,
    /// What it lacks, per resource (`QuotaPending`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub shortfall: BTreeMap<String, String>,
}

/// What a unit for a Kueue Workload adds to a unit: the version read, stage one's answer, and
/// the unit of stage two that holds its pods (its placements are not repeated).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KueueUnit {
    /// `kueue.x-k8s.io/VERSION`, as read.
    pub api_version: String,
    /// Stage one.
    pub admission: KueueAdmission,
    /// The PodGroup or Pod unit that holds its pods, once admitted and started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<ObjRef>,
    /// Its pod sets request a topology (Kueue TAS), whose assignment is not simulated: the
    /// `kueue-topology` note names it.
    #[serde(skip)]
    pub topology: bool,
}

fn kind_name<S: serde::Serializer>(kind: &ObjKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(kind.kind_name())
}

/// The result for one queueing unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnitResult {
    /// `PodGroup`, `CompositePodGroup` or `Pod`; `Workload` (with `apiVersion`
    /// `kueue.x-k8s.io/…`) for a Kueue Workload.
    #[serde(serialize_with = "kind_name")]
    pub kind: ObjKind,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Outcome.
    pub outcome: Outcome,
    /// Upstream's message (FitError, PlacementFeasible, PreEnqueue) or wasctl's.
    pub message: String,
    /// Pods placed in this simulation.
    pub placements: Vec<Placement>,
    /// Victims (preemption).
    pub victims: Vec<Victim>,
    /// What the preemption costs (only for `Preempting`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blast_radius: Option<BlastRadius>,
    /// Gang `minCount` (PodGroup) or `minGroupCount` (CompositePodGroup); 1 for basic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_count: Option<u32>,
    /// A unit held before scheduling (`Waiting`) with a gang: the members the scheduler knows
    /// (PodGroup: its pods that exist; CompositePodGroup: child groups that meet their own
    /// quorum), against `minCount`. Absent for units that were tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known: Option<u32>,
    /// Members already scheduled before this unit ran.
    pub scheduled_before: u32,
    /// Members pending in this unit.
    pub pending: u32,
    /// Group priority (pod priority for pod units).
    pub priority: i32,
    /// The scheduler profile (`schedulerName`) that simulated the unit, or, for a
    /// `NotSimulated` unit, the scheduler its pods name. Omitted for `default-scheduler`.
    #[serde(skip_serializing_if = "is_default_profile")]
    pub profile: String,
    /// Why; omitted when there is nothing to trace.
    #[serde(skip_serializing_if = "UnitTrace::is_empty")]
    pub trace: UnitTrace,
    /// A Kueue Workload's unit: `apiVersion`, `admission` and `placement`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub kueue: Option<Box<KueueUnit>>,
}

fn is_default_profile(p: &String) -> bool {
    p.is_empty() || p == super::profile::DEFAULT_SCHEDULER_NAME
}

/// Settings the simulation ran with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `exhaustive` or `compat`.
    pub mode: Mode,
    /// The kube-scheduler feature gates used (WAS-relevant ones).
    pub feature_gates: BTreeMap<String, bool>,
    /// What had to be assumed; omitted when nothing was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumed: Vec<String>,
    /// Where an answer may differ from kube-scheduler's: every note of the catalogue that
    /// applies to a simulation (`crate::notes`), whether or not this run met it.
    pub notes: Vec<String>,
    /// The notes that could have changed this run's answer (a tie decided a placement,
    /// shared devices were allocated, something was preempted, ...), each once, in catalogue
    /// order: what text output prints as `note:` lines. Omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) relevant_notes: Vec<crate::notes::NoteUse>,
    /// Notes the settings alone make relevant (`percentageOfNodesToScore` set), kept so that
    /// [`Plan::refresh_notes`] can recompute the list after units are filtered.
    #[serde(skip)]
    pub(crate) setting_notes: Vec<crate::notes::NoteUse>,
    /// Whether some node of the input lists `status.images`: without, ImageLocality scores
    /// every node alike and its note is never relevant.
    #[serde(skip)]
    pub(crate) node_images: bool,
    /// What-ifs applied before simulating.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub what_if: Vec<String>,
    /// What admission changed on the manifests among the input (`crate::admit`), one entry
    /// per kind of change; empty (and omitted) for stored objects.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub admitted: Vec<crate::snapshot::Admitted>,
    /// When pending pods name a PodGroup but kube-scheduler's `GenericWorkload` is off: the
    /// sentence saying that these gangs are scheduled pod by pod, and why (which component,
    /// known or assumed). Reports say it first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_by_pod: Option<String>,
    /// The profiles of the scheduler configuration that differ from kube-scheduler's
    /// default, each as text output names it (`profile gpu-binpack: MostAllocated on
    /// nvidia.com/gpu`); omitted when the simulation runs the default profile only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<String>,
    /// The configuration's extenders: not simulated, so the outcomes of the units they filter
    /// or score may differ (omitted when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extenders: Vec<String>,
}

/// Stage one of a dry run on a cluster that runs Kueue: Kueue's admission, run until it
/// settles.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KueueStage {
    /// Kueue scheduling cycles run until nothing changed.
    pub cycles: usize,
    /// It did not settle within the cycle bound (preemptions kept changing the state).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsettled: bool,
    /// Admitted workloads whose pods the dry run does not create, each with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_started: Vec<String>,
    /// With Kueue's fair sharing on: the ClusterQueues (in cohorts) whose fair-sharing order
    /// is not simulated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fair_sharing_not_simulated: Vec<String>,
}

/// Counts per outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Scheduled units.
    pub scheduled: u32,
    /// Unschedulable units.
    pub unschedulable: u32,
    /// Waiting units.
    pub waiting: u32,
    /// Preempting units.
    pub preempting: u32,
    /// Error units.
    pub error: u32,
    /// Suspended units (suspended Jobs); omitted when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub suspended: u32,
    /// Units whose scheduler no profile serves; omitted when 0.
    #[serde(rename = "notSimulated", skip_serializing_if = "is_zero")]
    pub not_simulated: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A pod bound by `spec.nodeName` whose claims were never allocated (it bypassed the
/// scheduler; the kubelet will not start it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StuckPod {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub pod: String,
    /// Node it is bound to.
    pub node: String,
    /// Why it is stuck.
    pub message: String,
}

/// One device and who holds it (`simulate --devices`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceUse {
    /// The node the device belongs to (or `(all nodes)`).
    pub node: String,
    /// Driver.
    pub driver: String,
    /// Pool.
    pub pool: String,
    /// Device.
    pub device: String,
    /// `namespace/claim` holding it, if allocated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// Allocated by this simulation (not yet in the cluster).
    pub simulated: bool,
    /// Pods using the claim.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<String>,
    /// The PodGroup sharing the claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The device's `bindsToNode`: an allocation of it is limited to the node chosen for it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub binds_to_node: bool,
    /// The device's `bindingConditions` the holding claim still waits for (all of them for a
    /// simulated allocation).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub binding_conditions: Vec<String>,
}

/// The simulation report (`kind: SimulationReport`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// Settings.
    pub settings: Settings,
    /// Loader warnings; omitted when none (docs/json.md: empty keys are omitted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::snapshot::Warning>,
    /// Every unit tried, in queue order; on a cluster that runs Kueue, first one unit per
    /// Kueue Workload that was pending admission (stage one), in Kueue's order.
    pub units: Vec<UnitResult>,
    /// Stage one on a cluster that runs Kueue (omitted otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kueue: Option<KueueStage>,
    /// Every device and who holds it (only with `--devices`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub device_map: Vec<DeviceUse>,
    /// Pre-scheduled pods whose claims are not allocated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stuck_pods: Vec<StuckPod>,
    /// Allocated claims whose binding failed (DRADeviceBindingConditions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub binding_failures: Vec<BindingFailure>,
    /// Counts.
    pub summary: Summary,
}

impl Outcome {
    /// The outcome of several pod units taken together (the members of a PodGroup that the
    /// scheduler takes pod by pod): the worst of them, in the order Error, Unschedulable,
    /// Suspended, NotSimulated, Waiting, Preempting, Scheduled. `None` for no units.
    pub(crate) fn combine(outcomes: impl IntoIterator<Item = Outcome>) -> Option<Outcome> {
        let rank = |o: &Outcome| match o {
            Outcome::Error => 0,
            Outcome::Unschedulable => 1,
            Outcome::Suspended => 2,
            Outcome::NotSimulated => 3,
            Outcome::Waiting => 4,
            Outcome::Preempting => 5,
            Outcome::Scheduled => 6,
        };
        outcomes.into_iter().min_by_key(rank)
    }
}

impl Settings {
    /// The notes relevant to a run of these settings over `units`: the settings' own, and
    /// the units' (`UnitResult::note_uses`; `image-locality` only when nodes list images),
    /// each once, in catalogue order.
    pub(crate) fn notes_for<'a>(
        &self,
        units: impl IntoIterator<Item = &'a UnitResult>,
    ) -> Vec<crate::notes::NoteUse> {
        crate::notes::once_each(
            self.setting_notes.iter().cloned().chain(
                units
                    .into_iter()
                    .flat_map(UnitResult::note_uses)
                    .filter(|u| self.node_images || u.note != crate::notes::Note::ImageLocality),
            ),
        )
    }
}

impl Plan {
    /// Recomputes `settings.relevant_notes` from the units the plan now holds (after a
    /// command narrowed them to a namespace or a selector) and the settings' own notes.
    pub(crate) fn refresh_notes(&mut self) {
        self.settings.relevant_notes = self.settings.notes_for(&self.units);
    }
}

impl UnitResult {
    /// The notes of the catalogue (`crate::notes`) that could have changed this unit's
    /// answer: `ties` when a tie between equally scored nodes (in the placement kept) or
    /// between equally scored topology domains decided where it goes, `image-locality` when
    /// scores chose a placed pod's node among several feasible ones, `share-ids` when it
    /// got a shared device, `preemption-timing` when it preempts, `group-preemption` when a
    /// group preempts.
    pub(crate) fn note_uses(&self) -> Vec<crate::notes::NoteUse> {
        use crate::notes::Note;
        let mut out = Vec::new();
        let placed = matches!(self.outcome, Outcome::Scheduled | Outcome::Preempting);
        if placed {
            // Attempts in domains that were rolled back decided nothing (a tree chooses one
            // domain per constrained group).
            let kept: Vec<String> = self
                .trace
                .domains
                .iter()
                .filter(|d| d.chosen)
                .map(|d| format!("{}={}", d.key, d.value))
                .collect();
            let in_kept = |p: &&PodTrace| {
                p.placement
                    .as_deref()
                    .is_none_or(|label| kept.iter().any(|k| k == label))
            };
            let attempts: Vec<&PodTrace> = self
                .trace
                .pods
                .iter()
                .filter(in_kept)
                .filter(|p| p.node.is_some())
                .collect();
            // A group's chosen domain whose score another feasible domain of the group shares.
            let domain_tie = |domains: &[DomainTrace]| {
                domains
                    .iter()
                    .filter(|c| c.chosen && c.score.is_some())
                    .any(|c| {
                        domains
                            .iter()
                            .filter(|d| d.group == c.group && d.feasible && d.score == c.score)
                            .count()
                            > 1
                    })
            };
            if attempts.iter().any(|p| p.tied)
                || domain_tie(&self.trace.domains)
                || domain_tie(&self.trace.preemption_domains)
            {
                out.push(Note::Ties.used());
            }
            if attempts.iter().any(|p| p.feasible > 1) {
                out.push(Note::ImageLocality.used());
            }
        }
        if self
            .placements
            .iter()
            .flat_map(|p| &p.devices)
            .any(|d| d.share_id.is_some())
        {
            out.push(Note::ShareIds.used());
        }
        if !self.victims.is_empty() {
            out.push(Note::PreemptionTiming.used());
            if matches!(self.kind, ObjKind::PodGroup | ObjKind::CompositePodGroup) {
                out.push(Note::GroupPreemption.used());
            }
        }
        if self.kueue.as_deref().is_some_and(|k| k.topology) {
            out.push(crate::notes::NoteUse {
                note: Note::KueueTopology,
                detail: Some(format!("{}/{}", self.namespace, self.name)),
            });
        }
        out
    }

    /// Whether this is the unit `r`.
    pub(crate) fn is(&self, r: &ObjRef) -> bool {
        self.kind == r.kind && self.namespace == r.namespace && self.name == r.name
    }

    /// The reference to the unit's object.
    pub fn obj_ref(&self) -> ObjRef {
        ObjRef::new(self.kind.clone(), &self.namespace, &self.name)
    }

    /// The topology domains tried for the unit's own (top) group, in the trace's order.
    pub(crate) fn own_domains(&self) -> impl Iterator<Item = &DomainTrace> {
        let top = format!("{}/{}", self.kind, self.name);
        self.trace.domains.iter().filter(move |d| d.group == top)
    }

    /// The domain whose rejections explain a topology-constrained unit: the chosen one (for a
    /// group that preempts, the one its preemption chose), else the one where the most members
    /// fit (ties: the first by value, as explain's WASE020 names it). `None` without a topology constraint on the unit's own group.
    pub(crate) fn focus_domain(&self) -> Option<&DomainTrace> {
        if let Some(chosen) = self.own_domains().find(|d| d.chosen) {
            return Some(chosen);
        }
        // A group that preempts: the domain its preemption chose (where its victims are).
        if let Some(p) = self.trace.preemption_domains.iter().find(|d| d.chosen)
            && let Some(d) = self
                .own_domains()
                .find(|d| d.key == p.key && d.value == p.value)
        {
            return Some(d);
        }
        self.own_domains()
            .max_by(|a, b| a.placeable.cmp(&b.placeable).then(b.value.cmp(&a.value)))
    }

    /// The attempts of the members that found no node, the only ones a report quotes
    /// rejections and claims from: a member that was placed (and rolled back with its gang) did
    /// not fail, whatever nodes rejected it on the way. Under a topology constraint, only the
    /// attempts in [`UnitResult::focus_domain`]; the others are summarised per domain
    /// ([`UnitResult::failed_attempts_in`]).
    pub(crate) fn failed_attempts(&self) -> Vec<&PodTrace> {
        match self.focus_domain() {
            Some(d) => {
                let inside = self.failed_attempts_in(d);
                if inside.is_empty()
                    && !self
                        .trace
                        .pods
                        .iter()
                        .any(|p| p.placement.as_deref() == Some(&*domain_label(d)))
                {
                    // The domain's attempts carry an inner group's labels (a nested
                    // constraint): every failure, as without a constraint.
                    return self
                        .trace
                        .pods
                        .iter()
                        .filter(|p| p.node.is_none())
                        .collect();
                }
                inside
            }
            None => self
                .trace
                .pods
                .iter()
                .filter(|p| p.node.is_none())
                .collect(),
        }
    }

    /// The failed member attempts made in domain `d` (see [`UnitResult::failed_attempts`]).
    pub(crate) fn failed_attempts_in(&self, d: &DomainTrace) -> Vec<&PodTrace> {
        let label = domain_label(d);
        self.trace
            .pods
            .iter()
            .filter(|p| p.node.is_none() && p.placement.as_deref() == Some(&*label))
            .collect()
    }
}

/// The placement label of a domain's attempts (`key=value`, as the gang cycle writes it).
pub(crate) fn domain_label(d: &DomainTrace) -> String {
    format!("{}={}", d.key, d.value)
}

impl Plan {
    /// The unit `r`, if it was tried.
    pub fn unit(&self, r: &ObjRef) -> Option<&UnitResult> {
        self.units.iter().find(|u| u.is(r))
    }

    /// The simulated outcome of a Pod, PodGroup or CompositePodGroup: its own unit's; for a
    /// group inside a CompositePodGroup tree, its root's; for a pod in a group, its group's;
    /// for a PodGroup whose members were tried pod by pod (GenericWorkload off), its members'
    /// combined ([`Outcome::combine`]). `None` when nothing of it was pending. The one
    /// answer that simulate, explain, tree and the TUI give for an object.
    pub fn outcome_of(&self, s: &crate::snapshot::Snapshot, r: &ObjRef) -> Option<Outcome> {
        if let Some(u) = self.unit(r) {
            return Some(u.outcome);
        }
        let (kind, namespace, name) = (&r.kind, r.namespace.as_str(), r.name.as_str());
        match kind {
            ObjKind::Pod => {
                let group = s
                    .pod(namespace, name)?
                    .spec
                    .as_ref()?
                    .scheduling_group
                    .as_ref()?
                    .pod_group_name
                    .clone()?;
                self.outcome_of(s, &ObjRef::new(ObjKind::PodGroup, namespace, &group))
            }
            ObjKind::PodGroup | ObjKind::CompositePodGroup => {
                // Up the parent chain to a unit (bounded: a cycle of parents ends here).
                let mut parent = match kind {
                    ObjKind::PodGroup => s
                        .pod_group(namespace, name)
                        .and_then(|p| p.spec.parent_composite_pod_group_name.clone()),
                    _ => s
                        .composite_pod_group(namespace, name)
                        .and_then(|c| c.spec.parent_composite_pod_group_name.clone()),
                };
                for _ in 0..16 {
                    let Some(p) = parent else { break };
                    if let Some(u) =
                        self.unit(&ObjRef::new(ObjKind::CompositePodGroup, namespace, &p))
                    {
                        return Some(u.outcome);
                    }
                    parent = s
                        .composite_pod_group(namespace, &p)
                        .and_then(|c| c.spec.parent_composite_pod_group_name.clone());
                }
                if *kind != ObjKind::PodGroup {
                    return None;
                }
                Outcome::combine(
                    s.index
                        .pods_by_group
                        .get(namespace, name)
                        .iter()
                        .filter_map(|i| {
                            let pod = crate::snapshot::name_of(&s.pods[*i].metadata);
                            self.unit(&ObjRef::new(ObjKind::Pod, namespace, pod))
                                .map(|u| u.outcome)
                        }),
                )
            }
            _ => None,
        }
    }
}

impl Summary {
    /// The counts as reports write them: "1 scheduled, 0 unschedulable, 0 waiting, 0
    /// preempting, 0 error", then ", 1 suspended" when a Job is suspended.
    pub(crate) fn counts_text(&self) -> String {
        let mut text = format!(
            "{} scheduled, {} unschedulable, {} waiting, {} preempting, {} error",
            self.scheduled, self.unschedulable, self.waiting, self.preempting, self.error
        );
        if self.suspended > 0 {
            text.push_str(&format!(", {} suspended", self.suspended));
        }
        if self.not_simulated > 0 {
            text.push_str(&format!(", {} not simulated", self.not_simulated));
        }
        text
    }

    /// Counts the outcomes of `units`.
    pub(crate) fn of(units: &[UnitResult]) -> Self {
        let mut s = Self::default();
        // A Kueue Workload whose pods were created is counted once, by the unit holding them.
        for u in units
            .iter()
            .filter(|u| u.kueue.as_ref().is_none_or(|k| k.placement.is_none()))
        {
            match u.outcome {
                Outcome::Scheduled => s.scheduled += 1,
                Outcome::Unschedulable => s.unschedulable += 1,
                Outcome::Waiting => s.waiting += 1,
                Outcome::Preempting => s.preempting += 1,
                Outcome::Error => s.error += 1,
                Outcome::Suspended => s.suspended += 1,
                Outcome::NotSimulated => s.not_simulated += 1,
            }
        }
        s
    }
}

/// One evicted pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Victim {
    /// Always `Pod`.
    pub kind: &'static str,
    /// Namespace.
    pub namespace: String,
    /// Name (shared with the simulation's pod: a group preemption at 5,000 nodes describes
    /// thousands of victims).
    pub name: Arc<str>,
    /// Node it ran on (shared with the simulation's node).
    pub node: Arc<str>,
    /// The group it belongs to (`PodGroup/name`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The atomic unit it was evicted with (`disruptionMode: all`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evicted_with: Option<String>,
    /// Priority used in the comparison.
    pub priority: i32,
    /// Its eviction violates a PodDisruptionBudget.
    pub pdb_violation: bool,
}

/// What a preemption costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlastRadius {
    /// Pods evicted.
    pub victim_pods: u32,
    /// Groups that lose members (`PodGroup/ns/name`).
    pub victim_groups: Vec<String>,
    /// An `all` group dies whole though only part of its nodes was needed.
    pub whole_group_for_part_of_its_nodes: bool,
    /// GPUs (extended resources with `gpu` in the name, and DRA devices) freed.
    pub gpus_freed: u32,
    /// GPU-hours of work lost: each victim's GPUs × time since it started (snapshot time).
    pub gpu_hours_lost: f64,
    /// PodDisruptionBudget violations (victim pods).
    pub pdb_violations: u32,
    /// The preemptor fits once the victims are gone.
    pub preemptor_fits: bool,
    /// Per victim group: what it keeps running once its victims are evicted (a gang in
    /// `disruptionMode: single` can be left below its minCount, holding its GPUs while making
    /// no progress).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub groups: Vec<GroupLeft>,
}

/// A group that loses members to a preemption.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupLeft {
    /// `PodGroup/namespace/name`.
    pub group: String,
    /// Its pods evicted.
    pub evicted: u32,
    /// What stays.
    pub left: Left,
}

/// What a victim group keeps running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Left {
    /// Its pods still running (bound, not being deleted).
    pub running: u32,
    /// Its gang minCount (`None` for a basic group).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_count: Option<u32>,
    /// GPUs its running pods hold: extended resources named `*gpu*`, and DRA devices as
    /// `resource.k8s.io/devices`; omitted when none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub holds: BTreeMap<String, String>,
}

impl GroupLeft {
    /// "gang `ns/batch` keeps 4 of 6 running, below its minCount 6: its remaining pods hold 16
    /// nvidia.com/gpu and make no progress", when the eviction leaves a gang short of its
    /// minCount with pods still running; `None` otherwise.
    pub(crate) fn stranded(&self) -> Option<String> {
        let min = self.left.min_count?;
        let running = self.left.running;
        if running == 0 || running >= min {
            return None;
        }
        let holds: Vec<String> = self
            .left
            .holds
            .iter()
            .map(|(r, q)| format!("{q} {r}"))
            .collect();
        let name = self.group.trim_start_matches("PodGroup/");
        Some(format!(
            "gang `{name}` keeps {running} of {} running, below its minCount {min}: its remaining pods {}make no progress",
            running + self.evicted,
            if holds.is_empty() {
                String::new()
            } else {
                format!("hold {} and ", holds.join(", "))
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 51: what a victim gang holds and a unit's trace are omitted when empty, kept
    /// when filled.
    #[test]
    fn empty_holds_and_trace_are_omitted_filled_ones_kept() {
        let left = |holds: &[(&str, &str)]| Left {
            running: 2,
            min_count: Some(3),
            holds: holds
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        };
        let json = |l: &Left| serde_json::to_value(l).unwrap_or_default();
        assert_eq!(
            json(&left(&[])),
            serde_json::json!({"running": 2, "minCount": 3})
        );
        assert_eq!(
            json(&left(&[("nvidia.com/gpu", "16")]))["holds"],
            serde_json::json!({"nvidia.com/gpu": "16"})
        );
        assert!(UnitTrace::default().is_empty());
        let traced = UnitTrace {
            placement_feasible: vec!["Wait".into()],
            ..UnitTrace::default()
        };
        assert!(!traced.is_empty());
    }

    #[test]
    fn reason_counts_serialize_like_the_map_they_replace() {
        let pairs = [
            ("node(s) didn't match Pod's node affinity/selector", 7),
            ("Insufficient nvidia.com/gpu", 12),
            ("node(s) had untolerated taint(s)", 3),
        ];
        let counts: ReasonCounts = pairs.iter().map(|&(r, n)| (r, n)).collect();
        let map: BTreeMap<String, u32> = pairs.iter().map(|&(r, n)| (r.to_owned(), n)).collect();
        assert_eq!(
            serde_json::to_string(&counts).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(
            counts.keys().collect::<Vec<_>>(),
            map.keys().map(String::as_str).collect::<Vec<_>>()
        );
        assert_eq!(counts.get("Insufficient nvidia.com/gpu"), Some(12));
        assert_eq!(counts.get("Insufficient cpu"), None);
        assert!(ReasonCounts::default().is_empty());
    }

    fn attempt(pod: &str, node: Option<&str>, domain: Option<&str>, reason: &str) -> PodTrace {
        PodTrace {
            pod: pod.into(),
            node: node.map(Into::into),
            evaluated: 2,
            feasible: u32::from(node.is_some()),
            unresolvable: 0,
            node_reasons: [(reason, 2)].into_iter().collect(),
            claim_reasons: BTreeMap::from([(
                format!("{pod}-gpu"),
                BTreeMap::from([("no device".to_owned(), 1)]),
            )]),
            placement: domain.map(Into::into),
            tied: false,
        }
    }

    fn domain(value: &str, placeable: u32) -> DomainTrace {
        DomainTrace {
            group: "PodGroup/llm".to_owned(),
            key: "rack".to_owned(),
            value: value.to_owned(),
            nodes: 2,
            placeable,
            feasible: false,
            message: String::new(),
            score: None,
            chosen: false,
        }
    }

    fn unit(pods: Vec<PodTrace>, domains: Vec<DomainTrace>) -> UnitResult {
        UnitResult {
            kind: ObjKind::PodGroup,
            namespace: "ml".to_owned(),
            name: "llm".to_owned(),
            outcome: Outcome::Unschedulable,
            message: String::new(),
            placements: Vec::new(),
            victims: Vec::new(),
            blast_radius: None,
            min_count: Some(3),
            known: None,
            scheduled_before: 0,
            pending: 3,
            priority: 0,
            profile: String::new(),
            trace: UnitTrace {
                pods,
                domains,
                ..UnitTrace::default()
            },
            kueue: None,
        }
    }

    /// Issue #45: a member that was placed (and rolled back with its gang) did not fail,
    /// whatever nodes rejected it on the way; only the others are quoted.
    #[test]
    fn only_the_members_that_found_no_node_failed() {
        let u = unit(
            vec![
                attempt("llm-0", Some("n1"), None, "Insufficient cpu"),
                attempt("llm-1", Some("n2"), None, "Insufficient cpu"),
                attempt("llm-2", None, None, "Insufficient memory"),
            ],
            Vec::new(),
        );
        let failed: Vec<&str> = u.failed_attempts().iter().map(|p| &*p.pod).collect();
        assert_eq!(failed, ["llm-2"]);
        assert!(u.focus_domain().is_none());
    }

    /// Issue #45: under a topology constraint, the rejections quoted are those of the domain
    /// closest to fitting (or the chosen one), not of every domain tried.
    #[test]
    fn a_topology_unit_quotes_the_domain_closest_to_fitting() {
        let pods = vec![
            attempt("llm-0", Some("a1"), Some("rack=a"), "Insufficient cpu"),
            attempt("llm-1", None, Some("rack=a"), "Insufficient cpu"),
            attempt("llm-2", None, Some("rack=a"), "Insufficient cpu"),
            attempt("llm-0", Some("b1"), Some("rack=b"), "x"),
            attempt("llm-1", Some("b2"), Some("rack=b"), "x"),
            attempt("llm-2", None, Some("rack=b"), "Insufficient memory"),
        ];
        let u = unit(pods.clone(), vec![domain("a", 1), domain("b", 2)]);
        assert_eq!(u.focus_domain().map(|d| d.value.as_str()), Some("b"));
        let failed: Vec<(&str, Option<&str>)> = u
            .failed_attempts()
            .iter()
            .map(|p| (&*p.pod, p.placement.as_deref()))
            .collect();
        assert_eq!(failed, [("llm-2", Some("rack=b"))]);
        // The chosen domain wins over the one where most fit.
        let mut chosen = domain("a", 1);
        chosen.chosen = true;
        let u = unit(pods, vec![chosen, domain("b", 2)]);
        assert_eq!(u.focus_domain().map(|d| d.value.as_str()), Some("a"));
        assert_eq!(u.failed_attempts().len(), 2);
        assert_eq!(u.failed_attempts_in(&domain("b", 2)).len(), 1);
    }

    #[test]
    fn every_outcome_has_one_word_and_the_summary_counts_suspended_only_when_any() {
        let words: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
        assert_eq!(
            words,
            [
                "Scheduled",
                "Unschedulable",
                "Waiting",
                "Preempting",
                "Error",
                "Suspended",
                "NotSimulated"
            ]
        );
        for o in Outcome::ALL {
            // The JSON word is the text word.
            assert_eq!(
                serde_json::to_value(o).unwrap(),
                serde_json::json!(o.as_str())
            );
        }
        let mut u = unit(Vec::new(), Vec::new());
        let s = Summary::of(std::slice::from_ref(&u));
        assert_eq!(
            s.counts_text(),
            "0 scheduled, 1 unschedulable, 0 waiting, 0 preempting, 0 error"
        );
        assert!(serde_json::to_value(&s).unwrap().get("suspended").is_none());
        u.outcome = Outcome::Suspended;
        let s = Summary::of(&[u]);
        assert!(s.counts_text().ends_with(", 1 suspended"));
        assert_eq!(serde_json::to_value(&s).unwrap()["suspended"], 1);
        assert!(
            serde_json::to_value(&s)
                .unwrap()
                .get("notSimulated")
                .is_none()
        );
        let mut other = unit(Vec::new(), Vec::new());
        other.outcome = Outcome::NotSimulated;
        other.profile = "volcano".into();
        let s = Summary::of(&[other.clone()]);
        assert!(s.counts_text().ends_with(", 1 not simulated"));
        assert_eq!(serde_json::to_value(&s).unwrap()["notSimulated"], 1);
        let v = serde_json::to_value(&other).unwrap();
        assert_eq!(v["outcome"], "NotSimulated");
        assert_eq!(v["profile"], "volcano");
        other.profile = "default-scheduler".into();
        assert!(
            serde_json::to_value(&other)
                .unwrap()
                .get("profile")
                .is_none()
        );
    }

    #[test]
    fn a_reason_given_twice_adds_up() {
        let counts: ReasonCounts = [("b", 1), ("a", 2), ("b", 3)].into_iter().collect();
        assert_eq!(counts.iter().collect::<Vec<_>>(), [("a", 2), ("b", 4)]);
    }

    #[test]
    fn a_reason_text_is_allocated_once() {
        let table = ResourceTable::default();
        let mut texts = ReasonTexts::default();
        let reason = Reason::Static("node(s) were unschedulable");
        let (a, b) = (texts.text(reason, &table), texts.text(reason, &table));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, "node(s) were unschedulable");
    }
}
