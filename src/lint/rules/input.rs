//! `WAS0xx`: reading the input. Syntax errors (reported by the driver), unknown kinds (never a
//! silent pass), unknown fields under `--strict`, and objects whose fields do not fit the
//! Kubernetes 1.37 types (checked by deserializing into the k8s-openapi `v1_37` types).

use super::super::{Emitter, Object, Options, Rule, Severity, schema};

/// `WAS001` documentation.
pub const WAS001: &str = "## What it does
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
pub const WAS002: &str = "## What it does
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
- `kubectl api-resources`; wasctl README, section `lint`
";

/// `WAS003` documentation.
pub const WAS003: &str = "## What it does
With `--strict`, reports a field that the Kubernetes 1.37 type of the object does not have.

## Why is this bad?
The API server drops unknown fields (or rejects them with `--validate=strict`), so a
misspelled `minCout` silently becomes the default.

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
pub const WAS004: &str = "## What it does
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

/// Checks the object's identity and its fit to the typed API; returns false when the other
/// rules cannot run on it (no kind, or a kind wasctl does not know).
pub fn check(obj: &Object, options: &Options, em: &mut Emitter<'_>) -> bool {
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
    let checked = schema::lookup(&obj.api_version, &obj.kind);
    // Removed scheduling versions are WAS401's; older served DRA versions have no 1.37 type
    // but the rules still run on them.
    let known_without_schema = matches!(
        (obj.group(), obj.version()),
        ("scheduling.k8s.io", "v1alpha1" | "v1alpha2") | ("resource.k8s.io", "v1beta1" | "v1beta2")
    );
    if checked.is_none() && !known_without_schema {
        let severity = options.reject_unknown.then_some(Severity::Error);
        em.emit_with(
            Rule::UnknownKind,
            severity,
            obj,
            "kind",
            format!(
                "`{}` `{}` is not checked: wasctl has no 1.37 rules for it",
                obj.api_version, obj.kind
            ),
            "check the `apiVersion` spelling; pass `--reject-unknown` to make unchecked kinds fail",
        );
        return false;
    }
    if obj.id.name.is_empty() && obj.value.pointer("/metadata/generateName").is_none() {
        em.emit(
            Rule::InvalidObject,
            obj,
            "metadata.name",
            "`metadata.name` is missing",
            "give the object a name",
        );
    }
    let Some((index, kind)) = checked else {
        return true;
    };
    // A 1.36 string `disruptionMode` is WAS402's finding, with the migration.
    let renamed = |(path, message): &(String, String)| {
        path.ends_with("disruptionMode")
            && (message.starts_with("invalid type: string")
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
    if options.strict && typed_error.is_none() {
        for path in unknown {
            em.emit(
                Rule::UnknownField,
                obj,
                &path,
                format!(
                    "`{path}` is not a field of `{}` `{}`",
                    obj.api_version, obj.kind
                ),
                "remove the field or fix its spelling",
            );
        }
    }
    true
}
