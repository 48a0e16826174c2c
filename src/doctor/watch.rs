//! `doctor --watch`: the findings that appeared or went away between two doctor reports,
//! with the cluster's changes in between as causes. Pure: no IO.
//!
//! A finding is the same finding while its check and object are (its message may carry an
//! age that moves on with the clock): a message that changes alone is no change.

use std::collections::BTreeMap;

use super::{DoctorReport, Finding};
use crate::report::{ObjectChange, ObjectName, ordered_causes};

fn object(f: &Finding) -> ObjectName {
    ObjectName {
        kind: f.object.kind.to_string(),
        namespace: f.object.namespace.clone(),
        name: f.object.name.clone(),
    }
}

/// The report's findings by check and object (the first of several).
fn by_key(r: &DoctorReport) -> BTreeMap<(&'static str, ObjectName), &Finding> {
    let mut m = BTreeMap::new();
    for f in &r.findings {
        m.entry((f.id.id(), object(f))).or_insert(f);
    }
    m
}

/// The findings of `new` that `old` had not (type `FindingAppeared`: before `Absent`, after
/// the severity) and those of `old` that `new` has not (`FindingResolved`), by check, then
/// object; each with `events` as causes, those naming the finding's object first.
pub(crate) fn changes(
    old: &DoctorReport,
    new: &DoctorReport,
    events: &[String],
) -> Vec<ObjectChange> {
    let (before, after) = (by_key(old), by_key(new));
    let mut out = Vec::new();
    let mut push = |change, (check, name): &(&'static str, ObjectName), f: &Finding| {
        let severity = f.severity.as_str().to_owned();
        let (b, a) = if change == "FindingAppeared" {
            ("Absent".to_owned(), severity)
        } else {
            (severity, "Absent".to_owned())
        };
        out.push(ObjectChange {
            change,
            object: name.clone(),
            before: b,
            after: a,
            check: Some((*check).to_owned()),
            message: f.message.clone(),
            causes: ordered_causes(events, &[name.path()]),
        });
    };
    for (key, f) in &before {
        if !after.contains_key(key) {
            push("FindingResolved", key, f);
        }
    }
    for (key, f) in &after {
        if !before.contains_key(key) {
            push("FindingAppeared", key, f);
        }
    }
    out.sort_by(|a, b| (&a.check, &a.object).cmp(&(&b.check, &b.object)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::{Check, Severity, Summary};
    use crate::snapshot::{ObjKind, ObjRef};

    fn finding(id: &str, name: &str, message: &str) -> Finding {
        Finding {
            id: Check::parse(id).expect("a check"),
            severity: Severity::Warning,
            object: ObjRef::new(ObjKind::PodGroup, "ml", name),
            message: message.to_owned(),
            fix: String::new(),
        }
    }

    fn report(findings: Vec<Finding>) -> DoctorReport {
        DoctorReport {
            summary: Summary::of(&findings),
            findings,
            assumed: Vec::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_line_per_finding_that_appeared_or_went_away() {
        let old = report(vec![
            finding("WASD001", "a", "pending for 5m"),
            finding("WASD001", "b", "x"),
        ]);
        // `a` only aged: no change; `b` was resolved; `c` appeared.
        let new = report(vec![
            finding("WASD001", "a", "pending for 6m"),
            finding("WASD001", "c", "y"),
        ]);
        let events = [
            "pod ml/p deleted".to_owned(),
            "podgroup ml/c created".to_owned(),
        ];
        let got = changes(&old, &new, &events);
        let seen: Vec<(&str, &str, &str, &str)> = got.iter().map(ObjectChange::summary).collect();
        assert_eq!(
            seen,
            [
                ("FindingResolved", "b", "warning", "Absent"),
                ("FindingAppeared", "c", "Absent", "warning"),
            ]
        );
        assert_eq!(got[1].causes[0], "podgroup ml/c created");
        assert_eq!(got[1].check.as_deref(), Some("WASD001"));
        assert_eq!(got[1].message, "y");
        assert!(changes(&old, &old, &events).is_empty());
    }
}
