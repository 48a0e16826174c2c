//! Kueue's job framework on manifest Jobs (`--add job.yaml`, `--from` manifests): what Kueue's
//! Job webhook and Job reconciler do to a `batch/v1` Job it manages, before the Job
//! controller sees it. Only when the cluster runs Kueue (Kueue objects or a Kueue
//! configuration in the input): without Kueue the label is just a label.
//!
//! Ported from kubernetes-sigs/kueue (August 2026):
//! - **webhook** (`pkg/controller/jobs/job/job_webhook.go` `Default`,
//!   `jobframework/defaults.go` `ApplyDefaultForSuspend`, `jobframework/utils.go`
//!   `WorkloadShouldBeSuspended`): a Job with the `kueue.x-k8s.io/queue-name` label and no
//!   controller owner (whose ancestor Kueue would manage instead) is created suspended, even
//!   when it says `suspend: false`.
//! - **reconciler** (`jobframework/reconciler.go` `ConstructWorkload`, `prepareWorkload`,
//!   `ExtractPriority`; `jobs/job/job_controller.go` `PodSets`): the Kueue Workload
//!   `job-<name>-<hash>` (`workload_names.go` `GetWorkloadNameForOwnerWithGVK`: SHA-1 of
//!   kind, group, name and uid, 5 hex digits; the prefix truncated to 247 characters, or 57
//!   with the `ShortWorkloadNames` gate), owned by the Job (controller), labelled with the
//!   Job's uid, with one pod set `main`: the Job's template (the `controller-uid` labels
//!   removed, `cleanLabels`), `count` = min(parallelism, completions), `minCount` from the
//!   `kueue.x-k8s.io/job-min-parallelism` annotation while `PartialAdmission` is on
//!   (`clearMinCountsIfFeatureDisabled`), and with `TopologyAwareScheduling` the template's
//!   `podset-{required,preferred,unconstrained}-topology` annotations as its
//!   `topologyRequest`. `queueName` is the label's value; the priority comes from the
//!   `kueue.x-k8s.io/priority-class` WorkloadPriorityClass, else the template's
//!   `priorityClassName`, else the cluster's global-default PriorityClass, else 0
//!   (`pkg/util/priority`). A class named but not in the input: Kueue's reconciler fails
//!   and retries, no Workload is created, and the Job stays suspended (a warning says so).
//!
//! A manifest has no uid (the API server assigns it), so the hash of a manifest Job's
//! Workload is of an empty uid: the same name for the same manifest on every run, not the
//! name the cluster would give. A stored Job (with a uid) hashes its uid, as Kueue does.
//! Not modelled: LocalQueue defaulting (a `default` LocalQueue given to unlabelled Jobs),
//! `manageJobsWithoutQueueName`, WorkloadPriorityClass defaulting, JobSet (not a typed kind:
//! its Jobs are created by the JobSet controller, which wasctl does not run).

use std::sync::Arc;

use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use super::{Admission, is_stored};
use crate::snapshot::kueue::{PodSet, PodSetTopologyRequest, PriorityClassRef, Workload};
use crate::snapshot::{
    Job, KUEUE_QUEUE_LABEL, LoadedKueueConfig, Snapshot, Warning, name_of, namespace_of,
};

/// The WorkloadPriorityClass label (`constants.WorkloadPriorityClassLabel`).
pub(crate) const PRIORITY_CLASS_LABEL: &str = "kueue.x-k8s.io/priority-class";
/// Partial admission's annotation (`JobMinParallelismAnnotation`).
pub(crate) const MIN_PARALLELISM: &str = "kueue.x-k8s.io/job-min-parallelism";
/// The label with the owner Job's uid (`constants.JobUIDLabel`).
const JOB_UID_LABEL: &str = "kueue.x-k8s.io/job-uid";
/// Kueue TAS: every pod in one domain of this level (`PodSetRequiredTopologyAnnotation`).
pub(crate) const REQUIRED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-required-topology";
/// Kueue TAS: preferably in one domain (`PodSetPreferredTopologyAnnotation`).
pub(crate) const PREFERRED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-preferred-topology";
/// Kueue TAS: no constraint (`PodSetUnconstrainedTopologyAnnotation`).
pub(crate) const UNCONSTRAINED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-unconstrained-topology";
/// The labels the Job controller manages that `cleanLabels` removes (`job-name` stays).
const MANAGED_LABELS: &[&str] = &[
    "job-name",
    "controller-uid",
    "batch.kubernetes.io/controller-uid",
];

/// Whether Kueue runs on the cluster the manifests are created in: Kueue objects or a
/// Kueue configuration in the cluster or the manifests.
fn kueue_runs(objects: &Snapshot, cluster: Option<&Snapshot>) -> bool {
    [Some(objects), cluster]
        .into_iter()
        .flatten()
        .any(|s| !s.kueue.is_empty() || s.kueue_config.is_some())
}

/// The webhook and the reconciler on the manifest Jobs of `objects` (see the
/// [module](self)): Kueue-managed Jobs are suspended and get their Kueue Workload in
/// `objects.kueue`. Returns the Jobs Kueue holds (namespace, name), whose suspension is
/// Kueue's and not the manifest's.
pub(super) fn manage_jobs(
    objects: &mut Snapshot,
    cluster: Option<&Snapshot>,
    out: &mut Admission,
) -> Vec<(String, String)> {
    let mut held = Vec::new();
    if !kueue_runs(objects, cluster) {
        return held;
    }
    let config = LoadedKueueConfig::effective(cluster.unwrap_or(objects));
    if let Some(i) = &config.integrations
        && !i.frameworks.is_empty()
        && !i.frameworks.iter().any(|f| f == "batch/job")
    {
        return held;
    }
    let mut managed = Vec::new();
    for job in &mut objects.jobs {
        if is_stored(&job.metadata) || queue_name(job).is_empty() || has_controller(job) {
            continue;
        }
        if job.spec.as_ref().and_then(|s| s.suspend) != Some(true) {
            if let Some(spec) = Arc::make_mut(job).spec.as_deref_mut() {
                spec.suspend = Some(true);
            }
            out.count(
                "KueueSuspended",
                "Job suspended by Kueue's webhook until Kueue admits it",
            );
        }
        managed.push(Arc::clone(job));
    }
    for job in managed {
        let ns = namespace_of(&job.metadata).to_owned();
        let name = name_of(&job.metadata).to_owned();
        let owned = |s: &Snapshot| {
            s.kueue.workloads.iter().any(|w| {
                w.namespace() == ns
                    && w.metadata
                        .owner_references
                        .iter()
                        .flatten()
                        .any(|o| o.kind == "Job" && o.name == name)
            })
        };
        if !(owned(objects) || cluster.is_some_and(owned)) {
            match workload_for(&job, objects, cluster, &config) {
                Ok(w) => {
                    out.count(
                        "KueueWorkload",
                        "Job given the Kueue Workload Kueue's job controller creates for it",
                    );
                    objects.kueue.workloads.push(w);
                }
                Err(why) => out.warnings.push(Warning::new(
                    "KueueWorkloadNotCreated",
                    format!(
                        "Job {ns}/{name}: {why}; Kueue creates no Workload for it and the Job stays suspended"
                    ),
                )),
            }
        }
        held.push((ns, name));
    }
    held
}

/// The Job's `kueue.x-k8s.io/queue-name` label (`QueueNameForObject`).
fn queue_name(job: &Job) -> &str {
    job.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(KUEUE_QUEUE_LABEL))
        .map_or("", String::as_str)
}

/// A Job with a controller owner (a JobSet's, a CronJob's): Kueue manages the ancestor, not
/// the Job (`FindAncestorJobManagedByKueue`; wasctl does not follow the owner chain).
fn has_controller(job: &Job) -> bool {
    job.metadata
        .owner_references
        .iter()
        .flatten()
        .any(|o| o.controller == Some(true))
}

/// The Kueue Workload Kueue's Job reconciler creates for `job` (`ConstructWorkload` and
/// `prepareWorkload`), or why it creates none.
fn workload_for(
    job: &Job,
    objects: &Snapshot,
    cluster: Option<&Snapshot>,
    config: &crate::snapshot::kueue_config::KueueConfiguration,
) -> Result<Workload, String> {
    let ns = namespace_of(&job.metadata).to_owned();
    let name = name_of(&job.metadata).to_owned();
    let uid = job.metadata.uid.clone().unwrap_or_default();
    let Some(spec) = job.spec.as_deref() else {
        return Err("the Job has no spec".to_owned());
    };
    // PodSets: parallelism (defaulted to 1 by the API server), capped by completions.
    let parallelism = spec.parallelism.unwrap_or(1);
    let count = spec.completions.map_or(parallelism, |c| parallelism.min(c));
    let mut template_meta = spec.template.metadata.clone().unwrap_or_default();
    if let Some(labels) = template_meta.labels.as_mut() {
        labels.retain(|k, _| !MANAGED_LABELS.contains(&k.as_str()));
    }
    let template_spec = spec
        .template
        .spec
        .as_ref()
        .map(|p| serde_json::to_value(p).and_then(serde_json::from_value))
        .transpose()
        .map_err(|e| format!("its pod template cannot be read: {e}"))?;
    let annotation = |key: &str| {
        job.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .map(String::as_str)
    };
    // minPodsCount: the annotation when it parses; cleared with PartialAdmission off.
    let min_count = annotation(MIN_PARALLELISM)
        .and_then(|v| v.parse::<i32>().ok())
        .filter(|_| config.gate("PartialAdmission"));
    let topology_request = if config.gate("TopologyAwareScheduling") {
        topology_request(&template_meta)
    } else {
        None
    };
    let pod_set = PodSet {
        name: "main".to_owned(),
        template: PodTemplateSpec {
            metadata: Some(template_meta),
            spec: template_spec,
        },
        count,
        min_count,
        topology_request,
    };
    let (priority_class_ref, priority) = priority_of(job, objects, cluster)?;
    let max = if config.gate("ShortWorkloadNames") {
        63
    } else {
        253
    };
    let mut labels = std::collections::BTreeMap::new();
    if !uid.is_empty() {
        labels.insert(JOB_UID_LABEL.to_owned(), uid.clone());
    }
    let created = cluster.unwrap_or(objects).now();
    let mut w = Workload {
        metadata: ObjectMeta {
            name: Some(workload_name(&name, &uid, max)),
            namespace: Some(ns),
            labels: (!labels.is_empty()).then_some(labels),
            creation_timestamp: Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                created,
            )),
            owner_references: Some(vec![OwnerReference {
                api_version: "batch/v1".to_owned(),
                kind: "Job".to_owned(),
                name,
                uid,
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..ObjectMeta::default()
        },
        ..Workload::default()
    };
    w.spec.queue_name = queue_name(job).to_owned();
    w.spec.pod_sets = vec![pod_set];
    w.spec.priority_class_ref = priority_class_ref;
    w.spec.priority = Some(priority);
    w.spec.active = true;
    Ok(w)
}

/// `NewPodSetTopologyRequest` from the template's annotations: required, else preferred,
/// else unconstrained.
fn topology_request(meta: &ObjectMeta) -> Option<PodSetTopologyRequest> {
    let a = meta.annotations.as_ref()?;
    let required = a.get(REQUIRED_TOPOLOGY).cloned();
    let preferred = a.get(PREFERRED_TOPOLOGY).cloned();
    let unconstrained = a
        .get(UNCONSTRAINED_TOPOLOGY)
        .and_then(|v| v.parse::<bool>().ok());
    if required.is_none() && preferred.is_none() && unconstrained.is_none() {
        return None;
    }
    Some(PodSetTopologyRequest {
        required,
        preferred,
        unconstrained,
    })
}

/// `ExtractPriority`: the WorkloadPriorityClass of the label, else the template's
/// PriorityClass, else the global default PriorityClass (the lowest of several), else 0.
fn priority_of(
    job: &Job,
    objects: &Snapshot,
    cluster: Option<&Snapshot>,
) -> Result<(Option<PriorityClassRef>, i32), String> {
    let inputs = || [Some(objects), cluster].into_iter().flatten();
    let label = job
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(PRIORITY_CLASS_LABEL))
        .filter(|v| !v.is_empty());
    if let Some(class) = label {
        let value = inputs()
            .flat_map(|s| &s.kueue.workload_priority_classes)
            .find(|c| c.metadata.name.as_deref() == Some(class.as_str()))
            .map(|c| c.value)
            .ok_or_else(|| format!("WorkloadPriorityClass {class} is not in the input"))?;
        return Ok((
            Some(PriorityClassRef {
                group: "kueue.x-k8s.io".to_owned(),
                kind: "WorkloadPriorityClass".to_owned(),
                name: class.clone(),
            }),
            value,
        ));
    }
    let pod_class = |c: &k8s_openapi::api::scheduling::v1::PriorityClass| {
        let name = c.metadata.name.clone().unwrap_or_default();
        (
            Some(PriorityClassRef {
                group: "scheduling.k8s.io".to_owned(),
                kind: "PriorityClass".to_owned(),
                name,
            }),
            c.value.unwrap_or_default(),
        )
    };
    let named = job
        .spec
        .as_deref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|p| p.priority_class_name.as_deref())
        .filter(|n| !n.is_empty());
    if let Some(class) = named {
        return inputs()
            .flat_map(|s| &s.priority_classes)
            .find(|c| c.metadata.name.as_deref() == Some(class))
            .map(&pod_class)
            .ok_or_else(|| format!("PriorityClass {class} is not in the input"));
    }
    Ok(inputs()
        .flat_map(|s| &s.priority_classes)
        .filter(|c| c.global_default == Some(true))
        .min_by_key(|c| c.value.unwrap_or_default())
        .map_or((None, 0), pod_class))
}

/// `GetWorkloadNameForOwnerWithGVK` for a `batch/v1` Job: `job-<name>` truncated to
/// `max - 6` characters, a dash, and the first 5 hex digits of the SHA-1 of
/// `Job\nbatch\n<name>\n<uid>`.
pub(crate) fn workload_name(job: &str, uid: &str, max: usize) -> String {
    let prefix = format!("job-{job}");
    let keep = max - 1 - 5;
    let prefix = prefix.get(..keep).unwrap_or(&prefix);
    let digest = sha1(format!("Job\nbatch\n{job}\n{uid}").as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}-{}", &hex[..5])
}

/// SHA-1 (FIPS 180-4), as Go's `crypto/sha1`: only for Kueue's workload names.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for chunk in msg.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::files::test_snapshot as snapshot;

    #[test]
    fn sha1_matches_fips_180_examples() {
        let hex = |d: [u8; 20]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(sha1(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
        assert_eq!(hex(sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    }

    /// kueue `pkg/controller/jobframework/workload_names_test.go`
    /// `TestGenerateWorkloadNameWithExtra`, the cases without `extra`.
    #[test]
    fn workload_names_test_generate_workload_name_without_extra() {
        assert_eq!(workload_name("name", "uid", 253), "job-name-ef3a1");
        let long = "marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-senior-architect-validation-checked-approved-by-legal-and-ops-dept";
        assert_eq!(
            workload_name(long, "uid", 253),
            "job-marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-senior-architect-validation-checked-approved-by-l-218b8"
        );
        assert_eq!(
            workload_name(long, "uid", 63),
            "job-marketing-campaign-autumn-2024-region-north-america-d-218b8"
        );
    }

    const KUEUE: &str = r#"
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec: {namespaceSelector: {}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch-low}
value: 10
"#;

    const JOB: &str = r#"
apiVersion: batch/v1
kind: Job
metadata:
  name: sample-job
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  annotations: {kueue.x-k8s.io/job-min-parallelism: "2"}
spec:
  parallelism: 3
  completions: 3
  template:
    metadata:
      labels: {app: x, controller-uid: old}
      annotations: {kueue.x-k8s.io/podset-required-topology: cloud.provider.com/rack}
    spec:
      priorityClassName: batch-low
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
      restartPolicy: Never
"#;

    /// A Job with the queue label, created without `suspend`: Kueue's webhook suspends it
    /// and its reconciler creates the Workload, as `ConstructWorkload` builds it.
    #[test]
    fn a_labelled_job_is_suspended_and_gets_its_kueue_workload() {
        let cluster = snapshot(KUEUE);
        let mut objects = snapshot(JOB);
        let mut out = Admission::default();
        let held = manage_jobs(&mut objects, Some(&cluster), &mut out);
        assert_eq!(held, [("default".to_owned(), "sample-job".to_owned())]);
        let spec = objects.jobs[0].spec.as_deref().unwrap_or_else(|| panic!());
        assert_eq!(spec.suspend, Some(true));
        let w = &objects.kueue.workloads[0];
        assert_eq!(w.name(), workload_name("sample-job", "", 253));
        assert!(w.name().starts_with("job-sample-job-"));
        assert_eq!(w.spec.queue_name, "user-queue");
        let owner = &w
            .metadata
            .owner_references
            .as_ref()
            .unwrap_or_else(|| panic!())[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("Job", "sample-job")
        );
        assert_eq!(owner.controller, Some(true));
        let ps = &w.spec.pod_sets[0];
        assert_eq!(
            (ps.name.as_str(), ps.count, ps.min_count),
            ("main", 3, Some(2))
        );
        let labels = ps
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.as_ref());
        assert_eq!(labels.map(|l| l.len()), Some(1), "controller-uid removed");
        assert_eq!(
            ps.topology_request
                .as_ref()
                .and_then(|t| t.required.as_deref()),
            Some("cloud.provider.com/rack")
        );
        // Priority from the template's PriorityClass (no WorkloadPriorityClass label).
        assert_eq!(w.spec.priority, Some(10));
        assert_eq!(
            w.spec.priority_class_ref.as_ref().map(|r| r.kind.as_str()),
            Some("PriorityClass")
        );
    }

    #[test]
    fn the_workload_priority_class_label_wins_and_a_missing_class_creates_no_workload() {
        let cluster = snapshot(KUEUE);
        let mut objects = snapshot(&JOB.replace(
            "kueue.x-k8s.io/queue-name: user-queue}",
            "kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: high}",
        ));
        manage_jobs(&mut objects, Some(&cluster), &mut Admission::default());
        let w = &objects.kueue.workloads[0];
        assert_eq!(w.spec.priority, Some(1000));
        assert_eq!(
            w.spec.priority_class_ref.as_ref().map(|r| r.name.as_str()),
            Some("high")
        );

        let mut objects = snapshot(&JOB.replace("batch-low", "nowhere"));
        let mut out = Admission::default();
        let held = manage_jobs(&mut objects, Some(&cluster), &mut out);
        assert_eq!(held.len(), 1, "still suspended");
        assert!(objects.kueue.workloads.is_empty());
        assert_eq!(
            out.warnings[0].message,
            "Job default/sample-job: PriorityClass nowhere is not in the input; Kueue creates no Workload for it and the Job stays suspended"
        );
    }

    #[test]
    fn without_kueue_or_without_the_label_a_job_is_left_alone() {
        let mut objects = snapshot(JOB);
        assert!(manage_jobs(&mut objects, None, &mut Admission::default()).is_empty());
        assert_eq!(
            objects.jobs[0].spec.as_deref().and_then(|s| s.suspend),
            None
        );
        let cluster = snapshot(KUEUE);
        let mut objects = snapshot(&JOB.replace("kueue.x-k8s.io/queue-name", "team"));
        assert!(manage_jobs(&mut objects, Some(&cluster), &mut Admission::default()).is_empty());
        assert!(objects.kueue.workloads.is_empty());
    }
}
