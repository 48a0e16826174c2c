//! DRA node-allocatable resources (KEP-5517; gate `DRANodeAllocatableResources`, alpha, off by
//! default in 1.37).
//!
//! A device's `nodeAllocatableResources` says what it costs the node in cpu, memory, hugepages
//! or ephemeral storage:
//! - `mapping` (the device *is* such a resource, e.g. a CPU driver's socket): per claim,
//!   `consumedCapacity[capacityKey] × capacityMultiplier` (1 when unset), or `deviceMultiplier`
//!   per allocated device; counted once for the pod. A claim with a mapped device cannot be
//!   shared by two pods.
//! - `overhead` (host memory a GPU needs, …): `perPod` once per pod, `perContainer` once per
//!   container that references the claim.
//!
//! Upstream (v1.37): `pkg/scheduler/framework/plugins/dynamicresources/nodeallocatable.go` —
//! `calculateAndCheckNodeAllocatableResources` (the DynamicResources Filter, after the claims
//! are allocated on the node), `buildNodeAllocatableDRAInfo`, `addDeviceMapping`,
//! `addDeviceOverhead`, `validateNodeAllocatableDRAClaimSharing`,
//! `validatePodLevelResourcesCoverDRA`, `nodeFitsResources` — and
//! `k8s.io/component-helpers/resource/helpers.go` (`getDRANodeAllocatableResources`,
//! `aggregateContainerResourcesByFn`: mapping and `perPod` are charged for the pod's whole
//! life, `perContainer` with the container that references the claim, so a non-restartable init
//! container's share counts only toward its own peak). The result is what the scheduler writes
//! to the pod's `status.nodeAllocatableResourceClaimStatuses`; a running pod's recorded statuses
//! count on its node as its requests do.
//!
//! Pure.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::NodeAllocatableResourceClaimStatus;
use k8s_openapi::api::resource::v1::NodeAllocatableResource;

use super::allocate::Allocated;
use super::inventory::{Inventory, qualify};
use crate::sched::resources::{
    CPU, EPHEMERAL_STORAGE, MEMORY, Requests, ResourceId, ResourceTable, add_into, max_into,
};
use crate::snapshot::Pod;
use crate::snapshot::quantity::parse_milli;

/// The filter reason (histogram) when a claim with a mapped device is used by a second pod;
/// [`err_shared`] is upstream's full message, naming the claim.
pub(crate) const ERR_SHARED: &str =
    "node allocatable resource claim has a mapped device and cannot be shared across pods";
/// Filter reasons when pod-level requests do not cover containers plus claims.
pub(crate) const ERR_POD_LEVEL_CPU: &str = "pod level request for cpu is insufficient to cover the aggregated container and node-allocatable DRA requests";
/// As [`ERR_POD_LEVEL_CPU`], for memory.
pub(crate) const ERR_POD_LEVEL_MEMORY: &str = "pod level request for memory is insufficient to cover the aggregated container and node-allocatable DRA requests";
/// As [`ERR_POD_LEVEL_CPU`], for hugepages.
pub(crate) const ERR_POD_LEVEL_OTHER: &str = "pod level request for hugepages is insufficient to cover the aggregated container and node-allocatable DRA requests";

/// Upstream's message when a claim with a mapped device is used by a second pod.
pub(crate) fn err_shared(claim: &str) -> String {
    format!(
        "node allocatable resource claim {claim} has a mapped device and cannot be shared across pods"
    )
}

/// Upstream's message when pod-level requests do not cover the containers' and the claims'.
pub(crate) fn err_pod_level(resource: &str) -> String {
    format!(
        "pod level request for {resource} is insufficient to cover the aggregated container and node-allocatable DRA requests"
    )
}

/// One claim's node-allocatable resources for one pod (upstream
/// `v1.NodeAllocatableResourceClaimStatus`), in the simulation's resource ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ClaimFootprint {
    /// The claim.
    pub claim: String,
    /// Containers of the pod that reference it (`resources.claims`).
    pub containers: Vec<String>,
    /// `mapping` totals: charged once for the pod.
    pub mapping: Requests,
    /// `overhead.perPod` totals.
    pub per_pod: Requests,
    /// `overhead.perContainer` totals (per referencing container).
    pub per_container: Requests,
    /// Whether some device of the claim has a `mapping` (the claim cannot be shared).
    pub mapped: bool,
}

/// What a container is to the aggregation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Regular,
    Sidecar,
    Init,
}

#[derive(Debug, Clone)]
struct Container {
    name: String,
    kind: Kind,
    requests: Requests,
}

/// A pod with claims, as the node-allocatable accounting needs it: its containers' own
/// requests, its pod-level requests and overhead, which containers reference which claim entry,
/// and the statuses recorded on it.
#[derive(Debug, Clone, Default)]
pub(crate) struct NaPod {
    containers: Vec<Container>,
    /// Pod-level `spec.resources.requests` of supported resources (cpu, memory, hugepages-*).
    pod_level: Requests,
    overhead: Requests,
    /// Claim entry name (`spec.resourceClaims[].name`) → containers referencing it.
    pub refs: Vec<(String, Vec<String>)>,
    /// `status.nodeAllocatableResourceClaimStatuses`, as recorded.
    pub recorded: Vec<ClaimFootprint>,
}

fn parse_list<'a>(
    table: &mut ResourceTable,
    list: impl Iterator<Item = (&'a String, &'a str)>,
) -> Requests {
    let mut out = Requests::new();
    for (name, q) in list {
        if let Some(v) = ResourceTable::parse(name, q) {
            add_into(&mut out, &[(table.intern(name), v)]);
        }
    }
    out
}

/// Whether pod-level resources support `name` (upstream `IsSupportedPodLevelResource`).
fn pod_level_resource(name: &str) -> bool {
    name == "cpu" || name == "memory" || name.starts_with("hugepages-")
}

/// A recorded status in resource ids.
fn recorded(s: &NodeAllocatableResourceClaimStatus, table: &mut ResourceTable) -> ClaimFootprint {
    let mut fp = ClaimFootprint {
        claim: s.resource_claim_name.clone(),
        containers: s.containers.clone().unwrap_or_default(),
        ..ClaimFootprint::default()
    };
    for m in s.mapping.iter().flatten() {
        fp.mapped = true;
        if let Some(v) = ResourceTable::parse(&m.name, &m.quantity.0) {
            add_into(&mut fp.mapping, &[(table.intern(&m.name), v)]);
        }
    }
    for o in s.overhead.iter().flatten() {
        let id = table.intern(&o.name);
        if let Some(v) = o
            .per_pod
            .as_ref()
            .and_then(|q| ResourceTable::parse(&o.name, &q.0))
        {
            add_into(&mut fp.per_pod, &[(id, v)]);
        }
        if let Some(v) = o
            .per_container
            .as_ref()
            .and_then(|q| ResourceTable::parse(&o.name, &q.0))
        {
            add_into(&mut fp.per_container, &[(id, v)]);
        }
    }
    fp
}

impl NaPod {
    /// Compiles `pod`, interning resource names into `table`.
    pub(crate) fn compile(pod: &Pod, table: &mut ResourceTable) -> Self {
        let mut out = Self::default();
        let Some(spec) = pod.spec.as_ref() else {
            return out;
        };
        let mut containers = Vec::new();
        let init = spec.init_containers.iter().flatten().map(|c| {
            let kind = if c.restart_policy.as_deref() == Some("Always") {
                Kind::Sidecar
            } else {
                Kind::Init
            };
            (c, kind)
        });
        for (c, kind) in init.chain(spec.containers.iter().map(|c| (c, Kind::Regular))) {
            let resources = c.resources.as_ref();
            let requests = parse_list(
                table,
                resources
                    .and_then(|r| r.requests.as_ref())
                    .into_iter()
                    .flatten()
                    .map(|(k, q)| (k, q.0.as_str())),
            );
            for claim in resources
                .and_then(|r| r.claims.as_ref())
                .into_iter()
                .flatten()
            {
                match out.refs.iter_mut().find(|(n, _)| *n == claim.name) {
                    Some((_, list)) => list.push(c.name.clone()),
                    None => out.refs.push((claim.name.clone(), vec![c.name.clone()])),
                }
            }
            containers.push(Container {
                name: c.name.clone(),
                kind,
                requests,
            });
        }
        out.containers = containers;
        out.pod_level = parse_list(
            table,
            spec.resources
                .as_ref()
                .and_then(|r| r.requests.as_ref())
                .into_iter()
                .flatten()
                .filter(|(k, _)| pod_level_resource(k))
                .map(|(k, q)| (k, q.0.as_str())),
        );
        out.overhead = parse_list(
            table,
            spec.overhead
                .iter()
                .flatten()
                .map(|(k, q)| (k, q.0.as_str())),
        );
        out.recorded = pod
            .status
            .as_ref()
            .and_then(|s| s.node_allocatable_resource_claim_statuses.as_ref())
            .into_iter()
            .flatten()
            .map(|s| recorded(s, table))
            .collect();
        out
    }

    /// The containers referencing claim entry `entry`.
    pub(crate) fn containers_of(&self, entry: &str) -> Vec<String> {
        self.refs
            .iter()
            .filter(|(n, _)| n == entry)
            .flat_map(|(_, c)| c.iter().cloned())
            .collect()
    }

    /// Upstream `AggregateContainerRequests` with `UseDRANodeAllocatableResourceClaimStatus`:
    /// containers summed, sidecars and init peaks as for any pod, each container with the
    /// `perContainer` overhead of the claims it references, then mapping and `perPod` (and the
    /// `perContainer` of references to containers the pod lacks) for the whole pod.
    fn container_requests(&self, footprints: &[ClaimFootprint]) -> Requests {
        let mut pod_fixed = Requests::new();
        let mut per_container: BTreeMap<&str, Requests> = BTreeMap::new();
        for fp in footprints {
            add_into(&mut pod_fixed, &fp.mapping);
            add_into(&mut pod_fixed, &fp.per_pod);
            if fp.per_container.is_empty() {
                continue;
            }
            let mut known = 0usize;
            for c in &self.containers {
                if fp.containers.contains(&c.name) {
                    known += 1;
                    add_into(per_container.entry(&c.name).or_default(), &fp.per_container);
                }
            }
            for _ in known..fp.containers.len() {
                add_into(&mut pod_fixed, &fp.per_container);
            }
        }
        let own = |c: &Container| {
            let mut r = c.requests.clone();
            if let Some(extra) = per_container.get(c.name.as_str()) {
                add_into(&mut r, extra);
            }
            r
        };
        let mut steady = Requests::new();
        for c in self.containers.iter().filter(|c| c.kind == Kind::Regular) {
            add_into(&mut steady, &own(c));
        }
        let mut sidecars = Requests::new();
        let mut init_peak = Requests::new();
        for c in self.containers.iter().filter(|c| c.kind != Kind::Regular) {
            let mine = own(c);
            let peak = if c.kind == Kind::Sidecar {
                add_into(&mut steady, &mine);
                add_into(&mut sidecars, &mine);
                sidecars.clone()
            } else {
                let mut tmp = mine;
                add_into(&mut tmp, &sidecars);
                tmp
            };
            max_into(&mut init_peak, &peak);
        }
        max_into(&mut steady, &init_peak);
        add_into(&mut steady, &pod_fixed);
        steady
    }

    /// Upstream `PodRequests` with the claims' resources: `container_requests` with pod-level
    /// requests replacing what they set, plus `spec.overhead`.
    pub(crate) fn requests(&self, footprints: &[ClaimFootprint]) -> Requests {
        let mut r = self.container_requests(footprints);
        for (id, v) in &self.pod_level {
            r.retain(|(i, _)| i != id);
            r.push((*id, *v));
        }
        add_into(&mut r, &self.overhead);
        r.retain(|(_, v)| *v != 0);
        r.sort_unstable();
        r
    }

    /// What the claims add to the pod's requests on its node: [`requests`](Self::requests) with
    /// `footprints` minus without (never negative; nothing where pod-level requests cover it).
    pub(crate) fn delta(&self, footprints: &[ClaimFootprint]) -> Requests {
        if footprints.is_empty() {
            return Requests::new();
        }
        let base = self.requests(&[]);
        let mut out = Requests::new();
        for (id, v) in self.requests(footprints) {
            let before = base.iter().find(|(i, _)| *i == id).map_or(0, |(_, b)| *b);
            if v > before {
                out.push((id, v - before));
            }
        }
        out
    }

    /// Upstream `validatePodLevelResourcesCoverDRA`, requests half: the first pod-level request
    /// the containers' requests plus the claims' resources exceed. (The limits half compares
    /// container limits, which the snapshot's pod record does not keep.)
    pub(crate) fn pod_level_short(&self, footprints: &[ClaimFootprint]) -> Option<ResourceId> {
        if self.pod_level.is_empty() || footprints.is_empty() {
            return None;
        }
        let sum = self.container_requests(footprints);
        self.pod_level.iter().find_map(|(id, budget)| {
            sum.iter()
                .find(|(i, _)| i == id)
                .filter(|(_, v)| v > budget)
                .map(|(i, _)| *i)
        })
    }
}

/// Whether NodeResourcesFit-style accounting of the DRA footprint checks resource `name`
/// (upstream `nodeFitsResources`: cpu, memory, ephemeral-storage and hugepages).
pub(crate) fn checked(id: ResourceId, name: &str) -> bool {
    id == CPU || id == MEMORY || id == EPHEMERAL_STORAGE || name.starts_with("hugepages-")
}

/// `a × m` where `a` is in the resource's unit and `m` a quantity (rounded up).
fn times(a: i64, m: &str) -> Option<i64> {
    let m = parse_milli(m)?;
    let p = i128::from(a) * i128::from(m);
    i64::try_from((p + 999).div_euclid(1000)).ok()
}

/// The node-allocatable footprint of one claim allocated to `devices` (upstream
/// `buildNodeAllocatableDRAInfo` for one claim): `None` when none of its devices has
/// `nodeAllocatableResources`. `names` maps resource names to ids (every name the inventory's
/// devices use was interned when the state was built). An error is upstream's (a mapping by
/// capacity on an allocation that consumed no capacity).
pub(crate) fn footprint(
    inv: &Inventory,
    claim: &str,
    namespace: &str,
    devices: &[Allocated],
    names: &BTreeMap<String, ResourceId>,
) -> Result<Option<ClaimFootprint>, String> {
    let mut fp = ClaimFootprint {
        claim: claim.to_owned(),
        ..ClaimFootprint::default()
    };
    let mut any = false;
    let who = format!("{namespace}/{claim}");
    for a in devices {
        let d = &inv.devices[a.device];
        let Some(extra) = d.extra.as_deref() else {
            continue;
        };
        for (resource, nar) in &extra.node_allocatable {
            any = true;
            let Some(&id) = names.get(resource) else {
                continue;
            };
            add_mapping(resource, id, nar, a, d, &who, &mut fp)?;
            if let Some(o) = &nar.overhead {
                if let Some(v) = o
                    .per_pod
                    .as_ref()
                    .and_then(|q| ResourceTable::parse(resource, &q.0))
                {
                    add_into(&mut fp.per_pod, &[(id, v)]);
                }
                if let Some(v) = o
                    .per_container
                    .as_ref()
                    .and_then(|q| ResourceTable::parse(resource, &q.0))
                {
                    add_into(&mut fp.per_container, &[(id, v)]);
                }
            }
        }
    }
    Ok(any.then_some(fp))
}

/// Upstream `addDeviceMapping`; `who` is the claim's `namespace/name`.
fn add_mapping(
    resource: &str,
    id: ResourceId,
    nar: &NodeAllocatableResource,
    a: &Allocated,
    d: &super::inventory::Device,
    who: &str,
    fp: &mut ClaimFootprint,
) -> Result<(), String> {
    let Some(m) = &nar.mapping else {
        return Ok(());
    };
    fp.mapped = true;
    if let Some(key) = m.capacity_key.as_deref().filter(|k| !k.is_empty()) {
        let Some(share) = &a.share else {
            return Err(format!(
                "claim {who}, device {}: ConsumedCapacity is nil, but Capacity key '{key}' is set in NodeAllocatableResources for resource {resource}",
                d.name
            ));
        };
        // Not consumed: the mapping is not relevant for this allocation.
        let Some(consumed) = share.consumed.get(&qualify(&d.driver, key)) else {
            return Ok(());
        };
        // `Amount` is in milli-units; cpu is counted in millicores, the rest in units.
        let base = if id == CPU {
            i64::try_from(consumed.milli).ok()
        } else {
            i64::try_from((consumed.milli + 999).div_euclid(1000)).ok()
        };
        let amount = match (base, m.capacity_multiplier.as_ref()) {
            (Some(b), Some(mult)) => times(b, &mult.0),
            (b, None) => b,
            (None, Some(_)) => None,
        };
        if let Some(v) = amount {
            add_into(&mut fp.mapping, &[(id, v)]);
        }
        return Ok(());
    }
    if let Some(v) = m
        .device_multiplier
        .as_ref()
        .and_then(|q| ResourceTable::parse(resource, &q.0))
    {
        add_into(&mut fp.mapping, &[(id, v)]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(json: serde_json::Value) -> Pod {
        serde_json::from_value(json).unwrap()
    }

    fn fp(
        containers: &[&str],
        mapping: Requests,
        per_pod: Requests,
        per_container: Requests,
    ) -> ClaimFootprint {
        ClaimFootprint {
            claim: "c".into(),
            containers: containers.iter().map(|c| (*c).to_owned()).collect(),
            mapped: !mapping.is_empty(),
            mapping,
            per_pod,
            per_container,
        }
    }

    // helpers_test.go (component-helpers) "DRA mapping and per-pod overhead are added once per
    // pod": two containers, 1 cpu each; a claim mapping 4 cpu and 8Gi per-pod memory.
    #[test]
    fn mapping_and_per_pod_overhead_count_once_per_pod() {
        let mut t = ResourceTable::default();
        let p = pod(
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [
                {"name": "a", "resources": {"requests": {"cpu": "1"}, "claims": [{"name": "cpus"}]}},
                {"name": "b", "resources": {"requests": {"cpu": "1"}, "claims": [{"name": "cpus"}]}}]}}),
        );
        let na = NaPod::compile(&p, &mut t);
        let f = fp(
            &["a", "b"],
            vec![(CPU, 4000)],
            vec![(MEMORY, 8 << 30)],
            vec![],
        );
        assert_eq!(
            na.requests(std::slice::from_ref(&f)),
            vec![(CPU, 6000), (MEMORY, 8 << 30)]
        );
        assert_eq!(na.delta(&[f]), vec![(CPU, 4000), (MEMORY, 8 << 30)]);
        assert_eq!(na.containers_of("cpus"), vec!["a", "b"]);
    }

    // The perContainer overhead follows the containers referencing the claim: twice for two
    // regular containers; for a non-restartable init container only toward its own peak.
    #[test]
    fn per_container_overhead_follows_the_referencing_containers() {
        let mut t = ResourceTable::default();
        let p = pod(
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {
                "initContainers": [{"name": "init", "resources": {"requests": {"memory": "1Gi"}}}],
                "containers": [
                {"name": "a", "resources": {"requests": {"memory": "1Gi"}}},
                {"name": "b", "resources": {"requests": {"memory": "1Gi"}}}]}}),
        );
        let na = NaPod::compile(&p, &mut t);
        let gi = 1i64 << 30;
        let regular = fp(&["a", "b"], vec![], vec![], vec![(MEMORY, gi)]);
        assert_eq!(na.requests(&[regular]), vec![(MEMORY, 4 * gi)]);
        // Only the init container references it: its peak is 1Gi + 3Gi = 4Gi > 2Gi steady.
        let init = fp(&["init"], vec![], vec![], vec![(MEMORY, 3 * gi)]);
        assert_eq!(na.requests(&[init]), vec![(MEMORY, 4 * gi)]);
        // A reference to a container the pod lacks is charged for the pod's whole life.
        let unknown = fp(&["gone"], vec![], vec![], vec![(MEMORY, gi)]);
        assert_eq!(na.requests(&[unknown]), vec![(MEMORY, 3 * gi)]);
    }

    // nodeallocatable.go validatePodLevelResourcesCoverDRA: pod-level requests replace the
    // aggregate (no delta on the node), but must cover containers plus claims.
    #[test]
    fn pod_level_requests_must_cover_containers_and_claims() {
        let mut t = ResourceTable::default();
        let p = pod(
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"resources": {"requests": {"cpu": "4"}},
                "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}}),
        );
        let na = NaPod::compile(&p, &mut t);
        let fits = fp(&["a"], vec![(CPU, 3000)], vec![], vec![]);
        assert_eq!(na.pod_level_short(std::slice::from_ref(&fits)), None);
        assert!(
            na.delta(&[fits]).is_empty(),
            "pod-level cpu already counts it"
        );
        let short = fp(&["a"], vec![(CPU, 4000)], vec![], vec![]);
        assert_eq!(na.pod_level_short(&[short]), Some(CPU));
    }

    #[test]
    fn recorded_statuses_are_read_from_the_pod() {
        let mut t = ResourceTable::default();
        let p = pod(
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "resources": {"claims": [{"name": "cpus"}]}}]},
            "status": {"nodeAllocatableResourceClaimStatuses": [{"resourceClaimName": "p-cpus",
                "containers": ["a"], "mapping": [{"name": "cpu", "quantity": "8"}],
                "overhead": [{"name": "memory", "perPod": "1Gi"}]}]}}),
        );
        let na = NaPod::compile(&p, &mut t);
        assert_eq!(na.recorded.len(), 1);
        assert!(na.recorded[0].mapped);
        assert_eq!(na.delta(&na.recorded), vec![(CPU, 8000), (MEMORY, 1 << 30)]);
    }

    fn inventory() -> Inventory {
        let slice: k8s_openapi::api::resource::v1::ResourceSlice =
            serde_json::from_value(serde_json::json!({
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": {"name": "s"},
                "spec": {"driver": "cpu.example.com", "nodeName": "n",
                    "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                    "devices": [
                        {"name": "socket", "allowMultipleAllocations": true,
                         "capacity": {"cores": {"value": "64"}},
                         "nodeAllocatableResources": {"cpu": {"mapping":
                            {"capacityKey": "cores", "capacityMultiplier": "2"}}}},
                        {"name": "ccx-0", "nodeAllocatableResources": {"cpu": {"mapping":
                            {"deviceMultiplier": "8"}}, "memory": {"overhead":
                            {"perPod": "1Gi", "perContainer": "256Mi"}}}},
                        {"name": "ccx-1", "nodeAllocatableResources": {"cpu": {"mapping":
                            {"deviceMultiplier": "8"}}}},
                        {"name": "plain"}]}}))
            .unwrap();
        Inventory::build_with(&[slice], &[], false)
    }

    fn names() -> BTreeMap<String, ResourceId> {
        BTreeMap::from([("cpu".to_owned(), CPU), ("memory".to_owned(), MEMORY)])
    }

    fn alloc(inv: &Inventory, device: &str, consumed: Option<(&str, &str)>) -> Allocated {
        let id = inv.ids[&(
            "cpu.example.com".to_owned(),
            "p".to_owned(),
            device.to_owned(),
        )];
        Allocated {
            device: id,
            request: "r".into(),
            admin: false,
            share: consumed.map(|(k, v)| super::super::allocate::Share {
                id: "s".into(),
                consumed: BTreeMap::from([(
                    k.to_owned(),
                    super::super::capacity::Amount::parse(v).unwrap(),
                )]),
            }),
        }
    }

    // nodeallocatable.go addDeviceMapping: consumedCapacity[capacityKey] × capacityMultiplier
    // (the API's example: each core provides 2 cpus, 8 cores consumed → 16).
    #[test]
    fn mapping_by_capacity_multiplies_what_the_share_consumed() {
        let inv = inventory();
        let a = alloc(&inv, "socket", Some(("cpu.example.com/cores", "8")));
        let fp = footprint(&inv, "c", "ns", &[a], &names()).unwrap().unwrap();
        assert_eq!(fp.mapping, vec![(CPU, 16_000)]);
        assert!(fp.mapped);
    }

    // addDeviceMapping: a capacity mapping on an allocation that consumed no capacity is
    // upstream's error ("ConsumedCapacity is nil, but Capacity key ... is set").
    #[test]
    fn mapping_by_capacity_without_a_share_is_an_error() {
        let inv = inventory();
        let a = alloc(&inv, "socket", None);
        let err = footprint(&inv, "c", "ns", &[a], &names()).unwrap_err();
        assert!(err.starts_with("claim ns/c, device socket: ConsumedCapacity is nil, but Capacity key 'cores' is set"), "{err}");
    }

    // deviceMultiplier per allocated device (the API's CCX example: 2 CCX × 8 = 16 cpus),
    // overheads summed per claim; a device without nodeAllocatableResources adds nothing.
    #[test]
    fn device_multiplier_counts_per_device_and_overheads_add_up() {
        let inv = inventory();
        let both = [alloc(&inv, "ccx-0", None), alloc(&inv, "ccx-1", None)];
        let fp = footprint(&inv, "c", "ns", &both, &names())
            .unwrap()
            .unwrap();
        assert_eq!(fp.mapping, vec![(CPU, 16_000)]);
        assert_eq!(fp.per_pod, vec![(MEMORY, 1 << 30)]);
        assert_eq!(fp.per_container, vec![(MEMORY, 256 << 20)]);
        let plain = [alloc(&inv, "plain", None)];
        assert_eq!(footprint(&inv, "c", "ns", &plain, &names()).unwrap(), None);
    }

    #[test]
    fn multipliers_round_up() {
        assert_eq!(times(8, "2"), Some(16));
        assert_eq!(times(1000, "0.5"), Some(500));
        assert_eq!(times(3, "0.5"), Some(2));
        assert_eq!(times(3, "x"), None);
    }
}
