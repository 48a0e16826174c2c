//! `explain`: why a gang is (or would be) unschedulable, in plain words with the numbers, and
//! the smallest change that makes it schedulable.
//!
//! Input: a snapshot, the simulation options, and a target unit. Output: a [`Diagnosis`].
//! It reads the simulator's [`Plan`] and trace — it never re-implements scheduling. Suggested
//! fixes are computed, not guessed: each candidate change (lower minCount, drop the topology
//! constraint, add nodes like an existing one, tolerate a taint, use the PodGroup's claim
//! entry, turn a gate on) is applied to a copy of the snapshot and the simulation is run
//! again; only the changes that make the unit schedulable are reported. Pure: no IO.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::graph::{EdgeKind, EdgeState, Graph, ObjRef};
use crate::sched::plan::{Outcome, Plan, UnitResult};
use crate::sched::{Options, simulate, whatif};
use crate::snapshot::{Snapshot, name_of};

/// The one-word answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Already running; see the health finding.
    Scheduled,
    /// Would be placed now.
    Schedulable,
    /// Would be placed after evicting victims.
    NeedsPreemption,
    /// Held before scheduling (PreEnqueue).
    Waiting,
    /// Cannot be placed.
    Unschedulable,
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Blocks scheduling.
    Error,
    /// Will break or mislead.
    Warning,
    /// Worth knowing.
    Info,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable ID (`WASE###`).
    pub id: &'static str,
    /// Severity.
    pub severity: Severity,
    /// One line.
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
    /// Topology key.
    pub key: String,
    /// Domain value.
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
    /// Per topology domain.
    pub domains: Vec<DomainFit>,
}

/// The diagnosis of one unit (`kind: Diagnosis`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// `Kind/namespace/name` of the unit explained.
    pub target: String,
    /// The answer.
    pub verdict: Verdict,
    /// The simulator's message for the unit.
    pub message: String,
    /// Findings, most decisive first.
    pub findings: Vec<Finding>,
    /// Filter reason → node count, over the members that found no node.
    pub node_reasons: BTreeMap<String, u32>,
    /// Fit.
    pub fit: Fit,
    /// Verified fixes: each makes the unit schedulable on its own.
    pub fixes: Vec<String>,
    /// What the simulation assumed.
    pub assumed: Vec<String>,
}

/// What `explain` looks at: a unit of the plan, found from any target kind.
#[derive(Debug, Clone)]
pub struct Target {
    /// `Pod`, `PodGroup`, `CompositePodGroup`, `Workload` or `Job`.
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
}

/// The units (kind, name) a target stands for, from the graph: a pod → its group's root (or
/// itself), a Workload or Job → its groups.
pub fn units_of(g: &Graph, t: &Target) -> Vec<(String, String)> {
    let r = ObjRef::new(&t.kind, &t.namespace, &t.name);
    let up = |r: &ObjRef| -> ObjRef {
        let mut cur = r.clone();
        for _ in 0..8 {
            let next = g
                .outgoing(&cur, Some(EdgeKind::Parent))
                .find(|e| e.state == EdgeState::Resolved)
                .map(|e| e.to.clone());
            match next {
                Some(n) => cur = n,
                None => break,
            }
        }
        cur
    };
    match t.kind.as_str() {
        "Pod" => {
            let group = g
                .outgoing(&r, Some(EdgeKind::SchedulingGroup))
                .find(|e| e.state == EdgeState::Resolved)
                .map(|e| up(&e.to));
            match group {
                Some(root) => vec![("Pod".to_owned(), t.name.clone()), (root.kind, root.name)],
                None => vec![("Pod".to_owned(), t.name.clone())],
            }
        }
        "PodGroup" | "CompositePodGroup" => {
            let root = up(&r);
            vec![(root.kind, root.name)]
        }
        "Workload" | "Job" => {
            let mut out = Vec::new();
            let workloads: Vec<ObjRef> = if t.kind == "Job" {
                g.incoming(&r, Some(EdgeKind::ControllerRef))
                    .map(|e| e.from.clone())
                    .collect()
            } else {
                vec![r.clone()]
            };
            for w in &workloads {
                for e in g.incoming(w, Some(EdgeKind::WorkloadRef)) {
                    let root = up(&e.from);
                    if !out.contains(&(root.kind.clone(), root.name.clone())) {
                        out.push((root.kind, root.name));
                    }
                }
            }
            for e in g
                .incoming(&r, Some(EdgeKind::Owner))
                .filter(|e| e.from.kind == "PodGroup")
            {
                let root = up(&e.from);
                if !out.contains(&(root.kind.clone(), root.name.clone())) {
                    out.push((root.kind, root.name));
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

fn find_unit<'a>(plan: &'a Plan, kind: &str, ns: &str, name: &str) -> Option<&'a UnitResult> {
    plan.units
        .iter()
        .find(|u| u.kind == kind && u.namespace == ns && u.name == name)
}

fn schedulable(plan: &Plan, kind: &str, ns: &str, name: &str) -> bool {
    find_unit(plan, kind, ns, name).is_some_and(|u| u.outcome == Outcome::Scheduled)
}

/// Explains one group root or pod unit: `kind`/`name` in `namespace`.
pub fn explain(
    s: &Snapshot,
    options: &Options,
    namespace: &str,
    kind: &str,
    name: &str,
) -> Diagnosis {
    let plan = simulate(s, options);
    let graph = Graph::build(s);
    let target = format!("{kind}/{namespace}/{name}");
    let Some(unit) = find_unit(&plan, kind, namespace, name).cloned() else {
        if kind == "PodGroup" {
            let members: Vec<&UnitResult> = s
                .index
                .pods_by_group
                .get(namespace, name)
                .iter()
                .filter_map(|i| find_unit(&plan, "Pod", namespace, name_of(&s.pods[*i].metadata)))
                .collect();
            if !members.is_empty() {
                return pod_by_pod(s, options, &graph, &plan, namespace, name, &members);
            }
        }
        return running(s, &plan, namespace, kind, name, target);
    };
    let verdict = match unit.outcome {
        Outcome::Scheduled => Verdict::Schedulable,
        Outcome::Preempting => Verdict::NeedsPreemption,
        Outcome::Waiting => Verdict::Waiting,
        Outcome::Unschedulable | Outcome::Error => Verdict::Unschedulable,
    };
    let mut findings = Vec::new();
    links(
        s,
        options,
        &graph,
        &plan,
        namespace,
        kind,
        name,
        &unit,
        &mut findings,
    );
    // Node reasons and fit, from the trace.
    let mut node_reasons: BTreeMap<String, u32> = BTreeMap::new();
    for p in unit.trace.pods.iter().filter(|p| p.node.is_none()) {
        for (r, n) in &p.node_reasons {
            let e = node_reasons.entry(r.clone()).or_default();
            *e = (*e).max(*n);
        }
    }
    let top_group = format!("{kind}/{name}");
    let domains: Vec<DomainFit> = unit
        .trace
        .domains
        .iter()
        .filter(|d| d.group == top_group)
        .map(|d| DomainFit {
            key: d.key.clone(),
            value: d.value.clone(),
            placeable: d.placeable,
        })
        .collect();
    let placed_first_try = u32::try_from(
        unit.trace
            .pods
            .iter()
            .filter(|p| p.node.is_some() && p.placement.is_none())
            .count(),
    )
    .unwrap_or(0);
    let placeable = domains
        .iter()
        .map(|d| d.placeable)
        .max()
        .unwrap_or(placed_first_try)
        + unit.scheduled_before;
    let min_count = unit.min_count.unwrap_or(1);
    let fit = Fit {
        min_count,
        placeable,
        domains,
    };
    if matches!(verdict, Verdict::Unschedulable | Verdict::NeedsPreemption)
        && unit.outcome != Outcome::Error
    {
        capacity_findings(&unit, &fit, &node_reasons, &mut findings);
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
    preemption_findings(&unit, &mut findings);
    let fixes = if matches!(
        verdict,
        Verdict::Unschedulable | Verdict::NeedsPreemption | Verdict::Waiting
    ) {
        verified_fixes(s, options, &unit, &fit, &node_reasons, &plan)
    } else {
        Vec::new()
    };
    findings.sort_by_key(|f| f.severity);
    Diagnosis {
        target,
        verdict,
        message: unit.message.clone(),
        findings,
        node_reasons,
        fit,
        fixes,
        assumed: plan.settings.assumed.clone(),
    }
}

/// A PodGroup whose members the scheduler takes one by one (GenericWorkload off).
fn pod_by_pod(
    s: &Snapshot,
    options: &Options,
    g: &Graph,
    plan: &Plan,
    ns: &str,
    name: &str,
    members: &[&UnitResult],
) -> Diagnosis {
    let target = format!("PodGroup/{ns}/{name}");
    let placed = u32::try_from(
        members
            .iter()
            .filter(|u| u.outcome == Outcome::Scheduled)
            .count(),
    )
    .unwrap_or(0);
    let total = u32::try_from(members.len()).unwrap_or(0);
    let min = s
        .pod_group(ns, name)
        .and_then(|p| p.spec.scheduling_policy.gang.as_ref())
        .map_or(1, |gang| u32::try_from(gang.min_count).unwrap_or(1));
    let mut findings = Vec::new();
    let fake = UnitResult {
        outcome: Outcome::Scheduled,
        ..(*members[0]).clone()
    };
    links(
        s,
        options,
        g,
        plan,
        ns,
        "PodGroup",
        name,
        &fake,
        &mut findings,
    );
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
    findings.sort_by_key(|f| f.severity);
    Diagnosis {
        target,
        verdict: if placed == total {
            Verdict::Schedulable
        } else {
            Verdict::Unschedulable
        },
        message: format!("scheduled pod by pod: {placed} of {total} pending pods would bind"),
        findings,
        node_reasons: BTreeMap::new(),
        fit: Fit {
            min_count: min,
            placeable: placed,
            domains: Vec::new(),
        },
        fixes: Vec::new(),
        assumed: plan.settings.assumed.clone(),
    }
}

/// A unit that is not in the plan: already running (or nothing to schedule).
fn running(
    s: &Snapshot,
    plan: &Plan,
    ns: &str,
    kind: &str,
    name: &str,
    target: String,
) -> Diagnosis {
    let (min, pods): (u32, Vec<usize>) = match kind {
        "PodGroup" => (
            s.pod_group(ns, name)
                .and_then(|p| p.spec.scheduling_policy.gang.as_ref())
                .map_or(1, |g| u32::try_from(g.min_count).unwrap_or(1)),
            s.index.pods_by_group.get(ns, name).to_vec(),
        ),
        "CompositePodGroup" => {
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
    let healthy = kind == "CompositePodGroup" || running >= min;
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
    Diagnosis {
        target,
        verdict: Verdict::Scheduled,
        message: String::new(),
        findings,
        node_reasons: BTreeMap::new(),
        fit: Fit {
            min_count: min,
            placeable: running,
            domains: Vec::new(),
        },
        fixes: Vec::new(),
        assumed: plan.settings.assumed.clone(),
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "one call site; the parts are independent views of the same unit"
)]
fn links(
    s: &Snapshot,
    options: &Options,
    g: &Graph,
    plan: &Plan,
    ns: &str,
    kind: &str,
    name: &str,
    unit: &UnitResult,
    out: &mut Vec<Finding>,
) {
    let gates = &plan.settings.feature_gates;
    if gates.get("GenericWorkload") == Some(&false) {
        out.push(Finding {
            id: "WASE001",
            severity: Severity::Error,
            title: "kube-scheduler runs with GenericWorkload off: gangs are scheduled pod by pod".to_owned(),
            detail: "schedulingGroup is ignored, so a gang can start partially and hold resources while it waits for the rest".to_owned(),
            evidence: serde_json::json!({"featureGates": gates}),
            fix: Some("enable GenericWorkload in kube-scheduler (and kube-apiserver, kube-controller-manager)".to_owned()),
        });
    }
    // Broken references along Workload → PodGroup → Pod.
    let mut refs = vec![ObjRef::new(kind, ns, name)];
    if kind == "PodGroup" {
        refs.extend(
            s.index
                .pods_by_group
                .get(ns, name)
                .iter()
                .map(|i| ObjRef::new("Pod", ns, name_of(&s.pods[*i].metadata))),
        );
    }
    for r in &refs {
        for e in g.outgoing(r, None) {
            if let EdgeState::Dangling { missing } = &e.state {
                let id = if e.kind == EdgeKind::SchedulingGroup {
                    "WASE002"
                } else {
                    "WASE003"
                };
                out.push(Finding {
                    id,
                    severity: Severity::Error,
                    title: format!("{} names a missing {missing}", r),
                    detail: format!(
                        "the {:?} reference of {r} points at an object that does not exist",
                        e.kind
                    ),
                    evidence: serde_json::Value::Null,
                    fix: Some(format!("create {missing}, or fix the name in {r}")),
                });
                break;
            }
        }
    }
    if unit.outcome == Outcome::Waiting {
        out.push(Finding {
            id: "WASE004",
            severity: Severity::Error,
            title: "held before scheduling (PreEnqueue)".to_owned(),
            detail: unit.message.clone(),
            evidence: serde_json::json!({"pending": unit.pending, "minCount": unit.min_count}),
            fix: unit.message.contains("minCount pods").then(|| {
                format!(
                    "create the missing members: the gang waits until minCount ({}) pods exist, {} do",
                    unit.min_count.unwrap_or(1),
                    unit.pending + unit.scheduled_before
                )
            }),
        });
    }
    // Claim entries that almost match the PodGroup's.
    if kind == "PodGroup"
        && let Some(pg) = s.pod_group(ns, name)
    {
        for i in s.index.pods_by_group.get(ns, name) {
            let pod = &s.pods[*i];
            for entry in pod
                .spec
                .iter()
                .flat_map(|sp| sp.resource_claims.iter().flatten())
            {
                let theirs = pg
                    .spec
                    .resource_claims
                    .iter()
                    .flatten()
                    .find(|e| e.name == entry.name);
                if let Some(t) = theirs
                    && (t.resource_claim_name != entry.resource_claim_name
                        || t.resource_claim_template_name != entry.resource_claim_template_name)
                {
                    let source =
                        |claim: &Option<String>, template: &Option<String>| match (claim, template)
                        {
                            (Some(c), _) => format!("claim `{c}`"),
                            (None, Some(t)) => format!("template `{t}`"),
                            (None, None) => "no source".to_owned(),
                        };
                    let (mine, group) = (
                        source(
                            &entry.resource_claim_name,
                            &entry.resource_claim_template_name,
                        ),
                        source(&t.resource_claim_name, &t.resource_claim_template_name),
                    );
                    let pod_name = name_of(&pod.metadata);
                    // Verified: the pods with the PodGroup's source must still be placed, now
                    // sharing the group's claim.
                    let mut copy = s.clone();
                    let verified = set_claim_source(&mut copy, ns, name, &entry.name, t)
                        && schedulable(&simulate(&copy, options), "PodGroup", ns, name);
                    out.push(Finding {
                        id: "WASE005",
                        severity: Severity::Warning,
                        title: format!("claim entry `{}` of pod {pod_name} differs from the PodGroup's", entry.name),
                        detail: format!(
                            "the pod uses {mine}, the PodGroup {group}: the pod gets a claim of its own instead of the group's shared claim"
                        ),
                        evidence: serde_json::json!({"entry": entry.name, "pod": mine, "podGroup": group}),
                        fix: Some(if verified {
                            format!("fix claim entry `{}` in the pod template: use {group}, like the PodGroup (verified: the group is then placed with the shared claim)", entry.name)
                        } else {
                            format!("fix claim entry `{}` in the pod template: use {group}, like the PodGroup (not enough on its own: the group still would not be placed)", entry.name)
                        }),
                    });
                    return;
                }
            }
        }
    }
}

fn capacity_findings(
    unit: &UnitResult,
    fit: &Fit,
    reasons: &BTreeMap<String, u32>,
    out: &mut Vec<Finding>,
) {
    if !fit.domains.is_empty() {
        let best = fit
            .domains
            .iter()
            .max_by(|a, b| a.placeable.cmp(&b.placeable).then(b.value.cmp(&a.value)));
        let total: u32 =
            fit.domains.iter().map(|d| d.placeable).sum::<u32>() + unit.scheduled_before;
        out.push(Finding {
            id: "WASE020",
            severity: Severity::Error,
            title: format!(
                "no {} domain holds the gang: at most {} of {} members fit in one ({})",
                fit.domains[0].key,
                fit.placeable,
                fit.min_count,
                best.map_or(String::new(), |d| d.value.clone())
            ),
            detail: format!(
                "members that fit per domain: {}; {} in all domains together — free capacity spread across domains is not gang capacity",
                fit.domains.iter().map(|d| format!("{}={}", d.value, d.placeable)).collect::<Vec<_>>().join(", "),
                total
            ),
            evidence: serde_json::to_value(&fit.domains).unwrap_or_default(),
            fix: None,
        });
    } else if fit.placeable < fit.min_count {
        out.push(Finding {
            id: "WASE021",
            severity: Severity::Error,
            title: format!(
                "{} of {} members fit at once (minCount {})",
                fit.placeable,
                unit.pending + unit.scheduled_before,
                fit.min_count
            ),
            detail: unit.message.clone(),
            evidence: serde_json::json!({"placeable": fit.placeable, "minCount": fit.min_count}),
            fix: None,
        });
    }
    if !reasons.is_empty() {
        let text: Vec<String> = reasons
            .iter()
            .map(|(r, n)| format!("{n} node(s): {r}"))
            .collect();
        out.push(Finding {
            id: "WASE022",
            severity: Severity::Info,
            title: "why the nodes were rejected".to_owned(),
            detail: text.join("; "),
            evidence: serde_json::to_value(reasons).unwrap_or_default(),
            fix: None,
        });
    }
    let mut claims: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    for p in &unit.trace.pods {
        for (c, rs) in &p.claim_reasons {
            for (r, n) in rs {
                let e = claims
                    .entry(c.clone())
                    .or_default()
                    .entry(r.clone())
                    .or_default();
                *e = (*e).max(*n);
            }
        }
    }
    for (claim, rs) in claims {
        out.push(Finding {
            id: "WASE023",
            severity: Severity::Error,
            title: format!("claim `{claim}` cannot be allocated"),
            detail: rs
                .iter()
                .map(|(r, n)| format!("{n} node(s): {r}"))
                .collect::<Vec<_>>()
                .join("; "),
            evidence: serde_json::to_value(&rs).unwrap_or_default(),
            fix: None,
        });
    }
}

fn preemption_findings(unit: &UnitResult, out: &mut Vec<Finding>) {
    if let Some(b) = &unit.blast_radius {
        out.push(Finding {
            id: "WASE030",
            severity: Severity::Warning,
            title: format!(
                "preemption would evict {} pod(s) to make room",
                b.victim_pods
            ),
            detail: format!(
                "victims: {}; groups: {}; frees {} GPU(s); loses {} GPU-hours of work{}{}",
                unit.victims
                    .iter()
                    .map(|v| format!("{}/{} on {}", v.namespace, v.name, v.node))
                    .collect::<Vec<_>>()
                    .join(", "),
                if b.victim_groups.is_empty() {
                    "none".to_owned()
                } else {
                    b.victim_groups.join(", ")
                },
                b.gpus_freed,
                b.gpu_hours_lost,
                if b.whole_group_for_part_of_its_nodes {
                    "; a disruptionMode=all group dies whole for part of its nodes"
                } else {
                    ""
                },
                if b.pdb_violations > 0 {
                    format!("; {} PDB violation(s)", b.pdb_violations)
                } else {
                    String::new()
                }
            ),
            evidence: serde_json::to_value(b).unwrap_or_default(),
            fix: None,
        });
    } else if let Some((_, why)) = unit
        .message
        .split_once("preemption: ")
        .filter(|_| unit.outcome == Outcome::Unschedulable)
    {
        out.push(Finding {
            id: "WASE031",
            severity: Severity::Info,
            title: "preemption would not help".to_owned(),
            detail: why.to_owned(),
            evidence: serde_json::Value::Null,
            fix: None,
        });
    }
}

/// Tries candidate changes on copies of the snapshot and keeps those that make the unit
/// schedulable (outcome Scheduled, not only Preempting).
fn verified_fixes(
    s: &Snapshot,
    options: &Options,
    unit: &UnitResult,
    fit: &Fit,
    reasons: &BTreeMap<String, u32>,
    plan: &Plan,
) -> Vec<String> {
    let (kind, ns, name) = (
        unit.kind.as_str(),
        unit.namespace.as_str(),
        unit.name.as_str(),
    );
    let mut out = Vec::new();
    let works =
        |snap: &Snapshot, opts: &Options| schedulable(&simulate(snap, opts), kind, ns, name);
    // Turn GenericWorkload on.
    if plan.settings.feature_gates.get("GenericWorkload") == Some(&false) {
        let mut o = options.clone();
        o.gate_overrides.insert("GenericWorkload".to_owned(), true);
        if works(s, &o) {
            out.push("enable GenericWorkload in kube-scheduler".to_owned());
        }
    }
    // Lower minCount to what fits.
    if kind == "PodGroup" && fit.placeable >= 1 && fit.placeable < fit.min_count {
        let mut copy = s.clone();
        if set_min_count(&mut copy, ns, name, fit.placeable) && works(&copy, options) {
            out.push(format!(
                "lower minCount of PodGroup {name} to {}",
                fit.placeable
            ));
        }
    }
    // Drop the topology constraint.
    if !fit.domains.is_empty() {
        let mut copy = s.clone();
        if drop_topology(&mut copy, ns, kind, name) && works(&copy, options) {
            out.push(format!(
                "drop the `{}` topology constraint of {kind} {name}",
                fit.domains[0].key
            ));
        }
    }
    // Tolerate the taint that rejected nodes.
    if reasons.keys().any(|r| r.contains("untolerated taint")) {
        let mut copy = s.clone();
        if let Some(taint) = tolerate_taints(&mut copy, ns, unit)
            && works(&copy, options)
        {
            out.push(format!("add a toleration for taint `{taint}` to the pods"));
        }
    }
    // Add nodes like the best node of the best domain (or any node the pods could use).
    if let Some(like) = best_node_to_copy(s, unit, fit) {
        for n in 1..=8 {
            let mut copy = s.clone();
            if whatif::add_nodes(&mut copy, n, &like).is_ok() && works(&copy, options) {
                let domain = fit
                    .domains
                    .iter()
                    .max_by(|a, b| a.placeable.cmp(&b.placeable).then(b.value.cmp(&a.value)))
                    .map(|d| {
                        let missing = fit.min_count.saturating_sub(d.placeable);
                        let more = shortfall(s, unit, missing)
                            .map(|(amount, resource)| {
                                format!("; the {missing} member(s) left need {amount} {resource} more there")
                            })
                            .unwrap_or_default();
                        format!(
                            " (in {}={}, which already fits {} of {}{more})",
                            d.key, d.value, d.placeable, fit.min_count
                        )
                    })
                    .unwrap_or_default();
                out.push(format!("add {n} node(s) like {like}{domain}"));
                break;
            }
        }
    }
    out
}

/// Gives every member's claim entry `entry` the PodGroup's source `to`.
fn set_claim_source(
    s: &mut Snapshot,
    ns: &str,
    group: &str,
    entry: &str,
    to: &k8s_openapi::api::scheduling::v1beta1::PodGroupResourceClaim,
) -> bool {
    let members = s.index.pods_by_group.get(ns, group).to_vec();
    let mut changed = false;
    for i in members {
        let Some(spec) = s.pods.get_mut(i).and_then(|p| p.spec.as_mut()) else {
            continue;
        };
        for e in spec.resource_claims.iter_mut().flatten() {
            if e.name == entry {
                e.resource_claim_name.clone_from(&to.resource_claim_name);
                e.resource_claim_template_name
                    .clone_from(&to.resource_claim_template_name);
                changed = true;
            }
        }
    }
    if changed {
        *s = std::mem::take(s).build();
    }
    changed
}

fn set_min_count(s: &mut Snapshot, ns: &str, name: &str, n: u32) -> bool {
    let Some(pg) = s.pod_groups.iter_mut().find(|p| {
        p.metadata.namespace.as_deref() == Some(ns) && p.metadata.name.as_deref() == Some(name)
    }) else {
        return false;
    };
    let Some(g) = pg.spec.scheduling_policy.gang.as_mut() else {
        return false;
    };
    g.min_count = i32::try_from(n).unwrap_or(i32::MAX);
    *s = std::mem::take(s).build();
    true
}

fn drop_topology(s: &mut Snapshot, ns: &str, kind: &str, name: &str) -> bool {
    let hit = match kind {
        "PodGroup" => s
            .pod_groups
            .iter_mut()
            .find(|p| {
                p.metadata.namespace.as_deref() == Some(ns)
                    && p.metadata.name.as_deref() == Some(name)
            })
            .map(|p| p.spec.scheduling_constraints = None)
            .is_some(),
        _ => s
            .composite_pod_groups
            .iter_mut()
            .find(|p| {
                p.metadata.namespace.as_deref() == Some(ns)
                    && p.metadata.name.as_deref() == Some(name)
            })
            .map(|p| p.spec.scheduling_constraints = None)
            .is_some(),
    };
    if hit {
        *s = std::mem::take(s).build();
    }
    hit
}

fn tolerate_taints(s: &mut Snapshot, ns: &str, unit: &UnitResult) -> Option<String> {
    // The NoSchedule/NoExecute taints of nodes that are otherwise usable.
    let taint = s
        .nodes
        .iter()
        .flat_map(|n| n.spec.iter().flat_map(|sp| sp.taints.iter().flatten()))
        .find(|t| {
            t.effect != "PreferNoSchedule"
                && !t.key.starts_with("node-role.kubernetes.io/")
                && !t.key.starts_with("node.kubernetes.io/")
        })?
        .clone();
    let names: Vec<&str> = unit.trace.pods.iter().map(|p| &*p.pod).collect();
    for pod in s.pods.iter_mut().filter(|p| {
        p.metadata.namespace.as_deref() == Some(ns) && names.contains(&name_of(&p.metadata))
    }) {
        if let Some(spec) = pod.spec.as_mut() {
            spec.tolerations.get_or_insert_with(Vec::new).push(
                k8s_openapi::api::core::v1::Toleration {
                    key: Some(taint.key.clone()),
                    operator: Some("Exists".to_owned()),
                    effect: Some(taint.effect.clone()),
                    ..Default::default()
                },
            );
        }
    }
    *s = std::mem::take(s).build();
    Some(format!("{}:{}", taint.key, taint.effect))
}

/// The resource the unplaced members ran short of first, and how much `missing` members need
/// of it: (amount as Kubernetes writes it, resource name).
fn shortfall(s: &Snapshot, unit: &UnitResult, missing: u32) -> Option<(String, String)> {
    let member = unit.trace.pods.iter().find(|p| p.node.is_none())?;
    let resource = member
        .node_reasons
        .keys()
        .find_map(|r| r.strip_prefix("Insufficient "))?
        .to_owned();
    let pod = s.pods.iter().find(|p| {
        p.metadata.namespace.as_deref() == Some(unit.namespace.as_str())
            && name_of(&p.metadata) == &*member.pod
    })?;
    let mut table = crate::sched::resources::ResourceTable::default();
    let req = crate::sched::pod_req::PodReq::compile(pod, &mut table);
    let each = req.request(table.get(&resource)?);
    if each <= 0 || missing == 0 {
        return None;
    }
    let total = each.saturating_mul(i64::from(missing));
    let amount = match resource.as_str() {
        "cpu" if total % 1000 != 0 => format!("{total}m"),
        "cpu" => (total / 1000).to_string(),
        "memory" | "ephemeral-storage" if total % (1 << 30) == 0 => format!("{}Gi", total >> 30),
        "memory" | "ephemeral-storage" if total % (1 << 20) == 0 => format!("{}Mi", total >> 20),
        _ => total.to_string(),
    };
    Some((amount, resource))
}

/// A node to copy: one in the domain that fits most members, else one the members could use
/// had it room (rejected only for resources).
fn best_node_to_copy(s: &Snapshot, unit: &UnitResult, fit: &Fit) -> Option<String> {
    if let Some(best) = fit
        .domains
        .iter()
        .max_by(|a, b| a.placeable.cmp(&b.placeable).then(b.value.cmp(&a.value)))
    {
        return s
            .nodes
            .iter()
            .find(|n| {
                n.metadata.labels.as_ref().and_then(|l| l.get(&best.key)) == Some(&best.value)
            })
            .map(|n| name_of(&n.metadata).to_owned());
    }
    // The node with the most of the first resource members ran short of, among the nodes the
    // first unplaced member could use but for resources (not cordoned, taints tolerated,
    // selector and affinity met).
    let short = unit
        .trace
        .pods
        .iter()
        .filter(|p| p.node.is_none())
        .flat_map(|p| p.node_reasons.keys())
        .find_map(|r| r.strip_prefix("Insufficient "))?
        .to_owned();
    let gates = s.facts.gates_for(
        crate::snapshot::facts::Component::KubeScheduler,
        &BTreeMap::new(),
    );
    let st = crate::sched::node_state::ClusterState::build(s, &gates);
    let member = unit.trace.pods.iter().find(|p| p.node.is_none())?;
    let pod = &st.pods[st.pod_id(&unit.namespace, &member.pod)?];
    let id = st.table.get(&short)?;
    st.nodes
        .iter()
        .filter(|n| {
            use crate::sched::filter::{node_affinity, node_unschedulable, taint_toleration};
            node_unschedulable::filter(pod, n).is_none()
                && taint_toleration::filter(pod, n).is_none()
                && node_affinity::filter(pod, n).is_none()
        })
        .max_by(|a, b| {
            a.allocatable(id)
                .cmp(&b.allocatable(id))
                .then(b.name.cmp(&a.name))
        })
        .map(|n| n.name.to_string())
}
