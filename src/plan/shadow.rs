//! Shadow mode (`kubectl wasctl shadow`): wasctl's prediction for every pending unit, scored
//! against what the cluster's own scheduler then did. Pure: no IO, the clock is passed in
//! (time since the command started).
//!
//! A prediction ([`Prediction`]) is the unit's outcome, its pods' nodes, its topology domain
//! and its victims, recorded from the plan when the unit is first seen pending. What the
//! cluster did is read from the watched snapshot: member pods bound (`spec.nodeName`), the
//! PodGroup's `PodGroupInitiallyScheduled` condition (`True`: scheduled; `False` with reason
//! `Unschedulable` or `SchedulerError`: not), the pods' `PodScheduled=False/Unschedulable`,
//! and the pods the scheduler preempted (`DisruptionTarget` with reason
//! `PreemptionByScheduler`, seen in the watch's events, [`preemption_victim`]) — the names of
//! kube-scheduler 1.37's `PodGroupStatus` conditions. The first decision settles a unit:
//! `Agreed`, `Disagreed` (by `Outcome`, `Domain`, `Nodes`, `Victims`), or `Undecided` when it
//! is still pending after `--undecided-after` (or its pods went away first).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::Serialize;

use super::watch::Unit;
use crate::sched::plan::{Outcome, Plan, UnitResult};
use crate::snapshot::{ObjKind, Snapshot, name_of};

/// One side of a comparison: what wasctl predicted, or what the cluster did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Side {
    /// `Scheduled`, `Unschedulable`, `Waiting`, `Preempting`, `Error` (predicted), or
    /// `Scheduled` / `Unschedulable` (what the scheduler did).
    pub outcome: String,
    /// Pod → node.
    pub nodes: BTreeMap<String, String>,
    /// The topology domain (`key=value`) of a unit with a topology constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Victims, `namespace/name`.
    pub victims: BTreeSet<String>,
}

/// How a prediction and the cluster differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) enum Difference {
    /// Placed against not placed.
    Outcome,
    /// Another topology domain.
    Domain,
    /// The same domain (or none), other nodes.
    Nodes,
    /// Other victims.
    Victims,
}

impl Difference {
    /// The word in a line.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Self::Outcome => "outcome",
            Self::Domain => "domain",
            Self::Nodes => "nodes",
            Self::Victims => "victims",
        }
    }
}

/// What a shadow event says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum Verdict {
    /// A prediction was recorded.
    Predicted,
    /// The cluster did what wasctl predicted.
    Agreed,
    /// It did something else.
    Disagreed,
    /// It decided nothing in time (or the unit went away first).
    Undecided,
}

/// One line of shadow mode (`kind: ShadowEvent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ShadowEvent {
    /// What it says.
    #[serde(rename = "type")]
    pub verdict: Verdict,
    /// The unit.
    pub unit: Unit,
    /// wasctl's prediction.
    pub predicted: Side,
    /// What the cluster did (absent for `Predicted` and `Undecided`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Side>,
    /// How they differ (`Disagreed` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<Difference>,
    /// In words: `predicted rack=b, bound to rack=c`, `still pending after 10m`.
    pub message: String,
    /// What wasctl can see that may explain a disagreement (`Disagreed` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub likely_causes: Vec<String>,
    /// Seconds since the command started.
    pub at_seconds: u64,
}

/// Disagreements per kind of difference.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct ByDifference {
    /// Placed against not placed.
    pub outcome: u64,
    /// Another domain.
    pub domain: u64,
    /// Other nodes.
    pub nodes: u64,
    /// Other victims.
    pub victims: u64,
}

/// The running totals (`kind: ShadowReport`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ShadowReport {
    /// Predictions recorded.
    pub predictions: u64,
    /// Settled as agreed.
    pub agreed: u64,
    /// Settled as disagreed.
    pub disagreed: u64,
    /// Disagreements by kind (a disagreement may count under several).
    pub disagreed_by: ByDifference,
    /// Settled as undecided.
    pub undecided: u64,
    /// Not settled yet.
    pub pending: u64,
    /// Seconds since the command started.
    pub elapsed_seconds: u64,
}

/// A recorded prediction, waiting for the cluster.
#[derive(Debug, Clone)]
pub(crate) struct Prediction {
    unit: Unit,
    side: Side,
    /// The unit's pods when predicted.
    members: Vec<String>,
    /// The topology key of the predicted domain.
    key: Option<String>,
    /// What may explain a disagreement, seen when predicting.
    causes: Vec<String>,
    /// When it was made (since the command started).
    at: Duration,
    /// The count of preemptions seen before it was made.
    since: usize,
}

/// Shadow mode's state: the open predictions, the settled units, the preemptions seen.
#[derive(Debug, Default)]
pub(crate) struct Shadow {
    open: BTreeMap<(String, String, String), Prediction>,
    settled: BTreeSet<(String, String, String)>,
    /// Pods the scheduler preempted (`namespace/name`, node), in the order seen.
    preempted: Vec<(String, String)>,
    report: ShadowReport,
    /// The likely cause a disagreement always has: the scheduler configuration.
    config_cause: String,
}

/// The pod a watched object describes when the scheduler preempted it (`DisruptionTarget`
/// `True` with reason `PreemptionByScheduler`): `namespace/name` and its node. `object` is a
/// watch event's JSON text.
pub(crate) fn preemption_victim(object: &str) -> Option<(String, String)> {
    if !object.contains("PreemptionByScheduler") {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(object).ok()?;
    let preempted = v["status"]["conditions"].as_array()?.iter().any(|c| {
        c["type"] == "DisruptionTarget"
            && c["status"] == "True"
            && c["reason"] == "PreemptionByScheduler"
    });
    let node = v["spec"]["nodeName"].as_str()?;
    let (ns, name) = (
        v["metadata"]["namespace"].as_str()?,
        v["metadata"]["name"].as_str()?,
    );
    preempted.then(|| (format!("{ns}/{name}"), node.to_owned()))
}

fn key_of(u: &Unit) -> (String, String, String) {
    (u.kind.to_string(), u.namespace.clone(), u.name.clone())
}

/// The pods of a unit: a PodGroup's, a pod itself, a CompositePodGroup's placed pods.
fn members(s: &Snapshot, u: &UnitResult) -> Vec<String> {
    match u.kind {
        ObjKind::PodGroup => s
            .index
            .pods_by_group
            .get(&u.namespace, &u.name)
            .iter()
            .filter_map(|i| s.pods.get(*i))
            .map(|p| name_of(&p.metadata).to_owned())
            .collect(),
        ObjKind::Pod => vec![u.name.clone()],
        _ => u.placements.iter().map(|p| p.pod.clone()).collect(),
    }
}

/// What wasctl can see that may make the scheduler decide otherwise: a schedulerName no
/// default profile serves, scheduling gates, a tie among equal scores.
fn seen_causes(s: &Snapshot, u: &UnitResult, members: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let pods = || members.iter().filter_map(|m| s.pod(&u.namespace, m));
    let names: BTreeSet<&str> = pods()
        .filter_map(|p| p.spec.as_ref()?.scheduler_name.as_deref())
        .filter(|n| *n != "default-scheduler")
        .collect();
    if !names.is_empty() {
        let names: Vec<&str> = names.into_iter().collect();
        out.push(format!(
            "its pods name schedulerName `{}`, not default-scheduler",
            names.join("`, `")
        ));
    }
    let gated = pods()
        .filter(|p| {
            p.spec
                .as_ref()
                .and_then(|s| s.scheduling_gates.as_ref())
                .is_some_and(|g| !g.is_empty())
        })
        .count();
    if gated > 0 {
        out.push(format!(
            "{gated} pod(s) had scheduling gates when predicted: the scheduler saw them only after the gates were removed, on a changed cluster"
        ));
    }
    if u.note_uses()
        .iter()
        .any(|n| n.note == crate::notes::Note::Ties)
    {
        out.push(
            "several nodes or domains scored equally: wasctl takes the first by name, kube-scheduler one at random"
                .to_owned(),
        );
    }
    out
}

/// The prediction side of a unit.
fn predicted(u: &UnitResult) -> (Side, Option<String>) {
    let chosen = u
        .own_domains()
        .find(|d| d.chosen)
        .map(|d| (d.key.clone(), d.value.clone()));
    let side = Side {
        outcome: u.outcome.as_str().to_owned(),
        nodes: u
            .placements
            .iter()
            .map(|p| (p.pod.clone(), p.node.clone()))
            .collect(),
        domain: chosen.as_ref().map(|(k, v)| format!("{k}={v}")),
        victims: u
            .victims
            .iter()
            .map(|v| format!("{}/{}", v.namespace, v.name))
            .collect(),
    };
    (side, chosen.map(|(k, _)| k))
}

/// `a, b` of a set of names, `-` when empty.
fn list<'a>(names: impl IntoIterator<Item = &'a String>) -> String {
    let names: BTreeSet<&String> = names.into_iter().collect();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names
            .into_iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Whole seconds of `d`, as a duration reads (`90s` → `1m30s`).
pub(crate) fn words(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, 0, 0) => format!("{h}h"),
        (h, m, _) => format!("{h}h{m}m"),
    }
}

impl Shadow {
    /// Starts with the cause every disagreement may have: how the scheduler configuration
    /// was given (`config_cause`).
    pub(crate) fn new(config_cause: String) -> Self {
        Self {
            config_cause,
            ..Self::default()
        }
    }

    /// Records a prediction for every unit of `plan` not predicted before (the scheduler
    /// decides those of another scheduler and suspended Jobs: they are skipped). Returns a
    /// `Predicted` event each.
    pub(crate) fn predict(&mut self, s: &Snapshot, plan: &Plan, now: Duration) -> Vec<ShadowEvent> {
        let mut out = Vec::new();
        for u in &plan.units {
            if matches!(u.outcome, Outcome::NotSimulated | Outcome::Suspended) {
                continue;
            }
            let unit = Unit {
                kind: u.kind.clone(),
                namespace: u.namespace.clone(),
                name: u.name.clone(),
            };
            let key = key_of(&unit);
            if self.open.contains_key(&key) || self.settled.contains(&key) {
                continue;
            }
            let (side, domain_key) = predicted(u);
            let members = members(s, u);
            let mut message = format!("predicted {}", side.outcome);
            if !side.nodes.is_empty() {
                message.push_str(&format!(" on {}", list(side.nodes.values())));
            }
            if !side.victims.is_empty() {
                message.push_str(&format!(", evicting {}", list(&side.victims)));
            }
            out.push(ShadowEvent {
                verdict: Verdict::Predicted,
                unit: unit.clone(),
                predicted: side.clone(),
                actual: None,
                differences: Vec::new(),
                message,
                likely_causes: Vec::new(),
                at_seconds: now.as_secs(),
            });
            self.open.insert(
                key,
                Prediction {
                    causes: seen_causes(s, u, &members),
                    unit,
                    side,
                    members,
                    key: domain_key,
                    at: now,
                    since: self.preempted.len(),
                },
            );
            self.report.predictions += 1;
        }
        out
    }

    /// A pod the scheduler preempted (see [`preemption_victim`]).
    pub(crate) fn preempted(&mut self, pod: String, node: String) {
        if !self.preempted.iter().any(|(p, _)| *p == pod) {
            self.preempted.push((pod, node));
        }
    }

    /// Settles what the cluster decided in `s` by `now`, and what stayed pending longer than
    /// `undecided_after`; an event each, in unit order.
    pub(crate) fn settle(
        &mut self,
        s: &Snapshot,
        now: Duration,
        undecided_after: Duration,
    ) -> Vec<ShadowEvent> {
        let mut out = Vec::new();
        let keys: Vec<(String, String, String)> = self.open.keys().cloned().collect();
        for key in keys {
            let Some(p) = self.open.get(&key) else {
                continue;
            };
            let event = match self.observe(s, p) {
                Observed::Decided(actual) => self.scored(p, actual, now),
                Observed::Gone => undecided(
                    p,
                    now,
                    "its pods went away before the scheduler decided".to_owned(),
                ),
                Observed::Pending if now.saturating_sub(p.at) >= undecided_after => undecided(
                    p,
                    now,
                    format!("still pending after {}", words(undecided_after)),
                ),
                Observed::Pending => continue,
            };
            self.count(&event);
            self.open.remove(&key);
            self.settled.insert(key);
            out.push(event);
        }
        out
    }

    /// The totals so far.
    pub(crate) fn report(&self, now: Duration) -> ShadowReport {
        ShadowReport {
            pending: self.open.len() as u64,
            elapsed_seconds: now.as_secs(),
            ..self.report.clone()
        }
    }

    fn count(&mut self, e: &ShadowEvent) {
        let r = &mut self.report;
        match e.verdict {
            Verdict::Agreed => r.agreed += 1,
            Verdict::Undecided => r.undecided += 1,
            Verdict::Disagreed => {
                r.disagreed += 1;
                for d in &e.differences {
                    *match d {
                        Difference::Outcome => &mut r.disagreed_by.outcome,
                        Difference::Domain => &mut r.disagreed_by.domain,
                        Difference::Nodes => &mut r.disagreed_by.nodes,
                        Difference::Victims => &mut r.disagreed_by.victims,
                    } += 1;
                }
            }
            Verdict::Predicted => {}
        }
    }

    /// What the cluster did with the unit of `p`, if it decided.
    fn observe(&self, s: &Snapshot, p: &Prediction) -> Observed {
        let ns = &p.unit.namespace;
        let pods: Vec<_> = p.members.iter().filter_map(|m| s.pod(ns, m)).collect();
        if pods.is_empty() {
            return Observed::Gone;
        }
        let bound: BTreeMap<String, String> = pods
            .iter()
            .filter_map(|pod| {
                let node = pod.spec.as_ref()?.node_name.clone()?;
                Some((name_of(&pod.metadata).to_owned(), node))
            })
            .collect();
        let group = (p.unit.kind == ObjKind::PodGroup)
            .then(|| s.pod_group(ns, &p.unit.name))
            .flatten()
            .and_then(|g| g.status.as_ref()?.conditions.as_ref())
            .and_then(|c| c.iter().find(|c| c.type_ == "PodGroupInitiallyScheduled"))
            .map(|c| (c.status.clone(), c.reason.clone()));
        let scheduled = matches!(&group, Some((status, _)) if status == "True")
            || (!bound.is_empty() && bound.len() == pods.len());
        let refused = matches!(&group, Some((status, reason)) if status == "False"
                && (reason == "Unschedulable" || reason == "SchedulerError"))
            || (bound.is_empty()
                && pods.iter().any(|pod| {
                    pod.status
                        .as_ref()
                        .and_then(|st| st.conditions.as_ref())
                        .is_some_and(|cs| {
                            cs.iter().any(|c| {
                                c.type_ == "PodScheduled"
                                    && c.status == "False"
                                    && c.reason.as_deref() == Some("Unschedulable")
                            })
                        })
                }));
        if !scheduled && !refused {
            return Observed::Pending;
        }
        let nodes: BTreeSet<&String> = bound.values().collect();
        let victims = self.preempted[p.since..]
            .iter()
            .filter(|(_, node)| nodes.contains(node))
            .map(|(pod, _)| pod.clone())
            .collect();
        let domain = p.key.as_ref().and_then(|key| {
            let values: BTreeSet<&str> = nodes
                .iter()
                .filter_map(|n| s.node(n)?.metadata.labels.as_ref()?.get(key))
                .map(String::as_str)
                .collect();
            match values.into_iter().collect::<Vec<_>>().as_slice() {
                [one] => Some(format!("{key}={one}")),
                _ => None,
            }
        });
        Observed::Decided(Side {
            outcome: if scheduled {
                "Scheduled"
            } else {
                "Unschedulable"
            }
            .to_owned(),
            nodes: bound,
            domain,
            victims,
        })
    }

    /// The prediction scored against what the cluster did.
    fn scored(&self, p: &Prediction, actual: Side, now: Duration) -> ShadowEvent {
        let placed = matches!(p.side.outcome.as_str(), "Scheduled" | "Preempting");
        let bound = actual.outcome == "Scheduled";
        let mut differences = Vec::new();
        let mut said = Vec::new();
        if placed != bound {
            differences.push(Difference::Outcome);
            said.push(if bound {
                format!(
                    "predicted {}, bound to {}",
                    p.side.outcome,
                    list(actual.nodes.values())
                )
            } else {
                format!(
                    "predicted {} on {}, the scheduler found it Unschedulable",
                    p.side.outcome,
                    list(p.side.nodes.values())
                )
            });
        } else if bound {
            if p.side.domain.is_some() && actual.domain != p.side.domain {
                differences.push(Difference::Domain);
                said.push(format!(
                    "predicted {}, bound to {}",
                    p.side.domain.as_deref().unwrap_or("-"),
                    actual.domain.as_deref().unwrap_or("several domains")
                ));
            } else if p.side.nodes != actual.nodes {
                differences.push(Difference::Nodes);
                said.push(format!(
                    "predicted {}, bound to {}",
                    list(p.side.nodes.values()),
                    list(actual.nodes.values())
                ));
            }
            if p.side.victims != actual.victims {
                differences.push(Difference::Victims);
                said.push(format!(
                    "predicted victims {}, preempted {}",
                    list(&p.side.victims),
                    list(&actual.victims)
                ));
            }
        }
        let agreed = differences.is_empty();
        let message = if agreed {
            match bound {
                true => format!("{} on {}", actual.outcome, list(actual.nodes.values())),
                false => "Unschedulable, as predicted".to_owned(),
            }
        } else {
            said.join("; ")
        };
        let mut likely_causes = Vec::new();
        if !agreed {
            likely_causes.clone_from(&p.causes);
            likely_causes.push(self.config_cause.clone());
        }
        ShadowEvent {
            verdict: if agreed {
                Verdict::Agreed
            } else {
                Verdict::Disagreed
            },
            unit: p.unit.clone(),
            predicted: p.side.clone(),
            actual: Some(actual),
            differences,
            message,
            likely_causes,
            at_seconds: now.as_secs(),
        }
    }
}

/// What [`Shadow::observe`] found.
enum Observed {
    /// The scheduler decided: this.
    Decided(Side),
    /// Still pending.
    Pending,
    /// Every pod of the unit went away.
    Gone,
}

fn undecided(p: &Prediction, now: Duration, message: String) -> ShadowEvent {
    ShadowEvent {
        verdict: Verdict::Undecided,
        unit: p.unit.clone(),
        predicted: p.side.clone(),
        actual: None,
        differences: Vec::new(),
        message,
        likely_causes: Vec::new(),
        at_seconds: now.as_secs(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::Options;
    use crate::snapshot::source::Collector;
    use serde_json::{Value, json};

    fn node(name: &str, rack: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"rack": rack}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    }

    fn pod(name: &str, cpu: &str, node: Option<&str>) -> Value {
        let mut p = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml", "uid": format!("uid-{name}")},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": "Pending"}});
        if let Some(n) = node {
            p["spec"]["nodeName"] = n.into();
            p["status"]["phase"] = "Running".into();
        }
        p
    }

    fn snapshot(objects: &[Value]) -> Snapshot {
        let mut c = Collector::new();
        for o in objects {
            c.add(o.clone()).expect("an object");
        }
        c.finish()
    }

    /// n1 has room for `w` (3 of 4 CPUs free), n2 is full: wasctl predicts n1.
    fn cluster(w_on: Option<&str>) -> Vec<Value> {
        vec![
            node("n1", "a"),
            node("n2", "b"),
            pod("full", "4", Some("n2")),
            pod("w", "3", w_on),
        ]
    }

    fn predicted_shadow() -> (Shadow, Vec<ShadowEvent>) {
        let s = snapshot(&cluster(None));
        let plan = crate::sched::simulate(&s, &Options::default());
        let mut shadow = Shadow::new("no configuration given".to_owned());
        let events = shadow.predict(&s, &plan, Duration::ZERO);
        (shadow, events)
    }

    #[test]
    fn a_unit_bound_where_predicted_agrees() {
        let (mut shadow, events) = predicted_shadow();
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0].message, "predicted Scheduled on n1");
        // Still pending: nothing yet, until the time is up.
        let pending = snapshot(&cluster(None));
        assert!(
            shadow
                .settle(&pending, Duration::from_secs(5), Duration::from_secs(60))
                .is_empty()
        );
        let got = shadow.settle(
            &snapshot(&cluster(Some("n1"))),
            Duration::from_secs(6),
            Duration::from_secs(60),
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].verdict, Verdict::Agreed);
        assert_eq!(got[0].message, "Scheduled on n1");
        let r = shadow.report(Duration::from_secs(7));
        assert_eq!(
            (r.predictions, r.agreed, r.disagreed, r.pending),
            (1, 1, 0, 0)
        );
        // Settled once: a plan that still names it predicts nothing new.
        let s = snapshot(&cluster(None));
        let plan = crate::sched::simulate(&s, &Options::default());
        assert!(shadow.predict(&s, &plan, Duration::from_secs(8)).is_empty());
    }

    #[test]
    fn a_unit_bound_elsewhere_disagrees_by_nodes_or_domain_with_the_causes() {
        let (mut shadow, _) = predicted_shadow();
        let got = shadow.settle(
            &snapshot(&cluster(Some("n2"))),
            Duration::from_secs(1),
            Duration::from_secs(60),
        );
        assert_eq!(got[0].verdict, Verdict::Disagreed);
        assert_eq!(got[0].differences, [Difference::Nodes]);
        assert_eq!(got[0].message, "predicted n1, bound to n2");
        assert_eq!(got[0].likely_causes, ["no configuration given"]);
        assert_eq!(shadow.report(Duration::ZERO).disagreed_by.nodes, 1);
    }

    #[test]
    fn the_scheduler_refusing_a_placed_prediction_disagrees_by_outcome() {
        let (mut shadow, _) = predicted_shadow();
        let mut refused = cluster(None);
        refused[3]["status"]["conditions"] =
            json!([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]);
        let got = shadow.settle(
            &snapshot(&refused),
            Duration::from_secs(1),
            Duration::from_secs(60),
        );
        assert_eq!(got[0].differences, [Difference::Outcome]);
        assert_eq!(
            got[0].message,
            "predicted Scheduled on n1, the scheduler found it Unschedulable"
        );
    }

    #[test]
    fn a_unit_still_pending_after_the_limit_or_gone_is_undecided() {
        let (mut shadow, _) = predicted_shadow();
        let got = shadow.settle(
            &snapshot(&cluster(None)),
            Duration::from_secs(90),
            Duration::from_secs(60),
        );
        assert_eq!(got[0].verdict, Verdict::Undecided);
        assert_eq!(got[0].message, "still pending after 1m");
        let (mut shadow, _) = predicted_shadow();
        let gone = snapshot(&cluster(None)[..3]);
        let got = shadow.settle(&gone, Duration::from_secs(1), Duration::from_secs(60));
        assert_eq!(got[0].verdict, Verdict::Undecided);
        assert_eq!(shadow.report(Duration::ZERO).undecided, 1);
    }

    #[test]
    fn preempted_pods_are_read_from_their_disruption_target_condition() {
        let mut victim = pod("v", "1", Some("n1"));
        victim["status"]["conditions"] = json!([{"type": "DisruptionTarget", "status": "True",
            "reason": "PreemptionByScheduler"}]);
        assert_eq!(
            preemption_victim(&victim.to_string()),
            Some(("ml/v".to_owned(), "n1".to_owned()))
        );
        victim["status"]["conditions"][0]["reason"] = json!("EvictionByEvictionAPI");
        assert_eq!(preemption_victim(&victim.to_string()), None);
        assert_eq!(preemption_victim("not json PreemptionByScheduler"), None);
        assert_eq!(words(Duration::from_secs(90)), "1m30s");
        assert_eq!(words(Duration::from_secs(600)), "10m");
        assert_eq!(words(Duration::from_secs(3600)), "1h");
    }

    #[test]
    fn victims_on_the_bound_nodes_that_were_not_predicted_disagree() {
        let (mut shadow, _) = predicted_shadow();
        shadow.preempted("ml/other".to_owned(), "n1".to_owned());
        shadow.preempted("ml/far".to_owned(), "n2".to_owned());
        let got = shadow.settle(
            &snapshot(&cluster(Some("n1"))),
            Duration::from_secs(1),
            Duration::from_secs(60),
        );
        assert_eq!(got[0].differences, [Difference::Victims]);
        assert_eq!(got[0].message, "predicted victims -, preempted ml/other");
    }

    #[test]
    fn a_gang_bound_in_another_topology_domain_disagrees_by_domain() {
        let zone = |name: &str, z: &str| {
            json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": z}},
                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
        };
        let member = |name: &str, node: Option<&str>| {
            let mut p = pod(name, "3", node);
            p["spec"]["schedulingGroup"] = json!({"podGroupName": "g"});
            p
        };
        let objects = |a: Option<&str>, b: Option<&str>| {
            vec![
                zone("n1", "a"),
                zone("n2", "a"),
                zone("n3", "b"),
                zone("n4", "b"),
                json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                    "metadata": {"name": "g", "namespace": "ml", "uid": "uid-g"},
                    "spec": {"schedulingPolicy": {"gang": {"minCount": 2}},
                             "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]}}}),
                member("g-0", a),
                member("g-1", b),
            ]
        };
        let s = snapshot(&objects(None, None));
        let plan = crate::sched::simulate(&s, &Options::default());
        let mut shadow = Shadow::new("config".to_owned());
        let predicted = shadow.predict(&s, &plan, Duration::ZERO);
        assert_eq!(
            predicted[0].predicted.domain.as_deref(),
            Some("topology.kubernetes.io/zone=a"),
            "{predicted:#?}"
        );
        let got = shadow.settle(
            &snapshot(&objects(Some("n3"), Some("n4"))),
            Duration::from_secs(1),
            Duration::from_secs(60),
        );
        assert_eq!(got[0].differences, [Difference::Domain], "{got:#?}");
        assert_eq!(
            got[0].message,
            "predicted topology.kubernetes.io/zone=a, bound to topology.kubernetes.io/zone=b"
        );
        assert!(
            got[0]
                .likely_causes
                .iter()
                .any(|c| c.contains("scored equally")),
            "{got:#?}"
        );
    }
}
