//! Cluster facts that are not objects: versions, feature gates per component, served API
//! versions, and the instant the snapshot was taken.
//!
//! Facts come from the live cluster (`/version`, kube-apiserver `/metrics`, API discovery,
//! control-plane static pods, node status) or, in files, from a `wasctl.dev/v1alpha1`
//! `ClusterFacts` document. [`ClusterFacts::gates_for`] resolves the gates one component runs
//! with and records every assumption it had to make, so reports can say so. Pure: no IO.

use std::collections::BTreeMap;

use crate::snapshot::Pod;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde::{Deserialize, Serialize};

/// The `apiVersion` of wasctl's own documents.
pub(crate) const WASCTL_API_VERSION: &str = "wasctl.dev/v1alpha1";

/// The version of the file `wasctl snapshot` writes: 2 puts the `ClusterFacts` document last,
/// with the number of objects before it (`objectCount`), so a truncated file is detected.
/// Files without `formatVersion` (version 1, or written by hand) are read as they are.
pub(crate) const SNAPSHOT_FORMAT_VERSION: u32 = 2;

/// The first line of a YAML file `wasctl snapshot` writes: a file that starts with it and has
/// no `ClusterFacts` document was cut short.
pub(crate) const SNAPSHOT_HEADER: &str = "# kubectl wasctl snapshot (formatVersion 2): the ClusterFacts document, last, counts the objects\n";

/// The Kubernetes minor version wasctl models.
pub(crate) const SUPPORTED_KUBERNETES: &str = "1.37";

/// A component whose version and feature gates matter to workload-aware scheduling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Component {
    /// kube-apiserver: API fields, validation, dropping of disabled fields.
    KubeApiserver,
    /// kube-scheduler: gang cycle, preemption, DRA allocation.
    KubeScheduler,
    /// kube-controller-manager: Job integration, resourceclaim controller.
    KubeControllerManager,
    /// kubelet, per node.
    Kubelet,
}

impl Component {
    /// The name as Kubernetes spells it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::KubeApiserver => "kube-apiserver",
            Self::KubeScheduler => "kube-scheduler",
            Self::KubeControllerManager => "kube-controller-manager",
            Self::Kubelet => "kubelet",
        }
    }

    /// Parses a component name (as in the `component` label of kubeadm static pods).
    pub(crate) fn parse(s: &str) -> Option<Self> {
        match s {
            "kube-apiserver" => Some(Self::KubeApiserver),
            "kube-scheduler" => Some(Self::KubeScheduler),
            "kube-controller-manager" => Some(Self::KubeControllerManager),
            "kubelet" => Some(Self::Kubelet),
            _ => None,
        }
    }
}

/// What is known of one component instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentFacts {
    /// Which component.
    pub component: Component,
    /// For kubelets (and per-node control-plane pods): the node name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Version, e.g. `v1.37.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Feature gates explicitly known for this component.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub feature_gates: BTreeMap<String, bool>,
    /// Where these facts came from: `file`, `metrics`, `static-pod`, `node-status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// Facts about the cluster beside its objects (the `ClusterFacts` document in files).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterFacts {
    /// When the snapshot was taken; ages in reports are relative to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_time: Option<Time>,
    /// `gitVersion` of `/version`, e.g. `v1.37.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// API group → served versions (from discovery), for the groups wasctl cares about.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub served_versions: BTreeMap<String, Vec<String>>,
    /// Component instances.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<ComponentFacts>,
    /// Kind (e.g. `PodGroup`) → how completely it was read. A kind not listed here was read
    /// completely (live) or, for files, is judged by [`crate::snapshot::Snapshot::coverage`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub coverage: BTreeMap<String, KindCoverage>,
    /// The snapshot file format ([`SNAPSHOT_FORMAT_VERSION`]) of the file this document
    /// closes; absent in documents written by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_version: Option<u32>,
    /// How many objects the file holds besides this document: the loader compares it with
    /// what it read, to detect a truncated file. Never kept in a loaded snapshot (the loader
    /// takes it out of each document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_count: Option<u64>,
    /// kube-apiserver gates the objects prove on (gate → evidence), computed when the
    /// snapshot is built (see [`crate::snapshot::evidence`]); never read from a document.
    #[serde(skip)]
    pub inferred_gates: BTreeMap<String, String>,
    /// What the loader had to assume about the cluster (e.g. the clock), for every report's
    /// `assumed` list; never read from a document.
    #[serde(skip)]
    pub assumed: Vec<String>,
    /// True for input from files without a `ClusterFacts` document (a `kubectl get` dump): a
    /// kind with no object in them and no `coverage` entry was not in the input
    /// ([`KindCoverage::NotInInput`]), rather than read and empty.
    #[serde(skip)]
    pub from_files: bool,
}

/// How completely one kind was read. Analyses never conclude that an object does not exist
/// unless its kind is [`KindCoverage::Complete`] (or covers the object's namespace).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "read")]
pub enum KindCoverage {
    /// Every object of the kind was read: one that is not in the snapshot does not exist.
    Complete,
    /// Only one namespace could be read (a cluster-wide list was forbidden).
    #[serde(rename_all = "camelCase")]
    Namespace {
        /// The namespace that was read.
        namespace: String,
    },
    /// The input files hold no object of this kind: nothing is known about such objects.
    NotInInput,
    /// The kind could not be read (forbidden, failed, malformed response): nothing is known.
    #[serde(rename_all = "camelCase")]
    Unreadable {
        /// Why, in a few words (`forbidden`, `HTTP 500`, …).
        reason: String,
    },
}

impl KindCoverage {
    /// True when objects of this kind in `namespace` (`None`: cluster-scoped or all) were all
    /// read, so a missing one is really missing.
    pub(crate) fn covers(&self, namespace: Option<&str>) -> bool {
        match self {
            Self::Complete => true,
            Self::Namespace { namespace: read } => namespace == Some(read.as_str()),
            Self::NotInInput | Self::Unreadable { .. } => false,
        }
    }

    /// A short phrase for reports: `not in the input`, `unreadable (forbidden)`, ….
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Complete => "read".to_owned(),
            Self::Namespace { namespace } => format!("read in namespace `{namespace}` only"),
            Self::NotInInput => "not in the input".to_owned(),
            Self::Unreadable { reason } => format!("unreadable ({reason})"),
        }
    }
}

/// A feature gate wasctl knows, with its 1.37 stage and default (semantics §9).
#[derive(Debug, Clone, Copy)]
pub(crate) struct GateInfo {
    /// Gate name.
    pub name: &'static str,
    /// Stage in 1.37: `Alpha`, `Beta`, `GA`, or `Removed`.
    pub stage: &'static str,
    /// Upstream default in 1.37.
    pub default: bool,
    /// Assumed on when a snapshot carries no facts (the WAS gates).
    pub assumed_without_facts: bool,
    /// Components the gate affects.
    pub components: &'static [Component],
}

use Component::{KubeApiserver as A, KubeControllerManager as C, KubeScheduler as S, Kubelet as K};

/// The 1.37 gate table, as data, so a patch release changes one table and not the logic.
pub(crate) const GATES: &[GateInfo] = &[
    gate("GenericWorkload", "Beta", false, true, &[A, S, C]),
    gate("CompositePodGroup", "Alpha", false, true, &[A, S, C]),
    gate(
        "TopologyAwareWorkloadScheduling",
        "Alpha",
        false,
        true,
        &[A, S],
    ),
    gate("WorkloadWithJob", "Alpha", false, false, &[A, C]),
    gate("PodGroupPreemptionPolicy", "Alpha", false, true, &[A, S]),
    gate(
        "DRAWorkloadResourceClaims",
        "Alpha",
        false,
        true,
        &[A, S, C, K],
    ),
    gate("GangScheduling", "Removed", false, false, &[]),
    gate("WorkloadAwarePreemption", "Removed", false, false, &[]),
    gate("DynamicResourceAllocation", "GA", true, true, &[A, S, C, K]),
    gate("DRAAdminAccess", "GA", true, true, &[A, S]),
    gate("DRAPrioritizedList", "GA", true, true, &[A, S]),
    gate("DRAConsumableCapacity", "Beta", true, true, &[A, S]),
    gate("DRAPartitionableDevices", "Beta", true, true, &[A, S]),
    gate("DRADeviceBindingConditions", "Beta", true, true, &[A, S]),
    gate("DRADeviceTaints", "GA", true, true, &[A, S]),
    gate("DRADeviceTaintRules", "GA", true, true, &[A, S, C]),
    gate("DRAExtendedResource", "GA", true, true, &[A, S]),
    gate("DRAResourceClaimDeviceStatus", "GA", true, true, &[A]),
    gate("DRAFractionalCapacityRange", "Beta", true, true, &[A, S]),
    gate("DRAListTypeAttributes", "Alpha", false, false, &[A, S]),
    // KEP-5517: kube-apiserver keeps the fields, kube-scheduler charges the devices' cpu and
    // memory to their pods, the kubelet sizes cgroups from the pods' recorded statuses.
    gate(
        "DRANodeAllocatableResources",
        "Alpha",
        false,
        false,
        &[A, S, K],
    ),
    gate("DRASchedulerFilterTimeout", "Beta", true, true, &[S]),
    // KEP-5690, new in 1.37: a victim's claims are released in the preemption dry run.
    gate("DRAPreemption", "Alpha", false, false, &[S]),
    gate("SchedulerAsyncPreemption", "Beta", true, true, &[S]),
    gate("NodeDeclaredFeatures", "GA", true, true, &[S, K]),
    gate(
        "InPlacePodVerticalScalingSchedulerPreemption",
        "Alpha",
        false,
        false,
        &[S],
    ),
    gate(
        "TaintTolerationComparisonOperators",
        "Alpha",
        false,
        false,
        &[A, S],
    ),
];

const fn gate(
    name: &'static str,
    stage: &'static str,
    default: bool,
    assumed_without_facts: bool,
    components: &'static [Component],
) -> GateInfo {
    GateInfo {
        name,
        stage,
        default,
        assumed_without_facts,
        components,
    }
}

/// The WAS gates a fact-less snapshot assumes on, in the order reports list them.
pub(crate) const ASSUMED_WAS_GATES: &[&str] = &[
    "GenericWorkload",
    "CompositePodGroup",
    "TopologyAwareWorkloadScheduling",
    "DRAWorkloadResourceClaims",
    "PodGroupPreemptionPolicy",
];

/// Looks a gate up in [`GATES`].
pub(crate) fn gate_info(name: &str) -> Option<&'static GateInfo> {
    GATES.iter().find(|g| g.name == name)
}

/// The gates one component runs with, resolved, and what had to be assumed to get there.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeatureGates {
    /// Every known gate → on/off.
    pub values: BTreeMap<String, bool>,
    /// Sentences naming each assumption (empty when everything was known).
    pub assumed: Vec<String>,
}

impl FeatureGates {
    /// Whether `name` is on. Unknown gates are off.
    pub(crate) fn enabled(&self, name: &str) -> bool {
        self.values.get(name).copied().unwrap_or(false)
    }
}

/// Parses `--feature-gates A=true,B=false`.
pub(crate) fn parse_feature_gates(spec: &str) -> Result<BTreeMap<String, bool>, String> {
    let mut out = BTreeMap::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or_else(|| format!("`{part}` is not of the form `Name=true|false`"))?;
        let value = match value.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            other => return Err(format!("`{other}` is not `true` or `false` in `{part}`")),
        };
        out.insert(name.trim().to_owned(), value);
    }
    Ok(out)
}

/// Parses kube-apiserver `/metrics` text for `kubernetes_feature_enabled{name="X",…} 1|0`.
pub(crate) fn parse_feature_metrics(text: &str) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("kubernetes_feature_enabled{") else {
            continue;
        };
        let Some((labels, value)) = rest.split_once('}') else {
            continue;
        };
        let Some(name) = labels
            .split(',')
            .find_map(|l| l.trim().strip_prefix("name=\""))
        else {
            continue;
        };
        let name = name.trim_end_matches('"');
        let on = value.trim().parse::<f64>().map(|v| v > 0.5);
        if let Ok(on) = on {
            out.insert(name.to_owned(), on);
        }
    }
    out
}

/// Reads `--feature-gates` values from a container command line (both `--f=v` and `--f v`).
pub(crate) fn feature_gates_from_args<'a>(
    args: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    let mut next_is_value = false;
    for arg in args {
        let value = if next_is_value {
            next_is_value = false;
            Some(arg)
        } else if arg == "--feature-gates" {
            next_is_value = true;
            None
        } else {
            arg.strip_prefix("--feature-gates=")
        };
        if let Some(value) = value {
            // A malformed flag would stop the component from starting; keep what parses.
            for part in value.split(',') {
                if let Some((k, v)) = part.split_once('=')
                    && let Ok(v) = v.trim().parse::<bool>()
                {
                    out.insert(k.trim().to_owned(), v);
                }
            }
        }
    }
    out
}

/// `(major, minor)` of a version string like `v1.37.2` or `v1.37.0-gke.100`.
pub(crate) fn parse_minor_version(version: &str) -> Option<(u32, u32)> {
    let v = version.trim().trim_start_matches('v');
    let mut parts = v.split(['.', '-', '+']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.trim_end_matches('+').parse().ok()?;
    Some((major, minor))
}

impl ClusterFacts {
    /// True when nothing at all is known (no document, no live facts).
    pub(crate) fn is_empty(&self) -> bool {
        self.server_version.is_none()
            && self.served_versions.is_empty()
            && self.components.is_empty()
    }

    /// Adds what objects reveal, without overriding facts already present: kubelet versions
    /// from node status, and control-plane versions and `--feature-gates` from kubeadm-style
    /// static pods in `kube-system` (label `component`).
    pub(crate) fn infer_from_objects(&mut self, nodes: &[Node], pods: &[std::sync::Arc<Pod>]) {
        for pod in pods {
            if pod.metadata.namespace.as_deref() != Some("kube-system") {
                continue;
            }
            let labels = pod.metadata.labels.as_ref();
            let Some(component) = labels
                .and_then(|l| l.get("component"))
                .and_then(|c| Component::parse(c))
                .filter(|c| *c != Component::Kubelet)
            else {
                continue;
            };
            let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
            if self
                .components
                .iter()
                .any(|c| c.component == component && (c.node.is_none() || c.node == node))
            {
                continue;
            }
            let Some(container) = pod.spec.as_ref().and_then(|s| s.containers.first()) else {
                continue;
            };
            let args = container
                .command
                .iter()
                .flatten()
                .chain(container.args.iter().flatten());
            let version = container
                .image
                .as_deref()
                .and_then(|i| i.rsplit_once(':'))
                .map(|(_, tag)| tag.to_owned())
                .filter(|t| parse_minor_version(t).is_some());
            self.components.push(ComponentFacts {
                component,
                node,
                version,
                feature_gates: feature_gates_from_args(args.map(String::as_str)),
                source: Some("static-pod".to_owned()),
            });
        }
        for node in nodes {
            let name = node.metadata.name.clone();
            if self
                .components
                .iter()
                .any(|c| c.component == Component::Kubelet && c.node == name)
            {
                continue;
            }
            let version = node
                .status
                .as_ref()
                .and_then(|s| s.node_info.as_ref())
                .map(|i| i.kubelet_version.clone())
                .filter(|v| !v.is_empty());
            if version.is_some() {
                self.components.push(ComponentFacts {
                    component: Component::Kubelet,
                    node: name,
                    version,
                    feature_gates: BTreeMap::new(),
                    source: Some("node-status".to_owned()),
                });
            }
        }
        self.components
            .sort_by(|a, b| (a.component, &a.node).cmp(&(b.component, &b.node)));
    }

    /// Explicit gates of the first instance of `component` that declares any.
    fn explicit_gates(&self, component: Component) -> Option<&BTreeMap<String, bool>> {
        self.components
            .iter()
            .filter(|c| c.component == component)
            .map(|c| &c.feature_gates)
            .find(|g| !g.is_empty())
    }

    /// True when some control-plane component's feature gates are known (from a document,
    /// `/metrics` or a static pod's `--feature-gates`). Kubelet versions from node status say
    /// nothing about gates and do not count.
    pub(crate) fn knows_any_gate(&self) -> bool {
        self.components
            .iter()
            .any(|c| c.component != Component::Kubelet && !c.feature_gates.is_empty())
    }

    /// Resolves the gates `component` runs with.
    ///
    /// Order, per gate: `overrides` (the `--feature-gates` flag) → the component's own known
    /// value → kube-apiserver's known value → kube-apiserver's value inferred from the objects
    /// (an object that exists only with the gate on; see [`crate::snapshot::evidence`]) → when
    /// no control-plane gate is known at all, the WAS gates on → the upstream 1.37 default.
    /// Every step after the component's own value is said in `assumed`.
    pub fn gates_for(
        &self,
        component: Component,
        overrides: &BTreeMap<String, bool>,
    ) -> FeatureGates {
        let own = self.explicit_gates(component);
        let apiserver = self.explicit_gates(Component::KubeApiserver);
        let knows_any = self.knows_any_gate();
        let is_apiserver = component == Component::KubeApiserver;
        let mut out = FeatureGates::default();
        let mut from_apiserver = Vec::new();
        let mut inferred: Vec<(&str, &str)> = Vec::new();
        let mut assumed_on = Vec::new();
        let mut from_default = Vec::new();
        for info in GATES {
            let name = info.name;
            let value = if let Some(v) = overrides.get(name) {
                *v
            } else if let Some(v) = own.and_then(|g| g.get(name)) {
                *v
            } else if let Some(v) = apiserver.and_then(|g| g.get(name)) {
                from_apiserver.push(name);
                *v
            } else if let Some(why) = self.inferred_gates.get(name) {
                inferred.push((name, why));
                true
            } else if !knows_any {
                if info.assumed_without_facts && ASSUMED_WAS_GATES.contains(&name) {
                    assumed_on.push(name);
                }
                info.assumed_without_facts
            } else {
                if info.stage != "Removed" && info.components.contains(&component) {
                    from_default.push(name);
                }
                info.default
            };
            out.values.insert(name.to_owned(), value);
        }
        for (name, value) in overrides {
            out.values.insert(name.clone(), *value);
        }
        let who = component.as_str();
        for (name, why) in &inferred {
            out.assumed.push(if is_apiserver {
                format!("kube-apiserver {name} on: {why}")
            } else {
                format!("{who} {name} on: assumed equal to kube-apiserver's, which is {why}")
            });
        }
        if !assumed_on.is_empty() {
            out.assumed.push(format!(
                "no feature-gate facts: assumed a Kubernetes {SUPPORTED_KUBERNETES} cluster with {} on",
                assumed_on.join(", ")
            ));
        }
        if !from_apiserver.is_empty() && !is_apiserver {
            out.assumed.push(format!(
                "{who} feature gates unknown: assumed equal to kube-apiserver's for {}",
                from_apiserver.join(", ")
            ));
        }
        let was_defaulted: Vec<_> = from_default
            .iter()
            .filter(|g| ASSUMED_WAS_GATES.contains(g))
            .copied()
            .collect();
        if !was_defaulted.is_empty() {
            out.assumed.push(format!(
                "{who} feature gates unknown: assumed the {SUPPORTED_KUBERNETES} defaults (off) for {}",
                was_defaulted.join(", ")
            ));
        }
        out
    }

    /// Where `component`'s value of `gate` comes from, in words: `known`, `set by
    /// --feature-gates`, or the assumption (for the one-line "gangs are scheduled pod by pod"
    /// warning).
    pub(crate) fn gate_source(
        &self,
        component: Component,
        gate: &str,
        overrides: &BTreeMap<String, bool>,
    ) -> String {
        if overrides.contains_key(gate) {
            return "set by --feature-gates".to_owned();
        }
        let known = |c: Component| {
            self.components
                .iter()
                .filter(|f| f.component == c)
                .find(|f| f.feature_gates.contains_key(gate))
                .map(|f| f.source.clone().unwrap_or_else(|| "facts".to_owned()))
        };
        if let Some(src) = known(component) {
            return format!("known from {src}");
        }
        if let Some(src) = known(Component::KubeApiserver) {
            return format!("assumed equal to kube-apiserver's, known from {src}");
        }
        if let Some(why) = self.inferred_gates.get(gate) {
            return format!("assumed equal to kube-apiserver's, {why}");
        }
        if !self.knows_any_gate() {
            return "assumed: no feature-gate facts".to_owned();
        }
        format!("assumed: the {SUPPORTED_KUBERNETES} default")
    }
}

/// Checks `--feature-gates` names against the 1.37 gate table; an unknown name is an error
/// that suggests the closest known one (`genericworkload` → `GenericWorkload`).
pub(crate) fn check_gate_names(gates: &BTreeMap<String, bool>) -> Result<(), String> {
    for name in gates.keys() {
        if gate_info(name).is_some() {
            continue;
        }
        let suggestion = closest_gate(name);
        return Err(match suggestion {
            Some(s) => format!("unknown feature gate `{name}`; did you mean `{s}`?"),
            None => format!("unknown feature gate `{name}`"),
        });
    }
    Ok(())
}

/// The known gate closest to `name`: equal ignoring case, else within a small edit distance.
fn closest_gate(name: &str) -> Option<&'static str> {
    if let Some(g) = GATES.iter().find(|g| g.name.eq_ignore_ascii_case(name)) {
        return Some(g.name);
    }
    let lower = name.to_ascii_lowercase();
    GATES
        .iter()
        .map(|g| (edit_distance(&lower, &g.name.to_ascii_lowercase()), g.name))
        .filter(|(d, g)| *d <= 3.max(g.len() / 5))
        .min()
        .map(|(_, g)| g)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_facts_assumes_was_gates_on_and_says_so() {
        let gates = ClusterFacts::default().gates_for(Component::KubeScheduler, &BTreeMap::new());
        for g in ASSUMED_WAS_GATES {
            assert!(gates.enabled(g), "{g} should be assumed on");
        }
        assert!(!gates.enabled("WorkloadWithJob"));
        assert_eq!(gates.assumed.len(), 1);
        assert!(gates.assumed[0].contains("GenericWorkload, CompositePodGroup"));
        assert!(gates.assumed[0].starts_with("no feature-gate facts"));
    }

    #[test]
    fn overrides_win_over_facts() {
        let mut facts = ClusterFacts::default();
        facts.components.push(ComponentFacts {
            component: Component::KubeScheduler,
            node: None,
            version: None,
            feature_gates: BTreeMap::from([("GenericWorkload".to_owned(), true)]),
            source: None,
        });
        let overrides = parse_feature_gates("GenericWorkload=false").unwrap();
        let gates = facts.gates_for(Component::KubeScheduler, &overrides);
        assert!(!gates.enabled("GenericWorkload"));
    }

    #[test]
    fn scheduler_falls_back_to_apiserver_gates_with_assumption() {
        let mut facts = ClusterFacts::default();
        facts.components.push(ComponentFacts {
            component: Component::KubeApiserver,
            node: None,
            version: Some("v1.37.0".into()),
            feature_gates: BTreeMap::from([("GenericWorkload".to_owned(), true)]),
            source: None,
        });
        let gates = facts.gates_for(Component::KubeScheduler, &BTreeMap::new());
        assert!(gates.enabled("GenericWorkload"));
        assert!(!gates.enabled("CompositePodGroup"));
        assert!(
            gates
                .assumed
                .iter()
                .any(|a| a.contains("assumed equal to kube-apiserver's"))
        );
        assert!(
            gates
                .assumed
                .iter()
                .any(|a| a.contains("defaults (off) for CompositePodGroup"))
        );
    }

    #[test]
    fn kubelet_versions_do_not_turn_the_was_gates_off() {
        // A `kubectl get nodes,pods,podgroups -o yaml` dump: node status names kubelet
        // versions, nothing names a gate. The WAS gates stay assumed on.
        let mut facts = ClusterFacts::default();
        facts.components.push(ComponentFacts {
            component: Component::Kubelet,
            node: Some("n1".into()),
            version: Some("v1.37.0".into()),
            feature_gates: BTreeMap::new(),
            source: Some("node-status".into()),
        });
        let gates = facts.gates_for(Component::KubeScheduler, &BTreeMap::new());
        assert!(gates.enabled("GenericWorkload"));
    }

    #[test]
    fn inferred_apiserver_gates_reach_the_scheduler_and_say_why() {
        let mut facts = ClusterFacts::default();
        facts.components.push(ComponentFacts {
            component: Component::KubeControllerManager,
            node: None,
            version: None,
            feature_gates: BTreeMap::from([("WorkloadWithJob".to_owned(), false)]),
            source: Some("static-pod".into()),
        });
        facts.inferred_gates.insert(
            "GenericWorkload".into(),
            "inferred from 12 PodGroups in scheduling.k8s.io/v1beta1".into(),
        );
        let gates = facts.gates_for(Component::KubeScheduler, &BTreeMap::new());
        assert!(gates.enabled("GenericWorkload"));
        // Some gate is known, so the others fall back to the defaults, and say so.
        assert!(!gates.enabled("CompositePodGroup"));
        assert!(gates.assumed.iter().any(|a| a
            == "kube-scheduler GenericWorkload on: assumed equal to kube-apiserver's, which is inferred from 12 PodGroups in scheduling.k8s.io/v1beta1"));
        // A known value beats the evidence.
        facts.components.push(ComponentFacts {
            component: Component::KubeScheduler,
            node: None,
            version: None,
            feature_gates: BTreeMap::from([("GenericWorkload".to_owned(), false)]),
            source: Some("static-pod".into()),
        });
        let gates = facts.gates_for(Component::KubeScheduler, &BTreeMap::new());
        assert!(!gates.enabled("GenericWorkload"));
        assert_eq!(
            facts.gate_source(
                Component::KubeScheduler,
                "GenericWorkload",
                &BTreeMap::new()
            ),
            "known from static-pod"
        );
    }

    #[test]
    fn unknown_gate_names_are_rejected_with_a_suggestion() {
        let bad = BTreeMap::from([("genericworkload".to_owned(), true)]);
        assert_eq!(
            check_gate_names(&bad).unwrap_err(),
            "unknown feature gate `genericworkload`; did you mean `GenericWorkload`?"
        );
        let typo = BTreeMap::from([("CompositePodGrup".to_owned(), true)]);
        assert!(
            check_gate_names(&typo)
                .unwrap_err()
                .contains("`CompositePodGroup`")
        );
        let nonsense = BTreeMap::from([("Banana".to_owned(), true)]);
        assert_eq!(
            check_gate_names(&nonsense).unwrap_err(),
            "unknown feature gate `Banana`"
        );
        let good = BTreeMap::from([("GenericWorkload".to_owned(), false)]);
        assert!(check_gate_names(&good).is_ok());
    }

    #[test]
    fn feature_gate_flag_parsing() {
        assert_eq!(
            parse_feature_gates("A=true, B=False").unwrap(),
            BTreeMap::from([("A".to_owned(), true), ("B".to_owned(), false)])
        );
        assert!(parse_feature_gates("A").is_err());
        assert!(parse_feature_gates("A=yes").is_err());
        let args = [
            "kube-scheduler",
            "--feature-gates",
            "X=true,Y=false",
            "--v=2",
        ];
        assert_eq!(feature_gates_from_args(args).len(), 2);
        let args = ["--feature-gates=GenericWorkload=false"];
        assert_eq!(
            feature_gates_from_args(args).get("GenericWorkload"),
            Some(&false)
        );
    }

    #[test]
    fn metrics_parsing_reads_gate_lines_only() {
        let text = "# HELP kubernetes_feature_enabled x\n\
            kubernetes_feature_enabled{name=\"GenericWorkload\",stage=\"BETA\"} 1\n\
            kubernetes_feature_enabled{name=\"CompositePodGroup\",stage=\"ALPHA\"} 0\n\
            apiserver_request_total{code=\"200\"} 5\n";
        let gates = parse_feature_metrics(text);
        assert_eq!(gates.len(), 2);
        assert!(gates["GenericWorkload"]);
        assert!(!gates["CompositePodGroup"]);
    }

    #[test]
    fn versions_parse() {
        assert_eq!(parse_minor_version("v1.37.2"), Some((1, 37)));
        assert_eq!(parse_minor_version("v1.36.0-gke.1"), Some((1, 36)));
        assert_eq!(parse_minor_version("latest"), None);
    }
}
