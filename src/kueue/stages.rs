//! The two stages of a dry run on a cluster that runs Kueue: Kueue's admission over the
//! pending Kueue Workloads ([`super::admission`]), then the cluster as kube-scheduler sees it
//! afterwards: the admitted workloads' Jobs started ([`super::launch`]) and the preempted
//! workloads' pods gone (Kueue suspends a preempted Job, and its pods are deleted).
//!
//! Pure: [`stage`] returns the admission and the snapshot kube-scheduler's simulation runs
//! on; the caller runs it and joins the two in one plan.

use std::collections::{BTreeMap, BTreeSet};

use super::admission::{self, Admission};
use super::launch::{Launched, NotLaunched, launch};
use super::quota::QuotaError;
use crate::admit::controllers::workload_with_job;
use crate::snapshot::Snapshot;

/// Stage one's result and stage two's input.
#[derive(Debug, Clone)]
pub(crate) struct Staged {
    /// What Kueue admits, preempts and leaves waiting.
    pub admission: Admission,
    /// The Jobs the admissions start.
    pub launched: Vec<Launched>,
    /// Admissions whose pods the dry run cannot create, with why.
    pub not_launched: Vec<NotLaunched>,
    /// Running pods removed because Kueue preempted their workload (namespace, name).
    pub evicted_pods: Vec<(String, String)>,
    /// The snapshot kube-scheduler's simulation runs on, when stage one changed the cluster
    /// (a Job started, a preempted workload's pods gone); `None` when it changed nothing, and
    /// stage two runs on the input itself: see [`Staged::cluster`].
    pub snapshot: Option<Snapshot>,
}

impl Staged {
    /// The cluster kube-scheduler's simulation runs on: stage one's, or `input` (the snapshot
    /// [`stage`] was given) when stage one changed nothing.
    pub(crate) fn cluster<'a>(&'a self, input: &'a Snapshot) -> &'a Snapshot {
        self.snapshot.as_ref().unwrap_or(input)
    }
}

/// Runs Kueue's admission over `s` and builds the snapshot kube-scheduler then sees; `None`
/// when the snapshot holds no Kueue object. When the admission starts no Job and stops none,
/// the cluster is `s` as it is and is not copied (`Staged::snapshot` is `None`).
pub(crate) fn stage(
    s: &Snapshot,
    gate_overrides: &BTreeMap<String, bool>,
) -> Result<Option<Staged>, QuotaError> {
    if s.kueue.is_empty() {
        return Ok(None);
    }
    // A queue that is not in a partial input is unknown, never missing.
    // A workload's Namespace that was not read leaves its namespaceSelector match unknown.
    let unread = ["LocalQueue", "ClusterQueue", "Namespace"]
        .into_iter()
        .filter(|k| !s.knows_all(k, None))
        .collect();
    // Kueue's own configuration: the loaded one, else Kueue's defaults.
    let options = admission::Options {
        unread,
        ..admission::Options::from_config(&crate::snapshot::LoadedKueueConfig::effective(s))
    };
    let admission = admission::run_with(&s.kueue, &s.namespaces, &s.priority_classes, options)?;
    let (launched, not_launched) = launch(
        s,
        &s.kueue,
        &admission,
        workload_with_job(s, gate_overrides),
    );
    let evicted_pods = evicted_pods(s, &admission);
    let snapshot = (!launched.is_empty() || !evicted_pods.is_empty())
        .then(|| started(s, &launched, &evicted_pods));
    Ok(Some(Staged {
        admission,
        launched,
        not_launched,
        evicted_pods,
        snapshot,
    }))
}

/// The running pods of the workloads Kueue preempts that held quota before: their Jobs are
/// suspended again and their pods deleted, freeing their nodes (namespace, name).
fn evicted_pods(s: &Snapshot, admission: &Admission) -> Vec<(String, String)> {
    let evicted_jobs: BTreeSet<(&str, &str)> = admission
        .workloads
        .iter()
        .filter(|r| r.evicted && r.held_before)
        .filter_map(|r| {
            let w = &s.kueue.workloads[r.index];
            let job = w
                .metadata
                .owner_references
                .iter()
                .flatten()
                .find(|o| o.kind == "Job" && o.controller == Some(true))?;
            Some((w.namespace(), job.name.as_str()))
        })
        .collect();
    if evicted_jobs.is_empty() {
        return Vec::new();
    }
    s.pods
        .iter()
        .filter_map(|p| {
            let ns = p.metadata.namespace.as_deref().unwrap_or_default();
            let owned = p
                .metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| o.kind == "Job" && evicted_jobs.contains(&(ns, o.name.as_str())));
            owned.then(|| (ns.to_owned(), p.metadata.name.clone().unwrap_or_default()))
        })
        .collect()
}

/// `s` with the evicted pods gone and the launched Jobs started: their pods, PodGroups and
/// Workloads created, the Jobs no longer suspended.
fn started(s: &Snapshot, launched: &[Launched], evicted_pods: &[(String, String)]) -> Snapshot {
    let mut next = s.clone();
    let gone: BTreeSet<(&str, &str)> = evicted_pods
        .iter()
        .map(|(ns, name)| (ns.as_str(), name.as_str()))
        .collect();
    next.pods.retain(|p| {
        let ns = p.metadata.namespace.as_deref().unwrap_or_default();
        let name = p.metadata.name.as_deref().unwrap_or_default();
        !gone.contains(&(ns, name))
    });
    for l in launched {
        let o = &l.objects;
        next.pods
            .extend(o.pods.iter().cloned().map(std::sync::Arc::new));
        next.pod_groups.extend(o.pod_group.iter().cloned());
        next.workloads.extend(o.workload.iter().cloned());
        // The Job is running now: no longer suspended.
        for job in next.jobs.iter_mut() {
            if job.metadata.namespace.as_deref() == Some(l.job.0.as_str())
                && job.metadata.name.as_deref() == Some(l.job.1.as_str())
            {
                let mut j = (**job).clone();
                if let Some(spec) = j.spec.as_deref_mut() {
                    spec.suspend = Some(false);
                }
                *job = std::sync::Arc::new(j);
            }
        }
    }
    next.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::files::test_snapshot as snapshot;

    const CLUSTER: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: gpu-1, labels: {gpu: h100}}
status: {allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ml}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
spec: {nodeLabels: {gpu: h100}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: "16"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ml}
spec: {clusterQueue: team}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml, uid: uid-train, resourceVersion: "1", labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  suspend: true
  parallelism: 2
  completions: 2
  completionMode: Indexed
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "8"}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: job-train-1a2b
  namespace: ml
  uid: uid-wl-train
  resourceVersion: "2"
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: train, uid: uid-train, controller: true}]
spec:
  queueName: q
  podSets: [{name: main, count: 2, template: {spec: {containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "8"}}}]}}}]
"#;

    /// Quota admits 16 GPUs, the one node holds 8: Kueue admits the Job, its two pods are
    /// created with the flavor's node selector, and stage two gets them to place.
    #[test]
    fn an_admitted_job_gets_its_pods_for_kube_scheduler() {
        let s = snapshot(CLUSTER);
        let staged = stage(&s, &BTreeMap::new())
            .unwrap_or_else(|e| panic!("{e:?}"))
            .unwrap_or_else(|| panic!("Kueue objects are in the input"));
        assert_eq!(
            staged.admission.workloads[0].outcome,
            admission::AdmissionOutcome::Admitted
        );
        assert!(staged.not_launched.is_empty(), "{:?}", staged.not_launched);
        let pods: Vec<&str> = staged
            .cluster(&s)
            .pods
            .iter()
            .filter_map(|p| p.metadata.name.as_deref())
            .collect();
        assert_eq!(pods, ["train-0", "train-1"]);
        let job = &staged.cluster(&s).jobs[0];
        assert_eq!(job.spec.as_deref().and_then(|s| s.suspend), Some(false));
    }

    /// Quota for 8 GPUs, a Job asking for 16: Kueue admits nothing, starts no Job and stops
    /// none, so stage two runs on the input as it is (no copy), and its plan is the one the
    /// copy would have given.
    #[test]
    fn when_nothing_starts_stage_two_runs_on_the_input_with_the_same_plan() {
        let s = snapshot(&CLUSTER.replace("nominalQuota: \"16\"", "nominalQuota: \"8\""));
        let staged = stage(&s, &BTreeMap::new())
            .unwrap_or_else(|e| panic!("{e:?}"))
            .unwrap_or_else(|| panic!("Kueue objects are in the input"));
        assert_eq!(
            staged.admission.workloads[0].outcome,
            admission::AdmissionOutcome::QuotaPending
        );
        assert!(staged.launched.is_empty() && staged.evicted_pods.is_empty());
        assert!(staged.snapshot.is_none(), "nothing changed: no copy");
        assert!(std::ptr::eq(staged.cluster(&s), &s));
        let options = crate::sched::Options::default();
        let on_input = crate::sched::simulate(staged.cluster(&s), &options);
        let on_copy = crate::sched::simulate(&s.clone().build(), &options);
        assert_eq!(on_input, on_copy);
        assert_eq!(
            serde_json::to_value(&on_input).unwrap_or_default(),
            serde_json::to_value(&on_copy).unwrap_or_default()
        );
        // Joined with stage one, as the commands see it: the same plan either way too.
        let (plan, _) =
            crate::kueue::dry_run::simulate(&s, &options).unwrap_or_else(|e| panic!("{e:?}"));
        let mut copied = on_copy;
        crate::kueue::dry_run::join(&mut copied, &staged, &s);
        assert_eq!(plan, copied);
    }

    /// A dump of Kueue Workloads without their queues (`kubectl get workloads` only): the
    /// queues are unknown, not missing.
    #[test]
    fn a_queue_of_a_kind_not_in_the_input_is_unknown_not_missing() {
        let yaml = CLUSTER
            .split("---")
            .filter(|d| !d.contains("kind: LocalQueue") && !d.contains("kind: ClusterQueue"))
            .collect::<Vec<_>>()
            .join("---");
        let mut s = snapshot(&yaml);
        s.facts.from_files = true;
        let staged = stage(&s, &BTreeMap::new())
            .unwrap_or_else(|e| panic!("{e:?}"))
            .unwrap_or_else(|| panic!("Kueue objects are in the input"));
        assert_eq!(
            staged.admission.workloads[0].message,
            "LocalQueue q is not in the input (LocalQueues were not read): its admission is unknown"
        );
    }

    #[test]
    fn without_kueue_objects_there_is_no_first_stage() {
        let s = snapshot("apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n");
        assert!(stage(&s, &BTreeMap::new()).ok().flatten().is_none());
    }
}
