//! `WAS1xx`: names and limits (semantics §2 "Names", "Counts / limits").

use serde_json::Value;

use super::super::{Emitter, Object, Rule};
use super::{
    Template, WasKind, get, is_dns_label, is_dns_subdomain, is_label_key, is_path_segment,
    pod_specs, templates, was_kind,
};

/// Most templates in one list (`WorkloadMaxPodGroupTemplates`).
pub(crate) const MAX_TEMPLATES: usize = 8;
/// Deepest template hierarchy (`WorkloadMaxTreeDepth`).
pub(crate) const MAX_TREE_DEPTH: usize = 4;
/// Most ResourceClaims per PodGroup or template (`MaxPodGroupResourceClaims`).
pub(crate) const MAX_RESOURCE_CLAIMS: usize = 4;
/// Highest user priority.
pub(crate) const MAX_PRIORITY: i64 = 1_000_000_000;

/// `WAS101` documentation.
pub(crate) const WAS101: &str = "## What it does
Checks that the name of a Workload, PodGroup or CompositePodGroup is a DNS subdomain: at most
253 characters of lowercase letters, digits, `-` and `.`, starting and ending alphanumeric.

## Why is this bad?
The API server rejects the object.

## Example
```yaml
metadata:
  name: Train_A
```

Use instead:
```yaml
metadata:
  name: train-a
```

## References
- `pkg/apis/scheduling/validation/validation.go` (`ValidateWorkload`, `ValidatePodGroup`)
";

/// `WAS102` documentation.
pub(crate) const WAS102: &str = "## What it does
Checks that every `podGroupTemplates[*].name` and `compositePodGroupTemplates[*].name`, at
every depth, is present and a DNS label (at most 63 of `[a-z0-9-]`, alphanumeric at both ends).

## Why is this bad?
The API server rejects the Workload; PodGroup names are derived from template names.

## Example
```yaml
podGroupTemplates:
- name: My_Group
```

Use instead:
```yaml
podGroupTemplates:
- name: my-group
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`PodGroupTemplate.Name`); semantics §2 Names
";

/// `WAS103` documentation.
pub(crate) const WAS103: &str = "## What it does
Checks the names that point at other objects: `workloadRef.workloadName` (DNS subdomain),
`workloadRef.templateName` (DNS label), `parentCompositePodGroupName` (DNS subdomain),
`resourceClaims[*].name` (DNS label) and their sources (DNS subdomain), a pod's
`schedulingGroup.podGroupName` (DNS subdomain) and a Workload's `controllerRef`.

## Why is this bad?
The API server rejects the object, and no object can carry such a name anyway.

## Example
```yaml
spec:
  schedulingGroup:
    podGroupName: Train_A
```

Use instead:
```yaml
spec:
  schedulingGroup:
    podGroupName: train-a
```

## References
- `pkg/apis/scheduling/validation/validation.go`; `k8s.io/api/core/v1/types.go` (`PodSchedulingGroup`)
";

/// `WAS104` documentation.
pub(crate) const WAS104: &str = "## What it does
Checks that `podGroupTemplates` and `compositePodGroupTemplates` have at most 8 items each, at
the Workload root and inside every composite template.

## Why is this bad?
The API server rejects the Workload (`WorkloadMaxPodGroupTemplates = 8`).

## Example
```yaml
podGroupTemplates: [{name: a, ...}, ..., {name: i, ...}]   # 9 items
```

Use instead:
```yaml
compositePodGroupTemplates:   # group them under composites of at most 8 each
- name: stage-1
  podGroupTemplates: [...]
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`WorkloadMaxPodGroupTemplates`)
";

/// `WAS105` documentation.
pub(crate) const WAS105: &str = "## What it does
Checks the depth of the template hierarchy: root templates are at depth 1, and a composite
template at depth 4 is an error, so leaves live at depth 4 or less.

## Why is this bad?
The API server rejects the Workload with \"maximum template hierarchy depth is 4\".

## Example
```yaml
compositePodGroupTemplates:            # depth 1
- name: a
  compositePodGroupTemplates:          # depth 2
  - name: b
    compositePodGroupTemplates:        # depth 3
    - name: c
      compositePodGroupTemplates:      # depth 4: too deep
      - name: d
```

Use instead:
```yaml
      podGroupTemplates:               # a leaf at depth 4
      - name: d
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`WorkloadMaxTreeDepth`)
";

/// `WAS106` documentation.
pub(crate) const WAS106: &str = "## What it does
Checks that `schedulingConstraints.topology` has at most one entry.

## Why is this bad?
The API server rejects the object; 1.37 places a gang in one domain of one key.

## Example
```yaml
schedulingConstraints:
  topology: [{key: topology.kubernetes.io/zone}, {key: example.com/rack}]
```

Use instead:
```yaml
schedulingConstraints:
  topology: [{key: example.com/rack}]
```

## References
- KEP-5732 (topology-aware workload scheduling); `k8s.io/api/scheduling/v1beta1/types.go`
";

/// `WAS107` documentation.
pub(crate) const WAS107: &str = "## What it does
Checks that every `schedulingConstraints.topology[*].key` is present and a qualified label key
(`[prefix/]name`).

## Why is this bad?
The API server rejects the object.

## Example
```yaml
topology:
- key: \"rack name\"
```

Use instead:
```yaml
topology:
- key: example.com/rack
```

## References
- `k8s.io/apimachinery/pkg/util/validation` (`IsQualifiedName`)
";

/// `WAS108` documentation.
pub(crate) const WAS108: &str = "## What it does
Checks that `resourceClaims` (PodGroup, templates, Job `spec.scheduling`) and
`status.resourceClaimStatuses` have at most 4 entries.

## Why is this bad?
The API server rejects the object (`MaxPodGroupResourceClaims = 4`).

## Example
```yaml
resourceClaims: [{name: a, ...}, {name: b, ...}, {name: c, ...}, {name: d, ...}, {name: e, ...}]
```

Use instead:
```yaml
resourceClaims: [{name: a, ...}, {name: b, ...}, {name: c, ...}, {name: d, ...}]
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`MaxPodGroupResourceClaims`)
";

/// `WAS109` documentation.
pub(crate) const WAS109: &str = "## What it does
Checks that `priority` on a PodGroup, CompositePodGroup or template is at most 1,000,000,000.

## Why is this bad?
Higher values are reserved for system PriorityClasses; the API server rejects them here.

## Example
```yaml
priority: 2000000000
```

Use instead:
```yaml
priorityClassName: high-priority
```

## References
- `pkg/apis/scheduling/validation/validation.go`; `HighestUserDefinablePriority`
";

/// `WAS110` documentation.
pub(crate) const WAS110: &str = "## What it does
Checks that `schedulingPolicy.gang.minCount` (PodGroup, PodGroupTemplate) and
`schedulingPolicy.gang.minGroupCount` (CompositePodGroup and its template) are set and at
least 1. In a Job's `spec.scheduling` the count may be omitted (the controller fills in the
Job's parallelism), but if set it must be at least 1.

## Why is this bad?
The API server rejects the object; a gang of 0 has no meaning.

## Example
```yaml
schedulingPolicy:
  gang:
    minCount: 0
```

Use instead:
```yaml
schedulingPolicy:
  gang:
    minCount: 4
```

## References
- KEP-4671 (gang scheduling); `k8s.io/api/scheduling/v1beta1/types.go` (`GangSchedulingPolicy`)
";

fn check_name(em: &mut Emitter<'_>, obj: &Object, path: &str, value: Option<&Value>, label: bool) {
    let Some(value) = value else { return };
    let ok = value.as_str().is_some_and(|s| {
        if label {
            is_dns_label(s)
        } else {
            is_dns_subdomain(s)
        }
    });
    if !ok {
        let what = if label {
            "a DNS label (`[a-z0-9-]`, at most 63)"
        } else {
            "a DNS subdomain"
        };
        em.emit(
            Rule::InvalidReferenceName,
            obj,
            path,
            format!("`{path}` {} is not {what}", show(value)),
            "use lowercase letters, digits and `-`, starting and ending with a letter or digit",
        );
    }
}

/// A short display of a value for messages.
pub(crate) fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("`{s}`"),
        other => format!("`{other}`"),
    }
}

/// The scheduling fields shared by templates, PodGroups, CompositePodGroups and Job
/// `spec.scheduling`; `base` is the path of the object holding them.
fn check_scheduling_fields(
    em: &mut Emitter<'_>,
    obj: &Object,
    base: &str,
    holder: &Value,
    count_field: &str,
    count_required: bool,
) {
    let p = |rest: &str| {
        if base.is_empty() {
            rest.to_owned()
        } else {
            format!("{base}.{rest}")
        }
    };
    if let Some(gang) = get(holder, "schedulingPolicy.gang").filter(|g| g.is_object()) {
        let count = gang.get(count_field);
        // A count of the wrong type is WAS004's finding; here only a missing or low one.
        let bad = match count {
            Some(v) => v.as_i64().is_some_and(|n| n < 1),
            None => count_required,
        };
        if bad {
            let path = p(&format!("schedulingPolicy.gang.{count_field}"));
            em.emit(
                Rule::MinCountBelowOne,
                obj,
                &path,
                match count {
                    Some(v) => format!("`{count_field}` is {}; a gang needs at least 1", show(v)),
                    None => format!("`gang` has no `{count_field}`"),
                },
                format!("set `{count_field}` to the number of members that must be placed together (at least 1)"),
            );
        }
    }
    if let Some(topology) = get(holder, "schedulingConstraints.topology").and_then(Value::as_array)
    {
        if topology.len() > 1 {
            em.emit(
                Rule::TooManyTopologyConstraints,
                obj,
                &p("schedulingConstraints.topology[1]"),
                format!(
                    "`schedulingConstraints.topology` has {} entries; at most 1 is allowed",
                    topology.len()
                ),
                "keep one topology key",
            );
        }
        for (i, t) in topology.iter().enumerate() {
            let key = t.get("key");
            if !key.and_then(Value::as_str).is_some_and(is_label_key) {
                em.emit(
                    Rule::InvalidTopologyKey,
                    obj,
                    &p(&format!("schedulingConstraints.topology[{i}].key")),
                    match key {
                        Some(k) => format!("topology key {} is not a qualified label key", show(k)),
                        None => "topology entry has no `key`".to_owned(),
                    },
                    "use a node label key such as `topology.kubernetes.io/zone`",
                );
            }
        }
    }
    if let Some(claims) = holder.get("resourceClaims").and_then(Value::as_array) {
        if claims.len() > MAX_RESOURCE_CLAIMS {
            em.emit(
                Rule::TooManyResourceClaims,
                obj,
                &p(&format!("resourceClaims[{MAX_RESOURCE_CLAIMS}]")),
                format!(
                    "{} resourceClaims; at most {MAX_RESOURCE_CLAIMS} are allowed",
                    claims.len()
                ),
                "share one claim between requests, or move claims to the pods",
            );
        }
        for (i, c) in claims.iter().enumerate() {
            let cp = p(&format!("resourceClaims[{i}]"));
            check_name(
                em,
                obj,
                &format!("{cp}.name"),
                Some(c.get("name").unwrap_or(&Value::Null)),
                true,
            );
            for src in ["resourceClaimName", "resourceClaimTemplateName"] {
                check_name(em, obj, &format!("{cp}.{src}"), c.get(src), false);
            }
        }
    }
    if let Some(priority) = holder.get("priority").and_then(Value::as_i64)
        && priority > MAX_PRIORITY
    {
        em.emit(
            Rule::PriorityOutOfRange,
            obj,
            &p("priority"),
            format!("`priority` {priority} is above the user maximum 1000000000"),
            "use a lower priority, or a `priorityClassName`",
        );
    }
}

/// Runs the `WAS1xx` rules on one object.
pub(crate) fn check(obj: &Object, em: &mut Emitter<'_>) {
    let v = &obj.value;
    for (path, spec) in pod_specs(obj) {
        check_name(
            em,
            obj,
            &format!("{path}.schedulingGroup.podGroupName"),
            get(spec, "schedulingGroup.podGroupName"),
            false,
        );
    }
    if obj.group() == "batch"
        && obj.kind == "Job"
        && let Some(scheduling) = get(v, "spec.scheduling")
    {
        check_scheduling_fields(em, obj, "spec.scheduling", scheduling, "minCount", false);
    }
    let Some(kind) = was_kind(obj) else { return };
    if !obj.id.name.is_empty() && !is_dns_subdomain(&obj.id.name) {
        em.emit_at_value(
            Rule::InvalidObjectName,
            obj,
            "metadata.name",
            format!("{} name `{}` is not a DNS subdomain", obj.kind, obj.id.name),
            "use lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit",
        );
    }
    let spec = v.get("spec").unwrap_or(&Value::Null);
    match kind {
        WasKind::Workload => {
            if let Some(r) = spec.get("controllerRef") {
                check_controller_ref(obj, r, em);
            }
            check_template_counts(obj, spec, em);
            for t in templates(v) {
                check_template(obj, &t, em);
            }
        }
        WasKind::PodGroup | WasKind::CompositePodGroup => check_group(obj, kind, spec, em),
    }
}

/// A Workload's `spec.controllerRef`: `apiGroup` (when set and not empty) a DNS subdomain,
/// `kind` and `name` present and valid path segments (`WAS103`).
fn check_controller_ref(obj: &Object, r: &Value, em: &mut Emitter<'_>) {
    if let Some(group) = r.get("apiGroup").filter(|g| g.as_str() != Some("")) {
        check_name(em, obj, "spec.controllerRef.apiGroup", Some(group), false);
    }
    for f in ["kind", "name"] {
        if !r
            .get(f)
            .and_then(Value::as_str)
            .is_some_and(is_path_segment)
        {
            em.emit(
                Rule::InvalidReferenceName,
                obj,
                &format!("spec.controllerRef.{f}"),
                format!("`spec.controllerRef.{f}` is missing or not a valid path segment"),
                format!("set `{f}` of the owning controller object"),
            );
        }
    }
}

/// At most [`MAX_TEMPLATES`] `podGroupTemplates` and `compositePodGroupTemplates` in a
/// Workload's spec and in each of its composite templates (`WAS104`); the finding points at
/// the first item over the limit.
fn check_template_counts(obj: &Object, spec: &Value, em: &mut Emitter<'_>) {
    for (base, parent) in std::iter::once(("spec".to_owned(), spec)).chain(
        templates(&obj.value)
            .into_iter()
            .filter(|t| t.composite)
            .map(|t| (t.path, t.value)),
    ) {
        for list in ["podGroupTemplates", "compositePodGroupTemplates"] {
            if let Some(items) = parent.get(list).and_then(Value::as_array)
                && items.len() > MAX_TEMPLATES
            {
                em.emit(
                    Rule::TooManyTemplates,
                    obj,
                    &format!("{base}.{list}[{MAX_TEMPLATES}]"),
                    format!(
                        "`{list}` has {} items; at most {MAX_TEMPLATES} are allowed",
                        items.len()
                    ),
                    "group templates under composite templates, or split the Workload",
                );
            }
        }
    }
}

/// One group template of a Workload, at any depth: its `name` a DNS label (`WAS102`), a
/// composite one no deeper than [`MAX_TREE_DEPTH`] (`WAS105`), and its scheduling fields (`minCount` for a PodGroup
/// template, `minGroupCount` for a composite one).
fn check_template(obj: &Object, t: &Template<'_>, em: &mut Emitter<'_>) {
    let name = t.value.get("name");
    if !name.and_then(Value::as_str).is_some_and(is_dns_label) {
        em.emit(
            Rule::InvalidTemplateName,
            obj,
            &format!("{}.name", t.path),
            match name {
                Some(n) => format!("template name {} is not a DNS label", show(n)),
                None => "template has no `name`".to_owned(),
            },
            "use at most 63 lowercase letters, digits and `-`, starting and ending with a letter or digit",
        );
    }
    if t.composite && t.depth >= MAX_TREE_DEPTH {
        em.emit(
            Rule::TemplateTreeTooDeep,
            obj,
            &t.path,
            format!(
                "composite template at depth {}: maximum template hierarchy depth is {MAX_TREE_DEPTH}",
                t.depth
            ),
            "flatten the hierarchy: a composite template must sit at depth 3 or less",
        );
    }
    let count = if t.composite {
        "minGroupCount"
    } else {
        "minCount"
    };
    check_scheduling_fields(em, obj, &t.path, t.value, count, true);
}

/// A PodGroup or CompositePodGroup: the names in `spec.workloadRef` and
/// `spec.parentCompositePodGroupName`, its scheduling fields, and at most
/// [`MAX_RESOURCE_CLAIMS`] `status.resourceClaimStatuses` (`WAS108`).
fn check_group(obj: &Object, kind: WasKind, spec: &Value, em: &mut Emitter<'_>) {
    check_name(
        em,
        obj,
        "spec.workloadRef.workloadName",
        get(spec, "workloadRef.workloadName"),
        false,
    );
    check_name(
        em,
        obj,
        "spec.workloadRef.templateName",
        get(spec, "workloadRef.templateName"),
        true,
    );
    check_name(
        em,
        obj,
        "spec.parentCompositePodGroupName",
        spec.get("parentCompositePodGroupName"),
        false,
    );
    let count = if kind == WasKind::PodGroup {
        "minCount"
    } else {
        "minGroupCount"
    };
    check_scheduling_fields(em, obj, "spec", spec, count, true);
    if let Some(statuses) =
        get(&obj.value, "status.resourceClaimStatuses").and_then(Value::as_array)
        && statuses.len() > MAX_RESOURCE_CLAIMS
    {
        em.emit(
            Rule::TooManyResourceClaims,
            obj,
            &format!("status.resourceClaimStatuses[{MAX_RESOURCE_CLAIMS}]"),
            format!(
                "{} resourceClaimStatuses; at most {MAX_RESOURCE_CLAIMS} are allowed",
                statuses.len()
            ),
            "the status can only name claims of `spec.resourceClaims`",
        );
    }
}
