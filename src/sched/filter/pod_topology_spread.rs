//! PodTopologySpread: hard constraints (`whenUnsatisfiable: DoNotSchedule`) filter nodes, soft
//! constraints (`ScheduleAnyway`) score them.
//!
//! Upstream: `pkg/scheduler/framework/plugins/podtopologyspread/{filtering,scoring,common}.go`
//! (v1.37). Facts followed here:
//! - `common.go` `countPodsMatchSelector`: only pods in the incoming pod's namespace, without a
//!   deletion timestamp, whose labels match the constraint's selector are counted.
//! - `common.go` `matchNodeInclusionPolicies`: `nodeAffinityPolicy: Honor` (default) drops nodes
//!   failing the pod's nodeSelector/required node affinity; `nodeTaintsPolicy: Honor` (default
//!   Ignore) drops nodes with an untolerated `NoSchedule`/`NoExecute` taint. Applied per
//!   constraint.
//! - `filtering.go` `calPreFilterState`: every node of the snapshot that has ALL the hard
//!   constraints' topology keys contributes its count to its domain (a domain with 0 matching
//!   pods still counts as a domain); the global minimum is the minimum over domains, treated as
//!   0 when there are fewer domains than `minDomains` (default 1).
//! - `filtering.go` `Filter`: a node missing a key is `UnschedulableAndUnresolvable`; otherwise
//!   `count(domain) + selfMatch - globalMin > maxSkew` is `Unschedulable`.
//! - `scoring.go`: domains come from the feasible nodes (nodes missing a soft key are ignored
//!   and score 0), counts from every node; `kubernetes.io/hostname` is counted per node at Score
//!   time; weight `ln(domains + 2)`; a node scores `round(Σ cnt·weight + (maxSkew − 1))`;
//!   NormalizeScore maps `s` to `100·(max + min − s)/max` (100 for all when max is 0).

use std::collections::HashMap;

use super::node_affinity;
use crate::sched::node_state::{ClusterState, NodeId, NodeState};
use crate::sched::pod_req::{PodReq, SpreadConstraint};
use crate::sched::selector::LabelSelector;
use crate::sched::status::MAX_NODE_SCORE;
use crate::sched::status::{Code, Rejection};

/// Plugin name.
pub(crate) const NAME: &str = "PodTopologySpread";
/// Reason text.
pub(crate) const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// Reason text when a node lacks a constraint's topology key.
pub(crate) const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// `v1.LabelHostname`: counted per node at Score time (upstream `scoring.go`).
const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";

/// One hard constraint with its per-domain counts.
#[derive(Debug)]
struct HardConstraint {
    topology_key: String,
    max_skew: i64,
    /// Matching pods per topology value (every eligible domain has an entry, possibly 0).
    counts: HashMap<String, i64>,
    /// Global minimum, already 0 when there are fewer domains than `minDomains`.
    global_min: i64,
    /// 1 when the incoming pod matches the constraint's own selector.
    self_match: i64,
}

/// PreFilter state: matching-pod counts per topology domain, per hard constraint. Empty (no
/// allocation) when the pod has no hard constraints.
#[derive(Debug, Default)]
pub(crate) struct PreFilterState {
    constraints: Vec<HardConstraint>,
}

/// Whether the node carries every constraint's topology key (`nodeLabelsMatchSpreadConstraints`).
fn has_all_keys<'a>(
    node: &NodeState,
    mut constraints: impl Iterator<Item = &'a SpreadConstraint>,
) -> bool {
    constraints.all(|c| node.labels.contains_key(&c.topology_key))
}

/// `matchNodeInclusionPolicies` (`common.go`); `affinity_ok` caches the node affinity match.
fn node_included(
    c: &SpreadConstraint,
    pod: &PodReq,
    node: &NodeState,
    affinity_ok: &mut Option<bool>,
) -> bool {
    if c.honor_node_affinity
        && !*affinity_ok.get_or_insert_with(|| node_affinity::matches(pod, node))
    {
        return false;
    }
    if c.honor_node_taints {
        let untolerated = node
            .taints
            .iter()
            .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
            .any(|t| !t.tolerated_by(&pod.tolerations));
        if untolerated {
            return false;
        }
    }
    true
}

/// `countPodsMatchSelector` (`common.go`): same namespace, not terminating, selector matches.
fn count_matching(
    state: &ClusterState,
    node: &NodeState,
    selector: &LabelSelector,
    ns: &str,
) -> i64 {
    let n = node
        .pods
        .iter()
        .map(|id| &state.pods[*id])
        .filter(|p| !p.terminating && p.namespace == ns && selector.matches(&p.labels))
        .count();
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Adds `n` to the domain `value`, creating it when new.
fn add_to_domain(counts: &mut HashMap<String, i64>, value: &str, n: i64) {
    if let Some(c) = counts.get_mut(value) {
        *c += n;
    } else {
        counts.insert(value.to_owned(), n);
    }
}

/// PreFilter (`filtering.go` `calPreFilterState`).
pub(crate) fn pre_filter(state: &ClusterState, pod: &PodReq) -> PreFilterState {
    if !pod.spread.iter().any(|c| c.hard) {
        return PreFilterState::default();
    }
    let hard: Vec<&SpreadConstraint> = pod.spread.iter().filter(|c| c.hard).collect();
    let mut counts: Vec<HashMap<String, i64>> = vec![HashMap::new(); hard.len()];
    for node in &state.nodes {
        if !has_all_keys(node, hard.iter().copied()) {
            continue;
        }
        let mut affinity_ok = None;
        for (slot, c) in hard.iter().enumerate() {
            if !node_included(c, pod, node, &mut affinity_ok) {
                continue;
            }
            let Some(value) = node.labels.get(&c.topology_key) else {
                continue;
            };
            let n = count_matching(state, node, &c.selector, &pod.namespace);
            add_to_domain(&mut counts[slot], value, n);
        }
    }
    let constraints = hard
        .into_iter()
        .zip(counts)
        .map(|(c, counts)| {
            // Upstream criticalPaths start at MaxInt32; minMatchNum uses 0 when
            // domains < minDomains (minDomains defaults to 1).
            let min = counts
                .values()
                .copied()
                .min()
                .unwrap_or(i64::from(i32::MAX));
            let min_domains = i64::from(c.min_domains.unwrap_or(1));
            let domains = i64::try_from(counts.len()).unwrap_or(i64::MAX);
            HardConstraint {
                topology_key: c.topology_key.clone(),
                max_skew: i64::from(c.max_skew),
                global_min: if domains < min_domains { 0 } else { min },
                self_match: i64::from(c.selector.matches(&pod.labels)),
                counts,
            }
        })
        .collect();
    PreFilterState { constraints }
}

/// Filter (`filtering.go` `Filter`).
#[inline]
pub(crate) fn filter(
    state: &ClusterState,
    _pod: &PodReq,
    pre: &PreFilterState,
    node: NodeId,
) -> Option<Rejection> {
    if pre.constraints.is_empty() {
        return None;
    }
    let n = &state.nodes[node];
    for c in &pre.constraints {
        let Some(value) = n.labels.get(&c.topology_key) else {
            return Some(Rejection::new(
                NAME,
                Code::UnschedulableAndUnresolvable,
                ERR_REASON_NODE_LABEL_NOT_MATCH,
            ));
        };
        let matched = c.counts.get(value).copied().unwrap_or(0);
        if matched + c.self_match - c.global_min > c.max_skew {
            return Some(Rejection::new(
                NAME,
                Code::Unschedulable,
                ERR_REASON_CONSTRAINTS_NOT_MATCH,
            ));
        }
    }
    None
}

/// One soft constraint with its per-domain counts and normalizing weight.
#[derive(Debug)]
struct SoftConstraint {
    /// Index into the pod's `spread`.
    index: usize,
    topology_key: String,
    max_skew: i32,
    /// Matching pods per topology value of the feasible nodes (empty for hostname).
    counts: HashMap<String, i64>,
    /// `topologyNormalizingWeight`: `ln(domains + 2)`.
    weight: f64,
}

/// PreScore state for soft constraints. Empty (plugin skipped) when the pod has none.
#[derive(Debug, Default)]
pub(crate) struct ScoreState {
    constraints: Vec<SoftConstraint>,
    /// Per position in `feasible`: the node lacks a soft constraint's key (upstream
    /// `IgnoredNodes`), so it scores 0.
    ignored: Vec<bool>,
    /// `requireAllTopologies` (false for system defaults).
    require_all: bool,
}

impl ScoreState {
    /// No soft constraint: every node scores 0 and normalisation leaves it so.
    pub(crate) fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }
}

/// PreScore over the feasible nodes (`scoring.go` `initPreScoreState` + `PreScore`). With
/// system-default constraints (`pod.spread_system_default`) `requireAllTopologies` is false:
/// no node is ignored, and a node without a constraint's key counts in the domain of the
/// empty value (upstream reads the missing label as "").
pub(crate) fn pre_score(state: &ClusterState, pod: &PodReq, feasible: &[NodeId]) -> ScoreState {
    if !pod.spread.iter().any(|c| !c.hard) {
        return ScoreState::default();
    }
    let require_all = !pod.spread_system_default;
    let soft: Vec<(usize, &SpreadConstraint)> = pod
        .spread
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.hard)
        .collect();
    let value_of = |node: &NodeState, key: &str| -> Option<String> {
        match node.labels.get(key) {
            Some(v) => Some(v.clone()),
            None if !require_all => Some(String::new()),
            None => None,
        }
    };
    let mut counts: Vec<HashMap<String, i64>> = vec![HashMap::new(); soft.len()];
    let mut ignored = Vec::with_capacity(feasible.len());
    for id in feasible {
        let node = &state.nodes[*id];
        let skip = require_all && !has_all_keys(node, soft.iter().map(|(_, c)| *c));
        ignored.push(skip);
        if skip {
            continue;
        }
        for (slot, (_, c)) in soft.iter().enumerate() {
            if c.topology_key == LABEL_HOSTNAME {
                continue;
            }
            if let Some(value) = value_of(node, &c.topology_key) {
                add_to_domain(&mut counts[slot], &value, 0);
            }
        }
    }
    let scored = ignored.iter().filter(|i| !**i).count();
    // Counts come from every node in the snapshot, for domains present among feasible nodes.
    for node in &state.nodes {
        if require_all && !has_all_keys(node, soft.iter().map(|(_, c)| *c)) {
            continue;
        }
        let mut affinity_ok = None;
        for (slot, (_, c)) in soft.iter().enumerate() {
            if !node_included(c, pod, node, &mut affinity_ok) {
                continue;
            }
            let Some(value) = value_of(node, &c.topology_key) else {
                continue;
            };
            if let Some(cnt) = counts[slot].get_mut(value.as_str()) {
                *cnt += count_matching(state, node, &c.selector, &pod.namespace);
            }
        }
    }
    let constraints = soft
        .into_iter()
        .zip(counts)
        .map(|((index, c), counts)| {
            let size = if c.topology_key == LABEL_HOSTNAME {
                scored
            } else {
                counts.len()
            };
            SoftConstraint {
                index,
                topology_key: c.topology_key.clone(),
                max_skew: c.max_skew,
                counts,
                weight: topology_normalizing_weight(size),
            }
        })
        .collect();
    ScoreState {
        constraints,
        ignored,
        require_all,
    }
}

/// `topologyNormalizingWeight` (`scoring.go`): `ln(size + 2)`.
fn topology_normalizing_weight(size: usize) -> f64 {
    (size as f64 + 2.0).ln()
}

/// Raw score of one node (`scoring.go` `Score`): Σ `cnt·weight + (maxSkew − 1)`, rounded.
pub(crate) fn score(state: &ClusterState, pod: &PodReq, s: &ScoreState, node: NodeId) -> i64 {
    if s.constraints.is_empty() {
        return 0;
    }
    let n = &state.nodes[node];
    if s.require_all
        && !s
            .constraints
            .iter()
            .all(|c| n.labels.contains_key(&c.topology_key))
    {
        // An ignored node.
        return 0;
    }
    let mut total = 0.0_f64;
    for c in &s.constraints {
        let Some(value) = n.labels.get(&c.topology_key) else {
            continue;
        };
        let cnt = if c.topology_key == LABEL_HOSTNAME {
            pod.spread.get(c.index).map_or(0, |sc| {
                count_matching(state, n, &sc.selector, &pod.namespace)
            })
        } else {
            c.counts.get(value).copied().unwrap_or(0)
        };
        total += cnt as f64 * c.weight + f64::from(c.max_skew - 1);
    }
    total.round() as i64
}

/// Normalizes raw scores to 0–100 in place (`scoring.go` `NormalizeScore`): fewer matching
/// pods score higher; ignored nodes get 0.
pub(crate) fn normalize(s: &ScoreState, scores: &mut [i64]) {
    if s.constraints.is_empty() {
        return;
    }
    let is_ignored = |i: usize| s.ignored.get(i).copied().unwrap_or(false);
    let mut min = i64::MAX;
    let mut max = 0_i64;
    for (i, v) in scores.iter().enumerate() {
        if is_ignored(i) {
            continue;
        }
        min = min.min(*v);
        max = max.max(*v);
    }
    for (i, v) in scores.iter_mut().enumerate() {
        if is_ignored(i) {
            *v = 0;
        } else if max == 0 {
            *v = MAX_NODE_SCORE;
        } else {
            *v = MAX_NODE_SCORE * (max + min - *v) / max;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::node_state::PodId;
    use crate::sched::selector::{Labels, NodeTaint, PodLabels, Tol};
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

    fn cluster(nodes: Vec<NodeState>) -> ClusterState {
        let mut st = ClusterState {
            nodes,
            ..ClusterState::default()
        };
        st.reindex_nodes();
        st
    }

    fn pod(ns: &str, name: &str, pairs: &[(&str, &str)]) -> PodReq {
        PodReq {
            namespace: ns.to_owned(),
            name: name.into(),
            labels: PodLabels::from_pairs(pairs.iter().copied()),
            ..PodReq::default()
        }
    }

    fn place(st: &mut ClusterState, p: PodReq, node: &str) -> PodId {
        let n = st.node_ids[node];
        let id = st.add_pod(p);
        st.assume(id, n);
        id
    }

    fn web_pods(st: &mut ClusterState, node: &str, count: usize) {
        for i in 0..count {
            place(
                st,
                pod("ml", &format!("{node}-web-{i}"), &[("app", "web")]),
                node,
            );
        }
    }

    fn constraint(key: &str, max_skew: i32, hard: bool) -> SpreadConstraint {
        SpreadConstraint {
            max_skew,
            topology_key: key.to_owned(),
            hard,
            selector: LabelSelector::default().with_equal("app", "web"),
            min_domains: None,
            honor_node_affinity: true,
            honor_node_taints: false,
        }
    }

    fn incoming(c: SpreadConstraint) -> PodReq {
        let mut p = pod("ml", "new", &[("app", "web")]);
        p.spread.push(c);
        p
    }

    fn run(st: &ClusterState, p: &PodReq, node: &str) -> Option<Rejection> {
        let pre = pre_filter(st, p);
        filter(st, p, &pre, st.node_ids[node])
    }

    fn reason(r: &Option<Rejection>) -> Option<(Code, Reason)> {
        r.as_ref().map(|r| (r.code, r.reasons[0]))
    }

    fn zones() -> ClusterState {
        cluster(vec![
            node("n1", &[("zone", "a")]),
            node("n2", &[("zone", "b")]),
            node("n3", &[]),
        ])
    }

    #[test]
    fn spread_rejects_node_that_would_exceed_max_skew() {
        let mut st = zones();
        web_pods(&mut st, "n1", 2);
        let p = incoming(constraint("zone", 1, true));
        assert_eq!(
            reason(&run(&st, &p, "n1")),
            Some((
                Code::Unschedulable,
                Reason::Static(ERR_REASON_CONSTRAINTS_NOT_MATCH)
            ))
        );
        assert!(run(&st, &p, "n2").is_none(), "0 + 1 - 0 <= 1");
    }

    #[test]
    fn spread_rejects_node_missing_topology_key_as_unresolvable() {
        let st = zones();
        let p = incoming(constraint("zone", 1, true));
        assert_eq!(
            reason(&run(&st, &p, "n3")),
            Some((
                Code::UnschedulableAndUnresolvable,
                Reason::Static(ERR_REASON_NODE_LABEL_NOT_MATCH)
            ))
        );
    }

    #[test]
    fn spread_treats_global_min_as_zero_when_domains_are_fewer_than_min_domains() {
        let mut st = zones();
        web_pods(&mut st, "n1", 1);
        web_pods(&mut st, "n2", 1);
        let mut c = constraint("zone", 1, true);
        assert!(
            run(&st, &incoming(c.clone()), "n1").is_none(),
            "1 + 1 - 1 <= 1"
        );
        c.min_domains = Some(3);
        assert!(
            run(&st, &incoming(c), "n1").is_some(),
            "2 domains < minDomains 3: 1 + 1 - 0 > 1"
        );
    }

    #[test]
    fn spread_node_affinity_policy_honor_leaves_out_nodes_the_pod_cannot_use() {
        let mut st = cluster(vec![
            node("n1", &[("zone", "a"), ("pool", "x")]),
            node("n2", &[("zone", "b"), ("pool", "x")]),
            node("n3", &[("zone", "c"), ("pool", "y")]),
        ]);
        web_pods(&mut st, "n1", 2);
        web_pods(&mut st, "n2", 2);
        let mut c = constraint("zone", 1, true);
        let mut p = incoming(c.clone());
        p.node_selector = vec![("pool".into(), "x".into())];
        assert!(run(&st, &p, "n1").is_none(), "zone c left out: min is 2");
        c.honor_node_affinity = false;
        p.spread = vec![c];
        assert!(run(&st, &p, "n1").is_some(), "zone c counted: min is 0");
    }

    #[test]
    fn spread_node_taints_policy_honor_leaves_out_untolerated_nodes() {
        let mut st = zones();
        st.nodes[1].taints.push(NodeTaint {
            key: "gpu".into(),
            value: "true".into(),
            effect: "NoSchedule".into(),
        });
        web_pods(&mut st, "n1", 1);
        let mut c = constraint("zone", 1, true);
        assert!(
            run(&st, &incoming(c.clone()), "n1").is_some(),
            "Ignore: b has 0"
        );
        c.honor_node_taints = true;
        assert!(
            run(&st, &incoming(c.clone()), "n1").is_none(),
            "Honor: b left out, min is 1"
        );
        let mut p = incoming(c);
        p.tolerations.push(Tol::exists("gpu", "NoSchedule"));
        assert!(run(&st, &p, "n1").is_some(), "tolerated: b counts again");
    }

    #[test]
    fn spread_adds_self_match_only_when_the_pod_matches_its_selector() {
        let mut st = zones();
        web_pods(&mut st, "n1", 1);
        let mut p = incoming(constraint("zone", 1, true));
        assert!(run(&st, &p, "n1").is_some(), "1 + 1 - 0 > 1");
        p.labels = PodLabels::from_pairs([("app", "batch")]);
        assert!(run(&st, &p, "n1").is_none(), "1 + 0 - 0 <= 1");
    }

    #[test]
    fn spread_counts_neither_terminating_pods_nor_other_namespaces() {
        let mut st = zones();
        let mut dying = pod("ml", "dying", &[("app", "web")]);
        dying.terminating = true;
        place(&mut st, dying, "n1");
        place(&mut st, pod("other", "web", &[("app", "web")]), "n1");
        let p = incoming(constraint("zone", 1, true));
        assert!(run(&st, &p, "n1").is_none());
    }

    #[test]
    fn spread_without_hard_constraints_filters_nothing() {
        let st = zones();
        let p = incoming(constraint("zone", 1, false));
        let pre = pre_filter(&st, &p);
        assert!(pre.constraints.is_empty());
        assert!(filter(&st, &p, &pre, 2).is_none());
    }

    fn scores(st: &ClusterState, p: &PodReq) -> Vec<i64> {
        let feasible: Vec<NodeId> = (0..st.nodes.len()).collect();
        let s = pre_score(st, p, &feasible);
        let mut out: Vec<i64> = feasible.iter().map(|n| score(st, p, &s, *n)).collect();
        normalize(&s, &mut out);
        out
    }

    #[test]
    fn spread_score_prefers_the_zone_with_fewer_matching_pods() {
        let mut st = zones();
        web_pods(&mut st, "n1", 2);
        let p = incoming(constraint("zone", 1, false));
        let feasible = [0, 1, 2];
        let s = pre_score(&st, &p, &feasible);
        // 2 domains: weight ln(4); n1 = round(2 * 1.386) = 3.
        assert_eq!(score(&st, &p, &s, 0), 3);
        assert_eq!(score(&st, &p, &s, 1), 0);
        // Normalized: 100 * (3 + 0 - s) / 3; n3 lacks the key and gets 0.
        assert_eq!(scores(&st, &p), vec![0, 100, 0]);
    }

    #[test]
    fn spread_score_counts_hostname_per_node_and_adds_max_skew_minus_one() {
        let mut st = cluster(vec![
            node("n1", &[("kubernetes.io/hostname", "n1")]),
            node("n2", &[("kubernetes.io/hostname", "n2")]),
            node("n3", &[("kubernetes.io/hostname", "n3")]),
        ]);
        web_pods(&mut st, "n1", 1);
        web_pods(&mut st, "n2", 3);
        let p = incoming(constraint("kubernetes.io/hostname", 2, false));
        let s = pre_score(&st, &p, &[0, 1, 2]);
        // 3 nodes: weight ln(5) = 1.609; s = cnt * w + 1.
        assert_eq!(score(&st, &p, &s, 0), 3);
        assert_eq!(score(&st, &p, &s, 1), 6);
        assert_eq!(score(&st, &p, &s, 2), 1);
        // 100 * (6 + 1 - s) / 6.
        assert_eq!(scores(&st, &p), vec![66, 16, 100]);
    }

    #[test]
    fn spread_score_is_skipped_without_soft_constraints() {
        let mut st = zones();
        web_pods(&mut st, "n1", 2);
        let p = incoming(constraint("zone", 1, true));
        assert_eq!(scores(&st, &p), vec![0, 0, 0]);
    }

    // --- Default constraints: upstream `scoring_test.go` TestPreScoreStateEmptyNodes and
    // TestPreScoreSkip (v1.37), through `ClusterState::profile_pod`. ---

    fn with_replica_set(
        nodes: Vec<NodeState>,
        defaults: crate::sched::profile::SpreadDefaults,
    ) -> ClusterState {
        use crate::sched::default_spread::SpreadSources;
        use crate::sched::profile::{Profile, Profiles};
        let mut s = crate::snapshot::Snapshot::default();
        let rs = serde_json::json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "rs1", "namespace": "default"},
            "spec": {"selector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}}});
        s.foreign.push(crate::snapshot::RawObject {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
            metadata: serde_json::from_value(rs["metadata"].clone()).unwrap_or_default(),
            value: rs,
        });
        let mut st = cluster(nodes);
        st.spread_sources = std::rc::Rc::new(SpreadSources::build(&s));
        st.profiles = Profiles::new(
            vec![Profile {
                spread: defaults,
                ..Profile::default()
            }],
            Vec::new(),
        );
        st
    }

    fn owned_by(rs: &str) -> PodReq {
        let mut p = pod("default", "p", &[("foo", "tar"), ("baz", "sup")]);
        p.controller = Some(crate::sched::pod_req::SpreadOwner {
            kind: crate::sched::pod_req::SpreadOwnerKind::ReplicaSet,
            name: rs.to_owned(),
        });
        p
    }

    #[test]
    fn spread_system_default_constraints_and_a_replicaset() {
        let st = with_replica_set(
            vec![
                node(
                    "node-a",
                    &[
                        (LABEL_HOSTNAME, "node-a"),
                        ("topology.kubernetes.io/zone", "mars"),
                    ],
                ),
                node(
                    "node-b",
                    &[
                        (LABEL_HOSTNAME, "node-b"),
                        ("topology.kubernetes.io/zone", "mars"),
                    ],
                ),
                // Nodes with no zone are not excluded: they are a separate zone.
                node("node-c", &[(LABEL_HOSTNAME, "node-c")]),
                node("node-d", &[(LABEL_HOSTNAME, "node-d")]),
            ],
            crate::sched::profile::SpreadDefaults::System,
        );
        let mut p = owned_by("rs1");
        st.profile_pod(&mut p);
        assert!(p.spread_system_default);
        let s = pre_score(&st, &p, &[0, 1, 2, 3]);
        assert!(s.ignored.iter().all(|i| !i), "no node is ignored");
        let host = s
            .constraints
            .iter()
            .find(|c| c.topology_key == LABEL_HOSTNAME)
            .expect("hostname constraint");
        assert_eq!(host.max_skew, 3);
        assert!((host.weight - topology_normalizing_weight(4)).abs() < 1e-12);
        let zone = s
            .constraints
            .iter()
            .find(|c| c.topology_key == "topology.kubernetes.io/zone")
            .expect("zone constraint");
        assert_eq!(zone.max_skew, 5);
        let mut domains: Vec<(&str, i64)> =
            zone.counts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        domains.sort_unstable();
        assert_eq!(domains, vec![("", 0), ("mars", 0)]);
        assert!((zone.weight - topology_normalizing_weight(2)).abs() < 1e-12);
    }

    #[test]
    fn spread_default_constraints_and_a_replicaset() {
        use crate::sched::profile::{DefaultConstraint, SpreadDefaults};
        let c = |skew: i32, key: &str, hard: bool| DefaultConstraint {
            max_skew: skew,
            topology_key: key.to_owned(),
            hard,
        };
        let st = with_replica_set(
            vec![node(
                "node-a",
                &[
                    ("rack", "rack1"),
                    (LABEL_HOSTNAME, "node-a"),
                    ("planet", "mars"),
                ],
            )],
            SpreadDefaults::List(vec![
                c(1, LABEL_HOSTNAME, false),
                c(2, "rack", true),
                c(2, "planet", false),
            ]),
        );
        let mut p = owned_by("rs1");
        st.profile_pod(&mut p);
        assert!(!p.spread_system_default);
        let s = pre_score(&st, &p, &[0]);
        let keys: Vec<&str> = s
            .constraints
            .iter()
            .map(|c| c.topology_key.as_str())
            .collect();
        assert_eq!(keys, vec![LABEL_HOSTNAME, "planet"]);
        assert!(
            s.constraints
                .iter()
                .all(|c| (c.weight - topology_normalizing_weight(1)).abs() < 1e-12)
        );
        // The DoNotSchedule default filters.
        assert_eq!(pre_filter(&st, &p).constraints.len(), 1);
    }

    #[test]
    fn spread_default_constraints_and_a_replicaset_that_doesnt_match() {
        use crate::sched::profile::{DefaultConstraint, SpreadDefaults};
        let st = with_replica_set(
            vec![node("node-a", &[("planet", "mars")])],
            SpreadDefaults::List(vec![DefaultConstraint {
                max_skew: 2,
                topology_key: "planet".into(),
                hard: false,
            }]),
        );
        let mut p = owned_by("rs2");
        st.profile_pod(&mut p);
        assert!(p.spread.is_empty());
        assert!(pre_score(&st, &p, &[0]).is_empty(), "PreScore skips");
    }

    #[test]
    fn spread_system_default_scores_hostname_on_nodes_without_zone() {
        // Nodes without the zone label still get hostname spreading (requireAllTopologies is
        // false for system defaults): the node with fewer of the set's pods scores higher.
        let mut st = with_replica_set(
            vec![
                node("n1", &[(LABEL_HOSTNAME, "n1")]),
                node("n2", &[(LABEL_HOSTNAME, "n2")]),
            ],
            crate::sched::profile::SpreadDefaults::System,
        );
        for i in 0..4 {
            place(
                &mut st,
                pod("default", &format!("old-{i}"), &[("foo", "x")]),
                "n1",
            );
        }
        let mut p = owned_by("rs1");
        st.profile_pod(&mut p);
        let got = scores(&st, &p);
        assert!(got[1] > got[0], "{got:?}");
        assert_eq!(got[1], 100);
    }
}
