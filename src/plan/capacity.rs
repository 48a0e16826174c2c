//! `capacity`: how many more copies of a gang shape fit in a snapshot, placed one after another
//! by the simulator, without and with preemption, and per topology domain; what stops the next
//! copy, in explain's terms; and, with what-ifs, which running gangs a drain displaces.
//!
//! Input: a snapshot, a [`Shape`] (a PodGroup with its pods, taken from the snapshot or
//! instantiated from a Job or Workload manifest), the simulation [`Options`] and
//! [`CapacityOptions`]. Output: a [`CapacityReport`] (`kind: CapacityReport`).
//!
//! How: `max` copies of the shape (a fresh PodGroup and fresh pods per copy, each copy's
//! PodGroup-shared claims generated from the same template) are added to the snapshot with
//! [`whatif::add_objects`], the snapshot is prepared once, and the queue runs until the first
//! copy that does not fit ([`crate::sched::Prepared::run_until`]); a second run from a clone of
//! the same prepared state allows preemption. Copies are created at the snapshot's time and
//! named `<name>-copy-<n>` (zero-padded), so they queue in order after every pending unit of
//! the same priority. In a namespace with ResourceQuotas, the copies' pods are also charged
//! one by one to the quotas' room (`hard - status.used`, [`crate::admit::resource_quota`]):
//! the copies that fit are the fewer of both ([`QuotaLimit`]). Pure: no IO, no scheduling
//! logic of its own.

use crate::snapshot::{ObjKind, ObjRef};
use std::collections::{BTreeMap, HashMap};

use crate::snapshot::Job;
use crate::snapshot::pod::{Pod, PodStatus};
use k8s_openapi::api::core::v1::PodSchedulingGroup;
use k8s_openapi::api::scheduling::v1beta1::{PodGroup, PodGroupSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::Serialize;

use crate::admit::resource_quota::format_milli;
use crate::explain::{DomainFit, Finding, Verdict, diagnose, shortfall};
use crate::sched::plan::{BlastRadius, Outcome, Placement, Plan, Settings, UnitResult, Victim};
use crate::sched::{Options, prepare, whatif};
use crate::snapshot::{Snapshot, Warning, name_of, namespace_of};

/// The gang whose copies are counted: a PodGroup and its member pods, as they would be
/// created (names, node bindings and status are replaced per copy).
#[derive(Debug, Clone)]
pub struct Shape {
    /// The PodGroup (its spec is copied; parent and status are dropped).
    pub pod_group: PodGroup,
    /// The members (specs copied; `schedulingGroup` renamed per copy).
    pub pods: Vec<Pod>,
    /// Where the shape came from, for the report (`PodGroup/ml/train`, `Job/ml/x in train.yaml`).
    pub source: String,
}

/// How to count.
#[derive(Debug, Clone)]
pub struct CapacityOptions {
    /// The most copies tried (`--max`).
    pub max_copies: usize,
    /// The label key copies are counted by (`--by`); default: the shape's topology key.
    pub domain_key: Option<String>,
}

/// The report (`kind: CapacityReport`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacityReport {
    /// The shape counted.
    pub target: Target,
    /// Copies that fit at once without preemption.
    pub copies: u32,
    /// Copies that fit at once when preemption is allowed (equal to `copies` with
    /// `--no-preemption`).
    pub copies_with_preemption: u32,
    /// True when every copy tried fit (the answer is "at least `settings.maxCopies`").
    pub capped: bool,
    /// Copies per topology domain (every value of the key on the nodes, sorted by value);
    /// omitted without a topology key.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<DomainCopies>,
    /// Copies whose members landed in several domains, or on nodes without the key.
    #[serde(skip_serializing_if = "is_zero")]
    pub copies_across_domains: u32,
    /// The copies that fit only by preempting: victims and blast radius of each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preemptions: Vec<CopyPreemption>,
    /// What stops the next copy on the nodes (without preemption); `null` when every copy
    /// tried fit on them.
    pub limit: Option<Limit>,
    /// What the namespace's ResourceQuotas allow, when they allow fewer copies than fit on
    /// the nodes (with or without preemption); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota_limit: Option<QuotaLimit>,
    /// `ResourceQuota` when a quota, not the nodes, limits `copies`; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limited_by: Option<String>,
    /// With `--drain`/`--cordon`/`--add…`: the capacity before them and the running gangs
    /// they displace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub what_if: Option<WhatIfImpact>,
    /// With `--queue LOCALQUEUE`: the copies Kueue's quota admits beside those the nodes hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<super::kueue_capacity::QueueCapacity>,
    /// How the simulation ran.
    pub settings: CapacitySettings,
    /// Loader warnings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The shape counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// The PodGroup counted: always a `PodGroup` (a Job or Workload shape is counted as the
    /// PodGroup it creates), in the namespace the copies are created in; copies are named
    /// `<name>-copy-<n>`. JSON: `kind`, `namespace`, `name`, as before.
    #[serde(flatten)]
    pub object: ObjRef,
    /// Where the shape came from.
    pub source: String,
    /// Pods per copy.
    pub pods: u32,
    /// `gang.minCount` (absent for a basic group).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_count: Option<u32>,
    /// The topology constraint's key, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_key: Option<String>,
    /// The scheduler profile that simulated the copies (the `schedulerName` of the shape's
    /// pods), as simulate's and explain's JSON name a unit's: omitted for
    /// `default-scheduler`; for copies no profile serves (`NotSimulated`), the scheduler they
    /// name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub profile: String,
    /// How that profile scores nodes, when it is not kube-scheduler's default profile
    /// (`profile gpu-binpack: MostAllocated on nvidia.com/gpu`), as explain's `scoring`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scoring: Option<String>,
}

/// Copies in one topology domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainCopies {
    /// Label key.
    pub key: String,
    /// Label value.
    pub value: String,
    /// Copies placed wholly in this domain, without preemption.
    pub copies: u32,
    /// The same with preemption allowed.
    pub copies_with_preemption: u32,
}

/// A copy that fits only by evicting victims.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CopyPreemption {
    /// The copy (`PodGroup/ns/name`).
    pub copy: String,
    /// The pods evicted.
    pub victims: Vec<Victim>,
    /// What it costs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blast_radius: Option<BlastRadius>,
}

/// What stops the next copy, from explain's diagnosis of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Limit {
    /// The copy that did not fit (`PodGroup/ns/name`).
    pub copy: String,
    /// explain's verdict for it (its documented JSON value).
    pub verdict: Verdict,
    /// The simulator's outcome for it, in simulate's words (what the text prints).
    pub outcome: crate::sched::plan::Outcome,
    /// The simulator's message.
    pub message: String,
    /// Members needed at once (minCount; the pod count for a basic group).
    pub min_count: u32,
    /// Members that fit at once (in the closest domain with a topology constraint).
    pub placeable: u32,
    /// The domain closest to fitting the copy (most members placeable; ties by name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest_domain: Option<DomainFit>,
    /// The resource the members left over ran short of, and how much they need.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short: Option<Shortfall>,
    /// Filter reason → node count over the members that found no node.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub node_reasons: BTreeMap<String, u32>,
    /// explain's findings for the copy (`WASE###`).
    pub findings: Vec<Finding>,
}

/// The copies a namespace's ResourceQuotas allow: the copies' pods are created one after
/// another (copy by copy) through the ResourceQuota admission plugin
/// ([`crate::admit::resource_quota`], plugin/pkg/admission/resourcequota with
/// pkg/quota/v1/evaluator/core/pods.go), and the first pod a quota refuses ends the count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaLimit {
    /// Copies whose pods the quotas allow.
    pub copies: u32,
    /// Copies that fit on the nodes, without preemption (`copies` is the smaller of both).
    pub copies_on_nodes: u32,
    /// Copies that fit on the nodes with preemption.
    pub copies_with_preemption_on_nodes: u32,
    /// The quota that refuses the next copy's pod.
    pub quota: String,
    /// The resource it refuses it for (`requests.nvidia.com/gpu`, `pods`, `count/pods`).
    pub resource: String,
    /// The quota's `hard` for it, as Kubernetes writes amounts.
    pub hard: String,
    /// Its `used` before the copies (`status.used`, plus pods added by what-ifs).
    pub used: String,
    /// True when the quota refuses the copies' pods because a container does not request a
    /// resource it tracks (`cpu`, `memory`), whatever the room: it allows no copy.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub must_specify: bool,
    /// The plugin's reason for refusing the next copy's pod.
    pub message: String,
}

/// The resource that stops the next copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shortfall {
    /// Resource name (`nvidia.com/gpu`, `cpu`…).
    pub resource: String,
    /// How much more the members left over need, as Kubernetes writes amounts.
    pub amount: String,
    /// Members left over.
    pub members: u32,
}

/// What the what-ifs changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WhatIfImpact {
    /// Copies before the what-ifs, without preemption.
    pub copies_before: u32,
    /// Copies before the what-ifs, with preemption.
    pub copies_with_preemption_before: u32,
    /// Running units whose pods the what-ifs made pending again (or deleted).
    pub displaced: Vec<Displaced>,
}

/// A running unit displaced by the what-ifs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Displaced {
    /// `PodGroup` (or `Pod` for a pod without a group).
    pub kind: ObjKind,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Pods that became pending again.
    pub pending: u32,
    /// Bare pods deleted by the drain (not recreated).
    #[serde(skip_serializing_if = "is_zero")]
    pub deleted: u32,
    /// Its simulated outcome after the what-ifs, without copies (`Scheduled`, `Preempting`,
    /// `Unschedulable`, `Waiting`, `Error`; `Deleted` when no pod is left).
    pub outcome: String,
    /// True when it is placed again (`Scheduled` or `Preempting`).
    pub replaced: bool,
}

/// How the simulation ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacitySettings {
    /// The most copies tried.
    pub max_copies: usize,
    /// Whether preemption was simulated for `copiesWithPreemption`.
    pub preemption: bool,
    /// The key copies are counted by, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain_key: Option<String>,
    /// The simulator's settings (mode, gates, assumptions, notes, what-ifs).
    #[serde(flatten)]
    pub simulation: Settings,
}

impl Shape {
    /// The namespace of the shape.
    pub(crate) fn namespace(&self) -> &str {
        namespace_of(&self.pod_group.metadata)
    }

    /// The PodGroup's name.
    pub(crate) fn name(&self) -> &str {
        name_of(&self.pod_group.metadata)
    }

    /// `gang.minCount`, if the group is a gang.
    pub(crate) fn min_count(&self) -> Option<u32> {
        self.pod_group
            .spec
            .scheduling_policy
            .gang
            .as_ref()
            .map(|g| u32::try_from(g.min_count).unwrap_or(0))
    }

    /// The topology constraint's key, if any.
    pub(crate) fn topology_key(&self) -> Option<&str> {
        self.pod_group
            .spec
            .scheduling_constraints
            .as_ref()
            .and_then(|c| c.topology.as_ref())
            .and_then(|t| t.first())
            .map(|t| t.key.as_str())
    }

    /// The shape of `target` in the snapshot: a PodGroup and the pods naming it; a Job's
    /// PodGroup (or the PodGroup its `spec.scheduling` would create); a Workload's only
    /// PodGroup.
    pub fn from_snapshot(s: &Snapshot, target: &ObjRef) -> Result<Self, String> {
        let (ns, name) = (target.namespace.as_str(), target.name.as_str());
        match &target.kind {
            ObjKind::PodGroup => {
                let pg = s
                    .pod_group(ns, name)
                    .ok_or_else(|| format!("PodGroup `{ns}/{name}` not found"))?;
                let pods = s
                    .index
                    .pods_by_group
                    .get(ns, name)
                    .iter()
                    .map(|i| Pod::clone(&s.pods[*i]))
                    .collect::<Vec<_>>();
                Self::checked(pg.clone(), pods, format!("PodGroup/{ns}/{name}"))
            }
            ObjKind::Job => {
                let job = s
                    .job(ns, name)
                    .ok_or_else(|| format!("Job `{ns}/{name}` not found"))?;
                let owned = s.pod_groups.iter().find(|pg| {
                    namespace_of(&pg.metadata) == ns
                        && pg.metadata.owner_references.iter().flatten().any(|o| {
                            o.kind == "Job" && o.name == name && o.controller == Some(true)
                        })
                });
                match owned {
                    Some(pg) => {
                        let pg_name = name_of(&pg.metadata);
                        Self::from_snapshot(s, &ObjRef::new(ObjKind::PodGroup, ns, pg_name)).map(
                            |sh| Self {
                                source: format!("Job/{ns}/{name} (PodGroup {pg_name})"),
                                ..sh
                            },
                        )
                    }
                    None => Self::from_job(job, format!("Job/{ns}/{name}"), Some(true)),
                }
            }
            ObjKind::Workload => {
                let groups: Vec<&PodGroup> = s
                    .pod_groups
                    .iter()
                    .filter(|pg| {
                        namespace_of(&pg.metadata) == ns
                            && pg
                                .spec
                                .workload_ref
                                .as_ref()
                                .is_some_and(|w| w.workload_name == name)
                    })
                    .collect();
                match groups.as_slice() {
                    [pg] => {
                        let pg_name = name_of(&pg.metadata);
                        Self::from_snapshot(s, &ObjRef::new(ObjKind::PodGroup, ns, pg_name)).map(
                            |sh| Self {
                                source: format!("Workload/{ns}/{name} (PodGroup {pg_name})"),
                                ..sh
                            },
                        )
                    }
                    [] => Err(format!(
                        "Workload `{ns}/{name}` has no PodGroup yet: pass its manifest and pods with `--shape FILE`"
                    )),
                    many => Err(format!(
                        "Workload `{ns}/{name}` has {} PodGroups ({}): name one with `pg/NAME`",
                        many.len(),
                        many.iter()
                            .map(|pg| name_of(&pg.metadata))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                }
            }
            other => Err(format!(
                "`capacity` counts copies of a gang: name a `pg/`, `job/` or `workload/`, not a {other}"
            )),
        }
    }

    /// The shape held by a manifest file's objects: one PodGroup and the pods naming it; else
    /// one Job (its PodGroup from `spec.scheduling`, `parallelism` pods from its template);
    /// else one Workload with one PodGroup template and the file's pods as members.
    /// `namespace` applies to objects without one.
    /// `workload_with_job`: whether the Job controller creates a Job's PodGroup
    /// ([`crate::admit::controllers::workload_with_job`]).
    pub(crate) fn from_objects(
        objects: &Snapshot,
        namespace: &str,
        file: &str,
        workload_with_job: Option<bool>,
    ) -> Result<Self, String> {
        let ns_of = |m: &ObjectMeta| m.namespace.clone().unwrap_or_else(|| namespace.to_owned());
        let with_ns = |mut m: ObjectMeta| {
            m.namespace = Some(ns_of(&m));
            m
        };
        match (
            objects.pod_groups.as_slice(),
            objects.jobs.as_slice(),
            objects.workloads.as_slice(),
        ) {
            ([pg], _, _) => {
                let mut pg = pg.clone();
                pg.metadata = with_ns(pg.metadata);
                let name = name_of(&pg.metadata).to_owned();
                let pods = objects
                    .pods
                    .iter()
                    .filter(|p| group_of(p) == Some(name.as_str()))
                    .map(|p| {
                        let mut p = Pod::clone(p);
                        p.metadata = with_ns(p.metadata);
                        p
                    })
                    .collect();
                Self::checked(pg, pods, format!("PodGroup/{name} in {file}"))
            }
            ([], [job], _) => {
                let mut job = Job::clone(job);
                job.metadata = with_ns(job.metadata);
                let source = format!("Job/{} in {file}", name_of(&job.metadata));
                Self::from_job(&job, source, workload_with_job)
            }
            ([], [], [w]) => {
                let templates = w.spec.pod_group_templates.as_deref().unwrap_or_default();
                let [t] = templates else {
                    return Err(format!(
                        "Workload `{}` in {file} has {} PodGroup templates: `capacity` needs exactly one",
                        name_of(&w.metadata),
                        templates.len()
                    ));
                };
                let spec: PodGroupSpec = convert(t)
                    .map_err(|e| format!("PodGroup template `{}` in {file}: {e}", t.name))?;
                let pg_name = format!("{}-{}", name_of(&w.metadata), t.name);
                let pg = PodGroup {
                    metadata: ObjectMeta {
                        name: Some(pg_name.clone()),
                        namespace: Some(ns_of(&w.metadata)),
                        ..ObjectMeta::default()
                    },
                    spec: PodGroupSpec {
                        workload_ref: Some(
                            k8s_openapi::api::scheduling::v1beta1::WorkloadReference {
                                workload_name: name_of(&w.metadata).to_owned(),
                                template_name: t.name.clone(),
                            },
                        ),
                        ..spec
                    },
                    status: None,
                };
                let pods = objects
                    .pods
                    .iter()
                    .map(|p| {
                        let mut p = Pod::clone(p);
                        p.metadata = with_ns(p.metadata);
                        p
                    })
                    .collect();
                Self::checked(
                    pg,
                    pods,
                    format!("Workload/{} in {file}", name_of(&w.metadata)),
                )
            }
            _ => Err(format!(
                "{file} must hold one PodGroup (and its pods), one Job, or one Workload (and its pods); it holds {} PodGroup(s), {} Job(s), {} Workload(s)",
                objects.pod_groups.len(),
                objects.jobs.len(),
                objects.workloads.len()
            )),
        }
    }

    /// The PodGroup and pods the Job controller would create for `job`: the one expansion
    /// every command uses ([`crate::admit::controllers::expand_job`], semantics §1.7). A Job
    /// that gets no PodGroup (`WorkloadWithJob` off, a suspended Job, a template that names
    /// its own group) is not a gang shape.
    fn from_job(
        job: &Job,
        source: String,
        workload_with_job: Option<bool>,
    ) -> Result<Self, String> {
        let made = crate::admit::controllers::expand_job(job, workload_with_job)
            .map_err(|e| format!("{source}: {e}"))?;
        if made.suspended {
            return Err(format!(
                "{source} is suspended: no pods until it is resumed, so there is no gang to count"
            ));
        }
        let Some(pg) = made.pod_group else {
            let asks = job.spec.as_ref().is_some_and(|s| s.scheduling.is_some());
            let why = match workload_with_job {
                Some(false) => {
                    "WorkloadWithJob is off (`--feature-gates WorkloadWithJob=true` to count it as the gang it would be)"
                }
                None if !asks => {
                    "it sets no `spec.scheduling` and WorkloadWithJob is not known to be on (`--feature-gates WorkloadWithJob=true` to count its basic PodGroup)"
                }
                _ => {
                    "its pod template names its own `schedulingGroup`, or it has a controller owner"
                }
            };
            return Err(format!(
                "{source} gets no PodGroup from the Job controller: {why}"
            ));
        };
        Self::checked(pg, made.pods, source)
    }

    /// Admits a shape read from a manifest file as the API server would create its PodGroup
    /// and pods ([`crate::admit`]): against the PriorityClasses and nodes of `cluster` and
    /// the classes of `file` (the file's own objects). Stored objects (with a uid) are left as
    /// they are. The caller refuses the shape when [`crate::admit::Admission::refused`] is not
    /// empty. The shape is a template, never created itself: the ResourceQuotas are counted
    /// against its copies ([`QuotaLimit`]), not against it.
    pub(crate) fn admit(&mut self, file: &Snapshot, cluster: &Snapshot) -> crate::admit::Admission {
        let mut objects = Snapshot {
            pod_groups: vec![self.pod_group.clone()],
            pods: self.pods.iter().cloned().map(std::sync::Arc::new).collect(),
            priority_classes: file.priority_classes.clone(),
            nodes: file.nodes.clone(),
            ..Snapshot::default()
        };
        let admission = crate::admit::admit_template(&mut objects, Some(cluster));
        if let Some(pg) = objects.pod_groups.pop() {
            self.pod_group = pg;
        }
        self.pods = objects
            .pods
            .into_iter()
            .map(std::sync::Arc::unwrap_or_clone)
            .collect();
        admission
    }

    fn checked(pod_group: PodGroup, pods: Vec<Pod>, source: String) -> Result<Self, String> {
        if pods.is_empty() {
            return Err(format!(
                "{source} has no pods: a copy needs the member pods (their requests, claims and constraints)"
            ));
        }
        Ok(Self {
            pod_group,
            pods,
            source,
        })
    }

    /// Copy `i` of the shape: the PodGroup `<name>-copy-<i>` (zero-padded to `width`) and its
    /// pods `<pod>-copy-<i>`, pending, created at `now`, without owners or status, so every
    /// PodGroup-shared claim from a template is generated once for the copy.
    fn copy(&self, i: usize, width: usize, now: Time) -> (PodGroup, Vec<Pod>) {
        let suffix = format!("copy-{i:0width$}");
        let ns = self.namespace().to_owned();
        let pg_name = format!("{}-{suffix}", self.name());
        let fresh = |meta: &ObjectMeta, name: String| ObjectMeta {
            name: Some(name),
            namespace: Some(ns.clone()),
            labels: meta.labels.clone(),
            annotations: meta.annotations.clone(),
            creation_timestamp: Some(now.clone()),
            ..ObjectMeta::default()
        };
        let mut spec = self.pod_group.spec.clone();
        spec.parent_composite_pod_group_name = None;
        let pg = PodGroup {
            metadata: fresh(&self.pod_group.metadata, pg_name.clone()),
            spec,
            status: None,
        };
        let pods = self
            .pods
            .iter()
            .map(|p| {
                let mut spec = p.spec.clone().unwrap_or_default();
                spec.node_name = None;
                spec.scheduling_group = Some(PodSchedulingGroup {
                    pod_group_name: Some(pg_name.clone()),
                });
                Pod {
                    metadata: fresh(&p.metadata, format!("{}-{suffix}", name_of(&p.metadata))),
                    spec: Some(spec),
                    status: Some(Box::new(PodStatus {
                        phase: Some("Pending".to_owned()),
                        ..PodStatus::default()
                    })),
                }
            })
            .collect();
        (pg, pods)
    }
}

/// The PodGroup a pod names.
fn group_of(p: &Pod) -> Option<&str> {
    p.spec
        .as_ref()?
        .scheduling_group
        .as_ref()?
        .pod_group_name
        .as_deref()
}

/// One API type into another with the same JSON shape (a v1alpha3 template into a v1beta1 spec).
fn convert<A: Serialize, B: serde::de::DeserializeOwned>(a: &A) -> Result<B, String> {
    serde_json::to_value(a)
        .and_then(serde_json::from_value)
        .map_err(|e| e.to_string())
}

/// The copies added to a snapshot: their names in queue order and their pods.
struct Copies {
    namespace: String,
    names: Vec<String>,
    pods: Vec<Vec<String>>,
    /// The copies the namespace's quotas allow and the refusal of the next one; `None`
    /// when they allow every copy.
    quota: Option<(usize, QuotaStop)>,
    /// What the quotas could not count (`limits.*` entries).
    quota_warnings: Vec<Warning>,
}

/// The refusal that ends the copies a quota allows.
struct QuotaStop {
    exceeded: crate::admit::resource_quota::Exceeded,
    /// The quota's `used` of the resource before the copies.
    used_before: i128,
}

impl Copies {
    fn add(s: &mut Snapshot, shape: &Shape, max: usize) -> Self {
        let width = max.to_string().len();
        let now = Time(s.now());
        let mut extra = Snapshot::default();
        let mut names = Vec::with_capacity(max);
        let mut pods = Vec::with_capacity(max);
        // `status.used` holds the pods admission created (manifests, `--add`), see
        // `admit::resource_quota::store_used`.
        let before = crate::admit::resource_quota::Quotas::of(s, None);
        let mut quotas = (!before.is_empty()).then(|| before.clone());
        let mut quota = None;
        let mut quota_warnings = Vec::new();
        for i in 1..=max {
            let (pg, members) = shape.copy(i, width, now.clone());
            if let Some(q) = quotas.as_mut()
                && let Some(exceeded) = members.iter().find_map(|p| q.charge(p).err())
            {
                quota_warnings = q.limits_warnings();
                let used_before =
                    before.used(shape.namespace(), &exceeded.quota, &exceeded.resource);
                quota = Some((
                    i - 1,
                    QuotaStop {
                        exceeded,
                        used_before,
                    },
                ));
                quotas = None;
            }
            names.push(name_of(&pg.metadata).to_owned());
            pods.push(
                members
                    .iter()
                    .map(|p| name_of(&p.metadata).to_owned())
                    .collect(),
            );
            extra.pod_groups.push(pg);
            extra
                .pods
                .extend(members.into_iter().map(std::sync::Arc::new));
        }
        if let Some(q) = &quotas {
            quota_warnings = q.limits_warnings();
        }
        whatif::add_objects(s, extra);
        Self {
            namespace: shape.namespace().to_owned(),
            names,
            pods,
            quota,
            quota_warnings,
        }
    }

    /// How many copies fit in `plan`, counted from the first: each copy's outcome is its
    /// PodGroup's ([`Plan::outcome_of`], which combines the pods when they were tried one by
    /// one), and the count stops at the first copy without an outcome in `fits`.
    fn leading(&self, s: &Snapshot, plan: &Plan, fits: &[Outcome]) -> usize {
        self.names
            .iter()
            .take_while(|n| {
                plan.outcome_of(s, &ObjRef::new(ObjKind::PodGroup, &self.namespace, n))
                    .is_some_and(|o| fits.contains(&o))
            })
            .count()
    }

    /// The placements of copy `i` in `plan`.
    fn placements<'p>(&self, plan: &'p Plan, i: usize) -> Vec<&'p Placement> {
        let ns = &self.namespace;
        match plan.unit(&ObjRef::new(ObjKind::PodGroup, ns, &self.names[i])) {
            Some(u) => u.placements.iter().collect(),
            None => self.pods[i]
                .iter()
                .filter_map(|p| plan.unit(&ObjRef::new(ObjKind::Pod, ns, p)))
                .flat_map(|u| &u.placements)
                .collect(),
        }
    }

    /// The profile that simulated copy `i` in `plan` (its PodGroup unit's, else its first pod
    /// unit's; empty for `default-scheduler`), with how it scores nodes when it is not the
    /// default profile.
    fn profile(&self, plan: &Plan, i: usize) -> (String, Option<String>) {
        let ns = &self.namespace;
        let unit = plan
            .unit(&ObjRef::new(ObjKind::PodGroup, ns, &self.names[i]))
            .or_else(|| {
                self.pods[i]
                    .iter()
                    .find_map(|p| plan.unit(&ObjRef::new(ObjKind::Pod, ns, p)))
            });
        unit.map(|u| crate::explain::profile_of(plan, &u.profile))
            .unwrap_or_default()
    }

    /// The unit that stands for copy `i` not fitting: its PodGroup unit, or (pod by pod) its
    /// first pod that did not fit.
    fn failed_unit<'p>(&self, plan: &'p Plan, i: usize) -> Option<&'p UnitResult> {
        let ns = &self.namespace;
        plan.unit(&ObjRef::new(ObjKind::PodGroup, ns, &self.names[i]))
            .or_else(|| {
                self.pods[i]
                    .iter()
                    .filter_map(|p| plan.unit(&ObjRef::new(ObjKind::Pod, ns, p)))
                    .find(|u| u.outcome != Outcome::Scheduled)
            })
    }
}

/// Counts the copies of `shape` that fit in `s` (taken by value: the copies are added to it).
pub fn capacity(
    s: Snapshot,
    shape: &Shape,
    options: &Options,
    copt: &CapacityOptions,
) -> CapacityReport {
    capacity_keeping(s, shape, options, copt).0
}

/// [`capacity`], returning what is left to free with the report (the snapshot with the copies
/// and the simulation state: about a second of deallocation at 150,000 pods) so that the caller
/// chooses when to pay for it.
pub fn capacity_keeping(
    s: Snapshot,
    shape: &Shape,
    options: &Options,
    copt: &CapacityOptions,
) -> (CapacityReport, Leftovers) {
    count_copies(s, shape, options, copt, true)
}

/// What [`capacity_keeping`] leaves to free.
pub struct Leftovers {
    // Field order is drop order: the state before the snapshot it was built from.
    _state: crate::sched::Retained,
    _snapshot: Snapshot,
}

/// [`capacity`]; `reuse` lets the run without preemption stand for the run with it when no unit
/// of it was unschedulable (tests compare both ways).
fn count_copies(
    mut s: Snapshot,
    shape: &Shape,
    options: &Options,
    copt: &CapacityOptions,
    reuse: bool,
) -> (CapacityReport, Leftovers) {
    let max = copt.max_copies.max(1);
    let copies = Copies::add(&mut s, shape, max);
    let index: HashMap<&str, usize> = copies
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let last = max - 1;
    let preemption = !options.no_preemption;
    // Stop at the first copy that does not fit, or after the last copy: units queued behind
    // cannot change what the copies got. (Copies tried pod by pod run to the end of the queue.)
    let stop_at = |fits: &'static [Outcome]| {
        let (index, ns) = (&index, copies.namespace.as_str());
        move |u: &UnitResult| {
            u.kind == ObjKind::PodGroup
                && u.namespace == ns
                && index
                    .get(u.name.as_str())
                    .is_some_and(|i| !fits.contains(&u.outcome) || *i == last)
        }
    };
    const PLACED: &[Outcome] = &[Outcome::Scheduled];
    const PLACED_OR_PREEMPTING: &[Outcome] = &[Outcome::Scheduled, Outcome::Preempting];
    let mut prepared = prepare(&s, options);
    let (plan, plan_with) = if preemption {
        let mut without = prepared.clone();
        without.set_preemption(false);
        let plan = without.run_until(stop_at(PLACED));
        drop(without);
        // The simulator tries preemption only for a unit that did not fit (an `Unschedulable`
        // outcome). When no unit of the run without preemption had one, the run with it tries
        // the same units on the same states with the same outcomes (none `Preempting`) and
        // stops at the same unit: its plan is this one, and `plan_with` stays `None`.
        let with = plan
            .units
            .iter()
            .any(|u| !reuse || u.outcome == Outcome::Unschedulable)
            .then(|| prepared.run_until(stop_at(PLACED_OR_PREEMPTING)));
        (plan, with)
    } else {
        (prepared.run_until(stop_at(PLACED)), None)
    };
    let retained = prepared.retire();
    let on_nodes = copies.leading(&s, &plan, PLACED);
    let on_nodes_with = plan_with
        .as_ref()
        .map_or(on_nodes, |p| copies.leading(&s, p, PLACED_OR_PREEMPTING));
    // The copies whose pods the namespace's quotas let be created, of those that fit.
    let allowed = copies.quota.as_ref().map_or(max, |(n, _)| *n);
    let (n, n_with) = (on_nodes.min(allowed), on_nodes_with.min(allowed));
    let quota_limit = quota_limit_of(&copies, on_nodes, on_nodes_with);

    let domain_key = copt
        .domain_key
        .clone()
        .or_else(|| shape.topology_key().map(str::to_owned));
    let (domains, across) = match &domain_key {
        Some(key) => count_domains(&s, &copies, key, (&plan, n), (plan_with.as_ref(), n_with)),
        None => (Vec::new(), 0),
    };
    let preemptions = plan_with
        .as_ref()
        .map(|p| preemptions_of(p, &copies, n_with))
        .unwrap_or_default();
    let limit = (on_nodes < max)
        .then(|| copies.failed_unit(&plan, on_nodes))
        .flatten()
        .map(|u| limit_of(&s, &plan, u));
    let (profile, scoring) = copies.profile(&plan, 0);
    let simulation = capacity_settings(&plan, plan_with.as_ref(), shape, |u| {
        u.kind == ObjKind::PodGroup
            && u.namespace == copies.namespace
            && index.contains_key(u.name.as_str())
    });
    let report = CapacityReport {
        target: Target {
            object: ObjRef::new(ObjKind::PodGroup, shape.namespace(), shape.name()),
            source: shape.source.clone(),
            pods: u32::try_from(shape.pods.len()).unwrap_or(u32::MAX),
            min_count: shape.min_count(),
            topology_key: shape.topology_key().map(str::to_owned),
            profile,
            scoring,
        },
        copies: count(n),
        copies_with_preemption: count(n_with),
        capped: n == max,
        domains,
        copies_across_domains: across,
        preemptions,
        limit,
        limited_by: (allowed < on_nodes).then(|| "ResourceQuota".to_owned()),
        quota_limit,
        what_if: None,
        queue: None,
        settings: CapacitySettings {
            max_copies: max,
            preemption,
            domain_key,
            simulation,
        },
        warnings: [plan.warnings.as_slice(), copies.quota_warnings.as_slice()].concat(),
    };
    let leftovers = Leftovers {
        _state: retained,
        _snapshot: s,
    };
    (report, leftovers)
}

/// The simulation's settings for the report: its notes with capacity's own, the notes the runs
/// met (with and without preemption), and `capacity-copies` when it could have changed the
/// count: other units were queued with the copies (they go first at equal priority), or the
/// copied pods refer to claims (copied as written: a claim named by every copy is shared).
fn capacity_settings(
    plan: &Plan,
    plan_with: Option<&Plan>,
    shape: &Shape,
    is_copy: impl Fn(&UnitResult) -> bool,
) -> Settings {
    use crate::notes::{Note, once_each};
    let mut settings = plan.settings.clone();
    settings.notes.push(Note::CapacityCopies.text().to_owned());
    let others = plan.units.iter().any(|u| !is_copy(u));
    let claims = shape.pods.iter().any(|p| {
        p.spec
            .as_ref()
            .and_then(|s| s.resource_claims.as_ref())
            .is_some_and(|c| !c.is_empty())
    });
    settings.relevant_notes = once_each(
        plan.settings
            .relevant_notes
            .iter()
            .chain(plan_with.iter().flat_map(|p| &p.settings.relevant_notes))
            .cloned()
            .chain((others || claims).then(|| Note::CapacityCopies.used())),
    );
    settings
}

/// What the namespace's quotas allow, when it is fewer copies than fit on the nodes (with or
/// without preemption): the quota and resource that stop the next copy, in the report's words.
fn quota_limit_of(copies: &Copies, on_nodes: usize, on_nodes_with: usize) -> Option<QuotaLimit> {
    copies
        .quota
        .as_ref()
        .filter(|(allowed, _)| *allowed < on_nodes_with.max(on_nodes))
        .map(|(allowed, stop)| QuotaLimit {
            copies: count(*allowed),
            copies_on_nodes: count(on_nodes),
            copies_with_preemption_on_nodes: count(on_nodes_with),
            quota: stop.exceeded.quota.clone(),
            resource: stop.exceeded.resource.clone(),
            hard: format_milli(stop.exceeded.hard),
            used: format_milli(stop.used_before),
            must_specify: stop.exceeded.must_specify,
            message: stop.exceeded.reason(),
        })
}

/// The first `n_with` copies that fit in `plan_with` only by preempting, with their victims
/// and blast radius.
fn preemptions_of(plan_with: &Plan, copies: &Copies, n_with: usize) -> Vec<CopyPreemption> {
    (0..n_with)
        .filter_map(|i| {
            plan_with.unit(&ObjRef::new(
                ObjKind::PodGroup,
                &copies.namespace,
                &copies.names[i],
            ))
        })
        .filter(|u| u.outcome == Outcome::Preempting)
        .map(|u| CopyPreemption {
            copy: format!("PodGroup/{}/{}", u.namespace, u.name),
            victims: u.victims.clone(),
            blast_radius: u.blast_radius.clone(),
        })
        .collect()
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Copies per value of `key`: a copy counts in a domain when all its members landed on nodes
/// with that value; the others are counted as across domains (without preemption).
fn count_domains(
    s: &Snapshot,
    copies: &Copies,
    key: &str,
    (plan, n): (&Plan, usize),
    (plan_with, n_with): (Option<&Plan>, usize),
) -> (Vec<DomainCopies>, u32) {
    let value_of = |node: &str| {
        s.node(node)
            .and_then(|n| n.metadata.labels.as_ref())
            .and_then(|l| l.get(key))
            .cloned()
    };
    let mut by_value: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    for node in &s.nodes {
        if let Some(v) = node.metadata.labels.as_ref().and_then(|l| l.get(key)) {
            by_value.entry(v.clone()).or_default();
        }
    }
    let domain_of = |plan: &Plan, i: usize| -> Option<String> {
        let mut values = copies
            .placements(plan, i)
            .into_iter()
            .map(|p| value_of(&p.node));
        let first = values.next()??;
        values
            .all(|v| v.as_deref() == Some(first.as_str()))
            .then_some(first)
    };
    let mut across = 0;
    for i in 0..n {
        match domain_of(plan, i) {
            Some(v) => by_value.entry(v).or_default().0 += 1,
            None => across += 1,
        }
    }
    let with = plan_with.unwrap_or(plan);
    for i in 0..n_with {
        if let Some(v) = domain_of(with, i) {
            by_value.entry(v).or_default().1 += 1;
        }
    }
    let domains = by_value
        .into_iter()
        .map(|(value, (c, w))| DomainCopies {
            key: key.to_owned(),
            value,
            copies: c,
            copies_with_preemption: w,
        })
        .collect();
    (domains, across)
}

/// explain's diagnosis of the copy that did not fit, with the closest domain and the short
/// resource.
fn limit_of(s: &Snapshot, plan: &Plan, unit: &UnitResult) -> Limit {
    let d = diagnose(s, plan, unit);
    let closest = d
        .fit
        .domains
        .iter()
        .max_by(|a, b| a.placeable.cmp(&b.placeable).then(b.value.cmp(&a.value)))
        .cloned();
    let min_count = if unit.kind == ObjKind::PodGroup {
        d.fit.min_count.max(1)
    } else {
        1
    };
    let placeable = closest.as_ref().map_or(d.fit.placeable, |c| c.placeable);
    let members = min_count.saturating_sub(placeable);
    let short = shortfall(s, unit, members).map(|(amount, resource)| Shortfall {
        resource,
        amount,
        members,
    });
    Limit {
        copy: format!("{}/{}/{}", unit.kind, unit.namespace, unit.name),
        verdict: d.verdict,
        outcome: unit.outcome,
        message: d.message,
        min_count,
        placeable,
        closest_domain: closest,
        short,
        node_reasons: d.node_reasons,
        findings: d.findings,
    }
}

/// The running units whose pods the what-ifs made pending again or deleted: pods bound in
/// `before` and pending (or gone) in `after`, grouped by PodGroup, with their outcome in
/// `plan_after` (the what-if snapshot simulated without copies).
pub(crate) fn displaced(before: &Snapshot, after: &Snapshot, plan_after: &Plan) -> Vec<Displaced> {
    let mut out: BTreeMap<ObjRef, (u32, u32)> = BTreeMap::new();
    for pod in &before.pods {
        let bound = pod.spec.as_ref().and_then(|s| s.node_name.as_ref());
        if bound.is_none() {
            continue;
        }
        let (ns, name) = (namespace_of(&pod.metadata), name_of(&pod.metadata));
        let now = after.pod(ns, name);
        let deleted = now.is_none();
        if !deleted
            && now
                .and_then(|p| p.spec.as_ref()?.node_name.as_ref())
                .is_some()
        {
            continue;
        }
        let key = match group_of(pod) {
            Some(g) => ObjRef::new(ObjKind::PodGroup, ns, g),
            None => ObjRef::new(ObjKind::Pod, ns, name),
        };
        let e = out.entry(key).or_default();
        if deleted {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }
    out.into_iter()
        .map(|(unit, (pending, deleted))| {
            let outcome = plan_after.outcome_of(after, &unit);
            Displaced {
                outcome: match outcome {
                    Some(o) => format!("{o:?}"),
                    None if pending == 0 => "Deleted".to_owned(),
                    None => "NotTried".to_owned(),
                },
                replaced: matches!(outcome, Some(Outcome::Scheduled | Outcome::Preempting)),
                kind: unit.kind,
                namespace: unit.namespace,
                name: unit.name,
                pending,
                deleted,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::Collector;
    use crate::snapshot::source::files::load_str;

    const FACTS: &str = r#"{"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts", "snapshotTime": "2026-11-20T12:00:00Z", "serverVersion": "v1.37.0", "components": [{"component": "kube-scheduler", "version": "v1.37.0", "featureGates": {"GenericWorkload": true, "TopologyAwareWorkloadScheduling": true, "DRAWorkloadResourceClaims": true}}]}"#;

    fn node(name: &str, rack: &str, gpus: u32) -> String {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Node", "metadata": {{"name": "{name}", "labels": {{"rack": "{rack}"}}}}, "status": {{"allocatable": {{"cpu": "8", "memory": "16Gi", "pods": "110", "nvidia.com/gpu": "{gpus}"}}}}}}"#
        )
    }

    fn pod(name: &str, group: &str, gpus: u32, node: Option<&str>) -> String {
        let bound = node.map_or(String::new(), |n| format!(r#", "nodeName": "{n}""#));
        let phase = if node.is_some() { "Running" } else { "Pending" };
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}", "namespace": "ml", "creationTimestamp": "2026-11-20T10:00:00Z", "labels": {{"app": "x"}}}}, "spec": {{"containers": [{{"name": "c", "image": "x", "resources": {{"requests": {{"nvidia.com/gpu": "{gpus}"}}, "limits": {{"nvidia.com/gpu": "{gpus}"}}}}}}], "schedulingGroup": {{"podGroupName": "{group}"}}{bound}}}, "status": {{"phase": "{phase}"}}}}"#
        )
    }

    fn group(name: &str, min: u32, extra: &str) -> String {
        format!(
            r#"{{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {{"name": "{name}", "namespace": "ml", "creationTimestamp": "2026-11-20T10:00:00Z"}}, "spec": {{"schedulingPolicy": {{"gang": {{"minCount": {min}}}}}{extra}}}}}"#
        )
    }

    fn load(docs: &[String]) -> Snapshot {
        let mut c = Collector::new();
        let text: String = docs.iter().map(|d| format!("---\n{d}\n")).collect();
        load_str(&text, "test.yaml", &mut c).expect("test objects load");
        c.finish()
    }

    /// Two racks of one 4-GPU node and one 2-GPU node; a running gang of 2 x 1 GPU on a1.
    fn cluster() -> Snapshot {
        load(&cluster_docs())
    }

    fn cluster_docs() -> Vec<String> {
        vec![
            FACTS.to_owned(),
            node("a1", "a", 4),
            node("a2", "a", 2),
            node("b1", "b", 4),
            node("b2", "b", 2),
            group("g", 2, ""),
            pod("g-0", "g", 1, Some("a1")),
            pod("g-1", "g", 1, Some("a1")),
        ]
    }

    fn options() -> Options {
        Options::default()
    }

    /// `cluster_docs` with the gang's pods naming `scheduler`.
    fn cluster_named(scheduler: &str) -> Snapshot {
        let docs: Vec<String> = cluster_docs()
            .into_iter()
            .map(|d| {
                d.replace(
                    r#""spec": {"containers""#,
                    &format!(r#""spec": {{"schedulerName": "{scheduler}", "containers""#),
                )
            })
            .collect();
        load(&docs)
    }

    fn profiles_with_binpack() -> crate::sched::profile::Profiles {
        use crate::sched::profile::{Profile, Profiles, ResourceSpec, ScoringStrategy, Strategy};
        let binpack = Profile {
            scheduler_name: "gpu-binpack".to_owned(),
            fit: ScoringStrategy {
                strategy: Strategy::MostAllocated,
                resources: vec![ResourceSpec::new("nvidia.com/gpu", 1)],
            },
            ..Profile::default()
        };
        Profiles::new(vec![Profile::default(), binpack], Vec::new())
    }

    #[test]
    fn the_shapes_profile_decides_where_copies_land() {
        // Issue 48: copies are simulated by the profile their pods name. 10 free GPUs (a1 2,
        // a2 2, b1 4, b2 2), 2 x 1 GPU per copy: 5 copies either way. gpu-binpack
        // (MostAllocated on nvidia.com/gpu) puts both members of a copy on one node, so none
        // straddles the racks; the default profile (LeastAllocated) spreads the members of
        // the first copies over the emptiest nodes, across racks.
        let copt = CapacityOptions {
            max_copies: 20,
            domain_key: Some("rack".to_owned()),
        };
        let options = Options {
            profiles: profiles_with_binpack(),
            ..Options::default()
        };
        let run = |scheduler: &str| {
            let s = cluster_named(scheduler);
            let shape = Shape::from_snapshot(&s, &ObjRef::new(ObjKind::PodGroup, "ml", "g"))
                .expect("shape");
            capacity(s, &shape, &options, &copt)
        };
        let packed = run("gpu-binpack");
        assert_eq!(packed.copies, 5);
        assert_eq!(packed.copies_across_domains, 0, "{:?}", packed.domains);
        assert_eq!(packed.target.profile, "gpu-binpack");
        assert_eq!(
            packed.target.scoring.as_deref(),
            Some("profile gpu-binpack: MostAllocated on nvidia.com/gpu")
        );
        let json = serde_json::to_value(&packed).expect("json");
        assert_eq!(json["target"]["profile"], "gpu-binpack");
        let spread = run("default-scheduler");
        assert_eq!(spread.copies, 5);
        assert!(spread.copies_across_domains > 0, "{:?}", spread.domains);
        assert_eq!(spread.target.profile, "");
        assert!(spread.target.scoring.is_none());
        let json = serde_json::to_value(&spread).expect("json");
        assert!(json["target"].get("profile").is_none(), "{json}");
    }

    #[test]
    fn copies_no_profile_serves_are_not_simulated() {
        // Pods naming a scheduler no profile serves (volcano) are never simulated by the
        // default profile: no copy fits, the limit is `NotSimulated` and names the scheduler.
        let options = Options {
            profiles: profiles_with_binpack(),
            ..Options::default()
        };
        let s = cluster_named("volcano");
        let shape =
            Shape::from_snapshot(&s, &ObjRef::new(ObjKind::PodGroup, "ml", "g")).expect("shape");
        let copt = CapacityOptions {
            max_copies: 20,
            domain_key: None,
        };
        let r = capacity(s, &shape, &options, &copt);
        assert_eq!((r.copies, r.copies_with_preemption), (0, 0));
        assert_eq!(r.target.profile, "volcano");
        let limit = r.limit.expect("limit");
        assert_eq!(limit.outcome, Outcome::NotSimulated);
    }

    #[test]
    fn copy_is_a_fresh_pending_group_with_renamed_members() {
        let s = cluster();
        let shape =
            Shape::from_snapshot(&s, &ObjRef::new(ObjKind::PodGroup, "ml", "g")).expect("shape");
        let (pg, pods) = shape.copy(7, 3, Time(s.now()));
        assert_eq!(name_of(&pg.metadata), "g-copy-007");
        assert!(pg.status.is_none() && pg.spec.parent_composite_pod_group_name.is_none());
        assert_eq!(pods.len(), 2);
        for p in &pods {
            assert!(name_of(&p.metadata).ends_with("-copy-007"));
            assert_eq!(group_of(p), Some("g-copy-007"));
            let spec = p.spec.as_ref().expect("spec");
            assert!(spec.node_name.is_none());
            assert!(p.metadata.owner_references.is_none());
            assert_eq!(
                p.metadata.labels.as_ref().and_then(|l| l.get("app")),
                Some(&"x".to_owned())
            );
        }
    }

    #[test]
    fn copies_are_counted_until_the_first_that_does_not_fit() {
        // 12 GPUs, 2 used by the running gang: 10 free, 2 per copy → 5 copies.
        let shape = Shape::from_snapshot(&cluster(), &ObjRef::new(ObjKind::PodGroup, "ml", "g"))
            .expect("shape");
        let copt = CapacityOptions {
            max_copies: 20,
            domain_key: Some("rack".to_owned()),
        };
        let r = capacity(cluster(), &shape, &options(), &copt);
        assert_eq!(
            (r.copies, r.copies_with_preemption, r.capped),
            (5, 5, false)
        );
        let per: Vec<(String, u32)> = r
            .domains
            .iter()
            .map(|d| (d.value.clone(), d.copies))
            .collect();
        // Rack a: 2 + 2 free; rack b: 4 + 2 free. Copies spread by least allocation may use
        // both racks, so only the total is fixed: 5 = in one rack + across racks.
        let in_racks: u32 = per.iter().map(|(_, c)| c).sum();
        assert_eq!(in_racks + r.copies_across_domains, 5, "{per:?}");
        let limit = r.limit.expect("the sixth copy does not fit");
        assert_eq!(limit.copy, "PodGroup/ml/g-copy-06");
        assert_eq!(limit.verdict, Verdict::Unschedulable);
        assert_eq!((limit.min_count, limit.placeable), (2, 0));
        let short = limit.short.expect("short resource");
        assert_eq!(
            (
                short.resource.as_str(),
                short.amount.as_str(),
                short.members
            ),
            ("nvidia.com/gpu", "2", 2)
        );
    }

    #[test]
    fn a_topology_key_counts_copies_per_domain_and_names_the_closest() {
        // With a rack constraint the copies must fit in one rack: a has 2 + 2 free (2 copies),
        // b 4 + 2 (3 copies); then no rack holds 2 GPUs: rack a fits 0, b 0.
        let mut s = cluster();
        let pg = s
            .pod_groups
            .iter_mut()
            .find(|p| name_of(&p.metadata) == "g")
            .expect("g");
        pg.spec.scheduling_constraints =
            serde_json::from_str(r#"{"topology": [{"key": "rack"}]}"#).ok();
        let s = s.build();
        let shape =
            Shape::from_snapshot(&s, &ObjRef::new(ObjKind::PodGroup, "ml", "g")).expect("shape");
        let copt = CapacityOptions {
            max_copies: 20,
            domain_key: None,
        };
        let r = capacity(s, &shape, &options(), &copt);
        assert_eq!(r.copies, 5);
        let per: Vec<(String, u32)> = r
            .domains
            .iter()
            .map(|d| (d.value.clone(), d.copies))
            .collect();
        assert_eq!(per, vec![("a".to_owned(), 2), ("b".to_owned(), 3)]);
        assert_eq!(r.settings.domain_key.as_deref(), Some("rack"));
    }

    #[test]
    fn the_run_without_preemption_stands_for_the_run_with_it_only_when_it_is_the_same() {
        // Capped (every copy fits: the run with preemption is not repeated) and not capped
        // (the sixth copy does not fit: it is), with and without a rack constraint and a
        // low-priority running pod that the copies can preempt: the same report either way.
        let low = pod("low-0", "x", 2, Some("b1")).replace(
            r#""schedulingGroup": {"podGroupName": "x"}"#,
            r#""priority": -5"#,
        );
        let with_victim = load(&[cluster_docs(), vec![low]].concat());
        for s in [cluster(), with_victim] {
            for max_copies in [2, 20] {
                for domain_key in [None, Some("rack".to_owned())] {
                    let shape =
                        Shape::from_snapshot(&s, &ObjRef::new(ObjKind::PodGroup, "ml", "g"))
                            .expect("shape");
                    let copt = CapacityOptions {
                        max_copies,
                        domain_key,
                    };
                    let reused = count_copies(s.clone(), &shape, &options(), &copt, true).0;
                    let full = count_copies(s.clone(), &shape, &options(), &copt, false).0;
                    assert_eq!(reused, full, "max {max_copies}");
                }
            }
        }
    }

    #[test]
    fn the_text_view_lists_the_best_domains_and_counts_the_rest() {
        // 313 racks as at 5,000 nodes: the table keeps the domains with the most copies
        // (ties in the report's order) and counts the rest; `-o json` keeps every one.
        use crate::explain::DOMAINS_SHOWN;
        use crate::render::color::ColorChoice;
        let shape = Shape::from_snapshot(&cluster(), &ObjRef::new(ObjKind::PodGroup, "ml", "g"))
            .expect("shape");
        let copt = CapacityOptions {
            max_copies: 20,
            domain_key: Some("rack".to_owned()),
        };
        let mut r = capacity(cluster(), &shape, &options(), &copt);
        r.domains = (0..313)
            .map(|i| DomainCopies {
                key: "rack".to_owned(),
                value: format!("r{i:03}"),
                copies: u32::from(i == 200) * 3 + 1,
                copies_with_preemption: u32::from(i == 9) + 1,
            })
            .collect();
        let mut out = Vec::new();
        crate::render::capacity::write_text(&mut out, &r, ColorChoice::Never.styler())
            .expect("write to a Vec");
        let text = String::from_utf8(out).expect("utf-8");
        let rows: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("rack="))
            .map(|l| l.split_whitespace().next().unwrap_or_default())
            .collect();
        assert_eq!(rows.len(), DOMAINS_SHOWN, "{text}");
        // Most copies first, then most with preemption, then the report's order.
        assert_eq!(rows[..3], ["r200", "r009", "r000"], "{text}");
        assert!(
            text.contains(&format!(
                "… {} more domain(s), at most 1 copy in each (-o json lists all)",
                313 - DOMAINS_SHOWN
            )),
            "{text}"
        );
    }

    #[test]
    fn max_caps_the_count_without_a_limit() {
        let shape = Shape::from_snapshot(&cluster(), &ObjRef::new(ObjKind::PodGroup, "ml", "g"))
            .expect("shape");
        let copt = CapacityOptions {
            max_copies: 2,
            domain_key: None,
        };
        let r = capacity(cluster(), &shape, &options(), &copt);
        assert_eq!((r.copies, r.capped), (2, true));
        assert!(r.limit.is_none());
    }

    #[test]
    fn a_job_shape_is_the_podgroup_its_controller_creates() {
        let s = load(&[r#"{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"parallelism": 3, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}"#.to_owned()]);
        let shape = Shape::from_objects(&s, "ml", "job.yaml", Some(true)).expect("shape");
        assert_eq!(shape.namespace(), "ml");
        assert_eq!(shape.pods.len(), 3);
        // No spec.scheduling: basic (semantics §1.7).
        assert!(shape.pod_group.spec.scheduling_policy.basic.is_some());
        // The PodGroup is named as the 1.37 Job controller names it (computePodGroupName of
        // the Workload `j-<hash>` and the template `j-pgt-0`), and every pod names it.
        let pg = shape.name().to_owned();
        assert!(pg.starts_with("j-") && pg.contains("-j-pgt-0-"), "{pg}");
        assert!(shape.pods.iter().all(|p| group_of(p) == Some(pg.as_str())));
        // With WorkloadWithJob off the Job controller creates no PodGroup: no gang to count.
        let e = Shape::from_objects(&s, "ml", "job.yaml", Some(false)).expect_err("gate off");
        assert!(e.contains("WorkloadWithJob is off"), "{e}");
    }

    #[test]
    fn a_job_shape_and_the_added_job_are_the_same_podgroup_and_pods() {
        // `capacity --shape job.yaml` and `simulate --add job.yaml`: one expansion, one answer.
        let job = r#"{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "sweep"}, "spec": {"parallelism": 3, "completionMode": "Indexed", "scheduling": {"schedulingPolicy": {"gang": {}}}, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "2", "nvidia.com/gpu": "1"}}}]}}}}"#;
        let file = load(&[job.to_owned()]);
        let cluster = cluster();
        let mut shape = Shape::from_objects(&file, "default", "job.yaml", None).expect("shape");
        let admission = shape.admit(&file, &cluster);
        assert!(admission.refused.is_empty());
        let mut added = cluster.clone();
        whatif::add_manifests(&mut added, load(&[job.to_owned()]), &Default::default())
            .expect("add");
        let pg = added
            .pod_groups
            .iter()
            .find(|g| name_of(&g.metadata).starts_with("sweep-"))
            .expect("the added Job's PodGroup");
        assert_eq!(name_of(&pg.metadata), shape.name());
        assert_eq!(
            pg.spec.scheduling_policy,
            shape.pod_group.spec.scheduling_policy
        );
        let added_pods: Vec<&Pod> = added
            .pods
            .iter()
            .filter(|p| group_of(p) == Some(shape.name()))
            .map(|p| &**p)
            .collect();
        assert_eq!(added_pods.len(), shape.pods.len());
        for (a, b) in added_pods.iter().zip(&shape.pods) {
            assert_eq!(name_of(&a.metadata), name_of(&b.metadata));
            assert_eq!(a.spec, b.spec, "{}", name_of(&a.metadata));
        }
    }

    #[test]
    fn a_shape_without_pods_or_with_two_groups_is_refused() {
        let empty = load(&[group("g", 2, "")]);
        let e = Shape::from_objects(&empty, "ml", "f.yaml", None).expect_err("no pods");
        assert!(e.contains("has no pods"), "{e}");
        let two = load(&[group("g", 2, ""), group("h", 2, "")]);
        let e = Shape::from_objects(&two, "ml", "f.yaml", None).expect_err("two groups");
        assert!(e.contains("must hold one PodGroup"), "{e}");
        let e = Shape::from_snapshot(&cluster(), &ObjRef::new(ObjKind::Pod, "ml", "g-0"))
            .expect_err("a pod");
        assert!(e.contains("not a Pod"), "{e}");
    }

    fn quota(name: &str, hard: &str, used: Option<&str>, extra: &str) -> String {
        let status = used.map_or(String::new(), |u| format!(r#", "status": {{"used": {u}}}"#));
        format!(
            r#"{{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {{"name": "{name}", "namespace": "ml", "uid": "uid-{name}"}}, "spec": {{"hard": {hard}{extra}}}{status}}}"#
        )
    }

    fn with_quotas(quotas: &[String]) -> Snapshot {
        load(&[cluster_docs(), quotas.to_vec()].concat())
    }

    fn count_g(s: Snapshot) -> CapacityReport {
        let shape =
            Shape::from_snapshot(&s, &ObjRef::new(ObjKind::PodGroup, "ml", "g")).expect("shape");
        let copt = CapacityOptions {
            max_copies: 20,
            domain_key: None,
        };
        capacity(s, &shape, &options(), &copt)
    }

    /// Issue 45: the copies that fit are the fewer of what fits on the nodes (5 copies of
    /// 2 x 1 GPU) and what the quota allows (`hard - used`: 8 - 2 = 6 GPUs, 3 copies), as the
    /// ResourceQuota admission plugin creates their pods one by one
    /// (pkg/quota/v1/evaluator/core/pods.go `PodUsageFunc`: `requests.nvidia.com/gpu`).
    #[test]
    fn a_resource_quota_limits_the_copies_to_what_it_still_allows() {
        let r = count_g(with_quotas(&[quota(
            "gpu-quota",
            r#"{"requests.nvidia.com/gpu": "8"}"#,
            Some(r#"{"requests.nvidia.com/gpu": "2"}"#),
            "",
        )]));
        assert_eq!((r.copies, r.copies_with_preemption), (3, 3));
        assert_eq!(r.limited_by.as_deref(), Some("ResourceQuota"));
        let q = r.quota_limit.expect("quotaLimit");
        assert_eq!(
            (
                q.copies,
                q.copies_on_nodes,
                q.copies_with_preemption_on_nodes
            ),
            (3, 5, 5)
        );
        assert_eq!(
            (
                q.quota.as_str(),
                q.resource.as_str(),
                q.hard.as_str(),
                q.used.as_str()
            ),
            ("gpu-quota", "requests.nvidia.com/gpu", "8", "2")
        );
        assert!(!q.must_specify);
        // `limit` stays the nodes' limit: the sixth copy.
        assert_eq!(
            r.limit.map(|l| l.copy).as_deref(),
            Some("PodGroup/ml/g-copy-06")
        );
    }

    /// `pods` and `count/pods` count each copy's pods; a quota without a status counts the
    /// stored pods of the namespace (here none is stored: the test objects carry no uid).
    #[test]
    fn pod_count_quotas_limit_the_copies_too() {
        let r = count_g(with_quotas(&[quota(
            "pods",
            r#"{"count/pods": "5"}"#,
            None,
            "",
        )]));
        let q = r.quota_limit.expect("quotaLimit");
        assert_eq!(
            (r.copies, q.copies, q.resource.as_str()),
            (2, 2, "count/pods")
        );
    }

    /// A quota that allows more copies than fit on the nodes, or that does not apply to the
    /// copies' pods (a `PriorityClass` scope they are not in), changes nothing and adds no key.
    #[test]
    fn a_quota_with_room_or_out_of_scope_adds_nothing() {
        let roomy = quota(
            "roomy",
            r#"{"requests.nvidia.com/gpu": "100"}"#,
            Some("{}"),
            "",
        );
        let scoped = quota(
            "high-only",
            r#"{"requests.nvidia.com/gpu": "0"}"#,
            Some("{}"),
            r#", "scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}"#,
        );
        let plain = count_g(cluster());
        let r = count_g(with_quotas(&[roomy, scoped]));
        assert_eq!((r.copies, r.copies_with_preemption), (5, 5));
        assert!(r.quota_limit.is_none() && r.limited_by.is_none());
        let json = |r: &CapacityReport| serde_json::to_value(r).expect("json");
        assert_eq!(json(&r), json(&plain));
    }

    /// A quota on `requests.cpu` refuses pods whose containers request no CPU (the
    /// plugin's "must specify" check, pods.go `Constraints`): it allows no copy.
    #[test]
    fn a_quota_on_cpu_allows_no_copy_of_pods_without_cpu_requests() {
        let r = count_g(with_quotas(&[quota(
            "cpu",
            r#"{"requests.cpu": "100"}"#,
            Some("{}"),
            "",
        )]));
        assert_eq!(
            (r.copies, r.copies_with_preemption, r.capped),
            (0, 0, false)
        );
        let q = r.quota_limit.as_ref().expect("quotaLimit");
        assert!(q.must_specify && q.copies == 0, "{q:?}");
        let mut out = Vec::new();
        crate::render::capacity::write_text(
            &mut out,
            &r,
            crate::render::color::ColorChoice::Never.styler(),
        )
        .expect("write to a Vec");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(
            text.contains(
                "  5 copies fit on nodes; quota `cpu` allows none: it tracks `requests.cpu`"
            ),
            "{text}"
        );
    }

    #[test]
    fn displaced_units_are_grouped_with_their_outcome() {
        let before = cluster();
        let mut after = before.clone();
        // As a drain of a1 would leave it: the members pending again, a1 cordoned.
        crate::sched::whatif::cordon(&mut after, "a1").expect("a1");
        for p in &mut after.pods {
            if let Some(spec) = std::sync::Arc::make_mut(p).spec.as_mut() {
                spec.node_name = None;
            }
        }
        let after = after.build();
        let plan = crate::sched::simulate(&after, &options());
        let d = displaced(&before, &after, &plan);
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].name.as_str(), d[0].pending), ("g", 2));
        assert_eq!(d[0].outcome, "Scheduled");
        assert!(d[0].replaced);
    }
}
