//! Structured-parameters allocation for the claims of one pod on one node (semantics §7.3).
//!
//! Upstream: `k8s.io/dynamic-resource-allocation/structured/internal/experimental/allocator_experimental.go`.
//! Claims in order, requests in spec order, devices one by one; `firstAvailable` sub-requests
//! in listed order; exhaustive depth-first backtracking over combinations (never permutations)
//! of devices per request; the first complete solution wins (no scoring). Per device: not
//! allocated (unless `adminAccess`), DeviceClass then request selectors, node scope, taints
//! tolerated, counters of partitionable devices, consumable capacity ([`capacity`]), then
//! `matchAttribute` / `distinctAttribute` constraints (set semantics: with list-typed
//! attributes, a non-empty intersection across the devices / pairwise disjoint sets).
//! `allocationMode: All` takes every matching device and fails on an incomplete or invalid
//! pool. At most 32 devices per claim.
//!
//! Consumable capacity (gate DRAConsumableCapacity): every device's capacities are checked
//! against the request (a capacity the request names but the device lacks skips the device;
//! the rounded amount must satisfy the policy and fit what existing and pending allocations
//! left). A device with `allowMultipleAllocations` is not exclusive: it stays available to other
//! claims and requests — the same claim, even the same request, may pick it again, as upstream
//! does — and each allocation records its consumed capacity and gets a share. It is only
//! unavailable when an existing allocation holds it without a share. Its counters (if it is also
//! partitionable) are checked and consumed by its first share only; existing shares consume no
//! counters, since upstream's allocated state subtracts them for exclusive allocations only.
//!
//! Instead of upstream's filter timeout, the search has a deterministic step budget per
//! (claims, node); when it runs out the verdict says kube-scheduler would likely hit its
//! DynamicResources filter timeout.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::capacity::{self, Amount, Consumed, Totals};
use super::inventory::{AttrValue, DeviceId, Inventory, Scope, qualify};
use super::selector::{ExprId, Selectors};
use crate::sched::selector::Labels;
use crate::snapshot::facts::FeatureGates;

/// The DRA feature gates the allocator looks at (1.37 defaults in [`Default`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// DRAConsumableCapacity (beta, on).
    pub consumable_capacity: bool,
    /// DRAFractionalCapacityRange (beta, on): milli-unit range arithmetic.
    pub fractional_capacity: bool,
    /// DRAListTypeAttributes (alpha, off).
    pub list_attributes: bool,
    /// DRAPreemption (alpha in 1.37, KEP-5690, off): the preemption dry run releases a victim's
    /// own claims. Off, DynamicResources' RemovePod releases nothing, so evicting pods never
    /// frees devices for a preemptor (test/integration/dra/preemption.go
    /// `testPreemptionDisabled`).
    pub preemption: bool,
    /// DRADeviceBindingConditions (beta, on): devices with `bindingConditions` may be
    /// allocated (PreBind then waits for the conditions); off, the allocator skips them.
    pub binding_conditions: bool,
    /// DRANodeAllocatableResources (alpha, off; KEP-5517): devices' `nodeAllocatableResources`
    /// add to the pod's cpu, memory and hugepages ([`super::node_allocatable`]).
    pub node_allocatable: bool,
}

impl Default for Features {
    fn default() -> Self {
        Self {
            consumable_capacity: true,
            fractional_capacity: true,
            list_attributes: false,
            preemption: false,
            binding_conditions: true,
            node_allocatable: false,
        }
    }
}

impl Features {
    /// Reads the gates.
    pub(crate) fn from_gates(gates: &FeatureGates) -> Self {
        Self {
            consumable_capacity: gates.enabled("DRAConsumableCapacity"),
            fractional_capacity: gates.enabled("DRAFractionalCapacityRange"),
            list_attributes: gates.enabled("DRAListTypeAttributes"),
            preemption: gates.enabled("DRAPreemption"),
            binding_conditions: gates.enabled("DRADeviceBindingConditions"),
            node_allocatable: gates.enabled("DRANodeAllocatableResources"),
        }
    }

    /// Whether device `d` may be allocated several times (`allowMultipleAllocations`, honoured
    /// only with DRAConsumableCapacity).
    pub(crate) fn multi(&self, inv: &Inventory, d: DeviceId) -> bool {
        self.consumable_capacity && inv.devices[d].allow_multiple
    }
}

/// Upstream `AllocationResultsMaxSize` (`k8s.io/api/resource/v1/types.go`): the most devices one
/// claim can hold. API validation accepts any positive `count`; the allocator refuses a claim
/// asking for more ("exceeds the claim limit"), checked here before anything is sized by a count.
pub(crate) const MAX_DEVICES_PER_CLAIM: u32 = 32;
/// Devices tried per (pod claims, node) before giving up.
pub(crate) const DEFAULT_STEP_BUDGET: u64 = 200_000;

/// A device toleration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceTol {
    /// Key (empty with Exists: all keys).
    pub key: String,
    /// Operator Exists.
    pub exists: bool,
    /// Value for Equal.
    pub value: String,
    /// Effect (empty: all).
    pub effect: String,
}

impl DeviceTol {
    fn tolerates(&self, key: &str, value: &str, effect: &str) -> bool {
        (self.effect.is_empty() || self.effect == effect)
            && (self.key.is_empty() || self.key == key)
            && (self.exists || (!self.key.is_empty() && self.value == value))
    }
}

/// One way to satisfy a request (the request itself, or one `firstAvailable` sub-request).
#[derive(Debug, Clone, PartialEq)]
pub struct Alternative {
    /// Result name: `request` or `request/subrequest`.
    pub result_name: String,
    /// DeviceClass name.
    pub class: String,
    /// Class selectors then request selectors.
    pub exprs: Vec<ExprId>,
    /// `allocationMode: All`.
    pub all: bool,
    /// `count` for ExactCount.
    pub count: u32,
    /// `adminAccess`.
    pub admin: bool,
    /// Tolerations.
    pub tolerations: Vec<DeviceTol>,
    /// `capacity.requests` by name as written (`None` without a `capacity` field).
    pub capacity: Option<BTreeMap<String, Amount>>,
}

/// A request of a claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Request name.
    pub name: String,
    /// Alternatives in order (one for `exactly`).
    pub alternatives: Vec<Alternative>,
}

/// A constraint of a claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    /// Requests it applies to (empty: all).
    pub requests: Vec<String>,
    /// `matchAttribute` (qualified).
    pub match_attribute: Option<String>,
    /// `distinctAttribute` (qualified).
    pub distinct_attribute: Option<String>,
}

/// A claim's device requirements, compiled.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClaimSpec {
    /// Requests in order.
    pub requests: Vec<Request>,
    /// Constraints.
    pub constraints: Vec<Constraint>,
    /// A problem that makes the claim unallocatable anywhere (missing DeviceClass, > 32 devices).
    pub error: Option<String>,
}

/// One share of a device that allows multiple allocations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Share {
    /// `shareID` (empty until Reserve assigns one to a new allocation).
    pub id: String,
    /// Consumed capacity by qualified capacity name.
    pub consumed: Consumed,
}

/// One allocated device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocated {
    /// The device.
    pub device: DeviceId,
    /// The result name (`request` or `request/subrequest`).
    pub request: String,
    /// Admin access (does not make the device unavailable to others).
    pub admin: bool,
    /// A share of a multi-allocatable device (`None`: the device is held exclusively).
    pub share: Option<Share>,
}

/// Devices, counters and capacity in use.
#[derive(Debug, Clone, Default)]
pub struct InUse {
    /// Exclusively allocated devices: count of non-admin allocations without a share, by
    /// device id (a vector: the search asks once per device tried).
    pub devices: Vec<u32>,
    /// Counters consumed: (pool, set, counter) → amount.
    pub counters: HashMap<(usize, String, String), i128>,
    /// Capacity consumed by shared allocations (non-admin, with a share), per device.
    pub capacity: HashMap<DeviceId, Totals>,
    /// Number of shared allocations per device.
    pub shares: HashMap<DeviceId, u32>,
    /// Net allocations per pool (exclusive and shared), so a pool nothing is allocated from
    /// is recognised without looking at its devices.
    pub pools: HashMap<usize, i64>,
    /// Bumped by every change.
    pub version: u64,
}

impl InUse {
    /// Marks `devices` allocated (or releases them with `sign = -1`). Admin-access results
    /// do not count (upstream's allocated state skips them). Results with a share consume
    /// capacity instead of holding the device, and no counters: upstream's allocated state
    /// subtracts counters for exclusively allocated devices only.
    pub(crate) fn apply(&mut self, inv: &Inventory, devices: &[Allocated], sign: i64) {
        self.version += 1;
        for a in devices.iter().filter(|a| !a.admin) {
            if let Some(d) = inv.devices.get(a.device) {
                let n = self.pools.entry(d.pool).or_default();
                *n += sign.signum();
                if *n == 0 {
                    self.pools.remove(&d.pool);
                }
            }
            if let Some(share) = &a.share {
                let totals = self.capacity.entry(a.device).or_default();
                capacity::add_into(totals, &share.consumed, i128::from(sign.signum()));
                if totals.values().all(|v| *v == 0) {
                    self.capacity.remove(&a.device);
                }
                let n = self.shares.entry(a.device).or_default();
                *n = if sign > 0 {
                    *n + 1
                } else {
                    n.saturating_sub(1)
                };
                if *n == 0 {
                    self.shares.remove(&a.device);
                }
                continue;
            }
            if self.devices.len() <= a.device {
                self.devices.resize(a.device + 1, 0);
            }
            let n = &mut self.devices[a.device];
            if sign > 0 {
                *n += 1;
            } else {
                *n = n.saturating_sub(1);
            }
            let d = &inv.devices[a.device];
            for (set, counters) in &d.consumes {
                for (c, v) in counters {
                    *self
                        .counters
                        .entry((d.pool, set.clone(), c.clone()))
                        .or_default() += i128::from(sign) * i128::from(*v);
                }
            }
        }
    }

    fn allocated(&self, d: DeviceId) -> bool {
        self.devices.get(d).is_some_and(|n| *n > 0)
    }
}

/// Why a claim cannot be allocated on a node (aggregated by explain).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Failure {
    /// No device on the node matches the class and selectors.
    NoMatchingDevice,
    /// No device of a complete pool matches, but devices of this incomplete pool
    /// (`driver/pool`) would: nothing is allocated from an incomplete pool (semantics §7.2).
    NoMatchingDeviceIncompletePool(String),
    /// Every matching device is already allocated.
    AllMatchingAllocated,
    /// Matching free devices are tainted and not tolerated.
    TaintNotTolerated,
    /// Partitionable devices' counters are exhausted.
    CountersExhausted,
    /// The remaining capacity of matching devices is too small, or the rounded request breaks
    /// their `requestPolicy`, or they lack a requested capacity.
    CapacityExhausted,
    /// No combination satisfies the constraints.
    ConstraintUnsatisfiable,
    /// `All` mode over a pool that is being updated.
    PoolIncomplete(String),
    /// `All` mode over an invalid pool, or no result while invalid pools were seen.
    PoolInvalid(String),
    /// The step budget ran out.
    BudgetExceeded,
    /// A claim-level error (missing class, too many devices).
    Error(String),
    /// A CEL selector failed to compile or to evaluate (a division by zero, a missing map
    /// key, the cost limit). Upstream's allocator returns the error and the DynamicResources
    /// Filter returns it as an error status (`statusError`: "This should only fail if there
    /// is something wrong with the claim or class. Return an error to abort scheduling of
    /// it."), so the pod's attempt ends with an error, not Unschedulable.
    Cel(String),
}

impl Failure {
    /// A sentence for reports.
    pub(crate) fn text(&self) -> String {
        match self {
            Self::NoMatchingDevice => "no device matches the class and selectors".to_owned(),
            Self::NoMatchingDeviceIncompletePool(p) => format!(
                "no device matches the class and selectors (devices of resource pool {p} would, but the pool is incomplete: its current generation does not have exactly `resourceSliceCount` slices, and no request can use it)"
            ),
            Self::AllMatchingAllocated => "all matching devices are allocated".to_owned(),
            Self::TaintNotTolerated => "matching free devices have untolerated taints".to_owned(),
            Self::CountersExhausted => "the counters of matching partitionable devices are exhausted".to_owned(),
            Self::CapacityExhausted => "the requested capacity does not fit the remaining capacity of matching devices or breaks their requestPolicy".to_owned(),
            Self::ConstraintUnsatisfiable => "no combination of devices satisfies the constraints".to_owned(),
            Self::PoolIncomplete(p) => format!("asks for all devices, but resource pool {p} is currently being updated"),
            Self::PoolInvalid(p) => format!("invalid resource pools were encountered: {p}"),
            Self::BudgetExceeded => "search step budget exceeded: kube-scheduler would likely hit its DynamicResources filter timeout".to_owned(),
            Self::Error(e) | Self::Cel(e) => e.clone(),
        }
    }
}

/// The node a search runs for.
pub(crate) struct NodeView<'a> {
    /// Node name (the state's shared string: per-node memos key on its address).
    pub name: &'a std::sync::Arc<str>,
    /// Node labels.
    pub labels: &'a Labels,
}

struct Slot {
    claim: usize,
    request: usize,
    alt: usize,
}

/// Candidate devices per (claim, request, alternative), in allocation order.
type Candidates = HashMap<(usize, usize, usize), Rc<[DeviceId]>>;

/// A device picked for a slot.
struct Pick {
    claim: usize,
    request: usize,
    alt: usize,
    device: DeviceId,
    /// Consumed capacity, for multi-allocatable devices.
    consumed: Option<Consumed>,
    /// Whether this pick consumed the device's counters.
    counted: bool,
}

struct Search<'a> {
    inv: &'a Inventory,
    in_use: &'a InUse,
    claims: &'a [&'a ClaimSpec],
    features: Features,
    /// Candidates per (claim, request, alt), in allocation order.
    cands: Candidates,
    chosen: Vec<Pick>,
    counters: HashMap<(usize, String, String), i128>,
    /// Capacity consumed by pending picks of multi-allocatable devices.
    capacity: HashMap<DeviceId, Totals>,
    budget: u64,
    exhausted: bool,
    /// An error that aborts the allocation (upstream returns it from Allocate): (claim, text).
    error: Option<(usize, String)>,
}

fn attr<'a>(inv: &'a Inventory, d: DeviceId, name: &str) -> Option<&'a AttrValue> {
    inv.devices[d].attributes.get(name)
}

/// Upstream's `CmpRequestOverCapacity` for device `d` and `alt`, with what existing
/// (`in_use`) and pending (`pending`) allocations consumed: `Ok(Some(consumed))` when the
/// device fits (consumed capacity by qualified name), `Ok(None)` when it must be skipped,
/// `Err` when the allocation must abort (a capacity requested under two spellings).
/// Without DRAConsumableCapacity nothing is checked.
fn capacity_fit(
    inv: &Inventory,
    in_use: &InUse,
    pending: &HashMap<DeviceId, Totals>,
    features: Features,
    d: DeviceId,
    alt: &Alternative,
) -> Result<Option<Consumed>, String> {
    if !features.consumable_capacity {
        return Ok(Some(Consumed::new()));
    }
    let dev = &inv.devices[d];
    let multi = features.multi(inv, d);
    if alt.capacity.is_none() && !multi && dev.capacities.values().all(|c| c.policy.is_none()) {
        // Each capacity is consumed whole and nothing else holds a share: always fits.
        return Ok(Some(Consumed::new()));
    }
    let mut requested: BTreeMap<String, &Amount> = BTreeMap::new();
    for (name, amount) in alt.capacity.iter().flatten() {
        // An unqualified name means the driver's domain, in either spelling.
        let key = qualify(&dev.driver, name);
        if !dev.capacities.contains_key(&key) {
            return Ok(None);
        }
        if requested.insert(key.clone(), amount).is_some() {
            return Err(format!(
                "request {}: capacity {key} is requested under two names",
                alt.result_name
            ));
        }
    }
    let existing = in_use.capacity.get(&d);
    let pending = pending.get(&d);
    let mut consumed = Consumed::new();
    for (key, cap) in &dev.capacities {
        let amount = capacity::consumed(
            requested.get(key).copied(),
            cap,
            features.fractional_capacity,
        );
        if capacity::violates(&amount, cap.policy.as_ref(), features.fractional_capacity) {
            return Ok(None);
        }
        let used = |t: Option<&Totals>| t.and_then(|t| t.get(key)).copied().unwrap_or(0);
        let total = used(existing)
            .saturating_add(used(pending))
            .saturating_add(amount.milli);
        if total > cap.value.milli {
            return Ok(None);
        }
        consumed.insert(key.clone(), amount);
    }
    Ok(Some(consumed))
}

impl Search<'_> {
    /// The picks of a successful fill as each claim's allocated devices, in pick order.
    #[inline]
    fn take_allocation(&mut self) -> Vec<Vec<Allocated>> {
        let claims = self.claims;
        let mut out: Vec<Vec<Allocated>> = vec![Vec::new(); claims.len()];
        for p in self.chosen.drain(..) {
            let alt = &claims[p.claim].requests[p.request].alternatives[p.alt];
            out[p.claim].push(Allocated {
                device: p.device,
                request: alt.result_name.clone(),
                admin: alt.admin,
                share: p.consumed.map(|consumed| Share {
                    id: String::new(),
                    consumed,
                }),
            });
        }
        out
    }

    fn taints_ok(&self, d: DeviceId, alt: &Alternative) -> bool {
        self.inv.devices[d]
            .taints
            .iter()
            .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
            .all(|t| {
                alt.tolerations
                    .iter()
                    .any(|tol| tol.tolerates(&t.key, t.value.as_deref().unwrap_or(""), &t.effect))
            })
    }

    fn counters_ok(&self, d: DeviceId) -> bool {
        let dev = &self.inv.devices[d];
        let pool = &self.inv.pools[dev.pool];
        dev.consumes.iter().all(|(set, counters)| {
            counters.iter().all(|(c, want)| {
                let cap = pool
                    .counters
                    .get(set)
                    .and_then(|s| s.get(c))
                    .copied()
                    .unwrap_or(0);
                let key = (dev.pool, set.clone(), c.clone());
                // i128: counter amounts come from input and their sums may pass an i64.
                let used = self.in_use.counters.get(&key).copied().unwrap_or(0)
                    + self.counters.get(&key).copied().unwrap_or(0);
                used + i128::from(*want) <= i128::from(cap)
            })
        })
    }

    fn capacity_fit(&self, d: DeviceId, alt: &Alternative) -> Result<Option<Consumed>, String> {
        capacity_fit(self.inv, self.in_use, &self.capacity, self.features, d, alt)
    }

    fn constraints_ok(&self, claim: usize, request: &str, d: DeviceId) -> bool {
        let spec = self.claims[claim];
        spec.constraints.iter().all(|c| {
            let applies = |r: &str| {
                c.requests.is_empty()
                    || c.requests
                        .iter()
                        .any(|x| x == r || r.starts_with(&format!("{x}/")))
            };
            if !applies(request) {
                return true;
            }
            let others = self.chosen.iter().filter(|p| {
                p.claim == claim
                    && applies(&spec.requests[p.request].alternatives[p.alt].result_name)
            });
            if let Some(a) = &c.match_attribute {
                let Some(mine) = attr(self.inv, d, a) else {
                    return false;
                };
                // The devices chosen so far have a value in common. If one of them has a
                // scalar, that value is the only common one, so comparing with it decides.
                let scalar = others.clone().find_map(|o| {
                    attr(self.inv, o.device, a).filter(|v| !matches!(v, AttrValue::List(_)))
                });
                if let Some(s) = scalar {
                    if !mine.elements().contains(s) {
                        return false;
                    }
                } else {
                    // Values the devices have in common (scalars are singletons).
                    let mut common: Vec<&AttrValue> = mine.elements().iter().collect();
                    for o in others.clone() {
                        let theirs =
                            attr(self.inv, o.device, a).map_or(&[][..], AttrValue::elements);
                        common.retain(|v| theirs.contains(v));
                    }
                    if common.is_empty() {
                        return false;
                    }
                }
            }
            if let Some(a) = &c.distinct_attribute {
                let Some(mine) = attr(self.inv, d, a) else {
                    return false;
                };
                let clash = others.clone().any(|o| {
                    attr(self.inv, o.device, a).is_some_and(|theirs| {
                        mine.elements()
                            .iter()
                            .any(|v| theirs.elements().contains(v))
                    })
                });
                if clash {
                    return false;
                }
            }
            true
        })
    }

    /// Whether picking `d` checks and consumes its counters. A multi-allocatable device that
    /// already has a share (existing or picked in this search) skips both (upstream's
    /// `skipCounterCheck`): its counters are consumed once, by its first share.
    fn counts_counters(&self, d: DeviceId) -> bool {
        !(self.features.multi(self.inv, d)
            && (self.in_use.shares.contains_key(&d) || self.chosen.iter().any(|p| p.device == d)))
    }

    /// Whether `d` cannot be picked: a multi-allocatable device only when an existing
    /// allocation holds it exclusively (upstream's `deviceInUse`; admin access ignores that);
    /// any other device when picked already in this search or allocated (unless admin access).
    fn taken(&self, d: DeviceId, admin: bool) -> bool {
        if self.features.multi(self.inv, d) {
            return !admin && self.in_use.allocated(d);
        }
        let by_us = self.chosen.iter().any(|p| p.device == d);
        by_us || (!admin && self.in_use.allocated(d))
    }

    fn add_counters(&mut self, d: DeviceId, sign: i64) {
        let dev = &self.inv.devices[d];
        for (set, counters) in &dev.consumes {
            for (c, v) in counters {
                *self
                    .counters
                    .entry((dev.pool, set.clone(), c.clone()))
                    .or_default() += i128::from(sign) * i128::from(*v);
            }
        }
    }

    /// Depth-first over slots; returns true when every slot is filled.
    fn fill(&mut self, slots: &[Slot], i: usize, min_index: usize) -> bool {
        let Some(slot) = slots.get(i) else {
            return true;
        };
        let alt = &self.claims[slot.claim].requests[slot.request].alternatives[slot.alt];
        let cands = self
            .cands
            .get(&(slot.claim, slot.request, slot.alt))
            .cloned()
            .unwrap_or_else(|| Rc::from(Vec::new()));
        for (ci, &d) in cands.iter().enumerate().skip(min_index) {
            if self.budget == 0 {
                self.exhausted = true;
                return false;
            }
            self.budget -= 1;
            let counted = self.counts_counters(d);
            if self.taken(d, alt.admin)
                || !self.taints_ok(d, alt)
                || (counted && !self.counters_ok(d))
            {
                continue;
            }
            let consumed = match self.capacity_fit(d, alt) {
                Ok(Some(c)) => c,
                Ok(None) => continue,
                Err(e) => {
                    self.error = Some((slot.claim, e));
                    return false;
                }
            };
            if !self.constraints_ok(slot.claim, &alt.result_name, d) {
                continue;
            }
            let multi = self.features.multi(self.inv, d);
            let consumed = multi.then_some(consumed);
            if let Some(c) = &consumed {
                capacity::add_into(self.capacity.entry(d).or_default(), c, 1);
            }
            if counted {
                self.add_counters(d, 1);
            }
            self.chosen.push(Pick {
                claim: slot.claim,
                request: slot.request,
                alt: slot.alt,
                device: d,
                consumed,
                counted,
            });
            // Combinations, not permutations: the next slot of the same request starts after us
            // — at us for a multi-allocatable device, which the request may pick again (not in
            // `All` mode, where each matching device is taken once).
            let same_request_next = slots.get(i + 1).is_some_and(|n| {
                n.claim == slot.claim && n.request == slot.request && n.alt == slot.alt
            });
            let next_min = match (same_request_next, multi && !alt.all) {
                (false, _) => 0,
                (true, true) => ci,
                (true, false) => ci + 1,
            };
            if self.fill(slots, i + 1, next_min) {
                return true;
            }
            if let Some(p) = self.chosen.pop() {
                if p.counted {
                    self.add_counters(d, -1);
                }
                if let Some(c) = p.consumed
                    && let Some(t) = self.capacity.get_mut(&d)
                {
                    capacity::add_into(t, &c, -1);
                }
            }
            if self.exhausted || self.error.is_some() {
                return false;
            }
        }
        false
    }
}

/// Devices of complete, valid pools usable on `node` matching `alt`'s selectors, in order.
/// A CEL error aborts with [`Failure::Error`].
///
/// The answer depends only on the node and the selectors (device attributes, pools and scopes do
/// not change inside a snapshot; what is allocated is checked later), so it is memoised per
/// (node, selectors, `all_pools`): a filter call on a node seen before costs one lookup.
fn candidates(
    inv: &Inventory,
    sel: &mut Selectors,
    node: &NodeView<'_>,
    alt: &Alternative,
    all_pools: bool,
) -> Result<Rc<[DeviceId]>, Failure> {
    if let Some(hit) = sel.cached_candidates(node.name, &alt.exprs, all_pools) {
        return Ok(hit);
    }
    let mut out = Vec::new();
    for d in inv.devices_near(node.name) {
        let dev = &inv.devices[d];
        let pool = &inv.pools[dev.pool];
        let usable = all_pools || (pool.complete && pool.invalid.is_none());
        if !usable || !dev.scope.matches(node.name, node.labels) {
            continue;
        }
        let mut ok = true;
        for &e in &alt.exprs {
            match sel.matches(inv, d, e) {
                Ok(true) => {}
                Ok(false) => {
                    ok = false;
                    break;
                }
                Err(err) => {
                    return Err(Failure::Cel(format!(
                        "selector `{}`: {err}",
                        short_expression(sel.text(e))
                    )));
                }
            }
        }
        if ok {
            out.push(d);
        }
    }
    let out: Rc<[DeviceId]> = out.into();
    sel.store_candidates(node.name, &alt.exprs, all_pools, Rc::clone(&out));
    Ok(out)
}

/// [`candidates`] without the devices the gates forbid: with DRADeviceBindingConditions off
/// the allocator skips devices with `bindingConditions` (semantics §7.3; upstream's allocator
/// checks `features.DeviceBinding` before it looks at a device).
fn usable_candidates(
    inv: &Inventory,
    sel: &mut Selectors,
    node: &NodeView<'_>,
    alt: &Alternative,
    all_pools: bool,
    features: Features,
) -> Result<Rc<[DeviceId]>, Failure> {
    let list = candidates(inv, sel, node, alt, all_pools)?;
    if features.binding_conditions || !list.iter().any(|d| inv.devices[*d].binding) {
        return Ok(list);
    }
    Ok(list
        .iter()
        .copied()
        .filter(|d| !inv.devices[*d].binding)
        .collect())
}

/// Allocates every claim in `claims` together on `node`. On failure returns the index of the
/// claim blamed and why. New shares come back with an empty `shareID` (Reserve names them).
pub(crate) fn allocate(
    inv: &Inventory,
    sel: &mut Selectors,
    node: &NodeView<'_>,
    claims: &[&ClaimSpec],
    in_use: &InUse,
    features: Features,
    budget: u64,
) -> Result<Vec<Vec<Allocated>>, (usize, Failure)> {
    for (i, c) in claims.iter().enumerate() {
        if let Some(e) = &c.error {
            return Err((i, Failure::Error(e.clone())));
        }
    }
    let cands = alternative_candidates(inv, sel, node, claims, in_use, features)?;
    // Try alternatives of firstAvailable requests in order: enumerate choices lexicographically.
    let choice_counts: Vec<Vec<usize>> = claims
        .iter()
        .map(|c| {
            c.requests
                .iter()
                .map(|r| r.alternatives.len().max(1))
                .collect()
        })
        .collect();
    let mut choice: Vec<Vec<usize>> = choice_counts.iter().map(|v| vec![0; v.len()]).collect();
    let mut search = Search {
        inv,
        in_use,
        claims,
        features,
        cands,
        chosen: Vec::new(),
        counters: HashMap::new(),
        capacity: HashMap::new(),
        budget,
        exhausted: false,
        error: None,
    };
    loop {
        let (slots, bad_all) = slots_of_choice(claims, &choice, &search.cands, in_use)?;
        if !bad_all {
            search.chosen.clear();
            search.counters.clear();
            search.capacity.clear();
            if search.fill(&slots, 0, 0) {
                return Ok(search.take_allocation());
            }
            if let Some((ci, e)) = search.error.take() {
                return Err((ci, Failure::Error(e)));
            }
            if search.exhausted {
                return Err((0, Failure::BudgetExceeded));
            }
        }
        if !next_choice(&mut choice, &choice_counts) {
            break;
        }
    }
    Err(diagnose(inv, sel, node, claims, in_use, features))
}

/// Candidates per (claim, request, alternative) on `node`. An `All` alternative fails its
/// claim when one of its pools is invalid or incomplete, and keeps only the devices whose
/// capacity admits the request (checked against existing allocations only, as upstream does
/// up front).
fn alternative_candidates(
    inv: &Inventory,
    sel: &mut Selectors,
    node: &NodeView<'_>,
    claims: &[&ClaimSpec],
    in_use: &InUse,
    features: Features,
) -> Result<Candidates, (usize, Failure)> {
    let mut cands: Candidates = HashMap::new();
    for (ci, c) in claims.iter().enumerate() {
        for (ri, r) in c.requests.iter().enumerate() {
            for (ai, alt) in r.alternatives.iter().enumerate() {
                let mut list =
                    usable_candidates(inv, sel, node, alt, false, features).map_err(|f| (ci, f))?;
                if alt.all {
                    let every = usable_candidates(inv, sel, node, alt, true, features)
                        .map_err(|f| (ci, f))?;
                    for d in every.iter() {
                        let pool = &inv.pools[inv.devices[*d].pool];
                        let key = format!("{}/{}", pool.driver, pool.name);
                        if pool.invalid.is_some() {
                            return Err((ci, Failure::PoolInvalid(key)));
                        }
                        if !pool.complete {
                            return Err((ci, Failure::PoolIncomplete(key)));
                        }
                    }
                    // "All" means every matching device whose capacity admits the request
                    // (checked against existing allocations only, as upstream does up front).
                    if features.consumable_capacity {
                        let none = HashMap::new();
                        let mut kept = Vec::with_capacity(list.len());
                        for &d in list.iter() {
                            match capacity_fit(inv, in_use, &none, features, d, alt) {
                                Ok(Some(_)) => kept.push(d),
                                Ok(None) => {}
                                Err(e) => return Err((ci, Failure::Error(e))),
                            }
                        }
                        if kept.len() != list.len() {
                            list = kept.into();
                        }
                    }
                }
                cands.insert((ci, ri, ai), list);
            }
        }
    }
    Ok(cands)
}

/// The device slots one combination of alternatives asks for (an `All` alternative, one per
/// candidate), and whether an `All` alternative cannot be met (no candidate, or one already
/// allocated without admin access). A claim asking for more than [`MAX_DEVICES_PER_CLAIM`]
/// devices fails before any slot exists.
#[inline]
fn slots_of_choice(
    claims: &[&ClaimSpec],
    choice: &[Vec<usize>],
    cands: &Candidates,
    in_use: &InUse,
) -> Result<(Vec<Slot>, bool), (usize, Failure)> {
    let mut slots = Vec::new();
    let mut bad_all = false;
    for (ci, c) in claims.iter().enumerate() {
        let mut total = 0u32;
        for (ri, _) in c.requests.iter().enumerate() {
            let ai = choice[ci][ri];
            let Some(alt) = claims[ci].requests[ri].alternatives.get(ai) else {
                continue;
            };
            let n = if alt.all {
                let all = &cands[&(ci, ri, ai)];
                if all.is_empty() || all.iter().any(|d| in_use.allocated(*d) && !alt.admin) {
                    bad_all = true;
                }
                u32::try_from(all.len()).unwrap_or(u32::MAX)
            } else {
                alt.count
            };
            total = total.saturating_add(n);
            // The limit is checked before any slot exists: a count comes from input
            // (`count: 2147483647` passes API validation) and must not size anything.
            if total > MAX_DEVICES_PER_CLAIM {
                return Err((
                    ci,
                    Failure::Error(format!(
                        "number of requested devices {total} exceeds the claim limit of {MAX_DEVICES_PER_CLAIM}"
                    )),
                ));
            }
            for _ in 0..n {
                slots.push(Slot {
                    claim: ci,
                    request: ri,
                    alt: ai,
                });
            }
        }
    }
    Ok((slots, bad_all))
}

/// Advances `choice` to the next combination of alternatives (the last request varies
/// fastest); `false` when every combination was tried.
#[inline]
fn next_choice(choice: &mut [Vec<usize>], choice_counts: &[Vec<usize>]) -> bool {
    for ci in (0..choice.len()).rev() {
        for ri in (0..choice[ci].len()).rev() {
            if choice[ci][ri] + 1 < choice_counts[ci][ri] {
                choice[ci][ri] += 1;
                return true;
            }
            choice[ci][ri] = 0;
        }
    }
    false
}

/// Why allocation failed, blaming the first claim that fails on its own.
fn diagnose(
    inv: &Inventory,
    sel: &mut Selectors,
    node: &NodeView<'_>,
    claims: &[&ClaimSpec],
    in_use: &InUse,
    features: Features,
) -> (usize, Failure) {
    // Upstream reports "invalid resource pools were encountered" whenever no allocation was
    // found and an invalid pool was seen on the node.
    let invalid = inv.pools.iter().find(|p| {
        p.invalid.is_some()
            && p.devices
                .iter()
                .any(|d| inv.devices[*d].scope.matches(node.name, node.labels))
    });
    if let Some(p) = invalid {
        return (0, Failure::PoolInvalid(format!("{}/{}", p.driver, p.name)));
    }
    for (ci, c) in claims.iter().enumerate() {
        for r in &c.requests {
            let Some(alt) = r.alternatives.first() else {
                continue;
            };
            let Ok(matching) = usable_candidates(inv, sel, node, alt, false, features) else {
                continue;
            };
            let need = if alt.all { 1 } else { alt.count as usize };
            if matching.is_empty() {
                let invalid = inv
                    .pools
                    .iter()
                    .find(|p| p.invalid.is_some())
                    .map(|p| format!("{}/{}", p.driver, p.name));
                if let Some(p) = invalid {
                    return (ci, Failure::PoolInvalid(p));
                }
                // Only a diagnosis: the devices of incomplete pools are looked at to say why,
                // never allocated (a CEL error among them is no reason here).
                let incomplete = candidates(inv, sel, node, alt, true).ok().and_then(|all| {
                    all.iter()
                        .map(|d| &inv.pools[inv.devices[*d].pool])
                        .find(|p| !p.complete)
                        .map(|p| format!("{}/{}", p.driver, p.name))
                });
                return (
                    ci,
                    incomplete.map_or(
                        Failure::NoMatchingDevice,
                        Failure::NoMatchingDeviceIncompletePool,
                    ),
                );
            }
            if alt.all && !alt.admin && matching.iter().any(|d| in_use.allocated(*d)) {
                return (ci, Failure::AllMatchingAllocated);
            }
            // A multi-allocatable device may serve every device of the request.
            let serves = |ds: &mut dyn Iterator<Item = &DeviceId>| -> usize {
                ds.map(|d| if features.multi(inv, *d) { need } else { 1 })
                    .sum()
            };
            let free: Vec<DeviceId> = matching
                .iter()
                .copied()
                .filter(|d| alt.admin || !in_use.allocated(*d))
                .collect();
            if serves(&mut free.iter()) < need {
                return (ci, Failure::AllMatchingAllocated);
            }
            let search = Search {
                inv,
                in_use,
                claims,
                features,
                cands: HashMap::new(),
                chosen: Vec::new(),
                counters: HashMap::new(),
                capacity: HashMap::new(),
                budget: 0,
                exhausted: false,
                error: None,
            };
            if serves(&mut free.iter().filter(|d| search.taints_ok(**d, alt))) < need {
                return (ci, Failure::TaintNotTolerated);
            }
            let counters_ok =
                |d: &&DeviceId| !search.counts_counters(**d) || search.counters_ok(**d);
            if serves(&mut free.iter().filter(counters_ok)) < need {
                return (ci, Failure::CountersExhausted);
            }
            let fits = |d: &&DeviceId| matches!(search.capacity_fit(**d, alt), Ok(Some(_)));
            if serves(&mut free.iter().filter(fits)) < need {
                return (ci, Failure::CapacityExhausted);
            }
        }
    }
    (0, Failure::ConstraintUnsatisfiable)
}

/// The scope of an allocation: node-local devices pin it to their node.
pub(crate) fn allocation_scope(inv: &Inventory, devices: &[Allocated]) -> Scope {
    let scopes: Vec<&Scope> = devices
        .iter()
        .map(|a| &inv.devices[a.device].scope)
        .collect();
    if let Some(Scope::Node(n)) = scopes.iter().find(|s| matches!(s, Scope::Node(_))) {
        return Scope::Node(n.clone());
    }
    if let Some(s) = scopes.iter().find(|s| matches!(s, Scope::Selector(_))) {
        return (*s).clone();
    }
    Scope::AllNodes
}

/// Whether no exclusively held device appears twice (admin access and shares may repeat).
#[cfg(test)]
pub(crate) fn unique(devices: &[Allocated]) -> bool {
    let mut seen = std::collections::HashSet::new();
    devices
        .iter()
        .all(|a| a.admin || a.share.is_some() || seen.insert(a.device))
}

/// Attribute values of chosen devices, for constraint property tests.
#[cfg(test)]
pub(crate) fn attribute_values(
    inv: &Inventory,
    devices: &[Allocated],
    name: &str,
) -> Vec<Option<AttrValue>> {
    devices
        .iter()
        .map(|a| inv.devices[a.device].attributes.get(name).cloned())
        .collect()
}

/// Counter use of a set of devices per (pool, set, counter).
#[cfg(test)]
pub(crate) fn counter_use(
    inv: &Inventory,
    devices: &[Allocated],
) -> BTreeMap<(usize, String, String), i64> {
    let mut out = BTreeMap::new();
    for a in devices {
        let d = &inv.devices[a.device];
        for (set, counters) in &d.consumes {
            for (c, v) in counters {
                let sum: &mut i64 = out.entry((d.pool, set.clone(), c.clone())).or_default();
                *sum = sum.saturating_add(*v);
            }
        }
    }
    out
}

/// Property tests: the allocator never panics and never returns an allocation that breaks a
/// selector, a constraint, a counter, a device's capacity, device exclusivity or the 32-device
/// limit.
/// A selector's CEL text for a message: at most 80 characters (a generated selector can be
/// kilobytes long), cut on a character boundary with `…`.
fn short_expression(text: &str) -> std::borrow::Cow<'_, str> {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]).into(),
        None => text.into(),
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;
    use crate::sched::dra::capacity::{CapacityDef, RequestPolicy, ValidRange};
    use crate::sched::dra::inventory::{Device, Pool};

    const DRIVER: &str = "gpu.example.com";
    const BW: &str = "gpu.example.com/bw";

    fn units(n: u8) -> Amount {
        Amount::from_milli(i128::from(n) * 1000, false)
    }

    /// Devices: model and numa from `models`, counters from `counters`, and from `bw` a
    /// capacity `bw` (0: none; odd: the device allows multiple allocations; above 4: a
    /// `validRange{min: 1, step: 2}` policy).
    fn inventory(models: &[u8], counters: &[u8], cap: i64, bw: &[u8]) -> Inventory {
        let mut inv = Inventory::default();
        let mut pool = Pool {
            driver: DRIVER.into(),
            name: "node1".into(),
            complete: true,
            slices: 1,
            resource_slice_count: 1,
            invalid: None,
            devices: Vec::new(),
            counters: BTreeMap::from([(
                "chip".to_owned(),
                BTreeMap::from([("mem".to_owned(), cap)]),
            )]),
        };
        for (i, m) in models.iter().enumerate() {
            let mut attributes = BTreeMap::new();
            attributes.insert(
                format!("{DRIVER}/model"),
                AttrValue::String(format!("m{}", m % 3)),
            );
            attributes.insert(format!("{DRIVER}/numa"), AttrValue::Int(i64::from(m % 2)));
            let use_counter = counters.get(i).copied().unwrap_or(0);
            let consumes = if use_counter > 0 {
                vec![(
                    "chip".to_owned(),
                    BTreeMap::from([("mem".to_owned(), i64::from(use_counter))]),
                )]
            } else {
                Vec::new()
            };
            let b = bw.get(i).copied().unwrap_or(0);
            let capacities = if b == 0 {
                BTreeMap::new()
            } else {
                let policy = (b > 4).then(|| RequestPolicy {
                    default: Some(units(1)),
                    valid_range: Some(ValidRange {
                        min: units(1),
                        max: None,
                        step: Some(units(2)),
                    }),
                    valid_values: None,
                });
                BTreeMap::from([(
                    BW.to_owned(),
                    CapacityDef {
                        name: "bw".into(),
                        value: units(b),
                        policy,
                    },
                )])
            };
            pool.devices.push(inv.devices.len());
            inv.devices.push(Device {
                pool: 0,
                name: format!("d{i}"),
                driver: DRIVER.into(),
                attributes,
                capacity: BTreeMap::new(),
                capacities,
                scope: Scope::Node("node1".into()),
                taints: Vec::new(),
                consumes,
                allow_multiple: b % 2 == 1,
                binding: false,
                extra: None,
            });
        }
        inv.pools.push(pool);
        inv.reindex();
        inv
    }

    prop_compose! {
        fn claim_strategy()(
            requests in prop::collection::vec((0u8..4, 1u32..4, any::<bool>(), 0u8..4), 1..4),
            constraint in 0u8..3,
        ) -> (Vec<(u8, u32, bool, u8)>, u8) {
            (requests, constraint)
        }
    }

    fn bw_of(a: &Allocated) -> i128 {
        a.share
            .as_ref()
            .and_then(|s| s.consumed.get(BW))
            .map_or(0, |x| x.milli)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn allocations_respect_every_rule(
            models in prop::collection::vec(0u8..6, 0..12),
            counters in prop::collection::vec(0u8..5, 0..12),
            cap in 0i64..12,
            bw in prop::collection::vec(0u8..9, 0..12),
            taken in prop::collection::vec(0usize..12, 0..4),
            shared in prop::collection::vec((0usize..12, 1u8..5), 0..4),
            (requests, constraint) in claim_strategy(),
        ) {
            let inv = inventory(&models, &counters, cap, &bw);
            let features = Features::default();
            let mut sel = Selectors::default();
            let mut spec = ClaimSpec::default();
            for (i, (model, count, all, want_bw)) in requests.iter().enumerate() {
                let mut exprs = vec![sel.compile(&format!("device.driver == \"{DRIVER}\""))];
                if *model < 3 {
                    exprs.push(sel.compile(&format!("device.attributes[\"{DRIVER}\"].model == \"m{model}\"")));
                }
                spec.requests.push(Request {
                    name: format!("r{i}"),
                    alternatives: vec![Alternative {
                        result_name: format!("r{i}"),
                        class: "c".into(),
                        exprs,
                        all: *all && i == 0,
                        count: *count,
                        admin: false,
                        tolerations: Vec::new(),
                        capacity: (*want_bw > 0).then(|| BTreeMap::from([("bw".to_owned(), units(*want_bw))])),
                    }],
                });
            }
            match constraint {
                1 => spec.constraints.push(Constraint { requests: Vec::new(), match_attribute: Some(format!("{DRIVER}/numa")), distinct_attribute: None }),
                2 => spec.constraints.push(Constraint { requests: Vec::new(), match_attribute: None, distinct_attribute: Some(format!("{DRIVER}/model")) }),
                _ => {}
            }
            let mut in_use = InUse::default();
            let exclusive = |d: &usize| *d < inv.devices.len() && !features.multi(&inv, *d);
            let taken: Vec<Allocated> = taken.iter().filter(|d| exclusive(d)).map(|d| Allocated { device: *d, request: "x".into(), admin: false, share: None }).collect();
            in_use.apply(&inv, &taken, 1);
            // Existing shares of multi-allocatable devices, kept within their capacity.
            let mut existing: BTreeMap<usize, i128> = BTreeMap::new();
            let mut shares = Vec::new();
            for (d, amount) in &shared {
                if *d >= inv.devices.len() || !features.multi(&inv, *d) {
                    continue;
                }
                let value = inv.devices[*d].capacities.get(BW).map_or(0, |c| c.value.milli);
                let a = units(*amount);
                let used = existing.entry(*d).or_default();
                if *used + a.milli <= value {
                    *used += a.milli;
                    shares.push(Allocated { device: *d, request: "y".into(), admin: false, share: Some(Share { id: "s".into(), consumed: BTreeMap::from([(BW.to_owned(), a)]) }) });
                }
            }
            in_use.apply(&inv, &shares, 1);
            let labels = Labels::new();
            let name: std::sync::Arc<str> = "node1".into();
            let node = NodeView { name: &name, labels: &labels };
            let result = allocate(&inv, &mut sel, &node, &[&spec], &in_use, features, 10_000);
            if let Ok(out) = result {
                let devices = &out[0];
                prop_assert!(u32::try_from(devices.len()).unwrap() <= MAX_DEVICES_PER_CLAIM);
                prop_assert!(unique(devices), "an exclusive device was allocated twice");
                for a in devices {
                    prop_assert!(!in_use.allocated(a.device), "an allocated device was reused");
                    prop_assert_eq!(a.share.is_some(), features.multi(&inv, a.device), "shares exactly for multi-allocatable devices");
                    let r = spec.requests.iter().find(|r| r.name == a.request).unwrap();
                    let alt = &r.alternatives[0];
                    for e in &alt.exprs {
                        prop_assert_eq!(sel.matches(&inv, a.device, *e), Ok(true));
                    }
                    let value = inv.devices[a.device].capacities.get(BW).map(|c| c.value.milli);
                    if let Some(want) = alt.capacity.as_ref().and_then(|c| c.get("bw")) {
                        prop_assert!(value.is_some_and(|v| want.milli <= v), "a device lacking the requested capacity was used");
                        if a.share.is_some() {
                            prop_assert!(bw_of(a) >= want.milli, "consumed less than requested");
                        }
                    }
                }
                for (d, dev) in inv.devices.iter().enumerate() {
                    let Some(c) = dev.capacities.get(BW) else { continue };
                    let total = existing.get(&d).copied().unwrap_or(0)
                        + devices.iter().filter(|a| a.device == d).map(bw_of).sum::<i128>();
                    prop_assert!(total <= c.value.milli, "capacity exceeded on d{}: {} > {}", d, total, c.value.milli);
                }
                for r in &spec.requests {
                    let alt = &r.alternatives[0];
                    let n = devices.iter().filter(|a| a.request == r.name).count();
                    if !alt.all {
                        prop_assert_eq!(n, alt.count as usize, "ExactCount");
                    }
                }
                for c in &spec.constraints {
                    if let Some(attr) = &c.match_attribute {
                        let values = attribute_values(&inv, devices, attr);
                        prop_assert!(values.windows(2).all(|w| w[0] == w[1]), "matchAttribute");
                    }
                    if let Some(attr) = &c.distinct_attribute {
                        let values = attribute_values(&inv, devices, attr);
                        let distinct: std::collections::BTreeSet<_> = values.iter().collect();
                        prop_assert_eq!(distinct.len(), values.len(), "distinctAttribute");
                    }
                }
                // Shares consume no counters in the allocated state; a new share consumes the
                // device's counters once, unless the device already had a share.
                let before = counter_use(&inv, &taken);
                let mut counted = std::collections::BTreeSet::new();
                let charged: Vec<Allocated> = devices
                    .iter()
                    .filter(|a| a.share.is_none() || (!in_use.shares.contains_key(&a.device) && counted.insert(a.device)))
                    .cloned()
                    .collect();
                for (k, v) in counter_use(&inv, &charged) {
                    let total = before.get(&k).copied().unwrap_or(0) + v;
                    prop_assert!(v == 0 || total <= cap, "counters exceeded: {} > {}", total, cap);
                }
            }
        }
    }
}
