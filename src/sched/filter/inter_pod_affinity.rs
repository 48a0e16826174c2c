//! InterPodAffinity: required pod (anti-)affinity filter and preferred (anti-)affinity score.
//!
//! Upstream: `pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring,plugin}.go`
//! (v1.37). Facts followed here:
//! - A term matches a pod when the pod's namespace is in the term's namespaces, or the term's
//!   `namespaceSelector` matches the namespace's labels, and the label selector matches
//!   (`AffinityTerm.Matches`). The incoming pod's terms have their namespaceSelector resolved
//!   against existing Namespace objects (`mergeAffinityTermNamespacesIfNotEmpty`); existing
//!   pods' terms are matched against the incoming pod's namespace labels (empty when the
//!   namespace is unknown, `GetNamespaceLabelsSnapshot`).
//! - Terminating pods still count (unlike PodTopologySpread: upstream kept them, see
//!   kubernetes/kubernetes#87621 and the unmerged #112098).
//! - PreFilter (`filtering.go`): existing pods' required anti-affinity terms that match the
//!   incoming pod count per (key, value of the existing pod's node); existing pods matching ALL
//!   the incoming pod's required affinity terms count once per term's topology pair; existing
//!   pods matching each incoming required anti-affinity term count per pair. Skipped when there
//!   is nothing to check.
//! - Filter order and codes (`filtering.go` `Filter`): pod affinity
//!   (UnschedulableAndUnresolvable), then pod anti-affinity (Unschedulable), then existing pods'
//!   anti-affinity (Unschedulable). A node lacking an affinity term's key fails affinity; when
//!   no pod anywhere matches the affinity terms and the pod matches its own terms, it may go on
//!   any node that has all the keys (the first pod of a group).
//! - Score (`scoring.go`): per topology pair, + weight for the incoming pod's preferred affinity
//!   terms matched by existing pods, − weight for preferred anti-affinity; + 1
//!   (`hardPodAffinityWeight` default) for existing pods' required affinity terms matching the
//!   incoming pod, ± weight for existing pods' preferred (anti-)affinity terms matching it.
//!   Existing pods on nodes without labels are skipped. NormalizeScore is min-max to 0–100
//!   (`int64(100 · (s − min)/(max − min))`), all 0 when max = min.

use std::collections::{BTreeMap, HashMap};

use crate::sched::node_state::{ClusterState, NodeId, NodeState};
use crate::sched::pod_req::{AffinityTerm, PodReq};
use crate::sched::selector::Labels;
use crate::sched::status::MAX_NODE_SCORE;
use crate::sched::status::{Code, Rejection};

/// Plugin name.
pub(crate) const NAME: &str = "InterPodAffinity";
/// Reason text: the pod's required affinity is not met.
pub(crate) const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't match pod affinity rules";
/// Reason text: the pod's required anti-affinity is violated.
pub(crate) const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't match pod anti-affinity rules";
/// Reason text: an existing pod's anti-affinity forbids this pod.
pub(crate) const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

/// Labels of a namespace with no Namespace object.
static NO_LABELS: Labels = Labels::new();

/// Counts per topology key, then topology value (lookups by `&str`, no allocation).
type PairCounts = HashMap<String, HashMap<String, i64>>;

fn add_pair(m: &mut PairCounts, node: &NodeState, key: &str, delta: i64) {
    let Some(value) = node.labels.get(key) else {
        return;
    };
    let values = if let Some(v) = m.get_mut(key) {
        v
    } else {
        m.entry(key.to_owned()).or_default()
    };
    if let Some(c) = values.get_mut(value.as_str()) {
        *c += delta;
    } else {
        values.insert(value.clone(), delta);
    }
}

fn pair_count(m: &PairCounts, key: &str, value: &str) -> i64 {
    m.get(key).and_then(|v| v.get(value)).copied().unwrap_or(0)
}

/// `AffinityTerm.Matches`: namespace (names, or the selector against `ns_labels`), then labels.
/// `ns_labels` is `None` for a namespace without a Namespace object seen through the incoming
/// pod's merged terms: only an empty (match-all) selector selects it then.
fn term_matches(term: &AffinityTerm, pod: &PodReq, ns_labels: Option<&Labels>) -> bool {
    let scope = &term.namespaces;
    let ns_ok = scope.names.contains(&pod.namespace)
        || scope
            .selector
            .as_ref()
            .is_some_and(|s| s.requirements.is_empty() || ns_labels.is_some_and(|l| s.matches(l)));
    ns_ok && term.selector.matches(&pod.labels)
}

/// The incoming pod's terms, matched against another pod (`mergeAffinityTermNamespacesIfNotEmpty`).
fn incoming_term_matches(state: &ClusterState, term: &AffinityTerm, other: &PodReq) -> bool {
    term_matches(term, other, state.namespace_labels.get(&other.namespace))
}

/// `podMatchesAllAffinityTerms`: false for no terms.
fn matches_all(state: &ClusterState, terms: &[AffinityTerm], other: &PodReq) -> bool {
    !terms.is_empty() && terms.iter().all(|t| incoming_term_matches(state, t, other))
}

/// PreFilter state: counts per topology pair of pods matching the terms.
#[derive(Debug, Default)]
pub(crate) struct PreFilterState {
    /// Anything to check (upstream returns Skip otherwise).
    active: bool,
    /// Existing pods whose required anti-affinity matches the incoming pod.
    existing_anti: PairCounts,
    /// Existing pods matching all the incoming pod's required affinity terms.
    affinity: PairCounts,
    /// Existing pods matching the incoming pod's required anti-affinity terms.
    anti: PairCounts,
    /// The incoming pod matches all its own required affinity terms.
    self_matches_affinity: bool,
}

/// PreFilter.
pub(crate) fn pre_filter(state: &ClusterState, pod: &PodReq) -> PreFilterState {
    let mut s = PreFilterState::default();
    let own_ns_labels = state
        .namespace_labels
        .get(&pod.namespace)
        .unwrap_or(&NO_LABELS);
    let has_terms = !pod.affinity.is_empty() || !pod.anti_affinity.is_empty();
    // The common case: no term on the pod and no required anti-affinity anywhere.
    if !has_terms && state.required_anti_count == 0 {
        return s;
    }
    for node in &state.nodes {
        // Existing pods' required anti-affinity: only pods that have some (upstream keeps
        // `PodsWithRequiredAntiAffinity` per node for this).
        for id in &node.required_anti_pods {
            let existing = &state.pods[*id];
            for t in &existing.anti_affinity {
                if term_matches(t, pod, Some(own_ns_labels)) {
                    add_pair(&mut s.existing_anti, node, &t.topology_key, 1);
                }
            }
        }
        if !has_terms {
            continue;
        }
        for id in &node.pods {
            let existing = &state.pods[*id];
            if matches_all(state, &pod.affinity, existing) {
                for t in &pod.affinity {
                    add_pair(&mut s.affinity, node, &t.topology_key, 1);
                }
            }
            for t in &pod.anti_affinity {
                if incoming_term_matches(state, t, existing) {
                    add_pair(&mut s.anti, node, &t.topology_key, 1);
                }
            }
        }
    }
    s.self_matches_affinity = matches_all(state, &pod.affinity, pod);
    s.active = has_terms || !s.existing_anti.is_empty();
    s
}

/// `satisfyPodAffinity`.
fn satisfies_pod_affinity(pod: &PodReq, pre: &PreFilterState, node: &NodeState) -> bool {
    let mut pods_exist = true;
    for t in &pod.affinity {
        let Some(value) = node.labels.get(&t.topology_key) else {
            // All topology labels must exist on the node.
            return false;
        };
        if pair_count(&pre.affinity, &t.topology_key, value) <= 0 {
            pods_exist = false;
        }
    }
    // The first pod of a group with affinity to itself.
    pods_exist || (pre.affinity.is_empty() && pre.self_matches_affinity)
}

/// `satisfyPodAntiAffinity`.
fn satisfies_pod_anti_affinity(pod: &PodReq, pre: &PreFilterState, node: &NodeState) -> bool {
    pre.anti.is_empty()
        || !pod.anti_affinity.iter().any(|t| {
            node.labels
                .get(&t.topology_key)
                .is_some_and(|v| pair_count(&pre.anti, &t.topology_key, v) > 0)
        })
}

/// `satisfyExistingPodsAntiAffinity`.
fn satisfies_existing_anti_affinity(pre: &PreFilterState, node: &NodeState) -> bool {
    pre.existing_anti.is_empty()
        || !node
            .labels
            .iter()
            .any(|(k, v)| pair_count(&pre.existing_anti, k, v) > 0)
}

/// Filter.
#[inline]
pub(crate) fn filter(
    state: &ClusterState,
    pod: &PodReq,
    pre: &PreFilterState,
    node: NodeId,
) -> Option<Rejection> {
    if !pre.active {
        return None;
    }
    let n = &state.nodes[node];
    if !satisfies_pod_affinity(pod, pre, n) {
        return Some(Rejection::new(
            NAME,
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        ));
    }
    if !satisfies_pod_anti_affinity(pod, pre, n) {
        return Some(Rejection::new(
            NAME,
            Code::Unschedulable,
            ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        ));
    }
    if !satisfies_existing_anti_affinity(pre, n) {
        return Some(Rejection::new(
            NAME,
            Code::Unschedulable,
            ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
        ));
    }
    None
}

/// PreScore state for preferred terms: score per topology key, then value.
#[derive(Debug, Default)]
pub(crate) struct ScoreState {
    topology_score: BTreeMap<String, HashMap<String, i64>>,
}

impl ScoreState {
    /// No term scores anywhere: every node scores 0 and normalisation leaves it so.
    pub(crate) fn is_empty(&self) -> bool {
        self.topology_score.is_empty()
    }
}

/// `scoreMap.processTerm`.
fn process_term(
    m: &mut BTreeMap<String, HashMap<String, i64>>,
    term: &AffinityTerm,
    weight: i64,
    matched: bool,
    node: &NodeState,
) {
    if !matched {
        return;
    }
    let Some(value) = node.labels.get(&term.topology_key) else {
        return;
    };
    let values = if let Some(v) = m.get_mut(&term.topology_key) {
        v
    } else {
        m.entry(term.topology_key.clone()).or_default()
    };
    if let Some(c) = values.get_mut(value.as_str()) {
        *c += weight;
    } else {
        values.insert(value.clone(), weight);
    }
}

/// PreScore (`scoring.go`): every node's pods count, not only the feasible nodes'. The
/// profile's `InterPodAffinityArgs`: `hardPodAffinityWeight` weighs existing pods' required
/// affinity terms (0: not counted), and `ignorePreferredTermsOfExistingPods` skips scoring
/// for a pod without preferred terms of its own (`PreScore` returns Skip).
pub(crate) fn pre_score(state: &ClusterState, pod: &PodReq, _feasible: &[NodeId]) -> ScoreState {
    let has_constraints =
        !pod.preferred_affinity.is_empty() || !pod.preferred_anti_affinity.is_empty();
    if !has_constraints && state.affinity_count == 0 {
        return ScoreState::default();
    }
    let profile = state.profiles.get(pod.profile);
    if profile.ignore_preferred_terms_of_existing_pods && !has_constraints {
        return ScoreState::default();
    }
    let hard_weight = profile.hard_pod_affinity_weight;
    let own_ns_labels = state
        .namespace_labels
        .get(&pod.namespace)
        .unwrap_or(&NO_LABELS);
    let mut m = BTreeMap::new();
    for node in &state.nodes {
        if node.labels.is_empty() {
            continue;
        }
        // Without preferred terms of its own, only pods that have terms can score the pod.
        let candidates = if has_constraints {
            &node.pods
        } else {
            &node.affinity_pods
        };
        for id in candidates {
            let e = &state.pods[*id];
            let e_has_affinity = !e.affinity.is_empty()
                || !e.anti_affinity.is_empty()
                || !e.preferred_affinity.is_empty()
                || !e.preferred_anti_affinity.is_empty();
            if !has_constraints && !e_has_affinity {
                continue;
            }
            for t in &pod.preferred_affinity {
                let hit = incoming_term_matches(state, t, e);
                process_term(&mut m, t, i64::from(t.weight), hit, node);
            }
            for t in &pod.preferred_anti_affinity {
                let hit = incoming_term_matches(state, t, e);
                process_term(&mut m, t, -i64::from(t.weight), hit, node);
            }
            if hard_weight > 0 {
                for t in &e.affinity {
                    let hit = term_matches(t, pod, Some(own_ns_labels));
                    process_term(&mut m, t, hard_weight, hit, node);
                }
            }
            for t in &e.preferred_affinity {
                let hit = term_matches(t, pod, Some(own_ns_labels));
                process_term(&mut m, t, i64::from(t.weight), hit, node);
            }
            for t in &e.preferred_anti_affinity {
                let hit = term_matches(t, pod, Some(own_ns_labels));
                process_term(&mut m, t, -i64::from(t.weight), hit, node);
            }
        }
    }
    ScoreState { topology_score: m }
}

/// Raw score of one node: the sum of its topology pairs' scores.
pub(crate) fn score(state: &ClusterState, _pod: &PodReq, s: &ScoreState, node: NodeId) -> i64 {
    if s.topology_score.is_empty() {
        return 0;
    }
    let n = &state.nodes[node];
    s.topology_score
        .iter()
        .filter_map(|(key, values)| n.labels.get(key).and_then(|v| values.get(v)))
        .sum()
}

/// Normalizes raw scores to 0–100 in place (min-max; all 0 when there is no spread).
pub(crate) fn normalize(s: &ScoreState, scores: &mut [i64]) {
    if s.topology_score.is_empty() {
        return;
    }
    let min = scores.iter().copied().min().unwrap_or(0);
    let max = scores.iter().copied().max().unwrap_or(0);
    let diff = max - min;
    for v in scores.iter_mut() {
        let f = if diff > 0 {
            MAX_NODE_SCORE as f64 * ((*v - min) as f64 / diff as f64)
        } else {
            0.0
        };
        *v = f as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::node_state::PodId;
    use crate::sched::pod_req::NamespaceScope;
    use crate::sched::selector::LabelSelector;
    use crate::sched::status::Reason;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn node(name: &str, pairs: &[(&str, &str)]) -> NodeState {
        NodeState {
            name: name.into(),
            labels: labels(pairs),
            ..NodeState::default()
        }
    }

    /// n1, n2 in zone a; n3 in zone b; n4 without a zone. Each has a hostname label.
    fn cluster() -> ClusterState {
        let mut st = ClusterState {
            nodes: vec![
                node("n1", &[("zone", "a"), ("host", "n1")]),
                node("n2", &[("zone", "a"), ("host", "n2")]),
                node("n3", &[("zone", "b"), ("host", "n3")]),
                node("n4", &[("host", "n4")]),
            ],
            ..ClusterState::default()
        };
        st.reindex_nodes();
        st
    }

    fn pod(ns: &str, name: &str, app: &str) -> PodReq {
        PodReq {
            namespace: ns.to_owned(),
            name: name.into(),
            labels: crate::sched::selector::PodLabels::from_pairs([("app", app)]),
            ..PodReq::default()
        }
    }

    fn term(app: &str, key: &str, ns: &str, weight: i32) -> AffinityTerm {
        AffinityTerm {
            selector: LabelSelector::default().with_equal("app", app),
            namespaces: NamespaceScope {
                names: vec![ns.to_owned()],
                selector: None,
            },
            topology_key: key.to_owned(),
            weight,
        }
    }

    fn place(st: &mut ClusterState, p: PodReq, node: &str) -> PodId {
        let n = st.node_ids[node];
        let id = st.add_pod(p);
        st.assume(id, n);
        id
    }

    /// The outcome on every node, in order.
    fn outcomes(st: &ClusterState, p: &PodReq) -> Vec<Option<(Code, Reason)>> {
        let pre = pre_filter(st, p);
        (0..st.nodes.len())
            .map(|n| filter(st, p, &pre, n).map(|r| (r.code, r.reasons[0])))
            .collect()
    }

    const AFF: Option<(Code, Reason)> = Some((
        Code::UnschedulableAndUnresolvable,
        Reason::Static(ERR_REASON_AFFINITY_RULES_NOT_MATCH),
    ));
    const ANTI: Option<(Code, Reason)> = Some((
        Code::Unschedulable,
        Reason::Static(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH),
    ));
    const EXISTING: Option<(Code, Reason)> = Some((
        Code::Unschedulable,
        Reason::Static(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH),
    ));

    #[test]
    fn plain_pod_with_no_anti_affinity_around_is_not_checked() {
        let mut st = cluster();
        place(&mut st, pod("ml", "db", "db"), "n1");
        let p = pod("ml", "web", "web");
        let pre = pre_filter(&st, &p);
        assert!(!pre.active);
        assert_eq!(outcomes(&st, &p), vec![None; 4]);
    }

    #[test]
    fn existing_pod_anti_affinity_rejects_nodes_in_its_topology() {
        let mut st = cluster();
        let mut db = pod("ml", "db", "db");
        db.anti_affinity.push(term("web", "zone", "ml", 0));
        place(&mut st, db, "n1");
        let p = pod("ml", "web", "web");
        assert_eq!(outcomes(&st, &p), vec![EXISTING, EXISTING, None, None]);
        let other = pod("ml", "batch", "batch");
        assert_eq!(outcomes(&st, &other), vec![None; 4], "term does not match");
    }

    #[test]
    fn pod_anti_affinity_rejects_nodes_sharing_topology_with_matching_pods() {
        let mut st = cluster();
        place(&mut st, pod("ml", "db", "db"), "n1");
        let mut p = pod("ml", "web", "web");
        p.anti_affinity.push(term("db", "host", "ml", 0));
        assert_eq!(outcomes(&st, &p), vec![ANTI, None, None, None]);
        p.anti_affinity = vec![term("db", "zone", "ml", 0)];
        assert_eq!(
            outcomes(&st, &p),
            vec![ANTI, ANTI, None, None],
            "a node without the key cannot violate anti-affinity"
        );
    }

    #[test]
    fn pod_affinity_needs_a_matching_pod_in_the_same_topology() {
        let mut st = cluster();
        place(&mut st, pod("ml", "db", "db"), "n1");
        let mut p = pod("ml", "web", "web");
        p.affinity.push(term("db", "zone", "ml", 0));
        assert_eq!(outcomes(&st, &p), vec![None, None, AFF, AFF]);
    }

    #[test]
    fn pod_affinity_lets_the_first_pod_of_a_self_affine_group_anywhere_with_the_key() {
        let st = cluster();
        let mut p = pod("ml", "web", "web");
        p.affinity.push(term("web", "zone", "ml", 0));
        assert_eq!(
            outcomes(&st, &p),
            vec![None, None, None, AFF],
            "no pod matches and the pod matches itself"
        );
        p.affinity = vec![term("db", "zone", "ml", 0)];
        assert_eq!(
            outcomes(&st, &p),
            vec![AFF; 4],
            "no pod matches but the pod does not match its own terms"
        );
    }

    #[test]
    fn pod_affinity_is_checked_before_anti_affinity() {
        let mut st = cluster();
        let mut db = pod("ml", "db", "db");
        db.anti_affinity.push(term("web", "zone", "ml", 0));
        place(&mut st, db, "n3");
        place(&mut st, pod("ml", "cache", "cache"), "n1");
        let mut p = pod("ml", "web", "web");
        p.affinity.push(term("cache", "zone", "ml", 0));
        p.anti_affinity.push(term("cache", "host", "ml", 0));
        assert_eq!(outcomes(&st, &p), vec![ANTI, None, AFF, AFF]);
    }

    #[test]
    fn terminating_pods_still_count_for_affinity() {
        let mut st = cluster();
        let mut db = pod("ml", "db", "db");
        db.terminating = true;
        place(&mut st, db, "n1");
        let mut p = pod("ml", "web", "web");
        p.anti_affinity.push(term("db", "host", "ml", 0));
        assert_eq!(outcomes(&st, &p), vec![ANTI, None, None, None]);
    }

    #[test]
    fn namespace_selector_selects_pods_in_namespaces_with_matching_labels() {
        let mut st = cluster();
        st.namespace_labels
            .insert("data".into(), labels(&[("team", "ml")]));
        st.namespace_labels
            .insert("ml".into(), labels(&[("team", "ml")]));
        st.namespace_labels
            .insert("ops".into(), labels(&[("team", "ops")]));
        place(&mut st, pod("data", "db", "db"), "n1");
        place(&mut st, pod("ops", "db", "db"), "n3");
        let by_team = NamespaceScope {
            names: vec![],
            selector: Some(LabelSelector::default().with_equal("team", "ml")),
        };
        let mut t = term("db", "host", "ml", 0);
        t.namespaces = by_team.clone();
        let mut p = pod("ml", "web", "web");
        p.anti_affinity.push(t.clone());
        assert_eq!(outcomes(&st, &p), vec![ANTI, None, None, None]);

        // An existing pod's anti-affinity is matched against the incoming pod's namespace labels.
        let mut st = cluster();
        st.namespace_labels
            .insert("ml".into(), labels(&[("team", "ml")]));
        let mut guard = pod("data", "guard", "guard");
        let mut gt = term("web", "zone", "data", 0);
        gt.namespaces = by_team;
        guard.anti_affinity.push(gt);
        place(&mut st, guard, "n3");
        assert_eq!(
            outcomes(&st, &pod("ml", "web", "web")),
            vec![None, None, EXISTING, None]
        );
        assert_eq!(
            outcomes(&st, &pod("ops", "web", "web")),
            vec![None; 4],
            "namespace ops has no team=ml label"
        );
    }

    fn scores(st: &ClusterState, p: &PodReq) -> Vec<i64> {
        let feasible: Vec<NodeId> = (0..st.nodes.len()).collect();
        let s = pre_score(st, p, &feasible);
        let mut out: Vec<i64> = feasible.iter().map(|n| score(st, p, &s, *n)).collect();
        normalize(&s, &mut out);
        out
    }

    #[test]
    fn preferred_affinity_scores_the_topology_of_matching_pods_highest() {
        let mut st = cluster();
        place(&mut st, pod("ml", "db", "db"), "n1");
        let mut p = pod("ml", "web", "web");
        p.preferred_affinity.push(term("db", "zone", "ml", 10));
        let s = pre_score(&st, &p, &[0, 1, 2, 3]);
        assert_eq!(score(&st, &p, &s, 0), 10);
        assert_eq!(score(&st, &p, &s, 2), 0);
        assert_eq!(scores(&st, &p), vec![100, 100, 0, 0]);
    }

    #[test]
    fn preferred_anti_affinity_and_existing_terms_combine_min_max() {
        let mut st = cluster();
        place(&mut st, pod("ml", "db", "db"), "n1");
        // An existing pod preferring to be near web pods, in zone b.
        let mut friend = pod("ml", "friend", "friend");
        friend.preferred_affinity.push(term("web", "zone", "ml", 4));
        place(&mut st, friend, "n3");
        let mut p = pod("ml", "web", "web");
        p.preferred_anti_affinity.push(term("db", "host", "ml", 6));
        // Raw: n1 = -6, n2 = 0, n3 = 4, n4 = 0 → (s + 6) / 10 * 100.
        assert_eq!(scores(&st, &p), vec![0, 60, 100, 60]);
    }

    #[test]
    fn no_preferred_terms_anywhere_leaves_scores_at_zero() {
        let mut st = cluster();
        place(&mut st, pod("ml", "db", "db"), "n1");
        assert_eq!(scores(&st, &pod("ml", "web", "web")), vec![0; 4]);
    }
}
