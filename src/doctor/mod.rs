//! `doctor`: cluster-wide checks over a snapshot and its reference graph.
//!
//! Input: a [`Snapshot`], its [`Graph`] and [`Options`]. Output: a [`DoctorReport`] of
//! [`Finding`]s, each with a stable `WASD###` ID from [`codes`], a severity, the object, a
//! message and a fix. One file per family of checks. Findings are values, never errors
//! (style §3.3); severity is honest: `error` = broken or leaking now, `warning` = will break or
//! mislead, `info` = worth knowing. Pure: no IO, the clock is injected.

pub(crate) mod api_versions;
pub(crate) mod codes;
pub(crate) mod coexistence;
pub(crate) mod dangling;
pub(crate) mod dra;
pub(crate) mod gangs;
pub(crate) mod kueue;
pub(crate) mod orphans;
pub(crate) mod others;
pub(crate) mod profiles;
pub(crate) mod skew;
pub(crate) mod watch;

use crate::snapshot::ObjKind;
use std::collections::BTreeMap;

use crate::snapshot::Pod;
use k8s_openapi::api::resource::v1::ResourceClaim;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::jiff::Timestamp;
use serde::Serialize;

pub(crate) use codes::Check;

use crate::graph::Graph;
use crate::snapshot::ObjRef;
use crate::snapshot::{Snapshot, Warning, name_of, namespace_of};

pub(crate) use crate::report::Severity;

/// One problem found in the cluster.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The check's stable ID, e.g. `WASD001`.
    pub id: Check,
    /// How bad it is; `--fail-on` compares against it.
    pub severity: Severity,
    /// The object the finding is about.
    pub object: ObjRef,
    /// What is wrong, values in backticks.
    pub message: String,
    /// What to do about it.
    pub fix: String,
}

/// The default of `doctor --stuck-after` (WASD304): ten minutes.
pub const DEFAULT_STUCK_AFTER: k8s_openapi::jiff::SignedDuration =
    k8s_openapi::jiff::SignedDuration::from_secs(600);

/// What the checks need besides the snapshot.
#[derive(Debug, Clone)]
pub struct Options {
    /// The instant ages are relative to (the snapshot time, or now).
    pub now: Timestamp,
    /// `--feature-gates` overrides.
    pub gate_overrides: BTreeMap<String, bool>,
    /// `--stuck-after`: how long a Volcano PodGroup may stay `Pending` or `Inqueue` before
    /// WASD304 reports it.
    pub stuck_after: k8s_openapi::jiff::SignedDuration,
}

/// Which findings to keep.
#[derive(Debug, Clone, Default)]
pub(crate) struct Selection {
    /// Keep namespaced findings of this namespace only (cluster-scoped ones are always kept,
    /// but a finding about a Namespace belongs to that namespace).
    pub namespace: Option<String>,
    /// Keep only these checks (empty: all).
    pub only: Vec<Check>,
    /// Drop these checks.
    pub skip: Vec<Check>,
}

impl Selection {
    fn keeps(&self, f: &Finding) -> bool {
        (self.only.is_empty() || self.only.contains(&f.id))
            && !self.skip.contains(&f.id)
            && self.namespace.as_ref().is_none_or(|ns| {
                if f.object.kind == ObjKind::Namespace {
                    f.object.name == *ns
                } else {
                    f.object.namespace.is_empty() || f.object.namespace == *ns
                }
            })
    }
}

#[cfg(test)]
mod selection_tests {
    use super::*;

    fn finding(kind: ObjKind, namespace: &str, name: &str) -> Finding {
        Finding {
            id: codes::ALL[0],
            severity: Severity::Info,
            object: ObjRef::new(kind, namespace, name),
            message: String::new(),
            fix: String::new(),
        }
    }

    /// `-n research`: research's findings and the cluster's, not ml's, and a finding about
    /// Namespace ml is ml's (it was kept as cluster-scoped).
    #[test]
    fn a_namespace_scope_keeps_its_findings_the_clusters_and_its_namespace_objects() {
        let selection = Selection {
            namespace: Some("research".to_owned()),
            ..Selection::default()
        };
        assert!(selection.keeps(&finding(ObjKind::PodGroup, "research", "a")));
        assert!(selection.keeps(&finding(ObjKind::Node, "", "gpu-1")));
        assert!(selection.keeps(&finding(ObjKind::Namespace, "", "research")));
        assert!(!selection.keeps(&finding(ObjKind::PodGroup, "ml", "a")));
        assert!(!selection.keeps(&finding(ObjKind::Namespace, "", "ml")));
        assert!(Selection::default().keeps(&finding(ObjKind::Namespace, "", "ml")));
    }
}

/// Counts per severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Summary {
    /// Findings of severity `error`.
    pub error: usize,
    /// Findings of severity `warning`.
    pub warning: usize,
    /// Findings of severity `info`.
    pub info: usize,
}

/// The result of `doctor`: `kind: DoctorReport` in `-o json|yaml`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DoctorReport {
    /// Counts per severity.
    pub summary: Summary,
    /// Findings, most severe first, then by ID and object.
    pub findings: Vec<Finding>,
    /// What had to be assumed about the cluster; omitted when nothing was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumed: Vec<String>,
    /// Loader warnings (forbidden or missing APIs, unknown kinds); omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

impl DoctorReport {
    /// True when a finding has `at` severity or a higher one.
    pub(crate) fn fails(&self, at: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= at)
    }
}

/// Shared state of one doctor run: the inputs, and the findings so far.
pub(crate) struct Checker<'a> {
    /// The snapshot.
    pub s: &'a Snapshot,
    /// Its reference graph.
    pub g: &'a Graph,
    /// The reference instant for ages and the feature gate overrides.
    pub options: &'a Options,
    /// Assumptions made, for the report.
    pub assumed: Vec<String>,
    findings: Vec<Finding>,
}

impl<'a> Checker<'a> {
    /// A checker with no findings yet.
    pub(crate) fn new(s: &'a Snapshot, g: &'a Graph, options: &'a Options) -> Self {
        Self {
            s,
            g,
            options,
            assumed: s.facts.assumed.clone(),
            findings: Vec::new(),
        }
    }

    /// Records a finding of `check` about `object`.
    pub(crate) fn emit(
        &mut self,
        check: Check,
        object: ObjRef,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.findings.push(Finding {
            id: check,
            severity: check.severity(),
            object,
            message: message.into(),
            fix: fix.into(),
        });
    }

    /// The findings so far, sorted and deduplicated.
    pub(crate) fn finish(mut self) -> (Vec<Finding>, Vec<String>) {
        self.findings.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| (a.id, &a.object, &a.message).cmp(&(b.id, &b.object, &b.message)))
        });
        self.findings.dedup();
        self.assumed.dedup();
        (self.findings, self.assumed)
    }

    /// The age of an object, kubectl-style, if it has a creation timestamp.
    pub(crate) fn age(&self, meta: &ObjectMeta) -> Option<String> {
        meta.creation_timestamp
            .as_ref()
            .map(|t| crate::snapshot::times::age(t, self.options.now))
    }
}

/// Runs every check.
pub fn check(s: &Snapshot, g: &Graph, options: &Options) -> (Vec<Finding>, Vec<String>) {
    let mut c = Checker::new(s, g, options);
    orphans::check(&mut c);
    dangling::check(&mut c);
    skew::check(&mut c);
    api_versions::check(&mut c);
    gangs::check(&mut c);
    coexistence::check(&mut c);
    others::check(&mut c);
    profiles::check(&mut c);
    dra::check(&mut c);
    kueue::check(&mut c);
    c.finish()
}

/// Runs every check and keeps the selected findings.
pub(crate) fn report(
    s: &Snapshot,
    g: &Graph,
    options: &Options,
    selection: &Selection,
) -> DoctorReport {
    let (mut findings, assumed) = check(s, g, options);
    findings.retain(|f| selection.keeps(f));
    let summary = Summary::of(&findings);
    DoctorReport {
        summary,
        findings,
        assumed,
        warnings: s.warnings.clone(),
    }
}

impl Summary {
    /// Counts `findings` by severity.
    pub(crate) fn of(findings: &[Finding]) -> Self {
        let mut summary = Self::default();
        for f in findings {
            match f.severity {
                Severity::Error => summary.error += 1,
                Severity::Warning => summary.warning += 1,
                Severity::Info => summary.info += 1,
            }
        }
        summary
    }
}

/// A reference to a namespaced or cluster-scoped object.
pub(crate) fn obj(kind: ObjKind, meta: &ObjectMeta) -> ObjRef {
    ObjRef::new(kind, namespace_of(meta), name_of(meta))
}

/// True when the pod has not finished and is not being deleted.
pub(crate) fn pod_active(pod: &Pod) -> bool {
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    !matches!(phase, Some("Succeeded" | "Failed")) && pod.metadata.deletion_timestamp.is_none()
}

/// True when the pod is bound and running.
pub(crate) fn pod_running(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none()
        && pod.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
}

/// The devices allocated to a claim, as `driver/pool/device`.
pub(crate) fn claim_devices(claim: &ResourceClaim) -> Vec<String> {
    claim
        .status
        .as_ref()
        .and_then(|s| s.allocation.as_ref())
        .and_then(|a| a.devices.as_ref())
        .and_then(|d| d.results.as_ref())
        .map(|results| {
            results
                .iter()
                .map(|r| format!("{}/{}/{}", r.driver, r.pool, r.device))
                .collect()
        })
        .unwrap_or_default()
}

/// True when the claim has an allocation.
pub(crate) fn claim_allocated(claim: &ResourceClaim) -> bool {
    claim
        .status
        .as_ref()
        .is_some_and(|s| s.allocation.is_some())
}

/// Up to `max` items in backticks, comma-separated, with "and N more".
pub(crate) fn list(items: &[String], max: usize) -> String {
    let shown: Vec<String> = items.iter().take(max).map(|i| format!("`{i}`")).collect();
    let mut out = shown.join(", ");
    if items.len() > max {
        out.push_str(&format!(" and {} more", items.len() - max));
    }
    out
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// The snapshot time of the test clusters.
    pub(crate) const NOW: &str = "2026-11-20T12:00:00Z";

    /// Loads YAML documents into an indexed snapshot.
    pub(crate) fn snapshot(yaml: &str) -> Snapshot {
        crate::snapshot::source::files::test_snapshot(yaml)
    }

    /// Runs every check over `yaml` and returns the IDs found, with the object names.
    pub(crate) fn run(yaml: &str) -> Vec<(String, String)> {
        let s = snapshot(yaml);
        let g = Graph::build(&s);
        let options = Options {
            now: NOW.parse().expect("valid time"),
            gate_overrides: BTreeMap::new(),
            stuck_after: DEFAULT_STUCK_AFTER,
        };
        check(&s, &g, &options)
            .0
            .into_iter()
            .map(|f| (f.id.id().to_owned(), f.object.name))
            .collect()
    }

    /// The IDs found in `yaml`, sorted and deduplicated.
    pub(crate) fn ids(yaml: &str) -> Vec<String> {
        let mut ids: Vec<String> = run(yaml).into_iter().map(|(id, _)| id).collect();
        ids.sort();
        ids.dedup();
        ids
    }
}
