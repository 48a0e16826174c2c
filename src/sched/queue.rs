//! The queue: pending work grouped into units and ordered as upstream pops them, with
//! PreEnqueue gating and group validation decided before any node is tried.
//!
//! Upstream: `pkg/scheduler/backend/queue/*` (a PodGroup, or the root of a CompositePodGroup
//! tree, is one queued unit when GenericWorkload is on; PrioritySort: priority desc, then the
//! initial attempt time), `framework/plugins/gangscheduling/gangscheduling.go` (PreEnqueue,
//! semantics §3.2, §4.1) and `schedule_one_podgroup.go` (group validation, §3.3 step 3).
//! A pod's queue timestamp is taken to be its creation time (when it was added to the queue);
//! ties by name. A group unit takes the timestamp of the first of its members to enter the
//! queue (upstream `newQueuedPodGroupInfo` copies the first queued pod's `Timestamp`), so
//! here the earliest creation time among its unscheduled members anywhere in the tree, not
//! the group object's own creation time.

use crate::snapshot::{ObjKind, ObjRef};
use std::collections::{BTreeMap, BTreeSet};

use super::node_state::{ClusterState, PodId};
use crate::snapshot::facts::FeatureGates;
use crate::snapshot::{Snapshot, hierarchy, name_of};

/// PreEnqueue message for a pod whose PodGroup is unknown (CompositePodGroup gate off).
pub(crate) const MSG_NO_POD_GROUP: &str =
    "waiting for pod's pod group \"{}\" to appear in scheduling queue";
/// PreEnqueue message for a gang with fewer known pods than minCount.
pub(crate) const MSG_GANG_QUORUM: &str =
    "waiting for minCount pods from a gang to appear in scheduling queue";
/// Message for a pod held by `spec.schedulingGates` (SchedulingGates PreEnqueue plugin).
pub(crate) const MSG_SCHEDULING_GATES: &str = "waiting for scheduling gates: {}";

/// Kind of a group node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GroupKind {
    /// A PodGroup (leaf).
    PodGroup,
    /// A CompositePodGroup (inner node).
    CompositePodGroup,
}

impl GroupKind {
    /// The kind name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::PodGroup => "PodGroup",
            Self::CompositePodGroup => "CompositePodGroup",
        }
    }

    /// The object kind shared with the rest of wasctl.
    pub(crate) fn obj_kind(self) -> ObjKind {
        match self {
            Self::PodGroup => ObjKind::PodGroup,
            Self::CompositePodGroup => ObjKind::CompositePodGroup,
        }
    }
}

/// One group in a unit's tree.
#[derive(Debug, Clone)]
pub struct GroupNode {
    /// PodGroup or CompositePodGroup.
    pub kind: GroupKind,
    /// Name.
    pub name: String,
    /// `gang.minCount` / `gang.minGroupCount`; 1 for basic.
    pub min: u32,
    /// Gang policy (else basic).
    pub gang: bool,
    /// Topology key (only when TopologyAwareWorkloadScheduling is on).
    pub topology_key: Option<String>,
    /// Children (CompositePodGroup).
    pub children: Vec<GroupNode>,
    /// Members to place, in queue order (PodGroup).
    pub pending: Vec<PodId>,
    /// Members already bound (PodGroup).
    pub bound: Vec<PodId>,
    /// Members the scheduler knows (bound, pending and gated), for PreEnqueue quorum.
    pub known: u32,
    /// Unscheduled members held by DynamicResources' PreEnqueue (a claim does not exist yet).
    pub held: Vec<PodId>,
    /// Unscheduled members held by `spec.schedulingGates` (SchedulingGates' PreEnqueue).
    pub gated: Vec<PodId>,
}

impl GroupNode {
    /// Whether the subtree has any pod to place.
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty() || self.children.iter().any(Self::has_pending)
    }

    /// Every bound pod in the subtree.
    pub(crate) fn bound_pods(&self, out: &mut Vec<PodId>) {
        out.extend(&self.bound);
        for c in &self.children {
            c.bound_pods(out);
        }
    }

    /// Every pending pod in the subtree.
    pub(crate) fn pending_pods(&self, out: &mut Vec<PodId>) {
        out.extend(&self.pending);
        for c in &self.children {
            c.pending_pods(out);
        }
    }

    /// The same tree after a cycle placed `placed`: those members count as bound, the rest
    /// stay pending (the group as it is requeued with the members left).
    pub(crate) fn with_bound(&self, placed: &[(PodId, usize)]) -> GroupNode {
        let mut node = self.clone();
        node.move_to_bound(placed);
        node
    }

    fn move_to_bound(&mut self, placed: &[(PodId, usize)]) {
        let (now_bound, still): (Vec<PodId>, Vec<PodId>) = self
            .pending
            .iter()
            .partition(|p| placed.iter().any(|(q, _)| q == *p));
        self.pending = still;
        self.bound.extend(now_bound);
        for c in &mut self.children {
            c.move_to_bound(placed);
        }
    }

    /// Every member held by DynamicResources' PreEnqueue in the subtree.
    pub(crate) fn held_pods(&self, out: &mut Vec<PodId>) {
        out.extend(&self.held);
        for c in &self.children {
            c.held_pods(out);
        }
    }

    /// Every member held by its scheduling gates in the subtree.
    pub(crate) fn gated_pods(&self, out: &mut Vec<PodId>) {
        out.extend(&self.gated);
        for c in &self.children {
            c.gated_pods(out);
        }
    }

    /// Queue-time readiness (hierarchy tracker, semantics §4.1).
    pub(crate) fn ready(&self) -> bool {
        match self.kind {
            GroupKind::PodGroup => self.known >= self.min,
            GroupKind::CompositePodGroup => {
                let ready = self.children.iter().filter(|c| c.ready()).count();
                u32::try_from(ready).unwrap_or(u32::MAX) >= self.min
            }
        }
    }

    /// Whether the group's quorum is already met by bound members (and it has nothing to place).
    pub(crate) fn satisfied(&self) -> bool {
        match self.kind {
            GroupKind::PodGroup => u32::try_from(self.bound.len()).unwrap_or(u32::MAX) >= self.min,
            GroupKind::CompositePodGroup => {
                let n = self.children.iter().filter(|c| c.satisfied()).count();
                u32::try_from(n).unwrap_or(u32::MAX) >= self.min
            }
        }
    }
}

/// What a unit is.
#[derive(Debug, Clone)]
pub enum UnitBody {
    /// A single pod.
    Pod(PodId),
    /// A group tree rooted here.
    Group(GroupNode),
    /// Held at PreEnqueue (or invalid), with the message, the pods concerned and the outcome.
    Held {
        /// Error (invalid group) rather than Waiting.
        error: bool,
        /// Upstream's message.
        message: String,
        /// Pending pods concerned.
        pods: Vec<PodId>,
        /// For a group whose tree was built: its gang numbers (minCount whatever the outcome).
        gang: Option<HeldGang>,
    },
    /// A suspended Job (`spec.suspend: true`): its controller creates no pods until it is
    /// resumed. Never tried; reported so that it is not dropped silently.
    Suspended {
        /// What the Job would create once resumed: its active pods.
        pods: u32,
        /// Its gang minCount (`spec.scheduling`), when it sets one.
        min_count: Option<u32>,
    },
    /// Pending pods whose `schedulerName` no profile serves: never simulated.
    NotSimulated {
        /// The scheduler they name.
        scheduler: String,
        /// How many pods.
        pods: u32,
    },
}

/// The numbers of a group held before scheduling, from its tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldGang {
    /// `minCount` (PodGroup) or `minGroupCount` (CompositePodGroup); 1 for basic.
    pub min: u32,
    /// Members the scheduler knows (PodGroup: bound, pending and held pods; CompositePodGroup:
    /// child groups that meet their own quorum).
    pub known: u32,
    /// Members already bound (pods, in the whole tree).
    pub bound: u32,
}

impl HeldGang {
    fn of(tree: &GroupNode) -> Self {
        let known = match tree.kind {
            GroupKind::PodGroup => tree.known,
            GroupKind::CompositePodGroup => {
                u32::try_from(tree.children.iter().filter(|c| c.ready()).count())
                    .unwrap_or(u32::MAX)
            }
        };
        let mut bound = Vec::new();
        tree.bound_pods(&mut bound);
        Self {
            min: tree.min,
            known,
            bound: u32::try_from(bound.len()).unwrap_or(u32::MAX),
        }
    }
}

/// One queueing unit.
#[derive(Debug, Clone)]
pub struct Unit {
    /// `Pod`, `PodGroup` or `CompositePodGroup`.
    pub kind: ObjKind,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Priority used for ordering (group priority for groups).
    pub priority: i32,
    /// Queue timestamp (seconds): a pod's creation time; for a group, its earliest-created
    /// unscheduled member's.
    pub created: i64,
    /// What to do.
    pub body: UnitBody,
}

impl Unit {
    /// Whether this is the unit `r`.
    pub(crate) fn is(&self, r: &ObjRef) -> bool {
        self.kind == r.kind && self.namespace == r.namespace && self.name == r.name
    }
}

/// Whether the scheduler would try to place this pod now.
pub(crate) fn is_pending(state: &ClusterState, pod: PodId) -> bool {
    let p = &state.pods[pod];
    // A pod with `spec.nodeName` is assigned, even to a node the snapshot lacks: never queued.
    awaits_scheduler(state, pod) && state.profiles.id_for(&p.scheduler_name).is_some()
}

/// Whether some scheduler would try to place this pod now: unassigned and not terminating.
/// [`is_pending`] when a profile serves its `schedulerName`.
pub(crate) fn awaits_scheduler(state: &ClusterState, pod: PodId) -> bool {
    state.placement[pod].is_none()
        && !state.bound_to_missing_node(pod)
        && !state.pods[pod].terminating
}

struct Builder<'a> {
    s: &'a Snapshot,
    st: &'a ClusterState,
    gates: &'a FeatureGates,
}

impl Builder<'_> {
    fn pod_group_node(&self, ns: &str, name: &str) -> Option<GroupNode> {
        let pg = self.s.pod_group(ns, name)?;
        let spec = &pg.spec;
        let (gang, min) = match &spec.scheduling_policy.gang {
            Some(g) => (true, u32::try_from(g.min_count.max(1)).unwrap_or(1)),
            None => (false, 1),
        };
        let mut node = GroupNode {
            kind: GroupKind::PodGroup,
            name: name.to_owned(),
            min,
            gang,
            topology_key: self.topology(
                spec.scheduling_constraints
                    .as_ref()
                    .and_then(|c| c.topology.as_ref())
                    .and_then(|t| t.first())
                    .map(|t| t.key.clone()),
            ),
            children: Vec::new(),
            pending: Vec::new(),
            bound: Vec::new(),
            known: 0,
            held: Vec::new(),
            gated: Vec::new(),
        };
        for i in self.s.index.pods_by_group.get(ns, name) {
            let pod = &self.s.pods[*i];
            let Some(id) = self.st.pod_id(ns, name_of(&pod.metadata)) else {
                continue;
            }; // terminal
            let p = &self.st.pods[id];
            if p.terminating {
                continue;
            }
            node.known += 1;
            if self.st.is_bound(id) {
                node.bound.push(id);
            } else if is_pending(self.st, id) {
                // Held at PreEnqueue (scheduling gates, or a claim that does not exist yet):
                // known to the gang, not placeable, and it holds the whole unit (below).
                if p.gated {
                    node.gated.push(id);
                } else if self.st.dra.pre_enqueue(id).is_some() {
                    node.held.push(id);
                } else {
                    node.pending.push(id);
                }
            }
        }
        let pods = &self.st.pods;
        node.pending.sort_by(|a, b| {
            let (a, b) = (&pods[*a], &pods[*b]);
            b.priority
                .cmp(&a.priority)
                .then(a.created.cmp(&b.created))
                .then(a.name.cmp(&b.name))
        });
        Some(node)
    }

    fn topology(&self, key: Option<String>) -> Option<String> {
        key.filter(|_| self.gates.enabled("TopologyAwareWorkloadScheduling"))
    }

    /// The tree under CompositePodGroup `name`, which sits at level `depth` (the root at 1).
    /// A child below [`hierarchy::MAX_HIERARCHY_DEPTH`] levels makes the tree invalid.
    fn composite_node(&self, ns: &str, name: &str, depth: usize) -> Result<GroupNode, String> {
        let has_children = !self
            .s
            .index
            .composite_pod_groups_by_parent
            .get(ns, name)
            .is_empty()
            || !self.s.index.pod_groups_by_parent.get(ns, name).is_empty();
        if has_children && depth >= hierarchy::MAX_HIERARCHY_DEPTH {
            return Err(format!(
                "invalid hierarchy under compositepodgroup/{ns}/{name}: hierarchy depth {} exceeds maximum allowed depth {}",
                depth + 1,
                hierarchy::MAX_HIERARCHY_DEPTH
            ));
        }
        let cpg = self
            .s
            .composite_pod_group(ns, name)
            .ok_or_else(|| format!("CompositePodGroup \"{name}\" not found"))?;
        let spec = &cpg.spec;
        let (gang, min) = match &spec.scheduling_policy.gang {
            Some(g) => (true, u32::try_from(g.min_group_count.max(1)).unwrap_or(1)),
            None => (false, 1),
        };
        let mut children = Vec::new();
        for i in self.s.index.composite_pod_groups_by_parent.get(ns, name) {
            let child = name_of(&self.s.composite_pod_groups[*i].metadata).to_owned();
            children.push(self.composite_node(ns, &child, depth + 1)?);
        }
        for i in self.s.index.pod_groups_by_parent.get(ns, name) {
            let child = name_of(&self.s.pod_groups[*i].metadata).to_owned();
            if let Some(n) = self.pod_group_node(ns, &child) {
                children.push(n);
            }
        }
        children.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(GroupNode {
            kind: GroupKind::CompositePodGroup,
            name: name.to_owned(),
            min,
            gang,
            topology_key: self.topology(
                spec.scheduling_constraints
                    .as_ref()
                    .and_then(|c| c.topology.as_ref())
                    .and_then(|t| t.first())
                    .map(|t| t.key.clone()),
            ),
            children,
            pending: Vec::new(),
            bound: Vec::new(),
            known: 0,
            held: Vec::new(),
            gated: Vec::new(),
        })
    }

    /// The root of the hierarchy `pg` belongs to: (kind, name), following parents while the
    /// CompositePodGroup gate is on ([`hierarchy::walk_up`]). An error names a missing parent
    /// (the pods wait) or a structurally invalid tree: a cycle, or more than
    /// [`hierarchy::MAX_HIERARCHY_DEPTH`] levels (an error, reason `Invalid` upstream).
    fn root_of(&self, ns: &str, pg: &str) -> Result<(GroupKind, String), hierarchy::Broken> {
        if !self.gates.enabled("CompositePodGroup") {
            return Ok((GroupKind::PodGroup, pg.to_owned()));
        }
        Ok(match hierarchy::walk_up(self.s, ns, pg)? {
            None => (GroupKind::PodGroup, pg.to_owned()),
            Some(root) => (GroupKind::CompositePodGroup, root),
        })
    }

    fn group_priority(&self, ns: &str, kind: GroupKind, name: &str) -> i32 {
        let priority = match kind {
            GroupKind::PodGroup => self.s.pod_group(ns, name).map(|p| p.spec.priority),
            GroupKind::CompositePodGroup => self
                .s
                .composite_pod_group(ns, name)
                .map(|c| c.spec.priority),
        };
        priority.flatten().unwrap_or(0)
    }

    /// Why a Job's gang fails the priority check, when its PodGroup is the one the 1.37 Job
    /// controller created (annotation `batch.kubernetes.io/workload-managed-by`) and names no
    /// PriorityClass: the controller builds the PodGroup spec from the Workload's template
    /// (pkg/controller/job/job_scheduling_manager.go `podGroupSpecFromTemplate` copies the
    /// workload reference, scheduling policy, constraints, disruption mode and claims) and
    /// `spec.scheduling` has no priority, so the pod template's `priorityClassName` never
    /// reaches the PodGroup: admission gives it the globalDefault class's value, else 0, and
    /// kube-scheduler refuses the gang ("all pods in a single pod group should have the same
    /// priority as the pod group's priority"). Empty otherwise.
    fn job_priority_hint(&self, ns: &str, kind: GroupKind, name: &str) -> String {
        let Some(pg) = (kind == GroupKind::PodGroup)
            .then(|| self.s.pod_group(ns, name))
            .flatten()
        else {
            return String::new();
        };
        let by_job_controller = pg.metadata.annotations.as_ref().is_some_and(|a| {
            a.get(crate::admit::controllers::WORKLOAD_MANAGED_BY)
                .map(String::as_str)
                == Some(crate::admit::controllers::JOB_CONTROLLER)
        });
        if !by_job_controller || pg.spec.priority_class_name.is_some() {
            return String::new();
        }
        " (the Job controller creates the PodGroup without the pod template's priorityClassName, so kube-scheduler 1.37 refuses the gang: create the Workload and PodGroup with the class yourself and name the PodGroup in the template's `schedulingGroup`, or drop priorityClassName from the template)".to_owned()
    }

    /// Group validation (semantics §3.3 step 3). With PodGroupPreemptionPolicy on, a member's
    /// own preemptionPolicy is not compared: the group's policy wins (§6.1, upstream test
    /// "PreemptLowerPriority ignores member Never").
    fn validate(&self, root: &GroupNode, priority: i32) -> Result<(), String> {
        let mut pods = Vec::new();
        root.bound_pods(&mut pods);
        root.pending_pods(&mut pods);
        let st = self.st;
        let names: BTreeSet<&str> = pods
            .iter()
            .map(|p| st.pods[*p].scheduler_name.as_str())
            .collect();
        if names.len() > 1 {
            return Err(format!(
                "pods of the group use different schedulerNames: {}",
                names.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
        if let Some(p) = pods
            .iter()
            .map(|p| &st.pods[*p])
            .find(|p| p.priority != priority)
        {
            return Err(format!(
                "pod {} has priority {} but its group's priority is {priority}",
                p.name, p.priority
            ));
        }
        if !self.gates.enabled("PodGroupPreemptionPolicy") {
            let policies: BTreeSet<bool> = pods.iter().map(|p| st.pods[*p].preempt_never).collect();
            if policies.len() > 1 {
                return Err("pods of the group have different preemptionPolicy values".to_owned());
            }
        }
        Ok(())
    }
}

/// A group unit held at PreEnqueue because a member is: upstream runs the PreEnqueue plugins
/// for each pod of a queued entity and, "if any pod is gated, the whole entity is gated"
/// (scheduling_queue.go `runPreEnqueuePlugins`; queueing_test.go "Single gated pod blocks gang
/// group from being scheduled until pod is ungated", for gang and basic groups alike). The
/// message is the first held member's: its scheduling gates, else its missing claim.
fn held_at_pre_enqueue(st: &ClusterState, tree: &GroupNode, pending: &[PodId]) -> Option<UnitBody> {
    let mut gated = Vec::new();
    tree.gated_pods(&mut gated);
    let mut held = Vec::new();
    tree.held_pods(&mut held);
    let message = if let Some(p) = gated.first() {
        MSG_SCHEDULING_GATES.replace(
            "{}",
            &format!("member {} has spec.schedulingGates", st.pods[*p].name),
        )
    } else {
        st.dra.pre_enqueue(*held.first()?)?.to_owned()
    };
    let mut pods = pending.to_vec();
    pods.extend(gated);
    pods.extend(held);
    Some(UnitBody::Held {
        error: false,
        message,
        pods,
        gang: Some(HeldGang::of(tree)),
    })
}

/// Builds the units of work in queue order.
pub fn build(s: &Snapshot, st: &ClusterState, gates: &FeatureGates) -> Vec<Unit> {
    let b = Builder { s, st, gates };
    let generic = gates.enabled("GenericWorkload");
    let mut units = Vec::new();
    // Root → the earliest creation time among its unscheduled members (its queue timestamp).
    let mut roots: BTreeMap<(String, GroupKind, String), i64> = BTreeMap::new();
    // PodGroups whose hierarchy cannot be built: (namespace, PodGroup) → message, pods. One
    // unit per PodGroup, holding every pending member.
    #[allow(clippy::type_complexity)]
    let mut broken_roots: BTreeMap<(String, String), (String, bool, Vec<PodId>)> = BTreeMap::new();
    // Pods no profile serves: (scheduler, namespace, PodGroup or "") → pods.
    #[allow(clippy::type_complexity)]
    let mut unserved: BTreeMap<(String, String, String), Vec<PodId>> = BTreeMap::new();
    // PodGroups with a pod some profile serves: their unit reports every member.
    let mut served_groups: std::collections::BTreeSet<(String, String)> =
        std::collections::BTreeSet::new();
    for id in 0..st.pods.len() {
        if !is_pending(st, id) {
            if awaits_scheduler(st, id) {
                let p = &st.pods[id];
                let group = if generic { p.group.clone() } else { None };
                unserved
                    .entry((
                        p.scheduler_name.clone(),
                        p.namespace.clone(),
                        group.unwrap_or_default(),
                    ))
                    .or_default()
                    .push(id);
            }
            continue;
        }
        let p = &st.pods[id];
        let group = if generic { p.group.as_deref() } else { None };
        if let Some(g) = group {
            served_groups.insert((p.namespace.clone(), g.to_owned()));
        }
        match group {
            None => units.push(lone_pod_unit(st, id)),
            Some(g) if s.pod_group(&p.namespace, g).is_none() => {
                units.push(missing_group_unit(st, gates, id, g));
            }
            Some(g) => match b.root_of(&p.namespace, g) {
                Ok((kind, name)) => {
                    let first = roots
                        .entry((p.namespace.clone(), kind, name))
                        .or_insert(p.created);
                    *first = (*first).min(p.created);
                }
                Err(broken) => {
                    broken_roots
                        .entry((p.namespace.clone(), g.to_owned()))
                        .or_insert_with(|| {
                            (
                                broken.message(&p.namespace, g),
                                broken.is_invalid(),
                                Vec::new(),
                            )
                        })
                        .2
                        .push(id);
                }
            },
        }
    }
    for ((ns, pg), (message, invalid, pods)) in broken_roots {
        let priority = b.group_priority(&ns, GroupKind::PodGroup, &pg);
        let created = pods.iter().map(|p| st.pods[*p].created).min().unwrap_or(0);
        units.push(Unit {
            kind: ObjKind::PodGroup,
            namespace: ns,
            name: pg,
            priority,
            created,
            body: UnitBody::Held {
                error: invalid,
                message,
                pods,
                gang: None,
            },
        });
    }
    for ((ns, kind, name), created) in roots {
        let priority = b.group_priority(&ns, kind, &name);
        let body = b.group_body(&ns, kind, &name, priority);
        units.push(Unit {
            kind: kind.obj_kind(),
            namespace: ns,
            name,
            priority,
            created,
            body,
        });
    }
    units.sort_by(|a, b| {
        b.priority
            .cmp(&a.priority)
            .then(a.created.cmp(&b.created))
            .then_with(|| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)))
    });
    // Suspended Jobs, after every unit the scheduler tries: nothing of theirs is queued
    // (their controller creates no pods until they are resumed), so they change no other
    // unit's answer; they are listed so that they are not dropped silently. A stored Job's
    // pods are what the snapshot holds (`admit` does not expand it): a stored suspended Job
    // is listed only while it has no pod.
    units.extend(suspended_jobs(s));
    units.extend(not_simulated_units(st, unserved, &served_groups));
    units
}

/// The units of pending pods whose `schedulerName` no profile serves, after every other
/// unit (they change nothing the simulation places), by scheduler, namespace and name: one
/// per PodGroup, one per pod outside any group. A PodGroup that also has pods a profile serves is reported by its own unit
/// (its validation names the different schedulers), not here.
#[allow(clippy::type_complexity)]
fn not_simulated_units(
    st: &ClusterState,
    unserved: BTreeMap<(String, String, String), Vec<PodId>>,
    served_groups: &std::collections::BTreeSet<(String, String)>,
) -> Vec<Unit> {
    let mut out = Vec::new();
    for ((scheduler, ns, group), pods) in unserved {
        let priority = pods.iter().map(|p| st.pods[*p].priority).max().unwrap_or(0);
        let created = pods.iter().map(|p| st.pods[*p].created).min().unwrap_or(0);
        if group.is_empty() {
            for id in pods {
                let p = &st.pods[id];
                out.push(Unit {
                    kind: ObjKind::Pod,
                    namespace: ns.clone(),
                    name: p.name.to_string(),
                    priority: p.priority,
                    created: p.created,
                    body: UnitBody::NotSimulated {
                        scheduler: scheduler.clone(),
                        pods: 1,
                    },
                });
            }
        } else if !served_groups.contains(&(ns.clone(), group.clone())) {
            out.push(Unit {
                kind: ObjKind::PodGroup,
                namespace: ns,
                name: group,
                priority,
                created,
                body: UnitBody::NotSimulated {
                    scheduler,
                    pods: u32::try_from(pods.len()).unwrap_or(u32::MAX),
                },
            });
        }
    }
    out
}

/// The unit of a pending pod outside any pod group: held by its scheduling gates or by
/// DynamicResources' PreEnqueue, else scheduled on its own.
fn lone_pod_unit(st: &ClusterState, id: PodId) -> Unit {
    let p = &st.pods[id];
    let body = if p.gated {
        UnitBody::Held {
            error: false,
            message: MSG_SCHEDULING_GATES.replace("{}", "the pod has spec.schedulingGates"),
            pods: vec![id],
            gang: None,
        }
    } else if let Some(problem) = st.dra.pre_enqueue(id) {
        UnitBody::Held {
            error: false,
            message: problem.to_owned(),
            pods: vec![id],
            gang: None,
        }
    } else {
        UnitBody::Pod(id)
    };
    Unit {
        kind: ObjKind::Pod,
        namespace: p.namespace.clone(),
        name: p.name.to_string(),
        priority: p.priority,
        created: p.created,
        body,
    }
}

/// The held unit of a pending pod whose PodGroup `g` does not exist, with the message the
/// scheduler gives: the hierarchy snapshot's failure with CompositePodGroup on, else the
/// PreEnqueue message.
fn missing_group_unit(st: &ClusterState, gates: &FeatureGates, id: PodId, g: &str) -> Unit {
    let p = &st.pods[id];
    let message = if gates.enabled("CompositePodGroup") {
        format!(
            "failed to build hierarchy snapshot: pod group object not found in state for podgroup/{}/{g}",
            p.namespace
        )
    } else {
        MSG_NO_POD_GROUP.replace("{}", g)
    };
    Unit {
        kind: ObjKind::Pod,
        namespace: p.namespace.clone(),
        name: p.name.to_string(),
        priority: p.priority,
        created: p.created,
        body: UnitBody::Held {
            error: false,
            message,
            pods: vec![id],
            gang: None,
        },
    }
}

impl Builder<'_> {
    /// What the queue does with a root group: its tree scheduled as one unit, or held, in
    /// upstream's order of checks: the tree cannot be built (an error), quorum not met,
    /// PreEnqueue (gates, DRA), then the cycle's validation of the whole tree (an error).
    fn group_body(&self, ns: &str, kind: GroupKind, name: &str, priority: i32) -> UnitBody {
        let tree = match kind {
            GroupKind::PodGroup => self
                .pod_group_node(ns, name)
                .ok_or_else(|| format!("PodGroup \"{name}\" not found")),
            GroupKind::CompositePodGroup => self.composite_node(ns, name, 1),
        };
        let tree = match tree {
            Err(message) => {
                return UnitBody::Held {
                    error: true,
                    message,
                    pods: Vec::new(),
                    gang: None,
                };
            }
            Ok(tree) => tree,
        };
        let mut pending = Vec::new();
        tree.pending_pods(&mut pending);
        if !tree.ready() {
            let message = match kind {
                GroupKind::PodGroup => MSG_GANG_QUORUM.to_owned(),
                GroupKind::CompositePodGroup => {
                    format!("waiting for composite pod group \"{name}\" tree to meet quorum")
                }
            };
            UnitBody::Held {
                error: false,
                message,
                pods: pending,
                gang: Some(HeldGang::of(&tree)),
            }
        } else if let Some(body) = held_at_pre_enqueue(self.st, &tree, &pending) {
            // PreEnqueue runs before the cycle's group validation.
            body
        } else if let Err(e) = match kind {
            // The whole tree's rules, validated in the cycle like the group's own
            // (hierarchy_validation_test.go "… fails validation in scheduling
            // cycle"): a CompositePodGroup too deep, groups of different Workloads.
            GroupKind::CompositePodGroup => {
                hierarchy::check_tree(self.s, ns, name).map_err(|e| e.message(ns, name))
            }
            GroupKind::PodGroup => Ok(()),
        }
        .and_then(|()| self.validate(&tree, priority))
        {
            UnitBody::Held {
                error: true,
                message: format!("{e}{}", self.job_priority_hint(ns, kind, name)),
                pods: pending,
                gang: Some(HeldGang::of(&tree)),
            }
        } else {
            UnitBody::Group(tree)
        }
    }
}

/// True when Kueue, not the Job controller, decides when a suspended Job gets pods: the Job
/// names a Kueue queue (label `kueue.x-k8s.io/queue-name`) and the snapshot holds Kueue's
/// objects (a ClusterQueue, LocalQueue or Workload of `kueue.x-k8s.io`). Kueue suspends the
/// Jobs it queues and unsuspends them when it admits them, so such a Job is not reported as
/// suspended here: the Kueue admission stage (issue 49) will say whether and when Kueue
/// admits it. Without Kueue's objects in the input, the Job is reported as suspended.
fn left_to_kueue(s: &Snapshot, job: &crate::snapshot::Job) -> bool {
    let queued = job
        .metadata
        .labels
        .as_ref()
        .is_some_and(|l| l.contains_key(crate::snapshot::KUEUE_QUEUE_LABEL));
    queued
        && s.foreign.iter().any(|o| {
            o.group() == "kueue.x-k8s.io"
                && matches!(o.kind.as_str(), "ClusterQueue" | "LocalQueue" | "Workload")
        })
}

/// The units of the suspended Jobs of `s`, by namespace and name: manifest Jobs (which
/// admission does not expand), and stored Jobs without a pod; not those Kueue decides
/// ([`left_to_kueue`]).
fn suspended_jobs(s: &Snapshot) -> Vec<Unit> {
    let suspended =
        |j: &crate::snapshot::Job| j.spec.as_deref().is_some_and(|sp| sp.suspend == Some(true));
    // The Jobs that own a pod (built only when a stored Job is suspended).
    let mut with_pods: std::collections::HashSet<(&str, &str)> = Default::default();
    if s.jobs
        .iter()
        .any(|j| crate::admit::is_stored(&j.metadata) && suspended(j))
    {
        for p in &s.pods {
            for o in p.metadata.owner_references.iter().flatten() {
                if o.kind == "Job" && o.controller == Some(true) {
                    with_pods.insert((crate::snapshot::namespace_of(&p.metadata), &o.name));
                }
            }
        }
    }
    let mut out: Vec<Unit> = s
        .jobs
        .iter()
        .filter(|j| {
            let key = (
                crate::snapshot::namespace_of(&j.metadata),
                name_of(&j.metadata),
            );
            !(crate::admit::is_stored(&j.metadata) && with_pods.contains(&key))
        })
        .filter(|j| !left_to_kueue(s, j))
        .filter_map(|j| {
            let spec = j.spec.as_deref().filter(|sp| sp.suspend == Some(true))?;
            // pkg/controller/job: active pods = parallelism (default 1), capped by completions.
            let parallelism = spec.parallelism.unwrap_or(1).max(0);
            let active = spec
                .completions
                .map_or(parallelism, |c| parallelism.min(c.max(0)));
            // The gang the Job controller would create (WorkloadWithJob): `minCount` as
            // written, else parallelism (defaultMinCountForJob, at least 1).
            let min_count = spec
                .scheduling
                .as_ref()
                .and_then(|sc| serde_json::to_value(sc.scheduling_policy.as_ref()?).ok())
                .and_then(|policy| {
                    let gang = policy.get("gang")?;
                    Some(
                        gang.get("minCount")
                            .and_then(serde_json::Value::as_i64)
                            .unwrap_or(i64::from(parallelism.max(1))),
                    )
                })
                .map(|m| u32::try_from(m.max(0)).unwrap_or(u32::MAX));
            Some(Unit {
                kind: ObjKind::Job,
                namespace: crate::snapshot::namespace_of(&j.metadata).to_owned(),
                name: name_of(&j.metadata).to_owned(),
                priority: 0,
                created: j
                    .metadata
                    .creation_timestamp
                    .as_ref()
                    .map_or(0, |t| t.0.as_second()),
                body: UnitBody::Suspended {
                    pods: u32::try_from(active).unwrap_or(0),
                    min_count,
                },
            })
        })
        .collect();
    out.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    out
}

#[cfg(test)]
mod suspended_tests {
    use super::*;
    use crate::snapshot::source::{Collector, files::load_str};

    fn load(text: &str) -> Snapshot {
        let mut c = Collector::new();
        load_str(text, "test.yaml", &mut c).expect("test objects load");
        c.finish()
    }

    fn job(name: &str, stored: bool, labels: &str) -> String {
        let uid = if stored {
            format!(", uid: uid-{name}")
        } else {
            String::new()
        };
        format!(
            "---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: {name}, namespace: ml{uid}, labels: {{{labels}}}}}\nspec: {{suspend: true, parallelism: 3, completions: 2, template: {{spec: {{restartPolicy: Never, containers: [{{name: c, image: x}}]}}}}}}\n"
        )
    }

    const POD_OF_B: &str = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b-x, namespace: ml, uid: uid-b-x, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: b, uid: uid-b, controller: true}]}\nspec: {nodeName: n1, containers: [{name: c, image: x}]}\nstatus: {phase: Running}\n";
    const LOCAL_QUEUE: &str = "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: q, namespace: ml, uid: uid-q}\nspec: {clusterQueue: cq}\n";

    fn names(s: &Snapshot) -> Vec<(String, u32)> {
        suspended_jobs(s)
            .into_iter()
            .map(|u| match u.body {
                UnitBody::Suspended { pods, .. } => (u.name, pods),
                _ => (u.name, u32::MAX),
            })
            .collect()
    }

    /// pkg/controller/job `syncJob`: a suspended Job has no active pods; its would-be pods are
    /// `parallelism` capped by `completions` (3, 2 → 2). A stored Job whose pod still exists
    /// (being deleted after the suspension) is not a unit: its pods are what the snapshot holds.
    #[test]
    fn stored_suspended_jobs_without_pods_are_units_as_manifests_are() {
        let s = load(
            &[
                job("a", true, ""),
                job("b", true, ""),
                job("c", false, ""),
                POD_OF_B.to_owned(),
            ]
            .concat(),
        );
        assert_eq!(names(&s), [("a".to_owned(), 2), ("c".to_owned(), 2)]);
    }

    /// A Job queued in Kueue is left to Kueue (issue 49) only when Kueue's objects are in the
    /// input; without them it is reported as suspended.
    #[test]
    fn a_kueue_queued_job_is_left_to_kueue_only_with_kueue_objects() {
        let queued = job("k", true, "kueue.x-k8s.io/queue-name: q");
        let s = load(&[queued.clone(), job("a", true, "")].concat());
        assert_eq!(names(&s).len(), 2);
        let s = load(&[queued, job("a", true, ""), LOCAL_QUEUE.to_owned()].concat());
        assert_eq!(names(&s), [("a".to_owned(), 2)]);
    }
}
