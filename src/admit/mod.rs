//! Admission: manifests as kube-apiserver 1.37's default admission chain would store them.
//!
//! Input: a [`Snapshot`] of objects, and optionally the cluster they are added to (whose
//! PriorityClasses and nodes admission reads). Output: the same objects, changed as the API
//! server's mutating admission plugins would change them on `create`, and an [`Admission`]
//! that says what changed, what the API server would refuse, and what could not be known.
//! Pure: no IO. Sits above `snapshot` and below `graph`/`sched` (it imports neither).
//!
//! **Stored or manifest.** An object that carries `metadata.uid` or `metadata.resourceVersion`
//! came from an API server (a dump, a live list, a snapshot export): it was admitted when it
//! was created and is simulated as it is. Any other object is a manifest, and is admitted
//! here first. The CLI also takes every object of a `--from` input that holds a wasctl
//! `ClusterFacts` document (a `wasctl snapshot` file, or a fixture written in that format) as
//! stored: such a file describes a cluster's state, not objects about to be created.
//!
//! First, manifest Jobs, Deployments, ReplicaSets and StatefulSets are expanded into what their
//! controllers create ([`controllers`]: pods, and a Job's Workload/PodGroup with
//! `WorkloadWithJob`); those objects are manifests too and are admitted below.
//!
//! Plugins modelled, in the order kube-apiserver runs them: `LimitRanger` (defaults only,
//! [`limit_range`]), `Priority` ([`priority`]), `DefaultTolerationSeconds` and the default
//! `schedulerName` ([`pod_defaults`]), `RuntimeClass` ([`runtime_class`]), then the validating
//! `ResourceQuota` ([`resource_quota`]: a controller's pods are created while the quota
//! allows, the others are not; a bare pod over quota is refused). Not modelled: LimitRanger's
//! min/max validation, webhooks. Stored objects are never changed, so admitting a dump
//! changes nothing and records nothing.

pub(crate) mod controllers;
pub(crate) mod kueue;
pub(crate) mod limit_range;
pub(crate) mod pod_defaults;
pub(crate) mod priority;
pub(crate) mod resource_quota;
pub(crate) mod runtime_class;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::snapshot::pod::Pod;
use crate::snapshot::{
    Admitted, ObjKind, Snapshot, Warning, merge_admitted, name_of, namespace_of,
};

/// True when the object came from an API server (it has a `uid` or a `resourceVersion`):
/// it is simulated as stored, never admitted again.
pub(crate) fn is_stored(meta: &ObjectMeta) -> bool {
    meta.uid.as_deref().is_some_and(|u| !u.is_empty())
        || meta
            .resource_version
            .as_deref()
            .is_some_and(|v| !v.is_empty())
}

/// An object the API server would refuse to create.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Refusal {
    /// Its kind.
    pub kind: ObjKind,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Why, values in backticks (`priorityClassName `high` names no PriorityClass`).
    pub reason: String,
}

impl Refusal {
    fn new(kind: ObjKind, meta: &ObjectMeta, reason: String) -> Self {
        Self {
            kind,
            namespace: namespace_of(meta).to_owned(),
            name: name_of(meta).to_owned(),
            reason,
        }
    }
}

impl Refusal {
    /// `Kind namespace/name: reason`, for a list under a heading that says who refuses.
    pub(crate) fn line(&self) -> String {
        let who = if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        };
        format!("{} {who}: {}", self.kind, self.reason)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (the API server would refuse it)", self.line())
    }
}

/// What admitting a set of objects did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Admission {
    /// What changed, one entry per kind of change (only changes the simulation reads).
    pub admitted: Vec<Admitted>,
    /// Objects the API server would refuse; they are left as written.
    pub refused: Vec<Refusal>,
    /// What could not be known (e.g. PriorityClasses that could not be read).
    pub warnings: Vec<Warning>,
    /// The `used` of the ResourceQuotas the created pods were charged to, for their
    /// `status.used` ([`resource_quota::Quotas::charged`]).
    pub quota_used: Vec<(String, String, BTreeMap<String, i128>)>,
}

impl Admission {
    /// Counts one more object changed by `change`.
    pub(crate) fn count(&mut self, change: &str, message: &str) {
        merge_admitted(
            &mut self.admitted,
            vec![Admitted {
                change: change.to_owned(),
                message: message.to_owned(),
                count: 1,
            }],
        );
    }

    /// The refusals as one message (the first few named), or `None` when nothing is refused.
    pub(crate) fn refusal_message(&self) -> Option<String> {
        const SHOWN: usize = 5;
        match self.refused.as_slice() {
            [] => None,
            [one] => Some(one.to_string()),
            many => {
                let mut lines: Vec<String> = many.iter().take(SHOWN).map(Refusal::line).collect();
                if many.len() > SHOWN {
                    lines.push(format!("… and {} more", many.len() - SHOWN));
                }
                Some(format!(
                    "{} manifests would be refused by the API server:\n  {}",
                    many.len(),
                    lines.join("\n  ")
                ))
            }
        }
    }

    /// Records what was admitted and the warnings in `into` (the snapshot the objects are
    /// simulated in).
    pub(crate) fn record(self, into: &mut Snapshot) {
        resource_quota::store_used(&mut into.resource_quotas, &self.quota_used);
        merge_admitted(&mut into.admitted, self.admitted);
        into.warnings.extend(self.warnings);
        into.warnings.sort();
        into.warnings.dedup();
    }
}

/// [`admit_with_gates`] with no gate overrides.
#[cfg(test)]
pub(crate) fn admit(objects: &mut Snapshot, cluster: Option<&Snapshot>) -> Admission {
    admit_with_gates(objects, cluster, &BTreeMap::new())
}

/// Admits the manifests among `objects` (every object that [`is_stored`] says is not
/// stored), reading PriorityClasses and nodes from `objects` and `cluster`. Objects the API
/// server would refuse are left as written and listed in [`Admission::refused`]; the caller
/// decides (the commands stop with an input error). Names and references do not change, so
/// the snapshot's lists stay sorted and its index holds. `overrides` are the `--feature-gates`
/// ones (the Job controller's `WorkloadWithJob`, [`controllers::workload_with_job`]). Manifest Jobs, Deployments, ReplicaSets and
/// StatefulSets are first expanded into what their controllers create ([`controllers`]), and
/// those objects are then admitted like the others.
pub(crate) fn admit_with_gates(
    objects: &mut Snapshot,
    cluster: Option<&Snapshot>,
    overrides: &BTreeMap<String, bool>,
) -> Admission {
    admit_objects(objects, cluster, overrides, true, true)
}

/// [`admit_with_gates`] without Kueue's job webhook ([`kueue`]): every manifest Job's pods
/// are created even when Kueue would hold it (lint's feasibility check asks whether the gang
/// could ever be placed, not whether Kueue admits it now).
pub(crate) fn admit_without_kueue(
    objects: &mut Snapshot,
    cluster: Option<&Snapshot>,
    overrides: &BTreeMap<String, bool>,
) -> Admission {
    admit_objects(objects, cluster, overrides, true, false)
}

/// [`admit_with_gates`], for objects that are a template, never created themselves (`capacity`'s
/// shape): every step but the ResourceQuota one, since the copies made from the template
/// are what the namespace's quotas are counted against (see
/// [`resource_quota::Quotas::charge`]).
pub(crate) fn admit_template(objects: &mut Snapshot, cluster: Option<&Snapshot>) -> Admission {
    admit_objects(objects, cluster, &BTreeMap::new(), false, false)
}

fn admit_objects(
    objects: &mut Snapshot,
    cluster: Option<&Snapshot>,
    overrides: &BTreeMap<String, bool>,
    charge_quotas: bool,
    kueue_jobs: bool,
) -> Admission {
    let mut out = Admission::default();
    let gate = controllers::workload_with_job(cluster.unwrap_or(objects), overrides);
    // Kueue's Job webhook and reconciler first: the Jobs Kueue holds stay suspended.
    let held = if kueue_jobs {
        kueue::manage_jobs(objects, cluster, &mut out)
    } else {
        Vec::new()
    };
    if controllers::expand(objects, gate, &held, &mut out) || !held.is_empty() {
        *objects = std::mem::take(objects).build();
    }
    let manifests = objects.pods.iter().any(|p| !is_stored(&p.metadata))
        || objects.pod_groups.iter().any(|g| !is_stored(&g.metadata))
        || objects
            .composite_pod_groups
            .iter()
            .any(|g| !is_stored(&g.metadata));
    if !manifests {
        out.refused.sort();
        return out;
    }
    let classes = priority::Classes::of(objects, cluster);
    let limits = limit_range::Defaults::of(objects, cluster);
    let runtimes = runtime_class::Classes::of(objects, cluster);
    let not_ready_taints = pod_defaults::nodes_have_condition_taints(objects, cluster);
    priority::admit_groups(objects, &classes, &mut out);
    let mut runtime_unknown = Vec::new();
    for pod in &mut objects.pods {
        if is_stored(&pod.metadata) {
            continue;
        }
        // What a refused pod's admission counted is not kept: the API server stores nothing.
        let mut counted = Admission::default();
        let mut admitted = Pod::clone(pod);
        let result = (|| {
            limit_range::admit_pod(&mut admitted, &limits, &mut counted);
            priority::admit_pod(&mut admitted, &classes, &mut counted)?;
            pod_defaults::admit_pod(&mut admitted, not_ready_taints, &mut counted);
            runtime_class::admit_pod(&mut admitted, &runtimes, &mut counted)
        })();
        match result {
            Err(reason) => out
                .refused
                .push(Refusal::new(ObjKind::Pod, &pod.metadata, reason)),
            Ok(known) => {
                if !known {
                    runtime_unknown.push(format!(
                        "{}/{}",
                        namespace_of(&pod.metadata),
                        name_of(&pod.metadata)
                    ));
                }
                merge_admitted(&mut out.admitted, counted.admitted);
                if admitted != **pod {
                    *pod = Arc::new(admitted);
                }
            }
        }
    }
    let mut quotas = if charge_quotas {
        resource_quota::Quotas::of(objects, cluster)
    } else {
        resource_quota::Quotas::default()
    };
    if !quotas.is_empty() && apply_quotas(objects, &mut quotas, &mut out) {
        *objects = std::mem::take(objects).build();
    }
    // The quotas now count the created pods, as the plugin stores them: the next admission
    // (another `--add`) and `capacity`'s copies see what is left.
    out.warnings.extend(quotas.limits_warnings());
    out.quota_used = quotas.charged();
    resource_quota::store_used(&mut objects.resource_quotas, &out.quota_used);
    out.warnings.extend(classes.warning());
    if let Some(first) = runtime_unknown.first() {
        out.warnings.push(Warning::new(
            "RuntimeClassNotResolved",
            format!(
                "the RuntimeClass of pod `{first}`{} is not in the input: its overhead and scheduling are not added; add the RuntimeClasses (`kubectl get runtimeclasses -o yaml`)",
                match runtime_unknown.len() {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                }
            ),
        ));
    }
    out.refused.sort();
    objects.after_spec_change();
    out
}

/// The controllers whose pods are created by a controller that retries when the quota
/// refuses one (the pod is then missing, not the manifest refused).
const QUOTA_RETRYING_CONTROLLERS: &[&str] = &["Job", "ReplicaSet", "StatefulSet"];

/// The sort key of a pod in the order its controller creates them: the owner, then the
/// number its name ends with (`sweep-2` before `sweep-10`), then the name.
fn creation_order(pod: &Pod) -> (String, String, u64, String) {
    let name = name_of(&pod.metadata);
    let owner = pod
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
        .map(|o| format!("{}/{}", o.kind, o.name))
        .unwrap_or_default();
    let digits = name
        .rsplit('-')
        .next()
        .and_then(|d| d.parse::<u64>().ok())
        .unwrap_or(0);
    (
        namespace_of(&pod.metadata).to_owned(),
        owner,
        digits,
        name.to_owned(),
    )
}

/// The ResourceQuota step ([`resource_quota`]): the manifest pods admission kept are created
/// one by one, in their controllers' creation order, while their namespace's quotas allow.
/// A controller's pod over quota is not created (the controller retries): it is removed, and
/// an `admitted` entry per controller says how many of its pods exist and which quota
/// stopped the rest. A bare pod over quota is refused. Returns true when pods were removed.
fn apply_quotas(
    objects: &mut Snapshot,
    quotas: &mut resource_quota::Quotas,
    out: &mut Admission,
) -> bool {
    let refused: std::collections::HashSet<(String, String)> = out
        .refused
        .iter()
        .filter(|r| r.kind == ObjKind::Pod)
        .map(|r| (r.namespace.clone(), r.name.clone()))
        .collect();
    let mut order: Vec<usize> = (0..objects.pods.len())
        .filter(|&i| {
            let m = &objects.pods[i].metadata;
            !is_stored(m) && !refused.contains(&(namespace_of(m).to_owned(), name_of(m).to_owned()))
        })
        .collect();
    order.sort_by_cached_key(|&i| creation_order(&objects.pods[i]));
    // Per controller (kind, namespace, name): pods made, pods not created, the first refusal.
    let mut by_owner: BTreeMap<(String, String, String), (usize, usize, String)> = BTreeMap::new();
    let mut dropped = vec![false; objects.pods.len()];
    for i in order {
        let pod = &objects.pods[i];
        let owner = pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .filter(|o| QUOTA_RETRYING_CONTROLLERS.contains(&o.kind.as_str()))
            .map(|o| {
                (
                    o.kind.clone(),
                    namespace_of(&pod.metadata).to_owned(),
                    o.name.clone(),
                )
            });
        let result = quotas.charge(pod);
        match (owner, result) {
            (Some(owner), result) => {
                let entry = by_owner.entry(owner).or_default();
                entry.0 += 1;
                if let Err(e) = result {
                    entry.1 += 1;
                    if entry.2.is_empty() {
                        entry.2 = e.reason();
                    }
                    dropped[i] = true;
                }
            }
            (None, Ok(())) => {}
            (None, Err(e)) => out.refused.push(Refusal::new(
                ObjKind::Pod,
                &pod.metadata,
                format!("exceeded quota: {}", e.reason()),
            )),
        }
    }
    for ((kind, ns, name), (total, missing, reason)) in by_owner {
        if missing == 0 {
            continue;
        }
        merge_admitted(
            &mut out.admitted,
            vec![Admitted {
                change: QUOTA_EXCEEDED.to_owned(),
                message: format!(
                    "the {kind} controller could create {} of {total} pods of {kind} {ns}/{name}: {reason}",
                    total - missing
                ),
                count: missing,
            }],
        );
    }
    if !dropped.contains(&true) {
        return false;
    }
    let mut i = 0;
    objects.pods.retain(|_| {
        let keep = !dropped[i];
        i += 1;
        keep
    });
    true
}

/// The `admitted` change of a controller whose pods the ResourceQuota plugin refused.
pub(crate) const QUOTA_EXCEEDED: &str = "QuotaExceeded";

/// A snapshot of `docs`, for the admission tests.
#[cfg(test)]
pub(crate) fn test_snapshot(docs: &[serde_json::Value]) -> Snapshot {
    let mut c = crate::snapshot::source::Collector::new();
    for d in docs {
        c.add(d.clone()).expect("object");
    }
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_with_a_uid_or_resource_version_is_stored() {
        let meta = |uid: Option<&str>, rv: Option<&str>| ObjectMeta {
            uid: uid.map(str::to_owned),
            resource_version: rv.map(str::to_owned),
            ..ObjectMeta::default()
        };
        assert!(is_stored(&meta(Some("abc"), None)));
        assert!(is_stored(&meta(None, Some("12"))));
        assert!(!is_stored(&meta(None, None)));
        assert!(!is_stored(&meta(Some(""), Some(""))));
    }

    #[test]
    fn admitting_the_dumps_and_the_demo_changes_nothing() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for file in [
            "testdata/dumps/kubectl-get-list.yaml",
            "testdata/dumps/kubectl-get-list.json",
            "testdata/clusters/demo.yaml",
        ] {
            let mut c = crate::snapshot::source::Collector::new();
            crate::snapshot::source::files::load_path(&root.join(file), &mut c).expect(file);
            let mut s = c.finish();
            s.facts.from_files = true;
            let (pods, groups) = (s.pods.clone(), s.pod_groups.clone());
            let a = admit(&mut s, None);
            assert_eq!(a, Admission::default(), "{file}");
            assert_eq!(s.pods, pods, "{file}");
            assert_eq!(s.pod_groups, groups, "{file}");
        }
    }

    #[test]
    fn refusals_name_the_object_and_say_the_api_server_refuses_it() {
        let r = Refusal {
            kind: ObjKind::PodGroup,
            namespace: "ml".into(),
            name: "urgent".into(),
            reason: "priorityClassName `high` names no PriorityClass".into(),
        };
        assert_eq!(
            r.to_string(),
            "PodGroup ml/urgent: priorityClassName `high` names no PriorityClass (the API server would refuse it)"
        );
        let a = Admission {
            refused: vec![r.clone(); 7],
            ..Admission::default()
        };
        let m = a.refusal_message().unwrap();
        assert!(m.starts_with("7 manifests would be refused"), "{m}");
        assert!(m.ends_with("… and 2 more"), "{m}");
    }
}
