//! Lookups over a [`Snapshot`], built once after loading and kept current in place by watch
//! events.
//!
//! Every map holds positions into the snapshot's sorted lists, so lookups never clone
//! objects. [`Index::build`] is linear in the number of objects; nothing here grows with
//! pods². A watch event changes one object of one list ([`Index::changed`]): the object's
//! own entries are removed and added again (O(its entries), a hash lookup each), and when an
//! object is added to or removed from the middle of its list, the positions after it in that
//! list's maps move by one (one pass of integer additions over that list's maps, no
//! allocation and no hashing: the cost of `Vec::insert`'s move of the list itself). Both
//! [`Index::build`] and the in-place updates add entries through the same [`Indexed`] code,
//! and a test checks that any sequence of events leaves the index a build would give.

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Event, LimitRange, Namespace, Node, ResourceQuota};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::resource::v1::{
    DeviceClass, DeviceTaintRule, ResourceClaim, ResourceClaimTemplate, ResourceSlice,
};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::api::scheduling::v1alpha3::CompositePodGroup;
use k8s_openapi::api::scheduling::v1beta1::{PodGroup, Workload};

use super::{Job, Pod, RawObject, Snapshot, name_of, namespace_of};

/// Where `position` goes when an object is inserted at `at` (`up`) or removed from `at`
/// (its own entries already gone).
fn moved(position: usize, at: usize, up: bool) -> usize {
    if up {
        if position >= at {
            position + 1
        } else {
            position
        }
    } else if position > at {
        position - 1
    } else {
        position
    }
}

/// Adds `position` to the sorted `positions` (snapshot order), once.
fn add_sorted(positions: &mut Vec<usize>, position: usize) {
    if let Err(k) = positions.binary_search(&position) {
        positions.insert(k, position);
    }
}

/// Adds (`add`) or removes `position` under `key`; a key left without positions goes.
fn set_position(map: &mut HashMap<String, Vec<usize>>, key: &str, position: usize, add: bool) {
    if add {
        add_sorted(map.entry(key.to_owned()).or_default(), position);
    } else if let Some(v) = map.get_mut(key) {
        if let Ok(k) = v.binary_search(&position) {
            v.remove(k);
        }
        if v.is_empty() {
            map.remove(key);
        }
    }
}

/// Moves every position of `map` for an insertion at or removal from `at`.
fn shift_positions(map: &mut HashMap<String, Vec<usize>>, at: usize, up: bool) {
    // Each position moves on its own: the maps' order does not matter.
    map.values_mut()
        .flat_map(|v| v.iter_mut())
        .for_each(|p| *p = moved(*p, at, up));
}

/// `(namespace, name)` → position. Cluster-scoped objects use the empty namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameIndex(HashMap<String, HashMap<String, usize>>);

impl NameIndex {
    fn insert(&mut self, namespace: &str, name: &str, position: usize) {
        self.0
            .entry(namespace.to_owned())
            .or_default()
            .insert(name.to_owned(), position);
    }

    /// Adds (`add`) or removes `namespace/name` at `position`. A removal leaves an entry
    /// that points elsewhere (a duplicate name) as it is.
    fn set(&mut self, namespace: &str, name: &str, position: usize, add: bool) {
        if add {
            self.insert(namespace, name, position);
        } else if let Some(m) = self.0.get_mut(namespace) {
            if m.get(name) == Some(&position) {
                m.remove(name);
            }
            if m.is_empty() {
                self.0.remove(namespace);
            }
        }
    }

    fn shift(&mut self, at: usize, up: bool) {
        self.0
            .values_mut()
            .flat_map(HashMap::values_mut)
            .for_each(|p| *p = moved(*p, at, up));
    }

    /// Position of `namespace/name`.
    pub(crate) fn get(&self, namespace: &str, name: &str) -> Option<usize> {
        self.0.get(namespace).and_then(|m| m.get(name)).copied()
    }
}

/// `(namespace, key)` → positions, e.g. pods by the PodGroup they name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MultiIndex(HashMap<String, HashMap<String, Vec<usize>>>);

impl MultiIndex {
    /// Adds (`add`) or removes `position` under `namespace/key`.
    fn set(&mut self, namespace: &str, key: &str, position: usize, add: bool) {
        if add {
            let m = self.0.entry(namespace.to_owned()).or_default();
            set_position(m, key, position, true);
        } else if let Some(m) = self.0.get_mut(namespace) {
            set_position(m, key, position, false);
            if m.is_empty() {
                self.0.remove(namespace);
            }
        }
    }

    fn shift(&mut self, at: usize, up: bool) {
        self.0.values_mut().for_each(|m| shift_positions(m, at, up));
    }

    /// Positions recorded under `namespace/key`, in snapshot order.
    pub(crate) fn get(&self, namespace: &str, key: &str) -> &[usize] {
        self.0
            .get(namespace)
            .and_then(|m| m.get(key))
            .map_or(&[], Vec::as_slice)
    }
}

/// All indexes of a snapshot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Index {
    /// Nodes by name.
    pub nodes: NameIndex,
    /// Pods by namespace/name.
    pub pods: NameIndex,
    /// PodGroups by namespace/name.
    pub pod_groups: NameIndex,
    /// CompositePodGroups by namespace/name.
    pub composite_pod_groups: NameIndex,
    /// Workloads by namespace/name.
    pub workloads: NameIndex,
    /// ResourceClaims by namespace/name.
    pub resource_claims: NameIndex,
    /// ResourceClaimTemplates by namespace/name.
    pub resource_claim_templates: NameIndex,
    /// Jobs by namespace/name.
    pub jobs: NameIndex,
    /// DeviceClasses by name.
    pub device_classes: NameIndex,
    /// PriorityClasses by name.
    pub priority_classes: NameIndex,
    /// Namespaces by name.
    pub namespaces: NameIndex,
    /// Foreign owner objects by `kind` + namespace/name (key `Kind/name`).
    pub foreign: NameIndex,
    /// Pods by `spec.nodeName` (bound or nominated by the user).
    pub pods_by_node: HashMap<String, Vec<usize>>,
    /// Pods by namespace and `spec.schedulingGroup.podGroupName`.
    pub pods_by_group: MultiIndex,
    /// PodGroups by namespace and `spec.parentCompositePodGroupName`.
    pub pod_groups_by_parent: MultiIndex,
    /// CompositePodGroups by namespace and `spec.parentCompositePodGroupName`.
    pub composite_pod_groups_by_parent: MultiIndex,
    /// PodGroups by namespace and `spec.workloadRef.workloadName`.
    pub pod_groups_by_workload: MultiIndex,
    /// CompositePodGroups by namespace and `spec.workloadRef.workloadName`.
    pub composite_pod_groups_by_workload: MultiIndex,
    /// ResourceClaims by the uid of their controller owner (generated claims).
    pub claims_by_owner_uid: HashMap<String, Vec<usize>>,
    /// ResourceSlices by `spec.nodeName`.
    pub slices_by_node: HashMap<String, Vec<usize>>,
    /// How many pods carry what the API server's gates are inferred from
    /// (`super::evidence`), counted here so an event counts its own pod only.
    pub(crate) pod_evidence: PodEvidence,
    /// The CompositePodGroups' hierarchy (depth, root, cycles), by position in
    /// `composite_pod_groups`: the one walk [`super::hierarchy::walk_up`] reads.
    pub hierarchy: super::hierarchy::Resolution<usize>,
}

/// The pods that are evidence of an API-server gate (see `super::evidence`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PodEvidence {
    /// Pods with `spec.schedulingGroup` (GenericWorkload).
    pub(crate) grouped: usize,
    /// Pods with `status.nodeAllocatableResourceClaimStatuses` (DRANodeAllocatableResources).
    pub(crate) charged: usize,
}

impl PodEvidence {
    /// Which counts `pod` is in: (grouped, charged).
    pub(crate) fn of(pod: &Pod) -> (bool, bool) {
        let grouped = pod
            .spec
            .as_ref()
            .is_some_and(|sp| sp.scheduling_group.is_some());
        let charged = pod.status.as_ref().is_some_and(|st| {
            st.node_allocatable_resource_claim_statuses
                .as_ref()
                .is_some_and(|v| !v.is_empty())
        });
        (grouped, charged)
    }

    /// Counts every pod of `pods`.
    pub(crate) fn count(pods: &[Arc<Pod>]) -> Self {
        let mut e = Self::default();
        for p in pods {
            e.set(p, true);
        }
        e
    }

    fn set(&mut self, pod: &Pod, add: bool) {
        let (grouped, charged) = Self::of(pod);
        let step = |n: &mut usize, on: bool| {
            if on {
                *n = if add { *n + 1 } else { n.saturating_sub(1) };
            }
        };
        step(&mut self.grouped, grouped);
        step(&mut self.charged, charged);
    }
}

/// One object of a snapshot list, as the [`Index`] holds it: the entries it has at a
/// position, and which of the index's maps hold positions into its list. `list` names the
/// snapshot's field (raw objects are indexed in `foreign` only).
pub(crate) trait Indexed {
    /// Adds (`add`) or removes this object's entries at `position`.
    fn entries(&self, ix: &mut Index, list: &str, position: usize, add: bool);
    /// Moves the positions of `list` for an insertion at (`up`) or removal from `at`.
    fn shift(ix: &mut Index, list: &str, at: usize, up: bool);
}

/// Lists the index does not cover.
macro_rules! not_indexed {
    ($($ty:ty),*) => { $(
        impl Indexed for $ty {
            fn entries(&self, _: &mut Index, _: &str, _: usize, _: bool) {}
            fn shift(_: &mut Index, _: &str, _: usize, _: bool) {}
        }
    )* };
}
not_indexed!(
    Event,
    DeviceTaintRule,
    PodDisruptionBudget,
    LimitRange,
    ResourceQuota,
    RuntimeClass
);

/// Lists indexed by namespace/name only, in the named [`NameIndex`].
macro_rules! by_name {
    ($($ty:ty => $field:ident),*) => { $(
        impl Indexed for $ty {
            fn entries(&self, ix: &mut Index, _: &str, position: usize, add: bool) {
                ix.$field.set(namespace_of(&self.metadata), name_of(&self.metadata), position, add);
            }
            fn shift(ix: &mut Index, _: &str, at: usize, up: bool) {
                ix.$field.shift(at, up);
            }
        }
    )* };
}
by_name!(
    Node => nodes,
    Workload => workloads,
    ResourceClaimTemplate => resource_claim_templates,
    Arc<Job> => jobs,
    DeviceClass => device_classes,
    PriorityClass => priority_classes,
    Namespace => namespaces
);

impl Indexed for Arc<Pod> {
    fn entries(&self, ix: &mut Index, _: &str, position: usize, add: bool) {
        let ns = namespace_of(&self.metadata);
        ix.pods.set(ns, name_of(&self.metadata), position, add);
        let spec = self.spec.as_ref();
        if let Some(node) = spec.and_then(|s| s.node_name.as_deref()) {
            set_position(&mut ix.pods_by_node, node, position, add);
        }
        if let Some(group) = spec
            .and_then(|s| s.scheduling_group.as_ref())
            .and_then(|g| g.pod_group_name.as_deref())
        {
            ix.pods_by_group.set(ns, group, position, add);
        }
        ix.pod_evidence.set(self, add);
    }

    fn shift(ix: &mut Index, _: &str, at: usize, up: bool) {
        ix.pods.shift(at, up);
        shift_positions(&mut ix.pods_by_node, at, up);
        ix.pods_by_group.shift(at, up);
    }
}

impl Indexed for PodGroup {
    fn entries(&self, ix: &mut Index, _: &str, position: usize, add: bool) {
        let ns = namespace_of(&self.metadata);
        ix.pod_groups
            .set(ns, name_of(&self.metadata), position, add);
        if let Some(parent) = self.spec.parent_composite_pod_group_name.as_deref() {
            ix.pod_groups_by_parent.set(ns, parent, position, add);
        }
        if let Some(w) = self.spec.workload_ref.as_ref() {
            ix.pod_groups_by_workload
                .set(ns, &w.workload_name, position, add);
        }
    }

    fn shift(ix: &mut Index, _: &str, at: usize, up: bool) {
        ix.pod_groups.shift(at, up);
        ix.pod_groups_by_parent.shift(at, up);
        ix.pod_groups_by_workload.shift(at, up);
    }
}

impl Indexed for CompositePodGroup {
    fn entries(&self, ix: &mut Index, _: &str, position: usize, add: bool) {
        let ns = namespace_of(&self.metadata);
        ix.composite_pod_groups
            .set(ns, name_of(&self.metadata), position, add);
        if let Some(parent) = self.spec.parent_composite_pod_group_name.as_deref() {
            ix.composite_pod_groups_by_parent
                .set(ns, parent, position, add);
        }
        ix.composite_pod_groups_by_workload.set(
            ns,
            &self.spec.workload_ref.workload_name,
            position,
            add,
        );
    }

    fn shift(ix: &mut Index, _: &str, at: usize, up: bool) {
        ix.composite_pod_groups.shift(at, up);
        ix.composite_pod_groups_by_parent.shift(at, up);
        ix.composite_pod_groups_by_workload.shift(at, up);
    }
}

impl Indexed for ResourceClaim {
    fn entries(&self, ix: &mut Index, _: &str, position: usize, add: bool) {
        ix.resource_claims.set(
            namespace_of(&self.metadata),
            name_of(&self.metadata),
            position,
            add,
        );
        for owner in self.metadata.owner_references.iter().flatten() {
            if owner.controller == Some(true) {
                set_position(&mut ix.claims_by_owner_uid, &owner.uid, position, add);
            }
        }
    }

    fn shift(ix: &mut Index, _: &str, at: usize, up: bool) {
        ix.resource_claims.shift(at, up);
        shift_positions(&mut ix.claims_by_owner_uid, at, up);
    }
}

impl Indexed for ResourceSlice {
    fn entries(&self, ix: &mut Index, _: &str, position: usize, add: bool) {
        if let Some(node) = self.spec.node_name.as_deref() {
            set_position(&mut ix.slices_by_node, node, position, add);
        }
    }

    fn shift(ix: &mut Index, _: &str, at: usize, up: bool) {
        shift_positions(&mut ix.slices_by_node, at, up);
    }
}

impl Indexed for RawObject {
    fn entries(&self, ix: &mut Index, list: &str, position: usize, add: bool) {
        if list == "foreign" {
            let key = format!("{}/{}", self.kind, name_of(&self.metadata));
            ix.foreign
                .set(namespace_of(&self.metadata), &key, position, add);
        }
    }

    fn shift(ix: &mut Index, list: &str, at: usize, up: bool) {
        if list == "foreign" {
            ix.foreign.shift(at, up);
        }
    }
}

/// What happened at one position of a list, for [`Index::changed`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum At<'a, T> {
    /// An object was inserted here (the list holds it now).
    Added(usize),
    /// The object here replaced this one.
    Replaced(usize, &'a T),
    /// This object was removed from here.
    Deleted(usize, &'a T),
}

impl Index {
    /// Builds every index in one pass per list.
    pub(crate) fn build(s: &Snapshot) -> Self {
        let mut ix = Self::default();
        macro_rules! each {
            ($($field:ident),*) => { $(
                for (i, o) in s.$field.iter().enumerate() {
                    o.entries(&mut ix, stringify!($field), i, true);
                }
            )* };
        }
        super::object_lists!(each);
        ix.resolve_hierarchy(s);
        ix
    }

    /// Walks the CompositePodGroups' hierarchy again (after a PodGroup or CompositePodGroup
    /// changed; linear in the CompositePodGroups).
    pub(crate) fn resolve_hierarchy(&mut self, s: &Snapshot) {
        let by_name = &self.composite_pod_groups;
        self.hierarchy = super::hierarchy::resolve_snapshot(s, |ns, n| by_name.get(ns, n));
    }

    /// Updates the maps of `list` (the snapshot's field `name`, as it is after the change)
    /// for one change `at`. The hierarchy is left to [`Index::resolve_hierarchy`].
    pub(crate) fn changed<T: Indexed>(&mut self, name: &str, list: &[T], at: At<'_, T>) {
        match at {
            At::Added(i) => {
                T::shift(self, name, i, true);
                if let Some(o) = list.get(i) {
                    o.entries(self, name, i, true);
                }
            }
            At::Replaced(i, old) => {
                old.entries(self, name, i, false);
                if let Some(o) = list.get(i) {
                    o.entries(self, name, i, true);
                }
            }
            At::Deleted(i, old) => {
                old.entries(self, name, i, false);
                T::shift(self, name, i, false);
            }
        }
    }
}
