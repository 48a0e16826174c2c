//! `lint --feasibility` (`WAS312`): runs the simulator on the cluster's nodes and devices with
//! nothing running, plus the linted objects, and reports every gang among the linted files that
//! cannot be placed even there. Pure: builds a snapshot and calls [`crate::sched::simulate`].
//!
//! Only gangs whose pods are among the linted files are tried; a PodGroup whose pods a
//! controller creates later waits for its quorum in the simulation and is not reported.

use serde_json::Value;

use super::{Emitter, Object, Rule};
use crate::sched::plan::Outcome;
use crate::sched::{Options, simulate};
use crate::snapshot::Snapshot;
use crate::snapshot::source::Collector;

/// The gates the feasibility check turns on unless `--feature-gates` says otherwise: the
/// question is whether the gang fits, not whether this cluster's scheduler would try.
const GATES_ON: &[&str] = &[
    "GenericWorkload",
    "WorkloadWithJob",
    "TopologyAwareWorkloadScheduling",
    "CompositePodGroup",
    "DRAWorkloadResourceClaims",
];

/// The kinds of linted objects the simulation takes.
const SIMULATED: &[&str] = &[
    "Pod",
    "PodGroup",
    "CompositePodGroup",
    "Workload",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "DeviceClass",
    "PriorityClass",
    "LimitRange",
    "RuntimeClass",
    // Expanded by admission into the pods (and, with WorkloadWithJob, the PodGroup) the Job
    // controller creates; a gang that cannot fit is reported on the Job.
    "Job",
];

fn values<T: serde::Serialize>(items: &[T]) -> impl Iterator<Item = Value> + '_ {
    items.iter().filter_map(|i| serde_json::to_value(i).ok())
}

/// The empty cluster: nodes, devices, classes and LimitRanges of `cluster`, its facts, and the
/// linted objects, admitted as the API server would create them.
fn empty_cluster(
    objects: &[Object],
    cluster: &Snapshot,
    overrides: &std::collections::BTreeMap<String, bool>,
) -> Snapshot {
    let mut c = Collector::new();
    let infrastructure = values(&cluster.nodes)
        .chain(values(&cluster.resource_slices))
        .chain(values(&cluster.device_classes))
        .chain(values(&cluster.priority_classes))
        .chain(values(&cluster.limit_ranges))
        .chain(values(&cluster.runtime_classes));
    for v in infrastructure {
        let _ = c.add(v);
    }
    for obj in objects {
        let pending_pod = obj.kind != "Pod" || obj.value.pointer("/spec/nodeName").is_none();
        if SIMULATED.contains(&obj.kind.as_str()) && pending_pod {
            let mut value = obj.value.clone();
            if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.entry("namespace")
                    .or_insert_with(|| Value::String(obj.namespace.clone()));
            }
            // A broken object is reported by the other rules; it is simply not simulated.
            let _ = c.add(value);
        }
    }
    c.merge_facts(cluster.facts.clone());
    let mut s = c.finish();
    // The cluster's scheduler configuration (`--scheduler-config`) decides the placements.
    s.scheduler_config = cluster.scheduler_config.clone();
    // The linted objects as the API server would create them (priority from their class,
    // default tolerations). One the API server would refuse is left as written: other rules
    // report why (a class that exists nowhere: WAS308).
    let _ = crate::admit::admit_without_kueue(&mut s, None, overrides);
    s
}

/// Reports linted gangs that cannot be placed on the empty cluster.
pub(crate) fn check(
    objects: &[Object],
    cluster: &Snapshot,
    gate_overrides: &std::collections::BTreeMap<String, bool>,
    em: &mut Emitter<'_>,
) {
    let mut overrides = gate_overrides.clone();
    for gate in GATES_ON {
        overrides.entry((*gate).to_owned()).or_insert(true);
    }
    let snapshot = empty_cluster(objects, cluster, &overrides);
    let options = Options {
        gate_overrides: overrides,
        no_preemption: true,
        ..Options::default()
    };
    let plan = simulate(&snapshot, &options);
    for unit in &plan.units {
        // Error: the scheduler would report an error for it (a CEL runtime error in a device
        // selector, say), so it is not placed either.
        if !matches!(unit.outcome, Outcome::Unschedulable | Outcome::Error) || !unit.kind.is_group()
        {
            continue;
        }
        // A Job's PodGroup (made by the Job controller's expansion) is reported on the Job.
        let owner_job = snapshot
            .pod_group(&unit.namespace, &unit.name)
            .and_then(|pg| pg.metadata.owner_references.as_ref())
            .and_then(|o| {
                o.iter()
                    .find(|o| o.kind == "Job" && o.controller == Some(true))
            })
            .map(|o| o.name.as_str());
        let Some(obj) = objects.iter().find(|o| {
            o.namespace == unit.namespace
                && ((o.kind == unit.kind.as_str() && o.id.name == unit.name)
                    || (o.kind == "Job" && Some(o.id.name.as_str()) == owner_job))
        }) else {
            continue;
        };
        // Why claims could not be allocated (a selector error such as the CEL cost limit is
        // only in the trace, not in the scheduler's summary message).
        let mut claims: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        // Only the members that failed (under a topology constraint, in the domain closest
        // to fitting), as explain's WASE023 quotes them.
        for p in unit.failed_attempts() {
            for (claim, reasons) in &p.claim_reasons {
                let list = claims.entry(claim.as_str()).or_default();
                for r in reasons.keys() {
                    if !list.contains(&r.as_str()) {
                        list.push(r.as_str());
                    }
                }
            }
        }
        let claims: String = claims
            .iter()
            .map(|(claim, reasons)| format!("; claim `{claim}`: {}", reasons.join(", ")))
            .collect();
        em.emit(
            Rule::GangCannotFit,
            obj,
            "spec.schedulingPolicy",
            format!(
                "{} `{}/{}` cannot be placed even on the empty cluster: {}{claims}",
                unit.kind, unit.namespace, unit.name, unit.message
            ),
            "lower `minCount` or the pods' requests, relax the topology constraint, or add capacity",
        );
    }
}
