//! What every created pod gets: the `DefaultTolerationSeconds` admission plugin
//! (plugin/pkg/admission/defaulttolerationseconds) and the API's default `schedulerName`.
//!
//! `DefaultTolerationSeconds` adds `node.kubernetes.io/not-ready:NoExecute` and
//! `node.kubernetes.io/unreachable:NoExecute` tolerations (`Exists`, 300 s) to a pod that does
//! not already tolerate those taints — a toleration tolerates one when its key is the taint's
//! or empty, and its effect is `NoExecute` or empty, as upstream checks. They let a pod be
//! placed on a node the node lifecycle controller tainted `NoExecute`, so the change is
//! counted (reported) only when a node of the snapshot carries such a taint.
//!
//! `schedulerName` defaults to `default-scheduler` (`SetDefaults_PodSpec`); the simulator
//! already reads a missing name so, and the change is never counted.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Toleration;

use super::Admission;
use crate::snapshot::Snapshot;
use crate::snapshot::pod::Pod;

/// The taint the node lifecycle controller sets on a node whose Ready condition is False.
pub(crate) const NOT_READY: &str = "node.kubernetes.io/not-ready";
/// The taint it sets on a node whose Ready condition is Unknown.
pub(crate) const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`.
pub(crate) const DEFAULT_TOLERATION_SECONDS: i64 = 300;
/// The default `schedulerName`.
pub(crate) const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// True when a node of `objects` or `cluster` carries a not-ready or unreachable `NoExecute`
/// taint (the default tolerations then change where a pod may go).
pub(crate) fn nodes_have_condition_taints(objects: &Snapshot, cluster: Option<&Snapshot>) -> bool {
    cluster
        .into_iter()
        .flat_map(|c| &c.nodes)
        .chain(&objects.nodes)
        .flat_map(|n| n.spec.iter().flat_map(|s| s.taints.iter().flatten()))
        .any(|t| t.effect == "NoExecute" && (t.key == NOT_READY || t.key == UNREACHABLE))
}

fn tolerates(t: &Toleration, key: &str) -> bool {
    let k = t.key.as_deref().unwrap_or("");
    let effect = t.effect.as_deref().unwrap_or("");
    (k == key || k.is_empty()) && (effect == "NoExecute" || effect.is_empty())
}

/// Adds the default tolerations and `schedulerName` to a manifest pod.
pub(super) fn admit_pod(pod: &mut Pod, condition_taints: bool, out: &mut Admission) {
    let spec = pod.spec.get_or_insert_with(Default::default);
    if spec.scheduler_name.as_deref().is_none_or(str::is_empty) {
        spec.scheduler_name = Some(DEFAULT_SCHEDULER.to_owned());
    }
    let mut list: Vec<Toleration> = spec.tolerations.as_deref().unwrap_or_default().to_vec();
    let mut added = false;
    for key in [NOT_READY, UNREACHABLE] {
        if !list.iter().any(|t| tolerates(t, key)) {
            list.push(Toleration {
                key: Some(key.to_owned()),
                operator: Some("Exists".to_owned()),
                effect: Some("NoExecute".to_owned()),
                toleration_seconds: Some(DEFAULT_TOLERATION_SECONDS),
                value: None,
            });
            added = true;
        }
    }
    if added {
        spec.tolerations = Some(Arc::from(list));
        if condition_taints {
            out.count(
                "DefaultTolerations",
                "not-ready/unreachable NoExecute tolerations (300 s) added",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::admit;
    use super::*;

    use super::super::test_snapshot as snapshot;

    fn pod(name: &str, tolerations: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml"},
            "spec": {"containers": [{"name": "c", "image": "i"}], "tolerations": tolerations}})
    }

    fn tolerations(s: &Snapshot, name: &str) -> Vec<(String, Option<i64>)> {
        let spec = s.pod("ml", name).unwrap().spec.as_ref().unwrap();
        spec.tolerations
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|t| (t.key.clone().unwrap_or_default(), t.toleration_seconds))
            .collect()
    }

    #[test]
    fn a_manifest_pod_gets_the_two_default_tolerations_and_the_default_scheduler() {
        let mut s = snapshot(&[pod("a", serde_json::json!([]))]);
        let a = admit(&mut s, None);
        assert_eq!(
            tolerations(&s, "a"),
            [
                (NOT_READY.to_owned(), Some(300)),
                (UNREACHABLE.to_owned(), Some(300))
            ]
        );
        let spec = s.pod("ml", "a").unwrap().spec.as_ref().unwrap();
        assert_eq!(spec.scheduler_name.as_deref(), Some("default-scheduler"));
        assert!(
            a.admitted.is_empty(),
            "no node is tainted: nothing the simulation reads"
        );
    }

    #[test]
    fn a_pod_that_tolerates_the_taint_keeps_its_own_toleration() {
        let mut s = snapshot(&[
            pod(
                "own",
                serde_json::json!([{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}]),
            ),
            pod("all", serde_json::json!([{"operator": "Exists"}])),
        ]);
        admit(&mut s, None);
        assert_eq!(
            tolerations(&s, "own"),
            [
                (NOT_READY.to_owned(), Some(10)),
                (UNREACHABLE.to_owned(), Some(300))
            ]
        );
        assert_eq!(tolerations(&s, "all"), [(String::new(), None)]);
    }

    #[test]
    fn the_change_is_reported_when_a_node_carries_the_taint() {
        let node = serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "uid": "n-1"},
            "spec": {"taints": [{"key": UNREACHABLE, "effect": "NoExecute"}]}});
        let mut s = snapshot(&[node, pod("a", serde_json::json!([]))]);
        let a = admit(&mut s, None);
        assert_eq!(a.admitted.len(), 1);
        assert_eq!(a.admitted[0].change, "DefaultTolerations");
        assert_eq!(
            a.admitted[0].sentence(),
            "not-ready/unreachable NoExecute tolerations (300 s) added on 1 object"
        );
    }
}
