//! Kueue's queues and quotas (issue 49 item 5): queues that point nowhere, flavors no node
//! backs, quota the nodes can never hold, stopped queues with waiting work, Kueue Workloads
//! whose owner is gone, and a native gang whose size disagrees with its Kueue Workload.
//!
//! A missing object is only concluded when its kind was read completely
//! ([`crate::snapshot::Snapshot::knows_all`]).

use std::collections::BTreeMap;

use super::{Check, Checker};
use crate::kueue::flavor::show;
use crate::kueue::quota::amount_of;
use crate::snapshot::kueue::{ResourceFlavor, StopPolicy};
use crate::snapshot::{ObjKind, ObjRef};

fn kref(kind: &str, ns: &str, name: &str) -> ObjRef {
    ObjRef::new(ObjKind::Other(kind.to_owned()), ns, name)
}

/// Runs the Kueue checks (nothing without Kueue objects).
pub(crate) fn check(c: &mut Checker<'_>) {
    if c.s.kueue.is_empty() {
        return;
    }
    missing_cluster_queues(c);
    flavors_without_nodes(c);
    quota_beyond_nodes(c);
    stopped_queues_with_work(c);
    owners_gone(c);
    gang_size_disagrees(c);
}

/// WASD601.
fn missing_cluster_queues(c: &mut Checker<'_>) {
    let s = c.s;
    if !s.knows_all("ClusterQueue", None) {
        return;
    }
    for lq in &s.kueue.local_queues {
        let cq = &lq.spec.cluster_queue;
        if s.kueue.cluster_queues.iter().any(|q| q.name() == cq) {
            continue;
        }
        let waiting = s
            .kueue
            .workloads
            .iter()
            .filter(|w| {
                w.namespace() == lq.namespace() && w.spec.queue_name == lq.name() && w.is_pending()
            })
            .count();
        c.emit(
            Check::LocalQueueWithoutClusterQueue,
            kref("LocalQueue", lq.namespace(), lq.name()),
            format!("names ClusterQueue `{cq}`, which does not exist: its {waiting} pending workload(s) are never admitted"),
            format!("create ClusterQueue `{cq}` or point `spec.clusterQueue` at an existing one"),
        );
    }
}

/// The nodes a flavor's `nodeLabels` select.
fn flavor_nodes<'a>(
    c: &Checker<'a>,
    f: &ResourceFlavor,
) -> Vec<&'a k8s_openapi::api::core::v1::Node> {
    c.s.nodes
        .iter()
        .filter(|n| {
            let labels = n.metadata.labels.as_ref();
            f.spec
                .node_labels
                .iter()
                .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
        })
        .collect()
}

/// WASD602.
fn flavors_without_nodes(c: &mut Checker<'_>) {
    let s = c.s;
    if !s.knows_all("Node", None) || s.nodes.is_empty() {
        return;
    }
    for f in &s.kueue.resource_flavors {
        if f.spec.node_labels.is_empty() || !flavor_nodes(c, f).is_empty() {
            continue;
        }
        let labels: Vec<String> = f
            .spec
            .node_labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        c.emit(
            Check::FlavorMatchesNoNode,
            kref("ResourceFlavor", "", f.name()),
            format!(
                "its nodeLabels `{}` match none of the {} nodes: workloads admitted to it get pods no node accepts",
                labels.join(","),
                s.nodes.len()
            ),
            "fix the flavor's `spec.nodeLabels`, or label the nodes it stands for",
        );
    }
}

/// WASD603: nominal quota, summed over every ClusterQueue and Cohort, against the allocatable
/// of the flavor's nodes.
fn quota_beyond_nodes(c: &mut Checker<'_>) {
    let s = c.s;
    if !s.knows_all("Node", None) || s.nodes.is_empty() {
        return;
    }
    // (flavor, resource) → (quota, holders)
    let mut quota: BTreeMap<(String, String), (i64, Vec<String>)> = BTreeMap::new();
    let groups = s
        .kueue
        .cluster_queues
        .iter()
        .map(|q| {
            (
                format!("ClusterQueue `{}`", q.name()),
                &q.spec.resource_groups,
            )
        })
        .chain(
            s.kueue
                .cohorts
                .iter()
                .map(|q| (format!("Cohort `{}`", q.name()), &q.spec.resource_groups)),
        );
    for (holder, rgs) in groups {
        for fq in rgs.iter().flat_map(|g| &g.flavors) {
            for r in &fq.resources {
                let Some(v) = amount_of(&r.name, &r.nominal_quota.0) else {
                    continue;
                };
                let e = quota.entry((fq.name.clone(), r.name.clone())).or_default();
                e.0 += v;
                e.1.push(holder.clone());
            }
        }
    }
    for ((flavor, resource), (total, holders)) in quota {
        if resource == "pods" || total <= 0 {
            continue;
        }
        let Some(f) = s.kueue.resource_flavors.iter().find(|f| f.name() == flavor) else {
            continue;
        };
        let nodes = flavor_nodes(c, f);
        if nodes.is_empty() {
            continue; // WASD602 says so.
        }
        let capacity: i64 = nodes
            .iter()
            .filter_map(|n| {
                let q = n.status.as_ref()?.allocatable.as_ref()?.get(&resource)?;
                amount_of(&resource, &q.0)
            })
            .sum();
        if total <= capacity {
            continue;
        }
        c.emit(
            Check::QuotaBeyondNodes,
            kref("ResourceFlavor", "", &flavor),
            format!(
                "nominal quota of `{resource}` is {} ({}), but its {} node(s) hold {}: {} of it can be admitted and never placed",
                show(&resource, total),
                holders.join(", "),
                nodes.len(),
                show(&resource, capacity),
                show(&resource, total - capacity)
            ),
            "lower the nominal quotas to what the flavor's nodes hold, or add nodes with the flavor's labels",
        );
    }
}

/// WASD604.
fn stopped_queues_with_work(c: &mut Checker<'_>) {
    let s = c.s;
    let pending = |cq: &str| {
        s.kueue
            .workloads
            .iter()
            .filter(|w| w.is_pending())
            .filter(|w| {
                s.kueue.local_queues.iter().any(|lq| {
                    lq.namespace() == w.namespace()
                        && lq.name() == w.spec.queue_name
                        && lq.spec.cluster_queue == cq
                })
            })
            .count()
    };
    for cq in &s.kueue.cluster_queues {
        let n = pending(cq.name());
        if cq.spec.stop_policy != StopPolicy::None && n > 0 {
            c.emit(
                Check::StoppedQueueWithWork,
                kref("ClusterQueue", "", cq.name()),
                format!("is stopped (`stopPolicy: {:?}`) while {n} workload(s) wait in it", cq.spec.stop_policy),
                format!("set `stopPolicy: None` on ClusterQueue `{}` to admit again, or move the workloads to another queue", cq.name()),
            );
        }
    }
    for lq in &s.kueue.local_queues {
        if lq.spec.stop_policy == StopPolicy::None {
            continue;
        }
        let n = s
            .kueue
            .workloads
            .iter()
            .filter(|w| {
                w.is_pending() && w.namespace() == lq.namespace() && w.spec.queue_name == lq.name()
            })
            .count();
        if n > 0 {
            c.emit(
                Check::StoppedQueueWithWork,
                kref("LocalQueue", lq.namespace(), lq.name()),
                format!(
                    "is stopped (`stopPolicy: {:?}`) while {n} workload(s) wait in it",
                    lq.spec.stop_policy
                ),
                "set `stopPolicy: None` on the LocalQueue to admit again",
            );
        }
    }
}

/// WASD605: a Kueue Workload whose controlling owner (a Job, or an owner kind the snapshot
/// reads) no longer exists.
fn owners_gone(c: &mut Checker<'_>) {
    let s = c.s;
    for w in &s.kueue.workloads {
        if w.is_finished() {
            continue;
        }
        let ns = w.namespace();
        let Some(o) = w
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
        else {
            continue;
        };
        let exists = if o.kind == "Job" && o.api_version.starts_with("batch/") {
            if !s.knows_all("Job", Some(ns)) {
                continue;
            }
            s.job(ns, &o.name).is_some()
        } else {
            if !s.knows_all(&o.kind, Some(ns)) || s.count_of(&o.kind).is_some() {
                continue;
            }
            s.foreign.iter().any(|f| {
                f.kind == o.kind
                    && f.metadata.namespace.as_deref() == Some(ns)
                    && f.metadata.name.as_deref() == Some(o.name.as_str())
            })
        };
        if !exists {
            c.emit(
                Check::KueueWorkloadOwnerGone,
                kref("Workload.kueue.x-k8s.io", ns, w.name()),
                format!(
                    "its owner {} `{}` does not exist: the workload holds its place in the queue{} for nothing",
                    o.kind,
                    o.name,
                    if w.has_quota_reservation() { " and its quota" } else { "" }
                ),
                format!("delete the Kueue Workload (`kubectl delete workloads.kueue.x-k8s.io -n {ns} {}`) once you have checked its owner is really gone", w.name()),
            );
        }
    }
}

/// WASD606: the native PodGroup of a Kueue-managed Job asks for more members than Kueue
/// admits (the gang never completes), or the two disagree otherwise.
fn gang_size_disagrees(c: &mut Checker<'_>) {
    let s = c.s;
    for w in &s.kueue.workloads {
        let ns = w.namespace();
        let Some(job) = w
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.kind == "Job" && o.controller == Some(true))
        else {
            continue;
        };
        let Some(ps) = w.spec.pod_sets.first() else {
            continue;
        };
        let kueue_min = ps.min_count.unwrap_or(ps.count);
        for pg in &s.pod_groups {
            let owned = pg.metadata.namespace.as_deref() == Some(ns)
                && pg
                    .metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|o| o.kind == "Job" && o.name == job.name);
            if !owned {
                continue;
            }
            let pg_name = pg.metadata.name.as_deref().unwrap_or_default();
            let pg_ref = ObjRef::new(ObjKind::PodGroup, ns, pg_name);
            let Some(min) = crate::explain::min_count_of(s, &pg_ref) else {
                continue;
            };
            let min = i64::from(min);
            if min <= i64::from(kueue_min) && min <= i64::from(ps.count) {
                continue;
            }
            c.emit(
                Check::GangSizeDisagreesWithKueue,
                pg_ref,
                format!(
                    "`minCount` is {min}, but Kueue Workload `{}` admits {} pod(s) of pod set `{}`: the gang can never reach its quorum",
                    w.name(),
                    kueue_min,
                    ps.name
                ),
                "make the Job's parallelism, its PodGroup's minCount and Kueue's pod set count agree",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::ids;

    const KUEUE: &str = r#"
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
spec: {nodeLabels: {gpu: h100}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: "16"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ml}
spec: {clusterQueue: team-a}
"#;

    fn node(labels: &str, gpus: u32) -> String {
        format!(
            "---\napiVersion: v1\nkind: Node\nmetadata: {{name: n-{gpus}, labels: {{{labels}}}}}\nstatus: {{allocatable: {{nvidia.com/gpu: \"{gpus}\"}}}}\n"
        )
    }

    #[test]
    fn a_healthy_queue_setup_has_no_finding() {
        assert!(ids(&format!("{KUEUE}{}", node("gpu: h100", 16))).is_empty());
    }

    #[test]
    fn a_local_queue_naming_a_missing_cluster_queue_is_an_error() {
        let yaml = KUEUE.replace("clusterQueue: team-a", "clusterQueue: nope");
        assert_eq!(
            ids(&format!("{yaml}{}", node("gpu: h100", 16))),
            ["WASD601"]
        );
    }

    #[test]
    fn a_flavor_whose_labels_match_no_node_is_reported() {
        assert_eq!(
            ids(&format!("{KUEUE}{}", node("gpu: a100", 16))),
            ["WASD602"]
        );
    }

    #[test]
    fn nominal_quota_beyond_the_flavors_nodes_is_reported() {
        assert_eq!(
            ids(&format!("{KUEUE}{}", node("gpu: h100", 8))),
            ["WASD603"]
        );
    }

    #[test]
    fn a_stopped_queue_with_waiting_workloads_is_reported() {
        let yaml = format!(
            "{}{}---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {{name: w, namespace: ml}}\nspec: {{queueName: q, podSets: []}}\n",
            KUEUE.replace(
                "namespaceSelector: {}",
                "namespaceSelector: {}\n  stopPolicy: Hold"
            ),
            node("gpu: h100", 16)
        );
        assert_eq!(ids(&yaml), ["WASD604"]);
    }

    #[test]
    fn a_kueue_workload_whose_job_is_gone_is_reported_only_when_jobs_were_read() {
        let wl = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: job-x, namespace: ml, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: x, uid: u, controller: true}]}\nspec: {queueName: q, podSets: []}\n";
        let other_job = "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: other, namespace: ml}\nspec: {template: {spec: {containers: [{name: c, image: i}]}}}\n";
        let with_jobs = format!("{KUEUE}{}{wl}{other_job}", node("gpu: h100", 16));
        assert_eq!(ids(&with_jobs), ["WASD605"]);
        // Files without a Job (and without a ClusterFacts document saying Jobs were read):
        // nothing is known about the owner.
        let without_jobs = format!("{KUEUE}{}{wl}", node("gpu: h100", 16));
        let mut s = super::super::test_support::snapshot(&without_jobs);
        s.facts.from_files = true;
        let g = crate::graph::Graph::build(&s);
        let options = super::super::Options {
            now: super::super::test_support::NOW.parse().expect("valid time"),
            gate_overrides: Default::default(),
            stuck_after: crate::doctor::DEFAULT_STUCK_AFTER,
        };
        let found: Vec<&str> = super::super::check(&s, &g, &options)
            .0
            .iter()
            .map(|f| f.id.id())
            .collect();
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_native_gang_larger_than_its_kueue_pod_set_is_reported() {
        let yaml = format!(
            "{KUEUE}{}---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {{name: job-t, namespace: ml, ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: t, uid: u, controller: true}}]}}\nspec: {{queueName: q, podSets: [{{name: main, count: 2}}]}}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: t, namespace: ml, labels: {{kueue.x-k8s.io/queue-name: q}}}}\nspec: {{suspend: true, template: {{spec: {{containers: [{{name: c, image: i}}]}}}}}}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {{name: t-pg, namespace: ml, ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: t, uid: u, controller: true}}]}}\nspec: {{schedulingPolicy: {{gang: {{minCount: 4}}}}}}\n",
            node("gpu: h100", 16)
        );
        let found = ids(&yaml);
        assert!(found.contains(&"WASD606".to_owned()), "{found:?}");
    }
}
