//! The CompositePodGroup hierarchy above a PodGroup, walked once, with its structural limits.
//!
//! kube-scheduler 1.37 refuses to schedule a hierarchy that is structurally broken: deeper than
//! [`MAX_HIERARCHY_DEPTH`] levels (the leaf PodGroup counts as one level:
//! `hierarchy_validation_test.go`, "hierarchy depth 5 exceeds maximum allowed depth 4"; the
//! same limit as the Workload templates' `WorkloadMaxTreeDepth`), or with a cycle of parents.
//! Such a tree gets reason `Invalid` (semantics §4.2). A parent that does not exist (yet) is not
//! structural: the pods wait for it.
//!
//! The simulator, explain, lint and doctor all read this one walk.

use std::collections::HashMap;
use std::hash::Hash;

use super::Snapshot;

/// Most levels a hierarchy may have, counting the leaf PodGroup (`WorkloadMaxTreeDepth`).
pub(crate) const MAX_HIERARCHY_DEPTH: usize = 4;

/// How far [`walk_up`] follows parents before it stops counting: far enough to name a real
/// depth, bounded so that a 20,000-long chain costs the same per PodGroup as a short one.
const WALK_LIMIT: usize = 64;

/// Why the hierarchy above a PodGroup cannot be scheduled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Broken {
    /// A parent CompositePodGroup is not in the snapshot: the pods wait for it.
    MissingParent {
        /// The missing CompositePodGroup.
        parent: String,
    },
    /// The parents loop: the names from the PodGroup's parent to the first repeated one.
    Cycle {
        /// CompositePodGroup names in walk order; the last equals an earlier one.
        path: Vec<String>,
    },
    /// More levels than [`MAX_HIERARCHY_DEPTH`].
    TooDeep {
        /// Levels counted, the leaf included (at least [`MAX_HIERARCHY_DEPTH`] + 1).
        depth: usize,
        /// Whether the walk stopped counting (the chain is longer still).
        at_least: bool,
    },
}

impl Broken {
    /// Whether the tree is structurally invalid (an error), not merely incomplete.
    pub(crate) fn is_invalid(&self) -> bool {
        !matches!(self, Self::MissingParent { .. })
    }

    /// The message, in upstream's words where upstream has them.
    pub(crate) fn message(&self, namespace: &str, pod_group: &str) -> String {
        match self {
            Self::MissingParent { parent } => format!(
                "failed to build hierarchy snapshot: composite pod group object not found in state for compositepodgroup/{namespace}/{parent}"
            ),
            Self::Cycle { path } => format!(
                "invalid hierarchy above podgroup/{namespace}/{pod_group}: the parents form a cycle ({})",
                path.join(" → ")
            ),
            Self::TooDeep { depth, at_least } => format!(
                "invalid hierarchy above podgroup/{namespace}/{pod_group}: hierarchy depth {}{depth} exceeds maximum allowed depth {MAX_HIERARCHY_DEPTH}",
                if *at_least { "over " } else { "" }
            ),
        }
    }
}

/// Follows `parentCompositePodGroupName` up from PodGroup `pod_group`: the root
/// CompositePodGroup's name (`None` when the PodGroup has no parent and is its own root), or
/// why the hierarchy is broken. Reads the snapshot's [`Resolution`] (built once with the index,
/// linear in the CompositePodGroups), so it costs the same for a 20,000-long chain as for a
/// short one; it answers as a walk of at most 64 parents would: a cycle or a missing parent
/// further up than that is a chain too deep to count.
pub(crate) fn walk_up(
    s: &Snapshot,
    namespace: &str,
    pod_group: &str,
) -> Result<Option<String>, Broken> {
    let Some(first) = s
        .pod_group(namespace, pod_group)
        .and_then(|p| p.spec.parent_composite_pod_group_name.as_deref())
    else {
        return Ok(None);
    };
    let Some(j) = s.index.composite_pod_groups.get(namespace, first) else {
        return Err(Broken::MissingParent {
            parent: first.to_owned(),
        });
    };
    let built;
    let resolution = if s.index.hierarchy.get(&j).is_some() {
        &s.index.hierarchy
    } else {
        // A snapshot whose index was built by hand, without the hierarchy.
        built = resolve_snapshot(s, |ns, n| s.index.composite_pod_groups.get(ns, n));
        &built
    };
    let name = |i: usize| {
        s.composite_pod_groups
            .get(i)
            .map(|c| super::name_of(&c.metadata).to_owned())
            .unwrap_or_default()
    };
    let too_long = Broken::TooDeep {
        depth: WALK_LIMIT + 1,
        at_least: true,
    };
    let Some(placed) = resolution.get(&j) else {
        // Not reached: every CompositePodGroup of the snapshot is placed.
        return Err(too_long);
    };
    // `nodes`: the CompositePodGroups a walk up from the PodGroup's parent visits before it
    // stops; the walk gives up at the 65th.
    match placed.end {
        End::Root(root) => {
            let nodes = placed.links + 1;
            if nodes > WALK_LIMIT {
                return Err(too_long);
            }
            let depth = nodes + 1;
            if depth > MAX_HIERARCHY_DEPTH {
                return Err(Broken::TooDeep {
                    depth,
                    at_least: false,
                });
            }
            Ok(Some(name(*root)))
        }
        End::Missing(top) => {
            // The walk would look the missing parent up after `nodes` groups.
            if placed.links + 1 >= WALK_LIMIT {
                return Err(too_long);
            }
            let parent = s
                .composite_pod_groups
                .get(*top)
                .and_then(|c| c.spec.parent_composite_pod_group_name.clone())
                .unwrap_or_default();
            Err(Broken::MissingParent { parent })
        }
        End::Cycle(c) => {
            let cycle_len = resolution.cycles().get(*c).map_or(0, Vec::len);
            let nodes = placed.links + cycle_len;
            if nodes > WALK_LIMIT {
                return Err(too_long);
            }
            let mut path = Vec::with_capacity(nodes + 1);
            let mut at = Some(j);
            for _ in 0..nodes {
                let Some(i) = at else { break };
                path.push(name(i));
                at = parent_index(s, i);
            }
            if let Some(entry) = path.get(placed.links).cloned() {
                path.push(entry);
            }
            Err(Broken::Cycle { path })
        }
    }
}

/// The position of CompositePodGroup `i`'s parent.
fn parent_index(s: &Snapshot, i: usize) -> Option<usize> {
    let c = s.composite_pod_groups.get(i)?;
    let p = c.spec.parent_composite_pod_group_name.as_deref()?;
    s.index
        .composite_pod_groups
        .get(super::namespace_of(&c.metadata), p)
}

/// A rule of the whole tree below a root CompositePodGroup broken. Upstream validates the
/// whole hierarchy in the pod-group scheduling cycle and reports the error on every group of it
/// (`hierarchy_validation_test.go`, "… fails validation in scheduling cycle": the groups get an
/// error condition, the pods a scheduling error): an outcome `Error`, nothing placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TreeError {
    /// A CompositePodGroup at level [`MAX_HIERARCHY_DEPTH`] or deeper: no room is left for the
    /// level below it ("CompositePodGroup at depth 4 (exceeding max composite depth 3)").
    CompositeTooDeep {
        /// The CompositePodGroup.
        group: String,
        /// Its level, the root at 1.
        depth: usize,
    },
    /// A group of the tree references another Workload than the root ("Pod group hierarchy
    /// referencing multiple distinct Workloads fails validation in scheduling cycle").
    MixedWorkloads {
        /// Whether the group is a CompositePodGroup (else a PodGroup).
        composite: bool,
        /// The group's name.
        group: String,
        /// The Workload the group references.
        workload: String,
        /// The Workload the root references.
        root_workload: String,
    },
}

impl TreeError {
    /// The message, naming the root CompositePodGroup `root` in `namespace`.
    pub(crate) fn message(&self, namespace: &str, root: &str) -> String {
        let head = format!("invalid hierarchy under compositepodgroup/{namespace}/{root}");
        match self {
            Self::CompositeTooDeep { group, depth } => format!(
                "{head}: compositepodgroup/{namespace}/{group} at depth {depth} exceeds maximum allowed depth {} for a CompositePodGroup (its children would exceed maximum allowed depth {MAX_HIERARCHY_DEPTH})",
                MAX_HIERARCHY_DEPTH - 1
            ),
            Self::MixedWorkloads {
                composite,
                group,
                workload,
                root_workload,
            } => format!(
                "{head}: {}/{namespace}/{group} references Workload {workload}, but the hierarchy belongs to Workload {root_workload} (all groups of a hierarchy must reference one Workload)",
                if *composite {
                    "compositepodgroup"
                } else {
                    "podgroup"
                }
            ),
        }
    }

    /// The group that breaks the rule: (kind, name).
    pub(crate) fn offender(&self) -> (super::ObjKind, &str) {
        match self {
            Self::CompositeTooDeep { group, .. } => (super::ObjKind::CompositePodGroup, group),
            Self::MixedWorkloads {
                composite, group, ..
            } => (
                if *composite {
                    super::ObjKind::CompositePodGroup
                } else {
                    super::ObjKind::PodGroup
                },
                group,
            ),
        }
    }

    /// What to change, for doctor and lint.
    pub(crate) fn fix(&self) -> String {
        match self {
            Self::CompositeTooDeep { .. } => format!(
                "flatten the hierarchy to at most {MAX_HIERARCHY_DEPTH} levels, the PodGroups included (CompositePodGroups at most {})",
                MAX_HIERARCHY_DEPTH - 1
            ),
            Self::MixedWorkloads { root_workload, .. } => format!(
                "point every group of the tree at Workload {root_workload} (`spec.workloadRef.workloadName`), or split the tree"
            ),
        }
    }
}

/// Checks the whole tree under root CompositePodGroup `root` (one without a parent), walking
/// down from it: the first broken rule in breadth-first order, children by name. Groups on a
/// parent cycle are not reachable from a root; the walk stops at `WALK_LIMIT` levels.
pub(crate) fn check_tree(s: &Snapshot, namespace: &str, root: &str) -> Result<(), TreeError> {
    let Some(top) = s.composite_pod_group(namespace, root) else {
        return Ok(());
    };
    let root_workload = top.spec.workload_ref.workload_name.as_str();
    let mut level = vec![root.to_owned()];
    let mut depth = 1;
    while !level.is_empty() && depth <= WALK_LIMIT {
        let mut next = Vec::new();
        for name in &level {
            if depth >= MAX_HIERARCHY_DEPTH {
                return Err(TreeError::CompositeTooDeep {
                    group: name.clone(),
                    depth,
                });
            }
            let mut pgs: Vec<&str> = s
                .index
                .pod_groups_by_parent
                .get(namespace, name)
                .iter()
                .filter_map(|i| s.pod_groups.get(*i))
                .filter_map(|pg| {
                    let w = pg
                        .spec
                        .workload_ref
                        .as_ref()
                        .map(|w| w.workload_name.as_str());
                    match w {
                        Some(w) if w != root_workload => Some(super::name_of(&pg.metadata)),
                        _ => None,
                    }
                })
                .collect();
            pgs.sort_unstable();
            if let Some(pg) = pgs.first().and_then(|n| s.pod_group(namespace, n)) {
                return Err(TreeError::MixedWorkloads {
                    composite: false,
                    group: super::name_of(&pg.metadata).to_owned(),
                    workload: pg
                        .spec
                        .workload_ref
                        .as_ref()
                        .map(|w| w.workload_name.clone())
                        .unwrap_or_default(),
                    root_workload: root_workload.to_owned(),
                });
            }
            let mut cpgs: Vec<(&str, &str)> = s
                .index
                .composite_pod_groups_by_parent
                .get(namespace, name)
                .iter()
                .filter_map(|i| s.composite_pod_groups.get(*i))
                .map(|c| {
                    (
                        super::name_of(&c.metadata),
                        c.spec.workload_ref.workload_name.as_str(),
                    )
                })
                .collect();
            cpgs.sort_unstable();
            if let Some((child, w)) = cpgs.iter().find(|(_, w)| *w != root_workload) {
                return Err(TreeError::MixedWorkloads {
                    composite: true,
                    group: (*child).to_owned(),
                    workload: (*w).to_owned(),
                    root_workload: root_workload.to_owned(),
                });
            }
            next.extend(cpgs.into_iter().map(|(c, _)| c.to_owned()));
        }
        level = next;
        depth += 1;
    }
    Ok(())
}

/// What one parent lookup of [`Resolution::resolve`] finds about a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Up<K> {
    /// The node names this parent.
    Parent(K),
    /// The node has no parent: it is a root.
    Root,
    /// The node is in the input, its parent is not.
    MissingParent,
    /// The node itself is not in the input (a start that names nothing, or a parent that is
    /// missing): it gets no place, and the node below it is the top of its chain.
    Unknown,
}

/// Where a node's chain of parents ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum End<K> {
    /// At this root (a node without a parent).
    Root(K),
    /// At this node, whose parent is not in the input.
    Missing(K),
    /// In a cycle: the index into [`Resolution::cycles`].
    Cycle(usize),
}

/// A node's place in its hierarchy, found by [`Resolution::resolve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    /// Parent links from the node to its chain's top node (the root, the node whose parent is
    /// missing) or, for a chain that ends in a cycle, to the first node of the cycle (0 on it).
    links: usize,
    /// Index into `Resolution::ends`.
    end: usize,
}

/// A node's place, as [`Resolution::get`] answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed<'r, K> {
    /// Parent links to the chain's top node, or to the cycle the chain ends in.
    pub links: usize,
    /// Where the chain ends.
    pub end: &'r End<K>,
}

impl<K> Placed<'_, K> {
    /// Levels from the chain's top node down to this one, both counted (a root is at depth
    /// 1; a node whose parent is missing too: the missing parent counts as no level), or
    /// `None` on or below a cycle.
    pub(crate) fn depth(&self) -> Option<usize> {
        match self.end {
            End::Cycle(_) => None,
            End::Root(_) | End::Missing(_) => Some(self.links + 1),
        }
    }

    /// The root above the node (the node itself for a root), when the chain reaches one.
    pub(crate) fn root(&self) -> Option<&K> {
        match self.end {
            End::Root(r) => Some(r),
            End::Missing(_) | End::Cycle(_) => None,
        }
    }
}

/// The one walk of every parent hierarchy — the simulator's, explain's and doctor's (over a
/// [`Snapshot`], see [`walk_up`]) and lint's (over the linted objects): depth, root and cycle
/// membership of every node, each node looked up once. A walk goes up from a start until it
/// meets a resolved node, a root, a missing parent or its own path (a cycle), then places
/// every node of its path on the way down; so `n` nodes cost at most `2n` parent lookups
/// however long their chains (a walk per node to its root would be quadratic).
#[derive(Debug, Clone)]
pub struct Resolution<K> {
    places: HashMap<K, Place>,
    ends: Vec<End<K>>,
    cycles: Vec<Vec<K>>,
    lookups: usize,
}

impl<K: Eq + Hash> PartialEq for Resolution<K> {
    fn eq(&self, other: &Self) -> bool {
        self.places == other.places
            && self.ends == other.ends
            && self.cycles == other.cycles
            && self.lookups == other.lookups
    }
}

impl<K> Default for Resolution<K> {
    fn default() -> Self {
        Self {
            places: HashMap::new(),
            ends: Vec::new(),
            cycles: Vec::new(),
            lookups: 0,
        }
    }
}

impl<K: Clone + Eq + Hash> Resolution<K> {
    /// Resolves every node of `starts` and their ancestors; `up` looks one node's parent up.
    pub(crate) fn of(starts: impl IntoIterator<Item = K>, mut up: impl FnMut(&K) -> Up<K>) -> Self {
        let mut r = Self::default();
        for start in starts {
            r.resolve(start, &mut up);
        }
        r
    }

    /// Resolves `start` and its ancestors, if not done yet.
    pub(crate) fn resolve(&mut self, start: K, up: &mut impl FnMut(&K) -> Up<K>) {
        if self.places.contains_key(&start) {
            return;
        }
        enum Stop {
            /// The path's top node names this placed node as parent.
            Below(Place),
            /// The path's top node is a root.
            Root,
            /// The path's top node's parent is not in the input.
            Missing,
        }
        let mut path: Vec<K> = Vec::new();
        let mut on_path: HashMap<K, usize> = HashMap::new();
        let mut at = start;
        let stop = loop {
            self.lookups += 1;
            if let Some(p) = self.places.get(&at) {
                break Stop::Below(*p);
            }
            if let Some(&i) = on_path.get(&at) {
                let cycle: Vec<K> = path.split_off(i);
                let end = self.ends.len();
                self.ends.push(End::Cycle(self.cycles.len()));
                for k in &cycle {
                    self.places.insert(k.clone(), Place { links: 0, end });
                }
                self.cycles.push(cycle);
                break Stop::Below(Place { links: 0, end });
            }
            match up(&at) {
                Up::Unknown => break Stop::Missing,
                Up::MissingParent => {
                    path.push(at);
                    break Stop::Missing;
                }
                Up::Root => {
                    path.push(at);
                    break Stop::Root;
                }
                Up::Parent(p) => {
                    on_path.insert(at.clone(), path.len());
                    path.push(at);
                    at = p;
                }
            }
        };
        let mut place = match stop {
            Stop::Below(p) => Place {
                links: p.links + 1,
                end: p.end,
            },
            Stop::Root | Stop::Missing => {
                let Some(top) = path.last() else {
                    return;
                };
                self.ends.push(match stop {
                    Stop::Root => End::Root(top.clone()),
                    _ => End::Missing(top.clone()),
                });
                Place {
                    links: 0,
                    end: self.ends.len() - 1,
                }
            }
        };
        for k in path.into_iter().rev() {
            self.places.insert(k, place);
            place.links += 1;
        }
    }

    /// The place of a resolved node (`None` for a node not resolved or not in the input).
    pub(crate) fn get(&self, k: &K) -> Option<Placed<'_, K>> {
        self.places.get(k).and_then(|p| {
            self.ends.get(p.end).map(|end| Placed {
                links: p.links,
                end,
            })
        })
    }

    /// The cycles met, each once, in the order met: its nodes in parent order, starting from
    /// the first one the walk reached.
    pub(crate) fn cycles(&self) -> &[Vec<K>] {
        &self.cycles
    }

    /// Parent lookups so far, counting each memo hit (the linear-growth tests read it).
    pub(crate) fn lookups(&self) -> usize {
        self.lookups
    }
}

/// The hierarchy of a snapshot's CompositePodGroups, keyed by position in
/// `Snapshot::composite_pod_groups`: built once with the snapshot's index, `position` its
/// CompositePodGroups by namespace and name.
pub(super) fn resolve_snapshot(
    s: &Snapshot,
    position: impl Fn(&str, &str) -> Option<usize>,
) -> Resolution<usize> {
    Resolution::of(0..s.composite_pod_groups.len(), |&i| {
        let Some(c) = s.composite_pod_groups.get(i) else {
            return Up::Unknown;
        };
        match c.spec.parent_composite_pod_group_name.as_deref() {
            None => Up::Root,
            Some(p) => match position(super::namespace_of(&c.metadata), p) {
                Some(j) => Up::Parent(j),
                None => Up::MissingParent,
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::Collector;
    use crate::snapshot::source::files::load_str;

    fn parse_str(yaml: &str, path: &str) -> Result<Snapshot, String> {
        let mut c = Collector::new();
        load_str(yaml, path, &mut c).map_err(|e| e.to_string())?;
        Ok(c.finish())
    }

    fn chain(levels: usize) -> Snapshot {
        // levels - 1 composites above one PodGroup: c1 is the root.
        let mut yaml = String::new();
        for i in 1..levels {
            let parent = if i == 1 {
                String::new()
            } else {
                format!("  parentCompositePodGroupName: c{}\n", i - 1)
            };
            yaml.push_str(&format!(
                "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {{name: c{i}, namespace: ns}}\nspec:\n{parent}  schedulingPolicy: {{basic: {{}}}}\n---\n"
            ));
        }
        let parent = if levels > 1 {
            format!("  parentCompositePodGroupName: c{}\n", levels - 1)
        } else {
            String::new()
        };
        yaml.push_str(&format!(
            "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {{name: leaf, namespace: ns}}\nspec:\n{parent}  schedulingPolicy: {{gang: {{minCount: 1}}}}\n"
        ));
        parse_str(&yaml, "chain.yaml").expect("test input parses")
    }

    #[test]
    fn four_levels_are_allowed_five_are_not() {
        // hierarchy_validation_test.go: "hierarchy depth 5 exceeds maximum allowed depth 4".
        assert_eq!(walk_up(&chain(1), "ns", "leaf"), Ok(None));
        assert_eq!(walk_up(&chain(4), "ns", "leaf"), Ok(Some("c1".to_owned())));
        let err = walk_up(&chain(5), "ns", "leaf").unwrap_err();
        assert_eq!(
            err,
            Broken::TooDeep {
                depth: 5,
                at_least: false
            }
        );
        assert!(err.is_invalid());
        assert!(
            err.message("ns", "leaf")
                .ends_with("hierarchy depth 5 exceeds maximum allowed depth 4")
        );
    }

    #[test]
    fn hierarchy_validation_mixed_workloads_fail_the_tree() {
        // hierarchy_validation_test.go: "Pod group hierarchy referencing multiple distinct
        // Workloads fails validation in scheduling cycle" (root wl-1, child PodGroup wl-2).
        let yaml = "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: cpg-root, namespace: ns}\nspec: {workloadRef: {workloadName: wl-1, templateName: root-t}, schedulingPolicy: {basic: {}}}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg1, namespace: ns}\nspec: {parentCompositePodGroupName: cpg-root, workloadRef: {workloadName: wl-2, templateName: tmpl}, schedulingPolicy: {basic: {}}}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg0, namespace: ns}\nspec: {parentCompositePodGroupName: cpg-root, workloadRef: {workloadName: wl-1, templateName: tmpl}, schedulingPolicy: {basic: {}}}\n";
        let s = parse_str(yaml, "mixed.yaml").expect("test input parses");
        let err = check_tree(&s, "ns", "cpg-root").unwrap_err();
        assert_eq!(
            err,
            TreeError::MixedWorkloads {
                composite: false,
                group: "pg1".into(),
                workload: "wl-2".into(),
                root_workload: "wl-1".into(),
            }
        );
        assert_eq!(err.offender(), (crate::snapshot::ObjKind::PodGroup, "pg1"));
        assert!(err.message("ns", "cpg-root").contains(
            "podgroup/ns/pg1 references Workload wl-2, but the hierarchy belongs to Workload wl-1"
        ));
        // One Workload throughout: valid.
        let same = yaml.replace("wl-2", "wl-1");
        let s = parse_str(&same, "same.yaml").expect("test input parses");
        assert_eq!(check_tree(&s, "ns", "cpg-root"), Ok(()));
    }

    #[test]
    fn hierarchy_validation_composite_at_depth_four_fails_the_tree() {
        // hierarchy_validation_test.go: "CompositePodGroup at depth 4 (exceeding max composite
        // depth 3) fails validation in scheduling cycle": c1 → c2 → c3 → c4, no PodGroup under
        // c4; the tree is invalid all the same. Three composite levels are fine.
        let mut yaml = String::new();
        for i in 1..=4 {
            let parent = if i == 1 {
                String::new()
            } else {
                format!("parentCompositePodGroupName: c{}, ", i - 1)
            };
            yaml.push_str(&format!(
                "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {{name: c{i}, namespace: ns}}\nspec: {{{parent}workloadRef: {{workloadName: wl, templateName: t}}, schedulingPolicy: {{basic: {{}}}}}}\n---\n"
            ));
        }
        let s = parse_str(&yaml, "deep.yaml").expect("test input parses");
        let err = check_tree(&s, "ns", "c1").unwrap_err();
        assert_eq!(
            err,
            TreeError::CompositeTooDeep {
                group: "c4".into(),
                depth: 4
            }
        );
        assert!(
            err.message("ns", "c1")
                .contains("compositepodgroup/ns/c4 at depth 4 exceeds maximum allowed depth 3")
        );
        let three = yaml
            .split("---\n")
            .take(3)
            .collect::<Vec<_>>()
            .join("---\n");
        let s = parse_str(&three, "three.yaml").expect("test input parses");
        assert_eq!(check_tree(&s, "ns", "c1"), Ok(()));
    }

    #[test]
    fn a_long_chain_stops_counting() {
        let err = walk_up(&chain(200), "ns", "leaf").unwrap_err();
        assert!(matches!(err, Broken::TooDeep { at_least: true, .. }));
    }

    #[test]
    fn a_cycle_is_invalid_and_a_missing_parent_is_not() {
        let yaml = "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: a, namespace: ns}\nspec: {parentCompositePodGroupName: b, schedulingPolicy: {basic: {}}}\n---\napiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: b, namespace: ns}\nspec: {parentCompositePodGroupName: a, schedulingPolicy: {basic: {}}}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: leaf, namespace: ns}\nspec: {parentCompositePodGroupName: a, schedulingPolicy: {basic: {}}}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: orphan, namespace: ns}\nspec: {parentCompositePodGroupName: nowhere, schedulingPolicy: {basic: {}}}\n";
        let s = parse_str(yaml, "cycle.yaml").expect("test input parses");
        let err = walk_up(&s, "ns", "leaf").unwrap_err();
        assert_eq!(
            err,
            Broken::Cycle {
                path: vec!["a".into(), "b".into(), "a".into()]
            }
        );
        assert!(err.is_invalid());
        let missing = walk_up(&s, "ns", "orphan").unwrap_err();
        assert!(!missing.is_invalid());
    }

    /// The walk `walk_up` was before it read the shared [`Resolution`]: up to 64 parents per
    /// PodGroup, searching its path at every step. `walk_up` must answer exactly as it did.
    fn walk_up_by_steps(
        s: &Snapshot,
        namespace: &str,
        pod_group: &str,
    ) -> Result<Option<String>, Broken> {
        let mut parent = s
            .pod_group(namespace, pod_group)
            .and_then(|p| p.spec.parent_composite_pod_group_name.clone());
        let mut path: Vec<String> = Vec::new();
        let mut root = None;
        while let Some(p) = parent {
            if path.contains(&p) {
                path.push(p);
                return Err(Broken::Cycle { path });
            }
            if path.len() >= WALK_LIMIT {
                return Err(Broken::TooDeep {
                    depth: path.len() + 1,
                    at_least: true,
                });
            }
            let Some(cpg) = s.composite_pod_group(namespace, &p) else {
                return Err(Broken::MissingParent { parent: p });
            };
            parent = cpg.spec.parent_composite_pod_group_name.clone();
            path.push(p.clone());
            root = Some(p);
        }
        let depth = path.len() + 1;
        if depth > MAX_HIERARCHY_DEPTH {
            return Err(Broken::TooDeep {
                depth,
                at_least: false,
            });
        }
        Ok(root)
    }

    /// A PodGroup under `tail` CompositePodGroups t1 … t{tail} that end in `top`: a root, a
    /// missing parent, or a cycle of `top` groups.
    fn shaped(tail: usize, top: &str, cycle: usize) -> Snapshot {
        let cpg = |name: &str, parent: Option<&str>| {
            let parent = parent
                .map(|p| format!("parentCompositePodGroupName: {p}, "))
                .unwrap_or_default();
            format!(
                "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {{name: {name}, namespace: ns}}\nspec: {{{parent}schedulingPolicy: {{basic: {{}}}}}}\n---\n"
            )
        };
        let mut yaml = String::new();
        for i in 1..=tail {
            let up = if i < tail {
                format!("t{}", i + 1)
            } else {
                match top {
                    "root" => String::new(),
                    "missing" => "gone".to_owned(),
                    _ => "k1".to_owned(),
                }
            };
            yaml.push_str(&cpg(
                &format!("t{i}"),
                (!up.is_empty()).then_some(up.as_str()),
            ));
        }
        for i in 1..=cycle {
            let next = format!("k{}", i % cycle + 1);
            yaml.push_str(&cpg(&format!("k{i}"), Some(&next)));
        }
        let first = if tail > 0 {
            "t1"
        } else if cycle > 0 {
            "k1"
        } else {
            "gone"
        };
        yaml.push_str(&format!(
            "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {{name: leaf, namespace: ns}}\nspec: {{parentCompositePodGroupName: {first}, schedulingPolicy: {{basic: {{}}}}}}\n"
        ));
        parse_str(&yaml, "shaped.yaml").expect("test input parses")
    }

    // issue 46 item 4: walk_up reads the one memoised walk now; at every boundary of the
    // 64-parent bound it answers as the bounded walk did (depth, root, missing parent, cycle
    // path, "over 65").
    #[test]
    fn walk_up_answers_as_the_bounded_walk_did() {
        let mut shapes = Vec::new();
        for tail in [0, 1, 2, 3, 4, 5, 30, 62, 63, 64, 65, 66, 90] {
            shapes.push((tail, "root", 0));
            shapes.push((tail, "missing", 0));
            for cycle in [1, 2, 3, 30, 61, 64, 65] {
                shapes.push((tail, "cycle", cycle));
            }
        }
        for (tail, top, cycle) in shapes {
            if tail == 0 && top == "root" {
                continue;
            }
            let s = shaped(tail, top, cycle);
            assert_eq!(
                walk_up(&s, "ns", "leaf"),
                walk_up_by_steps(&s, "ns", "leaf"),
                "{tail} groups up to a {top} ({cycle})"
            );
        }
    }

    /// A chain of `n` node ids, `i`'s parent `i - 1`, resolved from every node: the lookups.
    fn chain_lookups(n: usize) -> usize {
        let walk = Resolution::of((0..n).rev(), |&i: &usize| {
            if i == 0 { Up::Root } else { Up::Parent(i - 1) }
        });
        assert_eq!(walk.get(&0).and_then(|p| p.depth()), Some(1));
        assert_eq!(walk.get(&(n - 1)).and_then(|p| p.depth()), Some(n));
        assert_eq!(walk.get(&(n - 1)).and_then(|p| p.root().copied()), Some(0));
        walk.lookups()
    }

    // issue 46 item 4: the one walk of every hierarchy is linear: each node is looked up once
    // and each start once more, so twice the chain is twice the lookups (a walk per node to
    // its root would be four times). Started from the deepest node and from the root alike.
    #[test]
    fn the_walk_is_linear_in_the_nodes() {
        let small = chain_lookups(10_000);
        let large = chain_lookups(20_000);
        assert!(small <= 2 * 10_000, "{small} lookups for 10,000 nodes");
        assert!(
            large < 3 * small,
            "10,000 nodes: {small} lookups; 20,000: {large}"
        );
        let from_root = Resolution::of(0..20_000usize, |&i: &usize| {
            if i == 0 { Up::Root } else { Up::Parent(i - 1) }
        });
        assert!(from_root.lookups() <= 2 * 20_000);
        assert_eq!(from_root.get(&19_999).map(|p| p.links), Some(19_999));
    }

    #[test]
    fn the_walk_finds_each_cycle_once_with_the_groups_below_it() {
        // a → b → a, c under a, d a missing parent's child, e unknown.
        let parent = |k: &&str| match *k {
            "a" => Up::Parent("b"),
            "b" => Up::Parent("a"),
            "c" => Up::Parent("a"),
            "d" => Up::MissingParent,
            _ => Up::Unknown,
        };
        let walk = Resolution::of(["c", "a", "b", "d", "e"], parent);
        assert_eq!(walk.cycles(), [vec!["a", "b"]]);
        for k in ["a", "b", "c"] {
            assert_eq!(walk.get(&k).and_then(|p| p.depth()), None, "{k}");
            assert_eq!(walk.get(&k).and_then(|p| p.root().copied()), None, "{k}");
        }
        assert_eq!(walk.get(&"c").map(|p| p.links), Some(1));
        assert_eq!(walk.get(&"d").and_then(|p| p.depth()), Some(1));
        assert_eq!(walk.get(&"d").map(|p| p.end), Some(&End::Missing("d")));
        assert!(walk.get(&"e").is_none());
    }

    #[test]
    fn the_snapshot_index_holds_the_walk() {
        let s = chain(20_000);
        let root = s
            .index
            .composite_pod_groups
            .get("ns", "c1")
            .expect("c1 loaded");
        let deepest = s
            .index
            .composite_pod_groups
            .get("ns", "c19999")
            .expect("loaded");
        let placed = s.index.hierarchy.get(&deepest).expect("placed");
        assert_eq!(placed.depth(), Some(19_999));
        assert_eq!(placed.root(), Some(&root));
        assert!(s.index.hierarchy.lookups() <= 2 * 20_000);
        assert!(matches!(
            walk_up(&s, "ns", "leaf"),
            Err(Broken::TooDeep {
                depth: 65,
                at_least: true
            })
        ));
    }
}
