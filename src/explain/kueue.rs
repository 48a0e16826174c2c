//! `explain` of a Kueue Workload: which stage blocks it. Not admitted yet: Kueue's reason with
//! the ClusterQueue's numbers (what it needs, per flavor the nominal quota, what is used and by
//! whom, what may be borrowed in the cohort) and verified fixes (more nominal quota, checked by
//! running the admission again). Admitted: a finding that says so, then the placement stage's
//! diagnosis of the unit holding its pods (the caller runs it).
//!
//! Pure: reads the snapshot, stage one's result and the joined plan.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::{Diagnosis, Finding, Fit, Verdict};
use crate::kueue::admission::WorkloadResult;
use crate::kueue::flavor::show;
use crate::kueue::quota::{Amount, FlavorResource, Tree};
use crate::kueue::stages::{self, Staged};
use crate::kueue::workload::{Info, PriorityClasses, RequestOptions, admitted_usage};
use crate::report::Severity;
use crate::sched::plan::{AdmissionOutcome, Plan};
use crate::snapshot::kueue::PreemptionPolicy;
use crate::snapshot::{ObjRef, Snapshot};

/// What explain says of a Kueue Workload.
#[derive(Debug)]
pub(crate) enum KueueExplanation {
    /// Not admitted (or held by an admission check): the whole diagnosis.
    Admission(Box<Diagnosis>),
    /// Admitted and started: the finding saying so, and the unit whose diagnosis follows it.
    Placement {
        /// `WASE101`.
        finding: Finding,
        /// The stage-two unit holding its pods.
        unit: ObjRef,
    },
}

/// Explains the Kueue Workload `target` from stage one's result `staged` (of `s`) and the joined
/// `plan`. An error when the workload is not pending admission (finished, or running already).
pub(crate) fn explain_workload(
    s: &Snapshot,
    staged: &Staged,
    plan: &Plan,
    gate_overrides: &BTreeMap<String, bool>,
    target: &ObjRef,
) -> Result<KueueExplanation, String> {
    let Some(unit) = plan
        .units
        .iter()
        .find(|u| u.is(target) && u.kueue.is_some())
    else {
        return Err(format!(
            "Kueue Workload `{}/{}` is not pending admission (finished, or admitted with its pods created already)",
            target.namespace, target.name
        ));
    };
    let Some(k) = unit.kueue.as_deref() else {
        return Err(format!("`{}` is not a Kueue Workload", target.name));
    };
    let Some(r) = staged
        .admission
        .workloads
        .iter()
        .find(|r| is(s, r.index, target))
    else {
        return Err(format!(
            "Kueue Workload `{}/{}` has no admission result",
            target.namespace, target.name
        ));
    };
    if let Some(at) = &k.placement {
        return Ok(KueueExplanation::Placement {
            finding: Finding {
                id: "WASE101",
                severity: Severity::Info,
                title: format!(
                    "Kueue admits it to ClusterQueue {}; kube-scheduler places its pods ({}/{})",
                    r.cluster_queue, at.kind, at.name
                ),
                detail: unit.message.clone(),
                evidence: serde_json::json!({
                    "clusterQueue": r.cluster_queue,
                    "podSets": k.admission.pod_sets,
                    "placement": at,
                }),
                fix: None,
            },
            unit: at.clone(),
        });
    }
    let (detail, evidence) = numbers(s, staged, r);
    let fixes = if r.outcome == AdmissionOutcome::QuotaPending {
        quota_fixes(s, gate_overrides, r)
    } else {
        Vec::new()
    };
    let title = match r.outcome {
        AdmissionOutcome::QuotaPending => format!(
            "pending admission in ClusterQueue {}: {}",
            r.cluster_queue, r.message
        ),
        AdmissionOutcome::Preempting => format!(
            "Kueue admits it to ClusterQueue {} once the workloads it preempts are evicted",
            r.cluster_queue
        ),
        _ => unit.message.clone(),
    };
    let finding = Finding {
        id: "WASE100",
        severity: if r.outcome == AdmissionOutcome::Preempting {
            Severity::Warning
        } else {
            Severity::Error
        },
        title,
        detail,
        evidence,
        fix: fixes.first().cloned(),
    };
    Ok(KueueExplanation::Admission(Box::new(Diagnosis {
        target: target.clone(),
        verdict: Verdict::from(unit.outcome),
        outcome: Some(unit.outcome),
        message: unit.message.clone(),
        findings: vec![finding],
        node_reasons: BTreeMap::new(),
        fit: Fit {
            min_count: 0,
            placeable: 0,
            domains: Vec::new(),
            held: true,
        },
        fixes,
        assumed: plan.settings.assumed.clone(),
        admitted: plan.settings.admitted.clone(),
        feature_gates: plan.settings.feature_gates.clone(),
        pod_by_pod: None,
        profile: String::new(),
        scoring: None,
        extenders: Vec::new(),
        relevant_notes: Vec::new(),
    })))
}

/// The stage-two unit that holds the pods of Kueue Workload `target` when stage one admits it
/// and starts its Job: its PodGroup, else its first pod. Found from stage one's result alone,
/// so that explain runs kube-scheduler's simulation once (on that unit), not once more to
/// find it.
pub(crate) fn started_unit(s: &Snapshot, staged: &Staged, target: &ObjRef) -> Option<ObjRef> {
    let r = staged
        .admission
        .workloads
        .iter()
        .find(|r| is(s, r.index, target))?;
    let l = staged.launched.iter().find(|l| l.workload == r.index)?;
    let ns = l.job.0.as_str();
    if let Some(g) = l
        .objects
        .pod_group
        .as_ref()
        .and_then(|g| g.metadata.name.as_deref())
    {
        return Some(ObjRef::new(crate::snapshot::ObjKind::PodGroup, ns, g));
    }
    let pod = l.objects.pods.first()?.metadata.name.as_deref()?;
    Some(ObjRef::new(crate::snapshot::ObjKind::Pod, ns, pod))
}

/// The finding that heads the diagnosis of [`started_unit`]'s `unit`: Kueue admits `target`,
/// and kube-scheduler's answer for its pods is `outcome` with `message` (that diagnosis's).
pub(crate) fn placement_finding(
    s: &Snapshot,
    staged: &Staged,
    target: &ObjRef,
    unit: &ObjRef,
    outcome: crate::sched::plan::Outcome,
    message: &str,
) -> Option<Finding> {
    let r = staged
        .admission
        .workloads
        .iter()
        .find(|r| is(s, r.index, target))?;
    let at = format!("{}/{}", unit.kind, unit.name);
    let pod_sets: Vec<crate::sched::plan::AdmittedPodSet> = r
        .pod_sets
        .iter()
        .map(|p| crate::sched::plan::AdmittedPodSet {
            name: p.name.clone(),
            count: p.count,
            flavors: p.flavors.clone(),
        })
        .collect();
    Some(Finding {
        id: "WASE101",
        severity: Severity::Info,
        title: format!(
            "Kueue admits it to ClusterQueue {}; kube-scheduler places its pods ({at})",
            r.cluster_queue
        ),
        detail: crate::kueue::dry_run::admitted_words(
            r,
            outcome,
            &at,
            message,
            &crate::kueue::dry_run::evicts_words(staged),
        ),
        evidence: serde_json::json!({
            "clusterQueue": r.cluster_queue,
            "podSets": pod_sets,
            "placement": unit,
        }),
        fix: None,
    })
}

/// Whether Kueue Workload `index` of `s` is `target`.
fn is(s: &Snapshot, index: usize, target: &ObjRef) -> bool {
    s.kueue
        .workloads
        .get(index)
        .is_some_and(|w| w.namespace() == target.namespace && w.name() == target.name)
}

/// The quota tree with the usage Kueue settles in: every workload holding quota after stage
/// one (admitted before and still, or admitted in the run), charged to its ClusterQueue.
fn settled_usage(s: &Snapshot, staged: &Staged) -> Option<(Tree, Vec<Holder>)> {
    let mut tree = Tree::build(&s.kueue).ok()?;
    let classes = PriorityClasses::of(&s.kueue, &s.priority_classes);
    let mut holders = Vec::new();
    for r in &staged.admission.workloads {
        if !matches!(
            r.outcome,
            AdmissionOutcome::Admitted
                | AdmissionOutcome::WaitingForAdmissionCheck
                | AdmissionOutcome::Preempting
        ) {
            continue;
        }
        let Some(w) = s.kueue.workloads.get(r.index) else {
            continue;
        };
        let Some(cq) = tree.cluster_queue(&r.cluster_queue) else {
            continue;
        };
        let info = Info::with_options(r.index, w, &classes, &RequestOptions::of(s));
        let usage: BTreeMap<FlavorResource, Amount> = if r.pod_sets.is_empty() {
            admitted_usage(w, &info)
        } else {
            let mut usage = BTreeMap::new();
            for ps in &info.pod_sets {
                let Some(assigned) = r.pod_sets.iter().find(|p| p.name == ps.name) else {
                    continue;
                };
                for (resource, v) in &ps.total {
                    if let Some(flavor) = assigned.flavors.get(resource) {
                        *usage
                            .entry(FlavorResource::new(flavor, resource))
                            .or_insert(0) += v;
                    }
                }
            }
            usage
        };
        for (fr, v) in &usage {
            tree.add_usage(cq, fr, *v);
        }
        holders.push(Holder {
            cluster_queue: r.cluster_queue.clone(),
            name: format!("{}/{}", w.namespace(), w.name()),
            namespace: w.namespace().to_owned(),
            short: w.name().to_owned(),
            priority: r.priority,
            created: created_of(w),
            usage,
        });
    }
    Some((tree, holders))
}

/// A workload holding quota once Kueue settles.
struct Holder {
    cluster_queue: String,
    /// `namespace/name`.
    name: String,
    namespace: String,
    /// The name alone.
    short: String,
    priority: i32,
    /// Creation, in seconds (queue order's second key).
    created: i64,
    usage: BTreeMap<FlavorResource, Amount>,
}

/// A Kueue Workload's creation time in seconds (0 without one).
fn created_of(w: &crate::snapshot::kueue::Workload) -> i64 {
    w.metadata
        .creation_timestamp
        .as_ref()
        .map_or(0, |t| t.0.as_second())
}

/// Whether the ClusterQueue's `withinClusterQueue` policy lets a workload of `priority`
/// created at `created` preempt `h` (kueue `preemption/classical`
/// `candidatesFromCQOrUnderThreshold` with `workloadFits`' policy check).
fn may_preempt(policy: PreemptionPolicy, priority: i32, created: i64, h: &Holder) -> bool {
    match policy {
        PreemptionPolicy::Never => false,
        PreemptionPolicy::Any => true,
        PreemptionPolicy::LowerPriority => h.priority < priority,
        PreemptionPolicy::LowerOrNewerEqualPriority => {
            h.priority < priority || (h.priority == priority && h.created > created)
        }
    }
}

/// The admitted workloads of `queue` (in Kueue's queue order) whose finishing would cover
/// `deficit`, taking each that frees some of it until nothing is missing; `None` when all of
/// them together do not cover it.
fn freed_by<'h>(
    queue: &[&'h Holder],
    mut deficit: BTreeMap<FlavorResource, Amount>,
) -> Option<Vec<&'h Holder>> {
    let mut after = Vec::new();
    for h in queue {
        let mut helps = false;
        for (fr, d) in &mut deficit {
            if *d > 0
                && let Some(v) = h.usage.get(fr).filter(|v| **v > 0)
            {
                *d -= v;
                helps = true;
            }
        }
        if helps {
            after.push(*h);
        }
        if deficit.values().all(|d| *d <= 0) {
            break;
        }
    }
    (!after.is_empty() && deficit.values().all(|d| *d <= 0)).then_some(after)
}

/// "would be admitted after `ft-7` (priority 100) finishes, or by preempting it (policy
/// LowerPriority allows it)": the admitted workloads of the same ClusterQueue, taken in
/// Kueue's queue order (higher priority first, then older), whose quota, once they finish,
/// covers what `r` lacks on one of the queue's flavors (the first, in the queue's order, where
/// it does); and whether the queue's `withinClusterQueue` policy lets `r` preempt them
/// instead. `None` when the queue's own workloads finishing would not be enough.
fn admitted_after(
    cq: &crate::snapshot::kueue::ClusterQueue,
    (tree, node): (&Tree, usize),
    holders: &[Holder],
    r: &WorkloadResult,
    (namespace, created): (&str, i64),
    needs: &BTreeMap<String, Amount>,
) -> Option<(String, serde_json::Value)> {
    let mut queue: Vec<&Holder> = holders
        .iter()
        .filter(|h| h.cluster_queue == r.cluster_queue)
        .collect();
    queue.sort_by(|a, b| b.priority.cmp(&a.priority).then(a.created.cmp(&b.created)));
    let flavors = cq
        .spec
        .resource_groups
        .iter()
        .filter(|g| {
            r.shortfall
                .keys()
                .all(|res| g.covered_resources.contains(res))
        })
        .flat_map(|g| g.flavors.iter().map(|f| f.name.as_str()));
    for flavor in flavors {
        let deficit: BTreeMap<FlavorResource, Amount> = r
            .shortfall
            .keys()
            .map(|res| {
                let fr = FlavorResource::new(flavor, res);
                let need = needs.get(res).copied().unwrap_or(0);
                let free = tree.available(node, &fr).max(0);
                (fr, need - free)
            })
            .filter(|(_, d)| *d > 0)
            .collect();
        if deficit.is_empty() {
            continue;
        }
        let Some(after) = freed_by(&queue, deficit) else {
            continue;
        };
        let name = |h: &Holder| {
            if h.namespace == namespace {
                format!("`{}`", h.short)
            } else {
                format!("`{}`", h.name)
            }
        };
        let listed: Vec<String> = after
            .iter()
            .map(|h| format!("{} (priority {})", name(h), h.priority))
            .collect();
        let policy = cq.spec.preemption.within_cluster_queue;
        let allowed: Vec<&Holder> = after
            .iter()
            .copied()
            .filter(|h| may_preempt(policy, r.priority, created, h))
            .collect();
        let (it, them) = if after.len() == 1 {
            ("it", "finishes")
        } else {
            ("them", "finish")
        };
        let preempt = if allowed.len() == after.len() {
            format!(", or by preempting {it} (policy {policy:?} allows it)")
        } else if allowed.is_empty() {
            let why = match policy {
                PreemptionPolicy::Never => String::new(),
                _ => format!(
                    ": not of lower priority than {}{}",
                    r.priority,
                    if policy == PreemptionPolicy::LowerOrNewerEqualPriority {
                        ", nor of equal priority and newer"
                    } else {
                        ""
                    }
                ),
            };
            format!("; preempting {it} is not allowed (policy {policy:?}{why})")
        } else {
            let names: Vec<String> = allowed.iter().map(|h| name(h)).collect();
            format!(
                "; policy {policy:?} allows preempting {} only",
                names.join(", ")
            )
        };
        let words = format!(
            "would be admitted after {} {them}{preempt}",
            listed.join(", ")
        );
        let evidence = serde_json::json!({
            "flavor": flavor,
            "workloads": after.iter().map(|h| serde_json::json!({
                "namespace": h.namespace,
                "name": h.short,
                "priority": h.priority,
                "preemptible": may_preempt(policy, r.priority, created, h),
            })).collect::<Vec<_>>(),
            "policy": format!("{policy:?}"),
        });
        return Some((words, evidence));
    }
    None
}

/// The numbers behind a workload that waits for quota: per resource it lacks, each flavor of
/// its ClusterQueue that covers it, with nominal quota, usage (and by whom), what is free, the
/// borrowing limit and the cohort; and the queue's preemption policy.
fn numbers(s: &Snapshot, staged: &Staged, r: &WorkloadResult) -> (String, serde_json::Value) {
    let Some(cq) = s
        .kueue
        .cluster_queues
        .iter()
        .find(|c| c.name() == r.cluster_queue)
    else {
        return (String::new(), serde_json::Value::Null);
    };
    let Some((tree, holders)) = settled_usage(s, staged) else {
        return (String::new(), serde_json::Value::Null);
    };
    let Some(node) = tree.cluster_queue(&r.cluster_queue) else {
        return (String::new(), serde_json::Value::Null);
    };
    let classes = PriorityClasses::of(&s.kueue, &s.priority_classes);
    let needs = s
        .kueue
        .workloads
        .get(r.index)
        .map(|w| Info::with_options(r.index, w, &classes, &RequestOptions::of(s)).total_requests())
        .unwrap_or_default();
    let mut lines = Vec::new();
    let mut evidence = Vec::new();
    for resource in r.shortfall.keys() {
        let need = needs.get(resource).copied().unwrap_or(0);
        for group in &cq.spec.resource_groups {
            if !group.covered_resources.contains(resource) {
                continue;
            }
            for flavor in &group.flavors {
                let fr = FlavorResource::new(&flavor.name, resource);
                let quota = tree.nodes[node]
                    .quotas
                    .get(&fr)
                    .copied()
                    .unwrap_or_default();
                let used = tree.nodes[node].used(&fr);
                let free = tree.available(node, &fr).max(0);
                let by: Vec<String> = holders
                    .iter()
                    .filter(|h| h.cluster_queue == r.cluster_queue && h.usage.contains_key(&fr))
                    .map(|h| format!("{} (priority {})", h.name, h.priority))
                    .collect();
                // What the cohort can lend it now: what it may use beyond its own quota.
                let lendable = (free - tree.local_available(node, &fr)).max(0);
                let borrowing = match (cq.cohort(), quota.borrowing_limit) {
                    (None, _) => "no cohort to borrow from".to_owned(),
                    (Some(c), None) => format!(
                        "may borrow without limit in cohort {c}, which has {} to lend",
                        show(resource, lendable)
                    ),
                    (Some(c), Some(l)) => format!(
                        "borrowing limit {} in cohort {c}, which has {} to lend",
                        show(resource, l),
                        show(resource, lendable)
                    ),
                };
                lines.push(format!(
                    "needs {} {resource} of flavor {}; {} free of nominal {} ({} used by {} workload{}{}); {borrowing}",
                    show(resource, need),
                    flavor.name,
                    show(resource, free),
                    show(resource, quota.nominal),
                    show(resource, used),
                    by.len(),
                    if by.len() == 1 { "" } else { "s" },
                    if by.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", by.join(", "))
                    },
                ));
                evidence.push(serde_json::json!({
                    "resource": resource,
                    "flavor": flavor.name,
                    "needs": show(resource, need),
                    "nominal": show(resource, quota.nominal),
                    "used": show(resource, used),
                    "free": show(resource, free),
                    "usedBy": by,
                    "cohort": cq.cohort(),
                    "borrowingLimit": quota.borrowing_limit.map(|l| show(resource, l)),
                    "lendable": cq.cohort().map(|_| show(resource, lendable)),
                }));
            }
        }
    }
    let target = s.kueue.workloads.get(r.index);
    let after = target.and_then(|w| {
        admitted_after(
            cq,
            (&tree, node),
            &holders,
            r,
            (w.namespace(), created_of(w)),
            &needs,
        )
    });
    if let Some((words, _)) = &after {
        lines.push(words.clone());
    }
    let policy = &cq.spec.preemption;
    lines.push(format!(
        "preemption: withinClusterQueue {:?}, reclaimWithinCohort {:?}",
        policy.within_cluster_queue, policy.reclaim_within_cohort
    ));
    (
        lines.join("; "),
        match after {
            Some((_, after)) => serde_json::json!({
                "clusterQueue": r.cluster_queue, "quota": evidence, "admittedAfter": after,
            }),
            None => serde_json::json!({"clusterQueue": r.cluster_queue, "quota": evidence}),
        },
    )
}

/// Raising the ClusterQueue's nominal quota by the shortfall, flavor by flavor in its order:
/// each fix is kept only when stage one, run again with it, admits the workload.
fn quota_fixes(
    s: &Snapshot,
    gate_overrides: &BTreeMap<String, bool>,
    r: &WorkloadResult,
) -> Vec<String> {
    let Some(ci) = s
        .kueue
        .cluster_queues
        .iter()
        .position(|c| c.name() == r.cluster_queue)
    else {
        return Vec::new();
    };
    let mut fixes = Vec::new();
    let flavors: Vec<String> = s.kueue.cluster_queues[ci]
        .spec
        .resource_groups
        .iter()
        .filter(|g| {
            r.shortfall
                .keys()
                .all(|res| g.covered_resources.contains(res))
        })
        .flat_map(|g| g.flavors.iter().map(|f| f.name.clone()))
        .collect();
    for flavor in flavors {
        let mut copy = s.clone();
        let mut changes = Vec::new();
        let Some(cq) = copy.kueue.cluster_queues.get_mut(ci) else {
            break;
        };
        for group in &mut cq.spec.resource_groups {
            for f in group.flavors.iter_mut().filter(|f| f.name == flavor) {
                for q in f
                    .resources
                    .iter_mut()
                    .filter(|q| r.shortfall.contains_key(&q.name))
                {
                    let (Some(now), Some(more)) = (
                        crate::kueue::quota::amount_of(&q.name, &q.nominal_quota.0),
                        r.shortfall
                            .get(&q.name)
                            .and_then(|v| crate::kueue::quota::amount_of(&q.name, v)),
                    ) else {
                        continue;
                    };
                    let to = show(&q.name, now + more);
                    changes.push(format!(
                        "{} of flavor {flavor} from {} to {to}",
                        q.name, q.nominal_quota.0
                    ));
                    q.nominal_quota = Quantity(to);
                }
            }
        }
        if changes.len() != r.shortfall.len() {
            continue;
        }
        let copy = copy.build();
        let admitted = stages::stage(&copy, gate_overrides)
            .ok()
            .flatten()
            .is_some_and(|st| {
                st.admission
                    .workloads
                    .iter()
                    .any(|w| w.index == r.index && w.outcome == AdmissionOutcome::Admitted)
            });
        if admitted {
            fixes.push(format!(
                "raise ClusterQueue {}'s nominalQuota of {} (verified: Kueue then admits it)",
                r.cluster_queue,
                changes.join(", ")
            ));
        }
    }
    fixes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kueue::dry_run;
    use crate::sched::Options;
    use crate::sched::plan::Outcome;
    use crate::snapshot::ObjKind;
    use crate::snapshot::source::{Collector, files::load_str};

    fn snapshot() -> Snapshot {
        let text = std::fs::read_to_string("testdata/kueue-sim/two-stages.yaml").expect("fixture");
        let mut c = Collector::new();
        load_str(&text, "two-stages.yaml", &mut c).unwrap_or_else(|e| panic!("{e:?}"));
        c.finish()
    }

    fn explain(name: &str) -> KueueExplanation {
        let s = snapshot();
        let options = Options::default();
        let staged = stages::stage(&s, &options.gate_overrides)
            .expect("stage")
            .expect("kueue");
        let mut plan = crate::sched::simulate(staged.cluster(&s), &options);
        dry_run::join(&mut plan, &staged, &s);
        explain_workload(
            &s,
            &staged,
            &plan,
            &options.gate_overrides,
            &ObjRef::new(ObjKind::KueueWorkload, "ml", name),
        )
        .expect("explanation")
    }

    #[test]
    fn quota_pending_says_what_it_needs_what_is_free_and_who_uses_it() {
        let KueueExplanation::Admission(d) = explain("job-train-c-5c7e1") else {
            panic!("not an admission diagnosis");
        };
        assert_eq!(d.outcome, Some(Outcome::Waiting));
        let f = &d.findings[0];
        assert_eq!(f.id, "WASE100");
        assert!(
            f.title
                .starts_with("pending admission in ClusterQueue team-a"),
            "{}",
            f.title
        );
        assert!(
            f.detail.contains(
                "needs 8 nvidia.com/gpu of flavor h100; 0 free of nominal 16 (16 used by 2 workloads: ml/job-train-a-5c7e1 (priority 0), ml/job-train-b-5c7e1 (priority 0)); no cohort to borrow from"
            ),
            "{}",
            f.detail
        );
        assert_eq!(
            d.fixes,
            vec![
                "raise ClusterQueue team-a's nominalQuota of nvidia.com/gpu of flavor h100 from 16 to 24 (verified: Kueue then admits it)"
                    .to_owned()
            ]
        );
    }

    /// Issue 49: "would be admitted after `ft-7` (priority 100) finishes, or by preempting
    /// it (policy LowerPriority allows it)". Here the queue's first admitted workload in queue
    /// order frees the 8 GPUs, and the queue's policy (`Never`, the CRD default) forbids
    /// preempting it.
    #[test]
    fn quota_pending_says_which_admitted_workload_must_finish_and_whether_it_may_be_preempted() {
        let KueueExplanation::Admission(d) = explain("job-train-c-5c7e1") else {
            panic!("not an admission diagnosis");
        };
        let f = &d.findings[0];
        assert!(
            f.detail.contains(
                "would be admitted after `job-train-a-5c7e1` (priority 0) finishes; preempting it is not allowed (policy Never)"
            ),
            "{}",
            f.detail
        );
        let after = &f.evidence["admittedAfter"];
        assert_eq!(after["flavor"], "h100");
        assert_eq!(after["workloads"][0]["name"], "job-train-a-5c7e1");
        assert_eq!(after["workloads"][0]["preemptible"], false);
    }

    #[test]
    fn within_cluster_queue_policies_decide_who_may_be_preempted() {
        let h = |priority, created| Holder {
            cluster_queue: "q".to_owned(),
            name: "ml/a".to_owned(),
            namespace: "ml".to_owned(),
            short: "a".to_owned(),
            priority,
            created,
            usage: BTreeMap::new(),
        };
        use PreemptionPolicy::*;
        assert!(!may_preempt(Never, 100, 0, &h(0, 0)));
        assert!(may_preempt(Any, 0, 0, &h(100, 0)));
        assert!(may_preempt(LowerPriority, 100, 0, &h(0, 0)));
        assert!(!may_preempt(LowerPriority, 100, 0, &h(100, 5)));
        assert!(may_preempt(LowerOrNewerEqualPriority, 100, 0, &h(100, 5)));
        assert!(!may_preempt(LowerOrNewerEqualPriority, 100, 9, &h(100, 5)));
    }

    #[test]
    fn an_admitted_workload_hands_over_to_its_pods_unit() {
        let KueueExplanation::Placement { finding, unit } = explain("job-train-b-5c7e1") else {
            panic!("not a placement");
        };
        assert_eq!(finding.id, "WASE101");
        assert_eq!(unit.kind, ObjKind::Pod);
        assert!(finding.detail.starts_with("admitted but unschedulable"));
    }

    /// Explain of an admitted, started workload finds its pods' unit from stage one alone
    /// (the CLI then simulates once, on that unit) and words the finding from that unit's
    /// diagnosis as the plan words it.
    #[test]
    fn a_started_workloads_unit_is_found_from_stage_one_alone() {
        let s = snapshot();
        let staged = stages::stage(&s, &BTreeMap::new())
            .expect("stage")
            .expect("kueue");
        let target = ObjRef::new(ObjKind::KueueWorkload, "ml", "job-train-b-5c7e1");
        let unit = started_unit(&s, &staged, &target).expect("started");
        assert_eq!(unit.kind, ObjKind::Pod);
        assert!(unit.name.starts_with("train-b-"), "{}", unit.name);
        let f = placement_finding(
            &s,
            &staged,
            &target,
            &unit,
            Outcome::Unschedulable,
            "0/2 nodes are available",
        )
        .expect("finding");
        assert_eq!(f.id, "WASE101");
        assert!(
            f.detail
                .starts_with("admitted but unschedulable: ClusterQueue team-a has quota"),
            "{}",
            f.detail
        );
        assert!(
            f.detail.ends_with(": 0/2 nodes are available"),
            "{}",
            f.detail
        );
        let held = ObjRef::new(ObjKind::KueueWorkload, "ml", "job-train-c-5c7e1");
        assert!(started_unit(&s, &staged, &held).is_none());
    }

    #[test]
    fn no_queue_is_said_without_numbers_or_fixes() {
        let KueueExplanation::Admission(d) = explain("job-orphan-5c7e1") else {
            panic!("not an admission diagnosis");
        };
        assert_eq!(
            d.findings[0].title,
            "LocalQueue no-such-queue doesn't exist"
        );
        assert!(d.fixes.is_empty());
    }
}
