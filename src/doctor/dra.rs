//! DRA: pre-scheduled pods whose claims are not allocated, devices allocated to two claims,
//! ResourceSlices of nodes that no longer exist, and pools that are incomplete or invalid
//! (operations.md, "DRA facts that change verdicts").

use crate::snapshot::ObjKind;
use std::collections::BTreeMap;

use super::{Check, Checker, claim_allocated, list, obj, pod_active};
use crate::graph::{EdgeKind, EdgeState};
use crate::sched::dra::inventory::Inventory;
use crate::snapshot::ObjRef;
use crate::snapshot::name_of;

/// Runs the DRA checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    pre_scheduled(c);
    double_allocation(c);
    slices_of_missing_nodes(c);
    pools(c);
}

fn pre_scheduled(c: &mut Checker<'_>) {
    let (s, g) = (c.s, c.g);
    for pod in &s.pods {
        let Some(node) = pod.spec.as_ref().and_then(|sp| sp.node_name.as_deref()) else {
            continue;
        };
        if !pod_active(pod) {
            continue;
        }
        let me = obj(ObjKind::Pod, &pod.metadata);
        let mut unallocated = Vec::new();
        for e in g.outgoing(&me, Some(EdgeKind::PodClaim)) {
            let entry = e.label.clone().unwrap_or_default();
            match &e.state {
                EdgeState::Resolved => {
                    if s.resource_claim(&e.to.namespace, &e.to.name)
                        .is_some_and(|cl| !claim_allocated(cl))
                    {
                        unallocated
                            .push(format!("`{entry}` (claim `{}` not allocated)", e.to.name));
                    }
                }
                EdgeState::Dangling { .. } | EdgeState::Pending { .. } => {
                    unallocated.push(format!("`{entry}` (no claim yet)"));
                }
                EdgeState::Unchecked | EdgeState::Unknown { .. } => {}
            }
        }
        if unallocated.is_empty() {
            continue;
        }
        c.emit(
            Check::PreScheduledPodUnallocatedClaim,
            me,
            format!(
                "the pod is bound to node `{node}` but claim entries {} have no allocated device: the kubelet retries forever while the pod holds its CPU and memory",
                unallocated.join(", ")
            ),
            "do not set `spec.nodeName` on pods with claims; delete the pod and let the scheduler place it (use node affinity to pin it)",
        );
    }
}

fn double_allocation(c: &mut Checker<'_>) {
    let s = c.s;
    let mut users: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for claim in &s.resource_claims {
        let results = claim
            .status
            .as_ref()
            .and_then(|st| st.allocation.as_ref())
            .and_then(|a| a.devices.as_ref())
            .and_then(|d| d.results.as_ref());
        for r in results.into_iter().flatten() {
            if r.share_id.is_some() || r.admin_access == Some(true) {
                continue;
            }
            users
                .entry(format!("{}/{}/{}", r.driver, r.pool, r.device))
                .or_default()
                .push((
                    crate::snapshot::namespace_of(&claim.metadata).to_owned(),
                    name_of(&claim.metadata).to_owned(),
                ));
        }
    }
    for (device, mut claims) in users {
        claims.sort();
        claims.dedup();
        if claims.len() < 2 {
            continue;
        }
        let names: Vec<String> = claims.iter().map(|(ns, n)| format!("{ns}/{n}")).collect();
        let (ns, first) = &claims[0];
        c.emit(
            Check::DeviceAllocatedTwice,
            ObjRef::new(ObjKind::ResourceClaim, ns, first),
            format!("device `{device}` is allocated to {} claims: {}", claims.len(), list(&names, 4)),
            "deallocate one of the claims (delete it or its consumer) and check the DRA driver and scheduler versions: only shared or admin-access allocations may repeat a device",
        );
    }
}

fn slices_of_missing_nodes(c: &mut Checker<'_>) {
    let s = c.s;
    let mut found = Vec::new();
    for slice in &s.resource_slices {
        let Some(node) = slice.spec.node_name.as_deref() else {
            continue;
        };
        if s.node(node).is_none() {
            found.push((
                obj(ObjKind::ResourceSlice, &slice.metadata),
                node.to_owned(),
                slice.spec.driver.clone(),
            ));
        }
    }
    if s.nodes.is_empty() {
        return; // nodes were not loaded (e.g. a manifest-only snapshot): nothing to compare
    }
    for (o, node, driver) in found {
        c.emit(
            Check::SliceOfMissingNode,
            o,
            format!("driver `{driver}` publishes devices of node `{node}`, which does not exist"),
            "delete the ResourceSlice, and check that the DRA driver cleans up after removed nodes",
        );
    }
}

/// Why a pool is incomplete: upstream wants exactly `resourceSliceCount` slices of the
/// current generation (`GatherPools`: `len(pool.Slices) != ResourceSliceCount`).
fn incomplete_why(pool: &crate::sched::dra::inventory::Pool) -> String {
    let (n, count) = (pool.slices, pool.resource_slice_count);
    if count <= 0 {
        format!("its `resourceSliceCount` is {count}, so it can never be complete")
    } else if i64::try_from(n).is_ok_and(|n| n > count) {
        format!(
            "its current generation has {n} slices, more than its `resourceSliceCount` of {count}"
        )
    } else {
        format!("its current generation has {n} of its {count} slices (`resourceSliceCount`)")
    }
}

fn pools(c: &mut Checker<'_>) {
    let inv = Inventory::build(&c.s.resource_slices, &[]);
    for pool in &inv.pools {
        let o = ObjRef::new(
            ObjKind::Other("ResourcePool".to_owned()),
            "",
            &format!("{}/{}", pool.driver, pool.name),
        );
        if let Some(why) = &pool.invalid {
            c.emit(
                Check::InvalidPool,
                o,
                format!("pool `{}` of driver `{}` is invalid: {why}; nothing is allocated from it", pool.name, pool.driver),
                "fix the driver's ResourceSlices (unique device names and counter sets, counters that exist)",
            );
        } else if !pool.complete {
            c.emit(
                Check::IncompletePool,
                o,
                format!(
                    "pool `{}` of driver `{}` is incomplete: {}; no request can use the pool until it is complete",
                    pool.name,
                    pool.driver,
                    incomplete_why(pool)
                ),
                "check the DRA driver that publishes the pool: every slice of its current generation must be present and carry the same `resourceSliceCount`, equal to the number of slices",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{ids, run};

    const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n";

    fn slice(name: &str, node: &str, count: i64, devices: &str) -> String {
        format!(
            "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: {name}}}\nspec: {{driver: d, nodeName: {node}, pool: {{name: {node}, generation: 1, resourceSliceCount: {count}}}, devices: [{devices}]}}\n"
        )
    }

    #[test]
    fn pool_checks() {
        let ok = format!("{NODE}{}", slice("s1", "n1", 1, "{name: gpu-0}"));
        assert!(ids(&ok).is_empty());
        let incomplete = format!("{NODE}{}", slice("s1", "n1", 2, "{name: gpu-0}"));
        assert_eq!(ids(&incomplete), ["WASD404"]);
        let invalid = format!(
            "{NODE}{}",
            slice("s1", "n1", 1, "{name: gpu-0}, {name: gpu-0}")
        );
        assert_eq!(ids(&invalid), ["WASD405"]);
        let gone = format!("{NODE}{}", slice("s2", "n2", 1, "{name: gpu-0}"));
        assert_eq!(run(&gone), vec![("WASD403".to_owned(), "s2".to_owned())]);
    }

    /// Issue 46, semantics §7.2: complete means exactly `resourceSliceCount` slices of the
    /// current generation; more slices than the count, or a count of 0, is incomplete too,
    /// and the message says that no request can use the pool.
    #[test]
    fn pool_with_more_slices_than_its_count_or_a_count_of_zero_is_incomplete() {
        let message = |yaml: &str| {
            let s = super::super::test_support::snapshot(yaml);
            let g = crate::graph::Graph::build(&s);
            let options = super::super::Options {
                now: super::super::test_support::NOW.parse().expect("valid time"),
                gate_overrides: Default::default(),
                stuck_after: crate::doctor::DEFAULT_STUCK_AFTER,
            };
            let (findings, _) = super::super::check(&s, &g, &options);
            assert_eq!(findings.len(), 1, "{findings:#?}");
            assert_eq!(findings[0].id.id(), "WASD404");
            findings[0].message.clone()
        };
        let more = format!(
            "{NODE}{}{}",
            slice("s1", "n1", 1, "{name: gpu-0}"),
            slice("s2", "n1", 1, "{name: gpu-1}")
        );
        assert_eq!(
            message(&more),
            "pool `n1` of driver `d` is incomplete: its current generation has 2 slices, more than its `resourceSliceCount` of 1; no request can use the pool until it is complete"
        );
        let zero = format!("{NODE}{}", slice("s1", "n1", 0, "{name: gpu-0}"));
        assert_eq!(
            message(&zero),
            "pool `n1` of driver `d` is incomplete: its `resourceSliceCount` is 0, so it can never be complete; no request can use the pool until it is complete"
        );
        let fewer = format!("{NODE}{}", slice("s1", "n1", 2, "{name: gpu-0}"));
        assert_eq!(
            message(&fewer),
            "pool `n1` of driver `d` is incomplete: its current generation has 1 of its 2 slices (`resourceSliceCount`); no request can use the pool until it is complete"
        );
    }

    #[test]
    fn device_in_two_claims_and_pre_scheduled_pod() {
        let claim = |name: &str, alloc: bool| {
            let status = if alloc {
                "status: {allocation: {devices: {results: [{device: gpu-0, driver: d, pool: n1, request: r}]}}, reservedFor: [{name: p, resource: pods, uid: u}]}"
            } else {
                ""
            };
            format!(
                "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: {name}, namespace: ns}}\nspec: {{devices: {{requests: []}}}}\n{status}\n"
            )
        };
        let pod = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec: {containers: [{name: c, image: i}], nodeName: n1, resourceClaims: [{name: a, resourceClaimName: a}, {name: b, resourceClaimName: b}]}\n";
        let twice = format!("{NODE}{pod}{}{}", claim("a", true), claim("b", true));
        assert_eq!(ids(&twice), ["WASD402"]);
        let pending = format!("{NODE}{pod}{}{}", claim("a", true), claim("b", false));
        assert_eq!(run(&pending), vec![("WASD401".to_owned(), "p".to_owned())]);
    }
}
