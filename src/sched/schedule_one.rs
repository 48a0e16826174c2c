//! The single-pod algorithm (upstream `pkg/scheduler/schedule_one.go`: `schedulePod`,
//! `findNodesThatFitPod`, `prioritizeNodes`, `selectHost`): PreFilter, Filter over the
//! candidate nodes, Score, select the best node.
//!
//! Modes: `exhaustive` filters and scores every node (the answer explain needs); `compat`
//! follows upstream's `percentageOfNodesToScore` sampling with a rotating start index. Ties
//! between equally scored nodes go to the node whose name sorts first; upstream picks one at
//! random (reservoir sampling), so reports say "ties broken by node name".

use std::collections::BTreeMap;

use super::filter::{PreFilterState, pre_filter, run_filters};
use super::node_state::{ClusterState, NodeId, PodId};
use super::score::score_nodes;
use super::status::{Code, Reason, Rejection};

/// How many nodes to filter per pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// Filter and score every node.
    #[default]
    Exhaustive,
    /// Upstream's adaptive `percentageOfNodesToScore` sampling.
    Compat,
}

/// State carried between pods in compat mode (upstream `nextStartNodeIndex`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sampler {
    next_start: usize,
}

/// Upstream `numFeasibleNodesToFind` with the default `percentageOfNodesToScore` (adaptive).
#[cfg(test)]
pub(crate) fn num_feasible_nodes_to_find(all: usize) -> usize {
    num_feasible_nodes_to_find_at(all, None)
}

/// Upstream `numFeasibleNodesToFind` (`schedule_one.go`): at least 100 nodes; the profile's
/// `percentageOfNodesToScore`, else the configuration's (`percentage`), else (unset or 0) the
/// adaptive `50 − nodes/125`, at least 5 %.
pub(crate) fn num_feasible_nodes_to_find_at(all: usize, percentage: Option<i32>) -> usize {
    const MIN_FEASIBLE: usize = 100;
    if all < MIN_FEASIBLE {
        return all;
    }
    let pct = match percentage.filter(|p| *p != 0) {
        Some(p) => usize::try_from(p).unwrap_or(0),
        None => 50usize.saturating_sub(all / 125).max(5),
    };
    (all.saturating_mul(pct) / 100).max(MIN_FEASIBLE)
}

/// Why a pod found no node: node counts per reason, over the nodes evaluated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Diagnosis {
    /// Reason → number of nodes rejected for it.
    pub reasons: BTreeMap<Reason, u32>,
    /// Nodes the pod was evaluated against.
    pub evaluated: u32,
    /// Nodes that passed every filter.
    pub feasible: u32,
    /// Nodes rejected as UnschedulableAndUnresolvable (preemption cannot help there).
    pub unresolvable: u32,
    /// DynamicResources: claim → why → node count.
    pub claim_reasons: BTreeMap<String, BTreeMap<String, u32>>,
    /// A filter's error (upstream `fwk.Error`, e.g. a CEL runtime error in a device
    /// selector): the attempt stopped at the first node that returned it, and the pod's
    /// outcome is this error, as `RunFilterPlugins` wraps it.
    pub error: Option<String>,
}

/// The result of one pod's attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodAttempt {
    /// The chosen node.
    pub node: Option<NodeId>,
    /// Filter outcome counts.
    pub diagnosis: Diagnosis,
    /// Whether the best score was shared by several nodes, so that the node was chosen by
    /// name (upstream picks one of them at random): the `ties` note's condition.
    pub tied: bool,
}

/// A preference applied before scores: workload-aware preemption's victim-aware node choice
/// (`preempt::VictimAware`) narrows the feasible nodes to those whose placement costs the
/// least, and learns which node each pod took.
pub(crate) trait NodePreference {
    /// Keeps in `feasible` (sorted, at least two nodes) only the preferred nodes for `pod`.
    fn narrow(&mut self, state: &mut ClusterState, pod: PodId, feasible: &mut Vec<NodeId>);
    /// `pod` takes `node` (called before the caller assumes it).
    fn chosen(&mut self, state: &mut ClusterState, pod: PodId, node: NodeId);
}

/// Schedules `pod` onto one of `candidates` (the placement's nodes, sorted by name).
pub(crate) fn schedule_pod(
    state: &mut ClusterState,
    pod: PodId,
    candidates: &[NodeId],
    mode: Mode,
    sampler: &mut Sampler,
) -> PodAttempt {
    schedule_pod_preferring(state, pod, candidates, mode, sampler, None)
}

/// [`schedule_pod`] with a [`NodePreference`] applied to the feasible nodes before scoring.
pub(crate) fn schedule_pod_preferring(
    state: &mut ClusterState,
    pod: PodId,
    candidates: &[NodeId],
    mode: Mode,
    sampler: &mut Sampler,
    mut prefer: Option<&mut (dyn NodePreference + '_)>,
) -> PodAttempt {
    let pre = pre_filter(state, &state.pods[pod]);
    let nominated = nominated_pods_for(state, pod);
    if let Some(own) = nominated_node_fit(state, pod, candidates, &pre, &nominated) {
        if let Some(p) = prefer {
            p.chosen(state, pod, own);
        }
        return PodAttempt {
            node: Some(own),
            diagnosis: Diagnosis {
                evaluated: 1,
                feasible: 1,
                ..Diagnosis::default()
            },
            tied: false,
        };
    }
    let mut diagnosis = Diagnosis::default();
    let n = candidates.len();
    let (start, want) = match mode {
        Mode::Exhaustive => (0, n),
        Mode::Compat => (
            if n == 0 { 0 } else { sampler.next_start % n },
            num_feasible_nodes_to_find_at(
                n,
                state
                    .profiles
                    .get(state.pods[pod].profile)
                    .percentage_of_nodes_to_score,
            ),
        ),
    };
    // Sized up front: growing it node by node costs more than the filters on small candidate
    // sets (one topology domain) and copies it a dozen times on 5,000 nodes.
    let mut feasible = Vec::with_capacity(want.min(n));
    let mut processed = 0;
    for i in 0..n {
        if feasible.len() >= want {
            break;
        }
        let node = candidates[(start + i) % n];
        processed += 1;
        let rejection = if nominated.is_empty() {
            run_filters(state, pod, &pre, node)
        } else {
            filter_node(state, pod, &pre, node, &nominated)
        };
        match rejection {
            None => feasible.push(node),
            Some(r) => {
                if !diagnosis.record(r, state) {
                    break;
                }
            }
        }
    }
    if mode == Mode::Compat && n > 0 {
        sampler.next_start = (start + processed) % n;
    }
    diagnosis.evaluated = u32::try_from(processed).unwrap_or(u32::MAX);
    if diagnosis.error.is_some() {
        return PodAttempt {
            node: None,
            diagnosis,
            tied: false,
        };
    }
    diagnosis.feasible = u32::try_from(feasible.len()).unwrap_or(u32::MAX);
    if feasible.len() > 1
        && let Some(p) = prefer.as_deref_mut()
    {
        feasible.sort_unstable();
        p.narrow(state, pod, &mut feasible);
    }
    let (node, tied) = select_host(state, pod, &mut feasible);
    if let (Some(p), Some(n)) = (prefer, node) {
        p.chosen(state, pod, n);
    }
    PodAttempt {
        node,
        diagnosis,
        tied,
    }
}

/// Upstream `evaluateNominatedNode` (algorithm.go, 1.37; no feature gate): a pod with
/// `status.nominatedNodeName` tries that node first and, if it passes every filter, takes it
/// without scanning or scoring other nodes (and without advancing the sampling start). A
/// nominated node outside the candidates (another placement) counts as not feasible.
#[inline]
fn nominated_node_fit(
    state: &mut ClusterState,
    pod: PodId,
    candidates: &[NodeId],
    pre: &PreFilterState,
    nominated: &[(NodeId, PodId)],
) -> Option<NodeId> {
    let own = state.pods[pod]
        .nominated_node
        .as_deref()
        .and_then(|n| state.node_ids.get(n))
        .copied()
        .filter(|n| candidates.binary_search(n).is_ok())?;
    filter_node(state, pod, pre, own, nominated)
        .is_none()
        .then_some(own)
}

impl Diagnosis {
    /// Counts one node's rejection: its reasons, its claim's reason, whether it is
    /// unresolvable. A filter's error instead becomes the diagnosis's error and the answer is
    /// `false`: upstream findNodesThatPassFilters cancels the search on an error status and
    /// schedulePod returns the error (no FitError, no PostFilter).
    #[inline]
    fn record(&mut self, r: Rejection, state: &ClusterState) -> bool {
        if r.code == Code::Error {
            let why = r.detail.as_ref().map_or_else(
                || {
                    r.reasons
                        .iter()
                        .map(|x| x.text(&state.table).into_owned())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                |(claim, why)| {
                    if claim.is_empty() {
                        why.clone()
                    } else {
                        format!("claim {claim}: {why}")
                    }
                },
            );
            self.error = Some(format!("running {:?} filter plugin: {why}", r.plugin));
            return false;
        }
        if let Some((claim, why)) = r.detail {
            *self
                .claim_reasons
                .entry(claim)
                .or_default()
                .entry(why)
                .or_default() += 1;
        }
        if r.code == Code::UnschedulableAndUnresolvable {
            self.unresolvable += 1;
        }
        for reason in r.reasons {
            *self.reasons.entry(reason).or_default() += 1;
        }
        true
    }
}

/// Upstream `selectHost` over the feasible nodes: the only one, or the best scored, ties to
/// the node whose name sorts first. Compat mode visits nodes from a rotating start, so the
/// nodes are sorted before scoring. Also says whether the best score was a tie (the node
/// then chosen by name, where upstream's reservoir sampling picks one at random).
#[inline]
fn select_host(
    state: &ClusterState,
    pod: PodId,
    feasible: &mut [NodeId],
) -> (Option<NodeId>, bool) {
    match feasible.len() {
        0 => (None, false),
        1 => (Some(feasible[0]), false),
        _ => {
            feasible.sort_unstable();
            let scores = score_nodes(state, &state.pods[pod], feasible);
            let best = scores.iter().copied().max().unwrap_or(0);
            let tied = scores.iter().filter(|s| **s == best).count() > 1;
            let node = feasible
                .iter()
                .zip(&scores)
                .find(|(_, s)| **s == best)
                .map(|(n, _)| *n);
            (node, tied)
        }
    }
}

/// Upstream `addGENominatedPods`' choice: pending pods nominated to a node (an earlier
/// preemption's `status.nominatedNodeName`) whose priority is at least `pod`'s, other than
/// `pod` itself, as (node, pod) sorted by node. They hold their room on that node against
/// `pod`. Only pods kube-scheduler's queue holds count: default scheduler, not gated, not
/// being deleted, not yet placed in this simulation.
pub(crate) fn nominated_pods_for(state: &ClusterState, pod: PodId) -> Vec<(NodeId, PodId)> {
    if state.nominated.is_empty() {
        return Vec::new();
    }
    let priority = state.pods[pod].priority;
    let mut out: Vec<(NodeId, PodId)> = state
        .nominated
        .iter()
        .copied()
        .filter(|q| *q != pod && state.placement[*q].is_none())
        .filter_map(|q| {
            let other = &state.pods[q];
            let eligible = !other.terminating
                && !other.gated
                && other.priority >= priority
                && other.scheduler_name == "default-scheduler";
            let node = other.nominated_node.as_deref()?;
            eligible
                .then(|| state.node_ids.get(node).map(|n| (*n, q)))
                .flatten()
        })
        .collect();
    out.sort_unstable();
    out
}

/// Upstream `RunFilterPluginsWithNominatedPods`: when pods are nominated to `node` (see
/// [`nominated_pods_for`]), the filters run first with them added (PreFilter state
/// recomputed, as upstream's AddPod extensions update it) and, only if that passes, again
/// without them; both must pass. Otherwise the filters run once.
pub(crate) fn filter_node(
    state: &mut ClusterState,
    pod: PodId,
    pre: &PreFilterState,
    node: NodeId,
    nominated: &[(NodeId, PodId)],
) -> Option<super::status::Rejection> {
    if nominated.is_empty() {
        return run_filters(state, pod, pre, node);
    }
    let start = nominated.partition_point(|(n, _)| *n < node);
    let here: Vec<PodId> = nominated[start..]
        .iter()
        .take_while(|(n, _)| *n == node)
        .map(|(_, q)| *q)
        .collect();
    if here.is_empty() {
        return run_filters(state, pod, pre, node);
    }
    for q in &here {
        state.assume_nominated(*q, node);
    }
    let with = pre_filter(state, &state.pods[pod]);
    let r = run_filters(state, pod, &with, node);
    for q in here.iter().rev() {
        state.forget(*q);
    }
    r.or_else(|| run_filters(state, pod, pre, node))
}

/// Upstream `FitError.Error()`: `"0/N nodes are available: <count> <reason>, …."` with entries
/// sorted as strings.
pub(crate) fn fit_error(
    all_nodes: usize,
    diagnosis: &Diagnosis,
    table: &super::resources::ResourceTable,
) -> String {
    let mut entries: Vec<String> = diagnosis
        .reasons
        .iter()
        .map(|(r, n)| format!("{n} {}", r.text(table)))
        .collect();
    entries.sort();
    if entries.is_empty() {
        format!("0/{all_nodes} nodes are available.")
    } else {
        format!("0/{all_nodes} nodes are available: {}.", entries.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_matches_upstream_formula() {
        assert_eq!(num_feasible_nodes_to_find(50), 50);
        assert_eq!(num_feasible_nodes_to_find(100), 100);
        assert_eq!(num_feasible_nodes_to_find(1000), 420); // 50 - 8 = 42 %
        assert_eq!(num_feasible_nodes_to_find(5000), 500); // 50 - 40 = 10 %
        assert_eq!(num_feasible_nodes_to_find(15000), 750); // floor at 5 %
        // A configured percentage (schedule_one_test.go TestNumFeasibleNodesToFind).
        assert_eq!(
            num_feasible_nodes_to_find_at(10, Some(40)),
            10,
            "not set, less than 100 nodes"
        );
        assert_eq!(num_feasible_nodes_to_find_at(1000, Some(40)), 400);
        assert_eq!(
            num_feasible_nodes_to_find_at(1000, Some(0)),
            420,
            "0 is adaptive"
        );
        assert_eq!(
            num_feasible_nodes_to_find_at(1000, Some(5)),
            100,
            "at least 100 nodes"
        );
        assert_eq!(num_feasible_nodes_to_find_at(1000, Some(100)), 1000);
    }

    #[test]
    fn fit_error_sorts_entries_as_strings() {
        let mut d = Diagnosis::default();
        d.reasons
            .insert(Reason::Static("node(s) had untolerated taint(s)"), 2);
        d.reasons.insert(Reason::Insufficient(0), 1);
        let table = super::super::resources::ResourceTable::default();
        assert_eq!(
            fit_error(3, &d, &table),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s)."
        );
    }
}
