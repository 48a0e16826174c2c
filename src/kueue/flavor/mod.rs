//! Kueue's flavor assignment: for each pod set and resource group of a workload, the first
//! ResourceFlavor (in the ClusterQueue's order) whose nodes the pods may use and whose quota
//! fits, borrowing and preempting as the queue's flavorFungibility allows.
//!
//! A port of `pkg/scheduler/flavorassigner/flavorassigner.go` (`assignFlavors`,
//! `findFlavorForPodSets`, `checkFlavorForPodSets`, `fitsResourceQuota`, `isPreferred`,
//! `shouldTryNextFlavor`, `flavorSelector`) with Kueue's default gates (FlavorFungibility on)
//! and configuration (`quotaCheckStrategy: BlockUndeclared`). Not ported: partial admission
//! (`minCount`), Kueue's topology-aware scheduling, workload slices and concurrent admission.
//! The flavor scan always starts at the first flavor (Kueue resumes a workload's scan where
//! the last cycle left it, which a dry run from a snapshot has no record of).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodSpec as ApiPodSpec;

use super::quota::{Amount, FlavorResource, Tree};
use super::workload::Info;
use crate::sched::selector::{Labels, NodeTaint, NodeTerm, Requirement, Tol};
use crate::snapshot::kueue::{
    ClusterQueue, FungibilityPolicy, PreemptionPolicy, ResourceFlavor, ResourceGroup, Workload,
};

/// How a flavor (or a whole assignment) can be used (`FlavorAssignmentMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Mode {
    /// Neither quota nor preemption can make room.
    NoFit,
    /// Fits after preempting other workloads.
    Preempt,
    /// Fits in the unused quota.
    Fit,
}

/// The finer mode flavors are compared by (`preemptionMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum PreemptionMode {
    NoFit,
    NoCandidates,
    Preempt,
    Reclaim,
    Fit,
}

/// What preemption could do for a flavor (`PreemptionPossibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Possibility {
    /// No workload may be preempted to make room.
    NoCandidates,
    /// Room is made by preempting workloads in the queue or borrowing ones in the cohort.
    Preempt,
    /// Room is made by reclaiming quota lent to the cohort.
    Reclaim,
}

/// The quota state flavor assignment reads, and the answer to "could preemption make room
/// for `quantity` of `fr`?" (`preemptionOracle`).
pub(crate) trait Oracle {
    /// The quota forest with current usage.
    fn tree(&self) -> &Tree;

    /// The possibility, and the borrowing height after the preemptions.
    fn simulate(
        &mut self,
        cq: usize,
        wl: &Info,
        fr: &FlavorResource,
        quantity: Amount,
    ) -> (Possibility, usize);
}

/// An oracle for queues that may not preempt: there are never candidates.
pub(crate) struct NoPreemption<'a>(pub &'a Tree);

impl Oracle for NoPreemption<'_> {
    fn tree(&self) -> &Tree {
        self.0
    }

    fn simulate(
        &mut self,
        cq: usize,
        _: &Info,
        fr: &FlavorResource,
        quantity: Amount,
    ) -> (Possibility, usize) {
        let (borrow, _) = self.0.height_of_lowest_subtree_that_fits(cq, fr, quantity);
        (Possibility::NoCandidates, borrow)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Granular {
    preemption: PreemptionMode,
    borrowing: usize,
}

const WORST: Granular = Granular {
    preemption: PreemptionMode::NoFit,
    borrowing: usize::MAX,
};
const BEST: Granular = Granular {
    preemption: PreemptionMode::Fit,
    borrowing: 0,
};

impl Granular {
    fn mode(self) -> Mode {
        match self.preemption {
            PreemptionMode::NoFit => Mode::NoFit,
            PreemptionMode::Fit => Mode::Fit,
            _ => Mode::Preempt,
        }
    }

    fn is_preempt(self) -> bool {
        matches!(
            self.preemption,
            PreemptionMode::Preempt | PreemptionMode::Reclaim
        )
    }
}

/// `isPreferred`: whether `a` is a better way to use a flavor than `b`.
fn is_preferred(a: Granular, b: Granular, preference: Option<&str>) -> bool {
    if a.preemption == PreemptionMode::NoFit {
        return false;
    }
    if b.preemption == PreemptionMode::NoFit {
        return true;
    }
    let (a_none, b_none) = (
        a.preemption == PreemptionMode::NoCandidates,
        b.preemption == PreemptionMode::NoCandidates,
    );
    if a_none != b_none {
        return !a_none;
    }
    if preference == Some("PreemptionOverBorrowing") {
        if a.borrowing != b.borrowing {
            return a.borrowing < b.borrowing;
        }
        return a.preemption > b.preemption;
    }
    // BorrowingOverPreemption, the default.
    if a.preemption != b.preemption {
        return a.preemption > b.preemption;
    }
    a.borrowing < b.borrowing
}

/// `shouldTryNextFlavor`.
fn should_try_next(mode: Granular, cq: &ClusterQueue) -> bool {
    let f = &cq.spec.flavor_fungibility;
    if matches!(
        mode.preemption,
        PreemptionMode::NoFit | PreemptionMode::NoCandidates
    ) {
        return true;
    }
    if mode.is_preempt() && f.when_can_preempt == FungibilityPolicy::TryNextFlavor {
        return true;
    }
    mode.borrowing != 0 && f.when_can_borrow == FungibilityPolicy::TryNextFlavor
}

/// One resource's flavor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FlavorChoice {
    /// The ResourceFlavor.
    pub flavor: String,
    /// How it is used.
    pub mode: Mode,
    /// Borrowing height (0: within nominal quota).
    pub borrow: usize,
}

/// One pod set's flavors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodSetAssignment {
    /// The pod set.
    pub name: String,
    /// Resource → flavor.
    pub flavors: BTreeMap<String, FlavorChoice>,
    /// Pods.
    pub count: i32,
    /// Why flavors did not fit (Kueue's messages), when the pod set does not simply fit.
    pub reasons: Vec<String>,
    fit: bool,
}

impl PodSetAssignment {
    /// `PodSetAssignment.RepresentativeMode`.
    pub(crate) fn mode(&self) -> Mode {
        if self.fit {
            return Mode::Fit;
        }
        self.flavors
            .values()
            .map(|f| f.mode)
            .min()
            .unwrap_or(Mode::NoFit)
    }
}

/// A workload's flavor assignment (`Assignment`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Assignment {
    /// Per pod set, in order.
    pub pod_sets: Vec<PodSetAssignment>,
    /// Quota it would charge, per (flavor, resource).
    pub usage: BTreeMap<FlavorResource, Amount>,
    /// The highest borrowing height of its flavors.
    pub borrowing: usize,
}

impl Assignment {
    /// `Assignment.RepresentativeMode`: the worst pod set's mode.
    pub(crate) fn mode(&self) -> Mode {
        self.pod_sets
            .iter()
            .map(PodSetAssignment::mode)
            .min()
            .unwrap_or(Mode::NoFit)
    }

    /// Every pod set's reasons, in order, without repeats.
    pub(crate) fn reasons(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in self.pod_sets.iter().flat_map(|p| &p.reasons) {
            if !out.contains(r) {
                out.push(r.clone());
            }
        }
        out
    }
}

/// Everything flavor assignment reads besides the workload.
pub(crate) struct Context<'a> {
    /// The ClusterQueue.
    pub cq: &'a ClusterQueue,
    /// Its node in `tree`.
    pub cq_node: usize,
    /// ResourceFlavors by name.
    pub flavors: &'a BTreeMap<String, &'a ResourceFlavor>,
}

impl Context<'_> {
    fn group_of(&self, resource: &str) -> Option<&ResourceGroup> {
        self.cq
            .spec
            .resource_groups
            .iter()
            .find(|g| g.covered_resources.iter().any(|r| r == resource))
    }

    /// `canPreemptWhileBorrowing` (fair sharing off).
    fn can_preempt_while_borrowing(&self) -> bool {
        self.cq.spec.preemption.borrow_within_cohort.policy != PreemptionPolicy::Never
    }
}

/// `assignFlavors` for a workload's full counts.
pub(crate) fn assign(
    ctx: &Context<'_>,
    wl: &Info,
    obj: &Workload,
    oracle: &mut dyn Oracle,
) -> Assignment {
    let mut a = Assignment::default();
    let counts_pods = ctx.group_of("pods").is_some();
    for (i, ps) in wl.pod_sets.iter().enumerate() {
        let mut requests = ps.total.clone();
        if counts_pods {
            requests.insert("pods".to_owned(), i64::from(ps.count));
        }
        let spec = obj
            .spec
            .pod_sets
            .get(i)
            .and_then(|p| p.template.spec.as_ref());
        let mut flavors: BTreeMap<String, FlavorChoice> = BTreeMap::new();
        let mut reasons = Vec::new();
        let mut failed = false;
        for (resource, quantity) in &requests {
            if ctx.group_of(resource).is_none() && *quantity == 0 {
                continue;
            }
            if flavors.contains_key(resource) {
                continue;
            }
            let (found, status) = find_flavor(ctx, wl, spec, &requests, resource, &a.usage, oracle);
            reasons.extend(status.iter().cloned());
            if found.is_empty() {
                failed = true;
                flavors.clear();
                break;
            }
            flavors.extend(found);
        }
        let fit = !failed && reasons.is_empty();
        let psa = PodSetAssignment {
            name: ps.name.clone(),
            flavors,
            count: ps.count,
            reasons,
            fit,
        };
        // Assignment.append: charge the requests to the chosen flavors.
        for (resource, choice) in &psa.flavors {
            a.borrowing = a.borrowing.max(choice.borrow);
            *a.usage
                .entry(FlavorResource::new(&choice.flavor, resource))
                .or_insert(0) += requests.get(resource).copied().unwrap_or(0);
        }
        let stop = failed || (psa.flavors.is_empty() && !requests.is_empty());
        a.pod_sets.push(psa);
        if stop {
            return a;
        }
    }
    a
}

/// `findFlavorForPodSets` for one resource: the flavors of its whole resource group, or none
/// with the reasons.
fn find_flavor(
    ctx: &Context<'_>,
    wl: &Info,
    spec: Option<&ApiPodSpec>,
    requests: &BTreeMap<String, Amount>,
    resource: &str,
    assigned: &BTreeMap<FlavorResource, Amount>,
    oracle: &mut dyn Oracle,
) -> (BTreeMap<String, FlavorChoice>, Vec<String>) {
    let Some(group) = ctx.group_of(resource) else {
        return (
            BTreeMap::new(),
            vec![format!("resource {resource} unavailable in ClusterQueue")],
        );
    };
    let covered: BTreeMap<&String, &Amount> = requests
        .iter()
        .filter(|(r, _)| group.covered_resources.contains(r))
        .collect();
    let preference = ctx.cq.spec.flavor_fungibility.preference.as_deref();
    let mut reasons = Vec::new();
    let mut best: BTreeMap<String, FlavorChoice> = BTreeMap::new();
    let mut best_mode = WORST;
    for fq in &group.flavors {
        let name = &fq.name;
        if let Err(why) = check_flavor(ctx, name, spec) {
            reasons.push(why);
            continue;
        }
        let mut assignments = BTreeMap::new();
        let mut representative = BEST;
        for (r, v) in &covered {
            let fr = FlavorResource::new(name, r);
            let already = assigned.get(&fr).copied().unwrap_or(0);
            let (mode, borrow, why) = fits_quota(ctx, wl, &fr, already, **v, oracle);
            reasons.extend(why);
            let g = Granular {
                preemption: mode,
                borrowing: borrow,
            };
            if is_preferred(representative, g, preference) {
                representative = g;
            }
            if representative.preemption == PreemptionMode::NoFit {
                continue;
            }
            assignments.insert(
                (*r).clone(),
                FlavorChoice {
                    flavor: name.clone(),
                    mode: g.mode(),
                    borrow,
                },
            );
        }
        if !should_try_next(representative, ctx.cq) {
            best = assignments;
            best_mode = representative;
            break;
        }
        if is_preferred(representative, best_mode, preference) {
            best = assignments;
            best_mode = representative;
        }
    }
    if best_mode.preemption == PreemptionMode::Fit {
        return (best, Vec::new());
    }
    if best_mode.preemption == PreemptionMode::NoFit {
        best.clear();
    }
    (best, reasons)
}

/// `checkFlavorForPodSets`: the flavor exists, its taints are tolerated (NoSchedule and
/// NoExecute, by the pods' and the flavor's tolerations) and the pods' node selector and
/// required node affinity, restricted to the flavor's label keys, match its labels.
fn check_flavor(ctx: &Context<'_>, name: &str, spec: Option<&ApiPodSpec>) -> Result<(), String> {
    let Some(flavor) = ctx.flavors.get(name) else {
        return Err(format!("flavor {name} not found"));
    };
    let tolerations: Vec<Tol> = spec
        .and_then(|s| s.tolerations.as_ref())
        .into_iter()
        .flatten()
        .chain(&flavor.spec.tolerations)
        .map(Tol::compile)
        .collect();
    for t in &flavor.spec.node_taints {
        if t.effect != "NoSchedule" && t.effect != "NoExecute" {
            continue;
        }
        let taint = NodeTaint::compile(t);
        if !taint.tolerated_by(&tolerations) {
            // Kueue formats the corev1.Taint value with `%s`: Go prints the struct's fields.
            let shown = format!(
                "{{{} {} {} <nil>}}",
                t.key,
                t.value.as_deref().unwrap_or_default(),
                t.effect
            );
            return Err(format!("untolerated taint {shown} in flavor {name}"));
        }
    }
    if let Some(spec) = spec
        && !selector_matches(spec, &flavor.spec.node_labels)
    {
        return Err(format!("flavor {name} doesn't match node affinity"));
    }
    Ok(())
}

/// `flavorSelector` then `RequiredNodeAffinity.Match` on a node carrying only the flavor's
/// labels: nodeSelector entries and affinity expressions on keys the flavor does not set are
/// ignored; a term left with none of its expressions drops the whole affinity.
fn selector_matches(spec: &ApiPodSpec, labels: &BTreeMap<String, String>) -> bool {
    let node: Labels = labels.clone();
    for (k, v) in spec.node_selector.iter().flatten() {
        if labels.contains_key(k) && labels.get(k) != Some(v) {
            return false;
        }
    }
    let terms = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| {
            n.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .map(|r| r.node_selector_terms.as_slice())
        .unwrap_or_default();
    let mut kept = Vec::new();
    for t in terms {
        let exprs: Vec<Requirement> = t
            .match_expressions
            .iter()
            .flatten()
            .filter(|e| labels.contains_key(&e.key))
            .map(|e| Requirement::compile(&e.key, &e.operator, e.values.as_ref()))
            .collect();
        if exprs.is_empty() {
            return true;
        }
        kept.push(NodeTerm {
            labels: exprs,
            fields: Vec::new(),
        });
    }
    kept.is_empty() || kept.iter().any(|t| t.matches("", &node))
}

/// `fitsResourceQuota`: the mode and borrowing height of `requested` more of `fr` on top of
/// `assumed` already assigned to earlier pod sets, with Kueue's messages when it does not fit.
fn fits_quota(
    ctx: &Context<'_>,
    wl: &Info,
    fr: &FlavorResource,
    assumed: Amount,
    requested: Amount,
    oracle: &mut dyn Oracle,
) -> (PreemptionMode, usize, Option<String>) {
    let tree = oracle.tree();
    let cq = ctx.cq_node;
    let available = tree.available(cq, fr);
    let max_capacity = tree.potential_available(cq, fr);
    let val = assumed + requested;
    if val > max_capacity {
        return (
            PreemptionMode::NoFit,
            0,
            Some(format!(
                "insufficient quota for {} in flavor {}, previously considered podsets requests ({}) + current podset request ({}) > maximum capacity ({})",
                fr.resource,
                fr.flavor,
                show(&fr.resource, assumed),
                show(&fr.resource, requested),
                show(&fr.resource, max_capacity)
            )),
        );
    }
    let (borrow, may_reclaim) = tree.height_of_lowest_subtree_that_fits(cq, fr, val);
    if val <= available {
        return (PreemptionMode::Fit, borrow, None);
    }
    let why = format!(
        "insufficient unused quota for {} in flavor {}, {} more needed",
        fr.resource,
        fr.flavor,
        show(&fr.resource, val - available)
    );
    let nominal = tree.nodes[cq].quotas.get(fr).map_or(0, |q| q.nominal);
    if nominal >= val || may_reclaim || ctx.can_preempt_while_borrowing() {
        let (p, borrow_after) = oracle.simulate(cq, wl, fr, val);
        let mode = match p {
            Possibility::NoCandidates => PreemptionMode::NoCandidates,
            Possibility::Preempt => PreemptionMode::Preempt,
            Possibility::Reclaim => PreemptionMode::Reclaim,
        };
        return (mode, borrow_after, Some(why));
    }
    (PreemptionMode::NoFit, borrow, Some(why))
}

/// An amount as Kueue's `ResourceFormatter` writes it (a `resource.Quantity`'s canonical
/// form): cpu as a milli quantity, memory-like resources in binary suffixes when exact, other
/// resources as decimal integers.
pub(crate) fn show(resource: &str, v: Amount) -> String {
    if resource == "cpu" {
        return if v % 1000 == 0 {
            (v / 1000).to_string()
        } else {
            format!("{v}m")
        };
    }
    let binary = resource == "memory"
        || resource == "ephemeral-storage"
        || resource.starts_with("hugepages-");
    if binary && v != 0 {
        for (suffix, shift) in [
            ("Ei", 60),
            ("Pi", 50),
            ("Ti", 40),
            ("Gi", 30),
            ("Mi", 20),
            ("Ki", 10),
        ] {
            let unit: i64 = 1 << shift;
            if v % unit == 0 {
                return format!("{}{suffix}", v / unit);
            }
        }
    }
    v.to_string()
}

#[cfg(test)]
mod tests;
