//! Events (core `v1`; `events.k8s.io/v1` ones converted on reading), kept for what other
//! schedulers recorded: Volcano writes its reasons as Events on its PodGroups
//! (`Unschedulable`) and on their pods (`FailedScheduling` "0/8 nodes are available: …").
//! wasctl reads nothing else from Events, so the loader keeps only the ones that may say why
//! a gang waits ([`is_kept`]): those on Volcano's objects, and the scheduling reasons on pods.
//! Everything else an Event list holds (image pulls, probes, node events) is dropped as it is
//! read. Pure: no IO.

use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;
use serde_json::{Map, Value};

/// The reasons on a pod that say whether and why it was placed (kube-scheduler's and
/// Volcano's: `FailedScheduling`, `Scheduled`; Volcano's `Unschedulable` and `Evict`).
pub(crate) const POD_REASONS: &[&str] =
    &["FailedScheduling", "Scheduled", "Unschedulable", "Evict"];

/// The API groups whose objects' Events are all kept (Volcano's).
const KEPT_GROUPS: &[&str] = &["scheduling.volcano.sh", "batch.volcano.sh"];

/// True for an Event (core `v1` shape) some report reads: on a Volcano object, or a pod's
/// scheduling reason.
pub(crate) fn is_kept(value: &Value) -> bool {
    let involved = value.get("involvedObject");
    let field = |f: &str| {
        involved
            .and_then(|o| o.get(f))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let group = field("apiVersion").rsplit_once('/').map_or("", |(g, _)| g);
    if KEPT_GROUPS.contains(&group) {
        return true;
    }
    let reason = value.get("reason").and_then(Value::as_str).unwrap_or("");
    field("kind") == "Pod" && POD_REASONS.contains(&reason)
}

/// An `events.k8s.io/v1` Event in the core `v1` shape (the fields the API server maps
/// between the two: `regarding` → `involvedObject`, `note` → `message`, the `deprecated*`
/// fields back to their names, `series` to `count` and `lastTimestamp`,
/// `reportingController` → `reportingComponent`).
pub(crate) fn from_events_v1(value: Value) -> Value {
    let Value::Object(mut m) = value else {
        return value;
    };
    let mut out = Map::new();
    out.insert("apiVersion".to_owned(), Value::from("v1"));
    out.insert("kind".to_owned(), Value::from("Event"));
    for (from, to) in [
        ("metadata", "metadata"),
        ("regarding", "involvedObject"),
        ("related", "related"),
        ("note", "message"),
        ("reason", "reason"),
        ("type", "type"),
        ("action", "action"),
        ("eventTime", "eventTime"),
        ("deprecatedCount", "count"),
        ("deprecatedFirstTimestamp", "firstTimestamp"),
        ("deprecatedLastTimestamp", "lastTimestamp"),
        ("deprecatedSource", "source"),
        ("reportingController", "reportingComponent"),
        ("reportingInstance", "reportingInstance"),
    ] {
        if let Some(v) = m.remove(from).filter(|v| !v.is_null()) {
            out.insert(to.to_owned(), v);
        }
    }
    if let Some(series) = m.remove("series").filter(|v| !v.is_null()) {
        if let Some(count) = series.get("count") {
            out.insert("count".to_owned(), count.clone());
        }
        if let Some(last) = series.get("lastObservedTime") {
            out.insert("lastTimestamp".to_owned(), last.clone());
        }
        out.insert("series".to_owned(), series);
    }
    Value::Object(out)
}

/// When the event was last seen: `lastTimestamp`, else the series' last observation,
/// `eventTime`, `firstTimestamp`, the object's creation.
pub(crate) fn last_seen(e: &Event) -> Option<Timestamp> {
    e.last_timestamp
        .as_ref()
        .map(|t| t.0)
        .or_else(|| {
            e.series
                .as_ref()
                .and_then(|s| s.last_observed_time.as_ref())
                .map(|t| t.0)
        })
        .or_else(|| e.event_time.as_ref().map(|t| t.0))
        .or_else(|| e.first_timestamp.as_ref().map(|t| t.0))
        .or_else(|| e.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// How many times it happened (`count`, the series' count, else once).
pub(crate) fn count(e: &Event) -> i32 {
    e.count
        .or_else(|| e.series.as_ref().and_then(|s| s.count))
        .unwrap_or(1)
        .max(1)
}

/// Who recorded it (`source.component`, else `reportingComponent`), `""` when unsaid.
pub(crate) fn reporter(e: &Event) -> &str {
    e.source
        .as_ref()
        .and_then(|s| s.component.as_deref())
        .filter(|c| !c.is_empty())
        .or(e.reporting_component.as_deref())
        .unwrap_or_default()
}

/// True when `e` is about the object `kind` `namespace/name` (any API version of it).
pub(crate) fn is_about(e: &Event, group: &str, kind: &str, namespace: &str, name: &str) -> bool {
    let o = &e.involved_object;
    let their_group = o
        .api_version
        .as_deref()
        .unwrap_or_default()
        .rsplit_once('/')
        .map_or("", |(g, _)| g);
    their_group == group
        && o.kind.as_deref() == Some(kind)
        && o.name.as_deref() == Some(name)
        && o.namespace.as_deref().unwrap_or_default() == namespace
}

/// The Events about the Volcano PodGroup `namespace/name`, its member pods (by their group
/// annotation) and the Volcano Job that owns it, newest first.
pub(crate) fn of_volcano_group<'a>(
    s: &'a super::Snapshot,
    namespace: &str,
    name: &str,
) -> Vec<&'a Event> {
    let members: std::collections::BTreeSet<&str> = s
        .pods
        .iter()
        .filter(|p| {
            super::namespace_of(&p.metadata) == namespace
                && super::volcano::group_name_of(&p.metadata) == Some(name)
        })
        .map(|p| super::name_of(&p.metadata))
        .collect();
    let job = s
        .volcano
        .pod_group(namespace, name)
        .and_then(super::volcano::PodGroup::owner_job);
    let mut out: Vec<&Event> = s
        .events
        .iter()
        .filter(|e| {
            let o = &e.involved_object;
            if o.namespace.as_deref().unwrap_or_default() != namespace {
                return false;
            }
            is_about(e, super::volcano::GROUP, "PodGroup", namespace, name)
                || job.is_some_and(|j| is_about(e, super::volcano::JOB_GROUP, "Job", namespace, j))
                || (o.kind.as_deref() == Some("Pod")
                    && o.name.as_deref().is_some_and(|n| members.contains(n)))
        })
        .collect();
    out.sort_by_key(|e| std::cmp::Reverse(last_seen(e)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_events_on_volcano_objects_and_pod_scheduling_reasons_are_kept() {
        let ev = |api: &str, kind: &str, reason: &str| json!({"involvedObject": {"apiVersion": api, "kind": kind, "name": "x"}, "reason": reason});
        assert!(is_kept(&ev(
            "scheduling.volcano.sh/v1beta1",
            "PodGroup",
            "Unschedulable"
        )));
        assert!(is_kept(&ev(
            "batch.volcano.sh/v1alpha1",
            "Job",
            "PodGroupPending"
        )));
        assert!(is_kept(&ev("v1", "Pod", "FailedScheduling")));
        assert!(!is_kept(&ev("v1", "Pod", "Pulled")));
        assert!(!is_kept(&ev("v1", "Node", "NodeReady")));
    }

    #[test]
    fn an_events_k8s_io_event_reads_as_the_core_one() {
        let v = from_events_v1(json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "e", "namespace": "ml"},
            "regarding": {"apiVersion": "v1", "kind": "Pod", "name": "p", "namespace": "ml"},
            "note": "0/8 nodes are available", "reason": "FailedScheduling", "type": "Warning",
            "eventTime": "2026-11-20T09:00:00.000000Z", "reportingController": "volcano",
            "series": {"count": 7, "lastObservedTime": "2026-11-20T11:00:00.000000Z"}
        }));
        let e: Event = serde_json::from_value(v).unwrap();
        assert_eq!(e.message.as_deref(), Some("0/8 nodes are available"));
        assert_eq!(count(&e), 7);
        assert_eq!(reporter(&e), "volcano");
        assert_eq!(last_seen(&e).unwrap().to_string(), "2026-11-20T11:00:00Z");
        assert!(is_about(&e, "", "Pod", "ml", "p"));
        assert!(!is_about(&e, "", "Pod", "ml", "q"));
    }
}
