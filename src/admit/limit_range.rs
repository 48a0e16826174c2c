//! The `LimitRanger` admission plugin (plugin/pkg/admission/limitranger), its defaults only.
//!
//! For each LimitRange of the pod's namespace (in name order, as the lister returns them),
//! the `Container` items' default requests are set on every container and init container
//! that has no request of that resource (`defaultContainerResourceRequirements`, then
//! `mergeContainerResources`; an earlier LimitRange's value stays). A LimitRange's
//! `defaultRequest` is itself defaulted when it is stored (`SetDefaults_LimitRangeItem`): from
//! `default` (the default limit, itself defaulted from `max`), then from `min`; a manifest
//! LimitRange is read with the same defaulting. Default *limits* are not kept: the simulator
//! reads requests only, and a limit set by admission does not become a request (the API's
//! limit-to-request defaulting runs before admission).
//!
//! Not modelled: LimitRanger's validation (min, max, ratio — a pod outside them is refused by
//! the API server) and `Pod`-type items (which have no defaults).

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::{LimitRange, LimitRangeItem};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::Admission;
use crate::snapshot::pod::{Container, Pod};
use crate::snapshot::{Snapshot, name_of, namespace_of};

/// Default requests per namespace: one map per LimitRange, in name order.
pub(crate) struct Defaults {
    by_namespace: HashMap<String, Vec<BTreeMap<String, Quantity>>>,
}

/// The default requests of one `Container` item, after `SetDefaults_LimitRangeItem`.
fn item_defaults(item: &LimitRangeItem) -> BTreeMap<String, Quantity> {
    let mut requests = item.default_request.clone().unwrap_or_default();
    let mut limits = item.default.clone().unwrap_or_default();
    for (k, v) in item.max.iter().flatten() {
        limits.entry(k.clone()).or_insert_with(|| v.clone());
    }
    for (k, v) in limits
        .into_iter()
        .chain(item.min.clone().unwrap_or_default())
    {
        requests.entry(k).or_insert(v);
    }
    requests
}

impl Defaults {
    /// The LimitRanges of `objects` and `cluster` (an object's own namespace only).
    pub(crate) fn of(objects: &Snapshot, cluster: Option<&Snapshot>) -> Self {
        let mut ranges: Vec<&LimitRange> = cluster
            .into_iter()
            .flat_map(|c| &c.limit_ranges)
            .chain(&objects.limit_ranges)
            .collect();
        ranges.sort_by_key(|r| (namespace_of(&r.metadata), name_of(&r.metadata)));
        // A LimitRange in both (the same key): the added one wins, as `--add` replaces.
        ranges.dedup_by(|b, a| {
            let same = namespace_of(&a.metadata) == namespace_of(&b.metadata)
                && name_of(&a.metadata) == name_of(&b.metadata);
            if same {
                *a = *b;
            }
            same
        });
        let mut by_namespace: HashMap<String, Vec<BTreeMap<String, Quantity>>> = HashMap::new();
        for r in ranges {
            let mut defaults = BTreeMap::new();
            for item in r.spec.iter().flat_map(|s| &s.limits) {
                if item.type_ == "Container" {
                    // A later item's value for the same resource replaces an earlier one's.
                    defaults.extend(item_defaults(item));
                }
            }
            if !defaults.is_empty() {
                by_namespace
                    .entry(namespace_of(&r.metadata).to_owned())
                    .or_default()
                    .push(defaults);
            }
        }
        Self { by_namespace }
    }
}

fn merge(c: &mut Container, defaults: &BTreeMap<String, Quantity>) -> bool {
    let requests = c
        .resources
        .get_or_insert_with(Default::default)
        .requests
        .get_or_insert_with(BTreeMap::new);
    let mut changed = false;
    for (k, v) in defaults {
        if !requests.contains_key(k) {
            requests.insert(k.clone(), v.clone());
            changed = true;
        }
    }
    changed
}

/// Sets the namespace's default requests on a manifest pod's containers.
pub(super) fn admit_pod(pod: &mut Pod, defaults: &Defaults, out: &mut Admission) {
    let Some(ranges) = defaults.by_namespace.get(namespace_of(&pod.metadata)) else {
        return;
    };
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    let mut changed = false;
    for d in ranges {
        for c in spec
            .containers
            .iter_mut()
            .chain(spec.init_containers.iter_mut().flatten())
        {
            changed |= merge(c, d);
        }
    }
    if changed {
        out.count(
            "LimitRangeDefaults",
            "container requests set from the namespace's LimitRange defaults",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::admit;
    use super::*;

    use super::super::test_snapshot as snapshot;

    fn limit_range(ns: &str, name: &str, item: serde_json::Value) -> serde_json::Value {
        let mut item = item;
        item["type"] = "Container".into();
        serde_json::json!({"apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": name, "namespace": ns}, "spec": {"limits": [item]}})
    }

    fn pod(ns: &str, name: &str, resources: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": resources}]}})
    }

    fn requests(s: &Snapshot, ns: &str, name: &str) -> Vec<(String, String)> {
        let spec = s.pod(ns, name).unwrap().spec.as_ref().unwrap();
        spec.containers[0]
            .resources
            .as_ref()
            .and_then(|r| r.requests.as_ref())
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.0.clone()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_pod_without_requests_takes_the_namespace_defaults() {
        let mut s = snapshot(&[
            limit_range(
                "ml",
                "defaults",
                serde_json::json!({"defaultRequest": {"cpu": "500m"}, "default": {"cpu": "1", "memory": "1Gi"}}),
            ),
            pod("ml", "bare", serde_json::json!({})),
            pod("ml", "own", serde_json::json!({"requests": {"cpu": "2"}})),
            pod("other", "elsewhere", serde_json::json!({})),
        ]);
        let a = admit(&mut s, None);
        // defaultRequest wins for cpu; memory's request defaults from the default limit.
        assert_eq!(
            requests(&s, "ml", "bare"),
            pairs(&[("cpu", "500m"), ("memory", "1Gi")])
        );
        assert_eq!(
            requests(&s, "ml", "own"),
            pairs(&[("cpu", "2"), ("memory", "1Gi")])
        );
        assert!(requests(&s, "other", "elsewhere").is_empty());
        assert_eq!(a.admitted.len(), 1);
        assert_eq!(a.admitted[0].change, "LimitRangeDefaults");
        assert_eq!(a.admitted[0].count, 2);
    }

    #[test]
    fn the_default_request_falls_back_to_max_then_min() {
        let mut s = snapshot(&[
            limit_range(
                "ml",
                "bounds",
                serde_json::json!({"max": {"cpu": "4"}, "min": {"memory": "256Mi"}}),
            ),
            pod("ml", "bare", serde_json::json!({})),
        ]);
        admit(&mut s, None);
        assert_eq!(
            requests(&s, "ml", "bare"),
            pairs(&[("cpu", "4"), ("memory", "256Mi")])
        );
    }

    #[test]
    fn a_limit_written_in_the_pod_is_its_request_and_is_kept() {
        let mut s = snapshot(&[
            limit_range(
                "ml",
                "d",
                serde_json::json!({"defaultRequest": {"cpu": "100m"}}),
            ),
            pod("ml", "p", serde_json::json!({"limits": {"cpu": "3"}})),
        ]);
        let a = admit(&mut s, None);
        assert_eq!(requests(&s, "ml", "p"), pairs(&[("cpu", "3")]));
        assert!(a.admitted.is_empty());
    }
}
