//! Prune at load what no part of wasctl reads, as kube-scheduler's informer transform strips
//! `managedFields` (issue 15). Decided field by field:
//!
//! | dropped | why it is safe |
//! |---|---|
//! | `metadata.managedFields` (every kind) | nothing reads it; export drops it anyway |
//! | the `kubectl.kubernetes.io/last-applied-configuration` annotation (every kind) | nothing reads it; export drops it anyway |
//! | Pod `status.containerStatuses`, `initContainerStatuses`, `ephemeralContainerStatuses` | the simulator takes requests from the spec (in-place resize's `allocatedResources` is not modelled); tree and doctor read `phase`, `conditions`, `nominatedNodeName` |
//! | Node `status.images`, `volumesInUse`, `volumesAttached` | ImageLocality and volume limits are not modelled |
//! | Pod containers' (and init and ephemeral containers') `env`, `envFrom`, `volumeMounts`, `volumeDevices`, probes, `lifecycle`, `securityContext`, `workingDir`, termination message fields | no command reads them (the simulator reads `resources`, `ports`, `restartPolicy`, `name`, `image`); they are most of a real pod's bytes |
//! | Pod `spec.volumes` | volume binding and volume limits are not modelled; DRA claims come from `spec.resourceClaims` |
//! | Pod containers' `command` and `args`, except in `kube-system` | facts read control-plane flags (`--feature-gates`) from kube-system pods only |
//!
//! Kept on purpose: node `conditions` and `nodeInfo` (facts read kubelet versions), every other
//! spec field.

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::resource::v1::{
    DeviceClass, DeviceTaintRule, ResourceClaim, ResourceClaimTemplate, ResourceSlice,
};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::api::scheduling::v1alpha3::CompositePodGroup;
use k8s_openapi::api::scheduling::v1beta1::{PodGroup, Workload};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use crate::snapshot::facts::ClusterFacts;

/// The annotation `kubectl apply` writes: a full copy of the object, never read.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Drops what nothing reads from an object after it was typed.
pub trait Prune {
    /// Prunes in place.
    fn prune(&mut self);
}

/// Drops `managedFields` and the last-applied annotation.
pub fn prune_meta(meta: &mut ObjectMeta) {
    meta.managed_fields = None;
    if let Some(annotations) = &mut meta.annotations {
        annotations.remove(LAST_APPLIED);
        if annotations.is_empty() {
            meta.annotations = None;
        }
    }
}

/// Drops `metadata.managedFields` and the last-applied annotation from an untyped object.
pub fn prune_value(value: &mut Value) {
    if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
        if let Some(Value::Object(annotations)) = meta.get_mut("annotations") {
            annotations.remove(LAST_APPLIED);
        }
    }
}

macro_rules! meta_only {
    ($($t:ty),* $(,)?) => {
        $( impl Prune for $t {
            fn prune(&mut self) {
                prune_meta(&mut self.metadata);
            }
        } )*
    };
}

meta_only!(
    Namespace,
    Job,
    PodDisruptionBudget,
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    PriorityClass,
    CompositePodGroup,
    PodGroup,
    Workload,
);

impl Prune for Pod {
    fn prune(&mut self) {
        prune_meta(&mut self.metadata);
        let control_plane = self.metadata.namespace.as_deref() == Some("kube-system");
        if let Some(spec) = &mut self.spec {
            spec.volumes = None;
            for c in spec
                .containers
                .iter_mut()
                .chain(spec.init_containers.iter_mut().flatten())
            {
                c.env = None;
                c.env_from = None;
                c.volume_mounts = None;
                c.volume_devices = None;
                c.liveness_probe = None;
                c.readiness_probe = None;
                c.startup_probe = None;
                c.lifecycle = None;
                c.security_context = None;
                c.working_dir = None;
                c.termination_message_path = None;
                c.termination_message_policy = None;
                if !control_plane {
                    c.command = None;
                    c.args = None;
                }
            }
            spec.ephemeral_containers = None;
        }
        if let Some(status) = &mut self.status {
            status.container_statuses = None;
            status.init_container_statuses = None;
            status.ephemeral_container_statuses = None;
        }
    }
}

impl Prune for Node {
    fn prune(&mut self) {
        prune_meta(&mut self.metadata);
        if let Some(status) = &mut self.status {
            status.images = None;
            status.volumes_in_use = None;
            status.volumes_attached = None;
        }
    }
}

impl Prune for ClusterFacts {
    fn prune(&mut self) {}
}

impl Prune for ObjectMeta {
    fn prune(&mut self) {
        prune_meta(self);
    }
}
