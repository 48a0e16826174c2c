//! The simulator's resolved scheduling profile: what one `KubeSchedulerConfiguration`
//! profile makes kube-scheduler do, in the terms the simulator's plugins read.
//!
//! [`Profile::default`] is kube-scheduler 1.37's default profile (`default-scheduler`) with the
//! defaults of `pkg/scheduler/apis/config/v1/defaults.go` and the plugins' args defaults: what
//! the simulator has always done. [`Profiles`] holds every profile of a configuration, looked
//! up by the `schedulerName` a pod names (empty means `default-scheduler`, the API default).

use std::sync::Arc;

/// The scheduler name pods get when they name none (`v1.DefaultSchedulerName`).
pub(crate) const DEFAULT_SCHEDULER_NAME: &str = "default-scheduler";

/// `topology.kubernetes.io/zone`.
pub(crate) const LABEL_ZONE: &str = "topology.kubernetes.io/zone";
/// `kubernetes.io/hostname`.
pub(crate) const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";

/// `config.MaxCustomPriorityScore`: the top of a RequestedToCapacityRatio shape's scores.
pub(crate) const MAX_CUSTOM_PRIORITY_SCORE: i64 = 10;

/// `DynamicResourcesArgs.bindingTimeout` default: 600 s. Upstream 1.37:
/// `staging/src/k8s.io/kube-scheduler/config/v1/types_pluginargs.go` declares
/// `DynamicResourcesBindingTimeoutDefault = 600 * time.Second` ("Defaults to 10 minutes when
/// the DRADeviceBindingConditions feature gate is enabled"; valid values ≥ 1 s), and
/// `DynamicResourcesFilterTimeoutDefault = 10 * time.Second` beside it.
pub(crate) const DEFAULT_BINDING_TIMEOUT_SECONDS: u32 = 600;

/// A resource with its weight (`config.ResourceSpec`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ResourceSpec {
    /// The resource name (`cpu`, `memory`, `nvidia.com/gpu`).
    pub name: String,
    /// Its weight (1–100).
    pub weight: i64,
}

impl ResourceSpec {
    /// `name` with `weight`.
    pub fn new(name: &str, weight: i64) -> Self {
        Self {
            name: name.to_owned(),
            weight,
        }
    }
}

/// One point of a RequestedToCapacityRatio shape (`config.UtilizationShapePoint`), as
/// configured: utilization 0–100, score 0–10.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ShapePoint {
    /// Utilization (percent).
    pub utilization: i64,
    /// Score (0–10).
    pub score: i64,
}

/// `NodeResourcesFitArgs.scoringStrategy.type`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type")]
pub enum Strategy {
    /// Prefer nodes with the most free share (spreading); the default.
    LeastAllocated,
    /// Prefer nodes with the least free share (bin-packing).
    MostAllocated,
    /// A configured utilization → score shape.
    RequestedToCapacityRatio {
        /// The shape, utilization ascending.
        shape: Vec<ShapePoint>,
    },
}

impl Strategy {
    /// The name as `scoringStrategy.type` spells it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::LeastAllocated => "LeastAllocated",
            Self::MostAllocated => "MostAllocated",
            Self::RequestedToCapacityRatio { .. } => "RequestedToCapacityRatio",
        }
    }
}

/// `scoringStrategy`: the type and its resources.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ScoringStrategy {
    /// The type.
    #[serde(flatten)]
    pub strategy: Strategy,
    /// Resources and weights (default cpu 1, memory 1).
    pub resources: Vec<ResourceSpec>,
}

impl Default for ScoringStrategy {
    /// kube-scheduler's default: LeastAllocated over cpu and memory, weight 1 each.
    fn default() -> Self {
        Self {
            strategy: Strategy::LeastAllocated,
            resources: default_resources(),
        }
    }
}

/// `defaultResources` of `pkg/scheduler/apis/config/v1/defaults.go`: cpu and memory, weight 1.
pub(crate) fn default_resources() -> Vec<ResourceSpec> {
    vec![ResourceSpec::new("cpu", 1), ResourceSpec::new("memory", 1)]
}

impl ScoringStrategy {
    /// The one-line description text output uses: `MostAllocated on nvidia.com/gpu`, with
    /// weights when they are not all 1.
    pub(crate) fn describe(&self) -> String {
        let all_one = self.resources.iter().all(|r| r.weight == 1);
        let resources: Vec<String> = self
            .resources
            .iter()
            .map(|r| {
                if all_one {
                    r.name.clone()
                } else {
                    format!("{} (weight {})", r.name, r.weight)
                }
            })
            .collect();
        format!("{} on {}", self.strategy.name(), resources.join(", "))
    }

    /// Whether this is kube-scheduler's default strategy.
    pub(crate) fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// One of `PodTopologySpreadArgs.defaultConstraints` (no label selector: the selector is
/// built per pod from the objects selecting it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DefaultConstraint {
    /// `maxSkew`.
    pub max_skew: i32,
    /// `topologyKey`.
    pub topology_key: String,
    /// `whenUnsatisfiable: DoNotSchedule`.
    pub hard: bool,
}

/// `PodTopologySpreadArgs.defaultingType` with its constraints.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "defaultingType", content = "defaultConstraints")]
pub enum SpreadDefaults {
    /// `System`: [`system_default_constraints`], and nodes without the zone label are still
    /// scored (upstream `PreScore`'s `requireAllTopologies`).
    System,
    /// `List`: the configured constraints (possibly none).
    List(Vec<DefaultConstraint>),
}

/// `systemDefaultConstraints` of `podtopologyspread/plugin.go`: zone (maxSkew 5) and hostname
/// (maxSkew 3), both `ScheduleAnyway`.
pub(crate) fn system_default_constraints() -> Vec<DefaultConstraint> {
    vec![
        DefaultConstraint {
            max_skew: 3,
            topology_key: LABEL_HOSTNAME.to_owned(),
            hard: false,
        },
        DefaultConstraint {
            max_skew: 5,
            topology_key: LABEL_ZONE.to_owned(),
            hard: false,
        },
    ]
}

impl SpreadDefaults {
    /// The constraints a pod without its own gets (before the selector is built).
    pub(crate) fn constraints(&self) -> Vec<DefaultConstraint> {
        match self {
            Self::System => system_default_constraints(),
            Self::List(c) => c.clone(),
        }
    }

    /// Whether these are the system defaults.
    pub(crate) fn is_system(&self) -> bool {
        matches!(self, Self::System)
    }
}

/// Which plugins run, and the score weights (0: not a score plugin of the profile).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plugins {
    /// Filter: NodeUnschedulable.
    pub node_unschedulable: bool,
    /// Filter: NodeName.
    pub node_name: bool,
    /// Filter: TaintToleration.
    pub taint_toleration: bool,
    /// Filter: NodeAffinity.
    pub node_affinity: bool,
    /// Filter: NodePorts.
    pub node_ports: bool,
    /// Filter: NodeResourcesFit.
    pub node_resources_fit: bool,
    /// Filter: PodTopologySpread.
    pub pod_topology_spread: bool,
    /// Filter: InterPodAffinity.
    pub inter_pod_affinity: bool,
    /// Filter: DynamicResources.
    pub dynamic_resources: bool,
    /// PostFilter: DefaultPreemption.
    pub default_preemption: bool,
    /// Score weights.
    pub weights: ScoreWeights,
}

/// Score plugin weights; 0 means the plugin does not score in this profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreWeights {
    /// TaintToleration (default 3).
    pub taint_toleration: i64,
    /// NodeAffinity (default 2).
    pub node_affinity: i64,
    /// NodeResourcesFit (default 1).
    pub node_resources_fit: i64,
    /// NodeResourcesBalancedAllocation (default 1).
    pub balanced_allocation: i64,
    /// PodTopologySpread (default 2).
    pub pod_topology_spread: i64,
    /// InterPodAffinity (default 2).
    pub inter_pod_affinity: i64,
    /// PodGroupPodsCount at `placementScore` (default 1; TopologyAwareWorkloadScheduling).
    pub placement_pod_group_pods_count: i64,
    /// NodeResourcesFit at `placementScore` (default 1): MostAllocated over the domain with the
    /// profile's resource weights ([`crate::sched::score::strategy::placement_most_allocated`]).
    pub placement_node_resources_fit: i64,
}

impl Default for ScoreWeights {
    /// `getDefaultPlugins` (`apis/config/v1/default_plugins.go`): the multiPoint weights.
    fn default() -> Self {
        Self {
            taint_toleration: 3,
            node_affinity: 2,
            node_resources_fit: 1,
            balanced_allocation: 1,
            pod_topology_spread: 2,
            inter_pod_affinity: 2,
            placement_pod_group_pods_count: 1,
            placement_node_resources_fit: 1,
        }
    }
}

impl Default for Plugins {
    fn default() -> Self {
        Self {
            node_unschedulable: true,
            node_name: true,
            taint_toleration: true,
            node_affinity: true,
            node_ports: true,
            node_resources_fit: true,
            pod_topology_spread: true,
            inter_pod_affinity: true,
            dynamic_resources: true,
            default_preemption: true,
            weights: ScoreWeights::default(),
        }
    }
}

/// `NodeAffinityArgs.addedAffinity`: node affinity every pod of the profile gets on top of
/// its own (upstream `nodeaffinity/node_affinity.go`: the required part is checked first,
/// "node(s) didn't match scheduler-enforced node affinity"; the preferred terms add to the
/// score of every pod).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddedAffinity {
    /// `requiredDuringSchedulingIgnoredDuringExecution` terms (ORed); `None` when unset.
    pub required: Option<Vec<super::selector::NodeTerm>>,
    /// `preferredDuringSchedulingIgnoredDuringExecution` terms with weights.
    pub preferred: Vec<(i32, super::selector::NodeTerm)>,
}

impl AddedAffinity {
    /// Compiles the API's `NodeAffinity`.
    pub(crate) fn compile(a: &k8s_openapi::api::core::v1::NodeAffinity) -> Self {
        use super::selector::NodeTerm;
        Self {
            required: a
                .required_during_scheduling_ignored_during_execution
                .as_ref()
                .map(|r| {
                    r.node_selector_terms
                        .iter()
                        .map(NodeTerm::compile)
                        .collect()
                }),
            preferred: a
                .preferred_during_scheduling_ignored_during_execution
                .iter()
                .flatten()
                .map(|p| (p.weight, NodeTerm::compile(&p.preference)))
                .collect(),
        }
    }
}

/// One profile, resolved.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// `schedulerName`.
    pub scheduler_name: String,
    /// Enabled plugins and score weights.
    pub plugins: Plugins,
    /// `NodeResourcesFitArgs.scoringStrategy`.
    pub fit: ScoringStrategy,
    /// `NodeResourcesFitArgs.ignoredResources`: not checked by the Fit filter.
    pub ignored_resources: Vec<String>,
    /// `NodeResourcesFitArgs.ignoredResourceGroups`: extended resources whose group (the part
    /// before `/`) is listed are not checked by the Fit filter.
    pub ignored_resource_groups: Vec<String>,
    /// `NodeResourcesBalancedAllocationArgs.resources`.
    pub balanced_resources: Vec<ResourceSpec>,
    /// `PodTopologySpreadArgs`.
    pub spread: SpreadDefaults,
    /// `InterPodAffinityArgs.hardPodAffinityWeight` (default 1).
    pub hard_pod_affinity_weight: i64,
    /// `InterPodAffinityArgs.ignorePreferredTermsOfExistingPods`.
    pub ignore_preferred_terms_of_existing_pods: bool,
    /// `DefaultPreemptionArgs.minCandidateNodesPercentage` (default 10).
    pub min_candidate_nodes_percentage: i32,
    /// `DefaultPreemptionArgs.minCandidateNodesAbsolute` (default 100).
    pub min_candidate_nodes_absolute: i32,
    /// `DynamicResourcesArgs.bindingTimeout`, seconds (default 600).
    pub dra_binding_timeout_seconds: u32,
    /// `percentageOfNodesToScore` of the profile, else of the configuration; `None`: adaptive.
    pub percentage_of_nodes_to_score: Option<i32>,
    /// `NodeAffinityArgs.addedAffinity`.
    #[serde(skip)]
    pub added_affinity: Option<AddedAffinity>,
}

impl Default for Profile {
    /// kube-scheduler 1.37's default profile.
    fn default() -> Self {
        Self {
            scheduler_name: DEFAULT_SCHEDULER_NAME.to_owned(),
            plugins: Plugins::default(),
            fit: ScoringStrategy::default(),
            ignored_resources: Vec::new(),
            ignored_resource_groups: Vec::new(),
            balanced_resources: default_resources(),
            spread: SpreadDefaults::System,
            hard_pod_affinity_weight: 1,
            ignore_preferred_terms_of_existing_pods: false,
            min_candidate_nodes_percentage: 10,
            min_candidate_nodes_absolute: 100,
            dra_binding_timeout_seconds: DEFAULT_BINDING_TIMEOUT_SECONDS,
            percentage_of_nodes_to_score: None,
            added_affinity: None,
        }
    }
}

impl Profile {
    /// Whether `resource` is ignored by the Fit filter (`fit.go` `fitsRequest`: only extended
    /// resources are ignored, by name or by the group before `/`).
    pub(crate) fn fit_ignores(&self, resource: &str) -> bool {
        if self.ignored_resources.is_empty() && self.ignored_resource_groups.is_empty() {
            return false;
        }
        if !is_extended_resource(resource) {
            return false;
        }
        if self.ignored_resources.iter().any(|r| r == resource) {
            return true;
        }
        resource
            .split_once('/')
            .is_some_and(|(group, _)| self.ignored_resource_groups.iter().any(|g| g == group))
    }

    /// Text output's one-line description when the profile is not the default:
    /// `profile gpu-binpack: MostAllocated on nvidia.com/gpu`.
    pub(crate) fn describe(&self) -> String {
        format!("profile {}: {}", self.scheduler_name, self.fit.describe())
    }

    /// Whether this is exactly kube-scheduler's default profile.
    pub(crate) fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// `calculateNumCandidates` (`defaultpreemption/default_preemption.go`): how many nodes
    /// preemption evaluates out of `num_nodes`.
    pub(crate) fn num_candidates(&self, num_nodes: usize) -> usize {
        let n = i64::try_from(num_nodes).unwrap_or(i64::MAX);
        let mut candidates = n * i64::from(self.min_candidate_nodes_percentage) / 100;
        if candidates < i64::from(self.min_candidate_nodes_absolute) {
            candidates = i64::from(self.min_candidate_nodes_absolute);
        }
        if candidates > n {
            candidates = n;
        }
        usize::try_from(candidates).unwrap_or(num_nodes)
    }
}

/// The resolved profiles of a configuration, and how it is built from h-cfg's effective
/// `KubeSchedulerConfiguration` ([`crate::snapshot::scheduler_config`]).
mod from_config {
    use super::*;
    use crate::snapshot::scheduler_config as cfg;
    use cfg::{ExtensionPoint, KubeSchedulerConfiguration, KubeSchedulerProfile, PluginArgs};

    fn resources(r: &[cfg::ResourceSpec]) -> Vec<ResourceSpec> {
        r.iter()
            .map(|r| ResourceSpec::new(&r.name, r.weight.filter(|w| *w != 0).unwrap_or(1)))
            .collect()
    }

    fn args<'a>(p: &'a KubeSchedulerProfile, plugin: &str) -> Option<&'a PluginArgs> {
        p.args(plugin)
    }

    /// The profile's enabled filters and score weights (upstream's plugin set after
    /// defaulting: `enabled_at` per extension point).
    fn plugins_of(p: &KubeSchedulerProfile) -> Plugins {
        let on = |point: ExtensionPoint, name: &str| p.enabled_at(point, name);
        let weight_at = |point: ExtensionPoint, name: &str| {
            p.plugins
                .as_ref()
                .and_then(|pl| pl.weight_at(point, name))
                .map_or(0, i64::from)
        };
        let weight = |name: &str| weight_at(ExtensionPoint::Score, name);
        Plugins {
            node_unschedulable: on(ExtensionPoint::Filter, "NodeUnschedulable"),
            node_name: on(ExtensionPoint::Filter, "NodeName"),
            taint_toleration: on(ExtensionPoint::Filter, "TaintToleration"),
            node_affinity: on(ExtensionPoint::Filter, "NodeAffinity"),
            node_ports: on(ExtensionPoint::Filter, "NodePorts"),
            node_resources_fit: on(ExtensionPoint::Filter, "NodeResourcesFit"),
            pod_topology_spread: on(ExtensionPoint::Filter, "PodTopologySpread"),
            inter_pod_affinity: on(ExtensionPoint::Filter, "InterPodAffinity"),
            dynamic_resources: on(ExtensionPoint::Filter, "DynamicResources"),
            default_preemption: on(ExtensionPoint::PostFilter, "DefaultPreemption"),
            weights: ScoreWeights {
                taint_toleration: weight("TaintToleration"),
                node_affinity: weight("NodeAffinity"),
                node_resources_fit: weight("NodeResourcesFit"),
                balanced_allocation: weight("NodeResourcesBalancedAllocation"),
                pod_topology_spread: weight("PodTopologySpread"),
                inter_pod_affinity: weight("InterPodAffinity"),
                placement_pod_group_pods_count: weight_at(
                    ExtensionPoint::PlacementScore,
                    "PodGroupPodsCount",
                ),
                placement_node_resources_fit: weight_at(
                    ExtensionPoint::PlacementScore,
                    "NodeResourcesFit",
                ),
            },
        }
    }

    /// NodeResourcesFit's `scoringStrategy`: its type (LeastAllocated unless named) and its
    /// resources with their weights (upstream's defaults when none are listed).
    fn scoring_strategy_of(s: &cfg::ScoringStrategy) -> ScoringStrategy {
        let strategy = match s.type_.as_deref() {
            Some(cfg::MOST_ALLOCATED) => Strategy::MostAllocated,
            Some(cfg::REQUESTED_TO_CAPACITY_RATIO) => Strategy::RequestedToCapacityRatio {
                shape: s
                    .requested_to_capacity_ratio
                    .iter()
                    .flat_map(|r| &r.shape)
                    .map(|pt| ShapePoint {
                        utilization: i64::from(pt.utilization),
                        score: i64::from(pt.score),
                    })
                    .collect(),
            },
            _ => Strategy::LeastAllocated,
        };
        ScoringStrategy {
            strategy,
            resources: if s.resources.is_empty() {
                default_resources()
            } else {
                resources(&s.resources)
            },
        }
    }

    /// PodTopologySpread's default constraints: the listed ones under `List` defaulting, else
    /// the system defaults.
    fn spread_defaults_of(a: &cfg::PodTopologySpreadArgs) -> SpreadDefaults {
        if a.defaulting_type.as_deref() == Some(cfg::LIST_DEFAULTING) {
            SpreadDefaults::List(
                a.default_constraints
                    .iter()
                    .map(|c| DefaultConstraint {
                        max_skew: c.max_skew,
                        topology_key: c.topology_key.clone(),
                        hard: c.when_unsatisfiable == "DoNotSchedule",
                    })
                    .collect(),
            )
        } else {
            SpreadDefaults::System
        }
    }

    impl Profile {
        /// The simulator's profile for `p`, one profile of `config` after
        /// [`cfg::effective`] (plugins expanded, args defaulted): enabled filters, score
        /// weights, plugin args; the profile's `percentageOfNodesToScore`, else the
        /// configuration's (0: adaptive).
        pub(crate) fn from_config(
            p: &KubeSchedulerProfile,
            config: &KubeSchedulerConfiguration,
        ) -> Self {
            let d = Self::default();
            let plugins = plugins_of(p);
            let mut out = Self {
                scheduler_name: p.name().to_owned(),
                plugins,
                percentage_of_nodes_to_score: p
                    .percentage_of_nodes_to_score
                    .or(config.percentage_of_nodes_to_score)
                    .filter(|v| *v != 0),
                ..d
            };
            if let Some(PluginArgs::NodeResourcesFit(a)) = args(p, "NodeResourcesFit") {
                out.ignored_resources.clone_from(&a.ignored_resources);
                out.ignored_resource_groups
                    .clone_from(&a.ignored_resource_groups);
                if let Some(s) = &a.scoring_strategy {
                    out.fit = scoring_strategy_of(s);
                }
            }
            if let Some(PluginArgs::NodeResourcesBalancedAllocation(a)) =
                args(p, "NodeResourcesBalancedAllocation")
                && !a.resources.is_empty()
            {
                out.balanced_resources = resources(&a.resources);
            }
            if let Some(PluginArgs::PodTopologySpread(a)) = args(p, "PodTopologySpread") {
                out.spread = spread_defaults_of(a);
            }
            if let Some(PluginArgs::InterPodAffinity(a)) = args(p, "InterPodAffinity") {
                out.hard_pod_affinity_weight = i64::from(a.hard_pod_affinity_weight.unwrap_or(1));
                out.ignore_preferred_terms_of_existing_pods =
                    a.ignore_preferred_terms_of_existing_pods;
            }
            if let Some(PluginArgs::NodeAffinity(a)) = args(p, "NodeAffinity") {
                out.added_affinity = a.added_affinity.as_ref().map(AddedAffinity::compile);
            }
            if let Some(PluginArgs::DefaultPreemption(a)) = args(p, "DefaultPreemption") {
                out.min_candidate_nodes_percentage = a.min_candidate_nodes_percentage.unwrap_or(10);
                out.min_candidate_nodes_absolute = a.min_candidate_nodes_absolute.unwrap_or(100);
            }
            if let Some(PluginArgs::DynamicResources(a)) = args(p, "DynamicResources") {
                let secs = a.binding_timeout_seconds().round();
                out.dra_binding_timeout_seconds = if secs.is_finite() && secs >= 0.0 {
                    // Saturating: a timeout past u32 seconds (136 years) is "never".
                    secs.min(f64::from(u32::MAX)) as u32
                } else {
                    DEFAULT_BINDING_TIMEOUT_SECONDS
                };
            }
            out
        }
    }

    impl Profiles {
        /// Every profile of `config` (after [`cfg::effective`]), and its extenders (named by
        /// their `urlPrefix`).
        pub(crate) fn from_config(config: &KubeSchedulerConfiguration) -> Self {
            let list = config
                .profiles
                .iter()
                .map(|p| Profile::from_config(p, config))
                .collect();
            let extenders = config
                .extenders
                .iter()
                .map(|e| e.url_prefix.clone())
                .collect();
            Self::new(list, extenders)
        }
    }
}

/// `v1helper.IsExtendedResourceName`: a name outside `kubernetes.io/` with a domain prefix and
/// not a `requests.` quota name.
pub(crate) fn is_extended_resource(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    !native && !name.starts_with("requests.")
}

/// Every profile of the configuration the simulator runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct Profiles {
    /// In configuration order; never empty.
    list: Arc<Vec<Profile>>,
    /// The configuration's extenders (names/URLs), not simulated.
    pub extenders: Vec<String>,
    /// Whether a configuration was supplied (`--scheduler-config`).
    pub configured: bool,
}

impl Default for Profiles {
    fn default() -> Self {
        Self {
            list: Arc::new(vec![Profile::default()]),
            extenders: Vec::new(),
            configured: false,
        }
    }
}

/// Index of a profile in [`Profiles`].
pub(crate) type ProfileId = u16;

impl Profiles {
    /// `list` as configured (an empty list gets the default profile, as kube-scheduler does).
    pub fn new(list: Vec<Profile>, extenders: Vec<String>) -> Self {
        let list = if list.is_empty() {
            vec![Profile::default()]
        } else {
            list
        };
        Self {
            list: Arc::new(list),
            extenders,
            configured: true,
        }
    }

    /// The profile serving `scheduler_name` (empty: `default-scheduler`).
    pub(crate) fn id_for(&self, scheduler_name: &str) -> Option<ProfileId> {
        let name = if scheduler_name.is_empty() {
            DEFAULT_SCHEDULER_NAME
        } else {
            scheduler_name
        };
        self.list
            .iter()
            .position(|p| p.scheduler_name == name)
            .and_then(|i| ProfileId::try_from(i).ok())
    }

    /// The profile `id`, or the first one.
    pub(crate) fn get(&self, id: ProfileId) -> &Profile {
        self.list
            .get(usize::from(id))
            .unwrap_or_else(|| &self.list[0])
    }

    /// The profile serving `scheduler_name`.
    #[cfg(test)]
    pub(crate) fn for_name(&self, scheduler_name: &str) -> Option<&Profile> {
        self.id_for(scheduler_name).map(|id| self.get(id))
    }

    /// Every profile.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Profile> {
        self.list.iter()
    }

    /// The plan note saying how `percentageOfNodesToScore` is applied (`compat`: the
    /// simulation samples nodes as upstream does), when a profile or the configuration sets it
    /// (the catalogue's `percentage-compat` or `percentage-exhaustive`, with the profiles).
    pub(crate) fn percentage_note(&self, compat: bool) -> Option<crate::notes::NoteUse> {
        use crate::notes::{Note, NoteUse};
        let set: Vec<String> = self
            .iter()
            .filter_map(|p| {
                p.percentage_of_nodes_to_score
                    .map(|v| format!("{} {v}%", p.scheduler_name))
            })
            .collect();
        if set.is_empty() {
            return None;
        }
        Some(NoteUse {
            note: if compat {
                Note::PercentageCompat
            } else {
                Note::PercentageExhaustive
            },
            detail: Some(set.join(", ")),
        })
    }

    /// Whether every profile is the default one and no extender is configured: the
    /// simulation is today's.
    #[cfg(test)]
    pub(crate) fn is_default(&self) -> bool {
        self.extenders.is_empty() && self.list.len() == 1 && self.list[0].is_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_profile_is_kube_scheduler_defaults() {
        let p = Profile::default();
        assert_eq!(p.scheduler_name, "default-scheduler");
        assert_eq!(p.fit.describe(), "LeastAllocated on cpu, memory");
        assert_eq!(p.plugins.weights.taint_toleration, 3);
        assert_eq!(p.plugins.weights.pod_topology_spread, 2);
        assert!(p.spread.is_system());
        assert_eq!(p.dra_binding_timeout_seconds, 600);
        assert!(Profiles::default().is_default());
    }

    #[test]
    fn system_default_constraints_are_zone_5_and_hostname_3_schedule_anyway() {
        let c = system_default_constraints();
        assert!(c.iter().all(|c| !c.hard));
        assert!(
            c.iter()
                .any(|c| c.topology_key == LABEL_ZONE && c.max_skew == 5)
        );
        assert!(
            c.iter()
                .any(|c| c.topology_key == LABEL_HOSTNAME && c.max_skew == 3)
        );
    }

    #[test]
    fn profiles_are_found_by_scheduler_name_and_empty_means_default() {
        let gpu = Profile {
            scheduler_name: "gpu-binpack".into(),
            ..Profile::default()
        };
        let ps = Profiles::new(vec![Profile::default(), gpu], Vec::new());
        assert_eq!(ps.id_for(""), Some(0));
        assert_eq!(ps.id_for("default-scheduler"), Some(0));
        assert_eq!(ps.id_for("gpu-binpack"), Some(1));
        assert_eq!(ps.id_for("volcano"), None);
        let only_gpu = Profiles::new(
            vec![Profile {
                scheduler_name: "gpu-binpack".into(),
                ..Profile::default()
            }],
            Vec::new(),
        );
        assert_eq!(
            only_gpu.id_for(""),
            None,
            "no profile serves the default name"
        );
    }

    #[test]
    fn num_candidates_follows_calculate_num_candidates() {
        // default_preemption_test.go TestCalculateNumCandidates.
        let p = |pct: i32, abs: i32| Profile {
            min_candidate_nodes_percentage: pct,
            min_candidate_nodes_absolute: abs,
            ..Profile::default()
        };
        assert_eq!(p(10, 100).num_candidates(10), 10, "no need to sample");
        assert_eq!(
            p(40, 100).num_candidates(1000),
            400,
            "more than minCandidateNodesAbsolute"
        );
        assert_eq!(
            p(10, 100).num_candidates(500),
            100,
            "less than minCandidateNodesAbsolute"
        );
        assert_eq!(p(0, 0).num_candidates(10), 0, "all zero");
        assert_eq!(
            p(0, 100).num_candidates(1000),
            100,
            "minCandidateNodesPercentage is zero"
        );
        assert_eq!(
            p(10, 0).num_candidates(1000),
            100,
            "minCandidateNodesAbsolute is zero"
        );
    }

    #[test]
    fn fit_ignores_extended_resources_by_name_and_group_only() {
        let p = Profile {
            ignored_resources: vec!["example.com/foo".into(), "cpu".into()],
            ignored_resource_groups: vec!["nvidia.com".into()],
            ..Profile::default()
        };
        assert!(p.fit_ignores("example.com/foo"));
        assert!(p.fit_ignores("nvidia.com/gpu"));
        assert!(!p.fit_ignores("example.com/bar"));
        assert!(!p.fit_ignores("cpu"), "native resources are never ignored");
        assert!(!p.fit_ignores("hugepages-2Mi"));
    }
}

#[cfg(test)]
mod from_config_tests {
    use super::*;
    use crate::snapshot::scheduler_config::{KubeSchedulerConfiguration, effective};

    fn config(yaml: &str) -> KubeSchedulerConfiguration {
        effective(&serde_saphyr::from_str(yaml).expect("valid yaml"))
    }

    #[test]
    fn the_default_configuration_is_the_default_profile() {
        let c = KubeSchedulerConfiguration::default_config();
        let ps = Profiles::from_config(&c);
        let p = ps.get(0);
        assert_eq!(*p, Profile::default(), "{p:#?}");
        assert!(ps.extenders.is_empty());
    }

    #[test]
    fn gpu_binpack_profile_with_args() {
        let c = config(
            r#"
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 30
profiles:
- schedulerName: default-scheduler
- schedulerName: gpu-binpack
  percentageOfNodesToScore: 50
  plugins:
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
      enabled:
      - name: NodeResourcesFit
        weight: 5
  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResourceGroups: [example.com]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources:
        - name: nvidia.com/gpu
          weight: 3
        - name: cpu
        requestedToCapacityRatio:
          shape:
          - {utilization: 0, score: 0}
          - {utilization: 100, score: 10}
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 1, topologyKey: rack, whenUnsatisfiable: DoNotSchedule}
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: 5}
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 0, ignorePreferredTermsOfExistingPods: true}
  - name: DynamicResources
    args: {bindingTimeout: 2m}
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: pool, operator: In, values: [gpu]}
"#,
        );
        let ps = Profiles::from_config(&c);
        let d = ps.for_name("").expect("default-scheduler");
        assert_eq!(d.percentage_of_nodes_to_score, Some(30), "the global one");
        let g = ps.for_name("gpu-binpack").expect("gpu-binpack");
        assert_eq!(g.percentage_of_nodes_to_score, Some(50));
        assert_eq!(g.plugins.weights.node_resources_fit, 5);
        assert_eq!(g.plugins.weights.balanced_allocation, 0);
        assert_eq!(g.plugins.weights.taint_toleration, 3);
        assert_eq!(
            g.fit.describe(),
            "RequestedToCapacityRatio on nvidia.com/gpu (weight 3), cpu (weight 1)"
        );
        assert!(g.fit_ignores("example.com/foo"));
        assert_eq!(
            g.spread,
            SpreadDefaults::List(vec![DefaultConstraint {
                max_skew: 1,
                topology_key: "rack".into(),
                hard: true
            }])
        );
        assert_eq!(g.num_candidates(1000), 200);
        assert_eq!(g.hard_pod_affinity_weight, 0);
        assert!(g.ignore_preferred_terms_of_existing_pods);
        assert_eq!(g.dra_binding_timeout_seconds, 120);
        assert!(
            g.added_affinity
                .as_ref()
                .is_some_and(|a| a.required.is_some())
        );
        assert!(!g.is_default());
    }
}
