//! The `Priority` admission plugin (plugin/pkg/admission/priority/admission.go), on pods and
//! on PodGroups and CompositePodGroups.
//!
//! Pods, as upstream's `admitPod` does on `create`:
//! - `priorityClassName` names a class: the built-in `system-cluster-critical`
//!   (2,000,000,000) and `system-node-critical` (2,000,001,000) first, then the PriorityClass
//!   objects. A name that resolves to none is refused ("no PriorityClass with name … was
//!   found").
//! - no `priorityClassName`: the `globalDefault` class (the lowest value if several claim it,
//!   as upstream's `getDefaultPriorityClass`), whose name is then written into
//!   `priorityClassName`; with none, priority 0 and `PreemptLowerPriority`.
//! - a `priority` written in the manifest that differs from the computed one is refused ("the
//!   integer value of priority (…) must not be provided in pod spec"), and so is a written
//!   `preemptionPolicy` that differs from the class's; otherwise both are set from the class
//!   (a class without `preemptionPolicy` is defaulted to `PreemptLowerPriority` when stored).
//!
//! PodGroups (and CompositePodGroups, which carry the same three fields): in 1.37 the plugin
//! admits PodGroups under the gate that used to be `WorkloadAwarePreemption` and is now part
//! of `GenericWorkload`, which the API server needs to serve PodGroups at all. Upstream's
//! `TestAdmitPodGroup` cases, kept as this module's test names: an empty `priorityClassName`
//! takes the global default (name and value) or 0; an explicit one its class's value; a
//! missing class is rejected; a written `priority` equal to the computed one is accepted and
//! a different one rejected. The tests do not cover `preemptionPolicy` on a PodGroup: it is
//! filled from the class when unset and otherwise left as written (never refused).
//! CompositePodGroups get the same treatment (same fields, same immutability; upstream's tests
//! do not say).

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::{Admission, Refusal, is_stored};
use crate::snapshot::pod::Pod;
use crate::snapshot::{KindCoverage, ObjKind, Snapshot, Warning, name_of};

/// The built-in classes kube-apiserver creates and resolves before any object
/// (`SystemPriorityClasses`), with their values.
pub(crate) const SYSTEM_CLASSES: &[(&str, i32)] = &[
    ("system-cluster-critical", 2_000_000_000),
    ("system-node-critical", 2_000_001_000),
];

const PREEMPT_LOWER: &str = "PreemptLowerPriority";

/// The PriorityClasses admission resolves against.
pub(crate) struct Classes {
    /// Name → (value, preemptionPolicy), copied: a cluster has a handful of classes.
    by_name: HashMap<String, (i32, String)>,
    /// The global default class: (name, value, preemptionPolicy).
    default: Option<(String, i32, String)>,
    /// Why the classes are not all known (`None` when they are): then a name found nowhere
    /// is not refused, and (when unreadable) no global default is assumed.
    unknown: Option<Unknown>,
    /// Manifests whose priority could not be resolved, for one warning.
    unresolved: RefCell<BTreeSet<String>>,
}

enum Unknown {
    /// The cluster's PriorityClasses could not be read (live, forbidden or failed).
    Unreadable(String),
    /// The input holds no PriorityClass at all (files without them).
    NotInInput,
}

/// A priority as admission computes it.
struct Resolved {
    /// The class name to store (`None`: no class and no global default).
    class: Option<String>,
    value: i32,
    policy: String,
    /// Taken from the global default class.
    from_default: bool,
}

impl Resolved {
    fn source(&self) -> String {
        match (&self.class, self.from_default) {
            (Some(c), false) => format!("PriorityClass `{c}`"),
            (Some(c), true) => format!("the globalDefault PriorityClass `{c}`"),
            (None, _) => "no priorityClassName and no globalDefault PriorityClass".to_owned(),
        }
    }
}

impl Classes {
    /// The classes of `objects` and `cluster`, and whether they are all known.
    pub(crate) fn of(objects: &Snapshot, cluster: Option<&Snapshot>) -> Self {
        let mut by_name = HashMap::new();
        let mut all: HashMap<&str, &PriorityClass> = HashMap::new();
        for pc in cluster
            .into_iter()
            .flat_map(|c| &c.priority_classes)
            .chain(&objects.priority_classes)
        {
            all.insert(name_of(&pc.metadata), pc);
            by_name.insert(
                name_of(&pc.metadata).to_owned(),
                (pc.value.unwrap_or(0), policy_of(pc)),
            );
        }
        // As upstream: several default classes (a race) → the lowest value.
        let default = all
            .values()
            .filter(|pc| pc.global_default == Some(true))
            .min_by_key(|pc| (pc.value.unwrap_or(0), name_of(&pc.metadata)))
            .map(|pc| {
                let value = pc.value.unwrap_or(0);
                (name_of(&pc.metadata).to_owned(), value, policy_of(pc))
            });
        let coverage = cluster.unwrap_or(objects).coverage("PriorityClass");
        let unknown = match coverage {
            KindCoverage::Unreadable { reason } => Some(Unknown::Unreadable(reason)),
            KindCoverage::NotInInput if by_name.is_empty() => Some(Unknown::NotInInput),
            _ => None,
        };
        Self {
            by_name,
            default,
            unknown,
            unresolved: RefCell::new(BTreeSet::new()),
        }
    }

    /// Resolves `class` (the object's `priorityClassName`); `Ok(None)` when it cannot be
    /// known, `Err` with the reason the API server refuses the object.
    fn resolve(&self, class: Option<&str>) -> Result<Option<Resolved>, String> {
        let Some(name) = class.filter(|c| !c.is_empty()) else {
            if matches!(self.unknown, Some(Unknown::Unreadable(_))) {
                return Ok(None);
            }
            return Ok(Some(match &self.default {
                Some((name, value, policy)) => Resolved {
                    class: Some(name.clone()),
                    value: *value,
                    policy: policy.clone(),
                    from_default: true,
                },
                None => Resolved {
                    class: None,
                    value: 0,
                    policy: PREEMPT_LOWER.to_owned(),
                    from_default: false,
                },
            }));
        };
        if let Some((_, value)) = SYSTEM_CLASSES.iter().find(|(n, _)| *n == name) {
            return Ok(Some(Resolved {
                class: Some(name.to_owned()),
                value: *value,
                policy: PREEMPT_LOWER.to_owned(),
                from_default: false,
            }));
        }
        match self.by_name.get(name) {
            Some((value, policy)) => Ok(Some(Resolved {
                class: Some(name.to_owned()),
                value: *value,
                policy: policy.clone(),
                from_default: false,
            })),
            None if self.unknown.is_some() => Ok(None),
            None => Err(format!("priorityClassName `{name}` names no PriorityClass")),
        }
    }

    fn unresolved(&self, kind: &ObjKind, meta: &ObjectMeta) {
        self.unresolved.borrow_mut().insert(format!(
            "{kind}/{}/{}",
            crate::snapshot::namespace_of(meta),
            name_of(meta)
        ));
    }

    /// The warning for manifests whose priority could not be resolved, if any.
    pub(crate) fn warning(&self) -> Option<Warning> {
        let unresolved = self.unresolved.borrow();
        let first = unresolved.iter().next()?;
        let n = unresolved.len();
        let more = if n > 1 {
            format!(" and {} more", n - 1)
        } else {
            String::new()
        };
        let why = match &self.unknown {
            Some(Unknown::Unreadable(reason)) => {
                format!("the cluster's PriorityClasses could not be read ({reason})")
            }
            _ => "the input holds no PriorityClass".to_owned(),
        };
        Some(Warning::new(
            "PriorityNotResolved",
            format!(
                "{why}: the priority of `{first}`{more} is simulated as written, not resolved from its priorityClassName; add the PriorityClasses to the input (`kubectl get priorityclasses -o yaml`)"
            ),
        ))
    }
}

fn policy_of(pc: &PriorityClass) -> String {
    pc.preemption_policy
        .clone()
        .unwrap_or_else(|| PREEMPT_LOWER.to_owned())
}

/// The three priority fields of a pod or group spec.
struct Fields<'s> {
    class: &'s mut Option<String>,
    priority: &'s mut Option<i32>,
    policy: &'s mut Option<String>,
}

/// Whether the fields' effective values changed: (priority, preemptionPolicy `Never`-ness).
struct Changed {
    priority: bool,
    policy: bool,
    from_default: bool,
}

/// Admits the fields; `strict_policy`: a written preemptionPolicy that differs is refused
/// (pods), else kept (groups).
fn admit_fields(
    f: Fields<'_>,
    classes: &Classes,
    strict_policy: bool,
) -> Result<Option<Changed>, String> {
    let Some(r) = classes.resolve(f.class.as_deref())? else {
        return Ok(None);
    };
    if let Some(p) = *f.priority
        && p != r.value
    {
        return Err(format!(
            "priority {p} is written but {} gives {} (leave `priority` unset: admission fills it from the class)",
            r.source(),
            r.value
        ));
    }
    if strict_policy
        && let Some(p) = f.policy.as_deref()
        && p != r.policy
    {
        return Err(format!(
            "preemptionPolicy `{p}` is written but {} gives `{}`",
            r.source(),
            r.policy
        ));
    }
    let never = |p: Option<&str>| p == Some("Never");
    let old_never = never(f.policy.as_deref());
    let changed = Changed {
        priority: f.priority.unwrap_or(0) != r.value,
        policy: false,
        from_default: r.from_default,
    };
    *f.priority = Some(r.value);
    if f.class.as_deref().is_none_or(str::is_empty) {
        *f.class = r.class.clone();
    }
    if f.policy.is_none() {
        *f.policy = Some(r.policy.clone());
    }
    Ok(Some(Changed {
        policy: old_never != never(f.policy.as_deref()),
        ..changed
    }))
}

fn count(c: &Changed, out: &mut Admission) {
    if c.priority {
        if c.from_default {
            out.count(
                "PriorityFromGlobalDefault",
                "priority set from the globalDefault PriorityClass",
            );
        } else {
            out.count("PriorityFromClass", "priority set from priorityClassName");
        }
    }
    if c.policy {
        out.count(
            "PreemptionPolicyFromClass",
            "preemptionPolicy `Never` set from the PriorityClass",
        );
    }
}

/// Admits one manifest pod's priority; `Err` with the reason the API server refuses it.
pub(super) fn admit_pod(
    pod: &mut Pod,
    classes: &Classes,
    out: &mut Admission,
) -> Result<(), String> {
    let spec = pod.spec.get_or_insert_with(Default::default);
    let changed = admit_fields(
        Fields {
            class: &mut spec.priority_class_name,
            priority: &mut spec.priority,
            policy: &mut spec.preemption_policy,
        },
        classes,
        true,
    )?;
    match changed {
        Some(c) => count(&c, out),
        None => classes.unresolved(&ObjKind::Pod, &pod.metadata),
    }
    Ok(())
}

/// Admits one manifest group's fields, counting the change or the refusal.
fn admit_group(
    kind: ObjKind,
    meta: &ObjectMeta,
    f: Fields<'_>,
    classes: &Classes,
    out: &mut Admission,
) {
    match admit_fields(f, classes, false) {
        Ok(Some(c)) => count(&c, out),
        Ok(None) => classes.unresolved(&kind, meta),
        // Refused before anything was changed: the group stays as written.
        Err(reason) => out.refused.push(Refusal::new(kind, meta, reason)),
    }
}

/// Admits the manifest PodGroups and CompositePodGroups of `objects`.
pub(super) fn admit_groups(objects: &mut Snapshot, classes: &Classes, out: &mut Admission) {
    for g in &mut objects.pod_groups {
        if is_stored(&g.metadata) {
            continue;
        }
        let f = Fields {
            class: &mut g.spec.priority_class_name,
            priority: &mut g.spec.priority,
            policy: &mut g.spec.preemption_policy,
        };
        admit_group(ObjKind::PodGroup, &g.metadata, f, classes, out);
    }
    for g in &mut objects.composite_pod_groups {
        if is_stored(&g.metadata) {
            continue;
        }
        let f = Fields {
            class: &mut g.spec.priority_class_name,
            priority: &mut g.spec.priority,
            policy: &mut g.spec.preemption_policy,
        };
        admit_group(ObjKind::CompositePodGroup, &g.metadata, f, classes, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::admit;
    use super::*;

    use super::super::test_snapshot as snapshot;

    fn class(name: &str, value: i32, default: bool) -> serde_json::Value {
        serde_json::json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, "globalDefault": default})
    }

    fn pod(name: &str, spec: serde_json::Value) -> serde_json::Value {
        let mut spec = spec;
        spec["containers"] = serde_json::json!([{"name": "c", "image": "i"}]);
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml"}, "spec": spec})
    }

    fn group(name: &str, spec: serde_json::Value) -> serde_json::Value {
        let mut spec = spec;
        spec["schedulingPolicy"] = serde_json::json!({"gang": {"minCount": 1}});
        serde_json::json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ml"}, "spec": spec})
    }

    fn priority_of(s: &Snapshot, name: &str) -> Option<i32> {
        s.pod("ml", name).and_then(|p| p.spec.as_ref()?.priority)
    }

    #[test]
    fn a_pod_takes_its_class_value_and_policy() {
        let mut never = class("batch", 50, false);
        never["preemptionPolicy"] = "Never".into();
        let mut s = snapshot(&[
            class("high", 100_000, false),
            never,
            pod("a", serde_json::json!({"priorityClassName": "high"})),
            pod("b", serde_json::json!({"priorityClassName": "batch"})),
            pod(
                "c",
                serde_json::json!({"priorityClassName": "system-node-critical"}),
            ),
        ]);
        let a = admit(&mut s, None);
        assert!(a.refused.is_empty(), "{:?}", a.refused);
        assert_eq!(priority_of(&s, "a"), Some(100_000));
        assert_eq!(priority_of(&s, "b"), Some(50));
        assert_eq!(priority_of(&s, "c"), Some(2_000_001_000));
        let policy = |n: &str| {
            s.pod("ml", n)
                .and_then(|p| p.spec.as_ref()?.preemption_policy.clone())
        };
        assert_eq!(policy("a").as_deref(), Some("PreemptLowerPriority"));
        assert_eq!(policy("b").as_deref(), Some("Never"));
        let counts: Vec<(&str, usize)> = a
            .admitted
            .iter()
            .map(|x| (x.change.as_str(), x.count))
            .collect();
        assert_eq!(
            counts,
            [("PriorityFromClass", 3), ("PreemptionPolicyFromClass", 1)]
        );
    }

    #[test]
    fn a_pod_without_a_class_takes_the_lowest_global_default_or_zero() {
        let mut s = snapshot(&[
            class("dflt", 7, true),
            class("dflt-low", 3, true),
            pod("a", serde_json::json!({})),
        ]);
        let a = admit(&mut s, None);
        assert_eq!(priority_of(&s, "a"), Some(3));
        let spec = s.pod("ml", "a").unwrap().spec.as_ref().unwrap();
        assert_eq!(spec.priority_class_name.as_deref(), Some("dflt-low"));
        assert_eq!(a.admitted[0].change, "PriorityFromGlobalDefault");
        let mut s = snapshot(&[class("x", 7, false), pod("a", serde_json::json!({}))]);
        let a = admit(&mut s, None);
        assert_eq!(priority_of(&s, "a"), Some(0));
        assert!(a.admitted.is_empty(), "0 is what the simulator read anyway");
    }

    #[test]
    fn a_missing_class_or_a_disagreeing_priority_is_refused() {
        let mut s = snapshot(&[
            class("high", 100, false),
            pod("a", serde_json::json!({"priorityClassName": "hgih"})),
            pod(
                "b",
                serde_json::json!({"priorityClassName": "high", "priority": 5}),
            ),
            pod("c", serde_json::json!({"priority": 100})),
            pod(
                "d",
                serde_json::json!({"priorityClassName": "high", "preemptionPolicy": "Never"}),
            ),
            pod(
                "e",
                serde_json::json!({"priorityClassName": "high", "priority": 100}),
            ),
        ]);
        let a = admit(&mut s, None);
        let got: Vec<String> = a.refused.iter().map(ToString::to_string).collect();
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(got[0].starts_with(
            "Pod ml/a: priorityClassName `hgih` names no PriorityClass (the API server"
        ));
        assert!(
            got[1].contains("priority 5 is written but PriorityClass `high` gives 100"),
            "{}",
            got[1]
        );
        assert!(
            got[2].contains("priority 100 is written but no priorityClassName and no globalDefault PriorityClass gives 0"),
            "{}",
            got[2]
        );
        assert!(
            got[3].contains("preemptionPolicy `Never` is written"),
            "{}",
            got[3]
        );
        // Refused pods are left as written; the agreeing one is accepted.
        assert_eq!(priority_of(&s, "b"), Some(5));
        assert_eq!(priority_of(&s, "e"), Some(100));
    }

    #[test]
    fn stored_objects_are_not_admitted() {
        let mut p = pod("a", serde_json::json!({"priorityClassName": "nowhere"}));
        p["metadata"]["uid"] = "u-1".into();
        let mut g = group("g", serde_json::json!({"priority": 9}));
        g["metadata"]["resourceVersion"] = "17".into();
        let mut s = snapshot(&[class("x", 1, true), p, g]);
        let a = admit(&mut s, None);
        assert_eq!(a, Admission::default());
        assert_eq!(priority_of(&s, "a"), None);
    }

    // Upstream's TestAdmitPodGroup cases (plugin/pkg/admission/priority), one test each.

    #[test]
    fn pod_group_with_empty_priority_class_name_accepted_and_set_to_global_default() {
        let mut s = snapshot(&[
            class("default1", 1000, true),
            group("g", serde_json::json!({})),
        ]);
        let a = admit(&mut s, None);
        let g = s.pod_group("ml", "g").unwrap();
        assert_eq!(g.spec.priority_class_name.as_deref(), Some("default1"));
        assert_eq!(g.spec.priority, Some(1000));
        assert_eq!(a.admitted[0].count, 1);
    }

    #[test]
    fn pod_group_with_explicit_priority_class_name_accepted() {
        let mut s = snapshot(&[
            class("default1", 1000, true),
            class("nondefault1", 2000, false),
            group("g", serde_json::json!({"priorityClassName": "nondefault1"})),
        ]);
        admit(&mut s, None);
        assert_eq!(s.pod_group("ml", "g").unwrap().spec.priority, Some(2000));
    }

    #[test]
    fn pod_group_with_non_existent_priority_class_name_rejected() {
        let mut s = snapshot(&[
            class("default1", 1000, true),
            group("urgent", serde_json::json!({"priorityClassName": "high"})),
        ]);
        let a = admit(&mut s, None);
        assert_eq!(
            a.refusal_message().unwrap(),
            "PodGroup ml/urgent: priorityClassName `high` names no PriorityClass (the API server would refuse it)"
        );
        assert_eq!(s.pod_group("ml", "urgent").unwrap().spec.priority, None);
    }

    #[test]
    fn pod_group_with_no_priority_class_name_and_no_global_default_priority_zero() {
        let mut s = snapshot(&[
            class("nondefault1", 2000, false),
            group("g", serde_json::json!({})),
        ]);
        admit(&mut s, None);
        let g = s.pod_group("ml", "g").unwrap();
        assert_eq!(g.spec.priority, Some(0));
        assert_eq!(g.spec.priority_class_name, None);
    }

    #[test]
    fn pod_group_create_with_pre_set_priority_matching_accepted_not_matching_rejected() {
        let mut s = snapshot(&[
            class("nondefault1", 2000, false),
            group(
                "ok",
                serde_json::json!({"priorityClassName": "nondefault1", "priority": 2000}),
            ),
            group(
                "bad",
                serde_json::json!({"priorityClassName": "nondefault1", "priority": 9999}),
            ),
        ]);
        let a = admit(&mut s, None);
        assert_eq!(a.refused.len(), 1);
        assert_eq!(a.refused[0].name, "bad");
    }

    #[test]
    fn classes_that_cannot_be_read_are_not_guessed() {
        // A dump without PriorityClasses: a named class is not refused, and not resolved.
        let mut s = snapshot(&[pod("a", serde_json::json!({"priorityClassName": "high"}))]);
        s.facts.from_files = true;
        let a = admit(&mut s, None);
        assert!(a.refused.is_empty());
        assert_eq!(priority_of(&s, "a"), None);
        assert_eq!(a.warnings.len(), 1);
        assert!(
            a.warnings[0]
                .message
                .contains("the input holds no PriorityClass"),
            "{:?}",
            a.warnings
        );
        // A live cluster whose PriorityClasses were forbidden: not even the default is assumed.
        let mut cluster = Snapshot::default();
        cluster.facts.coverage.insert(
            "PriorityClass".into(),
            KindCoverage::Unreadable {
                reason: "forbidden".into(),
            },
        );
        let mut s = snapshot(&[pod("b", serde_json::json!({}))]);
        let a = admit(&mut s, Some(&cluster));
        assert_eq!(priority_of(&s, "b"), None);
        assert!(
            a.warnings[0]
                .message
                .contains("could not be read (forbidden)")
        );
    }
}
