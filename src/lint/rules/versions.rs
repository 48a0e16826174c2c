//! `WAS4xx`: API versions and feature gates. `v1alpha1`/`v1alpha2` scheduling objects are not
//! served by 1.37 (peers §2, k/k#140184); the 1.36 `disruptionMode` strings were renamed; and
//! alpha fields need gates that are off by default (semantics §9, kept as data in [`GATED`]).

use serde_json::Value;

use super::super::{Emitter, GateView, Object, Rule, Severity};
use super::{WasKind, get, templates, was_kind};
use crate::snapshot::facts::Component;

/// `WAS401` documentation.
pub(crate) const WAS401: &str = "## What it does
Reports `scheduling.k8s.io/v1alpha1` and `v1alpha2` objects, with the migration: `v1beta1` for
Workload and PodGroup, `v1alpha3` for CompositePodGroup. A Workload or PodGroup written as
`scheduling.k8s.io/v1` (the version of PriorityClass, which serves no other kind) is reported
with the message `served as scheduling.k8s.io/v1beta1`. Other kinds in versions 1.37 removed (PriorityClass
`v1beta1`, `resource.k8s.io/v1alpha2`, `policy/v1beta1`, …) are reported with their served
version. A third-party kind wasctl does not know stays `WAS002` (info).

## Why is this bad?
Kubernetes 1.37 does not serve these versions: `kubectl apply` fails, and objects left in etcd
from 1.36 must be removed before the upgrade. The shapes changed too (1.35 `spec.podGroups`
became PodGroup objects; `disruptionMode` strings became `{single: {}}` / `{all: {}}`).

## Example
```yaml
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
spec:
  disruptionMode: PodGroup
```

Use instead:
```yaml
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
spec:
  disruptionMode:
    all: {}
```

## References
- KEP-4671 upgrade notes; kubernetes/kubernetes#140184 (remove v1alpha2 objects before upgrading)
";

/// `WAS402` documentation.
pub(crate) const WAS402: &str = "## What it does
Reports a `disruptionMode` written as a 1.36 string (`PodGroup`, `Pod`, `all`, `single`).

## Why is this bad?
In 1.37 `disruptionMode` is a union object; a string is rejected. The 1.36 value `PodGroup` is
now `{all: {}}`, and `Pod` is now `{single: {}}`.

## Example
```yaml
disruptionMode: PodGroup
```

Use instead:
```yaml
disruptionMode:
  all: {}
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`DisruptionMode`); 1.37 release notes
";

/// `WAS403` documentation.
pub(crate) const WAS403: &str = "## What it does
Reports a kind or field that needs an alpha feature gate, off by default in 1.37, and names the
gate and the components that need it: CompositePodGroup (`CompositePodGroup`),
`schedulingConstraints` (`TopologyAwareWorkloadScheduling`), `preemptionPolicy`
(`PodGroupPreemptionPolicy`), Job `spec.scheduling` (`WorkloadWithJob`). What is known of the
gates decides the severity: `--feature-gates`, a `ClusterFacts` document among the linted
files, or the facts of the cluster source. Known on for every component: no finding; known off
on one: a warning naming it; unknown: info.

## Why is this bad?
With the gate off, the API server drops the field on create (or refuses the kind), and the
object silently behaves as if it were not there.

## Example
```yaml
schedulingConstraints:
  topology: [{key: example.com/rack}]
```

Use instead:
```text
Enable TopologyAwareWorkloadScheduling=true on kube-apiserver and kube-scheduler,
or remove the field.
```

## References
- `pkg/features/kube_features.go` (1.37); semantics §9
";

/// `WAS404` documentation.
pub(crate) const WAS404: &str = "## What it does
Reports a `scheduling.k8s.io/v1alpha3` Workload or PodGroup, which 1.37 serves next to the newer
`v1beta1` (deprecated DRA versions are `WAS405`'s).

## Why is this bad?
Alpha and beta versions are removed in later releases; v1alpha3 has no conversion back.

## Example
```yaml
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
```

Use instead:
```yaml
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
```

## References
- Kubernetes deprecation policy; `k8s.io/api/scheduling/v1beta1/register.go`
";

/// `WAS405` documentation.
pub(crate) const WAS405: &str = "## What it does
Reports an object in a version that Kubernetes 1.37 still serves but has deprecated:
`resource.k8s.io/v1beta1` and `v1beta2` (use `v1`, GA since 1.34), and the alpha
`resource.k8s.io/v1alpha3` DeviceTaintRule (use `v1`).

## Why is this bad?
Beta versions are off by default (they need `--runtime-config` on kube-apiserver) and are
removed in a later release; `kubectl apply` then fails.

## Example
```yaml
apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
```

Use instead:
```yaml
apiVersion: resource.k8s.io/v1
kind: DeviceClass
```

## References
- `pkg/registry/resource/rest/storage_resource.go` (served versions); the 1.37 OpenAPI;
  Kubernetes deprecation policy
";

/// What Kubernetes 1.37 does with an apiVersion of a kind lint knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VersionStatus {
    /// Not served: the API server answers 404 for the resource.
    Removed {
        /// Since when, as far as it is known (`1.22`), or a note.
        since: &'static str,
        /// The apiVersion to use.
        replacement: &'static str,
    },
    /// Served, deprecated: use the replacement.
    Deprecated {
        /// The apiVersion to use.
        replacement: &'static str,
    },
}

/// Versions of the kinds lint knows that 1.37 no longer serves, or serves deprecated:
/// (group, version, kinds (empty: every kind lint knows in the group), status).
/// Upstream: `pkg/registry/*/rest/storage_*.go` and the 1.37 OpenAPI (which kinds each
/// `resource.k8s.io` version still has: v1 and v1beta2 all five, v1beta1 all but
/// DeviceTaintRule, v1alpha3 only DeviceTaintRule); the removals of the deprecation guide.
const VERSIONS: &[(&str, &str, &[&str], VersionStatus)] = &[
    // `scheduling.k8s.io/v1` serves PriorityClass only (`k8s.io/api/scheduling/v1/register.go`
    // registers PriorityClass and PriorityClassList); the 1.37 Workload and PodGroup are
    // `v1beta1` (`scheduling/v1beta1/register.go`), CompositePodGroup `v1alpha3`.
    (
        "scheduling.k8s.io",
        "v1",
        &["PodGroup", "Workload"],
        VersionStatus::Removed {
            since: "served as scheduling.k8s.io/v1beta1",
            replacement: "scheduling.k8s.io/v1beta1",
        },
    ),
    (
        "scheduling.k8s.io",
        "v1",
        &["CompositePodGroup"],
        VersionStatus::Removed {
            since: "served as scheduling.k8s.io/v1alpha3",
            replacement: "scheduling.k8s.io/v1alpha3",
        },
    ),
    (
        "scheduling.k8s.io",
        "v1beta1",
        &["PriorityClass"],
        VersionStatus::Removed {
            since: "removed in 1.22",
            replacement: "scheduling.k8s.io/v1",
        },
    ),
    (
        "scheduling.k8s.io",
        "v1alpha1",
        &["PriorityClass"],
        VersionStatus::Removed {
            since: "removed",
            replacement: "scheduling.k8s.io/v1",
        },
    ),
    (
        "resource.k8s.io",
        "v1alpha2",
        &[],
        VersionStatus::Removed {
            since: "removed in 1.31",
            replacement: "resource.k8s.io/v1",
        },
    ),
    (
        "resource.k8s.io",
        "v1alpha3",
        &["DeviceTaintRule"],
        VersionStatus::Deprecated {
            replacement: "resource.k8s.io/v1",
        },
    ),
    (
        "resource.k8s.io",
        "v1alpha3",
        &[],
        VersionStatus::Removed {
            since: "1.37 serves v1alpha3 only for DeviceTaintRule",
            replacement: "resource.k8s.io/v1",
        },
    ),
    (
        "resource.k8s.io",
        "v1beta1",
        &["DeviceTaintRule"],
        VersionStatus::Removed {
            since: "v1beta1 never had DeviceTaintRule",
            replacement: "resource.k8s.io/v1",
        },
    ),
    (
        "resource.k8s.io",
        "v1beta1",
        &[],
        VersionStatus::Deprecated {
            replacement: "resource.k8s.io/v1",
        },
    ),
    (
        "resource.k8s.io",
        "v1beta2",
        &[],
        VersionStatus::Deprecated {
            replacement: "resource.k8s.io/v1",
        },
    ),
    (
        "apps",
        "v1beta1",
        &["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"],
        VersionStatus::Removed {
            since: "removed in 1.16",
            replacement: "apps/v1",
        },
    ),
    (
        "apps",
        "v1beta2",
        &["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"],
        VersionStatus::Removed {
            since: "removed in 1.16",
            replacement: "apps/v1",
        },
    ),
    (
        "extensions",
        "v1beta1",
        &["Deployment", "DaemonSet", "ReplicaSet"],
        VersionStatus::Removed {
            since: "removed in 1.16",
            replacement: "apps/v1",
        },
    ),
    (
        "batch",
        "v1beta1",
        &["CronJob"],
        VersionStatus::Removed {
            since: "removed in 1.25",
            replacement: "batch/v1",
        },
    ),
    (
        "batch",
        "v2alpha1",
        &["CronJob"],
        VersionStatus::Removed {
            since: "removed in 1.21",
            replacement: "batch/v1",
        },
    ),
    (
        "policy",
        "v1beta1",
        &["PodDisruptionBudget"],
        VersionStatus::Removed {
            since: "removed in 1.25",
            replacement: "policy/v1",
        },
    ),
];

/// The DRA kinds lint knows.
const DRA_KINDS: &[&str] = &[
    "ResourceClaim",
    "ResourceClaimTemplate",
    "DeviceClass",
    "ResourceSlice",
    "DeviceTaintRule",
];

/// What 1.37 does with `group/version` `kind`, when it is not simply served (`None`).
pub(crate) fn version_status(group: &str, version: &str, kind: &str) -> Option<VersionStatus> {
    if group == "resource.k8s.io" && !DRA_KINDS.contains(&kind) {
        return None;
    }
    VERSIONS
        .iter()
        .find(|(g, v, kinds, _)| {
            *g == group && *v == version && (kinds.is_empty() || kinds.contains(&kind))
        })
        .map(|(.., status)| *status)
}

/// A gate-protected field: where it is, the gate, and the components that need the gate.
pub(crate) struct Gated {
    /// The field name inside a scheduling holder.
    pub field: &'static str,
    /// The feature gate.
    pub gate: &'static str,
    /// The components that need the gate.
    pub components: &'static [Component],
}

const A_S: &[Component] = &[Component::KubeApiserver, Component::KubeScheduler];
const A_S_C: &[Component] = &[
    Component::KubeApiserver,
    Component::KubeScheduler,
    Component::KubeControllerManager,
];
const A_C: &[Component] = &[Component::KubeApiserver, Component::KubeControllerManager];

/// The alpha gates of 1.37 that protect WAS fields (semantics §9).
pub(crate) const GATED: &[Gated] = &[
    Gated {
        field: "schedulingConstraints",
        gate: "TopologyAwareWorkloadScheduling",
        components: A_S,
    },
    Gated {
        field: "preemptionPolicy",
        gate: "PodGroupPreemptionPolicy",
        components: A_S,
    },
    Gated {
        field: "parentCompositePodGroupName",
        gate: "CompositePodGroup",
        components: A_S_C,
    },
    Gated {
        field: "compositePodGroupTemplates",
        gate: "CompositePodGroup",
        components: A_S_C,
    },
];

fn names(components: &[Component]) -> String {
    let names: Vec<&str> = components.iter().map(|c| c.as_str()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Reports a gated kind or field: nothing when the facts say the gate is on for every
/// component, a warning naming the components that have it off, info when nothing is known.
fn gated(
    em: &mut Emitter<'_>,
    gates: &GateView,
    obj: &Object,
    path: &str,
    what: &str,
    gate: &str,
    components: &[Component],
) {
    let states: Vec<(Component, Option<bool>)> = components
        .iter()
        .map(|c| (*c, gates.state(gate, *c)))
        .collect();
    let off: Vec<Component> = states
        .iter()
        .filter(|(_, s)| *s == Some(false))
        .map(|(c, _)| *c)
        .collect();
    if off.is_empty() && states.iter().all(|(_, s)| *s == Some(true)) {
        return;
    }
    let fix = format!(
        "enable `{gate}=true` on {}, or the field is dropped on create",
        names(components)
    );
    if off.is_empty() {
        em.emit(
            Rule::AlphaFeatureGate,
            obj,
            path,
            format!(
                "{what} needs the alpha feature gate `{gate}` (off by default in 1.37) on {}",
                names(components)
            ),
            fix,
        );
    } else {
        em.emit_with(
            Rule::AlphaFeatureGate,
            Some(Severity::Warning),
            obj,
            path,
            format!(
                "{what} needs the alpha feature gate `{gate}`, which is off on {}",
                names(&off)
            ),
            fix,
        );
    }
}

/// Runs the `WAS4xx` rules; returns true when the object is in a removed version (no other
/// rule applies to its old shape).
pub(crate) fn check(obj: &Object, gates: &GateView, em: &mut Emitter<'_>) -> bool {
    if check_api_version(obj, em) {
        return true;
    }
    if obj.group() == "batch" && obj.kind == "Job" && get(&obj.value, "spec.scheduling").is_some() {
        gated(
            em,
            gates,
            obj,
            "spec.scheduling",
            "`spec.scheduling`",
            "WorkloadWithJob",
            A_C,
        );
    }
    let Some(kind) = was_kind(obj) else {
        return false;
    };
    if kind == WasKind::CompositePodGroup {
        gated(
            em,
            gates,
            obj,
            "kind",
            "`CompositePodGroup`",
            "CompositePodGroup",
            A_S_C,
        );
    }
    check_gated_fields(obj, kind, gates, em);
    false
}

/// The object's `apiVersion`: a removed scheduling version (`v1alpha1`/`v1alpha2`, with the
/// migration to the 1.37 shape) or another removed version (`WAS401`), a deprecated one
/// (`WAS405`), or a served `v1alpha3` Workload or PodGroup where `v1beta1` is the 1.37
/// version (`WAS404`). True when the version is removed: the caller then stops.
fn check_api_version(obj: &Object, em: &mut Emitter<'_>) -> bool {
    let (group, version) = (obj.group(), obj.version());
    if group == "scheduling.k8s.io"
        && matches!(version, "v1alpha1" | "v1alpha2")
        && obj.kind != "PriorityClass"
    {
        let target = if obj.kind == "CompositePodGroup" {
            "v1alpha3"
        } else {
            "v1beta1"
        };
        em.emit_at_value(
            Rule::RemovedApiVersion,
            obj,
            "apiVersion",
            format!("`{}` is not served by Kubernetes 1.37", obj.api_version),
            format!(
                "migrate the {} to `scheduling.k8s.io/{target}` (Workload and PodGroup: v1beta1, CompositePodGroup: v1alpha3); the shape changed, e.g. `disruptionMode: PodGroup` is now `{{all: {{}}}}`; delete old objects before upgrading",
                obj.kind
            ),
        );
        return true;
    }
    match version_status(group, version, &obj.kind) {
        Some(VersionStatus::Removed { since, replacement }) => {
            em.emit_at_value(
                Rule::RemovedApiVersion,
                obj,
                "apiVersion",
                format!(
                    "`{}` `{}` is not served by Kubernetes 1.37 ({since})",
                    obj.api_version, obj.kind
                ),
                format!("change `apiVersion` to `{replacement}` and check the fields against `kubectl explain {}`", obj.kind.to_ascii_lowercase()),
            );
            return true;
        }
        Some(VersionStatus::Deprecated { replacement }) => {
            em.emit_at_value(
                Rule::DeprecatedApiVersion,
                obj,
                "apiVersion",
                format!(
                    "`{}` `{}` is deprecated in Kubernetes 1.37 (a beta or alpha version, off unless enabled with `--runtime-config`); `{replacement}` is the served version",
                    obj.api_version, obj.kind
                ),
                format!("change `apiVersion` to `{replacement}`"),
            );
        }
        None => {}
    }
    if group == "scheduling.k8s.io"
        && version == "v1alpha3"
        && matches!(obj.kind.as_str(), "Workload" | "PodGroup")
    {
        em.emit_at_value(
            Rule::PreferStableVersion,
            obj,
            "apiVersion",
            format!(
                "`{}` is served, but `{group}/v1beta1` is the 1.37 version",
                obj.api_version
            ),
            format!("change `apiVersion` to `{group}/v1beta1`"),
        );
    }
    false
}

/// The fields behind an alpha feature gate (`WAS403`) in a group's `spec` and, for a Workload,
/// in each of its templates (see [`GATED`]), and a 1.36 string `disruptionMode` (`WAS402`, with the 1.37
/// form).
fn check_gated_fields(obj: &Object, kind: WasKind, gates: &GateView, em: &mut Emitter<'_>) {
    let mut holders: Vec<(String, &Value)> = Vec::new();
    if let Some(spec) = obj.value.get("spec") {
        holders.push(("spec".to_owned(), spec));
    }
    if kind == WasKind::Workload {
        holders.extend(templates(&obj.value).into_iter().map(|t| (t.path, t.value)));
    }
    for (base, holder) in holders {
        for g in GATED {
            if holder.get(g.field).is_some_and(|v| !v.is_null()) {
                let path = format!("{base}.{}", g.field);
                gated(
                    em,
                    gates,
                    obj,
                    &path,
                    &format!("`{path}`"),
                    g.gate,
                    g.components,
                );
            }
        }
        if let Some(mode) = holder.get("disruptionMode").and_then(Value::as_str) {
            let now = match mode {
                "PodGroup" | "all" | "All" => "{all: {}}",
                _ => "{single: {}}",
            };
            em.emit_at_value(
                Rule::RenamedDisruptionMode,
                obj,
                &format!("{base}.disruptionMode"),
                format!("`disruptionMode: {mode}` is the 1.36 string form; 1.37 takes `{now}`"),
                format!("write `disruptionMode: {now}`"),
            );
        }
    }
}
