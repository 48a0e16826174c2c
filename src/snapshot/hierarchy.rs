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

use super::Snapshot;

/// Most levels a hierarchy may have, counting the leaf PodGroup (`WorkloadMaxTreeDepth`).
pub const MAX_HIERARCHY_DEPTH: usize = 4;

/// How far [`walk_up`] follows parents before it stops counting: far enough to name a real
/// depth, bounded so that a 20,000-long chain costs the same per PodGroup as a short one.
const WALK_LIMIT: usize = 64;

/// Why the hierarchy above a PodGroup cannot be scheduled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broken {
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
    pub fn is_invalid(&self) -> bool {
        !matches!(self, Self::MissingParent { .. })
    }

    /// The message, in upstream's words where upstream has them.
    pub fn message(&self, namespace: &str, pod_group: &str) -> String {
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
/// why the hierarchy is broken. Costs at most 64 steps, however long the chain.
pub fn walk_up(s: &Snapshot, namespace: &str, pod_group: &str) -> Result<Option<String>, Broken> {
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

/// A rule of the whole tree below a root CompositePodGroup broken. Upstream validates the
/// whole hierarchy in the pod-group scheduling cycle and reports the error on every group of it
/// (`hierarchy_validation_test.go`, "… fails validation in scheduling cycle": the groups get an
/// error condition, the pods a scheduling error): an outcome `Error`, nothing placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeError {
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
    pub fn message(&self, namespace: &str, root: &str) -> String {
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
    pub fn offender(&self) -> (super::ObjKind, &str) {
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
    pub fn fix(&self) -> String {
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
pub fn check_tree(s: &Snapshot, namespace: &str, root: &str) -> Result<(), TreeError> {
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
}
