//! Dynamic Resource Allocation in the simulator: the DynamicResources filter and what it needs
//! (semantics §1.6, §7; operations.md failure modes 5 and 10).
//!
//! Pure. [`DraState`] is built once per simulation from the snapshot: the device
//! [`inventory::Inventory`], DeviceClass selectors compiled once ([`selector`]), every claim a
//! pending pod needs (an existing ResourceClaim; a claim instantiated from its template as the
//! resourceclaim controller would, for the pod or — with DRAWorkloadResourceClaims — once for
//! its PodGroup), and the devices already allocated by existing claims. The filter allocates a
//! pod's unallocated claims on each node ([`allocate`]); Reserve (assume) records the
//! allocation so later pods see it, Unreserve (forget) drops it. A PodGroup claim is
//! allocated once, on the first member's node, and later members must fit its node scope.
//!
//! Devices with `allowMultipleAllocations` (DRAConsumableCapacity) are shared: each allocation
//! is a share with a `shareID` and the capacity it consumed ([`capacity`]); Reserve names new
//! shares deterministically, releasing a claim gives its capacity back.

pub(crate) mod allocate;
pub(crate) mod capacity;
pub(crate) mod inventory;
pub(crate) mod node_allocatable;
pub(crate) mod selector;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::snapshot::Pod;
use k8s_openapi::api::core::v1::PodResourceClaim;
use k8s_openapi::api::resource::v1::{CapacityRequirements, DeviceClaim, ResourceClaimSpec};
use k8s_openapi::api::scheduling::v1beta1::PodGroup;

use self::allocate::{
    Allocated, Alternative, ClaimSpec, Constraint, DeviceTol, Features, InUse, Request, Share,
};
use self::capacity::Amount;
use self::inventory::{DeviceId, ExtraTaint, Inventory, Scope, qualify};
use self::node_allocatable::{ClaimFootprint, NaPod};
use self::selector::{ExprId, Selectors};
use super::node::{NodeState, PodId};
use super::pod_req::PodReq;
use super::status::{Code, Reason, Rejection};
use crate::sched::resources::{Requests, ResourceId, ResourceTable};
use crate::snapshot::facts::FeatureGates;
use crate::snapshot::{Snapshot, name_of, namespace_of};

/// Plugin name.
pub(crate) const NAME: &str = "DynamicResources";
/// Filter reason when no allocation exists on a node.
pub(crate) const ERR_CANNOT_ALLOCATE: &str = "cannot allocate all claims";
/// Filter reason when an allocated claim's devices are not reachable from the node.
pub(crate) const ERR_NOT_AVAILABLE_ON_NODE: &str = "resourceclaim not available on the node";

/// One claim the simulation tracks.
#[derive(Debug, Clone)]
pub struct ClaimInstance {
    /// Claim name (hypothetical claims are named `<pod or group>-<entry>` and marked so).
    pub name: String,
    /// Namespace.
    pub namespace: String,
    /// Created by the simulation from a template (not yet in the cluster).
    pub hypothetical: bool,
    /// The PodGroup it is shared by, if it is a PodGroup claim.
    pub group: Option<String>,
    /// Reserved for a PodGroup (a `podgroups` consumer in `status.reservedFor`, or owned by
    /// one): evicting the group's pods never releases it, in the preemption dry run or after
    /// (dynamicresources_preemption_test.go `TestRemovePod` "pod-group-claim-not-released").
    pub held_by_group: bool,
    /// `status.reservedFor` names a pod whose UID is not that of any pod the snapshot has using
    /// the claim (a pod re-created under the same name, or never seen): the dry run never
    /// releases it, as upstream compares consumers by UID
    /// ("shared-claim-count-matches-but-uids-differ-not-released").
    pub reserved_by_unknown_pod: bool,
    /// Requirements.
    pub spec: ClaimSpec,
    /// Allocated devices and where they can be used.
    pub allocation: Option<(Vec<Allocated>, Scope)>,
    /// Condition types `True` in the claim's `status.devices` per allocated device: what
    /// binding conditions are already met (DRADeviceBindingConditions).
    pub device_conditions: Vec<(DeviceId, String)>,
}

/// Claims of one pod: (entry name, claim index).
#[derive(Debug, Clone, Default)]
pub struct PodClaims {
    /// Entries in spec order.
    pub entries: Vec<(String, usize)>,
    /// Why a claim of the pod does not exist (missing claim, or a template the controller
    /// cannot instantiate): upstream holds such a pod at PreEnqueue (see [`DraState::pre_enqueue`]).
    pub problem: Option<String>,
}

/// A pod bound to a node whose claims were never allocated (it bypassed the scheduler).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckPod {
    /// Pod.
    pub pod: PodId,
    /// Why.
    pub message: String,
}

/// DRA state of a simulation. Clones share the selector cache: results depend only on the
/// (device, expression) pair, which a clone does not change.
#[derive(Debug, Clone, Default)]
pub struct DraState {
    /// Devices.
    pub inventory: Inventory,
    selectors: Rc<RefCell<Selectors>>,
    /// Every tracked claim.
    pub claims: Vec<ClaimInstance>,
    /// Claims of pods that have any.
    pub pod_claims: FxMap<PodId, PodClaims>,
    /// Devices and counters in use.
    pub in_use: InUse,
    /// Claims allocated by each pod's Reserve, for Unreserve.
    reserved: HashMap<PodId, Vec<usize>>,
    /// Pods that use each claim (built once), so eviction only looks at the victims' claims.
    users: Vec<Vec<PodId>>,
    /// Pre-scheduled pods with unallocated claims.
    pub stuck: Vec<StuckPod>,
    /// Step budget per (pod, node) search.
    pub budget: u64,
    /// The DRA gates the allocator follows.
    pub features: Features,
    /// Shares named so far by Reserve (for deterministic `shareID`s).
    shares_named: u64,
    /// Node equivalence for the filter (see [`FilterMemo`]).
    memo: RefCell<FilterMemo>,
    /// Pods placed (bound or assumed) that have claims: a claim with a mapped
    /// node-allocatable device is not shared with another of them.
    placed: std::collections::HashSet<PodId>,
    /// DRANodeAllocatableResources: what it needs of the pods with claims (only with the gate
    /// on and some device or pod using node-allocatable resources).
    na: Option<Rc<NaState>>,
    /// What the claims add to each placed pod's requests on its node: set by Reserve, or read
    /// from a bound pod's recorded `status.nodeAllocatableResourceClaimStatuses`.
    na_delta: FxMap<PodId, Requests>,
    /// Pods whose [`na_delta`](Self::na_delta) entry Reserve set (Unreserve drops it; a
    /// recorded one stays).
    na_assumed: std::collections::HashSet<PodId>,
    /// Allocated claims whose `bindingFailureConditions` are `True`, or whose
    /// `bindingConditions` were still not all `True` when their pod's profile's
    /// `bindingTimeout` ran out, and whose pods are not bound: the scheduler clears their
    /// allocation and their pods go back to scheduling.
    pub binding_failures: Vec<BindingFailure>,
}

/// The node-allocatable inputs, built once and shared by clones.
#[derive(Debug, Default)]
struct NaState {
    /// Pods with claims, compiled.
    pods: FxMap<PodId, NaPod>,
    /// Resource name → id, for every name devices map to or charge.
    names: BTreeMap<String, ResourceId>,
    /// Resource ids NodeResourcesFit-style checks look at (cpu, memory, ephemeral-storage,
    /// hugepages-*), with their names.
    checked: Vec<ResourceId>,
}

/// An allocated claim whose binding failed (a `bindingFailureConditions` entry is `True`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingFailure {
    /// Claim index.
    pub claim: usize,
    /// `driver/pool/device`: `condition`, for each true failure condition.
    pub conditions: Vec<String>,
    /// The claim's pods (all pending).
    pub pods: Vec<PodId>,
    /// Set when the binding timed out instead (no failure condition `True`): the
    /// `bindingTimeout` that ran out, in seconds.
    pub timeout_seconds: Option<u32>,
}

/// A fast, non-cryptographic hasher (the rustc/Firefox "Fx" multiply-rotate scheme) for maps
/// keyed by node names that the filter looks up once per (pod, node): SipHash cost more than
/// the lookups it guarded. Keys come from the snapshot, and a collision only costs time.
#[derive(Debug, Clone, Copy, Default)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(*b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A per-node memo key: the address of the node's shared name. Maps keyed by it keep a clone
/// of the `Arc` in the value, so the address cannot be reused by another string while the
/// entry lives; two states cloned from one share names (and memo entries), a rebuilt state
/// only misses.
pub(crate) fn node_key(name: &std::sync::Arc<str>) -> usize {
    std::sync::Arc::as_ptr(name).cast::<u8>() as usize
}

/// A `HashMap` with [`FxHasher`].
pub(crate) type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

/// A node's equivalence class and its own pools.
type NodeClass = (u32, Rc<[usize]>);

/// Node equivalence for the DynamicResources filter: two nodes whose usable devices form the
/// same sequence (same shapes, pool by pool, in allocation order, and the same shared devices)
/// and from whose own pools nothing is allocated give the same filter answer for the same
/// claims and the same in-use state, so 5,000 identical, still empty GPU nodes cost one search.
/// Results are kept for one (claims, in-use version) at a time; a node with an incomplete or
/// invalid pool of its own is always searched (its failure text names the pool).
#[derive(Debug, Clone, Default)]
struct FilterMemo {
    /// Node name → (its class, its own pools); `None`: not memoised.
    classes: FxMap<usize, (std::sync::Arc<str>, Option<NodeClass>)>,
    /// Device sequence → class.
    interned: HashMap<Vec<u64>, u32>,
    /// The claims and in-use version `results` belong to.
    key: Option<(Vec<usize>, u64)>,
    /// Class → the filter's search answer.
    results: HashMap<u32, Result<(), (usize, allocate::Failure)>>,
    /// Searches answered from `results` (for tests and benches).
    hits: u64,
}

/// A request's `capacity.requests` (`None` without a `capacity` field); unparsable
/// quantities are an error.
fn compile_capacity(
    capacity: Option<&CapacityRequirements>,
) -> Result<Option<BTreeMap<String, Amount>>, String> {
    let Some(c) = capacity else {
        return Ok(None);
    };
    let mut out = BTreeMap::new();
    for (name, q) in c.requests.iter().flatten() {
        let amount = Amount::parse(&q.0)
            .ok_or_else(|| format!("capacity request {name}: `{}` is not a quantity", q.0))?;
        out.insert(name.clone(), amount);
    }
    Ok(Some(out))
}

/// One request or sub-request, as the API spells it.
struct RequestFields<'a> {
    class: &'a str,
    selectors: Option<&'a Vec<k8s_openapi::api::resource::v1::DeviceSelector>>,
    mode: Option<&'a String>,
    count: Option<i64>,
    admin: Option<bool>,
    tolerations: Option<&'a Vec<k8s_openapi::api::resource::v1::DeviceToleration>>,
    capacity: Option<&'a CapacityRequirements>,
}

fn compile_claim(
    spec: Option<&DeviceClaim>,
    classes: &HashMap<String, Vec<ExprId>>,
    sel: &mut Selectors,
    features: Features,
) -> ClaimSpec {
    let mut out = ClaimSpec::default();
    let Some(spec) = spec else { return out };
    let mut error = None;
    let mut alt = |request: &str, result_name: String, f: RequestFields<'_>| {
        let RequestFields {
            class,
            selectors,
            mode,
            count,
            admin,
            tolerations,
            capacity,
        } = f;
        // Upstream checks the gate before anything else of the request.
        if capacity.is_some() && !features.consumable_capacity {
            error.get_or_insert(format!(
                "request {request}: has capacity requests, but the DRAConsumableCapacity feature is disabled"
            ));
        }
        let capacity = compile_capacity(capacity).unwrap_or_else(|e| {
            error.get_or_insert(format!("request {request}: {e}"));
            None
        });
        let mut exprs = match classes.get(class) {
            Some(e) => e.clone(),
            None => {
                error.get_or_insert(format!("device class {class} not found"));
                Vec::new()
            }
        };
        exprs.extend(
            selectors
                .into_iter()
                .flatten()
                .filter_map(|s| s.cel.as_ref())
                .map(|c| sel.compile(&c.expression)),
        );
        Alternative {
            result_name,
            class: class.to_owned(),
            exprs,
            all: mode.map(String::as_str) == Some("All"),
            count: u32::try_from(count.unwrap_or(1).max(0)).unwrap_or(u32::MAX),
            admin: admin == Some(true),
            tolerations: tolerations
                .into_iter()
                .flatten()
                .map(|t| DeviceTol {
                    key: t.key.clone().unwrap_or_default(),
                    exists: t.operator.as_deref() == Some("Exists"),
                    value: t.value.clone().unwrap_or_default(),
                    effect: t.effect.clone().unwrap_or_default(),
                })
                .collect(),
            capacity,
        }
    };
    for r in spec.requests.iter().flatten() {
        let mut alternatives = Vec::new();
        if let Some(e) = &r.exactly {
            alternatives.push(alt(
                &r.name,
                r.name.clone(),
                RequestFields {
                    class: &e.device_class_name,
                    selectors: e.selectors.as_ref(),
                    mode: e.allocation_mode.as_ref(),
                    count: e.count,
                    admin: e.admin_access,
                    tolerations: e.tolerations.as_ref(),
                    capacity: e.capacity.as_ref(),
                },
            ));
        }
        for s in r.first_available.iter().flatten() {
            alternatives.push(alt(
                &r.name,
                format!("{}/{}", r.name, s.name),
                RequestFields {
                    class: &s.device_class_name,
                    selectors: s.selectors.as_ref(),
                    mode: s.allocation_mode.as_ref(),
                    count: s.count,
                    admin: None,
                    tolerations: s.tolerations.as_ref(),
                    capacity: s.capacity.as_ref(),
                },
            ));
        }
        out.requests.push(Request {
            name: r.name.clone(),
            alternatives,
        });
    }
    out.error = error;
    for c in spec.constraints.iter().flatten() {
        // Attribute names in constraints are fully qualified (domain/name).
        out.constraints.push(Constraint {
            requests: c.requests.clone().unwrap_or_default(),
            match_attribute: c.match_attribute.clone(),
            distinct_attribute: c.distinct_attribute.clone(),
        });
    }
    out
}

fn spec_devices(spec: Option<&ResourceClaimSpec>) -> Option<&DeviceClaim> {
    spec.and_then(|s| s.devices.as_ref())
}

/// DeviceClass selectors compiled into one selector cache, and the claim compiler that refers
/// to them (class expressions first, then claims in the order they are met, so expression ids
/// are stable).
#[derive(Default)]
struct ClaimCompiler {
    /// DeviceClass name → its compiled CEL selectors.
    classes: HashMap<String, Vec<ExprId>>,
    sel: Selectors,
    features: Features,
}

impl ClaimCompiler {
    /// Compiles every DeviceClass's selectors of `s`.
    fn new(s: &Snapshot, features: Features) -> Self {
        let mut sel = Selectors::default();
        let classes = s
            .device_classes
            .iter()
            .map(|c| {
                let exprs = c
                    .spec
                    .as_ref()
                    .and_then(|s| s.selectors.as_ref())
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.cel.as_ref())
                    .map(|cel| sel.compile(&cel.expression))
                    .collect();
                (name_of(&c.metadata).to_owned(), exprs)
            })
            .collect();
        Self {
            classes,
            sel,
            features,
        }
    }

    /// [`compile_claim`] with this compiler's classes and cache.
    fn compile(&mut self, spec: Option<&DeviceClaim>) -> ClaimSpec {
        compile_claim(spec, &self.classes, &mut self.sel, self.features)
    }
}

/// What tracking the stored claims leaves for the later build steps, by stored claim index.
struct StoredClaims {
    /// (namespace, name) → claim index.
    by_name: HashMap<(String, String), usize>,
    /// The (name, UID) of the pods each claim's `status.reservedFor` names.
    reserved_pod_uids: Vec<Vec<(String, String)>>,
    /// `driver/pool/device: condition` for each binding failure condition that is `True` in
    /// each claim's device status.
    binding_failed: Vec<Vec<String>>,
    /// Per claim: its `allocation.allocationTimestamp` when its binding still waits for
    /// binding conditions ([`binding_wait_of`]).
    binding_waits: Vec<Option<k8s_openapi::jiff::Timestamp>>,
}

/// What resolving the pods' claim entries reads and fills, beside the state being built.
struct ClaimLookup<'a> {
    s: &'a Snapshot,
    /// Stored claims by (namespace, name).
    by_name: &'a HashMap<(String, String), usize>,
    /// Hypothetical PodGroup claims by (namespace, PodGroup, entry).
    group_instances: HashMap<(String, String, String), usize>,
    compiler: &'a mut ClaimCompiler,
    /// DRAWorkloadResourceClaims is on.
    group_claims_on: bool,
}

/// The DeviceTaintRules of `s` as (driver, pool, device) selectors with their taints, for
/// the inventory.
fn device_taint_rules(s: &Snapshot) -> Vec<ExtraTaint> {
    s.device_taint_rules
        .iter()
        .map(|r| {
            let sel = r.spec.device_selector.as_ref();
            (
                (
                    sel.and_then(|d| d.driver.clone()),
                    sel.and_then(|d| d.pool.clone()),
                    sel.and_then(|d| d.device.clone()),
                ),
                r.spec.taint.clone(),
            )
        })
        .collect()
}

/// A stored allocation's results as devices of the inventory (results naming a device the
/// inventory lacks are dropped), each with its share when DRAConsumableCapacity is on.
fn allocated_devices(
    a: &k8s_openapi::api::resource::v1::AllocationResult,
    inventory: &Inventory,
    features: Features,
) -> Vec<Allocated> {
    a.devices
        .iter()
        .flat_map(|d| d.results.iter().flatten())
        .filter_map(|r| {
            inventory
                .ids
                .get(&(r.driver.clone(), r.pool.clone(), r.device.clone()))
                .map(|id| Allocated {
                    device: *id,
                    request: r.request.clone(),
                    admin: r.admin_access == Some(true),
                    // A result with a shareID is a share of the device (upstream's
                    // allocated state, with DRAConsumableCapacity on).
                    share: r
                        .share_id
                        .as_ref()
                        .filter(|_| features.consumable_capacity)
                        .map(|id| Share {
                            id: id.clone(),
                            consumed: r
                                .consumed_capacity
                                .iter()
                                .flatten()
                                .filter_map(|(k, q)| {
                                    Amount::parse(&q.0).map(|a| (qualify(&r.driver, k), a))
                                })
                                .collect(),
                        }),
                })
        })
        .collect()
}

/// Appends (device, condition type) for every `True` condition in `c`'s `status.devices`
/// whose device the inventory has.
fn push_true_device_conditions(
    c: &k8s_openapi::api::resource::v1::ResourceClaim,
    inventory: &Inventory,
    out: &mut Vec<(DeviceId, String)>,
) {
    for ds in c.status.iter().flat_map(|st| st.devices.iter().flatten()) {
        let Some(&id) = inventory
            .ids
            .get(&(ds.driver.clone(), ds.pool.clone(), ds.device.clone()))
        else {
            continue;
        };
        for cond in ds.conditions.iter().flatten() {
            if cond.status == "True" {
                out.push((id, cond.type_.clone()));
            }
        }
    }
}

/// The (name, UID) of the pods `c`'s `status.reservedFor` names.
fn reserved_pods_of(c: &k8s_openapi::api::resource::v1::ResourceClaim) -> Vec<(String, String)> {
    c.status
        .as_ref()
        .and_then(|st| st.reserved_for.as_ref())
        .map(|r| {
            r.iter()
                .filter(|c| c.resource == "pods")
                .map(|c| (c.name.clone(), c.uid.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// The PreEnqueue message for a claim that does not exist yet
/// (DynamicResources.PreEnqueue → foreachPodResourceClaim → resourceclaim.Name:
/// `pod "<ns>/<pod>": ResourceClaim not created yet`), with the cause in parentheses. The
/// simulator plays the controller, so a template that exists yields a (hypothetical) claim
/// and holds nothing.
fn not_created(req: &PodReq, cause: String) -> String {
    format!(
        "pod \"{}/{}\": ResourceClaim not created yet ({cause})",
        req.namespace, req.name
    )
}

impl DraState {
    /// Builds the DRA state. `pods` are the simulation's pods by id with their objects.
    /// `binding_timeout`: the `bindingTimeout` (seconds) of the profile that schedules a pod.
    pub(crate) fn build(
        s: &Snapshot,
        pods: &[(PodId, &Pod, &PodReq)],
        gates: &FeatureGates,
        bound: &dyn Fn(PodId) -> bool,
        binding_timeout: &dyn Fn(PodId) -> u32,
        table: &mut ResourceTable,
    ) -> Self {
        let extra_taints = device_taint_rules(s);
        let features = Features::from_gates(gates);
        let inventory =
            Inventory::build_with(&s.resource_slices, &extra_taints, features.list_attributes);
        let mut compiler = ClaimCompiler::new(s, features);
        let mut st = Self {
            inventory,
            budget: allocate::DEFAULT_STEP_BUDGET,
            features,
            ..Self::default()
        };
        let stored = st.add_stored_claims(s, &mut compiler);
        // Per stored claim: the pods the snapshot has using it (name, UID). A pod without a
        // UID (a hand-written manifest) is matched by name.
        let mut user_uids: Vec<Vec<(&str, Option<&str>)>> =
            vec![Vec::new(); s.resource_claims.len()];
        let mut lookup = ClaimLookup {
            s,
            by_name: &stored.by_name,
            group_instances: HashMap::new(),
            compiler: &mut compiler,
            group_claims_on: gates.enabled("DRAWorkloadResourceClaims"),
        };
        for (id, pod, req) in pods {
            let Some(spec) = pod.spec.as_ref() else {
                continue;
            };
            let mut pc = PodClaims::default();
            let group = req
                .group
                .as_deref()
                .and_then(|g| s.pod_group(&req.namespace, g));
            for e in spec.resource_claims.iter().flatten() {
                let Some(idx) = st.resolve_claim_entry(&mut lookup, pod, req, group, e) else {
                    continue;
                };
                match idx {
                    Ok(i) => {
                        if let Some(uids) = user_uids.get_mut(i) {
                            uids.push((req.name.as_ref(), pod.metadata.uid.as_deref()));
                        }
                        pc.entries.push((e.name.clone(), i));
                    }
                    Err(problem) => {
                        pc.problem.get_or_insert(problem);
                    }
                }
            }
            if bound(*id) {
                st.note_stuck_bound_pod(s, *id, req, &pc);
            }
            st.pod_claims.insert(*id, pc);
        }
        st.mark_reserved_by_unknown_pods(&stored.reserved_pod_uids, &user_uids);
        st.selectors = Rc::new(RefCell::new(std::mem::take(&mut compiler.sel)));
        st.index_users();
        for (id, _, _) in pods {
            if bound(*id) {
                st.placed.insert(*id);
            }
        }
        st.fail_bindings(&stored, s.now(), bound, binding_timeout);
        if features.node_allocatable {
            st.build_node_allocatable(pods, bound, table);
        }
        st
    }

    /// Tracks every ResourceClaim of the snapshot, in snapshot order (a stored claim's index
    /// is its position there), with its allocation charged to the devices in use.
    fn add_stored_claims(&mut self, s: &Snapshot, compiler: &mut ClaimCompiler) -> StoredClaims {
        let mut stored = StoredClaims {
            by_name: HashMap::new(),
            reserved_pod_uids: Vec::with_capacity(s.resource_claims.len()),
            binding_failed: Vec::with_capacity(s.resource_claims.len()),
            binding_waits: Vec::with_capacity(s.resource_claims.len()),
        };
        for c in &s.resource_claims {
            stored
                .binding_failed
                .push(binding_failures_of(c, &self.inventory));
            stored.binding_waits.push(binding_wait_of(c));
            let mut instance = ClaimInstance {
                name: name_of(&c.metadata).to_owned(),
                namespace: namespace_of(&c.metadata).to_owned(),
                hypothetical: false,
                group: c
                    .metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .find(|o| o.controller == Some(true) && o.kind == "PodGroup")
                    .map(|o| o.name.clone()),
                held_by_group: false,
                reserved_by_unknown_pod: false,
                spec: compiler.compile(spec_devices(c.spec.as_ref())),
                allocation: None,
                device_conditions: Vec::new(),
            };
            instance.held_by_group = instance.group.is_some()
                || c.status
                    .as_ref()
                    .and_then(|st| st.reserved_for.as_ref())
                    .is_some_and(|r| r.iter().any(|c| c.resource == "podgroups"));
            if let Some(a) = c.status.as_ref().and_then(|st| st.allocation.as_ref()) {
                let devices = allocated_devices(a, &self.inventory, self.features);
                let scope = match &a.node_selector {
                    Some(ns) => Scope::Selector(
                        ns.node_selector_terms
                            .iter()
                            .map(crate::sched::selector::NodeTerm::compile)
                            .collect(),
                    ),
                    None => Scope::AllNodes,
                };
                self.in_use.apply(&self.inventory, &devices, 1);
                push_true_device_conditions(c, &self.inventory, &mut instance.device_conditions);
                instance.allocation = Some((devices, scope));
            }
            stored.reserved_pod_uids.push(reserved_pods_of(c));
            stored.by_name.insert(
                (instance.namespace.clone(), instance.name.clone()),
                self.claims.len(),
            );
            self.claims.push(instance);
        }
        stored
    }

    /// The claim index one `spec.resourceClaims` entry of `pod` uses, or why the pod is held
    /// at PreEnqueue; `None` for an entry that names neither a claim nor a template. A
    /// template entry without a generated claim instantiates a hypothetical one, as the
    /// resourceclaim controller would: once per PodGroup entry when the pod shares its
    /// group's claim, else once for the pod.
    fn resolve_claim_entry(
        &mut self,
        lookup: &mut ClaimLookup<'_>,
        pod: &Pod,
        req: &PodReq,
        group: Option<&PodGroup>,
        e: &PodResourceClaim,
    ) -> Option<Result<usize, String>> {
        let template = e.resource_claim_template_name.as_deref();
        let claim_name = e.resource_claim_name.as_deref();
        let is_group_entry = group.is_some_and(|pg| {
            crate::snapshot::claims::is_group_claim_entry(pg, &e.name, claim_name, template)
        });
        // Upstream (notes in /work/notes/claim-entry.md): only an entry that matches a
        // PodGroup entry exactly, with DRAWorkloadResourceClaims on, uses the PodGroup's
        // claim (resourceclaim controller: "skip create for Pod with PodGroup", then
        // "update Pod status with PodGroup claim"). With the gate off, or without an
        // exact match, the entry is an ordinary pod entry: a template gets a claim
        // generated for the pod (controller_test.go "create ResourceClaim for Pod with
        // PodGroup claim when feature is disabled"), a named claim is used by the pod.
        let shared = is_group_entry && lookup.group_claims_on;
        if let Some(name) = claim_name {
            return Some(
                lookup
                    .by_name
                    .get(&(req.namespace.clone(), name.to_owned()))
                    .copied()
                    .ok_or_else(|| format!("resourceclaim \"{name}\" not found")),
            );
        }
        let t = template?;
        let template_spec = lookup
            .s
            .resource_claim_templates
            .iter()
            .find(|x| namespace_of(&x.metadata) == req.namespace && name_of(&x.metadata) == t)
            .map(|x| spec_devices(x.spec.as_ref().and_then(|t| t.spec.as_ref())));
        Some(match group.filter(|_| shared) {
            Some(pg) => self.group_template_claim(lookup, req, pg, e, t, template_spec),
            None => {
                let generated =
                    crate::snapshot::claims::pod_claim_status(pod, &e.name).and_then(|n| {
                        lookup
                            .by_name
                            .get(&(req.namespace.clone(), n.to_owned()))
                            .copied()
                    });
                match (generated, template_spec) {
                    (Some(i), _) => Ok(i),
                    (None, None) => Err(not_created(
                        req,
                        format!("resourceclaimtemplate \"{t}\" not found"),
                    )),
                    (None, Some(devices)) => {
                        self.claims.push(ClaimInstance {
                            name: format!("{}-{}", req.name, e.name),
                            namespace: req.namespace.clone(),
                            hypothetical: true,
                            group: None,
                            held_by_group: false,
                            reserved_by_unknown_pod: false,
                            spec: lookup.compiler.compile(devices),
                            allocation: None,
                            device_conditions: Vec::new(),
                        });
                        Ok(self.claims.len() - 1)
                    }
                }
            }
        })
    }

    /// The PodGroup's claim for a template entry the pod shares with its group: the claim
    /// named in the PodGroup's status, else one hypothetical claim per (namespace, PodGroup,
    /// entry), instantiated by the first member that asks.
    fn group_template_claim(
        &mut self,
        lookup: &mut ClaimLookup<'_>,
        req: &PodReq,
        pg: &PodGroup,
        e: &PodResourceClaim,
        t: &str,
        template_spec: Option<Option<&DeviceClaim>>,
    ) -> Result<usize, String> {
        let pg_name = name_of(&pg.metadata).to_owned();
        let generated = crate::snapshot::claims::group_claim_status(pg, &e.name).and_then(|n| {
            lookup
                .by_name
                .get(&(req.namespace.clone(), n.to_owned()))
                .copied()
        });
        match (generated, template_spec) {
            (Some(i), _) => Ok(i),
            (None, None) => Err(not_created(
                req,
                format!(
                    "PodGroup \"{pg_name}\" entry \"{}\": resourceclaimtemplate \"{t}\" not found",
                    e.name
                ),
            )),
            (None, Some(devices)) => {
                let key = (req.namespace.clone(), pg_name.clone(), e.name.clone());
                let compiler = &mut *lookup.compiler;
                Ok(*lookup.group_instances.entry(key).or_insert_with(|| {
                    self.claims.push(ClaimInstance {
                        name: format!("{pg_name}-{}", e.name),
                        namespace: req.namespace.clone(),
                        hypothetical: true,
                        group: Some(pg_name.clone()),
                        held_by_group: true,
                        reserved_by_unknown_pod: false,
                        spec: compiler.compile(devices),
                        allocation: None,
                        device_conditions: Vec::new(),
                    });
                    self.claims.len() - 1
                }))
            }
        }
    }

    /// Records a bound pod whose claims cannot be used (a problem, or claims left
    /// unallocated) as stuck. Only when every claim and template of its namespace was read:
    /// a `kubectl get pods` dump without claims proves nothing.
    fn note_stuck_bound_pod(&mut self, s: &Snapshot, id: PodId, req: &PodReq, pc: &PodClaims) {
        let known = s.knows_all("ResourceClaim", Some(&req.namespace))
            && s.knows_all("ResourceClaimTemplate", Some(&req.namespace));
        if !known {
            return;
        }
        let unallocated: Vec<&str> = pc
            .entries
            .iter()
            .filter(|(_, i)| self.claims[*i].allocation.is_none())
            .map(|(n, _)| n.as_str())
            .collect();
        if let Some(problem) = &pc.problem {
            self.stuck.push(StuckPod {
                pod: id,
                message: format!(
                    "bound by spec.nodeName, but {problem}: the kubelet will retry forever"
                ),
            });
        } else if !unallocated.is_empty() {
            self.stuck.push(StuckPod {
                pod: id,
                message: format!(
                    "bound by spec.nodeName, but claim(s) {} are not allocated: the scheduler never ran for it and the kubelet will retry forever",
                    unallocated.join(", ")
                ),
            });
        }
    }

    /// Marks each stored claim whose `status.reservedFor` names a pod the snapshot does not
    /// have using it (`user_uids`, by stored claim).
    fn mark_reserved_by_unknown_pods(
        &mut self,
        reserved_pod_uids: &[Vec<(String, String)>],
        user_uids: &[Vec<(&str, Option<&str>)>],
    ) {
        for (i, reserved) in reserved_pod_uids.iter().enumerate() {
            let known = &user_uids[i];
            let is_known = |(name, uid): &(String, String)| {
                known.iter().any(|(n, u)| match u {
                    Some(u) => *u == uid,
                    None => *n == name,
                })
            };
            if !reserved.iter().all(is_known) {
                self.claims[i].reserved_by_unknown_pod = true;
            }
        }
    }

    /// Fills `users` (claim → its pods, in pod-id order) from the pods' claim entries.
    fn index_users(&mut self) {
        self.users = vec![Vec::new(); self.claims.len()];
        let mut by_pod: Vec<(&PodId, &PodClaims)> = self.pod_claims.iter().collect();
        by_pod.sort_by_key(|(p, _)| **p);
        for (pod, pc) in by_pod {
            for (_, ci) in &pc.entries {
                self.users[*ci].push(*pod);
            }
        }
    }

    /// Upstream PreBind (`dynamicresources.go` `isPodReadyForBinding`): an allocated claim
    /// with a device whose `bindingFailureConditions` entry is `True` fails the binding, and
    /// so does one whose `bindingConditions` are not all `True` once `bindingTimeout` has
    /// passed since its `allocationTimestamp` (`isClaimTimeout`: `AllocationTimestamp.Add(
    /// bindingTimeout).Before(now)`, "claim NAME binding timeout"; the snapshot's time is
    /// "now", so the answer is deterministic). Unreserve clears the allocation and the pod goes
    /// back to scheduling. Only claims none of whose pods is bound yet (once bound, the
    /// conditions no longer matter to the scheduler). With DRADeviceBindingConditions off the
    /// scheduler does not look at them (DRAResourceClaimDeviceStatus, which the timeout also
    /// needs, is GA in 1.37). The timeout is the `bindingTimeout` of the profile of the
    /// claim's first pod.
    fn fail_bindings(
        &mut self,
        stored: &StoredClaims,
        now: k8s_openapi::jiff::Timestamp,
        bound: &dyn Fn(PodId) -> bool,
        binding_timeout: &dyn Fn(PodId) -> u32,
    ) {
        if !self.features.binding_conditions {
            return;
        }
        for (ci, conditions) in stored.binding_failed.iter().enumerate() {
            let users = self.users.get(ci).cloned().unwrap_or_default();
            if users.iter().any(|p| bound(*p)) {
                continue;
            }
            let timeout_seconds = if conditions.is_empty() {
                // Only a pod waiting in PreBind times out: a claim no pod uses waits for none.
                let Some(allocated) = stored.binding_waits.get(ci).copied().flatten() else {
                    continue;
                };
                if users.is_empty() {
                    continue;
                }
                let timeout = users.first().map_or(
                    crate::sched::profile::DEFAULT_BINDING_TIMEOUT_SECONDS,
                    |p| binding_timeout(*p),
                );
                let deadline = allocated
                    .checked_add(k8s_openapi::jiff::SignedDuration::from_secs(i64::from(
                        timeout,
                    )))
                    .ok();
                if deadline.is_none_or(|d| d >= now) {
                    continue;
                }
                Some(timeout)
            } else {
                None
            };
            if let Some((devices, _)) = self.claims[ci].allocation.take() {
                self.in_use.apply(&self.inventory, &devices, -1);
            }
            // Unreserve also clears the device statuses the drivers wrote.
            self.claims[ci].device_conditions.clear();
            self.binding_failures.push(BindingFailure {
                claim: ci,
                conditions: conditions.clone(),
                pods: users,
                timeout_seconds,
            });
        }
    }

    /// Builds [`NaState`] when a device of the inventory or a pod's recorded status uses
    /// node-allocatable resources, and counts the bound pods' recorded statuses.
    fn build_node_allocatable(
        &mut self,
        pods: &[(PodId, &Pod, &PodReq)],
        bound: &dyn Fn(PodId) -> bool,
        table: &mut ResourceTable,
    ) {
        let mut names = BTreeMap::new();
        for d in &self.inventory.devices {
            for name in d.extra.iter().flat_map(|e| e.node_allocatable.keys()) {
                names.insert(name.clone(), table.intern(name));
            }
        }
        let recorded = pods.iter().any(|(_, p, _)| {
            p.status
                .as_ref()
                .is_some_and(|s| s.node_allocatable_resource_claim_statuses.is_some())
        });
        if names.is_empty() && !recorded {
            return;
        }
        let mut na = NaState {
            names,
            ..NaState::default()
        };
        for (id, pod, _) in pods {
            let compiled = NaPod::compile(pod, table);
            if bound(*id) && !compiled.recorded.is_empty() {
                let delta = compiled.delta(&compiled.recorded);
                if !delta.is_empty() {
                    self.na_delta.insert(*id, delta);
                }
            }
            na.pods.insert(*id, compiled);
        }
        na.checked = (0..table.len())
            .filter_map(|i| ResourceId::try_from(i).ok())
            .filter(|i| node_allocatable::checked(*i, table.name(*i)))
            .collect();
        self.na = Some(Rc::new(na));
    }

    /// What the claims add to `pod`'s requests on its node (DRANodeAllocatableResources).
    pub(crate) fn na_delta(&self, pod: PodId) -> Option<&Requests> {
        self.na_delta.get(&pod)
    }

    /// The node-allocatable footprints of `pod`'s claims on `node`, with `fresh` the
    /// allocations a Reserve there would make (claim index → devices). Devices not usable from
    /// the node are not counted (upstream looks devices up in the node's slices).
    fn na_footprints(
        &self,
        na: &NaState,
        pod: PodId,
        node: &NodeState,
        fresh: &[(usize, &[Allocated])],
    ) -> Result<Vec<ClaimFootprint>, String> {
        let Some(pc) = self.pod_claims.get(&pod) else {
            return Ok(Vec::new());
        };
        let na_pod = na.pods.get(&pod);
        let mut seen: Vec<usize> = Vec::new();
        let mut out = Vec::new();
        for (entry, ci) in &pc.entries {
            if seen.contains(ci) {
                continue;
            }
            seen.push(*ci);
            let claim = &self.claims[*ci];
            let devices: Vec<Allocated> = fresh
                .iter()
                .find(|(i, _)| i == ci)
                .map(|(_, d)| d.to_vec())
                .or_else(|| claim.allocation.as_ref().map(|(d, _)| d.clone()))
                .unwrap_or_default()
                .into_iter()
                .filter(|a| {
                    self.inventory.devices[a.device]
                        .scope
                        .matches(&node.name, &node.labels)
                })
                .collect();
            if let Some(mut fp) = node_allocatable::footprint(
                &self.inventory,
                &claim.name,
                &claim.namespace,
                &devices,
                &na.names,
            )? {
                fp.containers = na_pod.map(|p| p.containers_of(entry)).unwrap_or_default();
                out.push(fp);
            }
        }
        Ok(out)
    }

    /// The node-allocatable half of the DynamicResources filter (upstream
    /// `calculateAndCheckNodeAllocatableResources`, run after the claims were allocated on the
    /// node): a claim with a mapped device another placed pod uses, pod-level requests that do
    /// not cover containers plus claims, then the pod's requests with its claims' resources
    /// against the node's free cpu, memory, ephemeral storage and hugepages.
    fn na_filter(&self, pod: PodId, node: &NodeState, todo: &[usize]) -> Option<Rejection> {
        let na = self.na.as_deref()?;
        let na_pod = na.pods.get(&pod)?;
        let fresh = if todo.is_empty() {
            Vec::new()
        } else {
            self.try_allocate(todo, node).ok()?
        };
        let fresh: Vec<(usize, &[Allocated])> = todo
            .iter()
            .copied()
            .zip(fresh.iter().map(Vec::as_slice))
            .collect();
        let footprints = match self.na_footprints(na, pod, node, &fresh) {
            Ok(f) => f,
            Err(e) => {
                return Some(Rejection {
                    plugin: NAME,
                    code: Code::Error,
                    reasons: vec![Reason::Static(ERR_CANNOT_ALLOCATE)],
                    detail: Some((String::new(), e)),
                });
            }
        };
        if footprints.is_empty() {
            return None;
        }
        let unresolvable = |reason: &'static str, claim: &str, text: String| Rejection {
            plugin: NAME,
            code: Code::UnschedulableAndUnresolvable,
            reasons: vec![Reason::Static(reason)],
            detail: Some((claim.to_owned(), text)),
        };
        // validateNodeAllocatableDRAClaimSharing: a claim with a mapped device that another
        // placed pod uses (upstream: `status.reservedFor` names another consumer).
        let pc = self.pod_claims.get(&pod)?;
        for fp in footprints.iter().filter(|f| f.mapped) {
            let shared = pc
                .entries
                .iter()
                .find(|(_, i)| self.claims[*i].name == fp.claim)
                .and_then(|(_, ci)| self.users.get(*ci))
                .is_some_and(|users| users.iter().any(|u| *u != pod && self.placed.contains(u)));
            if shared {
                return Some(unresolvable(
                    node_allocatable::ERR_SHARED,
                    &fp.claim,
                    node_allocatable::err_shared(&fp.claim),
                ));
            }
        }
        if let Some(id) = na_pod.pod_level_short(&footprints) {
            let (reason, name) = match id {
                crate::sched::resources::CPU => (node_allocatable::ERR_POD_LEVEL_CPU, "cpu"),
                crate::sched::resources::MEMORY => {
                    (node_allocatable::ERR_POD_LEVEL_MEMORY, "memory")
                }
                _ => (
                    node_allocatable::ERR_POD_LEVEL_OTHER,
                    na.names
                        .iter()
                        .find(|(_, i)| **i == id)
                        .map_or("hugepages", |(n, _)| n.as_str()),
                ),
            };
            let claim = footprints.first().map_or("", |f| f.claim.as_str());
            return Some(unresolvable(
                reason,
                claim,
                node_allocatable::err_pod_level(name),
            ));
        }
        let demand = na_pod.requests(&footprints);
        let mut reasons = Vec::new();
        let mut code = Code::Unschedulable;
        for (id, want) in &demand {
            if !na.checked.contains(id) {
                continue;
            }
            if *want > 0 && *want > node.free(*id) {
                reasons.push(Reason::Insufficient(*id));
                if *want > node.allocatable(*id) {
                    code = Code::UnschedulableAndUnresolvable;
                }
            }
        }
        (!reasons.is_empty()).then_some(Rejection {
            plugin: NAME,
            code,
            reasons,
            detail: None,
        })
    }

    fn unallocated(&self, pod: PodId) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .pod_claims
            .get(&pod)
            .map(|pc| {
                pc.entries
                    .iter()
                    .map(|(_, i)| *i)
                    .filter(|i| self.claims[*i].allocation.is_none())
                    .collect()
            })
            .unwrap_or_default();
        out.dedup();
        out
    }

    /// DynamicResources PreEnqueue: the message when one of the pod's claims does not exist,
    /// so the pod never reaches the active queue (upstream `PreEnqueue` →
    /// `foreachPodResourceClaim`; the first failing entry in spec order wins).
    pub(crate) fn pre_enqueue(&self, pod: PodId) -> Option<&str> {
        self.pod_claims.get(&pod)?.problem.as_deref()
    }

    /// The DynamicResources filter for `pod` on `node`.
    pub fn filter(&self, pod: PodId, node: &NodeState) -> Option<Rejection> {
        let pc = self.pod_claims.get(&pod)?;
        if let Some(problem) = &pc.problem {
            return Some(Rejection {
                plugin: NAME,
                code: Code::UnschedulableAndUnresolvable,
                reasons: vec![Reason::Static(ERR_CANNOT_ALLOCATE)],
                detail: Some((String::new(), problem.clone())),
            });
        }
        for (_, i) in &pc.entries {
            if let Some((_, scope)) = &self.claims[*i].allocation
                && !scope.matches(&node.name, &node.labels)
            {
                return Some(Rejection {
                    plugin: NAME,
                    code: Code::UnschedulableAndUnresolvable,
                    reasons: vec![Reason::Static(ERR_NOT_AVAILABLE_ON_NODE)],
                    detail: Some((
                        self.claims[*i].name.clone(),
                        "allocated to devices another node owns".to_owned(),
                    )),
                });
            }
        }
        let todo = self.unallocated(pod);
        if todo.is_empty() {
            return self.na_filter(pod, node, &todo);
        }
        match self.search_for_filter(&todo, node) {
            Ok(()) => self.na_filter(pod, node, &todo),
            Err((ci, failure)) => Some(Rejection {
                plugin: NAME,
                code: if matches!(failure, allocate::Failure::Cel(_)) {
                    Code::Error
                } else {
                    Code::Unschedulable
                },
                reasons: vec![Reason::Static(ERR_CANNOT_ALLOCATE)],
                detail: Some((
                    self.claims[todo[ci.min(todo.len() - 1)]].name.clone(),
                    failure.text(),
                )),
            }),
        }
    }

    /// The node's equivalence class and its own pools (cached per node name).
    fn node_class(&self, memo: &mut FilterMemo, node: &NodeState) -> Option<NodeClass> {
        if let Some((_, c)) = memo.classes.get(&node_key(&node.name)) {
            return c.clone();
        }
        let inv = &self.inventory;
        let mut seq = Vec::new();
        let mut pools: Vec<usize> = Vec::new();
        let mut class = Some(());
        for d in inv.devices_near(&node.name) {
            let dev = &inv.devices[d];
            if let Scope::Node(_) = dev.scope {
                let pool = &inv.pools[dev.pool];
                if !pool.complete || pool.invalid.is_some() {
                    class = None;
                    break;
                }
                let local = match pools.iter().position(|p| *p == dev.pool) {
                    Some(i) => i,
                    None => {
                        pools.push(dev.pool);
                        pools.len() - 1
                    }
                };
                // No shape (an inventory built without `reindex`): never equivalent.
                let Some(shape) = inv.shapes.get(d) else {
                    class = None;
                    break;
                };
                seq.push((1 << 63) | ((local as u64) << 32) | u64::from(*shape));
            } else if dev.scope.matches(&node.name, &node.labels) {
                seq.push(d as u64);
            }
        }
        let result = class.map(|()| {
            let next = u32::try_from(memo.interned.len()).unwrap_or(u32::MAX);
            let id = *memo.interned.entry(seq).or_insert(next);
            (id, Rc::from(pools))
        });
        memo.classes.insert(
            node_key(&node.name),
            (std::sync::Arc::clone(&node.name), result.clone()),
        );
        result
    }

    /// The filter's search: whether `todo` can be allocated on `node`, answered from an
    /// equivalent node's search when there is one (see [`FilterMemo`]).
    fn search_for_filter(
        &self,
        todo: &[usize],
        node: &NodeState,
    ) -> Result<(), (usize, allocate::Failure)> {
        let mut memo = self.memo.borrow_mut();
        let class = self
            .node_class(&mut memo, node)
            .filter(|(_, pools)| pools.iter().all(|p| !self.in_use.pools.contains_key(p)))
            .map(|(c, _)| c);
        let Some(class) = class else {
            drop(memo);
            return self.try_allocate(todo, node).map(|_| ());
        };
        let current = memo
            .key
            .as_ref()
            .is_some_and(|(t, v)| t == todo && *v == self.in_use.version);
        if !current {
            memo.key = Some((todo.to_vec(), self.in_use.version));
            memo.results.clear();
        }
        if let Some(r) = memo.results.get(&class) {
            let r = r.clone();
            memo.hits += 1;
            return r;
        }
        drop(memo);
        let r = self.try_allocate(todo, node).map(|_| ());
        self.memo.borrow_mut().results.insert(class, r.clone());
        r
    }

    /// Filter searches answered by node equivalence so far.
    #[cfg(test)]
    pub(crate) fn memo_hits(&self) -> u64 {
        self.memo.borrow().hits
    }

    fn try_allocate(
        &self,
        todo: &[usize],
        node: &NodeState,
    ) -> Result<Vec<Vec<Allocated>>, (usize, allocate::Failure)> {
        let specs: Vec<&ClaimSpec> = todo.iter().map(|i| &self.claims[*i].spec).collect();
        let view = allocate::NodeView {
            name: &node.name,
            labels: &node.labels,
        };
        allocate::allocate(
            &self.inventory,
            &mut self.selectors.borrow_mut(),
            &view,
            &specs,
            &self.in_use,
            self.features,
            self.budget,
        )
    }

    /// Reserve: allocates `pod`'s unallocated claims on `node` (the filter passed there).
    pub(crate) fn reserve(&mut self, pod: PodId, node: &NodeState) {
        self.placed.insert(pod);
        let todo = self.unallocated(pod);
        if !todo.is_empty()
            && let Ok(results) = self.try_allocate(&todo, node)
        {
            for (i, mut devices) in todo.iter().zip(results) {
                for share in devices.iter_mut().filter_map(|a| a.share.as_mut()) {
                    self.shares_named += 1;
                    share.id = simulated_share_id(self.shares_named);
                }
                self.in_use.apply(&self.inventory, &devices, 1);
                let mut scope = allocate::allocation_scope(&self.inventory, &devices);
                // bindsToNode: the scheduler sets the allocation's node selector to the node
                // it chose (semantics §7.3; DRA docs "Device binding conditions").
                if devices.iter().any(|a| {
                    self.inventory.devices[a.device]
                        .extra
                        .as_deref()
                        .is_some_and(|e| e.binds_to_node)
                }) {
                    scope = Scope::Node(node.name.to_string());
                }
                self.claims[*i].allocation = Some((devices, scope));
            }
            self.reserved.insert(pod, todo);
        }
        // The assumed pod carries the node-allocatable statuses the filter computed (upstream
        // `assume` copies them from the cycle state), so they count on the node.
        if let Some(na) = self.na.clone()
            && let Ok(footprints) = self.na_footprints(&na, pod, node, &[])
            && let Some(na_pod) = na.pods.get(&pod)
            && !footprints.is_empty()
            && !self.na_delta.contains_key(&pod)
        {
            let delta = na_pod.delta(&footprints);
            if !delta.is_empty() {
                self.na_delta.insert(pod, delta);
                self.na_assumed.insert(pod);
            }
        }
    }

    /// Unreserve: drops the allocations `pod`'s Reserve made.
    pub(crate) fn unreserve(&mut self, pod: PodId) {
        self.placed.remove(&pod);
        if self.na_assumed.remove(&pod) {
            self.na_delta.remove(&pod);
        }
        for i in self.reserved.remove(&pod).unwrap_or_default() {
            if let Some((devices, _)) = self.claims[i].allocation.take() {
                self.in_use.apply(&self.inventory, &devices, -1);
            }
        }
    }

    /// Devices of `pod`'s claims: (claim, request, driver, pool, device).
    pub(crate) fn devices_of(&self, pod: PodId) -> Vec<DeviceRef> {
        let mut out = Vec::new();
        for (_, i) in self
            .pod_claims
            .get(&pod)
            .map(|pc| pc.entries.as_slice())
            .unwrap_or_default()
        {
            let c = &self.claims[*i];
            for a in c.allocation.iter().flat_map(|(d, _)| d) {
                let d = &self.inventory.devices[a.device];
                let pool = &self.inventory.pools[d.pool];
                let share = a.share.as_ref();
                out.push(DeviceRef {
                    claim: c.name.clone(),
                    request: a.request.clone(),
                    driver: d.driver.clone(),
                    pool: pool.name.clone(),
                    device: d.name.clone(),
                    // Keys as the ResourceSlice wrote them, as upstream records them.
                    consumed_capacity: share
                        .into_iter()
                        .flat_map(|s| &s.consumed)
                        .map(|(k, v)| {
                            let name = d.capacities.get(k).map_or(k, |c| &c.name);
                            (name.clone(), v.text.clone())
                        })
                        .collect(),
                    share_id: share.map(|s| s.id.clone()).filter(|id| !id.is_empty()),
                    binding_conditions: self.pending_binding(c, a.device),
                    binds_to_node: d.extra.as_deref().is_some_and(|e| e.binds_to_node),
                });
            }
        }
        out
    }

    /// The binding conditions of `device` in `claim` not yet `True` in the claim's device
    /// status: what PreBind waits for (none with DRADeviceBindingConditions off).
    pub(crate) fn pending_binding(&self, claim: &ClaimInstance, device: DeviceId) -> Vec<String> {
        if !self.features.binding_conditions {
            return Vec::new();
        }
        self.inventory.devices[device]
            .extra
            .as_deref()
            .map(|e| {
                e.binding_conditions
                    .iter()
                    .filter(|c| !claim.device_conditions.contains(&(device, (*c).clone())))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Evicting `evicted` deletes the per-pod claims only they use: their devices are freed.
    /// PodGroup claims stay allocated (they belong to the PodGroup, which is not deleted).
    /// Returns what was released, for [`restore`](Self::restore).
    pub(crate) fn release(
        &mut self,
        evicted: &std::collections::HashSet<PodId>,
    ) -> Vec<(usize, (Vec<Allocated>, Scope))> {
        // Only the evicted pods' own claims can be freed; sorted for a deterministic order.
        let mut candidates: Vec<usize> = evicted
            .iter()
            .filter_map(|p| self.pod_claims.get(p))
            .flat_map(|pc| pc.entries.iter().map(|(_, ci)| *ci))
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut released = Vec::new();
        for ci in candidates {
            let claim = &mut self.claims[ci];
            if !claim.held_by_group
                && !claim.reserved_by_unknown_pod
                && self.users[ci].iter().all(|p| evicted.contains(p))
                && let Some(a) = claim.allocation.take()
            {
                self.in_use.apply(&self.inventory, &a.0, -1);
                released.push((ci, a));
            }
        }
        released
    }

    /// The claims `pod` uses (indices, in spec order, possibly repeated).
    pub(crate) fn claims_of(&self, pod: PodId) -> impl Iterator<Item = usize> + '_ {
        self.pod_claims
            .get(&pod)
            .into_iter()
            .flat_map(|pc| pc.entries.iter().map(|(_, ci)| *ci))
    }

    /// Takes claim `index`'s allocation away (its devices become free) and returns it; see
    /// [`restore`](Self::restore).
    pub(crate) fn take_allocation(&mut self, index: usize) -> Option<(Vec<Allocated>, Scope)> {
        let a = self.claims[index].allocation.take()?;
        self.in_use.apply(&self.inventory, &a.0, -1);
        Some(a)
    }

    /// Undoes [`release`](Self::release).
    pub(crate) fn restore(&mut self, released: Vec<(usize, (Vec<Allocated>, Scope))>) {
        for (ci, a) in released {
            self.in_use.apply(&self.inventory, &a.0, 1);
            self.claims[ci].allocation = Some(a);
        }
    }

    /// Number of devices `pod`'s claims hold.
    pub(crate) fn device_count(&self, pod: PodId) -> usize {
        self.pod_claims.get(&pod).map_or(0, |pc| {
            pc.entries
                .iter()
                .filter_map(|(_, i)| self.claims[*i].allocation.as_ref())
                .map(|(d, _)| d.len())
                .sum()
        })
    }

    /// Whether claim `index` was allocated by a Reserve in this simulation.
    pub(crate) fn reserved_claim(&self, index: usize) -> bool {
        self.reserved.values().any(|v| v.contains(&index))
    }

    /// Whether the DynamicResources filter's answer for `pod` on a node reads that node alone
    /// (and the pod's own claims): every claim of the pod exists, is used by no other pod and
    /// is not allocated yet, and no device of the cluster can be used from more than one node
    /// (no `allNodes` or `nodeSelector` slice). Placing another pod then changes the answer
    /// only on the node it goes to.
    pub(crate) fn node_local(&self, pod: PodId) -> bool {
        let Some(pc) = self.pod_claims.get(&pod) else {
            return true;
        };
        pc.problem.is_none()
            && self.inventory.shared.is_empty()
            && pc.entries.iter().all(|(_, ci)| {
                self.claims[*ci].allocation.is_none()
                    && self.users.get(*ci).is_some_and(|u| u.as_slice() == [pod])
            })
    }

    /// Whether two pods' claims ask for the same devices: as many entries, entry by entry the
    /// same requirements, none allocated (the filter then gives both the same answer on a node
    /// in the same state).
    pub(crate) fn same_claims(&self, a: PodId, b: PodId) -> bool {
        let entries = |p: PodId| self.pod_claims.get(&p).map(|pc| pc.entries.as_slice());
        match (entries(a), entries(b)) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                x.len() == y.len()
                    && x.iter().zip(y).all(|((_, i), (_, j))| {
                        let (ci, cj) = (&self.claims[*i], &self.claims[*j]);
                        ci.allocation.is_none() && cj.allocation.is_none() && ci.spec == cj.spec
                    })
            }
            _ => false,
        }
    }
}

/// `driver/pool/device: condition` for every binding failure condition of `c`'s allocation
/// that is `True` in its `status.devices`. The conditions are read from the allocation result
/// (the scheduler copies the device's `bindingFailureConditions` there), else from the device
/// (test/integration/dra: a failed device may since have left its slice).
fn binding_failures_of(
    c: &k8s_openapi::api::resource::v1::ResourceClaim,
    inv: &Inventory,
) -> Vec<String> {
    let Some(status) = c.status.as_ref() else {
        return Vec::new();
    };
    let Some(a) = status.allocation.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in a.devices.iter().flat_map(|d| d.results.iter().flatten()) {
        let key = (r.driver.clone(), r.pool.clone(), r.device.clone());
        let from_device = || {
            inv.ids
                .get(&key)
                .and_then(|id| inv.devices[*id].extra.as_deref())
                .map(|e| e.binding_failure_conditions.clone())
                .unwrap_or_default()
        };
        let failure = r
            .binding_failure_conditions
            .clone()
            .filter(|f| !f.is_empty())
            .unwrap_or_else(from_device);
        let true_now = status
            .devices
            .iter()
            .flatten()
            .filter(|d| d.driver == r.driver && d.pool == r.pool && d.device == r.device)
            .flat_map(|d| d.conditions.iter().flatten())
            .filter(|cond| cond.status == "True");
        for cond in true_now {
            if failure.contains(&cond.type_) {
                out.push(format!(
                    "{}/{}/{}: {}",
                    r.driver, r.pool, r.device, cond.type_
                ));
            }
        }
    }
    out
}

/// The `allocation.allocationTimestamp` of `c` when its binding waits for binding conditions:
/// some allocated device has `bindingConditions`, and not all of them are `True` in the
/// claim's `status.devices` (`isClaimReadyForBinding`; a device without a status entry is not
/// ready). `None` when ready, unallocated, or without a timestamp (the scheduler writes it in
/// PreBind; without it upstream's `isClaimTimeout` never fires).
fn binding_wait_of(
    c: &k8s_openapi::api::resource::v1::ResourceClaim,
) -> Option<k8s_openapi::jiff::Timestamp> {
    let status = c.status.as_ref()?;
    let a = status.allocation.as_ref()?;
    let at = a.allocation_timestamp.as_ref()?.0;
    let waiting = a
        .devices
        .iter()
        .flat_map(|d| d.results.iter().flatten())
        .any(|r| {
            let wanted = r.binding_conditions.as_deref().unwrap_or_default();
            if wanted.is_empty() {
                return false;
            }
            let entry = status
                .devices
                .iter()
                .flatten()
                .find(|d| d.driver == r.driver && d.pool == r.pool && d.device == r.device);
            let Some(entry) = entry else {
                return true;
            };
            let conditions = entry.conditions.as_deref().unwrap_or_default();
            !wanted.iter().all(|w| {
                conditions
                    .iter()
                    .any(|c| &c.type_ == w && c.status == "True")
            })
        });
    waiting.then_some(at)
}

/// One allocated device of a placement.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeviceRef {
    /// Claim name.
    pub claim: String,
    /// Request (or `request/subrequest`).
    pub request: String,
    /// Driver.
    pub driver: String,
    /// Pool.
    pub pool: String,
    /// Device.
    pub device: String,
    /// Capacity this share consumed (devices with `allowMultipleAllocations`): capacity name →
    /// quantity, rounded up per the capacity's `requestPolicy`.
    #[serde(
        rename = "consumedCapacity",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub consumed_capacity: BTreeMap<String, String>,
    /// The share of a device with `allowMultipleAllocations` (a simulated, deterministic UID
    /// for allocations this simulation made; upstream generates a random one).
    #[serde(rename = "shareID", skip_serializing_if = "Option::is_none")]
    pub share_id: Option<String>,
    /// The device's `bindingConditions` not yet `True` in the claim's device status: the pod's
    /// binding waits for them (DRADeviceBindingConditions; up to the profile's `bindingTimeout`, [`crate::sched::profile::Profile::dra_binding_timeout_seconds`]).
    #[serde(rename = "bindingConditions", skip_serializing_if = "Vec::is_empty")]
    pub binding_conditions: Vec<String>,
    /// The device's `bindsToNode`: the allocation is limited to the chosen node.
    #[serde(rename = "bindsToNode", skip_serializing_if = "std::ops::Not::not")]
    pub binds_to_node: bool,
}

/// The `shareID` of the `n`th share this simulation allocates: a UID-shaped, deterministic
/// stand-in for upstream's random one.
fn simulated_share_id(n: u64) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;
    use crate::sched::node_state::ClusterState;
    use crate::snapshot::facts::Component;
    use crate::snapshot::source::{Collector, files::load_str};

    const NODE: &str = r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}, "status": {"allocatable": {"cpu": "8", "pods": "110"}}}"#;
    const CLASS: &str = r#"{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": "device.driver == \"gpu.example.com\""}}]}}"#;
    /// One GPU with 80Gi of memory, shared (`allowMultipleAllocations`).
    const SHARED_GPU: &str = r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "gpu.example.com", "nodeName": "node1", "pool": {"name": "node1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "gpu-0", "allowMultipleAllocations": true, "capacity": {"memory": {"value": "80Gi"}}}]}}"#;

    /// A ClusterFacts document setting kube-scheduler gates.
    fn facts(gates: &str) -> String {
        format!(
            r#"{{"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts", "snapshotTime": "2026-11-20T12:00:00Z", "serverVersion": "v1.37.0", "components": [{{"component": "kube-scheduler", "version": "v1.37.0", "featureGates": {{{gates}}}}}]}}"#
        )
    }

    /// A pending pod with one claim from template `template`.
    fn pod(name: &str, template: &str) -> String {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}", "namespace": "default"}}, "spec": {{"containers": [{{"name": "c", "image": "x"}}], "resourceClaims": [{{"name": "gpu", "resourceClaimTemplateName": "{template}"}}]}}, "status": {{"phase": "Pending"}}}}"#
        )
    }

    /// A template `name` with one request: `exactly` fields given as JSON members.
    fn template(name: &str, exactly: &str) -> String {
        format!(
            r#"{{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {{"name": "{name}", "namespace": "default"}}, "spec": {{"spec": {{"devices": {{"requests": [{{"name": "gpu", "exactly": {{"deviceClassName": "gpu"{exactly}}}}}]}}}}}}}}"#
        )
    }

    fn mem(amount: &str) -> String {
        format!(r#", "capacity": {{"requests": {{"memory": "{amount}"}}}}"#)
    }

    fn state(docs: &[String]) -> ClusterState {
        let mut c = Collector::new();
        let text = format!("---\n{}", docs.join("\n---\n"));
        load_str(&text, "<test>", &mut c).expect("test YAML loads");
        let s = c.finish();
        let gates = s
            .facts
            .gates_for(Component::KubeScheduler, &BTreeMap::new());
        ClusterState::build(&s, &gates)
    }

    fn id(st: &ClusterState, name: &str) -> PodId {
        st.pod_ids[&("default".to_owned(), name.to_owned())]
    }

    /// Filter then Reserve `name` on node1; the rejection text if the filter fails.
    fn place(st: &mut ClusterState, name: &str) -> Result<(), String> {
        let p = id(st, name);
        let node = st.nodes[0].clone();
        if let Some(r) = st.dra.filter(p, &node) {
            return Err(r.detail.map(|(_, d)| d).unwrap_or_default());
        }
        st.dra.reserve(p, &node);
        Ok(())
    }

    fn base(extra: &[String]) -> Vec<String> {
        let mut docs = vec![NODE.to_owned(), CLASS.to_owned(), SHARED_GPU.to_owned()];
        docs.extend_from_slice(extra);
        docs
    }

    fn used(st: &ClusterState) -> i128 {
        st.dra
            .in_use
            .capacity
            .get(&0)
            .and_then(|t| t.get("gpu.example.com/memory"))
            .copied()
            .unwrap_or(0)
    }

    const GI: i128 = 1 << 30;

    /// Node `name` with its own pool of two GPUs of `model`.
    fn gpu_node(name: &str, model: &str) -> [String; 2] {
        [
            format!(
                r#"{{"apiVersion": "v1", "kind": "Node", "metadata": {{"name": "{name}", "labels": {{"kubernetes.io/hostname": "{name}"}}}}, "status": {{"allocatable": {{"cpu": "8", "pods": "110"}}}}}}"#
            ),
            format!(
                r#"{{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {{"name": "{name}-gpus"}}, "spec": {{"driver": "gpu.example.com", "nodeName": "{name}", "pool": {{"name": "{name}", "generation": 1, "resourceSliceCount": 1}}, "devices": [{{"name": "gpu-0", "attributes": {{"model": {{"string": "{model}"}}}}}}, {{"name": "gpu-1", "attributes": {{"model": {{"string": "{model}"}}}}}}]}}}}"#
            ),
        ]
    }

    /// Every node's filter answer for `pod`, straight from the search.
    fn searched(st: &ClusterState, pod: PodId) -> Vec<Result<(), String>> {
        let todo = st.dra.unallocated(pod);
        st.nodes
            .iter()
            .map(|n| {
                st.dra
                    .try_allocate(&todo, n)
                    .map(|_| ())
                    .map_err(|(_, f)| f.text())
            })
            .collect()
    }

    fn filtered(st: &ClusterState, pod: PodId) -> Vec<Result<(), String>> {
        st.nodes
            .iter()
            .map(|n| match st.dra.filter(pod, n) {
                None => Ok(()),
                Some(r) => Err(r.detail.map(|(_, d)| d).unwrap_or_default()),
            })
            .collect()
    }

    /// A node of 8 cpu with one CCX device mapped to 4 cpu (deviceMultiplier) and a template for
    /// it; pods ask 1 cpu each. DRANodeAllocatableResources as given.
    fn ccx_docs(gate: bool, pods: &[&str]) -> Vec<String> {
        let mut docs = vec![
            facts(&format!(r#""DRANodeAllocatableResources": {gate}"#)),
            NODE.to_owned(),
            CLASS.to_owned(),
            r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "gpu.example.com", "nodeName": "node1", "pool": {"name": "node1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "ccx-0", "nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "4"}}}}, {"name": "ccx-1", "nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "4"}}}}]}}"#.to_owned(),
            template("ccx", ""),
        ];
        for p in pods {
            docs.push(pod(p, "ccx").replace(
                r#""image": "x"}"#,
                r#""image": "x", "resources": {"requests": {"cpu": "1"}}}"#,
            ));
        }
        docs
    }

    /// nodeallocatable.go: the claim's mapped cpu is charged to the pod on its node at Reserve
    /// (upstream `assume` copies the statuses), and forgetting the pod gives it back.
    #[test]
    fn node_allocatable_delta_is_charged_at_reserve_and_given_back() {
        let mut st = state(&ccx_docs(true, &["a", "b"]));
        let (a, b) = (id(&st, "a"), id(&st, "b"));
        assert!(st.dra.filter(a, &st.nodes[0]).is_none());
        st.assume(a, 0);
        assert_eq!(
            st.dra.na_delta(a),
            Some(&vec![(crate::sched::resources::CPU, 4000)])
        );
        assert_eq!(st.nodes[0].requested[0], 5000, "1 cpu asked + 4 mapped");
        // b: 1 + 4 more than the 3 left.
        let r = st.dra.filter(b, &st.nodes[0]).expect("b does not fit");
        assert_eq!(
            r.reasons,
            vec![Reason::Insufficient(crate::sched::resources::CPU)]
        );
        assert_eq!(r.plugin, NAME);
        st.forget(a);
        assert_eq!(st.nodes[0].requested[0], 0);
        assert!(st.dra.na_delta(a).is_none());
        assert!(st.dra.filter(b, &st.nodes[0]).is_none());
    }

    /// With the gate off (the 1.37 default) claims charge nothing.
    #[test]
    fn node_allocatable_gate_off_charges_nothing() {
        let mut st = state(&ccx_docs(false, &["a", "b"]));
        let (a, b) = (id(&st, "a"), id(&st, "b"));
        st.assume(a, 0);
        assert!(st.dra.na_delta(a).is_none());
        assert_eq!(st.nodes[0].requested[0], 1000);
        assert!(st.dra.filter(b, &st.nodes[0]).is_none());
    }

    #[test]
    fn equivalent_untouched_nodes_share_one_search_and_agree_with_it() {
        let mut docs = vec![CLASS.to_owned()];
        for (name, model) in [
            ("n1", "a100"),
            ("n2", "a100"),
            ("n3", "a100"),
            ("n4", "h100"),
        ] {
            docs.extend(gpu_node(name, model));
        }
        docs.extend([
            template("one", ""),
            template("two", r#", "count": 2"#),
            template("three", r#", "count": 3"#),
            template(
                "h100",
                r#", "selectors": [{"cel": {"expression": "device.attributes[\"gpu.example.com\"].model == \"h100\""}}]"#,
            ),
            pod("first", "one"),
            pod("pair", "two"),
            pod("too-many", "three"),
            pod("h", "h100"),
        ]);
        let mut st = state(&docs);
        // n1..n3 are one class, n4 (another model) its own.
        let too_many = id(&st, "too-many");
        assert_eq!(filtered(&st, too_many), searched(&st, too_many));
        assert_eq!(st.dra.memo_hits(), 2, "n2 and n3 answered by n1's search");
        let h = id(&st, "h");
        assert_eq!(filtered(&st, h), searched(&st, h));
        assert_eq!(
            filtered(&st, h),
            vec![
                Err(allocate::Failure::NoMatchingDevice.text()),
                Err(allocate::Failure::NoMatchingDevice.text()),
                Err(allocate::Failure::NoMatchingDevice.text()),
                Ok(())
            ]
        );
        // A device allocated on n1 takes n1 out of its class; n2 and n3 still share.
        let first = id(&st, "first");
        let n1 = st.nodes[0].clone();
        st.dra.reserve(first, &n1);
        let before = st.dra.memo_hits();
        let pair = id(&st, "pair");
        assert_eq!(filtered(&st, pair), searched(&st, pair));
        assert_eq!(
            filtered(&st, pair)[..3],
            [
                Err(allocate::Failure::AllMatchingAllocated.text()),
                Ok(()),
                Ok(())
            ]
        );
        assert!(st.dra.memo_hits() > before);
    }

    /// Issue 14 item 2: a count that API validation accepts (any positive int64) must not
    /// size anything before the 32-device limit is checked (this used to allocate 2^31 slots).
    #[test]
    fn a_huge_count_is_refused_before_anything_is_allocated() {
        let mut docs = vec![CLASS.to_owned()];
        docs.extend(gpu_node("n1", "a100"));
        docs.extend([
            template("huge", r#", "count": 2147483647"#),
            template("max", r#", "count": 9223372036854775807"#),
            pod("a", "huge"),
            pod("b", "max"),
        ]);
        let st = state(&docs);
        for name in ["a", "b"] {
            let got = filtered(&st, id(&st, name));
            assert_eq!(got.len(), 1);
            let err = got[0].clone().unwrap_err();
            assert!(
                err.contains("exceeds the claim limit of 32"),
                "{name}: {err}"
            );
        }
    }

    #[test]
    fn two_claims_share_one_device_until_its_capacity_is_used() {
        let mut st = state(&base(&[
            template("t30", &mem("30Gi")),
            pod("a", "t30"),
            pod("b", "t30"),
            pod("c", "t30"),
        ]));
        assert_eq!(place(&mut st, "a"), Ok(()));
        assert_eq!(place(&mut st, "b"), Ok(()));
        assert_eq!(used(&st), 60 * GI * 1000);
        let a = st.dra.devices_of(id(&st, "a"));
        let b = st.dra.devices_of(id(&st, "b"));
        assert_eq!(
            (a[0].device.as_str(), b[0].device.as_str()),
            ("gpu-0", "gpu-0")
        );
        assert_eq!(
            a[0].consumed_capacity,
            BTreeMap::from([("memory".to_owned(), "30Gi".to_owned())])
        );
        assert_ne!(a[0].share_id, b[0].share_id);
        assert!(a[0].share_id.is_some());
        assert_eq!(
            place(&mut st, "c"),
            Err(allocate::Failure::CapacityExhausted.text())
        );
    }

    #[test]
    fn release_gives_the_capacity_back_and_restore_takes_it_again() {
        let mut st = state(&base(&[
            template("t50", &mem("50Gi")),
            pod("a", "t50"),
            pod("b", "t50"),
        ]));
        assert_eq!(place(&mut st, "a"), Ok(()));
        let b = id(&st, "b");
        let node = st.nodes[0].clone();
        assert!(
            st.dra.filter(b, &node).is_some(),
            "80Gi cannot hold 2 × 50Gi"
        );
        let released = st.dra.release(&HashSet::from([id(&st, "a")]));
        assert_eq!(used(&st), 0);
        assert!(st.dra.filter(b, &node).is_none());
        st.dra.restore(released);
        assert_eq!(used(&st), 50 * GI * 1000);
        assert!(st.dra.filter(b, &node).is_some());
        st.dra.unreserve(id(&st, "a"));
        assert_eq!(used(&st), 0);
        assert!(st.dra.filter(b, &node).is_none());
    }

    #[test]
    fn over_capacity_requests_and_unknown_capacities_find_no_device() {
        let mut st = state(&base(&[
            template("big", &mem("81Gi")),
            template("other", r#", "capacity": {"requests": {"cores": "1"}}"#),
            pod("a", "big"),
            pod("b", "other"),
        ]));
        let want = Err(allocate::Failure::CapacityExhausted.text());
        assert_eq!(place(&mut st, "a"), want);
        assert_eq!(place(&mut st, "b"), want);
    }

    #[test]
    fn existing_shares_in_the_snapshot_consume_capacity() {
        let existing = r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "old", "namespace": "default"}, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "capacity": {"requests": {"memory": "60Gi"}}}}]}}, "status": {"allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node1", "device": "gpu-0", "shareID": "6f1c2a8e-0000-4000-8000-000000000001", "consumedCapacity": {"memory": "60Gi"}}]}}}}"#;
        let mut st = state(&base(&[
            existing.to_owned(),
            template("t30", &mem("30Gi")),
            template("t20", &mem("20Gi")),
            pod("a", "t30"),
            pod("b", "t20"),
        ]));
        assert_eq!(used(&st), 60 * GI * 1000);
        assert!(place(&mut st, "a").is_err(), "60Gi + 30Gi > 80Gi");
        assert_eq!(place(&mut st, "b"), Ok(()));
    }

    #[test]
    fn an_exclusive_existing_allocation_holds_even_a_shareable_device() {
        // A result without a shareID holds the device exclusively (upstream: AllocatedDevices).
        let existing = r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "old", "namespace": "default"}, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}, "status": {"allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node1", "device": "gpu-0"}]}}}}"#;
        let mut st = state(&base(&[
            existing.to_owned(),
            template("t1", &mem("1Gi")),
            pod("a", "t1"),
        ]));
        assert_eq!(
            place(&mut st, "a"),
            Err(allocate::Failure::AllMatchingAllocated.text())
        );
    }

    #[test]
    fn one_request_may_pick_the_same_shared_device_twice() {
        let mut st = state(&base(&[
            template("two", &format!(r#", "count": 2{}"#, mem("40Gi"))),
            pod("a", "two"),
        ]));
        assert_eq!(place(&mut st, "a"), Ok(()));
        let devices = st.dra.devices_of(id(&st, "a"));
        assert_eq!(devices.len(), 2);
        assert!(devices.iter().all(|d| d.device == "gpu-0"));
        assert_ne!(devices[0].share_id, devices[1].share_id);
        assert_eq!(used(&st), 80 * GI * 1000);
    }

    #[test]
    fn a_shared_device_consumes_its_counters_once() {
        // Upstream's skipCounterCheck: a second share of the same device neither checks nor
        // consumes the counters again (2 × 50 of 80 would not fit otherwise).
        let slice = r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "gpu.example.com", "nodeName": "node1", "pool": {"name": "node1", "generation": 1, "resourceSliceCount": 1}, "sharedCounters": [{"name": "chip", "counters": {"mem": {"value": "80"}}}], "devices": [{"name": "gpu-0", "allowMultipleAllocations": true, "capacity": {"memory": {"value": "80Gi"}}, "consumesCounters": [{"counterSet": "chip", "counters": {"mem": {"value": "50"}}}]}]}}"#;
        let mut st = state(&[
            NODE.to_owned(),
            CLASS.to_owned(),
            slice.to_owned(),
            template("two", &format!(r#", "count": 2{}"#, mem("10Gi"))),
            pod("a", "two"),
        ]);
        assert_eq!(place(&mut st, "a"), Ok(()));
        assert_eq!(picked(&st, "a"), ["gpu-0", "gpu-0"]);
    }

    #[test]
    fn without_a_request_a_share_consumes_the_whole_capacity() {
        let mut st = state(&base(&[
            template("plain", ""),
            pod("a", "plain"),
            pod("b", "plain"),
        ]));
        assert_eq!(place(&mut st, "a"), Ok(()));
        assert_eq!(used(&st), 80 * GI * 1000);
        assert!(place(&mut st, "b").is_err());
    }

    #[test]
    fn capacity_requests_with_the_gate_off_are_an_error_and_devices_are_exclusive() {
        let docs = |t: &str| {
            let mut d = base(&[template("t", t), pod("a", "t"), pod("b", "t")]);
            d.insert(0, facts(r#""DRAConsumableCapacity": false"#));
            d
        };
        let mut st = state(&docs(&mem("1Gi")));
        let err = place(&mut st, "a").unwrap_err();
        assert!(
            err.contains(
                "has capacity requests, but the DRAConsumableCapacity feature is disabled"
            ),
            "{err}"
        );
        let mut st = state(&docs(""));
        assert_eq!(place(&mut st, "a"), Ok(()));
        assert!(st.dra.devices_of(id(&st, "a"))[0].share_id.is_none());
        assert_eq!(
            place(&mut st, "b"),
            Err(allocate::Failure::AllMatchingAllocated.text())
        );
    }

    /// Devices with list-typed `pcieRoot` attributes, and a claim matching a GPU and a NIC on
    /// it.
    fn list_docs(gates: &str, constraint: &str) -> Vec<String> {
        let slice = r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "gpu.example.com", "nodeName": "node1", "pool": {"name": "node1", "generation": 1, "resourceSliceCount": 1}, "devices": [
            {"name": "gpu-0", "attributes": {"type": {"string": "gpu"}, "pcieRoot": {"strings": ["a", "b"]}}},
            {"name": "nic-0", "attributes": {"type": {"string": "nic"}, "pcieRoot": {"strings": ["b", "c"]}}},
            {"name": "nic-1", "attributes": {"type": {"string": "nic"}, "pcieRoot": {"strings": ["c", "d"]}}},
            {"name": "nic-2", "attributes": {"type": {"string": "nic"}, "pcieRoot": {"string": "d"}}}]}}"#;
        let claim = format!(
            r#"{{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {{"name": "pair", "namespace": "default"}}, "spec": {{"spec": {{"devices": {{"requests": [
                {{"name": "gpu", "exactly": {{"deviceClassName": "gpu", "selectors": [{{"cel": {{"expression": "device.attributes[\"gpu.example.com\"].type == \"gpu\""}}}}]}}}},
                {{"name": "nic", "exactly": {{"deviceClassName": "gpu", "selectors": [{{"cel": {{"expression": "device.attributes[\"gpu.example.com\"].type.includes(\"nic\")"}}}}]}}}}],
                "constraints": [{constraint}]}}}}}}}}"#
        );
        vec![
            facts(gates),
            NODE.to_owned(),
            CLASS.to_owned(),
            slice.to_owned(),
            claim,
            pod("p", "pair"),
        ]
    }

    fn picked(st: &ClusterState, name: &str) -> Vec<String> {
        st.dra
            .devices_of(id(st, name))
            .into_iter()
            .map(|d| d.device)
            .collect()
    }

    #[test]
    fn match_attribute_over_lists_needs_a_common_element() {
        let mut st = state(&list_docs(
            r#""DRAListTypeAttributes": true"#,
            r#"{"matchAttribute": "gpu.example.com/pcieRoot"}"#,
        ));
        assert_eq!(place(&mut st, "p"), Ok(()));
        assert_eq!(picked(&st, "p"), ["gpu-0", "nic-0"]);
    }

    #[test]
    fn distinct_attribute_over_lists_needs_disjoint_sets() {
        let mut st = state(&list_docs(
            r#""DRAListTypeAttributes": true"#,
            r#"{"distinctAttribute": "gpu.example.com/pcieRoot"}"#,
        ));
        assert_eq!(place(&mut st, "p"), Ok(()));
        assert_eq!(picked(&st, "p"), ["gpu-0", "nic-1"]);
    }

    #[test]
    fn list_attributes_are_ignored_with_the_gate_off() {
        // gpu-0's pcieRoot is list-only: without the gate it has no such attribute, so the
        // constraint cannot hold.
        let mut st = state(&list_docs(
            r#""DRAListTypeAttributes": false"#,
            r#"{"matchAttribute": "gpu.example.com/pcieRoot"}"#,
        ));
        assert_eq!(
            place(&mut st, "p"),
            Err(allocate::Failure::ConstraintUnsatisfiable.text())
        );
    }

    #[test]
    fn cel_sees_list_attributes_as_lists() {
        let inv = Inventory::build_with(
            &[serde_json::from_str(
                r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "d.example.com", "allNodes": true, "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "x", "attributes": {"roots": {"ints": [3, 5]}, "v": {"versions": ["1.2.3"]}}}]}}"#,
            )
            .expect("test slice")],
            &[],
            true,
        );
        let mut sel = Selectors::default();
        for (expr, want) in [
            (r#"5 in device.attributes["d.example.com"].roots"#, true),
            (
                r#"device.attributes["d.example.com"].roots.includes(4)"#,
                false,
            ),
            (
                r#"device.attributes["d.example.com"].roots.size() == 2"#,
                true,
            ),
            (
                r#"device.attributes["d.example.com"].v.exists(x, x.isGreaterThan(semver("1.0.0")))"#,
                true,
            ),
        ] {
            let e = sel.compile(expr);
            assert_eq!(sel.matches(&inv, 0, e), Ok(want), "{expr}");
        }
    }

    /// Issue 16 item 4 (claim-entry.md): which claim a PodGroup member's template entry gets.
    /// Exact match with DRAWorkloadResourceClaims on → the group's claim; gate off, or another
    /// template under the same entry name → a claim of the pod's own; a template that does not
    /// exist → held at PreEnqueue with upstream's "ResourceClaim not created yet".
    #[test]
    fn member_entries_share_the_group_claim_only_on_exact_match_with_the_gate() {
        let group = r#"{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": "default"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}}"#;
        let member = |name: &str, template: &str| {
            pod(name, template).replace(
                r#""resourceClaims""#,
                r#""schedulingGroup": {"podGroupName": "pg"}, "resourceClaims""#,
            )
        };
        let claims = |gate: bool, second: &str| {
            let docs = base(&[
                facts(&format!(
                    r#""GenericWorkload": true, "DRAWorkloadResourceClaims": {gate}"#
                )),
                group.to_owned(),
                template("t", ""),
                template("u", ""),
                member("w0", "t"),
                member("w1", second),
            ]);
            let st = state(&docs);
            ["w0", "w1"]
                .iter()
                .map(|p| {
                    let pc = &st.dra.pod_claims[&id(&st, p)];
                    (
                        pc.entries
                            .first()
                            .map(|(_, i)| st.dra.claims[*i].name.clone())
                            .unwrap_or_default(),
                        pc.problem.clone(),
                    )
                })
                .collect::<Vec<(String, Option<String>)>>()
        };
        let shared = ("pg-gpu".to_owned(), None);
        assert_eq!(claims(true, "t"), [shared.clone(), shared.clone()]);
        assert_eq!(
            claims(false, "t"),
            [("w0-gpu".to_owned(), None), ("w1-gpu".to_owned(), None)]
        );
        assert_eq!(claims(true, "u"), [shared, ("w1-gpu".to_owned(), None)]);
        let missing = claims(false, "nope");
        assert_eq!(
            missing[1],
            (
                String::new(),
                Some(
                    r#"pod "default/w1": ResourceClaim not created yet (resourceclaimtemplate "nope" not found)"#
                        .to_owned()
                )
            )
        );
    }

    /// A claim `name` on node1's `gpu-0`, allocated, with `status.reservedFor` as given.
    fn allocated_claim(name: &str, reserved_for: &str) -> String {
        format!(
            r#"{{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {{"name": "{name}", "namespace": "default", "uid": "uid-{name}"}}, "spec": {{"devices": {{"requests": [{{"name": "gpu", "exactly": {{"deviceClassName": "gpu"}}}}]}}}}, "status": {{"allocation": {{"devices": {{"results": [{{"request": "gpu", "driver": "gpu.example.com", "pool": "node1", "device": "gpu-0"}}]}}}}, "reservedFor": [{reserved_for}]}}}}"#
        )
    }

    /// A pod bound to node1 that names claim `claim`.
    fn bound_pod(name: &str, claim: &str) -> String {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}", "namespace": "default", "uid": "uid-{name}"}}, "spec": {{"nodeName": "node1", "containers": [{{"name": "c", "image": "x"}}], "resourceClaims": [{{"name": "gpu", "resourceClaimName": "{claim}"}}]}}, "status": {{"phase": "Running"}}}}"#
        )
    }

    fn pod_ref(name: &str) -> String {
        format!(r#"{{"resource": "pods", "name": "{name}", "uid": "uid-{name}"}}"#)
    }

    /// Which claims `release` frees when `evicted` pods are removed.
    fn released(docs: &[String], evicted: &[&str]) -> Vec<String> {
        let gpu = r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "gpu.example.com", "nodeName": "node1", "pool": {"name": "node1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "gpu-0"}]}}"#;
        let mut all = vec![NODE.to_owned(), CLASS.to_owned(), gpu.to_owned()];
        all.extend_from_slice(docs);
        let mut st = state(&all);
        let evicted: HashSet<PodId> = evicted.iter().map(|n| id(&st, n)).collect();
        let out = st.dra.release(&evicted);
        out.iter()
            .map(|(ci, _)| st.dra.claims[*ci].name.clone())
            .collect()
    }

    // dynamicresources_preemption_test.go `TestRemovePod` (1.37, DRAPreemption on): which
    // claims removing a pod releases in the preemption dry run.
    #[test]
    fn remove_pod_single_user_claim_released() {
        let docs = [allocated_claim("c", &pod_ref("a")), bound_pod("a", "c")];
        assert_eq!(released(&docs, &["a"]), ["c"]);
    }

    #[test]
    fn remove_pod_shared_claim_released_only_when_all_users_are_out() {
        let docs = [
            allocated_claim("shared", &format!("{}, {}", pod_ref("a"), pod_ref("b"))),
            bound_pod("a", "shared"),
            bound_pod("b", "shared"),
        ];
        // "shared-claim-single-user-out-not-released", "shared-claim-all-users-out-released".
        assert!(released(&docs, &["a"]).is_empty());
        assert_eq!(released(&docs, &["a", "b"]), ["shared"]);
    }

    #[test]
    fn remove_pod_pod_group_claim_not_released() {
        let group = r#"{"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "my-group", "uid": "group-uid"}"#;
        let docs = [
            allocated_claim("pg-claim", group),
            bound_pod("a", "pg-claim"),
        ];
        assert!(released(&docs, &["a"]).is_empty());
    }

    #[test]
    fn remove_pod_shared_claim_count_matches_but_uids_differ_not_released() {
        // reservedFor names a pod UID the snapshot does not have (the pod was re-created).
        let other = r#"{"resource": "pods", "name": "a", "uid": "never-simulated-pod-uid"}"#;
        let docs = [
            allocated_claim("spurious", other),
            bound_pod("a", "spurious"),
        ];
        assert!(released(&docs, &["a"]).is_empty());
    }

    #[test]
    fn remove_pod_allocated_unreserved_claim_released() {
        // "allocated-unused-claim-released": no reservedFor at all.
        let docs = [allocated_claim("c", ""), bound_pod("a", "c")];
        assert_eq!(released(&docs, &["a"]), ["c"]);
    }

    /// A claim allocated to a device with binding condition `attached`; `extra` adds to the
    /// allocation (`, "allocationTimestamp": …`) and `status` to the status.
    fn waiting_claim(extra: &str, status: &str) -> k8s_openapi::api::resource::v1::ResourceClaim {
        let text = format!(
            r#"{{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {{"name": "c", "namespace": "default"}}, "spec": {{"devices": {{"requests": [{{"name": "dev", "exactly": {{"deviceClassName": "gpu"}}}}]}}}}, "status": {{"allocation": {{"devices": {{"results": [{{"request": "dev", "driver": "gpu.example.com", "pool": "p", "device": "d", "bindingConditions": ["attached"]}}]}}{extra}}}{status}}}}}"#
        );
        serde_json::from_str(&text).expect("claim parses")
    }

    #[test]
    fn binding_waits_only_while_a_binding_condition_is_not_true() {
        // dynamicresources.go isClaimReadyForBinding / isClaimTimeout.
        let at = r#", "allocationTimestamp": "2026-11-20T11:59:50Z""#;
        let wait = binding_wait_of(&waiting_claim(at, "")).expect("no device status: waiting");
        assert_eq!(wait.to_string(), "2026-11-20T11:59:50Z");
        let condition = |status: &str| {
            format!(
                r#", "devices": [{{"driver": "gpu.example.com", "pool": "p", "device": "d", "conditions": [{{"type": "attached", "status": "{status}", "reason": "r", "message": "", "lastTransitionTime": "2026-11-20T11:59:55Z"}}]}}]"#
            )
        };
        assert!(binding_wait_of(&waiting_claim(at, &condition("False"))).is_some());
        assert!(
            binding_wait_of(&waiting_claim(at, &condition("True"))).is_none(),
            "ready for binding"
        );
        // Without an allocationTimestamp upstream's isClaimTimeout never fires.
        assert!(binding_wait_of(&waiting_claim("", "")).is_none());
    }
}
