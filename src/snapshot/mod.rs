//! The typed snapshot: every object wasctl reads, plus cluster facts and indexes built once.
//!
//! Input: objects from a [`source`] (live cluster, files, the embedded demo).
//! Output: a [`Snapshot`] that the graph, the simulator, doctor and lint read without IO.
//! Objects are k8s-openapi `v1_37` types. `scheduling.k8s.io/v1alpha3` PodGroups and Workloads
//! are converted to the `v1beta1` shape (the same JSON schema); `v1alpha2`/`v1alpha1`
//! scheduling objects are kept as *stale* raw objects (for doctor and lint, never scheduled).
//! Owner objects wasctl has no types for (JobSet, LeaderWorkerSet, Kueue, Volcano) are kept
//! as [`RawObject`]s so the graph can name them. Nothing here does IO.

pub(crate) mod claims;
pub(crate) mod completeness;
pub(crate) mod events;
pub(crate) mod evidence;
pub mod export;
pub mod facts;
pub(crate) mod hierarchy;
pub(crate) mod index;
pub(crate) mod job;
pub(crate) mod kind;
pub(crate) mod kueue;
pub(crate) mod kueue_config;
pub(crate) mod names;
pub(crate) mod pod;
pub(crate) mod quantity;
pub mod scheduler_config;
pub mod source;
pub(crate) mod times;
pub(crate) mod validate;
pub(crate) mod volcano;
pub(crate) mod yunikorn;
pub(crate) mod yunikorn_queues;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{LimitRange, Namespace, Node, ResourceQuota};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::resource::v1::{
    DeviceClass, DeviceTaintRule, ResourceClaim, ResourceClaimTemplate, ResourceSlice,
};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::api::scheduling::v1alpha3::CompositePodGroup;
use k8s_openapi::api::scheduling::v1beta1::{PodGroup, Workload};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

pub(crate) use facts::{ClusterFacts, KindCoverage};
pub(crate) use index::Index;
pub(crate) use job::Job;
pub use kind::{ObjKind, ObjRef};
pub(crate) use pod::Pod;

/// An object wasctl has no Rust type for, kept whole (JSON) with its metadata parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct RawObject {
    /// `apiVersion` as read.
    pub api_version: String,
    /// `kind` as read.
    pub kind: String,
    /// Parsed `metadata`.
    pub metadata: ObjectMeta,
    /// The whole object as read, for export and for checks that look at fields.
    pub value: serde_json::Value,
}

impl RawObject {
    /// The API group of the object (`""` for the core group).
    pub(crate) fn group(&self) -> &str {
        self.api_version.rsplit_once('/').map_or("", |(g, _)| g)
    }
}

/// Something the loader could not do fully; reports show every warning.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    /// A stable machine-readable code, e.g. `Forbidden`, `MissingApi`, `UnknownKinds`.
    pub code: String,
    /// A sentence for humans, values in backticks.
    pub message: String,
}

impl Warning {
    /// Builds a warning.
    pub(crate) fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

/// One kind of change admission made to manifests (see `crate::admit`), with how many
/// objects it changed. Only changes the simulation reads are recorded, so a dump (whose
/// objects are stored, never admitted) records none.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Admitted {
    /// A stable machine-readable code, e.g. `PriorityFromClass`, `LimitRangeDefaults`.
    pub change: String,
    /// What was changed, for humans (`priority set from priorityClassName`).
    pub message: String,
    /// How many objects it changed.
    pub count: usize,
}

impl Admitted {
    /// The text line's words after `admitted: `. A `QuotaExceeded` entry's message counts
    /// the pods itself ("the Job controller could create 2 of 4 pods of Job ml/sweep: …").
    pub(crate) fn sentence(&self) -> String {
        if self.change == "QuotaExceeded" {
            return self.message.clone();
        }
        let objects = if self.count == 1 { "object" } else { "objects" };
        format!("{} on {} {objects}", self.message, self.count)
    }
}

/// Adds `from` to `into`, summing the counts of entries with the same change and message
/// (every change has one message, except those that name their object, such as a
/// controller whose pods a quota refused, which stay one entry per object).
pub(crate) fn merge_admitted(into: &mut Vec<Admitted>, from: Vec<Admitted>) {
    for a in from {
        match into
            .iter_mut()
            .find(|b| b.change == a.change && b.message == a.message)
        {
            Some(b) => b.count += a.count,
            None => into.push(a),
        }
    }
}

/// Calls the macro `$m` with the names of the [`Snapshot`]'s object lists (each a `Vec` of
/// objects with `metadata`), so code that treats every list alike names them once.
macro_rules! object_lists {
    ($m:ident) => {
        $m!(
            nodes,
            pods,
            pod_groups,
            composite_pod_groups,
            workloads,
            resource_claims,
            resource_claim_templates,
            resource_slices,
            device_classes,
            device_taint_rules,
            priority_classes,
            pod_disruption_budgets,
            limit_ranges,
            resource_quotas,
            runtime_classes,
            jobs,
            namespaces,
            foreign,
            selecting,
            stale,
            events
        )
    };
}
pub(crate) use object_lists;

/// Every object of one cluster, typed, sorted by (namespace, name), with indexes.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Pods, in every namespace (the simulator needs every pod that uses node resources).
    pub pods: Vec<std::sync::Arc<Pod>>,
    /// PodGroups (`v1beta1` shape; `v1alpha3` ones converted).
    pub pod_groups: Vec<PodGroup>,
    /// CompositePodGroups (`v1alpha3`).
    pub composite_pod_groups: Vec<CompositePodGroup>,
    /// Workloads (`v1beta1` shape; `v1alpha3` ones converted).
    pub workloads: Vec<Workload>,
    /// ResourceClaims.
    pub resource_claims: Vec<ResourceClaim>,
    /// ResourceClaimTemplates.
    pub resource_claim_templates: Vec<ResourceClaimTemplate>,
    /// ResourceSlices.
    pub resource_slices: Vec<ResourceSlice>,
    /// DeviceClasses.
    pub device_classes: Vec<DeviceClass>,
    /// DeviceTaintRules.
    pub device_taint_rules: Vec<DeviceTaintRule>,
    /// PriorityClasses.
    pub priority_classes: Vec<PriorityClass>,
    /// PodDisruptionBudgets.
    pub pod_disruption_budgets: Vec<PodDisruptionBudget>,
    /// LimitRanges (their container defaults are applied to manifest pods by `crate::admit`).
    pub limit_ranges: Vec<LimitRange>,
    /// ResourceQuotas (`crate::admit` creates a manifest controller's pods while the
    /// namespace's quota allows, as the ResourceQuota admission plugin does).
    pub resource_quotas: Vec<ResourceQuota>,
    /// RuntimeClasses (their overhead and scheduling are applied to manifest pods by
    /// `crate::admit`).
    pub runtime_classes: Vec<RuntimeClass>,
    /// Jobs.
    pub jobs: Vec<std::sync::Arc<Job>>,
    /// Namespaces.
    pub namespaces: Vec<Namespace>,
    /// Owner objects of kinds wasctl has no types for (JobSet, LeaderWorkerSet, Kueue, Volcano).
    /// Kueue's typed kinds ([`kueue::KINDS`]) are here with their type and metadata only;
    /// their content is in [`Snapshot::kueue`].
    pub foreign: Vec<RawObject>,
    /// Kueue's objects, typed (`kueue.x-k8s.io` `v1beta2`; `v1beta1` converted).
    pub kueue: kueue::KueueObjects,
    /// Volcano's PodGroups and Queues, typed from their raw copies in [`Snapshot::foreign`]
    /// by [`Snapshot::build`].
    pub volcano: volcano::VolcanoObjects,
    /// YuniKorn's gangs (task groups), read from the pods' annotations by
    /// [`Snapshot::build`].
    pub yunikorn: Vec<yunikorn::Gang>,
    /// YuniKorn's queues, from its ConfigMap `yunikorn/yunikorn-configs` when the input holds
    /// it (export writes it back as that ConfigMap, with `queues.yaml` only).
    pub yunikorn_queues: yunikorn_queues::YunikornQueues,
    /// Services and ReplicationControllers (core `v1`), kept raw: read only for
    /// PodTopologySpread's system-default selector (upstream `helper.DefaultSelector`).
    /// ReplicaSets and StatefulSets are among [`Snapshot::foreign`] (group `apps`).
    pub selecting: Vec<RawObject>,
    /// `scheduling.k8s.io` objects in a version 1.37 no longer serves (`v1alpha2`, `v1alpha1`).
    pub stale: Vec<RawObject>,
    /// Events (core `v1`; `events.k8s.io/v1` converted) on Volcano's objects and pods'
    /// scheduling reasons, the rest dropped as read ([`events::is_kept`]): what Volcano
    /// recorded about its gangs.
    pub events: Vec<k8s_openapi::api::core::v1::Event>,
    /// Objects that were read in another served version than the one stored above
    /// (`kind`, namespace, name) → apiVersion, e.g. a PodGroup read as `v1alpha3`.
    pub read_as: BTreeMap<(String, String, String), String>,
    /// Cluster facts: versions, feature gates, served API versions.
    pub facts: ClusterFacts,
    /// What could not be loaded, and what was assumed.
    pub warnings: Vec<Warning>,
    /// Lookups built once by [`Snapshot::build`], kept current in place by watch events
    /// ([`source::watch::apply`]).
    pub index: Index,
    /// What watch events changed since the derived state beyond the index was last
    /// refreshed ([`Snapshot::after_objects_changed`]).
    pub(crate) pending: Pending,
    /// The kubeconfig context's namespace, in live mode.
    pub default_namespace: Option<String>,
    /// What admission changed on the manifests among the objects (`crate::admit`); empty
    /// for stored objects (a dump, a live cluster).
    pub admitted: Vec<Admitted>,
    /// The cluster's own scheduler configuration (`--scheduler-config`, or a
    /// `KubeSchedulerConfiguration` document in the input), validated and defaulted;
    /// `None`: kube-scheduler's default profile
    /// ([`scheduler_config::KubeSchedulerConfiguration::default_config`]).
    pub scheduler_config: Option<LoadedSchedulerConfig>,
    /// Kueue's own manager configuration (`--kueue-config`, a `Configuration` document of
    /// `config.kueue.x-k8s.io` in the input, or the `kueue-system/kueue-manager-config`
    /// ConfigMap of a live cluster running Kueue), converted to v1beta2 and defaulted. `None`:
    /// Kueue's defaults ([`kueue_config::KueueConfiguration::default_config`]).
    pub kueue_config: Option<LoadedKueueConfig>,
}

/// A scheduler configuration as loaded: effective (defaults applied) and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSchedulerConfig {
    /// The configuration after [`scheduler_config::effective`] (for the gates the simulator
    /// models, [`scheduler_config::PluginGates::SIMULATED`]).
    pub config: scheduler_config::KubeSchedulerConfiguration,
    /// The document as written (validated): what `snapshot` exports, and what
    /// [`scheduler_config::effective_with`] takes for other gates.
    pub written: scheduler_config::KubeSchedulerConfiguration,
    /// Where it was read: a file path, `configmap/NAMESPACE/NAME:KEY`, or `FILE (document
    /// N)` for a document inside `--from`.
    pub source: String,
}

impl LoadedSchedulerConfig {
    /// Types, validates and defaults a `KubeSchedulerConfiguration` document. The error
    /// names the field path of the first problem (and counts the others), as kube-scheduler
    /// refuses to start on any of them.
    pub(crate) fn from_value(
        value: serde_json::Value,
        source: &str,
    ) -> Result<Self, scheduler_config::FieldError> {
        let written = scheduler_config::from_value(value)?;
        let mut problems = scheduler_config::validate(&written);
        if !problems.is_empty() {
            let mut first = problems.remove(0);
            if !problems.is_empty() {
                let others: Vec<String> = problems
                    .iter()
                    .take(4)
                    .map(|p| format!("`{}`: {}", p.field, p.message))
                    .collect();
                first.message = format!(
                    "{}; also {}{}",
                    first.message,
                    others.join("; "),
                    if problems.len() > 4 {
                        format!(" (and {} more)", problems.len() - 4)
                    } else {
                        String::new()
                    }
                );
            }
            return Err(first);
        }
        Ok(Self {
            config: scheduler_config::effective(&written),
            written,
            source: source.to_owned(),
        })
    }
}

/// Kueue's manager configuration as loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedKueueConfig {
    /// The configuration, v1beta2, defaults applied.
    pub(crate) config: kueue_config::KueueConfiguration,
    /// Where it was read: a file, `configmap/NAMESPACE/NAME:KEY`, or `--from`.
    pub(crate) source: String,
}

impl LoadedKueueConfig {
    /// Types, converts, defaults and validates a Kueue `Configuration` document.
    pub(crate) fn from_value(
        value: serde_json::Value,
        source: &str,
    ) -> Result<Self, scheduler_config::FieldError> {
        Ok(Self {
            config: kueue_config::from_value(value)?,
            source: source.to_owned(),
        })
    }

    /// The configuration in effect for `s`: the loaded one, else Kueue's defaults.
    pub(crate) fn effective(s: &Snapshot) -> kueue_config::KueueConfiguration {
        s.kueue_config
            .as_ref()
            .map_or_else(kueue_config::KueueConfiguration::default_config, |l| {
                l.config.clone()
            })
    }
}

/// What watch events ([`source::watch::apply`], [`source::watch::replace_kind`]) changed
/// since [`Snapshot::after_objects_changed`] last ran, beyond the index (which `apply` keeps
/// current per event): what that refresh must derive again, so that it reads the objects
/// that changed, not every object.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pending {
    /// Derive everything again, the index too (a re-list replaced a whole kind).
    pub(crate) all: bool,
    /// Raw objects changed: Volcano's typed objects are read from them again.
    pub(crate) foreign: bool,
    /// A YuniKorn pod changed: their gangs are gathered from the pods again.
    pub(crate) yunikorn: bool,
    /// PodGroups or CompositePodGroups changed: the hierarchy is walked again.
    pub(crate) hierarchy: bool,
    /// Something the API server's gates are inferred from changed ([`evidence`]).
    pub(crate) evidence: bool,
    /// `kube-system` pods added or changed (`namespace/name`), for the components' facts.
    pub(crate) kube_system_pods: Vec<String>,
    /// Nodes added or changed, by name, for the kubelets' facts.
    pub(crate) nodes: Vec<String>,
}

impl Pending {
    /// Notes a change to the snapshot's list `list` (other than nodes, pods, claims and Jobs,
    /// which note their own).
    pub(crate) fn note_list(&mut self, list: &str) {
        match list {
            "foreign" => self.foreign = true,
            "pod_groups" | "composite_pod_groups" => {
                self.hierarchy = true;
                self.evidence = true;
            }
            "workloads" | "resource_slices" => self.evidence = true,
            _ => {}
        }
    }
}

/// The kinds wasctl keeps typed, with their canonical apiVersion.
pub(crate) const TYPED_KINDS: &[(&str, &str)] = &[
    ("v1", "Node"),
    ("v1", "Pod"),
    ("v1", "Namespace"),
    ("scheduling.k8s.io/v1beta1", "PodGroup"),
    ("scheduling.k8s.io/v1beta1", "Workload"),
    ("scheduling.k8s.io/v1alpha3", "CompositePodGroup"),
    ("scheduling.k8s.io/v1", "PriorityClass"),
    ("resource.k8s.io/v1", "ResourceClaim"),
    ("resource.k8s.io/v1", "ResourceClaimTemplate"),
    ("resource.k8s.io/v1", "ResourceSlice"),
    ("resource.k8s.io/v1", "DeviceClass"),
    ("resource.k8s.io/v1", "DeviceTaintRule"),
    ("policy/v1", "PodDisruptionBudget"),
    ("v1", "LimitRange"),
    ("v1", "ResourceQuota"),
    ("node.k8s.io/v1", "RuntimeClass"),
    ("batch/v1", "Job"),
    ("v1", "Event"),
];

/// Kueue's queue label on Jobs and pods: the workload is queued in Kueue's LocalQueue of
/// that name.
pub(crate) const KUEUE_QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";

/// The key of `kind` of `group` in [`ClusterFacts::coverage`]: the kind, or `KIND.GROUP`
/// for Volcano's kinds, whose `PodGroup` and `Job` are not the native ones.
pub(crate) fn coverage_key(group: &str, kind: &str) -> String {
    if group == volcano::GROUP || group == volcano::JOB_GROUP {
        format!("{kind}.{group}")
    } else {
        kind.to_owned()
    }
}

/// API groups of owner objects kept untyped so the graph and doctor can name them.
pub(crate) const FOREIGN_GROUPS: &[&str] = &[
    "jobset.x-k8s.io",
    "leaderworkerset.x-k8s.io",
    "kueue.x-k8s.io",
    "scheduling.volcano.sh",
    "batch.volcano.sh",
    "kubeflow.org",
    "ray.io",
    "apps",
];

impl Snapshot {
    /// Sorts every list by (namespace, name) and builds the indexes. Call once after loading.
    pub(crate) fn build(mut self) -> Self {
        fn key(m: &ObjectMeta) -> (String, String) {
            (
                m.namespace.clone().unwrap_or_default(),
                m.name.clone().unwrap_or_default(),
            )
        }
        macro_rules! sort {
            ($($field:ident),*) => {
                $( self.$field.sort_by_cached_key(|o| key(&o.metadata)); )*
            };
        }
        object_lists!(sort);
        self.kueue.sort_and_dedup();
        self.derive_other_schedulers();
        self.warnings.sort();
        self.warnings.dedup();
        self.facts.infer_from_objects(&self.nodes, &self.pods);
        self.facts.inferred_gates = evidence::apiserver_gates(&self);
        self.index = Index::build(&self);
        self
    }

    /// Refreshes what [`Snapshot::build`] derives from the objects' contents after a change
    /// to specs that leaves every object's name and every reference between objects as they
    /// were (a PodGroup's minCount or topology, a pod's tolerations, a claim entry's source):
    /// the lists stay sorted and the index holds, and only the API-server gates inferred from
    /// the objects (which read their specs) are derived again. What a fix's copy of 150,000
    /// pods costs is then the change, not sorting and indexing every object again.
    pub(crate) fn after_spec_change(&mut self) {
        self.facts.inferred_gates = evidence::apiserver_gates(self);
    }

    /// Refreshes what [`Snapshot::build`] derives from the objects after watch events
    /// upserted objects into or removed them from their sorted lists in place
    /// ([`source::watch::apply`], which already updated the index per event): from what the
    /// events noted in [`Snapshot::pending`], the gates inferred from the objects (the pods'
    /// part counted in the index), Volcano's objects when raw objects changed, YuniKorn's
    /// gangs when one of their pods changed, the CompositePodGroup hierarchy when a group
    /// changed, and the components' facts from the pods and nodes that changed. After a
    /// re-list ([`source::watch::replace_kind`]), everything, as
    /// [`Snapshot::after_objects_replaced`]. The lists are not sorted again.
    pub(crate) fn after_objects_changed(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        if pending.all {
            self.after_objects_replaced();
            return;
        }
        if pending.foreign {
            self.volcano = volcano::VolcanoObjects::from_foreign(&self.foreign);
        }
        if pending.yunikorn {
            self.derive_yunikorn();
        }
        if pending.hierarchy {
            let mut index = std::mem::take(&mut self.index);
            index.resolve_hierarchy(self);
            self.index = index;
        }
        self.infer_from_changed(pending.kube_system_pods, pending.nodes);
        if pending.evidence {
            self.facts.inferred_gates =
                evidence::apiserver_gates_with(self, self.index.pod_evidence);
        }
    }

    /// The components' facts from the pods and nodes named (those still present), in
    /// snapshot order as [`ClusterFacts::infer_from_objects`] over every object would add
    /// them: it only adds what is not known yet, and the other objects added theirs before.
    fn infer_from_changed(&mut self, mut pods: Vec<String>, mut nodes: Vec<String>) {
        if pods.is_empty() && nodes.is_empty() {
            return;
        }
        pods.sort();
        pods.dedup();
        nodes.sort();
        nodes.dedup();
        let pods: Vec<std::sync::Arc<Pod>> = pods
            .iter()
            .filter_map(|p| {
                let (ns, name) = p.split_once('/')?;
                self.pods.get(self.index.pods.get(ns, name)?).cloned()
            })
            .collect();
        let nodes: Vec<Node> = nodes.iter().filter_map(|n| self.node(n).cloned()).collect();
        self.facts.infer_from_objects(&nodes, &pods);
    }

    /// Derives everything [`Snapshot::build`] derives from the objects again, the index
    /// too, after lists were changed other than by [`source::watch::apply`] (a re-list). The
    /// lists are not sorted again.
    pub(crate) fn after_objects_replaced(&mut self) {
        self.pending = Pending::default();
        self.derive_other_schedulers();
        self.facts.infer_from_objects(&self.nodes, &self.pods);
        self.facts.inferred_gates = evidence::apiserver_gates(self);
        self.index = Index::build(self);
    }

    /// Types Volcano's objects from their raw copies and gathers YuniKorn's gangs from the
    /// pods (their warnings added once).
    fn derive_other_schedulers(&mut self) {
        self.volcano = volcano::VolcanoObjects::from_foreign(&self.foreign);
        self.derive_yunikorn();
    }

    /// Gathers YuniKorn's gangs from the pods (their warnings added once).
    fn derive_yunikorn(&mut self) {
        let (gangs, warnings) = yunikorn::gangs(&self.pods);
        self.yunikorn = gangs;
        for w in warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
    }

    /// The YuniKorn gang `namespace/APP_ID:TASK_GROUP`, if present.
    pub(crate) fn yunikorn_gang(&self, namespace: &str, name: &str) -> Option<&yunikorn::Gang> {
        self.yunikorn
            .iter()
            .find(|g| g.namespace == namespace && g.name() == name)
    }

    /// Number of objects held (typed, foreign and stale), for progress and summaries.
    pub(crate) fn object_count(&self) -> usize {
        self.nodes.len()
            + self.pods.len()
            + self.pod_groups.len()
            + self.composite_pod_groups.len()
            + self.workloads.len()
            + self.resource_claims.len()
            + self.resource_claim_templates.len()
            + self.resource_slices.len()
            + self.device_classes.len()
            + self.device_taint_rules.len()
            + self.priority_classes.len()
            + self.pod_disruption_budgets.len()
            + self.limit_ranges.len()
            + self.resource_quotas.len()
            + self.runtime_classes.len()
            + self.jobs.len()
            + self.namespaces.len()
            + self.foreign.len()
            + self.selecting.len()
            + self.stale.len()
            + self.events.len()
    }

    /// Every namespace that holds a workload-related object, sorted, for target lookups.
    pub(crate) fn namespaces_in_use(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .pods
            .iter()
            .map(|o| &o.metadata)
            .chain(self.pod_groups.iter().map(|o| &o.metadata))
            .chain(self.composite_pod_groups.iter().map(|o| &o.metadata))
            .chain(self.workloads.iter().map(|o| &o.metadata))
            .chain(self.jobs.iter().map(|o| &o.metadata))
            .chain(self.resource_claims.iter().map(|o| &o.metadata))
            .chain(self.volcano.pod_groups.iter().map(|o| &o.metadata))
            .map(|m| namespace_of(m).to_owned())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The PodGroup `namespace/name`, if present.
    pub(crate) fn pod_group(&self, namespace: &str, name: &str) -> Option<&PodGroup> {
        self.index
            .pod_groups
            .get(namespace, name)
            .map(|i| &self.pod_groups[i])
    }

    /// The CompositePodGroup `namespace/name`, if present.
    pub(crate) fn composite_pod_group(
        &self,
        namespace: &str,
        name: &str,
    ) -> Option<&CompositePodGroup> {
        self.index
            .composite_pod_groups
            .get(namespace, name)
            .map(|i| &self.composite_pod_groups[i])
    }

    /// The Workload `namespace/name`, if present.
    pub(crate) fn workload(&self, namespace: &str, name: &str) -> Option<&Workload> {
        self.index
            .workloads
            .get(namespace, name)
            .map(|i| &self.workloads[i])
    }

    /// The Pod `namespace/name`, if present.
    pub(crate) fn pod(&self, namespace: &str, name: &str) -> Option<&Pod> {
        self.index.pods.get(namespace, name).map(|i| &*self.pods[i])
    }

    /// The ResourceClaim `namespace/name`, if present.
    pub(crate) fn resource_claim(&self, namespace: &str, name: &str) -> Option<&ResourceClaim> {
        self.index
            .resource_claims
            .get(namespace, name)
            .map(|i| &self.resource_claims[i])
    }

    /// The Job `namespace/name`, if present.
    pub(crate) fn job(&self, namespace: &str, name: &str) -> Option<&Job> {
        self.index.jobs.get(namespace, name).map(|i| &*self.jobs[i])
    }

    /// The Node `name`, if present.
    pub(crate) fn node(&self, name: &str) -> Option<&Node> {
        self.index.nodes.get("", name).map(|i| &self.nodes[i])
    }

    /// The metadata of object `r`, if it exists and is of a kind that targets name (Pod,
    /// PodGroup, CompositePodGroup, Workload, Job, ResourceClaim, Node).
    pub(crate) fn meta_of(&self, r: &ObjRef) -> Option<&ObjectMeta> {
        let (namespace, name) = (r.namespace.as_str(), r.name.as_str());
        Some(match r.kind {
            ObjKind::Pod => &self.pod(namespace, name)?.metadata,
            ObjKind::PodGroup => &self.pod_group(namespace, name)?.metadata,
            ObjKind::CompositePodGroup => &self.composite_pod_group(namespace, name)?.metadata,
            ObjKind::Workload => &self.workload(namespace, name)?.metadata,
            ObjKind::Job => &self.job(namespace, name)?.metadata,
            ObjKind::ResourceClaim => &self.resource_claim(namespace, name)?.metadata,
            ObjKind::Node => &self.node(name)?.metadata,
            ref k if k.is_kueue() => return self.kueue.meta_of(k, namespace, name),
            ObjKind::VolcanoPodGroup => &self.volcano.pod_group(namespace, name)?.metadata,
            ObjKind::VolcanoQueue => &self.volcano.queue(name)?.metadata,
            ObjKind::VolcanoJob => &self.volcano.job(namespace, name)?.metadata,
            _ => return None,
        })
    }

    /// The labels of object `r`, if it exists and is of a kind that targets name.
    pub(crate) fn labels_of(&self, r: &ObjRef) -> Option<&BTreeMap<String, String>> {
        self.meta_of(r)?.labels.as_ref()
    }

    /// "Now" for every age, GPU-hour and time-based check: the snapshot's time
    /// (`ClusterFacts.snapshotTime`, the server's clock at listing in live mode, or the wall
    /// clock at loading for files without one — see [`Snapshot::stamp_time`]).
    pub fn now(&self) -> k8s_openapi::jiff::Timestamp {
        self.facts
            .snapshot_time
            .as_ref()
            .map_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH, |t| t.0)
    }

    /// Gives a snapshot without a time the wall clock `now`, and says so in `assumed`.
    pub(crate) fn stamp_time(&mut self, now: k8s_openapi::jiff::Timestamp) {
        if self.facts.snapshot_time.is_none() {
            self.facts.snapshot_time =
                Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(now));
            self.facts.assumed.push(format!(
                "no snapshot time in the input: ages are relative to the wall clock ({})",
                now.strftime("%Y-%m-%dT%H:%M:%SZ")
            ));
        }
    }

    /// How completely `kind` (`PodGroup`, or a foreign kind such as `JobSet`) was read (see
    /// [`KindCoverage`]). Live: what the loader recorded, else complete. Files: what a
    /// `ClusterFacts` document says, else complete when the input holds objects of the kind
    /// and [`KindCoverage::NotInInput`] when it holds none.
    pub(crate) fn coverage(&self, kind: &str) -> KindCoverage {
        if let Some(c) = self.facts.coverage.get(kind) {
            return c.clone();
        }
        if self.facts.from_files {
            let present = match self.count_of(kind) {
                Some(n) => n > 0,
                None => self.foreign.iter().any(|o| o.kind == kind),
            };
            if !present {
                return KindCoverage::NotInInput;
            }
        }
        KindCoverage::Complete
    }

    /// True when every object of `kind` in `namespace` was read, so one that is not in the
    /// snapshot does not exist. Checks that report a missing object must ask this first.
    pub(crate) fn knows_all(&self, kind: &str, namespace: Option<&str>) -> bool {
        self.coverage(kind).covers(namespace)
    }

    /// Number of objects of a typed kind (see [`TYPED_KINDS`]); `None` for other kinds.
    pub(crate) fn count_of(&self, kind: &str) -> Option<usize> {
        Some(match kind {
            "Node" => self.nodes.len(),
            "Pod" => self.pods.len(),
            "Namespace" => self.namespaces.len(),
            "PodGroup" => self.pod_groups.len(),
            "PodGroup.scheduling.volcano.sh" => self.volcano.pod_groups.len(),
            "Queue.scheduling.volcano.sh" => self.volcano.queues.len(),
            "Job.batch.volcano.sh" => self.volcano.jobs.len(),
            "Workload" => self.workloads.len(),
            "CompositePodGroup" => self.composite_pod_groups.len(),
            "PriorityClass" => self.priority_classes.len(),
            "ResourceClaim" => self.resource_claims.len(),
            "ResourceClaimTemplate" => self.resource_claim_templates.len(),
            "ResourceSlice" => self.resource_slices.len(),
            "DeviceClass" => self.device_classes.len(),
            "DeviceTaintRule" => self.device_taint_rules.len(),
            "PodDisruptionBudget" => self.pod_disruption_budgets.len(),
            "LimitRange" => self.limit_ranges.len(),
            "ResourceQuota" => self.resource_quotas.len(),
            "RuntimeClass" => self.runtime_classes.len(),
            "Job" => self.jobs.len(),
            "Event" => self.events.len(),
            _ => return None,
        })
    }
}

/// The name of an object (empty when absent, which validation elsewhere reports).
pub(crate) fn name_of(meta: &ObjectMeta) -> &str {
    meta.name.as_deref().unwrap_or("")
}

/// A node's `Ready` condition: `Some(true)` when it is `True`, `None` when the node has none
/// (a dump without status).
pub(crate) fn node_ready(node: &Node) -> Option<bool> {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
        .map(|c| c.status == "True")
}

/// The namespace of an object (empty for cluster-scoped objects).
pub(crate) fn namespace_of(meta: &ObjectMeta) -> &str {
    meta.namespace.as_deref().unwrap_or("")
}
