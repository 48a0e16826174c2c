//! A Kueue Workload as Kueue's scheduler sees it (`pkg/workload/workload.go` `Info`): its
//! queue, effective priority, queue-order timestamp and the requests of each pod set.
//!
//! - Requests of a pending workload: the pod template's effective requests (component-helpers'
//!   `PodRequests`, limits standing in for missing requests as Kueue's `AdjustResources`
//!   does) × the pod set's count less its reclaimable pods (`totalRequestsFromPodSets`).
//! - Requests of a workload holding quota: the admission's `resourceUsage`, scaled down by
//!   reclaimable pods (`totalRequestsFromAdmission`), charged to the admission's flavors.
//! - Kueue's configuration changes a pending workload's requests (`totalRequestsFromPodSets`,
//!   `InfoOptions`): `resources.excludeResourcePrefixes` drops matching resources
//!   (`dropExcludedResources`), then `resources.transformations` turn inputs into outputs
//!   (`applyResourceTransformations`), per pod, before the count multiplies them.
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
use crate::snapshot::kueue_config::{
    KueueConfiguration, ResourceTransformation, TransformationStrategy,
};
use crate::snapshot::pod::PodSpec;
use crate::snapshot::quantity::quantity_scaled;

/// How Kueue's configuration changes a workload's requests (Kueue's `InfoOptions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RequestOptions {
    /// `resources.excludeResourcePrefixes`.
    pub excluded_prefixes: Vec<String>,
    /// `resources.transformations` (strategy defaulted).
    pub transformations: Vec<ResourceTransformation>,
    /// The `ReclaimablePods` gate is off: reclaimable pods are still counted.
    pub ignore_reclaimable_pods: bool,
}

impl RequestOptions {
    /// The options of the snapshot's Kueue configuration (given, or Kueue's defaults).
    pub(crate) fn of(s: &crate::snapshot::Snapshot) -> Self {
        Self::from_config(&crate::snapshot::LoadedKueueConfig::effective(s))
    }

    /// The options Kueue's manager builds from its configuration (`cmd/kueue/main.go`:
    /// `WithExcludedResourcePrefixes`, `WithResourceTransformations`).
    pub(crate) fn from_config(c: &KueueConfiguration) -> Self {
        let r = c.resources.clone().unwrap_or_default();
        Self {
            excluded_prefixes: r.exclude_resource_prefixes,
            transformations: r.transformations,
            ignore_reclaimable_pods: !c.gate("ReclaimablePods"),
        }
    }
}

/// Nano-units per Kueue amount of `resource` (milli-units for `cpu`, units otherwise).
fn nano_per_amount(resource: &str) -> i128 {
    if resource == "cpu" {
        1_000_000
    } else {
        1_000_000_000
    }
}

/// A quantity in nano-units (exact for every quantity a factor is written with; a factor
/// past the nano range is taken in whole units).
fn nano_of(q: &str) -> Option<i128> {
    quantity_scaled(q, 9)
        .map(i128::from)
        .or_else(|_| quantity_scaled(q, 0).map(|v| i128::from(v) * 1_000_000_000))
        .ok()
}

/// `a × b` of two nano-unit values, in nano-units, saturating.
fn mul_nano(a: i128, b: i128) -> i128 {
    match a.checked_mul(b) {
        Some(p) => p / 1_000_000_000,
        None if (a < 0) != (b < 0) => i128::MIN / 2,
        None => i128::MAX / 2,
    }
}

/// A nano-unit value as Kueue's amount of `resource` (`Quantity.Value`/`MilliValue` round
/// up), saturating at the int64 range as `resources.NewRequestsFromResourceList` does.
fn amount_of_nano(resource: &str, nano: i128) -> Amount {
    let per = nano_per_amount(resource);
    let v = if nano >= 0 {
        (nano + per - 1) / per
    } else {
        nano / per
    };
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// One pod's requests after `dropExcludedResources` and `applyResourceTransformations`
/// (`pkg/workload/workload.go`): outputs are summed apart from the retained requests,
/// negative generated totals floored to zero, then merged by sum.
pub(crate) fn effective_requests(
    input: BTreeMap<String, Amount>,
    opts: &RequestOptions,
) -> BTreeMap<String, Amount> {
    let input: BTreeMap<String, Amount> = input
        .into_iter()
        .filter(|(r, _)| {
            !opts
                .excluded_prefixes
                .iter()
                .any(|p| r.starts_with(p.as_str()))
        })
        .collect();
    let find = |r: &str| opts.transformations.iter().find(|t| t.input == r);
    if !input.keys().any(|r| find(r).is_some()) {
        return input;
    }
    let nano = |r: &str, v: Amount| i128::from(v) * nano_per_amount(r);
    let mut retained: BTreeMap<String, i128> = BTreeMap::new();
    let mut generated: BTreeMap<String, i128> = BTreeMap::new();
    for (name, &amount) in &input {
        let Some(t) = find(name) else {
            retained.insert(name.clone(), nano(name, amount));
            continue;
        };
        let mut base = nano(name, amount);
        if !t.multiply_by.is_empty()
            && let Some(&m) = input.get(&t.multiply_by)
        {
            base = mul_nano(base, nano(&t.multiply_by, m));
        }
        for (out, factor) in &t.outputs {
            let Some(f) = nano_of(&factor.0) else {
                continue;
            };
            let g = generated.entry(out.clone()).or_insert(0);
            *g = g.saturating_add(mul_nano(base, f));
        }
        if t.strategy.unwrap_or(TransformationStrategy::Retain) == TransformationStrategy::Retain {
            retained.insert(name.clone(), nano(name, amount));
        }
    }
    for (name, g) in generated {
        let e = retained.entry(name).or_insert(0);
        *e = e.saturating_add(g.max(0));
    }
    retained
        .into_iter()
        .map(|(r, n)| {
            let a = amount_of_nano(&r, n);
            (r, a)
        })
        .collect()
}

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

/// Pods counted per pod set after `status.reclaimablePods` (`podSetsCountsAfterReclaim`;
/// with the `ReclaimablePods` gate off, every pod).
fn counts_after_reclaim(w: &Workload, ignore_reclaimable: bool) -> BTreeMap<&str, i32> {
    let mut counts: BTreeMap<&str, i32> = w
        .spec
        .pod_sets
        .iter()
        .map(|p| (p.name.as_str(), p.count))
        .collect();
    if ignore_reclaimable {
        return counts;
    }
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
    #[cfg(test)]
    pub(crate) fn new(index: usize, w: &Workload, classes: &PriorityClasses) -> Self {
        Self::with_options(index, w, classes, &RequestOptions::default())
    }

    /// `Info::new`, with Kueue's configuration applied to a pending workload's requests.
    pub(crate) fn with_options(
        index: usize,
        w: &Workload,
        classes: &PriorityClasses,
        opts: &RequestOptions,
    ) -> Self {
        let counts = counts_after_reclaim(w, opts.ignore_reclaimable_pods);
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
                        .map(|r| effective_requests(r, opts))
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

    // pkg/workload/workload_test.go TestNewInfo: the cases of `excludedResourcePrefixes` and
    // `transformations`, per pod (the count multiplies after).
    fn t(
        input: &str,
        replace: bool,
        multiply_by: &str,
        outputs: &[(&str, &str)],
    ) -> ResourceTransformation {
        ResourceTransformation {
            input: input.to_owned(),
            strategy: Some(if replace {
                TransformationStrategy::Replace
            } else {
                TransformationStrategy::Retain
            }),
            multiply_by: multiply_by.to_owned(),
            outputs: outputs
                .iter()
                .map(|(k, v)| {
                    (
                        (*k).to_owned(),
                        crate::snapshot::kueue_config::QuantityText((*v).to_owned()),
                    )
                })
                .collect(),
        }
    }

    fn reqs(pairs: &[(&str, &str)]) -> BTreeMap<String, Amount> {
        pairs
            .iter()
            .map(|(r, q)| {
                (
                    (*r).to_owned(),
                    super::super::quota::amount_of(r, q).unwrap_or(-1),
                )
            })
            .collect()
    }

    fn transformed(
        input: &[(&str, &str)],
        ts: Vec<ResourceTransformation>,
    ) -> BTreeMap<String, Amount> {
        effective_requests(
            reqs(input),
            &RequestOptions {
                transformations: ts,
                ..RequestOptions::default()
            },
        )
    }

    #[test]
    fn workload_test_filter_resources() {
        let opts = RequestOptions {
            excluded_prefixes: vec!["dummyPrefix".into(), "networking.example.com/".into()],
            ..RequestOptions::default()
        };
        let got = effective_requests(
            reqs(&[
                ("cpu", "10m"),
                ("memory", "512Ki"),
                ("networking.example.com/vpc1", "1"),
            ]),
            &opts,
        );
        assert_eq!(got, reqs(&[("cpu", "10m"), ("memory", "512Ki")]));
    }

    #[test]
    fn workload_test_transform_resources() {
        let ts = || {
            vec![
                t(
                    "nvidia.com/mig-1g.5gb",
                    true,
                    "",
                    &[
                        ("example.com/accelerator-memory", "5Ki"),
                        ("example.com/credits", "10"),
                    ],
                ),
                t(
                    "nvidia.com/mig-2g.10gb",
                    true,
                    "",
                    &[
                        ("example.com/accelerator-memory", "10Ki"),
                        ("example.com/credits", "15"),
                    ],
                ),
                t(
                    "nvidia.com/gpu",
                    false,
                    "",
                    &[
                        ("example.com/accelerator-memory", "40Ki"),
                        ("example.com/credits", "100"),
                    ],
                ),
                t(
                    "nvidia.com/vgpucores",
                    true,
                    "nvidia.com/vgpu",
                    &[("nvidia.com/total-vgpucores", "1")],
                ),
                t(
                    "nvidia.com/vgpumem",
                    true,
                    "nvidia.com/vgpu",
                    &[("nvidia.com/total-vgpumem", "1")],
                ),
            ]
        };
        // pod set "a"
        assert_eq!(
            transformed(
                &[
                    ("nvidia.com/mig-1g.5gb", "2"),
                    ("nvidia.com/mig-2g.10gb", "1"),
                    ("cpu", "1")
                ],
                ts()
            ),
            reqs(&[
                ("cpu", "1"),
                ("example.com/accelerator-memory", "20Ki"),
                ("example.com/credits", "35")
            ])
        );
        // pod set "b" (one pod)
        assert_eq!(
            transformed(&[("nvidia.com/gpu", "1"), ("cpu", "2")], ts()),
            reqs(&[
                ("cpu", "2"),
                ("example.com/accelerator-memory", "40Ki"),
                ("example.com/credits", "100"),
                ("nvidia.com/gpu", "1")
            ])
        );
        // pod set "c"
        assert_eq!(
            transformed(
                &[
                    ("nvidia.com/vgpu", "2"),
                    ("nvidia.com/vgpucores", "20"),
                    ("nvidia.com/vgpumem", "1024")
                ],
                ts()
            ),
            reqs(&[
                ("nvidia.com/vgpu", "2"),
                ("nvidia.com/total-vgpucores", "40"),
                ("nvidia.com/total-vgpumem", "2048")
            ])
        );
    }

    #[test]
    fn workload_test_transform_allowance_above_at_and_under_it() {
        let ts = || {
            vec![
                t(
                    "nvidia.com/gpumem",
                    true,
                    "nvidia.com/gpu",
                    &[("quota.example.com/gpu-memory-overage", "1")],
                ),
                t(
                    "nvidia.com/gpu",
                    false,
                    "",
                    &[("quota.example.com/gpu-memory-overage", "-1024")],
                ),
            ]
        };
        for (mem, overage) in [("2048", "2048"), ("1024", "0"), ("512", "0")] {
            assert_eq!(
                transformed(&[("nvidia.com/gpumem", mem), ("nvidia.com/gpu", "2")], ts()),
                reqs(&[
                    ("quota.example.com/gpu-memory-overage", overage),
                    ("nvidia.com/gpu", "2")
                ]),
                "gpumem {mem}"
            );
        }
    }

    #[test]
    fn workload_test_transform_allowance_does_not_reach_a_direct_request() {
        assert_eq!(
            transformed(
                &[("example.com/gpu", "8"), ("example.com/credit", "3")],
                vec![t(
                    "example.com/credit",
                    true,
                    "",
                    &[("example.com/gpu", "-1")]
                )]
            ),
            reqs(&[("example.com/gpu", "8")])
        );
    }

    #[test]
    fn workload_test_transform_outputs_sharing_a_name_are_added() {
        assert_eq!(
            transformed(
                &[("example.com/gpu", "1"), ("example.com/credit", "1")],
                vec![t(
                    "example.com/credit",
                    true,
                    "",
                    &[("example.com/gpu", "1")]
                )]
            ),
            reqs(&[("example.com/gpu", "2")]),
            "transformOutputSharingANameWithARequestIsAdded"
        );
        assert_eq!(
            transformed(
                &[("example.com/gpu", "1")],
                vec![t("example.com/gpu", false, "", &[("example.com/gpu", "5")])]
            ),
            reqs(&[("example.com/gpu", "6")]),
            "transformOutputSharingANameWithItsRetainedInputIsAdded"
        );
        assert_eq!(
            transformed(
                &[("example.com/gpu", "1"), ("example.com/node", "2")],
                vec![t(
                    "example.com/gpu",
                    false,
                    "example.com/node",
                    &[("example.com/gpu", "1")]
                )]
            ),
            reqs(&[("example.com/gpu", "3"), ("example.com/node", "2")]),
            "transformOutputSharingANameWithItsRetainedInputIsAddedToTheAmountRequested"
        );
    }

    #[test]
    fn workload_test_transform_retain_with_multiply_by() {
        assert_eq!(
            transformed(
                &[("example.com/gpumem", "1024"), ("example.com/gpu", "2")],
                vec![t(
                    "example.com/gpumem",
                    false,
                    "example.com/gpu",
                    &[("example.com/gpumem-quota", "1")]
                )]
            ),
            reqs(&[
                ("example.com/gpumem", "1024"),
                ("example.com/gpumem-quota", "2048"),
                ("example.com/gpu", "2")
            ])
        );
        assert_eq!(
            transformed(
                &[("example.com/gpumem", "1024"), ("cpu", "500m")],
                vec![t(
                    "example.com/gpumem",
                    false,
                    "cpu",
                    &[("example.com/gpumem-quota", "1")]
                )]
            ),
            reqs(&[
                ("example.com/gpumem", "1024"),
                ("example.com/gpumem-quota", "512"),
                ("cpu", "500m")
            ]),
            "transformRetainWithMultiplyByUnderOne"
        );
    }

    #[test]
    fn workload_test_transform_product_past_the_range_and_milli_values() {
        let got = transformed(
            &[("example.com/credit", "10000000000")],
            vec![t(
                "example.com/credit",
                true,
                "",
                &[("example.com/gpu", "10000000000")],
            )],
        );
        assert_eq!(
            got,
            BTreeMap::from([("example.com/gpu".to_owned(), i64::MAX)])
        );
        assert_eq!(
            transformed(
                &[("cpu", "100m"), ("memory", "100M")],
                vec![
                    t("cpu", true, "", &[("example.com/cpu-credits", "3000")]),
                    t("memory", true, "", &[("example.com/memory-credits", "3m")]),
                ]
            ),
            BTreeMap::from([
                ("example.com/cpu-credits".to_owned(), 300),
                ("example.com/memory-credits".to_owned(), 300_000)
            ])
        );
    }

    #[test]
    fn transformations_apply_per_pod_before_the_count() {
        let w = workload(json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ml"},
            "spec": {"queueName": "q", "podSets": [{"name": "b", "count": 2, "template": {"spec": {
                "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1", "example.com/nic": "1"}}}]}}}]}
        }));
        let opts = RequestOptions {
            excluded_prefixes: vec!["example.com/".into()],
            transformations: vec![t(
                "nvidia.com/gpu",
                false,
                "",
                &[("example.com/credits", "100")],
            )],
            ..RequestOptions::default()
        };
        let info = Info::with_options(0, &w, &PriorityClasses::default(), &opts);
        assert_eq!(
            info.pod_sets[0].total,
            BTreeMap::from([
                ("example.com/credits".to_owned(), 200),
                ("nvidia.com/gpu".to_owned(), 2)
            ]),
            "excluded first, then transformed (an output may carry an excluded prefix)"
        );
    }
}
