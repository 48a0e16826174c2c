//! The device inventory: ResourceSlices grouped into pools, with the state upstream's
//! allocator sees (semantics §7.2).
//!
//! Upstream: `k8s.io/dynamic-resource-allocation/structured/internal/*/pools_*.go`. Pools are
//! keyed by (driver, pool name); only slices of the highest `pool.generation` count; a pool is
//! complete when that generation's slice count equals `resourceSliceCount`; it is invalid with
//! duplicate device names, duplicate counter sets, or a device consuming a counter set or
//! counter the pool lacks. Pools sort by driver, then name, with pools holding devices with
//! binding conditions last; devices keep slice (name) order.
//!
//! Each device keeps its capacities twice: as written, for CEL, and compiled for consumable
//! capacity ([`CapacityDef`], by qualified name). List-typed attributes (`ints`, `strings`, …;
//! alpha gate DRAListTypeAttributes) are read only with the gate on and become
//! [`AttrValue::List`].

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::NodeSelector;
use k8s_openapi::api::resource::v1::{
    DeviceAttribute, DeviceCapacity, DeviceTaint, NodeAllocatableResource, ResourceSlice,
};

use super::capacity::CapacityDef;

use crate::sched::selector::{Labels, NodeTerm};
use crate::snapshot::name_of;
use crate::snapshot::quantity::parse_quantity;

/// Index of a device in [`Inventory::devices`].
pub(crate) type DeviceId = usize;

/// Where a device can be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// One node.
    Node(String),
    /// Every node.
    AllNodes,
    /// Nodes matching any of these terms.
    Selector(Vec<NodeTerm>),
}

impl Scope {
    fn from_api(
        node_name: Option<&String>,
        all: Option<bool>,
        selector: Option<&NodeSelector>,
    ) -> Option<Self> {
        if let Some(n) = node_name {
            Some(Self::Node(n.clone()))
        } else if all == Some(true) {
            Some(Self::AllNodes)
        } else {
            selector.map(|s| {
                Self::Selector(
                    s.node_selector_terms
                        .iter()
                        .map(NodeTerm::compile)
                        .collect(),
                )
            })
        }
    }

    /// Whether the node can use the device.
    pub(crate) fn matches(&self, node: &str, labels: &Labels) -> bool {
        match self {
            Self::Node(n) => n == node,
            Self::AllNodes => true,
            Self::Selector(terms) => terms.iter().any(|t| t.matches(node, labels)),
        }
    }
}

/// A device attribute value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum AttrValue {
    /// `int`.
    Int(i64),
    /// `bool`.
    Bool(bool),
    /// `string`.
    String(String),
    /// `version` (semver).
    Version(String),
    /// `ints`, `bools`, `strings` or `versions` (alpha, gate DRAListTypeAttributes; only built
    /// with the gate on). Elements are scalars.
    List(Vec<AttrValue>),
}

impl AttrValue {
    /// The value as a set for constraints: a list's elements, a scalar as a singleton
    /// (upstream's set semantics with DRAListTypeAttributes; for scalars the same as equality).
    pub(crate) fn elements(&self) -> &[Self] {
        match self {
            Self::List(items) => items,
            scalar => std::slice::from_ref(scalar),
        }
    }
}

/// Converts an API attribute. Lists are only read with `lists` (gate DRAListTypeAttributes)
/// and, as upstream's CEL conversion does, take precedence over scalars; without the gate a
/// list-only attribute is dropped.
fn attr_value(a: &DeviceAttribute, lists: bool) -> Option<AttrValue> {
    if lists {
        if let Some(v) = &a.ints {
            return Some(AttrValue::List(
                v.iter().copied().map(AttrValue::Int).collect(),
            ));
        }
        if let Some(v) = &a.bools {
            return Some(AttrValue::List(
                v.iter().copied().map(AttrValue::Bool).collect(),
            ));
        }
        if let Some(v) = &a.strings {
            return Some(AttrValue::List(
                v.iter().cloned().map(AttrValue::String).collect(),
            ));
        }
        if let Some(v) = &a.versions {
            return Some(AttrValue::List(
                v.iter().cloned().map(AttrValue::Version).collect(),
            ));
        }
    }
    if let Some(i) = a.int {
        Some(AttrValue::Int(i))
    } else if let Some(b) = a.bool {
        Some(AttrValue::Bool(b))
    } else if let Some(s) = &a.string {
        Some(AttrValue::String(s.clone()))
    } else {
        a.version.clone().map(AttrValue::Version)
    }
}

/// One device.
#[derive(Debug, Clone)]
pub struct Device {
    /// Its pool.
    pub pool: usize,
    /// Device name (unique in a valid pool).
    pub name: String,
    /// Driver.
    pub driver: String,
    /// Fully qualified attributes (`domain/name`).
    pub attributes: BTreeMap<String, AttrValue>,
    /// Fully qualified capacities, as written (quantity strings).
    pub capacity: BTreeMap<String, String>,
    /// Capacities for consumable-capacity accounting, by qualified name (an entry written
    /// with the driver's domain wins over the same name written without one).
    pub capacities: BTreeMap<String, CapacityDef>,
    /// Where it can be used.
    pub scope: Scope,
    /// Taints (from the slice and from DeviceTaintRules).
    pub taints: Vec<DeviceTaint>,
    /// Counters it consumes: (counter set, counter → amount).
    pub consumes: Vec<(String, BTreeMap<String, i64>)>,
    /// `allowMultipleAllocations` (consumable capacity).
    pub allow_multiple: bool,
    /// Has binding conditions.
    pub binding: bool,
    /// What few devices carry: binding conditions (DRADeviceBindingConditions) and
    /// node-allocatable resources (DRANodeAllocatableResources); `None` for most devices.
    pub extra: Option<Box<DeviceExtra>>,
}

/// The rarer fields of a device, kept apart so that the common device stays small.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceExtra {
    /// `bindingConditions`: condition types that must be `True` in the claim's device status
    /// before the pod is bound (PreBind waits for them up to `bindingTimeout`).
    pub binding_conditions: Vec<String>,
    /// `bindingFailureConditions`: any of them `True` aborts the binding.
    pub binding_failure_conditions: Vec<String>,
    /// `bindsToNode`: the allocation is limited to the node chosen for it.
    pub binds_to_node: bool,
    /// `nodeAllocatableResources`: node resource name → mapping and overhead (KEP-5517).
    pub node_allocatable: BTreeMap<String, NodeAllocatableResource>,
}

/// One pool of devices.
#[derive(Debug, Clone)]
pub struct Pool {
    /// Driver.
    pub driver: String,
    /// Pool name.
    pub name: String,
    /// The current generation has exactly `resourceSliceCount` slices (and the count is not 0).
    pub complete: bool,
    /// Slices of the current generation seen.
    pub slices: usize,
    /// Their `resourceSliceCount` (the first slice's by name).
    pub resource_slice_count: i64,
    /// Why the pool is invalid, if it is.
    pub invalid: Option<String>,
    /// Devices in order.
    pub devices: Vec<DeviceId>,
    /// Counter sets: set → counter → capacity.
    pub counters: BTreeMap<String, BTreeMap<String, i64>>,
}

/// Every pool and device of a snapshot.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    /// Pools in allocation order.
    pub pools: Vec<Pool>,
    /// Devices.
    pub devices: Vec<Device>,
    /// (driver, pool, device) → id.
    pub ids: HashMap<(String, String, String), DeviceId>,
    /// Node-local devices by node name, ascending ids (ids follow pool then device order).
    pub(crate) node_local: HashMap<String, Vec<DeviceId>>,
    /// Devices of `allNodes` or `nodeSelector` scope, ascending ids.
    pub(crate) shared: Vec<DeviceId>,
    /// Per device, an id of everything the allocator reads about it apart from its name, its
    /// pool's name and which node it is on: driver, attributes, capacities, taints, counters
    /// consumed (with the counter sets' sizes), `allowMultipleAllocations`, binding
    /// conditions, and whether its pool is complete and valid. Two devices with the same
    /// shape on two nodes are interchangeable for the search (node equivalence).
    pub(crate) shapes: Vec<u32>,
}

/// The rarer fields of `d`, or `None` when it has none of them.
fn device_extra(d: &k8s_openapi::api::resource::v1::Device) -> Option<Box<DeviceExtra>> {
    let extra = DeviceExtra {
        binding_conditions: d.binding_conditions.clone().unwrap_or_default(),
        binding_failure_conditions: d.binding_failure_conditions.clone().unwrap_or_default(),
        binds_to_node: d.binds_to_node == Some(true),
        node_allocatable: d.node_allocatable_resources.clone().unwrap_or_default(),
    };
    (extra != DeviceExtra::default()).then(|| Box::new(extra))
}

/// Qualifies an attribute or capacity name with the driver's domain when it has none.
pub(crate) fn qualify(driver: &str, name: &str) -> String {
    if name.contains('/') {
        name.to_owned()
    } else {
        format!("{driver}/{name}")
    }
}

/// A DeviceTaintRule's taint with its device selector: (driver, pool, device), `None` = any.
pub(crate) type ExtraTaint = (
    (Option<String>, Option<String>, Option<String>),
    DeviceTaint,
);

/// Consumable capacities of a device by qualified name. Upstream resolves a device's
/// capacities once: an entry qualified with the driver's own domain takes precedence over an
/// unqualified entry with the same identifier.
fn capacities(
    driver: &str,
    raw: Option<&BTreeMap<String, DeviceCapacity>>,
) -> BTreeMap<String, CapacityDef> {
    let mut out = BTreeMap::new();
    let prefix = format!("{driver}/");
    let entries = raw.into_iter().flatten();
    for (name, c) in entries.clone().filter(|(n, _)| n.starts_with(&prefix)) {
        if let Some(def) = CapacityDef::from_api(name, c) {
            out.insert(name.clone(), def);
        }
    }
    for (name, c) in entries.filter(|(n, _)| !n.starts_with(&prefix)) {
        let key = qualify(driver, name);
        if !out.contains_key(&key)
            && let Some(def) = CapacityDef::from_api(name, c)
        {
            out.insert(key, def);
        }
    }
    out
}

/// One (driver, pool) of the inventory from its slices: the current generation's slices by
/// name, whether that generation is complete, its shared counters and devices, and why it is
/// invalid (duplicate counter sets or device names, counters no set declares), if it is.
fn read_pool(
    driver: String,
    pool_name: String,
    mut group: Vec<&ResourceSlice>,
    extra_taints: &[ExtraTaint],
    list_attributes: bool,
) -> (Pool, Vec<Device>) {
    let max_gen = group
        .iter()
        .map(|s| s.spec.pool.generation)
        .max()
        .unwrap_or(0);
    group.retain(|s| s.spec.pool.generation == max_gen);
    group.sort_by(|a, b| name_of(&a.metadata).cmp(name_of(&b.metadata)));
    // Complete only when the current generation has exactly `resourceSliceCount`
    // slices (semantics §7.2; upstream `GatherPools`: `IsIncomplete = len(pool.Slices)
    // != pool.Slices[0].Spec.Pool.ResourceSliceCount`). More slices than the count, or
    // a count of 0, is incomplete too, and nothing is allocated from the pool. Upstream
    // reads the count of the first slice it saw; the first by name stands in for it.
    let expected = group
        .first()
        .map_or(0, |s| s.spec.pool.resource_slice_count);
    let complete = i64::try_from(group.len()).is_ok_and(|n| n == expected);
    let mut pool = Pool {
        driver: driver.clone(),
        name: pool_name.clone(),
        complete,
        slices: group.len(),
        resource_slice_count: expected,
        invalid: None,
        devices: Vec::new(),
        counters: BTreeMap::new(),
    };
    let mut devices = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for s in &group {
        for cs in s.spec.shared_counters.iter().flatten() {
            let counters = cs
                .counters
                .iter()
                .filter_map(|(k, c)| parse_quantity(&c.value.0).map(|v| (k.clone(), v)))
                .collect();
            if pool.counters.insert(cs.name.clone(), counters).is_some() {
                pool.invalid
                    .get_or_insert(format!("duplicate counter set `{}`", cs.name));
            }
        }
        let per_device = s.spec.per_device_node_selection == Some(true);
        let slice_scope = Scope::from_api(
            s.spec.node_name.as_ref(),
            s.spec.all_nodes,
            s.spec.node_selector.as_ref(),
        );
        for d in s.spec.devices.iter().flatten() {
            if !seen.insert(d.name.clone()) {
                pool.invalid
                    .get_or_insert(format!("duplicate device name `{}`", d.name));
            }
            let scope = if per_device {
                Scope::from_api(d.node_name.as_ref(), d.all_nodes, d.node_selector.as_ref())
            } else {
                slice_scope.clone()
            };
            devices.push(read_device(
                d,
                &driver,
                &pool_name,
                scope,
                extra_taints,
                list_attributes,
            ));
        }
    }
    check_counter_references(&mut pool, &devices);
    (pool, devices)
}

/// One device of a pool, in the pool `0` until the inventory numbers it: attributes and
/// capacities qualified with the driver's domain, its taints plus the DeviceTaintRules that
/// select it; a device whose slice (or itself) names no node, all nodes or selector reaches no
/// node.
fn read_device(
    d: &k8s_openapi::api::resource::v1::Device,
    driver: &str,
    pool_name: &str,
    scope: Option<Scope>,
    extra_taints: &[ExtraTaint],
    list_attributes: bool,
) -> Device {
    let attributes = d
        .attributes
        .iter()
        .flatten()
        .filter_map(|(k, a)| attr_value(a, list_attributes).map(|v| (qualify(driver, k), v)))
        .collect();
    let mut taints: Vec<DeviceTaint> = d.taints.clone().unwrap_or_default();
    for ((dr, po, de), t) in extra_taints {
        let hit = dr.as_ref().is_none_or(|x| *x == driver)
            && po.as_ref().is_none_or(|x| *x == pool_name)
            && de.as_ref().is_none_or(|x| *x == d.name);
        if hit {
            taints.push(t.clone());
        }
    }
    Device {
        pool: 0,
        name: d.name.clone(),
        driver: driver.to_owned(),
        attributes,
        capacity: d
            .capacity
            .iter()
            .flatten()
            .map(|(k, c)| (qualify(driver, k), c.value.0.clone()))
            .collect(),
        capacities: capacities(driver, d.capacity.as_ref()),
        scope: scope.unwrap_or(Scope::Selector(Vec::new())),
        taints,
        consumes: d
            .consumes_counters
            .iter()
            .flatten()
            .map(|c| {
                (
                    c.counter_set.clone(),
                    c.counters
                        .iter()
                        .filter_map(|(k, v)| parse_quantity(&v.value.0).map(|q| (k.clone(), q)))
                        .collect(),
                )
            })
            .collect(),
        allow_multiple: d.allow_multiple_allocations == Some(true),
        binding: d.binding_conditions.as_ref().is_some_and(|b| !b.is_empty()),
        extra: device_extra(d),
    }
}

/// Marks the pool invalid when a device consumes a counter set, or a counter of one, that
/// the pool's slices do not declare.
fn check_counter_references(pool: &mut Pool, devices: &[Device]) {
    for d in devices {
        for (set, counters) in &d.consumes {
            match pool.counters.get(set) {
                None => {
                    pool.invalid.get_or_insert(format!(
                        "device `{}` consumes unknown counter set `{set}`",
                        d.name
                    ));
                }
                Some(have) if counters.keys().any(|k| !have.contains_key(k)) => {
                    pool.invalid.get_or_insert(format!(
                        "device `{}` consumes an unknown counter of `{set}`",
                        d.name
                    ));
                }
                Some(_) => {}
            }
        }
    }
}

impl Inventory {
    /// Builds the inventory from the snapshot's slices (and extra taints from
    /// DeviceTaintRules, matched by `(driver, pool, device)`), with list-typed attributes
    /// ignored (DRAListTypeAttributes is off by default).
    pub(crate) fn build(slices: &[ResourceSlice], extra_taints: &[ExtraTaint]) -> Self {
        Self::build_with(slices, extra_taints, false)
    }

    /// [`build`](Self::build), reading list-typed attributes when `list_attributes` (gate
    /// DRAListTypeAttributes) is on.
    pub(crate) fn build_with(
        slices: &[ResourceSlice],
        extra_taints: &[ExtraTaint],
        list_attributes: bool,
    ) -> Self {
        // Group by (driver, pool); keep the highest generation.
        let mut groups: BTreeMap<(String, String), Vec<&ResourceSlice>> = BTreeMap::new();
        for s in slices {
            groups
                .entry((s.spec.driver.clone(), s.spec.pool.name.clone()))
                .or_default()
                .push(s);
        }
        let mut inv = Self::default();
        let mut pools: Vec<(bool, Pool, Vec<Device>)> = Vec::new();
        for ((driver, pool_name), group) in groups {
            let (pool, devices) =
                read_pool(driver, pool_name, group, extra_taints, list_attributes);
            let binding = devices.iter().any(|d| d.binding);
            pools.push((binding, pool, devices));
        }
        // Pools with binding conditions go last; otherwise (driver, name) order is kept.
        pools.sort_by_key(|(binding, _, _)| *binding);
        for (_, mut pool, devices) in pools {
            let pool_index = inv.pools.len();
            for mut d in devices {
                d.pool = pool_index;
                let id = inv.devices.len();
                inv.ids
                    .insert((d.driver.clone(), pool.name.clone(), d.name.clone()), id);
                pool.devices.push(id);
                inv.devices.push(d);
            }
            inv.pools.push(pool);
        }
        inv.reindex();
        inv
    }

    /// Rebuilds the per-node device index after `devices` changed.
    pub(crate) fn reindex(&mut self) {
        self.node_local.clear();
        self.shared.clear();
        for (id, d) in self.devices.iter().enumerate() {
            match &d.scope {
                Scope::Node(n) => self.node_local.entry(n.clone()).or_default().push(id),
                Scope::AllNodes | Scope::Selector(_) => self.shared.push(id),
            }
        }
        // Shapes are interned from an exact rendering of the fields (no hash collisions).
        let mut interned: HashMap<String, u32> = HashMap::new();
        self.shapes = self
            .devices
            .iter()
            .map(|d| {
                let pool = &self.pools[d.pool];
                let sets: Vec<Option<&BTreeMap<String, i64>>> = d
                    .consumes
                    .iter()
                    .map(|(set, _)| pool.counters.get(set))
                    .collect();
                let key = format!(
                    "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{}|{}|{}|{}|{:?}",
                    d.driver,
                    d.attributes,
                    d.capacity,
                    d.capacities,
                    d.taints,
                    d.consumes,
                    sets,
                    d.allow_multiple,
                    d.binding,
                    pool.complete,
                    pool.invalid.is_some(),
                    d.extra
                );
                let next = u32::try_from(interned.len()).unwrap_or(u32::MAX);
                *interned.entry(key).or_insert(next)
            })
            .collect();
    }

    /// Devices that may be usable on `node`, in allocation order (pool order, then device order):
    /// the node's own devices merged with the shared ones. Shared devices still need
    /// [`Scope::matches`]; looking up the node's list keeps a filter call independent of the
    /// cluster's device count.
    pub(crate) fn devices_near(&self, node: &str) -> impl Iterator<Item = DeviceId> + '_ {
        let local = self.node_local.get(node).map_or(&[][..], Vec::as_slice);
        let (mut a, mut b) = (local.iter().peekable(), self.shared.iter().peekable());
        std::iter::from_fn(move || match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x < y => a.next().copied(),
            (Some(_), Some(_)) | (None, Some(_)) => b.next().copied(),
            (Some(_), None) => a.next().copied(),
            (None, None) => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(devices: &str) -> ResourceSlice {
        serde_json::from_str(&format!(
            r#"{{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {{"name": "s"}}, "spec": {{"driver": "d.example.com", "nodeName": "n1", "pool": {{"name": "p", "generation": 1, "resourceSliceCount": 1}}, "devices": {devices}}}}}"#
        ))
        .expect("test slice")
    }

    #[test]
    fn list_attributes_need_the_gate_and_win_over_scalars() {
        let s = slice(
            r#"[{"name": "x", "attributes": {"roots": {"strings": ["a", "b"]}, "both": {"int": 1, "ints": [2, 3]}, "n": {"int": 7}}}]"#,
        );
        let off = Inventory::build(std::slice::from_ref(&s), &[]);
        let attrs = &off.devices[0].attributes;
        assert_eq!(attrs.get("d.example.com/roots"), None);
        assert_eq!(attrs.get("d.example.com/both"), Some(&AttrValue::Int(1)));
        let on = Inventory::build_with(&[s], &[], true);
        let attrs = &on.devices[0].attributes;
        assert_eq!(
            attrs.get("d.example.com/roots"),
            Some(&AttrValue::List(vec![
                AttrValue::String("a".into()),
                AttrValue::String("b".into())
            ]))
        );
        assert_eq!(
            attrs.get("d.example.com/both").map(AttrValue::elements),
            Some(&[AttrValue::Int(2), AttrValue::Int(3)][..])
        );
        assert_eq!(
            attrs.get("d.example.com/n").map(AttrValue::elements),
            Some(&[AttrValue::Int(7)][..])
        );
    }

    #[test]
    fn capacities_qualified_with_the_driver_win_and_keep_their_written_names() {
        let s = slice(
            r#"[{"name": "x", "capacity": {"mem": {"value": "1Gi"}, "d.example.com/mem": {"value": "2Gi"}, "other.io/bw": {"value": "10G"}, "cores": {"value": "4", "requestPolicy": {"default": "1", "validRange": {"min": "1", "step": "1"}}}, "bad": {"value": "lots"}}}]"#,
        );
        let inv = Inventory::build(&[s], &[]);
        let caps = &inv.devices[0].capacities;
        let names: Vec<(&str, &str, i128)> = caps
            .iter()
            .map(|(k, c)| (k.as_str(), c.name.as_str(), c.value.milli))
            .collect();
        assert_eq!(
            names,
            [
                ("d.example.com/cores", "cores", 4000),
                ("d.example.com/mem", "d.example.com/mem", 2000i128 << 30),
                ("other.io/bw", "other.io/bw", 10_000_000_000_000),
            ]
        );
        let policy = caps["d.example.com/cores"].policy.as_ref();
        assert_eq!(
            policy.and_then(|p| p.default.as_ref()).map(|d| d.milli),
            Some(1000)
        );
    }

    #[test]
    fn devices_near_merges_local_and_shared_in_allocation_order() {
        let mut inv = Inventory::default();
        inv.node_local.insert("n1".to_owned(), vec![0, 3, 4]);
        inv.node_local.insert("n2".to_owned(), vec![5]);
        inv.shared = vec![1, 2, 6];
        assert_eq!(
            inv.devices_near("n1").collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4, 6]
        );
        assert_eq!(inv.devices_near("n2").collect::<Vec<_>>(), vec![1, 2, 5, 6]);
        assert_eq!(inv.devices_near("n3").collect::<Vec<_>>(), vec![1, 2, 6]);
    }
}
