//! `WAS2xx`: unions (exactly one of) and structural rules (semantics §2 "Exactly-one-of",
//! "Structural rules"), plus the Job `spec.scheduling` gang/parallelism check.

use std::collections::BTreeMap;

use serde_json::Value;

use super::super::{Emitter, Object, Rule};
use super::limits::show;
use super::{WasKind, get, templates, was_kind};

/// A template's `(priorityClassName, priority)`.
type Priority<'v> = (Option<&'v Value>, Option<&'v Value>);

/// `WAS201` documentation.
pub(crate) const WAS201: &str = "## What it does
Checks that a Workload sets exactly one of `spec.podGroupTemplates` and
`spec.compositePodGroupTemplates`.

## Why is this bad?
The API server rejects a Workload with both lists or with neither.

## Example
```yaml
spec:
  podGroupTemplates: [{name: workers, schedulingPolicy: {basic: {}}}]
  compositePodGroupTemplates: [{name: stage, podGroupTemplates: [...]}]
```

Use instead:
```yaml
spec:
  compositePodGroupTemplates:
  - name: stage
    podGroupTemplates: [{name: workers, schedulingPolicy: {basic: {}}}]
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`WorkloadSpec`, union)
";

/// `WAS202` documentation.
pub(crate) const WAS202: &str = "## What it does
Checks that `schedulingPolicy` sets exactly one of `basic` and `gang` (PodGroup, templates,
CompositePodGroup).

## Why is this bad?
The API server rejects the object; the scheduler cannot tell whether the group is a gang.

## Example
```yaml
schedulingPolicy:
  basic: {}
  gang: {minCount: 4}
```

Use instead:
```yaml
schedulingPolicy:
  gang: {minCount: 4}
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`PodGroupSchedulingPolicy`)
";

/// `WAS203` documentation.
pub(crate) const WAS203: &str = "## What it does
Checks that an explicit `disruptionMode` sets exactly one of `single: {}` and `all: {}`.

## Why is this bad?
The API server rejects `disruptionMode: {}` and a mode with both members.

## Example
```yaml
disruptionMode: {}
```

Use instead:
```yaml
disruptionMode:
  all: {}
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`DisruptionMode`)
";

/// `WAS204` documentation.
pub(crate) const WAS204: &str = "## What it does
Checks that every `resourceClaims` entry of a PodGroup, template or Job `spec.scheduling` sets
exactly one of `resourceClaimName` and `resourceClaimTemplateName`.

## Why is this bad?
The API server rejects the entry; the claim source would be ambiguous.

## Example
```yaml
resourceClaims:
- name: gpu
  resourceClaimName: shared-gpu
  resourceClaimTemplateName: gpu-template
```

Use instead:
```yaml
resourceClaims:
- name: gpu
  resourceClaimTemplateName: gpu-template
```

## References
- KEP-5729 (DRA ResourceClaims for PodGroups); `PodGroupResourceClaim`
";

/// `WAS205` documentation.
pub(crate) const WAS205: &str = "## What it does
Checks that every composite template has at least one child template.

## Why is this bad?
The API server rejects it: \"must have at least one child PodGroupTemplate or
CompositePodGroupTemplate\".

## Example
```yaml
compositePodGroupTemplates:
- name: stage
  schedulingPolicy: {basic: {}}
```

Use instead:
```yaml
compositePodGroupTemplates:
- name: stage
  schedulingPolicy: {basic: {}}
  podGroupTemplates: [{name: workers, schedulingPolicy: {basic: {}}}]
```

## References
- `pkg/apis/scheduling/validation/validation.go`
";

/// `WAS206` documentation.
pub(crate) const WAS206: &str = "## What it does
Checks that template names are unique across the whole Workload tree, composite and leaf
templates together.

## Why is this bad?
The API server rejects the Workload (`field.Duplicate`); a PodGroup's `workloadRef.templateName`
would be ambiguous.

## Example
```yaml
compositePodGroupTemplates:
- name: prefill
  podGroupTemplates: [{name: workers, ...}]
- name: decode
  podGroupTemplates: [{name: workers, ...}]
```

Use instead:
```yaml
- name: prefill
  podGroupTemplates: [{name: prefill-workers, ...}]
- name: decode
  podGroupTemplates: [{name: decode-workers, ...}]
```

## References
- `pkg/apis/scheduling/validation/validation.go`
";

/// `WAS207` documentation.
pub(crate) const WAS207: &str = "## What it does
Checks that all templates of one Workload have the same `priorityClassName` and `priority`.

## Why is this bad?
The API server rejects it (\"detected multiple priority configurations\"); workload-aware
preemption treats the Workload as one unit with one priority.

## Example
```yaml
podGroupTemplates:
- {name: a, priorityClassName: high, ...}
- {name: b, priorityClassName: low, ...}
```

Use instead:
```yaml
podGroupTemplates:
- {name: a, priorityClassName: high, ...}
- {name: b, priorityClassName: high, ...}
```

## References
- `pkg/apis/scheduling/validation/validation.go`; KEP-4671 workload-aware preemption
";

/// `WAS208` documentation.
pub(crate) const WAS208: &str = "## What it does
Checks that a CompositePodGroup has `spec.workloadRef`, and that a PodGroup with
`spec.parentCompositePodGroupName` also has `spec.workloadRef`.

## Why is this bad?
The API server rejects the object: hierarchies are always instantiated from a Workload.

## Example
```yaml
kind: PodGroup
spec:
  parentCompositePodGroupName: pipeline
```

Use instead:
```yaml
kind: PodGroup
spec:
  parentCompositePodGroupName: pipeline
  workloadRef: {workloadName: pipeline, templateName: prefill}
```

## References
- `pkg/apis/scheduling/validation/validation.go`; KEP-6012 (CompositePodGroup)
";

/// `WAS209` documentation.
pub(crate) const WAS209: &str = "## What it does
Checks that every `status.resourceClaimStatuses[*].name` of a PodGroup names an entry of
`spec.resourceClaims`, and that no name repeats.

## Why is this bad?
The API server rejects the status: \"must match the name of an entry in `spec.resourceClaims`\".
A snapshot with such a status was edited by hand or is corrupt.

## Example
```yaml
spec:
  resourceClaims: [{name: kv, resourceClaimTemplateName: kv-cache}]
status:
  resourceClaimStatuses: [{name: gpu, resourceClaimName: train-gpu-x2x9}]
```

Use instead:
```yaml
status:
  resourceClaimStatuses: [{name: kv, resourceClaimName: train-kv-x2x9}]
```

## References
- `pkg/apis/scheduling/validation/validation.go` (`ValidatePodGroupStatus`)
";

/// `WAS210` documentation.
pub(crate) const WAS210: &str = "## What it does
Checks that a Job's `spec.scheduling.schedulingPolicy.gang.minCount` is not larger than its
`parallelism` (default 1).

## Why is this bad?
The Job controller never runs more than `parallelism` pods at once, so the gang never reaches
its quorum and no pod is ever scheduled.

## Example
```yaml
spec:
  parallelism: 4
  scheduling:
    schedulingPolicy:
      gang: {minCount: 8}
```

Use instead:
```yaml
spec:
  parallelism: 8
  scheduling:
    schedulingPolicy:
      gang: {minCount: 8}
```

## References
- KEP-5547 (Workload API for Job); `pkg/controller/job/job_scheduling_manager.go`
";

fn union(
    em: &mut Emitter<'_>,
    obj: &Object,
    rule: Rule,
    path: &str,
    value: &Value,
    members: [&str; 2],
    fix: &str,
) {
    let set = members
        .iter()
        .filter(|m| value.get(**m).is_some_and(|v| !v.is_null()))
        .count();
    if set != 1 {
        let what = if set == 0 { "neither" } else { "both" };
        em.emit(
            rule,
            obj,
            path,
            format!(
                "`{path}` sets {what} of `{}` and `{}`; exactly one is required",
                members[0], members[1]
            ),
            fix,
        );
    }
}

/// The unions shared by templates, PodGroups, CompositePodGroups and Job `spec.scheduling`.
fn check_unions(
    em: &mut Emitter<'_>,
    obj: &Object,
    base: &str,
    holder: &Value,
    policy_required: bool,
) {
    let p = |rest: &str| format!("{base}.{rest}");
    match holder.get("schedulingPolicy") {
        Some(policy) => union(
            em,
            obj,
            Rule::SchedulingPolicyUnion,
            &p("schedulingPolicy"),
            policy,
            ["basic", "gang"],
            "set `basic: {}` or `gang: {minCount: N}`",
        ),
        None if policy_required => em.emit(
            Rule::SchedulingPolicyUnion,
            obj,
            base,
            format!("`{base}` has no `schedulingPolicy`; one of `basic` and `gang` is required"),
            "add `schedulingPolicy: {basic: {}}` or `schedulingPolicy: {gang: {minCount: N}}`",
        ),
        None => {}
    }
    if let Some(mode) = holder.get("disruptionMode").filter(|m| m.is_object()) {
        union(
            em,
            obj,
            Rule::DisruptionModeUnion,
            &p("disruptionMode"),
            mode,
            ["single", "all"],
            "set `disruptionMode: {single: {}}` (one pod at a time) or `{all: {}}` (the whole group)",
        );
    }
    if let Some(claims) = holder.get("resourceClaims").and_then(Value::as_array) {
        for (i, c) in claims.iter().enumerate() {
            union(
                em,
                obj,
                Rule::ClaimSourceUnion,
                &p(&format!("resourceClaims[{i}]")),
                c,
                ["resourceClaimName", "resourceClaimTemplateName"],
                "keep `resourceClaimName` for an existing claim or `resourceClaimTemplateName` for one generated per PodGroup",
            );
        }
    }
}

/// Runs the `WAS2xx` rules on one object.
pub(crate) fn check(obj: &Object, em: &mut Emitter<'_>) {
    let v = &obj.value;
    if obj.group() == "batch" && obj.kind == "Job" {
        check_job(obj, em);
    }
    let Some(kind) = was_kind(obj) else { return };
    let spec = v.get("spec").unwrap_or(&Value::Null);
    match kind {
        WasKind::Workload => check_workload(obj, spec, em),
        WasKind::PodGroup => {
            check_unions(em, obj, "spec", spec, true);
            if spec.get("parentCompositePodGroupName").is_some()
                && spec.get("workloadRef").is_none()
            {
                em.emit(
                    Rule::MissingWorkloadRef,
                    obj,
                    "spec.parentCompositePodGroupName",
                    "`spec.parentCompositePodGroupName` requires `spec.workloadRef`",
                    "add `workloadRef: {workloadName: …, templateName: …}` naming the template this PodGroup comes from",
                );
            }
            check_claim_statuses(obj, spec, em);
        }
        WasKind::CompositePodGroup => {
            check_unions(em, obj, "spec", spec, true);
            if spec.get("workloadRef").is_none() {
                em.emit(
                    Rule::MissingWorkloadRef,
                    obj,
                    "spec",
                    "a CompositePodGroup requires `spec.workloadRef`",
                    "add `workloadRef: {workloadName: …, templateName: …}` naming its composite template",
                );
            }
        }
    }
}

fn check_workload(obj: &Object, spec: &Value, em: &mut Emitter<'_>) {
    let has = |k: &str| spec.get(k).is_some_and(|v| !v.is_null());
    let (leaves, composites) = (has("podGroupTemplates"), has("compositePodGroupTemplates"));
    if leaves == composites {
        em.emit(
            Rule::TemplateListUnion,
            obj,
            if leaves { "spec.compositePodGroupTemplates" } else { "spec" },
            format!(
                "`spec` sets {} of `podGroupTemplates` and `compositePodGroupTemplates`; exactly one is required",
                if leaves { "both" } else { "neither" }
            ),
            "keep one list; nest leaf templates inside composite templates",
        );
    }
    let all = templates(&obj.value);
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    let mut first_priority: Option<(String, Priority<'_>)> = None;
    for t in &all {
        check_unions(em, obj, &t.path, t.value, true);
        if t.composite {
            let children = ["podGroupTemplates", "compositePodGroupTemplates"]
                .iter()
                .any(|l| {
                    t.value
                        .get(*l)
                        .and_then(Value::as_array)
                        .is_some_and(|a| !a.is_empty())
                });
            if !children {
                em.emit(
                    Rule::CompositeWithoutChildren,
                    obj,
                    &format!("{}.name", t.path),
                    "composite template must have at least one child PodGroupTemplate or CompositePodGroupTemplate",
                    "add `podGroupTemplates` or `compositePodGroupTemplates` under it, or make it a leaf template",
                );
            }
        }
        if let Some(name) = t.value.get("name").and_then(Value::as_str) {
            if let Some(first) = seen.get(name) {
                em.emit(
                    Rule::DuplicateTemplateName,
                    obj,
                    &format!("{}.name", t.path),
                    format!("template name `{name}` is already used at `{first}`"),
                    "give every template in the Workload tree its own name",
                );
            } else {
                seen.insert(name, &t.path);
            }
        }
        let priority = (t.value.get("priorityClassName"), t.value.get("priority"));
        match &first_priority {
            None => first_priority = Some((t.path.clone(), priority)),
            Some((first_path, first)) if *first != priority => {
                let fmt = |(c, p): Priority<'_>| {
                    format!(
                        "priorityClassName {}, priority {}",
                        c.map_or("unset".to_owned(), show),
                        p.map_or("unset".to_owned(), show)
                    )
                };
                let path = if priority.0 != first.0 && priority.0.is_some() {
                    format!("{}.priorityClassName", t.path)
                } else if priority.1.is_some() {
                    format!("{}.priority", t.path)
                } else {
                    format!("{}.name", t.path)
                };
                em.emit(
                    Rule::MixedTemplatePriorities,
                    obj,
                    &path,
                    format!(
                        "detected multiple priority configurations: {} here, {} at `{first_path}`",
                        fmt(priority),
                        fmt(*first)
                    ),
                    "give every template of the Workload the same `priorityClassName` and `priority`",
                );
            }
            Some(_) => {}
        }
    }
}

fn check_claim_statuses(obj: &Object, spec: &Value, em: &mut Emitter<'_>) {
    let Some(statuses) = get(&obj.value, "status.resourceClaimStatuses").and_then(Value::as_array)
    else {
        return;
    };
    let names: Vec<&str> = spec
        .get("resourceClaims")
        .and_then(Value::as_array)
        .map(|c| {
            c.iter()
                .filter_map(|c| c.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let mut seen = Vec::new();
    for (i, s) in statuses.iter().enumerate() {
        let name = s.get("name").and_then(Value::as_str).unwrap_or("");
        let path = format!("status.resourceClaimStatuses[{i}].name");
        if !names.contains(&name) {
            em.emit(
                Rule::ClaimStatusNameMismatch,
                obj,
                &path,
                format!("`{name}` must match the name of an entry in `spec.resourceClaims`"),
                format!(
                    "use one of the spec claim names ({})",
                    if names.is_empty() {
                        "there are none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            );
        } else if seen.contains(&name) {
            em.emit(
                Rule::ClaimStatusNameMismatch,
                obj,
                &path,
                format!("`{name}` appears twice in `status.resourceClaimStatuses`"),
                "keep one status entry per claim",
            );
        }
        seen.push(name);
    }
}

fn check_job(obj: &Object, em: &mut Emitter<'_>) {
    let Some(scheduling) = get(&obj.value, "spec.scheduling") else {
        return;
    };
    check_unions(em, obj, "spec.scheduling", scheduling, false);
    let Some(min) = get(scheduling, "schedulingPolicy.gang.minCount").and_then(Value::as_i64)
    else {
        return;
    };
    let parallelism = get(&obj.value, "spec.parallelism")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    if min > parallelism {
        em.emit(
            Rule::JobGangExceedsParallelism,
            obj,
            "spec.scheduling.schedulingPolicy.gang.minCount",
            format!("gang `minCount` {min} is larger than the Job's `parallelism` {parallelism}: the gang can never form"),
            format!("set `parallelism` to at least {min}, or lower `minCount` to {parallelism} (omit it to default to parallelism)"),
        );
    }
}
