//! [`ClusterState`]: nodes with allocatable and requested resources as integer vectors, the
//! pods on them, and assume/forget for the scheduling cycle. Built once from a snapshot;
//! what-ifs change a clone, never the snapshot.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::default_spread::SpreadSources;
use super::dra::DraState;
use super::pod_req::PodReq;
use super::profile::Profiles;
use super::resources::{OVERFLOW, PODS, ResourceId, ResourceTable};
use super::selector::{Labels, NodeTaint};
use crate::snapshot::facts::FeatureGates;
use crate::snapshot::{Snapshot, name_of};

pub(crate) use super::node::{Amounts, NodeId, NodeState, PodId};

/// What [`ClusterState::remove_pods`] took away.
#[derive(Debug, Default)]
pub(crate) struct Removal {
    /// The removed pods and where they ran, in removal order.
    pub pods: Vec<(PodId, NodeId)>,
    nodes: Vec<(NodeId, SavedNode)>,
    affinity_count: usize,
    required_anti_count: usize,
}

/// The mutable part of a node, saved.
#[derive(Debug)]
struct SavedNode {
    requested: Amounts,
    score_cpu: i64,
    score_memory: i64,
    pods: Vec<PodId>,
    used_ports: Vec<(String, i32, String)>,
    affinity_pods: Vec<PodId>,
    required_anti_pods: Vec<PodId>,
}

/// Every node and pod of a snapshot, ready for simulation.
#[derive(Debug, Clone, Default)]
pub struct ClusterState {
    /// Interned resource names.
    pub table: ResourceTable,
    /// Nodes sorted by name.
    pub nodes: Vec<NodeState>,
    /// Node name → id.
    pub node_ids: HashMap<String, NodeId>,
    /// Every pod of the snapshot (and pods added by what-ifs). Compiled once and never
    /// changed by a run, so clones of the state share it (a clone of a 150,000-pod state used
    /// to copy and later free about two million strings); a pod added or compiled again copies
    /// only its block (see [`PodTable`]).
    pub pods: PodTable,
    /// Where each pod is bound or assumed.
    pub placement: Vec<Option<NodeId>>,
    /// (namespace, name) → pod id (shared like `pods`).
    pub pod_ids: Rc<HashMap<(String, String), PodId>>,
    /// Namespace labels, for affinity `namespaceSelector`.
    pub namespace_labels: HashMap<String, Labels>,
    /// DRA: devices, claims, allocations.
    pub dra: DraState,
    /// Placed pods with any pod (anti-)affinity term, cluster-wide.
    pub affinity_count: usize,
    /// Placed pods with required anti-affinity terms, cluster-wide.
    pub required_anti_count: usize,
    /// Topology key → its domains in name order, each with its nodes (ascending ids). Nodes
    /// and labels are fixed once the state is built, so this is computed once per key.
    pub(crate) domains: std::cell::RefCell<HashMap<String, Domains>>,
    /// Pods with `status.nominatedNodeName` (placed or not), for upstream's
    /// `addGENominatedPods`.
    pub nominated: Vec<PodId>,
    /// The scheduling profiles; each pod's `profile` indexes them.
    pub profiles: Profiles,
    /// What PodTopologySpread's default selector reads (shared by clones).
    pub spread_sources: Rc<SpreadSources>,
    /// Per profile, the resource ids its Fit filter ignores.
    pub(crate) fit_ignored: Rc<Vec<Vec<ResourceId>>>,
}

/// Pods per block of a [`PodTable`] (a power of two: indexing is a shift and a mask).
const POD_BLOCK: usize = 1024;

/// The compiled pods, indexed by pod id, in blocks that clones of the state share and copy
/// on write: explain's toleration fix compiles a gang's members again into a copy of the
/// state, and capacity adds copies of a gang, without copying the other 150,000 pods (about
/// 0.3 s when the pods were one shared vector).
#[derive(Debug, Clone, Default)]
pub struct PodTable {
    blocks: Vec<Rc<Vec<PodReq>>>,
    len: usize,
}

impl PodTable {
    /// The table of `blocks`, each of [`POD_BLOCK`] pods but the last (which may be shorter).
    fn of_blocks(blocks: Vec<Vec<PodReq>>) -> Self {
        debug_assert!(blocks.iter().rev().skip(1).all(|b| b.len() == POD_BLOCK));
        let len = blocks.iter().map(Vec::len).sum();
        Self {
            blocks: blocks.into_iter().map(Rc::new).collect(),
            len,
        }
    }

    /// Number of pods.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The pods in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &PodReq> {
        self.blocks.iter().flat_map(|b| b.iter())
    }

    /// Changes every pod in place (copying blocks other states share).
    pub(crate) fn for_each_mut(&mut self, mut f: impl FnMut(&mut PodReq)) {
        for b in &mut self.blocks {
            Rc::make_mut(b).iter_mut().for_each(&mut f);
        }
    }

    /// Replaces pod `id` (copying its block if another state shares it). Panics when there
    /// is no pod `id`, as indexing does.
    pub(crate) fn set(&mut self, id: PodId, pod: PodReq) {
        Rc::make_mut(&mut self.blocks[id / POD_BLOCK])[id % POD_BLOCK] = pod;
    }

    /// Adds a pod after the others.
    #[cfg(test)]
    pub(crate) fn push(&mut self, pod: PodReq) {
        match self.blocks.last_mut() {
            Some(last) if last.len() < POD_BLOCK => Rc::make_mut(last).push(pod),
            _ => {
                let mut block = Vec::with_capacity(POD_BLOCK.min(self.len.max(16)));
                block.push(pod);
                self.blocks.push(Rc::new(block));
            }
        }
        self.len += 1;
    }
}

impl std::ops::Index<PodId> for PodTable {
    type Output = PodReq;

    fn index(&self, id: PodId) -> &PodReq {
        &self.blocks[id / POD_BLOCK][id % POD_BLOCK]
    }
}

/// The domains of one topology key: (value, nodes), values in name order.
pub(crate) type Domains = std::rc::Rc<Vec<(String, Vec<NodeId>)>>;

/// Below this many pods the compile runs on the calling thread: a thread costs more than it saves.
const PARALLEL_COMPILE_MIN: usize = 4096;

/// Compiles `pods` in order, interning their resource names into `table`, on up to four
/// threads when there are many (at 150,000 pods compiling is half a second on one core).
///
/// The result equals compiling one pod after another on `table`: the first chunk interns into
/// `table` itself; every other chunk compiles on a copy and, if it met a name that copy did
/// not have (a pod requesting a resource no node or earlier pod names: rare), is compiled
/// again on `table` after the chunks before it, so every name gets the id it gets in order.
pub(crate) fn compile_pods(pods: &[&crate::snapshot::Pod], table: &mut ResourceTable) -> PodTable {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(4);
    compile_pods_on(pods, table, threads)
}

fn compile_pods_on(
    pods: &[&crate::snapshot::Pod],
    table: &mut ResourceTable,
    threads: usize,
) -> PodTable {
    if threads < 2 || pods.len() < PARALLEL_COMPILE_MIN {
        return PodTable::of_blocks(
            pods.chunks(POD_BLOCK)
                .map(|c| c.iter().map(|p| PodReq::compile(p, table)).collect())
                .collect(),
        );
    }
    // Filled in place, block by block: compiling into a vector per thread and moving them into
    // blocks would hold every compiled pod twice for a moment (80 MB at 150,000 pods). Each
    // thread takes a run of whole blocks.
    let mut blocks: Vec<Vec<PodReq>> = pods
        .chunks(POD_BLOCK)
        .map(|c| {
            let mut block = Vec::with_capacity(c.len());
            block.resize_with(c.len(), PodReq::default);
            block
        })
        .collect();
    let per = blocks.len().div_ceil(threads);
    let size = per * POD_BLOCK;
    let fill =
        |slots: &mut [Vec<PodReq>], pods: &[&crate::snapshot::Pod], t: &mut ResourceTable| {
            for (block, pods) in slots.iter_mut().zip(pods.chunks(POD_BLOCK)) {
                for (slot, pod) in block.iter_mut().zip(pods) {
                    *slot = PodReq::compile(pod, t);
                }
            }
        };
    let base = table.clone();
    let base_len = base.len();
    let grown: Vec<bool> = std::thread::scope(|scope| {
        let mut chunks = blocks.chunks_mut(per).zip(pods.chunks(size));
        let first = chunks.next();
        let others: Vec<_> = chunks
            .map(|(slots, pods)| {
                let mut local = base.clone();
                scope.spawn(move || {
                    fill(slots, pods, &mut local);
                    local.len() != base_len
                })
            })
            .collect();
        if let Some((slots, pods)) = first {
            fill(slots, pods, table);
        }
        others
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    for ((slots, pods), grown) in blocks
        .chunks_mut(per)
        .zip(pods.chunks(size))
        .skip(1)
        .zip(grown)
    {
        // A run whose copy did not grow used only names the copy had, which keep their ids
        // in `table`; one that grew gave its new names ids that may be taken, or out of order.
        if grown {
            fill(slots, pods, table);
        }
    }
    PodTable::of_blocks(blocks)
}

/// Adds (`sign` 1) or removes (-1) `delta` to a node's requested resources, growing its
/// vectors for a resource it has not seen (saturating, as pods' requests are added).
fn add_requests(n: &mut NodeState, delta: &[(ResourceId, i64)], sign: i64) {
    let len = delta
        .iter()
        .map(|(id, _)| usize::from(*id) + 1)
        .max()
        .unwrap_or(0);
    if n.requested.len() < len {
        n.requested.resize(len, 0);
        n.allocatable.resize(len, 0);
    }
    for (id, v) in delta {
        let slot = &mut n.requested[usize::from(*id)];
        *slot = slot.saturating_add(v.saturating_mul(sign));
    }
}

fn is_terminal(pod: &crate::snapshot::Pod) -> bool {
    matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded" | "Failed")
    )
}

impl ClusterState {
    /// Builds the state: compiles every non-terminal pod and every node; pods with
    /// `spec.nodeName` of a known node count as bound there; then the DRA state (claims that
    /// pods with `spec.resourceClaims` need, with kube-scheduler's `gates`).
    pub fn build(s: &Snapshot, gates: &FeatureGates) -> Self {
        Self::build_with(s, gates, &Profiles::default())
    }

    /// [`ClusterState::build`] for `profiles`: each pod gets the profile its `schedulerName`
    /// names (the first when none does: such pods are not simulated) and that profile's
    /// default topology spreading.
    pub(crate) fn build_with(s: &Snapshot, gates: &FeatureGates, profiles: &Profiles) -> Self {
        let mut st = Self {
            profiles: profiles.clone(),
            spread_sources: Rc::new(SpreadSources::build(s)),
            ..Self::default()
        };
        // The nodes' resource names first: they get the low ids, so a node's vector holds only
        // what nodes have, whatever names pods make up (issue 14: a pod with thousands of
        // invented names must not size every node's vector).
        for n in &s.nodes {
            let status = n.status.as_ref();
            let alloc = status.and_then(|s| s.allocatable.as_ref().or(s.capacity.as_ref()));
            for name in alloc.into_iter().flatten().map(|(name, _)| name) {
                st.table.intern(name);
            }
        }
        // Room for every pod at once: grown by doubling, the compiled pods (~500 bytes each)
        // and the name index were copied about twice over (0.3-0.5 s at 150,000 pods).
        let objects: Vec<&crate::snapshot::Pod> = s
            .pods
            .iter()
            .map(|p| &**p)
            .filter(|p| !is_terminal(p))
            .collect();
        let mut compiled = compile_pods(&objects, &mut st.table);
        compiled.for_each_mut(|p| st.profile_pod(p));
        Rc::make_mut(&mut st.pod_ids).reserve(compiled.len());
        st.placement.reserve_exact(compiled.len());
        st.pods = compiled;
        for id in 0..st.pods.len() {
            st.index_pod(id);
        }
        let mut nodes: Vec<NodeState> = s.nodes.iter().map(|n| st.compile_node(n)).collect();
        nodes.sort_by(|a, b| a.name.cmp(&b.name));
        st.nodes = nodes;
        st.reindex_nodes();
        for ns in &s.namespaces {
            st.namespace_labels.insert(
                name_of(&ns.metadata).to_owned(),
                ns.metadata.labels.clone().unwrap_or_default(),
            );
        }
        // Bind pods that name a node.
        for id in 0..st.pods.len() {
            if let Some(node) = st.pods[id]
                .node_name
                .as_deref()
                .and_then(|n| st.node_ids.get(n))
                .copied()
            {
                st.assume(id, node);
            }
        }
        let with_claims: Vec<(PodId, &crate::snapshot::Pod, &PodReq)> = objects
            .iter()
            .enumerate()
            .filter(|(id, _)| st.pods[*id].has_claims)
            .map(|(id, pod)| (id, *pod, &st.pods[id]))
            .collect();
        if !with_claims.is_empty() {
            let placement = &st.placement;
            let (pods, profiles) = (&st.pods, &st.profiles);
            st.dra = DraState::build(
                s,
                &with_claims,
                gates,
                &|id| placement[id].is_some(),
                &|id| profiles.get(pods[id].profile).dra_binding_timeout_seconds,
                &mut st.table,
            );
            // Bound pods' recorded node-allocatable statuses (DRANodeAllocatableResources)
            // count on their nodes as their requests do.
            for id in 0..st.pods.len() {
                if let (Some(node), Some(delta)) = (st.placement[id], st.dra.na_delta(id)) {
                    let delta = delta.clone();
                    add_requests(&mut st.nodes[node], &delta, 1);
                }
            }
        }
        if st
            .profiles
            .iter()
            .any(|p| !p.ignored_resources.is_empty() || !p.ignored_resource_groups.is_empty())
        {
            st.resolve_fit_ignored();
        }
        st
    }

    /// The domains of topology `key` over every node (nodes without the label are in none).
    pub(crate) fn domains(&self, key: &str) -> Domains {
        if let Some(d) = self.domains.borrow().get(key) {
            return std::rc::Rc::clone(d);
        }
        let mut by_value: std::collections::BTreeMap<&str, Vec<NodeId>> =
            std::collections::BTreeMap::new();
        for (id, n) in self.nodes.iter().enumerate() {
            if let Some(v) = n.labels.get(key) {
                by_value.entry(v.as_str()).or_default().push(id);
            }
        }
        let d: Domains = std::rc::Rc::new(
            by_value
                .into_iter()
                .map(|(v, nodes)| (v.to_owned(), nodes))
                .collect(),
        );
        self.domains
            .borrow_mut()
            .insert(key.to_owned(), std::rc::Rc::clone(&d));
        d
    }

    /// A node as the state holds it, nothing placed on it yet. Resource names the table does
    /// not have are left out (the table holds every node's names once built).
    pub(crate) fn compile_node(&self, n: &k8s_openapi::api::core::v1::Node) -> NodeState {
        let status = n.status.as_ref();
        let alloc = status.and_then(|s| s.allocatable.as_ref().or(s.capacity.as_ref()));
        let mut allocatable = Amounts::default();
        for (name, q) in alloc.into_iter().flatten() {
            if let Some(v) = ResourceTable::parse(name, &q.0)
                && let Some(id) = self.table.get(name).filter(|id| *id != OVERFLOW)
            {
                let id = usize::from(id);
                if allocatable.len() <= id {
                    allocatable.resize(id + 1, 0);
                }
                allocatable[id] = v;
            }
        }
        let spec = n.spec.as_ref();
        NodeState {
            name: name_of(&n.metadata).into(),
            labels: n.metadata.labels.clone().unwrap_or_default(),
            unschedulable: spec.and_then(|s| s.unschedulable).unwrap_or(false),
            taints: spec
                .and_then(|s| s.taints.as_ref())
                .into_iter()
                .flatten()
                .map(NodeTaint::compile)
                .collect(),
            allocatable,
            ..NodeState::default()
        }
    }

    /// Adds empty nodes after the others (ids after every existing one, so nothing placed
    /// moves). A state built from a snapshot holding them would order them by name instead.
    pub(crate) fn append_nodes(&mut self, nodes: impl IntoIterator<Item = NodeState>) {
        self.nodes.extend(nodes);
        self.reindex_nodes();
    }

    /// Adds empty nodes where a state built from a snapshot holding them has them: every node
    /// in name order, as [`ClusterState::build`] sorts them. The nodes already here are
    /// renumbered, and so are the placements that name them; nothing else of the state holds a
    /// node id (the DRA state keys nodes by name, its memo by the shared name's address, and
    /// the domains are computed again). None, and nothing changed, when an added node's name
    /// is taken or a pod names it in `spec.nodeName` (a state built with the node would bind
    /// that pod there).
    pub(crate) fn insert_nodes(&mut self, added: Vec<NodeState>) -> Option<()> {
        let mut names: HashSet<&str> = HashSet::with_capacity(added.len());
        for n in &added {
            if self.node_ids.contains_key(&*n.name) || !names.insert(&n.name) {
                return None;
            }
        }
        if self
            .pods
            .iter()
            .filter_map(|p| p.node_name.as_deref())
            .any(|n| names.contains(n))
        {
            return None;
        }
        let before = self.nodes.len();
        let mut all: Vec<(NodeState, Option<NodeId>)> = std::mem::take(&mut self.nodes)
            .into_iter()
            .enumerate()
            .map(|(id, n)| (n, Some(id)))
            .chain(added.into_iter().map(|n| (n, None)))
            .collect();
        // Stable, as the build's sort: equal names keep their order.
        all.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        let mut renumbered: Vec<NodeId> = vec![0; before];
        for (new, (_, old)) in all.iter().enumerate() {
            if let Some(old) = old {
                renumbered[*old] = new;
            }
        }
        self.nodes = all.into_iter().map(|(n, _)| n).collect();
        for node in self.placement.iter_mut().flatten() {
            *node = renumbered[*node];
        }
        self.reindex_nodes();
        Some(())
    }

    /// Rebuilds the name index and pads resource vectors after nodes or resources changed.
    pub(crate) fn reindex_nodes(&mut self) {
        self.domains.borrow_mut().clear();
        self.node_ids = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.to_string(), i))
            .collect();
        // Each node holds the resources it has (at least the standard four), not every name the
        // snapshot mentions: a pod may request thousands of made-up extended resources, and
        // nodes × names slots would take gigabytes. A missing slot reads as 0.
        let standard = usize::from(PODS) + 1;
        for n in &mut self.nodes {
            let len = standard.max(n.allocatable.len()).max(n.requested.len());
            n.allocatable.resize(len, 0);
            n.requested.resize(len, 0);
        }
    }

    /// Adds a pod (not placed); returns its id.
    #[cfg(test)]
    pub(crate) fn add_pod(&mut self, mut pod: PodReq) -> PodId {
        self.profile_pod(&mut pod);
        let id = self.pods.len();
        self.pods.push(pod);
        self.index_pod(id);
        id
    }

    /// The resources the Fit filter of profile `id` does not check (its `ignoredResources`
    /// and `ignoredResourceGroups`), among the names interned so far. Empty for the default
    /// profile.
    pub(crate) fn fit_ignored(&self, id: super::profile::ProfileId) -> &[ResourceId] {
        self.fit_ignored
            .get(usize::from(id))
            .map_or(&[], Vec::as_slice)
    }

    /// Computes [`ClusterState::fit_ignored`] from the profiles and the resource table.
    pub(crate) fn resolve_fit_ignored(&mut self) {
        let table = &self.table;
        let ignored: Vec<Vec<ResourceId>> = self
            .profiles
            .iter()
            .map(|p| {
                (0..table.len())
                    .filter_map(|i| ResourceId::try_from(i).ok())
                    .filter(|id| p.fit_ignores(table.name(*id)))
                    .collect()
            })
            .collect();
        self.fit_ignored = Rc::new(ignored);
    }

    /// Gives a compiled pod its profile and that profile's default spread constraints (a no-op
    /// for a pod that has them already).
    pub(crate) fn profile_pod(&self, pod: &mut PodReq) {
        pod.profile = self.profiles.id_for(&pod.scheduler_name).unwrap_or(0);
        if !pod.spread_system_default {
            let defaults = &self.profiles.get(pod.profile).spread;
            super::default_spread::apply(pod, defaults, &self.spread_sources);
        }
    }

    /// Indexes pod `id`, the last of `pods`: its name, its nomination, its (empty) placement.
    fn index_pod(&mut self, id: PodId) {
        let pod = &self.pods[id];
        Rc::make_mut(&mut self.pod_ids).insert((pod.namespace.clone(), pod.name.to_string()), id);
        if pod.nominated_node.is_some() {
            self.nominated.push(id);
        }
        self.placement.push(None);
    }

    /// Whether `pod` is bound (`spec.nodeName` set) to a node this state does not hold: a
    /// Running pod whose Node object is gone, or was not read. kube-scheduler never queues an
    /// assigned pod (its cache adds every pod with `spec.nodeName` as assigned, under a node
    /// entry that stays out of the snapshot while the Node object is missing), and its pod
    /// group state counts it as assigned (`podGroupStateData.addPod`: `Spec.NodeName != ""`).
    /// So such a pod is bound, not pending; its requests count on no node (no node of the
    /// snapshot holds it) and it is never a preemption victim.
    pub(crate) fn bound_to_missing_node(&self, pod: PodId) -> bool {
        self.placement[pod].is_none()
            && self.pods[pod]
                .node_name
                .as_deref()
                .is_some_and(|n| !self.node_ids.contains_key(n))
    }

    /// Whether `pod` is bound or assumed: placed on a node of this state, or bound to one it
    /// lacks ([`bound_to_missing_node`](Self::bound_to_missing_node)).
    pub(crate) fn is_bound(&self, pod: PodId) -> bool {
        self.placement[pod].is_some() || self.bound_to_missing_node(pod)
    }

    /// Places `pod` on `node` (bound or assumed): its requests, ports and membership count there.
    pub fn assume(&mut self, pod: PodId, node: NodeId) {
        self.assume_inner(pod, node, true);
    }

    /// Places `pod` on `node` for the filters of another pod only (upstream
    /// `addGENominatedPods` adds nominated pods to a copy of the node; their claims are not
    /// allocated). Undo with [`forget`](Self::forget).
    pub(crate) fn assume_nominated(&mut self, pod: PodId, node: NodeId) {
        self.assume_inner(pod, node, false);
    }

    fn assume_inner(&mut self, pod: PodId, node: NodeId, claims: bool) {
        if self.placement[pod].is_some() {
            return;
        }
        // Reserve first: the claims' node-allocatable resources it records count on the node.
        if claims && self.pods[pod].has_claims {
            self.dra.reserve(pod, &self.nodes[node]);
        }
        self.add_to_node(pod, node);
        self.placement[pod] = Some(node);
    }

    /// The node-side half of [`assume`](Self::assume): requests, ports, membership lists and
    /// the cluster-wide affinity counters.
    fn add_to_node(&mut self, pod: PodId, node: NodeId) {
        let p = &self.pods[pod];
        let n = &mut self.nodes[node];
        let len = p
            .requests
            .iter()
            .map(|(id, _)| usize::from(*id) + 1)
            .fold(usize::from(PODS) + 1, usize::max);
        if n.requested.len() < len {
            n.requested.resize(len, 0);
            n.allocatable.resize(len, 0);
        }
        // Saturating: amounts come from input (two pods of `7Ei` exceed an i64);
        // [`forget`](Self::forget) recounts a saturated sum instead of subtracting from it.
        for (id, v) in &p.requests {
            let slot = &mut n.requested[usize::from(*id)];
            *slot = slot.saturating_add(*v);
        }
        n.requested[usize::from(PODS)] = n.requested[usize::from(PODS)].saturating_add(1);
        if let Some(delta) = self.dra.na_delta(pod) {
            add_requests(n, delta, 1);
        }
        n.score_cpu = n.score_cpu.saturating_add(p.score_cpu);
        n.score_memory = n.score_memory.saturating_add(p.score_memory);
        n.pods.push(pod);
        n.used_ports.extend(p.host_ports.iter().cloned());
        if p.has_affinity_terms() {
            n.affinity_pods.push(pod);
            self.affinity_count += 1;
        }
        if !p.anti_affinity.is_empty() {
            n.required_anti_pods.push(pod);
            self.required_anti_count += 1;
        }
    }

    /// Removes many placed pods at once and remembers how to put the state back exactly
    /// ([`restore`](Self::restore)). Each node that loses pods is saved whole and rebuilt from
    /// the pods it keeps, so the cost is one pass over those nodes' pods instead of one
    /// [`forget`](Self::forget) per pod (a group preemption removes every lower-priority pod of
    /// the cluster). Claims of simulated reservations are unreserved as `forget` does.
    pub(crate) fn remove_pods(&mut self, pods: impl Iterator<Item = PodId>) -> Removal {
        let mut removal = Removal {
            affinity_count: self.affinity_count,
            required_anti_count: self.required_anti_count,
            ..Removal::default()
        };
        removal.pods.reserve(pods.size_hint().0);
        for pod in pods {
            let Some(node) = self.placement[pod].take() else {
                continue;
            };
            if self.pods[pod].has_claims {
                self.dra.unreserve(pod);
            }
            removal.pods.push((pod, node));
        }
        // The touched nodes in id order: sorted when few pods go, marked when many do (a group
        // preemption at 5,000 nodes removes 150,000).
        let nodes: Vec<NodeId> = if removal.pods.len() * 4 < self.nodes.len() {
            let mut nodes: Vec<NodeId> = removal.pods.iter().map(|(_, n)| *n).collect();
            nodes.sort_unstable();
            nodes.dedup();
            nodes
        } else {
            let mut marked = vec![false; self.nodes.len()];
            for (_, n) in &removal.pods {
                marked[*n] = true;
            }
            (0..self.nodes.len()).filter(|n| marked[*n]).collect()
        };
        for node in nodes {
            let n = &mut self.nodes[node];
            let saved = SavedNode {
                requested: n.requested.clone(),
                score_cpu: n.score_cpu,
                score_memory: n.score_memory,
                pods: std::mem::take(&mut n.pods),
                used_ports: std::mem::take(&mut n.used_ports),
                affinity_pods: std::mem::take(&mut n.affinity_pods),
                required_anti_pods: std::mem::take(&mut n.required_anti_pods),
            };
            n.requested.clear_values();
            n.score_cpu = 0;
            n.score_memory = 0;
            self.affinity_count -= saved.affinity_pods.len();
            self.required_anti_count -= saved.required_anti_pods.len();
            for &kept in &saved.pods {
                if self.placement[kept] == Some(node) {
                    self.add_to_node(kept, node);
                }
            }
            removal.nodes.push((node, saved));
        }
        removal
    }

    /// Undoes [`remove_pods`](Self::remove_pods): the saved nodes come back as they were (pod
    /// order included) and the removed pods are placed again. Every other change made since
    /// must have been undone first.
    pub(crate) fn restore(&mut self, removal: Removal) {
        for (node, saved) in removal.nodes {
            let n = &mut self.nodes[node];
            n.requested = saved.requested;
            n.score_cpu = saved.score_cpu;
            n.score_memory = saved.score_memory;
            n.pods = saved.pods;
            n.used_ports = saved.used_ports;
            n.affinity_pods = saved.affinity_pods;
            n.required_anti_pods = saved.required_anti_pods;
        }
        self.affinity_count = removal.affinity_count;
        self.required_anti_count = removal.required_anti_count;
        for (pod, node) in removal.pods {
            self.placement[pod] = Some(node);
            if self.pods[pod].has_claims {
                self.dra.reserve(pod, &self.nodes[node]);
            }
        }
    }

    /// Undoes [`assume`](Self::assume).
    pub(crate) fn forget(&mut self, pod: PodId) {
        let Some(node) = self.placement[pod].take() else {
            return;
        };
        let delta = self.dra.na_delta(pod).cloned();
        if self.pods[pod].has_claims {
            self.dra.unreserve(pod);
        }
        let p = &self.pods[pod];
        let n = &mut self.nodes[node];
        let mut saturated = false;
        for (id, v) in p.requests.iter().chain(delta.iter().flatten()) {
            let slot = &mut n.requested[usize::from(*id)];
            saturated |= *slot == i64::MAX;
            *slot = slot.saturating_sub(*v);
        }
        n.requested[usize::from(PODS)] -= 1;
        saturated |= n.score_cpu == i64::MAX || n.score_memory == i64::MAX;
        n.score_cpu = n.score_cpu.saturating_sub(p.score_cpu);
        n.score_memory = n.score_memory.saturating_sub(p.score_memory);
        if let Some(i) = n.pods.iter().rposition(|x| *x == pod) {
            n.pods.swap_remove(i);
        }
        if saturated {
            // A saturated sum lost what it overflowed by: recount it from the pods left.
            let mut requested = n.requested.clone();
            requested.clear_values();
            let (mut cpu, mut memory) = (0i64, 0i64);
            for q in &n.pods {
                let extra = self.dra.na_delta(*q);
                let q = &self.pods[*q];
                for (id, v) in q.requests.iter().chain(extra.into_iter().flatten()) {
                    let slot = &mut requested[usize::from(*id)];
                    *slot = slot.saturating_add(*v);
                }
                cpu = cpu.saturating_add(q.score_cpu);
                memory = memory.saturating_add(q.score_memory);
            }
            requested[usize::from(PODS)] = i64::try_from(n.pods.len()).unwrap_or(i64::MAX);
            n.requested = requested;
            n.score_cpu = cpu;
            n.score_memory = memory;
        }
        if let Some(i) = n.affinity_pods.iter().rposition(|x| *x == pod) {
            n.affinity_pods.swap_remove(i);
            self.affinity_count -= 1;
        }
        if let Some(i) = n.required_anti_pods.iter().rposition(|x| *x == pod) {
            n.required_anti_pods.swap_remove(i);
            self.required_anti_count -= 1;
        }
        for port in &p.host_ports {
            if let Some(i) = n.used_ports.iter().position(|x| x == port) {
                n.used_ports.swap_remove(i);
            }
        }
    }

    /// The pod `namespace/name`.
    pub fn pod_id(&self, namespace: &str, name: &str) -> Option<PodId> {
        self.pod_ids
            .get(&(namespace.to_owned(), name.to_owned()))
            .copied()
    }
}

#[cfg(test)]
mod amounts_tests {
    use super::Amounts;

    #[test]
    fn amounts_spill_past_the_inline_slots_and_resize_clears() {
        let mut a = Amounts::default();
        a.resize(11, 0);
        for i in 0..11 {
            a[i] = i as i64 * 10;
        }
        assert_eq!(a.get(3), Some(&30));
        assert_eq!(a.get(10), Some(&100));
        assert_eq!(a.get(11), None);
        a.resize(2, 0);
        assert_eq!(a.get(2), None);
        a.resize(12, 7);
        assert_eq!((a[1], a[2], a[9], a[11]), (10, 7, 7, 7));
        assert_eq!(Amounts::from(vec![1, 2]).get(1), Some(&2));
    }
}

#[cfg(test)]
mod removal_tests {
    use super::*;
    use crate::sched::pod_req::AffinityTerm;
    use crate::sched::resources::{CPU, MEMORY};

    fn state() -> ClusterState {
        let mut st = ClusterState::default();
        st.table.intern("cpu");
        st.table.intern("memory");
        st.table.intern("ephemeral-storage");
        st.table.intern("pods");
        for name in ["n1", "n2"] {
            st.nodes.push(NodeState {
                name: name.into(),
                allocatable: vec![8000, 1 << 34, 0, 110].into(),
                ..NodeState::default()
            });
        }
        st.reindex_nodes();
        for i in 0..6i64 {
            let anti = if i == 2 {
                vec![AffinityTerm {
                    namespaces: crate::sched::pod_req::NamespaceScope {
                        names: Vec::new(),
                        selector: None,
                    },
                    selector: Default::default(),
                    topology_key: "kubernetes.io/hostname".into(),
                    weight: 0,
                }]
            } else {
                Vec::new()
            };
            let id = st.add_pod(PodReq {
                namespace: "ns".into(),
                name: format!("p{i}").into(),
                requests: vec![(CPU, 100 * (i + 1)), (MEMORY, 1 << 20)].into(),
                score_cpu: 100 * (i + 1),
                host_ports: if i == 4 {
                    vec![("TCP".into(), 8080, String::new())]
                } else {
                    Vec::new()
                },
                anti_affinity: anti,
                ..PodReq::default()
            });
            st.assume(id, usize::try_from(i % 2).unwrap_or(0));
        }
        st
    }

    fn mutable(st: &ClusterState) -> Vec<(Amounts, i64, Vec<PodId>, usize, usize)> {
        st.nodes
            .iter()
            .map(|n| {
                let mut pods = n.pods.clone();
                pods.sort_unstable();
                (
                    n.requested.clone(),
                    n.score_cpu,
                    pods,
                    n.used_ports.len(),
                    n.required_anti_pods.len(),
                )
            })
            .collect()
    }

    #[test]
    fn bulk_removal_matches_forgetting_one_by_one_and_restores_exactly() {
        let original = state();
        let victims = [0, 2, 4, 5];
        let mut one_by_one = original.clone();
        for v in victims {
            one_by_one.forget(v);
        }
        let mut bulk = original.clone();
        let removal = bulk.remove_pods(victims.into_iter());
        assert_eq!(mutable(&bulk), mutable(&one_by_one));
        assert_eq!(bulk.placement, one_by_one.placement);
        assert_eq!(bulk.required_anti_count, one_by_one.required_anti_count);
        assert_eq!(removal.pods.len(), 4);
        // Changes made in between (a pod put back and removed again) are discarded.
        bulk.assume(2, 1);
        bulk.forget(2);
        bulk.restore(removal);
        assert_eq!(mutable(&bulk), mutable(&original));
        assert_eq!(bulk.nodes[0].pods, original.nodes[0].pods, "pod order kept");
        assert_eq!(bulk.placement, original.placement);
        assert_eq!(bulk.required_anti_count, original.required_anti_count);
    }

    /// Issue 14 item 6: two pods of `7Ei` memory exceed an i64. The sum saturates (the node is
    /// full, never wrapped to a negative), and forgetting one recounts the pods left.
    #[test]
    fn sums_saturate_and_forget_recounts_a_saturated_sum() {
        let mut st = state();
        let ei7 = 7i64 << 60;
        let mut big = Vec::new();
        for name in ["big1", "big2"] {
            let id = st.add_pod(PodReq {
                namespace: "ns".into(),
                name: name.into(),
                requests: vec![(MEMORY, ei7)].into(),
                score_memory: ei7,
                ..PodReq::default()
            });
            st.assume(id, 0);
            big.push(id);
        }
        let n = &st.nodes[0];
        assert_eq!(n.requested[usize::from(MEMORY)], i64::MAX);
        assert_eq!(n.score_memory, i64::MAX);
        assert!(n.free(MEMORY) < 0, "a saturated node has no room");
        st.forget(big[1]);
        let small: i64 = 3 << 20; // p0, p2, p4 request 1Mi each on n1
        assert_eq!(st.nodes[0].requested[usize::from(MEMORY)], ei7 + small);
        assert_eq!(st.nodes[0].score_memory, ei7);
        assert_eq!(st.nodes[0].requested[usize::from(PODS)], 4);
        st.forget(big[0]);
        assert_eq!(mutable(&st), mutable(&state()));
    }

    /// Issue 14 item 2: a pod requesting thousands of extended resources no node has does not
    /// give every node a slot per name (nodes × names); nodes keep what they have.
    #[test]
    fn nodes_do_not_get_a_slot_for_every_resource_name() {
        let mut st = state();
        let requests: Vec<(u16, i64)> = (0..5000)
            .map(|i| (st.table.intern(&format!("example.com/r{i}")), 1))
            .collect();
        let greedy = st.add_pod(PodReq {
            namespace: "ns".into(),
            name: "greedy".into(),
            requests: requests.into(),
            ..PodReq::default()
        });
        st.reindex_nodes();
        for n in &st.nodes {
            assert!(
                n.allocatable.len() <= 8 && n.requested.len() <= 8,
                "{}",
                n.requested.len()
            );
            assert_eq!(n.free(4999), 0, "a missing slot reads as 0");
        }
        let last = st.table.get("example.com/r4999").unwrap_or(0);
        assert!(
            crate::sched::filter::node_resources_fit::filter(&st.pods[greedy], &st.nodes[0])
                .is_some()
        );
        // Placed anyway (a bound pod), the node grows to the pod's largest id only.
        st.assume(greedy, 1);
        assert_eq!(st.nodes[1].requested.len(), usize::from(last) + 1);
        assert_eq!(st.nodes[1].requested[usize::from(last)], 1);
        st.forget(greedy);
        assert_eq!(st.nodes[1].requested[usize::from(last)], 0);
    }

    /// Issue 14: names a hostile input invents beyond the table's capacity share one id that no
    /// node has, so a pod asking for one fits nowhere (it used to match whatever name had taken
    /// the last id); a node's own resources are interned first and keep their ids.
    #[test]
    fn resource_names_past_the_table_capacity_fit_nowhere() {
        use crate::snapshot::Pod;
        let node: k8s_openapi::api::core::v1::Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110", "example.com/late": "4"}}
        }))
        .expect("node");
        let requests: serde_json::Map<String, serde_json::Value> = (0..70_000)
            .map(|i| (format!("example.com/r{i}"), serde_json::json!("1")))
            .collect();
        let greedy: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "greedy", "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": requests}}]}
        }))
        .expect("pod");
        let late: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "late", "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"example.com/late": "1"}}}]}
        }))
        .expect("pod");
        let s = Snapshot {
            nodes: vec![node],
            pods: vec![greedy.into(), late.into()],
            ..Snapshot::default()
        };
        let st = ClusterState::build(&s, &FeatureGates::default());
        assert!(st.table.get("example.com/late").is_some_and(|id| id < 16));
        assert_eq!(st.table.get("example.com/r69999"), None);
        assert!(
            st.nodes[0].allocatable.len() < 16,
            "the node's vector stays small"
        );
        let fit = crate::sched::filter::node_resources_fit::filter;
        assert!(fit(&st.pods[1], &st.nodes[0]).is_none(), "late fits");
        assert!(
            fit(&st.pods[0], &st.nodes[0]).is_some(),
            "greedy fits nowhere"
        );
    }
}

#[cfg(test)]
mod compile_tests {
    use super::{PARALLEL_COMPILE_MIN, compile_pods_on};
    use crate::sched::pod_req::PodReq;
    use crate::sched::resources::ResourceTable;
    use crate::snapshot::Pod;

    fn pod(i: usize, extra: Option<&str>) -> Pod {
        let mut requests = serde_json::json!({"cpu": format!("{}m", 100 + i % 7), "memory": "1Gi"});
        if let Some(name) = extra {
            requests[name] = serde_json::json!("1");
        }
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": format!("p{i}"), "namespace": "ns", "labels": {"app": format!("a{}", i % 3)}},
            "spec": {"containers": [{"name": "c", "resources": {"requests": requests}}],
                     "tolerations": [{"key": "k", "operator": "Exists"}]}
        }))
        .expect("a valid pod")
    }

    /// Compiles on chunks in parallel give what one pod after another gives: the same pods and
    /// the same resource ids, also when a later chunk meets names no earlier pod had (its
    /// copy of the table grew: compiled again in order) or names an earlier chunk added.
    #[test]
    fn parallel_compile_equals_compiling_in_order() {
        // Not a whole number of blocks: the last block is short.
        let n = PARALLEL_COMPILE_MIN * 3 + 17;
        for case in 0..3 {
            let pods: Vec<Pod> = (0..n)
                .map(|i| {
                    let extra = match case {
                        // Only names the nodes have.
                        0 => None,
                        // New names in every chunk, first met late.
                        1 => (i % 1000 == 999).then(|| format!("example.com/r{}", n - i)),
                        // A name the first chunk adds and a later chunk uses again.
                        _ => (i == 10 || i == n - 10).then(|| "example.com/shared".to_owned()),
                    };
                    pod(i, extra.as_deref())
                })
                .collect();
            let refs: Vec<&Pod> = pods.iter().collect();
            let mut nodes = ResourceTable::default();
            nodes.intern("nvidia.com/gpu");
            let mut seq_table = nodes.clone();
            let sequential: Vec<PodReq> = refs
                .iter()
                .map(|p| PodReq::compile(p, &mut seq_table))
                .collect();
            for threads in [2, 3] {
                let mut par_table = nodes.clone();
                let parallel = compile_pods_on(&refs, &mut par_table, threads);
                assert_eq!(parallel.len(), n);
                assert_eq!(
                    format!("{:?}", parallel.iter().collect::<Vec<_>>()),
                    format!("{:?}", sequential.iter().collect::<Vec<_>>()),
                    "case {case}"
                );
                assert_eq!(par_table.len(), seq_table.len(), "case {case}");
                for id in 0..seq_table.len() {
                    let id = u16::try_from(id).expect("few names");
                    assert_eq!(par_table.name(id), seq_table.name(id), "case {case}");
                }
            }
        }
    }

    /// A pod set or added in one clone of the table copies its block only: the other clone
    /// keeps its pods, and the blocks it does not touch stay shared.
    #[test]
    fn pod_table_copies_only_the_block_written() {
        use super::{POD_BLOCK, PodTable};
        let named = |i: usize| PodReq {
            name: format!("p{i}").into(),
            ..PodReq::default()
        };
        let mut table = PodTable::default();
        for i in 0..POD_BLOCK + 5 {
            table.push(named(i));
        }
        assert_eq!(table.len(), POD_BLOCK + 5);
        assert_eq!(&*table[POD_BLOCK + 4].name, format!("p{}", POD_BLOCK + 4));
        let mut copy = table.clone();
        copy.set(3, named(9999));
        copy.push(named(7777));
        assert_eq!(&*copy[3].name, "p9999");
        assert_eq!(&*table[3].name, "p3", "the original keeps its pod");
        assert_eq!((copy.len(), table.len()), (POD_BLOCK + 6, POD_BLOCK + 5));
        assert_eq!(&*copy[POD_BLOCK + 5].name, "p7777");
        assert!(!std::rc::Rc::ptr_eq(&copy.blocks[1], &table.blocks[1]));
        let mut other = table.clone();
        other.set(POD_BLOCK, named(1));
        assert!(std::rc::Rc::ptr_eq(&other.blocks[0], &table.blocks[0]));
        let names: Vec<String> = copy.iter().map(|p| p.name.to_string()).collect();
        assert_eq!(names.len(), POD_BLOCK + 6);
        assert_eq!(names[4], "p4");
    }
}
