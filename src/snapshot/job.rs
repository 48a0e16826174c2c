//! The Job record a [`Snapshot`](super::Snapshot) keeps: the fields of a k8s-openapi
//! [`Job`](ApiJob) that some command reads, as [`Pod`](super::Pod) is to a pod (issue 15).
//!
//! k8s-openapi's `Job` holds its pod template's `PodSpec` and every `Container` inline, room
//! for every field of the API: about 8 KB per Job once read, 150 MB of the 5,000-node dump's
//! 18,750 Jobs. The loader reads each Job as the API type (the same type checks and error
//! paths) and moves what is listed here into this record; the template's spec becomes the
//! pod record's [`PodSpec`], so a template keeps exactly what a pod keeps.
//!
//! | part | fields | read by |
//! |---|---|---|
//! | `metadata` | as a pod's (pruning drops `managedFields` and the last-applied annotation) | graph (owners), tree, doctor, lint |
//! | `spec` | `parallelism`, `completions`, `completionMode`, `suspend`, `scheduling`, `template` (its `metadata`, and its `spec` as a pod's) | capacity (the pods a Job creates), doctor and evidence (`spec.scheduling`), lint (its immutability) |
//! | `status` | as the API has it | tree (`active`, `succeeded`) |
//!
//! Serialized, the record is a valid `batch/v1` Job with those fields (export writes it;
//! `--from` reads it back to the same record).

use k8s_openapi::api::batch::v1::{
    Job as ApiJob, JobSchedulingConfiguration, JobSpec as ApiJobSpec, JobStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::pod::PodSpec;

/// A Job as the snapshot keeps it: see the [module](self).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Job {
    /// `metadata`.
    pub metadata: ObjectMeta,
    /// `spec`.
    pub spec: Option<Box<JobSpec>>,
    /// `status`.
    pub status: Option<Box<JobStatus>>,
}

/// The kept part of a `JobSpec`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    /// `completionMode`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_mode: Option<String>,
    /// `completions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<i32>,
    /// `parallelism`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<i32>,
    /// `scheduling` (the PodGroup the Job controller creates, KEP-5547).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling: Option<JobSchedulingConfiguration>,
    /// `suspend`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    /// `template`.
    pub template: PodTemplate,
}

/// The kept part of a `PodTemplateSpec`: its spec is kept as a pod's.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PodTemplate {
    /// `metadata`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObjectMeta>,
    /// `spec`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<PodSpec>,
}

impl From<ApiJobSpec> for JobSpec {
    fn from(s: ApiJobSpec) -> Self {
        Self {
            completion_mode: s.completion_mode,
            completions: s.completions,
            parallelism: s.parallelism,
            scheduling: s.scheduling,
            suspend: s.suspend,
            template: PodTemplate {
                metadata: s.template.metadata,
                spec: s.template.spec.map(PodSpec::from),
            },
        }
    }
}

impl From<ApiJob> for Job {
    fn from(j: ApiJob) -> Self {
        Self {
            metadata: j.metadata,
            spec: j.spec.map(|s| Box::new(JobSpec::from(s))),
            status: j.status.map(Box::new),
        }
    }
}

/// Written as the API type writes a Job.
impl Serialize for Job {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::pod::serialize_object(
            serializer,
            ("batch/v1", "Job"),
            &self.metadata,
            self.spec.as_deref(),
            self.status.as_deref(),
        )
    }
}

/// Reads the API object and keeps the record's part of it.
impl<'de> Deserialize<'de> for Job {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ApiJob::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOB: &str = r#"{"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "train", "namespace": "ml", "labels": {"app": "t"}},
        "spec": {"parallelism": 4, "completions": 4, "completionMode": "Indexed",
            "backoffLimit": 6, "ttlSecondsAfterFinished": 60, "suspend": false,
            "scheduling": {"schedulingPolicy": {"gang": {"minCount": 4}}},
            "template": {"metadata": {"labels": {"app": "t"}},
                "spec": {"restartPolicy": "Never", "schedulerName": "default-scheduler",
                    "tolerations": [{"key": "gpu", "operator": "Exists"}],
                    "containers": [{"name": "main", "image": "i",
                        "env": [{"name": "A", "value": "1"}],
                        "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}},
        "status": {"active": 3, "succeeded": 1}}"#;

    #[test]
    fn a_job_keeps_what_the_commands_read() {
        let job: Job = serde_json::from_str(JOB).unwrap();
        let spec = job.spec.as_deref().unwrap();
        assert_eq!(spec.parallelism, Some(4));
        assert!(spec.scheduling.is_some());
        let pod = spec.template.spec.as_ref().unwrap();
        assert_eq!(pod.tolerations.as_ref().map(|t| t.len()), Some(1));
        // The template's container is kept as a pod's: limits become requests.
        let requests = pod.containers[0]
            .resources
            .as_ref()
            .unwrap()
            .requests
            .as_ref();
        assert!(requests.unwrap().contains_key("nvidia.com/gpu"));
        assert_eq!(job.status.as_ref().unwrap().active, Some(3));
    }

    #[test]
    fn a_job_round_trips_through_export() {
        let job: Job = serde_json::from_str(JOB).unwrap();
        let value = serde_json::to_value(&job).unwrap();
        assert_eq!(value["kind"], "Job");
        assert_eq!(value["apiVersion"], "batch/v1");
        // What nothing reads is gone; what the record keeps reads back to the same record.
        assert!(value["spec"].get("backoffLimit").is_none());
        assert!(
            value["spec"]["template"]["spec"]["containers"][0]
                .get("env")
                .is_none()
        );
        let again: Job = serde_json::from_value(value).unwrap();
        assert_eq!(again, job);
        // And it is a valid API Job.
        let api: ApiJob = serde_json::to_value(&job)
            .and_then(serde_json::from_value)
            .unwrap();
        assert_eq!(api.spec.unwrap().parallelism, Some(4));
    }
}
