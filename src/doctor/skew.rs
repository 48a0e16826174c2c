//! Version and feature-gate skew between components (operations.md, "Version and feature-gate
//! skew"): versions outside the supported skew with kube-apiserver, workload-aware scheduling
//! gates that differ between components, removed 1.36 gate names, and objects that use a
//! field whose gate is off everywhere it is known.
//!
//! Only known values count: a gate a component declares (file facts, `/metrics`), or the 1.37
//! default for a gate missing from a static pod's `--feature-gates`. Unknown values are never
//! guessed into a finding.

use crate::snapshot::ObjKind;
use k8s_openapi::api::scheduling::v1beta1::PodGroup;

use super::{Check, Checker, list, obj};
use crate::snapshot::ObjRef;
use crate::snapshot::facts::{Component, ComponentFacts, gate_info, parse_minor_version};

/// The gates whose value must agree across the components they affect.
pub(crate) const WAS_GATES: &[&str] = &[
    "GenericWorkload",
    "DRAWorkloadResourceClaims",
    "CompositePodGroup",
    "TopologyAwareWorkloadScheduling",
    "WorkloadWithJob",
    "PodGroupPreemptionPolicy",
    "DRANodeAllocatableResources",
];

/// 1.36 gate names that no longer exist in 1.37.
pub(crate) const REMOVED_GATES: &[&str] = &["GangScheduling", "WorkloadAwarePreemption"];

/// Runs the skew checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    if c.s.facts.is_empty() {
        c.assumed
            .push("no cluster facts: version and feature-gate skew checks were skipped".to_owned());
        return;
    }
    if !c.options.gate_overrides.is_empty() {
        let names: Vec<&str> = c
            .options
            .gate_overrides
            .keys()
            .map(String::as_str)
            .collect();
        c.assumed.push(format!(
            "`--feature-gates` applied to every component for {}",
            names.join(", ")
        ));
    }
    versions(c);
    stale_gate_names(c);
    for gate in WAS_GATES {
        gate_skew(c, gate);
    }
}

fn label(f: &ComponentFacts) -> String {
    match (&f.component, &f.node) {
        (Component::Kubelet, Some(node)) => format!("kubelet on {node}"),
        (component, _) => component.as_str().to_owned(),
    }
}

fn object(f: &ComponentFacts) -> ObjRef {
    match (&f.component, &f.node) {
        (Component::Kubelet, Some(node)) => ObjRef::new(ObjKind::Node, "", node),
        (component, _) => ObjRef::new(
            ObjKind::Other("Component".to_owned()),
            "",
            component.as_str(),
        ),
    }
}

/// Component labels, comma-separated, at most 4 and "N more".
fn plain(items: &[String]) -> String {
    let mut out = items.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > 4 {
        out.push_str(&format!(" and {} more", items.len() - 4));
    }
    out
}

fn versions(c: &mut Checker<'_>) {
    let facts = &c.s.facts;
    let apiserver = facts
        .components
        .iter()
        .filter(|f| f.component == Component::KubeApiserver)
        .find_map(|f| f.version.clone())
        .or_else(|| facts.server_version.clone());
    let Some(apiserver) = apiserver else {
        return;
    };
    let Some((major, minor)) = parse_minor_version(&apiserver) else {
        return;
    };
    let mut found = Vec::new();
    for f in &facts.components {
        let (oldest, name) = match f.component {
            Component::KubeApiserver => continue,
            Component::KubeScheduler | Component::KubeControllerManager => (1, "one minor"),
            Component::Kubelet => (3, "three minors"),
        };
        let Some(version) = &f.version else {
            continue;
        };
        let Some((m, n)) = parse_minor_version(version) else {
            continue;
        };
        let why = if m != major || n > minor {
            "newer than kube-apiserver".to_owned()
        } else if minor - n > oldest {
            format!("more than {name} older than kube-apiserver")
        } else {
            continue;
        };
        found.push((
            object(f),
            format!(
                "{} runs `{version}`, {why} (`{apiserver}`): unsupported skew",
                label(f)
            ),
        ));
    }
    for (o, message) in found {
        c.emit(
            Check::VersionSkew,
            o,
            message,
            "upgrade kube-apiserver first, then kube-controller-manager and kube-scheduler, then kubelets; keep each within the supported skew",
        );
    }
}

fn stale_gate_names(c: &mut Checker<'_>) {
    let mut found = Vec::new();
    for f in &c.s.facts.components {
        let stale: Vec<String> = f
            .feature_gates
            .keys()
            .filter(|k| REMOVED_GATES.contains(&k.as_str()))
            .cloned()
            .collect();
        if !stale.is_empty() {
            found.push((object(f), label(f), stale));
        }
    }
    for (o, who, stale) in found {
        c.emit(
            Check::StaleGateName,
            o,
            format!(
                "{who} `--feature-gates` names {}, removed in 1.37 (folded into `GenericWorkload`)",
                list(&stale, 2)
            ),
            "remove the removed gates from `--feature-gates` and set `GenericWorkload=true` instead; a 1.37 component does not start with an unknown gate",
        );
    }
}

/// The known value of `gate` in one component instance, if known.
fn known(c: &Checker<'_>, f: &ComponentFacts, gate: &str) -> Option<bool> {
    if let Some(v) = c.options.gate_overrides.get(gate) {
        return Some(*v);
    }
    if let Some(v) = f.feature_gates.get(gate) {
        return Some(*v);
    }
    (f.source.as_deref() == Some("static-pod")).then(|| gate_info(gate).is_some_and(|g| g.default))
}

/// Objects that use the feature behind `gate`: (object, field).
fn users(c: &Checker<'_>, gate: &str) -> Vec<(ObjRef, &'static str)> {
    let s = c.s;
    let mut out = Vec::new();
    let pg = |p: &PodGroup| obj(ObjKind::PodGroup, &p.metadata);
    match gate {
        "GenericWorkload" => {
            // Basic groups schedule pod by pod either way; gangs are what the gate changes.
            out.extend(
                s.pod_groups
                    .iter()
                    .filter(|p| p.spec.scheduling_policy.gang.is_some())
                    .map(|p| (pg(p), "PodGroup")),
            );
        }
        "CompositePodGroup" => {
            out.extend(s.composite_pod_groups.iter().map(|p| {
                (
                    obj(ObjKind::CompositePodGroup, &p.metadata),
                    "CompositePodGroup",
                )
            }));
            out.extend(
                s.pod_groups
                    .iter()
                    .filter(|p| p.spec.parent_composite_pod_group_name.is_some())
                    .map(|p| (pg(p), "spec.parentCompositePodGroupName")),
            );
        }
        "TopologyAwareWorkloadScheduling" => {
            out.extend(
                s.pod_groups
                    .iter()
                    .filter(|p| p.spec.scheduling_constraints.is_some())
                    .map(|p| (pg(p), "spec.schedulingConstraints")),
            );
            out.extend(
                s.composite_pod_groups
                    .iter()
                    .filter(|p| p.spec.scheduling_constraints.is_some())
                    .map(|p| {
                        (
                            obj(ObjKind::CompositePodGroup, &p.metadata),
                            "spec.schedulingConstraints",
                        )
                    }),
            );
        }
        "WorkloadWithJob" => {
            out.extend(
                s.jobs
                    .iter()
                    .filter(|j| j.spec.as_ref().is_some_and(|sp| sp.scheduling.is_some()))
                    .map(|j| (obj(ObjKind::Job, &j.metadata), "spec.scheduling")),
            );
        }
        "PodGroupPreemptionPolicy" => {
            out.extend(
                s.pod_groups
                    .iter()
                    .filter(|p| {
                        p.spec
                            .preemption_policy
                            .as_deref()
                            .is_some_and(|v| v != "PreemptLowerPriority")
                    })
                    .map(|p| (pg(p), "spec.preemptionPolicy")),
            );
        }
        "DRAWorkloadResourceClaims" => {
            out.extend(
                s.pod_groups
                    .iter()
                    .filter(|p| {
                        p.spec
                            .resource_claims
                            .as_ref()
                            .is_some_and(|r| !r.is_empty())
                    })
                    .map(|p| (pg(p), "spec.resourceClaims")),
            );
        }
        "DRANodeAllocatableResources" => {
            out.extend(
                s.resource_slices
                    .iter()
                    .filter(|r| {
                        r.spec.devices.iter().flatten().any(|d| {
                            d.node_allocatable_resources
                                .as_ref()
                                .is_some_and(|m| !m.is_empty())
                        })
                    })
                    .map(|r| {
                        (
                            obj(ObjKind::ResourceSlice, &r.metadata),
                            "spec.devices[].nodeAllocatableResources",
                        )
                    }),
            );
        }
        _ => {}
    }
    out
}

fn gate_skew(c: &mut Checker<'_>, gate: &str) {
    let Some(info) = gate_info(gate) else {
        return;
    };
    let values: Vec<(ObjRef, String, bool)> =
        c.s.facts
            .components
            .iter()
            .filter(|f| info.components.contains(&f.component))
            .filter_map(|f| known(c, f, gate).map(|v| (object(f), label(f), v)))
            .collect();
    if values.is_empty() {
        return;
    }
    let on: Vec<String> = values.iter().filter(|v| v.2).map(|v| v.1.clone()).collect();
    let off: Vec<String> = values
        .iter()
        .filter(|v| !v.2)
        .map(|v| v.1.clone())
        .collect();
    let users = users(c, gate);
    if on.is_empty() {
        // Off everywhere it is known: objects that use the feature are dropped or ignored.
        for (o, field) in users {
            let what = if field == o.kind.as_str() {
                format!("this {field}")
            } else {
                format!("`{field}`")
            };
            c.emit(
                Check::GatedFieldGateOff,
                o,
                format!(
                    "{what} needs the feature gate `{gate}`, which is off in {}: {}",
                    plain(&off),
                    if off.iter().any(|o| o == Component::KubeApiserver.as_str()) {
                        "kube-apiserver drops it on write"
                    } else {
                        "it is ignored"
                    }
                ),
                format!(
                    "enable `{gate}=true` on {}, or stop using the field",
                    info.components
                        .iter()
                        .map(|c| c.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        return;
    }
    if off.is_empty() {
        return;
    }
    let apiserver_value = values
        .iter()
        .find(|v| {
            v.0.kind == ObjKind::Other("Component".to_owned())
                && v.0.name == Component::KubeApiserver.as_str()
        })
        .map(|v| v.2);
    let target = values
        .iter()
        .find(|v| apiserver_value.map_or(!v.2, |a| v.2 != a))
        .map_or_else(|| values[0].0.clone(), |v| v.0.clone());
    let message = format!(
        "`{gate}` is off in {} but on in {}",
        plain(&off),
        plain(&on)
    );
    let fix = format!(
        "set `{gate}` to the same value on every component it affects ({})",
        info.components
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if users.is_empty() {
        c.emit(Check::GateSkew, target, message, fix);
    } else {
        let names: Vec<String> = users.iter().map(|(o, _)| o.to_string()).collect();
        let effect = match gate {
            "GenericWorkload" => "these gangs are not gang-scheduled where the gate is off",
            "DRAWorkloadResourceClaims" => "no PodGroup claim is generated at all (fail-closed)",
            "DRANodeAllocatableResources" => {
                "where the gate is off, the devices' cpu, memory and hugepages are not charged to their pods"
            }
            _ => "the objects are handled differently by each component",
        };
        c.emit(
            Check::GateSkewInUse,
            target,
            format!(
                "{message}; {} object(s) use it ({}): {effect}",
                names.len(),
                list(&names, 3)
            ),
            fix,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::ids;

    fn facts(apiserver: &str, scheduler: &str, extra: &str) -> String {
        format!(
            r#"
apiVersion: wasctl.dev/v1alpha1
kind: ClusterFacts
serverVersion: v1.37.0
components:
- component: kube-apiserver
  version: v1.37.0
  featureGates: {apiserver}
- component: kube-scheduler
  version: v1.37.0
  featureGates: {scheduler}
{extra}
"#
        )
    }

    const PG: &str = r#"
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]}
spec: {schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: pg}}
"#;

    #[test]
    fn generic_workload_skew_is_an_error_when_groups_exist() {
        let f = facts("{GenericWorkload: true}", "{GenericWorkload: false}", "");
        assert_eq!(ids(&f), ["WASD103"]);
        assert_eq!(ids(&format!("{f}{PG}")), ["WASD102"]);
    }

    #[test]
    fn agreeing_gates_and_unknown_values_are_not_skew() {
        let f = facts("{GenericWorkload: true}", "{GenericWorkload: true}", "");
        assert!(ids(&format!("{f}{PG}")).is_empty());
        let f = facts("{GenericWorkload: true}", "{}", "");
        assert!(ids(&format!("{f}{PG}")).is_empty());
    }

    #[test]
    fn kubelet_with_claims_gate_off_is_skew() {
        let f = facts(
            "{DRAWorkloadResourceClaims: true}",
            "{DRAWorkloadResourceClaims: true}",
            "- component: kubelet\n  node: n1\n  version: v1.37.0\n  featureGates: {DRAWorkloadResourceClaims: false}",
        );
        assert_eq!(ids(&f), ["WASD103"]);
    }

    #[test]
    fn old_kubelet_and_newer_scheduler_are_outside_the_skew() {
        let f = facts(
            "{}",
            "{}",
            "- component: kubelet\n  node: n1\n  version: v1.33.2\n- component: kube-controller-manager\n  version: v1.38.0",
        );
        assert_eq!(ids(&f), ["WASD101"]);
        let f = facts(
            "{}",
            "{}",
            "- component: kubelet\n  node: n1\n  version: v1.34.0",
        );
        assert!(ids(&f).is_empty());
    }

    /// KEP-5517: a slice whose devices charge cpu or memory, read by a scheduler with
    /// DRANodeAllocatableResources off while kube-apiserver (which kept the field) has it on.
    #[test]
    fn node_allocatable_resources_skew_names_the_slices() {
        let slice = r#"
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: my-node-cpus}
spec:
  driver: cpu.example.com
  nodeName: my-node
  pool: {name: socket-cpus, generation: 1, resourceSliceCount: 1}
  devices:
  - name: socket0cpus
    nodeAllocatableResources: {cpu: {mapping: {deviceMultiplier: "8"}}}
"#;
        let f = facts(
            "{DRANodeAllocatableResources: true}",
            "{DRANodeAllocatableResources: false}",
            "",
        );
        assert_eq!(ids(&f), ["WASD103"]);
        assert_eq!(ids(&format!("{f}{slice}")), ["WASD102"]);
        let agree = facts(
            "{DRANodeAllocatableResources: true}",
            "{DRANodeAllocatableResources: true}",
            "",
        );
        assert!(ids(&format!("{agree}{slice}")).is_empty());
    }

    #[test]
    fn removed_gate_names_are_stale() {
        let f = facts("{GangScheduling: true}", "{}", "");
        assert_eq!(ids(&f), ["WASD104"]);
    }

    #[test]
    fn field_with_gate_off_everywhere_is_reported() {
        let f = facts(
            "{GenericWorkload: true, DRAWorkloadResourceClaims: false}",
            "{GenericWorkload: true, DRAWorkloadResourceClaims: false}",
            "",
        );
        let pg = PG.replace(
            "spec: {schedulingPolicy: {gang: {minCount: 1}}}",
            "spec: {schedulingPolicy: {gang: {minCount: 1}}, resourceClaims: [{name: kv, resourceClaimName: kv}]}",
        );
        let found = ids(&format!("{f}{pg}"));
        assert!(found.contains(&"WASD105".to_owned()), "{found:?}");
    }
}
