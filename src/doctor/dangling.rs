//! Broken references along Workload → CompositePodGroup → PodGroup → Pod: a `workloadRef` to a
//! missing Workload or template, a missing parent CompositePodGroup, and pods whose
//! `schedulingGroup` names no PodGroup. Reads the graph's dangling edges.

use super::{Check, Checker, pod_active};
use crate::graph::{EdgeKind, EdgeState};

/// Runs the dangling-reference checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    let (s, g) = (c.s, c.g);
    for e in g.dangling() {
        let EdgeState::Dangling { missing } = &e.state else {
            continue;
        };
        match e.kind {
            EdgeKind::WorkloadRef => c.emit(
                Check::MissingWorkloadRef,
                e.from.clone(),
                format!("`spec.workloadRef` names {missing}, which does not exist"),
                "fix `spec.workloadRef` (workloadName and templateName), or re-create the Workload; the group keeps its own copy of the policy and still schedules",
            ),
            EdgeKind::Parent => c.emit(
                Check::MissingParent,
                e.from.clone(),
                format!(
                    "`spec.parentCompositePodGroupName` names {missing}, which does not exist: the tree cannot be scheduled"
                ),
                "create the parent CompositePodGroup (its controller normally does), or fix the name",
            ),
            EdgeKind::SchedulingGroup => {
                let pod = s.pod(&e.from.namespace, &e.from.name);
                if pod.is_some_and(|p| !pod_active(p)) {
                    continue;
                }
                let scheduled = pod
                    .and_then(|p| p.spec.as_ref())
                    .is_some_and(|sp| sp.node_name.is_some());
                let age = pod
                    .and_then(|p| c.age(&p.metadata))
                    .unwrap_or_else(|| "?".to_owned());
                c.emit(
                    Check::MissingPodGroup,
                    e.from.clone(),
                    if scheduled {
                        format!("`spec.schedulingGroup.podGroupName` names {missing}, which does not exist (the pod already runs; its group is gone)")
                    } else {
                        format!("`spec.schedulingGroup.podGroupName` names {missing}, which does not exist: the pod waits at PreEnqueue (age {age})")
                    },
                    "create the PodGroup, or fix `podGroupName` in the pod template (pods are immutable: re-create them)",
                );
            }
            _ => {}
        }
    }
    // The walk the simulator uses (snapshot::hierarchy): a PodGroup too deep in its tree.
    for pg in &s.pod_groups {
        if pg.spec.parent_composite_pod_group_name.is_none() {
            continue;
        }
        let (ns, name) = (
            crate::snapshot::namespace_of(&pg.metadata),
            crate::snapshot::name_of(&pg.metadata),
        );
        if let Err(broken @ crate::snapshot::hierarchy::Broken::TooDeep { .. }) =
            crate::snapshot::hierarchy::walk_up(s, ns, name)
        {
            c.emit(
                Check::HierarchyTooDeep,
                crate::snapshot::ObjRef::new(crate::snapshot::ObjKind::PodGroup, ns, name),
                broken.message(ns, name),
                format!(
                    "flatten the hierarchy to at most {} levels, the PodGroup included",
                    crate::snapshot::hierarchy::MAX_HIERARCHY_DEPTH
                ),
            );
        }
    }
    // The whole-tree rules the simulator checks below each root (snapshot::hierarchy::
    // check_tree): a CompositePodGroup with no room below it, groups of different Workloads.
    for cpg in &s.composite_pod_groups {
        if cpg.spec.parent_composite_pod_group_name.is_some() {
            continue;
        }
        let (ns, root) = (
            crate::snapshot::namespace_of(&cpg.metadata),
            crate::snapshot::name_of(&cpg.metadata),
        );
        if let Err(e) = crate::snapshot::hierarchy::check_tree(s, ns, root) {
            let (kind, name) = e.offender();
            c.emit(
                Check::HierarchyTooDeep,
                crate::snapshot::ObjRef::new(kind, ns, name),
                e.message(ns, root),
                e.fix(),
            );
        }
    }
    for cycle in g.parent_cycles() {
        let Some(first) = cycle.first() else {
            continue;
        };
        let chain: Vec<&str> = cycle
            .iter()
            .chain(std::iter::once(first))
            .map(|r| r.name.as_str())
            .collect();
        c.emit(
            Check::ParentCycle,
            first.clone(),
            format!(
                "`spec.parentCompositePodGroupName` references form a cycle: {}",
                chain.join(" → ")
            ),
            "point the top CompositePodGroup at no parent (or at a real root), so the chain ends",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run;

    #[test]
    fn references_to_missing_objects_are_reported_once_each() {
        let yaml = r#"
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]}
spec: {podGroupTemplates: [{name: workers, schedulingPolicy: {gang: {minCount: 1}}}]}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: ns, ownerReferences: [{apiVersion: scheduling.k8s.io/v1beta1, kind: Workload, name: w, uid: u}]}
spec:
  schedulingPolicy: {gang: {minCount: 1}}
  workloadRef: {workloadName: w, templateName: wrong}
  parentCompositePodGroupName: no-such-cpg
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: pg}}
---
apiVersion: v1
kind: Pod
metadata: {name: lost, namespace: ns}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: nope}}
---
apiVersion: v1
kind: Pod
metadata: {name: done, namespace: ns}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: nope}}
status: {phase: Succeeded}
"#;
        let mut found = run(yaml);
        found.sort();
        let expected: Vec<(String, String)> =
            [("WASD010", "pg"), ("WASD011", "pg"), ("WASD012", "lost")]
                .iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_pod_group_five_levels_deep_is_reported() {
        // hierarchy_validation_test.go: "hierarchy depth 5 exceeds maximum allowed depth 4".
        let mut yaml = String::new();
        for (name, parent) in [("c1", ""), ("c2", "c1"), ("c3", "c2"), ("c4", "c3")] {
            let parent = if parent.is_empty() {
                String::new()
            } else {
                format!(", parentCompositePodGroupName: {parent}")
            };
            yaml.push_str(&format!("apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {{name: {name}, namespace: ml}}\nspec: {{schedulingPolicy: {{basic: {{}}}}{parent}}}\n---\n"));
        }
        yaml.push_str("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: deep, namespace: ml}\nspec: {schedulingPolicy: {basic: {}}, parentCompositePodGroupName: c4}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: fine, namespace: ml}\nspec: {schedulingPolicy: {basic: {}}, parentCompositePodGroupName: c3}\n");
        let deep: Vec<(String, String)> = run(&yaml)
            .into_iter()
            .filter(|(id, _)| id == "WASD014")
            .collect();
        // c4 itself sits at level 4, where a CompositePodGroup leaves no room below it
        // ("CompositePodGroup at depth 4 (exceeding max composite depth 3)"): the whole tree,
        // `fine` included, is refused; `deep` is the PodGroup five levels down.
        assert_eq!(
            deep,
            [
                ("WASD014".to_owned(), "c4".to_owned()),
                ("WASD014".to_owned(), "deep".to_owned())
            ]
        );
    }

    #[test]
    fn hierarchy_validation_mixed_workloads_are_reported() {
        // hierarchy_validation_test.go: "Pod group hierarchy referencing multiple distinct
        // Workloads fails validation in scheduling cycle".
        let yaml = "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: cpg-root, namespace: ml}\nspec: {workloadRef: {workloadName: wl-1, templateName: root-t}, schedulingPolicy: {basic: {}}}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg1, namespace: ml}\nspec: {parentCompositePodGroupName: cpg-root, workloadRef: {workloadName: wl-2, templateName: tmpl}, schedulingPolicy: {basic: {}}}\n";
        let found: Vec<(String, String)> = run(yaml)
            .into_iter()
            .filter(|(id, _)| id == "WASD014")
            .collect();
        assert_eq!(found, [("WASD014".to_owned(), "pg1".to_owned())]);
    }

    #[test]
    fn parent_cycles_are_reported_once_each_and_end() {
        let yaml = include_str!("../../testdata/cycles/parent-cycles.yaml");
        let mut found: Vec<(String, String)> = run(yaml)
            .into_iter()
            .filter(|(id, _)| id == "WASD013")
            .collect();
        found.sort();
        let expected: Vec<(String, String)> = [("WASD013", "a"), ("WASD013", "self")]
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        assert_eq!(found, expected);
    }
}
