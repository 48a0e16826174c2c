//! PodTopologySpread's default constraints: for a pod without constraints of its own, the
//! profile's `defaultConstraints` (`defaultingType: System`: zone maxSkew 5 and hostname
//! maxSkew 3, `ScheduleAnyway`) with a selector built from the objects that select the pod.
//!
//! Upstream (v1.37):
//! - `podtopologyspread/common.go` `buildDefaultConstraints`: the default constraints of the
//!   wanted `whenUnsatisfiable`, all with the selector of `helper.DefaultSelector`; none when
//!   that selector is empty. `filtering.go`/`scoring.go` use them only when
//!   `pod.Spec.TopologySpreadConstraints` is empty.
//! - `helper/spread.go` `DefaultSelector`: the labels of every Service in the pod's namespace
//!   whose (non-nil) selector matches the pod, merged; then the pod's controller
//!   (`GetControllerOfNoCopy`): a `v1` ReplicationController merges its selector map into that
//!   set, an `apps/v1` ReplicaSet or StatefulSet adds its selector's requirements (a nil
//!   selector adds nothing). A controller not in the snapshot adds nothing.
//! - `scoring.go` `PreScore`: `requireAllTopologies` is false for system defaults, so nodes
//!   without the zone label are still scored (their zone is the empty value).

use std::collections::HashMap;

use serde_json::Value;

use super::pod_req::{PodReq, SpreadConstraint, SpreadOwnerKind};
use super::profile::SpreadDefaults;
use super::selector::LabelSelector;
use crate::snapshot::{RawObject, Snapshot, name_of, namespace_of};

/// The objects `helper.DefaultSelector` reads, compiled once per snapshot.
#[derive(Debug, Clone, Default)]
pub struct SpreadSources {
    /// Namespace → the selector maps of its Services (Services without a selector left out:
    /// they match nothing).
    services: HashMap<String, Vec<Vec<(String, String)>>>,
    /// (kind, namespace, name) → a ReplicationController's selector map.
    rc: HashMap<(String, String), Vec<(String, String)>>,
    /// (kind, namespace, name) → a ReplicaSet's or StatefulSet's selector (`None`: nil).
    apps: HashMap<(SpreadOwnerKind, String, String), Option<LabelSelector>>,
}

fn string_map(v: Option<&Value>) -> Option<Vec<(String, String)>> {
    let map = v?.as_object()?;
    Some(
        map.iter()
            .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
            .collect(),
    )
}

fn key(o: &RawObject) -> (String, String) {
    (
        namespace_of(&o.metadata).to_owned(),
        name_of(&o.metadata).to_owned(),
    )
}

impl SpreadSources {
    /// Reads the Services and ReplicationControllers ([`Snapshot::selecting`]) and the
    /// `apps/v1` ReplicaSets and StatefulSets ([`Snapshot::foreign`]).
    pub(crate) fn build(s: &Snapshot) -> Self {
        let mut out = Self::default();
        for o in &s.selecting {
            let selector = o.value.pointer("/spec/selector");
            match o.kind.as_str() {
                "Service" => {
                    if let Some(map) = string_map(selector) {
                        out.services
                            .entry(namespace_of(&o.metadata).to_owned())
                            .or_default()
                            .push(map);
                    }
                }
                "ReplicationController" => {
                    out.rc
                        .insert(key(o), string_map(selector).unwrap_or_default());
                }
                _ => {}
            }
        }
        for o in &s.foreign {
            let kind = match (o.api_version.as_str(), o.kind.as_str()) {
                ("apps/v1", "ReplicaSet") => SpreadOwnerKind::ReplicaSet,
                ("apps/v1", "StatefulSet") => SpreadOwnerKind::StatefulSet,
                _ => continue,
            };
            let selector = o
                .value
                .pointer("/spec/selector")
                .filter(|v| !v.is_null())
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .map(|api| LabelSelector::compile(&api));
            let (ns, name) = key(o);
            out.apps.insert((kind, ns, name), selector);
        }
        out
    }

    /// Whether no object could select a pod (the common case for batch clusters).
    pub(crate) fn is_empty(&self) -> bool {
        self.services.is_empty() && self.rc.is_empty() && self.apps.is_empty()
    }

    /// `helper.DefaultSelector` for `pod`; `None` when it is empty.
    pub(crate) fn default_selector(&self, pod: &PodReq) -> Option<LabelSelector> {
        // Merged label set: later values win, as `labels.Merge` does.
        let mut set: Vec<(String, String)> = Vec::new();
        let merge = |set: &mut Vec<(String, String)>, map: &[(String, String)]| {
            for (k, v) in map {
                match set.iter_mut().find(|(sk, _)| sk == k) {
                    Some(slot) => slot.1.clone_from(v),
                    None => set.push((k.clone(), v.clone())),
                }
            }
        };
        if let Some(services) = self.services.get(&pod.namespace) {
            for map in services {
                let matches = map
                    .iter()
                    .all(|(k, v)| pod.labels.get(k) == Some(v.as_str()));
                if matches {
                    merge(&mut set, map);
                }
            }
        }
        let mut extra: Option<&LabelSelector> = None;
        if let Some(owner) = &pod.controller {
            match owner.kind {
                SpreadOwnerKind::ReplicationController => {
                    if let Some(map) = self.rc.get(&(pod.namespace.clone(), owner.name.clone())) {
                        merge(&mut set, map);
                    }
                }
                kind => {
                    if let Some(Some(sel)) =
                        self.apps
                            .get(&(kind, pod.namespace.clone(), owner.name.clone()))
                    {
                        extra = Some(sel);
                    }
                }
            }
        }
        set.sort();
        let mut selector = LabelSelector::default();
        for (k, v) in &set {
            selector = selector.with_equal(k, v);
        }
        if let Some(sel) = extra {
            selector
                .requirements
                .extend(sel.requirements.iter().cloned());
        }
        (!selector.requirements.is_empty()).then_some(selector)
    }
}

/// Gives `pod` its profile's default spread constraints when it has none of its own
/// (`buildDefaultConstraints`). Leaves it unchanged otherwise.
pub(crate) fn apply(pod: &mut PodReq, defaults: &SpreadDefaults, sources: &SpreadSources) {
    if !pod.spread.is_empty() || sources.is_empty() {
        return;
    }
    let constraints = defaults.constraints();
    if constraints.is_empty() {
        return;
    }
    let Some(selector) = sources.default_selector(pod) else {
        return;
    };
    pod.spread = constraints
        .into_iter()
        .map(|c| SpreadConstraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key,
            hard: c.hard,
            selector: selector.clone(),
            // `filterTopologySpreadConstraints`' defaults for fields a default constraint
            // cannot set here.
            min_domains: None,
            honor_node_affinity: true,
            honor_node_taints: false,
        })
        .collect();
    pod.spread_system_default = defaults.is_system();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::pod_req::SpreadOwner;
    use crate::sched::selector::PodLabels;

    fn snapshot(docs: &[Value]) -> Snapshot {
        let mut s = Snapshot::default();
        for d in docs {
            let metadata = serde_json::from_value(d["metadata"].clone()).unwrap_or_default();
            let raw = RawObject {
                api_version: d["apiVersion"].as_str().unwrap_or_default().to_owned(),
                kind: d["kind"].as_str().unwrap_or_default().to_owned(),
                metadata,
                value: d.clone(),
            };
            if raw.api_version == "v1" {
                s.selecting.push(raw);
            } else {
                s.foreign.push(raw);
            }
        }
        s
    }

    fn pod(labels: &[(&str, &str)], owner: Option<(SpreadOwnerKind, &str)>) -> PodReq {
        PodReq {
            namespace: "default".into(),
            name: "p".into(),
            labels: PodLabels::from_pairs(labels.iter().copied()),
            controller: owner.map(|(kind, name)| SpreadOwner {
                kind,
                name: name.into(),
            }),
            ..PodReq::default()
        }
    }

    fn svc(name: &str, ns: &str, selector: Value) -> Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": ns}, "spec": {"selector": selector}})
    }

    fn labels_of(sel: &LabelSelector) -> Vec<String> {
        let mut out: Vec<String> = sel.requirements.iter().map(|r| format!("{r:?}")).collect();
        out.sort();
        out
    }

    // The rules of upstream `helper/spread.go` `DefaultSelector` and `GetPodServices`.

    #[test]
    fn services_in_the_pods_namespace_whose_selector_matches_are_merged() {
        let s = snapshot(&[
            svc("s1", "default", serde_json::json!({"app": "web"})),
            svc("s2", "default", serde_json::json!({"tier": "fe"})),
            svc("other-ns", "prod", serde_json::json!({"app": "web"})),
            svc("no-match", "default", serde_json::json!({"app": "db"})),
            // A Service without a selector matches nothing.
            serde_json::json!({"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": "external", "namespace": "default"}, "spec": {}}),
        ]);
        let src = SpreadSources::build(&s);
        let p = pod(&[("app", "web"), ("tier", "fe"), ("x", "y")], None);
        let sel = src.default_selector(&p).expect("selector");
        assert_eq!(sel.requirements.len(), 2);
        assert!(sel.matches(&p.labels));
        assert!(!sel.matches(&PodLabels::from_pairs([("app", "web")])));
    }

    #[test]
    fn replica_set_adds_its_selector_requirements_and_a_missing_one_adds_nothing() {
        let s = snapshot(&[
            serde_json::json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-abc", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web", "pod-template-hash": "abc"}}}}),
        ]);
        let src = SpreadSources::build(&s);
        let p = pod(
            &[("app", "web"), ("pod-template-hash", "abc")],
            Some((SpreadOwnerKind::ReplicaSet, "web-abc")),
        );
        let sel = src.default_selector(&p).expect("selector");
        assert_eq!(labels_of(&sel).len(), 2);
        let orphan = pod(
            &[("app", "web")],
            Some((SpreadOwnerKind::ReplicaSet, "gone")),
        );
        assert!(src.default_selector(&orphan).is_none());
        let unowned = pod(&[("app", "web")], None);
        assert!(src.default_selector(&unowned).is_none());
    }

    #[test]
    fn replication_controller_merges_its_map_with_the_services() {
        let s = snapshot(&[
            svc("s1", "default", serde_json::json!({"app": "web"})),
            serde_json::json!({"apiVersion": "v1", "kind": "ReplicationController",
                "metadata": {"name": "rc", "namespace": "default"},
                "spec": {"selector": {"app": "web", "rc": "1"}}}),
        ]);
        let src = SpreadSources::build(&s);
        let p = pod(
            &[("app", "web"), ("rc", "1")],
            Some((SpreadOwnerKind::ReplicationController, "rc")),
        );
        let sel = src.default_selector(&p).expect("selector");
        assert_eq!(sel.requirements.len(), 2, "app merged once, rc added");
    }

    #[test]
    fn system_defaults_apply_only_to_pods_without_constraints_of_their_own() {
        let s = snapshot(&[
            serde_json::json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "db"}}}}),
        ]);
        let src = SpreadSources::build(&s);
        let mut p = pod(&[("app", "db")], Some((SpreadOwnerKind::StatefulSet, "db")));
        apply(&mut p, &SpreadDefaults::System, &src);
        assert_eq!(p.spread.len(), 2);
        assert!(p.spread_system_default);
        assert!(p.spread.iter().all(|c| !c.hard));
        let zone = p
            .spread
            .iter()
            .find(|c| c.topology_key == crate::sched::profile::LABEL_ZONE)
            .expect("zone");
        assert_eq!(zone.max_skew, 5);
        let mut own = pod(&[("app", "db")], Some((SpreadOwnerKind::StatefulSet, "db")));
        own.spread.push(SpreadConstraint {
            max_skew: 1,
            topology_key: "rack".into(),
            hard: true,
            selector: LabelSelector::default(),
            min_domains: None,
            honor_node_affinity: true,
            honor_node_taints: false,
        });
        apply(&mut own, &SpreadDefaults::System, &src);
        assert_eq!(own.spread.len(), 1, "own constraints win");
        assert!(!own.spread_system_default);
        let mut listed = pod(&[("app", "db")], Some((SpreadOwnerKind::StatefulSet, "db")));
        apply(&mut listed, &SpreadDefaults::List(Vec::new()), &src);
        assert!(listed.spread.is_empty(), "List with no constraints: none");
    }
}
