//! The reference graph: Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim, plus
//! owners (Job, JobSet, …) from ownerReferences and `Workload.spec.controllerRef`, and the
//! gangs of other schedulers: Volcano PodGroups (→ their Queue) and YuniKorn task groups,
//! each with the pods that name them.
//!
//! Input: a [`Snapshot`]. Output: a [`Graph`] of typed edges, each [`EdgeState::Resolved`],
//! [`EdgeState::Dangling`] (the target is missing: doctor and tree show the break),
//! [`EdgeState::Pending`] (not created yet, which is normal for a pending pod),
//! [`EdgeState::Unchecked`] (an owner of a kind wasctl does not load) or
//! [`EdgeState::Unknown`] (not found, but its kind was not read completely: missing from the
//! input files, forbidden or failed; never reported as dangling). Pure; no IO.

mod build;

use std::collections::HashMap;

use serde::Serialize;

use crate::snapshot::ObjRef;
use crate::snapshot::Snapshot;

/// What an edge means. The source is the object that holds the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum EdgeKind {
    /// PodGroup/CompositePodGroup `spec.workloadRef` → Workload (and its template).
    WorkloadRef,
    /// PodGroup/CompositePodGroup `spec.parentCompositePodGroupName` → CompositePodGroup.
    Parent,
    /// Pod `spec.schedulingGroup.podGroupName` → PodGroup.
    SchedulingGroup,
    /// Pod `spec.resourceClaims[]` → ResourceClaim (direct, generated, or the group's claim).
    PodClaim,
    /// PodGroup `spec.resourceClaims[]` → ResourceClaim (direct, or generated from a template).
    GroupClaim,
    /// A claim entry's `resourceClaimTemplateName` → ResourceClaimTemplate.
    ClaimTemplate,
    /// `metadata.ownerReferences[]` → owner.
    Owner,
    /// Workload `spec.controllerRef` → the controller object.
    ControllerRef,
    /// ResourceClaim `status.reservedFor[]` → consumer (Pod or PodGroup).
    ReservedFor,
    /// Pod annotation `scheduling.k8s.io/group-name` (or `scheduling.volcano.sh/group-name`)
    /// → Volcano PodGroup.
    VolcanoGroup,
    /// Volcano PodGroup `spec.queue` → Volcano Queue.
    VolcanoQueue,
    /// Pod annotation `yunikorn.apache.org/task-group-name` (with its application ID) →
    /// YuniKorn task group; labelled `placeholder` for YuniKorn's placeholder pods.
    TaskGroup,
}

/// Whether an edge's target exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum EdgeState {
    /// The target exists.
    Resolved,
    /// The target is missing; `missing` says what, for humans.
    Dangling {
        /// What is missing, e.g. "PodGroup `lost-group`".
        missing: String,
    },
    /// The target does not exist yet, which is expected at this stage.
    Pending {
        /// Why, e.g. "claim not generated yet".
        note: String,
    },
    /// The target is of a kind wasctl does not load.
    Unchecked,
    /// The target was not found, but its kind was not read completely (not in the input
    /// files, forbidden, a failed list): whether it exists is unknown.
    Unknown {
        /// Why, e.g. "ResourceClaimTemplate objects not in the input".
        reason: String,
    },
}

/// One reference from `from` to `to`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Edge {
    /// The object holding the reference.
    pub from: ObjRef,
    /// The object referred to.
    pub to: ObjRef,
    /// What the reference means.
    pub kind: EdgeKind,
    /// For claim edges: the entry name in `spec.resourceClaims`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Whether the target exists.
    #[serde(flatten)]
    pub state: EdgeState,
}

/// All references of a snapshot, with adjacency in both directions.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// Edges in snapshot order.
    pub edges: Vec<Edge>,
    outgoing: HashMap<ObjRef, Vec<usize>>,
    incoming: HashMap<ObjRef, Vec<usize>>,
}

impl Graph {
    /// Builds the graph of `snapshot` on a second thread while `work` runs on this one, for
    /// the commands that need both the graph and a simulation (independent reads of the
    /// snapshot; at 150,000 pods the graph takes a quarter of a second).
    pub(crate) fn build_beside<T>(snapshot: &Snapshot, work: impl FnOnce() -> T) -> (Self, T) {
        std::thread::scope(|scope| {
            let graph = scope.spawn(|| Self::build(snapshot));
            let out = work();
            let graph = graph
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (graph, out)
        })
    }

    /// Builds the graph of a snapshot.
    pub fn build(snapshot: &Snapshot) -> Self {
        let edges = build::edges(snapshot);
        let mut graph = Self {
            edges,
            ..Self::default()
        };
        for (i, e) in graph.edges.iter().enumerate() {
            graph.outgoing.entry(e.from.clone()).or_default().push(i);
            graph.incoming.entry(e.to.clone()).or_default().push(i);
        }
        graph
    }

    /// Edges leaving `from`, optionally of one kind, in snapshot order.
    pub(crate) fn outgoing<'a>(
        &'a self,
        from: &ObjRef,
        kind: Option<EdgeKind>,
    ) -> impl Iterator<Item = &'a Edge> + 'a {
        let ids = self.outgoing.get(from).map_or(&[][..], Vec::as_slice);
        ids.iter()
            .map(|i| &self.edges[*i])
            .filter(move |e| kind.is_none_or(|k| e.kind == k))
    }

    /// Edges arriving at `to`, optionally of one kind, in snapshot order.
    pub(crate) fn incoming<'a>(
        &'a self,
        to: &ObjRef,
        kind: Option<EdgeKind>,
    ) -> impl Iterator<Item = &'a Edge> + 'a {
        let ids = self.incoming.get(to).map_or(&[][..], Vec::as_slice);
        ids.iter()
            .map(|i| &self.edges[*i])
            .filter(move |e| kind.is_none_or(|k| e.kind == k))
    }

    /// Every dangling edge, in snapshot order.
    pub(crate) fn dangling(&self) -> impl Iterator<Item = &Edge> {
        self.edges
            .iter()
            .filter(|e| matches!(e.state, EdgeState::Dangling { .. }))
    }

    /// The group reached by following `from`'s resolved parent reference, if any.
    pub(crate) fn parent_of(&self, from: &ObjRef) -> Option<&ObjRef> {
        self.outgoing(from, Some(EdgeKind::Parent))
            .find(|e| e.state == EdgeState::Resolved)
            .map(|e| &e.to)
    }

    /// Every cycle of `parentCompositePodGroupName` references (a group that is its own parent,
    /// or `a → b → a`), each once, as the chain of groups in parent order starting from its
    /// smallest member. The one memoised walk of every hierarchy
    /// ([`crate::snapshot::hierarchy::Resolution`], lint's and the simulator's too) finds them:
    /// linear in the groups, however long their chains.
    pub(crate) fn parent_cycles(&self) -> Vec<Vec<ObjRef>> {
        use crate::snapshot::hierarchy::{Resolution, Up};
        let walk = Resolution::of(
            self.edges
                .iter()
                .filter(|e| e.kind == EdgeKind::Parent)
                .map(|e| &e.from),
            |r: &&ObjRef| match self.parent_of(r) {
                Some(p) => Up::Parent(p),
                None => Up::Root,
            },
        );
        let mut cycles: Vec<Vec<ObjRef>> = walk
            .cycles()
            .iter()
            .map(|c| {
                let mut cycle: Vec<ObjRef> = c.iter().map(|r| (*r).clone()).collect();
                if let Some(min) = cycle.iter().enumerate().min_by(|a, b| a.1.cmp(b.1)) {
                    let start = min.0;
                    cycle.rotate_left(start);
                }
                cycle
            })
            .collect();
        cycles.sort();
        cycles
    }
}
