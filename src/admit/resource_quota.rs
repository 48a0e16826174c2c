//! The `ResourceQuota` admission plugin (plugin/pkg/admission/resourcequota, with the pod
//! evaluator of pkg/quota/v1/evaluator/core/pods.go), for the pods a manifest controller or a
//! manifest creates.
//!
//! A pod is created only while every ResourceQuota of its namespace that matches it has room:
//! for each resource the quota's `spec.hard` names and the pod uses, `used + the pod's usage
//! ≤ hard`, where `used` is the quota's `status.used` as the snapshot holds it (a quota
//! without a status, e.g. a manifest, counts the stored pods of its namespace, as the quota
//! controller would). Each created pod adds to `used`, so the pods after it see less room.
//! A pod the quota refuses is not created:
//! - a pod of a manifest Job, ReplicaSet (a Deployment's) or StatefulSet: its controller
//!   cannot create it and retries, so the other pods exist and it does not; a gang Job then
//!   has some members and waits for the others. Reported in `admitted` per controller:
//!   "the Job controller could create 2 of 4 pods of Job ml/sweep: quota `gpu-quota` …".
//! - a bare manifest pod: the API server refuses it (`exceeded quota`), an input error.
//!
//! Usage of a pod (`PodUsageFunc`): `pods` and `count/pods` 1; for each resource `r` the pod
//! requests, `requests.r` (and bare `cpu`, `memory`, `ephemeral-storage`), with the requests
//! as the scheduler sums them (containers plus restartable init containers, at least each
//! other init container; then the RuntimeClass overhead); pod-level `resources.requests`
//! take the place of the containers' sum for the resources they name. A quota that tracks
//! `requests.cpu`/`cpu` or `requests.memory`/`memory` refuses a pod with a container that does
//! not request it (the plugin's "must specify" check), as upstream does for container-level
//! requests.
//!
//! Each quota a created pod was charged to gets the new usage in its `status.used`
//! ([`store_used`]), as the plugin writes it before the pod is stored: a later `--add`, and
//! `capacity`'s copies ([`crate::plan::capacity::QuotaLimit`]), see what is left.
//!
//! Scopes: `BestEffort`/`NotBestEffort` and the `PriorityClass` scope selector (`In`,
//! `NotIn`, `Exists`, `DoesNotExist`) are evaluated; `NotTerminating` matches every pod and
//! `Terminating` none (manifest pods here have no `activeDeadlineSeconds`); a quota with any
//! other scope (`CrossNamespacePodAffinity`, `VolumeAttributesClass`) is not applied.
//!
//! Not modelled: `limits.*` (the pod record keeps requests only, for manifests as for stored
//! pods; a `limits.*` entry is not counted, and where a pod is created under such a quota a
//! `QuotaLimitsNotCounted` warning says so, [`Quotas::limits_warnings`]),
//! DRA device quota (`<class>.deviceclass.resource.k8s.io/devices`, charged on
//! ResourceClaims), object counts other than pods.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::{ResourceQuota, ScopedResourceSelectorRequirement};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::is_stored;
use crate::snapshot::pod::{Container, Pod};
use crate::snapshot::quantity::quantity_scaled;
use crate::snapshot::{Snapshot, Warning, name_of, namespace_of};

/// Milli-units of a quantity (`"2"` → 2000); an unparsable quantity is `None` (the API
/// server would not have stored it; such an entry is not enforced).
fn milli(q: &Quantity) -> Option<i128> {
    quantity_scaled(&q.0, 3).ok().map(i128::from)
}

/// The resources whose request every container must set when a quota tracks them.
const MUST_SPECIFY: &[(&str, &str)] = &[
    ("requests.cpu", "cpu"),
    ("cpu", "cpu"),
    ("requests.memory", "memory"),
    ("memory", "memory"),
];

/// One ResourceQuota, with the room its `used` leaves.
#[derive(Debug, Clone)]
struct Quota {
    name: String,
    /// `spec.hard` in milli-units (entries wasctl does not enforce left out).
    hard: BTreeMap<String, i128>,
    /// `status.used` (or computed), in milli-units; grows as pods are created.
    used: BTreeMap<String, i128>,
    /// `None`: the quota has a scope this module does not evaluate (not applied).
    scope: Option<Scope>,
    /// True once a created pod was charged to it.
    charged: bool,
}

#[derive(Debug, Clone, Default)]
struct Scope {
    best_effort: Option<bool>,
    terminating: Option<bool>,
    priority_class: Vec<ScopedResourceSelectorRequirement>,
}

impl Scope {
    fn of(q: &ResourceQuota) -> Option<Self> {
        let spec = q.spec.as_ref()?;
        let mut scope = Self::default();
        let names = spec.scopes.iter().flatten().cloned().map(|s| (s, None));
        let selected = spec
            .scope_selector
            .iter()
            .flat_map(|s| s.match_expressions.iter().flatten())
            .map(|r| (r.scope_name.clone(), Some(r.clone())));
        for (name, requirement) in names.chain(selected) {
            match (name.as_str(), requirement) {
                ("BestEffort", _) => scope.best_effort = Some(true),
                ("NotBestEffort", _) => scope.best_effort = Some(false),
                ("Terminating", _) => scope.terminating = Some(true),
                ("NotTerminating", _) => scope.terminating = Some(false),
                ("PriorityClass", Some(r)) => scope.priority_class.push(r),
                ("PriorityClass", None) => {
                    scope
                        .priority_class
                        .push(ScopedResourceSelectorRequirement {
                            operator: "Exists".to_owned(),
                            scope_name: name,
                            values: None,
                        });
                }
                _ => return None,
            }
        }
        Some(scope)
    }

    fn matches(&self, pod: &Pod, usage: &BTreeMap<String, i128>) -> bool {
        if let Some(best_effort) = self.best_effort {
            // A pod is BestEffort when no container requests (or limits) cpu or memory.
            let is = !usage.contains_key("requests.cpu") && !usage.contains_key("requests.memory");
            if is != best_effort {
                return false;
            }
        }
        if self.terminating == Some(true) {
            return false;
        }
        let class = pod
            .spec
            .as_ref()
            .and_then(|s| s.priority_class_name.as_deref());
        self.priority_class.iter().all(|r| {
            let values = r.values.as_deref().unwrap_or_default();
            match r.operator.as_str() {
                "In" => class.is_some_and(|c| values.iter().any(|v| v == c)),
                "NotIn" => class.is_none_or(|c| !values.iter().any(|v| v == c)),
                "Exists" => class.is_some(),
                "DoesNotExist" => class.is_none(),
                _ => false,
            }
        })
    }
}

/// The requests of a pod as the scheduler and the quota evaluator sum them, in milli-units.
fn pod_requests(pod: &Pod) -> BTreeMap<String, i128> {
    let mut sum: BTreeMap<String, i128> = BTreeMap::new();
    let Some(spec) = pod.spec.as_ref() else {
        return sum;
    };
    let requests = |c: &Container| -> BTreeMap<String, i128> {
        c.resources
            .as_ref()
            .and_then(|r| r.requests.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|(k, q)| Some((k.clone(), milli(q)?)))
            .collect()
    };
    let add = |into: &mut BTreeMap<String, i128>, from: &BTreeMap<String, i128>| {
        for (k, v) in from {
            *into.entry(k.clone()).or_default() += v;
        }
    };
    for c in &spec.containers {
        add(&mut sum, &requests(c));
    }
    // Restartable init containers (sidecars) run beside the containers; each other init
    // container runs alone, with the sidecars started before it.
    let mut sidecars: BTreeMap<String, i128> = BTreeMap::new();
    let mut init_peak: BTreeMap<String, i128> = BTreeMap::new();
    for c in spec.init_containers.iter().flatten() {
        let r = requests(c);
        if c.restart_policy.as_deref() == Some("Always") {
            add(&mut sidecars, &r);
        } else {
            let mut with = sidecars.clone();
            add(&mut with, &r);
            for (k, v) in with {
                let e = init_peak.entry(k).or_default();
                *e = (*e).max(v);
            }
        }
    }
    add(&mut sum, &sidecars);
    for (k, v) in init_peak {
        let e = sum.entry(k).or_default();
        *e = (*e).max(v);
    }
    if let Some(pod_level) = spec.resources.as_ref().and_then(|r| r.requests.as_ref()) {
        for (k, q) in pod_level {
            if let Some(v) = milli(q) {
                sum.insert(k.clone(), v);
            }
        }
    }
    for (k, q) in spec.overhead.iter().flatten() {
        if let Some(v) = milli(q) {
            *sum.entry(k.clone()).or_default() += v;
        }
    }
    sum
}

/// What a pod counts against a quota: `pods`, `count/pods`, `requests.<r>` and the bare
/// names of the standard compute resources.
fn pod_usage(pod: &Pod) -> BTreeMap<String, i128> {
    let mut usage = BTreeMap::from([("pods".to_owned(), 1000), ("count/pods".to_owned(), 1000)]);
    for (r, v) in pod_requests(pod) {
        if matches!(r.as_str(), "cpu" | "memory" | "ephemeral-storage") {
            usage.insert(r.clone(), v);
        }
        usage.insert(format!("requests.{r}"), v);
    }
    usage
}

/// Stores the `used` of [`Quotas::charged`] in the `status.used` of the matching quotas of
/// `quotas` (those of other namespaces or names are left alone). Entries the status holds
/// for resources the quota does not enforce are kept.
pub(crate) fn store_used(
    quotas: &mut [ResourceQuota],
    charged: &[(String, String, BTreeMap<String, i128>)],
) {
    for (ns, name, used) in charged {
        let Some(q) = quotas
            .iter_mut()
            .find(|q| namespace_of(&q.metadata) == ns && name_of(&q.metadata) == name)
        else {
            continue;
        };
        let status = q.status.get_or_insert_with(Default::default);
        let stored = status.used.get_or_insert_with(Default::default);
        for (resource, v) in used {
            stored.insert(resource.clone(), Quantity(format_milli(*v)));
        }
    }
}

/// True for a pod that holds quota: not finished (quota releases Succeeded and Failed pods).
fn counts(pod: &Pod) -> bool {
    !matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded" | "Failed")
    )
}

/// Why a quota refuses a pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Exceeded {
    /// The quota's name.
    pub quota: String,
    /// The resource (`requests.nvidia.com/gpu`, `pods`).
    pub resource: String,
    /// `hard`, `used` and the pod's usage, in milli-units; `requested` 0 with `must_specify`.
    pub hard: i128,
    /// `used` before the pod.
    pub used: i128,
    /// The pod's usage of `resource`.
    pub requested: i128,
    /// The pod does not request a resource the quota tracks (`cpu`, `memory`).
    pub must_specify: bool,
}

/// A milli-unit amount as a quantity: `2`, `500m`, `64Gi`.
pub(crate) fn format_milli(v: i128) -> String {
    if v % 1000 != 0 {
        return format!("{v}m");
    }
    let n = v / 1000;
    for (suffix, size) in [("Ti", 1_i128 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20)] {
        if n >= size && n % size == 0 {
            return format!("{}{suffix}", n / size);
        }
    }
    n.to_string()
}

impl Exceeded {
    /// `quota `gpu-quota` has 2 of 8 requests.nvidia.com/gpu left and each pod requests 2`.
    pub(crate) fn reason(&self) -> String {
        if self.must_specify {
            return format!(
                "quota `{}` tracks `{}`, which a container does not request (every container must set it)",
                self.quota, self.resource
            );
        }
        format!(
            "quota `{}` has {} of {} `{}` left (used {}), and a pod needs {}",
            self.quota,
            format_milli((self.hard - self.used).max(0)),
            format_milli(self.hard),
            self.resource,
            format_milli(self.used),
            format_milli(self.requested)
        )
    }
}

/// The quotas of every namespace, with their room.
#[derive(Debug, Clone, Default)]
pub(crate) struct Quotas {
    by_namespace: HashMap<String, Vec<Quota>>,
    /// Per namespace, the quotas with `limits.*` entries (not enforced: the pod record keeps
    /// requests only) and those entries.
    limits: HashMap<String, Vec<(String, Vec<String>)>>,
    /// The namespaces where a pod was created under such a quota (each noted once).
    limits_met: std::collections::BTreeSet<String>,
}

impl Quotas {
    /// The ResourceQuotas of `cluster` and `objects` (an added one replaces the cluster's of
    /// the same name). A quota without `status.used` counts the stored pods of its namespace.
    pub(crate) fn of(objects: &Snapshot, cluster: Option<&Snapshot>) -> Self {
        let mut all: BTreeMap<(String, String), &ResourceQuota> = BTreeMap::new();
        for q in cluster
            .into_iter()
            .flat_map(|c| &c.resource_quotas)
            .chain(&objects.resource_quotas)
        {
            all.insert(
                (
                    namespace_of(&q.metadata).to_owned(),
                    name_of(&q.metadata).to_owned(),
                ),
                q,
            );
        }
        let mut by_namespace: HashMap<String, Vec<Quota>> = HashMap::new();
        let mut limits: HashMap<String, Vec<(String, Vec<String>)>> = HashMap::new();
        for ((ns, name), q) in all {
            let limit_entries: Vec<String> = q
                .spec
                .as_ref()
                .and_then(|s| s.hard.as_ref())
                .into_iter()
                .flatten()
                .map(|(k, _)| k.clone())
                .filter(|k| k.starts_with("limits."))
                .collect();
            if !limit_entries.is_empty() {
                limits
                    .entry(ns.clone())
                    .or_default()
                    .push((name.clone(), limit_entries));
            }
            let hard: BTreeMap<String, i128> = q
                .spec
                .as_ref()
                .and_then(|s| s.hard.as_ref())
                .into_iter()
                .flatten()
                .filter(|(k, _)| !k.starts_with("limits."))
                .filter_map(|(k, v)| Some((k.clone(), milli(v)?)))
                .collect();
            if hard.is_empty() {
                continue;
            }
            let scope = Scope::of(q);
            let used = match q.status.as_ref().and_then(|s| s.used.as_ref()) {
                Some(used) => used
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), milli(v)?)))
                    .collect(),
                None => {
                    let mut used = BTreeMap::new();
                    let pods = cluster
                        .into_iter()
                        .flat_map(|c| &c.pods)
                        .chain(&objects.pods)
                        .filter(|p| is_stored(&p.metadata) && namespace_of(&p.metadata) == ns);
                    for pod in pods.filter(|p| counts(p)) {
                        let usage = pod_usage(pod);
                        if scope.as_ref().is_some_and(|s| s.matches(pod, &usage)) {
                            for (k, v) in usage.into_iter().filter(|(k, _)| hard.contains_key(k)) {
                                *used.entry(k).or_default() += v;
                            }
                        }
                    }
                    used
                }
            };
            by_namespace.entry(ns).or_default().push(Quota {
                name,
                hard,
                used,
                scope,
                charged: false,
            });
        }
        Self {
            by_namespace,
            limits,
            limits_met: Default::default(),
        }
    }

    /// The `used` of every quota a created pod was charged to (namespace, name, `used` of
    /// the resources its `hard` names), to store in its `status.used` as the plugin does
    /// when it admits a pod (plugin/pkg/admission/resourcequota/controller.go `checkQuotas`
    /// writes the new usage to the quota's status before the pod is stored).
    pub(crate) fn charged(&self) -> Vec<(String, String, BTreeMap<String, i128>)> {
        let mut out: Vec<_> = self
            .by_namespace
            .iter()
            .flat_map(|(ns, qs)| qs.iter().map(move |q| (ns, q)))
            .filter(|(_, q)| q.charged)
            .map(|(ns, q)| {
                let used = q
                    .used
                    .iter()
                    .filter(|(k, _)| q.hard.contains_key(*k))
                    .map(|(k, v)| (k.clone(), *v))
                    .collect();
                (ns.clone(), q.name.clone(), used)
            })
            .collect();
        out.sort();
        out
    }

    /// `used` of `resource` in quota `quota` of `namespace`, in milli-units (0 when the
    /// quota does not count it or does not exist).
    pub(crate) fn used(&self, namespace: &str, quota: &str, resource: &str) -> i128 {
        self.by_namespace
            .get(namespace)
            .into_iter()
            .flatten()
            .find(|q| q.name == quota)
            .and_then(|q| q.used.get(resource).copied())
            .unwrap_or(0)
    }

    /// True when no namespace has a quota this module enforces (or notes).
    pub(crate) fn is_empty(&self) -> bool {
        self.by_namespace.is_empty() && self.limits.is_empty()
    }

    /// One warning per namespace where a pod was created (charged) under a quota with
    /// `limits.*` entries, which are not counted: the pod record keeps requests only (a
    /// container's limits set its missing requests, then are dropped; see
    /// `snapshot::pod`). The API server counts them (pods.go `podComputeUsageHelper`:
    /// `limits.cpu`, `limits.memory`, `limits.ephemeral-storage`) and refuses a pod with a
    /// container without a CPU or memory limit the quota tracks ("must specify limits.cpu",
    /// pods.go `Constraints`), so fewer pods may be created than simulated. Said, never
    /// guessed: the limits are not known here.
    pub(crate) fn limits_warnings(&self) -> Vec<Warning> {
        self.limits_met
            .iter()
            .filter_map(|ns| {
                let quotas = self.limits.get(ns)?;
                let named: Vec<String> = quotas
                    .iter()
                    .map(|(q, entries)| {
                        format!(
                            "`{q}` ({})",
                            entries
                                .iter()
                                .map(|e| format!("`{e}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })
                    .collect();
                Some(Warning::new(
                    "QuotaLimitsNotCounted",
                    format!(
                        "ResourceQuota {} of namespace `{ns}` counts container limits, which wasctl does not keep (requests only): they are not counted, so the API server may create fewer of these pods than simulated, and refuses a pod whose containers lack a CPU or memory limit the quota tracks (\"must specify limits.cpu\")",
                        named.join(", ")
                    ),
                ))
            })
            .collect()
    }

    /// Creates `pod` under its namespace's quotas: when every matching quota has room, its
    /// usage is added to them; otherwise nothing changes and the first quota (in name order)
    /// and resource that refuse it are returned.
    pub(crate) fn charge(&mut self, pod: &Pod) -> Result<(), Exceeded> {
        let ns = namespace_of(&pod.metadata);
        if self.limits.contains_key(ns) && !self.limits_met.contains(ns) {
            self.limits_met.insert(ns.to_owned());
        }
        let Some(quotas) = self.by_namespace.get_mut(ns) else {
            return Ok(());
        };
        let usage = pod_usage(pod);
        let matching: Vec<usize> = quotas
            .iter()
            .enumerate()
            .filter(|(_, q)| q.scope.as_ref().is_some_and(|s| s.matches(pod, &usage)))
            .map(|(i, _)| i)
            .collect();
        for &i in &matching {
            let q = &quotas[i];
            for (tracked, resource) in MUST_SPECIFY {
                if !q.hard.contains_key(*tracked) {
                    continue;
                }
                let unset = pod.spec.as_ref().is_some_and(|s| {
                    let pod_level = s
                        .resources
                        .as_ref()
                        .and_then(|r| r.requests.as_ref())
                        .is_some_and(|r| r.contains_key(*resource));
                    !pod_level
                        && s.containers.iter().any(|c| {
                            !c.resources
                                .as_ref()
                                .and_then(|r| r.requests.as_ref())
                                .is_some_and(|r| r.contains_key(*resource))
                        })
                });
                if unset {
                    return Err(Exceeded {
                        quota: q.name.clone(),
                        resource: (*tracked).to_owned(),
                        hard: q.hard[*tracked],
                        used: q.used.get(*tracked).copied().unwrap_or(0),
                        requested: 0,
                        must_specify: true,
                    });
                }
            }
            for (resource, hard) in &q.hard {
                let Some(need) = usage.get(resource) else {
                    continue;
                };
                let used = q.used.get(resource).copied().unwrap_or(0);
                if used + need > *hard {
                    return Err(Exceeded {
                        quota: q.name.clone(),
                        resource: resource.clone(),
                        hard: *hard,
                        used,
                        requested: *need,
                        must_specify: false,
                    });
                }
            }
        }
        for i in matching {
            let q = &mut quotas[i];
            q.charged = true;
            for (resource, need) in &usage {
                if q.hard.contains_key(resource) {
                    *q.used.entry(resource.clone()).or_default() += need;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, gpus: &str, class: Option<&str>) -> serde_json::Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml"},
            "spec": {"priorityClassName": class, "containers": [{"name": "c", "image": "x",
                "resources": {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": gpus}}}]}})
    }

    fn quota(hard: serde_json::Value, used: Option<serde_json::Value>) -> serde_json::Value {
        let mut q = json!({"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "gpu-quota", "namespace": "ml", "uid": "uid-q"},
            "spec": {"hard": hard}});
        if let Some(used) = used {
            q["status"] = json!({"hard": q["spec"]["hard"].clone(), "used": used});
        }
        q
    }

    /// `hard - used` decides, and each created pod uses up room for the next
    /// (pkg/quota/v1/evaluator/core/pods.go `PodUsageFunc`: `requests.<extended>`).
    #[test]
    fn pods_are_created_while_the_quota_has_room() {
        let s = super::super::test_snapshot(&[
            quota(
                json!({"requests.nvidia.com/gpu": "8", "pods": "10"}),
                Some(json!({"requests.nvidia.com/gpu": "4", "pods": "2"})),
            ),
            pod("a", "2", None),
        ]);
        let mut quotas = Quotas::of(&s, None);
        let p = s.pods[0].as_ref();
        assert_eq!(quotas.charge(p), Ok(()));
        assert_eq!(quotas.charge(p), Ok(()));
        let e = quotas.charge(p).expect_err("8 of 8 used");
        assert_eq!(e.resource, "requests.nvidia.com/gpu");
        assert_eq!((e.hard, e.used, e.requested), (8000, 8000, 2000));
        assert_eq!(
            e.reason(),
            "quota `gpu-quota` has 0 of 8 `requests.nvidia.com/gpu` left (used 8), and a pod needs 2"
        );
    }

    /// A quota without a status (a manifest) counts the namespace's stored pods; a
    /// `PriorityClass` scope selector applies the quota to the pods of those classes only.
    #[test]
    fn a_quota_without_status_counts_stored_pods_and_scopes_select_pods() {
        let mut running = pod("running", "3", None);
        running["metadata"]["uid"] = json!("uid-running");
        let mut scoped = quota(json!({"requests.nvidia.com/gpu": "4"}), None);
        scoped["spec"]["scopeSelector"] = json!({"matchExpressions": [
            {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]});
        let s = super::super::test_snapshot(&[
            quota(json!({"requests.nvidia.com/gpu": "4"}), None),
            running,
            pod("new", "2", None),
        ]);
        let mut quotas = Quotas::of(&s, None);
        let new = s
            .pods
            .iter()
            .find(|p| name_of(&p.metadata) == "new")
            .expect("pod");
        assert_eq!(quotas.charge(new).map_err(|e| e.used), Err(3000));
        let s = super::super::test_snapshot(&[
            scoped,
            pod("low", "4", None),
            pod("high", "4", Some("high")),
        ]);
        let mut quotas = Quotas::of(&s, None);
        for p in &s.pods {
            assert_eq!(quotas.charge(p), Ok(()), "{}", name_of(&p.metadata));
        }
        let high = s
            .pods
            .iter()
            .find(|p| name_of(&p.metadata) == "high")
            .expect("pod");
        assert!(quotas.charge(high).is_err());
    }

    /// A quota that tracks `requests.cpu` refuses a pod whose container requests no CPU
    /// (upstream's "must specify" check for compute resources a quota tracks).
    #[test]
    fn a_quota_on_cpu_needs_every_container_to_request_cpu() {
        let bare = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "bare", "namespace": "ml"},
            "spec": {"containers": [{"name": "c", "image": "x"}]}});
        let s = super::super::test_snapshot(&[quota(json!({"requests.cpu": "10"}), None), bare]);
        let e = Quotas::of(&s, None)
            .charge(&s.pods[0])
            .expect_err("no cpu request");
        assert!(
            e.must_specify && e.reason().contains("tracks `requests.cpu`"),
            "{e:?}"
        );
    }

    /// The plugin writes the new usage to the quota's status when it admits a pod
    /// (resourcequota/controller.go `checkQuotas`): admitting a manifest pod stores it in
    /// `status.used`, so the next admission sees what is left.
    #[test]
    fn admitted_pods_are_stored_in_the_quota_status() {
        let mut s = super::super::test_snapshot(&[
            quota(
                json!({"requests.nvidia.com/gpu": "8", "pods": "10"}),
                Some(json!({"requests.nvidia.com/gpu": "4", "pods": "2", "secrets": "1"})),
            ),
            pod("a", "2", None),
        ]);
        let a = super::super::admit(&mut s, None);
        let used = s.resource_quotas[0]
            .status
            .as_ref()
            .and_then(|st| st.used.clone())
            .expect("status.used");
        let used: BTreeMap<&str, &str> = used
            .iter()
            .map(|(k, v)| (k.as_str(), v.0.as_str()))
            .collect();
        assert_eq!(
            used,
            BTreeMap::from([
                ("pods", "3"),
                ("requests.nvidia.com/gpu", "6"),
                ("secrets", "1")
            ])
        );
        // Recorded into another snapshot (the cluster of `--add`), the same.
        let mut cluster =
            super::super::test_snapshot(&[quota(json!({"requests.nvidia.com/gpu": "8"}), None)]);
        a.record(&mut cluster);
        assert!(cluster.resource_quotas[0].status.is_some());
    }

    /// pods.go `podComputeUsageHelper` counts `limits.cpu`/`limits.memory`; the pod record
    /// keeps requests only, so such entries are not counted, and a warning says so only for a
    /// namespace where a pod is created under such a quota (never a guessed refusal).
    #[test]
    fn limits_entries_are_not_counted_but_said_where_pods_are_created() {
        let mut limits = quota(json!({"limits.cpu": "1"}), None);
        limits["metadata"]["name"] = json!("compute");
        let s = super::super::test_snapshot(&[limits, pod("a", "2", None)]);
        let mut quotas = Quotas::of(&s, None);
        assert!(quotas.limits_warnings().is_empty(), "no pod created yet");
        assert!(!quotas.is_empty());
        // 1 CPU of limits, the pod asks 1 CPU of requests and sets no limit: not refused here.
        assert_eq!(quotas.charge(&s.pods[0]), Ok(()));
        let w = quotas.limits_warnings();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, "QuotaLimitsNotCounted");
        assert!(
            w[0].message.starts_with(
                "ResourceQuota `compute` (`limits.cpu`) of namespace `ml` counts container limits"
            ),
            "{}",
            w[0].message
        );
        let mut other = pod("b", "2", None);
        other["metadata"]["namespace"] = json!("elsewhere");
        let s = super::super::test_snapshot(&[quota(json!({"limits.cpu": "1"}), None), other]);
        let mut quotas = Quotas::of(&s, None);
        assert_eq!(quotas.charge(&s.pods[0]), Ok(()));
        assert!(quotas.limits_warnings().is_empty(), "another namespace");
    }

    #[test]
    fn amounts_are_written_as_quantities() {
        assert_eq!(format_milli(2000), "2");
        assert_eq!(format_milli(500), "500m");
        assert_eq!(format_milli(64 * 1000 * (1 << 30)), "64Gi");
    }
}
