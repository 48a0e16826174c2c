//! What the TUI shows, built off the UI thread: the snapshot (with the what-ifs applied), the
//! [`Plan`], the tree, the [`DoctorReport`], the per-node usage and the per-unit changes that
//! the what-ifs made to the plan.
//!
//! Every number comes from the commands' own analyses: the dry run `simulate` makes
//! ([`crate::kueue::dry_run::simulate`]: on a cluster that runs Kueue, Kueue's admission first,
//! then kube-scheduler's simulation of the cluster it leaves, joined in one plan), [`tree::build`],
//! [`doctor::report`], the simulator's [`ClusterState`] (requested and allocatable amounts) and
//! the plan's device map. Nothing here decides where a pod goes or whether something is wrong.
//! Pure apart from `:add FILE`, which reads the file it names.

use crate::snapshot::ObjKind;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use crate::doctor::{self, DoctorReport};
use crate::graph::Graph;
use crate::kueue::stages::Staged;
use crate::sched::node_state::ClusterState;
use crate::sched::plan::Plan;
use crate::sched::resources::{CPU, MEMORY};
use crate::sched::{Options, whatif};
use crate::snapshot::ObjRef;
use crate::snapshot::facts::Component;
use crate::snapshot::source::{Collector, files};
use crate::snapshot::{Snapshot, name_of, namespace_of};
use crate::tree::{self, TreeNode, TreeScope};

/// One change applied to a copy of the snapshot before simulating again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WhatIf {
    /// `kubectl drain NODE` ([`whatif::drain`]).
    Drain(String),
    /// `kubectl cordon NODE` ([`whatif::cordon`]).
    Cordon(String),
    /// Simulate without preemption (`simulate --no-preemption`).
    NoPreemption,
    /// Add the objects of a manifest file ([`whatif::add_objects`]).
    Add(PathBuf),
}

impl WhatIf {
    /// A short description for the header and the plan's settings.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Drain(n) => format!("drain {n}"),
            Self::Cordon(n) => format!("cordon {n}"),
            Self::NoPreemption => "no preemption".to_owned(),
            Self::Add(p) => format!("add {}", p.display()),
        }
    }
}

/// How a unit's result changed under the what-ifs: the `diff` command's own verdict
/// ([`crate::plan::diff`]), so the TUI's markers and `kubectl wasctl diff` never disagree.
pub(crate) use crate::plan::diff::Change;

/// The marker the pending view shows for a change.
pub(crate) fn marker(c: Change) -> &'static str {
    match c {
        Change::NewlySchedulable => "+ placed",
        Change::NewlyUnschedulable => "- stuck",
        Change::VictimsChanged => "! victims",
        Change::DomainChanged => "~ domain",
        Change::PlacementChanged => "~ nodes",
        Change::OutcomeChanged => "~ outcome",
        Change::ReasonChanged => "~ reason",
        Change::Added => "+ new",
        Change::Removed => "- gone",
    }
}

/// One unit's change under the what-ifs, with its causes, as `kubectl wasctl diff` reports it.
pub(crate) use crate::plan::diff::UnitChange;

/// Compares the snapshot and plan without what-ifs to those with them, unit by unit.
pub(crate) fn diff(
    before: &Snapshot,
    before_plan: &Plan,
    after: &Snapshot,
    after_plan: &Plan,
    preemption: bool,
) -> HashMap<ObjRef, UnitChange> {
    crate::plan::diff::diff(
        before,
        before_plan,
        after,
        after_plan,
        ("without what-ifs", "with what-ifs"),
        preemption,
    )
    .units
    .into_iter()
    .map(|u| (ObjRef::new(u.kind.clone(), &u.namespace, &u.name), u))
    .collect()
}

/// One row of the flattened tree, in pre-order.
#[derive(Debug, Clone)]
pub(crate) struct TreeRow {
    /// Depth (roots are 0).
    pub depth: u16,
    /// Index of the parent row (`None` for a root).
    pub parent: Option<usize>,
    /// The row after this row's subtree (pre-order), so a collapsed row skips its children.
    pub end: usize,
    /// The object.
    pub node: TreeNode,
}

impl TreeRow {
    /// Whether the row at `index` (this row's own) has children: its subtree ends past the
    /// next row.
    pub(crate) fn has_children(&self, index: usize) -> bool {
        self.end > index + 1
    }

    /// Whether the row shows `obj` (compared in place: building an [`ObjRef`] per row to
    /// compare copies three strings, per row of a 150,000-row tree on every filter key).
    pub(crate) fn is(&self, obj: &ObjRef) -> bool {
        self.node.kind == obj.kind
            && self.node.namespace == obj.namespace
            && self.node.name == obj.name
    }

    /// The object reference.
    pub(crate) fn obj(&self) -> ObjRef {
        ObjRef::new(
            self.node.kind.clone(),
            &self.node.namespace,
            &self.node.name,
        )
    }
}

/// Flattens a tree report into pre-order rows (children are moved out of each node).
pub(crate) fn flatten(roots: Vec<TreeNode>) -> Vec<TreeRow> {
    fn walk(mut node: TreeNode, depth: u16, parent: Option<usize>, out: &mut Vec<TreeRow>) {
        let children = std::mem::take(&mut node.children);
        let me = out.len();
        out.push(TreeRow {
            depth,
            parent,
            end: me + 1,
            node,
        });
        for c in children {
            walk(c, depth.saturating_add(1), Some(me), out);
        }
        let end = out.len();
        out[me].end = end;
    }
    let mut out = Vec::new();
    for r in roots {
        walk(r, 0, None, &mut out);
    }
    out
}

/// One pod on a node, with its gang and claims (the nodes view's detail pane).
#[derive(Debug, Clone)]
pub(crate) struct PodOnNode {
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub name: String,
    /// Its PodGroup, if it names one.
    pub group: Option<String>,
    /// Its claims (`spec.resourceClaims[].name` and the claim it resolves to, if any).
    pub claims: Vec<String>,
}

/// A node as the nodes view shows it.
#[derive(Debug, Clone)]
pub(crate) struct NodeInfo {
    /// `metadata.name` of the node.
    pub name: String,
    /// Labels (for the topology domains).
    pub labels: BTreeMap<String, String>,
    /// `Ready` condition true.
    pub ready: bool,
    /// Cordoned (`spec.unschedulable`).
    pub unschedulable: bool,
    /// Taints as `key:Effect` (values left out), in the node's order.
    pub taints: Vec<String>,
    /// CPU: requested now, planned by the plan, allocatable (milli-cores).
    pub cpu: Usage,
    /// Memory: requested now, planned, allocatable (bytes).
    pub memory: Usage,
    /// Extended resources with `gpu` in the name: requested now, planned, allocatable.
    pub gpu: Usage,
    /// DRA devices: allocated now, allocated by the plan, total.
    pub devices: Usage,
    /// Pods bound to it in the snapshot (`spec.nodeName`), with their gangs and claims.
    pub pods: Vec<PodOnNode>,
    /// Pods the plan places on it.
    pub planned: usize,
}

/// One resource of a node, now and as the plan leaves it: what its bound pods request (or, for
/// DRA devices, what claims hold), what the plan adds (pods it places, devices it allocates),
/// what it frees (preemption victims), and the allocatable total. The nodes view prints
/// `now+planned/total` for every resource alike (issue 51).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// In use now.
    pub now: i64,
    /// Added by the plan.
    pub planned: i64,
    /// Freed by the plan (its victims).
    pub freed: i64,
    /// Allocatable (devices: how many there are).
    pub total: i64,
}

impl Usage {
    /// In use once the plan is carried out.
    pub(crate) fn after(self) -> i64 {
        self.now + self.planned - self.freed
    }
}

/// Everything the views read. Built by [`Data::build`] on the worker thread.
#[derive(Debug)]
pub(crate) struct Data {
    /// The snapshot as loaded.
    pub base: Arc<Snapshot>,
    /// The snapshot with the what-ifs applied (the same `Arc` when there are none).
    pub snapshot: Arc<Snapshot>,
    /// On a cluster that runs Kueue, stage one of the dry run (Kueue's admission) over
    /// `snapshot`, whose own `snapshot` is the cluster kube-scheduler's stage ran on; explain
    /// of a Kueue Workload reads it. `None` without Kueue objects.
    pub staged: Option<Arc<Staged>>,
    /// The plan without what-ifs.
    pub base_plan: Arc<Plan>,
    /// The plan with the what-ifs.
    pub plan: Arc<Plan>,
    /// The options the plan ran with (explain uses the same).
    pub options: Options,
    /// The reference graph of `snapshot` (the tree and doctor read it; explain reuses it).
    pub graph: Arc<Graph>,
    /// The tree report (of the snapshot with the what-ifs), flattened in pre-order.
    pub tree: Vec<TreeRow>,
    /// Doctor over every namespace (the view narrows it).
    pub doctor: DoctorReport,
    /// One per node of the snapshot with the what-ifs, in the snapshot's order.
    pub nodes: Vec<NodeInfo>,
    /// What the what-ifs changed, per unit.
    pub changes: HashMap<ObjRef, UnitChange>,
    /// Namespaces that hold objects.
    pub namespaces: Vec<String>,
}

/// What a build needs besides the snapshot.
#[derive(Debug, Clone, Default)]
pub(crate) struct BuildOptions {
    /// `--feature-gates` overrides.
    pub gate_overrides: BTreeMap<String, bool>,
    /// The what-ifs, in the order they were made.
    pub what_ifs: Vec<WhatIf>,
}

fn apply(
    s: &mut Snapshot,
    w: &WhatIf,
    gate_overrides: &BTreeMap<String, bool>,
) -> Result<String, String> {
    match w {
        WhatIf::Drain(node) => {
            let (recreated, deleted) = whatif::drain(s, node)?;
            Ok(format!(
                "drained node `{node}`: {recreated} pod(s) pending again, {deleted} bare pod(s) deleted"
            ))
        }
        WhatIf::Cordon(node) => {
            whatif::cordon(s, node)?;
            Ok(format!("cordoned node `{node}`"))
        }
        WhatIf::NoPreemption => Ok("preemption off".to_owned()),
        WhatIf::Add(path) => {
            let mut collector = Collector::new();
            files::load_path(path, &mut collector).map_err(|e| e.to_string())?;
            let replaced = whatif::add_manifests(s, collector.finish(), gate_overrides)?;
            let mut line = format!("added the objects of `{}`", path.display());
            for r in &replaced {
                line.push_str("; ");
                line.push_str(&r.to_string());
            }
            Ok(line)
        }
    }
}

impl Data {
    /// Simulates `base` with the what-ifs and builds every view's report. `base_plan` is the
    /// plan of `base` without what-ifs when it is already known. Fails (with a message for the
    /// status line) when a what-if cannot be applied.
    pub(crate) fn build(
        base: Arc<Snapshot>,
        options: &BuildOptions,
        base_plan: Option<Arc<Plan>>,
    ) -> Result<Self, String> {
        let plain = Options {
            gate_overrides: options.gate_overrides.clone(),
            device_map: true,
            ..Options::default()
        };
        let (snapshot, sim_options) = if options.what_ifs.is_empty() {
            (Arc::clone(&base), plain.clone())
        } else {
            let mut copy = (*base).clone();
            let mut described = Vec::new();
            for w in &options.what_ifs {
                described.push(apply(&mut copy, w, &options.gate_overrides)?);
            }
            let o = Options {
                no_preemption: options.what_ifs.contains(&WhatIf::NoPreemption),
                what_if: described,
                ..plain.clone()
            };
            (Arc::new(copy), o)
        };
        // The plan `simulate` makes: with Kueue objects, Kueue's admission first.
        let (plan, staged) = crate::kueue::dry_run::simulate(&snapshot, &sim_options)
            .map_err(|e| format!("Kueue's admission cannot run: {}", e.0))?;
        let plan = Arc::new(plan);
        let staged = staged.map(Arc::new);
        let base_plan = match base_plan {
            Some(p) => p,
            None if options.what_ifs.is_empty() => Arc::clone(&plan),
            None => Arc::new(
                crate::kueue::dry_run::simulate(&base, &plain)
                    .map_err(|e| format!("Kueue's admission cannot run: {}", e.0))?
                    .0,
            ),
        };
        let changes = if options.what_ifs.is_empty() {
            HashMap::new()
        } else {
            diff(
                &base,
                &base_plan,
                &snapshot,
                &plan,
                !options.what_ifs.contains(&WhatIf::NoPreemption),
            )
        };
        let graph = Graph::build(&snapshot);
        let now = snapshot.now();
        let gates = snapshot
            .facts
            .gates_for(Component::KubeScheduler, &options.gate_overrides);
        let mut assumed = gates.assumed.clone();
        assumed.extend(snapshot.facts.assumed.iter().cloned());
        let report = tree::build(
            &snapshot,
            &graph,
            &TreeScope::default(),
            now,
            assumed,
            Some(&plan),
        );
        let doctor = doctor::report(
            &snapshot,
            &graph,
            &doctor::Options {
                now,
                gate_overrides: options.gate_overrides.clone(),
                stuck_after: doctor::DEFAULT_STUCK_AFTER,
            },
            &doctor::Selection::default(),
        );
        let simulated = staged
            .as_ref()
            .map_or(&*snapshot, |st| st.cluster(&snapshot));
        let nodes = node_infos(&snapshot, simulated, &plan, &gates);
        Ok(Self {
            namespaces: snapshot.namespaces_in_use(),
            base,
            snapshot,
            staged,
            base_plan,
            plan,
            options: sim_options,
            graph: Arc::new(graph),
            tree: flatten(report.roots),
            doctor,
            nodes,
            changes,
        })
    }
}

fn node_infos(
    s: &Snapshot,
    simulated: &Snapshot,
    plan: &Plan,
    gates: &crate::snapshot::facts::FeatureGates,
) -> Vec<NodeInfo> {
    let state = ClusterState::build(s, gates);
    let mut table = state.table.clone();
    let gpu_ids: Vec<u16> = (0..state.table.len())
        .filter_map(|i| u16::try_from(i).ok())
        .filter(|&i| state.table.name(i).contains("gpu"))
        .collect();
    let devices = device_usage(plan);
    // What the plan adds to each node (the pods it places) and frees (its victims), per
    // resource: the pods' requests compiled as the simulator compiles them, read from the
    // cluster the simulation ran on (on a Kueue cluster, the Jobs Kueue starts).
    type Amounts = (i64, i64, i64);
    let mut planned: HashMap<&str, (usize, Amounts, Amounts)> = HashMap::new();
    let mut amounts = |namespace: &str, pod: &str| -> Amounts {
        let Some(p) = simulated.pod(namespace, pod) else {
            return (0, 0, 0);
        };
        let req = crate::sched::pod_req::PodReq::compile(p, &mut table);
        let of = |r: u16| {
            req.requests
                .iter()
                .filter(|(id, _)| *id == r)
                .map(|(_, v)| *v)
                .sum::<i64>()
        };
        (of(CPU), of(MEMORY), gpu_ids.iter().map(|&g| of(g)).sum())
    };
    let add = |a: &mut Amounts, b: Amounts| {
        a.0 += b.0;
        a.1 += b.1;
        a.2 += b.2;
    };
    for u in &plan.units {
        for p in &u.placements {
            let got = amounts(&u.namespace, &p.pod);
            let e = planned.entry(p.node.as_str()).or_default();
            e.0 += 1;
            add(&mut e.1, got);
        }
        for v in &u.victims {
            let got = amounts(&v.namespace, &v.name);
            add(&mut planned.entry(&*v.node).or_default().2, got);
        }
    }
    let mut out = Vec::with_capacity(state.nodes.len());
    for n in &s.nodes {
        let name = name_of(&n.metadata);
        let Some(id) = state.node_ids.get(name) else {
            continue;
        };
        let ns = &state.nodes[*id];
        let (count, added, freed) = planned.get(name).copied().unwrap_or_default();
        let usage = |r: u16, plus: i64, minus: i64| Usage {
            now: ns.allocatable(r) - ns.free(r),
            planned: plus,
            freed: minus,
            total: ns.allocatable(r),
        };
        let gpu = gpu_ids.iter().fold(
            Usage {
                planned: added.2,
                freed: freed.2,
                ..Usage::default()
            },
            |acc, &g| Usage {
                now: acc.now + ns.allocatable(g) - ns.free(g),
                total: acc.total + ns.allocatable(g),
                ..acc
            },
        );
        let (ready, taints) = ready_and_taints(n);
        let pods = pods_on_node(s, name);
        out.push(NodeInfo {
            name: name.to_owned(),
            labels: n.metadata.labels.clone().unwrap_or_default(),
            ready,
            unschedulable: ns.unschedulable,
            taints,
            cpu: usage(CPU, added.0, freed.0),
            memory: usage(MEMORY, added.1, freed.1),
            gpu,
            devices: devices.get(name).copied().unwrap_or_default(),
            pods,
            planned: count,
        });
    }
    out
}

/// Devices per node: held by a claim now, and allocated by the plan.
fn device_usage(plan: &Plan) -> HashMap<&str, Usage> {
    let mut devices: HashMap<&str, Usage> = HashMap::new();
    for d in &plan.device_map {
        let e = devices.entry(d.node.as_str()).or_default();
        e.total += 1;
        match (&d.claim, d.simulated) {
            (Some(_), true) => e.planned += 1,
            (Some(_), false) => e.now += 1,
            (None, _) => {}
        }
    }
    devices
}

/// Whether a node is Ready, and its taints as `key:effect`.
fn ready_and_taints(n: &k8s_openapi::api::core::v1::Node) -> (bool, Vec<String>) {
    let ready = crate::snapshot::node_ready(n) == Some(true);
    let taints = n
        .spec
        .as_ref()
        .and_then(|sp| sp.taints.as_ref())
        .map(|ts| {
            ts.iter()
                .map(|t| format!("{}:{}", t.key, t.effect))
                .collect()
        })
        .unwrap_or_default();
    (ready, taints)
}

/// The pods bound to node `name`, with their gang and claims.
fn pods_on_node(s: &Snapshot, name: &str) -> Vec<PodOnNode> {
    s.index
        .pods_by_node
        .get(name)
        .map(|ids| {
            ids.iter()
                .map(|&i| {
                    let p = &s.pods[i];
                    let spec = p.spec.as_ref();
                    PodOnNode {
                        namespace: namespace_of(&p.metadata).to_owned(),
                        name: name_of(&p.metadata).to_owned(),
                        group: spec
                            .and_then(|sp| sp.scheduling_group.as_ref())
                            .and_then(|g| g.pod_group_name.clone()),
                        claims: p
                            .status
                            .as_ref()
                            .and_then(|st| st.resource_claim_statuses.as_ref())
                            .map(|cs| {
                                cs.iter()
                                    .map(|c| match &c.resource_claim_name {
                                        Some(rc) => format!("{}={rc}", c.name),
                                        None => c.name.clone(),
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Finds the YAML of one object of the snapshot, or `None` if it is not there.
pub(crate) fn object_yaml(s: &Snapshot, obj: &ObjRef) -> Option<Result<String, String>> {
    fn ser<T: serde::Serialize>(o: &T) -> Result<String, String> {
        serde_saphyr::to_string(o).map_err(|e| e.to_string())
    }
    fn find<'a, S, T>(
        list: &'a [crate::snapshot::kueue::Object<S, T>],
        ns: &str,
        name: &str,
    ) -> Option<&'a crate::snapshot::kueue::Object<S, T>> {
        list.iter()
            .find(|o| o.namespace() == ns && o.name() == name)
    }
    let (ns, name) = (obj.namespace.as_str(), obj.name.as_str());
    Some(match obj.kind {
        ObjKind::Pod => ser(s.pod(ns, name)?),
        ObjKind::PodGroup => ser(s.pod_group(ns, name)?),
        ObjKind::CompositePodGroup => ser(s.composite_pod_group(ns, name)?),
        ObjKind::Workload => ser(s.workload(ns, name)?),
        ObjKind::ResourceClaim => ser(s.resource_claim(ns, name)?),
        ObjKind::Job => ser(s.job(ns, name)?),
        ObjKind::Node => ser(s.node(name)?),
        ObjKind::KueueWorkload => ser(find(&s.kueue.workloads, ns, name)?),
        ObjKind::ClusterQueue => ser(find(&s.kueue.cluster_queues, ns, name)?),
        ObjKind::LocalQueue => ser(find(&s.kueue.local_queues, ns, name)?),
        ObjKind::ResourceFlavor => ser(find(&s.kueue.resource_flavors, ns, name)?),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::demo;

    fn demo_data(what_ifs: Vec<WhatIf>) -> Data {
        let s = Arc::new(demo::load().expect("the demo loads"));
        Data::build(
            s,
            &BuildOptions {
                what_ifs,
                ..BuildOptions::default()
            },
            None,
        )
        .expect("builds")
    }

    #[test]
    fn flatten_keeps_preorder_and_subtree_ends() {
        let d = demo_data(Vec::new());
        for (i, r) in d.tree.iter().enumerate() {
            assert!(r.end > i && r.end <= d.tree.len());
            if let Some(p) = r.parent {
                assert!(p < i && d.tree[p].end >= r.end);
                assert_eq!(d.tree[p].depth + 1, r.depth);
            }
        }
        assert!(d.tree.iter().any(|r| r.node.name == "big-train-workers"));
    }

    #[test]
    fn no_what_ifs_no_changes() {
        let d = demo_data(Vec::new());
        assert!(d.changes.is_empty());
        assert!(Arc::ptr_eq(&d.plan, &d.base_plan));
    }

    #[test]
    fn draining_a_node_makes_its_gang_pending_again() {
        let d = demo_data(vec![WhatIf::Drain("gpu-a1".to_owned())]);
        // train-a runs on gpu-a1 and gpu-a2: its PodGroup is pending again.
        let change = d
            .changes
            .get(&ObjRef::new(ObjKind::PodGroup, "ml", "train-a-workers"));
        assert!(change.is_some(), "changes: {:?}", d.changes);
        assert!(
            d.nodes
                .iter()
                .any(|n| n.name == "gpu-a1" && n.unschedulable)
        );
    }

    #[test]
    fn unknown_node_is_an_error_message() {
        let s = Arc::new(demo::load().expect("the demo loads"));
        let e = Data::build(
            s,
            &BuildOptions {
                what_ifs: vec![WhatIf::Cordon("nope".to_owned())],
                ..BuildOptions::default()
            },
            None,
        )
        .expect_err("no such node");
        assert!(e.contains("nope"), "{e}");
    }

    #[test]
    fn yaml_of_a_pod_and_a_missing_object() {
        let d = demo_data(Vec::new());
        let y = object_yaml(&d.snapshot, &ObjRef::new(ObjKind::Pod, "ml", "big-train-0"))
            .expect("found")
            .expect("serializes");
        assert!(y.contains("big-train-0"));
        assert!(object_yaml(&d.snapshot, &ObjRef::new(ObjKind::Pod, "ml", "nope")).is_none());
    }
}
