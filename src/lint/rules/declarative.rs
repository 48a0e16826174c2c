//! `WAS5xx`: upstream's declarative validation, applied generically. The constraints are data
//! ([`FIELDS`], [`UNIONS`]), keyed by the API type that carries the field (`core.PodSpec`,
//! `resource.ExactDeviceRequest`), not by kind: one walk follows each object through its
//! 1.37 schema ([`schema::shapes`]) and checks every type it meets, so a rule about `PodSpec`
//! applies to a Pod, a Job's template, a CronJob's and a Deployment's alike.
//!
//! The table transcribes the 1.37 `k8s.io/api` tags (`+enum` values listed in the types'
//! comments, `+k8s:format`, `+listType=map`/`+listMapKey`, `+k8s:unionMember`, `+k8s:minimum`,
//! `+k8s:maxItems`) and the matching hand-written checks of `pkg/apis/*/validation`; it is
//! kept by hand (the k8s-openapi schemas carry none of these), and only lists constraints
//! whose upstream check is certain, so that nothing the API server accepts is an error.
//! Constraints the `WAS1xx`/`WAS2xx` rules already check on scheduling objects are not
//! repeated here. Pure: no IO.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use serde_json::Value;

use super::super::schema::{self, Shape, Shapes};
use super::super::{Emitter, Object, Rule};
use super::{is_dns_label, is_dns_subdomain, is_label_key};

/// A string format (`+k8s:format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// RFC 1123 label (`k8s-short-name`).
    DnsLabel,
    /// RFC 1123 subdomain (`k8s-long-name`).
    DnsSubdomain,
    /// A qualified name (`[prefix/]name`), as label keys.
    QualifiedName,
}

impl Format {
    fn check(self, s: &str) -> bool {
        match self {
            Self::DnsLabel => is_dns_label(s),
            Self::DnsSubdomain => is_dns_subdomain(s),
            Self::QualifiedName => is_label_key(s),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::DnsLabel => {
                "a DNS label (at most 63 of `a-z`, `0-9`, `-`, alphanumeric at both ends)"
            }
            Self::DnsSubdomain => {
                "a DNS subdomain (at most 253 of `a-z`, `0-9`, `-`, `.`, alphanumeric at both ends of each part)"
            }
            Self::QualifiedName => {
                "a qualified name (`[prefix/]name`: prefix a DNS subdomain, name at most 63 of `A-Z`, `a-z`, `0-9`, `-`, `_`, `.`, alphanumeric at both ends)"
            }
        }
    }
}

/// One constraint on a field.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Check {
    /// One of these strings (empty means unset and is not checked).
    Enum(&'static [&'static str]),
    /// A string format (empty strings are left to the `required` checks).
    Format(Format),
    /// A map whose keys are qualified names and, when `values` is set, whose values are label
    /// values (labels, node selectors, `matchLabels`).
    LabelMap {
        /// Check the values as label values too.
        values: bool,
    },
    /// List items are unique by these keys (`+listType=map`, `+listMapKey`).
    UniqueBy(&'static [&'static str]),
    /// At least this many items.
    MinItems(usize),
    /// At most this many items.
    MaxItems(usize),
    /// A number at least this.
    Min(i64),
    /// A number at most this.
    Max(i64),
}

/// A constraint on `field` of type `def`.
#[derive(Debug)]
pub(crate) struct FieldRule {
    /// The type's short name (`core.PodSpec`).
    pub def: &'static str,
    /// The JSON field.
    pub field: &'static str,
    /// The constraint.
    pub check: Check,
}

/// A union: of `members`, exactly one (or at most one) is set.
#[derive(Debug)]
pub(crate) struct UnionRule {
    /// The type's short name.
    pub def: &'static str,
    /// The members; empty means every field of the type.
    pub members: &'static [&'static str],
    /// Every member but these (with an empty `members`).
    pub except: &'static [&'static str],
    /// Exactly one (true) or at most one (false).
    pub exactly: bool,
}

macro_rules! fields {
    ($($def:literal . $field:literal => $check:expr;)*) => {
        /// Every field constraint.
        pub(crate) const FIELDS: &[FieldRule] = &[$(FieldRule { def: $def, field: $field, check: $check },)*];
    };
}

use Check::{Enum, Format as F, LabelMap, Max, MaxItems, Min, MinItems, UniqueBy};
use Format::{DnsLabel, DnsSubdomain, QualifiedName};

const PREEMPTION_POLICY: Check = Enum(&["PreemptLowerPriority", "Never"]);
const NODE_SELECTOR_OPERATOR: Check = Enum(&["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]);
const LABEL_SELECTOR_OPERATOR: Check = Enum(&["In", "NotIn", "Exists", "DoesNotExist"]);
const TAINT_EFFECT: Check = Enum(&["NoSchedule", "PreferNoSchedule", "NoExecute"]);
const DEVICE_TAINT_EFFECT: Check = Enum(&["NoSchedule", "NoExecute", "None"]);
const ALLOCATION_MODE: Check = Enum(&["ExactCount", "All"]);
const UPDATE_STRATEGY: Check = Enum(&["RollingUpdate", "OnDelete"]);

fields! {
    // meta (k8s.io/apimachinery/pkg/apis/meta/v1, ValidateObjectMeta)
    "meta.ObjectMeta"."namespace" => F(DnsLabel);
    "meta.ObjectMeta"."labels" => LabelMap { values: true };
    "meta.ObjectMeta"."annotations" => LabelMap { values: false };
    "meta.LabelSelector"."matchLabels" => LabelMap { values: true };
    "meta.LabelSelectorRequirement"."operator" => LABEL_SELECTOR_OPERATOR;
    // core/v1 (k8s.io/api/core/v1/types.go; pkg/apis/core/validation)
    "core.PodSpec"."restartPolicy" => Enum(&["Always", "OnFailure", "Never"]);
    "core.PodSpec"."dnsPolicy" => Enum(&["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]);
    "core.PodSpec"."preemptionPolicy" => PREEMPTION_POLICY;
    "core.PodSpec"."priorityClassName" => F(DnsSubdomain);
    "core.PodSpec"."serviceAccountName" => F(DnsSubdomain);
    "core.PodSpec"."nodeSelector" => LabelMap { values: true };
    "core.PodSpec"."containers" => MinItems(1);
    "core.PodSpec"."containers" => UniqueBy(&["name"]);
    "core.PodSpec"."initContainers" => UniqueBy(&["name"]);
    "core.PodSpec"."ephemeralContainers" => UniqueBy(&["name"]);
    "core.PodSpec"."volumes" => UniqueBy(&["name"]);
    "core.PodSpec"."resourceClaims" => UniqueBy(&["name"]);
    "core.PodSpec"."schedulingGates" => UniqueBy(&["name"]);
    "core.PodSpec"."activeDeadlineSeconds" => Min(1);
    "core.PodResourceClaim"."name" => F(DnsLabel);
    "core.Container"."name" => F(DnsLabel);
    "core.Container"."imagePullPolicy" => Enum(&["Always", "Never", "IfNotPresent"]);
    "core.Container"."terminationMessagePolicy" => Enum(&["File", "FallbackToLogsOnError"]);
    "core.EphemeralContainer"."name" => F(DnsLabel);
    "core.EphemeralContainer"."imagePullPolicy" => Enum(&["Always", "Never", "IfNotPresent"]);
    "core.Volume"."name" => F(DnsLabel);
    "core.ContainerPort"."protocol" => Enum(&["TCP", "UDP", "SCTP"]);
    "core.ContainerPort"."containerPort" => Min(1);
    "core.ContainerPort"."containerPort" => Max(65535);
    "core.ContainerPort"."hostPort" => Min(0);
    "core.ContainerPort"."hostPort" => Max(65535);
    "core.Toleration"."operator" => Enum(&["Exists", "Equal"]);
    "core.Toleration"."effect" => TAINT_EFFECT;
    "core.Taint"."effect" => TAINT_EFFECT;
    "core.Taint"."key" => F(QualifiedName);
    "core.NodeSelectorRequirement"."operator" => NODE_SELECTOR_OPERATOR;
    "core.TopologySpreadConstraint"."whenUnsatisfiable" => Enum(&["DoNotSchedule", "ScheduleAnyway"]);
    "core.TopologySpreadConstraint"."nodeAffinityPolicy" => Enum(&["Honor", "Ignore"]);
    "core.TopologySpreadConstraint"."nodeTaintsPolicy" => Enum(&["Honor", "Ignore"]);
    "core.TopologySpreadConstraint"."maxSkew" => Min(1);
    "core.TopologySpreadConstraint"."minDomains" => Min(1);
    "core.TopologySpreadConstraint"."topologyKey" => F(QualifiedName);
    "core.PodAffinityTerm"."topologyKey" => F(QualifiedName);
    // apps/v1
    "apps.DeploymentSpec"."replicas" => Min(0);
    "apps.DeploymentStrategy"."type" => Enum(&["Recreate", "RollingUpdate"]);
    "apps.StatefulSetSpec"."replicas" => Min(0);
    "apps.StatefulSetSpec"."podManagementPolicy" => Enum(&["OrderedReady", "Parallel"]);
    "apps.StatefulSetUpdateStrategy"."type" => UPDATE_STRATEGY;
    "apps.DaemonSetUpdateStrategy"."type" => UPDATE_STRATEGY;
    "apps.ReplicaSetSpec"."replicas" => Min(0);
    // batch/v1
    "batch.JobSpec"."parallelism" => Min(0);
    "batch.JobSpec"."completions" => Min(0);
    "batch.JobSpec"."backoffLimit" => Min(0);
    "batch.JobSpec"."activeDeadlineSeconds" => Min(1);
    "batch.JobSpec"."completionMode" => Enum(&["NonIndexed", "Indexed"]);
    "batch.JobSpec"."podReplacementPolicy" => Enum(&["TerminatingOrFailed", "Failed"]);
    "batch.CronJobSpec"."concurrencyPolicy" => Enum(&["Allow", "Forbid", "Replace"]);
    "batch.CronJobSpec"."successfulJobsHistoryLimit" => Min(0);
    "batch.CronJobSpec"."failedJobsHistoryLimit" => Min(0);
    "batch.PodFailurePolicyRule"."action" => Enum(&["FailJob", "FailIndex", "Ignore", "Count"]);
    "batch.PodFailurePolicyOnExitCodesRequirement"."operator" => Enum(&["In", "NotIn"]);
    // policy/v1
    "policy.PodDisruptionBudgetSpec"."unhealthyPodEvictionPolicy" => Enum(&["IfHealthyBudget", "AlwaysAllow"]);
    // scheduling.k8s.io (v1, v1beta1, v1alpha3): what WAS1xx/WAS2xx do not check already
    "scheduling.PriorityClass"."preemptionPolicy" => PREEMPTION_POLICY;
    "scheduling.PodGroupSpec"."preemptionPolicy" => PREEMPTION_POLICY;
    "scheduling.PodGroupSpec"."priorityClassName" => F(DnsSubdomain);
    "scheduling.PodGroupSpec"."resourceClaims" => UniqueBy(&["name"]);
    "scheduling.PodGroupTemplate"."preemptionPolicy" => PREEMPTION_POLICY;
    "scheduling.PodGroupTemplate"."priorityClassName" => F(DnsSubdomain);
    "scheduling.PodGroupTemplate"."resourceClaims" => UniqueBy(&["name"]);
    "scheduling.CompositePodGroupTemplate"."preemptionPolicy" => PREEMPTION_POLICY;
    "scheduling.CompositePodGroupTemplate"."priorityClassName" => F(DnsSubdomain);
    "scheduling.CompositePodGroupSpec"."preemptionPolicy" => PREEMPTION_POLICY;
    "scheduling.CompositePodGroupSpec"."priorityClassName" => F(DnsSubdomain);
    // resource.k8s.io/v1 (k8s.io/api/resource/v1/types.go; pkg/apis/resource/validation)
    "resource.DeviceClaim"."requests" => UniqueBy(&["name"]);
    "resource.DeviceClaim"."requests" => MaxItems(32);
    "resource.DeviceClaim"."constraints" => MaxItems(32);
    "resource.DeviceClaim"."config" => MaxItems(32);
    "resource.DeviceRequest"."name" => F(DnsLabel);
    "resource.DeviceRequest"."firstAvailable" => MinItems(1);
    "resource.DeviceRequest"."firstAvailable" => MaxItems(8);
    "resource.DeviceRequest"."firstAvailable" => UniqueBy(&["name"]);
    "resource.ExactDeviceRequest"."deviceClassName" => F(DnsSubdomain);
    "resource.ExactDeviceRequest"."allocationMode" => ALLOCATION_MODE;
    "resource.ExactDeviceRequest"."count" => Min(1);
    "resource.ExactDeviceRequest"."selectors" => MaxItems(32);
    "resource.ExactDeviceRequest"."tolerations" => MaxItems(16);
    "resource.DeviceSubRequest"."name" => F(DnsLabel);
    "resource.DeviceSubRequest"."deviceClassName" => F(DnsSubdomain);
    "resource.DeviceSubRequest"."allocationMode" => ALLOCATION_MODE;
    "resource.DeviceSubRequest"."count" => Min(1);
    "resource.DeviceSubRequest"."selectors" => MaxItems(32);
    "resource.DeviceSubRequest"."tolerations" => MaxItems(16);
    "resource.DeviceToleration"."operator" => Enum(&["Exists", "Equal"]);
    "resource.DeviceToleration"."effect" => DEVICE_TAINT_EFFECT;
    "resource.DeviceTaint"."effect" => DEVICE_TAINT_EFFECT;
    "resource.DeviceTaint"."key" => F(QualifiedName);
    "resource.DeviceAllocationConfiguration"."source" => Enum(&["FromClass", "FromClaim"]);
    "resource.OpaqueDeviceConfiguration"."driver" => F(DnsSubdomain);
    "resource.DeviceClassSpec"."selectors" => MaxItems(32);
    "resource.DeviceClassSpec"."config" => MaxItems(32);
    "resource.ResourceSliceSpec"."driver" => F(DnsSubdomain);
    "resource.ResourceSliceSpec"."devices" => MaxItems(128);
    "resource.ResourceSliceSpec"."devices" => UniqueBy(&["name"]);
    "resource.ResourceSliceSpec"."sharedCounters" => UniqueBy(&["name"]);
    "resource.ResourceSliceSpec"."nodeName" => F(DnsSubdomain);
    "resource.Device"."name" => F(DnsLabel);
    "resource.CounterSet"."name" => F(DnsLabel);
    "resource.ResourcePool"."generation" => Min(0);
    "resource.ResourcePool"."resourceSliceCount" => Min(1);
}

/// Every union.
pub(crate) const UNIONS: &[UnionRule] = &[
    UnionRule {
        def: "core.PodResourceClaim",
        members: &["resourceClaimName", "resourceClaimTemplateName"],
        except: &[],
        exactly: true,
    },
    UnionRule {
        def: "core.Volume",
        members: &[],
        except: &["name"],
        exactly: false,
    },
    UnionRule {
        def: "core.EnvVarSource",
        members: &[],
        except: &[],
        exactly: true,
    },
    UnionRule {
        def: "core.Probe",
        members: &["exec", "httpGet", "tcpSocket", "grpc"],
        except: &[],
        exactly: true,
    },
    UnionRule {
        def: "resource.DeviceRequest",
        members: &["exactly", "firstAvailable"],
        except: &[],
        exactly: true,
    },
    UnionRule {
        def: "resource.DeviceAttribute",
        members: &[],
        except: &[],
        exactly: true,
    },
    UnionRule {
        def: "resource.ResourceSliceSpec",
        members: &[
            "nodeName",
            "nodeSelector",
            "allNodes",
            "perDeviceNodeSelection",
        ],
        except: &[],
        exactly: true,
    },
    UnionRule {
        def: "resource.Device",
        members: &["nodeName", "nodeSelector", "allNodes"],
        except: &[],
        exactly: false,
    },
    UnionRule {
        def: "resource.DeviceConstraint",
        members: &["matchAttribute", "distinctAttribute"],
        except: &[],
        exactly: true,
    },
];

/// `WAS501` documentation.
pub(crate) const WAS501: &str = "## What it does
Reports a value that is not one of an enum's values (`+enum` in `k8s.io/api`), in every kind
lint knows: a pod's `restartPolicy` or `preemptionPolicy`, a toleration's `effect`, a DRA
request's `allocationMode`, a PriorityClass's `preemptionPolicy`, a Job's `completionMode`.

## Why is this bad?
The API server rejects the object: `Unsupported value`.

## Example
```yaml
spec:
  preemptionPolicy: PreemptNever
```

Use instead:
```yaml
spec:
  preemptionPolicy: Never
```

## References
- `k8s.io/api/core/v1/types.go` (`PreemptionPolicy`, `RestartPolicy`, …); `pkg/apis/core/validation`
";

/// `WAS502` documentation.
pub(crate) const WAS502: &str = "## What it does
Reports a string that does not have its upstream format (`+k8s:format`): names that must be DNS
labels (container, volume, claim and request names) or DNS subdomains (`priorityClassName`,
`deviceClassName`, a driver name, `metadata.name` of most kinds), label and annotation keys
(qualified names) and label values, topology keys.

## Why is this bad?
The API server rejects the object: `a lowercase RFC 1123 label must consist of …`.

## Example
```yaml
spec:
  priorityClassName: High_Priority
```

Use instead:
```yaml
spec:
  priorityClassName: high-priority
```

## References
- `k8s.io/apimachinery/pkg/util/validation`; `+k8s:format=k8s-long-name` / `k8s-short-name`
";

/// `WAS503` documentation.
pub(crate) const WAS503: &str = "## What it does
Reports a union with the wrong number of members set (`+k8s:unionMember`): a pod claim entry
with both or neither of `resourceClaimName` and `resourceClaimTemplateName`, a DRA request with
both or neither of `exactly` and `firstAvailable`, a device attribute with two values, a
ResourceSlice without exactly one of `nodeName`, `nodeSelector`, `allNodes`,
`perDeviceNodeSelection`, a volume with two sources, a probe without exactly one handler.

## Why is this bad?
The API server rejects the object: `must specify exactly one of …`.

## Example
```yaml
resourceClaims:
- name: gpu
  resourceClaimName: gpu
  resourceClaimTemplateName: gpu-template
```

Use instead:
```yaml
resourceClaims:
- name: gpu
  resourceClaimTemplateName: gpu-template
```

## References
- `k8s.io/api/core/v1/types.go` (`PodResourceClaim`); `k8s.io/api/resource/v1/types.go` (`DeviceRequest`)
";

/// `WAS504` documentation.
pub(crate) const WAS504: &str = "## What it does
Reports two items of a keyed list (`+listType=map`, `+listMapKey`) with the same key: two
containers, volumes or pod claims with one name, two requests of a claim, two devices of a
ResourceSlice.

## Why is this bad?
The API server rejects the object: `Duplicate value`. Server-side apply could not merge it.

## Example
```yaml
resourceClaims:
- {name: gpu, resourceClaimTemplateName: a}
- {name: gpu, resourceClaimTemplateName: b}
```

Use instead:
```yaml
resourceClaims:
- {name: gpu-a, resourceClaimTemplateName: a}
- {name: gpu-b, resourceClaimTemplateName: b}
```

## References
- Kubernetes API conventions, \"Lists of named subobjects\"; `+listType=map`
";

/// `WAS505` documentation.
pub(crate) const WAS505: &str = "## What it does
Reports a number or list size outside its upstream bounds (`+k8s:minimum`, `+k8s:maxItems`,
hand-written range checks): a port outside 1–65535, a `count` below 1, more than 32 requests
in a claim, more than 8 `firstAvailable` sub-requests, a pod without containers, a negative
`replicas`.

## Why is this bad?
The API server rejects the object: `must be greater than or equal to …`, `Too many`.

## Example
```yaml
exactly:
  deviceClassName: gpu.example.com
  count: 0
```

Use instead:
```yaml
exactly:
  deviceClassName: gpu.example.com
  count: 1
```

## References
- `pkg/apis/resource/validation/validation.go`; `pkg/apis/core/validation/validation.go`
";

/// The table, indexed by type, and the types from which a constrained type can be reached.
struct Index {
    fields: HashMap<&'static str, Vec<&'static FieldRule>>,
    unions: HashMap<&'static str, Vec<&'static UnionRule>>,
    /// Full definition names whose subtree has a constraint (the walk skips the others).
    relevant: BTreeSet<String>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut fields: HashMap<&'static str, Vec<&'static FieldRule>> = HashMap::new();
        for f in FIELDS {
            fields.entry(f.def).or_default().push(f);
        }
        let mut unions: HashMap<&'static str, Vec<&'static UnionRule>> = HashMap::new();
        for u in UNIONS {
            unions.entry(u.def).or_default().push(u);
        }
        let shapes = schema::shapes();
        let mut relevant: BTreeSet<String> = shapes
            .defs
            .iter()
            .filter(|(_, d)| {
                fields.contains_key(d.short.as_str()) || unions.contains_key(d.short.as_str())
            })
            .map(|(name, _)| name.clone())
            .collect();
        loop {
            let before = relevant.len();
            for (name, def) in &shapes.defs {
                if !relevant.contains(name) && def.props.values().any(|s| leads_to(s, &relevant)) {
                    relevant.insert(name.clone());
                }
            }
            if relevant.len() == before {
                break;
            }
        }
        Index {
            fields,
            unions,
            relevant,
        }
    })
}

fn leads_to(shape: &Shape, relevant: &BTreeSet<String>) -> bool {
    match shape {
        Shape::Def(name) => relevant.contains(name),
        Shape::List(item) | Shape::Map(item) => leads_to(item, relevant),
        Shape::Scalar => false,
    }
}

/// Whether a union member counts as set: Go's zero values (`false`, `\"\"`, `null`) do not.
fn is_set(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// A label value: empty, or at most 63 of `[A-Za-z0-9-_.]`, alphanumeric at both ends.
fn is_label_value(s: &str) -> bool {
    let b = s.as_bytes();
    b.is_empty()
        || (b.len() <= 63
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric())
}

/// `path.key`, or `path[key]` when the key has `.`, `[` or `]` (a label key).
pub(super) fn join(path: &str, key: &str) -> String {
    let mut out = path.to_owned();
    if key.contains(['.', '[', ']']) {
        out.push_str(&format!("[{key}]"));
    } else {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    }
    out
}

struct Walk<'a, 'e, 'd> {
    shapes: &'static Shapes,
    index: &'static Index,
    obj: &'a Object,
    em: &'e mut Emitter<'d>,
}

impl Walk<'_, '_, '_> {
    fn shape(&mut self, shape: &Shape, value: &Value, path: &str) {
        match (shape, value) {
            (Shape::Def(name), Value::Object(_)) => self.def(name, value, path),
            (Shape::List(item), Value::Array(items)) if self.worth(item) => {
                for (i, v) in items.iter().enumerate() {
                    self.shape(item, v, &format!("{path}[{i}]"));
                }
            }
            (Shape::Map(item), Value::Object(map)) if self.worth(item) => {
                for (k, v) in map {
                    self.shape(item, v, &join(path, k));
                }
            }
            _ => {}
        }
    }

    fn worth(&self, shape: &Shape) -> bool {
        leads_to(shape, &self.index.relevant)
    }

    fn def(&mut self, name: &str, value: &Value, path: &str) {
        if !self.index.relevant.contains(name) {
            return;
        }
        let Some(def) = self.shapes.defs.get(name) else {
            return;
        };
        let short = def.short.as_str();
        // The object's own `metadata` is `metadata::check`'s, for every kind alike; nested
        // ObjectMeta (a pod template's) is checked here.
        let own_metadata = short == "meta.ObjectMeta" && path == "metadata";
        if let Some(rules) = self.index.fields.get(short).filter(|_| !own_metadata) {
            for rule in rules {
                if let Some(v) = value.get(rule.field) {
                    self.check(rule, v, &join(path, rule.field));
                }
            }
        }
        if let Some(unions) = self.index.unions.get(short) {
            for u in unions {
                self.union(u, def.props.keys(), value, path);
            }
        }
        let Value::Object(map) = value else { return };
        for (k, v) in map {
            if let Some(shape) = def.props.get(k) {
                self.shape(shape, v, &join(path, k));
            }
        }
    }

    fn union<'k>(
        &mut self,
        u: &UnionRule,
        props: impl Iterator<Item = &'k String>,
        value: &Value,
        path: &str,
    ) {
        let members: Vec<&str> = if u.members.is_empty() {
            props
                .map(String::as_str)
                .filter(|p| !u.except.contains(p))
                .collect()
        } else {
            u.members.to_vec()
        };
        let set: Vec<&str> = members
            .iter()
            .copied()
            .filter(|m| value.get(*m).is_some_and(is_set))
            .collect();
        let bad = if u.exactly {
            set.len() != 1
        } else {
            set.len() > 1
        };
        if !bad {
            return;
        }
        let list = members
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let (message, at) = if set.is_empty() {
            (
                format!("sets none of {list}; exactly one is required"),
                path.to_owned(),
            )
        } else {
            let names = set
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(" and ");
            (
                format!(
                    "sets {names}; {} one of {list} may be set",
                    if u.exactly { "exactly" } else { "at most" }
                ),
                join(path, set[1]),
            )
        };
        let shown = if path.is_empty() { "the object" } else { path };
        self.em.emit(
            Rule::UnionMembers,
            self.obj,
            &at,
            format!("`{shown}` {message}"),
            "keep exactly one of them",
        );
    }

    /// Applies one field constraint to the field's value `v` at `path`; a value of another
    /// JSON type than the constraint reads is left alone (the schema rules report it).
    fn check(&mut self, rule: &FieldRule, v: &Value, path: &str) {
        let (obj, em) = (self.obj, &mut *self.em);
        match rule.check {
            Check::Enum(values) => check_enum(obj, em, values, v, path),
            Check::Format(format) => {
                if let Some(s) = v.as_str()
                    && !s.is_empty()
                    && !format.check(s)
                {
                    em.emit_at_value(
                        Rule::InvalidFormat,
                        obj,
                        path,
                        format!("`{path}`: `{s}` is not {}", format.describe()),
                        "use lowercase letters, digits and `-` (and `.` where a subdomain is allowed)",
                    );
                }
            }
            Check::LabelMap { values } => check_label_map(obj, em, values, v, path),
            Check::UniqueBy(keys) => check_unique_by(obj, em, keys, v, path),
            Check::MinItems(n) | Check::MaxItems(n) => {
                let Some(items) = v.as_array() else { return };
                let min = matches!(rule.check, Check::MinItems(_));
                if (min && items.len() < n) || (!min && items.len() > n) {
                    em.emit(
                        Rule::OutOfRange,
                        obj,
                        path,
                        format!(
                            "`{path}` has {} item(s); {} {n} allowed",
                            items.len(),
                            if min { "at least" } else { "at most" }
                        ),
                        if min {
                            format!("add at least {n} item(s)")
                        } else {
                            format!("keep at most {n} items")
                        },
                    );
                }
            }
            Check::Min(bound) | Check::Max(bound) => {
                let Some(n) = v.as_i64() else { return };
                let min = matches!(rule.check, Check::Min(_));
                if (min && n < bound) || (!min && n > bound) {
                    em.emit_at_value(
                        Rule::OutOfRange,
                        obj,
                        path,
                        format!(
                            "`{path}` is {n}; it must be {} {bound}",
                            if min { "at least" } else { "at most" }
                        ),
                        format!(
                            "use a value {} {bound}",
                            if min { "of at least" } else { "of at most" }
                        ),
                    );
                }
            }
        }
    }
}

/// [`Check::Enum`] (`WAS501`): a non-empty string outside `values` (with the nearest value offered when
/// one is close enough).
fn check_enum(obj: &Object, em: &mut Emitter<'_>, values: &[&str], v: &Value, path: &str) {
    if let Some(s) = v.as_str()
        && !s.is_empty()
        && !values.contains(&s)
    {
        let list = values
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let hint = crate::lint::value::did_you_mean(s, values.iter().copied())
            .map(|n| format!("did you mean `{n}`? "))
            .unwrap_or_default();
        em.emit_at_value(
            Rule::InvalidEnumValue,
            obj,
            path,
            format!("`{path}`: unsupported value `{s}`; supported values: {list}"),
            format!("{hint}use one of {list}"),
        );
    }
}

/// [`Check::LabelMap`] (`WAS502`): every key a qualified name (annotation keys, `values` false, checked
/// lowercased as `ValidateAnnotations` does) and, with `values`, every string value a label
/// value. A key that fails is reported instead of its value.
fn check_label_map(obj: &Object, em: &mut Emitter<'_>, values: bool, v: &Value, path: &str) {
    let Some(map) = v.as_object() else { return };
    for (k, val) in map {
        let at = join(path, k);
        // Annotation keys are checked lowercased (`ValidateAnnotations`).
        let key_ok = if values {
            is_label_key(k)
        } else {
            is_label_key(&k.to_ascii_lowercase())
        };
        if !key_ok {
            em.emit(
                Rule::InvalidFormat,
                obj,
                &at,
                format!(
                    "`{path}`: key `{k}` is not {}",
                    Format::QualifiedName.describe()
                ),
                "fix the key",
            );
        } else if values
            && let Some(s) = val.as_str()
            && !is_label_value(s)
        {
            em.emit_at_value(
                Rule::InvalidFormat,
                obj,
                &at,
                format!("`{at}`: `{s}` is not a label value (at most 63 of `A-Z`, `a-z`, `0-9`, `-`, `_`, `.`, alphanumeric at both ends)"),
                "fix the value",
            );
        }
    }
}

/// [`Check::UniqueBy`] (`WAS504`): each list item after the first with the same values of `keys`
/// (items with none of the keys set are skipped) is reported at its first key, naming the
/// index of the first.
fn check_unique_by(obj: &Object, em: &mut Emitter<'_>, keys: &[&str], v: &Value, path: &str) {
    let Some(items) = v.as_array() else { return };
    let mut seen: Vec<(Vec<&Value>, usize)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key: Vec<&Value> = keys
            .iter()
            .map(|k| item.get(*k).unwrap_or(&Value::Null))
            .collect();
        if key.iter().all(|k| k.is_null()) {
            continue;
        }
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
            let shown = key
                .iter()
                .map(|k| k.as_str().map_or_else(|| k.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(", ");
            em.emit(
                Rule::DuplicateListKey,
                obj,
                &format!("{path}[{i}].{}", keys[0]),
                format!(
                    "`{path}[{i}]`: duplicate {} `{shown}` (also at `{path}[{first}]`)",
                    keys.join("/")
                ),
                format!("give each item of `{path}` its own {}", keys.join("/")),
            );
        } else {
            seen.push((key, i));
        }
    }
}

/// Runs the declarative rules on an object of a checked kind.
pub(crate) fn check(obj: &Object, em: &mut Emitter<'_>) {
    let Some((_, kind)) = schema::lookup(&obj.api_version, &obj.kind) else {
        return;
    };
    let mut walk = Walk {
        shapes: schema::shapes(),
        index: index(),
        obj,
        em,
    };
    walk.def(&schema::root_name(kind), &obj.value, "");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_entry_names_a_field_of_a_real_type() {
        let shapes = schema::shapes();
        let defs: HashMap<&str, &schema::Def> = shapes
            .defs
            .values()
            .map(|d| (d.short.as_str(), d))
            .collect();
        for f in FIELDS {
            let def = defs
                .get(f.def)
                .unwrap_or_else(|| panic!("no type {}", f.def));
            assert!(def.props.contains_key(f.field), "{}.{}", f.def, f.field);
        }
        for u in UNIONS {
            let def = defs
                .get(u.def)
                .unwrap_or_else(|| panic!("no type {}", u.def));
            for m in u.members.iter().chain(u.except) {
                assert!(def.props.contains_key(*m), "{}.{m}", u.def);
            }
        }
    }

    #[test]
    fn label_values() {
        assert!(is_label_value(""));
        assert!(is_label_value("v1.2_3-x"));
        assert!(!is_label_value("-x"));
        assert!(!is_label_value(&"a".repeat(64)));
    }
}
