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

pub mod allocate;
pub mod inventory;
pub mod selector;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::resource::v1::{DeviceClaim, ResourceClaimSpec};

use self::allocate::{Allocated, Alternative, ClaimSpec, Constraint, DeviceTol, InUse, Request};
use self::inventory::{Inventory, Scope, qualify};
use self::selector::{ExprId, Selectors};
use super::filter::{Code, Reason, Rejection};
use super::node_state::{NodeState, PodId};
use super::pod_req::PodReq;
use crate::snapshot::facts::FeatureGates;
use crate::snapshot::{Snapshot, name_of, namespace_of};

/// Plugin name.
pub const NAME: &str = "DynamicResources";
/// Filter reason when no allocation exists on a node.
pub const ERR_CANNOT_ALLOCATE: &str = "cannot allocate all claims";
/// Filter reason when an allocated claim's devices are not reachable from the node.
pub const ERR_NOT_AVAILABLE_ON_NODE: &str = "resourceclaim not available on the node";

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
    /// Requirements.
    pub spec: ClaimSpec,
    /// Allocated devices and where they can be used.
    pub allocation: Option<(Vec<Allocated>, Scope)>,
}

/// Claims of one pod: (entry name, claim index).
#[derive(Debug, Clone, Default)]
pub struct PodClaims {
    /// Entries in spec order.
    pub entries: Vec<(String, usize)>,
    /// A reason the pod cannot be scheduled at all (missing claim or template, fail-closed).
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
    pub pod_claims: HashMap<PodId, PodClaims>,
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
}

fn compile_claim(
    spec: Option<&DeviceClaim>,
    classes: &HashMap<String, Vec<ExprId>>,
    sel: &mut Selectors,
) -> ClaimSpec {
    let mut out = ClaimSpec::default();
    let Some(spec) = spec else { return out };
    let mut error = None;
    let mut alt =
        |result_name: String,
         class: &str,
         selectors: Option<&Vec<k8s_openapi::api::resource::v1::DeviceSelector>>,
         mode: Option<&String>,
         count: Option<i64>,
         admin: Option<bool>,
         tolerations: Option<&Vec<k8s_openapi::api::resource::v1::DeviceToleration>>| {
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
            }
        };
    for r in spec.requests.iter().flatten() {
        let mut alternatives = Vec::new();
        if let Some(e) = &r.exactly {
            alternatives.push(alt(
                r.name.clone(),
                &e.device_class_name,
                e.selectors.as_ref(),
                e.allocation_mode.as_ref(),
                e.count,
                e.admin_access,
                e.tolerations.as_ref(),
            ));
        }
        for s in r.first_available.iter().flatten() {
            alternatives.push(alt(
                format!("{}/{}", r.name, s.name),
                &s.device_class_name,
                s.selectors.as_ref(),
                s.allocation_mode.as_ref(),
                s.count,
                None,
                s.tolerations.as_ref(),
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

impl DraState {
    /// Builds the DRA state. `pods` are the simulation's pods by id with their objects.
    pub fn build(
        s: &Snapshot,
        pods: &[(PodId, &Pod, &PodReq)],
        gates: &FeatureGates,
        bound: &dyn Fn(PodId) -> bool,
    ) -> Self {
        let extra_taints: Vec<_> = s
            .device_taint_rules
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
            .collect();
        let inventory = Inventory::build(&s.resource_slices, &extra_taints);
        let mut sel = Selectors::default();
        let classes: HashMap<String, Vec<ExprId>> = s
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
        let mut st = Self {
            inventory,
            budget: allocate::DEFAULT_STEP_BUDGET,
            ..Self::default()
        };
        let mut by_name: HashMap<(String, String), usize> = HashMap::new();
        for c in &s.resource_claims {
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
                spec: compile_claim(spec_devices(c.spec.as_ref()), &classes, &mut sel),
                allocation: None,
            };
            if let Some(a) = c.status.as_ref().and_then(|st| st.allocation.as_ref()) {
                let devices: Vec<Allocated> = a
                    .devices
                    .iter()
                    .flat_map(|d| d.results.iter().flatten())
                    .filter_map(|r| {
                        st.inventory
                            .ids
                            .get(&(r.driver.clone(), r.pool.clone(), r.device.clone()))
                            .map(|id| Allocated {
                                device: *id,
                                request: r.request.clone(),
                                admin: r.admin_access == Some(true),
                            })
                    })
                    .collect();
                let scope = match &a.node_selector {
                    Some(ns) => Scope::Selector(
                        ns.node_selector_terms
                            .iter()
                            .map(crate::sched::selector::NodeTerm::compile)
                            .collect(),
                    ),
                    None => Scope::AllNodes,
                };
                st.in_use.apply(&st.inventory, &devices, 1);
                instance.allocation = Some((devices, scope));
            }
            by_name.insert(
                (instance.namespace.clone(), instance.name.clone()),
                st.claims.len(),
            );
            st.claims.push(instance);
        }
        let group_claims_on = gates.enabled("DRAWorkloadResourceClaims");
        let mut group_instances: HashMap<(String, String, String), usize> = HashMap::new();
        for (id, pod, req) in pods {
            let Some(spec) = pod.spec.as_ref() else {
                continue;
            };
            let entries = spec.resource_claims.iter().flatten();
            let mut pc = PodClaims::default();
            let group = req
                .group
                .as_deref()
                .and_then(|g| s.pod_group(&req.namespace, g));
            for e in entries {
                let template = e.resource_claim_template_name.as_deref();
                let claim_name = e.resource_claim_name.as_deref();
                let is_group_entry = group.is_some_and(|pg| {
                    crate::graph::is_group_claim_entry(pg, &e.name, claim_name, template)
                });
                let idx = if let Some(name) = claim_name {
                    by_name
                        .get(&(req.namespace.clone(), name.to_owned()))
                        .copied()
                        .ok_or_else(|| format!("resourceclaim \"{name}\" not found"))
                } else if let Some(t) = template {
                    let template_spec = s
                        .resource_claim_templates
                        .iter()
                        .find(|x| {
                            namespace_of(&x.metadata) == req.namespace && name_of(&x.metadata) == t
                        })
                        .map(|x| spec_devices(x.spec.as_ref().and_then(|t| t.spec.as_ref())));
                    match (is_group_entry, group) {
                        (true, Some(pg)) if !group_claims_on => Err(format!(
                            "no claim is generated for PodGroup \"{}\" entry \"{}\": DRAWorkloadResourceClaims is off (1.37 fails closed)",
                            name_of(&pg.metadata),
                            e.name
                        )),
                        (true, Some(pg)) => {
                            let pg_name = name_of(&pg.metadata).to_owned();
                            let generated =
                                crate::graph::group_claim_status(pg, &e.name).and_then(|n| {
                                    by_name.get(&(req.namespace.clone(), n.to_owned())).copied()
                                });
                            match (generated, template_spec) {
                                (Some(i), _) => Ok(i),
                                (None, None) => {
                                    Err(format!("resourceclaimtemplate \"{t}\" not found"))
                                }
                                (None, Some(devices)) => {
                                    let key =
                                        (req.namespace.clone(), pg_name.clone(), e.name.clone());
                                    Ok(*group_instances.entry(key).or_insert_with(|| {
                                        st.claims.push(ClaimInstance {
                                            name: format!("{pg_name}-{}", e.name),
                                            namespace: req.namespace.clone(),
                                            hypothetical: true,
                                            group: Some(pg_name.clone()),
                                            spec: compile_claim(devices, &classes, &mut sel),
                                            allocation: None,
                                        });
                                        st.claims.len() - 1
                                    }))
                                }
                            }
                        }
                        _ => {
                            let generated =
                                crate::graph::pod_claim_status(pod, &e.name).and_then(|n| {
                                    by_name.get(&(req.namespace.clone(), n.to_owned())).copied()
                                });
                            match (generated, template_spec) {
                                (Some(i), _) => Ok(i),
                                (None, None) => {
                                    Err(format!("resourceclaimtemplate \"{t}\" not found"))
                                }
                                (None, Some(devices)) => {
                                    st.claims.push(ClaimInstance {
                                        name: format!("{}-{}", req.name, e.name),
                                        namespace: req.namespace.clone(),
                                        hypothetical: true,
                                        group: None,
                                        spec: compile_claim(devices, &classes, &mut sel),
                                        allocation: None,
                                    });
                                    Ok(st.claims.len() - 1)
                                }
                            }
                        }
                    }
                } else {
                    continue;
                };
                match idx {
                    Ok(i) => pc.entries.push((e.name.clone(), i)),
                    Err(problem) => {
                        pc.problem.get_or_insert(problem);
                    }
                }
            }
            if bound(*id) {
                let unallocated: Vec<&str> = pc
                    .entries
                    .iter()
                    .filter(|(_, i)| st.claims[*i].allocation.is_none())
                    .map(|(n, _)| n.as_str())
                    .collect();
                if let Some(problem) = &pc.problem {
                    st.stuck.push(StuckPod {
                        pod: *id,
                        message: format!(
                            "bound by spec.nodeName, but {problem}: the kubelet will retry forever"
                        ),
                    });
                } else if !unallocated.is_empty() {
                    st.stuck.push(StuckPod {
                        pod: *id,
                        message: format!(
                            "bound by spec.nodeName, but claim(s) {} are not allocated: the scheduler never ran for it and the kubelet will retry forever",
                            unallocated.join(", ")
                        ),
                    });
                }
            }
            st.pod_claims.insert(*id, pc);
        }
        st.selectors = Rc::new(RefCell::new(sel));
        st.users = vec![Vec::new(); st.claims.len()];
        let mut pods: Vec<(&PodId, &PodClaims)> = st.pod_claims.iter().collect();
        pods.sort_by_key(|(p, _)| **p);
        for (pod, pc) in pods {
            for (_, ci) in &pc.entries {
                st.users[*ci].push(*pod);
            }
        }
        st
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
            return None;
        }
        match self.try_allocate(&todo, node) {
            Ok(_) => None,
            Err((ci, failure)) => Some(Rejection {
                plugin: NAME,
                code: Code::Unschedulable,
                reasons: vec![Reason::Static(ERR_CANNOT_ALLOCATE)],
                detail: Some((
                    self.claims[todo[ci.min(todo.len() - 1)]].name.clone(),
                    failure.text(),
                )),
            }),
        }
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
            self.budget,
        )
    }

    /// Reserve: allocates `pod`'s unallocated claims on `node` (the filter passed there).
    pub fn reserve(&mut self, pod: PodId, node: &NodeState) {
        let todo = self.unallocated(pod);
        if todo.is_empty() {
            return;
        }
        if let Ok(results) = self.try_allocate(&todo, node) {
            for (i, devices) in todo.iter().zip(results) {
                self.in_use.apply(&self.inventory, &devices, 1);
                let scope = allocate::allocation_scope(&self.inventory, &devices);
                self.claims[*i].allocation = Some((devices, scope));
            }
            self.reserved.insert(pod, todo);
        }
    }

    /// Unreserve: drops the allocations `pod`'s Reserve made.
    pub fn unreserve(&mut self, pod: PodId) {
        for i in self.reserved.remove(&pod).unwrap_or_default() {
            if let Some((devices, _)) = self.claims[i].allocation.take() {
                self.in_use.apply(&self.inventory, &devices, -1);
            }
        }
    }

    /// Devices of `pod`'s claims: (claim, request, driver, pool, device).
    pub fn devices_of(&self, pod: PodId) -> Vec<DeviceRef> {
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
                out.push(DeviceRef {
                    claim: c.name.clone(),
                    request: a.request.clone(),
                    driver: d.driver.clone(),
                    pool: pool.name.clone(),
                    device: d.name.clone(),
                });
            }
        }
        out
    }

    /// Evicting `evicted` deletes the per-pod claims only they use: their devices are freed.
    /// PodGroup claims stay allocated (they belong to the PodGroup, which is not deleted).
    /// Returns what was released, for [`restore`](Self::restore).
    pub fn release(
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
            if claim.group.is_none()
                && self.users[ci].iter().all(|p| evicted.contains(p))
                && let Some(a) = claim.allocation.take()
            {
                self.in_use.apply(&self.inventory, &a.0, -1);
                released.push((ci, a));
            }
        }
        released
    }

    /// Undoes [`release`](Self::release).
    pub fn restore(&mut self, released: Vec<(usize, (Vec<Allocated>, Scope))>) {
        for (ci, a) in released {
            self.in_use.apply(&self.inventory, &a.0, 1);
            self.claims[ci].allocation = Some(a);
        }
    }

    /// Number of devices `pod`'s claims hold.
    pub fn device_count(&self, pod: PodId) -> usize {
        self.pod_claims.get(&pod).map_or(0, |pc| {
            pc.entries
                .iter()
                .filter_map(|(_, i)| self.claims[*i].allocation.as_ref())
                .map(|(d, _)| d.len())
                .sum()
        })
    }

    /// Whether claim `index` was allocated by a Reserve in this simulation.
    pub fn reserved_claim(&self, index: usize) -> bool {
        self.reserved.values().any(|v| v.contains(&index))
    }

    /// Whether `pod` has claims the filter must look at.
    pub fn has_claims(&self, pod: PodId) -> bool {
        self.pod_claims.contains_key(&pod)
    }
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
}

/// Unqualified attribute names in constraints are qualified with nothing upstream: they must
/// be written fully qualified. This helper qualifies for tests that build inventories by hand.
pub fn qualified(driver: &str, name: &str) -> String {
    qualify(driver, name)
}

/// Per-claim, per-reason node counts, for traces.
pub type ClaimReasons = BTreeMap<String, BTreeMap<String, u32>>;
