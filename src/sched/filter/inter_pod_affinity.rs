//! InterPodAffinity (being completed: required (anti-)affinity filter and preferred score).
//! Upstream: `pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring,plugin}.go`.

use super::Rejection;
use crate::sched::node_state::{ClusterState, NodeId};
use crate::sched::pod_req::PodReq;

/// Plugin name.
pub const NAME: &str = "InterPodAffinity";
/// Reason text: the pod's required affinity is not met.
pub const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
/// Reason text: the pod's required anti-affinity is violated.
pub const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't match pod anti-affinity rules";
/// Reason text: an existing pod's anti-affinity forbids this pod.
pub const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

/// PreFilter state: counts per topology pair of pods matching the terms.
#[derive(Debug, Default)]
pub struct PreFilterState {}

/// PreFilter.
pub fn pre_filter(_state: &ClusterState, _pod: &PodReq) -> PreFilterState {
    PreFilterState {}
}

/// Filter.
pub fn filter(
    _state: &ClusterState,
    _pod: &PodReq,
    _pre: &PreFilterState,
    _node: NodeId,
) -> Option<Rejection> {
    None
}

/// PreScore state for preferred terms.
#[derive(Debug, Default)]
pub struct ScoreState {}

/// PreScore over the feasible nodes.
pub fn pre_score(_state: &ClusterState, _pod: &PodReq, _feasible: &[NodeId]) -> ScoreState {
    ScoreState {}
}

/// Raw score of one node.
pub fn score(_state: &ClusterState, _pod: &PodReq, _s: &ScoreState, _node: NodeId) -> i64 {
    0
}

/// Normalizes raw scores to 0–100 in place.
pub fn normalize(_s: &ScoreState, _scores: &mut [i64]) {}
