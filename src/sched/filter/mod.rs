//! Filter plugins of the default profile, in upstream order, with upstream reason strings.
//!
//! Upstream: `pkg/scheduler/framework/plugins/*` (v1.37) and `framework/runtime` (a node's
//! filters run in profile order and stop at the first rejection). Each plugin module holds its
//! reason strings as `const`s so tests assert the exact text.

pub(crate) mod inter_pod_affinity;
pub(crate) mod node_affinity;
pub(crate) mod node_name;
pub(crate) mod node_ports;
pub(crate) mod node_resources_fit;
pub(crate) mod node_unschedulable;
pub(crate) mod pod_topology_spread;
pub(crate) mod taint_toleration;

use super::node_state::{ClusterState, NodeId};
use super::pod_req::PodReq;
use super::status::Rejection;

/// Per-pod precomputation (upstream PreFilter) for the plugins that need it.
#[derive(Debug, Default)]
pub(crate) struct PreFilterState {
    /// PodTopologySpread.
    pub spread: pod_topology_spread::PreFilterState,
    /// InterPodAffinity.
    pub affinity: inter_pod_affinity::PreFilterState,
}

/// Runs the PreFilter step for `pod`.
pub(crate) fn pre_filter(state: &ClusterState, pod: &PodReq) -> PreFilterState {
    PreFilterState {
        spread: pod_topology_spread::pre_filter(state, pod),
        affinity: inter_pod_affinity::pre_filter(state, pod),
    }
}

/// Runs every filter of the pod's profile on `node` in profile order; the first rejection
/// wins. A plugin the profile disables is skipped (upstream: not in the profile's Filter
/// list).
///
/// DynamicResources runs last (the default profile inserts it before DefaultPreemption).
#[inline]
pub(crate) fn run_filters(
    state: &ClusterState,
    pod_id: usize,
    pre: &PreFilterState,
    node: NodeId,
) -> Option<Rejection> {
    let pod = &state.pods[pod_id];
    let n = &state.nodes[node];
    let profile = state.profiles.get(pod.profile);
    let on = &profile.plugins;
    let ignored = state.fit_ignored(pod.profile);
    None.or_else(|| {
        on.node_unschedulable
            .then(|| node_unschedulable::filter(pod, n))
            .flatten()
    })
    .or_else(|| on.node_name.then(|| node_name::filter(pod, n)).flatten())
    .or_else(|| {
        on.taint_toleration
            .then(|| taint_toleration::filter(pod, n))
            .flatten()
    })
    .or_else(|| {
        on.node_affinity
            .then(|| node_affinity::filter_with(pod, n, profile.added_affinity.as_ref()))
            .flatten()
    })
    .or_else(|| on.node_ports.then(|| node_ports::filter(pod, n)).flatten())
    .or_else(|| {
        on.node_resources_fit
            .then(|| node_resources_fit::filter_ignoring(pod, n, ignored))
            .flatten()
    })
    .or_else(|| {
        on.pod_topology_spread
            .then(|| pod_topology_spread::filter(state, pod, &pre.spread, node))
            .flatten()
    })
    .or_else(|| {
        on.inter_pod_affinity
            .then(|| inter_pod_affinity::filter(state, pod, &pre.affinity, node))
            .flatten()
    })
    .or_else(|| {
        if pod.has_claims && on.dynamic_resources {
            state.dra.filter(pod_id, n)
        } else {
            None
        }
    })
}
