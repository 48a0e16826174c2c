//! Kueue's classical preemption: which workloads holding quota a pending workload may evict to
//! make room, in which order, and the fewest of them that suffice.
//!
//! A port of `pkg/scheduler/preemption/preemption.go` (`classicalPreemptions`,
//! `fillBackWorkloads`, `workloadFits`), `preemption/classical/candidate_generator.go`,
//! `classical/hierarchical_preemption.go` (`classifyPreemptionVariant`,
//! `collectCandidatesForHierarchicalReclaim`), `preemption/common/ordering.go`
//! (`CandidatesOrdering`), `common/preemption_policy.go` (`SatisfiesPreemptionPolicy`) and
//! `preemption_oracle.go` (`SimulatePreemption`). Fair sharing's preemption strategies are not
//! ported.

use std::collections::{BTreeMap, BTreeSet};

use super::flavor::{Assignment, Mode, Oracle, Possibility};
use super::quota::{Amount, FlavorResource, NodeKind, Tree};
use super::workload::Info;
use crate::snapshot::kueue::{ClusterQueue, PreemptionPolicy};

/// A workload holding quota.
#[derive(Debug, Clone)]
pub(crate) struct Holder {
    /// The workload.
    pub info: Info,
    /// Its ClusterQueue's node.
    pub cq: usize,
    /// What it charges, per (flavor, resource).
    pub usage: BTreeMap<FlavorResource, Amount>,
    /// Its `Evicted` condition is True (it is being evicted already).
    pub evicted: bool,
    /// When its quota was reserved (seconds; admissions in the dry run count as newest).
    pub reserved_at: i64,
}

/// The quota forest and the workloads holding quota in it (Kueue's scheduler `Snapshot`).
#[derive(Debug, Clone)]
pub(crate) struct State {
    /// The forest, with usage.
    pub tree: Tree,
    /// Holders by workload index (`Info::index`); removed ones are `None`.
    pub holders: BTreeMap<usize, Holder>,
    /// ClusterQueue objects by node.
    pub queues: BTreeMap<usize, ClusterQueue>,
}

impl State {
    /// `Snapshot.AddWorkload`.
    pub(crate) fn add(&mut self, h: Holder) {
        for (fr, v) in &h.usage {
            self.tree.add_usage(h.cq, fr, *v);
        }
        self.holders.insert(h.info.index, h);
    }

    /// `Snapshot.RemoveWorkload`.
    pub(crate) fn remove(&mut self, index: usize) -> Option<Holder> {
        let h = self.holders.remove(&index)?;
        for (fr, v) in &h.usage {
            self.tree.remove_usage(h.cq, fr, *v);
        }
        Some(h)
    }

    fn holders_of(&self, cq: usize) -> impl Iterator<Item = &Holder> {
        self.holders.values().filter(move |h| h.cq == cq)
    }

    /// `IsWithinNominalInResources`: usage within subtree quota for every pair.
    fn within_nominal(&self, node: usize, frs: &BTreeSet<FlavorResource>) -> bool {
        let n = &self.tree.nodes[node];
        frs.iter()
            .all(|fr| n.used(fr) <= n.subtree_quota.get(fr).copied().unwrap_or(0))
    }

    /// `QuantitiesFitInQuota`: whether `requests` fit the node's subtree quota, and what is
    /// left to fit above it.
    fn fit_in_quota(
        &self,
        node: usize,
        requests: &BTreeMap<FlavorResource, Amount>,
    ) -> (bool, BTreeMap<FlavorResource, Amount>) {
        let n = &self.tree.nodes[node];
        let mut fits = true;
        let mut remaining = BTreeMap::new();
        for (fr, v) in requests {
            if n.subtree_quota.get(fr).copied().unwrap_or(0) < n.used(fr) + v {
                fits = false;
            }
            remaining.insert(fr.clone(), (v - self.tree.local_available(node, fr)).max(0));
        }
        (fits, remaining)
    }

    fn children(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        self.tree.children(node).iter().copied()
    }
}

/// A workload to evict and why (`Target`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The victim's workload index.
    pub index: usize,
    /// `InClusterQueue`, `InCohortReclamation` or `InCohortReclaimWhileBorrowing`.
    pub reason: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Never,
    WithinCq,
    HierarchicalReclaim,
    ReclaimWithoutBorrowing,
    ReclaimWhileBorrowing,
}

impl Variant {
    fn reason(self) -> &'static str {
        match self {
            Variant::WithinCq => "InClusterQueue",
            Variant::ReclaimWhileBorrowing => "InCohortReclaimWhileBorrowing",
            _ => "InCohortReclamation",
        }
    }
}

/// `SatisfiesPreemptionPolicy`.
fn satisfies(preemptor: &Info, candidate: &Info, policy: PreemptionPolicy) -> bool {
    let lower = preemptor.priority > candidate.priority;
    match policy {
        PreemptionPolicy::LowerPriority => lower,
        PreemptionPolicy::LowerOrNewerEqualPriority => {
            lower
                || (preemptor.priority == candidate.priority
                    && preemptor.timestamp < candidate.timestamp)
        }
        PreemptionPolicy::Any => true,
        PreemptionPolicy::Never => false,
    }
}

struct Ctx<'a> {
    preemptor: &'a Info,
    cq: usize,
    policy: &'a ClusterQueue,
    frs: BTreeSet<FlavorResource>,
    requests: BTreeMap<FlavorResource, Amount>,
}

impl Ctx<'_> {
    fn uses(&self, h: &Holder) -> bool {
        h.usage.keys().any(|fr| self.frs.contains(fr))
    }

    /// `classifyPreemptionVariant`.
    fn classify(&self, h: &Holder, advantage: bool) -> Variant {
        if !self.uses(h) {
            return Variant::Never;
        }
        let p = &self.policy.spec.preemption;
        let policy = if h.cq == self.cq {
            p.within_cluster_queue
        } else {
            p.reclaim_within_cohort
        };
        if !satisfies(self.preemptor, &h.info, policy) {
            return Variant::Never;
        }
        if h.cq == self.cq {
            return Variant::WithinCq;
        }
        if advantage {
            return Variant::HierarchicalReclaim;
        }
        let bwc = &p.borrow_within_cohort;
        if bwc.policy == PreemptionPolicy::Never {
            return Variant::ReclaimWithoutBorrowing;
        }
        // isAboveBorrowingThreshold.
        let c = h.info.priority;
        if c >= self.preemptor.priority || bwc.max_priority_threshold.is_some_and(|t| c > t) {
            return Variant::ReclaimWithoutBorrowing;
        }
        Variant::ReclaimWhileBorrowing
    }
}

struct Candidate {
    index: usize,
    lca: Option<usize>,
    variant: Variant,
}

/// `CandidatesOrdering`: evicted first, other queues before the preemptor's, lower priority,
/// newer reservation, then UID (namespace and name without UIDs).
fn order(s: &State, cq: usize, a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    let (ha, hb) = (&s.holders[&a.index], &s.holders[&b.index]);
    hb.evicted
        .cmp(&ha.evicted)
        .then((ha.cq == cq).cmp(&(hb.cq == cq)))
        .then(ha.info.priority.cmp(&hb.info.priority))
        .then(hb.reserved_at.cmp(&ha.reserved_at))
        .then_with(|| {
            if ha.info.uid.is_empty() || hb.info.uid.is_empty() {
                (&ha.info.namespace, &ha.info.name).cmp(&(&hb.info.namespace, &hb.info.name))
            } else {
                ha.info.uid.cmp(&hb.info.uid)
            }
        })
}

/// The candidates in Kueue's order, and whether any come from other queues / from
/// hierarchical reclaim (`NewCandidateIterator`).
fn candidates(s: &State, ctx: &Ctx<'_>) -> (Vec<Candidate>, bool, bool) {
    let mut same: Vec<Candidate> = Vec::new();
    if ctx.policy.spec.preemption.within_cluster_queue != PreemptionPolicy::Never {
        same = from_cq(s, ctx, ctx.cq, None, false);
    }
    let (mut hierarchy, mut priority) = (Vec::new(), Vec::new());
    if s.tree.parent(ctx.cq).is_some()
        && ctx.policy.spec.preemption.reclaim_within_cohort != PreemptionPolicy::Never
    {
        let (mut advantage, mut remaining) = s.fit_in_quota(ctx.cq, &ctx.requests);
        let mut previous = None;
        for root in s.tree.ancestors(ctx.cq).collect::<Vec<_>>() {
            let list = if advantage {
                &mut hierarchy
            } else {
                &mut priority
            };
            in_subtree(s, ctx, root, root, previous, advantage, list);
            let (fits, rest) = s.fit_in_quota(root, &remaining);
            remaining = rest;
            advantage |= fits;
            previous = Some(root);
        }
    }
    let no_other = hierarchy.is_empty() && priority.is_empty();
    let no_hierarchical = hierarchy.is_empty();
    let mut all = Vec::new();
    let mut rest = Vec::new();
    for mut list in [hierarchy, priority, same] {
        list.sort_by(|a, b| order(s, ctx.cq, a, b));
        let (evicted, kept): (Vec<_>, Vec<_>) =
            list.into_iter().partition(|c| s.holders[&c.index].evicted);
        all.extend(evicted);
        rest.extend(kept);
    }
    all.extend(rest);
    (all, no_other, no_hierarchical)
}

/// `getCandidatesFromCQ`.
fn from_cq(
    s: &State,
    ctx: &Ctx<'_>,
    cq: usize,
    lca: Option<usize>,
    advantage: bool,
) -> Vec<Candidate> {
    s.holders_of(cq)
        .map(|h| (h.info.index, ctx.classify(h, advantage)))
        .filter(|(_, v)| *v != Variant::Never)
        .map(|(index, variant)| Candidate {
            index,
            lca,
            variant,
        })
        .collect()
}

/// `collectCandidatesInSubtree`.
fn in_subtree(
    s: &State,
    ctx: &Ctx<'_>,
    current: usize,
    root: usize,
    skip: Option<usize>,
    advantage: bool,
    out: &mut Vec<Candidate>,
) {
    let children: Vec<usize> = s.children(current).collect();
    for &c in &children {
        if s.tree.nodes[c].kind != NodeKind::Cohort || Some(c) == skip {
            continue;
        }
        if s.within_nominal(c, &ctx.frs) {
            continue;
        }
        in_subtree(s, ctx, c, root, skip, advantage, out);
    }
    for &c in &children {
        if s.tree.nodes[c].kind != NodeKind::ClusterQueue || c == ctx.cq {
            continue;
        }
        if !s.within_nominal(c, &ctx.frs) {
            out.extend(from_cq(s, ctx, c, Some(root), advantage));
        }
    }
}

/// `candidateIsValid`.
fn valid(s: &State, ctx: &Ctx<'_>, c: &Candidate, borrow: bool) -> bool {
    let h = &s.holders[&c.index];
    if h.cq == ctx.cq {
        return true;
    }
    if borrow && c.variant == Variant::ReclaimWithoutBorrowing {
        return false;
    }
    if s.within_nominal(h.cq, &ctx.frs) {
        return false;
    }
    for node in s.tree.ancestors(h.cq) {
        if Some(node) == c.lca {
            break;
        }
        if s.within_nominal(node, &ctx.frs) {
            return false;
        }
    }
    true
}

/// `workloadFits`.
fn fits(s: &State, ctx: &Ctx<'_>, allow_borrowing: bool) -> bool {
    ctx.requests.iter().all(|(fr, v)| {
        (allow_borrowing || !s.tree.borrowing_with(ctx.cq, fr, *v))
            && *v <= s.tree.available(ctx.cq, fr)
    })
}

/// `classicalPreemptions`: the fewest victims, in Kueue's order, that make room for
/// `requests` (the pairs in `frs` need preemption). Empty when none suffice.
fn classical(s: &mut State, ctx: &Ctx<'_>) -> Vec<Target> {
    let (cands, no_other, no_hierarchical) = candidates(s, ctx);
    let forbidden =
        ctx.policy.spec.preemption.borrow_within_cohort.policy == PreemptionPolicy::Never;
    // queueUnderNominalInResourcesNeedingPreemption.
    let under_nominal = ctx.frs.iter().all(|fr| {
        let n = &s.tree.nodes[ctx.cq];
        n.quotas.get(fr).map_or(0, |q| q.nominal) > n.used(fr)
    });
    let attempts: &[bool] = if no_other || (forbidden && !under_nominal) {
        &[true]
    } else if forbidden && no_hierarchical {
        &[false, true]
    } else {
        &[true, false]
    };
    for &borrow in attempts {
        let mut targets: Vec<(Target, Holder)> = Vec::new();
        for c in &cands {
            if !s.holders.contains_key(&c.index) || !valid(s, ctx, c, borrow) {
                continue;
            }
            let Some(h) = s.remove(c.index) else { continue };
            targets.push((
                Target {
                    index: c.index,
                    reason: c.variant.reason(),
                },
                h,
            ));
            if fits(s, ctx, borrow) {
                // fillBackWorkloads: put back every victim but the last that is not needed.
                let mut i = targets.len().saturating_sub(1);
                while i > 0 {
                    i -= 1;
                    let h = targets[i].1.clone();
                    s.add(h);
                    if fits(s, ctx, borrow) {
                        targets.swap_remove(i);
                    } else {
                        s.remove(targets[i].0.index);
                    }
                }
                let out = targets.iter().map(|(t, _)| t.clone()).collect();
                for (_, h) in targets {
                    s.add(h);
                }
                return out;
            }
        }
        for (_, h) in targets {
            s.add(h);
        }
    }
    Vec::new()
}

/// `Preemptor.GetTargets` for a workload whose assignment needs preemption.
pub(crate) fn targets(
    s: &mut State,
    preemptor: &Info,
    cq: usize,
    assignment: &Assignment,
) -> Vec<Target> {
    let Some(policy) = s.queues.get(&cq).cloned() else {
        return Vec::new();
    };
    let frs: BTreeSet<FlavorResource> = assignment
        .pod_sets
        .iter()
        .flat_map(|p| p.flavors.iter())
        .filter(|(_, c)| c.mode == Mode::Preempt)
        .map(|(r, c)| FlavorResource::new(&c.flavor, r))
        .collect();
    let ctx = Ctx {
        preemptor,
        cq,
        policy: &policy,
        frs,
        requests: assignment.usage.clone(),
    };
    classical(s, &ctx)
}

/// The preemption oracle flavor assignment asks (`PreemptionOracle.SimulatePreemption`).
pub(crate) struct StateOracle<'a> {
    /// The state (restored after each question).
    pub state: &'a mut State,
}

impl Oracle for StateOracle<'_> {
    fn tree(&self) -> &Tree {
        &self.state.tree
    }

    fn simulate(
        &mut self,
        cq: usize,
        wl: &Info,
        fr: &FlavorResource,
        quantity: Amount,
    ) -> (Possibility, usize) {
        let Some(policy) = self.state.queues.get(&cq).cloned() else {
            return (Possibility::NoCandidates, 0);
        };
        let ctx = Ctx {
            preemptor: wl,
            cq,
            policy: &policy,
            frs: BTreeSet::from([fr.clone()]),
            requests: BTreeMap::from([(fr.clone(), quantity)]),
        };
        let found = classical(self.state, &ctx);
        if found.is_empty() {
            let (borrow, _) = self
                .state
                .tree
                .height_of_lowest_subtree_that_fits(cq, fr, quantity);
            return (Possibility::NoCandidates, borrow);
        }
        let removed: Vec<Holder> = found
            .iter()
            .filter_map(|t| self.state.remove(t.index))
            .collect();
        let (borrow, _) = self
            .state
            .tree
            .height_of_lowest_subtree_that_fits(cq, fr, quantity);
        let same_queue = removed.iter().any(|h| h.cq == cq);
        for h in removed {
            self.state.add(h);
        }
        let p = if same_queue {
            Possibility::Preempt
        } else {
            Possibility::Reclaim
        };
        (p, borrow)
    }
}
