//! `diff`: two snapshots simulated with the same settings, and per unit what changed between
//! the two plans (newly unschedulable, newly schedulable, another domain, other victims, another
//! reason) with the causes: the changes between the snapshots that the unit's filters looked at.
//!
//! Input: the OLD and NEW snapshots and their plans (simulated by the caller with the same
//! [`crate::sched::Options`]). Output: a [`PlanDiff`] (`kind: PlanDiff`). Every outcome comes
//! from [`Plan::outcome_of`]; the "why" of each rejection from the unit's trace, which says which
//! kinds of change can matter to it (a unit rejected for `Insufficient nvidia.com/gpu` looks at
//! allocatable amounts and running pods, one rejected for an untolerated taint at taints).
//! Pure: no IO.

use crate::snapshot::{ObjKind, ObjRef};
use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Node;
use serde::Serialize;

use crate::sched::filter::{
    inter_pod_affinity, node_affinity, node_resources_fit, node_unschedulable, taint_toleration,
};
use crate::sched::plan::{Outcome, Plan, UnitResult};
use crate::snapshot::{Snapshot, Warning, name_of, namespace_of};

/// Causes listed per unit at most; the rest are counted.
const MAX_CAUSES: usize = 12;

/// The report (`kind: PlanDiff`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlanDiff {
    /// Units whose simulated answer changed, in a stable order (kind, namespace, name).
    pub units: Vec<UnitChange>,
    /// How many units changed, and how many of them became unschedulable or schedulable.
    pub summary: DiffSummary,
    /// Where OLD and NEW came from and the simulation settings both were run with.
    pub settings: DiffSettings,
    /// Loader warnings of both sides (prefixed `OLD:`/`NEW:`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// One unit whose answer changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UnitChange {
    /// `PodGroup`, `CompositePodGroup` or `Pod`.
    pub kind: ObjKind,
    /// The unit's namespace.
    pub namespace: String,
    /// The unit's name.
    pub name: String,
    /// The outcome in OLD: `Scheduled`, `Unschedulable`, `Waiting`, `Preempting`, `Error`,
    /// `NotPending` (the object exists and nothing of it is pending) or `Absent`.
    pub before: String,
    /// The outcome in NEW, in the same terms.
    pub after: String,
    /// How the answer changed (newly unschedulable, newly schedulable, moved, …).
    pub change: Change,
    /// The changes between the snapshots that the unit's filters looked at.
    pub causes: Vec<String>,
    /// The topology domain chosen in OLD (`key=value`), when the unit has a constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_domain: Option<String>,
    /// The topology domain chosen in NEW.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_domain: Option<String>,
    /// The simulator's message in OLD, when it has one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub before_message: String,
    /// The simulator's message in NEW, when it has one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub after_message: String,
}

/// How a unit's answer changed between OLD and NEW (each listed unit has one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) enum Change {
    /// Placed (or placeable by preemption, or running) in OLD; Unschedulable, Error or Waiting
    /// (held before scheduling) in NEW.
    NewlyUnschedulable,
    /// Unschedulable, Error or Waiting in OLD; placed in NEW.
    NewlySchedulable,
    /// Another outcome (e.g. Scheduled → Preempting, Unschedulable → Waiting).
    OutcomeChanged,
    /// Placed in both, in another topology domain.
    DomainChanged,
    /// Placed in both, on other nodes.
    PlacementChanged,
    /// Preempting in both, with other victims.
    VictimsChanged,
    /// The same outcome for another reason (the simulator's message changed).
    ReasonChanged,
    /// Pending only in NEW.
    Added,
    /// Pending only in OLD, and gone in NEW.
    Removed,
}

/// The counts of a diff (`summary` in JSON); `diff`'s exit code reads `newlyUnschedulable`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiffSummary {
    /// Units listed (every unit whose answer changed).
    pub changed: u32,
    /// Of which newly unschedulable (`diff` exits 1 when this is not 0).
    pub newly_unschedulable: u32,
    /// Of which newly schedulable.
    pub newly_schedulable: u32,
}

impl DiffSummary {
    /// The summary of `units`, each counted once under its [`Change`].
    pub(crate) fn of(units: &[UnitChange]) -> Self {
        let with = |c: Change| count(units.iter().filter(|u| u.change == c).count());
        Self {
            changed: count(units.len()),
            newly_unschedulable: with(Change::NewlyUnschedulable),
            newly_schedulable: with(Change::NewlySchedulable),
        }
    }
}

/// The settings of a diff (`settings` in JSON): both sources, and the simulation settings
/// they share (gates per side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiffSettings {
    /// Where OLD came from.
    pub from: String,
    /// Where NEW came from.
    pub to: String,
    /// The simulation's mode (the same for both).
    pub mode: crate::sched::schedule_one::Mode,
    /// Whether preemption was simulated.
    pub preemption: bool,
    /// kube-scheduler's WAS gates in OLD.
    pub feature_gates_before: BTreeMap<String, bool>,
    /// kube-scheduler's WAS gates in NEW.
    pub feature_gates_after: BTreeMap<String, bool>,
    /// What had to be assumed (both sides, deduplicated); omitted when nothing was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumed: Vec<String>,
    /// The modelling notes that could have changed the answer of a unit that changed (on
    /// either side), as simulate's `settings.relevantNotes`; omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) relevant_notes: Vec<crate::notes::NoteUse>,
}

/// Which kinds of change a unit's filters look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Aspect {
    /// Nodes appearing or vanishing: every unit looks at the node list.
    Nodes,
    /// `spec.unschedulable`.
    Cordon,
    /// Taints (`key=value:Effect`) added or removed.
    Taints,
    /// Labels (node affinity, selectors, topology domains, spread).
    Labels,
    /// Allocatable amounts and the pods running on a node.
    Resources,
    /// ResourceSlices and claim allocations.
    Devices,
}

/// One change between the snapshots, on one node (or cluster-wide).
#[derive(Debug, Clone)]
struct NodeChange {
    node: Option<String>,
    aspect: Aspect,
    text: String,
}

/// Compares two simulated snapshots. `from`/`to` name the sources for the report.
pub(crate) fn diff(
    old: &Snapshot,
    old_plan: &Plan,
    new: &Snapshot,
    new_plan: &Plan,
    sources: (&str, &str),
    preemption: bool,
) -> PlanDiff {
    let node_changes = node_changes(old, new);
    let gate_changes = gate_changes(old_plan, new_plan);
    let keys: BTreeSet<ObjRef> = old_plan
        .units
        .iter()
        .chain(&new_plan.units)
        .map(UnitResult::obj_ref)
        .collect();
    let mut units = Vec::new();
    // The notes of the units that changed, on either side.
    let mut note_uses = old_plan.settings.notes_for([]);
    note_uses.extend(new_plan.settings.notes_for([]));
    for key in keys {
        let before = outcome(old, old_plan, &key);
        let after = outcome(new, new_plan, &key);
        let (u_old, u_new) = (old_plan.unit(&key), new_plan.unit(&key));
        let Some(change) = classify(&before, &after, u_old, u_new) else {
            continue;
        };
        let mut causes = gate_changes.clone();
        causes.extend(own_changes(old, new, &key));
        note_uses.extend(old_plan.settings.notes_for(u_old));
        note_uses.extend(new_plan.settings.notes_for(u_new));
        let aspects = aspects(u_old, u_new);
        let nodes: BTreeSet<&str> = u_old
            .into_iter()
            .chain(u_new)
            .flat_map(|u| u.placements.iter().map(|p| p.node.as_str()))
            .collect();
        causes.extend(
            node_changes
                .iter()
                .filter(|c| {
                    // A node the unit was placed on matters for everything but its labels,
                    // which only selectors, affinity and domains read (and then the aspect is
                    // in the set).
                    aspects.contains(&c.aspect)
                        || (c.aspect != Aspect::Labels
                            && c.node.as_deref().is_some_and(|n| nodes.contains(n)))
                })
                .map(|c| c.text.clone()),
        );
        if causes.len() > MAX_CAUSES {
            let more = causes.len() - MAX_CAUSES;
            causes.truncate(MAX_CAUSES);
            causes.push(format!("… and {more} more change(s)"));
        }
        units.push(UnitChange {
            kind: key.kind,
            namespace: key.namespace,
            name: key.name,
            before: before.label(),
            after: after.label(),
            change,
            causes,
            before_domain: u_old.and_then(chosen_domain),
            after_domain: u_new.and_then(chosen_domain),
            before_message: u_old.map(|u| u.message.clone()).unwrap_or_default(),
            after_message: u_new.map(|u| u.message.clone()).unwrap_or_default(),
        });
    }
    let summary = DiffSummary::of(&units);
    let mut assumed: Vec<String> = old_plan
        .settings
        .assumed
        .iter()
        .chain(&new_plan.settings.assumed)
        .cloned()
        .collect();
    assumed.sort();
    assumed.dedup();
    let prefixed = |side: &str, ws: &[Warning]| -> Vec<Warning> {
        ws.iter()
            .map(|w| Warning::new(&w.code, format!("{side}: {}", w.message)))
            .collect()
    };
    let mut warnings = prefixed("OLD", &old.warnings);
    warnings.extend(prefixed("NEW", &new.warnings));
    PlanDiff {
        units,
        summary,
        settings: DiffSettings {
            from: sources.0.to_owned(),
            to: sources.1.to_owned(),
            mode: new_plan.settings.mode,
            preemption,
            feature_gates_before: old_plan.settings.feature_gates.clone(),
            feature_gates_after: new_plan.settings.feature_gates.clone(),
            assumed,
            relevant_notes: crate::notes::once_each(note_uses),
        },
        warnings,
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The topology domain the unit's placement was chosen in (`key=value`).
fn chosen_domain(u: &UnitResult) -> Option<String> {
    let top = format!("{}/{}", u.kind, u.name);
    u.trace
        .domains
        .iter()
        .find(|d| d.chosen && d.group == top)
        .map(|d| format!("{}={}", d.key, d.value))
}

/// A unit's answer on one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Simulated(Outcome),
    NotPending,
    Absent,
}

impl Answer {
    fn label(self) -> String {
        match self {
            Self::Simulated(o) => o.as_str().to_owned(),
            Self::NotPending => "NotPending".to_owned(),
            Self::Absent => "Absent".to_owned(),
        }
    }

    fn placed(self) -> bool {
        matches!(
            self,
            Self::Simulated(Outcome::Scheduled | Outcome::Preempting) | Self::NotPending
        )
    }

    /// Not placed, for want of room or for an error, or held before scheduling: a unit placed
    /// in OLD that is Waiting in NEW (its gang lost members, a PodGroup went missing) became
    /// unschedulable too. Suspended is not: a Job suspended on purpose.
    fn failed(self) -> bool {
        matches!(
            self,
            Self::Simulated(Outcome::Unschedulable | Outcome::Error | Outcome::Waiting)
        )
    }
}

fn outcome(s: &Snapshot, plan: &Plan, unit: &ObjRef) -> Answer {
    if let Some(o) = plan.outcome_of(s, unit) {
        return Answer::Simulated(o);
    }
    let (ns, name) = (unit.namespace.as_str(), unit.name.as_str());
    let exists = match unit.kind {
        ObjKind::PodGroup => s.pod_group(ns, name).is_some(),
        ObjKind::CompositePodGroup => s.composite_pod_group(ns, name).is_some(),
        _ => s.pod(ns, name).is_some(),
    };
    if exists {
        Answer::NotPending
    } else {
        Answer::Absent
    }
}

/// The change, or `None` when the unit's answer is the same (or OLD's placement simply
/// happened: Scheduled in OLD, running in NEW).
fn classify(
    before: &Answer,
    after: &Answer,
    u_old: Option<&UnitResult>,
    u_new: Option<&UnitResult>,
) -> Option<Change> {
    use Answer::{Absent, NotPending, Simulated};
    if before != after {
        return Some(match (before, after) {
            (Absent, _) => Change::Added,
            (_, Absent) => Change::Removed,
            (Simulated(Outcome::Scheduled | Outcome::Preempting), NotPending) => return None,
            (b, a) if b.placed() && a.failed() => Change::NewlyUnschedulable,
            (b, a)
                if a.placed()
                    && matches!(
                        b,
                        Simulated(Outcome::Unschedulable | Outcome::Error | Outcome::Waiting)
                    ) =>
            {
                Change::NewlySchedulable
            }
            _ => Change::OutcomeChanged,
        });
    }
    let (Some(o), Some(n)) = (u_old, u_new) else {
        return None;
    };
    if matches!(before, Simulated(Outcome::Scheduled | Outcome::Preempting)) {
        if chosen_domain(o) != chosen_domain(n) {
            return Some(Change::DomainChanged);
        }
        let nodes = |u: &UnitResult| {
            u.placements
                .iter()
                .map(|p| (p.pod.clone(), p.node.clone()))
                .collect::<BTreeSet<_>>()
        };
        if nodes(o) != nodes(n) {
            return Some(Change::PlacementChanged);
        }
        let victims = |u: &UnitResult| {
            u.victims
                .iter()
                .map(|v| format!("{}/{}", v.namespace, v.name))
                .collect::<BTreeSet<_>>()
        };
        if victims(o) != victims(n) {
            return Some(Change::VictimsChanged);
        }
    }
    (o.message != n.message).then_some(Change::ReasonChanged)
}

/// The kinds of change the unit's filters looked at, from its rejections on both sides: node
/// appearances always; cordons, taints, labels, resources and devices when a rejection (or a
/// topology domain, or a claim) says the filter that reads them mattered. A unit with no
/// rejection (placed on both sides) looks at resources, which decide scores and domains.
fn aspects(u_old: Option<&UnitResult>, u_new: Option<&UnitResult>) -> BTreeSet<Aspect> {
    let mut out = BTreeSet::from([Aspect::Nodes]);
    let mut any_reason = false;
    for u in u_old.into_iter().chain(u_new) {
        if !u.trace.domains.is_empty() {
            out.insert(Aspect::Labels);
        }
        for p in &u.trace.pods {
            if !p.claim_reasons.is_empty() {
                out.insert(Aspect::Devices);
                any_reason = true;
            }
            for r in p.node_reasons.keys() {
                any_reason = true;
                if r == node_unschedulable::ERR_REASON_UNSCHEDULABLE {
                    out.insert(Aspect::Cordon);
                } else if r == taint_toleration::ERR_REASON_NOT_MATCH {
                    out.insert(Aspect::Taints);
                } else if r == node_affinity::ERR_REASON_POD {
                    out.insert(Aspect::Labels);
                } else if r.starts_with("Insufficient ")
                    || r == node_resources_fit::ERR_TOO_MANY_PODS
                {
                    out.insert(Aspect::Resources);
                } else if r == inter_pod_affinity::ERR_REASON_AFFINITY_RULES_NOT_MATCH
                    || r.contains("affinity")
                    || r.contains("topology spread")
                {
                    out.insert(Aspect::Labels);
                    out.insert(Aspect::Resources);
                } else if r.contains("claim") || r.contains("device") {
                    out.insert(Aspect::Devices);
                } else {
                    // A reason wasctl cannot attribute: keep every kind of change.
                    out.extend([
                        Aspect::Cordon,
                        Aspect::Taints,
                        Aspect::Labels,
                        Aspect::Resources,
                        Aspect::Devices,
                    ]);
                }
            }
        }
        if !u.victims.is_empty() {
            out.insert(Aspect::Resources);
        }
    }
    if !any_reason {
        out.insert(Aspect::Resources);
    }
    out
}

/// kube-scheduler's WAS gates that differ between the plans.
fn gate_changes(old: &Plan, new: &Plan) -> Vec<String> {
    let (a, b) = (&old.settings.feature_gates, &new.settings.feature_gates);
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter_map(|g| {
            let (x, y) = (a.get(g), b.get(g));
            (x != y).then(|| {
                let show = |v: Option<&bool>| match v {
                    Some(true) => "on",
                    Some(false) => "off",
                    None => "unknown",
                };
                format!("kube-scheduler feature gate {g}: {} → {}", show(x), show(y))
            })
        })
        .collect()
}

/// Changes to the unit's own objects: the group's spec, its members (pending or not), a pod's
/// spec.
fn own_changes(old: &Snapshot, new: &Snapshot, unit: &ObjRef) -> Vec<String> {
    let (kind, ns, name) = (&unit.kind, unit.namespace.as_str(), unit.name.as_str());
    let mut out = Vec::new();
    let spec_json = |s: &Snapshot| -> Option<serde_json::Value> {
        match kind {
            ObjKind::PodGroup => s
                .pod_group(ns, name)
                .and_then(|p| serde_json::to_value(&p.spec).ok()),
            ObjKind::CompositePodGroup => s
                .composite_pod_group(ns, name)
                .and_then(|p| serde_json::to_value(&p.spec).ok()),
            _ => s
                .pod(ns, name)
                .and_then(|p| serde_json::to_value(&p.spec).ok()),
        }
    };
    match (spec_json(old), spec_json(new)) {
        (Some(a), Some(b)) if a != b => {
            let fields: BTreeSet<&String> = a
                .as_object()
                .into_iter()
                .chain(b.as_object())
                .flat_map(|m| m.keys())
                .collect();
            for f in fields {
                let (x, y) = (a.get(f), b.get(f));
                if x == y {
                    continue;
                }
                let show =
                    |v: Option<&serde_json::Value>| v.map_or_else(|| "unset".to_owned(), compact);
                out.push(format!(
                    "{kind} {ns}/{name}: spec.{f} {} → {}",
                    show(x),
                    show(y)
                ));
            }
        }
        (None, Some(_)) => out.push(format!("{kind} {ns}/{name} was created")),
        (Some(_), None) => out.push(format!("{kind} {ns}/{name} was deleted")),
        _ => {}
    }
    if *kind == ObjKind::PodGroup {
        let members = |s: &Snapshot| -> BTreeSet<String> {
            s.index
                .pods_by_group
                .get(ns, name)
                .iter()
                .map(|i| name_of(&s.pods[*i].metadata).to_owned())
                .collect()
        };
        let (a, b) = (members(old), members(new));
        let added: Vec<&String> = b.difference(&a).collect();
        let gone: Vec<&String> = a.difference(&b).collect();
        if !added.is_empty() {
            out.push(format!(
                "PodGroup {ns}/{name}: {} member pod(s) added ({})",
                added.len(),
                names(&added)
            ));
        }
        if !gone.is_empty() {
            out.push(format!(
                "PodGroup {ns}/{name}: {} member pod(s) gone ({})",
                gone.len(),
                names(&gone)
            ));
        }
    }
    out
}

/// A JSON value on one line, shortened.
fn compact(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(79).collect::<String>())
    } else {
        s
    }
}

/// Up to three names, then a count.
fn names<S: AsRef<str>>(list: &[S]) -> String {
    let mut out: Vec<&str> = list.iter().take(3).map(AsRef::as_ref).collect();
    let more = list.len().saturating_sub(3);
    let more_text = format!("and {more} more");
    if more > 0 {
        out.push(&more_text);
    }
    out.join(", ")
}

/// Every change between the snapshots on nodes, running pods and devices, in a fixed order:
/// nodes removed, then added, then per kept node its cordon, taints, labels and allocatable;
/// pods started and gone per node; devices per node and driver; last the claim allocations
/// (cluster-wide, `node: None`).
fn node_changes(old: &Snapshot, new: &Snapshot) -> Vec<NodeChange> {
    let mut out = Vec::new();
    node_set_changes(old, new, &mut out);
    running_pod_changes(old, new, &mut out);
    device_changes(old, new, &mut out);
    claim_allocation_changes(old, new, &mut out);
    out
}

/// A change that belongs to `node` (the unit's filters that look at `aspect` see it).
fn on_node(node: &str, aspect: Aspect, text: String) -> NodeChange {
    NodeChange {
        node: Some(node.to_owned()),
        aspect,
        text,
    }
}

/// Nodes removed and added (by name), then for each node in both snapshots the changes of
/// [`kept_node_changes`].
fn node_set_changes(old: &Snapshot, new: &Snapshot, out: &mut Vec<NodeChange>) {
    let node_names = |s: &Snapshot| -> BTreeSet<String> {
        s.nodes
            .iter()
            .map(|n| name_of(&n.metadata).to_owned())
            .collect()
    };
    let (a, b) = (node_names(old), node_names(new));
    for n in a.difference(&b) {
        out.push(on_node(n, Aspect::Nodes, format!("node `{n}` removed")));
    }
    for n in b.difference(&a) {
        out.push(on_node(n, Aspect::Nodes, format!("node `{n}` added")));
    }
    for n in a.intersection(&b) {
        let (Some(x), Some(y)) = (old.node(n), new.node(n)) else {
            continue;
        };
        kept_node_changes(n, x, y, out);
    }
}

/// One node present in both snapshots (`x` in OLD, `y` in NEW): cordoned or uncordoned, taints
/// added and removed (`key=value:Effect`), labels changed, allocatable amounts changed (as the
/// quantity strings read, a missing one shown as `0`).
fn kept_node_changes(n: &str, x: &Node, y: &Node, out: &mut Vec<NodeChange>) {
    let cordoned = |node: &Node| {
        node.spec
            .as_ref()
            .and_then(|s| s.unschedulable)
            .unwrap_or(false)
    };
    match (cordoned(x), cordoned(y)) {
        (false, true) => out.push(on_node(n, Aspect::Cordon, format!("node `{n}` cordoned"))),
        (true, false) => {
            out.push(on_node(n, Aspect::Cordon, format!("node `{n}` uncordoned")));
        }
        _ => {}
    }
    let taints = |node: &Node| -> BTreeSet<String> {
        node.spec
            .iter()
            .flat_map(|s| s.taints.iter().flatten())
            .map(|t| match &t.value {
                Some(v) => format!("{}={v}:{}", t.key, t.effect),
                None => format!("{}:{}", t.key, t.effect),
            })
            .collect()
    };
    let (tx, ty) = (taints(x), taints(y));
    for t in ty.difference(&tx) {
        out.push(on_node(
            n,
            Aspect::Taints,
            format!("node `{n}`: taint `{t}` added"),
        ));
    }
    for t in tx.difference(&ty) {
        out.push(on_node(
            n,
            Aspect::Taints,
            format!("node `{n}`: taint `{t}` removed"),
        ));
    }
    let empty = BTreeMap::new();
    let (lx, ly) = (
        x.metadata.labels.as_ref().unwrap_or(&empty),
        y.metadata.labels.as_ref().unwrap_or(&empty),
    );
    let keys: BTreeSet<&String> = lx.keys().chain(ly.keys()).collect();
    for k in keys {
        let (vx, vy) = (lx.get(k), ly.get(k));
        if vx != vy {
            let show = |v: Option<&String>| v.map_or("unset", String::as_str).to_owned();
            out.push(on_node(
                n,
                Aspect::Labels,
                format!("node `{n}`: label `{k}` {} → {}", show(vx), show(vy)),
            ));
        }
    }
    let alloc = |node: &Node| -> BTreeMap<String, String> {
        node.status
            .as_ref()
            .and_then(|s| s.allocatable.as_ref())
            .map(|m| m.iter().map(|(k, q)| (k.clone(), q.0.clone())).collect())
            .unwrap_or_default()
    };
    let (ax, ay) = (alloc(x), alloc(y));
    let keys: BTreeSet<&String> = ax.keys().chain(ay.keys()).collect();
    for k in keys {
        let (vx, vy) = (ax.get(k), ay.get(k));
        if vx != vy {
            let show = |v: Option<&String>| v.map_or("0", String::as_str).to_owned();
            out.push(on_node(
                n,
                Aspect::Resources,
                format!("node `{n}`: allocatable {k} {} → {}", show(vx), show(vy)),
            ));
        }
    }
}

/// Pods started and gone per node: a pod runs on a node when it has `spec.nodeName` and its
/// phase is neither `Succeeded` nor `Failed`; pods are compared by `namespace/name`.
fn running_pod_changes(old: &Snapshot, new: &Snapshot, out: &mut Vec<NodeChange>) {
    let running = |s: &Snapshot| -> BTreeMap<String, BTreeSet<String>> {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for p in &s.pods {
            let terminal = p
                .status
                .as_ref()
                .and_then(|st| st.phase.as_deref())
                .is_some_and(|ph| ph == "Succeeded" || ph == "Failed");
            if let Some(node) = p.spec.as_ref().and_then(|sp| sp.node_name.as_ref())
                && !terminal
            {
                m.entry(node.clone()).or_default().insert(format!(
                    "{}/{}",
                    namespace_of(&p.metadata),
                    name_of(&p.metadata)
                ));
            }
        }
        m
    };
    let (rx, ry) = (running(old), running(new));
    let empty = BTreeSet::new();
    let nodes: BTreeSet<&String> = rx.keys().chain(ry.keys()).collect();
    for n in nodes {
        let (px, py) = (rx.get(n).unwrap_or(&empty), ry.get(n).unwrap_or(&empty));
        let started: Vec<&String> = py.difference(px).collect();
        let ended: Vec<&String> = px.difference(py).collect();
        if !started.is_empty() {
            out.push(on_node(
                n,
                Aspect::Resources,
                format!(
                    "node `{n}`: {} pod(s) started ({})",
                    started.len(),
                    names(&started)
                ),
            ));
        }
        if !ended.is_empty() {
            out.push(on_node(
                n,
                Aspect::Resources,
                format!(
                    "node `{n}`: {} pod(s) gone ({})",
                    ended.len(),
                    names(&ended)
                ),
            ));
        }
    }
}

/// Devices that appeared or vanished per node and driver, counted from the ResourceSlices
/// (`pool/device`); slices without `spec.nodeName` count under `(not node-local)`.
fn device_changes(old: &Snapshot, new: &Snapshot, out: &mut Vec<NodeChange>) {
    let devices = |s: &Snapshot| -> BTreeMap<(String, String), BTreeSet<String>> {
        let mut m: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for sl in &s.resource_slices {
            let node = sl
                .spec
                .node_name
                .clone()
                .unwrap_or_else(|| "(not node-local)".to_owned());
            let e = m.entry((node, sl.spec.driver.clone())).or_default();
            for d in sl.spec.devices.iter().flatten() {
                e.insert(format!("{}/{}", sl.spec.pool.name, d.name));
            }
        }
        m
    };
    let (dx, dy) = (devices(old), devices(new));
    let keys: BTreeSet<&(String, String)> = dx.keys().chain(dy.keys()).collect();
    for k @ (n, driver) in keys {
        let (x, y) = (
            dx.get(k).cloned().unwrap_or_default(),
            dy.get(k).cloned().unwrap_or_default(),
        );
        let appeared = y.difference(&x).count();
        let vanished = x.difference(&y).count();
        if appeared > 0 {
            out.push(on_node(
                n,
                Aspect::Devices,
                format!("node `{n}`: {appeared} {driver} device(s) appeared"),
            ));
        }
        if vanished > 0 {
            out.push(on_node(
                n,
                Aspect::Devices,
                format!("node `{n}`: {vanished} {driver} device(s) vanished"),
            ));
        }
    }
}

/// ResourceClaims newly allocated (or allocated to other devices) and no longer allocated,
/// by `namespace/name`, with their `driver/pool/device` results; cluster-wide (`node: None`).
fn claim_allocation_changes(old: &Snapshot, new: &Snapshot, out: &mut Vec<NodeChange>) {
    let allocations = |s: &Snapshot| -> BTreeMap<String, Vec<String>> {
        s.resource_claims
            .iter()
            .filter_map(|c| {
                let devices: Vec<String> = c
                    .status
                    .as_ref()?
                    .allocation
                    .as_ref()?
                    .devices
                    .as_ref()?
                    .results
                    .iter()
                    .flatten()
                    .map(|r| format!("{}/{}/{}", r.driver, r.pool, r.device))
                    .collect();
                Some((
                    format!("{}/{}", namespace_of(&c.metadata), name_of(&c.metadata)),
                    devices,
                ))
            })
            .collect()
    };
    let (cx, cy) = (allocations(old), allocations(new));
    for (claim, devs) in &cy {
        if cx.get(claim) != Some(devs) {
            out.push(NodeChange {
                node: None,
                aspect: Aspect::Devices,
                text: format!("claim {claim} allocated ({})", names(devs)),
            });
        }
    }
    for (claim, devs) in &cx {
        if !cy.contains_key(claim) {
            out.push(NodeChange {
                node: None,
                aspect: Aspect::Devices,
                text: format!("claim {claim} no longer allocated (held {})", names(devs)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::plan::{PodTrace, UnitTrace};

    fn unit(outcome: Outcome, reasons: &[&str]) -> UnitResult {
        UnitResult {
            kind: ObjKind::PodGroup,
            namespace: "ml".to_owned(),
            name: "g".to_owned(),
            outcome,
            message: String::new(),
            placements: Vec::new(),
            victims: Vec::new(),
            blast_radius: None,
            min_count: Some(2),
            known: None,
            scheduled_before: 0,
            pending: 2,
            priority: 0,
            profile: String::new(),
            trace: UnitTrace {
                pods: vec![PodTrace {
                    pod: "g-0".into(),
                    node: None,
                    evaluated: 2,
                    feasible: 0,
                    unresolvable: 0,
                    node_reasons: reasons.iter().map(|r| ((*r).to_owned(), 1)).collect(),
                    claim_reasons: BTreeMap::new(),
                    placement: None,
                    tied: false,
                }],
                ..UnitTrace::default()
            },
            kueue: None,
        }
    }

    #[test]
    fn placed_then_failed_is_newly_unschedulable_and_placed_then_running_is_no_change() {
        use Answer::{Absent, NotPending, Simulated};
        let s = Simulated(Outcome::Scheduled);
        let u = Simulated(Outcome::Unschedulable);
        assert_eq!(
            classify(&s, &u, None, None),
            Some(Change::NewlyUnschedulable)
        );
        assert_eq!(
            classify(&NotPending, &u, None, None),
            Some(Change::NewlyUnschedulable)
        );
        assert_eq!(classify(&u, &s, None, None), Some(Change::NewlySchedulable));
        assert_eq!(classify(&s, &NotPending, None, None), None);
        assert_eq!(classify(&Absent, &u, None, None), Some(Change::Added));
        assert_eq!(classify(&u, &Absent, None, None), Some(Change::Removed));
        assert_eq!(
            classify(&Simulated(Outcome::Waiting), &u, None, None),
            Some(Change::OutcomeChanged)
        );
    }

    /// Issue #45: a unit placed in OLD (Scheduled, Preempting or running) that is held before
    /// scheduling in NEW became unschedulable (`diff` exits 1); a Job suspended in NEW did not.
    #[test]
    fn placed_then_waiting_is_newly_unschedulable_and_suspended_is_not() {
        use Answer::{NotPending, Simulated};
        let waiting = Simulated(Outcome::Waiting);
        for before in [
            Simulated(Outcome::Scheduled),
            Simulated(Outcome::Preempting),
            NotPending,
        ] {
            assert_eq!(
                classify(&before, &waiting, None, None),
                Some(Change::NewlyUnschedulable),
                "{before:?}"
            );
        }
        assert_eq!(
            classify(
                &Simulated(Outcome::Scheduled),
                &Simulated(Outcome::Suspended),
                None,
                None
            ),
            Some(Change::OutcomeChanged)
        );
        assert_eq!(waiting.label(), "Waiting");
    }

    #[test]
    fn the_same_outcome_for_another_reason_is_a_reason_change() {
        let u = Answer::Simulated(Outcome::Unschedulable);
        let mut a = unit(Outcome::Unschedulable, &[]);
        let b = unit(Outcome::Unschedulable, &[]);
        assert_eq!(classify(&u, &u, Some(&a), Some(&b)), None);
        a.message = "other".to_owned();
        assert_eq!(
            classify(&u, &u, Some(&a), Some(&b)),
            Some(Change::ReasonChanged)
        );
    }

    #[test]
    fn rejections_say_which_changes_matter() {
        let taint = unit(
            Outcome::Unschedulable,
            &[taint_toleration::ERR_REASON_NOT_MATCH],
        );
        assert_eq!(
            aspects(Some(&taint), None),
            BTreeSet::from([Aspect::Nodes, Aspect::Taints])
        );
        let short = unit(Outcome::Unschedulable, &["Insufficient nvidia.com/gpu"]);
        let cordon = unit(
            Outcome::Unschedulable,
            &[node_unschedulable::ERR_REASON_UNSCHEDULABLE],
        );
        assert_eq!(
            aspects(Some(&short), Some(&cordon)),
            BTreeSet::from([Aspect::Nodes, Aspect::Cordon, Aspect::Resources])
        );
        // Placed on both sides: no rejection, resources decide scores and domains.
        let placed = unit(Outcome::Scheduled, &[]);
        assert_eq!(
            aspects(Some(&placed), Some(&placed)),
            BTreeSet::from([Aspect::Nodes, Aspect::Resources])
        );
    }

    #[test]
    fn gate_changes_are_named_per_gate() {
        let plan = |on: bool| Plan {
            settings: crate::sched::plan::Settings {
                mode: crate::sched::schedule_one::Mode::Exhaustive,
                feature_gates: BTreeMap::from([("GenericWorkload".to_owned(), on)]),
                assumed: Vec::new(),
                notes: Vec::new(),
                relevant_notes: Vec::new(),
                setting_notes: Vec::new(),
                node_images: false,
                what_if: Vec::new(),
                admitted: Vec::new(),
                pod_by_pod: None,
                profiles: Vec::new(),
                extenders: Vec::new(),
            },
            warnings: Vec::new(),
            units: Vec::new(),
            kueue: None,
            device_map: Vec::new(),
            stuck_pods: Vec::new(),
            binding_failures: Vec::new(),
            summary: crate::sched::plan::Summary::default(),
        };
        assert_eq!(
            gate_changes(&plan(true), &plan(false)),
            vec!["kube-scheduler feature gate GenericWorkload: on → off".to_owned()]
        );
        assert!(gate_changes(&plan(true), &plan(true)).is_empty());
    }

    #[test]
    fn names_are_shortened_after_three() {
        assert_eq!(names(&["a", "b"]), "a, b");
        assert_eq!(names(&["a", "b", "c", "d", "e"]), "a, b, c, and 2 more");
    }
}
