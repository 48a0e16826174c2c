//! `WAS6xx`: DRA and PriorityClass checks beyond the schema and the declarative table
//! (`pkg/apis/resource/validation`, `pkg/apis/scheduling/validation`): CEL selectors that do not
//! compile (in the simulator's CEL environment, `sched::dra::selector`), request shapes,
//! constraint and config references to requests, consumable-capacity policies, PriorityClass
//! values and reserved names. Pure: no IO.

use serde_json::Value;

use super::super::{Emitter, Object, Rule};
use crate::sched::dra::allocate::MAX_DEVICES_PER_CLAIM;
use crate::sched::dra::capacity::Amount;
use crate::sched::dra::selector::{COST_LIMIT_EXCEEDED, Selectors};
use crate::snapshot::validate::amount_problem;

/// Highest value of a user-defined PriorityClass (`HighestUserDefinablePriority`).
pub(crate) const HIGHEST_USER_PRIORITY: i64 = 1_000_000_000;

/// The two system PriorityClasses and their values (`SystemPriorityClasses`).
pub(crate) const SYSTEM_CLASSES: &[(&str, i64)] = &[
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// `WAS601` documentation.
pub(crate) const WAS601: &str = "## What it does
Compiles every CEL selector (`selectors[*].cel.expression` of a DeviceClass, a ResourceClaim, a
ResourceClaimTemplate, and of `firstAvailable` sub-requests) in the environment the simulator
uses (upstream's `k8s.io/dynamic-resource-allocation/cel`: only `device` is declared) and
reports those that do not compile, are longer than 10,240 bytes
(`CELSelectorExpressionMaxLength`), or whose estimated worst-case cost is above 1,000,000
(`CELSelectorExpressionMaxCost`, e.g. nested comprehensions over `device.attributes`).

## Why is this bad?
The API server rejects the object: `compilation failed`, `Too long`, or `too complex, exceeds
cost limit`.

## Example
```yaml
selectors:
- cel:
    expression: device.attributes[\"gpu.example.com\"].memory >=
```

Use instead:
```yaml
selectors:
- cel:
    expression: device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0
```

## References
- `pkg/apis/resource/validation/validation.go` (`validateCELSelector`); `k8s.io/dynamic-resource-allocation/cel`
";

/// `WAS602` documentation.
pub(crate) const WAS602: &str = "## What it does
Checks the shape of device requests: `count` only with `allocationMode: ExactCount` (not with
`All`), that every `constraints[*].requests` and `config[*].requests` entry names a request
of the claim (`request` or `request/subrequest`), and that the claim's exact counts add up to at
most 32 devices (`AllocationResultsMaxSize`; API validation accepts any positive `count`).

## Why is this bad?
The API server rejects the claim: `must be the name of a request in the claim`. A claim asking
for more than 32 devices is accepted but can never be allocated: kube-scheduler fails it with
`number of requested devices … exceeds the claim limit of 32`.

## Example
```yaml
requests:
- name: gpu
  exactly: {deviceClassName: gpu.example.com, allocationMode: All, count: 2}
constraints:
- requests: [gpus]
  matchAttribute: gpu.example.com/model
```

Use instead:
```yaml
requests:
- name: gpu
  exactly: {deviceClassName: gpu.example.com, allocationMode: All}
constraints:
- requests: [gpu]
  matchAttribute: gpu.example.com/model
```

## References
- `pkg/apis/resource/validation/validation.go` (`validateDeviceClaim`, `validateDeviceConstraint`)
";

/// `WAS603` documentation.
pub(crate) const WAS603: &str = "## What it does
Checks a ResourceSlice device's capacities: each `value` and `requestPolicy` amount is a
quantity; a policy sets at most one of `validRange` and `validValues`; `validRange.min` is not
above `max`; `validValues` are unique and ascending; `default` lies in the range or is one of
the values.

## Why is this bad?
The API server rejects the slice, and the scheduler could not consume the capacity.

## Example
```yaml
capacity:
  memory:
    value: 80Gi
    requestPolicy:
      default: 3Gi
      validValues: [8Gi, 4Gi]
```

Use instead:
```yaml
      default: 4Gi
      validValues: [4Gi, 8Gi]
```

## References
- KEP-5075 (DRA consumable capacity); `pkg/apis/resource/validation/validation.go`
";

/// `WAS605` documentation.
pub(crate) const WAS605: &str = "## What it does
Parses every resource quantity of a pod spec (container and init container `requests` and
`limits`, pod-level `resources`, `overhead`; in Pods and in the pod templates of Jobs,
CronJobs, Deployments, StatefulSets, ReplicaSets and DaemonSets) and of a Node's `capacity`
and `allocatable` exactly as `resource.ParseQuantity` does, and reports those that are not
quantities (`abc`, `NaN`, `1 e3`) or are negative.

## Why is this bad?
The API server rejects the object: `quantities must match the regular expression …` or `must
be greater than or equal to 0`. (wasctl's loader refuses such input too, naming the field.)

## Example
```yaml
resources:
  requests:
    cpu: -5
    memory: 1 Gi
```

Use instead:
```yaml
resources:
  requests:
    cpu: 500m
    memory: 1Gi
```

## References
- `k8s.io/apimachinery/pkg/api/resource/quantity.go` (`ParseQuantity`);
  `pkg/apis/core/validation/validation.go` (`ValidateNonnegativeQuantity`)
";

/// `WAS604` documentation.
pub(crate) const WAS604: &str = "## What it does
Checks a PriorityClass: `value` at most 1,000,000,000 unless it is one of the two system
classes, and no other class name starting with `system-` (reserved).

## Why is this bad?
The API server rejects it: `maximum allowed value of a user defined priority is 1000000000`,
`priority class names with 'system-' prefix are reserved`.

## Example
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: system-training
value: 2000000000
```

Use instead:
```yaml
metadata:
  name: training-critical
value: 1000000000
```

## References
- `pkg/apis/scheduling/validation/validation.go` (`ValidatePriorityClass`); `pkg/apis/scheduling/types.go`
";

/// The device-claim spec of a DRA object and its path, if it has one.
fn device_claim(obj: &Object) -> Option<(&'static str, &Value)> {
    if obj.group() != "resource.k8s.io" {
        return None;
    }
    let path = match obj.kind.as_str() {
        "ResourceClaim" => "spec.devices",
        "ResourceClaimTemplate" => "spec.spec.devices",
        _ => return None,
    };
    super::get(&obj.value, path).map(|v| (path, v))
}

fn items<'v>(v: &'v Value, key: &str) -> impl Iterator<Item = (usize, &'v Value)> {
    v.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
}

/// Every CEL expression of an object with its field path.
fn cel_expressions(obj: &Object) -> Vec<(String, &str)> {
    fn push<'v>(base: &str, holder: &'v Value, out: &mut Vec<(String, &'v str)>) {
        for (i, s) in items(holder, "selectors") {
            if let Some(e) = s.pointer("/cel/expression").and_then(Value::as_str) {
                out.push((format!("{base}.selectors[{i}].cel.expression"), e));
            }
        }
    }
    let mut out = Vec::new();
    if obj.group() == "resource.k8s.io"
        && obj.kind == "DeviceClass"
        && let Some(spec) = obj.value.get("spec")
    {
        push("spec", spec, &mut out);
    }
    if let Some((path, devices)) = device_claim(obj) {
        for (i, r) in items(devices, "requests") {
            let base = format!("{path}.requests[{i}]");
            if let Some(exactly) = r.get("exactly") {
                push(&format!("{base}.exactly"), exactly, &mut out);
            }
            for (j, sub) in items(r, "firstAvailable") {
                push(&format!("{base}.firstAvailable[{j}]"), sub, &mut out);
            }
        }
    }
    out
}

/// WAS605: the quantities of pod specs and nodes.
fn check_quantities(obj: &Object, em: &mut Emitter<'_>) {
    fn list(em: &mut Emitter<'_>, obj: &Object, path: &str, v: Option<&Value>) {
        for (name, q) in v.and_then(Value::as_object).into_iter().flatten() {
            let text = q
                .as_str()
                .map(str::to_owned)
                .or_else(|| q.as_number().map(ToString::to_string));
            let Some(text) = text else { continue };
            if let Some(problem) = amount_problem(&text) {
                let field = format!("{path}[{name}]");
                em.emit_at_value(
                    Rule::InvalidQuantity,
                    obj,
                    &field,
                    format!("`{field}`: {problem}"),
                    "write a non-negative quantity such as `500m`, `2`, `1.5Gi` or `1e3`",
                );
            }
        }
    }
    fn requirements(em: &mut Emitter<'_>, obj: &Object, path: &str, v: Option<&Value>) {
        let Some(v) = v else { return };
        for part in ["requests", "limits"] {
            list(em, obj, &format!("{path}.{part}"), v.get(part));
        }
    }
    if !em.enabled(Rule::InvalidQuantity) {
        return;
    }
    for (base, spec) in super::pod_specs(obj) {
        for kind in ["containers", "initContainers"] {
            for (i, c) in items(spec, kind) {
                requirements(
                    em,
                    obj,
                    &format!("{base}.{kind}[{i}].resources"),
                    c.get("resources"),
                );
            }
        }
        requirements(em, obj, &format!("{base}.resources"), spec.get("resources"));
        list(em, obj, &format!("{base}.overhead"), spec.get("overhead"));
    }
    if obj.group().is_empty() && obj.kind == "Node" {
        for part in ["capacity", "allocatable"] {
            list(
                em,
                obj,
                &format!("status.{part}"),
                obj.value.pointer(&format!("/status/{part}")),
            );
        }
    }
}

fn check_cel(obj: &Object, em: &mut Emitter<'_>) {
    let expressions = cel_expressions(obj);
    if expressions.is_empty() || !em.enabled(Rule::InvalidCelSelector) {
        return;
    }
    // One CEL environment per thread for the whole run: building it registers every function,
    // and `compile` keeps each expression's verdict by its text, so an expression that many
    // manifests repeat is compiled once.
    thread_local! {
        static ENV: std::cell::RefCell<Selectors> = std::cell::RefCell::new(Selectors::default());
    }
    let errors: Vec<(String, String)> = ENV.with_borrow_mut(|env| {
        expressions
            .into_iter()
            .filter_map(|(path, expression)| {
                let id = env.compile(expression);
                env.compile_error(id).map(|e| (path, e.to_owned()))
            })
            .collect()
    });
    for (path, error) in errors {
        let first = error.lines().next().unwrap_or(&error);
        // The API server refuses these before compiling (length) or after (cost).
        let (message, fix) = if first.starts_with(COST_LIMIT_EXCEEDED) {
            (
                format!("`{path}`: {first}"),
                "nest fewer comprehensions, or look attributes up by name instead of iterating",
            )
        } else if first.starts_with("Too long") {
            (format!("`{path}`: {first}"), "shorten the expression")
        } else {
            (
                format!("`{path}` does not compile: {first}"),
                "fix the expression; only `device` (driver, attributes, capacity, allowMultipleAllocations) is declared",
            )
        };
        em.emit_at_value(Rule::InvalidCelSelector, obj, &path, message, fix);
    }
}

fn check_requests(obj: &Object, em: &mut Emitter<'_>) {
    let Some((path, devices)) = device_claim(obj) else {
        return;
    };
    let mut names: Vec<String> = Vec::new();
    // Devices the claim asks for at the least (ExactCount requests; a firstAvailable request
    // its smallest alternative), and the request that asks for the most.
    let mut total: u64 = 0;
    let mut largest: Option<(String, u64)> = None;
    for (i, r) in items(devices, "requests") {
        let exact_count = |shape: &Value| -> Option<u64> {
            (shape.get("allocationMode").and_then(Value::as_str) != Some("All")).then(|| {
                shape
                    .get("count")
                    .and_then(Value::as_i64)
                    .map_or(1, |c| u64::try_from(c).unwrap_or(0))
            })
        };
        let counts: Vec<(String, u64)> = match r.get("exactly") {
            Some(exactly) => exact_count(exactly)
                .map(|c| (format!("{path}.requests[{i}].exactly.count"), c))
                .into_iter()
                .collect(),
            None => items(r, "firstAvailable")
                .filter_map(|(j, sub)| {
                    exact_count(sub)
                        .map(|c| (format!("{path}.requests[{i}].firstAvailable[{j}].count"), c))
                })
                .collect(),
        };
        if let Some(least) = counts.iter().min_by_key(|(_, c)| *c) {
            total = total.saturating_add(least.1);
            if largest.as_ref().is_none_or(|(_, c)| least.1 > *c) {
                largest = Some(least.clone());
            }
        }
        let Some(name) = r.get("name").and_then(Value::as_str) else {
            continue;
        };
        names.push(name.to_owned());
        for (_, sub) in items(r, "firstAvailable") {
            if let Some(s) = sub.get("name").and_then(Value::as_str) {
                names.push(format!("{name}/{s}"));
            }
        }
        let mut shapes = Vec::new();
        if let Some(exactly) = r.get("exactly") {
            shapes.push((format!("{path}.requests[{i}].exactly"), exactly));
        }
        for (j, sub) in items(r, "firstAvailable") {
            shapes.push((format!("{path}.requests[{i}].firstAvailable[{j}]"), sub));
        }
        for (base, shape) in shapes {
            let mode = shape.get("allocationMode").and_then(Value::as_str);
            if mode == Some("All") && shape.get("count").is_some_and(|c| !c.is_null()) {
                em.emit(
                    Rule::InvalidDeviceRequest,
                    obj,
                    &format!("{base}.count"),
                    format!("`{base}` sets `count` with `allocationMode: All`; `count` is only for `ExactCount`"),
                    "remove `count`, or use `allocationMode: ExactCount`",
                );
            }
        }
    }
    if total > u64::from(MAX_DEVICES_PER_CLAIM)
        && let Some((field, count)) = largest
    {
        em.emit_at_value(
            Rule::InvalidDeviceRequest,
            obj,
            &field,
            format!(
                "the claim asks for at least {total} devices (`{field}` is {count}); a claim holds at most {MAX_DEVICES_PER_CLAIM} (AllocationResultsMaxSize), so the scheduler can never allocate it"
            ),
            format!("ask for at most {MAX_DEVICES_PER_CLAIM} devices per claim; split the request over several claims"),
        );
    }
    for list in ["constraints", "config"] {
        for (i, entry) in items(devices, list) {
            for (j, r) in items(entry, "requests") {
                let Some(r) = r.as_str() else { continue };
                // A constraint or config may name a request (for all its sub-requests) or one
                // sub-request.
                if !names.iter().any(|n| n == r) {
                    em.emit_at_value(
                        Rule::InvalidDeviceRequest,
                        obj,
                        &format!("{path}.{list}[{i}].requests[{j}]"),
                        format!("`{r}` must be the name of a request in the claim (or `request/subrequest`)"),
                        if names.is_empty() {
                            "add the request, or remove the reference".to_owned()
                        } else {
                            format!("use one of: {}", names.join(", "))
                        },
                    );
                }
            }
        }
    }
}

fn amount(em: &mut Emitter<'_>, obj: &Object, path: &str, v: &Value) -> Option<Amount> {
    let text = v
        .as_str()
        .map(str::to_owned)
        .or_else(|| v.as_number().map(ToString::to_string))?;
    let parsed = Amount::parse(&text);
    if parsed.is_none() {
        em.emit_at_value(
            Rule::InvalidCapacity,
            obj,
            path,
            format!("`{path}`: `{text}` is not a quantity"),
            "write a quantity such as `40Gi`, `500m` or `4`",
        );
    }
    parsed
}

fn check_capacity(obj: &Object, em: &mut Emitter<'_>) {
    if obj.group() != "resource.k8s.io" || obj.kind != "ResourceSlice" {
        return;
    }
    let Some(spec) = obj.value.get("spec") else {
        return;
    };
    for (i, device) in items(spec, "devices") {
        let Some(capacity) = device.get("capacity").and_then(Value::as_object) else {
            continue;
        };
        for (name, cap) in capacity {
            let base = format!("spec.devices[{i}].capacity[{name}]");
            if let Some(v) = cap.get("value") {
                amount(em, obj, &format!("{base}.value"), v);
            }
            let Some(policy) = cap.get("requestPolicy") else {
                continue;
            };
            let p = format!("{base}.requestPolicy");
            let default = policy
                .get("default")
                .and_then(|v| amount(em, obj, &format!("{p}.default"), v));
            let range = policy.get("validRange");
            let values = policy.get("validValues").and_then(Value::as_array);
            if range.is_some_and(|r| !r.is_null()) && values.is_some() {
                em.emit(
                    Rule::InvalidCapacity,
                    obj,
                    &format!("{p}.validValues"),
                    format!(
                        "`{p}` sets both `validRange` and `validValues`; at most one is allowed"
                    ),
                    "keep one of them",
                );
                continue;
            }
            if let Some(range) = range {
                let min = range
                    .get("min")
                    .and_then(|v| amount(em, obj, &format!("{p}.validRange.min"), v));
                let max = range
                    .get("max")
                    .and_then(|v| amount(em, obj, &format!("{p}.validRange.max"), v));
                if let Some(step) = range.get("step") {
                    amount(em, obj, &format!("{p}.validRange.step"), step);
                }
                if let (Some(min), Some(max)) = (&min, &max)
                    && min.milli > max.milli
                {
                    em.emit(
                        Rule::InvalidCapacity,
                        obj,
                        &format!("{p}.validRange.max"),
                        format!(
                            "`{p}.validRange`: `max` {} is below `min` {}",
                            max.text, min.text
                        ),
                        "make `max` at least `min`",
                    );
                }
                if let Some(d) = &default {
                    let below = min.as_ref().is_some_and(|m| d.milli < m.milli);
                    let above = max.as_ref().is_some_and(|m| d.milli > m.milli);
                    if below || above {
                        em.emit(
                            Rule::InvalidCapacity,
                            obj,
                            &format!("{p}.default"),
                            format!("`{p}.default` {} is outside `validRange`", d.text),
                            "choose a default within the range",
                        );
                    }
                }
            }
            if let Some(values) = values {
                let parsed: Vec<Option<Amount>> = values
                    .iter()
                    .enumerate()
                    .map(|(j, v)| amount(em, obj, &format!("{p}.validValues[{j}]"), v))
                    .collect();
                let known: Vec<(usize, &Amount)> = parsed
                    .iter()
                    .enumerate()
                    .filter_map(|(j, a)| a.as_ref().map(|a| (j, a)))
                    .collect();
                for pair in known.windows(2) {
                    let ((_, a), (j, b)) = (pair[0], pair[1]);
                    if b.milli <= a.milli {
                        em.emit_at_value(
                            Rule::InvalidCapacity,
                            obj,
                            &format!("{p}.validValues[{j}]"),
                            format!("`{p}.validValues` must be unique and in ascending order: `{}` follows `{}`", b.text, a.text),
                            "sort the values and remove duplicates",
                        );
                        break;
                    }
                }
                if let Some(d) = &default
                    && !known.is_empty()
                    && !known.iter().any(|(_, v)| v.milli == d.milli)
                {
                    em.emit(
                        Rule::InvalidCapacity,
                        obj,
                        &format!("{p}.default"),
                        format!("`{p}.default` {} is not one of `validValues`", d.text),
                        "choose the default among `validValues`",
                    );
                }
            }
        }
    }
}

fn check_priority_class(obj: &Object, em: &mut Emitter<'_>) {
    if obj.group() != "scheduling.k8s.io" || obj.kind != "PriorityClass" || obj.version() != "v1" {
        return;
    }
    let name = obj.name();
    let system = SYSTEM_CLASSES.iter().find(|(n, _)| *n == name);
    let value = obj.value.get("value").and_then(Value::as_i64);
    match system {
        Some((n, expected)) => {
            if let Some(v) = value
                && v != *expected
            {
                em.emit_at_value(
                    Rule::InvalidPriorityClass,
                    obj,
                    "value",
                    format!("the system PriorityClass `{n}` must have value {expected}, not {v}"),
                    format!("set `value: {expected}`, or use another name"),
                );
            }
        }
        None => {
            if name.starts_with("system-") {
                em.emit_at_value(
                    Rule::InvalidPriorityClass,
                    obj,
                    "metadata.name",
                    format!("`{name}`: PriorityClass names with the `system-` prefix are reserved"),
                    "choose a name without the `system-` prefix",
                );
            }
            if let Some(v) = value
                && v > HIGHEST_USER_PRIORITY
            {
                em.emit_at_value(
                    Rule::InvalidPriorityClass,
                    obj,
                    "value",
                    format!("`value` {v} is above 1000000000, the maximum of a user-defined PriorityClass"),
                    "use at most `1000000000` (higher values are for the system classes)",
                );
            }
        }
    }
}

/// Runs the `WAS6xx` rules on one object.
pub(crate) fn check(obj: &Object, em: &mut Emitter<'_>) {
    check_quantities(obj, em);
    check_cel(obj, em);
    check_requests(obj, em);
    check_capacity(obj, em);
    check_priority_class(obj, em);
}
