//! Lint rules, one file per family (style §4 habit 4): [`input`] (`WAS0xx`), [`limits`]
//! (`WAS1xx`, names and limits), [`structure`] (`WAS2xx`, unions and structure),
//! [`metadata`] (`WAS502`/`WAS111` on every object's `metadata`, any kind), [`references`] (`WAS3xx`, cross-object), [`versions`] (`WAS4xx`, versions and gates),
//! [`declarative`] (`WAS5xx`, upstream's declarative validation, table-driven), [`semantic`]
//! (`WAS6xx`, DRA and PriorityClass checks beyond it).
//!
//! Rules read plain JSON ([`Object::value`]) so a half-broken object is still checked, and
//! report through the [`Emitter`], which turns field paths into positions. Pure: no IO.

pub(crate) mod declarative;
pub(crate) mod input;
pub(crate) mod limits;
pub(crate) mod metadata;
pub mod references;
pub(crate) mod semantic;
pub(crate) mod structure;
pub(crate) mod versions;

use serde_json::Value;

pub(crate) use super::value::{get, get_str};
use super::{Emitter, GateView, Object, Options};

/// Runs every single-object rule on `obj`.
pub(crate) fn check_object(
    obj: &Object,
    options: &Options,
    gates: &GateView,
    crds: &super::crd::CrdSet,
    em: &mut Emitter<'_>,
) {
    let checked = input::check(obj, options, crds, em);
    // The API server's metadata rules hold for every kind, known or not.
    metadata::check(obj, em);
    if !checked {
        return;
    }
    if versions::check(obj, gates, em) {
        return; // a removed version: its shape is not the 1.37 one
    }
    limits::check(obj, em);
    structure::check(obj, em);
    declarative::check(obj, em);
    semantic::check(obj, em);
}

/// Which scheduling kind an object is, for the WAS rules (`None` for anything else).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WasKind {
    /// `Workload` (`v1beta1` or `v1alpha3`).
    Workload,
    /// `PodGroup` (`v1beta1` or `v1alpha3`).
    PodGroup,
    /// `CompositePodGroup` (`v1alpha3`).
    CompositePodGroup,
}

/// The WAS kind of a current (`v1beta1`/`v1alpha3`) scheduling object.
pub(crate) fn was_kind(obj: &Object) -> Option<WasKind> {
    if obj.group() != "scheduling.k8s.io" || !matches!(obj.version(), "v1beta1" | "v1alpha3") {
        return None;
    }
    match obj.kind.as_str() {
        "Workload" => Some(WasKind::Workload),
        "PodGroup" => Some(WasKind::PodGroup),
        "CompositePodGroup" if obj.version() == "v1alpha3" => Some(WasKind::CompositePodGroup),
        _ => None,
    }
}

/// The pod specs an object carries, with their paths: a Pod's `spec`, a workload's
/// `spec.template.spec`, a CronJob's `spec.jobTemplate.spec.template.spec`.
pub(crate) fn pod_specs(obj: &Object) -> Vec<(&'static str, &Value)> {
    let path = match (obj.group(), obj.kind.as_str()) {
        ("", "Pod") => "spec",
        ("batch", "Job") | ("apps", "Deployment" | "StatefulSet" | "ReplicaSet" | "DaemonSet") => {
            "spec.template.spec"
        }
        ("batch", "CronJob") => "spec.jobTemplate.spec.template.spec",
        _ => return Vec::new(),
    };
    get(&obj.value, path)
        .map(|v| vec![(path, v)])
        .unwrap_or_default()
}

/// One template of a Workload tree.
#[derive(Debug)]
pub(crate) struct Template<'v> {
    /// Path, e.g. `spec.compositePodGroupTemplates[0].podGroupTemplates[1]`.
    pub path: String,
    /// The template.
    pub value: &'v Value,
    /// True for a `CompositePodGroupTemplate`.
    pub composite: bool,
    /// Depth, 1 for root-level templates.
    pub depth: usize,
}

/// Every template of a Workload, depth first, in document order.
pub(crate) fn templates(workload: &Value) -> Vec<Template<'_>> {
    fn walk<'v>(parent: &'v Value, base: &str, depth: usize, out: &mut Vec<Template<'v>>) {
        for (list, composite) in [
            ("podGroupTemplates", false),
            ("compositePodGroupTemplates", true),
        ] {
            let Some(items) = parent.get(list).and_then(Value::as_array) else {
                continue;
            };
            for (i, item) in items.iter().enumerate() {
                let path = format!("{base}.{list}[{i}]");
                out.push(Template {
                    path: path.clone(),
                    value: item,
                    composite,
                    depth,
                });
                // Stop far beyond the limit so a hostile tree cannot recurse without end.
                if composite && depth < 16 {
                    walk(item, &path, depth + 1, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    if let Some(spec) = workload.get("spec") {
        walk(spec, "spec", 1, &mut out);
    }
    out
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters (RFC 1123 label).
pub(crate) fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// RFC 1123 subdomain: dot-separated labels, at most 253 characters.
pub(crate) fn is_dns_subdomain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split('.').all(is_dns_label)
}

/// A qualified label key: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63 of
/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`.
pub(crate) fn is_label_key(s: &str) -> bool {
    let (prefix, name) = match s.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    if prefix.is_some_and(|p| !is_dns_subdomain(p)) {
        return false;
    }
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

/// A path segment name as the API server accepts it (not `.`/`..`, no `/` or `%`).
pub(crate) fn is_path_segment(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '%'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_syntax() {
        assert!(is_dns_label("workers-0"));
        assert!(!is_dns_label("My_Group"));
        assert!(!is_dns_label(&"a".repeat(64)));
        assert!(is_dns_subdomain("train.a-1"));
        assert!(!is_dns_subdomain("train..a"));
        assert!(is_label_key("topology.kubernetes.io/zone"));
        assert!(is_label_key("rack"));
        assert!(!is_label_key("Bad Key"));
        assert!(!is_label_key("a/b/c"));
    }
}
