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
//! names, so code reads `pod.spec.as_ref()?.tolerations` as it would on the API type.
//!
//! Kept, field by field (everything the simulator, tree, doctor, lint, diff, capacity and
//! export read):
//!
//! | part | fields |
//! |---|---|
//! | `metadata` | all (pruned at load of `managedFields` and the last-applied annotation) |
//! | `spec` | `affinity`, `containers`, `initContainers`, `nodeName`, `nodeSelector`, `overhead`, `preemptionPolicy`, `priority`, `priorityClassName`, `resourceClaims`, `resources`, `restartPolicy`, `schedulerName`, `schedulingGates`, `schedulingGroup`, `tolerations`, `topologySpreadConstraints` |
//! | containers | `name`, `image`, `command`, `args`, `ports`, `resources`, `restartPolicy` |
//! | `status` | `phase`, `conditions`, `nominatedNodeName`, `reason`, `message`, `startTime`, `resourceClaimStatuses` |
//!
//! Serialized, the record is a valid `v1` Pod with those fields (export writes it; `--from`
//! reads it back to the same record).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, Container as ApiContainer, ContainerPort, Pod as ApiPod, PodCondition,
    PodResourceClaim, PodResourceClaimStatus, PodSchedulingGate, PodSchedulingGroup,
    PodSpec as ApiPodSpec, PodStatus as ApiPodStatus, ResourceRequirements, Toleration,
    TopologySpreadConstraint,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A pod as the snapshot keeps it: see the [module](self) for what is kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pod {
    /// `metadata`.
    pub metadata: ObjectMeta,
    /// `spec`.
    pub spec: Option<PodSpec>,
    /// `status`.
    pub status: Option<PodStatus>,
}

/// The kept part of a `PodSpec`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    /// `affinity`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
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
    pub resources: Option<ResourceRequirements>,
    /// `restartPolicy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
    /// `schedulerName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    /// `schedulingGates`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_gates: Option<Vec<PodSchedulingGate>>,
    /// `schedulingGroup`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_group: Option<PodSchedulingGroup>,
    /// `tolerations`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Vec<Toleration>>,
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
}

impl From<ApiContainer> for Container {
    fn from(c: ApiContainer) -> Self {
        Self {
            name: c.name,
            image: c.image,
            command: c.command,
            args: c.args,
            ports: c.ports,
            resources: c.resources,
            restart_policy: c.restart_policy,
        }
    }
}

impl From<&Container> for ApiContainer {
    fn from(c: &Container) -> Self {
        Self {
            name: c.name.clone(),
            image: c.image.clone(),
            command: c.command.clone(),
            args: c.args.clone(),
            ports: c.ports.clone(),
            resources: c.resources.clone(),
            restart_policy: c.restart_policy.clone(),
            ..Self::default()
        }
    }
}

fn containers(list: Vec<ApiContainer>) -> Vec<Container> {
    list.into_iter().map(Container::from).collect()
}

impl From<ApiPodSpec> for PodSpec {
    fn from(s: ApiPodSpec) -> Self {
        Self {
            affinity: s.affinity,
            containers: containers(s.containers),
            init_containers: s.init_containers.map(containers),
            node_name: s.node_name,
            node_selector: s.node_selector,
            overhead: s.overhead,
            preemption_policy: s.preemption_policy,
            priority: s.priority,
            priority_class_name: s.priority_class_name,
            resource_claims: s.resource_claims,
            resources: s.resources,
            restart_policy: s.restart_policy,
            scheduler_name: s.scheduler_name,
            scheduling_gates: s.scheduling_gates,
            scheduling_group: s.scheduling_group,
            tolerations: s.tolerations,
            topology_spread_constraints: s.topology_spread_constraints,
        }
    }
}

impl From<&PodSpec> for ApiPodSpec {
    fn from(s: &PodSpec) -> Self {
        let containers = |l: &[Container]| l.iter().map(ApiContainer::from).collect();
        Self {
            affinity: s.affinity.clone(),
            containers: containers(&s.containers),
            init_containers: s.init_containers.as_deref().map(containers),
            node_name: s.node_name.clone(),
            node_selector: s.node_selector.clone(),
            overhead: s.overhead.clone(),
            preemption_policy: s.preemption_policy.clone(),
            priority: s.priority,
            priority_class_name: s.priority_class_name.clone(),
            resource_claims: s.resource_claims.clone(),
            resources: s.resources.clone(),
            restart_policy: s.restart_policy.clone(),
            scheduler_name: s.scheduler_name.clone(),
            scheduling_gates: s.scheduling_gates.clone(),
            scheduling_group: s.scheduling_group.clone(),
            tolerations: s.tolerations.clone(),
            topology_spread_constraints: s.topology_spread_constraints.clone(),
            ..Self::default()
        }
    }
}

impl From<ApiPodStatus> for PodStatus {
    fn from(s: ApiPodStatus) -> Self {
        Self {
            phase: s.phase,
            conditions: s.conditions,
            nominated_node_name: s.nominated_node_name,
            reason: s.reason,
            message: s.message,
            start_time: s.start_time,
            resource_claim_statuses: s.resource_claim_statuses,
        }
    }
}

impl From<&PodStatus> for ApiPodStatus {
    fn from(s: &PodStatus) -> Self {
        Self {
            phase: s.phase.clone(),
            conditions: s.conditions.clone(),
            nominated_node_name: s.nominated_node_name.clone(),
            reason: s.reason.clone(),
            message: s.message.clone(),
            start_time: s.start_time.clone(),
            resource_claim_statuses: s.resource_claim_statuses.clone(),
            ..Self::default()
        }
    }
}

impl From<ApiPod> for Pod {
    fn from(p: ApiPod) -> Self {
        Self {
            metadata: p.metadata,
            spec: p.spec.map(PodSpec::from),
            status: p.status.map(PodStatus::from),
        }
    }
}

impl From<&Pod> for ApiPod {
    fn from(p: &Pod) -> Self {
        Self {
            metadata: p.metadata.clone(),
            spec: p.spec.as_ref().map(ApiPodSpec::from),
            status: p.status.as_ref().map(ApiPodStatus::from),
        }
    }
}

impl Pod {
    /// The record as the API type (the fields it does not keep are unset).
    pub fn to_api(&self) -> ApiPod {
        ApiPod::from(self)
    }
}

/// Written as the API type writes a Pod (`apiVersion`, `kind`, then the fields).
impl Serialize for Pod {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let n = 3 + usize::from(self.spec.is_some()) + usize::from(self.status.is_some());
        let mut s = serializer.serialize_struct("Pod", n)?;
        s.serialize_field("apiVersion", "v1")?;
        s.serialize_field("kind", "Pod")?;
        s.serialize_field("metadata", &self.metadata)?;
        if let Some(spec) = &self.spec {
            s.serialize_field("spec", spec)?;
        }
        if let Some(status) = &self.status {
            s.serialize_field("status", status)?;
        }
        s.end()
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
        let again: Pod = serde_json::from_value(serde_json::to_value(&pod).unwrap()).unwrap();
        assert_eq!(again, pod);
        assert_eq!(Pod::from(pod.to_api()), pod);
        // The API type writes the same JSON as the record.
        assert_eq!(
            serde_json::to_value(pod.to_api()).unwrap(),
            serde_json::to_value(&pod).unwrap()
        );
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
    fn the_record_is_a_fraction_of_the_api_type() {
        // Room taken whether filled or not: the point of the record.
        assert!(std::mem::size_of::<Pod>() * 2 < std::mem::size_of::<ApiPod>());
        assert!(std::mem::size_of::<Container>() * 4 < std::mem::size_of::<ApiContainer>());
    }
}
