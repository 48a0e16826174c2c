//! The `RuntimeClass` admission plugin (plugin/pkg/admission/runtimeclass).
//!
//! For a pod with `runtimeClassName`, as upstream's `Admit` and `Validate` do:
//! - the class must exist ("pod rejected: RuntimeClass … not found");
//! - `overhead.podFixed` becomes the pod's `spec.overhead` (which NodeResourcesFit adds to the
//!   pod's requests); an overhead already written that differs is refused ("Pod's Overhead
//!   doesn't match RuntimeClass's defined Overhead"), and so is an overhead written on a pod
//!   whose class defines none (or without a class). Quantities are compared as written;
//!   `0.5` and `500m` count as different here, where upstream compares values;
//! - `scheduling.nodeSelector` is merged into the pod's (the same key with another value is
//!   refused: "conflict: runtimeClass.scheduling.nodeSelector[…]"), and
//!   `scheduling.tolerations` are added to the pod's (those already present are not
//!   repeated).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::Admission;
use crate::snapshot::pod::Pod;
use crate::snapshot::{KindCoverage, Snapshot, name_of};

/// The RuntimeClasses admission reads.
pub(crate) struct Classes {
    by_name: HashMap<String, RuntimeClass>,
    /// The classes are all known: a name found nowhere is refused.
    known: bool,
}

impl Classes {
    /// The RuntimeClasses of `objects` and `cluster`.
    pub(crate) fn of(objects: &Snapshot, cluster: Option<&Snapshot>) -> Self {
        let by_name: HashMap<String, RuntimeClass> = cluster
            .into_iter()
            .flat_map(|c| &c.runtime_classes)
            .chain(&objects.runtime_classes)
            .map(|rc| (name_of(&rc.metadata).to_owned(), rc.clone()))
            .collect();
        let known = match cluster.unwrap_or(objects).coverage("RuntimeClass") {
            KindCoverage::Unreadable { .. } => false,
            KindCoverage::NotInInput => !by_name.is_empty(),
            _ => true,
        };
        Self { by_name, known }
    }
}

fn same(a: &BTreeMap<String, Quantity>, b: &BTreeMap<String, Quantity>) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && va.0.trim() == vb.0.trim())
}

/// Admits one manifest pod; `Err` with the reason the API server refuses it. `Ok(false)`
/// when its class could not be known (left as written).
pub(super) fn admit_pod(
    pod: &mut Pod,
    classes: &Classes,
    out: &mut Admission,
) -> Result<bool, String> {
    let Some(spec) = pod.spec.as_mut() else {
        return Ok(true);
    };
    let written = spec.overhead.as_ref().filter(|o| !o.is_empty());
    let Some(name) = spec.runtime_class_name.clone().filter(|n| !n.is_empty()) else {
        if written.is_some() {
            return Err(
                "`overhead` is set without a RuntimeClass that defines it (pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead)"
                    .to_owned(),
            );
        }
        return Ok(true);
    };
    let Some(rc) = classes.by_name.get(&name) else {
        if classes.known {
            return Err(format!("runtimeClassName `{name}` names no RuntimeClass"));
        }
        return Ok(false);
    };
    let fixed = rc.overhead.as_ref().and_then(|o| o.pod_fixed.clone());
    match (&fixed, written) {
        (Some(f), Some(w)) if !same(f, w) => {
            return Err(format!(
                "`overhead` differs from RuntimeClass `{name}`'s overhead.podFixed (pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead)"
            ));
        }
        (None, Some(_)) => {
            return Err(format!(
                "`overhead` is set but RuntimeClass `{name}` defines none"
            ));
        }
        _ => {}
    }
    let scheduling = rc.scheduling.as_ref();
    let selector = scheduling.and_then(|s| s.node_selector.as_ref());
    for (k, v) in selector.into_iter().flatten() {
        if let Some(pv) = spec.node_selector.as_ref().and_then(|s| s.get(k))
            && pv != v
        {
            return Err(format!(
                "conflict: runtimeClass.scheduling.nodeSelector[{k}] = {v}; pod.spec.nodeSelector[{k}] = {pv}"
            ));
        }
    }
    // Accepted: change it.
    if let Some(f) = fixed
        && !f.is_empty()
        && spec.overhead.as_ref().is_none_or(BTreeMap::is_empty)
    {
        spec.overhead = Some(f);
        out.count(
            "RuntimeClassOverhead",
            "overhead set from the RuntimeClass (counted in the pod's requests)",
        );
    }
    let mut changed = false;
    for (k, v) in selector.into_iter().flatten() {
        let s = spec.node_selector.get_or_insert_with(BTreeMap::new);
        if s.get(k) != Some(v) {
            s.insert(k.clone(), v.clone());
            changed = true;
        }
    }
    let extra = scheduling.and_then(|s| s.tolerations.as_ref());
    if let Some(extra) = extra {
        let mut list = spec.tolerations.as_deref().unwrap_or_default().to_vec();
        let before = list.len();
        for t in extra {
            if !list.contains(t) {
                list.push(t.clone());
            }
        }
        if list.len() != before {
            spec.tolerations = Some(Arc::from(list));
            changed = true;
        }
    }
    if changed {
        out.count(
            "RuntimeClassScheduling",
            "nodeSelector and tolerations merged from the RuntimeClass",
        );
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::admit;
    use super::super::test_snapshot as snapshot;

    fn gvisor() -> serde_json::Value {
        serde_json::json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
            "metadata": {"name": "gvisor"}, "handler": "runsc",
            "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
            "scheduling": {"nodeSelector": {"runtime": "gvisor"},
                "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}})
    }

    fn pod(name: &str, spec: serde_json::Value) -> serde_json::Value {
        let mut spec = spec;
        spec["containers"] = serde_json::json!([{"name": "c", "image": "i"}]);
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml"}, "spec": spec})
    }

    #[test]
    fn the_class_overhead_and_scheduling_are_set_on_the_pod() {
        let mut s = snapshot(&[
            gvisor(),
            pod(
                "a",
                serde_json::json!({"runtimeClassName": "gvisor", "nodeSelector": {"zone": "z1"}}),
            ),
        ]);
        let a = admit(&mut s, None);
        assert!(a.refused.is_empty(), "{:?}", a.refused);
        let spec = s.pod("ml", "a").unwrap().spec.as_ref().unwrap();
        let overhead = spec.overhead.as_ref().unwrap();
        assert_eq!(overhead["cpu"].0, "250m");
        assert_eq!(overhead["memory"].0, "120Mi");
        let selector = spec.node_selector.as_ref().unwrap();
        assert_eq!(selector["runtime"], "gvisor");
        assert_eq!(selector["zone"], "z1");
        let keys: Vec<&str> = spec
            .tolerations
            .as_deref()
            .unwrap()
            .iter()
            .filter_map(|t| t.key.as_deref())
            .collect();
        assert!(keys.contains(&"sandbox"), "{keys:?}");
        let changes: Vec<&str> = a.admitted.iter().map(|x| x.change.as_str()).collect();
        assert_eq!(changes, ["RuntimeClassOverhead", "RuntimeClassScheduling"]);
    }

    #[test]
    fn a_missing_class_a_conflicting_selector_or_overhead_is_refused() {
        let mut s = snapshot(&[
            gvisor(),
            pod("missing", serde_json::json!({"runtimeClassName": "kata"})),
            pod(
                "conflict",
                serde_json::json!({"runtimeClassName": "gvisor", "nodeSelector": {"runtime": "runc"}}),
            ),
            pod(
                "overhead",
                serde_json::json!({"runtimeClassName": "gvisor", "overhead": {"cpu": "1"}}),
            ),
            pod(
                "bare-overhead",
                serde_json::json!({"overhead": {"cpu": "1"}}),
            ),
            pod(
                "same",
                serde_json::json!({"runtimeClassName": "gvisor", "overhead": {"cpu": "250m", "memory": "120Mi"}}),
            ),
        ]);
        let a = admit(&mut s, None);
        let got: Vec<(&str, &str)> = a
            .refused
            .iter()
            .map(|r| (r.name.as_str(), r.reason.as_str()))
            .collect();
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(got[0].0 == "bare-overhead" && got[0].1.contains("without a RuntimeClass"));
        assert!(got[1].0 == "conflict" && got[1].1.starts_with("conflict: runtimeClass"));
        assert!(got[2].0 == "missing" && got[2].1.contains("`kata` names no RuntimeClass"));
        assert!(got[3].0 == "overhead" && got[3].1.contains("doesn't match"));
    }
}
