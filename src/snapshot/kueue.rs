//! Kueue's objects (`kueue.x-k8s.io`), typed: the queues, quotas and workloads Kueue's
//! admission reads.
//!
//! Kueue's types are not in k8s-openapi, so these structs are written from Kueue's API
//! (`apis/kueue/v1beta2/*_types.go` of kubernetes-sigs/kueue, August 2026). Fields wasctl does
//! not read are dropped on load (serde ignores them); the fields kept are the ones Kueue's
//! scheduler, flavor assigner and preemption read, plus status for what Kueue already decided.
//! Wherever Kueue's API uses a Kubernetes type (PodTemplateSpec, Taint, Toleration,
//! LabelSelector, Condition, Quantity) the k8s-openapi type is used.
//!
//! Both served versions are read. `v1beta2` is the storage version; a `v1beta1` object is
//! converted to it as Kueue's conversion webhook does (`apis/kueue/v1beta1/*_conversion.go`):
//! ClusterQueue `cohort` → `cohortName`, `admissionChecks` → `admissionChecksStrategy`,
//! flavorFungibility `Borrow`/`Preempt` → `MayStopSearch`; Workload
//! `priorityClassSource` + `priorityClassName` → `priorityClassRef`; LocalQueue status
//! `flavorUsage` → `flavorsUsage`. The version read is kept in `api_version`.
//!
//! CRD defaults (`+kubebuilder:default`) are applied by serde defaults, so a manifest reads
//! as the API server would store it: ClusterQueue `queueingStrategy: BestEffortFIFO`,
//! `stopPolicy: None`, preemption `Never`/`Never`/`Never`, flavorFungibility
//! `MayStopSearch`/`TryNextFlavor`; Workload `active: true`, podSet `name: main`, `count: 1`.

use std::collections::BTreeMap;

use super::ObjKind;
use k8s_openapi::api::core::v1::{PodTemplateSpec, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Kueue's API group.
pub(crate) const GROUP: &str = "kueue.x-k8s.io";
/// The version objects are held in (Kueue's storage version).
pub(crate) const STORAGE_VERSION: &str = "v1beta2";
/// The versions read.
pub(crate) const SERVED_VERSIONS: &[&str] = &["v1beta2", "v1beta1"];
/// The kinds kept typed; Kueue's other kinds (MultiKueue, ProvisioningRequestConfig) stay
/// untyped owner objects.
pub(crate) const KINDS: &[&str] = &[
    "ResourceFlavor",
    "ClusterQueue",
    "LocalQueue",
    "Cohort",
    "Workload",
    "WorkloadPriorityClass",
    "AdmissionCheck",
    "Topology",
];

/// A Kueue object: metadata, spec and status, with the apiVersion it was read in.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Object<S, T = Empty> {
    /// `kueue.x-k8s.io/v1beta2` or `kueue.x-k8s.io/v1beta1`, as read.
    #[serde(default = "storage_api_version")]
    pub api_version: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// What the user asked for.
    #[serde(default)]
    pub spec: S,
    /// What Kueue recorded.
    #[serde(default)]
    pub status: T,
}

fn storage_api_version() -> String {
    format!("{GROUP}/{STORAGE_VERSION}")
}

/// A status (or spec) with nothing wasctl reads.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Empty {}

/// A set of nodes (labels, taints) that quota is assigned to.
pub(crate) type ResourceFlavor = Object<ResourceFlavorSpec>;
/// A pool of quota, per flavor and resource, with its queueing and preemption policies.
pub(crate) type ClusterQueue = Object<ClusterQueueSpec, ClusterQueueStatus>;
/// A namespaced queue pointing at a ClusterQueue.
pub(crate) type LocalQueue = Object<LocalQueueSpec, LocalQueueStatus>;
/// A node of the cohort tree, lending and borrowing quota between ClusterQueues.
pub(crate) type Cohort = Object<CohortSpec>;
/// Kueue's unit of admission (not the `scheduling.k8s.io` Workload).
pub(crate) type Workload = Object<WorkloadSpec, WorkloadStatus>;
/// A check that must pass before an admitted workload starts.
pub(crate) type AdmissionCheck = Object<AdmissionCheckSpec, AdmissionCheckStatus>;
/// The node-label levels of Kueue's topology-aware scheduling.
pub(crate) type Topology = Object<TopologySpec>;

/// ResourceFlavor `spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceFlavorSpec {
    /// Labels of the flavor's nodes; injected into admitted pods' nodeSelector.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_labels: BTreeMap<String, String>,
    /// Taints of the flavor's nodes: a workload must tolerate them to use the flavor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_taints: Vec<Taint>,
    /// Tolerations injected into admitted pods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// The Topology whose levels this flavor's nodes are organised by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_name: Option<String>,
}

/// ClusterQueue `spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueSpec {
    /// Quota per flavor and resource, in groups of resources assigned one flavor together.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_groups: Vec<ResourceGroup>,
    /// The cohort this queue borrows from and lends to (`cohort` in v1beta1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort_name: Option<String>,
    /// `StrictFIFO` or `BestEffortFIFO` (the default).
    #[serde(default)]
    pub queueing_strategy: QueueingStrategy,
    /// Which namespaces' LocalQueues may submit here (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    /// Whether to try the next flavor when the first one needs borrowing or preemption.
    #[serde(default)]
    pub flavor_fungibility: FlavorFungibility,
    /// Whom a pending workload may preempt.
    #[serde(default)]
    pub preemption: ClusterQueuePreemption,
    /// Admission checks, per flavor (v1beta1's `admissionChecks` list becomes rules here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_checks_strategy: Option<AdmissionChecksStrategy>,
    /// `None` (the default), `Hold` or `HoldAndDrain`.
    #[serde(default)]
    pub stop_policy: StopPolicy,
    /// Fair-sharing weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharing>,
}

/// Resources that share one flavor choice, with quota per flavor.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceGroup {
    /// Resource names the group covers.
    #[serde(default)]
    pub covered_resources: Vec<String>,
    /// Flavors in the order Kueue tries them.
    #[serde(default)]
    pub flavors: Vec<FlavorQuotas>,
}

/// One flavor's quotas in a resource group.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlavorQuotas {
    /// The ResourceFlavor.
    pub name: String,
    /// Quota per resource.
    #[serde(default)]
    pub resources: Vec<ResourceQuota>,
}

/// One resource's quota in one flavor.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceQuota {
    /// Resource name.
    pub name: String,
    /// What this queue owns.
    #[serde(default)]
    pub nominal_quota: Quantity,
    /// The most it may borrow from its cohort (absent: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<Quantity>,
    /// The most of its nominal quota it lends to its cohort (absent: all of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<Quantity>,
}

/// ClusterQueue `spec.queueingStrategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum QueueingStrategy {
    /// The head blocks the queue until it is admitted.
    StrictFIFO,
    /// A head that cannot be admitted lets the next one try (the CRD default).
    #[default]
    BestEffortFIFO,
}

/// ClusterQueue/LocalQueue `spec.stopPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum StopPolicy {
    /// Admitting (the CRD default).
    #[default]
    None,
    /// No new admissions; admitted workloads run to completion.
    Hold,
    /// No new admissions; admitted workloads are evicted.
    HoldAndDrain,
}

/// ClusterQueue `spec.flavorFungibility`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlavorFungibility {
    /// When a flavor fits only by borrowing: stop there, or try the next flavor.
    #[serde(default = "may_stop_search")]
    pub when_can_borrow: FungibilityPolicy,
    /// When a flavor fits only by preempting: stop there, or try the next flavor.
    #[serde(default = "try_next_flavor")]
    pub when_can_preempt: FungibilityPolicy,
    /// Which of borrowing and preemption to prefer when both are possible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preference: Option<String>,
}

fn may_stop_search() -> FungibilityPolicy {
    FungibilityPolicy::MayStopSearch
}

fn try_next_flavor() -> FungibilityPolicy {
    FungibilityPolicy::TryNextFlavor
}

impl Default for FlavorFungibility {
    /// The CRD defaults: `whenCanBorrow: MayStopSearch`, `whenCanPreempt: TryNextFlavor`.
    fn default() -> Self {
        Self {
            when_can_borrow: FungibilityPolicy::MayStopSearch,
            when_can_preempt: FungibilityPolicy::TryNextFlavor,
            preference: None,
        }
    }
}

/// `MayStopSearch` (the default) or `TryNextFlavor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum FungibilityPolicy {
    /// Stop at this flavor (v1beta1: `Borrow` / `Preempt`).
    #[default]
    MayStopSearch,
    /// Try the next flavor first.
    TryNextFlavor,
}

/// ClusterQueue `spec.preemption`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueuePreemption {
    /// Preempting workloads of other queues in the cohort that borrow.
    #[serde(default)]
    pub reclaim_within_cohort: PreemptionPolicy,
    /// Preempting in the cohort while borrowing.
    #[serde(default)]
    pub borrow_within_cohort: BorrowWithinCohort,
    /// Preempting workloads of this queue.
    #[serde(default)]
    pub within_cluster_queue: PreemptionPolicy,
}

/// Whom a preemption rule allows to preempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PreemptionPolicy {
    /// No preemption (the CRD default).
    #[default]
    Never,
    /// Any workload.
    Any,
    /// Workloads of lower priority.
    LowerPriority,
    /// Workloads of lower priority, or equal priority and newer.
    LowerOrNewerEqualPriority,
}

/// ClusterQueue `spec.preemption.borrowWithinCohort`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BorrowWithinCohort {
    /// `Never` (the default) or `LowerPriority`.
    #[serde(default)]
    pub policy: PreemptionPolicy,
    /// Only workloads at or below this priority may be preempted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_priority_threshold: Option<i32>,
}

/// ClusterQueue `spec.admissionChecksStrategy`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionChecksStrategy {
    /// The checks, each on some flavors or all.
    #[serde(default)]
    pub admission_checks: Vec<AdmissionCheckStrategyRule>,
}

/// One admission check and the flavors it applies to (empty: all).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckStrategyRule {
    /// The AdmissionCheck.
    #[serde(default)]
    pub name: String,
    /// Flavors it applies to; empty: every flavor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on_flavors: Vec<String>,
}

/// Fair-sharing weight of a queue or cohort.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FairSharing {
    /// The weight (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<Quantity>,
}

/// ClusterQueue `status`: what Kueue has reserved and admitted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueStatus {
    /// Conditions (`Active`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Quota reserved, per flavor and resource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flavors_reservation: Vec<FlavorUsage>,
    /// Quota used by admitted workloads, per flavor and resource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flavors_usage: Vec<FlavorUsage>,
    /// Workloads waiting.
    #[serde(default)]
    pub pending_workloads: i32,
    /// Workloads holding a reservation.
    #[serde(default)]
    pub reserving_workloads: i32,
    /// Workloads admitted.
    #[serde(default)]
    pub admitted_workloads: i32,
}

/// Usage of one flavor.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlavorUsage {
    /// The flavor.
    #[serde(default)]
    pub name: String,
    /// Per resource.
    #[serde(default)]
    pub resources: Vec<ResourceUsage>,
}

/// Usage of one resource of a flavor.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUsage {
    /// Resource name.
    #[serde(default)]
    pub name: String,
    /// Used in total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Quantity>,
    /// Of which borrowed from the cohort (absent on LocalQueues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrowed: Option<Quantity>,
}

/// LocalQueue `spec`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueSpec {
    /// The ClusterQueue its workloads go to.
    #[serde(default)]
    pub cluster_queue: String,
    /// `None` (the default), `Hold` or `HoldAndDrain`.
    #[serde(default)]
    pub stop_policy: StopPolicy,
}

/// LocalQueue `status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueStatus {
    /// Conditions (`Active`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Workloads waiting.
    #[serde(default)]
    pub pending_workloads: i32,
    /// Workloads admitted.
    #[serde(default)]
    pub admitted_workloads: i32,
    /// Quota used by its admitted workloads (v1beta1: `flavorUsage`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flavors_usage: Vec<FlavorUsage>,
}

/// Cohort `spec`: its parent in the cohort tree and quota of its own.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CohortSpec {
    /// The parent cohort (absent: a root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<String>,
    /// Quota the cohort itself holds, lent to its members.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_groups: Vec<ResourceGroup>,
    /// Fair-sharing weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharing>,
}

/// Kueue Workload `spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// The pod sets: a template and a count each.
    #[serde(default)]
    pub pod_sets: Vec<PodSet>,
    /// The LocalQueue (in the workload's namespace).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub queue_name: String,
    /// Where the priority comes from (v1beta1: `priorityClassSource` + `priorityClassName`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_ref: Option<PriorityClassRef>,
    /// The priority Kueue resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// False: deactivated, never admitted (the CRD default is true).
    #[serde(default = "yes")]
    pub active: bool,
}

fn yes() -> bool {
    true
}

/// A Kueue Workload's priority class: a WorkloadPriorityClass or a pod PriorityClass.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriorityClassRef {
    /// `kueue.x-k8s.io` or `scheduling.k8s.io`.
    #[serde(default)]
    pub group: String,
    /// `WorkloadPriorityClass` or `PriorityClass`.
    #[serde(default)]
    pub kind: String,
    /// The class.
    #[serde(default)]
    pub name: String,
}

/// One pod set of a Kueue Workload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSet {
    /// The pod set's name (default `main`).
    #[serde(default = "main")]
    pub name: String,
    /// The pods' template.
    #[serde(default)]
    pub template: PodTemplateSpec,
    /// How many pods (default 1).
    #[serde(default = "one")]
    pub count: i32,
    /// Partial admission: the fewest pods Kueue may admit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_count: Option<i32>,
    /// Kueue topology-aware scheduling request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_request: Option<PodSetTopologyRequest>,
}

fn main() -> String {
    "main".to_owned()
}

fn one() -> i32 {
    1
}

/// A pod set's topology request (Kueue TAS).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSetTopologyRequest {
    /// Every pod within one domain of this level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<String>,
    /// Preferably within one domain of this level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred: Option<String>,
    /// No constraint, but placed by Kueue's topology assignment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconstrained: Option<bool>,
}

/// Kueue Workload `status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    /// QuotaReserved, Admitted, Evicted, Preempted, Finished, PodsReady, Requeued …
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Where quota was reserved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,
    /// Each admission check's state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admission_checks: Vec<AdmissionCheckState>,
    /// Pods of a pod set that finished and whose quota can be given back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reclaimable_pods: Vec<ReclaimablePod>,
}

/// A workload's quota reservation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Admission {
    /// The ClusterQueue holding the quota.
    #[serde(default)]
    pub cluster_queue: String,
    /// Per pod set: flavors and usage.
    #[serde(default)]
    pub pod_set_assignments: Vec<PodSetAssignment>,
}

/// One pod set's admission.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSetAssignment {
    /// The pod set.
    #[serde(default = "main")]
    pub name: String,
    /// Resource → flavor.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flavors: BTreeMap<String, String>,
    /// Quota charged, per resource.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_usage: BTreeMap<String, Quantity>,
    /// Pods admitted (partial admission: fewer than the pod set's count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
}

/// One admission check's state on a workload.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckState {
    /// The AdmissionCheck.
    #[serde(default)]
    pub name: String,
    /// `Pending`, `Ready`, `Retry` or `Rejected`.
    #[serde(default)]
    pub state: String,
    /// The check controller's message.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// Finished pods of a pod set.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReclaimablePod {
    /// The pod set.
    #[serde(default)]
    pub name: String,
    /// How many finished.
    #[serde(default)]
    pub count: i32,
}

/// AdmissionCheck `spec`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckSpec {
    /// The controller that decides the check (e.g. `kueue.x-k8s.io/provisioning-request`).
    #[serde(default)]
    pub controller_name: String,
}

/// AdmissionCheck `status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckStatus {
    /// Conditions (`Active`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// Topology `spec`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologySpec {
    /// Levels from the widest to the narrowest.
    #[serde(default)]
    pub levels: Vec<TopologyLevel>,
}

/// One level of a Topology.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyLevel {
    /// The node label whose values are this level's domains.
    #[serde(default)]
    pub node_label: String,
}

/// A Kueue priority class for workloads (a value at the top level, no spec).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadPriorityClass {
    /// As read.
    #[serde(default = "storage_api_version")]
    pub api_version: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The priority.
    #[serde(default)]
    pub value: i32,
}

/// Every typed Kueue object of a snapshot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KueueObjects {
    /// ResourceFlavors.
    pub resource_flavors: Vec<ResourceFlavor>,
    /// ClusterQueues.
    pub cluster_queues: Vec<ClusterQueue>,
    /// LocalQueues.
    pub local_queues: Vec<LocalQueue>,
    /// Cohorts (the API objects; cohorts named only by ClusterQueues exist too).
    pub cohorts: Vec<Cohort>,
    /// Kueue Workloads.
    pub workloads: Vec<Workload>,
    /// WorkloadPriorityClasses.
    pub workload_priority_classes: Vec<WorkloadPriorityClass>,
    /// AdmissionChecks.
    pub admission_checks: Vec<AdmissionCheck>,
    /// Topologies.
    pub topologies: Vec<Topology>,
}

/// One typed Kueue object, as [`parse`] returns it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KueueObject {
    /// A ResourceFlavor.
    ResourceFlavor(ResourceFlavor),
    /// A ClusterQueue.
    ClusterQueue(ClusterQueue),
    /// A LocalQueue.
    LocalQueue(LocalQueue),
    /// A Cohort.
    Cohort(Cohort),
    /// A Kueue Workload.
    Workload(Box<Workload>),
    /// A WorkloadPriorityClass.
    WorkloadPriorityClass(WorkloadPriorityClass),
    /// An AdmissionCheck.
    AdmissionCheck(AdmissionCheck),
    /// A Topology.
    Topology(Topology),
}

impl KueueObjects {
    /// Adds one object to its list.
    pub(crate) fn push(&mut self, o: KueueObject) {
        match o {
            KueueObject::ResourceFlavor(o) => self.resource_flavors.push(o),
            KueueObject::ClusterQueue(o) => self.cluster_queues.push(o),
            KueueObject::LocalQueue(o) => self.local_queues.push(o),
            KueueObject::Cohort(o) => self.cohorts.push(o),
            KueueObject::Workload(o) => self.workloads.push(*o),
            KueueObject::WorkloadPriorityClass(o) => self.workload_priority_classes.push(o),
            KueueObject::AdmissionCheck(o) => self.admission_checks.push(o),
            KueueObject::Topology(o) => self.topologies.push(o),
        }
    }

    /// Appends `other`'s objects after these.
    pub(crate) fn extend(&mut self, other: Self) {
        self.resource_flavors.extend(other.resource_flavors);
        self.cluster_queues.extend(other.cluster_queues);
        self.local_queues.extend(other.local_queues);
        self.cohorts.extend(other.cohorts);
        self.workloads.extend(other.workloads);
        self.workload_priority_classes
            .extend(other.workload_priority_classes);
        self.admission_checks.extend(other.admission_checks);
        self.topologies.extend(other.topologies);
    }

    /// Removes the objects of the kinds and names `other` holds (watch `DELETED` events).
    pub(crate) fn remove_same(&mut self, other: &Self) {
        fn drop_same<S, T>(list: &mut Vec<Object<S, T>>, gone: &[Object<S, T>]) {
            list.retain(|o| {
                !gone
                    .iter()
                    .any(|g| (g.namespace(), g.name()) == (o.namespace(), o.name()))
            });
        }
        drop_same(&mut self.resource_flavors, &other.resource_flavors);
        drop_same(&mut self.cluster_queues, &other.cluster_queues);
        drop_same(&mut self.local_queues, &other.local_queues);
        drop_same(&mut self.cohorts, &other.cohorts);
        drop_same(&mut self.workloads, &other.workloads);
        let name = |c: &WorkloadPriorityClass| c.metadata.name.clone();
        self.workload_priority_classes.retain(|c| {
            !other
                .workload_priority_classes
                .iter()
                .any(|g| name(g) == name(c))
        });
        drop_same(&mut self.admission_checks, &other.admission_checks);
        drop_same(&mut self.topologies, &other.topologies);
    }

    /// Removes every object of `kind` (a re-list replaces them).
    pub(crate) fn remove_kind(&mut self, kind: &str) {
        match kind {
            "ResourceFlavor" => self.resource_flavors.clear(),
            "ClusterQueue" => self.cluster_queues.clear(),
            "LocalQueue" => self.local_queues.clear(),
            "Cohort" => self.cohorts.clear(),
            "Workload" => self.workloads.clear(),
            "WorkloadPriorityClass" => self.workload_priority_classes.clear(),
            "AdmissionCheck" => self.admission_checks.clear(),
            "Topology" => self.topologies.clear(),
            _ => {}
        }
    }

    /// Number of objects held.
    pub(crate) fn len(&self) -> usize {
        self.resource_flavors.len()
            + self.cluster_queues.len()
            + self.local_queues.len()
            + self.cohorts.len()
            + self.workloads.len()
            + self.workload_priority_classes.len()
            + self.admission_checks.len()
            + self.topologies.len()
    }

    /// Sorts every list by (namespace, name), keeping the last copy of an object read twice
    /// (as the loader does for the other kinds).
    pub(crate) fn sort_and_dedup(&mut self) {
        fn tidy<S, T>(list: &mut Vec<Object<S, T>>) {
            let mut seen = std::collections::HashSet::new();
            let mut keep: Vec<bool> = list
                .iter()
                .rev()
                .map(|o| seen.insert((o.namespace().to_owned(), o.name().to_owned())))
                .collect();
            keep.reverse();
            let mut i = 0;
            list.retain(|_| {
                i += 1;
                keep[i - 1]
            });
            list.sort_by(|a, b| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())));
        }
        tidy(&mut self.resource_flavors);
        tidy(&mut self.cluster_queues);
        tidy(&mut self.local_queues);
        tidy(&mut self.cohorts);
        tidy(&mut self.workloads);
        tidy(&mut self.admission_checks);
        tidy(&mut self.topologies);
        let mut seen = std::collections::HashSet::new();
        let mut classes = std::mem::take(&mut self.workload_priority_classes);
        classes.reverse();
        classes.retain(|c| seen.insert(c.metadata.name.clone()));
        classes.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        self.workload_priority_classes = classes;
    }

    /// Every object as the snapshot export writes it: `v1beta2` JSON with its `kind`.
    pub(crate) fn to_values(&self) -> Vec<Value> {
        fn out<T: Serialize>(kind: &str, o: &T) -> Option<Value> {
            let mut v = serde_json::to_value(o).ok()?;
            let map = v.as_object_mut()?;
            map.insert("apiVersion".to_owned(), Value::from(storage_api_version()));
            map.insert("kind".to_owned(), Value::from(kind));
            Some(v)
        }
        let mut v = Vec::with_capacity(self.len());
        v.extend(
            self.resource_flavors
                .iter()
                .filter_map(|o| out("ResourceFlavor", o)),
        );
        v.extend(self.cohorts.iter().filter_map(|o| out("Cohort", o)));
        v.extend(
            self.cluster_queues
                .iter()
                .filter_map(|o| out("ClusterQueue", o)),
        );
        v.extend(
            self.local_queues
                .iter()
                .filter_map(|o| out("LocalQueue", o)),
        );
        v.extend(
            self.workload_priority_classes
                .iter()
                .filter_map(|o| out("WorkloadPriorityClass", o)),
        );
        v.extend(
            self.admission_checks
                .iter()
                .filter_map(|o| out("AdmissionCheck", o)),
        );
        v.extend(self.topologies.iter().filter_map(|o| out("Topology", o)));
        v.extend(self.workloads.iter().filter_map(|o| out("Workload", o)));
        v
    }

    /// Whether no Kueue object was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether `kind` of `kueue.x-k8s.io/VERSION` is read typed.
pub(crate) fn is_typed(api_version: &str, kind: &str) -> bool {
    api_version
        .strip_prefix(GROUP)
        .and_then(|v| v.strip_prefix('/'))
        .is_some_and(|v| SERVED_VERSIONS.contains(&v))
        && KINDS.contains(&kind)
}

/// Reads one Kueue object of a typed kind (see [`is_typed`]), converting `v1beta1` to the
/// storage version first. The error names the field path, as serde_path_to_error gives it.
pub(crate) fn parse(
    mut value: Value,
) -> Result<KueueObject, serde_path_to_error::Error<serde_json::Error>> {
    let kind = value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let v1beta1 = value
        .get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| v.ends_with("/v1beta1"));
    if v1beta1 {
        convert_v1beta1(&kind, &mut value);
    }
    fn read<T: serde::de::DeserializeOwned>(
        v: Value,
    ) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
        serde_path_to_error::deserialize(v)
    }
    Ok(match kind.as_str() {
        "ResourceFlavor" => KueueObject::ResourceFlavor(read(value)?),
        "ClusterQueue" => KueueObject::ClusterQueue(read(value)?),
        "LocalQueue" => KueueObject::LocalQueue(read(value)?),
        "Cohort" => KueueObject::Cohort(read(value)?),
        "WorkloadPriorityClass" => KueueObject::WorkloadPriorityClass(read(value)?),
        "AdmissionCheck" => KueueObject::AdmissionCheck(read(value)?),
        "Topology" => KueueObject::Topology(read(value)?),
        _ => KueueObject::Workload(Box::new(read(value)?)),
    })
}

/// Kueue's `v1beta1` → `v1beta2` conversion, on the JSON (`apis/kueue/v1beta1/*_conversion.go`):
/// only the fields wasctl reads and whose name or meaning changed.
fn convert_v1beta1(kind: &str, value: &mut Value) {
    let spec = value.get_mut("spec").and_then(Value::as_object_mut);
    match (kind, spec) {
        ("ClusterQueue", Some(spec)) => {
            // Convert_v1beta1_ClusterQueueSpec_To_v1beta2_ClusterQueueSpec.
            if let Some(cohort) = spec.remove("cohort") {
                spec.insert("cohortName".to_owned(), cohort);
            }
            if let Some(Value::Array(checks)) = spec.remove("admissionChecks")
                && !checks.is_empty()
            {
                let rules = checks
                    .into_iter()
                    .map(|name| serde_json::json!({ "name": name }))
                    .collect();
                spec.insert(
                    "admissionChecksStrategy".to_owned(),
                    serde_json::json!({ "admissionChecks": Value::Array(rules) }),
                );
            }
            if let Some(f) = spec
                .get_mut("flavorFungibility")
                .and_then(Value::as_object_mut)
            {
                for (key, old) in [("whenCanBorrow", "Borrow"), ("whenCanPreempt", "Preempt")] {
                    if f.get(key).and_then(Value::as_str) == Some(old) {
                        f.insert(key.to_owned(), Value::from("MayStopSearch"));
                    }
                }
            }
        }
        ("Workload", Some(spec)) => {
            // Convert_v1beta1_WorkloadSpec_To_v1beta2_WorkloadSpec.
            let source = spec.remove("priorityClassSource");
            let name = spec.remove("priorityClassName");
            if let Some(Value::String(name)) = name
                && !name.is_empty()
            {
                let (group, kind) = match source.as_ref().and_then(Value::as_str) {
                    Some("kueue.x-k8s.io/workloadpriorityclass") => {
                        ("kueue.x-k8s.io", "WorkloadPriorityClass")
                    }
                    _ => ("scheduling.k8s.io", "PriorityClass"),
                };
                spec.insert(
                    "priorityClassRef".to_owned(),
                    serde_json::json!({ "group": group, "kind": kind, "name": name }),
                );
            }
        }
        _ => {}
    }
    if kind == "LocalQueue"
        && let Some(status) = value.get_mut("status").and_then(Value::as_object_mut)
        && let Some(usage) = status.remove("flavorUsage")
    {
        // Convert_v1beta1_LocalQueueStatus_To_v1beta2_LocalQueueStatus.
        status.insert("flavorsUsage".to_owned(), usage);
    }
}

impl KueueObjects {
    /// The metadata of the Kueue object of `kind` named `namespace/name` (`""` namespace for
    /// cluster-scoped kinds), if read; `None` for a kind that is not Kueue's.
    pub(crate) fn meta_of(
        &self,
        kind: &ObjKind,
        namespace: &str,
        name: &str,
    ) -> Option<&ObjectMeta> {
        fn find<'a, S, T>(
            list: &'a [Object<S, T>],
            namespace: &str,
            name: &str,
        ) -> Option<&'a ObjectMeta> {
            list.iter()
                .find(|o| o.name() == name && o.namespace() == namespace)
                .map(|o| &o.metadata)
        }
        match kind {
            ObjKind::ClusterQueue => find(&self.cluster_queues, "", name),
            ObjKind::LocalQueue => find(&self.local_queues, namespace, name),
            ObjKind::ResourceFlavor => find(&self.resource_flavors, "", name),
            ObjKind::Cohort => find(&self.cohorts, "", name),
            ObjKind::KueueWorkload => find(&self.workloads, namespace, name),
            ObjKind::AdmissionCheck => find(&self.admission_checks, "", name),
            ObjKind::Topology => find(&self.topologies, "", name),
            ObjKind::WorkloadPriorityClass => self
                .workload_priority_classes
                .iter()
                .find(|c| c.metadata.name.as_deref() == Some(name))
                .map(|c| &c.metadata),
            _ => None,
        }
    }
}

impl<S, T> Object<S, T> {
    /// The object's name.
    pub(crate) fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    /// The object's namespace (`""` for cluster-scoped kinds).
    pub(crate) fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or_default()
    }
}

/// The condition of `type_` among `conditions`, if present.
pub(crate) fn condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Whether the condition of `type_` is `True`.
pub(crate) fn is_true(conditions: &[Condition], type_: &str) -> bool {
    condition(conditions, type_).is_some_and(|c| c.status == "True")
}

impl Workload {
    /// Kueue reserved quota for it (`QuotaReserved` True).
    pub(crate) fn has_quota_reservation(&self) -> bool {
        is_true(&self.status.conditions, "QuotaReserved")
    }

    /// Kueue admitted it: quota reserved and every admission check ready (`Admitted` True).
    pub(crate) fn is_admitted(&self) -> bool {
        is_true(&self.status.conditions, "Admitted")
    }

    /// It finished (`Finished` True): it holds no quota and is never admitted again.
    pub(crate) fn is_finished(&self) -> bool {
        is_true(&self.status.conditions, "Finished")
    }

    /// Pending in its queue: active, not finished, no quota reserved.
    pub(crate) fn is_pending(&self) -> bool {
        self.spec.active && !self.is_finished() && !self.has_quota_reservation()
    }
}

impl ClusterQueue {
    /// The cohort it belongs to, if any.
    pub(crate) fn cohort(&self) -> Option<&str> {
        self.spec.cohort_name.as_deref().filter(|c| !c.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cq(v: Value) -> ClusterQueue {
        match parse(v) {
            Ok(KueueObject::ClusterQueue(c)) => c,
            other => panic!("not a ClusterQueue: {other:?}"),
        }
    }

    fn wl(v: Value) -> Workload {
        match parse(v) {
            Ok(KueueObject::Workload(w)) => *w,
            other => panic!("not a Workload: {other:?}"),
        }
    }

    // The ClusterQueue of Kueue's docs (site/content/en/docs/concepts/cluster_queue.md),
    // written without the fields the CRD defaults.
    #[test]
    fn a_manifest_cluster_queue_gets_the_crd_defaults() {
        let c = cq(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
            "metadata": {"name": "cluster-queue"},
            "spec": {
                "namespaceSelector": {},
                "resourceGroups": [{
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [{"name": "default-flavor", "resources": [
                        {"name": "cpu", "nominalQuota": 9},
                        {"name": "memory", "nominalQuota": "36Gi"}]}]
                }]
            }
        }));
        assert_eq!(c.spec.queueing_strategy, QueueingStrategy::BestEffortFIFO);
        assert_eq!(c.spec.stop_policy, StopPolicy::None);
        assert_eq!(c.spec.flavor_fungibility, FlavorFungibility::default());
        assert_eq!(c.spec.preemption, ClusterQueuePreemption::default());
        assert_eq!(
            c.spec.preemption.within_cluster_queue,
            PreemptionPolicy::Never
        );
        let q = &c.spec.resource_groups[0].flavors[0].resources[1];
        assert_eq!(q.nominal_quota, Quantity("36Gi".to_owned()));
        assert_eq!(c.cohort(), None);
        assert_eq!(c.api_version, "kueue.x-k8s.io/v1beta2");
    }

    // Convert_v1beta1_ClusterQueueSpec_To_v1beta2_ClusterQueueSpec (clusterqueue_conversion.go).
    #[test]
    fn a_v1beta1_cluster_queue_is_converted_as_kueues_webhook_does() {
        let c = cq(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
            "metadata": {"name": "team-a"},
            "spec": {
                "cohort": "research",
                "admissionChecks": ["prov"],
                "queueingStrategy": "StrictFIFO",
                "flavorFungibility": {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"},
                "preemption": {"withinClusterQueue": "LowerPriority",
                               "reclaimWithinCohort": "Any",
                               "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100}}
            }
        }));
        assert_eq!(c.cohort(), Some("research"));
        assert_eq!(c.api_version, "kueue.x-k8s.io/v1beta1");
        assert_eq!(c.spec.queueing_strategy, QueueingStrategy::StrictFIFO);
        let rules = &c
            .spec
            .admission_checks_strategy
            .as_ref()
            .map(|s| &s.admission_checks);
        assert_eq!(
            rules.map(|r| r[0].name.as_str()),
            Some("prov"),
            "admissionChecks become strategy rules on every flavor"
        );
        assert_eq!(
            c.spec.flavor_fungibility.when_can_borrow,
            FungibilityPolicy::MayStopSearch
        );
        assert_eq!(
            c.spec.flavor_fungibility.when_can_preempt,
            FungibilityPolicy::MayStopSearch
        );
        assert_eq!(
            c.spec
                .preemption
                .borrow_within_cohort
                .max_priority_threshold,
            Some(100)
        );
        assert_eq!(
            c.spec.preemption.reclaim_within_cohort,
            PreemptionPolicy::Any
        );
    }

    // Convert_v1beta1_WorkloadSpec_To_v1beta2_WorkloadSpec (workload_conversion.go).
    #[test]
    fn a_v1beta1_workloads_priority_class_source_becomes_a_reference() {
        let w = wl(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
            "metadata": {"name": "job-a", "namespace": "ml"},
            "spec": {
                "queueName": "user-queue",
                "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass",
                "priorityClassName": "high", "priority": 1000,
                "podSets": [{"count": 4, "template": {"spec": {"containers": [
                    {"name": "c", "resources": {"requests": {"nvidia.com/gpu": 8}}}]}}}]
            }
        }));
        assert_eq!(
            w.spec.priority_class_ref,
            Some(PriorityClassRef {
                group: "kueue.x-k8s.io".to_owned(),
                kind: "WorkloadPriorityClass".to_owned(),
                name: "high".to_owned()
            })
        );
        assert_eq!(
            w.spec.pod_sets[0].name, "main",
            "podSet name defaults to main"
        );
        assert_eq!(w.spec.pod_sets[0].count, 4);
        assert!(w.spec.active, "active defaults to true");
        assert!(w.is_pending());
        let pod = wl(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
            "metadata": {"name": "b"},
            "spec": {"priorityClassSource": "scheduling.k8s.io/priorityclass",
                     "priorityClassName": "p", "podSets": []}
        }));
        assert_eq!(
            pod.spec.priority_class_ref.map(|r| r.kind),
            Some("PriorityClass".to_owned())
        );
    }

    #[test]
    fn an_admitted_workloads_conditions_and_assignment_are_read() {
        let w = wl(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "a", "namespace": "ml"},
            "spec": {"queueName": "q", "podSets": [{"name": "workers", "count": 2}]},
            "status": {
                "conditions": [
                    {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                     "message": "", "lastTransitionTime": "2026-08-01T00:00:00Z"},
                    {"type": "Admitted", "status": "True", "reason": "Admitted",
                     "message": "", "lastTransitionTime": "2026-08-01T00:00:00Z"}],
                "admission": {"clusterQueue": "team-a", "podSetAssignments": [
                    {"name": "workers", "count": 2, "flavors": {"nvidia.com/gpu": "h100"},
                     "resourceUsage": {"nvidia.com/gpu": "16"}}]}
            }
        }));
        assert!(w.is_admitted() && w.has_quota_reservation() && !w.is_pending());
        let a = w
            .status
            .admission
            .as_ref()
            .map(|a| &a.pod_set_assignments[0]);
        assert_eq!(
            a.and_then(|a| a.flavors.get("nvidia.com/gpu"))
                .map(String::as_str),
            Some("h100")
        );
    }

    #[test]
    fn a_v1beta1_local_queue_usage_is_renamed() {
        let Ok(KueueObject::LocalQueue(q)) = parse(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
            "metadata": {"name": "user-queue", "namespace": "ml"},
            "spec": {"clusterQueue": "team-a"},
            "status": {"pendingWorkloads": 3, "flavorUsage": [{"name": "h100", "resources": [
                {"name": "nvidia.com/gpu", "total": "16"}]}]}
        })) else {
            panic!("not a LocalQueue")
        };
        assert_eq!(q.spec.cluster_queue, "team-a");
        assert_eq!(q.status.flavors_usage[0].name, "h100");
        assert_eq!(q.status.pending_workloads, 3);
    }

    #[test]
    fn a_wrong_field_names_its_path() {
        let e = parse(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
            "metadata": {"name": "x"},
            "spec": {"queueingStrategy": "Random"}
        }))
        .err()
        .map(|e| e.path().to_string());
        assert_eq!(e.as_deref(), Some("spec.queueingStrategy"));
    }

    #[test]
    fn typed_kinds_are_the_served_versions_of_the_listed_kinds() {
        assert!(is_typed("kueue.x-k8s.io/v1beta2", "ClusterQueue"));
        assert!(is_typed("kueue.x-k8s.io/v1beta1", "Workload"));
        assert!(!is_typed("kueue.x-k8s.io/v1alpha1", "Cohort"));
        assert!(!is_typed("kueue.x-k8s.io/v1beta2", "MultiKueueCluster"));
        assert!(!is_typed("scheduling.k8s.io/v1beta1", "Workload"));
    }

    #[test]
    fn workload_priority_classes_keep_their_value() {
        let Ok(KueueObject::WorkloadPriorityClass(p)) = parse(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
            "metadata": {"name": "high"}, "value": 10000
        })) else {
            panic!("not a WorkloadPriorityClass")
        };
        assert_eq!(p.value, 10000);
    }
}
