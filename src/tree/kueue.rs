//! Kueue Workloads (`Workload.kueue.x-k8s.io`) in the tree: above the Job (or JobSet, or other
//! owner) Kueue made them for, with their queue, ClusterQueue, state from their conditions,
//! priority and pod sets (count × per-pod requests).
//!
//! Kueue's job integrations (`pkg/controller/jobframework/reconciler.go`) create the Workload
//! with an ownerReference to the Job (controller: true): the Job owns the Workload. The tree
//! turns that edge around — the Kueue Workload decides when the Job runs, so it is drawn
//! above it, as the native Workload is drawn above its PodGroups. A snapshot without Kueue
//! Workloads has no such edge and its trees are unchanged.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{TreeBuilder, TreeNode, in_scope};
use crate::graph::{EdgeKind, EdgeState};
use crate::kueue::flavor::show;
use crate::kueue::workload::{Info, RequestOptions, pod_requests_of};
use crate::snapshot::kueue::{Workload, condition, is_true};
use crate::snapshot::{ObjKind, ObjRef};

/// A Kueue Workload's admission state (`kueue` in a tree node of `-o json`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KueueState {
    /// `spec.queueName`: the LocalQueue (in the workload's namespace).
    pub queue_name: String,
    /// The ClusterQueue: the admission's, else the LocalQueue's (absent when neither is known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_queue: Option<String>,
    /// `Finished`, `Evicted`, `Admitted`, `QuotaReserved` (waiting for admission checks),
    /// `Inactive` (`spec.active: false`) or `Pending`, from the conditions in that order.
    pub state: String,
    /// The effective priority (`spec.priority`, else its priority class's value, else 0).
    pub priority: i32,
    /// The pod sets: count and one pod's requests, and the flavors admitted.
    pub pod_sets: Vec<KueuePodSet>,
    /// The message of the condition that says why it waits or was evicted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One pod set of a Kueue Workload.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KueuePodSet {
    /// The pod set's name.
    pub name: String,
    /// Pods.
    pub count: i32,
    /// One pod's requests, per resource, as Kubernetes writes quantities.
    pub requests: BTreeMap<String, String>,
    /// Resource → ResourceFlavor, from `status.admission` (empty before admission).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub flavors: BTreeMap<String, String>,
}

/// The state of `w` as its conditions record it.
pub(crate) fn state_of(w: &Workload) -> &'static str {
    let c = &w.status.conditions;
    if is_true(c, "Finished") {
        "Finished"
    } else if is_true(c, "Evicted") {
        "Evicted"
    } else if is_true(c, "Admitted") {
        "Admitted"
    } else if is_true(c, "QuotaReserved") {
        "QuotaReserved"
    } else if !w.spec.active {
        "Inactive"
    } else {
        "Pending"
    }
}

/// The ClusterQueue `w` is admitted to, else the one its LocalQueue names.
pub(crate) fn cluster_queue_of(
    k: &crate::snapshot::kueue::KueueObjects,
    w: &Workload,
) -> Option<String> {
    w.status
        .admission
        .as_ref()
        .map(|a| a.cluster_queue.clone())
        .or_else(|| {
            k.local_queues
                .iter()
                .find(|q| q.namespace() == w.namespace() && q.name() == w.spec.queue_name)
                .map(|q| q.spec.cluster_queue.clone())
        })
}

/// One pod's requests of each pod set, with the admitted flavors.
pub(crate) fn pod_sets_of(w: &Workload) -> Vec<KueuePodSet> {
    w.spec
        .pod_sets
        .iter()
        .map(|ps| {
            let requests = ps
                .template
                .spec
                .as_ref()
                .map(pod_requests_of)
                .unwrap_or_default()
                .into_iter()
                .filter(|(_, v)| *v > 0)
                .map(|(r, v)| {
                    let text = show(&r, v);
                    (r, text)
                })
                .collect();
            let flavors = w
                .status
                .admission
                .as_ref()
                .and_then(|a| a.pod_set_assignments.iter().find(|p| p.name == ps.name))
                .map(|p| p.flavors.clone())
                .unwrap_or_default();
            KueuePodSet {
                name: ps.name.clone(),
                count: ps.count,
                requests,
                flavors,
            }
        })
        .collect()
}

/// `main: 2 × cpu 8, nvidia.com/gpu 8 (h100)`.
pub(crate) fn pod_set_text(ps: &KueuePodSet) -> String {
    let requests: Vec<String> = ps
        .requests
        .iter()
        .map(|(r, v)| format!("{r} {v}"))
        .collect();
    let mut flavors: Vec<&str> = ps.flavors.values().map(String::as_str).collect();
    flavors.sort_unstable();
    flavors.dedup();
    let on = if flavors.is_empty() {
        String::new()
    } else {
        format!(" on {}", flavors.join(", "))
    };
    format!(
        "pod set {}: {} × {}{on}",
        ps.name,
        ps.count,
        if requests.is_empty() {
            "no requests".to_owned()
        } else {
            requests.join(", ")
        }
    )
}

impl TreeBuilder<'_> {
    /// The Kueue Workload owned by `r` (Kueue's job integrations make the Job its owner).
    pub(super) fn kueue_above(&self, r: &ObjRef) -> Option<ObjRef> {
        self.g
            .incoming(r, Some(EdgeKind::Owner))
            .find(|e| e.state == EdgeState::Resolved && e.from.kind == ObjKind::KueueWorkload)
            .map(|e| e.from.clone())
    }

    /// Every Kueue Workload in scope becomes a root, standing for the roots below it (its
    /// Job's PodGroups, a suspended Job).
    pub(super) fn kueue_roots(&self, namespace: Option<&str>, roots: &mut Vec<ObjRef>) {
        let k = &self.s.kueue;
        if k.workloads.is_empty() {
            return;
        }
        let mut out: Vec<ObjRef> = Vec::with_capacity(roots.len());
        for r in roots.drain(..) {
            let top = self.topmost(&r);
            let r = if top.kind == ObjKind::KueueWorkload {
                top
            } else {
                r
            };
            if !out.contains(&r) {
                out.push(r);
            }
        }
        for w in k
            .workloads
            .iter()
            .filter(|w| in_scope(&w.metadata, namespace))
        {
            let r = ObjRef::new(ObjKind::KueueWorkload, w.namespace(), w.name());
            if !out.contains(&r) {
                out.push(r);
            }
        }
        *roots = out;
    }

    /// A Kueue Workload's row, with its owners below it.
    pub(super) fn kueue_workload(&self, r: &ObjRef) -> Option<TreeNode> {
        let k = &self.s.kueue;
        let (index, w) = k
            .workloads
            .iter()
            .enumerate()
            .find(|(_, w)| w.namespace() == r.namespace && w.name() == r.name)?;
        let mut n = self.base(r, &w.metadata);
        let info = Info::with_options(index, w, &self.classes, &RequestOptions::of(self.s));
        let state = state_of(w);
        n.status = Some(state.to_owned());
        n.priority = Some(info.priority);
        n.priority_class_name = w.spec.priority_class_ref.as_ref().map(|p| p.name.clone());
        let conds = &w.status.conditions;
        for t in [
            "QuotaReserved",
            "Admitted",
            "PodsReady",
            "Evicted",
            "Finished",
        ] {
            if let Some(c) = condition(conds, t) {
                n.conditions.push(if c.status == "True" {
                    t.to_owned()
                } else {
                    format!("{t}={}({})", c.status, c.reason)
                });
            }
        }
        let cluster_queue = cluster_queue_of(k, w);
        let message = match state {
            "Evicted" => condition(conds, "Evicted"),
            "Pending" => condition(conds, "QuotaReserved"),
            "QuotaReserved" => condition(conds, "Admitted"),
            _ => None,
        }
        .map(|c| c.message.clone())
        .filter(|m| !m.is_empty());
        let pod_sets = pod_sets_of(w);
        n.notes.push(format!(
            "queue {}{}",
            if w.spec.queue_name.is_empty() {
                "(none)"
            } else {
                &w.spec.queue_name
            },
            cluster_queue
                .as_deref()
                .map(|c| format!(" → ClusterQueue {c}"))
                .unwrap_or_default()
        ));
        n.notes.extend(pod_sets.iter().map(pod_set_text));
        if let Some(m) = &message {
            n.notes.push(m.clone());
        }
        n.kueue = Some(KueueState {
            queue_name: w.spec.queue_name.clone(),
            cluster_queue,
            state: state.to_owned(),
            priority: info.priority,
            pod_sets,
            message,
        });
        // The dry run's answer (Waiting, Unschedulable, …): Kueue's stage and, once admitted,
        // its pods' placement.
        n.simulated = self.simulated(r, None);
        let owners: Vec<ObjRef> = self
            .g
            .outgoing(r, Some(EdgeKind::Owner))
            .filter(|e| e.state == EdgeState::Resolved)
            .map(|e| e.to.clone())
            .collect();
        for o in owners {
            if let Some(c) = self.node(&o).or_else(|| Some(TreeNode::of(&o))) {
                n.children.push(c);
            }
        }
        Some(n)
    }
}
