//! Volcano's objects (`scheduling.volcano.sh/v1beta1`), typed: the PodGroups (gangs) and
//! Queues that Volcano's scheduler reads.
//!
//! Volcano's types are not in k8s-openapi, so these structs are written from Volcano's API
//! (`pkg/apis/scheduling/v1beta1/types.go` and `labels.go` of volcano-sh/apis). Fields wasctl
//! does not read are dropped (serde ignores them). Wherever Volcano's API uses a Kubernetes
//! type (ResourceList, ConditionStatus, Time) the k8s-openapi type is used.
//!
//! The objects stay in [`Snapshot::foreign`](super::Snapshot::foreign) as read (the graph,
//! export and the watch treat them as any owner object); [`VolcanoObjects::from_foreign`]
//! types them once per [`Snapshot::build`](super::Snapshot::build). The loader parses each one
//! as it is read too, so a field of the wrong type is an error naming the field, as for
//! Kueue's objects. wasctl never simulates Volcano's scheduler: these are what explain and
//! doctor report, beside checks that hold for any scheduler.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::RawObject;

/// Volcano's scheduling API group.
pub(crate) const GROUP: &str = "scheduling.volcano.sh";
/// Volcano's batch API group (its Job).
pub(crate) const JOB_GROUP: &str = "batch.volcano.sh";
/// The scheduler name Volcano's pods carry (`spec.schedulerName`).
pub(crate) const SCHEDULER_NAME: &str = "volcano";

/// The pod annotations that name a pod's Volcano PodGroup, in the order Volcano reads them
/// (`labels.go`: `KubeGroupNameAnnotationKey`, then `VolcanoGroupNameAnnotationKey`).
pub(crate) const GROUP_NAME_ANNOTATIONS: &[&str] = &[
    "scheduling.k8s.io/group-name",
    "scheduling.volcano.sh/group-name",
];

/// The pod annotation naming the task of a Volcano Job a pod belongs to (`TaskSpecKey` of
/// volcano-sh/apis `pkg/apis/batch/v1alpha1/labels.go`); `minTaskMember` counts pods by it.
pub(crate) const TASK_SPEC_ANNOTATION: &str = "volcano.sh/task-spec";

/// The queue Volcano puts a PodGroup in when `spec.queue` is empty (`DefaultQueue`).
pub(crate) const DEFAULT_QUEUE: &str = "default";

/// A Volcano object: metadata, spec and status.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Object<S, T> {
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// What the user (or Volcano's controllers) asked for.
    #[serde(default)]
    pub spec: S,
    /// What Volcano recorded.
    #[serde(default)]
    pub status: T,
}

/// A Volcano gang: `minMember` pods start together or none does.
pub(crate) type PodGroup = Object<PodGroupSpec, PodGroupStatus>;
/// A Volcano queue of PodGroups, with its weight and capability.
pub(crate) type Queue = Object<QueueSpec, QueueStatus>;

/// A Volcano Job (`batch.volcano.sh/v1alpha1`): tasks of pods that Volcano's Job controller
/// creates, with one PodGroup for them all.
pub(crate) type Job = Object<JobSpec, JobStatus>;

/// Volcano Job `spec` (`pkg/apis/batch/v1alpha1/job.go` of volcano-sh/apis).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    /// The least number of running pods for the Job to run (the PodGroup's `minMember`).
    #[serde(default)]
    pub min_available: i32,
    /// The Queue; empty means `default`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub queue: String,
    /// The scheduler the Job's pods name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scheduler_name: String,
    /// The PriorityClass of the Job.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub priority_class_name: String,
    /// The tasks: pods of one template each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskSpec>,
}

/// One task of a Volcano Job.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSpec {
    /// The task name (the pods' `volcano.sh/task-spec`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// How many pods the task has.
    #[serde(default)]
    pub replicas: i32,
    /// The least number of the task's pods that must run (the PodGroup's `minTaskMember`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_available: Option<i32>,
    /// The task's pod template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<k8s_openapi::api::core::v1::PodTemplateSpec>,
}

/// Volcano Job `status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    /// The Job's state.
    #[serde(default)]
    pub state: JobState,
    /// Pending pods.
    #[serde(default)]
    pub pending: i32,
    /// Running pods.
    #[serde(default)]
    pub running: i32,
    /// Succeeded pods.
    #[serde(default)]
    pub succeeded: i32,
    /// Failed pods.
    #[serde(default)]
    pub failed: i32,
}

/// Volcano Job `status.state`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobState {
    /// `Pending`, `Aborting`, `Aborted`, `Running`, `Restarting`, `Completing`, `Completed`,
    /// `Terminating`, `Terminated`, `Failed`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,
    /// One CamelCase word.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// For humans.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// PodGroup `spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupSpec {
    /// The least number of pods that must run together.
    #[serde(default)]
    pub min_member: i32,
    /// The least number of pods of each task (by the pod's task name).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub min_task_member: BTreeMap<String, i32>,
    /// The Queue; empty means Volcano's `default` queue.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub queue: String,
    /// The PriorityClass of the group.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub priority_class_name: String,
    /// The least resources the group needs to start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_resources: Option<BTreeMap<String, Quantity>>,
}

/// PodGroup `status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupStatus {
    /// `Pending`, `Inqueue`, `Running`, `Unknown` or `Completed` (empty: not yet seen by
    /// Volcano's scheduler).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,
    /// What Volcano's scheduler recorded (`Unschedulable`, `Scheduled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<PodGroupCondition>,
    /// Running pods.
    #[serde(default)]
    pub running: i32,
    /// Succeeded pods.
    #[serde(default)]
    pub succeeded: i32,
    /// Failed pods.
    #[serde(default)]
    pub failed: i32,
}

/// One PodGroup condition (Volcano's own type, not metav1.Condition).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupCondition {
    /// `Unschedulable` or `Scheduled`.
    #[serde(default, rename = "type")]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
    /// When it last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    /// One CamelCase word (`NotEnoughResources`, `NotEnoughTasks`, …).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// For humans.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// Queue `spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueSpec {
    /// Share of the cluster relative to other queues.
    #[serde(default)]
    pub weight: i32,
    /// The most the queue's PodGroups may use, per resource.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capability: BTreeMap<String, Quantity>,
    /// Whether other queues may reclaim its resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reclaimable: Option<bool>,
}

/// Queue `status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueStatus {
    /// `Open`, `Closed`, `Closing` or `Unknown` (empty: not yet synced by Volcano).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub state: String,
}

/// Volcano's typed objects of a snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VolcanoObjects {
    /// PodGroups, sorted by (namespace, name) as [`Snapshot::foreign`](super::Snapshot).
    pub pod_groups: Vec<PodGroup>,
    /// Queues (cluster-scoped), sorted by name.
    pub queues: Vec<Queue>,
    /// Volcano Jobs, sorted by (namespace, name).
    pub jobs: Vec<Job>,
}

/// True for an object this module types.
pub(crate) fn is_typed(api_version: &str, kind: &str) -> bool {
    (api_version == "scheduling.volcano.sh/v1beta1" && matches!(kind, "PodGroup" | "Queue"))
        || (api_version == "batch.volcano.sh/v1alpha1" && kind == "Job")
}

/// Checks that `value` (a PodGroup or Queue, see [`is_typed`]) reads as its type. The error
/// names the field path.
pub(crate) fn check(value: &Value) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
    let kind = value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if kind == "Queue" {
        serde_path_to_error::deserialize::<_, Queue>(value.clone()).map(drop)
    } else if kind == "Job" {
        serde_path_to_error::deserialize::<_, Job>(value.clone()).map(drop)
    } else {
        serde_path_to_error::deserialize::<_, PodGroup>(value.clone()).map(drop)
    }
}

impl VolcanoObjects {
    /// Types the Volcano objects among `foreign` (which the loader checked already: one that
    /// does not read is skipped).
    pub(crate) fn from_foreign(foreign: &[RawObject]) -> Self {
        let mut out = Self::default();
        for o in foreign.iter().filter(|o| is_typed(&o.api_version, &o.kind)) {
            if o.kind == "Queue" {
                if let Ok(q) = serde_json::from_value::<Queue>(o.value.clone()) {
                    out.queues.push(q);
                }
            } else if o.kind == "Job" {
                if let Ok(j) = serde_json::from_value::<Job>(o.value.clone()) {
                    out.jobs.push(j);
                }
            } else if let Ok(pg) = serde_json::from_value::<PodGroup>(o.value.clone()) {
                out.pod_groups.push(pg);
            }
        }
        out
    }

    /// The PodGroup `namespace/name`, if read.
    pub(crate) fn pod_group(&self, namespace: &str, name: &str) -> Option<&PodGroup> {
        self.pod_groups
            .iter()
            .find(|p| p.namespace() == namespace && p.name() == name)
    }

    /// The Volcano Job `namespace/name`, if read.
    pub(crate) fn job(&self, namespace: &str, name: &str) -> Option<&Job> {
        self.jobs
            .iter()
            .find(|j| j.namespace() == namespace && j.name() == name)
    }

    /// The PodGroups the Volcano Job `namespace/name` owns (its controller made them).
    pub(crate) fn groups_of_job<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> impl Iterator<Item = &'a PodGroup> + 'a {
        self.pod_groups
            .iter()
            .filter(move |pg| pg.namespace() == namespace && pg.owner_job() == Some(name))
    }

    /// The Queue `name`, if read.
    pub(crate) fn queue(&self, name: &str) -> Option<&Queue> {
        self.queues.iter().find(|q| q.name() == name)
    }
}

impl<S, T> Object<S, T> {
    /// The object's name.
    pub(crate) fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    /// The object's namespace (`""` for Queues).
    pub(crate) fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or_default()
    }
}

impl PodGroup {
    /// The queue the group is in (`default` when `spec.queue` is empty).
    pub(crate) fn queue_name(&self) -> &str {
        if self.spec.queue.is_empty() {
            DEFAULT_QUEUE
        } else {
            &self.spec.queue
        }
    }

    /// The recorded phase, `Pending` when Volcano has not recorded one.
    pub(crate) fn phase(&self) -> &str {
        if self.status.phase.is_empty() {
            "Pending"
        } else {
            &self.status.phase
        }
    }

    /// The Volcano Job that owns the group, if one does.
    pub(crate) fn owner_job(&self) -> Option<&str> {
        self.metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.kind == "Job" && o.api_version.starts_with(JOB_GROUP))
            .map(|o| o.name.as_str())
    }

    /// The latest condition of `type_`, if recorded.
    pub(crate) fn condition(&self, type_: &str) -> Option<&PodGroupCondition> {
        self.status
            .conditions
            .iter()
            .filter(|c| c.type_ == type_)
            .max_by_key(|c| c.last_transition_time.as_ref().map(|t| t.0))
    }
}

/// The Volcano PodGroup a pod's annotations name, if any (the first key Volcano reads wins).
pub(crate) fn group_name_of(meta: &ObjectMeta) -> Option<&str> {
    let annotations = meta.annotations.as_ref()?;
    GROUP_NAME_ANNOTATIONS
        .iter()
        .find_map(|k| annotations.get(*k))
        .map(String::as_str)
        .filter(|n| !n.is_empty())
}

/// The Volcano task a pod's annotations name, if any.
pub(crate) fn task_of(meta: &ObjectMeta) -> Option<&str> {
    meta.annotations
        .as_ref()?
        .get(TASK_SPEC_ANNOTATION)
        .map(String::as_str)
        .filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaped like Volcano's own example (`docs/user-guide/podgroup` of volcano-sh/volcano,
    /// the PodGroup `test` in the website's concepts page).
    const PG: &str = r#"{
        "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
        "metadata": {"name": "test", "namespace": "default"},
        "spec": {"minMember": 1, "minResources": {"cpu": "3", "memory": "2048Mi"},
                 "priorityClassName": "high-prority", "queue": "default"},
        "status": {"conditions": [{"lastTransitionTime": "2020-08-11T12:28:55Z",
            "message": "1/0 tasks in gang unschedulable: pod group is not ready, 1 minAvailable.",
            "reason": "NotEnoughResources", "status": "True", "transitionID": "x",
            "type": "Unschedulable"}], "phase": "Inqueue"}
    }"#;

    #[test]
    fn a_pod_group_reads_as_volcano_writes_it() {
        let v: Value = serde_json::from_str(PG).unwrap();
        check(&v).unwrap();
        let pg: PodGroup = serde_json::from_value(v).unwrap();
        assert_eq!(pg.spec.min_member, 1);
        assert_eq!(pg.queue_name(), "default");
        assert_eq!(pg.phase(), "Inqueue");
        let c = pg.condition("Unschedulable").unwrap();
        assert_eq!(c.reason, "NotEnoughResources");
        assert_eq!(
            pg.spec.min_resources.as_ref().unwrap()["memory"],
            Quantity("2048Mi".into())
        );
    }

    #[test]
    fn the_snapshot_types_them_from_the_raw_copies() {
        let s = crate::snapshot::source::files::test_snapshot(&format!(
            "{PG}\n---\n{}",
            r#"{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                "metadata": {"name": "default"}, "spec": {"weight": 1}, "status": {"state": "Open"}}"#
        ));
        assert_eq!(s.volcano.pod_groups.len(), 1);
        assert_eq!(s.volcano.queue("default").unwrap().status.state, "Open");
        assert!(s.volcano.pod_group("default", "test").is_some());
        assert_eq!(s.count_of("PodGroup.scheduling.volcano.sh"), Some(1));
        assert_eq!(s.count_of("PodGroup"), Some(0), "never the native kind");
        // Still an owner object for the graph and export.
        assert_eq!(s.foreign.len(), 2);
    }

    #[test]
    fn a_volcano_job_reads_with_its_tasks_and_owns_its_group() {
        let job = r#"{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "tf", "namespace": "ml"},
            "spec": {"minAvailable": 3, "schedulerName": "volcano", "queue": "q",
                     "tasks": [{"name": "ps", "replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}},
                               {"name": "worker", "replicas": 2, "minAvailable": 2}]},
            "status": {"state": {"phase": "Pending"}, "pending": 3}}"#;
        let pg = r#"{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": "tf-uid", "namespace": "ml",
                         "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                                              "name": "tf", "uid": "u", "controller": true}]},
            "spec": {"minMember": 3}}"#;
        let s = crate::snapshot::source::files::test_snapshot(&format!("{job}\n---\n{pg}"));
        let j = s.volcano.job("ml", "tf").unwrap();
        assert_eq!(j.spec.tasks[1].min_available, Some(2));
        assert_eq!(j.status.state.phase, "Pending");
        assert!(j.spec.tasks[0].template.is_some());
        let groups: Vec<&str> = s
            .volcano
            .groups_of_job("ml", "tf")
            .map(|g| g.name())
            .collect();
        assert_eq!(groups, ["tf-uid"]);
        let mut v: Value = serde_json::from_str(job).unwrap();
        v["spec"]["tasks"][1]["replicas"] = Value::from("two");
        assert_eq!(
            check(&v).unwrap_err().path().to_string(),
            "spec.tasks[1].replicas"
        );
    }

    #[test]
    fn a_wrong_field_is_named() {
        let mut v: Value = serde_json::from_str(PG).unwrap();
        v["spec"]["minMember"] = Value::from("three");
        let e = check(&v).unwrap_err();
        assert_eq!(e.path().to_string(), "spec.minMember");
        let q = serde_json::json!({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": "q"}, "spec": {"weight": "heavy"}});
        assert_eq!(check(&q).unwrap_err().path().to_string(), "spec.weight");
    }

    #[test]
    fn the_group_name_annotation_is_read_in_volcanos_order() {
        let meta = |pairs: &[(&str, &str)]| ObjectMeta {
            annotations: Some(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            ),
            ..ObjectMeta::default()
        };
        assert_eq!(
            group_name_of(&meta(&[("scheduling.volcano.sh/group-name", "b")])),
            Some("b")
        );
        assert_eq!(
            group_name_of(&meta(&[
                ("scheduling.volcano.sh/group-name", "b"),
                ("scheduling.k8s.io/group-name", "a")
            ])),
            Some("a")
        );
        assert_eq!(group_name_of(&meta(&[("other", "a")])), None);
    }
}
