//! Gang health: groups admitted once whose running members fell below `minCount`, empty
//! CompositePodGroup status (expected in 1.37), and pod claim entries that do not match the
//! PodGroup's so the shared claim is never used (operations.md, failure modes 4, 5 and 7).

use super::{Check, Checker, obj, pod_active, pod_running};
use crate::snapshot::ObjKind;
use crate::snapshot::claims::is_group_claim_entry;
use crate::snapshot::{name_of, namespace_of};

/// Runs the gang health checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    below_min_count(c);
    empty_composite_status(c);
    claim_entry_mismatch(c);
}

fn below_min_count(c: &mut Checker<'_>) {
    let s = c.s;
    for pg in &s.pod_groups {
        let Some(gang) = pg.spec.scheduling_policy.gang.as_ref() else {
            continue;
        };
        let initially = pg
            .status
            .as_ref()
            .and_then(|st| st.conditions.as_ref())
            .and_then(|cs| cs.iter().find(|c| c.type_ == "PodGroupInitiallyScheduled"))
            .is_some_and(|c| c.status == "True");
        if !initially || pg.metadata.deletion_timestamp.is_some() {
            continue;
        }
        let pods: Vec<_> = s
            .index
            .pods_by_group
            .get(namespace_of(&pg.metadata), name_of(&pg.metadata))
            .iter()
            .map(|i| &s.pods[*i])
            .collect();
        let running = pods.iter().filter(|p| pod_running(p)).count();
        let min = usize::try_from(gang.min_count).unwrap_or(0);
        if running >= min {
            continue;
        }
        let succeeded = pods
            .iter()
            .filter(|p| p.status.as_ref().and_then(|st| st.phase.as_deref()) == Some("Succeeded"))
            .count();
        if pods.is_empty() || succeeded == pods.len() {
            continue; // finished work, or no pods at all (reported by WASD006)
        }
        let pending = pods
            .iter()
            .filter(|p| pod_active(p) && !pod_running(p))
            .count();
        c.emit(
            Check::RunningBelowMinCount,
            obj(ObjKind::PodGroup, &pg.metadata),
            format!(
                "`PodGroupInitiallyScheduled=True`, but only {running} of `minCount` {min} members run ({pending} pending, {} pods in all): the application may hang",
                pods.len()
            ),
            "find why members were lost (evictions, node failures); restart the gang through its controller, or lower `minCount` if fewer members suffice",
        );
    }
}

fn empty_composite_status(c: &mut Checker<'_>) {
    let s = c.s;
    for cpg in &s.composite_pod_groups {
        let empty = cpg
            .status
            .as_ref()
            .and_then(|st| st.conditions.as_ref())
            .is_none_or(Vec::is_empty);
        if empty {
            c.emit(
                Check::CompositeStatusEmpty,
                obj(ObjKind::CompositePodGroup, &cpg.metadata),
                "the status is empty, as expected in 1.37 alpha: the scheduler does not write CompositePodGroup conditions",
                "read the leaf PodGroups' status instead (`kubectl wasctl tree cpg/NAME`)",
            );
        }
    }
}

fn claim_entry_mismatch(c: &mut Checker<'_>) {
    let s = c.s;
    for pg in &s.pod_groups {
        let Some(entries) = pg.spec.resource_claims.as_ref() else {
            continue;
        };
        let ns = namespace_of(&pg.metadata);
        let mut bad_pods = Vec::new();
        let mut example = None;
        for i in s.index.pods_by_group.get(ns, name_of(&pg.metadata)) {
            let pod = &s.pods[*i];
            if !pod_active(pod) {
                continue;
            }
            for e in pod
                .spec
                .iter()
                .flat_map(|sp| sp.resource_claims.iter().flatten())
            {
                let Some(group_entry) = entries.iter().find(|g| g.name == e.name) else {
                    continue;
                };
                if is_group_claim_entry(
                    pg,
                    &e.name,
                    e.resource_claim_name.as_deref(),
                    e.resource_claim_template_name.as_deref(),
                ) {
                    continue;
                }
                let source =
                    |claim: Option<&String>, template: Option<&String>| match (claim, template) {
                        (Some(c), _) => format!("claim `{c}`"),
                        (None, Some(t)) => format!("template `{t}`"),
                        (None, None) => "no source".to_owned(),
                    };
                example.get_or_insert_with(|| {
                    format!(
                        "entry `{}`: pod has {}, PodGroup has {}",
                        e.name,
                        source(
                            e.resource_claim_name.as_ref(),
                            e.resource_claim_template_name.as_ref()
                        ),
                        source(
                            group_entry.resource_claim_name.as_ref(),
                            group_entry.resource_claim_template_name.as_ref()
                        )
                    )
                });
                bad_pods.push(name_of(&pod.metadata).to_owned());
                break;
            }
        }
        if let Some(example) = example {
            c.emit(
                Check::PodClaimEntryMismatch,
                obj(ObjKind::PodGroup, &pg.metadata),
                format!(
                    "{} member pod(s) ({}) do not use the group's shared claim ({example}): each gets a claim of its own from its own entry and does not share the group's devices",
                    bad_pods.len(),
                    super::list(&bad_pods, 3)
                ),
                "make the pod template's `resourceClaims` entry identical to the PodGroup's (same name and the same `resourceClaimName` or `resourceClaimTemplateName`), then re-create the pods",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::ids;

    const GROUP: &str = r#"
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
status:
  conditions: [{type: PodGroupInitiallyScheduled, status: "True", reason: Scheduled, message: "", lastTransitionTime: "2026-11-20T10:00:00Z"}]
"#;

    fn pod(name: &str, phase: &str) -> String {
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: ns}}\nspec: {{containers: [{{name: c, image: i}}], schedulingGroup: {{podGroupName: g}}, nodeName: n1}}\nstatus: {{phase: {phase}}}\n"
        )
    }

    #[test]
    fn gang_that_lost_members_is_reported() {
        let yaml = format!("{GROUP}{}{}", pod("a", "Running"), pod("b", "Failed"));
        assert_eq!(ids(&yaml), ["WASD201"]);
        let healthy = format!("{GROUP}{}{}", pod("a", "Running"), pod("b", "Running"));
        assert!(ids(&healthy).is_empty());
        let finished = format!("{GROUP}{}{}", pod("a", "Succeeded"), pod("b", "Succeeded"));
        assert!(ids(&finished).is_empty());
    }

    #[test]
    fn empty_composite_status_is_info_only() {
        let yaml = r#"
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: c, namespace: ns, ownerReferences: [{apiVersion: scheduling.k8s.io/v1beta1, kind: Workload, name: w, uid: u}]}
spec:
  schedulingPolicy: {gang: {minGroupCount: 1}}
  workloadRef: {workloadName: w, templateName: t}
status: {}
"#;
        let found = ids(yaml);
        assert!(found.contains(&"WASD202".to_owned()), "{found:?}");
    }

    #[test]
    fn pod_claim_entry_with_another_template_is_a_mismatch() {
        let yaml = r#"
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]}
spec:
  schedulingPolicy: {gang: {minCount: 1}}
  resourceClaims: [{name: gpu, resourceClaimTemplateName: shared}]
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns}
spec:
  containers: [{name: c, image: i}]
  schedulingGroup: {podGroupName: g}
  resourceClaims: [{name: gpu, resourceClaimTemplateName: single}]
"#;
        assert_eq!(ids(yaml), ["WASD203"]);
        let matching = yaml.replace(
            "resourceClaimTemplateName: single",
            "resourceClaimTemplateName: shared",
        );
        assert!(ids(&matching).is_empty());
    }
}
