//! Lookups over a [`Snapshot`], built once after loading.
//!
//! Every map holds positions into the snapshot's sorted lists, so lookups never clone
//! objects. Cost is linear in the number of objects; nothing here grows with pods².

use std::collections::HashMap;

use super::{Snapshot, name_of, namespace_of};

/// `(namespace, name)` → position. Cluster-scoped objects use the empty namespace.
#[derive(Debug, Clone, Default)]
pub struct NameIndex(HashMap<String, HashMap<String, usize>>);

impl NameIndex {
    fn insert(&mut self, namespace: &str, name: &str, position: usize) {
        self.0
            .entry(namespace.to_owned())
            .or_default()
            .insert(name.to_owned(), position);
    }

    /// Position of `namespace/name`.
    pub(crate) fn get(&self, namespace: &str, name: &str) -> Option<usize> {
        self.0.get(namespace).and_then(|m| m.get(name)).copied()
    }
}

/// `(namespace, key)` → positions, e.g. pods by the PodGroup they name.
#[derive(Debug, Clone, Default)]
pub struct MultiIndex(HashMap<String, HashMap<String, Vec<usize>>>);

impl MultiIndex {
    fn push(&mut self, namespace: &str, key: &str, position: usize) {
        self.0
            .entry(namespace.to_owned())
            .or_default()
            .entry(key.to_owned())
            .or_default()
            .push(position);
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
#[derive(Debug, Clone, Default)]
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
    /// The CompositePodGroups' hierarchy (depth, root, cycles), by position in
    /// `composite_pod_groups`: the one walk [`super::hierarchy::walk_up`] reads.
    pub hierarchy: super::hierarchy::Resolution<usize>,
}

impl Index {
    /// Builds every index in one pass per list.
    pub(crate) fn build(s: &Snapshot) -> Self {
        let mut ix = Self::default();
        for (i, o) in s.nodes.iter().enumerate() {
            ix.nodes.insert("", name_of(&o.metadata), i);
        }
        for (i, o) in s.pods.iter().enumerate() {
            let ns = namespace_of(&o.metadata);
            ix.pods.insert(ns, name_of(&o.metadata), i);
            let spec = o.spec.as_ref();
            if let Some(node) = spec.and_then(|s| s.node_name.as_deref()) {
                ix.pods_by_node.entry(node.to_owned()).or_default().push(i);
            }
            if let Some(group) = spec
                .and_then(|s| s.scheduling_group.as_ref())
                .and_then(|g| g.pod_group_name.as_deref())
            {
                ix.pods_by_group.push(ns, group, i);
            }
        }
        for (i, o) in s.pod_groups.iter().enumerate() {
            let ns = namespace_of(&o.metadata);
            ix.pod_groups.insert(ns, name_of(&o.metadata), i);
            let spec = Some(&o.spec);
            if let Some(parent) = spec.and_then(|s| s.parent_composite_pod_group_name.as_deref()) {
                ix.pod_groups_by_parent.push(ns, parent, i);
            }
            if let Some(w) = spec.and_then(|s| s.workload_ref.as_ref()) {
                ix.pod_groups_by_workload.push(ns, &w.workload_name, i);
            }
        }
        for (i, o) in s.composite_pod_groups.iter().enumerate() {
            let ns = namespace_of(&o.metadata);
            ix.composite_pod_groups.insert(ns, name_of(&o.metadata), i);
            {
                let spec = &o.spec;
                if let Some(parent) = spec.parent_composite_pod_group_name.as_deref() {
                    ix.composite_pod_groups_by_parent.push(ns, parent, i);
                }
                ix.composite_pod_groups_by_workload
                    .push(ns, &spec.workload_ref.workload_name, i);
            }
        }
        for (i, o) in s.workloads.iter().enumerate() {
            ix.workloads
                .insert(namespace_of(&o.metadata), name_of(&o.metadata), i);
        }
        for (i, o) in s.resource_claims.iter().enumerate() {
            ix.resource_claims
                .insert(namespace_of(&o.metadata), name_of(&o.metadata), i);
            for owner in o.metadata.owner_references.iter().flatten() {
                if owner.controller == Some(true) {
                    ix.claims_by_owner_uid
                        .entry(owner.uid.clone())
                        .or_default()
                        .push(i);
                }
            }
        }
        for (i, o) in s.resource_claim_templates.iter().enumerate() {
            ix.resource_claim_templates
                .insert(namespace_of(&o.metadata), name_of(&o.metadata), i);
        }
        for (i, o) in s.jobs.iter().enumerate() {
            ix.jobs
                .insert(namespace_of(&o.metadata), name_of(&o.metadata), i);
        }
        for (i, o) in s.device_classes.iter().enumerate() {
            ix.device_classes.insert("", name_of(&o.metadata), i);
        }
        for (i, o) in s.priority_classes.iter().enumerate() {
            ix.priority_classes.insert("", name_of(&o.metadata), i);
        }
        for (i, o) in s.namespaces.iter().enumerate() {
            ix.namespaces.insert("", name_of(&o.metadata), i);
        }
        for (i, o) in s.foreign.iter().enumerate() {
            let key = format!("{}/{}", o.kind, name_of(&o.metadata));
            ix.foreign.insert(namespace_of(&o.metadata), &key, i);
        }
        for (i, o) in s.resource_slices.iter().enumerate() {
            if let Some(node) = o.spec.node_name.as_deref() {
                ix.slices_by_node
                    .entry(node.to_owned())
                    .or_default()
                    .push(i);
            }
        }
        let by_name = &ix.composite_pod_groups;
        ix.hierarchy = super::hierarchy::resolve_snapshot(s, |ns, n| by_name.get(ns, n));
        ix
    }
}
