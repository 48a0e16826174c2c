//! `tree --watch`: which objects' recorded status (with the node a pod is bound to) or
//! simulated outcome changed between two tree reports, with the cluster's changes in between
//! as causes. Pure: no IO.

use std::collections::BTreeMap;

use super::{TreeNode, TreeReport};
use crate::report::{ObjectChange, ObjectName, ordered_causes};

/// How a row reads in a change: `Pending (simulated Unschedulable)`, `Running on gpu-1`.
fn state(n: &TreeNode) -> String {
    let mut s = n.status.clone().unwrap_or_else(|| "-".to_owned());
    if let Some(node) = &n.node {
        s.push_str(" on ");
        s.push_str(node);
    }
    if let Some(sim) = &n.simulated {
        s.push_str(" (simulated ");
        s.push_str(sim);
        s.push(')');
    }
    s
}

fn name_of(n: &TreeNode) -> ObjectName {
    ObjectName {
        kind: n.kind.to_string(),
        namespace: n.namespace.clone(),
        name: n.name.clone(),
    }
}

/// Every row of the forest by object (an object drawn twice counts once, where first met).
fn rows<'a>(nodes: &'a [TreeNode], out: &mut BTreeMap<ObjectName, &'a TreeNode>) {
    for n in nodes {
        out.entry(name_of(n)).or_insert(n);
        rows(&n.children, out);
    }
}

/// The objects whose row changed from `old` to `new`, by kind, namespace and name: type
/// `StatusChanged` (the recorded status or node), `SimulatedChanged` (only the simulated
/// outcome), `Added` or `Removed` (before or after `Absent`). `events` (the cluster's changes
/// in between) are the causes, those naming the object or its node first.
pub(crate) fn changes(old: &TreeReport, new: &TreeReport, events: &[String]) -> Vec<ObjectChange> {
    let (mut before, mut after) = (BTreeMap::new(), BTreeMap::new());
    rows(&old.roots, &mut before);
    rows(&new.roots, &mut after);
    let mut keys: Vec<&ObjectName> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for key in keys {
        let (b, a) = (before.get(key), after.get(key));
        let change = match (b, a) {
            (None, Some(_)) => "Added",
            (Some(_), None) => "Removed",
            (Some(b), Some(a)) if (&b.status, &b.node) != (&a.status, &a.node) => "StatusChanged",
            (Some(b), Some(a)) if b.simulated != a.simulated => "SimulatedChanged",
            _ => continue,
        };
        let mut names = vec![key.path()];
        names.extend(b.iter().chain(a.iter()).filter_map(|n| n.node.clone()));
        out.push(ObjectChange {
            change,
            object: key.clone(),
            before: b.map_or_else(|| "Absent".to_owned(), |n| state(n)),
            after: a.map_or_else(|| "Absent".to_owned(), |n| state(n)),
            check: None,
            message: String::new(),
            causes: ordered_causes(events, &names),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{ObjKind, ObjRef};

    fn row(kind: ObjKind, name: &str, status: &str) -> TreeNode {
        let mut n = TreeNode::of(&ObjRef::new(kind, "ml", name));
        n.status = Some(status.to_owned());
        n
    }

    fn report(roots: Vec<TreeNode>) -> TreeReport {
        TreeReport {
            feature_gates: BTreeMap::new(),
            assumed: Vec::new(),
            warnings: Vec::new(),
            roots,
        }
    }

    #[test]
    fn a_line_per_object_whose_status_or_simulated_outcome_changed() {
        let mut pg = row(ObjKind::PodGroup, "train", "Pending");
        let mut pod = row(ObjKind::Pod, "train-0", "Pending");
        pod.simulated = Some("Unschedulable".to_owned());
        let other = row(ObjKind::Pod, "other", "Running");
        pg.children = vec![pod.clone(), other.clone()];
        let old = report(vec![pg.clone()]);
        // The pod would now be scheduled; `other` is gone; a new pod came.
        let mut pod2 = pod.clone();
        pod2.simulated = Some("Scheduled".to_owned());
        let mut pg2 = pg.clone();
        pg2.children = vec![pod2, row(ObjKind::Pod, "train-1", "Pending")];
        let new = report(vec![pg2]);
        let events = [
            "pod ml/x deleted".to_owned(),
            "pod ml/other deleted".to_owned(),
        ];
        let got = changes(&old, &new, &events);
        let kinds: Vec<(&str, &str, &str, &str)> = got.iter().map(ObjectChange::summary).collect();
        assert_eq!(
            kinds,
            [
                ("Removed", "other", "Running", "Absent"),
                (
                    "SimulatedChanged",
                    "train-0",
                    "Pending (simulated Unschedulable)",
                    "Pending (simulated Scheduled)"
                ),
                ("Added", "train-1", "Absent", "Pending"),
            ]
        );
        // The event naming the object comes first.
        assert_eq!(got[0].causes[0], "pod ml/other deleted");
        // A pod bound to a node: its status and node changed.
        let mut bound = pod.clone();
        bound.status = Some("Running".to_owned());
        bound.node = Some("n1".to_owned());
        bound.simulated = None;
        let got = changes(&report(vec![pod]), &report(vec![bound]), &[]);
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].change, got[0].after.as_str()),
            ("StatusChanged", "Running on n1")
        );
        // Nothing changed: nothing to say.
        assert!(changes(&old, &old, &events).is_empty());
    }
}
