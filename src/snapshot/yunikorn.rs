//! YuniKorn's gangs, read from pods: YuniKorn has no CRDs for them. An application's pods
//! carry its ID (annotation `yunikorn.apache.org/app-id`, else label `applicationId`), the
//! gang definitions (annotation `yunikorn.apache.org/task-groups`, a JSON list of task
//! groups: `name`, `minMember`, `minResource`, `nodeSelector`, `tolerations`, `affinity`) and
//! the task group each pod belongs to (`yunikorn.apache.org/task-group-name`). YuniKorn
//! reserves room for a gang with placeholder pods (annotation
//! `yunikorn.apache.org/placeholder: "true"`, owned by the application's first pod), then
//! swaps each for a real pod. Names as in yunikorn-k8shim's `pkg/common/constants` and the
//! user guide's gang-scheduling page.
//!
//! YuniKorn's queues live in its ConfigMap (`yunikorn/yunikorn-configs`), read by
//! [`super::yunikorn_queues`] when the input holds it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Affinity, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

use super::{Pod, Warning, name_of, namespace_of};

/// The scheduler name YuniKorn's pods carry.
pub(crate) const SCHEDULER_NAME: &str = "yunikorn";
/// The application ID annotation (read before the label).
pub(crate) const APP_ID_ANNOTATION: &str = "yunikorn.apache.org/app-id";
/// The application ID label.
pub(crate) const APP_ID_LABEL: &str = "applicationId";
/// The task groups of the application (JSON).
pub(crate) const TASK_GROUPS: &str = "yunikorn.apache.org/task-groups";
/// The task group a pod belongs to.
pub(crate) const TASK_GROUP_NAME: &str = "yunikorn.apache.org/task-group-name";
/// `"true"` on the placeholder pods YuniKorn creates.
pub(crate) const PLACEHOLDER: &str = "yunikorn.apache.org/placeholder";

/// The pod annotations this module reads.
pub(crate) const ANNOTATIONS: &[&str] = &[
    APP_ID_ANNOTATION,
    TASK_GROUPS,
    TASK_GROUP_NAME,
    PLACEHOLDER,
    super::yunikorn_queues::QUEUE_ANNOTATION,
];

/// One task group as the annotation declares it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskGroup {
    /// Unique within the application.
    pub name: String,
    /// How many pods must be placed together.
    #[serde(default)]
    pub min_member: i32,
    /// What each member asks for.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub min_resource: BTreeMap<String, Quantity>,
    /// Node selector of the placeholders.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    /// Tolerations of the placeholders.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// Affinity of the placeholders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
}

/// One YuniKorn gang of a snapshot: an application's task group, with its pods.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Gang {
    /// The application's namespace.
    pub namespace: String,
    /// The application ID.
    pub app_id: String,
    /// The task group as declared (only its name when no pod declares it).
    pub task_group: TaskGroup,
    /// Whether some pod's `task-groups` annotation declares it.
    pub declared: bool,
    /// Indexes into [`Snapshot::pods`](super::Snapshot) of its real pods.
    pub members: Vec<usize>,
    /// Indexes of its placeholder pods.
    pub placeholders: Vec<usize>,
}

impl Gang {
    /// The name a target uses: `APP_ID:TASK_GROUP` (a colon is in no Kubernetes name).
    pub(crate) fn name(&self) -> String {
        format!("{}:{}", self.app_id, self.task_group.name)
    }
}

/// The application ID of a pod, if YuniKorn marks it.
pub(crate) fn app_id(meta: &ObjectMeta) -> Option<&str> {
    meta.annotations
        .as_ref()
        .and_then(|a| a.get(APP_ID_ANNOTATION))
        .or_else(|| meta.labels.as_ref().and_then(|l| l.get(APP_ID_LABEL)))
        .map(String::as_str)
        .filter(|s| !s.is_empty())
}

fn annotation<'a>(meta: &'a ObjectMeta, key: &str) -> Option<&'a str> {
    meta.annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

/// True for a placeholder pod YuniKorn made.
pub(crate) fn is_placeholder(meta: &ObjectMeta) -> bool {
    annotation(meta, PLACEHOLDER) == Some("true")
}

/// The task group a pod names, if any.
pub(crate) fn task_group_of(meta: &ObjectMeta) -> Option<&str> {
    annotation(meta, TASK_GROUP_NAME).filter(|s| !s.is_empty())
}

/// The task groups a pod declares: `None` without the annotation, an error naming the
/// problem when it is not the JSON list YuniKorn reads.
pub(crate) fn declared(meta: &ObjectMeta) -> Option<Result<Vec<TaskGroup>, String>> {
    let text = annotation(meta, TASK_GROUPS)?;
    Some(serde_json::from_str(text).map_err(|e| e.to_string()))
}

/// Every YuniKorn gang among `pods`, sorted by (namespace, app ID, task group), with a
/// warning for each pod whose `task-groups` annotation does not read.
pub(crate) fn gangs(pods: &[std::sync::Arc<Pod>]) -> (Vec<Gang>, Vec<Warning>) {
    let mut by_key: BTreeMap<(String, String, String), Gang> = BTreeMap::new();
    let mut warnings = Vec::new();
    for (i, pod) in pods.iter().enumerate() {
        let meta = &pod.metadata;
        let Some(app) = app_id(meta) else {
            continue;
        };
        let ns = namespace_of(meta);
        let key = |tg: &str| (ns.to_owned(), app.to_owned(), tg.to_owned());
        let fresh = |tg: &str| Gang {
            namespace: ns.to_owned(),
            app_id: app.to_owned(),
            task_group: TaskGroup {
                name: tg.to_owned(),
                ..TaskGroup::default()
            },
            ..Gang::default()
        };
        match declared(meta) {
            Some(Ok(groups)) => {
                for tg in groups {
                    let g = by_key
                        .entry(key(&tg.name))
                        .or_insert_with(|| fresh(&tg.name));
                    if !g.declared {
                        g.task_group = tg;
                        g.declared = true;
                    }
                }
            }
            Some(Err(e)) => warnings.push(Warning::new(
                "BadTaskGroups",
                format!(
                    "pod `{ns}/{}`: annotation `{TASK_GROUPS}` is not YuniKorn's task group list ({e}); its gangs are not shown",
                    name_of(meta)
                ),
            )),
            None => {}
        }
        if let Some(tg) = task_group_of(meta) {
            let g = by_key.entry(key(tg)).or_insert_with(|| fresh(tg));
            if is_placeholder(meta) {
                g.placeholders.push(i);
            } else {
                g.members.push(i);
            }
        }
    }
    (by_key.into_values().collect(), warnings)
}

/// Moves the gangs' pod positions for a pod (none of theirs) inserted at (`up`) or removed
/// from `at` in the snapshot's pods.
pub(crate) fn shift(gangs: &mut [Gang], at: usize, up: bool) {
    for g in gangs {
        for p in g.members.iter_mut().chain(g.placeholders.iter_mut()) {
            if up && *p >= at {
                *p += 1;
            } else if !up && *p > at {
                *p -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::files::test_snapshot;

    /// Shaped like YuniKorn's gang-scheduling example (`deployments/examples/gang/` of
    /// apache/yunikorn-k8shim: the `gang-scheduling-job-example` Job's pod template).
    pub(crate) const APP: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: batch-sleep-job-1
  namespace: default
  labels: {applicationId: gang-app-1, queue: root.sandbox}
  annotations:
    yunikorn.apache.org/task-group-name: group-a
    yunikorn.apache.org/task-groups: '[{"name": "group-a", "minMember": 3, "minResource": {"cpu": "100m", "memory": "50M"}, "nodeSelector": {}, "tolerations": []}]'
spec:
  schedulerName: yunikorn
  containers: [{name: sleep, image: alpine, resources: {requests: {cpu: 100m, memory: 50M}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: tg-group-a-gang-app-1-0
  namespace: default
  labels: {applicationId: gang-app-1}
  annotations:
    yunikorn.apache.org/placeholder: "true"
    yunikorn.apache.org/task-group-name: group-a
spec:
  schedulerName: yunikorn
  containers: [{name: pause, image: registry.k8s.io/pause:3.7}]
"#;

    #[test]
    fn task_groups_gather_their_pods_and_placeholders() {
        let s = test_snapshot(APP);
        let (gangs, warnings) = gangs(&s.pods);
        assert!(warnings.is_empty());
        let [g] = gangs.as_slice() else {
            panic!("{gangs:?}")
        };
        assert_eq!(g.name(), "gang-app-1:group-a");
        assert!(g.declared);
        assert_eq!(g.task_group.min_member, 3);
        assert_eq!(g.members.len(), 1);
        assert_eq!(g.placeholders.len(), 1);
    }

    #[test]
    fn a_bad_annotation_is_a_warning_naming_the_pod() {
        let s = test_snapshot(&APP.replace("[{\"name\"", "[{name"));
        let (_, warnings) = gangs(&s.pods);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].message.contains("default/batch-sleep-job-1"));
    }
}
