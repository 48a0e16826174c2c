//! `explain`: why a gang is (or would be) unschedulable, in plain words with the numbers, and
//! the smallest change that makes it schedulable.
//!
//! Input: a snapshot, the simulation options, and a target unit. Output: a [`Diagnosis`].
//! It reads the simulator's [`Plan`] and trace — it never re-implements scheduling. Suggested
//! fixes are computed, not guessed: each candidate change (lower minCount, drop the topology
//! constraint, add nodes like an existing one, tolerate a taint, use the PodGroup's claim
//! entry, turn a gate on) is applied to a copy of the snapshot and the simulation is run
//! again; only the changes that make the unit schedulable are reported. Pure: no IO.

use crate::snapshot::ObjKind;
use std::collections::BTreeMap;

use serde::Serialize;

mod findings;
mod fixes;
pub(crate) mod kueue;
pub mod others;
mod verdict;
pub(crate) mod watch;

pub use verdict::Verdict;

use findings::{capacity_findings, links, preemption_findings};
use fixes::verified_fixes;

use crate::graph::{EdgeKind, EdgeState, Graph};
use crate::sched::Options;
use crate::sched::plan::{Outcome, Plan, UnitResult};
use crate::snapshot::ObjRef;
use crate::snapshot::{Snapshot, name_of};

pub(crate) use crate::report::Severity;

/// One thing explain found about the unit (JSON `findings[]`): stable ID, severity, a
/// headline, the numbers behind it and, when there is something to do, what.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable ID (`WASE###`).
    pub id: &'static str,
    /// How bad it is; a diagnosis lists its findings errors first.
    pub severity: Severity,
    /// The finding in one line (the text view's headline; `detail` follows it).
    pub title: String,
    /// The details, with numbers.
    pub detail: String,
    /// Structured evidence (counts, nodes, domains, devices).
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub evidence: serde_json::Value,
    /// What to do, when there is something to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// Members that fit in one topology domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainFit {
    /// The topology key, a node label key (e.g. `topology.kubernetes.io/zone`).
    pub key: String,
    /// The key's value on the domain's nodes.
    pub value: String,
    /// Members that fit there at once.
    pub placeable: u32,
}

/// How many members fit versus how many are needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fit {
    /// `minCount` (1 for basic groups and pods).
    pub min_count: u32,
    /// Members that fit at once on the current cluster, ignoring preemption (best domain when
    /// the group has a topology constraint).
    pub placeable: u32,
    /// Per topology domain; omitted without a topology constraint.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<DomainFit>,
    /// True when the unit was held before scheduling and never tried: `placeable` is then 0
    /// and says nothing about the cluster. Omitted when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub held: bool,
}

/// How many domains the text view names before it summarises the rest: a 5,000-node cluster has
/// hundreds of racks, and a line per rack buries the answer (`-o json` keeps them all).
pub(crate) const DOMAINS_SHOWN: usize = 8;

impl Fit {
    /// The domains a text view shows and how many it leaves out: see [`leading`].
    #[must_use]
    pub(crate) fn leading_domains(&self, limit: usize) -> (Vec<&DomainFit>, usize) {
        leading(&self.domains, limit, |d| u64::from(d.placeable))
    }
}

/// The items a text view shows and how many it leaves out. Up to `limit` items come in the
/// report's order; past that, the `limit` with the highest `score` (ties in the report's order),
/// so the best candidates are never among the ones left out.
#[must_use]
pub(crate) fn leading<T>(items: &[T], limit: usize, score: impl Fn(&T) -> u64) -> (Vec<&T>, usize) {
    if items.len() <= limit {
        return (items.iter().collect(), 0);
    }
    let mut best: Vec<&T> = items.iter().collect();
    // Stable: equal scores keep the report's order.
    best.sort_by_key(|t| std::cmp::Reverse(score(t)));
    best.truncate(limit);
    (best, items.len() - limit)
}

/// The diagnosis of one unit (`kind: Diagnosis`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// The unit explained, written `Kind/namespace/name`.
    #[serde(serialize_with = "unit_path")]
    pub target: ObjRef,
    /// The answer, in explain's documented words (see [`Verdict`]).
    pub verdict: Verdict,
    /// The simulator's outcome for the unit, the word simulate, tree and the TUI print for it;
    /// absent when nothing of the unit is pending (verdict `Scheduled`: already running).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The simulator's message for the unit; omitted when empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Findings, most decisive first.
    pub findings: Vec<Finding>,
    /// Filter reason → node count, over the members that found no node; omitted when none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub node_reasons: BTreeMap<String, u32>,
    /// Members (child groups for a CompositePodGroup) that fit at once against the quorum; for
    /// a gang short of members, from a trial with the members it has.
    pub fit: Fit,
    /// Verified fixes: each makes the unit schedulable on its own; omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<String>,
    /// What the simulation assumed; omitted when nothing was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumed: Vec<String>,
    /// What admission changed on the manifests among the input (as simulate's
    /// `settings.admitted`); omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub admitted: Vec<crate::snapshot::Admitted>,
    /// The modelling notes that could have changed this unit's answer (as simulate's
    /// `settings.relevantNotes`); omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) relevant_notes: Vec<crate::notes::NoteUse>,
    /// The kube-scheduler feature gates the simulation used (WAS-relevant ones).
    pub feature_gates: BTreeMap<String, bool>,
    /// Set when the scheduler takes gangs pod by pod (GenericWorkload off): why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_by_pod: Option<String>,
    /// The scheduler profile of the unit (its `schedulerName`); omitted for
    /// `default-scheduler`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub profile: String,
    /// How that profile scores nodes, when it is not the default profile
    /// (`profile gpu-binpack: MostAllocated on nvidia.com/gpu`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scoring: Option<String>,
    /// The scheduler configuration's extenders (`urlPrefix`): not simulated, so the verdict
    /// may differ when one filters, scores or binds the unit's pods (omitted when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extenders: Vec<String>,
}

/// The notes relevant to `units` and the plan's settings (`Settings::notes_for`).
fn notes_of<'a>(
    plan: &Plan,
    units: impl IntoIterator<Item = &'a UnitResult>,
) -> Vec<crate::notes::NoteUse> {
    plan.settings.notes_for(units)
}

/// The unit's profile name (empty for `default-scheduler`) and, when the profile is not the
/// default one, how it scores nodes (from the plan's `settings.profiles`).
pub(crate) fn profile_of(plan: &Plan, profile: &str) -> (String, Option<String>) {
    let name = if profile == crate::sched::profile::DEFAULT_SCHEDULER_NAME {
        ""
    } else {
        profile
    };
    let prefix = format!(
        "profile {}:",
        if profile.is_empty() {
            crate::sched::profile::DEFAULT_SCHEDULER_NAME
        } else {
            profile
        }
    );
    let scoring = plan
        .settings
        .profiles
        .iter()
        .find(|p| p.starts_with(&prefix))
        .cloned();
    (name.to_owned(), scoring)
}

impl Diagnosis {
    /// The outcome reports print for the unit: the simulator's, or `Scheduled` for a unit
    /// already running (nothing pending).
    #[must_use]
    pub(crate) fn shown_outcome(&self) -> Outcome {
        self.outcome.unwrap_or(Outcome::Scheduled)
    }

    /// The fit in one line, as the text views print it: "4 member(s) fit at once (ignoring
    /// preemption), minCount 6"; a CompositePodGroup counts child groups against
    /// minGroupCount; a unit never tried says so instead of "0 fit".
    #[must_use]
    pub(crate) fn fit_line(&self) -> String {
        let (members, min) = if self.target.kind == ObjKind::CompositePodGroup {
            ("child group(s)", "minGroupCount")
        } else {
            ("member(s)", "minCount")
        };
        if self.fit.held {
            format!(
                "not tried (held before scheduling), {min} {}",
                self.fit.min_count
            )
        } else {
            format!(
                "{} {members} fit at once (ignoring preemption), {min} {}",
                self.fit.placeable, self.fit.min_count
            )
        }
    }
}

/// `Kind/namespace/name` of a unit, as explain writes its target (the namespace always
/// written, empty or not).
pub(crate) fn unit_text(r: &ObjRef) -> String {
    format!("{}/{}/{}", r.kind, r.namespace, r.name)
}

/// Serializes a unit as [`unit_text`] writes it.
fn unit_path<S: serde::Serializer>(r: &ObjRef, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&unit_text(r))
}

/// The units a target stands for, from the graph: a pod → its group's root (or itself), a
/// Workload or Job → its groups.
pub(crate) fn units_of(g: &Graph, r: &ObjRef) -> Vec<ObjRef> {
    // The root the simulator queues: a PodGroup in a structurally invalid tree (a cycle, or
    // deeper than MAX_HIERARCHY_DEPTH levels with the PodGroup counted) is a unit of its own,
    // as `snapshot::hierarchy::walk_up` makes it.
    let up = |r: &ObjRef| -> ObjRef {
        let max = crate::snapshot::hierarchy::MAX_HIERARCHY_DEPTH;
        let mut cur = r.clone();
        let mut seen = vec![r.clone()];
        loop {
            let next = g
                .outgoing(&cur, Some(EdgeKind::Parent))
                .find(|e| e.state == EdgeState::Resolved)
                .map(|e| e.to.clone());
            match next {
                Some(n) if seen.contains(&n) || seen.len() >= max => return r.clone(),
                Some(n) => {
                    seen.push(n.clone());
                    cur = n;
                }
                None => return cur,
            }
        }
    };
    match r.kind {
        ObjKind::Pod => {
            let group = g
                .outgoing(r, Some(EdgeKind::SchedulingGroup))
                .find(|e| e.state == EdgeState::Resolved)
                .map(|e| up(&e.to));
            match group {
                Some(root) => vec![r.clone(), root],
                None => vec![r.clone()],
            }
        }
        ObjKind::PodGroup | ObjKind::CompositePodGroup => {
            vec![up(r)]
        }
        ObjKind::Workload | ObjKind::Job => {
            let mut out = Vec::new();
            let workloads: Vec<ObjRef> = if r.kind == ObjKind::Job {
                g.incoming(r, Some(EdgeKind::ControllerRef))
                    .map(|e| e.from.clone())
                    .collect()
            } else {
                vec![r.clone()]
            };
            for w in &workloads {
                for e in g.incoming(w, Some(EdgeKind::WorkloadRef)) {
                    let root = up(&e.from);
                    if !out.contains(&root) {
                        out.push(root);
                    }
                }
            }
            for e in g
                .incoming(r, Some(EdgeKind::Owner))
                .filter(|e| e.from.kind == ObjKind::PodGroup)
            {
                let root = up(&e.from);
                if !out.contains(&root) {
                    out.push(root);
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// `explain TYPE/NAME` for any target kind, as the CLI and the TUI give it: the units `target`
/// stands for ([`units_of`]) and a diagnosis of each, on `graph` (of `s`) and `prepared` (from
/// `s` with `options`, not run yet).
///
/// A pod in a group is explained as its group; a suspended manifest Job, which has no groups
/// yet, as its own unit (Suspended). Each unit but the last runs on a clone of `prepared` and
/// the last on `prepared` itself, so a one-unit explain holds one compiled state; the caller
/// frees `prepared` (at 150,000 pods that takes a while, which a command about to exit need
/// not wait for). Errs with the sentence to show when the target stands for no unit.
pub(crate) fn explain_target(
    s: &Snapshot,
    graph: &Graph,
    prepared: &mut crate::sched::Prepared<'_>,
    options: &Options,
    target: &ObjRef,
) -> Result<Vec<Diagnosis>, String> {
    let mut units = units_of(graph, target);
    // A suspended Job has no pods (a manifest's, or a stored one's): its own unit (Suspended)
    // is explained, not a group of it without pods.
    if target.kind == ObjKind::Job && prepared.queued().iter().any(|u| u.is(target)) {
        units = vec![target.clone()];
    }
    // A pod in a group: explain the group; a pod of its own: the pod.
    if target.kind == ObjKind::Pod && units.len() > 1 {
        units.remove(0);
    }
    if units.is_empty() {
        return Err(format!(
            "{} `{}` has no PodGroup to explain",
            target.kind, target.name
        ));
    }
    let last = units.len() - 1;
    Ok(units
        .iter()
        .enumerate()
        .map(|(i, unit)| {
            let mut copy = (i != last).then(|| prepared.clone());
            explain_prepared(
                s,
                graph,
                copy.as_mut().unwrap_or(&mut *prepared),
                options,
                unit,
            )
        })
        .collect())
}

fn schedulable(plan: &Plan, target: &ObjRef) -> bool {
    plan.unit(target)
        .is_some_and(|u| u.outcome == Outcome::Scheduled)
}

/// Whether the unit `target` is Scheduled when the queue runs on `s` (a candidate fix's
/// copy). The queue runs only up to that unit: the units after it in queue order cannot change
/// its answer, so a fix costs the units before it, not the whole queue. When the target is not
/// a unit of its own (a PodGroup under a CompositePodGroup), the whole queue runs.
fn schedulable_in(s: &Snapshot, options: &Options, target: &ObjRef) -> bool {
    schedulable_run(crate::sched::prepare(s, options), target)
}

/// [`schedulable_in`] on a simulation already prepared.
fn schedulable_run(mut prepared: crate::sched::Prepared<'_>, target: &ObjRef) -> bool {
    let plan = prepared.run_until(|u| u.is(target));
    schedulable(&plan, target)
}

/// Explains one group root or pod unit, `target`.
pub fn explain(s: &Snapshot, options: &Options, target: &ObjRef) -> Diagnosis {
    let (graph, mut prepared) = Graph::build_beside(s, || crate::sched::prepare(s, options));
    explain_prepared(s, &graph, &mut prepared, options, target)
}

/// [`explain`] on a graph and a prepared simulation the caller already has (built from `s`,
/// `prepared` with `options`, and not run yet): a command explaining several units, or one
/// that builds both at once on two cores, builds them once. `prepared` is run up to the unit's
/// turn (the checkpoint the fixes resume from), so a caller explaining several units passes
/// a clone for each; the caller frees it (at 150,000 pods that takes a while, which a
/// command about to exit need not wait for).
pub(crate) fn explain_prepared(
    s: &Snapshot,
    graph: &Graph,
    prepared: &mut crate::sched::Prepared<'_>,
    options: &Options,
    target: &ObjRef,
) -> Diagnosis {
    let (unstarted, plan) = run_to_target(prepared, target);
    let checkpoint = prepared;
    let (kind, namespace, name) = (
        &target.kind,
        target.namespace.as_str(),
        target.name.as_str(),
    );
    let Some(unit) = plan.unit(target).cloned() else {
        if *kind == ObjKind::PodGroup {
            let members: Vec<&UnitResult> = s
                .index
                .pods_by_group
                .get(namespace, name)
                .iter()
                .filter_map(|i| {
                    plan.unit(&ObjRef::new(
                        ObjKind::Pod,
                        namespace,
                        name_of(&s.pods[*i].metadata),
                    ))
                })
                .collect();
            if !members.is_empty() {
                return pod_by_pod(s, options, graph, &plan, target, &members);
            }
        }
        return running(s, &plan, target);
    };
    let verdict = Verdict::from(unit.outcome);
    let mut findings = Vec::new();
    links(s, options, graph, &plan, target, &unit, &mut findings);
    let (node_reasons, mut fit) = reasons_and_fit(s, &unit);
    if matches!(unit.outcome, Outcome::Unschedulable | Outcome::Preempting) {
        capacity_findings(s, &unit, &fit, &node_reasons, &mut findings);
    }
    if matches!(unit.outcome, Outcome::Waiting | Outcome::Suspended) {
        held_fit(s, checkpoint, &unit, &mut fit, &mut findings);
    }
    if unit.outcome == Outcome::Suspended {
        findings.push(suspended_finding(&unit));
    }
    if unit.outcome == Outcome::Error {
        findings.push(error_finding(&unit));
    }
    preemption_findings(s, &unit, &mut findings);
    let fixes = if matches!(
        unit.outcome,
        Outcome::Unschedulable | Outcome::Error | Outcome::Preempting | Outcome::Waiting
    ) {
        let compiled = fixes::Compiled {
            checkpoint,
            unstarted: unstarted.as_ref(),
        };
        verified_fixes(s, &compiled, options, &unit, &fit, &node_reasons, &plan)
    } else {
        Vec::new()
    };
    if fixes.iter().any(|f| f.contains(fixes::DRA_PREEMPTION)) {
        // Verified: with the gate on, preemption frees the devices. Say why it does not now.
        findings.push(dra_preemption_off(&unit));
        // "preemption would not help" is true only as the gate stands: this finding says why.
        findings.retain(|f| f.id != "WASE031");
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    Diagnosis {
        target: target.clone(),
        verdict,
        outcome: Some(unit.outcome),
        message: unit.message.clone(),
        findings,
        node_reasons,
        fit,
        fixes,
        assumed: plan.settings.assumed.clone(),
        relevant_notes: notes_of(&plan, [&unit]),
        admitted: plan.settings.admitted.clone(),
        feature_gates: plan.settings.feature_gates.clone(),
        pod_by_pod: plan.settings.pod_by_pod.clone(),
        profile: profile_of(&plan, &unit.profile).0,
        scoring: profile_of(&plan, &unit.profile).1,
        extenders: plan.settings.extenders.clone(),
    }
}

/// Runs `prepared` up to the target's turn and returns a copy of it from before the run (when
/// it had not run yet) and the plan up to and including the target.
///
/// The queue runs only up to the target: the units after it in queue order cannot change
/// its answer, and nothing below reads their results (a target that is not a unit of its
/// own, pod by pod or already running, never stops the run, so the whole queue runs).
///
/// The units before the target run once, on `prepared`, which is left at the target's turn
/// (the checkpoint): the plan and every fix that changes only the target's own group resume
/// from there (see `with_changed_groups`), so at 150,000 pods a fix costs the target's own
/// cycle, not the queue ahead of it again.
fn run_to_target<'s>(
    prepared: &mut crate::sched::Prepared<'s>,
    target: &ObjRef,
) -> (Option<crate::sched::Prepared<'s>>, Plan) {
    // The add-nodes fix is verified from the start of the queue, on this state not run yet
    // with the nodes compiled in (see `Prepared::with_nodes_added`): a copy is kept, cheaper
    // than compiling the cluster again (the compiled pods are shared).
    let unstarted = (!prepared.has_run()).then(|| prepared.clone());
    let earlier = if prepared.queued().iter().any(|u| u.is(target)) {
        prepared.advance_until(|u| u.is(target))
    } else {
        Vec::new()
    };
    let plan = prepared.clone().plan_after(earlier, |u| u.is(target));
    (unstarted, plan)
}

/// The fit of a unit held before scheduling (Waiting or Suspended), which was never tried:
/// no "0 member(s) fit". A gang short of its quorum is tried with the members it has (see
/// [`quorum_trial`]) and its WASE004 title says how many would fit once the rest exist;
/// otherwise the fit is marked `held`.
fn held_fit(
    s: &Snapshot,
    checkpoint: &crate::sched::Prepared<'_>,
    unit: &UnitResult,
    fit: &mut Fit,
    findings: &mut [Finding],
) {
    match quorum_trial(s, checkpoint, unit) {
        Some(trial) => {
            if let Some(f) = findings.iter_mut().find(|f| f.id == "WASE004") {
                f.title
                    .push_str(&format!("; once they exist, {} would fit", trial.placeable));
            }
            *fit = trial;
        }
        None => fit.held = true,
    }
}

/// WASE007: the simulator answered Error for the unit; the detail is its message.
fn error_finding(unit: &UnitResult) -> Finding {
    Finding {
        id: "WASE007",
        severity: Severity::Error,
        title: "the scheduler would report an error for this group".to_owned(),
        detail: unit.message.clone(),
        evidence: serde_json::Value::Null,
        fix: None,
    }
}

/// WASE032: lower-priority pods hold the devices the unit needs and kube-scheduler 1.37 does
/// not preempt for them with the DRAPreemption gate off (alpha, off by default). Added only
/// when the DRAPreemption fix was verified.
fn dra_preemption_off(unit: &UnitResult) -> Finding {
    Finding {
        id: "WASE032",
        severity: Severity::Warning,
        title: "devices held by lower-priority pods are not preempted for (DRAPreemption is off)"
            .to_owned(),
        detail: format!(
            "the devices this {} needs are held by lower-priority pods, but kube-scheduler 1.37 does not preempt for DRA devices unless the DRAPreemption feature gate is on (alpha, off by default)",
            if unit.kind == ObjKind::Pod {
                "pod"
            } else {
                "gang"
            },
        ),
        evidence: serde_json::json!({"featureGate": fixes::DRA_PREEMPTION, "enabled": false}),
        fix: None,
    }
}

/// The unit's rejections (filter reason → node count, the most over the members that found no
/// node — under a topology constraint, in the domain closest to fitting: see
/// [`UnitResult::failed_attempts`]) and its fit (members that fit at once, per topology
/// domain; for a CompositePodGroup, child groups, counted against `minGroupCount`), from the
/// trace.
fn reasons_and_fit(s: &Snapshot, unit: &UnitResult) -> (BTreeMap<String, u32>, Fit) {
    let (kind, namespace, name) = (&unit.kind, unit.namespace.as_str(), unit.name.as_str());
    let mut node_reasons: BTreeMap<String, u32> = BTreeMap::new();
    for p in unit.failed_attempts() {
        for (r, n) in p.node_reasons.iter() {
            let e = node_reasons.entry(r.to_owned()).or_default();
            *e = (*e).max(n);
        }
    }
    let composite = *kind == ObjKind::CompositePodGroup;
    // A CompositePodGroup counts its child groups that fit, whatever their pods.
    let groups_in = |label: Option<&str>| {
        let placed: std::collections::HashSet<&str> = unit
            .trace
            .pods
            .iter()
            .filter(|p| p.node.is_some() && p.placement.as_deref() == label)
            .map(|p| &*p.pod)
            .collect();
        child_groups_fitting(s, namespace, name, &placed)
    };
    let domains: Vec<DomainFit> = unit
        .own_domains()
        .map(|d| DomainFit {
            key: d.key.clone(),
            value: d.value.clone(),
            placeable: if composite {
                groups_in(Some(&crate::sched::plan::domain_label(d)))
            } else {
                d.placeable
            },
        })
        .collect();
    let placed_first_try = if composite {
        groups_in(None)
    } else {
        u32::try_from(
            unit.trace
                .pods
                .iter()
                .filter(|p| p.node.is_some() && p.placement.is_none())
                .count(),
        )
        .unwrap_or(0)
            + unit.scheduled_before
    };
    // Bound members count in every domain (a CompositePodGroup's are in `groups_in`).
    let before = if composite { 0 } else { unit.scheduled_before };
    let placeable = domains
        .iter()
        .map(|d| d.placeable + before)
        .max()
        .unwrap_or(placed_first_try);
    let min_count = unit
        .min_count
        .or_else(|| min_count_of(s, &unit.obj_ref()))
        .unwrap_or(1);
    let fit = Fit {
        min_count,
        placeable,
        domains,
        held: false,
    };
    (node_reasons, fit)
}

/// How many direct children of CompositePodGroup `ns`/`name` would be satisfied with the pods
/// `placed` added to their bound ones: a PodGroup when its members reach its `minCount` (1 for
/// basic), a CompositePodGroup when its own children reach its `minGroupCount`.
fn child_groups_fitting(
    s: &Snapshot,
    ns: &str,
    name: &str,
    placed: &std::collections::HashSet<&str>,
) -> u32 {
    children_fitting(s, ns, name, placed, true)
}

/// The direct children of CompositePodGroup `ns`/`name` satisfied by the pods `members` (and,
/// with `bound`, every pod bound to a node): see [`child_groups_fitting`].
fn children_fitting(
    s: &Snapshot,
    ns: &str,
    name: &str,
    members: &std::collections::HashSet<&str>,
    bound: bool,
) -> u32 {
    fn fits(
        s: &Snapshot,
        child: &ObjRef,
        members: &std::collections::HashSet<&str>,
        bound: bool,
        depth: usize,
    ) -> bool {
        let (ns, name) = (child.namespace.as_str(), child.name.as_str());
        let min = min_count_of(s, child).unwrap_or(1);
        let have = match child.kind {
            ObjKind::PodGroup => count(s.index.pods_by_group.get(ns, name).iter().filter(|i| {
                let pod = &s.pods[**i];
                members.contains(name_of(&pod.metadata))
                    || (bound && pod.spec.as_ref().is_some_and(|sp| sp.node_name.is_some()))
            })),
            _ if depth < crate::snapshot::hierarchy::MAX_HIERARCHY_DEPTH => {
                level(s, ns, name, members, bound, depth + 1)
            }
            _ => 0,
        };
        have >= min
    }
    fn level(
        s: &Snapshot,
        ns: &str,
        name: &str,
        members: &std::collections::HashSet<&str>,
        bound: bool,
        depth: usize,
    ) -> u32 {
        let pgs = s
            .index
            .pod_groups_by_parent
            .get(ns, name)
            .iter()
            .map(|i| ObjRef::new(ObjKind::PodGroup, ns, name_of(&s.pod_groups[*i].metadata)));
        let cpgs = s
            .index
            .composite_pod_groups_by_parent
            .get(ns, name)
            .iter()
            .map(|i| {
                ObjRef::new(
                    ObjKind::CompositePodGroup,
                    ns,
                    name_of(&s.composite_pod_groups[*i].metadata),
                )
            });
        count(
            pgs.chain(cpgs)
                .filter(|child| fits(s, child, members, bound, depth)),
        )
    }
    level(s, ns, name, members, bound, 1)
}

/// The number of items, as a `u32`.
fn count<T>(items: impl Iterator<Item = T>) -> u32 {
    u32::try_from(items.count()).unwrap_or(u32::MAX)
}

/// The direct child groups of CompositePodGroup `ns`/`name`.
fn child_groups(s: &Snapshot, ns: &str, name: &str) -> u32 {
    count(
        s.index
            .pod_groups_by_parent
            .get(ns, name)
            .iter()
            .chain(s.index.composite_pod_groups_by_parent.get(ns, name).iter()),
    )
}

/// Diagnoses one unit of an existing plan without simulating again: verdict, capacity and
/// preemption findings, rejections and fit, as [`explain`] gives them, but without the
/// reference findings and verified fixes (both re-simulate). `capacity` uses it for the copy
/// that does not fit.
pub(crate) fn diagnose(s: &Snapshot, plan: &Plan, unit: &UnitResult) -> Diagnosis {
    let verdict = Verdict::from(unit.outcome);
    let (node_reasons, mut fit) = reasons_and_fit(s, unit);
    let mut findings = Vec::new();
    if matches!(unit.outcome, Outcome::Unschedulable | Outcome::Preempting) {
        capacity_findings(s, unit, &fit, &node_reasons, &mut findings);
    }
    fit.held = matches!(unit.outcome, Outcome::Waiting | Outcome::Suspended);
    if unit.outcome == Outcome::Suspended {
        findings.push(suspended_finding(unit));
    }
    if unit.outcome == Outcome::Error {
        findings.push(Finding {
            id: "WASE007",
            severity: Severity::Error,
            title: "the scheduler would report an error for this group".to_owned(),
            detail: unit.message.clone(),
            evidence: serde_json::Value::Null,
            fix: None,
        });
    }
    preemption_findings(s, unit, &mut findings);
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    Diagnosis {
        target: unit.obj_ref(),
        verdict,
        outcome: Some(unit.outcome),
        message: unit.message.clone(),
        findings,
        node_reasons,
        fit,
        fixes: Vec::new(),
        assumed: plan.settings.assumed.clone(),
        relevant_notes: notes_of(plan, [unit]),
        admitted: plan.settings.admitted.clone(),
        feature_gates: plan.settings.feature_gates.clone(),
        pod_by_pod: plan.settings.pod_by_pod.clone(),
        profile: profile_of(plan, &unit.profile).0,
        scoring: profile_of(plan, &unit.profile).1,
        extenders: plan.settings.extenders.clone(),
    }
}

/// A gang held at PreEnqueue for want of members (a PodGroup with fewer pods than
/// `minCount`), tried on a copy with `minCount` lowered to the members it has, resumed from
/// `checkpoint` (the state at its turn): its fit then, with the real `minCount`. `None` for
/// any other unit, or when the trial is still held (gates, a claim not generated yet).
fn quorum_trial(
    s: &Snapshot,
    checkpoint: &crate::sched::Prepared<'_>,
    unit: &UnitResult,
) -> Option<Fit> {
    let (known, min) = (unit.known?, unit.min_count?);
    if unit.kind != ObjKind::PodGroup || known == 0 || known >= min {
        return None;
    }
    let mut copy = s.clone();
    if !fixes::set_min_count(&mut copy, &unit.namespace, &unit.name, known) {
        return None;
    }
    let target = unit.obj_ref();
    let plan = checkpoint
        .with_changed_groups(&copy)
        .run_until(|u| u.is(&target));
    let tried = plan
        .unit(&target)
        .filter(|u| !matches!(u.outcome, Outcome::Waiting | Outcome::Error))?;
    let (_, mut fit) = reasons_and_fit(&copy, tried);
    fit.min_count = min;
    Some(fit)
}

/// WASE008: a suspended Job's unit.
fn suspended_finding(unit: &UnitResult) -> Finding {
    Finding {
        id: "WASE008",
        severity: Severity::Info,
        title: "the Job is suspended: no pods until it is resumed".to_owned(),
        detail: format!(
            "spec.suspend is true, so the Job controller creates none of its {} pod(s); set spec.suspend to false (or let its queue admit it) to schedule it",
            unit.pending
        ),
        evidence: serde_json::json!({"pods": unit.pending, "minCount": unit.min_count}),
        fix: None,
    }
}

/// The resource the unplaced members of `unit` ran short of first, and how much `missing`
/// members need of it: (amount as Kubernetes writes it, resource name).
pub(crate) fn shortfall(s: &Snapshot, unit: &UnitResult, missing: u32) -> Option<(String, String)> {
    fixes::shortfall(s, unit, missing)
}

/// A PodGroup whose members the scheduler takes one by one (GenericWorkload off).
fn pod_by_pod(
    s: &Snapshot,
    options: &Options,
    g: &Graph,
    plan: &Plan,
    target: &ObjRef,
    members: &[&UnitResult],
) -> Diagnosis {
    let placed = u32::try_from(
        members
            .iter()
            .filter(|u| u.outcome == Outcome::Scheduled)
            .count(),
    )
    .unwrap_or(0);
    let total = u32::try_from(members.len()).unwrap_or(0);
    let min = min_count_of(s, target).unwrap_or(1);
    let outcome = Outcome::combine(members.iter().map(|u| u.outcome)).unwrap_or(Outcome::Scheduled);
    let mut findings = Vec::new();
    let fake = UnitResult {
        outcome: Outcome::Scheduled,
        ..(*members[0]).clone()
    };
    links(s, options, g, plan, target, &fake, &mut findings);
    if placed > 0 && placed < min {
        findings.push(Finding {
            id: "WASE006",
            severity: Severity::Error,
            title: format!(
                "a partial gang would start: {placed} of {total} pods would bind, minCount {min}"
            ),
            detail:
                "without gang scheduling the placed pods hold their resources while the rest wait"
                    .to_owned(),
            evidence: serde_json::json!({"placed": placed, "pending": total, "minCount": min}),
            fix: Some(
                "enable GenericWorkload in kube-scheduler so the group is placed all-or-nothing"
                    .to_owned(),
            ),
        });
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    Diagnosis {
        target: target.clone(),
        verdict: Verdict::from(outcome),
        outcome: Some(outcome),
        message: {
            let preempting = members
                .iter()
                .filter(|u| u.outcome == Outcome::Preempting)
                .count();
            format!(
                "scheduled pod by pod: {placed} of {total} pending pods would bind{}",
                if preempting > 0 {
                    format!(", {preempting} more after preempting victims")
                } else {
                    String::new()
                }
            )
        },
        findings,
        node_reasons: BTreeMap::new(),
        fit: Fit {
            min_count: min,
            placeable: placed,
            domains: Vec::new(),
            held: false,
        },
        fixes: Vec::new(),
        assumed: plan.settings.assumed.clone(),
        relevant_notes: notes_of(plan, members.iter().copied()),
        admitted: plan.settings.admitted.clone(),
        feature_gates: plan.settings.feature_gates.clone(),
        pod_by_pod: plan.settings.pod_by_pod.clone(),
        profile: profile_of(plan, members.first().map_or("", |u| u.profile.as_str())).0,
        scoring: profile_of(plan, members.first().map_or("", |u| u.profile.as_str())).1,
        extenders: plan.settings.extenders.clone(),
    }
}

/// The gang `minCount` of a PodGroup, or `minGroupCount` of a CompositePodGroup, as the
/// object says (`None` for basic groups and other kinds).
pub(crate) fn min_count_of(s: &Snapshot, r: &ObjRef) -> Option<u32> {
    let (ns, name) = (r.namespace.as_str(), r.name.as_str());
    match r.kind {
        ObjKind::PodGroup => s
            .pod_group(ns, name)?
            .spec
            .scheduling_policy
            .gang
            .as_ref()
            .map(|g| u32::try_from(g.min_count).unwrap_or(0)),
        ObjKind::CompositePodGroup => s
            .composite_pod_group(ns, name)?
            .spec
            .scheduling_policy
            .gang
            .as_ref()
            .map(|g| u32::try_from(g.min_group_count).unwrap_or(0)),
        _ => None,
    }
}

/// A unit that is not in the plan: already running (or nothing to schedule).
fn running(s: &Snapshot, plan: &Plan, target: &ObjRef) -> Diagnosis {
    let (kind, ns, name) = (
        &target.kind,
        target.namespace.as_str(),
        target.name.as_str(),
    );
    let (min, pods): (u32, Vec<usize>) = match kind {
        ObjKind::PodGroup => (
            s.pod_group(ns, name)
                .and_then(|p| p.spec.scheduling_policy.gang.as_ref())
                .map_or(1, |g| u32::try_from(g.min_count).unwrap_or(1)),
            s.index.pods_by_group.get(ns, name).to_vec(),
        ),
        ObjKind::CompositePodGroup => {
            let mut pods = Vec::new();
            for i in s.index.pod_groups_by_parent.get(ns, name) {
                pods.extend_from_slice(
                    s.index
                        .pods_by_group
                        .get(ns, name_of(&s.pod_groups[*i].metadata)),
                );
            }
            let min = s
                .composite_pod_group(ns, name)
                .and_then(|c| c.spec.scheduling_policy.gang.as_ref())
                .map_or(1, |g| u32::try_from(g.min_group_count).unwrap_or(1));
            (min, pods)
        }
        _ => (1, s.index.pods.get(ns, name).into_iter().collect()),
    };
    let phase = |i: &usize| {
        s.pods[*i]
            .status
            .as_ref()
            .and_then(|st| st.phase.clone())
            .unwrap_or_default()
    };
    let is_ready = |i: &usize| {
        s.pods[*i]
            .status
            .as_ref()
            .and_then(|st| st.conditions.as_ref())
            .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
    };
    let running = u32::try_from(pods.iter().filter(|i| phase(i) == "Running").count()).unwrap_or(0);
    let ready = u32::try_from(pods.iter().filter(|i| is_ready(i)).count()).unwrap_or(0);
    let mut findings = Vec::new();
    if *kind == ObjKind::CompositePodGroup {
        // Child groups against minGroupCount, never pods: a child runs when its running
        // members reach its own minCount (a CompositePodGroup child, its minGroupCount).
        let running_pods: std::collections::HashSet<&str> = pods
            .iter()
            .filter(|i| phase(i) == "Running")
            .map(|i| name_of(&s.pods[*i].metadata))
            .collect();
        let groups = child_groups(s, ns, name);
        let up = children_fitting(s, ns, name, &running_pods, false);
        let healthy = up >= min;
        findings.push(Finding {
            id: "WASE010",
            severity: if healthy { Severity::Info } else { Severity::Warning },
            title: format!("{up} of {groups} child group(s) running, minGroupCount {min}"),
            detail: if healthy {
                format!("nothing is pending for this unit: it is running ({running} pod(s) running, {ready} ready). A CompositePodGroup's status stays empty in 1.37; its child groups are counted instead.")
            } else {
                format!("fewer child groups run ({up}) than minGroupCount ({min}): members were lost after the tree was first scheduled; the application may hang")
            },
            evidence: serde_json::json!({"runningGroups": up, "childGroups": groups, "minGroupCount": min, "runningPods": running, "readyPods": ready}),
            fix: (!healthy).then(|| "recreate the missing members (their controller should), or lower minGroupCount if the job can run with fewer".to_owned()),
        });
        return running_diagnosis(plan, target.clone(), findings, min, up);
    }
    let healthy = running >= min;
    findings.push(Finding {
        id: "WASE010",
        severity: if healthy { Severity::Info } else { Severity::Warning },
        title: format!("{running} member(s) running, {ready} ready, minCount {min}"),
        detail: if healthy {
            "nothing is pending for this unit: it is running. PodGroupInitiallyScheduled=True is terminal and says nothing about health; the members are counted instead.".to_owned()
        } else {
            format!("fewer members run ({running}) than minCount ({min}): members were lost after the group was first scheduled; the application may hang")
        },
        evidence: serde_json::json!({"running": running, "ready": ready, "minCount": min}),
        fix: (!healthy).then(|| "recreate the missing members (their controller should), or lower minCount if the job can run with fewer".to_owned()),
    });
    running_diagnosis(plan, target.clone(), findings, min, running)
}

/// The diagnosis of a running unit: `Scheduled`, its health findings, and `placeable` of
/// `min_count` (members, or child groups for a CompositePodGroup) running.
fn running_diagnosis(
    plan: &Plan,
    target: ObjRef,
    findings: Vec<Finding>,
    min_count: u32,
    placeable: u32,
) -> Diagnosis {
    Diagnosis {
        target,
        verdict: Verdict::Scheduled,
        outcome: None,
        message: String::new(),
        findings,
        node_reasons: BTreeMap::new(),
        fit: Fit {
            min_count,
            placeable,
            domains: Vec::new(),
            held: false,
        },
        fixes: Vec::new(),
        assumed: plan.settings.assumed.clone(),
        relevant_notes: notes_of(plan, []),
        admitted: plan.settings.admitted.clone(),
        feature_gates: plan.settings.feature_gates.clone(),
        pod_by_pod: plan.settings.pod_by_pod.clone(),
        profile: String::new(),
        scoring: None,
        extenders: plan.settings.extenders.clone(),
    }
}
