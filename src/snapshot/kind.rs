//! The kind of an object ([`ObjKind`]) and a reference to one object ([`ObjRef`]), as one type shared by the graph, the simulator, explain, capacity,
//! diff, doctor, the TUI and the command line (issue 13: kinds no longer travel as strings).
//!
//! The kinds wasctl loads and reasons about are variants; any other kind (an owner such as
//! JobSet, a DaemonSet, doctor's pseudo-kinds `Component` and `APIGroup`) is [`ObjKind::Other`]
//! with its name as read. Serialized as the plain kind name (`"PodGroup"`), so every `-o json`
//! key keeps its shape; ordered by that name, so sorted reports keep their order.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The kind of an object (`kind` as the API names it). Equality, hashing and order go by the
/// name, so an `Other` that happens to carry a known name is the same kind as its variant.
#[derive(Debug, Clone)]
pub enum ObjKind {
    /// `v1` Pod.
    Pod,
    /// `scheduling.k8s.io` PodGroup.
    PodGroup,
    /// `scheduling.k8s.io` CompositePodGroup.
    CompositePodGroup,
    /// `scheduling.k8s.io` Workload.
    Workload,
    /// `batch/v1` Job.
    Job,
    /// `v1` Node.
    Node,
    /// `v1` Namespace.
    Namespace,
    /// `resource.k8s.io` ResourceClaim.
    ResourceClaim,
    /// `resource.k8s.io` ResourceClaimTemplate.
    ResourceClaimTemplate,
    /// `resource.k8s.io` ResourceSlice.
    ResourceSlice,
    /// `resource.k8s.io` DeviceClass.
    DeviceClass,
    /// `resource.k8s.io` DeviceTaintRule.
    DeviceTaintRule,
    /// `scheduling.k8s.io/v1` PriorityClass.
    PriorityClass,
    /// `policy/v1` PodDisruptionBudget.
    PodDisruptionBudget,
    /// `v1` LimitRange.
    LimitRange,
    /// `v1` ResourceQuota.
    ResourceQuota,
    /// `node.k8s.io/v1` RuntimeClass.
    RuntimeClass,
    /// `kueue.x-k8s.io` ClusterQueue.
    ClusterQueue,
    /// `kueue.x-k8s.io` LocalQueue.
    LocalQueue,
    /// `kueue.x-k8s.io` ResourceFlavor.
    ResourceFlavor,
    /// `kueue.x-k8s.io` Cohort.
    Cohort,
    /// `kueue.x-k8s.io` Workload: Kueue's unit of admission, never the native
    /// `scheduling.k8s.io` [`ObjKind::Workload`]. Named `Workload.kueue.x-k8s.io`, as the
    /// graph names a foreign kind that clashes with a native one.
    KueueWorkload,
    /// `kueue.x-k8s.io` WorkloadPriorityClass.
    WorkloadPriorityClass,
    /// `kueue.x-k8s.io` AdmissionCheck.
    AdmissionCheck,
    /// `kueue.x-k8s.io` Topology.
    Topology,
    /// `scheduling.volcano.sh` PodGroup: Volcano's gang, never the native
    /// [`ObjKind::PodGroup`]. Named `PodGroup.scheduling.volcano.sh`.
    VolcanoPodGroup,
    /// `scheduling.volcano.sh` Queue. Named `Queue.scheduling.volcano.sh`.
    VolcanoQueue,
    /// `batch.volcano.sh` Job: a Volcano Job, never the native [`ObjKind::Job`]. Named
    /// `Job.batch.volcano.sh`.
    VolcanoJob,
    /// A YuniKorn task group (pod annotations, no API object), named `APP_ID:TASK_GROUP`.
    /// Named `TaskGroup.yunikorn.apache.org`.
    YunikornTaskGroup,
    /// Any other kind, named as read.
    Other(String),
}

impl ObjKind {
    /// Every named variant, for parsing and completion.
    pub(crate) const KNOWN: [ObjKind; 29] = [
        ObjKind::Pod,
        ObjKind::PodGroup,
        ObjKind::CompositePodGroup,
        ObjKind::Workload,
        ObjKind::Job,
        ObjKind::Node,
        ObjKind::Namespace,
        ObjKind::ResourceClaim,
        ObjKind::ResourceClaimTemplate,
        ObjKind::ResourceSlice,
        ObjKind::DeviceClass,
        ObjKind::DeviceTaintRule,
        ObjKind::PriorityClass,
        ObjKind::PodDisruptionBudget,
        ObjKind::LimitRange,
        ObjKind::ResourceQuota,
        ObjKind::RuntimeClass,
        ObjKind::ClusterQueue,
        ObjKind::LocalQueue,
        ObjKind::ResourceFlavor,
        ObjKind::Cohort,
        ObjKind::KueueWorkload,
        ObjKind::WorkloadPriorityClass,
        ObjKind::AdmissionCheck,
        ObjKind::Topology,
        ObjKind::VolcanoPodGroup,
        ObjKind::VolcanoQueue,
        ObjKind::VolcanoJob,
        ObjKind::YunikornTaskGroup,
    ];

    /// The kind as the API names it.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Pod => "Pod",
            Self::PodGroup => "PodGroup",
            Self::CompositePodGroup => "CompositePodGroup",
            Self::Workload => "Workload",
            Self::Job => "Job",
            Self::Node => "Node",
            Self::Namespace => "Namespace",
            Self::ResourceClaim => "ResourceClaim",
            Self::ResourceClaimTemplate => "ResourceClaimTemplate",
            Self::ResourceSlice => "ResourceSlice",
            Self::DeviceClass => "DeviceClass",
            Self::DeviceTaintRule => "DeviceTaintRule",
            Self::PriorityClass => "PriorityClass",
            Self::PodDisruptionBudget => "PodDisruptionBudget",
            Self::LimitRange => "LimitRange",
            Self::ResourceQuota => "ResourceQuota",
            Self::RuntimeClass => "RuntimeClass",
            Self::ClusterQueue => "ClusterQueue",
            Self::LocalQueue => "LocalQueue",
            Self::ResourceFlavor => "ResourceFlavor",
            Self::Cohort => "Cohort",
            Self::KueueWorkload => "Workload.kueue.x-k8s.io",
            Self::WorkloadPriorityClass => "WorkloadPriorityClass",
            Self::AdmissionCheck => "AdmissionCheck",
            Self::Topology => "Topology",
            Self::VolcanoPodGroup => "PodGroup.scheduling.volcano.sh",
            Self::VolcanoQueue => "Queue.scheduling.volcano.sh",
            Self::VolcanoJob => "Job.batch.volcano.sh",
            Self::YunikornTaskGroup => "TaskGroup.yunikorn.apache.org",
            Self::Other(kind) => kind,
        }
    }

    /// The kind named exactly `kind` (as in an object's `kind` field).
    pub(crate) fn parse(kind: &str) -> Self {
        Self::KNOWN
            .iter()
            .find(|k| k.as_str() == kind)
            .cloned()
            .unwrap_or_else(|| Self::Other(kind.to_owned()))
    }

    /// The kind as an object's `kind` field spells it (`Workload` for both Workloads).
    pub(crate) fn kind_name(&self) -> &str {
        match self {
            Self::KueueWorkload => "Workload",
            Self::VolcanoPodGroup => "PodGroup",
            Self::VolcanoQueue => "Queue",
            Self::VolcanoJob => "Job",
            Self::YunikornTaskGroup => "TaskGroup",
            other => other.as_str(),
        }
    }

    /// The API group (`""` for the core group, `None` for a kind wasctl does not know).
    pub(crate) fn group(&self) -> Option<&'static str> {
        Some(match self {
            Self::Pod | Self::Node | Self::Namespace | Self::LimitRange | Self::ResourceQuota => "",
            Self::PodGroup | Self::CompositePodGroup | Self::Workload | Self::PriorityClass => {
                "scheduling.k8s.io"
            }
            Self::Job => "batch",
            Self::ResourceClaim
            | Self::ResourceClaimTemplate
            | Self::ResourceSlice
            | Self::DeviceClass
            | Self::DeviceTaintRule => "resource.k8s.io",
            Self::PodDisruptionBudget => "policy",
            Self::RuntimeClass => "node.k8s.io",
            Self::ClusterQueue
            | Self::LocalQueue
            | Self::ResourceFlavor
            | Self::Cohort
            | Self::KueueWorkload
            | Self::WorkloadPriorityClass
            | Self::AdmissionCheck
            | Self::Topology => super::kueue::GROUP,
            Self::VolcanoPodGroup | Self::VolcanoQueue => super::volcano::GROUP,
            Self::VolcanoJob => super::volcano::JOB_GROUP,
            Self::YunikornTaskGroup => "yunikorn.apache.org",
            Self::Other(_) => return None,
        })
    }

    /// How `kubectl get -o name` spells the kind: lowercase, then `.GROUP` unless it is the
    /// core group (`pod`, `job.batch`, `podgroup.scheduling.k8s.io`,
    /// `workload.kueue.x-k8s.io`).
    pub(crate) fn kubectl_name(&self) -> String {
        let kind = self.kind_name().to_ascii_lowercase();
        match self.group() {
            Some("") | None => kind,
            Some(group) => format!("{kind}.{group}"),
        }
    }

    /// True for kinds without a namespace.
    pub(crate) fn is_cluster_scoped(&self) -> bool {
        matches!(
            self,
            Self::Node
                | Self::Namespace
                | Self::ResourceSlice
                | Self::DeviceClass
                | Self::DeviceTaintRule
                | Self::PriorityClass
                | Self::RuntimeClass
                | Self::ClusterQueue
                | Self::ResourceFlavor
                | Self::Cohort
                | Self::WorkloadPriorityClass
                | Self::AdmissionCheck
                | Self::Topology
                | Self::VolcanoQueue
        )
    }

    /// The resource name kubectl takes (`podgroups`, `clusterqueues`,
    /// `workloads.kueue.x-k8s.io`).
    pub(crate) fn plural(&self) -> String {
        match self {
            Self::KueueWorkload => "workloads.kueue.x-k8s.io".to_owned(),
            Self::VolcanoPodGroup => "podgroups.scheduling.volcano.sh".to_owned(),
            Self::VolcanoQueue => "queues.scheduling.volcano.sh".to_owned(),
            Self::VolcanoJob => "jobs.batch.volcano.sh".to_owned(),
            Self::YunikornTaskGroup => "taskgroups.yunikorn.apache.org".to_owned(),
            Self::PodDisruptionBudget => "poddisruptionbudgets".to_owned(),
            Self::PriorityClass | Self::WorkloadPriorityClass => {
                format!("{}es", self.as_str().to_ascii_lowercase())
            }
            other => format!("{}s", other.as_str().to_ascii_lowercase()),
        }
    }

    /// True for Kueue's kinds (`kueue.x-k8s.io`).
    pub(crate) fn is_kueue(&self) -> bool {
        self.group() == Some(super::kueue::GROUP)
    }

    /// The scheduler that places the pods of a gang of this kind, when it is not
    /// kube-scheduler (`volcano`, `yunikorn`).
    pub(crate) fn other_scheduler(&self) -> Option<&'static str> {
        match self {
            Self::VolcanoPodGroup | Self::VolcanoQueue | Self::VolcanoJob => {
                Some(super::volcano::SCHEDULER_NAME)
            }
            Self::YunikornTaskGroup => Some(super::yunikorn::SCHEDULER_NAME),
            _ => None,
        }
    }

    /// True for the kinds the simulator queues as units of their own: PodGroups and
    /// CompositePodGroups (a pod outside any group is a unit too, but not a group).
    pub(crate) fn is_group(&self) -> bool {
        matches!(self, Self::PodGroup | Self::CompositePodGroup)
    }
}

impl From<&str> for ObjKind {
    fn from(kind: &str) -> Self {
        Self::parse(kind)
    }
}

impl fmt::Display for ObjKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for ObjKind {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ObjKind {}

impl std::hash::Hash for ObjKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for ObjKind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// By name, as the strings were ordered before the type existed.
impl Ord for ObjKind {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Serialize for ObjKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ObjKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let kind = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Self::parse(&kind))
    }
}

/// A reference to one object by kind, namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjRef {
    /// Kind, e.g. `PodGroup`.
    pub kind: ObjKind,
    /// Namespace (empty for cluster-scoped objects).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl ObjRef {
    /// Builds a reference.
    pub fn new(kind: ObjKind, namespace: &str, name: &str) -> Self {
        Self {
            kind,
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        }
    }
}

impl fmt::Display for ObjRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{}/{}", self.kind, self.name)
        } else {
            write!(f, "{}/{}/{}", self.kind, self.namespace, self.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_kinds_are_kept() {
        for k in ObjKind::KNOWN {
            assert_eq!(ObjKind::parse(k.as_str()), k);
        }
        assert_eq!(
            ObjKind::parse("JobSet"),
            ObjKind::Other("JobSet".to_owned())
        );
        // Case matters, as in an object's `kind` field.
        assert_eq!(
            ObjKind::parse("podgroup"),
            ObjKind::Other("podgroup".to_owned())
        );
        let json = serde_json::to_string(&ObjKind::CompositePodGroup).unwrap();
        assert_eq!(json, "\"CompositePodGroup\"");
        let back: ObjKind = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ObjKind::CompositePodGroup);
    }

    #[test]
    fn the_kueue_workload_is_never_the_native_one() {
        let kueue = ObjKind::parse("Workload.kueue.x-k8s.io");
        assert_eq!(kueue, ObjKind::KueueWorkload);
        assert_ne!(kueue, ObjKind::Workload);
        assert_eq!(kueue.kind_name(), "Workload");
        assert_eq!(kueue.group(), Some("kueue.x-k8s.io"));
        assert_eq!(ObjKind::parse("Workload"), ObjKind::Workload);
        // The graph's name for a clashing foreign kind is the same identity.
        assert_eq!(
            ObjKind::Other("Workload.kueue.x-k8s.io".to_owned()),
            ObjKind::KueueWorkload
        );
        assert_eq!(ObjKind::parse("ClusterQueue"), ObjKind::ClusterQueue);
        assert!(ObjKind::LocalQueue.is_kueue() && !ObjKind::Workload.is_kueue());
    }

    #[test]
    fn volcanos_pod_group_is_never_the_native_one() {
        let v = ObjKind::parse("PodGroup.scheduling.volcano.sh");
        assert_eq!(v, ObjKind::VolcanoPodGroup);
        assert_ne!(v, ObjKind::PodGroup);
        assert_eq!(v.kind_name(), "PodGroup");
        assert_eq!(v.kubectl_name(), "podgroup.scheduling.volcano.sh");
        assert_eq!(
            ObjKind::PodGroup.kubectl_name(),
            "podgroup.scheduling.k8s.io"
        );
        assert_eq!(v.plural(), "podgroups.scheduling.volcano.sh");
        assert!(ObjKind::VolcanoQueue.is_cluster_scoped());
        assert_eq!(
            ObjKind::YunikornTaskGroup.other_scheduler(),
            Some("yunikorn")
        );
        assert_eq!(ObjKind::PodGroup.other_scheduler(), None);
    }

    #[test]
    fn ordered_by_name_as_strings_were() {
        let mut kinds = [
            ObjKind::Workload,
            ObjKind::Pod,
            ObjKind::Other("JobSet".to_owned()),
            ObjKind::PodGroup,
            ObjKind::CompositePodGroup,
        ];
        kinds.sort();
        let names: Vec<&str> = kinds.iter().map(ObjKind::as_str).collect();
        assert_eq!(
            names,
            ["CompositePodGroup", "JobSet", "Pod", "PodGroup", "Workload"]
        );
    }
}
