//! Controller expansion: a manifest Job, Deployment, ReplicaSet or StatefulSet becomes the
//! pods (and, for a Job with `WorkloadWithJob` on, the Workload and PodGroup) its 1.37
//! controller would create, before admission admits them. One code path for `--from`
//! manifests, `--add`, the TUI's `:add`, `capacity --shape` and lint `--feasibility`.
//!
//! Stored objects (a `uid` or `resourceVersion`, see [`super::is_stored`]) are never
//! expanded: the pods a cluster's controllers created are what the snapshot holds.
//!
//! **Job** (pkg/controller/job, 1.37):
//! - active pods: `parallelism` (default 1), capped by `completions` when set; 0 pods when
//!   `parallelism` is 0. A suspended Job (`spec.suspend: true`) creates none: it is reported
//!   (warning `JobSuspended`, and `admitted` counts it), never dropped silently.
//! - names: the controller uses `generateName` (a random 5-character suffix). `Indexed` pods
//!   are named `<job>-<index>` (the controller's prefix `<job>-<index>-` without the random
//!   part), with the label and annotation
//!   `batch.kubernetes.io/job-completion-index`; `NonIndexed` pods are `<job>-<nnnnn>`, the
//!   creation order zero-padded to 5 digits where the controller's 5 random characters go.
//!   Fixed, since names break ties.
//! - labels: the template's, plus `batch.kubernetes.io/job-name` and `job-name` (the API
//!   server adds both to the template; the `controller-uid` labels need the uid the API
//!   server has not assigned yet and are left out); ownerReference to the Job (controller).
//! - `WorkloadWithJob` (job_scheduling_manager.go): a root Job (no controller owner) whose
//!   template does not already carry `schedulingGroup` gets a Workload with one
//!   PodGroupTemplate `<job>-pgt-0` compiled from `spec.scheduling` (basic when absent;
//!   `gang.minCount` defaults to `parallelism`, ≥ 1), and a PodGroup
//!   `<workload>-<template>-<hash>` (upstream's `computePodGroupName`: FNV-32a of workload and
//!   template names, `SafeEncodeString`) owned by the Job (controller) and the Workload, whose
//!   spec is the template's with `workloadRef`; the pods get `schedulingGroup` naming it.
//!   The Workload is `<job>-<hash>`; upstream hashes the Job's uid, which a manifest does not
//!   have, so the hash here is of `<namespace>/<job>` (fixed). A Job with a controller owner
//!   (JobSet, CronJob) gets no Workload/PodGroup: its parent owns them (or delegates them with
//!   an annotation this module does not follow).
//! - Whether `WorkloadWithJob` is on: the `--feature-gates` overrides, then
//!   kube-controller-manager's (else kube-apiserver's) value in the cluster's facts, then the
//!   gate inferred from stored objects. When nothing says, a Job that sets `spec.scheduling`
//!   is taken as written for a cluster with the gate on (it gets its Workload/PodGroup), and
//!   a Job without it as for the 1.37 default, off (pods only: a basic PodGroup would not
//!   change where they go). With the gate known off, the API server drops `spec.scheduling`:
//!   the pods are created without a group, and a warning says so.
//!
//! **Deployment / ReplicaSet / StatefulSet** (apps/v1), `replicas` (default 1) pods:
//! - Deployment: its ReplicaSet `<deployment>-<hash>` (the `pod-template-hash` label; here
//!   `SafeEncodeString` of FNV-32a of the template's JSON, where upstream hashes the Go
//!   struct), pods `<deployment>-<hash>-<nnnnn>` owned by that ReplicaSet.
//! - ReplicaSet: pods `<replicaset>-<nnnnn>`.
//! - StatefulSet: pods `<statefulset>-<ordinal>` (from `spec.ordinals.start`, default 0), with
//!   the `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index` labels.
//!   `volumeClaimTemplates` are not turned into PVCs.
//!
//! Any other manifest kind held only raw (JobSet, LeaderWorkerSet, DaemonSet, …) is a
//! warning naming its kind and name (`NotExpanded`): no pods are created for it.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::core::v1::{PodSchedulingGroup, PodTemplateSpec};
use k8s_openapi::api::scheduling::v1beta1::{PodGroup, PodGroupSpec, Workload};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use super::{Admission, Refusal, is_stored};
use crate::snapshot::facts::Component;
use crate::snapshot::pod::{Pod, PodSpec};
use crate::snapshot::{Job, ObjKind, RawObject, Snapshot, Warning, name_of, namespace_of};

/// The label and annotation of an Indexed Job's pod.
pub(crate) const COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";
/// The Job-name label the API server adds to a Job's template.
pub(crate) const JOB_NAME: &str = "batch.kubernetes.io/job-name";
/// The legacy Job-name label.
pub(crate) const LEGACY_JOB_NAME: &str = "job-name";
/// The managed-by annotation the Job controller puts on the Workload and PodGroup.
pub(crate) const WORKLOAD_MANAGED_BY: &str = "batch.kubernetes.io/workload-managed-by";
/// Its value.
pub(crate) const JOB_CONTROLLER: &str = "kubernetes.io/job-controller";

/// What the Job controller creates for one Job.
#[derive(Debug, Clone, Default)]
pub(crate) struct JobObjects {
    /// The Workload (with `WorkloadWithJob`).
    pub workload: Option<Workload>,
    /// The PodGroup (with `WorkloadWithJob`).
    pub pod_group: Option<PodGroup>,
    /// The pods, in creation order.
    pub pods: Vec<Pod>,
    /// True when the Job is suspended (no pods).
    pub suspended: bool,
    /// True when `spec.scheduling` was set but dropped (gate off).
    pub scheduling_dropped: bool,
}

/// Whether the Job controller runs with `WorkloadWithJob`: the `--feature-gates` overrides,
/// then kube-controller-manager's or kube-apiserver's known value in the facts of `s`, then
/// the gate inferred from stored objects; `None` when nothing says (see the [module](self)).
pub(crate) fn workload_with_job(s: &Snapshot, overrides: &BTreeMap<String, bool>) -> Option<bool> {
    const GATE: &str = "WorkloadWithJob";
    if let Some(v) = overrides.get(GATE) {
        return Some(*v);
    }
    for component in [Component::KubeControllerManager, Component::KubeApiserver] {
        let known = s
            .facts
            .components
            .iter()
            .filter(|f| f.component == component)
            .find_map(|f| f.feature_gates.get(GATE));
        if let Some(v) = known {
            return Some(*v);
        }
    }
    s.facts.inferred_gates.contains_key(GATE).then_some(true)
}

/// FNV-32a, as Go's `hash/fnv`.
fn fnv32a(parts: &[&[u8]]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for p in parts {
        for b in *p {
            h ^= u32::from(*b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    h
}

/// `k8s.io/apimachinery/pkg/util/rand.SafeEncodeString` of the decimal hash.
fn safe_encode(h: u32) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    h.to_string()
        .bytes()
        .map(|b| char::from(ALPHANUMS[usize::from(b) % ALPHANUMS.len()]))
        .collect()
}

/// Upstream's `computePodGroupName` (job_scheduling_manager.go), truncation included.
pub(crate) fn pod_group_name(workload: &str, template: &str) -> String {
    const MAX: usize = 253;
    let hash = safe_encode(fnv32a(&[workload.as_bytes(), template.as_bytes()]));
    let available = MAX - hash.len() - 2;
    let (mut wl, mut tpl) = (workload, template);
    if wl.len() + tpl.len() > available {
        let half = available / 2;
        if wl.len() <= half {
            tpl = tpl.get(..available - wl.len()).unwrap_or(tpl);
        } else if tpl.len() <= half {
            wl = wl.get(..available - tpl.len()).unwrap_or(wl);
        } else {
            wl = wl.get(..available - half).unwrap_or(wl);
            tpl = tpl.get(..half).unwrap_or(tpl);
        }
    }
    format!("{wl}-{tpl}-{hash}")
}

/// The Workload name: `<job>-<hash>` (see the [module](self): the hash is of the Job's
/// namespace and name, not its uid).
pub(crate) fn workload_name(namespace: &str, job: &str) -> String {
    let hash = safe_encode(fnv32a(&[namespace.as_bytes(), b"/", job.as_bytes()]));
    let max = 253 - hash.len() - 1;
    let prefix = job.get(..max.min(job.len())).unwrap_or(job);
    format!("{prefix}-{hash}")
}

fn owner(api_version: &str, kind: &str, name: &str, controller: bool) -> OwnerReference {
    OwnerReference {
        api_version: api_version.to_owned(),
        kind: kind.to_owned(),
        name: name.to_owned(),
        uid: String::new(),
        controller: controller.then_some(true),
        block_owner_deletion: controller.then_some(true),
    }
}

/// The object's namespace, `default` when it names none (as `kubectl create` without `-n`
/// in a context without a namespace; `capacity --shape` sets its `-n` before expanding).
fn namespace_or_default(meta: &ObjectMeta) -> String {
    match namespace_of(meta) {
        "" => "default".to_owned(),
        ns => ns.to_owned(),
    }
}

/// The 5-character stand-in for the controller's random `generateName` suffix.
fn suffix(i: usize) -> String {
    format!("{i:05}")
}

/// The objects the Job controller would create for the manifest `job` (namespace already
/// set). Errors name the Job.
/// `workload_with_job`: the gate as [`workload_with_job`] resolves it (`None`: unknown).
pub(crate) fn expand_job(job: &Job, workload_with_job: Option<bool>) -> Result<JobObjects, String> {
    let ns = namespace_or_default(&job.metadata);
    let name = name_of(&job.metadata).to_owned();
    let who = format!("Job {ns}/{name}");
    let Some(spec) = job.spec.as_deref() else {
        return Err(format!("{who} has no spec"));
    };
    let mut out = JobObjects::default();
    if spec.suspend == Some(true) {
        out.suspended = true;
        return Ok(out);
    }
    let parallelism = spec.parallelism.unwrap_or(1).max(0);
    let active = spec
        .completions
        .map_or(parallelism, |c| parallelism.min(c.max(0)));
    let active = usize::try_from(active).unwrap_or(0);
    let indexed = spec.completion_mode.as_deref() == Some("Indexed");
    let template_meta = spec.template.metadata.clone().unwrap_or_default();
    let template_spec = spec.template.spec.clone().unwrap_or_default();

    // WorkloadWithJob: shouldManageWorkloadForJob.
    let controlled = job
        .metadata
        .owner_references
        .iter()
        .flatten()
        .any(|o| o.controller == Some(true));
    let workload_with_job = workload_with_job.unwrap_or(spec.scheduling.is_some());
    let manage = workload_with_job && template_spec.scheduling_group.is_none() && !controlled;
    out.scheduling_dropped = !workload_with_job && spec.scheduling.is_some();
    let mut group_name = None;
    if manage {
        let (workload, pod_group) = managed_workload(spec, &ns, &name, &who)?;
        group_name.clone_from(&pod_group.metadata.name);
        out.workload = Some(workload);
        out.pod_group = Some(pod_group);
    }

    out.pods = job_pods(
        &ns,
        &name,
        &template_meta,
        &template_spec,
        active,
        indexed,
        group_name.as_deref(),
    );
    Ok(out)
}

/// The WorkloadWithJob objects for a Job the controller manages a Workload for
/// (`buildWorkloadItem`): the Workload with one PodGroup template from `spec.scheduling`, and
/// the PodGroup made from that template, both annotated as managed by the Job controller.
fn managed_workload(
    spec: &crate::snapshot::job::JobSpec,
    ns: &str,
    name: &str,
    who: &str,
) -> Result<(Workload, PodGroup), String> {
    let scheduling = spec.scheduling.clone().unwrap_or_default();
    // buildWorkloadItem: basic by default; defaultMinCountForJob: gang.minCount from
    // parallelism (at least 1).
    let mut policy = match &scheduling.scheduling_policy {
        Some(p) => serde_json::to_value(p).map_err(|e| format!("{who}: {e}"))?,
        None => serde_json::json!({"basic": {}}),
    };
    if let Some(gang) = policy.get_mut("gang").and_then(|g| g.as_object_mut()) {
        gang.entry("minCount")
            .or_insert_with(|| serde_json::json!(spec.parallelism.unwrap_or(1).max(1)));
    }
    let template_name = format!("{name}-pgt-0");
    let mut tpl = serde_json::json!({"name": template_name, "schedulingPolicy": policy});
    if let Some(c) = &scheduling.scheduling_constraints {
        tpl["schedulingConstraints"] =
            serde_json::to_value(c).map_err(|e| format!("{who}: {e}"))?;
    }
    if let Some(d) = &scheduling.disruption_mode {
        tpl["disruptionMode"] = serde_json::to_value(d).map_err(|e| format!("{who}: {e}"))?;
    }
    if let Some(c) = &scheduling.resource_claims {
        tpl["resourceClaims"] = serde_json::to_value(c).map_err(|e| format!("{who}: {e}"))?;
    }
    let wl_name = workload_name(ns, name);
    let pg_name = pod_group_name(&wl_name, &template_name);
    let managed = BTreeMap::from([(WORKLOAD_MANAGED_BY.to_owned(), JOB_CONTROLLER.to_owned())]);
    let workload: Workload = serde_json::from_value(serde_json::json!({
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": wl_name, "namespace": ns},
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": name},
            "podGroupTemplates": [tpl.clone()],
        },
    }))
    .map_err(|e| format!("{who}: spec.scheduling: {e}"))?;
    let mut pg_spec = tpl;
    if let Some(o) = pg_spec.as_object_mut() {
        o.remove("name");
        o.insert(
            "workloadRef".to_owned(),
            serde_json::json!({"workloadName": wl_name, "templateName": template_name}),
        );
    }
    let pg_spec: PodGroupSpec =
        serde_json::from_value(pg_spec).map_err(|e| format!("{who}: spec.scheduling: {e}"))?;
    let workload = Workload {
        metadata: ObjectMeta {
            annotations: Some(managed.clone()),
            owner_references: Some(vec![owner("batch/v1", "Job", name, true)]),
            ..workload.metadata
        },
        ..workload
    };
    let pod_group = PodGroup {
        metadata: ObjectMeta {
            name: Some(pg_name.clone()),
            namespace: Some(ns.to_owned()),
            annotations: Some(managed),
            owner_references: Some(vec![
                owner("batch/v1", "Job", name, true),
                owner("scheduling.k8s.io/v1beta1", "Workload", &wl_name, false),
            ]),
            ..ObjectMeta::default()
        },
        spec: pg_spec,
        status: None,
    };
    Ok((workload, pod_group))
}

/// The Job's `active` pods from its template: named `<job>-<index>` when Indexed (with the
/// completion-index label and annotation), else `<job>-<5-digit number>` standing in for the
/// random suffix; owned by the Job and in the Job's PodGroup when it has one.
fn job_pods(
    ns: &str,
    name: &str,
    template_meta: &ObjectMeta,
    template_spec: &PodSpec,
    active: usize,
    indexed: bool,
    group_name: Option<&str>,
) -> Vec<Pod> {
    let width = 5;
    (0..active)
        .map(|i| {
            let mut meta = template_meta.clone();
            let labels = meta.labels.get_or_insert_with(BTreeMap::new);
            labels.insert(JOB_NAME.to_owned(), name.to_owned());
            labels.insert(LEGACY_JOB_NAME.to_owned(), name.to_owned());
            let mut pod_spec = template_spec.clone();
            if indexed {
                labels.insert(COMPLETION_INDEX.to_owned(), i.to_string());
                meta.annotations
                    .get_or_insert_with(BTreeMap::new)
                    .insert(COMPLETION_INDEX.to_owned(), i.to_string());
                meta.name = Some(format!("{name}-{i}"));
            } else {
                meta.name = Some(format!("{name}-{i:0width$}"));
            }
            meta.namespace = Some(ns.to_owned());
            meta.generate_name = None;
            meta.owner_references = Some(vec![owner("batch/v1", "Job", name, true)]);
            if let Some(pg) = group_name {
                pod_spec.scheduling_group = Some(PodSchedulingGroup {
                    pod_group_name: Some(pg.to_owned()),
                });
            }
            Pod {
                metadata: meta,
                spec: Some(Box::new(pod_spec)),
                status: None,
            }
        })
        .collect()
}

/// `replicas` pods from an apps/v1 template, named by `name_of_pod`.
fn replica_pods(
    ns: &str,
    template: Option<PodTemplateSpec>,
    replicas: usize,
    owner_ref: &OwnerReference,
    extra_labels: impl Fn(usize) -> BTreeMap<String, String>,
    name_of_pod: impl Fn(usize) -> String,
) -> Vec<Pod> {
    let template = template.unwrap_or_default();
    let spec: PodSpec = template.spec.map(PodSpec::from).unwrap_or_default();
    let meta = template.metadata.unwrap_or_default();
    (0..replicas)
        .map(|i| {
            let mut meta = meta.clone();
            meta.name = Some(name_of_pod(i));
            meta.namespace = Some(ns.to_owned());
            meta.generate_name = None;
            meta.labels
                .get_or_insert_with(BTreeMap::new)
                .extend(extra_labels(i));
            meta.owner_references = Some(vec![owner_ref.clone()]);
            Pod {
                metadata: meta,
                spec: Some(Box::new(spec.clone())),
                status: None,
            }
        })
        .collect()
}

fn replicas(r: Option<i32>) -> usize {
    usize::try_from(r.unwrap_or(1).max(0)).unwrap_or(0)
}

/// The pods the apps/v1 controllers would create for the manifest `raw`, or `None` when its
/// kind is not one of Deployment, ReplicaSet, StatefulSet.
pub(crate) fn expand_apps(raw: &RawObject) -> Option<Result<Vec<Pod>, String>> {
    if raw.group() != "apps" {
        return None;
    }
    let ns = namespace_or_default(&raw.metadata);
    let name = name_of(&raw.metadata).to_owned();
    let who = format!("{} {ns}/{name}", raw.kind);
    let parse_err = |e: serde_json::Error| format!("{who}: {e}");
    Some(match raw.kind.as_str() {
        "Deployment" => serde_json::from_value::<Deployment>(raw.value.clone())
            .map_err(parse_err)
            .map(|d| {
                let spec = d.spec;
                let json = serde_json::to_vec(&spec.template).unwrap_or_default();
                let hash = safe_encode(fnv32a(&[&json]));
                let rs = format!("{name}-{hash}");
                replica_pods(
                    &ns,
                    Some(spec.template),
                    replicas(spec.replicas),
                    &owner("apps/v1", "ReplicaSet", &rs, true),
                    |_| BTreeMap::from([("pod-template-hash".to_owned(), hash.clone())]),
                    |i| format!("{rs}-{}", suffix(i)),
                )
            }),
        "ReplicaSet" => serde_json::from_value::<ReplicaSet>(raw.value.clone())
            .map_err(parse_err)
            .map(|r| {
                let spec = r.spec;
                replica_pods(
                    &ns,
                    spec.template,
                    replicas(spec.replicas),
                    &owner("apps/v1", "ReplicaSet", &name, true),
                    |_| BTreeMap::new(),
                    |i| format!("{name}-{}", suffix(i)),
                )
            }),
        "StatefulSet" => serde_json::from_value::<StatefulSet>(raw.value.clone())
            .map_err(parse_err)
            .map(|s| {
                let spec = s.spec;
                let start = spec
                    .ordinals
                    .as_ref()
                    .and_then(|o| o.start)
                    .unwrap_or(0)
                    .max(0);
                let start = usize::try_from(start).unwrap_or(0);
                replica_pods(
                    &ns,
                    Some(spec.template),
                    replicas(spec.replicas),
                    &owner("apps/v1", "StatefulSet", &name, true),
                    |i| {
                        BTreeMap::from([
                            (
                                "statefulset.kubernetes.io/pod-name".to_owned(),
                                format!("{name}-{}", start + i),
                            ),
                            (
                                "apps.kubernetes.io/pod-index".to_owned(),
                                (start + i).to_string(),
                            ),
                        ])
                    },
                    |i| format!("{name}-{}", start + i),
                )
            }),
        _ => return None,
    })
}

/// Expands the manifest controllers of `objects` in place (pods, PodGroups, Workloads added;
/// the controllers themselves kept), recording what was done in `out`. Returns true when
/// objects were added (the caller rebuilds the snapshot's order and index).
pub(super) fn expand(
    objects: &mut Snapshot,
    workload_with_job: Option<bool>,
    held: &[(String, String)],
    out: &mut Admission,
) -> bool {
    let mut added = default_namespaces(objects);
    added |= expand_jobs(objects, workload_with_job, held, out);
    added |= expand_apps_objects(objects, out);
    added
}

/// A manifest controller without a namespace is created in `default`, with what it makes:
/// sets it on manifest Jobs and on the apps/v1 objects wasctl expands. True when one was set.
fn default_namespaces(objects: &mut Snapshot) -> bool {
    let mut added = false;
    for job in objects.jobs.iter_mut().filter(|j| !is_stored(&j.metadata)) {
        if namespace_of(&job.metadata).is_empty() {
            Arc::make_mut(job).metadata.namespace = Some("default".to_owned());
            added = true;
        }
    }
    for raw in objects
        .foreign
        .iter_mut()
        .filter(|o| !is_stored(&o.metadata))
    {
        if namespace_of(&raw.metadata).is_empty() && expand_apps(raw).is_some() {
            raw.metadata.namespace = Some("default".to_owned());
            added = true;
        }
    }
    added
}

/// Expands the manifest Jobs (refused ones recorded in `out`); suspended Jobs and Jobs whose
/// `spec.scheduling` the API server drops (WorkloadWithJob off) are warnings. True when
/// objects were added.
fn expand_jobs(
    objects: &mut Snapshot,
    workload_with_job: Option<bool>,
    held: &[(String, String)],
    out: &mut Admission,
) -> bool {
    let mut added = false;
    let mut suspended = Vec::new();
    let mut dropped = Vec::new();
    let jobs: Vec<Arc<Job>> = objects
        .jobs
        .iter()
        .filter(|j| !is_stored(&j.metadata))
        .cloned()
        .collect();
    for job in jobs {
        match expand_job(&job, workload_with_job) {
            Err(reason) => out
                .refused
                .push(Refusal::new(ObjKind::Job, &job.metadata, reason)),
            Ok(made) => {
                let who = format!("{}/{}", namespace_of(&job.metadata), name_of(&job.metadata));
                if made.suspended {
                    // A Job Kueue holds is Kueue's to start (its Kueue Workload says why).
                    let kueue = held.iter().any(|(ns, name)| {
                        ns == namespace_of(&job.metadata) && name == name_of(&job.metadata)
                    });
                    if !kueue {
                        suspended.push(who);
                    }
                    continue;
                }
                if made.scheduling_dropped {
                    dropped.push(who);
                }
                if !made.pods.is_empty() {
                    out.count(
                        "JobPods",
                        "Job expanded into the pods its controller creates",
                    );
                }
                if made.pod_group.is_some() {
                    out.count(
                        "JobPodGroup",
                        "Job given the Workload and PodGroup its controller creates (WorkloadWithJob)",
                    );
                }
                objects.workloads.extend(made.workload);
                objects.pod_groups.extend(made.pod_group);
                objects.pods.extend(made.pods.into_iter().map(Arc::new));
                added = true;
            }
        }
    }
    for who in suspended {
        out.count("JobSuspended", "Job suspended: no pods until it is resumed");
        out.warnings.push(Warning::new(
            "JobSuspended",
            format!("Job {who} is suspended: no pods until it is resumed"),
        ));
    }
    if let Some(first) = dropped.first() {
        out.warnings.push(Warning::new(
            "WorkloadWithJobOff",
            format!(
                "Job `{first}`{} sets `spec.scheduling`, but WorkloadWithJob is off: the API server drops it and its pods are created without a PodGroup (`--feature-gates WorkloadWithJob=true` to simulate it on)",
                match dropped.len() {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                }
            ),
        ));
    }
    added
}

/// Expands the manifest Deployments, ReplicaSets and StatefulSets into their replicas; any
/// other foreign object is a warning (its controller is not run). True when pods were added.
fn expand_apps_objects(objects: &mut Snapshot, out: &mut Admission) -> bool {
    let mut added = false;
    let raws: Vec<RawObject> = objects
        .foreign
        .iter()
        .filter(|o| !is_stored(&o.metadata))
        .cloned()
        .collect();
    for raw in raws {
        let who = format!(
            "{} {}/{}",
            raw.kind,
            namespace_of(&raw.metadata),
            name_of(&raw.metadata)
        );
        match expand_apps(&raw) {
            Some(Ok(pods)) => {
                if !pods.is_empty() {
                    out.count(
                        "ReplicaPods",
                        "Deployment/ReplicaSet/StatefulSet expanded into its replicas",
                    );
                    objects.pods.extend(pods.into_iter().map(Arc::new));
                    added = true;
                }
            }
            Some(Err(reason)) => out.refused.push(Refusal::new(
                ObjKind::Other(raw.kind.clone()),
                &raw.metadata,
                reason,
            )),
            None => out.warnings.push(Warning::new(
                "NotExpanded",
                format!(
                    "{who} ({}) is not expanded: wasctl does not run its controller, so no pods are created for it",
                    raw.api_version
                ),
            )),
        }
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(json: &str) -> Job {
        serde_json::from_str(json).expect("job")
    }

    fn snapshot(docs: &[&str]) -> Snapshot {
        let mut c = crate::snapshot::source::Collector::new();
        for d in docs {
            c.add(serde_json::from_str(d).expect("json")).expect("add");
        }
        c.finish()
    }

    const TEMPLATE: &str = r#""template": {"metadata": {"labels": {"app": "t"}}, "spec": {"restartPolicy": "Never", "priorityClassName": "high", "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}"#;

    #[test]
    fn fnv_and_safe_encode_match_go() {
        // Go: fnv.New32a() over "" is the offset basis; "a" is 0xe40c292c.
        assert_eq!(fnv32a(&[]), 0x811c_9dc5);
        assert_eq!(fnv32a(&[b"a"]), 0xe40c_292c);
        // rand.SafeEncodeString of "123": each byte b → alphanums[b % 27], '1' (49) → 22 → '5'.
        assert_eq!(safe_encode(123), "567");
    }

    #[test]
    fn indexed_job_pods_are_named_job_index_with_the_completion_index() {
        let j = job(&format!(
            r#"{{"apiVersion": "batch/v1", "kind": "Job", "metadata": {{"name": "train", "namespace": "ml"}},
            "spec": {{"parallelism": 4, "completions": 3, "completionMode": "Indexed", {TEMPLATE}}}}}"#
        ));
        let made = expand_job(&j, Some(false)).expect("expand");
        // parallelism capped by completions.
        let names: Vec<&str> = made.pods.iter().map(|p| name_of(&p.metadata)).collect();
        assert_eq!(names, ["train-0", "train-1", "train-2"]);
        let p = &made.pods[2];
        let labels = p.metadata.labels.as_ref().expect("labels");
        assert_eq!(labels[COMPLETION_INDEX], "2");
        assert_eq!(labels["app"], "t");
        assert_eq!(labels[JOB_NAME], "train");
        assert_eq!(
            p.metadata.annotations.as_ref().expect("a")[COMPLETION_INDEX],
            "2"
        );
        let o = &p.metadata.owner_references.as_ref().expect("owner")[0];
        assert_eq!(
            (o.kind.as_str(), o.name.as_str(), o.controller),
            ("Job", "train", Some(true))
        );
        assert!(made.pod_group.is_none() && made.workload.is_none());
    }

    #[test]
    fn non_indexed_job_pods_get_the_fixed_five_digit_suffix_and_parallelism_defaults_to_1() {
        let j = job(&format!(
            r#"{{"apiVersion": "batch/v1", "kind": "Job", "metadata": {{"name": "pi", "namespace": "d"}}, "spec": {{{TEMPLATE}}}}}"#
        ));
        let made = expand_job(&j, Some(false)).expect("expand");
        let names: Vec<&str> = made.pods.iter().map(|p| name_of(&p.metadata)).collect();
        assert_eq!(names, ["pi-00000"]);
        let zero = job(&format!(
            r#"{{"apiVersion": "batch/v1", "kind": "Job", "metadata": {{"name": "pi"}}, "spec": {{"parallelism": 0, {TEMPLATE}}}}}"#
        ));
        assert!(
            expand_job(&zero, Some(false))
                .expect("expand")
                .pods
                .is_empty()
        );
    }

    #[test]
    fn workload_with_job_creates_workload_and_gang_podgroup_min_count_from_parallelism() {
        let j = job(&format!(
            r#"{{"apiVersion": "batch/v1", "kind": "Job", "metadata": {{"name": "train", "namespace": "ml"}},
            "spec": {{"parallelism": 4, "completionMode": "Indexed", "scheduling": {{"schedulingPolicy": {{"gang": {{}}}}}}, {TEMPLATE}}}}}"#
        ));
        let made = expand_job(&j, Some(true)).expect("expand");
        let wl = made.workload.expect("workload");
        let pg = made.pod_group.expect("podgroup");
        let wl_name = name_of(&wl.metadata).to_owned();
        assert_eq!(wl_name, workload_name("ml", "train"));
        assert_eq!(
            name_of(&pg.metadata),
            pod_group_name(&wl_name, "train-pgt-0")
        );
        // defaultMinCountForJob: gang.minCount from parallelism.
        let gang = pg.spec.scheduling_policy.gang.as_ref().expect("gang");
        assert_eq!(gang.min_count, 4);
        let r = pg.spec.workload_ref.as_ref().expect("workloadRef");
        assert_eq!(
            (r.workload_name.as_str(), r.template_name.as_str()),
            (wl_name.as_str(), "train-pgt-0")
        );
        // Controller owner: the Job; non-controller owner: the Workload.
        let owners = pg.metadata.owner_references.as_ref().expect("owners");
        assert_eq!(owners[0].kind, "Job");
        assert_eq!(owners[1].kind, "Workload");
        assert_eq!(owners[1].controller, None);
        for p in &made.pods {
            let g = p.spec.as_ref().and_then(|s| s.scheduling_group.as_ref());
            assert_eq!(
                g.and_then(|g| g.pod_group_name.as_deref()),
                Some(name_of(&pg.metadata))
            );
        }
    }

    #[test]
    fn a_job_with_a_controller_owner_or_its_own_scheduling_group_gets_no_podgroup() {
        let owned = job(&format!(
            r#"{{"apiVersion": "batch/v1", "kind": "Job", "metadata": {{"name": "w", "ownerReferences": [{{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "uid": "u", "controller": true}}]}}, "spec": {{{TEMPLATE}}}}}"#
        ));
        assert!(
            expand_job(&owned, Some(true))
                .expect("e")
                .pod_group
                .is_none()
        );
        let byo = job(
            r#"{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "w"}, "spec": {"template": {"spec": {"schedulingGroup": {"podGroupName": "mine"}, "containers": [{"name": "c", "image": "x"}]}}}}"#,
        );
        let made = expand_job(&byo, Some(true)).expect("e");
        assert!(made.pod_group.is_none());
        let g = made.pods[0]
            .spec
            .as_ref()
            .and_then(|s| s.scheduling_group.as_ref());
        assert_eq!(g.and_then(|g| g.pod_group_name.as_deref()), Some("mine"));
    }

    #[test]
    fn a_suspended_job_is_reported_and_creates_no_pods() {
        let mut s = snapshot(&[&format!(
            r#"{{"apiVersion": "batch/v1", "kind": "Job", "metadata": {{"name": "later", "namespace": "ml"}}, "spec": {{"suspend": true, "parallelism": 2, {TEMPLATE}}}}}"#
        )]);
        let mut out = Admission::default();
        assert!(!expand(&mut s, Some(true), &[], &mut out));
        assert!(s.pods.is_empty());
        assert_eq!(
            out.warnings[0].message,
            "Job ml/later is suspended: no pods until it is resumed"
        );
        assert_eq!(out.admitted[0].change, "JobSuspended");
    }

    #[test]
    fn a_stored_job_is_never_expanded() {
        let mut s = snapshot(&[&format!(
            r#"{{"apiVersion": "batch/v1", "kind": "Job", "metadata": {{"name": "j", "namespace": "ml", "uid": "u1"}}, "spec": {{{TEMPLATE}}}}}"#
        )]);
        let mut out = Admission::default();
        assert!(!expand(&mut s, Some(true), &[], &mut out));
        assert!(s.pods.is_empty());
        assert_eq!(out, Admission::default());
    }

    #[test]
    fn deployments_replicasets_and_statefulsets_become_their_replicas() {
        let pod = r#""template": {"metadata": {"labels": {"app": "w"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}"#;
        let mut s = snapshot(&[
            &format!(
                r#"{{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {{"name": "web", "namespace": "d"}}, "spec": {{"replicas": 2, "selector": {{"matchLabels": {{"app": "w"}}}}, {pod}}}}}"#
            ),
            &format!(
                r#"{{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {{"name": "rs", "namespace": "d"}}, "spec": {{"selector": {{"matchLabels": {{"app": "w"}}}}, {pod}}}}}"#
            ),
            &format!(
                r#"{{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {{"name": "db", "namespace": "d"}}, "spec": {{"replicas": 2, "serviceName": "db", "selector": {{"matchLabels": {{"app": "w"}}}}, {pod}}}}}"#
            ),
            r#"{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "d"}, "spec": {"selector": {}, "template": {"spec": {"containers": []}}}}"#,
        ]);
        let mut out = Admission::default();
        assert!(expand(&mut s, Some(true), &[], &mut out));
        let mut names: Vec<String> = s
            .pods
            .iter()
            .map(|p| name_of(&p.metadata).to_owned())
            .collect();
        names.sort();
        let web: Vec<&String> = names.iter().filter(|n| n.starts_with("web-")).collect();
        assert_eq!(web.len(), 2);
        assert!(
            web[0].ends_with("-00000") && web[1].ends_with("-00001"),
            "{web:?}"
        );
        assert!(names.contains(&"rs-00000".to_owned()));
        assert!(names.contains(&"db-0".to_owned()) && names.contains(&"db-1".to_owned()));
        // The kind that cannot be expanded is named, with its name.
        let w: Vec<&str> = out.warnings.iter().map(|w| w.message.as_str()).collect();
        assert!(
            w.iter()
                .any(|m| m.starts_with("DaemonSet d/agent (apps/v1) is not expanded")),
            "{w:?}"
        );
    }
}
