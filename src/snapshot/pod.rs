//! The pod record a [`Snapshot`](super::Snapshot) keeps: the fields of a k8s-openapi
//! [`Pod`](ApiPod) that some command reads, and nothing else (issue 15).
//!
//! k8s-openapi's `Pod` is 2,464 bytes before any of its strings, each `Container` 2,336: room
//! for every field of the API, filled or not. A cluster of 150,000 pods spent about 0.5 GB on
//! that room alone. The loader still reads every pod *as* the API type (so the same fields are
//! type-checked, with the same errors naming the same field paths, and
//! [`validate`](super::validate) checks the same quantities); it then moves the fields listed
//! below into this record, and the rest is dropped, as kube-scheduler keeps its own `PodInfo`
//! beside the informer's object. Every part of the record is the API's own type
//! (`ObjectMeta`, `Affinity`, `Toleration`, `ResourceRequirements`, …), under the API's field
//! names, so code reads `pod.spec.as_ref()?.tolerations` as it would on the API type (a few
//! parts are boxed or shared behind an `Arc`, which reads the same).
//!
//! Kept, field by field (everything the simulator, tree, doctor, lint, diff, capacity and
//! export read):
//!
//! | part | fields |
//! |---|---|
//! | `metadata` | all but `managedFields` and the annotations nothing reads (kept: [`annotation_is_read`]) |
//! | `spec` | `affinity`, `containers`, `initContainers`, `nodeName`, `nodeSelector`, `overhead`, `preemptionPolicy`, `priority`, `priorityClassName`, `resourceClaims`, `resources`, `restartPolicy`, `runtimeClassName`, `schedulerName`, `schedulingGates`, `schedulingGroup`, `tolerations`, `topologySpreadConstraints` |
//! | containers | `name`, `image`, `command`, `args`, `ports`, `resources.requests` (with API defaulting from `limits` applied, then `limits` dropped), `resources.claims`, `restartPolicy` |
//! | `status` | `phase`, `conditions`, `nominatedNodeName`, `reason`, `message`, `startTime`, `resourceClaimStatuses`, `nodeAllocatableResourceClaimStatuses` |
//!
//! Serialized, the record is a valid `v1` Pod with those fields (export writes it; `--from`
//! reads it back to the same record).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{
    Affinity, Container as ApiContainer, ContainerPort, NodeAllocatableResourceClaimStatus,
    Pod as ApiPod, PodCondition, PodResourceClaim, PodResourceClaimStatus, PodSchedulingGate,
    PodSchedulingGroup, PodSpec as ApiPodSpec, PodStatus as ApiPodStatus, ResourceRequirements,
    Toleration, TopologySpreadConstraint,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The annotation the kubelet puts on a mirror pod (a static pod's API object): drain leaves
/// such pods where they are.
pub(crate) const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// The keys YuniKorn marks its pods with (as labels or annotations).
pub(crate) const YUNIKORN_KEYS: &[&str] = &["applicationId", "yunikorn.apache.org/app-id"];

/// Whether some command reads the pod annotation `key`: the record keeps these and drops the
/// rest (a real pod's annotations carry CNI network status, restart stamps, scrape settings:
/// read by nothing here).
pub(crate) fn annotation_is_read(key: &str) -> bool {
    key == MIRROR_ANNOTATION
        || YUNIKORN_KEYS.contains(&key)
        || super::yunikorn::ANNOTATIONS.contains(&key)
        || super::volcano::GROUP_NAME_ANNOTATIONS.contains(&key)
        || key == super::volcano::TASK_SPEC_ANNOTATION
}

/// A container's `resources` with API defaulting applied and `limits` dropped: a limit with
/// no request of its name sets that request (`SetDefaults_Pod`), which is all the simulator
/// takes from limits (NodeResourcesFit and the scores read requests only).
fn requests_only(mut r: ResourceRequirements) -> ResourceRequirements {
    if let Some(limits) = r.limits.take() {
        let requests = r.requests.get_or_insert_with(BTreeMap::new);
        for (name, q) in limits {
            requests.entry(name).or_insert(q);
        }
    }
    r
}

/// A pod as the snapshot keeps it: see the [module](self) for what is kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pod {
    /// `metadata`.
    pub metadata: ObjectMeta,
    /// `spec` (boxed, as `status`: the snapshot's list of 150,000 pods is copied once while
    /// the parallel reader's batches are merged, and a record of 376 bytes copies in a third
    /// of the time and room of one of 1,120).
    pub spec: Option<Box<PodSpec>>,
    /// `status`.
    pub status: Option<Box<PodStatus>>,
}

/// The kept part of a `PodSpec`. `affinity` and the pod-level `resources` are boxed: set on
/// few pods, they took 216 of every spec's 592 bytes inline.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    /// `affinity`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Box<Affinity>>,
    /// `containers`.
    pub containers: Vec<Container>,
    /// `initContainers`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_containers: Option<Vec<Container>>,
    /// `nodeName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    /// `nodeSelector`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<BTreeMap<String, String>>,
    /// `overhead`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overhead: Option<BTreeMap<String, Quantity>>,
    /// `preemptionPolicy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<String>,
    /// `priority`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// `priorityClassName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    /// `resourceClaims`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_claims: Option<Vec<PodResourceClaim>>,
    /// `resources` (pod-level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Box<ResourceRequirements>>,
    /// `restartPolicy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
    /// `runtimeClassName` (read by admission, which adds the class's overhead and scheduling).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_class_name: Option<String>,
    /// `schedulerName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    /// `schedulingGates`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_gates: Option<Vec<PodSchedulingGate>>,
    /// `schedulingGroup`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_group: Option<PodSchedulingGroup>,
    /// `tolerations`, shared between pods that list the same ones (`shared_tolerations`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Arc<[Toleration]>>,
    /// `topologySpreadConstraints`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_spread_constraints: Option<Vec<TopologySpreadConstraint>>,
}

/// The kept part of a `Container` (init containers too).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// `name`.
    pub name: String,
    /// `image`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// `command` (kept at load in `kube-system` only, where facts read control-plane flags).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// `args` (as `command`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// `ports`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<ContainerPort>>,
    /// `resources`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    /// `restartPolicy` (`Always` on an init container makes it a sidecar).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
}

/// The kept part of a `PodStatus`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    /// `phase`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// `conditions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<PodCondition>>,
    /// `nominatedNodeName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominated_node_name: Option<String>,
    /// `reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `startTime`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Time>,
    /// `resourceClaimStatuses`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_claim_statuses: Option<Vec<PodResourceClaimStatus>>,
    /// `nodeAllocatableResourceClaimStatuses`: the cpu, memory and hugepages the scheduler
    /// charged the pod for its DRA claims (DRANodeAllocatableResources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_allocatable_resource_claim_statuses: Option<Vec<NodeAllocatableResourceClaimStatus>>,
}

impl From<ApiContainer> for Container {
    fn from(c: ApiContainer) -> Self {
        Self {
            name: c.name,
            image: c.image,
            command: c.command,
            args: c.args,
            ports: exact(c.ports),
            resources: c.resources.map(requests_only),
            restart_policy: c.restart_policy,
        }
    }
}

/// Into a new vector of exactly the length: `collect` would reuse the API vector's buffer in
/// place (2,336 bytes per container, kept for the life of the snapshot: 70 MB of the S dump's
/// 317 MB heap, heaptrack).
fn containers(list: Vec<ApiContainer>) -> Vec<Container> {
    let mut out = Vec::with_capacity(list.len());
    out.extend(list.into_iter().map(Container::from));
    out
}

/// A list as read, without the room serde's growth left (a two-item list has room for four).
fn exact<T>(list: Option<Vec<T>>) -> Option<Vec<T>> {
    list.map(|mut l| {
        l.shrink_to_fit();
        l
    })
}

/// How many distinct toleration lists each reading thread remembers.
const RECENT_TOLERATIONS: usize = 8;

/// `list` as an `Arc`, shared with an equal list read recently on this thread.
///
/// Nearly every pod carries the same few tolerations: the two that admission adds
/// (`node.kubernetes.io/not-ready` and `unreachable`, 300 s) and those of its workload's
/// template. At 112 bytes each, held once per pod, they were about 65 MB of the 150,000-pod
/// snapshot; pods of one Job are read one after another, so a few recent lists catch them.
fn shared_tolerations(list: Vec<Toleration>) -> Arc<[Toleration]> {
    thread_local! {
        static RECENT: RefCell<Vec<Arc<[Toleration]>>> = const { RefCell::new(Vec::new()) };
    }
    RECENT.with(|recent| {
        let mut recent = recent.borrow_mut();
        if let Some(i) = recent.iter().position(|r| **r == *list) {
            let hit = recent.remove(i);
            recent.push(Arc::clone(&hit));
            return hit;
        }
        let new: Arc<[Toleration]> = Arc::from(list);
        if recent.len() == RECENT_TOLERATIONS {
            recent.remove(0);
        }
        recent.push(Arc::clone(&new));
        new
    })
}

impl From<ApiPodSpec> for PodSpec {
    fn from(s: ApiPodSpec) -> Self {
        Self {
            affinity: s.affinity.map(Box::new),
            containers: containers(s.containers),
            init_containers: s.init_containers.map(containers),
            node_name: s.node_name,
            node_selector: s.node_selector,
            overhead: s.overhead,
            preemption_policy: s.preemption_policy,
            priority: s.priority,
            priority_class_name: s.priority_class_name,
            resource_claims: exact(s.resource_claims),
            resources: s.resources.map(Box::new),
            restart_policy: s.restart_policy,
            runtime_class_name: s.runtime_class_name,
            scheduler_name: s.scheduler_name,
            scheduling_gates: exact(s.scheduling_gates),
            scheduling_group: s.scheduling_group,
            tolerations: s.tolerations.map(shared_tolerations),
            topology_spread_constraints: exact(s.topology_spread_constraints),
        }
    }
}

impl From<ApiPodStatus> for PodStatus {
    fn from(s: ApiPodStatus) -> Self {
        Self {
            phase: s.phase,
            conditions: exact(s.conditions),
            nominated_node_name: s.nominated_node_name,
            reason: s.reason,
            message: s.message,
            start_time: s.start_time,
            resource_claim_statuses: exact(s.resource_claim_statuses),
            node_allocatable_resource_claim_statuses: exact(
                s.node_allocatable_resource_claim_statuses,
            ),
        }
    }
}

impl From<ApiPod> for Pod {
    fn from(p: ApiPod) -> Self {
        let mut metadata = p.metadata;
        metadata.owner_references = exact(metadata.owner_references);
        metadata.finalizers = exact(metadata.finalizers);
        if let Some(a) = metadata.annotations.as_mut() {
            a.retain(|k, _| annotation_is_read(k));
            if a.is_empty() {
                metadata.annotations = None;
            }
        }
        Self {
            metadata,
            spec: p.spec.map(|s| Box::new(PodSpec::from(s))),
            status: p.status.map(|s| Box::new(PodStatus::from(s))),
        }
    }
}

/// Writes a record as the API type writes its object: `apiVersion`, `kind`, `metadata`, then
/// `spec` and `status` when present (the pod and [Job](super::Job) records).
pub(super) fn serialize_object<S: Serializer>(
    serializer: S,
    (api_version, kind): (&'static str, &'static str),
    metadata: &ObjectMeta,
    spec: Option<&impl Serialize>,
    status: Option<&impl Serialize>,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let n = 3 + usize::from(spec.is_some()) + usize::from(status.is_some());
    let mut s = serializer.serialize_struct(kind, n)?;
    s.serialize_field("apiVersion", api_version)?;
    s.serialize_field("kind", kind)?;
    s.serialize_field("metadata", metadata)?;
    if let Some(spec) = spec {
        s.serialize_field("spec", spec)?;
    }
    if let Some(status) = status {
        s.serialize_field("status", status)?;
    }
    s.end()
}

/// Written as the API type writes a Pod.
impl Serialize for Pod {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_object(
            serializer,
            ("v1", "Pod"),
            &self.metadata,
            self.spec.as_deref(),
            self.status.as_deref(),
        )
    }
}

/// Read as the API type, then projected.
impl<'de> Deserialize<'de> for Pod {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ApiPod::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: &str = r#"{"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "w-0", "namespace": "ml", "labels": {"app": "w"}},
        "spec": {"nodeName": "n1", "priority": 5, "schedulerName": "default-scheduler",
            "schedulingGroup": {"podGroupName": "g"},
            "tolerations": [{"key": "gpu", "operator": "Exists"}],
            "containers": [{"name": "main", "image": "i", "env": [{"name": "A", "value": "1"}],
                "resources": {"requests": {"cpu": "2"}}, "ports": [{"containerPort": 80, "hostPort": 80}]}],
            "initContainers": [{"name": "side", "restartPolicy": "Always"}],
            "volumes": [{"name": "v", "emptyDir": {}}], "dnsPolicy": "ClusterFirst"},
        "status": {"phase": "Running", "qosClass": "Burstable", "podIP": "10.0.0.1",
            "conditions": [{"type": "PodScheduled", "status": "True"}]}}"#;

    #[test]
    fn the_record_keeps_what_commands_read_and_drops_the_rest() {
        let pod: Pod = serde_json::from_str(POD).unwrap();
        let spec = pod.spec.as_ref().unwrap();
        assert_eq!(spec.node_name.as_deref(), Some("n1"));
        assert_eq!(spec.priority, Some(5));
        assert_eq!(
            spec.containers[0].ports.as_ref().unwrap()[0].host_port,
            Some(80)
        );
        assert_eq!(
            spec.init_containers.as_ref().unwrap()[0]
                .restart_policy
                .as_deref(),
            Some("Always")
        );
        let v = serde_json::to_value(&pod).unwrap();
        assert_eq!(v["apiVersion"], "v1");
        assert_eq!(v["kind"], "Pod");
        assert_eq!(v["spec"]["schedulingGroup"]["podGroupName"], "g");
        assert_eq!(
            v["spec"]["containers"][0]["resources"]["requests"]["cpu"],
            "2"
        );
        assert_eq!(v["status"]["conditions"][0]["type"], "PodScheduled");
        // Not read by any command: gone.
        assert!(v["spec"].get("volumes").is_none());
        assert!(v["spec"].get("dnsPolicy").is_none());
        assert!(v["spec"]["containers"][0].get("env").is_none());
        assert!(v["status"].get("qosClass").is_none());
        assert!(v["status"].get("podIP").is_none());
    }

    #[test]
    fn the_record_round_trips_through_its_json_and_the_api_type() {
        let pod: Pod = serde_json::from_str(POD).unwrap();
        let written = serde_json::to_value(&pod).unwrap();
        let again: Pod = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(again, pod);
        // What the record writes is a Pod the API type reads and writes back unchanged.
        let api: ApiPod = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(serde_json::to_value(api).unwrap(), written);
    }

    #[test]
    fn a_bad_field_fails_as_it_fails_on_the_api_type() {
        let bad = POD.replace(r#""priority": 5"#, r#""priority": "high""#);
        let err = serde_json::from_str::<Pod>(&bad).unwrap_err().to_string();
        let api = serde_json::from_str::<ApiPod>(&bad)
            .unwrap_err()
            .to_string();
        assert_eq!(err, api);
    }

    #[test]
    fn limits_default_missing_requests_then_go() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "resources": {
                "requests": {"cpu": "1"},
                "limits": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "2"}}}]}
        }))
        .unwrap();
        let r = pod.spec.unwrap().containers[0].resources.clone().unwrap();
        assert!(r.limits.is_none());
        let requests = r.requests.unwrap();
        let got: Vec<(&str, &str)> = requests
            .iter()
            .map(|(k, v)| (k.as_str(), v.0.as_str()))
            .collect();
        // The request stays; the limits of unrequested names become requests.
        assert_eq!(
            got,
            [("cpu", "1"), ("memory", "8Gi"), ("nvidia.com/gpu", "2")]
        );
    }

    #[test]
    fn only_annotations_something_reads_are_kept() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "annotations": {
                MIRROR_ANNOTATION: "abc", "yunikorn.apache.org/app-id": "app-1",
                "k8s.v1.cni.cncf.io/network-status": "[{...}]", "prometheus.io/scrape": "true"}}
        }))
        .unwrap();
        let kept: Vec<&str> = pod
            .metadata
            .annotations
            .iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(kept, [MIRROR_ANNOTATION, "yunikorn.apache.org/app-id"]);
        let none: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "annotations": {"prometheus.io/scrape": "true"}}
        }))
        .unwrap();
        assert!(none.metadata.annotations.is_none());
    }

    #[test]
    fn pods_with_the_same_tolerations_share_one_list() {
        let a: Pod = serde_json::from_str(POD).unwrap();
        let b: Pod = serde_json::from_str(&POD.replace("w-0", "w-1")).unwrap();
        let other: Pod =
            serde_json::from_str(&POD.replace(r#""key": "gpu""#, r#""key": "tpu""#)).unwrap();
        let tolerations = |p: &Pod| p.spec.as_ref().unwrap().tolerations.clone().unwrap();
        assert!(Arc::ptr_eq(&tolerations(&a), &tolerations(&b)));
        assert!(!Arc::ptr_eq(&tolerations(&a), &tolerations(&other)));
        assert_eq!(tolerations(&other)[0].key.as_deref(), Some("tpu"));
        // Export writes the list as any other.
        let value = serde_json::to_value(&b).unwrap();
        assert_eq!(value["spec"]["tolerations"][0]["key"], "gpu");
    }

    #[test]
    fn lists_keep_no_spare_room() {
        let pod: Pod = serde_json::from_str(POD).unwrap();
        let spec = pod.spec.unwrap();
        let c = &spec.containers;
        assert_eq!(c.capacity(), c.len());
        let conditions = pod.status.unwrap().conditions.unwrap();
        assert_eq!(conditions.capacity(), conditions.len());
    }

    #[test]
    fn the_record_is_a_fraction_of_the_api_type() {
        // Room taken whether filled or not: the point of the record.
        assert!(std::mem::size_of::<Pod>() * 2 < std::mem::size_of::<ApiPod>());
        assert!(std::mem::size_of::<Container>() * 4 < std::mem::size_of::<ApiContainer>());
    }
}
