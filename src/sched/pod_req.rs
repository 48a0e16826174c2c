//! [`PodReq`]: a compact, precomputed view of one pod for the simulator's hot loops.
//!
//! Requests follow upstream `resourcehelper.PodRequests`
//! (`k8s.io/component-helpers/resource/helpers.go`, v1.37): containers summed; restartable
//! init containers (sidecars) add to the steady state and to every later init container; the
//! pod needs the max of the steady state and each init container's peak; pod-level
//! `spec.resources.requests` replace cpu/memory when set; `spec.overhead` is added. A container
//! with limits but no requests has requests = limits: the snapshot's pod record applies that
//! API defaulting when it is read ([`crate::snapshot::pod`]), so files that skipped defaulting
//! behave as the cluster would.

use std::sync::Arc;

use crate::snapshot::pod::{Container, Pod, PodSpec};
use k8s_openapi::api::core::v1::PodAffinityTerm;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::resources::{CPU, MEMORY, OVERFLOW, Requests, ResourceTable, add_into, max_into};
use super::selector::{LabelSelector, NodeTerm, PodLabels, Tol};
use crate::snapshot::{name_of, namespace_of};

/// Scoring defaults for containers that request nothing (upstream `schedutil.DefaultMilliCPURequest`
/// and `DefaultMemoryRequest`).
pub(crate) const DEFAULT_MILLI_CPU: i64 = 100;
/// 200 MiB.
pub(crate) const DEFAULT_MEMORY: i64 = 200 * 1024 * 1024;

/// A topology spread constraint, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpreadConstraint {
    /// `maxSkew`.
    pub max_skew: i32,
    /// `topologyKey`.
    pub topology_key: String,
    /// `whenUnsatisfiable: DoNotSchedule` (hard) vs `ScheduleAnyway` (soft).
    pub hard: bool,
    /// `labelSelector` with `matchLabelKeys` folded in.
    pub selector: LabelSelector,
    /// `minDomains` (hard constraints only).
    pub min_domains: Option<i32>,
    /// `nodeAffinityPolicy: Honor` (the default).
    pub honor_node_affinity: bool,
    /// `nodeTaintsPolicy: Honor` (default Ignore).
    pub honor_node_taints: bool,
}

/// Which namespaces an affinity term selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceScope {
    /// Explicit names (the pod's own namespace when both lists are empty).
    pub names: Vec<String>,
    /// `namespaceSelector` (empty selector = all namespaces).
    pub selector: Option<LabelSelector>,
}

/// A pod (anti-)affinity term, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AffinityTerm {
    /// Pods the term is about.
    pub selector: LabelSelector,
    /// Namespaces those pods may be in.
    pub namespaces: NamespaceScope,
    /// `topologyKey`.
    pub topology_key: String,
    /// Weight for preferred terms (required terms: 0).
    pub weight: i32,
}

/// One pod, ready for filtering and scoring.
#[derive(Debug, Clone, Default)]
pub struct PodReq {
    /// Namespace.
    pub namespace: String,
    /// Name (shared: traces and victims copy it by reference count).
    pub name: Arc<str>,
    /// Labels.
    pub labels: PodLabels,
    /// Effective requests (sparse, interned).
    pub requests: crate::sched::resources::PodRequests,
    /// CPU for scoring (non-zero default applied).
    pub score_cpu: i64,
    /// Memory for scoring (non-zero default applied).
    pub score_memory: i64,
    /// Tolerations.
    pub tolerations: Vec<Tol>,
    /// `spec.nodeSelector`.
    pub node_selector: Vec<(String, String)>,
    /// Required node affinity terms (ORed); `None` when unset.
    pub required_terms: Option<Vec<NodeTerm>>,
    /// Preferred node affinity terms with weights.
    pub preferred_terms: Vec<(i32, NodeTerm)>,
    /// Host ports: (protocol, port, hostIP).
    pub host_ports: Vec<(String, i32, String)>,
    /// `spec.nodeName`.
    pub node_name: Option<String>,
    /// `spec.priority` (0 when unset).
    pub priority: i32,
    /// `spec.preemptionPolicy` is `Never`.
    pub preempt_never: bool,
    /// `spec.schedulerName` (default `default-scheduler`).
    pub scheduler_name: String,
    /// `spec.schedulingGroup.podGroupName`.
    pub group: Option<String>,
    /// Has `spec.schedulingGates`.
    pub gated: bool,
    /// Has `spec.resourceClaims`.
    pub has_claims: bool,
    /// Topology spread constraints.
    pub spread: Vec<SpreadConstraint>,
    /// Required pod affinity terms.
    pub affinity: Vec<AffinityTerm>,
    /// Required pod anti-affinity terms.
    pub anti_affinity: Vec<AffinityTerm>,
    /// Preferred pod affinity terms.
    pub preferred_affinity: Vec<AffinityTerm>,
    /// Preferred pod anti-affinity terms.
    pub preferred_anti_affinity: Vec<AffinityTerm>,
    /// Creation time (seconds since the epoch), for queue order.
    pub created: i64,
    /// Start time (seconds), for preemption victim order.
    pub started: Option<i64>,
    /// Being deleted.
    pub terminating: bool,
    /// `status.nominatedNodeName` (empty = none): where an earlier preemption nominated it.
    pub nominated_node: Option<String>,
    /// Being deleted by a scheduler preemption (upstream `PodTerminatingByPreemption`): a
    /// deletion timestamp, and the first `DisruptionTarget` condition is `True` with reason
    /// `PreemptionByScheduler`.
    pub terminating_by_preemption: bool,
    /// The pod's controller when it is a ReplicationController, ReplicaSet or StatefulSet
    /// (the owners `helper.DefaultSelector` reads).
    pub controller: Option<SpreadOwner>,
    /// The profile that schedules the pod (index into the state's
    /// [`Profiles`](crate::sched::profile::Profiles)).
    pub profile: crate::sched::profile::ProfileId,
    /// `spread` holds PodTopologySpread's system defaults (the pod has no constraints of its
    /// own): nodes without a constraint's key are still scored.
    pub spread_system_default: bool,
}

/// A controller whose selector PodTopologySpread's default selector merges
/// (`helper.DefaultSelector`: `v1` ReplicationController, `apps/v1` ReplicaSet and
/// StatefulSet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpreadOwnerKind {
    /// `v1` ReplicationController.
    ReplicationController,
    /// `apps/v1` ReplicaSet.
    ReplicaSet,
    /// `apps/v1` StatefulSet.
    StatefulSet,
}

/// The pod's controller reference, when of a [`SpreadOwnerKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpreadOwner {
    /// Kind.
    pub kind: SpreadOwnerKind,
    /// Name (in the pod's namespace).
    pub name: String,
}

/// `metav1.GetControllerOfNoCopy` narrowed to the kinds `helper.DefaultSelector` reads.
fn spread_owner(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> Option<SpreadOwner> {
    let owner = meta
        .owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true))?;
    let kind = match (owner.api_version.as_str(), owner.kind.as_str()) {
        ("v1", "ReplicationController") => SpreadOwnerKind::ReplicationController,
        ("apps/v1", "ReplicaSet") => SpreadOwnerKind::ReplicaSet,
        ("apps/v1", "StatefulSet") => SpreadOwnerKind::StatefulSet,
        _ => return None,
    };
    Some(SpreadOwner {
        kind,
        name: owner.name.clone(),
    })
}

impl PodReq {
    /// Whether the Filter plugins would give `other` exactly the answers they give `self` on
    /// the same cluster state: every field a filter or PreFilter reads is equal. Labels count
    /// only when `labels_matter` (some term or constraint could select the pod: its own spread
    /// constraints and affinity terms, or existing pods' required anti-affinity). Pods with
    /// claims never compare equal (each has its own claims).
    ///
    /// Written as an exhaustive destructuring so that a new field fails to compile here until
    /// someone decides whether filters read it.
    pub(crate) fn same_filter_inputs(&self, other: &Self, labels_matter: bool) -> bool {
        !self.has_claims && !other.has_claims && self.same_inputs_but_claims(other, labels_matter)
    }

    /// [`same_filter_inputs`](Self::same_filter_inputs) without looking at claims: the
    /// DynamicResources filter's inputs (the pods' claims) are the caller's to compare.
    pub(crate) fn same_inputs_but_claims(&self, other: &Self, labels_matter: bool) -> bool {
        let Self {
            namespace,
            name: _,
            labels,
            requests,
            score_cpu: _,
            score_memory: _,
            tolerations,
            node_selector,
            required_terms,
            preferred_terms: _,
            host_ports,
            node_name,
            priority,
            preempt_never: _,
            scheduler_name,
            group: _,
            gated: _,
            has_claims,
            spread,
            affinity,
            anti_affinity,
            preferred_affinity: _,
            preferred_anti_affinity: _,
            created: _,
            started: _,
            terminating: _,
            nominated_node,
            terminating_by_preemption: _,
            controller: _,
            profile,
            spread_system_default,
        } = self;
        *has_claims == other.has_claims
            && *namespace == other.namespace
            && *requests == other.requests
            && *tolerations == other.tolerations
            && *node_selector == other.node_selector
            && *required_terms == other.required_terms
            && *host_ports == other.host_ports
            && *node_name == other.node_name
            && *priority == other.priority
            && *scheduler_name == other.scheduler_name
            && *spread == other.spread
            && *spread_system_default == other.spread_system_default
            && *profile == other.profile
            && *affinity == other.affinity
            && *anti_affinity == other.anti_affinity
            && *nominated_node == other.nominated_node
            && (!labels_matter || *labels == other.labels)
    }

    /// Whether this pod's labels can change a filter's answer for it: its own spread
    /// constraints and required (anti-)affinity terms select pods by label and count the pod
    /// itself.
    pub(crate) fn labels_matter_to_own_filters(&self) -> bool {
        !self.spread.is_empty() || !self.affinity.is_empty() || !self.anti_affinity.is_empty()
    }
}

fn requests_of(c: &Container, table: &mut ResourceTable) -> Requests {
    let mut out = Requests::new();
    let requests = c.resources.as_ref().and_then(|r| r.requests.as_ref());
    // Names are map keys, so ids are unique except the one shared by names past the table's
    // capacity: checked alone, not with a scan of `out` per name (quadratic in a pod's names).
    let mut overflowed = false;
    let mut add = |name: &str, q: &Quantity| {
        if let Some(v) = ResourceTable::parse(name, &q.0) {
            let id = table.intern(name);
            if id == OVERFLOW {
                if overflowed {
                    return;
                }
                overflowed = true;
            }
            out.push((id, v));
        }
    };
    for (name, q) in requests.into_iter().flatten() {
        add(name, q);
    }
    out
}

/// Upstream reason of the `DisruptionTarget` condition the scheduler sets on its victims.
pub(crate) const REASON_PREEMPTION_BY_SCHEDULER: &str = "PreemptionByScheduler";

/// Upstream `PodTerminatingByPreemption` (`framework/preemption/util.go`): the pod has a
/// deletion timestamp and its **first** `DisruptionTarget` condition is `True` with reason
/// `PreemptionByScheduler`.
fn terminating_by_preemption(pod: &Pod) -> bool {
    if pod.metadata.deletion_timestamp.is_none() {
        return false;
    }
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "DisruptionTarget"))
        .is_some_and(|c| {
            c.status == "True" && c.reason.as_deref() == Some(REASON_PREEMPTION_BY_SCHEDULER)
        })
}

fn sparse_get(r: &[(crate::sched::resources::ResourceId, i64)], id: u16) -> i64 {
    r.iter().find(|(i, _)| *i == id).map_or(0, |(_, v)| *v)
}

fn affinity_term(
    t: &PodAffinityTerm,
    own_ns: &str,
    own_labels: &PodLabels,
    weight: i32,
) -> AffinityTerm {
    let mut selector = t
        .label_selector
        .as_ref()
        .map(LabelSelector::compile)
        .unwrap_or_else(|| {
            // A nil labelSelector matches no pods.
            LabelSelector {
                requirements: vec![super::selector::Requirement {
                    key: String::new(),
                    op: super::selector::Op::Never,
                }],
            }
        });
    for key in t.match_label_keys.iter().flatten() {
        if let Some(v) = own_labels.get(key) {
            selector = selector.with_equal(key, v);
        }
    }
    for key in t.mismatch_label_keys.iter().flatten() {
        if let Some(v) = own_labels.get(key) {
            selector.requirements.push(super::selector::Requirement {
                key: key.clone(),
                op: super::selector::Op::NotIn(vec![v.to_owned()]),
            });
        }
    }
    let names = t.namespaces.clone().unwrap_or_default();
    let ns_selector = t.namespace_selector.as_ref().map(LabelSelector::compile);
    let names = if names.is_empty() && ns_selector.is_none() {
        vec![own_ns.to_owned()]
    } else {
        names
    };
    AffinityTerm {
        selector,
        namespaces: NamespaceScope {
            names,
            selector: ns_selector,
        },
        topology_key: t.topology_key.clone(),
        weight,
    }
}

/// The pod's effective requests (as component-helpers' `PodRequests` computes them): the
/// containers' sum, raised to the init containers' peak (a restartable init container, a
/// sidecar, adds to every later peak and to the sum), pod-level cpu and memory replacing the
/// containers', plus the overhead; zero amounts dropped, sorted by resource id.
pub(crate) fn pod_requests(spec: &PodSpec, table: &mut ResourceTable) -> Requests {
    let mut steady = Requests::new();
    for c in &spec.containers {
        add_into(&mut steady, &requests_of(c, table));
    }
    let mut sidecars = Requests::new();
    let mut init_peak = Requests::new();
    for c in spec.init_containers.iter().flatten() {
        let own = requests_of(c, table);
        let peak = if c.restart_policy.as_deref() == Some("Always") {
            add_into(&mut steady, &own);
            add_into(&mut sidecars, &own);
            sidecars.clone()
        } else {
            let mut tmp = own;
            add_into(&mut tmp, &sidecars);
            tmp
        };
        max_into(&mut init_peak, &peak);
    }
    max_into(&mut steady, &init_peak);
    if let Some(pod_level) = spec.resources.as_ref().and_then(|r| r.requests.as_ref()) {
        for name in ["cpu", "memory"] {
            if let Some(v) = pod_level
                .get(name)
                .and_then(|q| ResourceTable::parse(name, &q.0))
            {
                let id = table.intern(name);
                steady.retain(|(i, _)| *i != id);
                steady.push((id, v));
            }
        }
    }
    for (name, q) in spec.overhead.iter().flatten() {
        if let Some(v) = ResourceTable::parse(name, &q.0) {
            add_into(&mut steady, &[(table.intern(name), v)]);
        }
    }
    steady.retain(|(_, v)| *v != 0);
    steady.sort_unstable();
    steady.retain(|(_, v)| *v != 0);
    steady.sort_unstable();
    steady
}

impl PodReq {
    /// Compiles a pod, interning its resource names into `table`.
    pub(crate) fn compile(pod: &Pod, table: &mut ResourceTable) -> Self {
        let meta = &pod.metadata;
        let mut p = Self {
            namespace: namespace_of(meta).to_owned(),
            name: name_of(meta).into(),
            labels: meta
                .labels
                .as_ref()
                .map(PodLabels::from_map)
                .unwrap_or_default(),
            scheduler_name: "default-scheduler".to_owned(),
            created: meta
                .creation_timestamp
                .as_ref()
                .map_or(0, |t| t.0.as_second()),
            terminating: meta.deletion_timestamp.is_some(),
            started: pod
                .status
                .as_ref()
                .and_then(|s| s.start_time.as_ref())
                .map(|t| t.0.as_second())
                // Go's zero time (a start never set) is no start: it would count ~2,000
                // years of GPU-hours (`crate::snapshot::times`).
                .filter(|s| crate::snapshot::times::is_plausible(*s)),
            nominated_node: pod
                .status
                .as_ref()
                .and_then(|s| s.nominated_node_name.as_ref())
                .filter(|n| !n.is_empty())
                .cloned(),
            terminating_by_preemption: terminating_by_preemption(pod),
            controller: spread_owner(meta),
            ..Self::default()
        };
        let Some(spec) = pod.spec.as_ref() else {
            return p;
        };
        let steady = pod_requests(spec, table);
        let cpu = sparse_get(&steady, CPU);
        let mem = sparse_get(&steady, MEMORY);
        p.score_cpu = if cpu == 0 { DEFAULT_MILLI_CPU } else { cpu };
        p.score_memory = if mem == 0 { DEFAULT_MEMORY } else { mem };
        p.requests = steady.into();

        p.tolerations = spec
            .tolerations
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(Tol::compile)
            .collect();
        p.node_selector = spec
            .node_selector
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        p.compile_node_affinity(spec);
        p.compile_pod_affinity(spec);
        p.compile_host_ports(spec);
        p.compile_spread(spec);
        p.node_name = spec.node_name.clone();
        p.priority = spec.priority.unwrap_or(0);
        p.preempt_never = spec.preemption_policy.as_deref() == Some("Never");
        if let Some(s) = spec.scheduler_name.as_ref().filter(|s| !s.is_empty()) {
            p.scheduler_name = s.clone();
        }
        p.group = spec
            .scheduling_group
            .as_ref()
            .and_then(|g| g.pod_group_name.clone());
        p.gated = spec
            .scheduling_gates
            .as_ref()
            .is_some_and(|g| !g.is_empty());
        p.has_claims = spec.resource_claims.as_ref().is_some_and(|c| !c.is_empty());
        p
    }

    /// Node affinity: the required terms (left `None` when the pod has no required field)
    /// and the weighted preferred terms.
    fn compile_node_affinity(&mut self, spec: &PodSpec) {
        if let Some(na) = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
        {
            self.required_terms = na
                .required_during_scheduling_ignored_during_execution
                .as_ref()
                .map(|r| {
                    r.node_selector_terms
                        .iter()
                        .map(NodeTerm::compile)
                        .collect()
                });
            self.preferred_terms = na
                .preferred_during_scheduling_ignored_during_execution
                .iter()
                .flatten()
                .map(|t| (t.weight, NodeTerm::compile(&t.preference)))
                .collect();
        }
    }

    /// Pod affinity and anti-affinity terms, required and preferred, each resolved against the
    /// pod's own namespace and labels.
    fn compile_pod_affinity(&mut self, spec: &PodSpec) {
        if let Some(pa) = spec.affinity.as_ref().and_then(|a| a.pod_affinity.as_ref()) {
            self.affinity = pa
                .required_during_scheduling_ignored_during_execution
                .iter()
                .flatten()
                .map(|t| affinity_term(t, &self.namespace, &self.labels, 0))
                .collect();
            self.preferred_affinity = pa
                .preferred_during_scheduling_ignored_during_execution
                .iter()
                .flatten()
                .map(|w| {
                    affinity_term(
                        &w.pod_affinity_term,
                        &self.namespace,
                        &self.labels,
                        w.weight,
                    )
                })
                .collect();
        }
        if let Some(pa) = spec
            .affinity
            .as_ref()
            .and_then(|a| a.pod_anti_affinity.as_ref())
        {
            self.anti_affinity = pa
                .required_during_scheduling_ignored_during_execution
                .iter()
                .flatten()
                .map(|t| affinity_term(t, &self.namespace, &self.labels, 0))
                .collect();
            self.preferred_anti_affinity = pa
                .preferred_during_scheduling_ignored_during_execution
                .iter()
                .flatten()
                .map(|w| {
                    affinity_term(
                        &w.pod_affinity_term,
                        &self.namespace,
                        &self.labels,
                        w.weight,
                    )
                })
                .collect();
        }
    }

    /// The host ports of the containers and init containers as (protocol, port, host IP),
    /// with upstream's defaults (TCP, 0.0.0.0); a port without a positive `hostPort` is none.
    fn compile_host_ports(&mut self, spec: &PodSpec) {
        for c in spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
        {
            for port in c.ports.iter().flatten() {
                if let Some(hp) = port.host_port.filter(|p| *p > 0) {
                    self.host_ports.push((
                        port.protocol.clone().unwrap_or_else(|| "TCP".to_owned()),
                        hp,
                        port.host_ip
                            .clone()
                            .filter(|ip| !ip.is_empty())
                            .unwrap_or_else(|| "0.0.0.0".to_owned()),
                    ));
                }
            }
        }
    }

    /// Topology spread constraints, with `matchLabelKeys` folded into each selector from the
    /// pod's own labels.
    fn compile_spread(&mut self, spec: &PodSpec) {
        for c in spec.topology_spread_constraints.iter().flatten() {
            let mut selector = c
                .label_selector
                .as_ref()
                .map(LabelSelector::compile)
                .unwrap_or_default();
            for key in c.match_label_keys.iter().flatten() {
                if let Some(v) = self.labels.get(key) {
                    selector = selector.with_equal(key, v);
                }
            }
            self.spread.push(SpreadConstraint {
                max_skew: c.max_skew,
                topology_key: c.topology_key.clone(),
                hard: c.when_unsatisfiable == "DoNotSchedule",
                selector,
                min_domains: c.min_domains,
                honor_node_affinity: c.node_affinity_policy.as_deref() != Some("Ignore"),
                honor_node_taints: c.node_taints_policy.as_deref() == Some("Honor"),
            });
        }
    }

    /// Whether the pod has any pod affinity or anti-affinity term (required or preferred).
    pub(crate) fn has_affinity_terms(&self) -> bool {
        !self.affinity.is_empty()
            || !self.anti_affinity.is_empty()
            || !self.preferred_affinity.is_empty()
            || !self.preferred_anti_affinity.is_empty()
    }

    /// The request for resource `id` (0 when not requested).
    pub(crate) fn request(&self, id: u16) -> i64 {
        sparse_get(&self.requests, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::resources::PODS;
    use serde_json::json;

    #[test]
    fn filter_inputs_ignore_names_and_compare_labels_only_when_they_matter() {
        let a = PodReq {
            name: "a".into(),
            labels: PodLabels::from_pairs([("index", "0")]),
            requests: vec![(CPU, 1000)].into(),
            ..PodReq::default()
        };
        let b = PodReq {
            name: "b".into(),
            labels: PodLabels::from_pairs([("index", "1")]),
            ..a.clone()
        };
        assert!(a.same_filter_inputs(&b, false));
        assert!(!a.same_filter_inputs(&b, true), "labels differ");
        let bigger = PodReq {
            requests: vec![(CPU, 2000)].into(),
            ..a.clone()
        };
        assert!(!a.same_filter_inputs(&bigger, false));
        let with_claims = PodReq {
            has_claims: true,
            ..a.clone()
        };
        assert!(
            !with_claims.same_filter_inputs(&with_claims, false),
            "own claims"
        );
        assert!(!a.labels_matter_to_own_filters());
    }

    fn pod(spec: serde_json::Value) -> Pod {
        serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ml"}, "spec": spec}))
        .unwrap()
    }

    #[test]
    fn init_containers_and_sidecars_follow_upstream() {
        // Upstream example: sidecar 1 cpu runs alongside; init peak = 2 + 1 = 3 > steady 1 + 1.
        let p = pod(json!({
            "initContainers": [
                {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
                {"name": "init", "resources": {"requests": {"cpu": "2"}}}
            ],
            "containers": [{"name": "main", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
            "overhead": {"cpu": "100m"}
        }));
        let mut t = ResourceTable::default();
        let r = PodReq::compile(&p, &mut t);
        assert_eq!(r.request(CPU), 3100);
        assert_eq!(r.request(MEMORY), 1 << 30);
        assert_eq!(r.request(PODS), 0);
    }

    fn pod_with(metadata: serde_json::Value, status: serde_json::Value) -> PodReq {
        let p: Pod = serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": metadata, "spec": {"containers": [{"name": "main"}]}, "status": status}))
        .unwrap();
        PodReq::compile(&p, &mut ResourceTable::default())
    }

    #[test]
    fn nominated_node_is_read_and_empty_means_none() {
        let meta = json!({"name": "p", "namespace": "ml"});
        let p = pod_with(meta.clone(), json!({"nominatedNodeName": "n1"}));
        assert_eq!(p.nominated_node.as_deref(), Some("n1"));
        assert_eq!(
            pod_with(meta.clone(), json!({"nominatedNodeName": ""})).nominated_node,
            None
        );
        assert_eq!(pod_with(meta, json!({})).nominated_node, None);
    }

    #[test]
    fn terminating_by_preemption_follows_upstream() {
        let deleting = json!({"name": "p", "namespace": "ml",
            "deletionTimestamp": "2026-11-20T12:00:00Z"});
        let cond = |status: &str, reason: &str| json!({"type": "DisruptionTarget", "status": status, "reason": reason});
        let ready = json!({"type": "Ready", "status": "True"});
        // Deletion timestamp and the condition: terminating by preemption.
        let yes = pod_with(
            deleting.clone(),
            json!({"conditions": [ready.clone(), cond("True", "PreemptionByScheduler")]}),
        );
        assert!(yes.terminating && yes.terminating_by_preemption);
        // No deletion timestamp: not terminating at all.
        let no_deletion = pod_with(
            json!({"name": "p", "namespace": "ml"}),
            json!({"conditions": [cond("True", "PreemptionByScheduler")]}),
        );
        assert!(!no_deletion.terminating_by_preemption);
        // Other reason, status False, or no condition: deleted for another cause.
        for status in [
            json!({"conditions": [cond("True", "EvictionByEvictionAPI")]}),
            json!({"conditions": [cond("False", "PreemptionByScheduler")]}),
            json!({"conditions": [ready]}),
            json!({}),
        ] {
            let p = pod_with(deleting.clone(), status);
            assert!(p.terminating && !p.terminating_by_preemption);
        }
        // Only the first DisruptionTarget condition counts.
        let first = pod_with(
            deleting,
            json!({"conditions": [cond("True", "DeletionByTaintManager"),
                cond("True", "PreemptionByScheduler")]}),
        );
        assert!(!first.terminating_by_preemption);
    }

    #[test]
    fn limits_default_requests_and_pod_level_resources_win() {
        let p = pod(json!({
            "containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": "2", "cpu": "4"}}}],
            "resources": {"requests": {"cpu": "6"}}
        }));
        let mut t = ResourceTable::default();
        let r = PodReq::compile(&p, &mut t);
        assert_eq!(r.request(t.get("nvidia.com/gpu").unwrap()), 2);
        assert_eq!(r.request(CPU), 6000);
        assert_eq!(
            r.score_memory, DEFAULT_MEMORY,
            "non-zero default for scoring"
        );
    }
}
