//! The API server's `metadata` rules, on every object of every kind, known or not
//! (`k8s.io/apimachinery/pkg/api/validation/objectmeta.go` `ValidateObjectMeta`, and the name
//! function each kind passes to it in `pkg/apis/*/validation`): the name's format and length,
//! the namespace, label keys and values, annotation keys and the 262,144-byte total of
//! annotations. An unknown kind (a custom resource, Kueue, JobSet) is checked with the
//! generic rules custom resources get (`NameIsDNSSubdomain`), so a manifest the API server
//! would refuse is an error whatever its kind. Names, keys and values are `WAS502`; the
//! annotation total is `WAS111`. Pure: no IO.

use serde_json::Value;

use super::super::{Emitter, Object, Rule};
use super::declarative::join;
use super::was_kind;
use crate::snapshot::names::{
    ANNOTATIONS_MAX_BYTES, dns1035_label_problems, dns1123_label_problems,
    dns1123_subdomain_problems, label_value_problems, max_len_error, path_segment_problems,
    qualified_name_problems,
};

/// `WAS111` documentation.
pub(crate) const WAS111: &str = "## What it does
Adds up the bytes of every annotation key and value of an object, of any kind, and reports a
total above 262,144 bytes (256 KiB), the API server's limit for all annotations together.

## Why is this bad?
The API server rejects the object (`metadata.annotations: Too long: may not be more than
262144 bytes`). A large `kubectl.kubernetes.io/last-applied-configuration` (client-side apply
of a big object) is the usual cause.

## Example
```yaml
metadata:
  annotations:
    example.com/blob: \"…300 KB…\"
```

Use instead:
```yaml
metadata:
  annotations:
    example.com/blob-ref: configmap/blob   # keep the data in a ConfigMap
```

## References
- `k8s.io/apimachinery/pkg/api/validation/objectmeta.go` (`ValidateAnnotations`, `TotalAnnotationSizeLimitB`)
";

/// How the API server checks `metadata.name` for a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameRule {
    /// `NameIsDNSSubdomain` (most kinds, and every custom resource).
    Subdomain,
    /// `NameIsDNSLabel` (Namespace).
    Label,
    /// `NameIsDNS1035Label` (Service).
    Dns1035,
    /// `path.ValidatePathSegmentName` (RBAC roles and bindings).
    PathSegment,
    /// A DNS subdomain of at most 52 characters (CronJob: the controller appends 11
    /// characters to name its Jobs, `ValidateCronJobCreate`).
    CronJob,
}

impl NameRule {
    fn of(obj: &Object) -> Self {
        match (obj.group(), obj.kind.as_str()) {
            ("", "Namespace") => Self::Label,
            ("", "Service") => Self::Dns1035,
            (
                "rbac.authorization.k8s.io",
                "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding",
            ) => Self::PathSegment,
            ("batch", "CronJob") => Self::CronJob,
            _ => Self::Subdomain,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::Subdomain => "a DNS subdomain",
            Self::Label => "a DNS label",
            Self::Dns1035 => "a DNS-1035 label",
            Self::PathSegment => "a valid path segment",
            Self::CronJob => "a DNS subdomain of at most 52 characters",
        }
    }

    fn problems(self, name: &str) -> Vec<String> {
        match self {
            Self::Subdomain => dns1123_subdomain_problems(name),
            Self::Label => dns1123_label_problems(name),
            Self::Dns1035 => dns1035_label_problems(name),
            Self::PathSegment => path_segment_problems(name),
            Self::CronJob => {
                let mut p = dns1123_subdomain_problems(name);
                if name.len() > 52 && name.len() <= 253 {
                    p.insert(0, max_len_error(52));
                }
                p
            }
        }
    }
}

/// Whether the metadata rules apply: a mapping with an `apiVersion` and a `kind` (a document
/// without them is `WAS004`/`WAS005`'s), other than wasctl's own `ClusterFacts`.
fn applies(obj: &Object) -> bool {
    let facts = obj.api_version == "wasctl.dev/v1alpha1" && obj.kind == "ClusterFacts";
    obj.value.is_object() && !obj.api_version.is_empty() && !obj.kind.is_empty() && !facts
}

/// Runs the metadata rules on one object of any kind.
pub(crate) fn check(obj: &Object, em: &mut Emitter<'_>) {
    if !applies(obj) {
        return;
    }
    let Some(meta) = obj.value.get("metadata").and_then(Value::as_object) else {
        return;
    };
    // Workload, PodGroup and CompositePodGroup names are WAS101's.
    if was_kind(obj).is_none()
        && let Some(name) = meta.get("name").and_then(Value::as_str)
        && !name.is_empty()
    {
        let rule = NameRule::of(obj);
        let problems = rule.problems(name);
        if !problems.is_empty() {
            em.emit_at_value(
                Rule::InvalidFormat,
                obj,
                "metadata.name",
                format!(
                    "`metadata.name`: `{name}` is not {}: {}",
                    rule.describe(),
                    problems.join("; ")
                ),
                "use lowercase letters, digits and `-`",
            );
        }
    }
    if let Some(ns) = meta.get("namespace").and_then(Value::as_str)
        && !ns.is_empty()
    {
        let problems = dns1123_label_problems(ns);
        if !problems.is_empty() {
            em.emit_at_value(
                Rule::InvalidFormat,
                obj,
                "metadata.namespace",
                format!(
                    "`metadata.namespace`: `{ns}` is not a DNS label: {}",
                    problems.join("; ")
                ),
                "use at most 63 lowercase letters, digits and `-`",
            );
        }
    }
    if let Some(labels) = meta.get("labels").and_then(Value::as_object) {
        for (k, v) in labels {
            let at = join("metadata.labels", k);
            let key_problems = qualified_name_problems(k);
            if !key_problems.is_empty() {
                em.emit(
                    Rule::InvalidFormat,
                    obj,
                    &at,
                    format!(
                        "`metadata.labels`: key `{k}` is not a qualified name: {}",
                        key_problems.join("; ")
                    ),
                    "fix the key: an optional DNS-subdomain prefix and `/`, then at most 63 of `A-Z`, `a-z`, `0-9`, `-`, `_`, `.`",
                );
                continue;
            }
            let Some(s) = v.as_str() else { continue };
            let value_problems = label_value_problems(s);
            if !value_problems.is_empty() {
                em.emit_at_value(
                    Rule::InvalidFormat,
                    obj,
                    &at,
                    format!(
                        "`{at}`: `{s}` is not a label value: {}",
                        value_problems.join("; ")
                    ),
                    "fix the value: empty, or at most 63 of `A-Z`, `a-z`, `0-9`, `-`, `_`, `.`, alphanumeric at both ends",
                );
            }
        }
    }
    if let Some(annotations) = meta.get("annotations").and_then(Value::as_object) {
        let mut total = 0usize;
        for (k, v) in annotations {
            // Keys are checked lowercased (`ValidateAnnotations`).
            let key_problems = qualified_name_problems(&k.to_ascii_lowercase());
            if !key_problems.is_empty() {
                em.emit(
                    Rule::InvalidFormat,
                    obj,
                    &join("metadata.annotations", k),
                    format!(
                        "`metadata.annotations`: key `{k}` is not a qualified name: {}",
                        key_problems.join("; ")
                    ),
                    "fix the key: an optional DNS-subdomain prefix and `/`, then at most 63 of `A-Z`, `a-z`, `0-9`, `-`, `_`, `.`",
                );
            }
            total = total
                .saturating_add(k.len())
                .saturating_add(v.as_str().map_or(0, str::len));
        }
        if total > ANNOTATIONS_MAX_BYTES {
            em.emit(
                Rule::AnnotationsTooLarge,
                obj,
                "metadata.annotations",
                format!(
                    "`metadata.annotations` total {total} bytes (keys and values); the API server allows at most {ANNOTATIONS_MAX_BYTES} bytes"
                ),
                "keep large data out of annotations (a ConfigMap), or use server-side apply instead of `last-applied-configuration`",
            );
        }
    }
}
