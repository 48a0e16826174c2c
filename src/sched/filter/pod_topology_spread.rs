//! PodTopologySpread (being completed: hard-constraint filter and soft-constraint score).
//! Upstream: `pkg/scheduler/framework/plugins/podtopologyspread/{filtering,scoring,common}.go`.

use super::Rejection;
use crate::sched::node_state::{ClusterState, NodeId};
use crate::sched::pod_req::PodReq;

/// Plugin name.
pub const NAME: &str = "PodTopologySpread";
/// Reason text.
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// Reason text when a node lacks a constraint's topology key.
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// PreFilter state: matching-pod counts per topology domain, per hard constraint.
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

/// PreScore state for soft constraints.
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
