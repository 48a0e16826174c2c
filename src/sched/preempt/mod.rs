//! Preemption in the simulator (semantics §6): workload-aware preemption for a pending
//! PodGroup or CompositePodGroup root, and DefaultPreemption for single pods, with the blast
//! radius of each preemption.
//!
//! Upstream: `pkg/scheduler/framework/preemption/podgrouppreemption.go` (remove every eligible
//! victim, re-run the group algorithm, reprieve in importance order, PDB-violating victims
//! first), `framework/plugins/defaultpreemption/default_preemption.go` and
//! `preemption/preemption.go` (per-node victim selection, `pickOneNodeForPreemption`).
//! Victims in a `disruptionMode: all` group are evicted as one unit across nodes
//! ([`victims`]). The simulation then continues as if the victims were evicted and the
//! preemptor bound at its nominated nodes. Pure: works on the simulation's [`ClusterState`].

pub mod victims;

use std::collections::{BTreeSet, HashSet};

use serde::Serialize;

use self::victims::VictimIndex;
use super::filter::{Code, pre_filter, run_filters};
use super::gang::{Cycle, Status};
use super::node_state::{ClusterState, NodeId, PodId};
use super::plan::UnitTrace;
use super::queue::GroupNode;
use super::schedule_one::{Mode, Sampler};

/// Upstream message when the preemptor may not preempt.
pub const MSG_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
/// Upstream message when no lower-priority victim exists (group preemptor).
pub const MSG_NO_VICTIMS_GROUP: &str = "No preemption victims found for incoming preemptor";
/// Upstream per-node message when no lower-priority victim exists (pod preemptor).
pub const MSG_NO_VICTIMS_POD: &str = "No preemption victims found for incoming pod";
/// Upstream per-node message when removing victims cannot make the pod fit.
pub const MSG_NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// Upstream refusal for groups with topology constraints.
pub const MSG_TOPOLOGY: &str = "not supported with topology constraints";

/// One evicted pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Victim {
    /// Always `Pod`.
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Node it ran on.
    pub node: String,
    /// The group it belongs to (`PodGroup/name`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The atomic unit it was evicted with (`disruptionMode: all`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evicted_with: Option<String>,
    /// Priority used in the comparison.
    pub priority: i32,
    /// Its eviction violates a PodDisruptionBudget.
    pub pdb_violation: bool,
}

/// What a preemption costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlastRadius {
    /// Pods evicted.
    pub victim_pods: u32,
    /// Groups that lose members (`PodGroup/ns/name`).
    pub victim_groups: Vec<String>,
    /// An `all` group dies whole though only part of its nodes was needed.
    pub whole_group_for_part_of_its_nodes: bool,
    /// GPUs (extended resources with `gpu` in the name, and DRA devices) freed.
    pub gpus_freed: u32,
    /// GPU-hours of work lost: each victim's GPUs × time since it started (snapshot time).
    pub gpu_hours_lost: f64,
    /// PodDisruptionBudget violations (victim pods).
    pub pdb_violations: u32,
    /// The preemptor fits once the victims are gone.
    pub preemptor_fits: bool,
}

/// A successful preemption: victims, the preemptor's nominated placements, the reprieve log.
#[derive(Debug, Clone)]
pub struct Preemption {
    /// Victim pods and the nodes they run on (grouped by unit, in the order they were decided).
    pub victims: Vec<(PodId, NodeId)>,
    /// Preemptor pods → nominated nodes.
    pub placements: Vec<(PodId, NodeId)>,
    /// Victim units that violate a PDB.
    pub violating: HashSet<PodId>,
    /// Why each candidate victim was kept or spared.
    pub log: Vec<String>,
}

/// How a preemption attempt ended.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Victims found; apply them.
    Preempt(Preemption),
    /// No preemption; the message says why.
    Refused(String),
}

/// Importance order of victim units (`MoreImportantVictim`): higher priority, then kind rank
/// (CompositePodGroup > PodGroup > Pod), then bigger group, then earlier start.
fn importance(
    st: &ClusterState,
    idx: &VictimIndex,
    unit: &[PodId],
) -> (i32, victims::Rank, usize, std::cmp::Reverse<i64>) {
    let first = unit[0];
    let earliest = unit
        .iter()
        .filter_map(|p| st.pods[*p].started)
        .min()
        .unwrap_or(i64::MAX);
    (
        idx.pods[first].priority,
        idx.pods[first].rank,
        unit.len(),
        std::cmp::Reverse(earliest),
    )
}

/// Eligible victim units among `candidates` (placed, lower effective priority, not
/// terminating), each expanded to its atomic unit.
fn victim_units(
    st: &ClusterState,
    idx: &VictimIndex,
    candidates: impl Iterator<Item = PodId>,
    priority: i32,
    exclude: &HashSet<PodId>,
) -> Vec<Vec<PodId>> {
    let mut seen = HashSet::new();
    let mut units = Vec::new();
    for pod in candidates {
        if seen.contains(&pod) || exclude.contains(&pod) {
            continue;
        }
        let p = &st.pods[pod];
        if st.placement[pod].is_none() || p.terminating || idx.pods[pod].priority >= priority {
            continue;
        }
        let members: Vec<PodId> = idx
            .unit_members(pod)
            .into_iter()
            .filter(|m| st.placement[*m].is_some())
            .collect();
        if members
            .iter()
            .any(|m| idx.pods[*m].priority >= priority || st.pods[*m].terminating)
        {
            continue;
        }
        seen.extend(members.iter().copied());
        units.push(members);
    }
    units
}

struct Removed {
    pods: Vec<(PodId, NodeId)>,
    released: Vec<(
        usize,
        (
            Vec<super::dra::allocate::Allocated>,
            super::dra::inventory::Scope,
        ),
    )>,
}

fn remove(st: &mut ClusterState, pods: &[PodId]) -> Removed {
    let placed: Vec<(PodId, NodeId)> = pods
        .iter()
        .filter_map(|p| st.placement[*p].map(|n| (*p, n)))
        .collect();
    for (p, _) in &placed {
        st.forget(*p);
    }
    let evicted: HashSet<PodId> = pods.iter().copied().collect();
    let released = st.dra.release(&evicted);
    Removed {
        pods: placed,
        released,
    }
}

fn put_back(st: &mut ClusterState, r: Removed) {
    st.dra.restore(r.released);
    for (p, n) in r.pods {
        st.assume(p, n);
    }
}

fn fits(st: &ClusterState, pod: PodId, node: NodeId) -> bool {
    let pre = pre_filter(st, &st.pods[pod]);
    run_filters(st, pod, &pre, node).is_none()
}

/// Whether every proposed (pod → node) assignment still fits, assuming them in order; the
/// assumptions are undone before returning.
fn assignments_fit(st: &mut ClusterState, proposed: &[(PodId, NodeId)]) -> bool {
    let mut assumed = Vec::new();
    let mut ok = true;
    for (p, n) in proposed {
        if fits(st, *p, *n) {
            st.assume(*p, *n);
            assumed.push(*p);
        } else {
            ok = false;
            break;
        }
    }
    for p in assumed.iter().rev() {
        st.forget(*p);
    }
    ok
}

fn label(st: &ClusterState, idx: &VictimIndex, unit: &[PodId]) -> String {
    match &idx.pods[unit[0]].unit {
        Some(u) => format!("{u} ({} pods)", unit.len()),
        None => format!(
            "Pod/{}/{}",
            st.pods[unit[0]].namespace, st.pods[unit[0]].name
        ),
    }
}

/// A victim unit and whether it violates a PodDisruptionBudget.
type Tagged = (Vec<PodId>, bool);

/// Reprieve (semantics §6.3 step 5): PDB-violating units first, then the rest, each in
/// importance order; a unit is put back when `still_fits` holds with it present.
fn reprieve(
    st: &mut ClusterState,
    idx: &VictimIndex,
    mut units: Vec<Vec<PodId>>,
    log: &mut Vec<String>,
    still_fits: &mut dyn FnMut(&mut ClusterState) -> bool,
) -> (Vec<Vec<PodId>>, HashSet<PodId>) {
    units.sort_by_key(|u| std::cmp::Reverse(importance(st, idx, u)));
    let violations = idx.pdb_violations(st, &units);
    let (mut violating, mut rest): (Vec<Tagged>, Vec<Tagged>) =
        units.into_iter().zip(violations).partition(|(_, v)| *v);
    violating.append(&mut rest);
    let mut kept = Vec::new();
    let mut violating_pods = HashSet::new();
    for (unit, violates) in violating {
        // Put the unit back where it ran.
        let homes: Vec<(PodId, NodeId)> = unit
            .iter()
            .filter_map(|p| st.removed_home(*p).map(|n| (*p, n)))
            .collect();
        for (p, n) in &homes {
            st.assume(*p, *n);
        }
        if still_fits(st) {
            log.push(format!(
                "spared {}: the preemptor still fits with it",
                label(st, idx, &unit)
            ));
        } else {
            for (p, _) in homes.iter().rev() {
                st.forget(*p);
            }
            log.push(format!(
                "victim {}: the preemptor does not fit with it{}",
                label(st, idx, &unit),
                if violates {
                    " (violates a PodDisruptionBudget)"
                } else {
                    ""
                }
            ));
            if violates {
                violating_pods.extend(unit.iter().copied());
            }
            kept.push(unit);
        }
    }
    (kept, violating_pods)
}

/// A pending group root asking for preemption.
#[derive(Debug, Clone, Copy)]
pub struct GroupPreemptor<'a> {
    /// The group tree.
    pub tree: &'a GroupNode,
    /// Its priority (the root's `spec.priority`).
    pub priority: i32,
    /// Its effective preemption policy is Never.
    pub never: bool,
    /// TopologyAwareWorkloadScheduling is on.
    pub topology_on: bool,
}

/// Workload-aware preemption for a group root whose cycle failed.
pub fn preempt_group(
    st: &mut ClusterState,
    idx: &VictimIndex,
    preemptor: GroupPreemptor<'_>,
    all_nodes: &[NodeId],
    mode: Mode,
) -> Verdict {
    let GroupPreemptor {
        tree,
        priority,
        never,
        topology_on,
    } = preemptor;
    if never {
        return Verdict::Refused(MSG_NEVER.to_owned());
    }
    if topology_on && has_topology(tree) {
        return Verdict::Refused(MSG_TOPOLOGY.to_owned());
    }
    let mut own = Vec::new();
    tree.pending_pods(&mut own);
    tree.bound_pods(&mut own);
    let exclude: HashSet<PodId> = own.into_iter().collect();
    let every: Vec<PodId> = (0..st.pods.len()).collect();
    let units = victim_units(st, idx, every.into_iter(), priority, &exclude);
    if units.is_empty() {
        return Verdict::Refused(MSG_NO_VICTIMS_GROUP.to_owned());
    }
    let all: Vec<PodId> = units.iter().flatten().copied().collect();
    let removed = remove(st, &all);
    st.set_removed_homes(&removed.pods);
    let mut trace = UnitTrace::default();
    let mut sampler = Sampler::default();
    let run = Cycle::new(st, mode, &mut sampler, &mut trace).run(tree, all_nodes, true);
    if run.status != Status::Success {
        st.clear_removed_homes();
        put_back(st, removed);
        return Verdict::Refused(format!("preemption cannot help: {}", run.message));
    }
    let proposed = run.placed.clone();
    for (p, _) in proposed.iter().rev() {
        st.forget(*p);
    }
    let mut log = Vec::new();
    // Reprieved units are put back with their pods only; claims released for the check stay
    // released until the end, a simplification that can only make reprieve more generous.
    let (kept, violating) = reprieve(st, idx, units, &mut log, &mut |s| {
        assignments_fit(s, &proposed)
    });
    let victims: Vec<(PodId, NodeId)> = kept
        .iter()
        .flatten()
        .filter_map(|p| st.removed_home(*p).map(|n| (*p, n)))
        .collect();
    // Leave the state as it was; `apply` evicts.
    st.clear_removed_homes();
    st.dra.restore(removed.released);
    for (p, n) in &victims {
        st.assume(*p, *n);
    }
    Verdict::Preempt(Preemption {
        victims,
        placements: proposed,
        violating,
        log,
    })
}

fn has_topology(tree: &GroupNode) -> bool {
    tree.topology_key.is_some() || tree.children.iter().any(has_topology)
}

/// A candidate node for pod preemption.
struct Candidate {
    node: NodeId,
    units: Vec<Vec<PodId>>,
    violating: HashSet<PodId>,
    log: Vec<String>,
}

/// DefaultPreemption for a single pod (semantics §6.4).
pub fn preempt_pod(
    st: &mut ClusterState,
    idx: &VictimIndex,
    pod: PodId,
    all_nodes: &[NodeId],
    mode: Mode,
) -> Verdict {
    if st.pods[pod].preempt_never {
        return Verdict::Refused(MSG_NEVER.to_owned());
    }
    let priority = idx.pods[pod].priority;
    // Nodes where preemption might help: rejected as Unschedulable (not Unresolvable).
    let pre = pre_filter(st, &st.pods[pod]);
    let mut histogram: std::collections::BTreeMap<&'static str, u32> =
        std::collections::BTreeMap::new();
    let mut maybe = Vec::new();
    for &n in all_nodes {
        match run_filters(st, pod, &pre, n) {
            Some(r) if r.code == Code::UnschedulableAndUnresolvable => {
                *histogram.entry(MSG_NOT_HELPFUL).or_default() += 1
            }
            _ => maybe.push(n),
        }
    }
    // Compat mode samples candidates like upstream (at least 10 % and 100 nodes), from offset 0.
    if mode == Mode::Compat {
        let n = (all_nodes.len() / 10).max(100).min(maybe.len());
        maybe.truncate(n);
    }
    let mut candidates = Vec::new();
    for node in maybe {
        let on_node: Vec<PodId> = st.nodes[node].pods.clone();
        let units = victim_units(st, idx, on_node.into_iter(), priority, &HashSet::new());
        if units.is_empty() {
            *histogram.entry(MSG_NO_VICTIMS_POD).or_default() += 1;
            continue;
        }
        let all: Vec<PodId> = units.iter().flatten().copied().collect();
        let removed = remove(st, &all);
        if !fits(st, pod, node) {
            put_back(st, removed);
            *histogram.entry(MSG_NOT_HELPFUL).or_default() += 1;
            continue;
        }
        st.set_removed_homes(&removed.pods);
        let mut log = Vec::new();
        let (kept, violating) = reprieve(st, idx, units, &mut log, &mut |s| fits(s, pod, node));
        st.clear_removed_homes();
        // Restore everything; the chosen candidate is applied later.
        let kept_pods: Vec<PodId> = kept.iter().flatten().copied().collect();
        let still_out: Vec<(PodId, NodeId)> = removed
            .pods
            .iter()
            .filter(|(p, _)| kept_pods.contains(p))
            .copied()
            .collect();
        st.dra.restore(removed.released);
        for (p, n) in still_out {
            st.assume(p, n);
        }
        candidates.push(Candidate {
            node,
            units: kept,
            violating,
            log,
        });
    }
    let Some(best) = pick(st, idx, candidates) else {
        let total: u32 = histogram.values().sum();
        let parts: Vec<String> = histogram.iter().map(|(r, n)| format!("{n} {r}")).collect();
        return Verdict::Refused(format!(
            "preemption: 0/{total} nodes are available: {}.",
            parts.join(", ")
        ));
    };
    Verdict::Preempt(Preemption {
        victims: best
            .units
            .iter()
            .flatten()
            .filter_map(|p| st.placement[*p].map(|n| (*p, n)))
            .collect(),
        placements: vec![(pod, best.node)],
        violating: best.violating,
        log: best.log,
    })
}

/// `pickOneNodeForPreemption`: fewest PDB violations, lowest highest-victim priority, smallest
/// priority sum, fewest victims, latest start of the highest-priority victims, first node.
fn pick(st: &ClusterState, idx: &VictimIndex, candidates: Vec<Candidate>) -> Option<Candidate> {
    candidates.into_iter().min_by_key(|c| {
        let pods: Vec<PodId> = c.units.iter().flatten().copied().collect();
        let highest = pods
            .iter()
            .map(|p| idx.pods[*p].priority)
            .max()
            .unwrap_or(i32::MIN);
        let sum: i64 = pods
            .iter()
            .map(|p| i64::from(idx.pods[*p].priority) + i64::from(i32::MAX) + 1)
            .sum();
        let latest_start = pods
            .iter()
            .filter(|p| idx.pods[**p].priority == highest)
            .filter_map(|p| st.pods[*p].started)
            .min()
            .unwrap_or(i64::MAX);
        (
            c.violating.len(),
            highest,
            sum,
            pods.len(),
            std::cmp::Reverse(latest_start),
            c.node,
        )
    })
}

/// Applies a preemption: victims evicted (their own claims freed), preemptor pods bound.
pub fn apply(st: &mut ClusterState, p: &Preemption) {
    for (v, _) in &p.victims {
        st.forget(*v);
    }
    let evicted: HashSet<PodId> = p.victims.iter().map(|(v, _)| *v).collect();
    let _ = st.dra.release(&evicted);
    for (pod, node) in &p.placements {
        st.assume(*pod, *node);
    }
}

/// GPUs a pod holds: extended resources named like `*gpu*` plus DRA devices.
pub fn gpus_of(st: &ClusterState, pod: PodId) -> u32 {
    let p = &st.pods[pod];
    let ext: i64 = p
        .requests
        .iter()
        .filter(|(id, _)| st.table.name(*id).contains("gpu"))
        .map(|(_, v)| *v)
        .sum();
    u32::try_from(ext.max(0)).unwrap_or(u32::MAX)
        + u32::try_from(st.dra.device_count(pod)).unwrap_or(u32::MAX)
}

/// The victims and blast radius of `p`, computed before it is applied. `now` is the
/// snapshot's time (seconds).
pub fn describe(
    st: &ClusterState,
    idx: &VictimIndex,
    p: &Preemption,
    now: i64,
) -> (Vec<Victim>, BlastRadius) {
    let mut victims = Vec::new();
    let mut groups = BTreeSet::new();
    let mut gpus = 0u32;
    let mut hours = 0.0;
    let preemptor_nodes: BTreeSet<NodeId> = p.placements.iter().map(|(_, n)| *n).collect();
    let mut whole_for_part = false;
    for (v, home) in &p.victims {
        let pod = &st.pods[*v];
        let node = st.nodes[*home].name.clone();
        let g = gpus_of(st, *v);
        gpus += g;
        if let Some(started) = pod.started {
            hours += f64::from(g) * ((now - started).max(0) as f64) / 3600.0;
        }
        if let Some(gr) = &idx.pods[*v].group {
            groups.insert(format!(
                "{}/{}",
                pod.namespace,
                gr.trim_start_matches("PodGroup/")
            ));
        }
        if idx.pods[*v].unit.is_some() && !preemptor_nodes.contains(home) {
            whole_for_part = true;
        }
        victims.push(Victim {
            kind: "Pod".to_owned(),
            namespace: pod.namespace.clone(),
            name: pod.name.clone(),
            node,
            group: idx.pods[*v].group.clone(),
            evicted_with: idx.pods[*v].unit.clone(),
            priority: idx.pods[*v].priority,
            pdb_violation: p.violating.contains(v),
        });
    }
    let blast = BlastRadius {
        victim_pods: u32::try_from(victims.len()).unwrap_or(u32::MAX),
        victim_groups: groups
            .into_iter()
            .map(|g| format!("PodGroup/{g}"))
            .collect(),
        whole_group_for_part_of_its_nodes: whole_for_part,
        gpus_freed: gpus,
        gpu_hours_lost: (hours * 100.0).round() / 100.0,
        pdb_violations: u32::try_from(p.violating.len()).unwrap_or(u32::MAX),
        preemptor_fits: true,
    };
    (victims, blast)
}
