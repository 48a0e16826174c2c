//! The cluster's own scheduler configuration: `kubescheduler.config.k8s.io/v1`
//! `KubeSchedulerConfiguration` as kube-scheduler 1.37's `--config` takes it, its defaulting
//! ([`effective`]) and its validation ([`validate`]). Pure: no IO; the loaders and the CLI read
//! the text and locate an error's line from its field path.
//!
//! k8s-openapi has no types for the scheduler's component configuration (it is not a REST
//! API), so the structs here are written by hand after
//! `staging/src/k8s.io/kube-scheduler/config/v1/{types.go,types_pluginargs.go}`; the plugin
//! args use k8s-openapi's `TopologySpreadConstraint` and `NodeAffinity`.
//!
//! Decoding is strict, as kube-scheduler's is (`pkg/scheduler/apis/config/scheme`: an unknown
//! field is an error, "strict decoding error: unknown field"). Fields kube-scheduler takes but
//! the simulator has no use for (`leaderElection`, `clientConnection`, `parallelism`, the
//! backoffs, profiling, `delayCacheUntilActive`) are accepted and kept. An extender's
//! `tlsConfig` is accepted and dropped at once: its keys and certificates are never held,
//! printed or exported.
//!
//! Sources read (kubernetes/kubernetes, 1.37 line):
//! - `pkg/scheduler/apis/config/v1/defaults.go`: `SetDefaults_KubeSchedulerConfiguration`
//!   (one profile `default-scheduler` when none, parallelism 16, percentageOfNodesToScore 0,
//!   backoffs 1 s / 10 s), `setDefaults_KubeSchedulerProfile` (merge with the default plugins,
//!   default every `pluginConfig` entry, append one for each enabled plugin that has args),
//!   `SetDefaults_*Args` (below, on each args type).
//! - `pkg/scheduler/apis/config/v1/default_plugins.go`: `getDefaultPlugins` (the MultiPoint
//!   list and its weights), `applyFeatureGates` (DynamicResources before DefaultPreemption;
//!   NodeDeclaredFeatures; DeferredPodScheduling before NodeResourcesFit; GangScheduling;
//!   TopologyPlacementGenerator and PodGroupPodsCount), `mergePlugins`/`mergePluginSet`.
//! - `pkg/scheduler/apis/config/testing/defaults/defaults.go`: `ExpandedPluginsV1` (which
//!   extension points each default plugin implements) and `PluginConfigsV1`.
//! - `pkg/scheduler/framework/runtime/framework.go`: `expandMultiPointPlugins` (the order
//!   and weights of the expanded lists).
//! - `pkg/scheduler/apis/config/validation/{validation.go,validation_pluginargs.go}`.
//!
//! The workload-aware plugins (GangScheduling, TopologyPlacementGenerator,
//! PodGroupPodsCount) take no args in 1.37 (no `*Args` type upstream); NodeResourcesFit's
//! placement scoring reuses its `scoringStrategy.resources` weights.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{NodeAffinity, TopologySpreadConstraint};
use serde::{Deserialize, Serialize};

/// The `apiVersion` kube-scheduler 1.37 takes (the `v1beta*` versions are no longer served).
pub(crate) const API_VERSION: &str = "kubescheduler.config.k8s.io/v1";
/// The `kind` of the document.
pub(crate) const KIND: &str = "KubeSchedulerConfiguration";
/// The scheduler name of pods that name none, and of the single unnamed profile.
pub(crate) const DEFAULT_SCHEDULER_NAME: &str = "default-scheduler";
/// `config.MaxCustomPriorityScore`: the top of a `shape` point's score.
pub(crate) const MAX_CUSTOM_PRIORITY_SCORE: i64 = 10;

/// A `KubeSchedulerConfiguration` document, as written (before [`effective`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeSchedulerConfiguration {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `KubeSchedulerConfiguration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Goroutines for filtering and scoring (default 16). Not simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<i32>,
    /// Leader election settings. Not simulated; kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_election: Option<serde_json::Value>,
    /// API client settings (a kubeconfig path, QPS). Not simulated; kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_connection: Option<serde_json::Value>,
    /// Profiling endpoints. Not simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_profiling: Option<bool>,
    /// Contention profiling. Not simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_contention_profiling: Option<bool>,
    /// Share of feasible nodes after which filtering stops and scoring starts, 0–100
    /// (0: kube-scheduler's adaptive percentage). Every profile that sets none uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentage_of_nodes_to_score: Option<i32>,
    /// First retry backoff of an unschedulable pod, seconds (default 1). Not simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_initial_backoff_seconds: Option<i64>,
    /// Largest retry backoff, seconds (default 10). Not simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_max_backoff_seconds: Option<i64>,
    /// The profiles, one per `schedulerName` served.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<KubeSchedulerProfile>,
    /// HTTP extenders. Not simulated: reports warn about each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extenders: Vec<Extender>,
    /// Wait for leadership before filling the cache. Not simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_cache_until_active: Option<bool>,
}

/// One profile: a `schedulerName`, its plugins and their args.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeSchedulerProfile {
    /// The `spec.schedulerName` of the pods this profile schedules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    /// This profile's share of nodes to score (overrides the global one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentage_of_nodes_to_score: Option<i32>,
    /// Plugins enabled and disabled per extension point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<Plugins>,
    /// Args per plugin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plugin_config: Vec<PluginConfig>,
}

/// An extension point of the scheduling framework (a field of [`Plugins`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum ExtensionPoint {
    /// `preEnqueue`.
    PreEnqueue,
    /// `queueSort`.
    QueueSort,
    /// `preFilter`.
    PreFilter,
    /// `filter`.
    Filter,
    /// `postFilter`.
    PostFilter,
    /// `preScore`.
    PreScore,
    /// `score`.
    Score,
    /// `reserve`.
    Reserve,
    /// `permit`.
    Permit,
    /// `preBind`.
    PreBind,
    /// `bind`.
    Bind,
    /// `postBind`.
    PostBind,
    /// `placementGenerate` (TopologyAwareWorkloadScheduling).
    PlacementGenerate,
    /// `placementScore` (TopologyAwareWorkloadScheduling).
    PlacementScore,
    /// `placementFeasible` (GenericWorkload).
    PlacementFeasible,
    /// `podGroupPostFilter` (GenericWorkload).
    PodGroupPostFilter,
}

impl ExtensionPoint {
    /// Every extension point, in the order of the `Plugins` struct upstream.
    pub(crate) const ALL: [Self; 16] = [
        Self::PreEnqueue,
        Self::QueueSort,
        Self::PreFilter,
        Self::Filter,
        Self::PostFilter,
        Self::PreScore,
        Self::Score,
        Self::Reserve,
        Self::Permit,
        Self::PreBind,
        Self::Bind,
        Self::PostBind,
        Self::PlacementGenerate,
        Self::PlacementScore,
        Self::PlacementFeasible,
        Self::PodGroupPostFilter,
    ];

    /// The field name in `plugins`.
    pub(crate) fn field(self) -> &'static str {
        match self {
            Self::PreEnqueue => "preEnqueue",
            Self::QueueSort => "queueSort",
            Self::PreFilter => "preFilter",
            Self::Filter => "filter",
            Self::PostFilter => "postFilter",
            Self::PreScore => "preScore",
            Self::Score => "score",
            Self::Reserve => "reserve",
            Self::Permit => "permit",
            Self::PreBind => "preBind",
            Self::Bind => "bind",
            Self::PostBind => "postBind",
            Self::PlacementGenerate => "placementGenerate",
            Self::PlacementScore => "placementScore",
            Self::PlacementFeasible => "placementFeasible",
            Self::PodGroupPostFilter => "podGroupPostFilter",
        }
    }

    /// True for the points whose plugins carry a weight (score and placement score).
    pub(crate) fn weighted(self) -> bool {
        matches!(self, Self::Score | Self::PlacementScore)
    }
}

/// Plugins per extension point; `multiPoint` enables a plugin at every point it implements.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Plugins {
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub pre_enqueue: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub queue_sort: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub pre_filter: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub filter: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub post_filter: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub pre_score: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub score: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub reserve: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub permit: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub pre_bind: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub bind: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub post_bind: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub placement_generate: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub placement_score: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub placement_feasible: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub pod_group_post_filter: PluginSet,
    #[serde(default, skip_serializing_if = "PluginSet::is_empty")]
    pub multi_point: PluginSet,
}

impl Plugins {
    /// The set of one extension point.
    pub(crate) fn get(&self, point: ExtensionPoint) -> &PluginSet {
        match point {
            ExtensionPoint::PreEnqueue => &self.pre_enqueue,
            ExtensionPoint::QueueSort => &self.queue_sort,
            ExtensionPoint::PreFilter => &self.pre_filter,
            ExtensionPoint::Filter => &self.filter,
            ExtensionPoint::PostFilter => &self.post_filter,
            ExtensionPoint::PreScore => &self.pre_score,
            ExtensionPoint::Score => &self.score,
            ExtensionPoint::Reserve => &self.reserve,
            ExtensionPoint::Permit => &self.permit,
            ExtensionPoint::PreBind => &self.pre_bind,
            ExtensionPoint::Bind => &self.bind,
            ExtensionPoint::PostBind => &self.post_bind,
            ExtensionPoint::PlacementGenerate => &self.placement_generate,
            ExtensionPoint::PlacementScore => &self.placement_score,
            ExtensionPoint::PlacementFeasible => &self.placement_feasible,
            ExtensionPoint::PodGroupPostFilter => &self.pod_group_post_filter,
        }
    }

    /// The set of one extension point, mutable.
    pub(crate) fn get_mut(&mut self, point: ExtensionPoint) -> &mut PluginSet {
        match point {
            ExtensionPoint::PreEnqueue => &mut self.pre_enqueue,
            ExtensionPoint::QueueSort => &mut self.queue_sort,
            ExtensionPoint::PreFilter => &mut self.pre_filter,
            ExtensionPoint::Filter => &mut self.filter,
            ExtensionPoint::PostFilter => &mut self.post_filter,
            ExtensionPoint::PreScore => &mut self.pre_score,
            ExtensionPoint::Score => &mut self.score,
            ExtensionPoint::Reserve => &mut self.reserve,
            ExtensionPoint::Permit => &mut self.permit,
            ExtensionPoint::PreBind => &mut self.pre_bind,
            ExtensionPoint::Bind => &mut self.bind,
            ExtensionPoint::PostBind => &mut self.post_bind,
            ExtensionPoint::PlacementGenerate => &mut self.placement_generate,
            ExtensionPoint::PlacementScore => &mut self.placement_score,
            ExtensionPoint::PlacementFeasible => &mut self.placement_feasible,
            ExtensionPoint::PodGroupPostFilter => &mut self.pod_group_post_filter,
        }
    }

    /// True when `name` is enabled at `point` (after [`effective`], whose lists are expanded).
    pub(crate) fn enabled_at(&self, point: ExtensionPoint, name: &str) -> bool {
        self.get(point).enabled.iter().any(|p| p.name == name)
    }

    /// The weight of a score plugin at `point` after [`effective`] (`None`: not enabled).
    pub(crate) fn weight_at(&self, point: ExtensionPoint, name: &str) -> Option<i32> {
        self.get(point)
            .enabled
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.weight.filter(|w| *w != 0).unwrap_or(1))
    }

    /// Every plugin name enabled anywhere (multiPoint included), sorted
    /// (`pluginsNames` in defaults.go).
    pub(crate) fn names(&self) -> BTreeSet<String> {
        ExtensionPoint::ALL
            .iter()
            .map(|p| self.get(*p))
            .chain(std::iter::once(&self.multi_point))
            .flat_map(|s| s.enabled.iter().map(|p| p.name.clone()))
            .collect()
    }
}

/// Plugins enabled and disabled at one extension point.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PluginSet {
    /// Enabled, in order; they run after the defaults (or replace a default of their name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enabled: Vec<Plugin>,
    /// Disabled defaults; `*` disables every default of this point.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled: Vec<Plugin>,
}

impl PluginSet {
    /// True when neither list has entries.
    pub(crate) fn is_empty(&self) -> bool {
        self.enabled.is_empty() && self.disabled.is_empty()
    }
}

/// A plugin named in a [`PluginSet`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Plugin {
    /// The plugin's registry name.
    pub name: String,
    /// Score weight (score and placementScore points only); 0 or absent means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
}

impl Plugin {
    fn named(name: &str, weight: Option<i32>) -> Self {
        Self {
            name: name.to_owned(),
            weight,
        }
    }
}

/// A plugin's args (`pluginConfig[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    /// The plugin.
    pub name: String,
    /// Its args, typed for the in-tree plugins that take any.
    #[serde(skip_serializing_if = "PluginArgs::is_none")]
    pub args: PluginArgs,
}

impl<'de> Deserialize<'de> for PluginConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            name: String,
            #[serde(default)]
            args: Option<serde_json::Value>,
        }
        let raw = Raw::deserialize(d)?;
        let args = PluginArgs::from_value(&raw.name, raw.args)
            .map_err(|e| serde::de::Error::custom(format!("args.{}: {}", e.field, e.message)))?;
        Ok(Self {
            name: raw.name,
            args,
        })
    }
}

/// The args of one plugin, typed for the in-tree plugins whose args change outcomes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[allow(missing_docs)]
pub enum PluginArgs {
    /// No args given.
    None,
    NodeResourcesFit(NodeResourcesFitArgs),
    NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs),
    PodTopologySpread(PodTopologySpreadArgs),
    InterPodAffinity(InterPodAffinityArgs),
    NodeAffinity(NodeAffinityArgs),
    DefaultPreemption(DefaultPreemptionArgs),
    DynamicResources(DynamicResourcesArgs),
    VolumeBinding(VolumeBindingArgs),
    /// Args of a plugin that is not in-tree (kept as written; such a plugin is refused by
    /// validation unless only its args are given).
    Other(serde_json::Value),
}

/// An error at a field path (`profiles[1].pluginConfig[0].args.scoringStrategy.type`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct FieldError {
    /// The JSON path of the field, as serde_path_to_error writes it.
    pub field: String,
    /// What is wrong, values in backticks.
    pub message: String,
}

impl FieldError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "field `{}`: {}", self.field, self.message)
        }
    }
}

fn typed<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { String::new() } else { path };
        let message = e.inner().to_string();
        // serde_json appends " at line L column C" of the re-serialized value: meaningless
        // to a user (the loader locates the field in the file).
        let message = message
            .rfind(" at line ")
            .map_or(message.as_str(), |i| &message[..i]);
        FieldError::new(field, message)
    })
}

impl PluginArgs {
    fn is_none(&self) -> bool {
        matches!(self, Self::None)
    }

    /// Types the args of plugin `name` (a path in the error is relative to `args`).
    pub(crate) fn from_value(
        name: &str,
        value: Option<serde_json::Value>,
    ) -> Result<Self, FieldError> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(Self::None);
        };
        if let Some(kind) = value.get("kind").and_then(|k| k.as_str())
            && kind != format!("{name}Args")
            && args_kind(name).is_some()
        {
            return Err(FieldError::new(
                "kind",
                format!("`{kind}` is not the args kind of plugin `{name}` (`{name}Args`)"),
            ));
        }
        Ok(match name {
            "NodeResourcesFit" => Self::NodeResourcesFit(typed(value)?),
            "NodeResourcesBalancedAllocation" => {
                Self::NodeResourcesBalancedAllocation(typed(value)?)
            }
            "PodTopologySpread" => Self::PodTopologySpread(typed(value)?),
            "InterPodAffinity" => Self::InterPodAffinity(typed(value)?),
            "NodeAffinity" => Self::NodeAffinity(typed(value)?),
            "DefaultPreemption" => Self::DefaultPreemption(typed(value)?),
            "DynamicResources" => Self::DynamicResources(typed(value)?),
            "VolumeBinding" => Self::VolumeBinding(typed(value)?),
            _ => Self::Other(value),
        })
    }

    /// The defaulted args of a plugin that takes args and has none configured (`None` for
    /// plugins without an args type).
    fn default_for(name: &str) -> Option<Self> {
        let mut args = match name {
            "NodeResourcesFit" => Self::NodeResourcesFit(NodeResourcesFitArgs::default()),
            "NodeResourcesBalancedAllocation" => {
                Self::NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs::default())
            }
            "PodTopologySpread" => Self::PodTopologySpread(PodTopologySpreadArgs::default()),
            "InterPodAffinity" => Self::InterPodAffinity(InterPodAffinityArgs::default()),
            "NodeAffinity" => Self::NodeAffinity(NodeAffinityArgs::default()),
            "DefaultPreemption" => Self::DefaultPreemption(DefaultPreemptionArgs::default()),
            "DynamicResources" => Self::DynamicResources(DynamicResourcesArgs::default()),
            "VolumeBinding" => Self::VolumeBinding(VolumeBindingArgs::default()),
            _ => return None,
        };
        args.apply_defaults(name);
        Some(args)
    }

    /// `scheme.Default(args)`: the `SetDefaults_*Args` of defaults.go, plus apiVersion/kind.
    fn apply_defaults(&mut self, name: &str) {
        fn meta(api_version: &mut Option<String>, kind: &mut Option<String>, name: &str) {
            *api_version = Some(API_VERSION.to_owned());
            *kind = Some(format!("{name}Args"));
        }
        match self {
            Self::None | Self::Other(_) => {}
            Self::NodeResourcesFit(a) => {
                meta(&mut a.api_version, &mut a.kind, name);
                a.apply_defaults();
            }
            Self::NodeResourcesBalancedAllocation(a) => {
                meta(&mut a.api_version, &mut a.kind, name);
                a.apply_defaults();
            }
            Self::PodTopologySpread(a) => {
                meta(&mut a.api_version, &mut a.kind, name);
                if a.defaulting_type.as_deref().unwrap_or("").is_empty() {
                    a.defaulting_type = Some(SYSTEM_DEFAULTING.to_owned());
                }
            }
            Self::InterPodAffinity(a) => {
                meta(&mut a.api_version, &mut a.kind, name);
                a.hard_pod_affinity_weight.get_or_insert(1);
            }
            Self::NodeAffinity(a) => meta(&mut a.api_version, &mut a.kind, name),
            Self::DefaultPreemption(a) => {
                meta(&mut a.api_version, &mut a.kind, name);
                a.min_candidate_nodes_percentage.get_or_insert(10);
                a.min_candidate_nodes_absolute.get_or_insert(100);
            }
            Self::DynamicResources(a) => {
                meta(&mut a.api_version, &mut a.kind, name);
                // DRASchedulerFilterTimeout (beta, on in 1.37): 10 s; bindingTimeout 600 s
                // (DRADeviceBindingConditions, on): `DynamicResourcesFilterTimeoutDefault` and
                // `DynamicResourcesBindingTimeoutDefault` of
                // staging/src/k8s.io/kube-scheduler/config/v1/types_pluginargs.go.
                a.filter_timeout.get_or_insert_with(|| "10s".to_owned());
                a.binding_timeout.get_or_insert_with(|| "10m0s".to_owned());
            }
            Self::VolumeBinding(a) => {
                meta(&mut a.api_version, &mut a.kind, name);
                a.bind_timeout_seconds.get_or_insert(600);
            }
        }
    }
}

/// The `kind` of a plugin's args, for the plugins that take typed args.
pub(crate) fn args_kind(plugin: &str) -> Option<&'static str> {
    Some(match plugin {
        "NodeResourcesFit" => "NodeResourcesFitArgs",
        "NodeResourcesBalancedAllocation" => "NodeResourcesBalancedAllocationArgs",
        "PodTopologySpread" => "PodTopologySpreadArgs",
        "InterPodAffinity" => "InterPodAffinityArgs",
        "NodeAffinity" => "NodeAffinityArgs",
        "DefaultPreemption" => "DefaultPreemptionArgs",
        "DynamicResources" => "DynamicResourcesArgs",
        "VolumeBinding" => "VolumeBindingArgs",
        _ => return None,
    })
}

/// `LeastAllocated`: favour the nodes with the most free resources (the default).
pub(crate) const LEAST_ALLOCATED: &str = "LeastAllocated";
/// `MostAllocated`: bin-packing.
pub(crate) const MOST_ALLOCATED: &str = "MostAllocated";
/// `RequestedToCapacityRatio`: a piecewise-linear `shape` of utilization to score.
pub(crate) const REQUESTED_TO_CAPACITY_RATIO: &str = "RequestedToCapacityRatio";
/// PodTopologySpread `defaultingType: System` (zone and hostname, ScheduleAnyway).
pub(crate) const SYSTEM_DEFAULTING: &str = "System";
/// PodTopologySpread `defaultingType: List` (the `defaultConstraints` given).
pub(crate) const LIST_DEFAULTING: &str = "List";

/// `NodeResourcesFitArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeResourcesFitArgs {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `NodeResourcesFitArgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Resources the filter ignores.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_resources: Vec<String>,
    /// Resource groups (the part before `/`) the filter ignores.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_resource_groups: Vec<String>,
    /// How nodes are scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring_strategy: Option<ScoringStrategy>,
}

impl NodeResourcesFitArgs {
    /// `SetDefaults_NodeResourcesFitArgs`: LeastAllocated on cpu and memory, weight 1 each;
    /// an empty `resources` gets cpu and memory; a weight of 0 becomes 1.
    fn apply_defaults(&mut self) {
        let s = self
            .scoring_strategy
            .get_or_insert_with(|| ScoringStrategy {
                type_: Some(LEAST_ALLOCATED.to_owned()),
                ..ScoringStrategy::default()
            });
        if s.resources.is_empty() {
            s.resources = default_resources();
        }
        for r in &mut s.resources {
            if r.weight.unwrap_or(0) == 0 {
                r.weight = Some(1);
            }
        }
    }

    /// The strategy type (`LeastAllocated` when unset, as after defaulting).
    #[cfg(test)]
    pub(crate) fn strategy_type(&self) -> &str {
        self.scoring_strategy
            .as_ref()
            .and_then(|s| s.type_.as_deref())
            .unwrap_or(LEAST_ALLOCATED)
    }
}

fn default_resources() -> Vec<ResourceSpec> {
    vec![
        ResourceSpec {
            name: "cpu".to_owned(),
            weight: Some(1),
        },
        ResourceSpec {
            name: "memory".to_owned(),
            weight: Some(1),
        },
    ]
}

/// `ScoringStrategy` of NodeResourcesFit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScoringStrategy {
    /// `LeastAllocated`, `MostAllocated` or `RequestedToCapacityRatio` (kept as written:
    /// validation names an unknown one).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Resources scored, with weights.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceSpec>,
    /// The shape, for `RequestedToCapacityRatio`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_to_capacity_ratio: Option<RequestedToCapacityRatioParam>,
}

/// A resource and its weight in a score.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceSpec {
    /// Resource name (`cpu`, `memory`, `nvidia.com/gpu`).
    pub name: String,
    /// Weight, 1–100 (0 or absent defaults to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i64>,
}

/// `RequestedToCapacityRatioParam`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestedToCapacityRatioParam {
    /// Points of the piecewise-linear function, utilization increasing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<UtilizationShapePoint>,
}

/// One point of a shape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UtilizationShapePoint {
    /// Utilization, 0–100.
    #[serde(default)]
    pub utilization: i32,
    /// Score, 0–10.
    #[serde(default)]
    pub score: i32,
}

/// `NodeResourcesBalancedAllocationArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeResourcesBalancedAllocationArgs {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `NodeResourcesBalancedAllocationArgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Resources balanced (default cpu and memory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceSpec>,
}

impl NodeResourcesBalancedAllocationArgs {
    /// `SetDefaults_NodeResourcesBalancedAllocationArgs`.
    fn apply_defaults(&mut self) {
        if self.resources.is_empty() {
            self.resources = default_resources();
            return;
        }
        for r in &mut self.resources {
            if r.weight.unwrap_or(0) == 0 {
                r.weight = Some(1);
            }
        }
    }
}

/// `PodTopologySpreadArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodTopologySpreadArgs {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `PodTopologySpreadArgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Constraints for pods that define none (`defaultingType: List`); no `labelSelector`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_constraints: Vec<TopologySpreadConstraint>,
    /// `System` (default) or `List`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaulting_type: Option<String>,
}

/// `InterPodAffinityArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InterPodAffinityArgs {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `InterPodAffinityArgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Weight of existing pods' required affinity terms in scoring, 0–100 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hard_pod_affinity_weight: Option<i32>,
    /// Ignore existing pods' preferred terms when scoring.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_preferred_terms_of_existing_pods: bool,
}

/// `NodeAffinityArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeAffinityArgs {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `NodeAffinityArgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Node affinity added to every pod of the profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_affinity: Option<NodeAffinity>,
}

/// `DefaultPreemptionArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultPreemptionArgs {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `DefaultPreemptionArgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Least share of nodes dry-run as candidates, 0–100 (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_candidate_nodes_percentage: Option<i32>,
    /// Least number of candidate nodes (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_candidate_nodes_absolute: Option<i32>,
}

/// `DynamicResourcesArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DynamicResourcesArgs {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `DynamicResourcesArgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Longest a Filter call may take per node, a Go duration (`10s`); 0 disables it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_timeout: Option<String>,
    /// Longest PreBind waits for a device's binding conditions, a Go duration (`600s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding_timeout: Option<String>,
}

impl DynamicResourcesArgs {
    /// `bindingTimeout` in seconds (600 when unset or not a duration).
    pub(crate) fn binding_timeout_seconds(&self) -> f64 {
        self.binding_timeout
            .as_deref()
            .and_then(parse_go_duration)
            .unwrap_or(600.0)
    }

    /// `filterTimeout` in seconds (10 when unset or not a duration).
    #[cfg(test)]
    pub(crate) fn filter_timeout_seconds(&self) -> f64 {
        self.filter_timeout
            .as_deref()
            .and_then(parse_go_duration)
            .unwrap_or(10.0)
    }
}

/// `VolumeBindingArgs` (accepted; volumes are not simulated).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VolumeBindingArgs {
    /// `kubescheduler.config.k8s.io/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `VolumeBindingArgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Volume binding timeout, seconds (default 600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bind_timeout_seconds: Option<i64>,
    /// Storage capacity scoring shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<UtilizationShapePoint>,
}

/// An HTTP extender. Never simulated; `tlsConfig` is accepted and dropped unread.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Extender {
    /// Base URL.
    pub url_prefix: String,
    /// Filter verb.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_verb: Option<String>,
    /// Preemption verb.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempt_verb: Option<String>,
    /// Prioritize verb.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prioritize_verb: Option<String>,
    /// Weight of its priorities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i64>,
    /// Bind verb.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bind_verb: Option<String>,
    /// HTTPS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_https: Option<bool>,
    /// TLS settings: accepted, never kept (keys and certificates are credentials).
    #[serde(default, skip_serializing)]
    pub tls_config: Option<Redacted>,
    /// HTTP timeout (a Go duration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_timeout: Option<String>,
    /// Whether it caches nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_cache_capable: Option<bool>,
    /// Extended resources it manages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub managed_resources: Vec<ExtenderManagedResource>,
    /// Whether scheduling goes on when it fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignorable: Option<bool>,
}

/// A value that was present in the input and is deliberately not kept (credentials).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Redacted;

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

impl<'de> Deserialize<'de> for Redacted {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| Self)
    }
}

/// `ExtenderManagedResource`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtenderManagedResource {
    /// Extended resource name.
    pub name: String,
    /// Whether kube-scheduler ignores it in its own fit check.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignored_by_scheduler: bool,
}

/// Parses a Go `time.Duration` string (`10s`, `1m30s`, `600ms`, `1.5h`) into seconds.
pub(crate) fn parse_go_duration(s: &str) -> Option<f64> {
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_end == 0 {
            return None;
        }
        let n: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_end] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total += n * factor;
    }
    Some(if neg { -total } else { total })
}

/// Feature gates that change the default plugin set (`applyFeatureGates`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PluginGates {
    /// `GenericWorkload`: GangScheduling.
    pub generic_workload: bool,
    /// `TopologyAwareWorkloadScheduling`: TopologyPlacementGenerator, PodGroupPodsCount.
    pub topology_aware_workload_scheduling: bool,
    /// `InPlacePodVerticalScalingSchedulerPreemption`: DeferredPodScheduling.
    pub in_place_scheduler_preemption: bool,
    /// `NodeDeclaredFeatures` (GA in 1.37).
    pub node_declared_features: bool,
    /// `DynamicResourceAllocation` (GA, locked on).
    pub dynamic_resource_allocation: bool,
}

impl PluginGates {
    /// The gates the simulator models: kube-scheduler 1.37 with the workload-aware
    /// scheduling gates on (GenericWorkload, TopologyAwareWorkloadScheduling), the GA gates
    /// on and the alpha InPlacePodVerticalScalingSchedulerPreemption off.
    pub(crate) const SIMULATED: Self = Self {
        generic_workload: true,
        topology_aware_workload_scheduling: true,
        in_place_scheduler_preemption: false,
        node_declared_features: true,
        dynamic_resource_allocation: true,
    };
}

use ExtensionPoint as E;

/// The in-tree plugins of kube-scheduler 1.37 and the extension points each implements
/// (`ExpandedPluginsV1` in `pkg/scheduler/apis/config/testing/defaults/defaults.go`, plus the
/// gated plugins of `applyFeatureGates`). A plugin named in a profile that is not here does
/// not exist in kube-scheduler 1.37 (the framework refuses it: "… does not exist").
pub(crate) const IN_TREE_PLUGINS: &[(&str, &[ExtensionPoint])] = &[
    ("SchedulingGates", &[E::PreEnqueue]),
    ("PrioritySort", &[E::QueueSort]),
    ("NodeUnschedulable", &[E::Filter]),
    ("NodeName", &[E::Filter]),
    ("TaintToleration", &[E::Filter, E::PreScore, E::Score]),
    (
        "NodeAffinity",
        &[E::PreFilter, E::Filter, E::PreScore, E::Score],
    ),
    ("NodePorts", &[E::PreFilter, E::Filter]),
    (
        "NodeResourcesFit",
        &[
            E::PreFilter,
            E::Filter,
            E::PreScore,
            E::Score,
            E::PlacementScore,
        ],
    ),
    ("VolumeRestrictions", &[E::PreFilter, E::Filter]),
    ("NodeVolumeLimits", &[E::PreFilter, E::Filter]),
    (
        "VolumeBinding",
        &[
            E::PreFilter,
            E::Filter,
            E::Reserve,
            E::PreBind,
            E::PreScore,
            E::Score,
        ],
    ),
    ("VolumeZone", &[E::PreFilter, E::Filter]),
    (
        "PodTopologySpread",
        &[E::PreFilter, E::Filter, E::PreScore, E::Score],
    ),
    (
        "InterPodAffinity",
        &[E::PreFilter, E::Filter, E::PreScore, E::Score],
    ),
    ("DefaultPreemption", &[E::PostFilter]),
    ("NodeResourcesBalancedAllocation", &[E::PreScore, E::Score]),
    ("ImageLocality", &[E::Score]),
    ("DefaultBinder", &[E::Bind]),
    (
        "DynamicResources",
        &[
            E::PreEnqueue,
            E::PreFilter,
            E::Filter,
            E::PostFilter,
            E::Score,
            E::Reserve,
            E::PreBind,
            E::PodGroupPostFilter,
        ],
    ),
    ("NodeDeclaredFeatures", &[E::PreFilter, E::Filter]),
    ("DeferredPodScheduling", &[E::PreFilter, E::Filter]),
    (
        "GangScheduling",
        &[E::PreEnqueue, E::Reserve, E::Permit, E::PlacementFeasible],
    ),
    ("TopologyPlacementGenerator", &[E::PlacementGenerate]),
    ("PodGroupPodsCount", &[E::PlacementScore]),
];

/// The plugins that make a PodGroup a gang (GenericWorkload): a profile that disables one
/// schedules the group's pods one by one.
pub(crate) const GANG_PLUGINS: &[&str] = &["GangScheduling"];

/// `schedulerName`s of schedulers other than kube-scheduler that batch and GPU clusters run
/// (their pods are theirs: never simulated by a kube-scheduler profile, and doctor's
/// coexistence checks own them).
pub(crate) const KNOWN_OTHER_SCHEDULERS: &[&str] = &[
    "volcano",
    "yunikorn",
    "kai-scheduler",
    "koord-scheduler",
    "kube-batch",
    "hami-scheduler",
    "scheduler-plugins-scheduler",
];

/// The extension points `plugin` implements (`None`: not an in-tree plugin of 1.37).
pub(crate) fn plugin_points(plugin: &str) -> Option<&'static [ExtensionPoint]> {
    IN_TREE_PLUGINS
        .iter()
        .find(|(n, _)| *n == plugin)
        .map(|(_, p)| *p)
}

/// `getDefaultPlugins` + `applyFeatureGates`: the default MultiPoint list.
pub(crate) fn default_plugins(gates: PluginGates) -> Plugins {
    let mut mp: Vec<Plugin> = [
        ("SchedulingGates", None),
        ("PrioritySort", None),
        ("NodeUnschedulable", None),
        ("NodeName", None),
        ("TaintToleration", Some(3)),
        ("NodeAffinity", Some(2)),
        ("NodePorts", None),
        ("NodeResourcesFit", Some(1)),
        ("VolumeRestrictions", None),
        ("NodeVolumeLimits", None),
        ("VolumeBinding", None),
        ("VolumeZone", None),
        ("PodTopologySpread", Some(2)),
        ("InterPodAffinity", Some(2)),
        ("DefaultPreemption", None),
        ("NodeResourcesBalancedAllocation", Some(1)),
        ("ImageLocality", Some(1)),
        ("DefaultBinder", None),
    ]
    .iter()
    .map(|(n, w)| Plugin::named(n, *w))
    .collect();
    fn insert_before(mp: &mut Vec<Plugin>, before: &str, p: Plugin) {
        let at = mp.iter().position(|x| x.name == before).unwrap_or(mp.len());
        mp.insert(at, p);
    }
    if gates.node_declared_features {
        mp.push(Plugin::named("NodeDeclaredFeatures", None));
    }
    if gates.in_place_scheduler_preemption {
        insert_before(
            &mut mp,
            "NodeResourcesFit",
            Plugin::named("DeferredPodScheduling", None),
        );
    }
    if gates.dynamic_resource_allocation {
        // "This plugin should come before DefaultPreemption …" (applyFeatureGates).
        insert_before(
            &mut mp,
            "DefaultPreemption",
            Plugin::named("DynamicResources", Some(2)),
        );
    }
    if gates.generic_workload {
        mp.push(Plugin::named("GangScheduling", None));
    }
    if gates.topology_aware_workload_scheduling {
        mp.push(Plugin::named("TopologyPlacementGenerator", None));
        mp.push(Plugin::named("PodGroupPodsCount", Some(1)));
    }
    Plugins {
        multi_point: PluginSet {
            enabled: mp,
            disabled: Vec::new(),
        },
        ..Plugins::default()
    }
}

/// `mergePluginSet`: the user's set merged into the default one. Disabled defaults are
/// dropped (`*` drops all), a default the user enables again is replaced in place (keeping
/// its position), the user's other plugins follow in their order.
fn merge_plugin_set(default: &PluginSet, custom: &PluginSet) -> PluginSet {
    let mut disabled: Vec<Plugin> = custom
        .disabled
        .iter()
        .chain(&default.disabled)
        .map(|p| Plugin::named(&p.name, None))
        .collect();
    disabled.dedup();
    let is_disabled = |n: &str| disabled.iter().any(|d| d.name == n || d.name == "*");
    let mut replaced = BTreeSet::new();
    let mut enabled = Vec::new();
    for d in &default.enabled {
        if is_disabled(&d.name) {
            continue;
        }
        // The last of duplicate custom entries wins the map upstream.
        match custom.enabled.iter().rposition(|c| c.name == d.name) {
            Some(i) => {
                replaced.insert(i);
                enabled.push(custom.enabled[i].clone());
            }
            None => enabled.push(d.clone()),
        }
    }
    for (i, c) in custom.enabled.iter().enumerate() {
        if !replaced.contains(&i) {
            enabled.push(c.clone());
        }
    }
    PluginSet { enabled, disabled }
}

/// `mergePlugins` for every extension point and multiPoint.
fn merge_plugins(default: &Plugins, custom: Option<&Plugins>) -> Plugins {
    let Some(custom) = custom else {
        return default.clone();
    };
    let mut out = Plugins {
        multi_point: merge_plugin_set(&default.multi_point, &custom.multi_point),
        ..Plugins::default()
    };
    for p in ExtensionPoint::ALL {
        *out.get_mut(p) = merge_plugin_set(default.get(p), custom.get(p));
    }
    out
}

/// `expandMultiPointPlugins` (framework.go): each extension point's list after expansion.
/// A point whose `disabled` holds `*` keeps only its own list. Otherwise the multiPoint
/// plugins that implement the point and are not disabled there join it: first those the
/// point also names itself (its entry wins, "explicitly re-configured"), in multiPoint order,
/// then the other multiPoint plugins, then the point's own remaining plugins. Weights of
/// score points are made explicit (0 or absent: 1). The points' `disabled` lists are
/// emptied and `multiPoint` becomes `disabled: [{name: '*'}]`: the lists are then complete as
/// they stand, so feeding the output back to kube-scheduler (or to [`effective`]) gives the
/// same configuration.
fn expand_multi_point(merged: &Plugins) -> Plugins {
    let mut out = Plugins {
        multi_point: PluginSet {
            enabled: Vec::new(),
            disabled: vec![Plugin::named("*", None)],
        },
        ..Plugins::default()
    };
    for point in ExtensionPoint::ALL {
        let set = merged.get(point);
        let all_disabled = set.disabled.iter().any(|d| d.name == "*");
        let mut list: Vec<Plugin> = Vec::new();
        if !all_disabled {
            let mut overrides = Vec::new();
            let mut from_mp = Vec::new();
            for p in &merged.multi_point.enabled {
                let implements = plugin_points(&p.name).is_some_and(|pts| pts.contains(&point));
                if !implements || set.disabled.iter().any(|d| d.name == p.name) {
                    continue;
                }
                if let Some(own) = set.enabled.iter().find(|e| e.name == p.name) {
                    if !overrides.iter().any(|o: &Plugin| o.name == p.name) {
                        overrides.push(own.clone());
                    }
                    continue;
                }
                if !from_mp.iter().any(|o: &Plugin| o.name == p.name) {
                    from_mp.push(p.clone());
                }
            }
            list.extend(overrides);
            list.extend(from_mp);
        }
        for p in &set.enabled {
            if !list.iter().any(|l| l.name == p.name) {
                list.push(p.clone());
            }
        }
        for p in &mut list {
            p.weight = if point.weighted() {
                Some(p.weight.filter(|w| *w != 0).unwrap_or(1))
            } else {
                None
            };
        }
        out.get_mut(point).enabled = list;
    }
    out
}

impl KubeSchedulerConfiguration {
    /// kube-scheduler 1.37's configuration when none is given: one profile,
    /// `default-scheduler`, with the default plugins, defaulted ([`effective`] of an empty
    /// document).
    pub(crate) fn default_config() -> Self {
        effective(&Self::default())
    }

    /// The scheduler names the profiles serve, in order.
    pub(crate) fn scheduler_names(&self) -> Vec<&str> {
        self.profiles
            .iter()
            .filter_map(|p| p.scheduler_name.as_deref())
            .collect()
    }
}

impl KubeSchedulerProfile {
    /// The name this profile serves (empty when unnamed, which validation refuses).
    pub(crate) fn name(&self) -> &str {
        self.scheduler_name.as_deref().unwrap_or("")
    }

    /// The args of `plugin` (after [`effective`], every enabled plugin with args has some).
    pub(crate) fn args(&self, plugin: &str) -> Option<&PluginArgs> {
        self.plugin_config
            .iter()
            .find(|c| c.name == plugin)
            .map(|c| &c.args)
    }

    /// NodeResourcesFit's args, if configured.
    #[cfg(test)]
    pub(crate) fn node_resources_fit(&self) -> Option<&NodeResourcesFitArgs> {
        match self.args("NodeResourcesFit")? {
            PluginArgs::NodeResourcesFit(a) => Some(a),
            _ => None,
        }
    }

    /// True when `plugin` is enabled at `point` (after [`effective`]).
    pub(crate) fn enabled_at(&self, point: ExtensionPoint, plugin: &str) -> bool {
        self.plugins
            .as_ref()
            .is_some_and(|p| p.enabled_at(point, plugin))
    }

    /// True when `plugin` is enabled at any extension point (after [`effective`]).
    pub(crate) fn enables(&self, plugin: &str) -> bool {
        self.plugins
            .as_ref()
            .is_some_and(|p| ExtensionPoint::ALL.iter().any(|e| p.enabled_at(*e, plugin)))
    }
}

/// The configuration kube-scheduler runs with, for the gates the simulator models
/// ([`PluginGates::SIMULATED`]); see [`effective_with`].
pub fn effective(config: &KubeSchedulerConfiguration) -> KubeSchedulerConfiguration {
    effective_with(config, PluginGates::SIMULATED)
}

/// The configuration after kube-scheduler's defaulting (`SetDefaults_KubeSchedulerConfiguration`):
/// `apiVersion`/`kind` set; one `default-scheduler` profile when there are none (a single
/// unnamed profile is named so); each profile's plugins merged with the defaults and
/// multiPoint expanded into per-point lists with explicit score weights (multiPoint then
/// reads `disabled: ['*']`, see `expand_multi_point`); every `pluginConfig`
/// entry defaulted and one appended (defaulted) for each enabled plugin that takes args; the
/// global defaults (parallelism 16, percentageOfNodesToScore 0, backoffs 1 s/10 s,
/// profiling on). A profile's own `percentageOfNodesToScore` stays unset when not given
/// (the global one applies). Idempotent.
pub(crate) fn effective_with(
    config: &KubeSchedulerConfiguration,
    gates: PluginGates,
) -> KubeSchedulerConfiguration {
    let mut out = config.clone();
    out.api_version = Some(API_VERSION.to_owned());
    out.kind = Some(KIND.to_owned());
    if out.profiles.is_empty() {
        out.profiles.push(KubeSchedulerProfile::default());
    }
    if out.profiles.len() == 1 && out.profiles[0].scheduler_name.is_none() {
        out.profiles[0].scheduler_name = Some(DEFAULT_SCHEDULER_NAME.to_owned());
    }
    let defaults = default_plugins(gates);
    for prof in &mut out.profiles {
        let merged = merge_plugins(&defaults, prof.plugins.as_ref());
        prof.plugins = Some(expand_multi_point(&merged));
        for c in &mut prof.plugin_config {
            let name = c.name.clone();
            if c.args.is_none() {
                if let Some(d) = PluginArgs::default_for(&name) {
                    c.args = d;
                }
            } else {
                c.args.apply_defaults(&name);
            }
        }
        let names = prof
            .plugins
            .as_ref()
            .map(Plugins::names)
            .unwrap_or_default();
        for name in names {
            if prof.plugin_config.iter().any(|c| c.name == name) {
                continue;
            }
            if let Some(args) = PluginArgs::default_for(&name) {
                prof.plugin_config.push(PluginConfig { name, args });
            }
        }
    }
    out.parallelism.get_or_insert(16);
    out.percentage_of_nodes_to_score.get_or_insert(0);
    out.pod_initial_backoff_seconds.get_or_insert(1);
    out.pod_max_backoff_seconds.get_or_insert(10);
    let profiling = *out.enable_profiling.get_or_insert(true);
    if profiling {
        out.enable_contention_profiling.get_or_insert(true);
    }
    out
}

/// Map of a profile's score weights after [`effective`] (`score` point).
#[cfg(test)]
pub(crate) fn score_weights(profile: &KubeSchedulerProfile) -> BTreeMap<String, i32> {
    profile
        .plugins
        .as_ref()
        .map(|p| {
            p.score
                .enabled
                .iter()
                .map(|x| (x.name.clone(), x.weight.unwrap_or(1)))
                .collect()
        })
        .unwrap_or_default()
}

/// Plugins 1.37 refuses in a `v1` configuration (`invalidPluginsByVersion` in
/// validation.go): the in-tree volume limits plugins, removed with CSI migration.
pub(crate) const REMOVED_PLUGINS: &[&str] = &[
    "AzureDiskLimits",
    "CinderLimits",
    "EBSLimits",
    "GCEPDLimits",
];

/// Types a `KubeSchedulerConfiguration` document (YAML or JSON already parsed to a value),
/// strictly, as kube-scheduler's decoder does: the apiVersion must be
/// `kubescheduler.config.k8s.io/v1` and the kind `KubeSchedulerConfiguration`, an unknown
/// field is an error, and each `pluginConfig` entry's args are typed by its plugin's name.
/// The error's field path runs from the document's root
/// (`profiles[1].pluginConfig[0].args.scoringStrategy.type`). Not yet validated
/// ([`validate`]) nor defaulted ([`effective`]).
pub(crate) fn from_value(
    value: serde_json::Value,
) -> Result<KubeSchedulerConfiguration, FieldError> {
    let Some(map) = value.as_object() else {
        return Err(FieldError::new(
            "",
            "expected a KubeSchedulerConfiguration object",
        ));
    };
    match map.get("apiVersion").and_then(|v| v.as_str()) {
        Some(API_VERSION) => {}
        Some(other) => {
            return Err(FieldError::new(
                "apiVersion",
                format!(
                    "`{other}` is not served by kube-scheduler 1.37 (the `v1beta*` versions were removed); use `{API_VERSION}`"
                ),
            ));
        }
        None => {
            return Err(FieldError::new(
                "apiVersion",
                format!("missing: kube-scheduler needs `apiVersion: {API_VERSION}`"),
            ));
        }
    }
    match map.get("kind").and_then(|v| v.as_str()) {
        Some(KIND) => {}
        other => {
            return Err(FieldError::new(
                "kind",
                format!(
                    "expected `{KIND}`, found {}",
                    other.map_or("nothing".to_owned(), |k| format!("`{k}`"))
                ),
            ));
        }
    }
    // The args first, so an error inside them names its whole path.
    if let Some(profiles) = map.get("profiles").and_then(|p| p.as_array()) {
        for (i, prof) in profiles.iter().enumerate() {
            let Some(configs) = prof.get("pluginConfig").and_then(|c| c.as_array()) else {
                continue;
            };
            for (j, c) in configs.iter().enumerate() {
                let (Some(name), Some(args)) =
                    (c.get("name").and_then(|n| n.as_str()), c.get("args"))
                else {
                    continue;
                };
                if let Err(e) = PluginArgs::from_value(name, Some(args.clone())) {
                    let base = format!("profiles[{i}].pluginConfig[{j}].args");
                    return Err(FieldError::new(
                        if e.field.is_empty() {
                            base
                        } else {
                            format!("{base}.{}", e.field)
                        },
                        e.message,
                    ));
                }
            }
        }
    }
    typed(value)
}

fn path_of(base: &str, child: &str) -> String {
    if base.is_empty() {
        child.to_owned()
    } else {
        format!("{base}.{child}")
    }
}

/// kube-scheduler 1.37's checks of a configuration, with the field path of each problem:
/// `ValidateKubeSchedulerConfiguration` and the `Validate*Args` of validation_pluginargs.go
/// (run on the defaulted configuration, as kube-scheduler does after decoding), and the checks
/// the framework makes when it builds a profile (`NewFramework`: a plugin that does not
/// exist, a plugin enabled at a point it does not implement, one queue sort and at least one
/// bind plugin). Empty: kube-scheduler would start with it.
pub(crate) fn validate(config: &KubeSchedulerConfiguration) -> Vec<FieldError> {
    let mut errs = Vec::new();
    // Plugin names, on the document as written (so the paths are the user's).
    for (i, prof) in config.profiles.iter().enumerate() {
        let Some(plugins) = &prof.plugins else {
            continue;
        };
        let base = format!("profiles[{i}].plugins");
        let points = ExtensionPoint::ALL
            .iter()
            .map(|p| (Some(*p), p.field(), plugins.get(*p)))
            .chain(std::iter::once((None, "multiPoint", &plugins.multi_point)));
        for (point, field, set) in points {
            for (j, p) in set.enabled.iter().enumerate() {
                let path = format!("{base}.{field}.enabled[{j}].name");
                if REMOVED_PLUGINS.contains(&p.name.as_str()) {
                    errs.push(FieldError::new(
                        path,
                        format!(
                            "`{}` was invalid in version \"{API_VERSION}\" (KubeSchedulerConfiguration is version \"{API_VERSION}\")",
                            p.name
                        ),
                    ));
                    continue;
                }
                match (plugin_points(&p.name), point) {
                    (None, _) => errs.push(FieldError::new(
                        path,
                        format!(
                            "plugin `{}` does not exist in kube-scheduler 1.37 (out-of-tree plugins are not simulated)",
                            p.name
                        ),
                    )),
                    (Some(pts), Some(point)) if !pts.contains(&point) => {
                        errs.push(FieldError::new(
                            path,
                            format!("plugin `{}` does not extend the {field} extension point", p.name),
                        ))
                    }
                    _ => {}
                }
                if let Some(w) = p.weight
                    && w < 0
                {
                    errs.push(FieldError::new(
                        format!("{base}.{field}.enabled[{j}].weight"),
                        format!(
                            "{w} is negative: a score plugin's weight is 1 or more (0 means 1)"
                        ),
                    ));
                }
            }
        }
    }
    let eff = effective(config);
    if eff.parallelism.unwrap_or(16) <= 0 {
        errs.push(FieldError::new(
            "parallelism",
            "should be an integer value greater than zero",
        ));
    }
    validate_profiles(&mut errs, &eff.profiles);
    validate_common_queue_sort(&mut errs, &eff.profiles);
    percentage(
        &mut errs,
        "percentageOfNodesToScore",
        eff.percentage_of_nodes_to_score,
    );
    let initial = eff.pod_initial_backoff_seconds.unwrap_or(1);
    if initial <= 0 {
        errs.push(FieldError::new(
            "podInitialBackoffSeconds",
            "must be greater than 0",
        ));
    }
    if eff.pod_max_backoff_seconds.unwrap_or(10) < initial {
        errs.push(FieldError::new(
            "podMaxBackoffSeconds",
            "must be greater than or equal to podInitialBackoffSeconds",
        ));
    }
    validate_extenders(&mut errs, &eff.extenders);
    errs
}

/// Per profile: a unique non-empty `schedulerName`, `percentageOfNodesToScore` in range, the
/// expanded plugin lists (`NewFramework`), and each `pluginConfig` entry once, not naming a
/// removed plugin, with valid args.
fn validate_profiles(errs: &mut Vec<FieldError>, profiles: &[KubeSchedulerProfile]) {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, prof) in profiles.iter().enumerate() {
        let base = format!("profiles[{i}]");
        match prof.scheduler_name.as_deref() {
            None | Some("") => errs.push(FieldError::new(
                format!("{base}.schedulerName"),
                "Required value: every profile of a configuration with several needs a schedulerName",
            )),
            Some(name) => {
                if let Some(first) = seen.insert(name, i) {
                    errs.push(FieldError::new(
                        format!("{base}.schedulerName"),
                        format!("Duplicate value: `{name}` is also the name of profiles[{first}]"),
                    ));
                    seen.insert(name, first);
                }
            }
        }
        percentage(
            errs,
            &format!("{base}.percentageOfNodesToScore"),
            prof.percentage_of_nodes_to_score,
        );
        validate_profile_plugins(errs, &base, prof);
        let mut configs = BTreeSet::new();
        for (j, c) in prof.plugin_config.iter().enumerate() {
            let path = format!("{base}.pluginConfig[{j}]");
            if !configs.insert(c.name.as_str()) {
                errs.push(FieldError::new(
                    path.clone(),
                    format!("Duplicate value: `{}` has args twice", c.name),
                ));
            }
            if REMOVED_PLUGINS.contains(&c.name.as_str()) {
                errs.push(FieldError::new(
                    format!("{path}.name"),
                    format!("`{}` was invalid in version \"{API_VERSION}\"", c.name),
                ));
            }
            validate_args(errs, &format!("{path}.args"), &c.args);
        }
    }
}

fn percentage(errs: &mut Vec<FieldError>, path: &str, v: Option<i32>) {
    if let Some(v) = v
        && !(0..=100).contains(&v)
    {
        errs.push(FieldError::new(
            path,
            format!("{v} is not in valid range [0-100]"),
        ));
    }
}

/// `NewFramework`'s checks on the expanded lists: one queue sort, at least one bind plugin.
fn validate_profile_plugins(errs: &mut Vec<FieldError>, base: &str, prof: &KubeSchedulerProfile) {
    let Some(p) = &prof.plugins else { return };
    if p.bind.enabled.is_empty() {
        errs.push(FieldError::new(
            format!("{base}.plugins.bind"),
            "at least one bind plugin is needed (DefaultBinder was disabled and none enabled)",
        ));
    }
    match p.queue_sort.enabled.len() {
        0 => errs.push(FieldError::new(
            format!("{base}.plugins.queueSort"),
            "one queue sort plugin required for profile",
        )),
        1 => {}
        n => errs.push(FieldError::new(
            format!("{base}.plugins.queueSort.enabled"),
            format!("{n} queue sort plugins: only one queue sort plugin can be enabled"),
        )),
    }
}

/// `validateCommonQueueSort`: every profile uses the same queue sort plugin.
fn validate_common_queue_sort(errs: &mut Vec<FieldError>, profiles: &[KubeSchedulerProfile]) {
    let sort = |p: &KubeSchedulerProfile| p.plugins.as_ref().map(|x| x.queue_sort.enabled.clone());
    let Some(first) = profiles.first() else {
        return;
    };
    let canon = sort(first);
    for (i, p) in profiles.iter().enumerate().skip(1) {
        if sort(p) != canon {
            errs.push(FieldError::new(
                format!("profiles[{i}].plugins.queueSort"),
                "must be the same for all profiles",
            ));
        }
    }
}

/// `validateExtenders`.
fn validate_extenders(errs: &mut Vec<FieldError>, extenders: &[Extender]) {
    let mut binders = 0;
    let mut managed = BTreeSet::new();
    for (i, e) in extenders.iter().enumerate() {
        let path = format!("extenders[{i}]");
        if e.prioritize_verb.as_deref().is_some_and(|v| !v.is_empty()) && e.weight.unwrap_or(0) <= 0
        {
            errs.push(FieldError::new(
                format!("{path}.weight"),
                "must have a positive weight applied to it",
            ));
        }
        if e.bind_verb.as_deref().is_some_and(|v| !v.is_empty()) {
            binders += 1;
        }
        for (j, r) in e.managed_resources.iter().enumerate() {
            let rpath = format!("{path}.managedResources[{j}].name");
            let problems = super::names::qualified_name_problems(&r.name);
            if !problems.is_empty() {
                errs.push(FieldError::new(rpath.clone(), problems.join("; ")));
            } else if !is_extended_resource_name(&r.name) {
                errs.push(FieldError::new(
                    rpath.clone(),
                    format!("`{}` is an invalid extended resource name", r.name),
                ));
            }
            if !managed.insert(r.name.as_str()) {
                errs.push(FieldError::new(
                    rpath,
                    "duplicate extender managed resource name",
                ));
            }
        }
    }
    if binders > 1 {
        errs.push(FieldError::new(
            "extenders",
            format!(
                "found {binders} extenders implementing bind: only one extender can implement bind"
            ),
        ));
    }
}

/// `v1helper.IsExtendedResourceName`: a qualified name with a domain that is not
/// `kubernetes.io` and no `requests.` prefix.
fn is_extended_resource_name(name: &str) -> bool {
    let Some((domain, _)) = name.split_once('/') else {
        return false;
    };
    !(domain == "kubernetes.io"
        || domain.ends_with(".kubernetes.io")
        || name.starts_with("requests."))
}

fn validate_args(errs: &mut Vec<FieldError>, path: &str, args: &PluginArgs) {
    match args {
        PluginArgs::None | PluginArgs::Other(_) => {}
        PluginArgs::DefaultPreemption(a) => {
            let pct = a.min_candidate_nodes_percentage.unwrap_or(10);
            let abs = a.min_candidate_nodes_absolute.unwrap_or(100);
            let pp = path_of(path, "minCandidateNodesPercentage");
            let ap = path_of(path, "minCandidateNodesAbsolute");
            if !(0..=100).contains(&pct) {
                errs.push(FieldError::new(
                    pp.clone(),
                    format!("{pct} is not in valid range [0, 100]"),
                ));
            }
            if abs < 0 {
                errs.push(FieldError::new(
                    ap.clone(),
                    format!("{abs} is not in valid range [0, inf)"),
                ));
            }
            if pct == 0 && abs == 0 {
                errs.push(FieldError::new(
                    pp,
                    "cannot be zero at the same time as minCandidateNodesAbsolute",
                ));
                errs.push(FieldError::new(
                    ap,
                    "cannot be zero at the same time as minCandidateNodesPercentage",
                ));
            }
        }
        PluginArgs::InterPodAffinity(a) => {
            let w = a.hard_pod_affinity_weight.unwrap_or(1);
            if !(0..=100).contains(&w) {
                errs.push(FieldError::new(
                    path_of(path, "hardPodAffinityWeight"),
                    format!("{w} is not in valid range [0, 100]"),
                ));
            }
        }
        PluginArgs::NodeResourcesFit(a) => validate_fit(errs, path, a),
        PluginArgs::NodeResourcesBalancedAllocation(a) => {
            let mut seen = BTreeSet::new();
            for (i, r) in a.resources.iter().enumerate() {
                let rp = path_of(path, &format!("resources[{i}]"));
                if !seen.insert(r.name.as_str()) {
                    errs.push(FieldError::new(
                        format!("{rp}.name"),
                        format!("Duplicate value: `{}`", r.name),
                    ));
                }
                if r.weight.unwrap_or(1) != 1 {
                    errs.push(FieldError::new(
                        format!("{rp}.weight"),
                        format!("{} must be 1", r.weight.unwrap_or(1)),
                    ));
                }
            }
        }
        PluginArgs::PodTopologySpread(a) => validate_spread(errs, path, a),
        PluginArgs::NodeAffinity(a) => {
            if let Some(aff) = &a.added_affinity {
                validate_added_affinity(errs, &path_of(path, "addedAffinity"), aff);
            }
        }
        PluginArgs::DynamicResources(a) => {
            if let Some(t) = &a.filter_timeout {
                let p = path_of(path, "filterTimeout");
                match parse_go_duration(t) {
                    None => errs.push(FieldError::new(
                        p,
                        format!("`{t}` is not a duration like `10s`"),
                    )),
                    Some(s) if s < 0.0 => errs.push(FieldError::new(p, "must be zero or positive")),
                    _ => {}
                }
            }
            if let Some(t) = &a.binding_timeout {
                let p = path_of(path, "bindingTimeout");
                match parse_go_duration(t) {
                    None => errs.push(FieldError::new(
                        p,
                        format!("`{t}` is not a duration like `600s`"),
                    )),
                    Some(s) if s < 1.0 => {
                        errs.push(FieldError::new(p, "must be at least 1 second"))
                    }
                    _ => {}
                }
            }
        }
        PluginArgs::VolumeBinding(a) => {
            if a.bind_timeout_seconds.unwrap_or(600) < 0 {
                errs.push(FieldError::new(
                    path_of(path, "bindTimeoutSeconds"),
                    "invalid BindTimeoutSeconds, should not be a negative value",
                ));
            }
            if !a.shape.is_empty() {
                validate_shape(errs, &path_of(path, "shape"), &a.shape);
            }
        }
    }
}

/// `ValidateNodeResourcesFitArgs`.
fn validate_fit(errs: &mut Vec<FieldError>, path: &str, a: &NodeResourcesFitArgs) {
    for (i, r) in a.ignored_resources.iter().enumerate() {
        let problems = super::names::qualified_name_problems(r);
        if !problems.is_empty() {
            errs.push(FieldError::new(
                path_of(path, &format!("ignoredResources[{i}]")),
                problems.join("; "),
            ));
        }
    }
    for (i, g) in a.ignored_resource_groups.iter().enumerate() {
        let gp = path_of(path, &format!("ignoredResourceGroups[{i}]"));
        if g.contains('/') {
            errs.push(FieldError::new(
                gp.clone(),
                "resource group name can't contain '/'",
            ));
        }
        let problems = super::names::qualified_name_problems(g);
        if !problems.is_empty() && !g.contains('/') {
            errs.push(FieldError::new(gp, problems.join("; ")));
        }
    }
    let sp = path_of(path, "scoringStrategy");
    let Some(s) = &a.scoring_strategy else {
        errs.push(FieldError::new(sp, "ScoringStrategy field is required"));
        return;
    };
    let ty = s.type_.as_deref().unwrap_or("");
    if ![LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO].contains(&ty) {
        errs.push(FieldError::new(
            format!("{sp}.type"),
            format!(
                "Unsupported value: `{ty}`: supported values: `{LEAST_ALLOCATED}`, `{MOST_ALLOCATED}`, `{REQUESTED_TO_CAPACITY_RATIO}`"
            ),
        ));
    }
    for (i, r) in s.resources.iter().enumerate() {
        let w = r.weight.unwrap_or(1);
        if !(1..=100).contains(&w) {
            errs.push(FieldError::new(
                format!("{sp}.resources[{i}].weight"),
                format!(
                    "{w}: resource weight of {} not in valid range (0, 100]",
                    r.name
                ),
            ));
        }
    }
    if ty == REQUESTED_TO_CAPACITY_RATIO {
        match &s.requested_to_capacity_ratio {
            None => errs.push(FieldError::new(
                format!("{sp}.requestedToCapacityRatio"),
                "Required value: must be specified when type is RequestedToCapacityRatio",
            )),
            Some(r) => validate_shape(
                errs,
                &format!("{sp}.requestedToCapacityRatio.shape"),
                &r.shape,
            ),
        }
    } else if s.requested_to_capacity_ratio.is_some() {
        errs.push(FieldError::new(
            format!("{sp}.requestedToCapacityRatio"),
            "Forbidden: must be nil when type is not RequestedToCapacityRatio",
        ));
    }
}

/// `validateFunctionShape`.
fn validate_shape(errs: &mut Vec<FieldError>, path: &str, shape: &[UtilizationShapePoint]) {
    if shape.is_empty() {
        errs.push(FieldError::new(
            path,
            "Required value: at least one point must be specified",
        ));
        return;
    }
    if let Some(i) = (1..shape.len()).find(|i| shape[i - 1].utilization >= shape[*i].utilization) {
        errs.push(FieldError::new(
            format!("{path}[{i}].utilization"),
            format!(
                "{}: values must be sorted in increasing order",
                shape[i].utilization
            ),
        ));
    }
    for (i, p) in shape.iter().enumerate() {
        if !(0..=100).contains(&p.utilization) {
            errs.push(FieldError::new(
                format!("{path}[{i}].utilization"),
                format!("{} is not in valid range [0, 100]", p.utilization),
            ));
        }
        if !(0..=MAX_CUSTOM_PRIORITY_SCORE).contains(&i64::from(p.score)) {
            errs.push(FieldError::new(
                format!("{path}[{i}].score"),
                format!(
                    "{} is not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                    p.score
                ),
            ));
        }
    }
}

/// `ValidatePodTopologySpreadArgs`.
fn validate_spread(errs: &mut Vec<FieldError>, path: &str, a: &PodTopologySpreadArgs) {
    let ty = a.defaulting_type.as_deref().unwrap_or(SYSTEM_DEFAULTING);
    let tp = path_of(path, "defaultingType");
    if ty != SYSTEM_DEFAULTING && ty != LIST_DEFAULTING {
        errs.push(FieldError::new(
            tp,
            format!("Unsupported value: `{ty}`: supported values: `{SYSTEM_DEFAULTING}`, `{LIST_DEFAULTING}`"),
        ));
    } else if ty == SYSTEM_DEFAULTING && !a.default_constraints.is_empty() {
        errs.push(FieldError::new(
            tp,
            "`System` is invalid when .defaultConstraints are not empty (use `List`)",
        ));
    }
    for (i, c) in a.default_constraints.iter().enumerate() {
        let cp = path_of(path, &format!("defaultConstraints[{i}]"));
        if c.max_skew <= 0 {
            errs.push(FieldError::new(
                format!("{cp}.maxSkew"),
                format!("{} is not in valid range (0, inf)", c.max_skew),
            ));
        }
        if c.topology_key.is_empty() {
            errs.push(FieldError::new(
                format!("{cp}.topologyKey"),
                "Required value: can not be empty",
            ));
        } else {
            let problems = super::names::qualified_name_problems(&c.topology_key);
            if !problems.is_empty() {
                errs.push(FieldError::new(
                    format!("{cp}.topologyKey"),
                    problems.join("; "),
                ));
            }
        }
        match c.when_unsatisfiable.as_str() {
            "" => errs.push(FieldError::new(
                format!("{cp}.whenUnsatisfiable"),
                "Required value: can not be empty",
            )),
            "DoNotSchedule" | "ScheduleAnyway" => {}
            other => errs.push(FieldError::new(
                format!("{cp}.whenUnsatisfiable"),
                format!("Unsupported value: `{other}`: supported values: `DoNotSchedule`, `ScheduleAnyway`"),
            )),
        }
        if c.label_selector.is_some() {
            errs.push(FieldError::new(
                format!("{cp}.labelSelector"),
                "Forbidden: constraint must not define a selector, as they deduced for each pod",
            ));
        }
        if a.default_constraints[..i].iter().any(|o| {
            o.topology_key == c.topology_key && o.when_unsatisfiable == c.when_unsatisfiable
        }) {
            errs.push(FieldError::new(
                cp,
                format!(
                    "Duplicate value: {{{}, {}}}",
                    c.topology_key, c.when_unsatisfiable
                ),
            ));
        }
    }
}

/// `nodeaffinity.NewNodeSelector` / `NewPreferredSchedulingTerms`: valid operators and
/// values.
fn validate_added_affinity(errs: &mut Vec<FieldError>, path: &str, aff: &NodeAffinity) {
    use k8s_openapi::api::core::v1::NodeSelectorTerm;
    fn term(errs: &mut Vec<FieldError>, path: &str, t: &NodeSelectorTerm) {
        for (k, e) in t.match_expressions.iter().flatten().enumerate() {
            let ep = format!("{path}.matchExpressions[{k}]");
            let n = e.values.as_ref().map_or(0, Vec::len);
            let problem = match e.operator.as_str() {
                "In" | "NotIn" if n == 0 => Some("values: Required value: must be specified when `operator` is 'In' or 'NotIn'".to_owned()),
                "Exists" | "DoesNotExist" if n > 0 => Some("values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'".to_owned()),
                "Gt" | "Lt" if n != 1 => Some("values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'".to_owned()),
                "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => None,
                other => Some(format!("operator: Unsupported value: `{other}`")),
            };
            if let Some(p) = problem {
                errs.push(FieldError::new(ep.clone(), p));
            }
            let problems = super::names::qualified_name_problems(&e.key);
            if !problems.is_empty() {
                errs.push(FieldError::new(format!("{ep}.key"), problems.join("; ")));
            }
        }
        for (k, f) in t.match_fields.iter().flatten().enumerate() {
            let fp = format!("{path}.matchFields[{k}]");
            if f.key != "metadata.name" {
                errs.push(FieldError::new(
                    format!("{fp}.key"),
                    format!(
                        "Unsupported value: `{}`: supported values: `metadata.name`",
                        f.key
                    ),
                ));
            }
            let n = f.values.as_ref().map_or(0, Vec::len);
            if !(f.operator == "In" || f.operator == "NotIn") {
                errs.push(FieldError::new(
                    format!("{fp}.operator"),
                    format!(
                        "Unsupported value: `{}`: supported values: `In`, `NotIn`",
                        f.operator
                    ),
                ));
            } else if n != 1 {
                errs.push(FieldError::new(
                    format!("{fp}.values"),
                    "must have one element",
                ));
            }
        }
    }
    if let Some(req) = &aff.required_during_scheduling_ignored_during_execution {
        let rp = format!("{path}.requiredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in req.node_selector_terms.iter().enumerate() {
            term(errs, &format!("{rp}.nodeSelectorTerms[{i}]"), t);
        }
    }
    for (i, p) in aff
        .preferred_during_scheduling_ignored_during_execution
        .iter()
        .flatten()
        .enumerate()
    {
        term(
            errs,
            // Upstream's path leaves out `.preference` (TestValidateNodeAffinityArgs).
            &format!("{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"),
            &p.preference,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(set: &PluginSet) -> Vec<&str> {
        set.enabled.iter().map(|p| p.name.as_str()).collect()
    }

    fn from_yaml(s: &str) -> KubeSchedulerConfiguration {
        serde_saphyr::from_str(s).expect("valid yaml")
    }

    #[test]
    fn default_config_has_one_default_profile_with_upstream_expansion() {
        let c = KubeSchedulerConfiguration::default_config();
        assert_eq!(c.scheduler_names(), vec![DEFAULT_SCHEDULER_NAME]);
        let p = c.profiles[0].plugins.as_ref().expect("plugins");
        // ExpandedPluginsV1 (testing/defaults/defaults.go) with the 1.37 gated plugins.
        assert_eq!(names(&p.queue_sort), ["PrioritySort"]);
        assert_eq!(names(&p.bind), ["DefaultBinder"]);
        assert_eq!(
            names(&p.post_filter),
            ["DynamicResources", "DefaultPreemption"]
        );
        assert_eq!(
            names(&p.filter),
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "NodeVolumeLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
                "DynamicResources",
                "NodeDeclaredFeatures",
            ]
        );
        let w = score_weights(&c.profiles[0]);
        assert_eq!(w["TaintToleration"], 3);
        assert_eq!(w["NodeAffinity"], 2);
        assert_eq!(w["NodeResourcesFit"], 1);
        assert_eq!(w["PodTopologySpread"], 2);
        assert_eq!(w["InterPodAffinity"], 2);
        assert_eq!(w["DynamicResources"], 2);
        assert_eq!(w["NodeResourcesBalancedAllocation"], 1);
        assert_eq!(w["ImageLocality"], 1);
        assert_eq!(names(&p.placement_generate), ["TopologyPlacementGenerator"]);
        assert_eq!(
            names(&p.placement_score),
            ["NodeResourcesFit", "PodGroupPodsCount"]
        );
        assert!(p.multi_point.enabled.is_empty());
        assert_eq!(p.multi_point.disabled, vec![Plugin::named("*", None)]);
        assert!(c.profiles[0].enabled_at(ExtensionPoint::Permit, "GangScheduling"));
    }

    #[test]
    fn default_plugin_configs_match_plugin_configs_v1() {
        // PluginConfigsV1 (testing/defaults/defaults.go) plus DynamicResources.
        let c = KubeSchedulerConfiguration::default_config();
        let p = &c.profiles[0];
        let fit = p.node_resources_fit().expect("fit args");
        assert_eq!(fit.strategy_type(), LEAST_ALLOCATED);
        assert_eq!(
            fit.scoring_strategy.as_ref().map(|s| s.resources.clone()),
            Some(default_resources())
        );
        match p.args("DefaultPreemption") {
            Some(PluginArgs::DefaultPreemption(a)) => {
                assert_eq!(a.min_candidate_nodes_percentage, Some(10));
                assert_eq!(a.min_candidate_nodes_absolute, Some(100));
            }
            other => panic!("{other:?}"),
        }
        match p.args("PodTopologySpread") {
            Some(PluginArgs::PodTopologySpread(a)) => {
                assert_eq!(a.defaulting_type.as_deref(), Some(SYSTEM_DEFAULTING))
            }
            other => panic!("{other:?}"),
        }
        match p.args("InterPodAffinity") {
            Some(PluginArgs::InterPodAffinity(a)) => {
                assert_eq!(a.hard_pod_affinity_weight, Some(1))
            }
            other => panic!("{other:?}"),
        }
        match p.args("DynamicResources") {
            Some(PluginArgs::DynamicResources(a)) => {
                assert_eq!(a.filter_timeout_seconds(), 10.0);
                assert_eq!(a.binding_timeout_seconds(), 600.0);
            }
            other => panic!("{other:?}"),
        }
        match p.args("VolumeBinding") {
            Some(PluginArgs::VolumeBinding(a)) => assert_eq!(a.bind_timeout_seconds, Some(600)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            p.args("NodeResourcesBalancedAllocation"),
            Some(PluginArgs::NodeResourcesBalancedAllocation(_))
        ));
        assert!(matches!(
            p.args("NodeAffinity"),
            Some(PluginArgs::NodeAffinity(_))
        ));
        assert_eq!(c.percentage_of_nodes_to_score, Some(0));
        assert_eq!(c.parallelism, Some(16));
    }

    #[test]
    fn effective_is_idempotent() {
        let c = from_yaml(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  plugins:\n    score:\n      disabled: [{name: '*'}]\n      enabled: [{name: NodeResourcesFit, weight: 5}]\n- schedulerName: b\n",
        );
        let once = effective(&c);
        assert_eq!(effective(&once), once);
    }

    // defaults_test.go (TestSchedulerDefaults) "set non default pluginConfig" style: a fit
    // strategy without resources gets cpu and memory, weight 0 becomes 1.
    #[test]
    fn fit_args_defaulting_fills_resources_and_weights() {
        let c = from_yaml(
            "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resources: [{name: nvidia.com/gpu}, {name: cpu, weight: 0}]\n",
        );
        let e = effective(&c);
        let fit = e.profiles[0].node_resources_fit().expect("fit");
        assert_eq!(fit.strategy_type(), MOST_ALLOCATED);
        let r = &fit.scoring_strategy.as_ref().expect("s").resources;
        assert_eq!(r[0].weight, Some(1));
        assert_eq!(r[1].weight, Some(1));
        assert_eq!(fit.kind.as_deref(), Some("NodeResourcesFitArgs"));
        // Scoring strategy given without resources: cpu and memory.
        let c = from_yaml(
            "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: MostAllocated}}\n",
        );
        let e = effective(&c);
        let fit = e.profiles[0].node_resources_fit().expect("fit");
        assert_eq!(
            fit.scoring_strategy.as_ref().map(|s| s.resources.clone()),
            Some(default_resources())
        );
    }

    // default_plugins_test.go TestMergePlugins "DisabledAllPlugins"-like: `*` at score keeps
    // only the user's score list; the other points keep the defaults.
    #[test]
    fn merge_disable_all_score_plugins_keeps_user_list() {
        let c = from_yaml(
            "profiles:\n- plugins:\n    score:\n      disabled: [{name: '*'}]\n      enabled: [{name: NodeResourcesFit, weight: 5}]\n",
        );
        let e = effective(&c);
        let p = e.profiles[0].plugins.as_ref().expect("p");
        assert_eq!(names(&p.score), ["NodeResourcesFit"]);
        assert_eq!(p.score.enabled[0].weight, Some(5));
        assert!(
            p.filter
                .enabled
                .iter()
                .any(|x| x.name == "NodeResourcesFit")
        );
        assert!(
            p.pre_score
                .enabled
                .iter()
                .any(|x| x.name == "PodTopologySpread")
        );
    }

    // TestMergePlugins "ReplaceDefaultPluginsWithCustomPlugins"/"EnabledPluginsWithWeights":
    // a default re-enabled in multiPoint with a weight keeps its place and takes the weight.
    #[test]
    fn merge_reweight_default_in_multipoint_keeps_order() {
        let c = from_yaml(
            "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: NodeResourcesFit, weight: 7}]\n",
        );
        let e = effective(&c);
        let p = e.profiles[0].plugins.as_ref().expect("p");
        let order = names(&p.score);
        assert_eq!(order[2], "NodeResourcesFit");
        assert_eq!(score_weights(&e.profiles[0])["NodeResourcesFit"], 7);
    }

    // framework_test.go TestNewFrameworkMultiPointExpansion "disable MultiPoint plugin at
    // some extension points": disabled at score, still at filter.
    #[test]
    fn plugin_disabled_at_one_point_stays_at_others() {
        let c = from_yaml(
            "profiles:\n- plugins:\n    score:\n      disabled: [{name: PodTopologySpread}]\n",
        );
        let e = effective(&c);
        let p = e.profiles[0].plugins.as_ref().expect("p");
        assert!(!p.enabled_at(ExtensionPoint::Score, "PodTopologySpread"));
        assert!(p.enabled_at(ExtensionPoint::Filter, "PodTopologySpread"));
        assert!(p.enabled_at(ExtensionPoint::PreScore, "PodTopologySpread"));
    }

    // TestNewFrameworkMultiPointExpansion "Override MultiPoint plugins weights": the specific
    // score entry wins over the multiPoint weight and comes first.
    #[test]
    fn specific_point_overrides_multipoint_weight() {
        let c = from_yaml(
            "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality, weight: 9}]\n",
        );
        let e = effective(&c);
        let p = e.profiles[0].plugins.as_ref().expect("p");
        assert_eq!(p.score.enabled[0].name, "ImageLocality");
        assert_eq!(p.score.enabled[0].weight, Some(9));
        assert_eq!(
            p.score
                .enabled
                .iter()
                .filter(|x| x.name == "ImageLocality")
                .count(),
            1
        );
    }

    #[test]
    fn multipoint_disabled_removes_everywhere() {
        let c = from_yaml(
            "profiles:\n- schedulerName: nogang\n  plugins:\n    multiPoint:\n      disabled: [{name: GangScheduling}]\n",
        );
        let e = effective(&c);
        assert!(!e.profiles[0].enables("GangScheduling"));
        assert_eq!(e.profiles[0].name(), "nogang");
    }

    #[test]
    fn two_unnamed_profiles_stay_unnamed() {
        // "Only apply a default scheduler name when there is a single profile."
        let c = from_yaml("profiles:\n- {}\n- {}\n");
        let e = effective(&c);
        assert!(e.profiles.iter().all(|p| p.scheduler_name.is_none()));
    }

    #[test]
    fn gates_off_drop_workload_plugins() {
        let g = PluginGates {
            generic_workload: false,
            topology_aware_workload_scheduling: false,
            ..PluginGates::SIMULATED
        };
        let e = effective_with(&KubeSchedulerConfiguration::default(), g);
        assert!(!e.profiles[0].enables("GangScheduling"));
        assert!(!e.profiles[0].enables("PodGroupPodsCount"));
    }

    #[test]
    fn tls_config_is_never_kept_or_printed() {
        let c = from_yaml(
            "extenders:\n- urlPrefix: https://x\n  weight: 1\n  prioritizeVerb: p\n  tlsConfig: {keyData: c2VjcmV0LWtleQ==, certData: Y2VydA==}\n",
        );
        assert!(!format!("{c:?}").contains("c2VjcmV0"));
        let out = serde_json::to_string(&c).expect("json");
        assert!(
            !out.contains("c2VjcmV0") && !out.contains("tlsConfig"),
            "{out}"
        );
        assert!(out.contains("https://x"));
    }

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("10s"), Some(10.0));
        assert_eq!(parse_go_duration("10m0s"), Some(600.0));
        assert_eq!(parse_go_duration("1.5h"), Some(5400.0));
        assert_eq!(parse_go_duration("500ms"), Some(0.5));
        assert_eq!(parse_go_duration("0"), Some(0.0));
        assert_eq!(parse_go_duration("-1s"), Some(-1.0));
        assert_eq!(parse_go_duration("10"), None);
        assert_eq!(parse_go_duration("s"), None);
        assert_eq!(parse_go_duration("10x"), None);
    }

    #[test]
    fn unknown_field_is_refused() {
        let e = serde_saphyr::from_str::<KubeSchedulerConfiguration>("profile: []\n");
        assert!(e.is_err());
    }

    #[test]
    fn args_types_by_plugin_name() {
        let c = from_yaml(
            "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      defaultConstraints:\n      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [gpu]}]}]\n  - name: MyOutOfTree\n    args: {anything: 1}\n",
        );
        let p = &c.profiles[0];
        match p.args("PodTopologySpread") {
            Some(PluginArgs::PodTopologySpread(a)) => {
                assert_eq!(a.default_constraints.len(), 1);
                assert_eq!(a.default_constraints[0].max_skew, 1);
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(p.args("NodeAffinity"), Some(PluginArgs::NodeAffinity(a)) if a.added_affinity.is_some())
        );
        assert!(matches!(p.args("MyOutOfTree"), Some(PluginArgs::Other(_))));
    }

    // ---- validation: upstream cases (validation_test.go, validation_pluginargs_test.go) ----

    /// The field paths of the problems `validate` finds in a document (apiVersion/kind added).
    fn problems(body: &str) -> Vec<String> {
        let text = format!(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n{body}"
        );
        let value: serde_json::Value = serde_saphyr::from_str(&text).expect("yaml");
        let c = from_value(value).expect("typed");
        validate(&c).into_iter().map(|e| e.field).collect()
    }

    fn args_problems(plugin: &str, args: &str) -> Vec<String> {
        problems(&format!(
            "profiles:\n- pluginConfig:\n  - name: {plugin}\n    args: {args}\n"
        ))
        .into_iter()
        .map(|f| {
            f.strip_prefix("profiles[0].pluginConfig[0].args.")
                .map_or(f.clone(), str::to_owned)
        })
        .collect()
    }

    #[test]
    fn default_config_is_valid() {
        assert!(validate(&KubeSchedulerConfiguration::default_config()).is_empty());
        assert!(problems("").is_empty());
    }

    // TestValidateDefaultPreemptionArgs.
    #[test]
    fn validate_default_preemption_args_upstream_cases() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "valid args (default)",
                "{minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100}",
                &[],
            ),
            (
                "negative minCandidateNodesPercentage",
                "{minCandidateNodesPercentage: -1, minCandidateNodesAbsolute: 100}",
                &["minCandidateNodesPercentage"],
            ),
            (
                "minCandidateNodesPercentage over 100",
                "{minCandidateNodesPercentage: 900, minCandidateNodesAbsolute: 100}",
                &["minCandidateNodesPercentage"],
            ),
            (
                "negative minCandidateNodesAbsolute",
                "{minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: -1}",
                &["minCandidateNodesAbsolute"],
            ),
            (
                "all zero",
                "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}",
                &["minCandidateNodesPercentage", "minCandidateNodesAbsolute"],
            ),
            (
                "both negative",
                "{minCandidateNodesPercentage: -1, minCandidateNodesAbsolute: -1}",
                &["minCandidateNodesPercentage", "minCandidateNodesAbsolute"],
            ),
        ];
        for (name, args, want) in cases {
            assert_eq!(args_problems("DefaultPreemption", args), *want, "{name}");
        }
    }

    // TestValidateInterPodAffinityArgs.
    #[test]
    fn validate_inter_pod_affinity_args_upstream_cases() {
        assert!(
            args_problems("InterPodAffinity", "{hardPodAffinityWeight: 10}").is_empty(),
            "valid args"
        );
        assert_eq!(
            args_problems("InterPodAffinity", "{hardPodAffinityWeight: -1}"),
            ["hardPodAffinityWeight"],
            "less than min"
        );
        assert_eq!(
            args_problems("InterPodAffinity", "{hardPodAffinityWeight: 101}"),
            ["hardPodAffinityWeight"],
            "more than max"
        );
    }

    // TestValidatePodTopologySpreadArgs.
    #[test]
    fn validate_pod_topology_spread_args_upstream_cases() {
        let c = |list: &str, ty: &str| {
            format!("{{defaultingType: {ty}, defaultConstraints: [{list}]}}")
        };
        let cases: Vec<(&str, String, Vec<&str>)> = vec![
            (
                "valid config",
                c(
                    "{maxSkew: 1, topologyKey: node, whenUnsatisfiable: DoNotSchedule}, {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}",
                    "List",
                ),
                vec![],
            ),
            (
                "maxSkew less than zero",
                c(
                    "{maxSkew: -1, topologyKey: node, whenUnsatisfiable: DoNotSchedule}",
                    "List",
                ),
                vec!["defaultConstraints[0].maxSkew"],
            ),
            (
                "empty topology key",
                c(
                    "{maxSkew: 1, topologyKey: '', whenUnsatisfiable: DoNotSchedule}",
                    "List",
                ),
                vec!["defaultConstraints[0].topologyKey"],
            ),
            (
                "whenUnsatisfiable is empty",
                c(
                    "{maxSkew: 1, topologyKey: node, whenUnsatisfiable: ''}",
                    "List",
                ),
                vec!["defaultConstraints[0].whenUnsatisfiable"],
            ),
            (
                "whenUnsatisfiable contains unsupported action",
                c(
                    "{maxSkew: 1, topologyKey: node, whenUnsatisfiable: unknown action}",
                    "List",
                ),
                vec!["defaultConstraints[0].whenUnsatisfiable"],
            ),
            (
                "duplicated constraints",
                c(
                    "{maxSkew: 1, topologyKey: node, whenUnsatisfiable: DoNotSchedule}, {maxSkew: 2, topologyKey: node, whenUnsatisfiable: DoNotSchedule}",
                    "List",
                ),
                vec!["defaultConstraints[1]"],
            ),
            (
                "label selector present",
                c(
                    "{maxSkew: 1, topologyKey: key, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {a: b}}}",
                    "List",
                ),
                vec!["defaultConstraints[0].labelSelector"],
            ),
            (
                "list default constraints, no constraints",
                c("", "List"),
                vec![],
            ),
            ("system default constraints", c("", "System"), vec![]),
            (
                "wrong constraints",
                c("", "unknown"),
                vec!["defaultingType"],
            ),
            (
                "system default constraints, but has constraints",
                c(
                    "{maxSkew: 1, topologyKey: key, whenUnsatisfiable: DoNotSchedule}",
                    "System",
                ),
                vec!["defaultingType"],
            ),
        ];
        for (name, args, want) in cases {
            assert_eq!(args_problems("PodTopologySpread", &args), want, "{name}");
        }
    }

    // TestValidateNodeResourcesBalancedAllocationArgs.
    #[test]
    fn validate_balanced_allocation_args_upstream_cases() {
        assert!(
            args_problems(
                "NodeResourcesBalancedAllocation",
                "{resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]}"
            )
            .is_empty(),
            "valid config"
        );
        assert_eq!(
            args_problems(
                "NodeResourcesBalancedAllocation",
                "{resources: [{name: cpu, weight: 2}, {name: memory, weight: 1}]}"
            ),
            ["resources[0].weight"],
            "invalid config"
        );
        assert_eq!(
            args_problems(
                "NodeResourcesBalancedAllocation",
                "{resources: [{name: cpu, weight: 1}, {name: cpu, weight: 1}]}"
            ),
            ["resources[1].name"],
            "repeated resources"
        );
    }

    // TestValidateNodeAffinityArgs.
    #[test]
    fn validate_node_affinity_args_upstream_cases() {
        assert!(args_problems("NodeAffinity", "{}").is_empty(), "empty");
        let valid = "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: label-1, operator: In, values: [label-1-val]}]}]}, preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchFields: [{key: metadata.name, operator: In, values: [node-1]}]}}]}}";
        assert!(
            args_problems("NodeAffinity", valid).is_empty(),
            "valid added affinity"
        );
        let invalid = "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: invalid/label/key, operator: In, values: [label-1-val]}]}]}, preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchFields: [{key: metadata.name, operator: In, values: [node-1, node-2]}]}}]}}";
        assert_eq!(
            args_problems("NodeAffinity", invalid),
            [
                "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key",
                "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values",
            ],
            "invalid added affinity"
        );
    }

    // TestValidateVolumeBindingArgs (StorageCapacityScoring cases: a given shape is checked).
    #[test]
    fn validate_volume_binding_args_upstream_cases() {
        assert!(
            args_problems("VolumeBinding", "{bindTimeoutSeconds: 0}").is_empty(),
            "zero is a valid config"
        );
        assert!(
            args_problems("VolumeBinding", "{bindTimeoutSeconds: 10}").is_empty(),
            "positive value is valid config"
        );
        assert_eq!(
            args_problems("VolumeBinding", "{bindTimeoutSeconds: -10}"),
            ["bindTimeoutSeconds"],
            "negative value is invalid config"
        );
        assert_eq!(
            args_problems(
                "VolumeBinding",
                "{bindTimeoutSeconds: 10, shape: [{utilization: 3, score: 3}, {utilization: 1, score: 1}]}"
            ),
            ["shape[1].utilization"],
            "shape points must be sorted in increasing order"
        );
    }

    // TestValidateFitArgs.
    #[test]
    fn validate_fit_args_upstream_cases() {
        let fit = |a: &str| args_problems("NodeResourcesFit", a);
        assert!(
            fit("{ignoredResources: [nvidia.com/gpu], scoringStrategy: {type: LeastAllocated}}")
                .is_empty(),
            "IgnoredResources: valid args"
        );
        assert_eq!(
            fit("{ignoredResources: [\"/gpu\"]}"),
            ["ignoredResources[0]"],
            "IgnoredResources: invalid args"
        );
        assert!(
            fit("{ignoredResourceGroups: [example.com]}").is_empty(),
            "IgnoredResourceGroups: valid args"
        );
        assert_eq!(
            fit("{ignoredResourceGroups: [example.com/aa]}"),
            ["ignoredResourceGroups[0]"],
            "IgnoredResourceGroups: invalid args"
        );
        assert_eq!(
            fit("{scoringStrategy: {type: Invalid}}"),
            ["scoringStrategy.type"],
            "ScoringStrategy: type is unsupported"
        );
        assert_eq!(
            fit("{scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 101}]}}"),
            ["scoringStrategy.resources[0].weight"],
            "ScoringStrategy: resources weight is greater than max"
        );
        assert_eq!(
            fit("{scoringStrategy: {type: LeastAllocated, resources: [{name: cpu, weight: -1}]}}"),
            ["scoringStrategy.resources[0].weight"],
            "ScoringStrategy: resources weight is less than min"
        );
        assert_eq!(
            fit("{scoringStrategy: {type: RequestedToCapacityRatio}}"),
            ["scoringStrategy.requestedToCapacityRatio"],
            "ScoringStrategy: RequestedToCapacityRatio without shape"
        );
        assert_eq!(
            fit(
                "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 30, score: 3}, {utilization: 20, score: 11}]}}}"
            ),
            [
                "scoringStrategy.requestedToCapacityRatio.shape[1].utilization",
                "scoringStrategy.requestedToCapacityRatio.shape[1].score",
            ],
            "ScoringStrategy: utilization not increasing, score over 10"
        );
        assert!(
            fit("{scoringStrategy: {type: RequestedToCapacityRatio, resources: [{name: nvidia.com/gpu, weight: 5}], requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}}}").is_empty(),
            "ScoringStrategy: RequestedToCapacityRatio on an extended resource"
        );
        assert_eq!(
            fit(
                "{scoringStrategy: {type: MostAllocated, requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}]}}}"
            ),
            ["scoringStrategy.requestedToCapacityRatio"],
            "ScoringStrategy: shape with another type is forbidden"
        );
    }

    // TestValidateDynamicResourcesArgs (gates on, as in 1.37).
    #[test]
    fn validate_dynamic_resources_args() {
        assert!(
            args_problems(
                "DynamicResources",
                "{filterTimeout: 0s, bindingTimeout: 1s}"
            )
            .is_empty()
        );
        assert_eq!(
            args_problems("DynamicResources", "{filterTimeout: -1s}"),
            ["filterTimeout"]
        );
        assert_eq!(
            args_problems("DynamicResources", "{bindingTimeout: 500ms}"),
            ["bindingTimeout"]
        );
        assert_eq!(
            args_problems("DynamicResources", "{bindingTimeout: ten}"),
            ["bindingTimeout"]
        );
    }

    // TestValidateKubeSchedulerConfigurationV1 (validation_test.go).
    #[test]
    fn validate_kube_scheduler_configuration_upstream_cases() {
        assert_eq!(
            problems("parallelism: 0\n"),
            ["parallelism"],
            "bad-parallelism-invalid-value"
        );
        assert_eq!(
            problems("percentageOfNodesToScore: 110\n"),
            ["percentageOfNodesToScore"],
            "bad-percentage-of-nodes-to-score"
        );
        assert_eq!(
            problems("profiles:\n- {schedulerName: a, percentageOfNodesToScore: 110}\n"),
            ["profiles[0].percentageOfNodesToScore"],
            "invalid-profile-percentage"
        );
        assert_eq!(
            problems("podInitialBackoffSeconds: 0\n"),
            ["podInitialBackoffSeconds"],
            "bad-initial-backoff"
        );
        assert_eq!(
            problems("podMaxBackoffSeconds: 0\n"),
            ["podMaxBackoffSeconds"],
            "bad-max-backoff"
        );
        assert_eq!(
            problems("profiles:\n- {schedulerName: a}\n- {schedulerName: a}\n"),
            ["profiles[1].schedulerName"],
            "repeated-scheduler-name"
        );
        assert_eq!(
            problems("profiles:\n- {schedulerName: a}\n- {}\n"),
            ["profiles[1].schedulerName"],
            "scheduler-name-not-set"
        );
        assert_eq!(
            problems(
                "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      disabled: [{name: '*'}]\n      enabled: [{name: CustomSort}]\n"
            ),
            [
                "profiles[1].plugins.queueSort.enabled[0].name",
                "profiles[1].plugins.queueSort"
            ],
            "different-queue-sort (CustomSort is not in-tree, too)"
        );
        assert_eq!(
            problems(
                "profiles:\n- schedulerName: a\n  pluginConfig:\n  - {name: InterPodAffinity, args: {hardPodAffinityWeight: 1}}\n  - {name: InterPodAffinity, args: {hardPodAffinityWeight: 2}}\n"
            ),
            ["profiles[0].pluginConfig[1]"],
            "duplicated-plugin-config"
        );
        assert_eq!(
            problems(
                "profiles:\n- schedulerName: a\n  plugins:\n    filter:\n      enabled: [{name: EBSLimits}]\n"
            ),
            ["profiles[0].plugins.filter.enabled[0].name"],
            "invalid-plugins (removed in v1)"
        );
        assert_eq!(
            problems(
                "extenders:\n- {urlPrefix: http://a, prioritizeVerb: p, weight: 0}\n- {urlPrefix: http://b, bindVerb: b}\n- {urlPrefix: http://c, bindVerb: b}\n"
            ),
            ["extenders[0].weight", "extenders"],
            "extender-negative-weight, only-one-extender-can-bind"
        );
        assert_eq!(
            problems(
                "extenders:\n- urlPrefix: http://a\n  managedResources: [{name: example.com/foo}, {name: example.com/foo}]\n"
            ),
            ["extenders[0].managedResources[1].name"],
            "extender-duplicate-managed-resource"
        );
    }

    #[test]
    fn unknown_plugin_and_wrong_extension_point() {
        assert_eq!(
            problems(
                "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled: [{name: NodeResourcesMostAllocated}, {name: PrioritySort}]\n"
            ),
            [
                "profiles[0].plugins.score.enabled[0].name",
                "profiles[0].plugins.score.enabled[1].name"
            ]
        );
        assert_eq!(
            problems(
                "profiles:\n- schedulerName: a\n  plugins:\n    multiPoint:\n      enabled: [{name: Coscheduling}]\n"
            ),
            ["profiles[0].plugins.multiPoint.enabled[0].name"]
        );
        assert_eq!(
            problems(
                "profiles:\n- schedulerName: a\n  plugins:\n    bind:\n      disabled: [{name: DefaultBinder}]\n"
            ),
            ["profiles[0].plugins.bind"],
            "at least one bind plugin"
        );
    }

    #[test]
    fn from_value_names_args_paths_and_versions() {
        let v: serde_json::Value = serde_saphyr::from_str(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n- schedulerName: b\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resource: []\n",
        )
        .expect("yaml");
        let e = from_value(v).expect_err("unknown field");
        assert_eq!(
            e.field,
            "profiles[1].pluginConfig[0].args.scoringStrategy.resource"
        );
        assert!(
            e.message.contains("unknown field `resource`"),
            "{}",
            e.message
        );
        let v: serde_json::Value = serde_saphyr::from_str(
            "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
        )
        .expect("yaml");
        assert_eq!(from_value(v).expect_err("v1beta3").field, "apiVersion");
        let v: serde_json::Value = serde_saphyr::from_str(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  percentageOfNodesToScore: lots\n",
        )
        .expect("yaml");
        assert_eq!(
            from_value(v).expect_err("type").field,
            "profiles[0].percentageOfNodesToScore"
        );
        let v: serde_json::Value = serde_saphyr::from_str(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection: {leaderElect: true}\nclientConnection: {kubeconfig: /etc/k.conf}\nparallelism: 8\ndelayCacheUntilActive: true\npodInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 20\nenableProfiling: false\n",
        )
        .expect("yaml");
        let c = from_value(v).expect("accepted fields kube-scheduler takes");
        assert!(validate(&c).is_empty());
        assert_eq!(c.parallelism, Some(8));
    }
}
