//! Verified fixes: each candidate change is applied to a copy of the snapshot and the
//! simulation is run again; only the changes that make the unit schedulable are reported.

use crate::snapshot::{ObjKind, ObjRef};
use std::collections::BTreeMap;

use super::{Fit, schedulable_in, schedulable_run};
use crate::sched::plan::{Outcome, Plan, UnitResult};
use crate::sched::{Options, whatif};
use crate::snapshot::{Snapshot, name_of};

/// The compiled simulation the fixes start from.
pub(super) struct Compiled<'p, 's> {
    /// Run up to the unit's turn: the fixes that change only the unit's own objects resume
    /// from here.
    pub checkpoint: &'p crate::sched::Prepared<'s>,
    /// Not run yet (None when the caller passed one that had run): the add-nodes fix runs
    /// from the start, as the units ahead may take the new nodes.
    pub unstarted: Option<&'p crate::sched::Prepared<'s>>,
}

/// Tries candidate changes on copies of the snapshot and keeps those that make the unit
/// schedulable (outcome Scheduled, not only Preempting; the DRAPreemption gate is the one
/// exception). Tried in this order, each on its own: the GenericWorkload gate, the
/// DRAPreemption gate, a lower minCount, no topology constraint, a toleration, more nodes.
pub(super) fn verified_fixes(
    s: &Snapshot,
    compiled: &Compiled<'_, '_>,
    options: &Options,
    unit: &UnitResult,
    fit: &Fit,
    reasons: &BTreeMap<String, u32>,
    plan: &Plan,
) -> Vec<String> {
    let target = unit.obj_ref();
    let (kind, ns, name) = (&unit.kind, unit.namespace.as_str(), unit.name.as_str());
    let prepared = compiled.checkpoint;
    let mut out = Vec::new();
    let works = |snap: &Snapshot, opts: &Options| schedulable_in(snap, opts, &target);
    // A fix to the group's own policy reuses the compiled state (see `with_changed_groups`).
    let works_changed_groups =
        |snap: &Snapshot| schedulable_run(prepared.with_changed_groups(snap), &target);
    // Turn GenericWorkload on.
    if plan.settings.feature_gates.get("GenericWorkload") == Some(&false) {
        let mut o = options.clone();
        o.gate_overrides.insert("GenericWorkload".to_owned(), true);
        if works(s, &o) {
            out.push("enable GenericWorkload in kube-scheduler".to_owned());
        }
    }
    out.extend(dra_preemption_fix(s, options, unit, reasons, plan));
    // Lower minCount to what fits.
    if *kind == ObjKind::PodGroup && fit.placeable >= 1 && fit.placeable < fit.min_count {
        let mut copy = s.clone();
        if set_min_count(&mut copy, ns, name, fit.placeable) && works_changed_groups(&copy) {
            out.push(format!(
                "lower minCount of PodGroup {name} to {}",
                fit.placeable
            ));
        }
    }
    // Drop the topology constraint.
    if !fit.domains.is_empty() {
        let mut copy = s.clone();
        if drop_topology(&mut copy, &target) && works_changed_groups(&copy) {
            out.push(format!(
                "drop the `{}` topology constraint of {kind} {name}",
                fit.domains[0].key
            ));
        }
    }
    // Tolerate the taint that rejected nodes: only the members' compiled form changes.
    if reasons.keys().any(|r| r.contains("untolerated taint")) {
        let mut copy = s.clone();
        let members: Vec<&str> = unit.trace.pods.iter().map(|p| &*p.pod).collect();
        if let Some(taint) = tolerate_taints(&mut copy, ns, &members)
            && schedulable_run(prepared.with_changed_pods(&copy, ns, &members), &target)
        {
            out.push(format!("add a toleration for taint `{taint}` to the pods"));
        }
    }
    out.extend(add_nodes_fix(s, compiled, options, unit, fit));
    out
}

/// Turn DRAPreemption on (alpha, off by default in 1.37): the preemption dry run then
/// releases the devices lower-priority pods hold. Offered when the unit is Unschedulable,
/// DynamicResources rejected nodes and the gate is not already on; verified like the others,
/// except that making the unit Preempting is enough (that is what the gate changes). Runs from
/// the start, as the gate changes every unit's preemption.
fn dra_preemption_fix(
    s: &Snapshot,
    options: &Options,
    unit: &UnitResult,
    reasons: &BTreeMap<String, u32>,
    plan: &Plan,
) -> Option<String> {
    if unit.outcome != Outcome::Unschedulable
        || plan.settings.feature_gates.get(DRA_PREEMPTION) == Some(&true)
        || !reasons
            .keys()
            .any(|r| r.contains(crate::sched::dra::ERR_CANNOT_ALLOCATE))
    {
        return None;
    }
    let mut o = options.clone();
    o.gate_overrides.insert(DRA_PREEMPTION.to_owned(), true);
    let mut p = crate::sched::prepare(s, &o);
    let target = unit.obj_ref();
    let run = p.run_until(|u| u.is(&target));
    let u = run
        .unit(&target)
        .filter(|u| matches!(u.outcome, Outcome::Scheduled | Outcome::Preempting))?;
    Some(format!(
        "enable the DRAPreemption feature gate in kube-scheduler (alpha in 1.37): preemption then frees the devices that lower-priority pods hold{}",
        if u.victims.is_empty() {
            String::new()
        } else {
            format!(" ({} pod(s) would be evicted)", u.victims.len())
        }
    ))
}

/// Add nodes like the best node of the best domain (or any node the pods could use): the
/// fewest of 1..=[`MAX_NODES_ADDED`] that make the unit Scheduled, with where they help.
///
/// The count is searched on the state just before the unit's turn with the nodes added
/// there (each try is the unit's own cycle, not the queue ahead of it again), then the
/// answer is verified on a copy of the cluster holding the nodes, run from the start: the
/// units ahead may take some of the new nodes. When that fails, the count is searched on
/// such copies. When no count up to the most tried helps on the quick state, none is
/// offered: the units ahead could only free room by moving onto the new nodes.
fn add_nodes_fix(
    s: &Snapshot,
    compiled: &Compiled<'_, '_>,
    options: &Options,
    unit: &UnitResult,
    fit: &Fit,
) -> Option<String> {
    let target = unit.obj_ref();
    let prepared = compiled.checkpoint;
    let like = best_node_to_copy(s, unit, fit)?;
    let adding = |n: usize| {
        if let Some(p) = compiled
            .unstarted
            .and_then(|p| p.with_nodes_added(&like, n))
        {
            return schedulable_run(p, &target);
        }
        let mut copy = s.clone();
        whatif::add_nodes(&mut copy, n, &like).is_ok() && schedulable_in(&copy, options, &target)
    };
    // A node with devices of its own (node-local ResourceSlices) has no quick state: the
    // DRA state is built from the slices, so the count is searched on copies.
    let quick = |n: usize| match prepared.with_nodes_like(&like, n) {
        Some(p) => schedulable_run(p, &target),
        None => adding(n),
    };
    let n = fewest_that_work(MAX_NODES_ADDED, quick).and_then(|n| {
        if adding(n) {
            Some(n)
        } else if n < MAX_NODES_ADDED {
            fewest_that_work(MAX_NODES_ADDED, adding)
        } else {
            // The exact search would try the most first: just tried.
            None
        }
    })?;
    let domain = fit
        .domains
        .iter()
        .max_by(|a, b| a.placeable.cmp(&b.placeable).then(b.value.cmp(&a.value)))
        .map(|d| {
            let missing = fit.min_count.saturating_sub(d.placeable);
            let more = shortfall(s, unit, missing)
                .map(|(amount, resource)| {
                    format!("; the {missing} member(s) left need {amount} {resource} more there")
                })
                .unwrap_or_default();
            format!(
                " (in {}={}, which already fits {} of {}{more})",
                d.key, d.value, d.placeable, fit.min_count
            )
        })
        .unwrap_or_default();
    Some(format!("add {n} node(s) like {like}{domain}"))
}

/// The gate behind which the preemption dry run frees a victim's devices (KEP-5690).
pub(super) const DRA_PREEMPTION: &str = "DRAPreemption";

/// The most nodes the add-nodes fix tries.
const MAX_NODES_ADDED: usize = 8;

/// The fewest of 1..=`max` for which `works` holds, assuming that what works with n works with
/// more (more nodes like one the pods can use never take a placement away): `max` is tried
/// first, so a fix that does not work costs one simulation instead of `max`, then the count is
/// halved down (about log2(max) more). Each try simulates a copy of the cluster.
fn fewest_that_work(max: usize, mut works: impl FnMut(usize) -> bool) -> Option<usize> {
    if max == 0 || !works(max) {
        return None;
    }
    // `works(hi)` holds and nothing below `lo` is known to.
    let (mut lo, mut hi) = (1, max);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if works(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(hi)
}

/// Gives every member's claim entry `entry` the PodGroup's source `to`.
pub(super) fn set_claim_source(
    s: &mut Snapshot,
    ns: &str,
    group: &str,
    entry: &str,
    to: &k8s_openapi::api::scheduling::v1beta1::PodGroupResourceClaim,
) -> bool {
    let members = s.index.pods_by_group.get(ns, group).to_vec();
    let mut changed = false;
    for i in members {
        let Some(spec) = s
            .pods
            .get_mut(i)
            .and_then(|p| std::sync::Arc::make_mut(p).spec.as_mut())
        else {
            continue;
        };
        for e in spec.resource_claims.iter_mut().flatten() {
            if e.name == entry {
                e.resource_claim_name.clone_from(&to.resource_claim_name);
                e.resource_claim_template_name
                    .clone_from(&to.resource_claim_template_name);
                changed = true;
            }
        }
    }
    if changed {
        s.after_spec_change();
    }
    changed
}

pub(super) fn set_min_count(s: &mut Snapshot, ns: &str, name: &str, n: u32) -> bool {
    let Some(pg) = s.pod_groups.iter_mut().find(|p| {
        p.metadata.namespace.as_deref() == Some(ns) && p.metadata.name.as_deref() == Some(name)
    }) else {
        return false;
    };
    let Some(g) = pg.spec.scheduling_policy.gang.as_mut() else {
        return false;
    };
    g.min_count = i32::try_from(n).unwrap_or(i32::MAX);
    s.after_spec_change();
    true
}

fn drop_topology(s: &mut Snapshot, group: &ObjRef) -> bool {
    let (ns, name) = (group.namespace.as_str(), group.name.as_str());
    let hit = match group.kind {
        ObjKind::PodGroup => s
            .pod_groups
            .iter_mut()
            .find(|p| {
                p.metadata.namespace.as_deref() == Some(ns)
                    && p.metadata.name.as_deref() == Some(name)
            })
            .map(|p| p.spec.scheduling_constraints = None)
            .is_some(),
        _ => s
            .composite_pod_groups
            .iter_mut()
            .find(|p| {
                p.metadata.namespace.as_deref() == Some(ns)
                    && p.metadata.name.as_deref() == Some(name)
            })
            .map(|p| p.spec.scheduling_constraints = None)
            .is_some(),
    };
    if hit {
        s.after_spec_change();
    }
    hit
}

fn tolerate_taints(s: &mut Snapshot, ns: &str, names: &[&str]) -> Option<String> {
    // The NoSchedule/NoExecute taints of nodes that are otherwise usable.
    let taint = s
        .nodes
        .iter()
        .flat_map(|n| n.spec.iter().flat_map(|sp| sp.taints.iter().flatten()))
        .find(|t| {
            t.effect != "PreferNoSchedule"
                && !t.key.starts_with("node-role.kubernetes.io/")
                && !t.key.starts_with("node.kubernetes.io/")
        })?
        .clone();
    let ids: Vec<usize> = names
        .iter()
        .filter_map(|n| s.index.pods.get(ns, n))
        .collect();
    for i in ids {
        if let Some(spec) = s
            .pods
            .get_mut(i)
            .and_then(|p| std::sync::Arc::make_mut(p).spec.as_mut())
        {
            let mut tolerations = spec.tolerations.as_deref().unwrap_or_default().to_vec();
            tolerations.push(k8s_openapi::api::core::v1::Toleration {
                key: Some(taint.key.clone()),
                operator: Some("Exists".to_owned()),
                effect: Some(taint.effect.clone()),
                ..Default::default()
            });
            spec.tolerations = Some(tolerations.into());
        }
    }
    s.after_spec_change();
    Some(format!("{}:{}", taint.key, taint.effect))
}

/// The resource the unplaced members ran short of first, and how much `missing` members need
/// of it: (amount as Kubernetes writes it, resource name).
pub(super) fn shortfall(s: &Snapshot, unit: &UnitResult, missing: u32) -> Option<(String, String)> {
    let member = unit.trace.pods.iter().find(|p| p.node.is_none())?;
    let resource = member
        .node_reasons
        .keys()
        .find_map(|r| r.strip_prefix("Insufficient "))?
        .to_owned();
    let pod = s.pods.iter().find(|p| {
        p.metadata.namespace.as_deref() == Some(unit.namespace.as_str())
            && name_of(&p.metadata) == &*member.pod
    })?;
    let mut table = crate::sched::resources::ResourceTable::default();
    let req = crate::sched::pod_req::PodReq::compile(pod, &mut table);
    let each = req.request(table.get(&resource)?);
    if each <= 0 || missing == 0 {
        return None;
    }
    let total = each.saturating_mul(i64::from(missing));
    let amount = match resource.as_str() {
        "cpu" if total % 1000 != 0 => format!("{total}m"),
        "cpu" => (total / 1000).to_string(),
        "memory" | "ephemeral-storage" if total % (1 << 30) == 0 => format!("{}Gi", total >> 30),
        "memory" | "ephemeral-storage" if total % (1 << 20) == 0 => format!("{}Mi", total >> 20),
        _ => total.to_string(),
    };
    Some((amount, resource))
}

/// A node to copy: one in the domain that fits most members, else one the members could use
/// had it room (rejected only for resources).
fn best_node_to_copy(s: &Snapshot, unit: &UnitResult, fit: &Fit) -> Option<String> {
    if let Some(best) = fit
        .domains
        .iter()
        .max_by(|a, b| a.placeable.cmp(&b.placeable).then(b.value.cmp(&a.value)))
    {
        return s
            .nodes
            .iter()
            .find(|n| {
                n.metadata.labels.as_ref().and_then(|l| l.get(&best.key)) == Some(&best.value)
            })
            .map(|n| name_of(&n.metadata).to_owned());
    }
    // The node with the most of the first resource members ran short of, among the nodes the
    // first unplaced member could use but for resources (not cordoned, taints tolerated,
    // selector and affinity met). When members ran short of devices only (DRA: "cannot
    // allocate all claims"), the node with the most devices of its own (node-local
    // ResourceSlices, which `--add-nodes` copies) among those nodes.
    let reasons = || {
        unit.trace
            .pods
            .iter()
            .filter(|p| p.node.is_none())
            .flat_map(|p| p.node_reasons.keys())
    };
    let short = reasons()
        .find_map(|r| r.strip_prefix("Insufficient "))
        .map(str::to_owned);
    let devices =
        short.is_none() && reasons().any(|r| r.contains(crate::sched::dra::ERR_CANNOT_ALLOCATE));
    if short.is_none() && !devices {
        return None;
    }
    let gates = s.facts.gates_for(
        crate::snapshot::facts::Component::KubeScheduler,
        &BTreeMap::new(),
    );
    let member = unit.trace.pods.iter().find(|p| p.node.is_none())?;
    let object = s.index.pods.get(&unit.namespace, &member.pod)?;
    // The nodes and that one pod: compiling every pod of the cluster for one pod's node
    // filters took about a second at 150,000 pods.
    let lite = Snapshot {
        nodes: s.nodes.clone(),
        pods: vec![s.pods.get(object)?.clone()],
        ..Snapshot::default()
    };
    let st = crate::sched::node_state::ClusterState::build(&lite, &gates);
    let pod = &st.pods[st.pod_id(&unit.namespace, &member.pod)?];
    let usable = st.nodes.iter().filter(|n| {
        use crate::sched::filter::{node_affinity, node_unschedulable, taint_toleration};
        node_unschedulable::filter(pod, n).is_none()
            && taint_toleration::filter(pod, n).is_none()
            && node_affinity::filter(pod, n).is_none()
    });
    if let Some(short) = short {
        let id = st.table.get(&short)?;
        return usable
            .max_by(|a, b| {
                a.allocatable(id)
                    .cmp(&b.allocatable(id))
                    .then(b.name.cmp(&a.name))
            })
            .map(|n| n.name.to_string());
    }
    let mut own_devices: BTreeMap<&str, usize> = BTreeMap::new();
    for slice in &s.resource_slices {
        if let Some(node) = slice.spec.node_name.as_deref() {
            *own_devices.entry(node).or_default() +=
                slice.spec.devices.as_ref().map_or(0, Vec::len);
        }
    }
    usable
        .filter_map(|n| {
            let count = own_devices.get(&*n.name).copied().unwrap_or(0);
            (count > 0).then_some((count, n))
        })
        .max_by(|(a, na), (b, nb)| a.cmp(b).then(nb.name.cmp(&na.name)))
        .map(|(_, n)| n.name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The units of the whole plan of `resumed`, a simulation resumed after `earlier`
    /// (or compiled afresh, when it could not resume: then it plans from the start).
    fn resumed_units(
        mut resumed: crate::sched::Prepared<'_>,
        earlier: &[crate::sched::plan::UnitResult],
    ) -> serde_json::Value {
        let earlier = if resumed.has_run() {
            earlier.to_vec()
        } else {
            Vec::new()
        };
        serde_json::to_value(&resumed.plan_after(earlier, |_| false).units).expect("plan")
    }

    /// A fix to a group's own policy, run on the shared compiled state
    /// (`with_changed_groups`), gives the same plan as compiling the changed copy from scratch,
    /// for every PodGroup of every explain and scenario fixture, with minCount 1 and with the
    /// topology constraint dropped; and so does resuming from a checkpoint just before the
    /// group's turn (the queue ahead of it run once, as explain does). A queue run in two steps
    /// plans as one run (the node sampler carries over).
    #[test]
    fn group_fixes_on_the_shared_state_plan_as_from_scratch() {
        let (mut compared, mut resumed_compared, mut tolerated) = (0, 0, 0);
        for (dir, s) in crate::testutil::fixture_clusters() {
            let options = Options::default();
            let prepared = crate::sched::prepare(&s, &options);
            let whole = serde_json::to_value(&crate::sched::simulate(&s, &options).units);
            for pg in &s.pod_groups {
                let (ns, name) = (
                    crate::snapshot::namespace_of(&pg.metadata),
                    name_of(&pg.metadata),
                );
                let is_pg = |u: &crate::sched::queue::Unit| {
                    u.kind == ObjKind::PodGroup && u.namespace == ns && u.name == name
                };
                let mut checkpoint = prepared.clone();
                let earlier = if prepared.queued().iter().any(is_pg) {
                    Some(checkpoint.advance_until(is_pg))
                } else {
                    None
                };
                // The members tolerate a taint: recompiled in the shared state, from the start
                // and from the checkpoint.
                let members: Vec<&str> = s
                    .index
                    .pods_by_group
                    .get(ns, name)
                    .iter()
                    .map(|i| name_of(&s.pods[*i].metadata))
                    .collect();
                let mut copy = s.clone();
                if !members.is_empty() && tolerate_taints(&mut copy, ns, &members).is_some() {
                    let fresh = crate::sched::simulate(&copy.clone().build(), &options);
                    let fresh = serde_json::to_value(&fresh.units).expect("plan");
                    let shared = prepared.with_changed_pods(&copy, ns, &members).into_plan();
                    assert_eq!(
                        serde_json::to_value(&shared.units).expect("plan"),
                        fresh,
                        "{} {ns}/{name}: tolerations",
                        dir.display()
                    );
                    if let Some(earlier) = &earlier {
                        let resumed = resumed_units(
                            checkpoint.with_changed_pods(&copy, ns, &members),
                            earlier,
                        );
                        assert_eq!(
                            resumed,
                            fresh,
                            "{} {ns}/{name}: tolerations, resumed",
                            dir.display()
                        );
                    }
                    tolerated += 1;
                }
                if let Some(earlier) = &earlier {
                    let split = checkpoint.clone().plan_after(earlier.clone(), |_| false);
                    assert_eq!(
                        serde_json::to_value(&split.units).expect("plan"),
                        *whole.as_ref().expect("plan"),
                        "{} {ns}/{name}: the queue in two steps",
                        dir.display()
                    );
                    resumed_compared += 1;
                }
                let changes: [&dyn Fn(&mut Snapshot) -> bool; 2] =
                    [&|c| set_min_count(c, ns, name, 1), &|c| {
                        drop_topology(c, &ObjRef::new(ObjKind::PodGroup, ns, name))
                    }];
                for change in changes {
                    let mut copy = s.clone();
                    if !change(&mut copy) {
                        continue;
                    }
                    let shared = prepared.with_changed_groups(&copy).into_plan();
                    // From scratch on a copy built again whole (sorted, indexed, facts
                    // inferred): `after_spec_change` must leave the copy as that.
                    let fresh = crate::sched::simulate(&copy.clone().build(), &options);
                    let fresh = serde_json::to_value(&fresh.units).expect("plan");
                    assert_eq!(
                        serde_json::to_value(&shared.units).expect("plan"),
                        fresh,
                        "{} {ns}/{name}",
                        dir.display()
                    );
                    compared += 1;
                    if let Some(earlier) = &earlier {
                        let resumed = resumed_units(checkpoint.with_changed_groups(&copy), earlier);
                        assert_eq!(
                            resumed,
                            fresh,
                            "{} {ns}/{name}: resumed before the group's turn",
                            dir.display()
                        );
                        resumed_compared += 1;
                    }
                }
            }
        }
        assert!(compared > 20, "only {compared} changes compared");
        assert!(
            tolerated > 3,
            "only {tolerated} toleration changes compared"
        );
        assert!(
            resumed_compared > 20,
            "only {resumed_compared} resumed runs compared"
        );
    }

    /// A unit ahead preempts a running member of the target gang: resumed from the checkpoint,
    /// the minCount fix plans as a run from the start does (the target's unit, built before the
    /// eviction there, still counts that member as bound).
    #[test]
    fn a_fix_resumed_after_a_preemption_of_the_targets_member_plans_as_from_scratch() {
        let facts = r#"{"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts", "snapshotTime": "2026-11-20T12:00:00Z", "serverVersion": "v1.37.0", "components": [{"component": "kube-scheduler", "version": "v1.37.0", "featureGates": {"GenericWorkload": true, "TopologyAwareWorkloadScheduling": true}}]}"#;
        let node = |n: &str| {
            format!(
                r#"{{"apiVersion": "v1", "kind": "Node", "metadata": {{"name": "{n}", "labels": {{"kubernetes.io/hostname": "{n}"}}}}, "status": {{"allocatable": {{"cpu": "4", "memory": "16Gi", "pods": "110"}}}}}}"#
            )
        };
        let pod = |name: &str, priority: i32, group: &str, node: &str, created: &str| {
            let group = if group.is_empty() {
                String::new()
            } else {
                format!(r#", "schedulingGroup": {{"podGroupName": "{group}"}}"#)
            };
            let (node, phase) = if node.is_empty() {
                (String::new(), "Pending")
            } else {
                (format!(r#", "nodeName": "{node}""#), "Running")
            };
            format!(
                r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}", "namespace": "default", "creationTimestamp": "2026-11-20T{created}:00Z"}}, "spec": {{"priority": {priority}, "containers": [{{"name": "main", "image": "busybox", "resources": {{"requests": {{"cpu": "3"}}}}}}]{group}{node}}}, "status": {{"phase": "{phase}"}}}}"#
            )
        };
        let docs = [
            facts.to_owned(),
            node("n1"),
            node("n2"),
            pod("hog", 2000, "", "n2", "08:00"),
            r#"{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "low", "namespace": "default", "creationTimestamp": "2026-11-20T10:00:00Z"}, "spec": {"priority": 0, "schedulingPolicy": {"gang": {"minCount": 3}}}}"#.to_owned(),
            pod("low-0", 0, "low", "n1", "10:00"),
            pod("low-1", 0, "low", "", "10:00"),
            pod("low-2", 0, "low", "", "10:00"),
            pod("high", 1000, "", "", "09:00"),
        ];
        let text = docs.join("\n---\n");
        let mut c = crate::snapshot::source::Collector::new();
        crate::snapshot::source::files::load_str(&text, "preempted.yaml", &mut c).expect("load");
        let s = c.finish();
        let options = Options::default();
        let prepared = crate::sched::prepare(&s, &options);
        let whole = crate::sched::simulate(&s, &options);
        let high = whole
            .unit(&ObjRef::new(ObjKind::Pod, "default", "high"))
            .expect("high is queued");
        assert_ne!(
            high.outcome,
            crate::sched::plan::Outcome::Scheduled,
            "high must preempt"
        );
        let is_low = |u: &crate::sched::queue::Unit| u.kind == ObjKind::PodGroup && u.name == "low";
        assert!(prepared.queued().iter().any(is_low), "low is queued");
        let mut checkpoint = prepared.clone();
        let earlier = checkpoint.advance_until(is_low);
        assert!(!earlier.is_empty(), "high runs ahead of low");
        let mut copy = s.clone();
        assert!(set_min_count(&mut copy, "default", "low", 2));
        let fresh = crate::sched::simulate(&copy.clone().build(), &options);
        let mut resumed = checkpoint.with_changed_groups(&copy);
        // The member's eviction makes the resume compile afresh, from the start.
        assert!(!resumed.has_run());
        let resumed = resumed.plan_after(Vec::new(), |_| false);
        assert_eq!(
            serde_json::to_value(&resumed.units).expect("plan"),
            serde_json::to_value(&fresh.units).expect("plan")
        );
    }

    #[test]
    fn fewest_that_work_finds_the_threshold_in_few_tries() {
        for threshold in 1..=8 {
            let mut tries = 0;
            let found = fewest_that_work(8, |n| {
                tries += 1;
                n >= threshold
            });
            assert_eq!(found, Some(threshold));
            assert!(tries <= 4, "threshold {threshold}: {tries} tries");
        }
        let mut tries = 0;
        let never = fewest_that_work(8, |_| {
            tries += 1;
            false
        });
        assert_eq!((never, tries), (None, 1));
        assert_eq!(fewest_that_work(0, |_| true), None);
    }
}
