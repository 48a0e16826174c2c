//! What-ifs: changes applied to a copy of the snapshot before simulating (`--cordon`,
//! `--drain`, `--add-nodes N --like NODE`, `--add FILE`). The loaded snapshot is never changed.
//!
//! `--drain` models `kubectl drain`: the node is cordoned; DaemonSet and static (mirror) pods
//! stay; pods owned by a controller are recreated by it and become pending again (their node
//! binding is cleared); bare pods are deleted (kubectl drain needs `--force` for them).

use crate::snapshot::pod::{Pod, PodStatus};
use k8s_openapi::api::core::v1::Node;

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
pub fn cordon(s: &mut Snapshot, node: &str) -> Result<(), String> {
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
pub fn drain(s: &mut Snapshot, node: &str) -> Result<(usize, usize), String> {
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
pub const MAX_ADD_NODES: usize = 5_000;

/// The `i`th node added like `template` (1, 2, …): `NAME-sim-i`, its hostname label renamed,
/// schedulable, without a uid.
pub fn node_like(template: &Node, i: usize) -> Node {
    let name = format!("{}-sim-{i}", name_of(&template.metadata));
    let mut n = template.clone();
    n.metadata.name = Some(name.clone());
    n.metadata.uid = None;
    if let Some(labels) = n.metadata.labels.as_mut()
        && labels.contains_key("kubernetes.io/hostname")
    {
        labels.insert("kubernetes.io/hostname".to_owned(), name);
    }
    if let Some(spec) = n.spec.as_mut() {
        spec.unschedulable = None;
    }
    n
}

/// Adds `count` copies of node `like` (same labels, taints and allocatable; no pods), named
/// `<like>-sim-1` … with their `kubernetes.io/hostname` label set to the new name. More than
/// [`MAX_ADD_NODES`] is an error, and nothing is added.
pub fn add_nodes(s: &mut Snapshot, count: usize, like: &str) -> Result<Vec<String>, String> {
    if count > MAX_ADD_NODES {
        return Err(format!(
            "cannot add {count} nodes: at most {MAX_ADD_NODES} nodes can be added (the largest cluster Kubernetes supports)"
        ));
    }
    let template = node_mut(s, like)?.clone();
    let mut names = Vec::new();
    for i in 1..=count {
        let n = node_like(&template, i);
        names.push(name_of(&n.metadata).to_owned());
        s.nodes.push(n);
    }
    reindex(s);
    Ok(names)
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
pub fn add_manifests(
    s: &mut Snapshot,
    mut extra: Snapshot,
    gate_overrides: &std::collections::BTreeMap<String, bool>,
) -> Result<(), String> {
    let admission = crate::admit::admit_with_gates(&mut extra, Some(s), gate_overrides);
    if let Some(message) = admission.refusal_message() {
        return Err(message);
    }
    admission.record(s);
    add_objects(s, extra);
    Ok(())
}

/// Adds the objects of `extra` (loaded from `--add` files) as new objects; objects with the
/// same kind, namespace and name replace the snapshot's.
pub fn add_objects(s: &mut Snapshot, extra: Snapshot) {
    // Linear in both lists (adding a few hundred objects to 150,000 pods stays cheap): the
    // last object of `from` with a key wins, and replaces the snapshot's object with that key.
    // The snapshot's objects are looked up by borrowed namespace and name, without copying them.
    fn merge<T>(
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
        into.retain(|x| last_of(x).is_none());
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
    fn k(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> (&str, &str) {
        (
            m.namespace.as_deref().unwrap_or_default(),
            m.name.as_deref().unwrap_or_default(),
        )
    }
    merge(&mut s.nodes, extra.nodes, |o| k(&o.metadata));
    merge(&mut s.pods, extra.pods, |o| k(&o.metadata));
    merge(&mut s.pod_groups, extra.pod_groups, |o| k(&o.metadata));
    merge(
        &mut s.composite_pod_groups,
        extra.composite_pod_groups,
        |o| k(&o.metadata),
    );
    merge(&mut s.workloads, extra.workloads, |o| k(&o.metadata));
    merge(&mut s.resource_claims, extra.resource_claims, |o| {
        k(&o.metadata)
    });
    merge(
        &mut s.resource_claim_templates,
        extra.resource_claim_templates,
        |o| k(&o.metadata),
    );
    merge(&mut s.resource_slices, extra.resource_slices, |o| {
        k(&o.metadata)
    });
    merge(&mut s.device_classes, extra.device_classes, |o| {
        k(&o.metadata)
    });
    merge(&mut s.priority_classes, extra.priority_classes, |o| {
        k(&o.metadata)
    });
    merge(
        &mut s.pod_disruption_budgets,
        extra.pod_disruption_budgets,
        |o| k(&o.metadata),
    );
    merge(&mut s.limit_ranges, extra.limit_ranges, |o| k(&o.metadata));
    merge(&mut s.runtime_classes, extra.runtime_classes, |o| {
        k(&o.metadata)
    });
    merge(&mut s.jobs, extra.jobs, |o| k(&o.metadata));
    merge(&mut s.namespaces, extra.namespaces, |o| k(&o.metadata));
    s.warnings.extend(extra.warnings);
    reindex(s);
}
