//! Orphans and leaks: claims nobody uses or that are reserved for consumers that are gone,
//! PodGroups being deleted that still hold claims, PodGroups without pods, objects without an
//! owner, duplicate groups for one Job, and `reservedFor` near its limit (operations.md,
//! "Orphans and leaks").

use crate::snapshot::ObjKind;
use std::collections::{BTreeMap, BTreeSet};

use super::{Check, Checker, claim_allocated, claim_devices, list, obj, pod_active};
use crate::graph::{EdgeKind, EdgeState};
use crate::snapshot::ObjRef;
use crate::snapshot::{name_of, namespace_of};

/// The upstream cap on `ResourceClaim.status.reservedFor` entries.
pub(crate) const RESERVED_FOR_LIMIT: usize = 256;

/// `reservedFor` at or above this many entries is reported.
pub(crate) const RESERVED_FOR_WARN: usize = 224;

/// Runs the orphan and leak checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    claims(c);
    deleting_pod_groups(c);
    pod_groups_without_pods(c);
    no_owner(c);
    duplicate_groups(c);
    pods_on_missing_nodes(c);
}

/// Pods bound to a node the snapshot does not hold: one finding per namespace and node (a
/// removed node can leave hundreds), about its first pod by name. Only when every Node was
/// read: a `kubectl get nodes n1` dump or unreadable Nodes say nothing about the others.
fn pods_on_missing_nodes(c: &mut Checker<'_>) {
    let s = c.s;
    if s.nodes.is_empty() || !s.knows_all("Node", None) {
        return;
    }
    let mut by_node: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
    for pod in &s.pods {
        let phase = pod.status.as_ref().and_then(|st| st.phase.as_deref());
        if matches!(phase, Some("Succeeded" | "Failed")) {
            continue;
        }
        let Some(node) = pod.spec.as_ref().and_then(|sp| sp.node_name.as_deref()) else {
            continue;
        };
        if s.node(node).is_none() {
            by_node
                .entry((namespace_of(&pod.metadata), node))
                .or_default()
                .push(name_of(&pod.metadata).to_owned());
        }
    }
    // A file of some nodes only (`kubectl get node n1 -o yaml` beside every pod) reads as
    // complete: when the pods name more missing nodes than the input holds and no
    // ClusterFacts document says Nodes were all read, the input is taken for a partial dump
    // and nothing is concluded (never "absent" from "not in the input").
    let missing: std::collections::BTreeSet<&str> = by_node.keys().map(|(_, n)| *n).collect();
    if s.facts.from_files && !s.facts.coverage.contains_key("Node") && missing.len() > s.nodes.len()
    {
        return;
    }
    for ((ns, node), mut pods) in by_node {
        pods.sort();
        let Some(first) = pods.first() else {
            continue;
        };
        let what = if pods.len() == 1 {
            "the pod is".to_owned()
        } else {
            format!("{} pods ({}) are", pods.len(), list(&pods, 4))
        };
        c.emit(
            Check::PodOnMissingNode,
            ObjRef::new(ObjKind::Pod, ns, first),
            format!(
                "{what} bound to a missing node: `spec.nodeName` names node `{node}`, which does not exist; the scheduler never reschedules a bound pod and its requests count on no node"
            ),
            format!(
                "{} and the scheduler places {}; if such pods stay, check that kube-controller-manager's pod garbage collector runs",
                if pods.len() == 1 {
                    "delete the pod so that its controller re-creates it"
                } else {
                    "delete the pods so that their controllers re-create them"
                },
                if pods.len() == 1 { "it" } else { "them" },
            ),
        );
    }
}

/// `reservedFor` entries whose Pod or PodGroup exists under the name but with another UID:
/// the object was deleted and re-created, and the entry still reserves the claim for the old
/// one (the resourceclaim controller compares UIDs and drops such entries; until it does, the
/// scheduler sees the claim as in use by the old consumer).
fn replaced_consumers(
    c: &mut Checker<'_>,
    claim: &k8s_openapi::api::resource::v1::ResourceClaim,
    me: &ObjRef,
    devices: &[String],
) {
    let s = c.s;
    let ns = namespace_of(&claim.metadata);
    let entries = claim
        .status
        .as_ref()
        .and_then(|st| st.reserved_for.as_ref())
        .into_iter()
        .flatten();
    for entry in entries {
        let (kind, uid) = match (
            entry.api_group.as_deref().unwrap_or(""),
            entry.resource.as_str(),
        ) {
            ("", "pods") => (
                ObjKind::Pod,
                s.pod(ns, &entry.name).map(|p| p.metadata.uid.as_deref()),
            ),
            ("scheduling.k8s.io", "podgroups") => (
                ObjKind::PodGroup,
                s.pod_group(ns, &entry.name)
                    .map(|p| p.metadata.uid.as_deref()),
            ),
            _ => continue,
        };
        // A missing object is WASD001's; an object without a UID (a hand-written manifest)
        // cannot be compared.
        let Some(Some(now)) = uid else {
            continue;
        };
        if entry.uid.is_empty() || entry.uid == now {
            continue;
        }
        c.emit(
            Check::ClaimReservedForReplacedConsumer,
            me.clone(),
            format!(
                "reserved for {kind} `{}` with UID `{}`, but {kind} `{}` now has UID `{now}`: it was re-created, and the claim stays reserved for the old one; {}",
                entry.name,
                entry.uid,
                entry.name,
                held(devices)
            ),
            format!(
                "remove the stale entry from `status.reservedFor` of claim `{ns}/{}` (the resourceclaim controller does when it runs), or delete the claim so that it is generated again",
                name_of(&claim.metadata)
            ),
        );
    }
}

fn held(devices: &[String]) -> String {
    if devices.is_empty() {
        "no devices allocated".to_owned()
    } else {
        format!("holds {}", list(devices, 4))
    }
}

fn claims(c: &mut Checker<'_>) {
    let (s, g) = (c.s, c.g);
    for claim in &s.resource_claims {
        let me = obj(ObjKind::ResourceClaim, &claim.metadata);
        let devices = claim_devices(claim);
        let age = c.age(&claim.metadata).unwrap_or_else(|| "?".to_owned());
        let reserved: Vec<_> = g.outgoing(&me, Some(EdgeKind::ReservedFor)).collect();
        let missing: Vec<String> = reserved
            .iter()
            .filter(|e| matches!(e.state, EdgeState::Dangling { .. }))
            .map(|e| format!("{} `{}`", e.to.kind, e.to.name))
            .collect();
        let n = claim
            .status
            .as_ref()
            .and_then(|st| st.reserved_for.as_ref())
            .map_or(0, Vec::len);
        if n >= RESERVED_FOR_WARN {
            c.emit(
                Check::ReservedForNearLimit,
                me.clone(),
                format!("`reservedFor` has {n} of {RESERVED_FOR_LIMIT} entries"),
                "share the claim through a PodGroup `spec.resourceClaims` entry (one reservation for the whole group), or split the consumers over several claims",
            );
        }
        if !missing.is_empty() {
            let all_gone = missing.len() == reserved.len();
            c.emit(
                Check::ClaimReservedForMissingConsumer,
                me,
                format!(
                    "reserved for {} which {} not exist{}; {}, age {age}",
                    missing.join(", "),
                    if missing.len() == 1 { "does" } else { "do" },
                    if all_gone { "" } else { " (other consumers remain)" },
                    held(&devices)
                ),
                if all_gone {
                    format!(
                        "delete the claim (`kubectl delete resourceclaim -n {} {}`) or remove the stale `status.reservedFor` entries so its devices are freed",
                        me_ns(claim),
                        name_of(&claim.metadata)
                    )
                } else {
                    "remove the stale `status.reservedFor` entries (the resourceclaim controller normally does; check it is running)".to_owned()
                },
            );
            continue;
        }
        replaced_consumers(c, claim, &me, &devices);
        let gone_owner = g
            .outgoing(&me, Some(EdgeKind::Owner))
            .find(|e| {
                matches!(e.to.kind, ObjKind::Pod | ObjKind::PodGroup)
                    && matches!(e.state, EdgeState::Dangling { .. })
            })
            .map(|e| e.to.clone());
        if let Some(owner) = gone_owner {
            c.emit(
                Check::ClaimOwnerGone,
                me,
                format!(
                    "generated for {} `{}`, which is gone; {}, age {age}",
                    owner.kind,
                    owner.name,
                    held(&devices)
                ),
                format!(
                    "delete the claim (`kubectl delete resourceclaim -n {} {}`); if it stays, check its finalizers and that kube-controller-manager's garbage collector runs",
                    me_ns(claim),
                    name_of(&claim.metadata)
                ),
            );
            continue;
        }
        let used = g
            .incoming(&me, None)
            .any(|e| matches!(e.kind, EdgeKind::PodClaim | EdgeKind::GroupClaim));
        if used || n > 0 || claim.metadata.deletion_timestamp.is_some() {
            continue;
        }
        if claim_allocated(claim) {
            c.emit(
                Check::ClaimHoldsDevicesWithoutConsumer,
                me,
                format!(
                    "no Pod or PodGroup uses this claim and it is reserved for nobody, yet it {}; age {age}",
                    held(&devices)
                ),
                format!(
                    "delete the claim if it is left over (`kubectl delete resourceclaim -n {} {}`), or start its consumer",
                    me_ns(claim),
                    name_of(&claim.metadata)
                ),
            );
        } else {
            c.emit(
                Check::ClaimWithoutConsumer,
                me,
                format!("no Pod or PodGroup uses this claim; nothing is allocated, age {age}"),
                "delete it if it is left over",
            );
        }
    }
}

fn me_ns(claim: &k8s_openapi::api::resource::v1::ResourceClaim) -> &str {
    namespace_of(&claim.metadata)
}

fn deleting_pod_groups(c: &mut Checker<'_>) {
    let (s, g) = (c.s, c.g);
    for pg in &s.pod_groups {
        let Some(since) = pg.metadata.deletion_timestamp.as_ref() else {
            continue;
        };
        let me = obj(ObjKind::PodGroup, &pg.metadata);
        let ns = namespace_of(&pg.metadata);
        let mut claims: BTreeSet<String> = g
            .outgoing(&me, Some(EdgeKind::GroupClaim))
            .filter(|e| e.state == EdgeState::Resolved)
            .map(|e| e.to.name.clone())
            .collect();
        claims.extend(
            g.incoming(&me, Some(EdgeKind::ReservedFor))
                .map(|e| e.from.name.clone()),
        );
        let mut devices = Vec::new();
        let mut holding = Vec::new();
        for name in &claims {
            if let Some(claim) = s.resource_claim(ns, name)
                && claim_allocated(claim)
            {
                holding.push(name.clone());
                devices.extend(claim_devices(claim));
            }
        }
        if holding.is_empty() {
            continue;
        }
        let finalizers: Vec<String> = pg.metadata.finalizers.clone().unwrap_or_default();
        c.emit(
            Check::DeletingPodGroupHoldsClaims,
            me,
            format!(
                "being deleted for {}{}, but claim {} still {}",
                crate::snapshot::times::age(since, c.options.now),
                if finalizers.is_empty() {
                    String::new()
                } else {
                    format!(" (finalizers {})", list(&finalizers, 3))
                },
                list(&holding, 3),
                held(&devices)
            ),
            "find why the finalizer is not removed (the controller that owns it); removing it by hand frees the claims",
        );
    }
}

fn pod_groups_without_pods(c: &mut Checker<'_>) {
    let s = c.s;
    for pg in &s.pod_groups {
        let ns = namespace_of(&pg.metadata);
        let name = name_of(&pg.metadata);
        if !s.index.pods_by_group.get(ns, name).is_empty()
            || pg.metadata.deletion_timestamp.is_some()
        {
            continue;
        }
        let age = c.age(&pg.metadata).unwrap_or_else(|| "?".to_owned());
        c.emit(
            Check::PodGroupWithoutPods,
            obj(ObjKind::PodGroup, &pg.metadata),
            format!("no pod names this PodGroup in `spec.schedulingGroup.podGroupName`; age {age}"),
            "check that the controller creates the pods with `schedulingGroup.podGroupName` set to this name, or delete the PodGroup if it is left over",
        );
    }
}

fn no_owner(c: &mut Checker<'_>) {
    let s = c.s;
    let mut found = Vec::new();
    for w in &s.workloads {
        if w.metadata
            .owner_references
            .as_ref()
            .is_none_or(Vec::is_empty)
            && w.spec.controller_ref.is_none()
        {
            found.push(obj(ObjKind::Workload, &w.metadata));
        }
    }
    for pg in &s.pod_groups {
        if pg
            .metadata
            .owner_references
            .as_ref()
            .is_none_or(Vec::is_empty)
        {
            found.push(obj(ObjKind::PodGroup, &pg.metadata));
        }
    }
    for cpg in &s.composite_pod_groups {
        if cpg
            .metadata
            .owner_references
            .as_ref()
            .is_none_or(Vec::is_empty)
        {
            found.push(obj(ObjKind::CompositePodGroup, &cpg.metadata));
        }
    }
    for o in found {
        let kind = o.kind.clone();
        c.emit(
            Check::NoOwner,
            o,
            format!("the {kind} has no owner{}, so nothing garbage-collects it", if kind == ObjKind::Workload { " and no `spec.controllerRef`" } else { "" }),
            "fine for objects created by hand; delete it yourself when its work is done, or let the controller that uses it own it",
        );
    }
}

/// Groups that belong to one Job: owned by it, or named by its pods.
fn duplicate_groups(c: &mut Checker<'_>) {
    let s = c.s;
    // (namespace, job) → kind → names
    let mut by_job: BTreeMap<(String, String), BTreeMap<&'static str, BTreeSet<String>>> =
        BTreeMap::new();
    let job_owner = |meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
        meta.owner_references
            .iter()
            .flatten()
            .find(|o| o.kind == "Job" && o.api_version.starts_with("batch/"))
            .map(|o| (namespace_of(meta).to_owned(), o.name.clone()))
    };
    for pg in &s.pod_groups {
        if let Some(job) = job_owner(&pg.metadata) {
            let e = by_job.entry(job).or_default();
            e.entry("PodGroup")
                .or_default()
                .insert(name_of(&pg.metadata).to_owned());
        }
    }
    for w in &s.workloads {
        let job = job_owner(&w.metadata).or_else(|| {
            w.spec
                .controller_ref
                .as_ref()
                .filter(|r| r.kind == "Job" && r.api_group.as_deref() == Some("batch"))
                .map(|r| (namespace_of(&w.metadata).to_owned(), r.name.clone()))
        });
        if let Some(job) = job {
            let e = by_job.entry(job).or_default();
            e.entry("Workload")
                .or_default()
                .insert(name_of(&w.metadata).to_owned());
        }
    }
    for pod in s.pods.iter().filter(|p| pod_active(p)) {
        let group = pod
            .spec
            .as_ref()
            .and_then(|sp| sp.scheduling_group.as_ref())
            .and_then(|g| g.pod_group_name.clone());
        if let (Some(job), Some(group)) = (job_owner(&pod.metadata), group) {
            let e = by_job.entry(job).or_default();
            e.entry("PodGroup").or_default().insert(group);
        }
    }
    for ((ns, job), kinds) in by_job {
        for (kind, names) in kinds {
            if names.len() < 2 {
                continue;
            }
            let names: Vec<String> = names.into_iter().collect();
            c.emit(
                Check::DuplicateGroupsForJob,
                ObjRef::new(ObjKind::Job, &ns, &job),
                format!(
                    "{} {kind}s belong to this Job (owned by it or named by its pods): {}",
                    names.len(),
                    list(&names, 4)
                ),
                "let one controller own the group: either the parent marks the Job with `scheduling.k8s.io/group-template-name` and creates it, or the Job controller (`spec.scheduling`) does; delete the extra one",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{ids, run};

    const CLAIM_GONE_CONSUMER: &str = r#"
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: ns, creationTimestamp: "2026-11-12T12:00:00Z"}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices: {results: [{device: gpu-0, driver: d, pool: n1, request: gpu}]}
  reservedFor: [{name: gone, resource: pods, uid: u1}]
"#;

    #[test]
    fn claim_reserved_for_a_missing_pod_is_an_orphan() {
        assert_eq!(
            run(CLAIM_GONE_CONSUMER),
            vec![("WASD001".to_owned(), "c1".to_owned())]
        );
    }

    /// See: issue 46 item 3; the resourceclaim controller compares a `reservedFor` entry's
    /// UID with the object's (k8s.io/kubernetes pkg/controller/resourceclaim/controller.go,
    /// `syncClaim`: "Pod with the same name exists, but it's a different pod").
    #[test]
    fn claim_reserved_for_a_recreated_pod_is_reported_by_uid() {
        let pod = |uid: &str| {
            format!(
                "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: gone, namespace: ns, uid: {uid}}}\nspec: {{containers: [{{name: c, image: i}}]}}\n"
            )
        };
        let recreated = format!("{CLAIM_GONE_CONSUMER}{}", pod("u2"));
        let found = run(&recreated);
        assert!(
            found.contains(&("WASD016".to_owned(), "c1".to_owned())),
            "{found:?}"
        );
        assert!(!found.iter().any(|(id, _)| id == "WASD001"), "{found:?}");
        let same = format!("{CLAIM_GONE_CONSUMER}{}", pod("u1"));
        assert!(!run(&same).iter().any(|(id, _)| id == "WASD016"));
    }

    #[test]
    fn allocated_claim_without_consumer_leaks_and_unallocated_one_is_info() {
        let allocated = CLAIM_GONE_CONSUMER.replace(
            "  reservedFor: [{name: gone, resource: pods, uid: u1}]\n",
            "",
        );
        assert_eq!(ids(&allocated), ["WASD003"]);
        let unallocated = r#"
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: ns}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
"#;
        assert_eq!(ids(unallocated), ["WASD004"]);
    }

    #[test]
    fn claim_generated_for_a_gone_pod_group() {
        let yaml = r#"
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: pg-kv-abc
  namespace: ns
  ownerReferences: [{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, name: gone, uid: u, controller: true}]
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
"#;
        assert_eq!(ids(yaml), ["WASD002"]);
    }

    #[test]
    fn reserved_for_near_the_limit_is_a_warning() {
        let mut yaml = String::from(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec: {containers: [{name: c, image: i}]}\n---\n",
        );
        yaml.push_str(
            "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c1, namespace: ns}\nspec: {devices: {requests: []}}\nstatus:\n  allocation: {devices: {results: []}}\n  reservedFor:\n",
        );
        for _ in 0..230 {
            yaml.push_str("  - {name: p, resource: pods, uid: u}\n");
        }
        assert_eq!(ids(&yaml), ["WASD009"]);
    }

    #[test]
    fn deleting_pod_group_holding_a_claim_leaks() {
        let yaml = r#"
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: pg
  namespace: ns
  deletionTimestamp: "2026-11-20T10:00:00Z"
  finalizers: [example.com/cleanup]
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]
spec: {schedulingPolicy: {gang: {minCount: 2}}, resourceClaims: [{name: kv, resourceClaimTemplateName: t}]}
status: {resourceClaimStatuses: [{name: kv, resourceClaimName: pg-kv-1}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: pg-kv-1
  namespace: ns
  ownerReferences: [{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, name: pg, uid: u, controller: true}]
spec: {devices: {requests: []}}
status:
  allocation: {devices: {results: [{device: gpu-0, driver: d, pool: n1, request: gpu}]}}
  reservedFor: [{apiGroup: scheduling.k8s.io, name: pg, resource: podgroups, uid: u}]
"#;
        let found = ids(yaml);
        assert!(found.contains(&"WASD005".to_owned()), "{found:?}");
        assert!(
            !found.contains(&"WASD006".to_owned()),
            "a deleting group is not reported as podless: {found:?}"
        );
    }

    #[test]
    fn hand_made_pod_group_without_pods_is_reported_with_no_owner_as_info() {
        let yaml = r#"
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: ns, creationTimestamp: "2026-11-20T11:00:00Z"}
spec: {schedulingPolicy: {basic: {}}}
"#;
        assert_eq!(ids(yaml), ["WASD006", "WASD007"]);
    }

    #[test]
    fn pods_of_one_job_in_two_groups_are_duplicates() {
        let yaml = r#"
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: g1}}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: g2}}
"#;
        let found = run(yaml);
        assert!(
            found.contains(&("WASD008".to_owned(), "j".to_owned())),
            "{found:?}"
        );
    }
}

#[cfg(test)]
mod missing_node_tests {
    use super::super::test_support::{NOW, run, snapshot};
    use super::super::{Options, check};
    use crate::graph::Graph;
    use crate::snapshot::KindCoverage;

    const NODE_N1: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";

    fn pod(name: &str, node: &str, phase: &str) -> String {
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: ns}}\nspec: {{nodeName: {node}, containers: [{{name: c, image: i}}]}}\nstatus: {{phase: {phase}}}\n"
        )
    }

    /// Issue 46: a Running pod whose node is gone is reported once per node and namespace,
    /// naming the pods; pods on a node that exists and finished pods are not.
    #[test]
    fn pods_bound_to_a_missing_node_are_reported_once_per_node() {
        let yaml = [
            NODE_N1.to_owned(),
            pod("a", "n1", "Running"),
            pod("b", "gone", "Running"),
            pod("c", "gone", "Running"),
            pod("d", "gone", "Succeeded"),
        ]
        .concat();
        let found: Vec<_> = run(&yaml)
            .into_iter()
            .filter(|(id, _)| id == "WASD015")
            .collect();
        assert_eq!(found, [("WASD015".to_owned(), "b".to_owned())]);
        let s = snapshot(&yaml);
        let g = Graph::build(&s);
        let options = Options {
            now: NOW.parse().expect("valid time"),
            gate_overrides: Default::default(),
            stuck_after: crate::doctor::DEFAULT_STUCK_AFTER,
        };
        let (findings, _) = check(&s, &g, &options);
        let f = findings
            .iter()
            .find(|f| f.id.id() == "WASD015")
            .expect("a finding");
        assert!(
            f.message.starts_with(
                "2 pods (`b`, `c`) are bound to a missing node: `spec.nodeName` names node `gone`"
            ),
            "{}",
            f.message
        );
    }

    /// A file dump of some nodes only: more missing nodes named by pods than nodes in the
    /// input, and no ClusterFacts coverage for Nodes, is taken for a partial dump.
    #[test]
    fn a_dump_of_some_nodes_only_does_not_flood() {
        let yaml = [
            NODE_N1.to_owned(),
            pod("a", "n2", "Running"),
            pod("b", "n3", "Running"),
        ]
        .concat();
        let mut s = snapshot(&yaml);
        s.facts.from_files = true;
        let g = Graph::build(&s);
        let options = Options {
            now: NOW.parse().expect("valid time"),
            gate_overrides: Default::default(),
            stuck_after: crate::doctor::DEFAULT_STUCK_AFTER,
        };
        let (findings, _) = check(&s, &g, &options);
        assert!(
            !findings.iter().any(|f| f.id.id() == "WASD015"),
            "{findings:#?}"
        );
        // A snapshot that says every Node was read is believed.
        s.facts
            .coverage
            .insert("Node".to_owned(), KindCoverage::Complete);
        let (findings, _) = check(&s, &g, &options);
        assert_eq!(
            findings.iter().filter(|f| f.id.id() == "WASD015").count(),
            2,
            "{findings:#?}"
        );
    }

    /// Never "absent" from "unread": no Node in the input, or Nodes unreadable, says nothing.
    #[test]
    fn pods_on_unknown_nodes_are_not_reported_when_nodes_were_not_all_read() {
        let no_nodes = pod("b", "gone", "Running");
        assert!(!run(&no_nodes).iter().any(|(id, _)| id == "WASD015"));
        let yaml = [NODE_N1.to_owned(), pod("b", "gone", "Running")].concat();
        let mut s = snapshot(&yaml);
        s.facts.coverage.insert(
            "Node".to_owned(),
            KindCoverage::Unreadable {
                reason: "HTTP 500".to_owned(),
            },
        );
        let g = Graph::build(&s);
        let options = Options {
            now: NOW.parse().expect("valid time"),
            gate_overrides: Default::default(),
            stuck_after: crate::doctor::DEFAULT_STUCK_AFTER,
        };
        let (findings, _) = check(&s, &g, &options);
        assert!(
            !findings.iter().any(|f| f.id.id() == "WASD015"),
            "{findings:#?}"
        );
    }
}
