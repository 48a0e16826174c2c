//! One node as the scheduler's cache sees it ([`NodeState`]: upstream `framework.NodeInfo`),
//! and the pod and node indexes every part of the simulator passes around.
//!
//! A leaf below [`super::node_state`] (the cluster of nodes) and [`super::dra`] (whose filter
//! reads one node): both use it, neither through the other.

use std::sync::Arc;

use super::resources::ResourceId;
use super::selector::{Labels, NodeTaint};

/// Index of a pod in [`ClusterState::pods`](super::node_state::ClusterState::pods).
pub(crate) type PodId = usize;
/// Index of a node in [`ClusterState::nodes`](super::node_state::ClusterState::nodes) (nodes are sorted by name).
pub(crate) type NodeId = usize;

/// Resources kept inline in [`Amounts`]: cpu, memory, ephemeral-storage, pods and the first
/// extended resources a snapshot names.
pub(crate) const INLINE: usize = 8;

/// Per-resource amounts indexed by [`ResourceId`]. The first [`INLINE`] live inside the node
/// record, so NodeResourcesFit on a node touches one record instead of two heap vectors (the
/// filter runs nodes × pods times; at 5,000 nodes the cache misses dominated).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Amounts {
    inline: [i64; INLINE],
    rest: Vec<i64>,
    len: usize,
}

impl Amounts {
    /// The amount of resource index `i`, if within length.
    pub(crate) fn get(&self, i: usize) -> Option<&i64> {
        if i >= self.len {
            None
        } else if i < INLINE {
            self.inline.get(i)
        } else {
            self.rest.get(i - INLINE)
        }
    }

    /// Number of resource slots.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Sets every slot to 0 (length unchanged).
    pub(crate) fn clear_values(&mut self) {
        self.inline = [0; INLINE];
        self.rest.iter_mut().for_each(|v| *v = 0);
    }

    /// Grows or shrinks to `n` slots; new slots hold `value`.
    pub(crate) fn resize(&mut self, n: usize, value: i64) {
        for slot in self.inline.iter_mut().take(n.min(INLINE)).skip(self.len) {
            *slot = value;
        }
        for slot in self.inline.iter_mut().skip(n.min(INLINE)) {
            *slot = 0;
        }
        self.rest.resize(n.saturating_sub(INLINE), value);
        self.len = n;
    }
}

impl From<Vec<i64>> for Amounts {
    fn from(v: Vec<i64>) -> Self {
        let mut a = Self::default();
        a.resize(v.len(), 0);
        for (i, x) in v.into_iter().enumerate() {
            a[i] = x;
        }
        a
    }
}

impl std::ops::Index<usize> for Amounts {
    type Output = i64;
    fn index(&self, i: usize) -> &i64 {
        assert!(i < self.len, "resource index {i} out of range {}", self.len);
        if i < INLINE {
            &self.inline[i]
        } else {
            &self.rest[i - INLINE]
        }
    }
}

impl std::ops::IndexMut<usize> for Amounts {
    fn index_mut(&mut self, i: usize) -> &mut i64 {
        assert!(i < self.len, "resource index {i} out of range {}", self.len);
        if i < INLINE {
            &mut self.inline[i]
        } else {
            &mut self.rest[i - INLINE]
        }
    }
}

/// One node as the scheduler's cache sees it.
#[derive(Debug, Clone, Default)]
pub struct NodeState {
    /// Name (shared: traces and placements copy it by reference count).
    pub name: Arc<str>,
    /// Labels.
    pub labels: Labels,
    /// `spec.unschedulable` (cordoned).
    pub unschedulable: bool,
    /// Taints.
    pub taints: Vec<NodeTaint>,
    /// Allocatable per resource id.
    pub allocatable: Amounts,
    /// Requested per resource id (pods bound or assumed here; pods count included).
    pub requested: Amounts,
    /// Sum of scoring CPU (non-zero defaults).
    pub score_cpu: i64,
    /// Sum of scoring memory (non-zero defaults).
    pub score_memory: i64,
    /// Pods bound or assumed here.
    pub pods: Vec<PodId>,
    /// Host ports in use: (protocol, port, hostIP).
    pub used_ports: Vec<(String, i32, String)>,
    /// Pods here with any pod (anti-)affinity term (upstream `NodeInfo.PodsWithAffinity`).
    pub affinity_pods: Vec<PodId>,
    /// Pods here with required anti-affinity terms (`PodsWithRequiredAntiAffinity`).
    pub required_anti_pods: Vec<PodId>,
}

impl NodeState {
    /// Free amount of resource `id`.
    pub(crate) fn free(&self, id: ResourceId) -> i64 {
        let i = usize::from(id);
        self.allocatable
            .get(i)
            .copied()
            .unwrap_or(0)
            .saturating_sub(self.requested.get(i).copied().unwrap_or(0))
    }

    /// Allocatable amount of resource `id`.
    pub(crate) fn allocatable(&self, id: ResourceId) -> i64 {
        self.allocatable.get(usize::from(id)).copied().unwrap_or(0)
    }
}
