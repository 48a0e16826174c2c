//! The pod-group scheduling cycle: gang quorum, CompositePodGroup recursion and
//! topology-aware placement (semantics §3.3–3.4, §4.2, §5).
//!
//! Upstream: `pkg/scheduler/schedule_one_podgroup.go`, `framework/plugins/gangscheduling`
//! (PlacementFeasible), `framework/plugins/topologyaware/topology_placement.go`
//! (TopologyPlacementGenerator), `framework/plugins/podgrouppodscount` (PlacementScore).
//!
//! Members are placed one by one, each assumed so later members see it; already-scheduled
//! members count toward minCount; PlacementFeasible runs before the first member and after
//! each; any failure rolls back every reservation of the cycle; success needs at least one
//! newly placed pod. A CompositePodGroup applies the same rule to its children; the tree is
//! all-or-nothing at the root. A group with a topology constraint runs the whole algorithm in
//! each domain of its key (pinned to the domain of already running members), rolls each back,
//! scores the feasible ones, and assumes the best again.
//!
//! Trace-only departure: after the first Unschedulable PlacementFeasible result the remaining
//! members are still tried (then rolled back with the rest), so the trace can say how many
//! members fit. The outcome and message are those of the first failure, as upstream's.

use std::borrow::Cow;
use std::sync::Arc;

use super::node_state::{ClusterState, NodeId, PodId};
use super::plan::{DomainTrace, PodTrace, ReasonTexts, UnitTrace};
use super::queue::{GroupKind, GroupNode};
use super::schedule_one::{
    Mode, NodePreference, PodAttempt, Sampler, fit_error, schedule_pod_preferring,
};
use super::score::strategy;

/// A feasible domain: trace index, assignments, PodGroupPodsCount raw score, fit score.
type FeasiblePlacement = (usize, Vec<(PodId, NodeId)>, i64, i64);

/// Members (or children) counted by PlacementFeasible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Quorum {
    /// `minCount` / `minGroupCount`.
    pub min: u32,
    /// Scheduled so far (running and assumed).
    pub scheduled: u32,
    /// Still to try.
    pub remaining: u32,
}

/// PlacementFeasible result (semantics §3.4). Messages are formatted only when asked for: a
/// topology-aware group evaluates PlacementFeasible several times in each of hundreds of
/// domains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feasibility {
    /// Quorum met.
    Success,
    /// Quorum can still be met.
    Wait(Quorum),
    /// Quorum can no longer be met.
    Unschedulable(Quorum),
}

impl Feasibility {
    /// Upstream's status message for a PodGroup's quorum (empty for Success).
    pub(crate) fn message(&self) -> String {
        self.message_for(GroupKind::PodGroup)
    }

    /// Upstream's status message for the quorum of a group of `kind` (empty for Success): a
    /// CompositePodGroup's count is worded `minGroupCount`, as the newest cpg_test.go
    /// (`TestCPGStatusConditions_HierarchicalDiagnostics`, revision 16457a8) asserts
    /// ("minGroupCount (2) cannot be satisfied: 0 scheduled, 1 remaining"; its PodGroups keep
    /// "minCount (2) ..."). The older gangscheduling.go revisions in the stored sources word
    /// both `minCount`; the newest test is followed. The Wait text is not asserted upstream and
    /// follows the same word.
    pub(crate) fn message_for(&self, kind: GroupKind) -> String {
        let word = match kind {
            GroupKind::PodGroup => "minCount",
            GroupKind::CompositePodGroup => "minGroupCount",
        };
        match self {
            Self::Success => String::new(),
            Self::Wait(Quorum {
                min,
                scheduled,
                remaining,
            }) => format!(
                "{word} ({min}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining"
            ),
            Self::Unschedulable(Quorum {
                min,
                scheduled,
                remaining,
            }) => format!(
                "{word} ({min}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"
            ),
        }
    }
}

/// Upstream PlacementFeasible: `min` against scheduled and remaining members (or children).
pub(crate) fn placement_feasible(min: u32, scheduled: u32, remaining: u32) -> Feasibility {
    let q = Quorum {
        min,
        scheduled,
        remaining,
    };
    if remaining + scheduled < min {
        Feasibility::Unschedulable(q)
    } else if scheduled < min {
        Feasibility::Wait(q)
    } else {
        Feasibility::Success
    }
}

/// Message when a cycle placed no new pod although quorum holds (semantics §3.3 d).
pub(crate) const MSG_POD_GROUP_UNSCHEDULABLE: &str = "pod group is unschedulable";

/// Whether a group run succeeded, could not place, or hit a scheduler error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Placed.
    Success,
    /// No placement.
    Unschedulable,
    /// Upstream would report an error status.
    Error,
}

/// The result of running the algorithm for one group node.
#[derive(Debug, Clone)]
pub(crate) struct GroupRun {
    /// Status.
    pub status: Status,
    /// Message (upstream text first).
    pub message: String,
    /// Pods assumed by this run, in order, with their nodes (rolled back on failure).
    pub placed: Vec<(PodId, NodeId)>,
    /// Members that fit (all members tried), for the trace.
    pub placeable: u32,
}

/// Runs the algorithm for a group tree; the caller keeps `placed` assumed on success.
pub(crate) struct Cycle<'a> {
    /// The cluster (assumptions are applied to it).
    pub state: &'a mut ClusterState,
    /// Filtering mode.
    pub mode: Mode,
    /// Compat-mode sampler.
    pub sampler: &'a mut Sampler,
    /// Where the trace goes.
    pub trace: &'a mut UnitTrace,
    /// The domain being tried, for pod traces (`key=value`).
    placement_label: Option<Arc<str>>,
    /// Inside a CompositePodGroup tree (trace entries then name their group).
    in_tree: bool,
    /// Node preference applied before scores (workload-aware preemption's victim-aware run).
    prefer: Option<&'a mut dyn NodePreference>,
    /// The reason texts of the traces, shared between them.
    texts: ReasonTexts,
}

fn feasibility_label(prefix: &str, f: &Feasibility) -> Cow<'static, str> {
    let word = match f {
        Feasibility::Success => "Success",
        Feasibility::Wait(_) => "Wait",
        Feasibility::Unschedulable(_) => "Unschedulable",
    };
    if prefix.is_empty() {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(format!("{prefix}{word}"))
    }
}

impl<'a> Cycle<'a> {
    /// A cycle over `state`.
    pub(crate) fn new(
        state: &'a mut ClusterState,
        mode: Mode,
        sampler: &'a mut Sampler,
        trace: &'a mut UnitTrace,
    ) -> Self {
        Self {
            state,
            mode,
            sampler,
            trace,
            placement_label: None,
            in_tree: false,
            prefer: None,
            texts: ReasonTexts::default(),
        }
    }

    /// The same cycle choosing nodes through `prefer` before scores.
    pub(crate) fn preferring(mut self, prefer: &'a mut dyn NodePreference) -> Self {
        self.prefer = Some(prefer);
        self
    }

    fn rollback(&mut self, placed: &[(PodId, NodeId)]) {
        for (pod, _) in placed.iter().rev() {
            self.state.forget(*pod);
        }
    }

    /// Runs `group` on `candidates` (sorted node ids).
    pub(crate) fn run(
        &mut self,
        group: &GroupNode,
        candidates: &[NodeId],
        is_root: bool,
    ) -> GroupRun {
        match &group.topology_key {
            Some(key) => self.run_topology(group, key, candidates, is_root),
            None => self.run_plain(group, candidates, is_root),
        }
    }

    fn run_plain(&mut self, group: &GroupNode, candidates: &[NodeId], is_root: bool) -> GroupRun {
        match group.kind {
            GroupKind::PodGroup => self.run_leaf(group, candidates),
            GroupKind::CompositePodGroup => self.run_composite(group, candidates, is_root),
        }
    }

    fn run_leaf(&mut self, group: &GroupNode, candidates: &[NodeId]) -> GroupRun {
        let prefix = if self.trace_tree() {
            format!("PodGroup/{}: ", group.name)
        } else {
            String::new()
        };
        let mut scheduled = u32::try_from(group.bound.len()).unwrap_or(u32::MAX);
        let mut remaining = u32::try_from(group.pending.len()).unwrap_or(u32::MAX);
        let initial = placement_feasible(group.min, scheduled, remaining);
        self.trace
            .placement_feasible
            .push(feasibility_label(&prefix, &initial));
        if let f @ Feasibility::Unschedulable(_) = initial {
            let msg = f.message();
            return GroupRun {
                status: Status::Unschedulable,
                message: msg,
                placed: Vec::new(),
                placeable: 0,
            };
        }
        let mut placed = Vec::new();
        let mut failure: Option<String> = None;
        let mut first_pod_error: Option<String> = None;
        // The last member that fit nowhere, while nothing has been assumed since: a member with
        // the same filter inputs fails the same way on the unchanged state (and a failed
        // attempt leaves the compat sampler where it was: it visited every node), so its
        // attempt is reused instead of filtering every node again.
        let mut last_failure: Option<(PodId, PodAttempt)> = None;
        for &pod in &group.pending {
            let attempt = self.attempt_member(pod, candidates, last_failure.as_ref());
            let name = self.state.pods[pod].name.clone();
            self.trace.pods.push(PodTrace::of_attempt(
                self.state,
                pod,
                &attempt,
                self.placement_label.clone(),
                &mut self.texts,
            ));
            match attempt.node {
                Some(node) => {
                    self.state.assume(pod, node);
                    placed.push((pod, node));
                    scheduled += 1;
                    last_failure = None;
                }
                None if attempt.diagnosis.error.is_some() => {
                    // A filter's error (a CEL runtime error in a device selector) aborts the
                    // pod group's cycle with that error (no fit error, no preemption).
                    let message = format!(
                        "{name}: {}",
                        attempt.diagnosis.error.as_deref().unwrap_or_default()
                    );
                    self.rollback(&placed);
                    return GroupRun {
                        status: Status::Error,
                        message,
                        placed: Vec::new(),
                        placeable: 0,
                    };
                }
                None => {
                    if first_pod_error.is_none() {
                        first_pod_error = Some(format!(
                            "{name}: {}",
                            fit_error(candidates.len(), &attempt.diagnosis, &self.state.table)
                        ));
                    }
                    last_failure = Some((pod, attempt));
                }
            }
            remaining -= 1;
            if failure.is_none() {
                let f = placement_feasible(group.min, scheduled, remaining);
                self.trace
                    .placement_feasible
                    .push(feasibility_label(&prefix, &f));
                if let Feasibility::Unschedulable(_) = f {
                    let msg = f.message();
                    failure = Some(msg);
                }
            }
        }
        self.leaf_outcome(placed, failure, first_pod_error)
    }

    /// A member's attempt: the last failed member's, when nothing was assumed since and this
    /// member has the same filter inputs (it fails the same way on the unchanged state, and a
    /// failed attempt leaves the compat sampler where it was), else a fresh filter pass.
    #[inline]
    fn attempt_member(
        &mut self,
        pod: PodId,
        candidates: &[NodeId],
        last_failure: Option<&(PodId, PodAttempt)>,
    ) -> PodAttempt {
        let reused = last_failure.and_then(|(prev, attempt)| {
            let (a, b) = (&self.state.pods[*prev], &self.state.pods[pod]);
            let labels_matter = self.state.required_anti_count > 0
                || a.labels_matter_to_own_filters()
                || b.labels_matter_to_own_filters();
            a.same_filter_inputs(b, labels_matter)
                .then(|| attempt.clone())
        });
        reused.unwrap_or_else(|| {
            schedule_pod_preferring(
                self.state,
                pod,
                candidates,
                self.mode,
                self.sampler,
                self.prefer.as_deref_mut(),
            )
        })
    }

    /// A leaf group's result once every member was tried: a PlacementFeasible failure rolls
    /// the members back, no member placed is unschedulable, either with the first member's
    /// fit error appended; else success.
    fn leaf_outcome(
        &mut self,
        placed: Vec<(PodId, NodeId)>,
        failure: Option<String>,
        first_pod_error: Option<String>,
    ) -> GroupRun {
        let placeable = u32::try_from(placed.len()).unwrap_or(u32::MAX);
        let with_detail = |msg: String| match &first_pod_error {
            Some(detail) => format!("{msg}; {detail}"),
            None => msg,
        };
        if let Some(msg) = failure {
            self.rollback(&placed);
            return GroupRun {
                status: Status::Unschedulable,
                message: with_detail(msg),
                placed: Vec::new(),
                placeable,
            };
        }
        if placed.is_empty() {
            return GroupRun {
                status: Status::Unschedulable,
                message: with_detail(MSG_POD_GROUP_UNSCHEDULABLE.to_owned()),
                placed,
                placeable,
            };
        }
        GroupRun {
            status: Status::Success,
            message: String::new(),
            placed,
            placeable,
        }
    }

    fn trace_tree(&self) -> bool {
        self.in_tree
    }

    fn run_composite(
        &mut self,
        group: &GroupNode,
        candidates: &[NodeId],
        is_root: bool,
    ) -> GroupRun {
        let was_in_tree = self.in_tree;
        self.in_tree = true;
        let prefix = format!("CompositePodGroup/{}: ", group.name);
        let (done, to_try): (Vec<&GroupNode>, Vec<&GroupNode>) = group
            .children
            .iter()
            .partition(|c| c.satisfied() && !c.has_pending());
        let mut scheduled = u32::try_from(done.len()).unwrap_or(u32::MAX);
        let mut remaining = u32::try_from(to_try.len()).unwrap_or(u32::MAX);
        let initial = placement_feasible(group.min, scheduled, remaining);
        self.trace
            .placement_feasible
            .push(feasibility_label(&prefix, &initial));
        let mut run = GroupRun {
            status: Status::Success,
            message: String::new(),
            placed: Vec::new(),
            placeable: 0,
        };
        if let f @ Feasibility::Unschedulable(_) = initial {
            let msg = f.message_for(GroupKind::CompositePodGroup);
            self.in_tree = was_in_tree;
            run.status = Status::Unschedulable;
            run.message = format!("{prefix}{msg}");
            return run;
        }
        let mut failure: Option<(Status, String)> = None;
        let mut child_errors = Vec::new();
        for child in to_try {
            let r = self.run(child, candidates, false);
            run.placeable += r.placeable;
            match r.status {
                Status::Success => {
                    run.placed.extend(r.placed);
                    scheduled += 1;
                }
                Status::Error => {
                    failure.get_or_insert((Status::Error, r.message.clone()));
                }
                Status::Unschedulable => {
                    // A composite child's own quorum failure already names it.
                    let label = format!("{}/{}: ", child.kind.as_str(), child.name);
                    child_errors.push(if r.message.starts_with(&label) {
                        r.message
                    } else {
                        format!("{label}{}", r.message)
                    });
                }
            }
            remaining -= 1;
            if failure.is_none() {
                let f = placement_feasible(group.min, scheduled, remaining);
                self.trace
                    .placement_feasible
                    .push(feasibility_label(&prefix, &f));
                if let Feasibility::Unschedulable(_) = f {
                    let msg = f.message_for(GroupKind::CompositePodGroup);
                    failure = Some((Status::Unschedulable, format!("{prefix}{msg}")));
                }
            }
        }
        self.in_tree = was_in_tree;
        let detail = |msg: String| {
            if child_errors.is_empty() {
                msg
            } else {
                format!("{msg}; {}", child_errors.join("; "))
            }
        };
        if let Some((status, msg)) = failure {
            let placed = std::mem::take(&mut run.placed);
            self.rollback(&placed);
            run.status = status;
            run.message = detail(msg);
            return run;
        }
        if is_root && run.placed.is_empty() {
            run.status = Status::Unschedulable;
            run.message = detail(MSG_POD_GROUP_UNSCHEDULABLE.to_owned());
        }
        run
    }

    /// Topology-aware placement (semantics §5).
    fn run_topology(
        &mut self,
        group: &GroupNode,
        key: &str,
        candidates: &[NodeId],
        is_root: bool,
    ) -> GroupRun {
        let label = format!("{}/{}", group.kind.as_str(), group.name);
        let pinned = match self.pinned_domain(group, key, &label) {
            Ok(pinned) => pinned,
            Err(message) => return error_run(message),
        };
        let domains = self.candidate_domains(key, candidates, pinned.as_ref());
        let total = domains.len();
        let (mut feasible, first_status) = self.try_domains(group, key, &label, &domains, is_root);
        if feasible.is_empty() {
            let msg = match first_status {
                Some(s) => {
                    format!("0/{total} placements are available, first placement status: {s}")
                }
                None => format!("0/{total} placements are available"),
            };
            return GroupRun {
                status: Status::Unschedulable,
                message: msg,
                placed: Vec::new(),
                placeable: 0,
            };
        }
        // The profile's placementScore plugins and weights (PodGroupPodsCount and
        // NodeResourcesFit, weight 1 each by default): the group's pods share one profile.
        let weights = feasible
            .iter()
            .find_map(|f| f.1.first())
            .map(|(p, _)| self.state.profiles.get(self.state.pods[*p].profile))
            .map(|profile| {
                (
                    profile.plugins.weights.placement_pod_group_pods_count,
                    profile.plugins.weights.placement_node_resources_fit,
                )
            })
            .unwrap_or((1, 1));
        let max_pods = feasible.iter().map(|f| f.2).max().unwrap_or(0);
        if max_pods == 0 && weights.0 != 0 {
            return error_run(
                "no pods from pod group are assigned to any of the candidate placements".to_owned(),
            );
        }
        // Weighted sum; ties go to the first domain in name order (upstream: random).
        let mut best = 0;
        let mut best_score = i64::MIN;
        for (i, f) in feasible.iter().enumerate() {
            let pods = if max_pods == 0 {
                0
            } else {
                f.2 * 100 / max_pods
            };
            let score = weights.0 * pods + weights.1 * f.3;
            self.trace.domains[f.0].score = Some(score);
            if score > best_score {
                best = i;
                best_score = score;
            }
        }
        let (trace_index, placed, _, _) = feasible.swap_remove(best);
        self.trace.domains[trace_index].chosen = true;
        for (pod, node) in &placed {
            self.state.assume(*pod, *node);
        }
        let placeable = u32::try_from(placed.len()).unwrap_or(u32::MAX);
        GroupRun {
            status: Status::Success,
            message: String::new(),
            placed,
            placeable,
        }
    }

    /// The one domain of `key` the group's running members are in, which pins the group
    /// (`None` without running members); an error when a member's node is missing from the
    /// snapshot or has no `key` label, or when members run in more than one domain.
    fn pinned_domain(
        &self,
        group: &GroupNode,
        key: &str,
        label: &str,
    ) -> Result<Option<String>, String> {
        let mut bound = Vec::new();
        group.bound_pods(&mut bound);
        let mut pinned: Option<String> = None;
        for pod in bound {
            let Some(node) = self.state.placement[pod] else {
                // Bound to a node the snapshot lacks: upstream's getScheduledPodsTopologyDomain
                // looks the node up in the snapshot (`NodeInfos().Get`) and fails.
                if self.state.bound_to_missing_node(pod) {
                    let p = &self.state.pods[pod];
                    return Err(format!(
                        "cannot determine domain for already scheduled pods: getting node for pod {}/{}: nodeinfo not found for node name {:?}",
                        p.namespace,
                        p.name,
                        p.node_name.as_deref().unwrap_or_default()
                    ));
                }
                continue;
            };
            let n = &self.state.nodes[node];
            let Some(value) = n.labels.get(key) else {
                let p = &self.state.pods[pod];
                return Err(format!(
                    "cannot determine domain for already scheduled pods: no topology domain found for pod {}/{}",
                    p.namespace, p.name
                ));
            };
            match &pinned {
                Some(v) if v != value => {
                    return Err(format!(
                        "cannot determine domain for already scheduled pods: more than 1 domain found for pod group: {label}"
                    ));
                }
                _ => pinned = Some(value.clone()),
            }
        }
        Ok(pinned)
    }

    /// Domains of the key among the candidates (every node at the root, the parent's domain
    /// when nested), in name order; a pinned group keeps its one domain even when empty.
    fn candidate_domains(
        &self,
        key: &str,
        candidates: &[NodeId],
        pinned: Option<&String>,
    ) -> Vec<(String, Vec<NodeId>)> {
        let all = self.state.domains(key);
        let whole = candidates.len() == self.state.nodes.len();
        let mut domains: Vec<(String, Vec<NodeId>)> = Vec::new();
        for (value, nodes) in all.iter() {
            if pinned.is_some_and(|p| p != value) {
                continue;
            }
            let inside: Vec<NodeId> = if whole {
                nodes.clone()
            } else {
                nodes
                    .iter()
                    .copied()
                    .filter(|n| candidates.binary_search(n).is_ok())
                    .collect()
            };
            if !inside.is_empty() || pinned.is_some() {
                domains.push((value.clone(), inside));
            }
        }
        if let Some(v) = pinned
            && domains.is_empty()
        {
            domains.push((v.clone(), Vec::new()));
        }
        domains
    }

    /// Runs the group in each domain, traced and rolled back: the feasible placements
    /// (trace index, assignments, PodGroupPodsCount raw score, NodeResourcesFit score) and the
    /// first infeasible domain's status.
    fn try_domains(
        &mut self,
        group: &GroupNode,
        key: &str,
        label: &str,
        domains: &[(String, Vec<NodeId>)],
        is_root: bool,
    ) -> (Vec<FeasiblePlacement>, Option<String>) {
        let mut feasible: Vec<FeasiblePlacement> = Vec::new();
        let mut first_status: Option<String> = None;
        let outer_label = self.placement_label.take();
        for (value, nodes) in domains {
            self.placement_label = Some(format!("{key}={value}").into());
            let r = self.run_plain(group, nodes, is_root);
            let mut trace = DomainTrace {
                group: label.to_owned(),
                key: key.to_owned(),
                value: value.clone(),
                nodes: u32::try_from(nodes.len()).unwrap_or(u32::MAX),
                placeable: r.placeable,
                feasible: r.status == Status::Success,
                message: String::new(),
                score: None,
                chosen: false,
            };
            if r.status == Status::Success {
                // PodGroupPodsCount: the group's pods already in the domain plus the proposed ones.
                let mut bound = Vec::new();
                group.bound_pods(&mut bound);
                let already = bound
                    .iter()
                    .filter(|p| self.state.placement[**p].is_some_and(|n| nodes.contains(&n)))
                    .count();
                let pods = i64::try_from(already + r.placed.len()).unwrap_or(i64::MAX);
                let fit = self.placement_fit(&r.placed, nodes);
                self.rollback(&r.placed);
                feasible.push((self.trace.domains.len(), r.placed, pods, fit));
            } else {
                trace.message.clone_from(&r.message);
                first_status.get_or_insert(r.message);
            }
            self.trace.domains.push(trace);
        }
        self.placement_label = outer_label;
        (feasible, first_status)
    }

    /// NodeResourcesFit's placement score of a domain (`nodes`) with the group's proposed
    /// pods (`placed`, still assumed): MostAllocated over the resources and weights of the
    /// group's profile ([`strategy::placement_most_allocated`]); 0 when nothing was placed.
    fn placement_fit(&self, placed: &[(PodId, NodeId)], nodes: &[NodeId]) -> i64 {
        let Some((first, _)) = placed.first() else {
            return 0;
        };
        let profile = self.state.profiles.get(self.state.pods[*first].profile);
        let resources = strategy::resolve(&profile.fit.resources, &self.state.table);
        let group_request = |id| {
            placed
                .iter()
                .map(|(p, _)| self.state.pods[*p].request(id))
                .fold(0i64, i64::saturating_add)
        };
        strategy::placement_most_allocated(
            &resources,
            &group_request,
            nodes.iter().map(|n| &self.state.nodes[*n]),
        )
    }
}

/// A run that failed with `message` as an error (no placements, no preemption).
fn error_run(message: String) -> GroupRun {
    GroupRun {
        status: Status::Error,
        message,
        placed: Vec::new(),
        placeable: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // semantics §10 B: PlacementFeasible sequences.
    #[test]
    fn placement_feasible_follows_upstream() {
        assert_eq!(
            placement_feasible(3, 0, 2).message(),
            "minCount (3) cannot be satisfied: 0 scheduled, 2 remaining"
        );
        assert!(matches!(
            placement_feasible(3, 0, 2),
            Feasibility::Unschedulable(_)
        ));
        assert_eq!(
            placement_feasible(2, 1, 1).message(),
            "minCount (2) is not yet satisfied: 1 scheduled, 1 remaining"
        );
        assert!(matches!(placement_feasible(2, 1, 1), Feasibility::Wait(_)));
        assert_eq!(placement_feasible(2, 2, 0), Feasibility::Success);
        assert_eq!(
            placement_feasible(1, 1, 0),
            Feasibility::Success,
            "basic with one running member"
        );
        // A CompositePodGroup counts children against minGroupCount (cpg_test.go).
        assert_eq!(
            placement_feasible(2, 0, 1).message_for(GroupKind::CompositePodGroup),
            "minGroupCount (2) cannot be satisfied: 0 scheduled, 1 remaining"
        );
        assert_eq!(
            placement_feasible(2, 1, 1).message_for(GroupKind::CompositePodGroup),
            "minGroupCount (2) is not yet satisfied: 1 scheduled, 1 remaining"
        );
    }
}
