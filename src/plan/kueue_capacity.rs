//! `capacity --queue LOCALQUEUE`: how many copies of a gang shape Kueue's quota admits in the
//! LocalQueue's ClusterQueue, beside how many fit the nodes, and which of the two limits first.
//!
//! Quota: each copy is a Kueue Workload (one pod set per member pod, its template the pod's
//! spec) given to Kueue's flavor assignment ([`crate::kueue::flavor::assign`], a port of
//! `pkg/scheduler/flavorassigner/flavorassigner.go`: flavors in the ClusterQueue's order,
//! `flavorFungibility`, the flavor's nodeLabels and taints checked against the pod) over the
//! cluster's current quota state ([`crate::kueue::view::current_tree`]: nominal plus what may
//! be borrowed in the cohort, less what the workloads holding quota use). A copy that fits is
//! charged and the next one tried, without preemption, until one does not fit.
//! Nodes: the shape with the first copy's flavor applied as Kueue applies it when it unsuspends
//! a Job (`podset.Merge`: the flavor's nodeLabels into the nodeSelector, its tolerations added),
//! counted by the simulator as `capacity` always counts.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::kueue::flavor::{self, Context, Mode, NoPreemption};
use crate::kueue::view::{current_tree, priority_classes};
use crate::kueue::workload::{Info, RequestOptions};
use crate::snapshot::Snapshot;
use crate::snapshot::kueue::{ClusterQueue, KueueObject, LocalQueue, ResourceFlavor, parse};
use crate::snapshot::pod::Pod;

/// The `queue` object of a `CapacityReport`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueCapacity {
    /// The LocalQueue, `namespace/name`.
    pub local_queue: String,
    /// Its ClusterQueue.
    pub cluster_queue: String,
    /// Copies Kueue's quota admits, one after another, without preemption (`preemption` says
    /// when the ClusterQueue could preempt for more).
    pub by_quota: u32,
    /// Copies that fit the nodes (the report's `copies`, with the flavor applied).
    pub by_nodes: u32,
    /// `quota` when the quota admits fewer copies than fit the nodes, else `nodes`.
    pub limited_by: String,
    /// Copies admitted per flavor, in the order they were admitted.
    pub flavors: Vec<FlavorCopies>,
    /// The flavor whose nodeLabels and tolerations the node count applied (absent when the
    /// ClusterQueue has no flavor for the shape's resources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_flavor: Option<String>,
    /// Why the next copy does not fit the quota (Kueue's words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota_message: Option<String>,
    /// When the ClusterQueue may preempt: that `byQuota` counts no preemption, and what the
    /// queue's policy would let a copy evict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<String>,
}

/// `byQuota` counts copies without preemption; when the ClusterQueue's policy lets a copy
/// preempt (`spec.preemption`: withinClusterQueue, reclaimWithinCohort, borrowWithinCohort
/// other than `Never`), the words saying so.
fn preemption_words(cq: &ClusterQueue) -> Option<String> {
    use crate::snapshot::kueue::PreemptionPolicy::Never;
    let p = &cq.spec.preemption;
    let mut rules = Vec::new();
    if p.within_cluster_queue != Never {
        rules.push(format!("withinClusterQueue {:?}", p.within_cluster_queue));
    }
    if p.reclaim_within_cohort != Never {
        rules.push(format!("reclaimWithinCohort {:?}", p.reclaim_within_cohort));
    }
    if p.borrow_within_cohort.policy != Never {
        rules.push(format!(
            "borrowWithinCohort {:?}",
            p.borrow_within_cohort.policy
        ));
    }
    (!rules.is_empty()).then(|| {
        format!(
            "the quota count is without preemption: ClusterQueue {} may preempt ({}), so Kueue may admit more copies by evicting the workloads those rules allow",
            cq.name(),
            rules.join(", ")
        )
    })
}

/// Copies admitted on one flavor (several flavors: `h100,a100` when pod sets differ).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlavorCopies {
    /// The flavor.
    pub flavor: String,
    /// Copies.
    pub copies: u32,
}

/// What the quota admits, before the node count.
#[derive(Debug, Clone)]
pub(crate) struct QuotaFit {
    /// The report's object, with `by_nodes` and `limited_by` still to fill.
    pub queue: QueueCapacity,
    /// The flavor to apply to the shape before counting on the nodes.
    pub flavor: Option<ResourceFlavor>,
}

/// The Kueue Workload a copy of the gang (`name`, its `pods` and `priority`) would be, queued
/// in `lq`.
fn workload_of(
    name: &str,
    pods: &[Pod],
    priority: Option<i32>,
    lq: &LocalQueue,
) -> Result<crate::snapshot::kueue::Workload, String> {
    let mut pod_sets = Vec::new();
    for (i, p) in pods.iter().enumerate() {
        let spec = serde_json::to_value(p.spec.clone().unwrap_or_default())
            .map_err(|e| format!("the shape's pod {i}: {e}"))?;
        pod_sets.push(serde_json::json!({
            "name": format!("pod-{i}"), "count": 1, "template": {"spec": spec}
        }));
    }
    let mut spec = serde_json::json!({"queueName": lq.name(), "podSets": pod_sets});
    if let Some(p) = priority {
        spec["priority"] = serde_json::json!(p);
    }
    let v = serde_json::json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": format!("{name}-copy"), "namespace": lq.namespace()},
        "spec": spec,
    });
    match parse(v) {
        Ok(KueueObject::Workload(w)) => Ok(*w),
        Ok(_) => Err("the shape is not a Kueue Workload".to_owned()),
        Err(e) => Err(format!("the shape as a Kueue Workload: {e}")),
    }
}

/// Counts the copies of the gang `name` (its `pods` and `priority`) Kueue admits in `cq` (the
/// ClusterQueue of `lq`), at most `max`.
pub(crate) fn quota_copies(
    s: &Snapshot,
    (cq, lq): (&ClusterQueue, &LocalQueue),
    (name, pods, priority): (&str, &[Pod], Option<i32>),
    max: usize,
) -> Result<QuotaFit, String> {
    let k = &s.kueue;
    let classes = priority_classes(k, &s.priority_classes);
    let mut tree = current_tree(k, &classes).map_err(|e| e.0)?;
    let node = tree
        .cluster_queue(cq.name())
        .ok_or_else(|| format!("ClusterQueue {} is not in the quota tree", cq.name()))?;
    let w = workload_of(name, pods, priority, lq)?;
    let info = Info::with_options(k.workloads.len(), &w, &classes, &RequestOptions::of(s));
    let flavors: BTreeMap<String, &ResourceFlavor> = k
        .resource_flavors
        .iter()
        .map(|f| (f.name().to_owned(), f))
        .collect();
    let ctx = Context {
        cq,
        cq_node: node,
        flavors: &flavors,
    };
    let mut copies: Vec<FlavorCopies> = Vec::new();
    let mut admitted = 0usize;
    let mut first_flavor: Option<String> = None;
    let mut message = None;
    while admitted < max {
        let a = flavor::assign(&ctx, &info, &w, &mut NoPreemption(&tree));
        let mut names: Vec<String> = a
            .pod_sets
            .iter()
            .flat_map(|p| p.flavors.values().map(|c| c.flavor.clone()))
            .collect();
        names.sort();
        names.dedup();
        if first_flavor.is_none() {
            first_flavor = names.first().cloned();
        }
        if a.mode() != Mode::Fit {
            let reasons = a.reasons();
            message = Some(if reasons.is_empty() {
                "no flavor has room for another copy".to_owned()
            } else {
                reasons.join("; ")
            });
            break;
        }
        for (fr, v) in &a.usage {
            tree.add_usage(node, fr, *v);
        }
        admitted += 1;
        let name = names.join(",");
        match copies.last_mut() {
            Some(last) if last.flavor == name => last.copies += 1,
            _ => copies.push(FlavorCopies {
                flavor: name,
                copies: 1,
            }),
        }
    }
    // With no assignment at all, the queue's first flavor stands for the nodes Kueue would use.
    let node_flavor = first_flavor.or_else(|| {
        cq.spec
            .resource_groups
            .first()
            .and_then(|g| g.flavors.first())
            .map(|f| f.name.clone())
    });
    Ok(QuotaFit {
        flavor: node_flavor
            .as_ref()
            .and_then(|f| flavors.get(f).map(|f| (*f).clone())),
        queue: QueueCapacity {
            local_queue: format!("{}/{}", lq.namespace(), lq.name()),
            cluster_queue: cq.name().to_owned(),
            by_quota: u32::try_from(admitted).unwrap_or(u32::MAX),
            by_nodes: 0,
            limited_by: String::new(),
            flavors: copies,
            node_flavor,
            quota_message: message,
            preemption: preemption_words(cq),
        },
    })
}

/// `flavor`'s nodeLabels merged into each pod's nodeSelector and its tolerations added
/// (`podset.Merge`).
pub(crate) fn with_flavor(pods: &mut [Pod], flavor: &ResourceFlavor) {
    for p in pods {
        let spec = p.spec.get_or_insert_with(Default::default);
        if !flavor.spec.node_labels.is_empty() {
            let sel = spec.node_selector.get_or_insert_with(BTreeMap::new);
            for (k, v) in &flavor.spec.node_labels {
                sel.insert(k.clone(), v.clone());
            }
        }
        if !flavor.spec.tolerations.is_empty() {
            let mut tols: Vec<_> = spec.tolerations.as_deref().unwrap_or_default().to_vec();
            for t in &flavor.spec.tolerations {
                if !tols.contains(t) {
                    tols.push(t.clone());
                }
            }
            spec.tolerations = Some(tols.into());
        }
    }
}

/// Fills the node count and the limit.
pub(crate) fn finish(mut q: QueueCapacity, by_nodes: u32) -> QueueCapacity {
    q.by_nodes = by_nodes;
    q.limited_by = if q.by_quota < by_nodes {
        "quota"
    } else {
        "nodes"
    }
    .to_owned();
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cq(preemption: serde_json::Value) -> ClusterQueue {
        let v = serde_json::json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
            "metadata": {"name": "team-a"}, "spec": {"preemption": preemption},
        });
        match parse(v) {
            Ok(KueueObject::ClusterQueue(c)) => c,
            other => panic!("{other:?}"),
        }
    }

    /// `capacity --queue`: byQuota never counts preemption; a queue that may preempt says so.
    #[test]
    fn by_quota_says_it_counts_no_preemption_when_the_queue_may_preempt() {
        assert_eq!(preemption_words(&cq(serde_json::json!({}))), None);
        assert_eq!(
            preemption_words(&cq(serde_json::json!({
                "withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"
            })))
            .as_deref(),
            Some(
                "the quota count is without preemption: ClusterQueue team-a may preempt (withinClusterQueue LowerPriority, reclaimWithinCohort Any), so Kueue may admit more copies by evicting the workloads those rules allow"
            )
        );
    }
}
