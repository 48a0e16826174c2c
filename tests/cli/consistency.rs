//! One verdict across commands, checked over every cluster fixture in testdata/ (scenarios,
//! explain, doctor, dumps and the demo): for every unit the simulator tries, `explain`'s
//! verdict equals what `simulate` says; a PodGroup whose pods were taken one by one gets the
//! combined outcome of its pods; and neither doctor nor lint says "the pods wait" about a
//! group that the simulation places.

use std::path::{Path, PathBuf};
use wasctl::snapshot::{ObjKind, ObjRef};

use wasctl::explain::{Verdict, explain};
use wasctl::graph::Graph;
use wasctl::sched::plan::Outcome;
use wasctl::sched::{Options, simulate};
use wasctl::snapshot::Snapshot;
use wasctl::snapshot::source::{Collector, demo, files};

use crate::support::{files_in, root};

fn clusters() -> Vec<(String, Snapshot)> {
    let mut out = vec![("demo".to_owned(), demo::load().unwrap())];
    let mut paths: Vec<PathBuf> = Vec::new();
    for dir in ["testdata/scenarios", "testdata/explain"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let cluster = entry.unwrap().path().join("cluster.yaml");
            if cluster.is_file() {
                paths.push(cluster);
            }
        }
    }
    paths.extend(files_in(&root().join("testdata/doctor"), &["yaml"]));
    paths.extend(files_in(&root().join("testdata/dumps"), &["yaml", "json"]));
    paths.sort();
    for path in paths {
        let mut c = Collector::new();
        files::load_path(&path, &mut c).unwrap();
        out.push((display(&path), c.finish()));
    }
    out
}

fn display(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn explain_verdict_equals_simulate_outcome_for_every_unit_of_every_fixture() {
    let mut checked = 0;
    for (name, s) in clusters() {
        let options = Options::default();
        let plan = simulate(&s, &options);
        for u in &plan.units {
            let d = explain(&s, &options, &u.obj_ref());
            assert_eq!(
                d.verdict,
                Verdict::from(u.outcome),
                "{name}: {}/{}/{}: simulate says {:?}, explain says {:?}",
                u.kind,
                u.namespace,
                u.name,
                u.outcome,
                d.verdict
            );
            // Issue #45: one vocabulary: explain's `outcome` is simulate's word.
            assert_eq!(
                d.outcome,
                Some(u.outcome),
                "{name}: {}/{}/{}",
                u.kind,
                u.namespace,
                u.name
            );
            checked += 1;
        }
        // PodGroups the scheduler took pod by pod (GenericWorkload off): explain's verdict
        // for the group is its pods' combined outcome, the same one tree shows.
        for pg in &s.pod_groups {
            let ns = pg.metadata.namespace.as_deref().unwrap_or("");
            let pg_name = pg.metadata.name.as_deref().unwrap_or("");
            let pg_ref = ObjRef::new(ObjKind::PodGroup, ns, pg_name);
            if plan.unit(&pg_ref).is_some() {
                continue;
            }
            let Some(outcome) = plan.outcome_of(&s, &pg_ref) else {
                continue;
            };
            if plan
                .units
                .iter()
                .all(|u| u.kind != ObjKind::Pod || u.namespace != ns)
            {
                continue;
            }
            let d = explain(&s, &options, &pg_ref);
            if d.verdict == Verdict::Scheduled {
                // Not pod by pod: the group sits inside a tree whose root is the unit.
                continue;
            }
            assert_eq!(
                d.verdict,
                Verdict::from(outcome),
                "{name}: PodGroup/{ns}/{pg_name} (pod by pod)"
            );
            assert_eq!(
                d.outcome,
                Some(outcome),
                "{name}: PodGroup/{ns}/{pg_name} (pod by pod)"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} units checked");
}

#[test]
fn doctor_never_says_the_pods_wait_for_a_group_that_schedules() {
    for (name, s) in clusters() {
        let plan = simulate(&s, &Options::default());
        let graph = Graph::build(&s);
        let options = wasctl::doctor::Options {
            now: s.now(),
            gate_overrides: Default::default(),
            stuck_after: wasctl::doctor::DEFAULT_STUCK_AFTER,
        };
        let (findings, _) = wasctl::doctor::check(&s, &graph, &options);
        for f in findings {
            let kind = &f.object.kind;
            if !matches!(
                kind,
                ObjKind::PodGroup | ObjKind::Pod | ObjKind::CompositePodGroup
            ) {
                continue;
            }
            let says_wait = f.message.contains("wait") && !f.message.contains("PreEnqueue");
            let placed = plan.outcome_of(&s, &f.object) == Some(Outcome::Scheduled);
            assert!(
                !(says_wait && placed),
                "{name}: doctor {} says the pods wait, but simulate places {}: {}",
                f.id.id(),
                f.object,
                f.message
            );
        }
    }
}
