//! Findings: broken links, capacity, claims and preemption, each with its numbers.

use crate::snapshot::ObjKind;
use std::collections::BTreeMap;

use super::fixes::set_claim_source;
use super::{DOMAINS_SHOWN, Finding, Fit, Severity, schedulable_in};
use crate::graph::{EdgeKind, EdgeState, Graph};
use crate::sched::Options;
use crate::sched::plan::{Outcome, Plan, UnitResult};
use crate::snapshot::ObjRef;
use crate::snapshot::{Snapshot, name_of};

/// The findings about what the unit hangs off, in this order: kube-scheduler's GenericWorkload
/// gate off (WASE001), broken references along Workload → PodGroup → Pod (WASE002/003), a
/// gang waiting before scheduling (WASE004) and the first pod claim entry that differs from
/// its PodGroup's (WASE005).
pub(super) fn links(
    s: &Snapshot,
    options: &Options,
    g: &Graph,
    plan: &Plan,
    target: &ObjRef,
    unit: &UnitResult,
    out: &mut Vec<Finding>,
) {
    generic_workload_off(plan, out);
    dangling_references(s, g, target, unit, out);
    if unit.outcome == Outcome::Waiting {
        waiting_finding(s, target, unit, out);
    }
    if target.kind == ObjKind::PodGroup {
        claim_entry_mismatch(s, options, target, out);
    }
}

/// WASE001 when the plan's settings say kube-scheduler runs with the GenericWorkload feature
/// gate explicitly off (unset counts as on).
fn generic_workload_off(plan: &Plan, out: &mut Vec<Finding>) {
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
}

/// WASE002 (a missing scheduling group) or WASE003 (any other missing object) for the unit
/// and, for a PodGroup, each member pod: at most one per object, its first dangling edge. An
/// error only when the scheduler follows that reference and the unit is not placed.
fn dangling_references(
    s: &Snapshot,
    g: &Graph,
    target: &ObjRef,
    unit: &UnitResult,
    out: &mut Vec<Finding>,
) {
    let (ns, name) = (target.namespace.as_str(), target.name.as_str());
    let mut refs = vec![target.clone()];
    if target.kind == ObjKind::PodGroup {
        refs.extend(
            s.index
                .pods_by_group
                .get(ns, name)
                .iter()
                .map(|i| ObjRef::new(ObjKind::Pod, ns, name_of(&s.pods[*i].metadata))),
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
                // Only references the scheduler follows can block the unit, and only when it
                // is in fact not placed; a missing owner or Workload is a warning (doctor's
                // WASD010: the group still schedules).
                let blocks = matches!(
                    e.kind,
                    EdgeKind::SchedulingGroup
                        | EdgeKind::Parent
                        | EdgeKind::PodClaim
                        | EdgeKind::GroupClaim
                        | EdgeKind::ClaimTemplate
                ) && unit.outcome != Outcome::Scheduled;
                out.push(Finding {
                    id,
                    severity: if blocks {
                        Severity::Error
                    } else {
                        Severity::Warning
                    },
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
}

/// WASE004 for a unit held before scheduling: a gang short of its quorum says how many more
/// members (or child groups) it waits for, anything else that PreEnqueue holds it. The fix is
/// offered only when the simulator's message says the gang waits for minCount pods.
fn waiting_finding(s: &Snapshot, target: &ObjRef, unit: &UnitResult, out: &mut Vec<Finding>) {
    let min = unit.min_count.or_else(|| super::min_count_of(s, target));
    // A gang short of its quorum: how many more members it waits for (explain adds how
    // many of them would fit once they exist, from a trial run).
    let title = match (unit.known, min) {
        (Some(known), Some(min)) if known < min => {
            let more = min - known;
            if target.kind == ObjKind::CompositePodGroup {
                format!(
                    "waiting for {more} more child group(s) to reach quorum ({known} ready, minGroupCount {min})"
                )
            } else {
                format!(
                    "waiting for {more} more {} ({known} known)",
                    if more == 1 { "member" } else { "members" }
                )
            }
        }
        _ => "held before scheduling (PreEnqueue)".to_owned(),
    };
    out.push(Finding {
        id: "WASE004",
        severity: Severity::Error,
        title,
        detail: unit.message.clone(),
        evidence: serde_json::json!({"pending": unit.pending, "minCount": min}),
        fix: match min {
            Some(min) if unit.message.contains("minCount pods") => Some(format!(
                "create the missing members: the gang waits until minCount ({min}) pods exist, {} do",
                unit.pending + unit.scheduled_before
            )),
            _ => None,
        },
    });
}

/// WASE005 for the first member pod whose claim entry has the name of one of the PodGroup's
/// entries but another source (claim or template): the pod then gets a claim of its own
/// instead of the group's shared one. The fix is verified by a trial run with the entry set to
/// the group's source. Only the first such entry is reported.
fn claim_entry_mismatch(s: &Snapshot, options: &Options, target: &ObjRef, out: &mut Vec<Finding>) {
    let (ns, name) = (target.namespace.as_str(), target.name.as_str());
    let Some(pg) = s.pod_group(ns, name) else {
        return;
    };
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
                    |claim: &Option<String>, template: &Option<String>| match (claim, template) {
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
                    && schedulable_in(&copy, options, target);
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

/// The capacity findings of a unit that was tried and not placed (or placed only by
/// preemption, then at `Info` severity): the gang does not fit in one topology domain
/// (WASE020) or not at once (WASE021), why the nodes were rejected (WASE022), and each claim
/// that could not be allocated for the members that failed (WASE023).
pub(super) fn capacity_findings(
    s: &Snapshot,
    unit: &UnitResult,
    fit: &Fit,
    reasons: &BTreeMap<String, u32>,
    out: &mut Vec<Finding>,
) {
    // A gang that preempts successfully is placed: what did not fit before preemption is
    // worth knowing, not an error.
    let preempting = unit.outcome == Outcome::Preempting;
    let severity = if preempting {
        Severity::Info
    } else {
        Severity::Error
    };
    if !fit.domains.is_empty() {
        out.push(domain_finding(unit, fit, severity));
    } else if fit.placeable < fit.min_count {
        out.push(quorum_finding(s, unit, fit, severity));
    }
    if !reasons.is_empty() {
        out.push(rejection_reasons(unit, fit, reasons));
    }
    claim_findings(unit, severity, out);
}

/// WASE020: no topology domain holds the gang. The title names the best domain (most that
/// fit, then the first by name), the detail the best [`DOMAINS_SHOWN`] domains and the total
/// over all, the evidence every domain. `severity` is `Info` when preemption makes room, and
/// the title says so.
fn domain_finding(unit: &UnitResult, fit: &Fit, severity: Severity) -> Finding {
    let preempting = unit.outcome == Outcome::Preempting;
    // A CompositePodGroup counts child groups against minGroupCount (`fit` does too); a
    // PodGroup or pod counts members against minCount. Never the two in one "N of M".
    let composite = unit.kind == ObjKind::CompositePodGroup;
    let members = if composite {
        "child group(s)"
    } else {
        "members"
    };
    let best = fit
        .domains
        .iter()
        .max_by(|a, b| a.placeable.cmp(&b.placeable).then(b.value.cmp(&a.value)));
    let before = if composite { 0 } else { unit.scheduled_before };
    let total: u32 = fit.domains.iter().map(|d| d.placeable).sum::<u32>() + before;
    let best_name = best.map_or(String::new(), |d| d.value.clone());
    let tree = if composite { "gang tree" } else { "gang" };
    let title = if preempting {
        format!(
            "without preemption no {} domain holds the {tree}: at most {} of {} {members} fit in one ({best_name}); preemption makes room",
            fit.domains[0].key, fit.placeable, fit.min_count
        )
    } else {
        format!(
            "no {} domain holds the {tree}: at most {} of {} {members} fit in one ({best_name})",
            fit.domains[0].key, fit.placeable, fit.min_count
        )
    };
    Finding {
        id: "WASE020",
        severity,
        title,
        detail: {
            let (shown, rest) = fit.leading_domains(DOMAINS_SHOWN);
            let mut list = shown
                .iter()
                .map(|d| format!("{}={}", d.value, d.placeable))
                .collect::<Vec<_>>()
                .join(", ");
            if rest > 0 {
                list.push_str(&format!(", … {rest} more (-o json lists all)"));
            }
            let per = if rest > 0 {
                "per domain, most first"
            } else {
                "per domain"
            };
            let what = if composite { "child groups" } else { "members" };
            format!(
                "{what} that fit {per}: {list}; {total} in all domains together — free capacity spread across domains is not gang capacity"
            )
        },
        evidence: serde_json::to_value(&fit.domains).unwrap_or_default(),
        fix: None,
    }
}

/// WASE021: fewer than the quorum fit at once (no topology constraint): members against
/// `minCount`, or child groups against `minGroupCount` for a CompositePodGroup. `severity`
/// is `Info` when preemption makes room, and the title says so.
fn quorum_finding(s: &Snapshot, unit: &UnitResult, fit: &Fit, severity: Severity) -> Finding {
    let preempting = unit.outcome == Outcome::Preempting;
    // A CompositePodGroup counts child groups against minGroupCount (`fit` does too); a
    // PodGroup or pod counts members against minCount. Never the two in one "N of M".
    let composite = unit.kind == ObjKind::CompositePodGroup;
    let (members, min_name) = if composite {
        ("child group(s)", "minGroupCount")
    } else {
        ("members", "minCount")
    };
    let of = if composite {
        super::child_groups(s, &unit.namespace, &unit.name)
    } else {
        unit.pending + unit.scheduled_before
    };
    let title = if preempting {
        format!(
            "{} of {of} {members} fit at once without preemption ({min_name} {}); preemption makes room for the rest",
            fit.placeable, fit.min_count
        )
    } else {
        format!(
            "{} of {of} {members} fit at once ({min_name} {})",
            fit.placeable, fit.min_count
        )
    };
    Finding {
        id: "WASE021",
        severity,
        title,
        detail: unit.message.clone(),
        evidence: if composite {
            serde_json::json!({"placeableGroups": fit.placeable, "minGroupCount": fit.min_count})
        } else {
            serde_json::json!({"placeable": fit.placeable, "minCount": fit.min_count})
        },
        fix: None,
    }
}

/// WASE022 (always `Info`): the node rejection reasons with their node counts, in the domain
/// the unit was chosen for or came closest to fitting when it has a topology constraint (then
/// followed by one short entry per other domain).
fn rejection_reasons(unit: &UnitResult, fit: &Fit, reasons: &BTreeMap<String, u32>) -> Finding {
    let text: Vec<String> = reasons
        .iter()
        .map(|(r, n)| format!("{n} node(s): {r}"))
        .collect();
    let (title, detail) = match unit.focus_domain() {
        Some(d) => (
            format!(
                "why the nodes were rejected in {}={} ({})",
                d.key,
                d.value,
                if d.chosen
                    || unit
                        .trace
                        .preemption_domains
                        .iter()
                        .any(|p| p.chosen && p.key == d.key && p.value == d.value)
                {
                    "the domain chosen"
                } else {
                    "the domain closest to fitting"
                }
            ),
            text.join("; ") + &other_domains(unit, fit, d),
        ),
        None => ("why the nodes were rejected".to_owned(), text.join("; ")),
    };
    Finding {
        id: "WASE022",
        severity: Severity::Info,
        title,
        detail,
        evidence: serde_json::to_value(reasons).unwrap_or_default(),
        fix: None,
    }
}

/// WASE023, one per claim that could not be allocated, with the pods it failed for and per
/// reason the most nodes any one of them saw rejected for it.
fn claim_findings(unit: &UnitResult, severity: Severity, out: &mut Vec<Finding>) {
    // Only the members that failed, and only their claims (a member placed and rolled back
    // with its gang failed nothing, whatever nodes had no device for it on the way).
    let mut claims: BTreeMap<String, (BTreeMap<String, u32>, Vec<&str>)> = BTreeMap::new();
    for p in unit.failed_attempts() {
        for (c, rs) in &p.claim_reasons {
            let (reasons, pods) = claims.entry(c.clone()).or_default();
            if !pods.contains(&&*p.pod) {
                pods.push(&p.pod);
            }
            for (r, n) in rs {
                let e = reasons.entry(r.clone()).or_default();
                *e = (*e).max(*n);
            }
        }
    }
    for (claim, (rs, pods)) in claims {
        let mut evidence = serde_json::to_value(&rs).unwrap_or_default();
        if let Some(map) = evidence.as_object_mut() {
            map.insert("pods".to_owned(), serde_json::json!(pods));
        }
        out.push(Finding {
            id: "WASE023",
            severity,
            title: format!(
                "claim `{claim}` cannot be allocated for {}",
                pods_text(&pods)
            ),
            detail: rs
                .iter()
                .map(|(r, n)| format!("{n} node(s): {r}"))
                .collect::<Vec<_>>()
                .join("; "),
            evidence,
            fix: None,
        });
    }
}

/// "pod a", "pods a, b", "pods a, b, c and 4 more".
fn pods_text(pods: &[&str]) -> String {
    const SHOWN: usize = 3;
    match pods {
        [one] => format!("pod {one}"),
        _ if pods.len() <= SHOWN => format!("pods {}", pods.join(", ")),
        _ => format!(
            "pods {} and {} more",
            pods[..SHOWN].join(", "),
            pods.len() - SHOWN
        ),
    }
}

/// The other domains' rejections, one short entry each (members that fit, the reason that
/// rejected the most nodes): "; other domains: rack-a: 2 fit, 2 node(s): Insufficient
/// nvidia.com/gpu; …". Empty when the focus domain is the only one.
fn other_domains(unit: &UnitResult, fit: &Fit, focus: &crate::sched::plan::DomainTrace) -> String {
    let others: Vec<&crate::sched::plan::DomainTrace> = unit
        .own_domains()
        .filter(|d| d.value != focus.value)
        .collect();
    if others.is_empty() {
        return String::new();
    }
    let mut entries: Vec<String> = others
        .iter()
        .take(DOMAINS_SHOWN)
        .map(|d| {
            let mut top: BTreeMap<&str, u32> = BTreeMap::new();
            for p in unit.failed_attempts_in(d) {
                for (r, n) in p.node_reasons.iter() {
                    let e = top.entry(r).or_default();
                    *e = (*e).max(n);
                }
            }
            let worst = top
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(r, n)| format!(", {n} node(s): {r}"))
                .unwrap_or_default();
            // The fit's count: child groups for a CompositePodGroup, members otherwise.
            let placeable = fit
                .domains
                .iter()
                .find(|f| f.key == d.key && f.value == d.value)
                .map_or(d.placeable, |f| f.placeable);
            format!("{}: {placeable} fit{worst}", d.value)
        })
        .collect();
    if others.len() > DOMAINS_SHOWN {
        entries.push(format!(
            "… {} more (-o json lists all)",
            others.len() - DOMAINS_SHOWN
        ));
    }
    format!("; other domains: {}", entries.join("; "))
}

/// The topology domain a topology-constrained group would preempt in: for every topology key
/// the preemption tried (`trace.preemptionDomains`), outermost first, the key's values on the
/// nodes the preemptor is nominated to (one value per key, except when child groups sit in
/// different domains). Empty without a topology constraint.
fn preemption_domain(s: &Snapshot, unit: &UnitResult) -> Vec<(String, String)> {
    let mut keys: Vec<&str> = Vec::new();
    for d in unit.trace.preemption_domains.iter().filter(|d| d.chosen) {
        if !keys.contains(&d.key.as_str()) {
            keys.push(&d.key);
        }
    }
    // The trace lists a nested group's domains before its parent's: outermost last.
    keys.reverse();
    let mut out = Vec::new();
    for key in keys {
        let mut values: Vec<&str> = unit
            .placements
            .iter()
            .filter_map(|p| s.node(&p.node)?.metadata.labels.as_ref()?.get(key))
            .map(String::as_str)
            .collect();
        values.sort_unstable();
        values.dedup();
        out.extend(values.into_iter().map(|v| (key.to_owned(), v.to_owned())));
    }
    out
}

pub(super) fn preemption_findings(s: &Snapshot, unit: &UnitResult, out: &mut Vec<Finding>) {
    if let Some(b) = &unit.blast_radius {
        let domain = preemption_domain(s, unit);
        let label = domain
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ");
        // Victims on nodes of the domain (every key's value matches); a disruptionMode=all
        // victim group can reach outside it.
        let inside = |node: &str| {
            let labels = s.node(node).and_then(|n| n.metadata.labels.as_ref());
            let mut by_key: Vec<(&str, bool)> = Vec::new();
            for (k, v) in &domain {
                let hit = labels.and_then(|l| l.get(k)).is_some_and(|x| x == v);
                match by_key.iter_mut().find(|(key, _)| *key == k.as_str()) {
                    Some((_, h)) => *h |= hit,
                    None => by_key.push((k, hit)),
                }
            }
            by_key.iter().all(|(_, h)| *h)
        };
        let in_domain = unit.victims.iter().filter(|v| inside(&v.node)).count();
        let title = if domain.is_empty() {
            format!(
                "preemption would evict {} pod(s) to make room",
                b.victim_pods
            )
        } else if u32::try_from(in_domain).is_ok_and(|n| n == b.victim_pods) {
            format!(
                "preemption would evict {} pod(s) in {label} to make room",
                b.victim_pods
            )
        } else {
            format!(
                "preemption would evict {} pod(s) to make room in {label} ({in_domain} of them in it, the rest evicted with their disruptionMode=all group)",
                b.victim_pods
            )
        };
        let mut evidence = serde_json::to_value(b).unwrap_or_default();
        if !domain.is_empty()
            && let Some(map) = evidence.as_object_mut()
        {
            map.insert(
                "domain".to_owned(),
                serde_json::Value::Array(
                    domain
                        .iter()
                        .map(|(k, v)| serde_json::json!({"key": k, "value": v}))
                        .collect(),
                ),
            );
            map.insert(
                "victimPodsInDomain".to_owned(),
                serde_json::json!(in_domain),
            );
        }
        out.push(Finding {
            id: "WASE030",
            severity: Severity::Warning,
            title,
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
                },
            ) + &b
                .groups
                .iter()
                .filter_map(|g| g.stranded())
                .map(|s| format!("; {s}"))
                .collect::<String>(),
            evidence,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::DomainFit;
    use crate::sched::plan::UnitTrace;

    #[test]
    fn the_domain_finding_names_the_best_domains_and_counts_the_rest() {
        let unit = UnitResult {
            kind: ObjKind::PodGroup,
            namespace: "train".to_owned(),
            name: "wide".to_owned(),
            outcome: Outcome::Unschedulable,
            message: String::new(),
            placements: Vec::new(),
            victims: Vec::new(),
            blast_radius: None,
            min_count: Some(16),
            known: None,
            scheduled_before: 0,
            pending: 16,
            priority: 0,
            profile: String::new(),
            trace: UnitTrace::default(),
            kueue: None,
        };
        let mut domains: Vec<DomainFit> = (0..313)
            .map(|i| DomainFit {
                key: "rack".to_owned(),
                value: format!("r{i:03}"),
                placeable: 1,
            })
            .collect();
        domains[250].placeable = 6;
        let fit = Fit {
            min_count: 16,
            placeable: 6,
            domains,
            held: false,
        };
        let mut out = Vec::new();
        capacity_findings(
            &Snapshot::default(),
            &unit,
            &fit,
            &BTreeMap::new(),
            &mut out,
        );
        let f = out.iter().find(|f| f.id == "WASE020").expect("WASE020");
        assert_eq!(
            f.title,
            "no rack domain holds the gang: at most 6 of 16 members fit in one (r250)"
        );
        let rest = 313 - DOMAINS_SHOWN;
        assert!(
            f.detail
                .starts_with("members that fit per domain, most first: r250=6, r000=1,"),
            "{}",
            f.detail
        );
        assert!(
            f.detail.contains(&format!(
                ", … {rest} more (-o json lists all); 318 in all domains together"
            )),
            "{}",
            f.detail
        );
        // The evidence keeps every domain.
        assert_eq!(f.evidence.as_array().map(Vec::len), Some(313));
    }
}
