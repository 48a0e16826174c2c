//! Feature gates proven by the objects themselves.
//!
//! kube-apiserver drops the fields of a disabled gate on write and does not serve the API of a
//! disabled group version, so an object that carries such a field, or exists in such a version,
//! proves that kube-apiserver had the gate on when the object was written. A dump made with
//! `kubectl get … -o yaml` carries no `ClusterFacts`, but its objects carry this evidence.
//! (Upstream: the `dropDisabled…Fields` helpers of `pkg/api/pod/util.go`,
//! `pkg/registry/scheduling/podgroup/strategy.go` and `pkg/registry/batch/job/strategy.go`, and
//! the storage of `scheduling.k8s.io/v1beta1` in `pkg/controlplane`, which is enabled with
//! `GenericWorkload`.) Pure: no IO.

use std::collections::BTreeMap;

use super::index::PodEvidence;
use super::{Snapshot, name_of, namespace_of};

/// Gate name → the sentence that proves it on (`inferred from 12 PodGroups in …`).
pub(crate) type Evidence = BTreeMap<String, String>;

fn count_phrase(n: usize, one: &str, many: &str) -> String {
    if many.is_empty() {
        one.to_owned()
    } else if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The gates kube-apiserver must have on for `s`'s objects to exist, each with its evidence.
pub(crate) fn apiserver_gates(s: &Snapshot) -> Evidence {
    apiserver_gates_with(s, PodEvidence::count(&s.pods))
}

/// [`apiserver_gates`] with the pods' part already counted (the index keeps the counts
/// current as watch events come, so a batch of events does not read every pod again).
pub(crate) fn apiserver_gates_with(s: &Snapshot, pods: PodEvidence) -> Evidence {
    let mut found = Found::default();
    generic_workload_evidence(s, pods, &mut found);
    pod_group_field_evidence(s, &mut found);
    node_allocatable_evidence(s, pods, &mut found);
    found
        .0
        .into_iter()
        .map(|(gate, why)| (gate.to_owned(), format!("inferred from {}", why.join(", "))))
        .collect()
}

/// Evidence phrases by gate, in the order they were found.
#[derive(Default)]
struct Found(BTreeMap<&'static str, Vec<String>>);

impl Found {
    /// Records `n` objects of one sort as evidence for `gate`; nothing when `n` is 0.
    fn add(&mut self, gate: &'static str, n: usize, one: &str, many: &str) {
        if n > 0 {
            self.0
                .entry(gate)
                .or_default()
                .push(count_phrase(n, one, many));
        }
    }
}

/// GenericWorkload: PodGroups and Workloads read as `v1beta1` (not converted from another
/// version), pods with `spec.schedulingGroup`, and discovery serving `v1beta1`.
fn generic_workload_evidence(s: &Snapshot, pods: PodEvidence, found: &mut Found) {
    let read_as_beta = |kind: &str, ns: &str, name: &str| {
        !s.read_as
            .contains_key(&(kind.to_owned(), ns.to_owned(), name.to_owned()))
    };
    let beta_groups = s
        .pod_groups
        .iter()
        .filter(|p| read_as_beta("PodGroup", namespace_of(&p.metadata), name_of(&p.metadata)))
        .count();
    let beta_workloads = s
        .workloads
        .iter()
        .filter(|w| read_as_beta("Workload", namespace_of(&w.metadata), name_of(&w.metadata)))
        .count();
    found.add(
        "GenericWorkload",
        beta_groups,
        "PodGroup in scheduling.k8s.io/v1beta1",
        "PodGroups in scheduling.k8s.io/v1beta1",
    );
    found.add(
        "GenericWorkload",
        beta_workloads,
        "Workload in scheduling.k8s.io/v1beta1",
        "Workloads in scheduling.k8s.io/v1beta1",
    );
    let grouped_pods = pods.grouped;
    found.add(
        "GenericWorkload",
        grouped_pods,
        "pod with spec.schedulingGroup",
        "pods with spec.schedulingGroup",
    );
    let served = s
        .facts
        .served_versions
        .get("scheduling.k8s.io")
        .is_some_and(|v| v.iter().any(|v| v == "v1beta1"));
    found.add(
        "GenericWorkload",
        usize::from(served),
        "discovery: the server serves scheduling.k8s.io/v1beta1",
        "",
    );
}

/// The gates PodGroup, CompositePodGroup and Job fields need: schedulingConstraints,
/// resourceClaims, preemptionPolicy, a parent CompositePodGroup, a Job's `spec.scheduling`.
fn pod_group_field_evidence(s: &Snapshot, found: &mut Found) {
    let constrained = s
        .pod_groups
        .iter()
        .filter(|p| p.spec.scheduling_constraints.is_some())
        .count();
    found.add(
        "TopologyAwareWorkloadScheduling",
        constrained,
        "PodGroup with schedulingConstraints",
        "PodGroups with schedulingConstraints",
    );
    let with_claims = s
        .pod_groups
        .iter()
        .filter(|p| {
            p.spec
                .resource_claims
                .as_ref()
                .is_some_and(|c| !c.is_empty())
        })
        .count();
    found.add(
        "DRAWorkloadResourceClaims",
        with_claims,
        "PodGroup with spec.resourceClaims",
        "PodGroups with spec.resourceClaims",
    );
    let with_policy = s
        .pod_groups
        .iter()
        .filter(|p| p.spec.preemption_policy.is_some())
        .count();
    found.add(
        "PodGroupPreemptionPolicy",
        with_policy,
        "PodGroup with preemptionPolicy",
        "PodGroups with preemptionPolicy",
    );
    found.add(
        "CompositePodGroup",
        s.composite_pod_groups.len(),
        "CompositePodGroup",
        "CompositePodGroups",
    );
    let with_parent = s
        .pod_groups
        .iter()
        .filter(|p| p.spec.parent_composite_pod_group_name.is_some())
        .count();
    found.add(
        "CompositePodGroup",
        with_parent,
        "PodGroup with parentCompositePodGroupName",
        "PodGroups with parentCompositePodGroupName",
    );
    let with_scheduling = s
        .jobs
        .iter()
        .filter(|j| j.spec.as_ref().is_some_and(|sp| sp.scheduling.is_some()))
        .count();
    found.add(
        "WorkloadWithJob",
        with_scheduling,
        "Job with spec.scheduling",
        "Jobs with spec.scheduling",
    );
}

/// DRANodeAllocatableResources: ResourceSlice devices with `nodeAllocatableResources` and pods
/// with recorded node-allocatable claim statuses.
fn node_allocatable_evidence(s: &Snapshot, pods: PodEvidence, found: &mut Found) {
    // KEP-5517: kube-apiserver drops `nodeAllocatableResources` from ResourceSlice devices and
    // `status.nodeAllocatableResourceClaimStatuses` from pods unless DRANodeAllocatableResources
    // is on.
    let mapped_slices = s
        .resource_slices
        .iter()
        .filter(|r| {
            r.spec.devices.iter().flatten().any(|d| {
                d.node_allocatable_resources
                    .as_ref()
                    .is_some_and(|m| !m.is_empty())
            })
        })
        .count();
    found.add(
        "DRANodeAllocatableResources",
        mapped_slices,
        "ResourceSlice with nodeAllocatableResources",
        "ResourceSlices with nodeAllocatableResources",
    );
    let charged_pods = pods.charged;
    found.add(
        "DRANodeAllocatableResources",
        charged_pods,
        "pod with status.nodeAllocatableResourceClaimStatuses",
        "pods with status.nodeAllocatableResourceClaimStatuses",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::Collector;

    fn load(yaml: &str) -> Snapshot {
        let mut c = Collector::new();
        crate::snapshot::source::files::load_str(yaml, "<test>", &mut c).expect("loads");
        c.finish()
    }

    #[test]
    fn pod_groups_in_v1beta1_prove_generic_workload() {
        let s = load(
            "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: a, namespace: x}\nspec:\n  schedulingPolicy: {gang: {minCount: 2}}\n  schedulingConstraints: {topology: [{key: rack}]}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: b, namespace: x}\nspec:\n  schedulingPolicy: {basic: {}}\n",
        );
        let e = apiserver_gates(&s);
        assert_eq!(
            e.get("GenericWorkload").map(String::as_str),
            Some("inferred from 2 PodGroups in scheduling.k8s.io/v1beta1")
        );
        assert_eq!(
            e.get("TopologyAwareWorkloadScheduling").map(String::as_str),
            Some("inferred from 1 PodGroup with schedulingConstraints")
        );
        assert!(!e.contains_key("CompositePodGroup"));
    }

    #[test]
    fn nodes_and_plain_pods_prove_nothing() {
        let s = load(
            "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus:\n  nodeInfo: {kubeletVersion: v1.37.0, machineID: m, systemUUID: s, bootID: b, kernelVersion: k, osImage: o, containerRuntimeVersion: c, kubeProxyVersion: p, operatingSystem: linux, architecture: amd64}\n",
        );
        assert!(apiserver_gates(&s).is_empty());
    }
}
