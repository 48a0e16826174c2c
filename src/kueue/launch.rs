//! What Kueue's admission starts: for each Kueue Workload it admits, the Job it owns is
//! unsuspended with the assigned flavors' node labels and tolerations injected into its pod
//! template, and the Job controller creates the pods (and, with `WorkloadWithJob`, the native
//! Workload and PodGroup) that kube-scheduler then places.
//!
//! Kueue (`pkg/controller/jobframework/reconciler.go` `startJob`, `pkg/podset/podset.go`
//! `FromAssignment` and `Merge`): the pod set's info holds every assigned flavor's
//! `nodeLabels` (merged into the template's `nodeSelector`; a key the template sets to another
//! value is a conflict and the job is not started) and `tolerations` (appended); a partially
//! admitted Job runs with `parallelism` set to the admitted count. Only `batch/v1` Jobs are
//! started here; a Kueue Workload owned by another kind (JobSet, RayJob, a pod group) is
//! named in a note instead.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::admission::{Admission, AdmissionOutcome};
use crate::admit::controllers::{JobObjects, expand_job};
use crate::snapshot::kueue::KueueObjects;
use crate::snapshot::{Job, Snapshot};

/// The objects one admitted Kueue Workload's Job creates.
#[derive(Debug, Clone)]
pub(crate) struct Launched {
    /// Index of the Kueue Workload.
    pub workload: usize,
    /// The Job (namespace, name).
    pub job: (String, String),
    /// What the Job controller creates once the Job is unsuspended.
    pub objects: JobObjects,
}

/// What could not be started, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotLaunched {
    /// Index of the Kueue Workload.
    pub workload: usize,
    /// Why.
    pub reason: String,
}

/// The Jobs of the workloads `admission` admits in this run (or admitted already while their
/// Job has no pods yet), started as Kueue starts them.
pub(crate) fn launch(
    s: &Snapshot,
    k: &KueueObjects,
    admission: &Admission,
    workload_with_job: Option<bool>,
) -> (Vec<Launched>, Vec<NotLaunched>) {
    let mut launched = Vec::new();
    let mut refused = Vec::new();
    for r in &admission.workloads {
        if !matches!(
            r.outcome,
            AdmissionOutcome::Admitted | AdmissionOutcome::Preempting
        ) {
            continue;
        }
        let w = &k.workloads[r.index];
        let ns = w.namespace();
        let Some(owner) = w
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true) || o.kind == "Job")
        else {
            refused.push(NotLaunched {
                workload: r.index,
                reason: format!("Kueue Workload {ns}/{} has no owner to start", w.name()),
            });
            continue;
        };
        if owner.kind != "Job" || !owner.api_version.starts_with("batch/") {
            refused.push(NotLaunched {
                workload: r.index,
                reason: format!(
                    "the pods of {} {ns}/{} are not created by the dry run (only Jobs are)",
                    owner.kind, owner.name
                ),
            });
            continue;
        }
        let Some(job) = s.jobs.iter().find(|j| {
            j.metadata.namespace.as_deref() == Some(ns)
                && j.metadata.name.as_deref() == Some(owner.name.as_str())
        }) else {
            refused.push(NotLaunched {
                workload: r.index,
                reason: format!("Job {ns}/{} is not in the input", owner.name),
            });
            continue;
        };
        if r.held_before && has_pods(s, ns, &owner.name) {
            continue;
        }
        let flavors: Vec<&str> = r
            .pod_sets
            .iter()
            .flat_map(|p| p.flavors.values().map(String::as_str))
            .collect();
        let count = r.pod_sets.first().map(|p| p.count);
        match started(job, k, &flavors, count).and_then(|j| expand_job(&j, workload_with_job)) {
            Ok(objects) => launched.push(Launched {
                workload: r.index,
                job: (ns.to_owned(), owner.name.clone()),
                objects,
            }),
            Err(reason) => refused.push(NotLaunched {
                workload: r.index,
                reason,
            }),
        }
    }
    (launched, refused)
}

fn has_pods(s: &Snapshot, ns: &str, job: &str) -> bool {
    s.pods.iter().any(|p| {
        p.metadata.namespace.as_deref() == Some(ns)
            && p.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| o.kind == "Job" && o.name == job)
    })
}

/// The Job as Kueue starts it: unsuspended, flavors injected, parallelism at the admitted
/// count.
fn started(
    job: &Job,
    k: &KueueObjects,
    flavors: &[&str],
    count: Option<i32>,
) -> Result<Job, String> {
    let mut job = job.clone();
    let who = format!(
        "Job {}/{}",
        job.metadata.namespace.as_deref().unwrap_or_default(),
        job.metadata.name.as_deref().unwrap_or_default()
    );
    let Some(spec) = job.spec.as_deref_mut() else {
        return Err(format!("{who} has no spec"));
    };
    spec.suspend = Some(false);
    if let (Some(c), Some(p)) = (count, spec.parallelism)
        && c < p
    {
        spec.parallelism = Some(c);
    }
    let pod = spec.template.spec.get_or_insert_with(Default::default);
    let mut selector: BTreeMap<String, String> = pod.node_selector.clone().unwrap_or_default();
    let mut tolerations: Vec<_> = pod
        .tolerations
        .as_deref()
        .map(<[_]>::to_vec)
        .unwrap_or_default();
    let mut seen = Vec::new();
    for name in flavors {
        if seen.contains(name) {
            continue;
        }
        seen.push(name);
        let Some(f) = k.resource_flavors.iter().find(|f| f.name() == *name) else {
            return Err(format!("ResourceFlavor {name} is not in the input"));
        };
        for (key, value) in &f.spec.node_labels {
            match selector.get(key) {
                Some(v) if v != value => {
                    return Err(format!(
                        "{who} is not started: its nodeSelector {key}={v} conflicts with flavor {name}'s {key}={value}"
                    ));
                }
                _ => {
                    selector.insert(key.clone(), value.clone());
                }
            }
        }
        tolerations.extend(f.spec.tolerations.iter().cloned());
    }
    pod.node_selector = (!selector.is_empty()).then_some(selector);
    pod.tolerations = (!tolerations.is_empty()).then(|| Arc::from(tolerations));
    Ok(job)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kueue::admission::run;
    use crate::snapshot::kueue::parse;
    use serde_json::json;

    #[test]
    fn an_admitted_workloads_job_starts_on_its_flavors_nodes() {
        let v = "kueue.x-k8s.io/v1beta2";
        let mut k = KueueObjects::default();
        for d in [
            json!({"apiVersion": v, "kind": "ResourceFlavor", "metadata": {"name": "h100"},
                   "spec": {"nodeLabels": {"gpu": "h100"},
                            "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]}}),
            json!({"apiVersion": v, "kind": "ClusterQueue", "metadata": {"name": "cq"},
                   "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                     "flavors": [{"name": "h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 16}]}]}]}}),
            json!({"apiVersion": v, "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "ml"},
                   "spec": {"clusterQueue": "cq"}}),
            json!({"apiVersion": v, "kind": "Workload",
                   "metadata": {"name": "job-train-1a2b3", "namespace": "ml", "uid": "w1",
                                "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train",
                                                     "uid": "j1", "controller": true}]},
                   "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 2, "template": {"spec": {
                       "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "8"}}}]}}}]}}),
        ] {
            k.push(parse(d).unwrap_or_else(|e| panic!("{e}")));
        }
        let api_job: k8s_openapi::api::batch::v1::Job = serde_json::from_value(json!({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "train", "namespace": "ml", "uid": "j1", "resourceVersion": "1",
                         "labels": {"kueue.x-k8s.io/queue-name": "q"}},
            "spec": {"suspend": true, "parallelism": 2, "completions": 2, "completionMode": "Indexed",
                     "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c",
                        "resources": {"requests": {"nvidia.com/gpu": "8"}}}]}}}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let s = Snapshot {
            jobs: vec![Arc::new(api_job.into())],
            ..Snapshot::default()
        };
        let admission = run(&k, &[], &[]).unwrap_or_else(|e| panic!("{e:?}"));
        let (launched, refused) = launch(&s, &k, &admission, Some(false));
        assert!(refused.is_empty(), "{refused:?}");
        let pods = &launched[0].objects.pods;
        assert_eq!(pods.len(), 2);
        let spec = pods[0].spec.as_deref().unwrap_or_else(|| panic!("no spec"));
        assert_eq!(
            spec.node_selector
                .as_ref()
                .and_then(|s| s.get("gpu"))
                .map(String::as_str),
            Some("h100")
        );
        assert_eq!(spec.tolerations.as_deref().map(<[_]>::len), Some(1));
    }
}
