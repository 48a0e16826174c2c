//! `--watch`: what changed for each unit between two results of the same command, and the
//! changes of the cluster that came in between (the watch events' words, "pod ml/w-3
//! deleted", "node gpu-7 cordoned").
//!
//! Which units changed, and how, is [`super::diff`]'s comparison of the two plans (outcome,
//! topology domain, placement, victims, reason); this module adds the events as causes, the
//! unit's own first. Pure: no IO.

use std::collections::BTreeSet;

use serde::Serialize;

use super::diff::{Change, diff};
use crate::sched::plan::Plan;
use crate::snapshot::{ObjKind, ObjRef, Snapshot};

/// One unit whose result changed while watching (`kind: WatchEvent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WatchEvent {
    /// How the unit's result changed (the words of `diff`'s `change`).
    #[serde(rename = "type")]
    pub change: Change,
    /// The unit.
    pub unit: Unit,
    /// The outcome before: `Scheduled`, `Unschedulable`, `Waiting`, `Preempting`, `Error`,
    /// `Suspended`, `NotSimulated`, `NotPending` (nothing of it pending) or `Absent`.
    pub before: String,
    /// The outcome after, in the same words.
    pub after: String,
    /// The topology domain chosen before (`key=value`), when the unit has a constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_domain: Option<String>,
    /// The topology domain chosen after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_domain: Option<String>,
    /// The simulator's message after, when it has one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The changes of the cluster since the previous result: those that name the unit, its
    /// member pods or the nodes it was or is placed on first; at most [`crate::report::MAX_CAUSES`], then
    /// a count.
    pub causes: Vec<String>,
}

/// A unit, as named in a [`WatchEvent`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Unit {
    /// `PodGroup`, `CompositePodGroup` or `Pod`.
    pub kind: ObjKind,
    /// The unit's namespace.
    pub namespace: String,
    /// The unit's name.
    pub name: String,
}

/// The units whose result changed from (`old`, `old_plan`) to (`new`, `new_plan`), in a stable
/// order (kind, namespace, name), each with `events` (the cluster's changes in between, in
/// the order they came) as causes.
pub(crate) fn changes(
    old: &Snapshot,
    old_plan: &Plan,
    new: &Snapshot,
    new_plan: &Plan,
    events: &[String],
) -> Vec<WatchEvent> {
    let report = diff(old, old_plan, new, new_plan, ("before", "after"), true);
    report
        .units
        .into_iter()
        .map(|u| {
            let key = ObjRef::new(u.kind.clone(), &u.namespace, &u.name);
            let names: Vec<String> = related_names(old, old_plan, new, new_plan, &key)
                .into_iter()
                .collect();
            let causes = crate::report::ordered_causes(events, &names);
            WatchEvent {
                change: u.change,
                unit: Unit {
                    kind: u.kind,
                    namespace: u.namespace,
                    name: u.name,
                },
                before: u.before,
                after: u.after,
                before_domain: u.before_domain,
                after_domain: u.after_domain,
                message: u.after_message,
                causes,
            }
        })
        .collect()
}

/// The names an event about the unit would use: the unit itself, its member pods, the nodes
/// it is placed on (or was), on either side.
fn related_names(
    old: &Snapshot,
    old_plan: &Plan,
    new: &Snapshot,
    new_plan: &Plan,
    key: &ObjRef,
) -> BTreeSet<String> {
    let (ns, name) = (key.namespace.as_str(), key.name.as_str());
    let mut out = BTreeSet::from([format!("{ns}/{name}")]);
    for (s, plan) in [(old, old_plan), (new, new_plan)] {
        if key.kind == ObjKind::PodGroup {
            for i in s.index.pods_by_group.get(ns, name) {
                if let Some(p) = s.pods.get(*i) {
                    out.insert(format!("{ns}/{}", crate::snapshot::name_of(&p.metadata)));
                }
            }
        }
        if let Some(u) = plan.unit(key) {
            for p in &u.placements {
                out.insert(p.node.clone());
                out.insert(format!("{ns}/{}", p.pod));
            }
            for v in &u.victims {
                out.insert(format!("{}/{}", v.namespace, v.name));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::MAX_CAUSES;
    use crate::sched::Options;

    fn snapshot(objects: &[serde_json::Value]) -> Snapshot {
        crate::snapshot::source::files::test_snapshot_of(objects)
    }

    fn pod(name: &str, cpu: &str, node: Option<&str>) -> serde_json::Value {
        let mut p = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml", "uid": format!("uid-{name}")},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": "Pending"}});
        if let Some(n) = node {
            p["spec"]["nodeName"] = n.into();
            p["status"]["phase"] = "Running".into();
        }
        p
    }

    fn node(name: &str) -> serde_json::Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    }

    fn plan(s: &Snapshot) -> Plan {
        crate::sched::simulate(s, &Options::default())
    }

    #[test]
    fn a_deleted_blocker_makes_the_pending_pod_schedulable_and_is_named_first() {
        let old = snapshot(&[
            node("n1"),
            pod("blocker", "3", Some("n1")),
            pod("w-3", "2", None),
            pod("other", "1", Some("n1")),
        ]);
        let mut new = old.clone();
        let text = pod("blocker", "3", Some("n1")).to_string();
        crate::snapshot::source::watch::apply(&mut new, "v1", "Pod", &text, true).unwrap();
        new.after_objects_changed();
        let events = [
            "node n9 added".to_owned(),
            "pod ml/blocker deleted".to_owned(),
        ];
        let (old_plan, new_plan) = (plan(&old), plan(&new));
        let got = changes(&old, &old_plan, &new, &new_plan, &events);
        assert_eq!(got.len(), 1, "{got:?}");
        let e = &got[0];
        assert_eq!(
            (e.unit.name.as_str(), e.before.as_str(), e.after.as_str()),
            ("w-3", "Unschedulable", "Scheduled")
        );
        assert_eq!(e.change, Change::NewlySchedulable);
        // Neither event names the unit, its pods or its node (n1): they stay in arrival order.
        assert_eq!(e.causes, events);
        // Nothing changes: no event.
        assert!(changes(&new, &new_plan, &new, &new_plan, &events).is_empty());
    }

    #[test]
    fn causes_naming_the_unit_or_its_nodes_come_first_and_are_capped() {
        let mut events: Vec<String> = (0..7).map(|i| format!("pod ml/x-{i} deleted")).collect();
        events.push("node n1 cordoned".to_owned());
        let old = snapshot(&[node("n1"), pod("w", "1", None)]);
        let mut new = old.clone();
        let mut cordoned = node("n1");
        cordoned["spec"] = serde_json::json!({"unschedulable": true});
        crate::snapshot::source::watch::apply(&mut new, "v1", "Node", &cordoned.to_string(), false)
            .unwrap();
        new.after_objects_changed();
        let (old_plan, new_plan) = (plan(&old), plan(&new));
        let got = changes(&old, &old_plan, &new, &new_plan, &events);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].change, Change::NewlyUnschedulable);
        assert_eq!(got[0].causes[0], "node n1 cordoned");
        assert_eq!(got[0].causes.len(), MAX_CAUSES + 1);
        assert_eq!(got[0].causes[MAX_CAUSES], "… and 3 more change(s)");
    }
}
