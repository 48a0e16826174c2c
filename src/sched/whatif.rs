//! What-ifs: changes applied to a copy of the snapshot before simulating (`--cordon`,
//! `--drain`, `--add-nodes N --like NODE`, `--add FILE`). The loaded snapshot is never changed.
//!
//! `--drain` models `kubectl drain`: the node is cordoned; DaemonSet and static (mirror) pods
//! stay; pods owned by a controller are recreated by it and become pending again (their node
//! binding is cleared); bare pods are deleted (kubectl drain needs `--force` for them).

use crate::snapshot::pod::{Pod, PodStatus};
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::resource::v1::ResourceSlice;

use crate::snapshot::{Snapshot, name_of};

fn node_mut<'a>(s: &'a mut Snapshot, name: &str) -> Result<&'a mut Node, String> {
    s.nodes
        .iter_mut()
        .find(|n| name_of(&n.metadata) == name)
        .ok_or_else(|| format!("node `{name}` not found"))
}

fn reindex(s: &mut Snapshot) {
    *s = std::mem::take(s).build();
}

/// Marks a node unschedulable.
pub(crate) fn cordon(s: &mut Snapshot, node: &str) -> Result<(), String> {
    node_mut(s, node)?
        .spec
        .get_or_insert_with(Default::default)
        .unschedulable = Some(true);
    reindex(s);
    Ok(())
}

fn stays_on_drain(pod: &Pod) -> bool {
    let owners = pod.metadata.owner_references.iter().flatten();
    let mirror = pod
        .metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(crate::snapshot::pod::MIRROR_ANNOTATION));
    mirror || owners.clone().any(|o| o.kind == "DaemonSet")
}

/// Cordons a node and evicts its pods (see the module docs). Returns how many pods became
/// pending again and how many were deleted.
pub(crate) fn drain(s: &mut Snapshot, node: &str) -> Result<(usize, usize), String> {
    node_mut(s, node)?
        .spec
        .get_or_insert_with(Default::default)
        .unschedulable = Some(true);
    let (mut recreated, mut deleted) = (0, 0);
    s.pods.retain_mut(|pod| {
        let on_node = pod.spec.as_ref().and_then(|sp| sp.node_name.as_deref()) == Some(node);
        if !on_node || stays_on_drain(pod) {
            return true;
        }
        if pod
            .metadata
            .owner_references
            .as_ref()
            .is_none_or(Vec::is_empty)
        {
            deleted += 1;
            return false;
        }
        recreated += 1;
        // Copied only here: the pods a drain leaves alone stay shared with the original.
        let pod = std::sync::Arc::make_mut(pod);
        if let Some(spec) = pod.spec.as_mut() {
            spec.node_name = None;
        }
        pod.status = Some(Box::new(PodStatus {
            phase: Some("Pending".to_owned()),
            ..PodStatus::default()
        }));
        true
    });
    reindex(s);
    Ok((recreated, deleted))
}

/// The most nodes one `--add-nodes` may add: Kubernetes' documented largest cluster
/// ("Considerations for large clusters": no more than 5,000 nodes). The count comes from a
/// flag and sizes the snapshot, so it is checked before anything is copied.
pub(crate) const MAX_ADD_NODES: usize = 5_000;

/// The `i`th node added like `template` (1, 2, …): `NAME-sim-i`, schedulable, without a uid,
/// with the same labels, taints and allocatable, except the labels that name the node: its
/// `kubernetes.io/hostname` label is the new name, and any other label whose value holds the
/// template's name (a per-node label such as `example.com/node: gpu-a1`, or
/// `gpu-a1.example.com`) has that name replaced by the new one. A label several nodes share
/// (a rack, a zone, an instance type) is copied as it is, so the copy lands in the same
/// topology domains.
pub(crate) fn node_like(template: &Node, i: usize) -> Node {
    let old = name_of(&template.metadata).to_owned();
    let name = format!("{old}-sim-{i}");
    let mut n = template.clone();
    n.metadata.name = Some(name.clone());
    n.metadata.uid = None;
    n.metadata.resource_version = None;
    if let Some(labels) = n.metadata.labels.as_mut() {
        for (key, value) in labels.iter_mut() {
            if key == "kubernetes.io/hostname" {
                value.clone_from(&name);
            } else if let Some(renamed) = replace_name(value, &old, &name, |c| c == '-') {
                *value = renamed;
            }
        }
    }
    if let Some(spec) = n.spec.as_mut() {
        spec.unschedulable = None;
    }
    n
}

/// `value` with each occurrence of the node name `old` that stands as a name of its own
/// replaced by `new`, or `None` when there is none. An occurrence stands on its own when the
/// characters around it are not letters, digits or `part_of_name` characters: `gpu-a1` in
/// `gpu-a1.example.com` (labels; `-` is part of a name there) or in
/// `gpu-a1-gpu.example.com-x7k2p` (slice and pool names, where `-` separates), never in
/// `gpu-a10` or `amd64` (node `a`).
fn replace_name(
    value: &str,
    old: &str,
    new: &str,
    part_of_name: impl Fn(char) -> bool,
) -> Option<String> {
    if old.is_empty() {
        return None;
    }
    let inside = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || part_of_name(c));
    let mut out = String::with_capacity(value.len());
    let mut copied = 0;
    let mut replaced = false;
    for (at, _) in value.match_indices(old) {
        let end = at + old.len();
        if inside(value[..at].chars().next_back()) || inside(value[end..].chars().next()) {
            continue;
        }
        out.push_str(&value[copied..at]);
        out.push_str(new);
        copied = end;
        replaced = true;
    }
    out.push_str(&value[copied..]);
    replaced.then_some(out)
}

/// Whether node `name` has devices of its own: a ResourceSlice with
/// `spec.nodeName` naming it, which [`add_nodes`] copies to every new node.
pub(crate) fn has_node_local_slices(s: &Snapshot, name: &str) -> bool {
    s.resource_slices
        .iter()
        .any(|slice| slice.spec.node_name.as_deref() == Some(name))
}

/// The ResourceSlice `slice` of node `old`, copied for the `i`th new node `new`, in a pool
/// of `slice_count` slices (see [`add_nodes`]).
fn slice_like(
    slice: &ResourceSlice,
    old: &str,
    new: &str,
    i: usize,
    slice_count: i64,
) -> ResourceSlice {
    let mut copy = slice.clone();
    let name = name_of(&slice.metadata);
    copy.metadata.name =
        Some(replace_name(name, old, new, |_| false).unwrap_or_else(|| format!("{name}-sim-{i}")));
    copy.metadata.uid = None;
    copy.metadata.resource_version = None;
    copy.metadata.owner_references = None;
    copy.spec.node_name = Some(new.to_owned());
    copy.spec.pool.name = replace_name(&slice.spec.pool.name, old, new, |_| false)
        .unwrap_or_else(|| format!("{}-{new}", slice.spec.pool.name));
    copy.spec.pool.resource_slice_count = slice_count;
    copy
}

/// What [`add_nodes`] added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddedNodes {
    /// The new nodes' names.
    pub names: Vec<String>,
    /// How many ResourceSlices were copied per node (the template's node-local slices).
    pub slices_per_node: usize,
    /// The network-attached pools (`driver/pool`) the template node can use and that were not
    /// copied: the new nodes share them, as they share their labels (`nodeSelector`) or every
    /// node does (`allNodes`), or only some of the pool's devices reach the node
    /// (`perDeviceNodeSelection`).
    pub shared_pools: Vec<String>,
}

impl AddedNodes {
    /// The what-if's description: `added 2 node(s) like `gpu-a1`: gpu-a1-sim-1, gpu-a1-sim-2`,
    /// with the copied ResourceSlices and the pools that were not copied.
    pub(crate) fn describe(&self, like: &str) -> String {
        let mut line = format!(
            "added {} node(s) like `{like}`: {}",
            self.names.len(),
            self.names.join(", ")
        );
        if self.slices_per_node > 0 {
            line.push_str(&format!(
                "; each with a copy of its {} node-local ResourceSlice(s) (pools renamed for the new node, devices, counters and capacity as they are)",
                self.slices_per_node
            ));
        }
        if !self.shared_pools.is_empty() {
            line.push_str(&format!(
                "; network-attached pool(s) {} not copied: the new nodes share them",
                self.shared_pools
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        line
    }
}

/// Adds `count` copies of node `like` (see [`node_like`]; no pods), named `<like>-sim-1` …
/// More than [`MAX_ADD_NODES`] is an error, and nothing is added.
///
/// The node's node-local ResourceSlices (`spec.nodeName: like`) are copied to every new node
/// (issue 45 item 3): `spec.nodeName` is the new node; the slice and pool names have the node's
/// name replaced by the new one (or the new name appended), so each new node has pools of its
/// own, and `resourceSliceCount` is the number of slices copied to the new pool, so it is
/// complete. Devices keep their names, attributes, capacity and consumed counters, and the
/// slices their `sharedCounters`: upstream identifies a device by driver, pool and device name
/// (`DeviceID`), so a new pool makes every copied device a new one, as a new node of the same
/// type would publish. Network-attached slices (`nodeSelector`, `allNodes`,
/// `perDeviceNodeSelection`) the node can use are not copied, and are named in
/// [`AddedNodes::shared_pools`].
pub fn add_nodes(s: &mut Snapshot, count: usize, like: &str) -> Result<AddedNodes, String> {
    if count > MAX_ADD_NODES {
        return Err(format!(
            "cannot add {count} nodes: at most {MAX_ADD_NODES} nodes can be added (the largest cluster Kubernetes supports)"
        ));
    }
    let template = node_mut(s, like)?.clone();
    let labels: crate::sched::selector::Labels = template
        .metadata
        .labels
        .clone()
        .unwrap_or_default()
        .into_iter()
        .collect();
    let local: Vec<ResourceSlice> = s
        .resource_slices
        .iter()
        .filter(|slice| slice.spec.node_name.as_deref() == Some(like))
        .cloned()
        .collect();
    let mut per_pool: std::collections::HashMap<(&str, &str), i64> =
        std::collections::HashMap::new();
    for slice in &local {
        *per_pool
            .entry((&slice.spec.driver, &slice.spec.pool.name))
            .or_default() += 1;
    }
    let mut shared_pools: Vec<String> = s
        .resource_slices
        .iter()
        .filter(|slice| slice.spec.node_name.is_none() && reaches(slice, like, &labels))
        .map(|slice| format!("{}/{}", slice.spec.driver, slice.spec.pool.name))
        .collect();
    shared_pools.sort();
    shared_pools.dedup();
    let mut added = AddedNodes {
        slices_per_node: local.len(),
        shared_pools,
        ..AddedNodes::default()
    };
    let mut slices = Vec::with_capacity(local.len() * count);
    for i in 1..=count {
        let n = node_like(&template, i);
        let name = name_of(&n.metadata).to_owned();
        for slice in &local {
            let in_pool = per_pool
                .get(&(slice.spec.driver.as_str(), slice.spec.pool.name.as_str()))
                .copied()
                .unwrap_or(1);
            slices.push(slice_like(slice, like, &name, i, in_pool));
        }
        added.names.push(name);
        s.nodes.push(n);
    }
    s.resource_slices.extend(slices);
    reindex(s);
    Ok(added)
}

/// Whether a slice without `spec.nodeName` offers devices to node `node` with `labels`.
fn reaches(slice: &ResourceSlice, node: &str, labels: &crate::sched::selector::Labels) -> bool {
    use crate::sched::selector::NodeTerm;
    let matches = |selector: Option<&k8s_openapi::api::core::v1::NodeSelector>| {
        selector.is_some_and(|sel| {
            sel.node_selector_terms
                .iter()
                .any(|t| NodeTerm::compile(t).matches(node, labels))
        })
    };
    if slice.spec.all_nodes == Some(true) || matches(slice.spec.node_selector.as_ref()) {
        return true;
    }
    slice.spec.per_device_node_selection == Some(true)
        && slice.spec.devices.iter().flatten().any(|d| {
            d.node_name.as_deref() == Some(node)
                || d.all_nodes == Some(true)
                || matches(d.node_selector.as_ref())
        })
}

/// Adds manifests (`--add` files, the TUI's `:add`): admits the objects of `extra` that are
/// not stored as the API server would ([`crate::admit`], with the PriorityClasses and nodes
/// of `s` and `extra`), records what admission changed in `s`, then adds them as
/// [`add_objects`] does. An object the API server would refuse is an error, and nothing is
/// added.
///
/// Manifest Jobs, Deployments, ReplicaSets and StatefulSets become the pods (and a Job's
/// Workload/PodGroup) their controllers create ([`crate::admit::controllers`]), with the
/// Job controller's `WorkloadWithJob` from `gate_overrides` and the facts of `s`.
///
/// Returns the snapshot's objects that an added object of the same kind, namespace and name
/// replaced (see [`add_objects`]), for the caller to say so.
pub(crate) fn add_manifests(
    s: &mut Snapshot,
    mut extra: Snapshot,
    gate_overrides: &std::collections::BTreeMap<String, bool>,
) -> Result<Vec<Replaced>, String> {
    let admission = crate::admit::admit_with_gates(&mut extra, Some(s), gate_overrides);
    if let Some(message) = admission.refusal_message() {
        return Err(message);
    }
    admission.record(s);
    Ok(add_objects(s, extra))
}

/// An object of the snapshot that an added object of the same kind, namespace and name
/// replaced (issue 46: `--add` of a Node named like an existing one replaced it silently).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replaced {
    /// The kind.
    pub kind: crate::snapshot::ObjKind,
    /// The namespace; empty for cluster-scoped kinds.
    pub namespace: String,
    /// The name.
    pub name: String,
}

impl std::fmt::Display for Replaced {
    /// `replaced Node/gpu-a1`, `replaced PodGroup/train in namespace ml`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "replaced {}/{}", self.kind, self.name)?;
        if !self.namespace.is_empty() {
            write!(f, " in namespace {}", self.namespace)?;
        }
        Ok(())
    }
}

/// Adds the objects of `extra` (loaded from `--add` files) as new objects; objects with the
/// same kind, namespace and name replace the snapshot's, and are returned (in kind order,
/// then as the snapshot held them).
pub(crate) fn add_objects(s: &mut Snapshot, extra: Snapshot) -> Vec<Replaced> {
    use crate::snapshot::ObjKind;
    let mut replaced = Vec::new();
    // One `merge_kind` per list, in this order (the order `replaced` reports them in).
    macro_rules! merge {
        ($($kind:ident: $field:ident),* $(,)?) => {
            $(merge_kind(
                &mut replaced,
                ObjKind::$kind,
                &mut s.$field,
                extra.$field,
                |o| key_of(&o.metadata),
            );)*
        };
    }
    merge!(
        Node: nodes,
        Pod: pods,
        PodGroup: pod_groups,
        CompositePodGroup: composite_pod_groups,
        Workload: workloads,
        ResourceClaim: resource_claims,
        ResourceClaimTemplate: resource_claim_templates,
        ResourceSlice: resource_slices,
        DeviceClass: device_classes,
        DeviceTaintRule: device_taint_rules,
        PriorityClass: priority_classes,
        PodDisruptionBudget: pod_disruption_budgets,
        LimitRange: limit_ranges,
        ResourceQuota: resource_quotas,
        RuntimeClass: runtime_classes,
        Job: jobs,
        Namespace: namespaces,
    );
    // Kueue's objects (a Job's Kueue Workload, a queue added to try it), replaced alike.
    let (k, from) = (&mut s.kueue, extra.kueue);
    macro_rules! merge_kueue {
        ($($kind:ident: $field:ident),* $(,)?) => {
            $(merge_kind(
                &mut replaced,
                ObjKind::$kind,
                &mut k.$field,
                from.$field,
                |o| key_of(&o.metadata),
            );)*
        };
    }
    merge_kueue!(
        ResourceFlavor: resource_flavors,
        ClusterQueue: cluster_queues,
        LocalQueue: local_queues,
        Cohort: cohorts,
        KueueWorkload: workloads,
        WorkloadPriorityClass: workload_priority_classes,
        AdmissionCheck: admission_checks,
        Topology: topologies,
    );
    if s.kueue_config.is_none() {
        s.kueue_config = extra.kueue_config;
    }
    s.warnings.extend(extra.warnings);
    reindex(s);
    replaced
}

/// Merges one kind's added objects `from` into the snapshot's list `into`, recording each
/// object of `into` it replaces.
///
/// Linear in both lists (adding a few hundred objects to 150,000 pods stays cheap): the
/// last object of `from` with a key wins, and replaces the snapshot's object with that key.
/// The snapshot's objects are looked up by borrowed namespace and name, without copying them.
fn merge_kind<T>(
    replaced: &mut Vec<Replaced>,
    kind: crate::snapshot::ObjKind,
    into: &mut Vec<T>,
    from: Vec<T>,
    key: impl for<'o> Fn(&'o T) -> (&'o str, &'o str),
) {
    if from.is_empty() {
        return;
    }
    let mut last: std::collections::HashMap<String, std::collections::HashMap<String, usize>> =
        std::collections::HashMap::new();
    for (i, o) in from.iter().enumerate() {
        let (ns, name) = key(o);
        last.entry(ns.to_owned())
            .or_default()
            .insert(name.to_owned(), i);
    }
    let last_of = |o: &T| {
        let (ns, name) = key(o);
        last.get(ns).and_then(|names| names.get(name)).copied()
    };
    into.retain(|x| {
        if last_of(x).is_none() {
            return true;
        }
        let (namespace, name) = key(x);
        replaced.push(Replaced {
            kind: kind.clone(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        });
        false
    });
    let keep: Vec<bool> = from
        .iter()
        .enumerate()
        .map(|(i, o)| last_of(o) == Some(i))
        .collect();
    into.extend(
        from.into_iter()
            .zip(keep)
            .filter(|(_, keep)| *keep)
            .map(|(o, _)| o),
    );
}

/// An object's (namespace, name), empty for a missing field.
fn key_of(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> (&str, &str) {
    (
        m.namespace.as_deref().unwrap_or_default(),
        m.name.as_deref().unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::{Collector, files};

    pub(super) fn load(text: &str) -> Snapshot {
        let mut c = Collector::new();
        files::load_str(text, "test.yaml", &mut c).expect("fixture loads");
        c.finish()
    }

    pub(super) const TWO_NODES: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: a, labels: {kubernetes.io/hostname: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {kubernetes.io/hostname: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"#;

    /// An added object with the kind and name of one of the snapshot's replaces it and is
    /// returned, so that `--add` says so (issue 46 item 6); a new name replaces nothing.
    #[test]
    fn added_objects_report_the_objects_they_replace() {
        let mut s = load(TWO_NODES);
        let replaced = add_objects(
            &mut s,
            load(
                "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: c}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: ml}\nspec: {containers: [{name: c, image: x}]}\n",
            ),
        );
        assert_eq!(
            replaced.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["replaced Node/b"]
        );
        assert_eq!(s.nodes.len(), 3);
        let again = add_objects(
            &mut s,
            load(
                "apiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: ml}\nspec: {containers: [{name: c, image: x}]}\n",
            ),
        );
        assert_eq!(again[0].to_string(), "replaced Pod/b in namespace ml");
    }
}

#[cfg(test)]
mod add_nodes_tests {
    use super::tests::load;
    use super::*;

    /// A GPU node with a node-local pool of two slices (one with shared counters), a
    /// per-node label holding its name, a rack label, and a network-attached pool that
    /// reaches it by label.
    const DRA_NODE: &str = r#"
apiVersion: v1
kind: Node
metadata:
  name: gpu-a1
  uid: uid-gpu-a1
  labels: {kubernetes.io/hostname: gpu-a1, example.com/node: gpu-a1, topology.kubernetes.io/rack: rack-a}
spec:
  taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
status: {allocatable: {cpu: "32", memory: 256Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-a1-gpu.example.com-abcde, uid: uid-s1}
spec:
  driver: gpu.example.com
  nodeName: gpu-a1
  pool: {name: gpu-a1, generation: 3, resourceSliceCount: 2}
  sharedCounters: [{name: gpu-0-counters, counters: {memory: {value: 80Gi}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-a1-gpu.example.com-fghij, uid: uid-s2}
spec:
  driver: gpu.example.com
  nodeName: gpu-a1
  pool: {name: gpu-a1, generation: 3, resourceSliceCount: 2}
  devices:
  - name: gpu-0
    capacity: {memory: {value: 80Gi}}
    consumesCounters: [{counterSet: gpu-0-counters, counters: {memory: {value: 80Gi}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: nic.example.com
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/rack, operator: In, values: [rack-a]}]}]}
  pool: {name: fabric-rack-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: nic-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: other-rack}
spec:
  driver: nic.example.com
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/rack, operator: In, values: [rack-b]}]}]}
  pool: {name: fabric-rack-b, generation: 1, resourceSliceCount: 1}
  devices: [{name: nic-0}]
"#;

    /// Issue 45 item 3: `--add-nodes 2 --like gpu-a1` copies the node's labels (the ones that
    /// name it rewritten, the rack kept), taints and allocatable, and its node-local
    /// ResourceSlices into a pool of each new node's own (counters, capacity and device names
    /// as they are; the pool's slice count kept whole); the network-attached pool the node
    /// reaches is not copied and is named.
    #[test]
    fn added_nodes_copy_their_node_local_resource_slices() {
        let mut s = load(DRA_NODE);
        let added = add_nodes(&mut s, 2, "gpu-a1").expect("added");
        assert_eq!(added.names, ["gpu-a1-sim-1", "gpu-a1-sim-2"]);
        assert_eq!(added.slices_per_node, 2);
        assert_eq!(added.shared_pools, ["nic.example.com/fabric-rack-a"]);
        let node = s
            .nodes
            .iter()
            .find(|n| name_of(&n.metadata) == "gpu-a1-sim-2")
            .expect("new node");
        let labels = node.metadata.labels.as_ref().expect("labels");
        assert_eq!(labels["kubernetes.io/hostname"], "gpu-a1-sim-2");
        assert_eq!(labels["example.com/node"], "gpu-a1-sim-2");
        assert_eq!(labels["topology.kubernetes.io/rack"], "rack-a");
        assert_eq!(node.metadata.uid, None);
        assert_eq!(
            node.spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .map(Vec::len),
            Some(1)
        );
        let copies: Vec<_> = s
            .resource_slices
            .iter()
            .filter(|r| r.spec.node_name.as_deref() == Some("gpu-a1-sim-2"))
            .collect();
        assert_eq!(copies.len(), 2);
        let mut names: Vec<&str> = copies.iter().map(|r| name_of(&r.metadata)).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "gpu-a1-sim-2-gpu.example.com-abcde",
                "gpu-a1-sim-2-gpu.example.com-fghij"
            ]
        );
        for copy in &copies {
            assert_eq!(copy.spec.pool.name, "gpu-a1-sim-2");
            assert_eq!(copy.spec.pool.resource_slice_count, 2);
            assert_eq!(copy.spec.pool.generation, 3);
            assert_eq!(copy.metadata.uid, None);
        }
        let devices = copies
            .iter()
            .find_map(|r| r.spec.devices.as_ref())
            .expect("the device slice");
        assert_eq!(devices[0].name, "gpu-0");
        assert!(devices[0].capacity.is_some() && devices[0].consumes_counters.is_some());
        assert!(copies.iter().any(|r| r.spec.shared_counters.is_some()));
        // The network-attached slices are the snapshot's two, not copied.
        assert_eq!(
            s.resource_slices
                .iter()
                .filter(|r| r.spec.driver == "nic.example.com")
                .count(),
            2
        );
        let line = added.describe("gpu-a1");
        assert!(
            line.contains("each with a copy of its 2 node-local ResourceSlice(s)")
                && line.contains(
                    "network-attached pool(s) `nic.example.com/fabric-rack-a` not copied"
                ),
            "{line}"
        );
    }

    /// The node's name is replaced where it stands as a name of its own, never inside
    /// another word (node `a` and `amd64`, `gpu-a1` and `gpu-a10`).
    #[test]
    fn the_node_name_is_replaced_only_where_it_stands_alone() {
        let label = |v: &str, old: &str| replace_name(v, old, "X", |c| c == '-');
        assert_eq!(
            label("gpu-a1.example.com", "gpu-a1").as_deref(),
            Some("X.example.com")
        );
        assert_eq!(label("gpu-a10", "gpu-a1"), None);
        assert_eq!(label("amd64", "a"), None);
        assert_eq!(label("a", "a").as_deref(), Some("X"));
        assert_eq!(label("rack-a", "a"), None);
        let slice = |v: &str, old: &str| replace_name(v, old, "X", |_| false);
        assert_eq!(
            slice("gpu-a1-gpu.example.com-x7k2p", "gpu-a1").as_deref(),
            Some("X-gpu.example.com-x7k2p")
        );
        assert_eq!(slice("n-a", "a").as_deref(), Some("n-X"));
        assert_eq!(slice("amd64", "a"), None);
    }

    /// A node without devices is copied as before: no slice, no note.
    #[test]
    fn a_node_without_devices_copies_no_slice() {
        let mut s = load(super::tests::TWO_NODES);
        let added = add_nodes(&mut s, 1, "a").expect("added");
        assert_eq!(added.slices_per_node, 0);
        assert!(added.shared_pools.is_empty());
        assert_eq!(added.describe("a"), "added 1 node(s) like `a`: a-sim-1");
        assert!(s.resource_slices.is_empty());
    }
}
