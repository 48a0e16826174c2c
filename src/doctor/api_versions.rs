//! API versions: served versions wasctl expects from a 1.37 API server, and objects left over
//! in `scheduling.k8s.io/v1alpha2` or `v1alpha1` (operations.md, failure mode 9).

use super::{Check, Checker};
use crate::snapshot::ObjRef;
use crate::snapshot::{ObjKind, RawObject};
use crate::snapshot::{name_of, namespace_of};

/// API group → the version a 1.37 API server with workload-aware scheduling serves.
pub(crate) const EXPECTED_VERSIONS: &[(&str, &str, &str)] = &[
    (
        "scheduling.k8s.io",
        "v1beta1",
        "Workload and PodGroup (gate `GenericWorkload`)",
    ),
    ("resource.k8s.io", "v1", "ResourceClaim and ResourceSlice"),
];

/// Runs the API version checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    let served = &c.s.facts.served_versions;
    let mut found = Vec::new();
    for (group, version, what) in EXPECTED_VERSIONS {
        let Some(versions) = served.get(*group) else {
            continue;
        };
        if !versions.iter().any(|v| v == version) {
            found.push((
                ObjRef::new(ObjKind::Other("APIGroup".to_owned()), "", group),
                format!(
                    "`{group}/{version}` ({what}) is not served; served: {}",
                    if versions.is_empty() {
                        "none".to_owned()
                    } else {
                        versions
                            .iter()
                            .map(|v| format!("`{v}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            ));
        }
    }
    for (o, message) in found {
        c.emit(
            Check::ServedVersionMissing,
            o,
            message,
            "run kube-apiserver 1.37 with the feature gate on (`GenericWorkload=true` for scheduling.k8s.io/v1beta1), and `--runtime-config` enabling the version",
        );
    }
    for o in &c.s.stale {
        let age = c.age(&o.metadata).unwrap_or_else(|| "?".to_owned());
        c.emit(
            Check::LeftoverOldVersion,
            ObjRef::new(
                ObjKind::parse(&o.kind),
                namespace_of(&o.metadata),
                name_of(&o.metadata),
            ),
            format!("{} (age {age})", leftover_message(o)),
            leftover_hint(o),
        );
    }
}

/// What doctor says of an object left in a version 1.37 no longer serves (`WASD107`); tree,
/// explain and capacity say the same of such a target.
pub(crate) fn leftover_message(o: &RawObject) -> String {
    format!(
        "stored as `{}`, which 1.37 no longer serves: nothing acts on it",
        o.api_version
    )
}

/// Doctor's fix for a left-over object (`WASD107`).
pub(crate) fn leftover_hint(o: &RawObject) -> String {
    let target = if o.kind == "CompositePodGroup" {
        "v1alpha3"
    } else {
        "v1beta1"
    };
    format!(
        "delete it and, if still needed, re-create it as `scheduling.k8s.io/{target}` (the shape changed, e.g. `disruptionMode: PodGroup` is now `{{all: {{}}}}`); remove such objects before upgrading from 1.36"
    )
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{ids, run};

    #[test]
    fn leftover_v1alpha2_object_is_reported() {
        let yaml = r#"
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: old, namespace: ns}
spec: {disruptionMode: PodGroup, schedulingPolicy: {gang: {minCount: 2}}}
"#;
        assert_eq!(run(yaml), vec![("WASD107".to_owned(), "old".to_owned())]);
    }

    #[test]
    fn missing_served_version_is_reported() {
        let yaml = r#"
apiVersion: wasctl.dev/v1alpha1
kind: ClusterFacts
servedVersions:
  scheduling.k8s.io: [v1, v1alpha3]
  resource.k8s.io: [v1]
"#;
        assert_eq!(ids(yaml), ["WASD106"]);
    }
}
