//! `explain TYPE/NAME --watch`: what changed in the diagnoses of the one target between two
//! runs — its verdict, its findings, its verified fixes — with the cluster's changes in
//! between as causes. Pure: no IO.

use std::collections::BTreeMap;

use super::{Diagnosis, Verdict};
use crate::report::{ObjectChange, ObjectName, ordered_causes};
use crate::snapshot::ObjRef;

/// The verdict in explain's JSON words.
pub(crate) fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Scheduled => "Scheduled",
        Verdict::Schedulable => "Schedulable",
        Verdict::NeedsPreemption => "NeedsPreemption",
        Verdict::Waiting => "Waiting",
        Verdict::Unschedulable => "Unschedulable",
    }
}

/// The findings as a change names them: `WASE020 no rack holds the gang; WASE031 …`.
fn findings(d: &Diagnosis) -> String {
    if d.findings.is_empty() {
        return "none".to_owned();
    }
    d.findings
        .iter()
        .map(|f| format!("{} {}", f.id, f.title))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The fixes as a change names them.
fn fixes(d: &Diagnosis) -> String {
    if d.fixes.is_empty() {
        "none".to_owned()
    } else {
        d.fixes.join("; ")
    }
}

fn name_of(r: &ObjRef) -> ObjectName {
    ObjectName {
        kind: r.kind.to_string(),
        namespace: r.namespace.clone(),
        name: r.name.clone(),
    }
}

/// What changed per target from `old` to `new` (a Workload's groups are several targets):
/// `VerdictChanged` (with the simulator's message after), `FindingsChanged`,
/// `FixesChanged`, in that order, or `Added` / `Removed` when the target appeared or went
/// (before or after `Absent`). `events` are the causes, those naming the target first.
pub(crate) fn changes(
    old: &[Diagnosis],
    new: &[Diagnosis],
    events: &[String],
) -> Vec<ObjectChange> {
    let by_target = |ds: &[Diagnosis]| -> BTreeMap<ObjectName, usize> {
        ds.iter()
            .enumerate()
            .map(|(i, d)| (name_of(&d.target), i))
            .collect()
    };
    let (before, after) = (by_target(old), by_target(new));
    let mut keys: Vec<&ObjectName> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for key in keys {
        let causes = ordered_causes(events, &[key.path()]);
        let change = |change, before: String, after: String, message: &str| ObjectChange {
            change,
            object: key.clone(),
            before,
            after,
            check: None,
            message: message.to_owned(),
            causes: causes.clone(),
        };
        let (b, a) = (
            before.get(key).map(|i| &old[*i]),
            after.get(key).map(|i| &new[*i]),
        );
        match (b, a) {
            (None, Some(a)) => out.push(change(
                "Added",
                "Absent".to_owned(),
                verdict_word(a.verdict).to_owned(),
                &a.message,
            )),
            (Some(b), None) => out.push(change(
                "Removed",
                verdict_word(b.verdict).to_owned(),
                "Absent".to_owned(),
                "",
            )),
            (Some(b), Some(a)) => {
                if b.verdict != a.verdict {
                    out.push(change(
                        "VerdictChanged",
                        verdict_word(b.verdict).to_owned(),
                        verdict_word(a.verdict).to_owned(),
                        &a.message,
                    ));
                }
                let (fb, fa) = (findings(b), findings(a));
                if fb != fa {
                    out.push(change("FindingsChanged", fb, fa, ""));
                }
                let (xb, xa) = (fixes(b), fixes(a));
                if xb != xa {
                    out.push(change("FixesChanged", xb, xa, ""));
                }
            }
            (None, None) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;
    use crate::sched::Options;
    use crate::snapshot::ObjKind;
    use crate::snapshot::source::Collector;

    fn snapshot(blocker: bool) -> crate::snapshot::Snapshot {
        let mut c = Collector::new();
        let mut objects = vec![
            serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
            serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "w", "namespace": "ml", "uid": "uid-w"},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]},
                "status": {"phase": "Pending"}}),
        ];
        if blocker {
            objects.push(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "blocker", "namespace": "ml", "uid": "uid-b"},
                "spec": {"nodeName": "n1",
                         "containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}]},
                "status": {"phase": "Running"}}));
        }
        for o in objects {
            c.add(o).expect("an object");
        }
        c.finish()
    }

    fn diagnose(s: &crate::snapshot::Snapshot) -> Vec<Diagnosis> {
        let options = Options {
            no_preemption: true,
            ..Options::default()
        };
        let graph = Graph::build(s);
        let mut prepared = crate::sched::prepare(s, &options);
        let target = ObjRef::new(ObjKind::Pod, "ml", "w");
        super::super::explain_target(s, &graph, &mut prepared, &options, &target)
            .expect("explained")
    }

    #[test]
    fn the_verdict_findings_and_fixes_of_the_target_are_compared() {
        let stuck = diagnose(&snapshot(true));
        let free = diagnose(&snapshot(false));
        let events = [
            "pod ml/blocker deleted".to_owned(),
            "pod ml/w changed".to_owned(),
        ];
        let got = changes(&stuck, &free, &events);
        assert_eq!(got[0].change, "VerdictChanged", "{got:#?}");
        assert_eq!(
            (got[0].before.as_str(), got[0].after.as_str()),
            ("Unschedulable", "Schedulable")
        );
        // The event naming the target comes first.
        assert_eq!(got[0].causes[0], "pod ml/w changed");
        assert!(
            got.iter().any(|c| c.change == "FindingsChanged"),
            "{got:#?}"
        );
        assert!(changes(&free, &free, &events).is_empty());
        let gone = changes(&free, &[], &events);
        assert_eq!(
            (gone[0].change, gone[0].after.as_str()),
            ("Removed", "Absent")
        );
    }
}
