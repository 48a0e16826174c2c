//! `WAS0xx`: reading the input. Syntax errors (reported by the driver), unknown kinds (never a
//! silent pass), unknown, removed and renamed fields (errors by default, as kubectl's `--validate=strict`), and objects whose fields do not fit the
//! Kubernetes 1.37 types (checked by deserializing into the k8s-openapi `v1_37` types).

use super::super::span::{Segment, parse_path};
use super::super::value::did_you_mean;
use super::super::{Emitter, FieldValidation, Object, Options, Rule, Severity, crd, schema};

/// `WAS001` documentation.
pub(crate) const WAS001: &str = "## What it does
Reports a document that is not valid YAML or JSON, at the parser's line and column.

## Why is this bad?
`kubectl apply` refuses the whole file. wasctl still lints the other documents of the file,
so one typo does not hide the other findings.

## Example
```yaml
kind: [PodGroup
```

Use instead:
```yaml
kind: PodGroup
```

## References
- YAML 1.2 specification; `kubectl apply --dry-run=client -f FILE`
";

/// `WAS002` documentation.
pub(crate) const WAS002: &str = "## What it does
Reports an object whose `apiVersion`/`kind` wasctl has no 1.37 rules or types for (a
ConfigMap, a CRD). It is reported as \"not checked\" (info) so that nothing passes silently;
`--reject-unknown` makes it an error.

## Why is this bad?
A lint that skips what it does not know looks the same as a lint that found nothing.
A typo in `apiVersion` (`scheduling.k8s.io/v1beta`) also lands here.

## Example
```yaml
apiVersion: scheduling.k8s.io/v1beta
kind: PodGroup
```

Use instead:
```yaml
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
```

## References
- `kubectl api-resources`; wasctl docs/guide/lint.md
";

/// `WAS003` documentation.
pub(crate) const WAS003: &str = "## What it does
Reports a field that the Kubernetes 1.37 type of the object does not have: a typo (with the
closest field: \"did you mean `minCount`?\"), or a field that was renamed, moved or removed in
an earlier release (with where it went and since when: a pod claim's `source:` wrapper, removed
in 1.31; the 1.35/1.36 pod `spec.workloadRef`, now `spec.schedulingGroup`; a v1beta1 DRA
request's `deviceClassName`, now under `exactly`). An error by default, as `kubectl apply`
validates strictly; `--field-validation=warn` makes it a warning and `=ignore` turns it off.

## Why is this bad?
`kubectl apply` (strict field validation by default) and the API server with
`fieldValidation=Strict` reject the object; with validation off the field is silently dropped,
so a misspelled `minCout` becomes the default.

## Example
```yaml
spec:
  schedulingPolicy:
    gang:
      minCout: 4
```

Use instead:
```yaml
spec:
  schedulingPolicy:
    gang:
      minCount: 4
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go`; `kubectl apply --validate=strict`
";

/// `WAS004` documentation.
pub(crate) const WAS004: &str = "## What it does
Reports an object without `apiVersion`, `kind` or `metadata.name`, or one that does not match the
JSON Schema of its 1.37 type (`schemas/`, from k8s-openapi `v1_37`): a field of the wrong type
(a string where a number belongs), a missing required field.

## Why is this bad?
The API server rejects the object before any other rule matters.

## Example
```yaml
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: train
spec:
  schedulingPolicy:
    gang:
      minCount: four
```

Use instead:
```yaml
      minCount: 4
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go`; `schemas/` (`kubectl wasctl generate schemas`)
";

/// `WAS005` documentation.
pub(crate) const WAS005: &str = "## What it does
Reports a YAML or JSON document that has neither `apiVersion` nor `kind` (a `package.json`, a
CI workflow, a tool's config) as skipped, so that `kubectl wasctl lint .` works on a whole
repository. A document with one of the two but not the other is still an error (`WAS004`).

## Why is this bad?
It is not: it is information, so that nothing is passed over silently.

## Example
```json
{\"name\": \"my-app\", \"version\": \"1.0.0\"}
```

Use instead:
```text
Nothing to change; lint only the manifests directory to avoid the note.
```

## References
- `kubectl apply -f` (refuses such documents: \"apiVersion not set, kind not set\")
";

/// `WAS006` documentation.
pub(crate) const WAS006: &str = "## What it does
Reports a file (or stdin) with no YAML or JSON document in it: empty, or only comments.

## Why is this bad?
A wrong path or an empty pipe looks the same as a clean lint otherwise.

## Example
```sh
kubectl wasctl lint empty.yaml
```

Use instead:
```sh
kubectl wasctl lint deploy/
```

## References
- wasctl docs/guide/lint.md
";

/// `WAS007` documentation.
pub(crate) const WAS007: &str = "## What it does
Evaluates the CEL `x-kubernetes-validations` rules of a custom resource's CRD (CRDs among the
linted files, `--crd FILE|DIR`, or `--crd-from-cluster`) with `self` bound to the value at the
rule's schema node, and reports a rule that is false, with its `message` (or its
`messageExpression`, when wasctl can evaluate it) at its `fieldPath`.

## Why is this bad?
The API server evaluates the same rules on create and update and rejects the object with that
message.

## Example
```yaml
# CRD: spec: {x-kubernetes-validations: [{rule: \"self.minMember <= self.maxMember\", message: \"minMember must not exceed maxMember\"}]}
spec:
  minMember: 8
  maxMember: 4
```

Use instead:
```yaml
spec:
  minMember: 4
  maxMember: 8
```

## References
- `k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`; Kubernetes docs, \"Validation rules\" (CustomResourceDefinitions)
";

/// `WAS008` documentation.
pub(crate) const WAS008: &str = "## What it does
Reports, as information, a check of a custom resource that wasctl could not run: a CEL rule it
cannot evaluate — a transition rule (it uses `oldSelf`, so it only runs on an update, against
the stored object), a function of a CEL library wasctl does not have, a rule that does not
compile here, a rule that fails at run time — or a CRD version whose schema cannot be compiled.
The rule is named; it is never an error, since the API server may well accept the object.

## Why is this bad?
It is not: it says what was not checked, so that nothing passes silently.

## Example
```yaml
# CRD: x-kubernetes-validations: [{rule: \"self.queue == oldSelf.queue\", message: \"queue is immutable\"}]
spec:
  queue: training
```

Use instead:
```text
Nothing to change; `kubectl apply --dry-run=server` evaluates transition rules against the
stored object.
```

## References
- `k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go` (transition rules, `optionalOldSelf`)
";

/// Checks the object's identity and its fit to the typed API; returns false when the other
/// rules cannot run on it (no kind, or a kind wasctl does not know).
pub(crate) fn check(
    obj: &Object,
    options: &Options,
    crds: &crd::CrdSet,
    em: &mut Emitter<'_>,
) -> bool {
    if !obj.value.is_object() || (obj.api_version.is_empty() && obj.kind.is_empty()) {
        let what = if obj.value.is_object() {
            "has neither `apiVersion` nor `kind`"
        } else {
            "is not a mapping"
        };
        em.emit(
            Rule::NotKubernetes,
            obj,
            "",
            format!("the document {what}: not a Kubernetes object, skipped"),
            "nothing to do if the file is not a manifest; otherwise add `apiVersion` and `kind`",
        );
        return false;
    }
    if obj.api_version.is_empty() || obj.kind.is_empty() {
        let field = if obj.api_version.is_empty() {
            "apiVersion"
        } else {
            "kind"
        };
        em.emit(
            Rule::InvalidObject,
            obj,
            field,
            format!("`{field}` is missing or not a string"),
            format!("add `{field}` to the object"),
        );
        return false;
    }
    if obj.api_version == "wasctl.dev/v1alpha1" && obj.kind == "ClusterFacts" {
        return false;
    }
    if obj.api_version == crd::CRD_API_VERSION && obj.kind == crd::CRD_KIND {
        crd::check_definition(obj, em);
        return false;
    }
    let checked = schema::lookup(&obj.api_version, &obj.kind);
    if checked.is_none() && !check_custom(obj, options, crds, em) {
        return false;
    }
    // Removed scheduling versions are WAS401's; older served DRA versions have no 1.37 type
    // but the rules still run on them.
    let known_without_schema =
        matches!(
            (obj.group(), obj.version()),
            ("scheduling.k8s.io", "v1alpha1" | "v1alpha2")
        ) || super::versions::version_status(obj.group(), obj.version(), &obj.kind).is_some();
    if checked.is_none() && !known_without_schema {
        let severity = options.reject_unknown.then_some(Severity::Error);
        let (message, fix) = unknown_kind(obj, crds);
        em.emit_with(Rule::UnknownKind, severity, obj, "kind", message, fix);
        return false;
    }
    missing_name(obj, em);
    if let Some((index, kind)) = checked {
        check_schema(obj, options, index, kind, em);
    }
    true
}

/// `metadata.name` is missing (and no `generateName` stands in for it).
fn missing_name(obj: &Object, em: &mut Emitter<'_>) {
    if obj.id.name.is_empty() && obj.value.pointer("/metadata/generateName").is_none() {
        em.emit(
            Rule::InvalidObject,
            obj,
            "metadata.name",
            "`metadata.name` is missing",
            "give the object a name",
        );
    }
}

/// A kind wasctl has no schema for, checked against the CRDs given; `false` when a CRD
/// decided it (served or not), `true` when no CRD defines it.
fn check_custom(obj: &Object, options: &Options, crds: &crd::CrdSet, em: &mut Emitter<'_>) -> bool {
    match crds.lookup(obj.group(), obj.version(), &obj.kind) {
        crd::Lookup::Unknown => true,
        crd::Lookup::NotServed(name, served) => {
            em.emit_at_value(
                Rule::InvalidObject,
                obj,
                "apiVersion",
                format!(
                    "`{}` `{}` is not served by the `{name}` CRD (it serves {})",
                    obj.api_version,
                    obj.kind,
                    if served.is_empty() {
                        "no version".to_owned()
                    } else {
                        served
                            .iter()
                            .map(|v| format!("`{}/{v}`", obj.group()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
                "use a version the CRD serves: the API server answers \"no matches for kind\"",
            );
            false
        }
        crd::Lookup::Served(served) => {
            missing_name(obj, em);
            crd::check(obj, options, served, em);
            false
        }
    }
}

/// The words of `WAS005` for a kind that nothing checks, and its fix.
fn unknown_kind(obj: &Object, crds: &crd::CrdSet) -> (String, &'static str) {
    // A kind of a non-Kubernetes group is a custom resource: its CRD would check it.
    let custom = obj.group().contains('.') && !obj.group().ends_with(".k8s.io");
    let (message, fix) = if custom {
        (
            format!(
                "`{}` `{}` is not checked: wasctl has no 1.37 rules for it and no CRD {} defines it",
                obj.api_version,
                obj.kind,
                if crds.len() == 0 {
                    "was given that"
                } else {
                    "given"
                }
            ),
            "give its CRD (`--crd FILE`, `--crd-from-cluster`, or among the linted files) to check it; check the `apiVersion` spelling; `--reject-unknown` makes unchecked kinds fail",
        )
    } else {
        (
            format!(
                "`{}` `{}` is not checked: wasctl has no 1.37 rules for it",
                obj.api_version, obj.kind
            ),
            "check the `apiVersion` spelling; pass `--reject-unknown` to make unchecked kinds fail",
        )
    };
    (message, fix)
}

/// The object against its kind's 1.37 schema (`index` into the schema table) and typed API:
/// schema mismatches, else the typed decoder's first error, as `WAS004`, and unknown fields
/// (`WAS003`) per `--field-validation`, only when the typed decoding succeeded. A 1.36 string
/// `disruptionMode` is left to `WAS402`.
fn check_schema(
    obj: &Object,
    options: &Options,
    index: usize,
    kind: &schema::CheckedKind,
    em: &mut Emitter<'_>,
) {
    // A 1.36 string `disruptionMode` is WAS402's finding, with the migration.
    let renamed = |(path, message): &(String, String)| {
        path.ends_with("disruptionMode")
            && (message.contains("found the string")
                || message.ends_with("is not of type \"object\""))
    };
    let schema_errors: Vec<(String, String)> = schema::validate(index, &obj.value)
        .into_iter()
        .filter(|e| !renamed(e))
        .collect();
    let (typed_error, unknown) = (kind.typed)(&obj.value);
    let typed_error = typed_error.filter(|e| !renamed(e));
    let explain = |path: &str| {
        if path.is_empty() {
            format!(
                "`kubectl explain {}` shows the fields",
                obj.kind.to_ascii_lowercase()
            )
        } else {
            format!(
                "`kubectl explain {}.{path}` shows the expected type",
                obj.kind.to_ascii_lowercase()
            )
        }
    };
    if schema_errors.is_empty()
        && let Some((path, message)) = &typed_error
    {
        em.emit(
            Rule::InvalidObject,
            obj,
            path,
            format!("field `{path}`: {message}"),
            explain(path),
        );
    }
    for (path, message) in &schema_errors {
        let what = if path.is_empty() {
            "the object".to_owned()
        } else {
            format!("field `{path}`")
        };
        em.emit(
            Rule::InvalidObject,
            obj,
            path,
            format!("{what} does not match the 1.37 schema: {message}"),
            explain(path),
        );
    }
    if options.field_validation != FieldValidation::Ignore && typed_error.is_none() {
        let severity =
            (options.field_validation == FieldValidation::Warn).then_some(Severity::Warning);
        let root = schema::root_name(kind);
        for path in unknown {
            let (message, fix) = unknown_field(obj, &root, &path);
            em.emit_with(Rule::UnknownField, severity, obj, &path, message, fix);
        }
    }
}

/// A field that moved or was removed, by the definition that no longer has it (so the hint
/// applies wherever the type is embedded: a Pod, a Job's template, a Deployment's).
struct Moved {
    /// The short definition name (`core.PodResourceClaim`).
    def: &'static str,
    /// The field it no longer has.
    field: &'static str,
    /// What happened, with the version.
    what: &'static str,
    /// What to write instead.
    fix: &'static str,
}

/// Fields that well-known manifests still carry. Upstream: the `k8s.io/api` types of each
/// version and the release notes named in each entry.
const MOVED: &[Moved] = &[
    Moved {
        def: "meta.ObjectMeta",
        field: "clusterName",
        what: "`metadata.clusterName` was removed in Kubernetes 1.25 (the API server never set it)",
        fix: "remove `clusterName`",
    },
    Moved {
        def: "core.PodResourceClaim",
        field: "source",
        what: "the `source` wrapper was removed in Kubernetes 1.31 (DRA structured parameters): its `resourceClaimName`/`resourceClaimTemplateName` moved up into the entry",
        fix: "write `resourceClaimName: …` or `resourceClaimTemplateName: …` directly in the entry, without `source:`",
    },
    Moved {
        def: "core.PodSpec",
        field: "workloadRef",
        what: "the 1.35/1.36 field `spec.workloadRef` was replaced in Kubernetes 1.37 by `spec.schedulingGroup`",
        fix: "write `schedulingGroup: {podGroupName: <PodGroup name>}`",
    },
    Moved {
        def: "scheduling.PodGroupSpec",
        field: "podGroupTemplateRef",
        what: "`podGroupTemplateRef` (KEP-4671 drafts) is `workloadRef` in the 1.37 API",
        fix: "write `workloadRef: {workloadName: <Workload>, templateName: <template>}`",
    },
    Moved {
        def: "scheduling.WorkloadSpec",
        field: "podGroups",
        what: "the 1.35 `spec.podGroups` list was replaced in Kubernetes 1.36 by `spec.podGroupTemplates` (PodGroups are now objects of their own)",
        fix: "rename the list to `podGroupTemplates` and create PodGroup objects that reference it with `workloadRef`",
    },
    Moved {
        def: "resource.DeviceRequest",
        field: "deviceClassName",
        what: "in `resource.k8s.io/v1` (Kubernetes 1.34) a request's `deviceClassName`, `selectors`, `allocationMode`, `count`, `adminAccess` and `tolerations` moved under `exactly`",
        fix: "write `exactly: {deviceClassName: …}` (or `firstAvailable: [...]`)",
    },
    Moved {
        def: "resource.DeviceRequest",
        field: "selectors",
        what: "in `resource.k8s.io/v1` (Kubernetes 1.34) a request's `selectors` moved under `exactly`",
        fix: "write `exactly: {deviceClassName: …, selectors: [...]}`",
    },
    Moved {
        def: "resource.DeviceRequest",
        field: "allocationMode",
        what: "in `resource.k8s.io/v1` (Kubernetes 1.34) a request's `allocationMode` moved under `exactly`",
        fix: "write `exactly: {deviceClassName: …, allocationMode: …}`",
    },
    Moved {
        def: "resource.DeviceRequest",
        field: "count",
        what: "in `resource.k8s.io/v1` (Kubernetes 1.34) a request's `count` moved under `exactly`",
        fix: "write `exactly: {deviceClassName: …, count: N}`",
    },
    Moved {
        def: "resource.DeviceRequest",
        field: "adminAccess",
        what: "in `resource.k8s.io/v1` (Kubernetes 1.34) a request's `adminAccess` moved under `exactly`",
        fix: "write `exactly: {deviceClassName: …, adminAccess: true}`",
    },
    Moved {
        def: "resource.Device",
        field: "basic",
        what: "the `basic` wrapper of a device was removed in `resource.k8s.io/v1beta2` (Kubernetes 1.33): its fields moved up into the device",
        fix: "move `attributes`, `capacity` and the other fields of `basic` up one level",
    },
];

/// The message and fix of an unknown field: a moved or removed field says where it went and
/// since when; a typo gets the closest field of the same object.
fn unknown_field(obj: &Object, root: &str, path: &str) -> (String, String) {
    let segments = parse_path(path);
    let (parent, field) = match segments.split_last() {
        Some((Segment::Key(field), parent)) => (parent, field.as_str()),
        _ => (segments.as_slice(), ""),
    };
    let def = schema::shapes().def_at(root, parent);
    if let Some(def) = def
        && let Some(m) = MOVED
            .iter()
            .find(|m| m.def == def.short && m.field == field)
    {
        return (
            format!(
                "`{path}` is not a field of `{}` `{}`: {}",
                obj.api_version, obj.kind, m.what
            ),
            m.fix.to_owned(),
        );
    }
    let message = format!(
        "`{path}` is not a field of `{}` `{}`",
        obj.api_version, obj.kind
    );
    match def.and_then(|d| did_you_mean(field, d.props.keys().map(String::as_str))) {
        Some(near) => (
            format!("{message}; did you mean `{near}`?"),
            format!("rename the field to `{near}`"),
        ),
        None => (
            message,
            "remove the field or fix its spelling (`kubectl explain` lists the fields)".to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_finds_typos_not_strangers() {
        let fields = ["minCount", "minGroupCount"];
        assert_eq!(
            did_you_mean("minCout", fields.iter().copied()),
            Some("minCount")
        );
        assert_eq!(
            did_you_mean("mincount", fields.iter().copied()),
            Some("minCount")
        );
        assert_eq!(did_you_mean("replicas", fields.iter().copied()), None);
    }
}
