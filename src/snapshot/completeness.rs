//! Which kinds the objects name but the input does not hold: one warning for the whole
//! snapshot, so that reports say once what they could not check instead of reporting every
//! reference into a missing kind as dangling.
//!
//! A `kubectl get nodes,pods,podgroups -o yaml` dump is the most common input; it holds the
//! kinds it was asked for and nothing of the others. Pure: no IO.

use std::collections::BTreeMap;

use super::{KindCoverage, Snapshot, Warning, namespace_of};

/// PriorityClasses every cluster has without a manifest.
const BUILT_IN_PRIORITY_CLASSES: &[&str] = &["system-node-critical", "system-cluster-critical"];

/// Kind → (how many objects name it, which kind of object names it).
type Named = BTreeMap<&'static str, (usize, &'static str)>;

fn note(named: &mut Named, kind: &'static str, by: &'static str) {
    let e = named.entry(kind).or_insert((0, by));
    e.0 += 1;
    if e.1 != by {
        e.1 = "object";
    }
}

/// Every kind some object refers to, with a count of the referring objects.
fn named_kinds(s: &Snapshot) -> Named {
    let mut named = Named::new();
    for pod in &s.pods {
        let Some(spec) = pod.spec.as_ref() else {
            continue;
        };
        if spec.scheduling_group.is_some() {
            note(&mut named, "PodGroup", "pod");
        }
        if spec
            .priority_class_name
            .as_deref()
            .is_some_and(|p| !BUILT_IN_PRIORITY_CLASSES.contains(&p))
        {
            note(&mut named, "PriorityClass", "pod");
        }
        // An entry from a template names a ResourceClaimTemplate; the claim the controller
        // generates from it is a ResourceClaim only once the pod's status names it (a manifest's
        // pods have none yet: no ResourceClaim is missing then, issue 51).
        let claims = spec.resource_claims.iter().flatten();
        let mut template = false;
        let mut claim = false;
        for c in claims {
            template |= c.resource_claim_template_name.is_some();
            claim |= c.resource_claim_template_name.is_none();
        }
        claim |= pod
            .status
            .as_ref()
            .and_then(|st| st.resource_claim_statuses.as_ref())
            .is_some_and(|cs| cs.iter().any(|c| c.resource_claim_name.is_some()));
        if template {
            note(&mut named, "ResourceClaimTemplate", "pod");
        }
        if claim {
            note(&mut named, "ResourceClaim", "pod");
        }
        if spec.node_name.is_some() {
            note(&mut named, "Node", "bound pod");
        }
        for o in pod.metadata.owner_references.iter().flatten() {
            if o.kind == "Job" && o.api_version == "batch/v1" {
                note(&mut named, "Job", "pod");
            }
        }
    }
    for pg in &s.pod_groups {
        let spec = &pg.spec;
        if spec.workload_ref.is_some() {
            note(&mut named, "Workload", "PodGroup");
        }
        if spec.parent_composite_pod_group_name.is_some() {
            note(&mut named, "CompositePodGroup", "PodGroup");
        }
        if spec
            .priority_class_name
            .as_deref()
            .is_some_and(|p| !BUILT_IN_PRIORITY_CLASSES.contains(&p))
        {
            note(&mut named, "PriorityClass", "PodGroup");
        }
        for c in spec.resource_claims.iter().flatten() {
            if c.resource_claim_template_name.is_some() {
                note(&mut named, "ResourceClaimTemplate", "PodGroup");
            } else {
                note(&mut named, "ResourceClaim", "PodGroup");
            }
        }
    }
    for c in &s.composite_pod_groups {
        note(&mut named, "Workload", "CompositePodGroup");
        if c.spec.parent_composite_pod_group_name.is_some() {
            note(&mut named, "CompositePodGroup", "CompositePodGroup");
        }
    }
    // Claims are allocated from ResourceSlices with DeviceClasses.
    let claims = s.resource_claims.len() + s.resource_claim_templates.len();
    let named_claims = ["ResourceClaim", "ResourceClaimTemplate"]
        .iter()
        .map(|k| named.get(k).map_or(0, |e| e.0))
        .max()
        .unwrap_or(0);
    if claims > 0 || named_claims > 0 {
        let n = claims.max(named_claims);
        named.insert("ResourceSlice", (n, "claim"));
        named.insert("DeviceClass", (n, "claim"));
    }
    named
}

fn referrers(n: usize, by: &str) -> String {
    if n == 1 {
        format!("1 {by} refers to them")
    } else {
        format!("{n} {by}s refer to them")
    }
}

fn plural(kind: &str) -> String {
    match kind {
        "PriorityClass" | "DeviceClass" => format!("{kind}es"),
        _ => format!("{kind}s"),
    }
}

/// One warning naming every kind that objects refer to but the input does not hold (or that
/// could not be read), or `None` when nothing is missing.
pub(crate) fn missing_kinds(s: &Snapshot) -> Option<Warning> {
    let mut parts = Vec::new();
    for (kind, (n, by)) in named_kinds(s) {
        match s.coverage(kind) {
            KindCoverage::Complete | KindCoverage::Namespace { .. } => {}
            KindCoverage::NotInInput => {
                parts.push(format!("no {} ({})", plural(kind), referrers(n, by)));
            }
            KindCoverage::Unreadable { reason } => parts.push(format!(
                "{} could not be read ({reason}; {})",
                plural(kind),
                referrers(n, by)
            )),
        }
    }
    // A dump of some namespaces only: kube-system's pods use node resources too.
    if s.facts.from_files
        && !s.nodes.is_empty()
        && !s.pods.is_empty()
        && !s
            .pods
            .iter()
            .any(|p| namespace_of(&p.metadata) == "kube-system")
    {
        parts.push(
            "no pods in `kube-system` (a dump of some namespaces only? pods of the other namespaces use node resources too)".to_owned(),
        );
    }
    if parts.is_empty() {
        return None;
    }
    Some(Warning::new(
        "IncompleteInput",
        format!(
            "the input is incomplete: {}. Findings about these objects are not checked; `kubectl wasctl snapshot -o yaml > dump.yaml` writes a complete dump",
            parts.join("; ")
        ),
    ))
}

/// Nodes without `status.allocatable` (a hand-written Node often has no `status`): they offer
/// no cpu, memory or pods, so every pod is `Insufficient cpu` there, which says nothing of why
/// (issue 51). One warning naming them (the first few), or `None`.
pub(crate) fn nodes_without_allocatable(s: &Snapshot) -> Option<Warning> {
    let bare: Vec<&str> = s
        .nodes
        .iter()
        .filter(|n| {
            n.status
                .as_ref()
                .and_then(|st| st.allocatable.as_ref())
                .is_none_or(|a| a.is_empty())
        })
        .map(|n| super::name_of(&n.metadata))
        .collect();
    let first = bare.first()?;
    const SHOWN: usize = 5;
    let names = bare
        .iter()
        .take(SHOWN)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let more = bare.len().saturating_sub(SHOWN);
    let names = if more > 0 {
        format!("{names} and {more} more")
    } else {
        names
    };
    Some(Warning::new(
        "NodeWithoutAllocatable",
        format!(
            "{count} without `status.allocatable`: {names} {offer} no cpu, memory or pods, so pods are `Insufficient cpu` there; give a hand-written Node the `status.allocatable` (and `capacity`) its kubelet reports, e.g. `status: {{allocatable: {{cpu: \"8\", memory: 32Gi, pods: \"110\"}}}}` (as `kubectl get node {first} -o yaml` shows it)",
            count = if bare.len() == 1 {
                "1 node".to_owned()
            } else {
                format!("{} nodes", bare.len())
            },
            offer = if bare.len() == 1 { "offers" } else { "offer" },
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::Collector;

    /// Issue 51: a node without `status` yielded "Insufficient cpu" with no hint.
    #[test]
    fn nodes_without_allocatable_are_named_with_the_fix() {
        let s = dump(
            "apiVersion: v1\nkind: Node\nmetadata: {name: bare}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: ok}\nstatus: {allocatable: {cpu: '4'}}\n",
        );
        let w = nodes_without_allocatable(&s).expect("a warning");
        assert_eq!(w.code, "NodeWithoutAllocatable");
        assert!(
            w.message
                .starts_with("1 node without `status.allocatable`: `bare` offers no cpu"),
            "{}",
            w.message
        );
        assert!(!w.message.contains("`ok`"), "{}", w.message);
        let fine = dump(
            "apiVersion: v1\nkind: Node\nmetadata: {name: ok}\nstatus: {allocatable: {cpu: '4'}}\n",
        );
        assert_eq!(nodes_without_allocatable(&fine), None);
    }

    fn dump(yaml: &str) -> Snapshot {
        let mut c = Collector::new();
        crate::snapshot::source::files::load_str(yaml, "<test>", &mut c).expect("loads");
        let mut s = c.finish();
        s.facts.from_files = true;
        s
    }

    const POD_WITH_REFS: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: p0, namespace: kube-system}\nspec:\n  priorityClassName: high\n  containers: [{name: c, image: i}]\n  resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]\n";

    #[test]
    fn a_kubectl_get_dump_names_the_kinds_it_lacks_once() {
        let s = dump(POD_WITH_REFS);
        let w = missing_kinds(&s).expect("a warning");
        assert_eq!(w.code, "IncompleteInput");
        for kind in [
            "no PriorityClasses (1 pod refers to them)",
            "no ResourceClaimTemplates",
            "no ResourceSlices",
            "no DeviceClasses",
        ] {
            assert!(w.message.contains(kind), "{kind}: {}", w.message);
        }
        // Nodes are not named by an unbound pod.
        assert!(!w.message.contains("no Nodes"), "{}", w.message);
    }

    /// Issue 51: "no ResourceClaims (4 pods refer to them)" was said of pods whose claims come
    /// from templates, before any claim is generated.
    #[test]
    fn pods_with_template_claims_lack_no_resource_claim_until_their_status_names_one() {
        let s = dump(POD_WITH_REFS);
        let w = missing_kinds(&s).expect("a warning");
        assert!(!w.message.contains("no ResourceClaims"), "{}", w.message);
        let generated = format!(
            "{POD_WITH_REFS}status:\n  resourceClaimStatuses: [{{name: gpu, resourceClaimName: p0-gpu-x1}}]\n"
        );
        let w = missing_kinds(&dump(&generated)).expect("a warning");
        assert!(
            w.message
                .contains("no ResourceClaims (1 pod refers to them)"),
            "{}",
            w.message
        );
        let direct = POD_WITH_REFS.replace("resourceClaimTemplateName: t", "resourceClaimName: c");
        let w = missing_kinds(&dump(&direct)).expect("a warning");
        assert!(
            w.message
                .contains("no ResourceClaims (1 pod refers to them)"),
            "{}",
            w.message
        );
        assert!(
            !w.message.contains("ResourceClaimTemplates"),
            "{}",
            w.message
        );
    }

    #[test]
    fn a_complete_snapshot_warns_of_nothing() {
        let mut s = dump(POD_WITH_REFS);
        s.facts.from_files = false;
        assert_eq!(missing_kinds(&s), None);
    }

    #[test]
    fn an_unreadable_kind_is_named_with_its_reason() {
        let mut s = dump(POD_WITH_REFS);
        s.facts.from_files = false;
        s.facts.coverage.insert(
            "PriorityClass".into(),
            KindCoverage::Unreadable {
                reason: "forbidden".into(),
            },
        );
        let w = missing_kinds(&s).expect("a warning");
        assert!(
            w.message
                .contains("PriorityClasses could not be read (forbidden; 1 pod refers to them)"),
            "{}",
            w.message
        );
    }
}
