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
