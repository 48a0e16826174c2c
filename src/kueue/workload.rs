//! A Kueue Workload as Kueue's scheduler sees it (`pkg/workload/workload.go` `Info`): its
//! queue, effective priority, queue-order timestamp and the requests of each pod set.
//!
//! - Requests of a pending workload: the pod template's effective requests (component-helpers'
//!   `PodRequests`, limits standing in for missing requests as Kueue's `AdjustResources`
//!   does) × the pod set's count less its reclaimable pods (`totalRequestsFromPodSets`).
//! - Requests of a workload holding quota: the admission's `resourceUsage`, scaled down by
//!   reclaimable pods (`totalRequestsFromAdmission`), charged to the admission's flavors.
//! - Priority: `spec.priority` (Kueue sets it on creation from the priority class); when
//!   absent, the WorkloadPriorityClass or PriorityClass the reference names, else 0.
//! - Queue order (`baseCompareFunc`): priority, then the queue-order timestamp (creation, or
//!   the last eviction by a PodsReady timeout or an admission check, `GetQueueOrderTimestamp`),
//!   then the UID; objects without a UID (manifests) tie-break by namespace and name.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodSpec as ApiPodSpec;

use super::quota::{Amount, FlavorResource, amount_of};
use crate::sched::pod_req::pod_requests;
use crate::sched::resources::ResourceTable;
use crate::snapshot::kueue::{Workload, condition, is_true};
use crate::snapshot::pod::PodSpec;

/// One pod set's requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodSetRequests {
    /// The pod set's name.
    pub name: String,
    /// Pods counted (after reclaim).
    pub count: i32,
    /// Requests of all `count` pods, per resource, in Kueue's units.
    pub total: BTreeMap<String, Amount>,
}

/// A Kueue Workload prepared for admission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Info {
    /// Index in `KueueObjects::workloads`.
    pub index: usize,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// UID (empty for manifests).
    pub uid: String,
    /// `spec.queueName`.
    pub queue_name: String,
    /// Effective priority.
    pub priority: i32,
    /// Queue-order timestamp, in seconds since the epoch.
    pub timestamp: i64,
    /// Requests per pod set.
    pub pod_sets: Vec<PodSetRequests>,
}

/// Priority classes by name: WorkloadPriorityClasses and PriorityClasses.
#[derive(Debug, Clone, Default)]
pub(crate) struct PriorityClasses {
    /// WorkloadPriorityClass name → value.
    pub workload: BTreeMap<String, i32>,
    /// PriorityClass name → value.
    pub pod: BTreeMap<String, i32>,
}

/// Pods counted per pod set after `status.reclaimablePods` (`podSetsCountsAfterReclaim`).
fn counts_after_reclaim(w: &Workload) -> BTreeMap<&str, i32> {
    let mut counts: BTreeMap<&str, i32> = w
        .spec
        .pod_sets
        .iter()
        .map(|p| (p.name.as_str(), p.count))
        .collect();
    for r in &w.status.reclaimable_pods {
        if let Some(c) = counts.get_mut(r.name.as_str()) {
            *c = (*c - r.count).max(0);
        }
    }
    counts
}

/// The effective requests of one pod of `spec`, per resource name.
pub(crate) fn pod_requests_of(spec: &ApiPodSpec) -> BTreeMap<String, Amount> {
    let spec: PodSpec = spec.clone().into();
    let mut table = ResourceTable::default();
    pod_requests(&spec, &mut table)
        .into_iter()
        .map(|(id, v)| (table.name(id).to_owned(), v))
        .collect()
}

impl PriorityClasses {
    /// The snapshot's WorkloadPriorityClasses and PriorityClasses.
    pub(crate) fn of(
        k: &crate::snapshot::kueue::KueueObjects,
        priority_classes: &[k8s_openapi::api::scheduling::v1::PriorityClass],
    ) -> Self {
        Self {
            workload: k
                .workload_priority_classes
                .iter()
                .map(|c| (c.metadata.name.clone().unwrap_or_default(), c.value))
                .collect(),
            pod: priority_classes
                .iter()
                .filter_map(|c| Some((c.metadata.name.clone()?, c.value?)))
                .collect(),
        }
    }
}

impl Info {
    /// Prepares `w` (at `index`). Requests come from the admission when quota is reserved.
    pub(crate) fn new(index: usize, w: &Workload, classes: &PriorityClasses) -> Self {
        let counts = counts_after_reclaim(w);
        let pod_sets = match &w.status.admission {
            Some(a) if w.has_quota_reservation() => a
                .pod_set_assignments
                .iter()
                .map(|psa| {
                    let total_count = w
                        .spec
                        .pod_sets
                        .iter()
                        .find(|p| p.name == psa.name)
                        .map_or(0, |p| p.count);
                    let admitted = psa.count.unwrap_or(total_count);
                    let now = counts.get(psa.name.as_str()).copied().unwrap_or(admitted);
                    let mut total: BTreeMap<String, Amount> = psa
                        .resource_usage
                        .iter()
                        .filter_map(|(r, q)| amount_of(r, &q.0).map(|v| (r.clone(), v)))
                        .collect();
                    let count = if now < admitted && admitted > 0 {
                        for v in total.values_mut() {
                            *v = *v / i64::from(admitted) * i64::from(now);
                        }
                        now
                    } else {
                        admitted
                    };
                    PodSetRequests {
                        name: psa.name.clone(),
                        count,
                        total,
                    }
                })
                .collect(),
            _ => w
                .spec
                .pod_sets
                .iter()
                .map(|ps| {
                    let count = counts.get(ps.name.as_str()).copied().unwrap_or(ps.count);
                    let per_pod = ps
                        .template
                        .spec
                        .as_ref()
                        .map(pod_requests_of)
                        .unwrap_or_default();
                    PodSetRequests {
                        name: ps.name.clone(),
                        count,
                        total: per_pod
                            .into_iter()
                            .map(|(r, v)| (r, v.max(0).saturating_mul(i64::from(count))))
                            .collect(),
                    }
                })
                .collect(),
        };
        Self {
            index,
            namespace: w.namespace().to_owned(),
            name: w.name().to_owned(),
            uid: w.metadata.uid.clone().unwrap_or_default(),
            queue_name: w.spec.queue_name.clone(),
            priority: priority(w, classes),
            timestamp: queue_order_timestamp(w),
            pod_sets,
        }
    }

    /// Kueue's queue order (`baseCompareFunc`): higher priority, then earlier timestamp, then
    /// UID (namespace and name without UIDs).
    pub(crate) fn queue_order(&self, other: &Self) -> std::cmp::Ordering {
        other
            .priority
            .cmp(&self.priority)
            .then(self.timestamp.cmp(&other.timestamp))
            .then_with(|| {
                if self.uid.is_empty() || other.uid.is_empty() {
                    (&self.namespace, &self.name).cmp(&(&other.namespace, &other.name))
                } else {
                    self.uid.cmp(&other.uid)
                }
            })
    }

    /// All requests of the workload, per resource.
    pub(crate) fn total_requests(&self) -> BTreeMap<String, Amount> {
        let mut t = BTreeMap::new();
        for ps in &self.pod_sets {
            for (r, v) in &ps.total {
                *t.entry(r.clone()).or_insert(0) += v;
            }
        }
        t
    }
}

/// The quota an admitted (quota-reserving) workload holds, per (flavor, resource).
pub(crate) fn admitted_usage(w: &Workload, info: &Info) -> BTreeMap<FlavorResource, Amount> {
    let mut usage = BTreeMap::new();
    let Some(a) = &w.status.admission else {
        return usage;
    };
    for ps in &info.pod_sets {
        let Some(psa) = a.pod_set_assignments.iter().find(|p| p.name == ps.name) else {
            continue;
        };
        for (r, v) in &ps.total {
            if let Some(flavor) = psa.flavors.get(r) {
                *usage.entry(FlavorResource::new(flavor, r)).or_insert(0) += v;
            }
        }
    }
    usage
}

/// `priority.EffectivePriority`: `spec.priority`, else the referenced class's value, else 0.
fn priority(w: &Workload, classes: &PriorityClasses) -> i32 {
    if let Some(p) = w.spec.priority {
        return p;
    }
    let Some(r) = &w.spec.priority_class_ref else {
        return 0;
    };
    let table = if r.kind == "WorkloadPriorityClass" {
        &classes.workload
    } else {
        &classes.pod
    };
    table.get(&r.name).copied().unwrap_or(0)
}

/// `Ordering.GetQueueOrderTimestamp` with Kueue's default `requeuingTimestamp: Eviction`:
/// the last eviction by a PodsReady timeout or an admission check, else creation.
fn queue_order_timestamp(w: &Workload) -> i64 {
    let conds = &w.status.conditions;
    if is_true(conds, "Evicted")
        && let Some(c) = condition(conds, "Evicted")
        && (c.reason == "PodsReadyTimeout" || c.reason == "AdmissionCheck")
    {
        return c.last_transition_time.0.as_second();
    }
    w.metadata
        .creation_timestamp
        .as_ref()
        .map_or(0, |t| t.0.as_second())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::kueue::{KueueObject, parse};
    use serde_json::json;

    fn workload(v: serde_json::Value) -> Workload {
        match parse(v) {
            Ok(KueueObject::Workload(w)) => *w,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn pending_requests_are_the_template_times_the_count_less_reclaimable_pods() {
        let w = workload(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ml"},
            "spec": {"queueName": "q", "podSets": [{"name": "workers", "count": 4, "template": {"spec": {
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "2"}}},
                               {"name": "d", "resources": {"limits": {"cpu": "500m"}}}]}}}]},
            "status": {"reclaimablePods": [{"name": "workers", "count": 1}]}
        }));
        let info = Info::new(0, &w, &PriorityClasses::default());
        assert_eq!(info.pod_sets[0].count, 3);
        assert_eq!(
            info.pod_sets[0].total,
            BTreeMap::from([("cpu".to_owned(), 4_500), ("nvidia.com/gpu".to_owned(), 6)]),
            "limits stand in for missing requests"
        );
    }

    #[test]
    fn admitted_usage_comes_from_the_admission_scaled_by_reclaim() {
        let w = workload(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ml"},
            "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 4}]},
            "status": {
                "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                "message": "", "lastTransitionTime": "2026-08-01T00:00:00Z"}],
                "reclaimablePods": [{"name": "main", "count": 2}],
                "admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 4,
                    "flavors": {"nvidia.com/gpu": "h100"}, "resourceUsage": {"nvidia.com/gpu": "32"}}]}}
        }));
        let info = Info::new(0, &w, &PriorityClasses::default());
        assert_eq!(
            admitted_usage(&w, &info),
            BTreeMap::from([(FlavorResource::new("h100", "nvidia.com/gpu"), 16)])
        );
    }

    #[test]
    fn queue_order_is_priority_then_creation_then_uid() {
        let mk = |name: &str, prio: Option<i32>, created: &str| {
            let mut spec = json!({"queueName": "q", "podSets": []});
            if let Some(p) = prio {
                spec["priority"] = json!(p);
            }
            Info::new(
                0,
                &workload(
                    json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                    "metadata": {"name": name, "namespace": "ml", "creationTimestamp": created},
                    "spec": spec}),
                ),
                &PriorityClasses::default(),
            )
        };
        let high = mk("high", Some(100), "2026-08-02T00:00:00Z");
        let old = mk("old", None, "2026-08-01T00:00:00Z");
        let new = mk("new", None, "2026-08-03T00:00:00Z");
        let mut v = [new.clone(), old.clone(), high.clone()];
        v.sort_by(Info::queue_order);
        let names: Vec<&str> = v.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["high", "old", "new"]);
    }

    #[test]
    fn a_priority_class_reference_gives_the_priority_when_spec_has_none() {
        let w = workload(
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ml"},
            "spec": {"podSets": [], "priorityClassRef":
                {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"}}}),
        );
        let classes = PriorityClasses {
            workload: BTreeMap::from([("high".to_owned(), 10_000)]),
            pod: BTreeMap::new(),
        };
        assert_eq!(Info::new(0, &w, &classes).priority, 10_000);
    }
}
