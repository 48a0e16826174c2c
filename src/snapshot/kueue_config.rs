//! Kueue's own configuration: the manager's `Configuration` (`config.kueue.x-k8s.io`), as
//! Kueue's `--config` file (the `controller_manager_config.yaml` key of the
//! `kueue-system/kueue-manager-config` ConfigMap) holds it. Pure: no IO.
//!
//! Typed after kubernetes-sigs/kueue (August 2026): `apis/config/v1beta2/configuration_types.go`
//! (the version Kueue converts to) and `apis/config/v1beta1/configuration_types.go` (still
//! served: `cmd/kueue/main.go` registers both). Only the fields that change admission are
//! typed: `waitForPodsReady`, `fairSharing`, `admissionFairSharing`, `resources`
//! (`excludeResourcePrefixes`, `transformations`, `quotaCheckStrategy`), `featureGates`,
//! `manageJobsWithoutQueueName`, `managedJobsNamespaceSelector`, `integrations.frameworks`
//! and `namespace`. Every other field (webhook, metrics, leader election, MultiKueue, …) is
//! tolerated and not kept: Kueue decodes strictly, but wasctl has no use for them. A field
//! wasctl types with the wrong type is an error naming its path.
//!
//! Defaults are Kueue's own:
//! - v1beta2: `apis/config/v1beta2/defaults.go` `SetDefaults_Configuration` — notably
//!   `waitForPodsReady` is always set (timeout 30m, blockAdmission false, recoveryTimeout =
//!   timeout, requeuing Eviction/60/3600): v1beta2 has no `enable`, and
//!   `pkg/util/waitforpodsready.Enabled` is "configured and the `DisableWaitForPodsReady` gate
//!   off";
//! - v1beta1: `apis/config/v1beta1/defaults.go` (waitForPodsReady only with `enable: true`,
//!   timeout 5m, blockAdmission = enable; fairSharing strategies
//!   [LessThanOrEqualToFinalShare, LessThanInitialShare] when enabled without any), then
//!   `configuration_conversion.go` `Convert_v1beta1_Configuration_To_v1beta2_Configuration`
//!   (a disabled `fairSharing`/`waitForPodsReady` becomes absent). Kueue's decoder defaults the
//!   version read and converts; v1beta2's defaults do not run again.
//!
//! Validation: the checks of `pkg/config/validation.go` on these fields (`validateWaitForPodsReady`,
//! `validateFairSharing`, `validateResourceTransformations`, `validateQuotaCheckStrategy`).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::{Deserialize, Serialize};

use super::scheduler_config::{FieldError, parse_go_duration};

/// The kind.
pub(crate) const KIND: &str = "Configuration";
/// The API group.
pub(crate) const GROUP: &str = "config.kueue.x-k8s.io";
/// The version Kueue converts to and wasctl prints.
pub(crate) const API_VERSION: &str = "config.kueue.x-k8s.io/v1beta2";
/// The older version Kueue still reads.
pub(crate) const API_VERSION_V1BETA1: &str = "config.kueue.x-k8s.io/v1beta1";
/// Where Kueue's manifests (`config/components/manager/kustomization.yaml`, namePrefix
/// `kueue-`; the Helm chart's `{{fullname}}-manager-config`) put the configuration.
pub(crate) const CONFIGMAP_NAMESPACE: &str = "kueue-system";
/// The ConfigMap's name.
pub(crate) const CONFIGMAP_NAME: &str = "kueue-manager-config";
/// The ConfigMap's key the manager mounts as its `--config` file.
pub(crate) const CONFIGMAP_KEY: &str = "controller_manager_config.yaml";

/// Kueue's default namespace (`DefaultNamespace`).
const DEFAULT_NAMESPACE: &str = "kueue-system";
/// `DefaultWaitForPodsReadyTimeout` (v1beta2).
const DEFAULT_PODS_READY_TIMEOUT_V1BETA2: u64 = 30 * 60;
/// `defaultPodsReadyTimeout` (v1beta1).
const DEFAULT_PODS_READY_TIMEOUT_V1BETA1: u64 = 5 * 60;

/// A Go duration (`metav1.Duration`), kept in milliseconds and printed as Go prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct GoDuration {
    /// Milliseconds (negative values are kept for validation to refuse).
    pub millis: i64,
}

impl GoDuration {
    /// Whole seconds.
    pub(crate) const fn secs(s: u64) -> Self {
        Self {
            millis: s as i64 * 1000,
        }
    }
}

impl std::fmt::Display for GoDuration {
    /// Go's `time.Duration.String` for whole milliseconds: `30m0s`, `1h0m0s`, `1.5s`, `0s`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.millis == 0 {
            return f.write_str("0s");
        }
        let sign = if self.millis < 0 { "-" } else { "" };
        let ms = self.millis.unsigned_abs();
        if ms < 1000 {
            return write!(f, "{sign}{ms}ms");
        }
        let (h, m, s, frac) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
        let secs = if frac == 0 {
            format!("{s}s")
        } else {
            let f = format!("{frac:03}");
            format!("{s}.{}s", f.trim_end_matches('0'))
        };
        match (h, m) {
            (0, 0) => write!(f, "{sign}{secs}"),
            (0, m) => write!(f, "{sign}{m}m{secs}"),
            (h, m) => write!(f, "{sign}{h}h{m}m{secs}"),
        }
    }
}

impl Serialize for GoDuration {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let secs = parse_go_duration(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{text}` is not a duration (write it as Go does: `30m`, `1h30m`, `90s`)"
            ))
        })?;
        Ok(Self {
            millis: (secs * 1000.0).round() as i64,
        })
    }
}

/// A resource quantity, as written (`"5Ki"`, `10`, `-1024`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct QuantityText(pub String);

impl<'de> Deserialize<'de> for QuantityText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Q {
            S(String),
            I(i64),
            F(f64),
        }
        let text = match Q::deserialize(d)
            .map_err(|_| serde::de::Error::custom("expected a quantity (`5Ki`, `10`, `500m`)"))?
        {
            Q::S(s) => s,
            Q::I(i) => i.to_string(),
            Q::F(f) => f.to_string(),
        };
        if super::quantity::quantity_scaled(&text, 9).is_err()
            && super::quantity::quantity_scaled(&text, 0).is_err()
        {
            return Err(serde::de::Error::custom(format!(
                "`{text}` is not a quantity"
            )));
        }
        Ok(Self(text))
    }
}

/// `RequeuingStrategy.timestamp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum RequeuingTimestamp {
    /// From the workload's creation.
    Creation,
    /// From its last eviction (the default).
    Eviction,
}

/// `waitForPodsReady.requeuingStrategy`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequeuingStrategy {
    /// Which timestamp orders a requeued workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<RequeuingTimestamp>,
    /// Requeues before the workload is deactivated (`None`: endless).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit_count: Option<i32>,
    /// Base of the exponential backoff, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_base_seconds: Option<i32>,
    /// Longest backoff, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_max_seconds: Option<i32>,
}

/// `waitForPodsReady` (v1beta2 shape; v1beta1's `enable` is read by the conversion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WaitForPodsReady {
    /// How long an admitted workload may take to get every pod ready before Kueue evicts and
    /// requeues it (`None` while undefaulted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<GoDuration>,
    /// Kueue admits nothing else until every admitted workload's pods are ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_admission: Option<bool>,
    /// How an evicted workload is requeued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requeuing_strategy: Option<RequeuingStrategy>,
    /// Timeout after a running workload loses readiness (`0s`: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_timeout: Option<GoDuration>,
}

/// A fair-sharing preemption strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum PreemptionStrategy {
    /// `LessThanOrEqualToFinalShare`.
    LessThanOrEqualToFinalShare,
    /// `LessThanInitialShare`.
    LessThanInitialShare,
}

/// `fairSharing`: present means enabled (v1beta2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FairSharing {
    /// The preemption strategies, in order.
    #[serde(default)]
    pub preemption_strategies: Vec<PreemptionStrategy>,
}

/// `admissionFairSharing`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AdmissionFairSharing {
    /// Half-life of the usage that orders LocalQueues.
    #[serde(default)]
    pub usage_half_life_time: GoDuration,
    /// How often usage is sampled (default 5m).
    #[serde(default)]
    pub usage_sampling_interval: GoDuration,
    /// Weight of each resource in the usage (default 1).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_weights: BTreeMap<String, f64>,
}

/// `resources.transformations[].strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum TransformationStrategy {
    /// Keep the input resource beside the outputs (the default).
    Retain,
    /// Replace the input with the outputs.
    Replace,
}

/// One `resources.transformations` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceTransformation {
    /// The requested resource transformed.
    pub input: String,
    /// Retain or Replace (defaulted to Retain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<TransformationStrategy>,
    /// A requested resource whose quantity multiplies the input before the outputs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub multiply_by: String,
    /// Output resources, per unit of input.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outputs: BTreeMap<String, QuantityText>,
}

/// `resources.quotaCheckStrategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum QuotaCheckStrategy {
    /// Every requested resource is checked against quota (Kueue's behaviour without it).
    BlockUndeclared,
    /// Resources the ClusterQueue does not cover are ignored.
    IgnoreUndeclared,
}

/// `resources`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Resources {
    /// Which resources quota checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_check_strategy: Option<QuotaCheckStrategy>,
    /// Resource-name prefixes Kueue ignores.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_resource_prefixes: Vec<String>,
    /// Transformations of requests before quota.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transformations: Vec<ResourceTransformation>,
}

/// `integrations` (only the frameworks are kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Integrations {
    /// The job frameworks Kueue manages (`batch/job`, `jobset.x-k8s.io/jobset`, `pod`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frameworks: Vec<String>,
}

/// Kueue's manager `Configuration`, the fields that change admission (v1beta2 shape).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KueueConfiguration {
    /// `config.kueue.x-k8s.io/v1beta2` once converted.
    #[serde(default)]
    pub api_version: String,
    /// `Configuration`.
    #[serde(default)]
    pub kind: String,
    /// Kueue's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Jobs without a queue name are managed (suspended until admitted).
    #[serde(default)]
    pub manage_jobs_without_queue_name: bool,
    /// Namespaces whose jobs Kueue manages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_jobs_namespace_selector: Option<LabelSelector>,
    /// All-or-nothing readiness: evict and requeue after a timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_pods_ready: Option<WaitForPodsReady>,
    /// The job frameworks integrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrations: Option<Integrations>,
    /// Fair sharing (present: on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_sharing: Option<FairSharing>,
    /// Admission fair sharing (present: on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission_fair_sharing: Option<AdmissionFairSharing>,
    /// Resource exclusions and transformations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,
    /// Feature gates set in the file (over Kueue's defaults, [`GATES`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub feature_gates: BTreeMap<String, bool>,
}

/// v1beta1's `waitForPodsReady` and `fairSharing`, which carry `enable`.
#[derive(Debug, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct V1beta1Switches {
    #[serde(default)]
    wait_for_pods_ready: Option<V1beta1Enable>,
    #[serde(default)]
    fair_sharing: Option<V1beta1Enable>,
}

#[derive(Debug, Deserialize, Default)]
struct V1beta1Enable {
    #[serde(default)]
    enable: bool,
}

/// Kueue's feature gates and their defaults at the stored source
/// (`pkg/features/kube_features.go`, `defaultVersionedFeatureGates`, the newest entry of
/// each). The ones marked in [`MODELED_GATES`] change what wasctl simulates.
pub(crate) const GATES: &[(&str, bool)] = &[
    ("AdmissionFairSharing", true),
    ("AdmissionGatedBy", true),
    ("AssignQueueLabelsForPods", true),
    ("CleanupProvisioningRequestsOnEviction", true),
    ("ConcurrentAdmission", false),
    ("CustomMetricLabels", false),
    ("DeferRayServiceFinalizationForRedisCleanup", true),
    ("DisableWaitForPodsReady", false),
    ("ElasticJobsViaWorkloadSlices", true),
    ("ElasticJobsViaWorkloadSlicesWithTAS", false),
    ("FailureRecoveryPolicy", false),
    ("FairSharingPreemptWithinNominal", true),
    ("FairSharingPrioritizeNonBorrowing", true),
    ("FastQuotaReleaseInPodIntegration", false),
    ("FinishOrphanedWorkloads", true),
    ("FlavorFungibility", true),
    ("FlavorFungibilityPreserveScanProgress", true),
    ("KueueDRAIntegration", true),
    ("KueueDRAIntegrationConsumableCapacity", false),
    ("KueueDRAIntegrationExtendedResource", true),
    ("KueueDRAIntegrationPartitionableDevices", true),
    ("KueueDRARejectWorkloadsWhenDRADisabled", true),
    ("LWSImmutableGroupSize", true),
    ("LocalQueueMetrics", true),
    ("ManagedJobsNamespaceSelectorAlwaysRespected", true),
    ("MetricForWorkloadCreationLatency", true),
    ("MetricsForCohorts", true),
    ("MultiKueue", true),
    ("MultiKueueAdaptersForCustomJobs", true),
    ("MultiKueueClusterProfile", false),
    ("MultiKueueIncrementalDispatcherConfig", true),
    ("MultiKueueIncrementalDispatcherRespectConfigOrder", true),
    ("MultiKueueKubeConfigPathValidation", true),
    ("MultiKueueManagerQuotaAutomation", false),
    ("MultiKueueOrchestratedPreemption", false),
    ("MultiKueueRemoteSpecSync", true),
    ("PartialAdmission", true),
    ("PodIntegrationValidateGroupOwner", true),
    ("PrioritizePreemptorWorkloads", false),
    ("PriorityBoost", false),
    ("PrioritySortingWithinCohort", true),
    ("QuotaCheckStrategy", true),
    ("ReclaimablePods", true),
    ("RecomputeAssignmentUponPreemptionTargetsOverlap", true),
    ("RejectUpdatesToCQWithInvalidOnFlavors", false),
    ("RemoveFinalizersWithStrictPatch", true),
    ("SchedulerLibraryIntegration", false),
    ("SchedulingEquivalenceHashing", true),
    ("ShortWorkloadNames", false),
    ("SkipAncestorCheckForDeletedWorkloads", true),
    ("SkipReassignmentForPodOwnedWorkloads", true),
    ("SparkApplicationIntegration", false),
    ("TASAssignmentsEncodingByHostnamePrefix", true),
    ("TASBalancedPlacement", false),
    ("TASCacheNodeMatchResults", true),
    ("TASCacheTopologyTree", true),
    ("TASCachingRemainingResources", true),
    ("TASFailedNodeReplacement", true),
    ("TASFailedNodeReplacementFailFast", true),
    ("TASHandleOverlappingFlavors", true),
    ("TASMultiLayerTopology", true),
    ("TASProfileMixed", true),
    ("TASRecomputeAssignmentWithinSchedulingCycle", true),
    ("TASReplaceNodeDueToNotReadyOverFixedTime", false),
    ("TASReplaceNodeOnNodeTaints", true),
    ("TASReplaceNodeOnPodTermination", true),
    ("TASRespectNodeAffinityPreferred", false),
    ("TASValidateWorkloadSliceSize", true),
    ("TLSOptions", true),
    ("TopologyAwareScheduling", true),
    ("UnadmittedWorkloadsExplicitStatus", false),
    ("UnadmittedWorkloadsObservability", true),
    ("ValidateRayAndSparkJobUpdates", true),
    ("VectorizedResourceRequests", true),
    ("VisibilityOnDemand", true),
    ("WorkloadIdentifierAnnotations", true),
    ("WorkloadPriorityClassDefaulting", true),
    ("WorkloadRequestUseMergePatch", false),
    ("WorkloadValidateResourcesAreNonNegative", true),
    ("WorkloadValidationForPodSetMetadata", true),
];

/// Gates whose value the admission simulation follows:
/// - `DisableWaitForPodsReady`: waitForPodsReady off (`waitforpodsready.Enabled`);
/// - `ReclaimablePods`: reclaimable pods lower the counted requests
///   (`podSetsCountsAfterReclaim`);
/// - `QuotaCheckStrategy`: `resources.quotaCheckStrategy` is read (validation);
/// - `AdmissionFairSharing`: `admissionFairSharing` applies (reported, not simulated).
///
/// Every other gate that changes admission (`FlavorFungibility`, `PartialAdmission`,
/// `PrioritySortingWithinCohort`, `FairSharing*`, `TopologyAwareScheduling` and the `TAS*`
/// gates, `KueueDRAIntegration*`, `ElasticJobsViaWorkloadSlices`, `ConcurrentAdmission`,
/// `PriorityBoost`, `PrioritizePreemptorWorkloads`) is simulated at its default only.
pub(crate) const MODELED_GATES: &[&str] = &[
    "DisableWaitForPodsReady",
    "ReclaimablePods",
    "QuotaCheckStrategy",
    "AdmissionFairSharing",
];

impl KueueConfiguration {
    /// Kueue's configuration when none is given: v1beta2's defaults over an empty file
    /// (`config.Load` with no file: `scheme.Default(&cfg)`).
    pub(crate) fn default_config() -> Self {
        let mut c = Self {
            api_version: API_VERSION.to_owned(),
            kind: KIND.to_owned(),
            ..Self::default()
        };
        set_defaults_v1beta2(&mut c);
        c
    }

    /// A feature gate's value: the file's, else Kueue's default (unknown: off).
    pub(crate) fn gate(&self, name: &str) -> bool {
        self.feature_gates.get(name).copied().unwrap_or_else(|| {
            GATES
                .iter()
                .find(|(n, _)| *n == name)
                .is_some_and(|(_, d)| *d)
        })
    }

    /// The waitForPodsReady settings when Kueue runs with them (`waitforpodsready.Enabled`).
    pub(crate) fn wait_for_pods_ready(&self) -> Option<&WaitForPodsReady> {
        if self.gate("DisableWaitForPodsReady") {
            return None;
        }
        self.wait_for_pods_ready.as_ref()
    }

    /// Fair sharing is on.
    pub(crate) fn fair_sharing_enabled(&self) -> bool {
        self.fair_sharing.is_some()
    }

    /// Known gates set in the file away from their default that the simulation does not
    /// follow ([`MODELED_GATES`]): it runs them at Kueue's default.
    pub(crate) fn unmodeled_gates(&self) -> Vec<&str> {
        self.feature_gates
            .iter()
            .filter(|(g, v)| {
                GATES.iter().any(|(n, d)| n == g && d != *v) && !MODELED_GATES.contains(&g.as_str())
            })
            .map(|(g, _)| g.as_str())
            .collect()
    }

    /// Feature gates set in the file that this Kueue does not know.
    pub(crate) fn unknown_gates(&self) -> Vec<&str> {
        self.feature_gates
            .keys()
            .filter(|g| !GATES.iter().any(|(n, _)| n == g))
            .map(String::as_str)
            .collect()
    }
}

/// `apis/config/v1beta2/defaults.go` `SetDefaults_Configuration`, for the kept fields.
fn set_defaults_v1beta2(c: &mut KueueConfiguration) {
    let ns = c
        .namespace
        .get_or_insert_with(|| DEFAULT_NAMESPACE.to_owned())
        .clone();
    let w = c
        .wait_for_pods_ready
        .get_or_insert_with(WaitForPodsReady::default);
    default_wait_for_pods_ready(w, DEFAULT_PODS_READY_TIMEOUT_V1BETA2, false);
    default_common(c, &ns);
}

/// The defaulting both versions share (integrations, the namespace selector, admission fair
/// sharing's sampling interval, transformation strategies).
fn default_common(c: &mut KueueConfiguration, ns: &str) {
    let i = c.integrations.get_or_insert_with(Integrations::default);
    if i.frameworks.is_empty() {
        i.frameworks = vec!["batch/job".to_owned()];
    }
    if c.managed_jobs_namespace_selector.is_none() {
        c.managed_jobs_namespace_selector = Some(LabelSelector {
            match_expressions: Some(vec![
                k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement {
                    key: "kubernetes.io/metadata.name".to_owned(),
                    operator: "NotIn".to_owned(),
                    values: Some(vec!["kube-system".to_owned(), ns.to_owned()]),
                },
            ]),
            match_labels: None,
        });
    }
    if let Some(afs) = &mut c.admission_fair_sharing
        && afs.usage_sampling_interval.millis == 0
    {
        afs.usage_sampling_interval = GoDuration::secs(5 * 60);
    }
    if let Some(r) = &mut c.resources {
        for t in &mut r.transformations {
            t.strategy.get_or_insert(TransformationStrategy::Retain);
        }
    }
}

/// waitForPodsReady's defaults: timeout (when zero), blockAdmission, recoveryTimeout =
/// timeout, requeuing strategy Eviction / 60 s / 3600 s.
fn default_wait_for_pods_ready(w: &mut WaitForPodsReady, timeout: u64, block: bool) {
    if w.timeout.is_none_or(|t| t.millis == 0) {
        w.timeout = Some(GoDuration::secs(timeout));
    }
    w.block_admission.get_or_insert(block);
    if w.recovery_timeout.is_none() {
        w.recovery_timeout = w.timeout;
    }
    let r = w
        .requeuing_strategy
        .get_or_insert_with(RequeuingStrategy::default);
    r.timestamp.get_or_insert(RequeuingTimestamp::Eviction);
    r.backoff_base_seconds.get_or_insert(60);
    r.backoff_max_seconds.get_or_insert(3600);
}

fn typed<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { String::new() } else { path };
        let message = e.inner().to_string();
        let message = message
            .rfind(" at line ")
            .map_or(message.as_str(), |i| &message[..i])
            .to_owned();
        FieldError { field, message }
    })
}

fn field_error(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// Types a `Configuration` document of either version, converts it to v1beta2 and applies
/// Kueue's defaults, then validates it. The error names the field path of the first problem.
pub(crate) fn from_value(value: serde_json::Value) -> Result<KueueConfiguration, FieldError> {
    let Some(map) = value.as_object() else {
        return Err(field_error("", "expected a Kueue Configuration object"));
    };
    let version = match map.get("apiVersion").and_then(|v| v.as_str()) {
        Some(v @ (API_VERSION | API_VERSION_V1BETA1)) => v.to_owned(),
        Some(other) => {
            return Err(field_error(
                "apiVersion",
                format!(
                    "`{other}` is not served by Kueue (it reads `{API_VERSION}` and `{API_VERSION_V1BETA1}`)"
                ),
            ));
        }
        None => {
            return Err(field_error(
                "apiVersion",
                format!("missing: Kueue needs `apiVersion: {API_VERSION}`"),
            ));
        }
    };
    if map.get("kind").and_then(|v| v.as_str()) != Some(KIND) {
        return Err(field_error("kind", format!("expected `{KIND}`")));
    }
    let v1beta1 = version == API_VERSION_V1BETA1;
    if !v1beta1 {
        // v1beta2 dropped `enable`: Kueue's strict decoder refuses it, and ignoring it would
        // turn `enable: false` into "on".
        for section in ["waitForPodsReady", "fairSharing"] {
            if map
                .get(section)
                .and_then(|s| s.as_object())
                .is_some_and(|s| s.contains_key("enable"))
            {
                return Err(field_error(
                    &format!("{section}.enable"),
                    format!(
                        "unknown field in `{API_VERSION}` (v1beta1 only): in v1beta2 `{section}` is on when present{}",
                        if section == "waitForPodsReady" {
                            " and defaulted on when absent (turn it off with the `DisableWaitForPodsReady` feature gate)"
                        } else {
                            "; remove it to turn fair sharing off"
                        }
                    ),
                ));
            }
        }
    }
    let switches: V1beta1Switches = if v1beta1 {
        typed(value.clone())?
    } else {
        V1beta1Switches::default()
    };
    let mut c: KueueConfiguration = typed(value)?;
    if v1beta1 {
        // apis/config/v1beta1/defaults.go, then configuration_conversion.go.
        let ns = c
            .namespace
            .get_or_insert_with(|| DEFAULT_NAMESPACE.to_owned())
            .clone();
        let wait_on = switches.wait_for_pods_ready.is_some_and(|w| w.enable);
        if wait_on {
            let w = c
                .wait_for_pods_ready
                .get_or_insert_with(WaitForPodsReady::default);
            default_wait_for_pods_ready(w, DEFAULT_PODS_READY_TIMEOUT_V1BETA1, true);
        } else {
            c.wait_for_pods_ready = None;
        }
        let fair_on = switches.fair_sharing.is_some_and(|f| f.enable);
        if fair_on {
            let f = c.fair_sharing.get_or_insert_with(FairSharing::default);
            if f.preemption_strategies.is_empty() {
                f.preemption_strategies = vec![
                    PreemptionStrategy::LessThanOrEqualToFinalShare,
                    PreemptionStrategy::LessThanInitialShare,
                ];
            }
        } else {
            c.fair_sharing = None;
        }
        default_common(&mut c, &ns);
        c.api_version = API_VERSION.to_owned();
    } else {
        set_defaults_v1beta2(&mut c);
    }
    if let Some(e) = validate(&c).into_iter().next() {
        return Err(e);
    }
    Ok(c)
}

/// `pkg/config/validation.go`, for the typed fields.
pub(crate) fn validate(c: &KueueConfiguration) -> Vec<FieldError> {
    let mut out = Vec::new();
    if let Some(w) = c.wait_for_pods_ready() {
        if w.timeout.is_some_and(|t| t.millis < 0) {
            out.push(field_error(
                "waitForPodsReady.timeout",
                "must be greater than or equal to 0",
            ));
        }
        if w.recovery_timeout.is_some_and(|t| t.millis < 0) {
            out.push(field_error(
                "waitForPodsReady.recoveryTimeout",
                "must be greater than or equal to 0",
            ));
        }
        if let Some(r) = &w.requeuing_strategy {
            for (name, v) in [
                ("backoffLimitCount", r.backoff_limit_count),
                ("backoffBaseSeconds", r.backoff_base_seconds),
                ("backoffMaxSeconds", r.backoff_max_seconds),
            ] {
                if v.is_some_and(|v| v < 0) {
                    out.push(field_error(
                        &format!("waitForPodsReady.requeuingStrategy.{name}"),
                        "must be greater than or equal to 0",
                    ));
                }
            }
        }
    }
    if let Some(f) = &c.fair_sharing {
        use PreemptionStrategy::*;
        let valid: [&[PreemptionStrategy]; 3] = [
            &[LessThanOrEqualToFinalShare],
            &[LessThanInitialShare],
            &[LessThanOrEqualToFinalShare, LessThanInitialShare],
        ];
        if f.preemption_strategies.is_empty() {
            out.push(field_error(
                "fairSharing.preemptionStrategies",
                "must be specified",
            ));
        } else if !valid.contains(&f.preemption_strategies.as_slice()) {
            out.push(field_error(
                "fairSharing.preemptionStrategies",
                "supported lists: [LessThanOrEqualToFinalShare], [LessThanInitialShare], [LessThanOrEqualToFinalShare, LessThanInitialShare]",
            ));
        }
    }
    if let Some(r) = &c.resources {
        let mut seen = std::collections::BTreeSet::new();
        for (i, t) in r.transformations.iter().enumerate() {
            if !seen.insert(t.input.as_str()) {
                out.push(field_error(
                    &format!("resources.transformations[{i}].input"),
                    format!("duplicate value `{}`", t.input),
                ));
            }
        }
        if c.gate("QuotaCheckStrategy")
            && r.quota_check_strategy == Some(QuotaCheckStrategy::IgnoreUndeclared)
            && !r.exclude_resource_prefixes.is_empty()
        {
            out.push(field_error(
                "resources.quotaCheckStrategy",
                "excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared",
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(v: serde_json::Value) -> KueueConfiguration {
        from_value(v).unwrap_or_else(|e| panic!("{e}"))
    }

    fn v1beta2(extra: serde_json::Value) -> serde_json::Value {
        let mut v = json!({"apiVersion": API_VERSION, "kind": KIND});
        if let (Some(m), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            m.extend(e.clone());
        }
        v
    }

    fn default_wait() -> WaitForPodsReady {
        WaitForPodsReady {
            timeout: Some(GoDuration::secs(1800)),
            block_admission: Some(false),
            recovery_timeout: Some(GoDuration::secs(1800)),
            requeuing_strategy: Some(RequeuingStrategy {
                timestamp: Some(RequeuingTimestamp::Eviction),
                backoff_limit_count: None,
                backoff_base_seconds: Some(60),
                backoff_max_seconds: Some(3600),
            }),
        }
    }

    // apis/config/v1beta2/defaults_test.go TestSetDefaults_Configuration: the defaults of an
    // empty configuration ("defaulting namespace", `defaultWaitForPodsReady`,
    // `defaultIntegrations`, `defaultManagedJobsNamespaceSelector`).
    #[test]
    fn v1beta2_defaults_as_kueue_defaults_test() {
        let c = load(v1beta2(json!({})));
        assert_eq!(c, KueueConfiguration::default_config());
        assert_eq!(c.namespace.as_deref(), Some("kueue-system"));
        assert_eq!(c.wait_for_pods_ready, Some(default_wait()));
        assert!(
            c.wait_for_pods_ready().is_some(),
            "on by default in v1beta2"
        );
        assert_eq!(
            c.integrations.as_ref().map(|i| i.frameworks.clone()),
            Some(vec!["batch/job".to_owned()])
        );
        let sel = c
            .managed_jobs_namespace_selector
            .as_ref()
            .and_then(|s| s.match_expressions.clone());
        assert_eq!(
            sel.and_then(|e| e.first().and_then(|r| r.values.clone())),
            Some(vec!["kube-system".to_owned(), "kueue-system".to_owned()])
        );
        assert!(!c.fair_sharing_enabled());
        assert!(!c.manage_jobs_without_queue_name);
    }

    // defaults_test.go "defaulting waitForPodsReady values".
    #[test]
    fn defaulting_wait_for_pods_ready_values() {
        let c = load(v1beta2(json!({"waitForPodsReady": {}})));
        assert_eq!(c.wait_for_pods_ready, Some(default_wait()));
    }

    // defaults_test.go "defaulting waitForPodsReady recoveryTimeout to timeout".
    #[test]
    fn defaulting_wait_for_pods_ready_recovery_timeout_to_timeout() {
        let c = load(v1beta2(json!({"waitForPodsReady": {"timeout": "5m"}})));
        let w = c.wait_for_pods_ready.unwrap_or_default();
        assert_eq!(w.timeout, Some(GoDuration::secs(300)));
        assert_eq!(w.recovery_timeout, Some(GoDuration::secs(300)));
        assert_eq!(w.block_admission, Some(false));
    }

    // defaults_test.go "respecting provided waitForPodsReady values".
    #[test]
    fn respecting_provided_wait_for_pods_ready_values() {
        let c = load(v1beta2(json!({"waitForPodsReady": {"timeout": "1m",
            "recoveryTimeout": "1m",
            "requeuingStrategy": {"timestamp": "Creation", "backoffBaseSeconds": 63, "backoffMaxSeconds": 1800}}})));
        let w = c.wait_for_pods_ready.unwrap_or_default();
        assert_eq!(w.timeout, Some(GoDuration::secs(60)));
        assert_eq!(w.recovery_timeout, Some(GoDuration::secs(60)));
        assert_eq!(
            w.requeuing_strategy,
            Some(RequeuingStrategy {
                timestamp: Some(RequeuingTimestamp::Creation),
                backoff_limit_count: None,
                backoff_base_seconds: Some(63),
                backoff_max_seconds: Some(1800),
            })
        );
    }

    // defaults_test.go "disabling waitForPodsReady recoveryTimeout with zero value".
    #[test]
    fn disabling_wait_for_pods_ready_recovery_timeout_with_zero_value() {
        let c = load(v1beta2(
            json!({"waitForPodsReady": {"timeout": "5m", "recoveryTimeout": "0s"}}),
        ));
        let w = c.wait_for_pods_ready.unwrap_or_default();
        assert_eq!(w.recovery_timeout, Some(GoDuration::default()));
    }

    // defaults_test.go "resources.transformations strategy".
    #[test]
    fn resources_transformations_strategy() {
        let c = load(v1beta2(json!({"resources": {"transformations": [
            {"input": "cpu"}, {"input": "memory", "strategy": "Replace"}]}})));
        let s: Vec<_> = c
            .resources
            .unwrap_or_default()
            .transformations
            .iter()
            .map(|t| t.strategy)
            .collect();
        assert_eq!(
            s,
            [
                Some(TransformationStrategy::Retain),
                Some(TransformationStrategy::Replace)
            ]
        );
    }

    // defaults_test.go "defaulting namespace" (the selector follows the namespace).
    #[test]
    fn a_namespace_moves_the_default_namespace_selector() {
        let c = load(v1beta2(json!({"namespace": "kueue-tenant-a"})));
        let values = c
            .managed_jobs_namespace_selector
            .and_then(|s| s.match_expressions)
            .and_then(|e| e.first().and_then(|r| r.values.clone()));
        assert_eq!(
            values,
            Some(vec!["kube-system".to_owned(), "kueue-tenant-a".to_owned()])
        );
    }

    #[test]
    fn the_disable_gate_turns_wait_for_pods_ready_off() {
        let c = load(v1beta2(
            json!({"featureGates": {"DisableWaitForPodsReady": true}}),
        ));
        assert!(c.wait_for_pods_ready().is_none());
        assert!(c.gate("FlavorFungibility"), "a default-on gate");
        assert!(!c.gate("PriorityBoost"), "a default-off gate");
    }

    // configuration_conversion_test.go: "with WaitForPodsReady disabled", "with FairSharing
    // disabled", "with FairSharing enabled, but preemption strategies are empty",
    // "with WaitForPodsReady"; v1beta1/defaults.go (timeout 5m, blockAdmission = enable).
    #[test]
    fn v1beta1_enable_switches_convert_as_kueue_converts_them() {
        let base = json!({"apiVersion": API_VERSION_V1BETA1, "kind": KIND});
        let c = load(base.clone());
        assert_eq!(c.wait_for_pods_ready, None, "v1beta1: off unless enabled");
        assert_eq!(c.fair_sharing, None);
        let mut on = base.clone();
        on["waitForPodsReady"] = json!({"enable": true});
        on["fairSharing"] = json!({"enable": true});
        let c = load(on);
        let w = c.wait_for_pods_ready.clone().unwrap_or_default();
        assert_eq!(w.timeout, Some(GoDuration::secs(300)));
        assert_eq!(w.block_admission, Some(true));
        assert_eq!(c.api_version, API_VERSION);
        assert_eq!(
            c.fair_sharing.map(|f| f.preemption_strategies),
            Some(vec![
                PreemptionStrategy::LessThanOrEqualToFinalShare,
                PreemptionStrategy::LessThanInitialShare
            ])
        );
        let mut off = base;
        off["waitForPodsReady"] = json!({"enable": false, "timeout": "10m"});
        off["fairSharing"] =
            json!({"enable": false, "preemptionStrategies": ["LessThanInitialShare"]});
        let c = load(off);
        assert_eq!(c.wait_for_pods_ready, None);
        assert_eq!(c.fair_sharing, None);
    }

    #[test]
    fn wrong_types_name_the_field_path_and_unknown_fields_are_tolerated() {
        let e = from_value(v1beta2(json!({"waitForPodsReady": {"timeout": 5}}))).expect_err("type");
        assert_eq!(e.field, "waitForPodsReady.timeout", "{e}");
        let e = from_value(v1beta2(
            json!({"resources": {"transformations": [{"input": "a", "strategy": "Keep"}]}}),
        ))
        .expect_err("variant");
        assert_eq!(e.field, "resources.transformations[0].strategy", "{e}");
        let e = from_value(v1beta2(
            json!({"featureGates": {"PartialAdmission": "yes"}}),
        ))
        .expect_err("bool");
        assert_eq!(e.field, "featureGates.PartialAdmission", "{e}");
        let e = from_value(v1beta2(json!({"waitForPodsReady": {"enable": false}})))
            .expect_err("v1beta1 field");
        assert_eq!(e.field, "waitForPodsReady.enable", "{e}");
        let e = from_value(json!({"apiVersion": "config.kueue.x-k8s.io/v1alpha1", "kind": KIND}))
            .expect_err("version");
        assert_eq!(e.field, "apiVersion");
        let c = load(v1beta2(
            json!({"webhook": {"port": 9443}, "leaderElection": {"leaderElect": true},
            "controller": {"groupKindConcurrency": {"Job.batch": 5}}, "somethingNew": 1}),
        ));
        assert_eq!(c, KueueConfiguration::default_config());
    }

    // pkg/config/validation_test.go: fair sharing's supported lists, duplicate
    // transformation inputs, negative timeout, IgnoreUndeclared with exclusions.
    #[test]
    fn validation_refuses_what_kueue_refuses() {
        let e = from_value(v1beta2(json!({"fairSharing": {}}))).expect_err("strategies");
        assert_eq!(e.field, "fairSharing.preemptionStrategies");
        let e = from_value(v1beta2(json!({"fairSharing": {"preemptionStrategies": ["LessThanInitialShare", "LessThanOrEqualToFinalShare"]}})))
            .expect_err("order");
        assert_eq!(e.field, "fairSharing.preemptionStrategies");
        let e = from_value(v1beta2(
            json!({"resources": {"transformations": [{"input": "a"}, {"input": "a"}]}}),
        ))
        .expect_err("dup");
        assert_eq!(e.field, "resources.transformations[1].input");
        let e = from_value(v1beta2(json!({"waitForPodsReady": {"timeout": "-1m"}})))
            .expect_err("negative");
        assert_eq!(e.field, "waitForPodsReady.timeout");
        let e = from_value(v1beta2(json!({"resources": {"quotaCheckStrategy": "IgnoreUndeclared", "excludeResourcePrefixes": ["x"]}})))
            .expect_err("conflict");
        assert_eq!(e.field, "resources.quotaCheckStrategy");
        assert!(
            from_value(v1beta2(
                json!({"fairSharing": {"preemptionStrategies": ["LessThanInitialShare"]}})
            ))
            .is_ok()
        );
    }

    #[test]
    fn durations_print_as_go_prints_them() {
        for (ms, s) in [
            (0, "0s"),
            (1_800_000, "30m0s"),
            (3_600_000, "1h0m0s"),
            (1500, "1.5s"),
            (90_000, "1m30s"),
            (250, "250ms"),
        ] {
            assert_eq!(GoDuration { millis: ms }.to_string(), s);
        }
        let c = KueueConfiguration::default_config();
        let v = serde_json::to_value(&c).unwrap_or_default();
        assert_eq!(v["waitForPodsReady"]["timeout"], "30m0s");
        // What is printed loads back to the same configuration.
        assert_eq!(from_value(v).ok(), Some(c));
    }

    #[test]
    fn unknown_gates_are_listed() {
        let c = load(v1beta2(
            json!({"featureGates": {"NoSuchGate": true, "TopologyAwareScheduling": false}}),
        ));
        assert_eq!(c.unknown_gates(), ["NoSuchGate"]);
        assert!(!c.gate("TopologyAwareScheduling"));
        assert_eq!(c.unmodeled_gates(), ["TopologyAwareScheduling"]);
        let c = load(v1beta2(
            json!({"featureGates": {"ReclaimablePods": false, "FlavorFungibility": true}}),
        ));
        assert!(
            c.unmodeled_gates().is_empty(),
            "modeled, or set to its default"
        );
    }
}
