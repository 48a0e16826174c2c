//! Seeded synthetic clusters: nodes in racks and zones, running pods, pending basic pods and
//! pending gangs, and high-priority preemptors, as Kubernetes JSON. Used by the criterion
//! benches (performance.md B1–B6) and tests; the same seed always yields the same cluster.

use serde_json::{Value, json};

use crate::snapshot::Snapshot;
use crate::snapshot::source::Collector;

/// What to generate.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Number of nodes (each 64 cpu, 512 GiB, 110 pods, 8 GPUs).
    pub nodes: usize,
    /// Nodes per rack (racks are grouped 4 to a zone).
    pub nodes_per_rack: usize,
    /// Running pods, spread over the nodes.
    pub running_pods: usize,
    /// When not 0, the running pods are members of running basic PodGroups of this many pods
    /// (`run-group-NNNNN`), so that `tree` lists every one of them (the TUI's scale bench).
    pub running_group_size: usize,
    /// Pending pods without a group.
    pub pending_pods: usize,
    /// Pending gangs: (number of gangs, pods per gang).
    pub gangs: Vec<(usize, usize)>,
    /// Gangs (pending and preemptor) get a rack topology constraint.
    pub rack_constraint: bool,
    /// DRA devices per node (one ResourceSlice per node, driver `gpu.example.com`).
    pub devices_per_node: usize,
    /// Pending pods that each need one device through a ResourceClaimTemplate.
    pub claim_pods: usize,
    /// Running pods per node that each hold one of the node's devices through an allocated
    /// ResourceClaim (`run-NNNNNN-gpu`); at most `devices_per_node`.
    pub running_claims_per_node: usize,
    /// Preemptor gang members each need one device through the ResourceClaimTemplate.
    pub preemptor_claims: bool,
    /// `spec.priority` of the running pods.
    pub running_priority: i32,
    /// Pending pods without a group, at `preemptor_priority`, each requesting
    /// `preemptor_cpu` cpu (more than a node with running pods has free: they need preemption).
    pub preemptor_pods: usize,
    /// Pending gangs at `preemptor_priority`: (number of gangs, pods per gang); every member
    /// requests `preemptor_cpu` cpu and the gang's minCount is its size.
    pub preemptor_gangs: Vec<(usize, usize)>,
    /// Priority of the preemptor pods and gangs.
    pub preemptor_priority: i32,
    /// CPU each preemptor pod requests (nodes have 64).
    pub preemptor_cpu: u64,
}

impl Profile {
    /// `nodes` nodes, 30 running pods per node, nothing pending.
    pub fn with_nodes(nodes: usize) -> Self {
        Self {
            nodes,
            nodes_per_rack: 16,
            running_pods: nodes * 30,
            running_group_size: 0,
            pending_pods: 0,
            gangs: Vec::new(),
            rack_constraint: false,
            devices_per_node: 0,
            claim_pods: 0,
            running_claims_per_node: 0,
            preemptor_claims: false,
            running_priority: 0,
            preemptor_pods: 0,
            preemptor_gangs: Vec::new(),
            preemptor_priority: 1000,
            preemptor_cpu: 62,
        }
    }
}

/// A small deterministic generator (xorshift64*), so benches need no extra crates.
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next value below `n` (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

const T0: &str = "2026-11-20T00:00:00Z";

fn node(i: usize, per_rack: usize) -> Value {
    let rack = i / per_rack.max(1);
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": format!("node-{i:05}"), "labels": {
            "kubernetes.io/hostname": format!("node-{i:05}"),
            "topology.kubernetes.io/rack": format!("rack-{rack:04}"),
            "topology.kubernetes.io/zone": format!("zone-{}", rack / 4),
            "nvidia.com/gpu.product": if i.is_multiple_of(3) { "A100" } else { "H100" }}},
        "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": "8"}}})
}

#[allow(
    clippy::too_many_arguments,
    reason = "a flat builder keeps the generator readable"
)]
fn pod(
    name: &str,
    ns: &str,
    cpu: u64,
    mem_gi: u64,
    gpu: u64,
    node: Option<String>,
    group: Option<&str>,
    minute: u64,
) -> Value {
    let mut requests = json!({"cpu": format!("{cpu}"), "memory": format!("{mem_gi}Gi")});
    let mut container = json!({"name": "main", "image": "registry.example/train:1"});
    if gpu > 0 {
        requests["nvidia.com/gpu"] = json!(gpu.to_string());
        container["resources"] =
            json!({"requests": requests, "limits": {"nvidia.com/gpu": gpu.to_string()}});
    } else {
        container["resources"] = json!({"requests": requests});
    }
    let mut spec = json!({"containers": [container], "priority": 0});
    if let Some(n) = &node {
        spec["nodeName"] = json!(n);
    }
    if let Some(g) = group {
        spec["schedulingGroup"] = json!({"podGroupName": g});
    }
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": "synthetic"},
            "creationTimestamp": format!("2026-11-20T{:02}:{:02}:00Z", (minute / 60) % 24, minute % 60)},
        "spec": spec,
        "status": {"phase": if node.is_some() { "Running" } else { "Pending" }}})
}

/// The cluster's objects as JSON values.
pub(crate) fn objects(p: &Profile, seed: u64) -> Vec<Value> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(p.nodes + p.running_pods + p.pending_pods + 1);
    out.push(json!({"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts", "snapshotTime": T0,
        "serverVersion": "v1.37.0", "components": [{"component": "kube-scheduler", "version": "v1.37.0",
        "featureGates": {"GenericWorkload": true, "CompositePodGroup": true, "TopologyAwareWorkloadScheduling": true,
            "DRAWorkloadResourceClaims": true, "PodGroupPreemptionPolicy": true}}]}));
    for i in 0..p.nodes {
        out.push(node(i, p.nodes_per_rack));
    }
    push_running_pods(p, &mut rng, &mut out);
    for i in 0..p.pending_pods {
        out.push(pod(
            &format!("pend-{i:06}"),
            "default",
            1,
            1 + rng.below(2),
            0,
            None,
            None,
            1 + rng.below(600),
        ));
    }
    push_devices(p, &mut out);
    for i in 0..p.claim_pods {
        let mut v = pod(
            &format!("claim-{i:06}"),
            "default",
            1,
            1,
            0,
            None,
            None,
            1 + rng.below(600),
        );
        v["spec"]["resourceClaims"] =
            json!([{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]);
        out.push(v);
    }
    push_gangs(p, &mut rng, &mut out);
    // Preemptors come last so the objects above do not depend on them.
    push_preemptors(p, &mut rng, &mut out);
    out
}

/// The running pods, round-robin over the nodes: in PodGroups of `running_group_size` (each
/// PodGroup before its first member) and, for the first `running_claims_per_node` pods of
/// each node, with an allocated claim on one of its devices (the claim before the pod).
fn push_running_pods(p: &Profile, rng: &mut Rng, out: &mut Vec<Value>) {
    for i in 0..p.running_pods {
        let n = (i % p.nodes.max(1)) + p.nodes * usize::from(p.nodes == 0);
        let group = (p.running_group_size > 0).then(|| {
            let name = format!("run-group-{:05}", i / p.running_group_size);
            if i % p.running_group_size == 0 {
                out.push(
                    json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                    "metadata": {"name": name, "namespace": "default", "creationTimestamp": T0},
                    "spec": {"schedulingPolicy": {"basic": {}}, "priority": 0}}),
                );
            }
            name
        });
        let mut v = pod(
            &format!("run-{i:06}"),
            "default",
            1 + rng.below(2),
            1 + rng.below(4),
            0,
            Some(format!("node-{n:05}")),
            group.as_deref(),
            0,
        );
        if p.running_priority != 0 {
            v["spec"]["priority"] = json!(p.running_priority);
        }
        let slot = i / p.nodes.max(1);
        if slot < p.running_claims_per_node.min(p.devices_per_node) {
            let claim = format!("run-{i:06}-gpu");
            v["spec"]["resourceClaims"] = json!([{"name": "gpu", "resourceClaimName": claim}]);
            out.push(json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": claim, "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
                "status": {"allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                    "pool": format!("node-{n:05}"), "device": format!("gpu-{slot}")}]}},
                    "reservedFor": [{"resource": "pods", "name": format!("run-{i:06}"), "uid": format!("uid-run-{i:06}")}]}}));
        }
        out.push(v);
    }
}

/// With devices on the nodes: the DeviceClass, the one-GPU claim template (copied into the
/// preemptors' namespace when they use it), and one ResourceSlice per node.
fn push_devices(p: &Profile, out: &mut Vec<Value>) {
    if p.devices_per_node > 0 {
        out.push(json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == \"gpu.example.com\""}}]}}));
        out.push(json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one-gpu", "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com",
                "selectors": [{"cel": {"expression": "device.attributes[\"gpu.example.com\"].model == \"H100\""}}]}}]}}}}));
        if p.preemptor_claims {
            // The preemptor gangs' namespace has its own copy of the template.
            let mut t = out[out.len() - 1].clone();
            t["metadata"]["namespace"] = json!("train");
            out.push(t);
        }
        for i in 0..p.nodes {
            let devices: Vec<Value> = (0..p.devices_per_node)
                .map(|d| json!({"name": format!("gpu-{d}"), "attributes": {"model": {"string": "H100"}, "index": {"int": d}},
                    "capacity": {"memory": {"value": "80Gi"}}}))
                .collect();
            out.push(json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": {"name": format!("node-{i:05}-gpu")},
                "spec": {"driver": "gpu.example.com", "nodeName": format!("node-{i:05}"),
                    "pool": {"name": format!("node-{i:05}"), "generation": 1, "resourceSliceCount": 1}, "devices": devices}}));
        }
    }
}

/// The pending gangs: per (count, size), `count` PodGroups of `size` one-GPU members in
/// namespace `train`, rack-constrained when the profile says so.
fn push_gangs(p: &Profile, rng: &mut Rng, out: &mut Vec<Value>) {
    let mut g = 0;
    for (count, size) in &p.gangs {
        for _ in 0..*count {
            let name = format!("gang-{g:05}");
            let mut spec = json!({"schedulingPolicy": {"gang": {"minCount": size}}, "priority": 0});
            if p.rack_constraint {
                spec["schedulingConstraints"] =
                    json!({"topology": [{"key": "topology.kubernetes.io/rack"}]});
            }
            out.push(json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "train", "creationTimestamp": T0}, "spec": spec}));
            for m in 0..*size {
                out.push(pod(
                    &format!("{name}-{m}"),
                    "train",
                    4,
                    16,
                    1,
                    None,
                    Some(&name),
                    1 + rng.below(600),
                ));
            }
            g += 1;
        }
    }
}

/// The high-priority preemptors: single pods, then gangs (with the claim template when
/// `preemptor_claims`).
fn push_preemptors(p: &Profile, rng: &mut Rng, out: &mut Vec<Value>) {
    for i in 0..p.preemptor_pods {
        let mut v = pod(
            &format!("preemptor-{i:06}"),
            "default",
            p.preemptor_cpu,
            1,
            0,
            None,
            None,
            1 + rng.below(600),
        );
        v["spec"]["priority"] = json!(p.preemptor_priority);
        out.push(v);
    }
    let mut g = 0;
    for (count, size) in &p.preemptor_gangs {
        for _ in 0..*count {
            let name = format!("urgent-{g:05}");
            let mut spec = json!({"schedulingPolicy": {"gang": {"minCount": size}}, "priority": p.preemptor_priority});
            if p.rack_constraint {
                spec["schedulingConstraints"] =
                    json!({"topology": [{"key": "topology.kubernetes.io/rack"}]});
            }
            out.push(json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "train", "creationTimestamp": T0}, "spec": spec}));
            for m in 0..*size {
                let mut v = pod(
                    &format!("{name}-{m}"),
                    "train",
                    p.preemptor_cpu,
                    1,
                    0,
                    None,
                    Some(&name),
                    1 + rng.below(600),
                );
                v["spec"]["priority"] = json!(p.preemptor_priority);
                if p.preemptor_claims {
                    v["spec"]["resourceClaims"] =
                        json!([{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]);
                }
                out.push(v);
            }
            g += 1;
        }
    }
}

/// The cluster as one JSON `List` (what `kubectl get -o json` prints), for load benches.
pub fn json_text(p: &Profile, seed: u64) -> String {
    json!({"apiVersion": "v1", "kind": "List", "items": objects(p, seed)}).to_string()
}

/// The cluster as a snapshot.
pub fn snapshot(p: &Profile, seed: u64) -> Snapshot {
    let mut c = Collector::new();
    for o in objects(p, seed) {
        // Generated objects always fit their types.
        c.add(o).expect("synthetic objects are valid");
    }
    c.finish()
}

/// One watch event of [`churn`]: what [`crate::snapshot::source::watch::apply`] takes.
#[derive(Debug, Clone)]
pub struct Event {
    /// The object's `apiVersion`.
    pub api_version: &'static str,
    /// Its `kind`.
    pub kind: &'static str,
    /// The object, as JSON text.
    pub object: String,
    /// A `DELETED` event.
    pub deleted: bool,
}

/// `count` scripted watch events on the cluster of `p` (a pod's life and a node's cordon,
/// in a cycle of six): a pending pod `churn-NNNNNNN` created, then bound to a node; a
/// running pod deleted, then created again on its node; the churn pod deleted; a node
/// cordoned (uncordoned on the next round over the nodes). The cluster's size stays the
/// same however many events are played, so memory under churn can be measured.
pub fn churn(p: &Profile, count: usize) -> Vec<Event> {
    (0..count).map(|t| churn_event(p, t)).collect()
}

/// The `t`-th event of [`churn`].
pub fn churn_event(p: &Profile, t: usize) -> Event {
    let c = t / 6;
    let nodes = p.nodes.max(1);
    let churn_pod = |node: Option<String>| {
        pod(
            &format!("churn-{c:07}"),
            "default",
            1,
            1,
            0,
            node,
            None,
            (c % 600) as u64,
        )
    };
    let running = c % p.running_pods.max(1);
    let (kind, object, deleted) = match t % 6 {
        0 => ("Pod", churn_pod(None), false),
        1 => (
            "Pod",
            churn_pod(Some(format!("node-{:05}", c % nodes))),
            false,
        ),
        2 | 3 => {
            let v = pod(
                &format!("run-{running:06}"),
                "default",
                1,
                2,
                0,
                Some(format!("node-{:05}", running % nodes)),
                None,
                0,
            );
            ("Pod", v, t % 6 == 2)
        }
        4 => ("Pod", churn_pod(None), true),
        _ => {
            let mut v = node(c % nodes, p.nodes_per_rack);
            v["spec"] = json!({"unschedulable": (c / nodes).is_multiple_of(2)});
            ("Node", v, false)
        }
    };
    Event {
        api_version: "v1",
        kind,
        object: object.to_string(),
        deleted,
    }
}

/// Applies `e` to `s` as `--watch` does ([`crate::snapshot::source::watch::apply`]: the
/// object upserted or removed, the index updated in place); true when a kept record changed.
/// An event that does not fit its type is an error naming it.
pub fn apply_event(s: &mut Snapshot, e: &Event) -> Result<bool, String> {
    crate::snapshot::source::watch::apply(s, e.api_version, e.kind, &e.object, e.deleted)
        .map(|a| a != crate::snapshot::source::watch::Applied::Same)
}

/// What `--watch` does after a batch of events: refreshes what is derived from the objects
/// from what the events touched ([`Snapshot::after_objects_changed`]).
pub fn refresh_in_place(s: &mut Snapshot) {
    s.after_objects_changed();
}

/// What `--watch` did before the index was kept in place: everything derived from the
/// objects built again, the index too ([`Snapshot::after_objects_replaced`]).
pub fn refresh_rebuild(s: &mut Snapshot) {
    s.after_objects_replaced();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_cluster_and_it_simulates() {
        let p = Profile {
            pending_pods: 20,
            gangs: vec![(3, 3)],
            rack_constraint: true,
            ..Profile::with_nodes(32)
        };
        assert_eq!(json_text(&p, 7), json_text(&p, 7));
        let s = snapshot(&p, 7);
        assert_eq!(s.nodes.len(), 32);
        assert_eq!(s.pod_groups.len(), 3);
        let plan = crate::sched::simulate(&s, &crate::sched::Options::default());
        assert_eq!(plan.summary.scheduled, 23, "{:#?}", plan.summary);
    }

    #[test]
    fn running_groups_hold_every_running_pod() {
        let p = Profile {
            running_pods: 25,
            running_group_size: 10,
            ..Profile::with_nodes(4)
        };
        let s = snapshot(&p, 1);
        assert_eq!(s.pod_groups.len(), 3);
        let grouped = s
            .pods
            .iter()
            .filter(|pod| {
                pod.spec
                    .as_ref()
                    .is_some_and(|spec| spec.scheduling_group.is_some())
            })
            .count();
        assert_eq!(grouped, 25);
        let plan = crate::sched::simulate(&s, &crate::sched::Options::default());
        assert!(
            plan.units.is_empty(),
            "nothing is pending: {:#?}",
            plan.units
        );
    }

    #[test]
    fn preemptor_profile_needs_preemption() {
        let p = Profile {
            running_pods: 32,
            running_priority: 10,
            preemptor_pods: 1,
            preemptor_gangs: vec![(1, 3)],
            ..Profile::with_nodes(8)
        };
        let plan = crate::sched::simulate(&snapshot(&p, 1), &crate::sched::Options::default());
        assert_eq!(plan.summary.preempting, 2, "{:#?}", plan.units);
        assert!(plan.units.iter().all(|u| !u.victims.is_empty()));
    }

    #[test]
    fn dra_profile_fills_every_device_once() {
        let p = Profile {
            running_pods: 0,
            devices_per_node: 2,
            claim_pods: 9,
            ..Profile::with_nodes(4)
        };
        let plan = crate::sched::simulate(&snapshot(&p, 1), &crate::sched::Options::default());
        assert_eq!(
            plan.summary.scheduled, 8,
            "4 nodes × 2 devices: {:#?}",
            plan.summary
        );
        assert_eq!(plan.summary.unschedulable, 1);
        let mut devices: Vec<String> = plan
            .units
            .iter()
            .flat_map(|u| {
                u.placements
                    .iter()
                    .flat_map(|p| p.devices.iter().map(|d| format!("{}/{}", d.pool, d.device)))
            })
            .collect();
        devices.sort();
        devices.dedup();
        assert_eq!(devices.len(), 8, "no device is handed out twice");
    }
}
