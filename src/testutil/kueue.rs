//! Kueue at scale over a synthetic cluster, for the stage-one bench (issue 49, Performance:
//! 1,000 ClusterQueues in 50 cohorts and 10,000 pending Kueue Workloads on the L node set).
//!
//! Each ClusterQueue `cq-NNNN` (namespace `team-NNNN`, LocalQueue `lq`) is in cohort
//! `cohort-NN`, covers `cpu` and `nvidia.com/gpu` with two flavors (`on-demand`: 16 GPUs,
//! `spot`: 8), may preempt lower priorities in the queue and reclaim in the cohort. Its
//! workloads are suspended Jobs of 1–4 pods of 8 GPUs each, with their Kueue Workloads
//! (priorities 0, 100, 200; created a second apart), so that some are admitted on either
//! flavor, some borrow, some preempt, and most wait.

use serde_json::{Value, json};

use super::synthetic::{Profile, objects};
use crate::snapshot::Snapshot;
use crate::snapshot::source::Collector;

/// What to add to the synthetic cluster.
#[derive(Debug, Clone)]
pub struct KueueProfile {
    /// ClusterQueues (each with its namespace and LocalQueue).
    pub cluster_queues: usize,
    /// Cohorts the ClusterQueues are spread over.
    pub cohorts: usize,
    /// Pending Kueue Workloads (each with its suspended Job), spread over the queues.
    pub workloads: usize,
}

impl KueueProfile {
    /// Issue 49's figure: 1,000 ClusterQueues in 50 cohorts, 10,000 pending workloads.
    pub fn issue_49() -> Self {
        Self {
            cluster_queues: 1_000,
            cohorts: 50,
            workloads: 10_000,
        }
    }
}

/// The Kueue objects of `k`, as JSON.
fn kueue_objects(k: &KueueProfile) -> Vec<Value> {
    let v = "kueue.x-k8s.io/v1beta2";
    let mut out = Vec::new();
    for f in ["on-demand", "spot"] {
        out.push(json!({"apiVersion": v, "kind": "ResourceFlavor", "metadata": {"name": f}}));
    }
    for q in 0..k.cluster_queues {
        let ns = format!("team-{q:04}");
        out.push(json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": ns, "uid": format!("uid-ns-{q}")}}));
        out.push(json!({"apiVersion": v, "kind": "ClusterQueue",
            "metadata": {"name": format!("cq-{q:04}")},
            "spec": {
                "namespaceSelector": {},
                "cohortName": format!("cohort-{:02}", q % k.cohorts.max(1)),
                "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
                "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [
                    {"name": "on-demand", "resources": [
                        {"name": "cpu", "nominalQuota": 64}, {"name": "nvidia.com/gpu", "nominalQuota": 16}]},
                    {"name": "spot", "resources": [
                        {"name": "cpu", "nominalQuota": 32}, {"name": "nvidia.com/gpu", "nominalQuota": 8}]},
                ]}],
            }}));
        out.push(json!({"apiVersion": v, "kind": "LocalQueue",
            "metadata": {"name": "lq", "namespace": ns}, "spec": {"clusterQueue": format!("cq-{q:04}")}}));
    }
    let container = json!([{"name": "c", "image": "trainer",
        "resources": {"requests": {"cpu": "4", "nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}}}]);
    for w in 0..k.workloads {
        let q = w % k.cluster_queues.max(1);
        let ns = format!("team-{q:04}");
        let job = format!("job-{w:05}");
        let count = 1 + (w / k.cluster_queues.max(1)) % 4;
        let created = format!(
            "2026-12-01T{:02}:{:02}:{:02}Z",
            w / 3600 % 24,
            w / 60 % 60,
            w % 60
        );
        let template = json!({"spec": {"restartPolicy": "Never", "containers": container}});
        out.push(json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": job, "namespace": ns, "uid": format!("uid-{job}"),
                         "creationTimestamp": created, "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"suspend": true, "parallelism": count, "completions": count, "template": template}}));
        out.push(json!({"apiVersion": v, "kind": "Workload",
            "metadata": {"name": format!("job-{job}-bench"), "namespace": ns, "uid": format!("uid-wl-{w}"),
                         "creationTimestamp": created,
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job,
                                              "uid": format!("uid-{job}"), "controller": true}]},
            "spec": {"queueName": "lq", "priority": (w % 3) * 100,
                     "podSets": [{"name": "main", "count": count, "template": template}]}}));
    }
    out
}

/// The synthetic cluster of `p` (seed `seed`) with the Kueue setup of `k`.
pub fn snapshot(p: &Profile, seed: u64, k: &KueueProfile) -> Snapshot {
    let mut c = Collector::new();
    for o in objects(p, seed).into_iter().chain(kueue_objects(k)) {
        // Generated objects always fit their types.
        c.add(o).expect("synthetic objects are valid");
    }
    c.finish()
}

/// Stage one of the dry run (Kueue's admission, then starting the admitted Jobs): the number
/// of workloads admitted.
pub fn stage_one(s: &Snapshot) -> usize {
    crate::kueue::stages::stage(s, &std::collections::BTreeMap::new())
        .ok()
        .flatten()
        .map_or(0, |st| {
            st.admission
                .workloads
                .iter()
                .filter(|r| r.outcome == crate::sched::plan::AdmissionOutcome::Admitted)
                .count()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_kueue_setup_admits_some_and_holds_the_rest() {
        let k = KueueProfile {
            cluster_queues: 4,
            cohorts: 2,
            workloads: 40,
        };
        let s = snapshot(&Profile::with_nodes(8), 1, &k);
        assert_eq!(s.kueue.cluster_queues.len(), 4);
        assert_eq!(s.kueue.workloads.len(), 40);
        let admitted = stage_one(&s);
        assert!(admitted > 0 && admitted < 40, "{admitted}");
    }
}
