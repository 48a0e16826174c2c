//! Coexistence with other batch schedulers (operations.md, "Coexistence"): Kueue
//! (`kueue.x-k8s.io/queue-name`, Kueue Workloads), Volcano (`schedulerName: volcano`, the
//! `scheduling.k8s.io/group-name` annotation, `scheduling.volcano.sh` PodGroups) and YuniKorn
//! (`schedulerName: yunikorn`, its application labels) beside native gangs. WASD302 names the
//! objects of each system it saw.

use crate::snapshot::ObjKind;
use std::collections::{BTreeMap, BTreeSet};

use crate::snapshot::Pod;

use super::{Check, Checker, list, obj, pod_active};
use crate::snapshot::ObjRef;
use crate::snapshot::{name_of, namespace_of};

/// Kueue's queue label on pods and Jobs.
pub(crate) const KUEUE_QUEUE_LABEL: &str = crate::snapshot::KUEUE_QUEUE_LABEL;

/// YuniKorn's application label and annotation keys.
pub(crate) use crate::snapshot::pod::YUNIKORN_KEYS;

/// Which other batch system claims a pod, if one does.
fn other_scheduler(c: &Checker<'_>, pod: &Pod) -> Option<&'static str> {
    let meta = &pod.metadata;
    let labels = meta.labels.as_ref();
    let has_label = |k: &str| labels.is_some_and(|l| l.contains_key(k));
    let job_queued = meta.owner_references.iter().flatten().any(|o| {
        o.kind == "Job"
            && c.s
                .job(namespace_of(meta), &o.name)
                .and_then(|j| j.metadata.labels.as_ref())
                .is_some_and(|l| l.contains_key(KUEUE_QUEUE_LABEL))
    });
    let scheduler = pod.spec.as_ref().and_then(|s| s.scheduler_name.as_deref());
    if has_label(KUEUE_QUEUE_LABEL) || job_queued {
        Some("Kueue")
    } else if scheduler == Some("volcano")
        || crate::snapshot::volcano::group_name_of(meta).is_some()
    {
        Some("Volcano")
    } else if scheduler == Some("yunikorn")
        || YUNIKORN_KEYS.iter().any(|k| {
            has_label(k)
                || meta
                    .annotations
                    .as_ref()
                    .is_some_and(|a| a.contains_key(*k))
        })
    {
        Some("YuniKorn")
    } else {
        None
    }
}

/// A native PodGroup that Kueue's integration made for a Kueue-managed Job (issue 49 item
/// 5): the PodGroup is owned by a Kueue object, or by the pod's own Job (the Job controller
/// creates it with `WorkloadWithJob`) when that Job is Kueue's (it carries the queue label or
/// owns a Kueue Workload). Kueue admits the Job and kube-scheduler gangs its pods by design:
/// one owner each, not two.
fn kueue_managed_gang(
    s: &crate::snapshot::Snapshot,
    pg: &k8s_openapi::api::scheduling::v1beta1::PodGroup,
    pod: &Pod,
) -> bool {
    let ns = namespace_of(&pg.metadata);
    pg.metadata.owner_references.iter().flatten().any(|o| {
        o.api_version.starts_with("kueue.x-k8s.io/")
            || (o.kind == "Job"
                && kueue_job(s, ns, &o.name)
                && pod
                    .metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|p| p.kind == "Job" && p.name == o.name))
    })
}

/// Whether Job `ns/name` is Kueue's: it carries the queue label, or a Kueue Workload is
/// owned by it.
fn kueue_job(s: &crate::snapshot::Snapshot, ns: &str, name: &str) -> bool {
    s.job(ns, name)
        .and_then(|j| j.metadata.labels.as_ref())
        .is_some_and(|l| l.contains_key(KUEUE_QUEUE_LABEL))
        || s.kueue.workloads.iter().any(|w| {
            w.namespace() == ns
                && w.metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|o| o.kind == "Job" && o.name == name)
        })
}

/// A PodGroup owned by a Kueue object or a Job that is Kueue's ([`kueue_job`]).
fn owned_by_kueue_job(
    s: &crate::snapshot::Snapshot,
    pg: &k8s_openapi::api::scheduling::v1beta1::PodGroup,
) -> bool {
    pg.metadata.owner_references.iter().flatten().any(|o| {
        o.api_version.starts_with("kueue.x-k8s.io/")
            || (o.kind == "Job" && kueue_job(s, namespace_of(&pg.metadata), &o.name))
    })
}

/// Runs the coexistence checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    let s = c.s;
    // PodGroup → (system → pods)
    let mut shared: BTreeMap<ObjRef, BTreeMap<&'static str, Vec<String>>> = BTreeMap::new();
    // namespace → system seen → its objects there (`Kind/name`), named in WASD302
    let mut systems: BTreeMap<String, BTreeMap<&'static str, BTreeSet<String>>> = BTreeMap::new();
    for pod in s.pods.iter().filter(|p| pod_active(p)) {
        let Some(system) = other_scheduler(c, pod) else {
            continue;
        };
        let ns = namespace_of(&pod.metadata);
        systems
            .entry(ns.to_owned())
            .or_default()
            .entry(system)
            .or_default()
            .insert(format!("Pod/{}", name_of(&pod.metadata)));
        let group = pod
            .spec
            .as_ref()
            .and_then(|sp| sp.scheduling_group.as_ref())
            .and_then(|g| g.pod_group_name.as_deref())
            .and_then(|g| s.pod_group(ns, g));
        if let Some(pg) = group {
            if system == "Kueue" && kueue_managed_gang(s, pg, pod) {
                continue;
            }
            shared
                .entry(obj(ObjKind::PodGroup, &pg.metadata))
                .or_default()
                .entry(system)
                .or_default()
                .push(name_of(&pod.metadata).to_owned());
        }
    }
    for o in &s.foreign {
        let system = match (o.group(), o.kind.as_str()) {
            ("kueue.x-k8s.io", "Workload") => "Kueue",
            ("scheduling.volcano.sh", "PodGroup") => "Volcano",
            _ => continue,
        };
        let kind = if system == "Kueue" {
            ObjKind::KueueWorkload
        } else {
            ObjKind::VolcanoPodGroup
        };
        systems
            .entry(namespace_of(&o.metadata).to_owned())
            .or_default()
            .entry(system)
            .or_default()
            .insert(format!("{kind}/{}", name_of(&o.metadata)));
    }
    for (pg, by_system) in shared {
        for (system, pods) in by_system {
            c.emit(
                Check::PodsUnderTwoSchedulers,
                pg.clone(),
                format!(
                    "{} member pod(s) ({}) are also managed by {system}: admission, gang semantics and preemption are owned twice",
                    pods.len(),
                    list(&pods, 3)
                ),
                format!(
                    "let one system own these pods: drop the {system} marker (queue label or schedulerName) or the pods' `schedulingGroup`"
                ),
            );
        }
    }
    for (ns, found) in systems {
        // PodGroups the Job controller made for Kueue-managed Jobs are Kueue's own gangs.
        let native: Vec<String> = s
            .pod_groups
            .iter()
            .filter(|pg| {
                namespace_of(&pg.metadata) == ns
                    && !(found.contains_key("Kueue") && owned_by_kueue_job(s, pg))
            })
            .map(|pg| format!("PodGroup/{}", name_of(&pg.metadata)))
            .collect();
        if native.is_empty() {
            continue;
        }
        let others: Vec<String> = found
            .iter()
            .map(|(system, objects)| {
                let objects: Vec<String> = objects.iter().cloned().collect();
                format!("{system} ({})", list(&objects, 3))
            })
            .collect();
        c.emit(
            Check::NamespaceSharedWithBatchScheduler,
            ObjRef::new(ObjKind::Namespace, "", &ns),
            format!(
                "the namespace has native PodGroups ({}) and objects of {}",
                list(&native, 3),
                others.join(" and ")
            ),
            "keep each batch system in its own namespaces, or make sure their quotas and preemption account for each other",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::ids;

    #[test]
    fn kueue_labelled_member_of_a_native_gang_is_reported() {
        let yaml = r#"
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]}
spec: {schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: g}}
"#;
        assert_eq!(ids(yaml), ["WASD301", "WASD302"]);
    }

    /// Issue 49 item 5: the PodGroup the Job controller made for a Kueue-managed Job gangs
    /// the Job's own pods: Kueue admits, kube-scheduler gangs, no one owns twice.
    #[test]
    fn a_kueue_managed_jobs_own_pod_group_is_not_double_ownership() {
        let yaml = r#"
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {template: {spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u, controller: true}]}
spec: {schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u, controller: true}]}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: g}}
"#;
        assert!(ids(yaml).is_empty(), "{:?}", ids(yaml));
    }

    #[test]
    fn volcano_pods_beside_native_gangs_are_info() {
        let yaml = r#"
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]}
spec: {schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: g}}
---
apiVersion: v1
kind: Pod
metadata: {name: v, namespace: ns}
spec: {containers: [{name: c, image: i}], schedulerName: volcano}
"#;
        assert_eq!(ids(yaml), ["WASD302"]);
    }
}
