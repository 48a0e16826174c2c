//! The `tree` report: Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with
//! status, built from the [`Graph`] and the [`Snapshot`].
//!
//! Pure: the caller passes the instant ages are measured from. One [`TreeReport`] feeds the
//! text view and `-o json|yaml` alike. It sits beside explain, above the graph and the
//! simulator (it reads both: the graph's edges and, for pending units, the plan).

use crate::snapshot::ObjKind;
use crate::snapshot::Pod;
use k8s_openapi::api::resource::v1::ResourceClaim;
use k8s_openapi::api::scheduling::v1beta1::{DisruptionMode, PodGroup};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use serde::Serialize;

use crate::graph::{EdgeKind, EdgeState, Graph};
use crate::sched::plan::Plan;
use crate::snapshot::ObjRef;
use crate::snapshot::{Snapshot, Warning, name_of, namespace_of, times};

mod kueue;
mod others;
pub(crate) mod queue;
pub(crate) mod watch;

/// The tree report (`kind: Tree`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TreeReport {
    /// The kube-scheduler feature gates the simulated outcomes used (WAS-relevant ones).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub feature_gates: std::collections::BTreeMap<String, bool>,
    /// What had to be assumed about the cluster (e.g. feature gates without facts); omitted when nothing was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumed: Vec<String>,
    /// Loader warnings (forbidden or missing APIs, unknown kinds); omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// Top-level objects, each with its subtree.
    pub roots: Vec<TreeNode>,
}

/// One object in the tree.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TreeNode {
    /// Kind, e.g. `PodGroup`.
    pub kind: ObjKind,
    /// Namespace (empty for cluster-scoped objects).
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Status as the object records it: pod phase, group state, claim state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The simulated outcome (`Scheduled`, `Unschedulable`, `Waiting`, `Preempting`,
    /// `Error`) of a pending Pod, PodGroup or CompositePodGroup, when it differs from the
    /// recorded status: the same answer `simulate` and `explain` give.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated: Option<String>,
    /// Scheduling policy: `gang 6/8` (scheduled/minCount), `basic`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// `all` or `single`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disruption_mode: Option<String>,
    /// Priority value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// Priority class name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    /// The node a pod is bound to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Allocated devices, `driver/pool/device`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<String>,
    /// Notable conditions, e.g. `PodGroupInitiallyScheduled`, `DisruptionTarget`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<String>,
    /// Age at the snapshot's time, kubectl style (`5d`, `3h12m`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age: Option<String>,
    /// The controlling owner, `Kind/name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Broken references from this object: what is missing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// Other facts worth a glance (claims not generated yet, shared claims, terminating).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A Kueue Workload's admission state (`Workload.kueue.x-k8s.io` rows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kueue: Option<kueue::KueueState>,
    /// The scheduler that places a gang's pods when it is not kube-scheduler (`volcano`,
    /// `yunikorn`): wasctl shows what it recorded and never simulates it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
    /// Children.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TreeNode>,
}

impl TreeNode {
    /// The reference to the node's object.
    pub(crate) fn obj_ref(&self) -> ObjRef {
        ObjRef::new(self.kind.clone(), &self.namespace, &self.name)
    }

    /// The row of `r`, with nothing known about it yet.
    pub(crate) fn of(r: &ObjRef) -> Self {
        Self {
            kind: r.kind.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            status: None,
            simulated: None,
            policy: None,
            disruption_mode: None,
            priority: None,
            priority_class_name: None,
            node: None,
            devices: Vec::new(),
            conditions: Vec::new(),
            age: None,
            owner: None,
            missing: Vec::new(),
            notes: Vec::new(),
            kueue: None,
            scheduler: None,
            children: Vec::new(),
        }
    }
}

/// Which objects to show.
#[derive(Debug, Clone, Default)]
pub(crate) struct TreeScope {
    /// Only this namespace (None: all).
    pub namespace: Option<String>,
    /// Only this object's chain (from its topmost ancestor down, pruned to its branch).
    pub target: Option<ObjRef>,
}

/// Builds the tree report. With a `plan`, pending objects also show their simulated outcome.
pub(crate) fn build(
    s: &Snapshot,
    g: &Graph,
    scope: &TreeScope,
    now: Timestamp,
    assumed: Vec<String>,
    plan: Option<&Plan>,
) -> TreeReport {
    let b = TreeBuilder {
        s,
        g,
        now,
        plan,
        path: std::cell::RefCell::new(Vec::new()),
        classes: crate::kueue::view::priority_classes(&s.kueue, &s.priority_classes),
    };
    let roots = match &scope.target {
        Some(target) => {
            let top = b.topmost(target);
            b.node(&top)
                .and_then(|n| prune(n, target))
                .into_iter()
                .collect()
        }
        None => b
            .roots(scope.namespace.as_deref())
            .iter()
            .filter_map(|r| b.node(r))
            .collect(),
    };
    TreeReport {
        feature_gates: plan
            .map(|p| p.settings.feature_gates.clone())
            .unwrap_or_default(),
        assumed,
        warnings: s.warnings.clone(),
        roots,
    }
}

fn prune(mut node: TreeNode, target: &ObjRef) -> Option<TreeNode> {
    if node.kind == target.kind && node.name == target.name && node.namespace == target.namespace {
        return Some(node);
    }
    node.children = std::mem::take(&mut node.children)
        .into_iter()
        .filter_map(|c| prune(c, target))
        .collect();
    (!node.children.is_empty()).then_some(node)
}

pub(super) struct TreeBuilder<'a> {
    s: &'a Snapshot,
    g: &'a Graph,
    now: Timestamp,
    plan: Option<&'a Plan>,
    /// The objects from the root down to the one being built: a reference back into this path
    /// is a cycle, shown as a note instead of followed.
    path: std::cell::RefCell<Vec<ObjRef>>,
    /// Kueue's priority classes, for a Kueue Workload's effective priority.
    classes: crate::kueue::workload::PriorityClasses,
}

/// How deep the tree goes before it stops following references (a chain this long is not a
/// real hierarchy; it also bounds the recursion).
const MAX_DEPTH: usize = 64;

/// Sort rank of a root's kind: the hierarchy's order.
fn kind_rank(kind: &ObjKind) -> u8 {
    match kind {
        ObjKind::Node => 0,
        // A Kueue Workload stands above its Job.
        ObjKind::KueueWorkload => 1,
        ObjKind::Job | ObjKind::VolcanoJob => 1,
        ObjKind::Workload => 2,
        ObjKind::CompositePodGroup => 3,
        ObjKind::PodGroup | ObjKind::VolcanoPodGroup | ObjKind::YunikornTaskGroup => 4,
        ObjKind::Pod => 5,
        _ => 6,
    }
}

pub(super) fn in_scope(meta: &ObjectMeta, namespace: Option<&str>) -> bool {
    namespace.is_none_or(|ns| namespace_of(meta) == ns)
}

impl TreeBuilder<'_> {
    fn resolved(&self, from: &ObjRef, kind: EdgeKind) -> Option<ObjRef> {
        self.g
            .outgoing(from, Some(kind))
            .find(|e| e.state == EdgeState::Resolved)
            .map(|e| e.to.clone())
    }

    /// Walks up SchedulingGroup / Parent / WorkloadRef / ReservedFor / ControllerRef edges.
    pub(super) fn topmost(&self, target: &ObjRef) -> ObjRef {
        let mut current = target.clone();
        for _ in 0..16 {
            let up = match current.kind {
                ObjKind::Pod => self
                    .resolved(&current, EdgeKind::SchedulingGroup)
                    .or_else(|| self.other_gang_of(&current)),
                ObjKind::VolcanoPodGroup => self.volcano_job_of(&current),
                ObjKind::PodGroup | ObjKind::CompositePodGroup => self
                    .resolved(&current, EdgeKind::Parent)
                    .or_else(|| self.resolved(&current, EdgeKind::WorkloadRef))
                    .or_else(|| self.owner_job(&current)),
                ObjKind::Workload => self
                    .resolved(&current, EdgeKind::ControllerRef)
                    .filter(|o| o.kind == ObjKind::Job),
                // The Kueue Workload Kueue made for the Job (or JobSet…): it owns none of
                // them, they own it; it is shown above them all the same.
                ObjKind::Job | ObjKind::Other(_) => self.kueue_above(&current),
                ObjKind::ResourceClaim => {
                    self.resolved(&current, EdgeKind::ReservedFor).or_else(|| {
                        self.g
                            .outgoing(&current, Some(EdgeKind::Owner))
                            .find(|e| {
                                e.state == EdgeState::Resolved
                                    && matches!(e.to.kind, ObjKind::Pod | ObjKind::PodGroup)
                            })
                            .map(|e| e.to.clone())
                    })
                }
                _ => None,
            };
            match up {
                Some(next) => current = next,
                None => break,
            }
        }
        current
    }

    fn owner_job(&self, from: &ObjRef) -> Option<ObjRef> {
        self.g
            .outgoing(from, Some(EdgeKind::Owner))
            .find(|e| e.state == EdgeState::Resolved && e.to.kind == ObjKind::Job)
            .map(|e| e.to.clone())
    }

    fn roots(&self, namespace: Option<&str>) -> Vec<ObjRef> {
        let s = self.s;
        let mut roots = Vec::new();
        for w in s
            .workloads
            .iter()
            .filter(|w| in_scope(&w.metadata, namespace))
        {
            roots.push(ObjRef::new(
                ObjKind::Workload,
                namespace_of(&w.metadata),
                name_of(&w.metadata),
            ));
        }
        let detached = |r: &ObjRef| {
            self.resolved(r, EdgeKind::Parent).is_none()
                && self.resolved(r, EdgeKind::WorkloadRef).is_none()
        };
        for c in s
            .composite_pod_groups
            .iter()
            .filter(|c| in_scope(&c.metadata, namespace))
        {
            let r = ObjRef::new(
                ObjKind::CompositePodGroup,
                namespace_of(&c.metadata),
                name_of(&c.metadata),
            );
            if detached(&r) {
                roots.push(r);
            }
        }
        for pg in s
            .pod_groups
            .iter()
            .filter(|p| in_scope(&p.metadata, namespace))
        {
            let r = ObjRef::new(
                ObjKind::PodGroup,
                namespace_of(&pg.metadata),
                name_of(&pg.metadata),
            );
            if detached(&r) {
                roots.push(r);
            }
        }
        // A parent cycle has no top: its smallest member stands for it.
        for cycle in self.g.parent_cycles() {
            if let Some(first) = cycle.first()
                && namespace.is_none_or(|ns| first.namespace == ns)
                && !roots.contains(first)
            {
                roots.push(first.clone());
            }
        }
        // Suspended Jobs (no pods until resumed) are units of the plan of their own: listed as
        // simulate lists them, unless a tree above already holds the Job.
        if let Some(plan) = self.plan {
            for u in plan.units.iter().filter(|u| u.kind == ObjKind::Job) {
                let r = ObjRef::new(ObjKind::Job, &u.namespace, &u.name);
                if namespace.is_none_or(|ns| u.namespace == ns)
                    && !roots.iter().any(|root| self.topmost(root) == r)
                {
                    roots.push(r);
                }
            }
        }
        for pod in s.pods.iter().filter(|p| in_scope(&p.metadata, namespace)) {
            let r = ObjRef::new(
                ObjKind::Pod,
                namespace_of(&pod.metadata),
                name_of(&pod.metadata),
            );
            let dangling = self
                .g
                .outgoing(&r, Some(EdgeKind::SchedulingGroup))
                .any(|e| matches!(e.state, EdgeState::Dangling { .. }));
            if dangling {
                roots.push(r);
            }
        }
        self.other_roots(namespace, &mut roots);
        self.kueue_roots(namespace, &mut roots);
        // kubectl order: by namespace, then kind (in the hierarchy's order) and name.
        roots.sort_by(|a, b| {
            (&a.namespace, kind_rank(&a.kind), &a.name).cmp(&(
                &b.namespace,
                kind_rank(&b.kind),
                &b.name,
            ))
        });
        roots
    }

    /// The simulated outcome of `r`, when a plan is given and it differs from `recorded`.
    fn simulated(&self, r: &ObjRef, recorded: Option<&str>) -> Option<String> {
        let outcome = self.plan?.outcome_of(self.s, r)?;
        let text = format!("{outcome:?}");
        (recorded != Some(text.as_str())).then_some(text)
    }

    /// A node and what runs there: its pods, grouped under their PodGroups, with their claims.
    fn node_object(&self, r: &ObjRef) -> Option<TreeNode> {
        let node = self.s.node(&r.name)?;
        let mut n = self.base(r, &node.metadata);
        let spec = node.spec.as_ref();
        n.status = Some(
            if spec.and_then(|s| s.unschedulable).unwrap_or(false) {
                "SchedulingDisabled"
            } else {
                "Ready"
            }
            .to_owned(),
        );
        let ready = crate::snapshot::node_ready(node);
        if ready == Some(false) {
            n.status = Some("NotReady".to_owned());
        }
        let mut groups: std::collections::BTreeMap<(String, String), Vec<&Pod>> =
            std::collections::BTreeMap::new();
        let mut single: Vec<&Pod> = Vec::new();
        for i in self
            .s
            .index
            .pods_by_node
            .get(&r.name)
            .map_or(&[][..], Vec::as_slice)
        {
            let pod = &self.s.pods[*i];
            let group = pod
                .spec
                .as_ref()
                .and_then(|s| s.scheduling_group.as_ref())
                .and_then(|g| g.pod_group_name.clone());
            match group {
                Some(g) => groups
                    .entry((namespace_of(&pod.metadata).to_owned(), g))
                    .or_default()
                    .push(pod),
                None => single.push(pod),
            }
        }
        for ((ns, g), pods) in groups {
            let gr = ObjRef::new(ObjKind::PodGroup, &ns, &g);
            let mut gn = match self.s.pod_group(&ns, &g) {
                Some(pg) => self.pod_group(&gr, pg),
                None => TreeNode::of(&gr),
            };
            // Only the members on this node (the group's claims stay).
            gn.children.retain(|c| c.kind != ObjKind::Pod);
            for pod in pods {
                let pr = ObjRef::new(ObjKind::Pod, &ns, name_of(&pod.metadata));
                gn.children.push(self.pod(&pr, pod));
            }
            n.children.push(gn);
        }
        single.sort_by(|a, b| {
            (namespace_of(&a.metadata), name_of(&a.metadata))
                .cmp(&(namespace_of(&b.metadata), name_of(&b.metadata)))
        });
        for pod in single {
            let pr = ObjRef::new(
                ObjKind::Pod,
                namespace_of(&pod.metadata),
                name_of(&pod.metadata),
            );
            n.children.push(self.pod(&pr, pod));
        }
        Some(n)
    }

    /// The node of `r` with its subtree; a reference back to an object already on the path
    /// from the root (a parent cycle) ends the branch with a note.
    pub(super) fn node(&self, r: &ObjRef) -> Option<TreeNode> {
        let (cycle, depth) = {
            let path = self.path.borrow();
            let cycle = path.iter().position(|p| p == r).map(|at| {
                path[at..]
                    .iter()
                    .chain(std::iter::once(r))
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" → ")
            });
            (cycle, path.len())
        };
        if let Some(chain) = cycle {
            let mut n = self.leaf(r)?;
            n.notes.push(format!("reference cycle: {chain}"));
            return Some(n);
        }
        if depth >= MAX_DEPTH {
            let mut n = self.leaf(r)?;
            n.notes.push(format!(
                "deeper than {MAX_DEPTH} levels: not followed further"
            ));
            return Some(n);
        }
        self.path.borrow_mut().push(r.clone());
        let n = self.subtree(r);
        self.path.borrow_mut().pop();
        n
    }

    /// `r` alone, without children (where the tree stops following references).
    fn leaf(&self, r: &ObjRef) -> Option<TreeNode> {
        let ns = r.namespace.as_str();
        let meta = match r.kind {
            ObjKind::CompositePodGroup => &self.s.composite_pod_group(ns, &r.name)?.metadata,
            ObjKind::PodGroup => &self.s.pod_group(ns, &r.name)?.metadata,
            ObjKind::Workload => &self.s.workload(ns, &r.name)?.metadata,
            ObjKind::Job => &self.s.job(ns, &r.name)?.metadata,
            ObjKind::KueueWorkload => self.s.kueue.meta_of(&ObjKind::KueueWorkload, ns, &r.name)?,
            _ => return self.subtree(r),
        };
        Some(self.base(r, meta))
    }

    fn subtree(&self, r: &ObjRef) -> Option<TreeNode> {
        let ns = r.namespace.as_str();
        match r.kind {
            ObjKind::Workload => self.s.workload(ns, &r.name).map(|w| {
                let mut n = self.base(r, &w.metadata);
                n.children = self.group_children(r, EdgeKind::WorkloadRef, true);
                n
            }),
            ObjKind::CompositePodGroup => self.s.composite_pod_group(ns, &r.name).map(|c| {
                let mut n = self.base(r, &c.metadata);
                let spec = Some(&c.spec);
                n.children = self.group_children(r, EdgeKind::Parent, false);
                let min = spec
                    .and_then(|s| s.scheduling_policy.gang.as_ref())
                    .map(|g| g.min_group_count);
                let ready = n.children.iter().filter(|c| is_satisfied(c)).count();
                n.policy = Some(match min {
                    Some(min) => format!("gang {ready}/{min}"),
                    None => "basic".to_owned(),
                });
                n.disruption_mode = spec
                    .and_then(|s| s.disruption_mode.as_ref())
                    .map(|d| if d.all.is_some() { "all" } else { "single" }.to_owned());
                n.priority = spec.and_then(|s| s.priority);
                n.priority_class_name = spec.and_then(|s| s.priority_class_name.clone());
                n.conditions = conditions(c.status.as_ref().and_then(|s| s.conditions.as_deref()));
                n.simulated = self.simulated(r, None);
                n
            }),
            ObjKind::PodGroup => self
                .s
                .pod_group(ns, &r.name)
                .map(|pg| self.pod_group(r, pg)),
            ObjKind::Pod => self.s.pod(ns, &r.name).map(|p| self.pod(r, p)),
            ObjKind::Node => self.node_object(r),
            ObjKind::KueueWorkload => self.kueue_workload(r),
            ObjKind::VolcanoPodGroup => self.volcano_group(r),
            ObjKind::VolcanoJob => self.volcano_job(r),
            ObjKind::YunikornTaskGroup => self.task_group(r),
            ObjKind::ResourceClaim => self.s.resource_claim(ns, &r.name).map(|c| self.claim(r, c)),
            ObjKind::Job => self.s.job(ns, &r.name).map(|j| {
                let mut n = self.base(r, &j.metadata);
                let mut children: Vec<ObjRef> = self
                    .g
                    .incoming(r, Some(EdgeKind::ControllerRef))
                    .filter(|e| e.state == EdgeState::Resolved)
                    .map(|e| e.from.clone())
                    .collect();
                for e in self.g.incoming(r, Some(EdgeKind::Owner)) {
                    let standalone = e.from.kind == ObjKind::PodGroup
                        && self.resolved(&e.from, EdgeKind::WorkloadRef).is_none();
                    if standalone
                        || (e.from.kind == ObjKind::Workload && !children.contains(&e.from))
                    {
                        children.push(e.from.clone());
                    }
                }
                n.children = children.iter().filter_map(|c| self.node(c)).collect();
                n.status = j.status.as_ref().map(|s| {
                    format!(
                        "{} active, {} succeeded",
                        s.active.unwrap_or(0),
                        s.succeeded.unwrap_or(0)
                    )
                });
                // A suspended Job is a unit of its own (`Suspended`).
                n.simulated = self.simulated(r, None);
                n
            }),
            _ => None,
        }
    }

    /// Common fields: age, owner, broken references, terminating.
    pub(super) fn base(&self, r: &ObjRef, meta: &ObjectMeta) -> TreeNode {
        let mut n = TreeNode {
            age: meta
                .creation_timestamp
                .as_ref()
                .map(|t| times::age(t, self.now)),
            ..TreeNode::of(r)
        };
        n.owner = meta
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| format!("{}/{}", o.kind, o.name));
        for e in self.g.outgoing(r, None) {
            match &e.state {
                EdgeState::Dangling { missing } => n.missing.push(missing_text(e.kind, missing)),
                EdgeState::Pending { note } => n.notes.push(note.clone()),
                // Said once for the whole snapshot (the IncompleteInput warning), not per row.
                EdgeState::Resolved | EdgeState::Unchecked | EdgeState::Unknown { .. } => {}
            }
        }
        if meta.deletion_timestamp.is_some() {
            n.notes.push(format!(
                "terminating{}",
                meta.finalizers
                    .as_ref()
                    .filter(|f| !f.is_empty())
                    .map(|f| format!(" (finalizers: {})", f.join(", ")))
                    .unwrap_or_default()
            ));
        }
        n
    }

    /// CompositePodGroups then PodGroups pointing at `r` by `kind`; for a Workload only those
    /// without a resolved parent (they appear under their parent instead).
    fn group_children(&self, r: &ObjRef, kind: EdgeKind, top_level_only: bool) -> Vec<TreeNode> {
        let mut refs: Vec<ObjRef> = self
            .g
            .incoming(r, Some(kind))
            .filter(|e| e.state == EdgeState::Resolved || kind == EdgeKind::WorkloadRef)
            .map(|e| e.from.clone())
            .filter(|from| !top_level_only || self.resolved(from, EdgeKind::Parent).is_none())
            .collect();
        refs.sort_by(|a, b| {
            (a.kind != ObjKind::CompositePodGroup, &a.name)
                .cmp(&(b.kind != ObjKind::CompositePodGroup, &b.name))
        });
        refs.dedup();
        refs.iter().filter_map(|c| self.node(c)).collect()
    }

    fn pod_group(&self, r: &ObjRef, pg: &PodGroup) -> TreeNode {
        let mut n = self.base(r, &pg.metadata);
        let spec = Some(&pg.spec);
        let pods = self.s.index.pods_by_group.get(&r.namespace, &r.name);
        let scheduled = pods
            .iter()
            .filter(|i| is_scheduled(&self.s.pods[**i]))
            .count();
        n.policy = Some(match spec.and_then(|s| s.scheduling_policy.gang.as_ref()) {
            Some(g) => format!("gang {scheduled}/{}", g.min_count),
            None => "basic".to_owned(),
        });
        n.disruption_mode = Some(disruption(spec.and_then(|s| s.disruption_mode.as_ref())));
        n.priority = spec.and_then(|s| s.priority);
        n.priority_class_name = spec.and_then(|s| s.priority_class_name.clone());
        let conds = pg.status.as_ref().and_then(|s| s.conditions.as_deref());
        n.conditions = conditions(conds);
        n.status = Some(group_status(conds, scheduled, pods.len()));
        n.simulated = self.simulated(r, n.status.as_deref());
        // Group claims first, then member pods by name.
        for e in self.g.outgoing(r, Some(EdgeKind::GroupClaim)) {
            if e.state == EdgeState::Resolved
                && let Some(mut c) = self.node(&e.to)
            {
                if let Some(label) = &e.label {
                    c.notes.insert(0, format!("group claim `{label}`"));
                }
                n.children.push(c);
            }
        }
        let mut members: Vec<&Pod> = pods.iter().map(|i| &*self.s.pods[*i]).collect();
        members.sort_by(|a, b| name_of(&a.metadata).cmp(name_of(&b.metadata)));
        for pod in members {
            let pr = ObjRef::new(ObjKind::Pod, &r.namespace, name_of(&pod.metadata));
            n.children.push(self.pod(&pr, pod));
        }
        n
    }

    fn pod(&self, r: &ObjRef, pod: &Pod) -> TreeNode {
        let mut n = self.base(r, &pod.metadata);
        let spec = pod.spec.as_ref();
        n.node = spec.and_then(|s| s.node_name.clone());
        n.priority = spec.and_then(|s| s.priority);
        n.priority_class_name = spec.and_then(|s| s.priority_class_name.clone());
        let status = pod.status.as_ref();
        n.status = status.and_then(|s| s.phase.clone());
        if n.node.is_none() {
            n.simulated = self.simulated(r, n.status.as_deref());
        }
        for c in status
            .and_then(|s| s.conditions.as_ref())
            .into_iter()
            .flatten()
        {
            if c.type_ == "DisruptionTarget" && c.status == "True" {
                n.conditions.push("DisruptionTarget".to_owned());
            }
            if c.type_ == "PodScheduled" && c.status == "False" {
                n.conditions.push(format!(
                    "PodScheduled=False({})",
                    c.reason.as_deref().unwrap_or("")
                ));
            }
        }
        if spec
            .and_then(|s| s.scheduling_gates.as_ref())
            .is_some_and(|g| !g.is_empty())
        {
            n.notes.push("has schedulingGates".to_owned());
        }
        let group = spec
            .and_then(|s| s.scheduling_group.as_ref())
            .and_then(|g| g.pod_group_name.as_deref());
        // An entry with the PodGroup's entry name but another source takes the per-pod path
        // (semantics §1.6: name, resourceClaimName and resourceClaimTemplateName must all match).
        if let Some(pg) = group.and_then(|g| self.s.pod_group(&r.namespace, g)) {
            for entry in spec
                .and_then(|s| s.resource_claims.as_ref())
                .into_iter()
                .flatten()
            {
                let (claim, template) = (
                    entry.resource_claim_name.as_deref(),
                    entry.resource_claim_template_name.as_deref(),
                );
                let shared =
                    crate::snapshot::claims::is_group_claim_entry(pg, &entry.name, claim, template);
                let theirs = pg
                    .spec
                    .resource_claims
                    .iter()
                    .flatten()
                    .find(|e| e.name == entry.name);
                if let (false, Some(theirs)) = (shared, theirs) {
                    n.notes.push(format!(
                        "claim entry `{}` differs from the PodGroup's ({} vs {}): not the shared claim",
                        entry.name,
                        claim_source(claim, template),
                        claim_source(
                            theirs.resource_claim_name.as_deref(),
                            theirs.resource_claim_template_name.as_deref()
                        ),
                    ));
                }
            }
        }
        let group_claims: Vec<String> = group
            .map(|g| ObjRef::new(ObjKind::PodGroup, &r.namespace, g))
            .map(|g| {
                self.g
                    .outgoing(&g, Some(EdgeKind::GroupClaim))
                    .map(|e| e.to.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        for e in self.g.outgoing(r, Some(EdgeKind::PodClaim)) {
            if e.state != EdgeState::Resolved {
                continue;
            }
            if group_claims.contains(&e.to.name) {
                n.notes.push(format!(
                    "claim `{}`: the PodGroup's claim `{}`",
                    e.label.as_deref().unwrap_or(""),
                    e.to.name
                ));
            } else if let Some(c) = self.node(&e.to) {
                n.children.push(c);
            }
        }
        n
    }

    fn claim(&self, r: &ObjRef, claim: &ResourceClaim) -> TreeNode {
        let mut n = self.base(r, &claim.metadata);
        let status = claim.status.as_ref();
        let allocation = status.and_then(|s| s.allocation.as_ref());
        n.devices = allocation
            .and_then(|a| a.devices.as_ref())
            .map(|d| {
                d.results
                    .iter()
                    .flatten()
                    .map(|r| format!("{}/{}/{}", r.driver, r.pool, r.device))
                    .collect()
            })
            .unwrap_or_default();
        let reserved = status
            .and_then(|s| s.reserved_for.as_ref())
            .map_or(0, Vec::len);
        n.status = Some(match (allocation.is_some(), reserved) {
            (true, 0) => "Allocated".to_owned(),
            (true, n) => format!("Allocated, reserved {n}"),
            (false, _) => "Pending".to_owned(),
        });
        n
    }
}

fn claim_source(claim: Option<&str>, template: Option<&str>) -> String {
    match (claim, template) {
        (Some(c), _) => format!("claim `{c}`"),
        (None, Some(t)) => format!("template `{t}`"),
        (None, None) => "no source".to_owned(),
    }
}

fn missing_text(kind: EdgeKind, missing: &str) -> String {
    let what = match kind {
        EdgeKind::WorkloadRef => "workloadRef",
        EdgeKind::Parent => "parent",
        EdgeKind::SchedulingGroup => "schedulingGroup",
        EdgeKind::PodClaim | EdgeKind::GroupClaim => "claim",
        EdgeKind::ClaimTemplate => "claim template",
        EdgeKind::Owner => "owner",
        EdgeKind::ControllerRef => "controllerRef",
        EdgeKind::ReservedFor => "reservedFor",
        EdgeKind::VolcanoGroup => "group-name",
        EdgeKind::VolcanoQueue => "queue",
        EdgeKind::TaskGroup => "task group",
    };
    format!("{what}: {missing}")
}

fn disruption(mode: Option<&DisruptionMode>) -> String {
    // Upstream defaults an absent disruptionMode to `single`.
    if mode.is_some_and(|d| d.all.is_some()) {
        "all"
    } else {
        "single"
    }
    .to_owned()
}

pub(super) fn is_scheduled(pod: &Pod) -> bool {
    let bound = pod.spec.as_ref().is_some_and(|s| s.node_name.is_some());
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    bound
        && !matches!(phase, Some("Succeeded" | "Failed"))
        && pod.metadata.deletion_timestamp.is_none()
}

fn is_satisfied(n: &TreeNode) -> bool {
    let Some(policy) = n.policy.as_deref() else {
        return false;
    };
    if let Some(rest) = policy.strip_prefix("gang ") {
        let mut parts = rest.split('/').map(|p| p.parse::<u64>().unwrap_or(0));
        let (have, need) = (parts.next().unwrap_or(0), parts.next().unwrap_or(u64::MAX));
        have >= need
    } else {
        n.children
            .iter()
            .any(|c| c.kind == ObjKind::Pod && c.node.is_some())
            || n.children.iter().any(is_satisfied)
    }
}

fn conditions(conds: Option<&[Condition]>) -> Vec<String> {
    let mut out = Vec::new();
    for c in conds.into_iter().flatten() {
        match (c.type_.as_str(), c.status.as_str()) {
            (
                t @ ("PodGroupInitiallyScheduled"
                | "CompositePodGroupInitiallyScheduled"
                | "DisruptionTarget"),
                "True",
            ) => {
                out.push(t.to_owned());
            }
            (
                t @ ("PodGroupInitiallyScheduled" | "CompositePodGroupInitiallyScheduled"),
                "False",
            ) => {
                out.push(format!("{t}=False({})", c.reason));
            }
            _ => {}
        }
    }
    out
}

fn group_status(conds: Option<&[Condition]>, scheduled: usize, total: usize) -> String {
    let initially = conds
        .into_iter()
        .flatten()
        .find(|c| c.type_ == "PodGroupInitiallyScheduled")
        .map(|c| (c.status.as_str(), c.reason.as_str()));
    match initially {
        Some(("True", _)) => "Scheduled".to_owned(),
        Some(("False", reason)) if !reason.is_empty() => reason.to_owned(),
        _ if total == 0 => "NoPods".to_owned(),
        _ if scheduled == 0 => "Pending".to_owned(),
        _ => format!("{scheduled}/{total} bound"),
    }
}
