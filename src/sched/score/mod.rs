//! Score plugins of the pod's profile with its weights (default profile: the defaults below),
//! normalized to 0–100 and summed (upstream `framework/runtime` RunScorePlugins +
//! NormalizeScore). NodeResourcesFit's scoring strategies: [`strategy`].
//!
//! Weights (semantics §8.1): TaintToleration 3, NodeAffinity 2, NodeResourcesFit
//! (LeastAllocated) 1, NodeResourcesBalancedAllocation 1, PodTopologySpread 2,
//! InterPodAffinity 2. ImageLocality (weight 1) is left out: snapshots carry no image lists that
//! would make it meaningful, and it only breaks ties between otherwise equal nodes.

use super::filter::{
    inter_pod_affinity, node_affinity, node_resources_fit, pod_topology_spread, taint_toleration,
};
use super::node_state::{ClusterState, NodeId};
use super::pod_req::PodReq;

pub(crate) mod strategy;

pub(crate) use super::status::MAX_NODE_SCORE;

/// Upstream `helper.DefaultNormalizeScore`: scale to 0–100 by the maximum; `reverse` flips.
pub(crate) fn default_normalize(scores: &mut [i64], reverse: bool) {
    let max = scores.iter().copied().max().unwrap_or(0);
    if max == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = MAX_NODE_SCORE);
        }
        return;
    }
    for s in scores.iter_mut() {
        let v = MAX_NODE_SCORE * *s / max;
        *s = if reverse { MAX_NODE_SCORE - v } else { v };
    }
}

/// Weighted total score per feasible node (same order as `feasible`), with the score plugins,
/// weights and NodeResourcesFit strategy of the pod's profile. One scratch vector is reused
/// across plugins (this runs once per pod over up to every node).
pub(crate) fn score_nodes(state: &ClusterState, pod: &PodReq, feasible: &[NodeId]) -> Vec<i64> {
    let profile = state.profiles.get(pod.profile);
    let w = &profile.plugins.weights;
    let nodes = || feasible.iter().map(|n| &state.nodes[*n]);
    // NodeResourcesFit and BalancedAllocation need no normalisation. The default strategy and
    // resources keep the direct cpu/memory functions (the hot path); any other goes through
    // the configured scorers.
    let default_fit = profile.fit.is_default();
    let default_balanced = profile.balanced_resources == strategy::default_resources();
    let mut fit = (!default_fit && w.node_resources_fit > 0)
        .then(|| strategy::FitScorer::new(&profile.fit, &state.table));
    // A strategy none of whose resources the pod requests scores 0 everywhere.
    let fit_zero = fit.as_ref().is_some_and(|f| f.bypasses(pod));
    let mut balanced = (!default_balanced && w.balanced_allocation > 0)
        .then(|| strategy::BalancedScorer::new(&profile.balanced_resources, &state.table));
    let mut total: Vec<i64> = nodes()
        .map(|n| {
            let f = if w.node_resources_fit == 0 || fit_zero {
                0
            } else if let Some(fit) = fit.as_mut() {
                fit.score(pod, n)
            } else {
                node_resources_fit::least_allocated(pod, n)
            };
            let b = if w.balanced_allocation == 0 {
                0
            } else if let Some(b) = balanced.as_mut() {
                b.score(pod, n)
            } else {
                node_resources_fit::balanced_allocation(pod, n)
            };
            f * w.node_resources_fit + b * w.balanced_allocation
        })
        .collect();
    let mut scratch: Vec<i64> = Vec::with_capacity(feasible.len());
    let mut add = |scratch: &mut Vec<i64>, weight: i64| {
        for (t, s) in total.iter_mut().zip(scratch.iter()) {
            *t += s * weight;
        }
        scratch.clear();
    };

    if w.taint_toleration > 0 {
        scratch.extend(nodes().map(|n| taint_toleration::score(pod, n)));
        default_normalize(&mut scratch, true);
        add(&mut scratch, w.taint_toleration);
    }

    let added = profile.added_affinity.as_ref();
    let added_preferred = added.is_some_and(|a| !a.preferred.is_empty());
    if w.node_affinity > 0 && (!pod.preferred_terms.is_empty() || added_preferred) {
        scratch.extend(nodes().map(|n| node_affinity::score_with(pod, n, added)));
        default_normalize(&mut scratch, false);
        add(&mut scratch, w.node_affinity);
    }

    // PodTopologySpread and InterPodAffinity contribute exactly 0 to every node when their
    // PreScore state is empty (the common case): skip their per-node loops.
    if w.pod_topology_spread > 0 {
        let spread_state = pod_topology_spread::pre_score(state, pod, feasible);
        if !spread_state.is_empty() {
            scratch.extend(
                feasible
                    .iter()
                    .map(|n| pod_topology_spread::score(state, pod, &spread_state, *n)),
            );
            pod_topology_spread::normalize(&spread_state, &mut scratch);
            add(&mut scratch, w.pod_topology_spread);
        }
    }

    if w.inter_pod_affinity == 0 {
        return total;
    }
    let affinity_state = inter_pod_affinity::pre_score(state, pod, feasible);
    if affinity_state.is_empty() {
        return total;
    }
    scratch.extend(
        feasible
            .iter()
            .map(|n| inter_pod_affinity::score(state, pod, &affinity_state, *n)),
    );
    inter_pod_affinity::normalize(&affinity_state, &mut scratch);
    add(&mut scratch, w.inter_pod_affinity);
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_matches_upstream_helper() {
        let mut s = vec![0, 1, 2];
        default_normalize(&mut s, true);
        assert_eq!(s, vec![100, 50, 0]);
        let mut s = vec![0, 0];
        default_normalize(&mut s, true);
        assert_eq!(s, vec![100, 100]);
        let mut s = vec![2, 4];
        default_normalize(&mut s, false);
        assert_eq!(s, vec![50, 100]);
    }
}
