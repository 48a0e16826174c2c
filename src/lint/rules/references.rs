//! `WAS3xx`: cross-object references, within the linted set and, when a cluster snapshot is
//! given (`--from`, `--demo`, `--cluster`), against the cluster too (semantics §1.3–§1.7).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use super::super::{Emitter, Object, Rule, Severity};
use super::{WasKind, get, get_str, pod_specs, templates, was_kind};
use crate::snapshot::Snapshot;

/// `WAS301` documentation.
pub(crate) const WAS301: &str = "## What it does
Checks that a pod's (or pod template's) `spec.schedulingGroup.podGroupName` names a PodGroup
in the same namespace, among the linted objects or in the cluster.

## Why is this bad?
The pod waits at PreEnqueue until the PodGroup exists; if nothing creates it, the pod stays
Pending forever with no scheduling event.

## Example
```yaml
kind: Pod
metadata: {name: lost-0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: lost-group}
```

Use instead:
```yaml
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: lost-group, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 1}}
```

## References
- KEP-4671; `pkg/scheduler/framework/plugins/gangscheduling` (PreEnqueue)
";

/// `WAS302` documentation.
pub(crate) const WAS302: &str = "## What it does
Checks that a pod claim entry with the same `name` as one of its PodGroup's
`spec.resourceClaims` also has the same source (`resourceClaimName` or
`resourceClaimTemplateName`, same value).

## Why is this bad?
A pod uses the group's shared claim only if name and source are all equal. Same name with
another source is the classic mistake: the pod gets a claim of its own (the resourceclaim
controller's per-pod branch) and schedules without sharing the group's devices.

## Example
```yaml
# PodGroup: resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu-shared}]
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: gpu-single
```

Use instead:
```yaml
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: gpu-shared
```

## References
- KEP-5729; `k8s.io/dynamic-resource-allocation/resourceclaim` (pod ↔ group claim matching)
";

/// `WAS303` documentation.
pub(crate) const WAS303: &str = "## What it does
Checks that `spec.workloadRef.workloadName` of a PodGroup or CompositePodGroup names a
Workload in the same namespace, among the linted objects or in the cluster.

## Why is this bad?
The PodGroup claims to come from a template that does not exist; controllers and `tree` cannot
connect it, and a typo goes unnoticed.

## Example
```yaml
spec:
  workloadRef: {workloadName: trian, templateName: workers}
```

Use instead:
```yaml
spec:
  workloadRef: {workloadName: train, templateName: workers}
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`WorkloadReference`)
";

/// `WAS304` documentation.
pub(crate) const WAS304: &str = "## What it does
Checks that `spec.workloadRef.templateName` names a template of the referenced Workload: a
leaf template for a PodGroup, a composite template for a CompositePodGroup.

## Why is this bad?
The object is an instance of a template the Workload does not define.

## Example
```yaml
spec:
  workloadRef: {workloadName: train, templateName: worker}
```

Use instead:
```yaml
spec:
  workloadRef: {workloadName: train, templateName: workers}
```

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`WorkloadReference.TemplateName`)
";

/// `WAS305` documentation.
pub(crate) const WAS305: &str = "## What it does
Checks that a PodGroup's `schedulingPolicy` kind (`basic` or `gang`) matches the template it
was instantiated from (`workloadRef`). `gang.minCount` may differ: it is mutable.

## Why is this bad?
The PodGroup behaves unlike its Workload says; `basic` vs `gang` cannot be changed later.

## Example
```yaml
# template workers: schedulingPolicy: {gang: {minCount: 4}}
spec:
  schedulingPolicy: {basic: {}}
```

Use instead:
```yaml
spec:
  schedulingPolicy: {gang: {minCount: 4}}
```

## References
- `pkg/apis/scheduling/validation/validation.go`; KEP-4671
";

/// `WAS306` documentation.
pub(crate) const WAS306: &str = "## What it does
Checks that `spec.parentCompositePodGroupName` names a CompositePodGroup in the same
namespace, among the linted objects or in the cluster.

## Why is this bad?
The hierarchy is broken: the child waits for a parent that never becomes ready.

## Example
```yaml
spec:
  parentCompositePodGroupName: pipline
```

Use instead:
```yaml
spec:
  parentCompositePodGroupName: pipeline
```

## References
- KEP-6012 (CompositePodGroup)
";

/// `WAS314` documentation.
pub(crate) const WAS314: &str = "## What it does
Counts the levels of each CompositePodGroup hierarchy, from its root CompositePodGroup down to
its PodGroups (the PodGroup counts as a level), and reports a group that sits deeper than 4
levels. It also reports a PodGroup or CompositePodGroup whose `spec.workloadRef.workloadName`
differs from its root CompositePodGroup's: one tree, several Workloads.

## Why is this bad?
kube-scheduler 1.37 refuses a hierarchy deeper than 4 levels (`WorkloadMaxTreeDepth`; its
hierarchy validation says \"hierarchy depth 5 exceeds maximum allowed depth 4\"): none of the
tree's pods is scheduled. It refuses a tree whose groups reference different Workloads the same
way (upstream `hierarchy_validation_test.go`, \"Pod group hierarchy referencing multiple distinct
Workloads fails validation in scheduling cycle\"). `kubectl wasctl simulate` and `explain`
report such a tree as an error.

## Example
```yaml
kind: PodGroup
metadata: {name: leaf}
spec:
  parentCompositePodGroupName: c4   # c4 → c3 → c2 → c1: five levels
```

Use instead: flatten the hierarchy to at most 4 levels.

## References
- `k8s.io/api/scheduling/v1beta1/types.go` (`WorkloadMaxTreeDepth`); semantics of the
  CompositePodGroup hierarchy (KEP-6012)
";

/// `WAS313` documentation.
pub(crate) const WAS313: &str = "## What it does
Follows the `spec.parentCompositePodGroupName` references of the linted CompositePodGroups (and
those of the cluster, with a cluster source) and reports a chain that comes back to where it
started: a CompositePodGroup that is its own parent, or `a` → `b` → `a`.

## Why is this bad?
A hierarchy must end at a root. In a cycle no group is the root, so no group of it (and no
PodGroup under it) is ever scheduled as a whole; tools that walk the hierarchy must stop
themselves.

## Example
```yaml
kind: CompositePodGroup
metadata: {name: a}
spec:
  parentCompositePodGroupName: b
---
kind: CompositePodGroup
metadata: {name: b}
spec:
  parentCompositePodGroupName: a
```

Use instead: remove `parentCompositePodGroupName` from the top group.

## References
- KEP-6012 (CompositePodGroup); `kubectl wasctl doctor` reports the same in a cluster (`WASD013`)
";

/// `WAS307` documentation.
pub(crate) const WAS307: &str = "## What it does
Checks that a Job's `scheduling.k8s.io/group-template-name` annotation names a template of the
Workload whose `spec.controllerRef` is the Job's controller owner (e.g. a JobSet), when that
Workload is among the linted objects or in the cluster.

## Why is this bad?
The Job controller creates the PodGroup only from a template it finds; otherwise the Job falls
back to scheduling without gang semantics.

## Example
```yaml
metadata:
  annotations: {scheduling.k8s.io/group-template-name: worker}
```

Use instead:
```yaml
metadata:
  annotations: {scheduling.k8s.io/group-template-name: workers}
```

## References
- KEP-6089; `pkg/controller/job/job_scheduling_manager.go`
";

/// `WAS308` documentation.
pub(crate) const WAS308: &str = "## What it does
Checks that `priorityClassName` (pods, pod templates, PodGroups, templates) names a
PriorityClass among the linted objects or in the cluster. Runs when a cluster snapshot is given
or the linted set contains PriorityClasses.

With `--feasibility` (which simulates the linted objects on the cluster), a class that is in
neither the linted files nor the cluster is an error instead of a warning: the object cannot be
created, so it can never be placed.

## Why is this bad?
Admission rejects a pod with an unknown PriorityClass.

## Example
```yaml
priorityClassName: hihg
```

Use instead:
```yaml
priorityClassName: high
```

## References
- `kubectl get priorityclasses`; Priority admission plugin
";

/// `WAS309` documentation.
pub(crate) const WAS309: &str = "## What it does
Checks that every `deviceClassName` of a ResourceClaim or ResourceClaimTemplate request
(`exactly` and `firstAvailable`) names a DeviceClass among the linted objects or in the
cluster. Runs when a cluster snapshot is given or the linted set contains DeviceClasses.

## Why is this bad?
The claim can never be allocated; pods using it stay Pending.

## Example
```yaml
requests:
- name: gpu
  exactly: {deviceClassName: gpu.exmaple.com}
```

Use instead:
```yaml
  exactly: {deviceClassName: gpu.example.com}
```

## References
- `k8s.io/api/resource/v1/types.go` (`ExactDeviceRequest.DeviceClassName`)
";

/// `WAS310` documentation.
pub(crate) const WAS310: &str = "## What it does
With a cluster snapshot, checks that every `schedulingConstraints.topology[*].key` is a label
of at least one node.

## Why is this bad?
No node is in any domain of that key, so a topology-constrained gang can never be placed.

## Example
```yaml
topology: [{key: example.com/rak}]
```

Use instead:
```yaml
topology: [{key: example.com/rack}]
```

## References
- KEP-5732; `pkg/scheduler/framework/plugins/topologyaware`
";

/// `WAS311` documentation.
pub(crate) const WAS311: &str = "## What it does
With a cluster snapshot (`--from`, `--demo`, `--cluster`), compares each linted object with the
object of the same kind, namespace and name in the cluster, and reports an immutable field the
manifest sets to another value: a Workload's `controllerRef`, its template list (templates can
be neither added nor removed) and each template's `schedulingConstraints`, `resourceClaims`,
`disruptionMode`, `priorityClassName`, `priority`, `preemptionPolicy` and policy kind; the same
fields and `workloadRef`/`parentCompositePodGroupName` on PodGroups and CompositePodGroups
(a CompositePodGroup's whole `schedulingPolicy`); a pod's `schedulingGroup`; a Job's
`spec.scheduling` (only `gang.minCount` may change). Fields the manifest leaves out are not
compared, since `kubectl apply` keeps them.

## Why is this bad?
`kubectl apply` fails with `field is immutable`; the change needs a delete and re-create, which
for a running gang means restarting it.

## Example
```yaml
# in the cluster: schedulingPolicy: {gang: {minCount: 4}}
spec:
  schedulingPolicy:
    basic: {}
```

Use instead:
```yaml
spec:
  schedulingPolicy:
    gang: {minCount: 2}     # minCount may change; basic <-> gang may not
```

## References
- `pkg/apis/scheduling/validation/validation.go` (`ValidatePodGroupUpdate`, `ValidateWorkloadUpdate`); `pkg/apis/batch/validation`
";

/// `WAS312` documentation.
pub(crate) const WAS312: &str = "## What it does
With `--feasibility` and a cluster source, simulates the linted PodGroups, CompositePodGroups
and their pods on the cluster's nodes and devices with nothing else running (kube-scheduler 1.37
with the workload-aware gates on), and reports every gang that still cannot be placed, with the
scheduler's reason. Only gangs whose pods are among the linted files are tried.

## Why is this bad?
Such a gang never schedules in this cluster, however long it waits or whatever it preempts.

## Example
```yaml
# every node has 8 GPUs
spec:
  containers:
  - resources:
      limits: {nvidia.com/gpu: 16}
```

Use instead:
```yaml
      limits: {nvidia.com/gpu: 8}
```

## References
- KEP-4671 (gang scheduling); `kubectl wasctl simulate`
";

/// Names of cluster-scoped classes that exist without being created.
const BUILTIN_PRIORITY_CLASSES: &[&str] = &["system-cluster-critical", "system-node-critical"];

type Key = (String, String);

struct Index<'a> {
    pod_groups: BTreeMap<Key, Value>,
    workloads: BTreeMap<Key, Value>,
    composites: BTreeSet<Key>,
    priority_classes: Option<BTreeSet<String>>,
    device_classes: Option<BTreeSet<String>>,
    node_label_keys: Option<BTreeSet<String>>,
    /// `--feasibility` with a cluster: a PriorityClass missing from the linted files and the
    /// cluster is an error, not a warning (`WAS308`).
    missing_class_is_error: bool,
    /// The cluster's own copies (kind, namespace, name) → object, for immutability.
    cluster: BTreeMap<(String, String, String), Value>,
    _set: &'a [Object],
}

fn index<'a>(objects: &'a [Object], cluster: Option<&Snapshot>) -> Index<'a> {
    let mut ix = Index {
        pod_groups: BTreeMap::new(),
        workloads: BTreeMap::new(),
        composites: BTreeSet::new(),
        priority_classes: None,
        device_classes: None,
        node_label_keys: None,
        missing_class_is_error: false,
        cluster: BTreeMap::new(),
        _set: objects,
    };
    if let Some(s) = cluster {
        let key = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            (
                m.namespace.clone().unwrap_or_default(),
                m.name.clone().unwrap_or_default(),
            )
        };
        let mut keep = |kind: &str, k: (String, String), v: Value| {
            ix.cluster.insert((kind.to_owned(), k.0, k.1), v);
        };
        for pg in &s.pod_groups {
            keep("PodGroup", key(&pg.metadata), to_value(pg));
        }
        for w in &s.workloads {
            keep("Workload", key(&w.metadata), to_value(w));
        }
        for c in &s.composite_pod_groups {
            keep("CompositePodGroup", key(&c.metadata), to_value(c));
        }
        for p in &s.pods {
            keep("Pod", key(&p.metadata), to_value(p));
        }
        for j in &s.jobs {
            keep("Job", key(&j.metadata), to_value(j));
        }
        for ((kind, ns, name), v) in &ix.cluster {
            let k = (ns.clone(), name.clone());
            match kind.as_str() {
                "PodGroup" => {
                    ix.pod_groups.insert(k, v.clone());
                }
                "Workload" => {
                    ix.workloads.insert(k, v.clone());
                }
                "CompositePodGroup" => {
                    ix.composites.insert(k);
                }
                _ => {}
            }
        }
        ix.priority_classes = Some(
            s.priority_classes
                .iter()
                .filter_map(|p| p.metadata.name.clone())
                .collect(),
        );
        ix.device_classes = Some(
            s.device_classes
                .iter()
                .filter_map(|d| d.metadata.name.clone())
                .collect(),
        );
        if !s.nodes.is_empty() {
            ix.node_label_keys = Some(
                s.nodes
                    .iter()
                    .flat_map(|n| n.metadata.labels.iter().flatten().map(|(k, _)| k.clone()))
                    .collect(),
            );
        }
    }
    for o in objects {
        let key = (o.namespace.clone(), o.id.name.clone());
        match (was_kind(o), o.group(), o.kind.as_str()) {
            (Some(WasKind::PodGroup), _, _) => {
                ix.pod_groups.insert(key, o.value.clone());
            }
            (Some(WasKind::Workload), _, _) => {
                ix.workloads.insert(key, o.value.clone());
            }
            (Some(WasKind::CompositePodGroup), _, _) => {
                ix.composites.insert(key);
            }
            (None, "scheduling.k8s.io", "PriorityClass") => {
                ix.priority_classes
                    .get_or_insert_default()
                    .insert(o.id.name.clone());
            }
            (None, "resource.k8s.io", "DeviceClass") => {
                ix.device_classes
                    .get_or_insert_default()
                    .insert(o.id.name.clone());
            }
            _ => {}
        }
    }
    ix
}

/// A typed snapshot object as JSON, for comparison with linted ones.
fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or_default()
}

/// Runs the `WAS3xx` rules over the whole linted set. With `feasibility` (`--feasibility`)
/// and a cluster, a `priorityClassName` that names a class neither the linted files nor the
/// cluster have is an error (`WAS308`): the API server refuses the object, so it can never be
/// placed (issue 45 item 7).
pub(crate) fn check(
    objects: &[Object],
    cluster: Option<&Snapshot>,
    feasibility: bool,
    em: &mut Emitter<'_>,
) {
    let mut ix = index(objects, cluster);
    ix.missing_class_is_error = feasibility && cluster.is_some();
    check_hierarchy(objects, cluster, em);
    for obj in objects {
        check_immutable(obj, &ix, em);
        for (path, spec) in pod_specs(obj) {
            check_pod_spec(obj, path, spec, &ix, em);
        }
        if obj.group() == "batch" && obj.kind == "Job" {
            check_job_annotation(obj, &ix, em);
        }
        if obj.group() == "resource.k8s.io"
            && matches!(obj.kind.as_str(), "ResourceClaim" | "ResourceClaimTemplate")
        {
            check_device_classes(obj, &ix, em);
        }
        let Some(kind) = was_kind(obj) else { continue };
        let spec = obj.value.get("spec").unwrap_or(&Value::Null);
        check_holders(obj, kind, spec, &ix, em);
        if kind != WasKind::Workload {
            check_group_refs(obj, kind, spec, &ix, em);
        }
    }
}

/// The fields a Workload's templates (or a group's `spec`) hold that name cluster objects:
/// `priorityClassName` (see [`check_priority_class`]) and, when the cluster's nodes are known,
/// each `schedulingConstraints.topology[].key` that no node has as a label (`WAS310`).
fn check_holders(obj: &Object, kind: WasKind, spec: &Value, ix: &Index<'_>, em: &mut Emitter<'_>) {
    let mut holders = vec![("spec".to_owned(), spec)];
    if kind == WasKind::Workload {
        holders = templates(&obj.value)
            .into_iter()
            .map(|t| (t.path, t.value))
            .collect();
    }
    for (base, holder) in &holders {
        if let Some(pc) = holder.get("priorityClassName").and_then(Value::as_str) {
            check_priority_class(obj, &format!("{base}.priorityClassName"), pc, ix, em);
        }
        if let (Some(keys), Some(topology)) = (
            &ix.node_label_keys,
            get(holder, "schedulingConstraints.topology").and_then(Value::as_array),
        ) {
            for (i, t) in topology.iter().enumerate() {
                if let Some(key) = t.get("key").and_then(Value::as_str)
                    && !keys.contains(key)
                {
                    em.emit(
                        Rule::UnknownTopologyKey,
                        obj,
                        &format!("{base}.schedulingConstraints.topology[{i}].key"),
                        format!("no node in the cluster has the label `{key}`"),
                        "label the nodes with the key, or use one they have (`kubectl get nodes --show-labels`)",
                    );
                }
            }
        }
    }
}

/// What a PodGroup or CompositePodGroup names in its namespace, in order, each step only when
/// the one before resolved: its parent CompositePodGroup (`WAS306`), its Workload (`WAS303`),
/// the Workload's template of its own kind (`WAS304`, the hint lists the names there are), and
/// that template's scheduling policy, `basic` or `gang`, which must be the group's own
/// (`WAS305`).
fn check_group_refs(
    obj: &Object,
    kind: WasKind,
    spec: &Value,
    ix: &Index<'_>,
    em: &mut Emitter<'_>,
) {
    let ns = obj.namespace.clone();
    if let Some(parent) = get_str(spec, "parentCompositePodGroupName")
        && !ix.composites.contains(&(ns.clone(), parent.to_owned()))
    {
        em.emit(
            Rule::MissingParentComposite,
            obj,
            "spec.parentCompositePodGroupName",
            format!("CompositePodGroup `{ns}/{parent}` does not exist"),
            "create the parent CompositePodGroup, or fix the name",
        );
    }
    let Some(wname) = get_str(spec, "workloadRef.workloadName") else {
        return;
    };
    let Some(workload) = ix.workloads.get(&(ns.clone(), wname.to_owned())) else {
        em.emit(
            Rule::MissingWorkload,
            obj,
            "spec.workloadRef.workloadName",
            format!("Workload `{ns}/{wname}` does not exist"),
            "create the Workload, or fix `workloadName`",
        );
        return;
    };
    let Some(tname) = get_str(spec, "workloadRef.templateName") else {
        return;
    };
    let want_composite = kind == WasKind::CompositePodGroup;
    let all = templates(workload);
    let Some(template) = all
        .iter()
        .find(|t| t.composite == want_composite && get_str(t.value, "name") == Some(tname))
    else {
        let names: Vec<&str> = all
            .iter()
            .filter(|t| t.composite == want_composite)
            .filter_map(|t| get_str(t.value, "name"))
            .collect();
        em.emit(
            Rule::MissingTemplate,
            obj,
            "spec.workloadRef.templateName",
            format!(
                "Workload `{ns}/{wname}` has no {} template `{tname}`",
                if want_composite {
                    "composite"
                } else {
                    "PodGroup"
                }
            ),
            if names.is_empty() {
                "fix `templateName`".to_owned()
            } else {
                format!("use one of: {}", names.join(", "))
            },
        );
        return;
    };
    let variant = |v: &Value| {
        ["basic", "gang"]
            .into_iter()
            .find(|k| get(v, "schedulingPolicy").and_then(|p| p.get(*k)).is_some())
    };
    if let (Some(mine), Some(theirs)) = (variant(spec), variant(template.value))
        && mine != theirs
    {
        em.emit(
            Rule::PolicyMismatch,
            obj,
            &format!("spec.schedulingPolicy.{mine}"),
            format!("`schedulingPolicy` is `{mine}` but template `{tname}` of Workload `{wname}` says `{theirs}`"),
            format!("use `{theirs}` as the template does (it cannot change after creation)"),
        );
    }
}

/// The hierarchy rules over the linted set (`WAS313` cycles, `WAS314` depth and mixed
/// Workloads), parents from the linted objects, then from the cluster. Linear in the number of
/// groups: one walk (`snapshot::hierarchy::Resolution`, the walk the simulator, explain and
/// doctor read) places every group once, with a memo (a 20,000-long chain is about 20,000
/// parent lookups for all three rules; `benches/lint.rs` times it alone).
pub fn check_hierarchy(objects: &[Object], cluster: Option<&Snapshot>, em: &mut Emitter<'_>) {
    hierarchy_steps(objects, cluster, em);
}

/// A group: (namespace, name).
type Group<'s> = (&'s str, &'s str);

/// The CompositePodGroups lint sees, linted ones over the cluster's: group → (parent,
/// `workloadRef.workloadName`).
type Composites<'s> = HashMap<Group<'s>, (Option<&'s str>, Option<&'s str>)>;

/// [`check_hierarchy`], returning how many parent lookups its walk made (the linear-growth
/// test counts them).
fn hierarchy_steps<'a>(
    objects: &'a [Object],
    cluster: Option<&'a Snapshot>,
    em: &mut Emitter<'_>,
) -> usize {
    use crate::snapshot::hierarchy::{Resolution, Up};
    let mut cpgs: Composites<'a> = HashMap::new();
    if let Some(s) = cluster {
        for c in &s.composite_pod_groups {
            if let Some(name) = c.metadata.name.as_deref() {
                cpgs.insert(
                    (c.metadata.namespace.as_deref().unwrap_or_default(), name),
                    (
                        c.spec.parent_composite_pod_group_name.as_deref(),
                        Some(c.spec.workload_ref.workload_name.as_str()),
                    ),
                );
            }
        }
    }
    let mut linted: BTreeMap<Group<'a>, &'a Object> = BTreeMap::new();
    for obj in objects {
        if was_kind(obj) == Some(WasKind::CompositePodGroup) {
            let spec = obj.value.get("spec").unwrap_or(&Value::Null);
            let key = (obj.namespace.as_str(), obj.id.name.as_str());
            cpgs.insert(
                key,
                (
                    get_str(spec, "parentCompositePodGroupName"),
                    get_str(spec, "workloadRef.workloadName"),
                ),
            );
            linted.insert(key, obj);
        }
    }
    let mut up = |k: &Group<'a>| -> Up<Group<'a>> {
        match cpgs.get(k) {
            None => Up::Unknown,
            Some((None, _)) => Up::Root,
            Some((Some(p), _)) => Up::Parent((k.0, *p)),
        }
    };
    // The linted groups first (their cycles are met in name order), then the parents of the
    // linted groups and PodGroups.
    let mut levels = Resolution::default();
    for key in linted.keys() {
        levels.resolve(*key, &mut up);
    }
    for obj in objects {
        if matches!(
            was_kind(obj),
            Some(WasKind::PodGroup | WasKind::CompositePodGroup)
        ) && let Some(p) = obj
            .value
            .get("spec")
            .and_then(|spec| get_str(spec, "parentCompositePodGroupName"))
        {
            levels.resolve((obj.namespace.as_str(), p), &mut up);
        }
    }
    check_parent_cycles(objects, &cpgs, &linted, &levels, em);
    check_mixed_workloads(objects, &cpgs, &levels, em);
    levels.lookups()
}

/// `WAS313` and `WAS314`: the parent chains of the CompositePodGroups, from the one walk of
/// [`hierarchy_steps`] (the walk it replaces restarted at every group and searched its path at
/// every step: cubic). A cycle is reported once, on its linted member with the smallest name; a
/// group or PodGroup deeper than [`MAX_HIERARCHY_DEPTH`] levels (the leaf PodGroup counts;
/// upstream hierarchy validation: "hierarchy depth 5 exceeds maximum allowed depth 4") once per
/// chain, where it first exceeds. A parent the input lacks (WAS306 says so) counts as no level.
///
/// [`MAX_HIERARCHY_DEPTH`]: crate::snapshot::hierarchy::MAX_HIERARCHY_DEPTH
fn check_parent_cycles(
    objects: &[Object],
    cpgs: &Composites<'_>,
    linted: &BTreeMap<Group<'_>, &Object>,
    levels: &crate::snapshot::hierarchy::Resolution<Group<'_>>,
    em: &mut Emitter<'_>,
) {
    use crate::snapshot::hierarchy::MAX_HIERARCHY_DEPTH;
    for cycle in levels.cycles() {
        let Some((key, obj)) = cycle
            .iter()
            .filter_map(|k| linted.get(k).map(|o| (k, *o)))
            .min_by(|a, b| a.0.cmp(b.0))
        else {
            continue;
        };
        let from = cycle.iter().position(|k| k == key).unwrap_or(0);
        let names: Vec<&str> = cycle[from..]
            .iter()
            .chain(&cycle[..from])
            .chain(std::iter::once(key))
            .map(|k| k.1)
            .collect();
        em.emit(
            Rule::ParentCycle,
            obj,
            "spec.parentCompositePodGroupName",
            format!(
                "`parentCompositePodGroupName` references form a cycle: {}",
                names.join(" → ")
            ),
            "remove `parentCompositePodGroupName` from the group meant to be the root",
        );
    }
    let too_deep = |depth: usize| depth > MAX_HIERARCHY_DEPTH;
    let depth_of = |k: &Group<'_>| levels.get(k).and_then(|p| p.depth());
    // A linted group is reported where its chain first exceeds the limit: its parent (if
    // linted) is not itself too deep.
    let parent_reported = |k: &Group<'_>| {
        cpgs.get(k).and_then(|(p, _)| *p).is_some_and(|p| {
            let pk = (k.0, p);
            linted.contains_key(&pk) && depth_of(&pk).is_some_and(too_deep)
        })
    };
    let emit_deep = |em: &mut Emitter<'_>, obj: &Object, depth: usize| {
        em.emit(
            Rule::HierarchyTooDeep,
            obj,
            "spec.parentCompositePodGroupName",
            format!(
                "hierarchy depth {depth} exceeds maximum allowed depth {MAX_HIERARCHY_DEPTH}: kube-scheduler refuses to schedule the tree"
            ),
            format!("flatten the hierarchy to at most {MAX_HIERARCHY_DEPTH} levels, the PodGroups included"),
        );
    };
    for (key, obj) in linted {
        if let Some(d) = depth_of(key)
            && too_deep(d)
            && !parent_reported(key)
        {
            emit_deep(em, obj, d);
        }
    }
    for obj in objects {
        if was_kind(obj) != Some(WasKind::PodGroup) {
            continue;
        }
        let spec = obj.value.get("spec").unwrap_or(&Value::Null);
        let Some(p) = get_str(spec, "parentCompositePodGroupName") else {
            continue;
        };
        let parent_key = (obj.namespace.as_str(), p);
        let Some(d) = depth_of(&parent_key) else {
            continue;
        };
        let parent_linted_deep = linted.contains_key(&parent_key) && too_deep(d);
        if too_deep(d + 1) && !parent_linted_deep {
            emit_deep(em, obj, d + 1);
        }
    }
}

/// `WAS314`, mixed Workloads: a linted PodGroup or CompositePodGroup whose hierarchy's root
/// CompositePodGroup references another Workload. kube-scheduler 1.37 validates the whole tree
/// in the scheduling cycle and refuses it (upstream `hierarchy_validation_test.go`, "Pod group
/// hierarchy referencing multiple distinct Workloads fails validation in scheduling cycle"), as
/// `snapshot::hierarchy::check_tree` does for the simulator. The root comes from the one walk
/// of [`hierarchy_steps`]: none above a missing parent or a cycle, and a root more than 63
/// links above the group's parent is not looked for (the bound of the walk this replaced).
fn check_mixed_workloads(
    objects: &[Object],
    cpgs: &Composites<'_>,
    levels: &crate::snapshot::hierarchy::Resolution<Group<'_>>,
    em: &mut Emitter<'_>,
) {
    for obj in objects {
        if !matches!(
            was_kind(obj),
            Some(WasKind::PodGroup | WasKind::CompositePodGroup)
        ) {
            continue;
        }
        let spec = obj.value.get("spec").unwrap_or(&Value::Null);
        let (Some(mine), Some(first)) = (
            get_str(spec, "workloadRef.workloadName"),
            get_str(spec, "parentCompositePodGroupName"),
        ) else {
            continue;
        };
        let Some(placed) = levels.get(&(obj.namespace.as_str(), first)) else {
            continue;
        };
        let Some(root) = placed.root() else {
            continue;
        };
        let Some(&(_, Some(root_workload))) = cpgs.get(root) else {
            continue;
        };
        if placed.links >= 64 {
            continue;
        }
        if root_workload != mine {
            let root_name = root.1;
            em.emit(
                Rule::HierarchyTooDeep,
                obj,
                "spec.workloadRef.workloadName",
                format!(
                    "the hierarchy's root CompositePodGroup `{root_name}` references Workload `{root_workload}`, this group Workload `{mine}`: kube-scheduler refuses a tree whose groups reference different Workloads"
                ),
                format!("reference Workload `{root_workload}` as the rest of the tree does, or split the tree"),
            );
        }
    }
}

fn check_priority_class(
    obj: &Object,
    path: &str,
    name: &str,
    ix: &Index<'_>,
    em: &mut Emitter<'_>,
) {
    if let Some(known) = &ix.priority_classes
        && !known.contains(name)
        && !BUILTIN_PRIORITY_CLASSES.contains(&name)
    {
        if ix.missing_class_is_error {
            em.emit_with(
                Rule::MissingPriorityClass,
                Some(Severity::Error),
                obj,
                path,
                format!(
                    "PriorityClass `{name}` does not exist in the linted files or the cluster: the API server refuses the object, so it is never scheduled"
                ),
                "create the PriorityClass first, or use one of `kubectl get priorityclasses`",
            );
        } else {
            em.emit(
                Rule::MissingPriorityClass,
                obj,
                path,
                format!("PriorityClass `{name}` does not exist"),
                "create it, or use one of `kubectl get priorityclasses`",
            );
        }
    }
}

fn check_pod_spec(obj: &Object, path: &str, spec: &Value, ix: &Index<'_>, em: &mut Emitter<'_>) {
    if let Some(pc) = spec.get("priorityClassName").and_then(Value::as_str) {
        check_priority_class(obj, &format!("{path}.priorityClassName"), pc, ix, em);
    }
    let Some(group) = get_str(spec, "schedulingGroup.podGroupName") else {
        return;
    };
    let ns = &obj.namespace;
    let Some(pg) = ix.pod_groups.get(&(ns.clone(), group.to_owned())) else {
        em.emit(
            Rule::MissingPodGroup,
            obj,
            &format!("{path}.schedulingGroup.podGroupName"),
            format!(
                "PodGroup `{ns}/{group}` does not exist: the pod waits at PreEnqueue until it does"
            ),
            format!("create PodGroup `{group}` in namespace `{ns}`, or fix `podGroupName`"),
        );
        return;
    };
    let group_claims = get(pg, "spec.resourceClaims").and_then(Value::as_array);
    let Some(group_claims) = group_claims else {
        return;
    };
    let Some(pod_claims) = spec.get("resourceClaims").and_then(Value::as_array) else {
        return;
    };
    let source = |c: &Value| {
        ["resourceClaimName", "resourceClaimTemplateName"]
            .into_iter()
            .find_map(|k| {
                c.get(k)
                    .and_then(Value::as_str)
                    .map(|v| format!("{k}: {v}"))
            })
            .unwrap_or_else(|| "no source".to_owned())
    };
    for (j, claim) in pod_claims.iter().enumerate() {
        let Some(name) = claim.get("name").and_then(Value::as_str) else {
            continue;
        };
        let Some(gc) = group_claims
            .iter()
            .find(|g| get_str(g, "name") == Some(name))
        else {
            continue;
        };
        let same = ["resourceClaimName", "resourceClaimTemplateName"]
            .iter()
            .all(|k| claim.get(*k) == gc.get(*k));
        if !same {
            em.emit(
                Rule::PodClaimMismatch,
                obj,
                &format!("{path}.resourceClaims[{j}]"),
                format!(
                    "claim `{name}` ({}) differs from PodGroup `{group}`'s claim `{name}` ({}): the pod does not share the group's claim",
                    source(claim),
                    source(gc)
                ),
                format!("write `{}` here, exactly as in the PodGroup", source(gc)),
            );
        }
    }
}

fn check_job_annotation(obj: &Object, ix: &Index<'_>, em: &mut Emitter<'_>) {
    const ANNOTATION: &str = "scheduling.k8s.io/group-template-name";
    let Some(tname) = obj
        .value
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(ANNOTATION))
        .and_then(Value::as_str)
    else {
        return;
    };
    let Some(owner) = obj
        .value
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .and_then(|o| {
            o.iter()
                .find(|r| r.get("controller") == Some(&Value::Bool(true)))
        })
    else {
        return;
    };
    let (okind, oname) = (get_str(owner, "kind"), get_str(owner, "name"));
    let matching: Vec<&Value> = ix
        .workloads
        .iter()
        .filter(|((ns, _), w)| {
            *ns == obj.namespace
                && get_str(w, "spec.controllerRef.kind") == okind
                && get_str(w, "spec.controllerRef.name") == oname
        })
        .map(|(_, w)| w)
        .collect();
    let [workload] = matching.as_slice() else {
        return;
    };
    let found = templates(workload)
        .iter()
        .any(|t| !t.composite && get_str(t.value, "name") == Some(tname));
    if !found {
        em.emit_at_value(
            Rule::MissingGroupTemplate,
            obj,
            &format!("metadata.annotations[{ANNOTATION}]"),
            format!(
                "Workload `{}` of the owner {} `{}` has no PodGroup template `{tname}`",
                get_str(workload, "metadata.name").unwrap_or(""),
                okind.unwrap_or(""),
                oname.unwrap_or("")
            ),
            "fix the annotation to name a template of that Workload",
        );
    }
}

fn check_device_classes(obj: &Object, ix: &Index<'_>, em: &mut Emitter<'_>) {
    let Some(known) = &ix.device_classes else {
        return;
    };
    let base = if obj.kind == "ResourceClaimTemplate" {
        "spec.spec"
    } else {
        "spec"
    };
    let Some(requests) =
        get(&obj.value, &format!("{base}.devices.requests")).and_then(Value::as_array)
    else {
        return;
    };
    for (i, r) in requests.iter().enumerate() {
        let mut names = Vec::new();
        if let Some(n) = get_str(r, "exactly.deviceClassName") {
            names.push((
                format!("{base}.devices.requests[{i}].exactly.deviceClassName"),
                n,
            ));
        }
        for (j, sub) in r
            .get("firstAvailable")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(n) = get_str(sub, "deviceClassName") {
                names.push((
                    format!("{base}.devices.requests[{i}].firstAvailable[{j}].deviceClassName"),
                    n,
                ));
            }
        }
        for (path, name) in names {
            if !known.contains(name) {
                em.emit_at_value(
                    Rule::MissingDeviceClass,
                    obj,
                    &path,
                    format!("DeviceClass `{name}` does not exist"),
                    "create the DeviceClass (the DRA driver usually ships it), or use one of `kubectl get deviceclasses`",
                );
            }
        }
    }
}

/// Fields of templates, PodGroups and CompositePodGroups that cannot change after creation.
const IMMUTABLE: &[&str] = &[
    "schedulingConstraints",
    "resourceClaims",
    "disruptionMode",
    "priorityClassName",
    "priority",
    "preemptionPolicy",
];

fn show_json(v: Option<&Value>) -> String {
    v.map_or_else(|| "unset".to_owned(), |v| format!("`{v}`"))
}

/// Compares `fields` of `new` (the manifest) with `old` (the cluster) under `base`; a field
/// the manifest leaves out is not compared.
fn compare(
    obj: &Object,
    base: &str,
    old: &Value,
    new: &Value,
    fields: &[&str],
    em: &mut Emitter<'_>,
) {
    for field in fields {
        let Some(mine) = get(new, field) else {
            continue;
        };
        let theirs = get(old, field);
        if theirs != Some(mine) {
            let path = if base.is_empty() {
                (*field).to_owned()
            } else {
                format!("{base}.{field}")
            };
            em.emit(
                Rule::ImmutableFieldChanged,
                obj,
                &path,
                format!(
                    "`{path}` is immutable: the cluster has {}, the manifest {}",
                    show_json(theirs),
                    show_json(Some(mine))
                ),
                "keep the cluster's value, or delete and re-create the object",
            );
        }
    }
}

fn policy_kind(holder: &Value) -> Option<&'static str> {
    ["basic", "gang"].into_iter().find(|k| {
        get(holder, "schedulingPolicy")
            .and_then(|p| p.get(*k))
            .is_some()
    })
}

fn compare_policy_kind(obj: &Object, base: &str, old: &Value, new: &Value, em: &mut Emitter<'_>) {
    if let (Some(mine), Some(theirs)) = (policy_kind(new), policy_kind(old))
        && mine != theirs
    {
        em.emit(
            Rule::ImmutableFieldChanged,
            obj,
            &format!("{base}.schedulingPolicy.{mine}"),
            format!("`schedulingPolicy` cannot switch from `{theirs}` to `{mine}` after creation"),
            format!("keep `{theirs}` (only `gang.minCount` may change), or delete and re-create the object"),
        );
    }
}

fn check_immutable(obj: &Object, ix: &Index<'_>, em: &mut Emitter<'_>) {
    if ix.cluster.is_empty() {
        return;
    }
    let kind = match (was_kind(obj), obj.group(), obj.kind.as_str()) {
        (Some(_), _, k) | (None, "", k @ "Pod") | (None, "batch", k @ "Job") => k,
        _ => return,
    };
    let Some(old) = ix
        .cluster
        .get(&(kind.to_owned(), obj.namespace.clone(), obj.id.name.clone()))
    else {
        return;
    };
    let (new_spec, old_spec) = (
        obj.value.get("spec").unwrap_or(&Value::Null),
        old.get("spec").unwrap_or(&Value::Null),
    );
    match kind {
        "Pod" => compare(obj, "spec", old_spec, new_spec, &["schedulingGroup"], em),
        "Job" => {
            let (mine, theirs) = (new_spec.get("scheduling"), old_spec.get("scheduling"));
            match (mine, theirs) {
                (Some(m), Some(t)) => {
                    let strip = |v: &Value| {
                        let mut v = v.clone();
                        if let Some(g) = v
                            .pointer_mut("/schedulingPolicy/gang")
                            .and_then(Value::as_object_mut)
                        {
                            g.remove("minCount");
                        }
                        v
                    };
                    let (m2, t2) = (strip(m), strip(t));
                    let fields: Vec<&str> = m2
                        .as_object()
                        .map(|o| o.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    compare(obj, "spec.scheduling", &t2, &m2, &fields, em);
                }
                (Some(_), None) => em.emit(
                    Rule::ImmutableFieldChanged,
                    obj,
                    "spec.scheduling",
                    "`spec.scheduling` cannot be set after the Job was created",
                    "remove it, or delete and re-create the Job",
                ),
                _ => {}
            }
        }
        "Workload" => {
            compare(obj, "spec", old_spec, new_spec, &["controllerRef"], em);
            let names = |v: &Value| -> BTreeSet<String> {
                templates(v)
                    .iter()
                    .filter_map(|t| get_str(t.value, "name").map(str::to_owned))
                    .collect()
            };
            let (mine, theirs) = (names(&obj.value), names(old));
            if !theirs.is_empty() && mine != theirs {
                let added: Vec<&String> = mine.difference(&theirs).collect();
                let removed: Vec<&String> = theirs.difference(&mine).collect();
                em.emit(
                    Rule::ImmutableFieldChanged,
                    obj,
                    "spec",
                    format!("templates cannot be added or removed after creation (added: {added:?}, removed: {removed:?})"),
                    "keep the cluster's template list, or create a new Workload",
                );
            }
            let old_templates = templates(old);
            for t in templates(&obj.value) {
                let Some(name) = get_str(t.value, "name") else {
                    continue;
                };
                if let Some(o) = old_templates
                    .iter()
                    .find(|o| o.composite == t.composite && get_str(o.value, "name") == Some(name))
                {
                    compare(obj, &t.path, o.value, t.value, IMMUTABLE, em);
                    compare_policy_kind(obj, &t.path, o.value, t.value, em);
                }
            }
        }
        "CompositePodGroup" => {
            let mut fields = IMMUTABLE.to_vec();
            fields.extend([
                "workloadRef",
                "parentCompositePodGroupName",
                "schedulingPolicy",
            ]);
            compare(obj, "spec", old_spec, new_spec, &fields, em);
        }
        _ => {
            let mut fields = IMMUTABLE.to_vec();
            fields.extend(["workloadRef", "parentCompositePodGroupName"]);
            compare(obj, "spec", old_spec, new_spec, &fields, em);
            compare_policy_kind(obj, "spec", old_spec, new_spec, em);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` linted CompositePodGroups `c0 ← c1 ← … ← c(n-1)`, each naming the one before as
    /// parent; the root references Workload `root`, the others `pipeline`.
    fn chain(n: usize) -> Vec<Object> {
        (0..n)
            .map(|i| {
                let mut spec = serde_json::json!({
                    "workloadRef": {
                        "workloadName": if i == 0 { "root" } else { "pipeline" },
                        "templateName": "stage",
                    },
                });
                if i > 0 {
                    spec["parentCompositePodGroupName"] = format!("c{}", i - 1).into();
                }
                Object {
                    doc: 0,
                    prefix: Vec::new(),
                    value: serde_json::json!({"metadata": {"name": format!("c{i}")}, "spec": spec}),
                    api_version: "scheduling.k8s.io/v1alpha3".to_owned(),
                    kind: "CompositePodGroup".to_owned(),
                    id: crate::lint::ObjectId {
                        kind: "CompositePodGroup".to_owned(),
                        namespace: Some("ml".to_owned()),
                        name: format!("c{i}"),
                    },
                    namespace: "ml".to_owned(),
                }
            })
            .collect()
    }

    /// The parent lookups the hierarchy checks make over [`chain`]`(n)`, and their findings.
    fn walk_chain(n: usize) -> (usize, Vec<crate::lint::Finding>) {
        let docs = [crate::lint::Document {
            file: "chain.yaml".to_owned(),
            line: 1,
            tree: crate::lint::span::SpanNode::unpositioned(&Value::Null, (1, 1)),
        }];
        let config = crate::lint::Config::default();
        let mut em = Emitter::new(&docs, &config);
        let steps = hierarchy_steps(&chain(n), None, &mut em);
        (steps, em.findings)
    }

    // issue 46 item 4: the hierarchy checks are linear: one walk for the three rules
    // (`snapshot::hierarchy::Resolution`) looks each group up once, each start once more, and
    // each linted group's parent once more, so twice the chain is twice the lookups (a walk
    // per group to the root would be four times; the cubic walk this replaced, eight).
    #[test]
    fn hierarchy_checks_grow_linearly_with_the_chain() {
        let (small, _) = walk_chain(2_000);
        let (large, _) = walk_chain(4_000);
        assert!(small <= 3 * 2_000, "{small} lookups for 2,000 groups");
        assert!(large <= 3 * 4_000, "{large} lookups for 4,000 groups");
        eprintln!("2,000 groups: {small} lookups; 4,000: {large}");
        assert!(
            large < 3 * small,
            "2,000 groups: {small} lookups; 4,000: {large}"
        );
    }

    // The memoised mixed-Workload check keeps the bound of the walk it replaced: a root at most
    // 63 links above a group's parent is found (c1 … c64 are reported), one further is not.
    #[test]
    fn mixed_workloads_are_found_within_64_links_of_the_root() {
        let (_, findings) = walk_chain(100);
        let mixed: Vec<&str> = findings
            .iter()
            .filter(|f| f.message.contains("references Workload `root`"))
            .map(|f| f.object.name.as_str())
            .collect();
        let expected: Vec<String> = (1..=64).map(|i| format!("c{i}")).collect();
        assert_eq!(mixed, expected);
    }

    // A linted PodGroup under a chain that only the cluster holds is placed by the same walk
    // as the simulator's: four CompositePodGroups above it make it five levels deep
    // (hierarchy_validation_test.go, "hierarchy depth 5 exceeds maximum allowed depth 4"),
    // as `walk_up` says of the same PodGroup in the cluster.
    #[test]
    fn a_linted_pod_group_under_a_cluster_chain_is_placed_by_the_same_walk() {
        let mut yaml = String::new();
        for i in 1..=4 {
            let parent = if i == 1 {
                String::new()
            } else {
                format!("parentCompositePodGroupName: c{}, ", i - 1)
            };
            yaml.push_str(&format!(
                "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {{name: c{i}, namespace: ml}}\nspec: {{{parent}workloadRef: {{workloadName: w, templateName: t}}, schedulingPolicy: {{basic: {{}}}}}}\n---\n"
            ));
        }
        let leaf = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: deep, namespace: ml}\nspec: {parentCompositePodGroupName: c4, schedulingPolicy: {basic: {}}}\n";
        let mut c = crate::snapshot::source::Collector::new();
        crate::snapshot::source::files::load_str(&format!("{yaml}{leaf}"), "all.yaml", &mut c)
            .expect("test input loads");
        let with_leaf = c.finish();
        assert!(matches!(
            crate::snapshot::hierarchy::walk_up(&with_leaf, "ml", "deep"),
            Err(crate::snapshot::hierarchy::Broken::TooDeep {
                depth: 5,
                at_least: false
            })
        ));
        let mut c = crate::snapshot::source::Collector::new();
        crate::snapshot::source::files::load_str(&yaml, "cluster.yaml", &mut c)
            .expect("test input loads");
        let cluster = c.finish();
        let object = Object {
            doc: 0,
            prefix: Vec::new(),
            value: serde_json::json!({
                "metadata": {"name": "deep", "namespace": "ml"},
                "spec": {"parentCompositePodGroupName": "c4", "schedulingPolicy": {"basic": {}}},
            }),
            api_version: "scheduling.k8s.io/v1beta1".to_owned(),
            kind: "PodGroup".to_owned(),
            id: crate::lint::ObjectId {
                kind: "PodGroup".to_owned(),
                namespace: Some("ml".to_owned()),
                name: "deep".to_owned(),
            },
            namespace: "ml".to_owned(),
        };
        let docs = [crate::lint::Document {
            file: "deep.yaml".to_owned(),
            line: 1,
            tree: crate::lint::span::SpanNode::unpositioned(&Value::Null, (1, 1)),
        }];
        let config = crate::lint::Config::default();
        let mut em = Emitter::new(&docs, &config);
        hierarchy_steps(std::slice::from_ref(&object), Some(&cluster), &mut em);
        let found: Vec<(&str, &str)> = em
            .findings
            .iter()
            .map(|f| (f.rule, f.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [(
                "WAS314",
                "hierarchy depth 5 exceeds maximum allowed depth 4: kube-scheduler refuses to schedule the tree"
            )]
        );
    }
}
