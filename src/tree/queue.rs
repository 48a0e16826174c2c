//! `tree clusterqueue/NAME` and `tree localqueue/NAME`: a ClusterQueue's quota per flavor and
//! resource (nominal, borrowing and lending limits, used, borrowed, lent, pending), its cohort
//! chain, and the Kueue Workloads it admitted and the ones waiting, in Kueue's queue order.
//!
//! The cluster's current state, read — not a simulation: `used` is what the workloads holding
//! quota (`QuotaReserved` True, not `Finished`) charge, as Kueue's cache charges them
//! ([`crate::kueue::view::current_tree`]), cross-checked with `status.flavorsReservation`
//! (`flavorsUsage` when a v1beta1 status has only that). `borrowed` is Kueue's status field
//! (`max(0, used − nominal)`, `pkg/cache/scheduler` `resourceStats`); `lent` is this queue's
//! unused lendable quota (`min(lendingLimit or nominal, nominal − used)`) that the rest of its
//! cohort is borrowing — at most what they borrow, since Kueue does not attribute a cohort's
//! borrowing to a lender. `pending` is per resource: the requests of the workloads waiting
//! (no flavor is chosen before admission), on the resource's first flavor row.
//! The waiting workloads are in Kueue's queue order (`pkg/workload` `baseCompareFunc`:
//! priority, then the queue-order timestamp, then UID) — under `StrictFIFO` the head blocks
//! the rest; under `BestEffortFIFO` a head that does not fit is set aside for the next.

use std::collections::BTreeMap;

use serde::Serialize;

use super::kueue::{KueuePodSet, cluster_queue_of, pod_sets_of, state_of};
use crate::kueue::flavor::show;
use crate::kueue::quota::{Amount, FlavorResource, Tree, amount_of};
use crate::kueue::view::{current_tree, priority_classes};
use crate::kueue::workload::{Info, RequestOptions};
use crate::snapshot::kueue::{ClusterQueue, LocalQueue, QueueingStrategy};
use crate::snapshot::{Snapshot, Warning, times};

/// The report (`kind: QueueTree`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct QueueReport {
    /// The ClusterQueue.
    pub cluster_queue: String,
    /// The LocalQueue asked for (`tree lq/NAME`): the workloads are only its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_queue: Option<QueueName>,
    /// The cohort and its parents, nearest first (empty: no cohort).
    pub cohorts: Vec<String>,
    /// `BestEffortFIFO` or `StrictFIFO`.
    pub queueing_strategy: String,
    /// `None`, `Hold` or `HoldAndDrain`.
    pub stop_policy: String,
    /// Quota per flavor and resource, in the ClusterQueue's order.
    pub resources: Vec<ResourceRow>,
    /// Workloads holding quota in the ClusterQueue.
    pub admitted: Vec<QueuedWorkload>,
    /// Workloads waiting for quota, in queue order.
    pub pending: Vec<QueuedWorkload>,
    /// Disagreements between the recorded status and the workloads holding quota, and
    /// what the view could not tell.
    pub notes: Vec<String>,
    /// Loader warnings.
    pub warnings: Vec<Warning>,
}

/// A LocalQueue, `namespace/name`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct QueueName {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
}

/// One flavor and resource of the ClusterQueue. Quantities as Kubernetes writes them.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceRow {
    /// The ResourceFlavor.
    pub flavor: String,
    /// The resource.
    pub resource: String,
    /// `nominalQuota`.
    pub nominal: String,
    /// `borrowingLimit` (absent: unlimited within the cohort).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<String>,
    /// `lendingLimit` (absent: all of it may be lent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<String>,
    /// What the workloads holding quota here use.
    pub used: String,
    /// `used` beyond `nominal`, borrowed from the cohort.
    pub borrowed: String,
    /// Unused lendable quota the rest of the cohort is borrowing (at most).
    pub lent: String,
    /// Requests of the waiting workloads (the resource's first flavor row only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<String>,
    /// `status.flavorsReservation` (or `flavorsUsage`) for it, when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<String>,
}

/// A Kueue Workload of the queue.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct QueuedWorkload {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Its LocalQueue (`spec.queueName`).
    pub local_queue: String,
    /// Effective priority.
    pub priority: i32,
    /// `Admitted`, `QuotaReserved`, `Evicted`, `Pending`… (from its conditions).
    pub state: String,
    /// Age at the snapshot's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age: Option<String>,
    /// Its pod sets.
    pub pod_sets: Vec<KueuePodSet>,
    /// Total requests, per resource.
    pub requests: BTreeMap<String, String>,
    /// Why it waits (its `QuotaReserved` condition's message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

fn strategy(q: QueueingStrategy) -> String {
    match q {
        QueueingStrategy::StrictFIFO => "StrictFIFO",
        QueueingStrategy::BestEffortFIFO => "BestEffortFIFO",
    }
    .to_owned()
}

/// Sums of `resource` over the other ClusterQueues of `node`'s forest borrowing `fr`.
fn borrowed_by_others(tree: &Tree, node: usize, fr: &FlavorResource) -> Amount {
    let root = tree.ancestors(node).last();
    let Some(root) = root else { return 0 };
    let mut total = 0;
    for (j, n) in tree.nodes.iter().enumerate() {
        if j == node
            || n.kind != crate::kueue::quota::NodeKind::ClusterQueue
            || tree.ancestors(j).last() != Some(root)
        {
            continue;
        }
        let nominal = n.quotas.get(fr).map_or(0, |q| q.nominal);
        total += (n.used(fr) - nominal).max(0);
    }
    total
}

/// One workload's row: its queue, priority, state, age, pod sets, requests and (when it waits)
/// its `QuotaReserved` message.
fn row_of(
    w: &crate::snapshot::kueue::Workload,
    info: &Info,
    holding: bool,
    now: k8s_openapi::jiff::Timestamp,
) -> QueuedWorkload {
    QueuedWorkload {
        namespace: w.namespace().to_owned(),
        name: w.name().to_owned(),
        local_queue: w.spec.queue_name.clone(),
        priority: info.priority,
        state: state_of(w).to_owned(),
        age: w
            .metadata
            .creation_timestamp
            .as_ref()
            .map(|t| times::age(t, now)),
        pod_sets: pod_sets_of(w),
        requests: info
            .total_requests()
            .into_iter()
            .filter(|(_, v)| *v > 0)
            .map(|(r, v)| {
                let t = show(&r, v);
                (r, t)
            })
            .collect(),
        message: (!holding)
            .then(|| {
                crate::snapshot::kueue::condition(&w.status.conditions, "QuotaReserved")
                    .map(|c| c.message.clone())
            })
            .flatten()
            .filter(|m| !m.is_empty()),
    }
}

/// Per flavor and resource of `cq` (tree node `node`): nominal, limits, used, borrowed, lent
/// and (on the resource's first row) the pending requests; the resources seen; and a note per
/// resource whose recorded usage (`status.flavorsReservation`, else `flavorsUsage`) differs
/// from what the workloads holding quota use (`check_recorded`: the whole ClusterQueue shown).
fn resource_rows(
    tree: &Tree,
    node: usize,
    cq: &ClusterQueue,
    check_recorded: bool,
    pending_total: &BTreeMap<String, Amount>,
) -> (Vec<ResourceRow>, Vec<String>, Vec<String>) {
    let recorded_usage = if cq.status.flavors_reservation.is_empty() {
        &cq.status.flavors_usage
    } else {
        &cq.status.flavors_reservation
    };
    let recorded_field = if cq.status.flavors_reservation.is_empty() {
        "flavorsUsage"
    } else {
        "flavorsReservation"
    };
    let mut notes = Vec::new();
    let mut resources = Vec::new();
    let mut seen_resources: Vec<String> = Vec::new();
    let n = &tree.nodes[node];
    for g in &cq.spec.resource_groups {
        for f in &g.flavors {
            for rq in &f.resources {
                let fr = FlavorResource::new(&f.name, &rq.name);
                let q = n.quotas.get(&fr).copied().unwrap_or_default();
                let used = n.used(&fr);
                let borrowed = (used - q.nominal).max(0);
                let lendable = q.lending_limit.unwrap_or(q.nominal).min(q.nominal);
                let unused_lendable = lendable.min((q.nominal - used).max(0));
                let lent = unused_lendable.min(borrowed_by_others(tree, node, &fr));
                let first = !seen_resources.contains(&rq.name);
                if first {
                    seen_resources.push(rq.name.clone());
                }
                let recorded = recorded_usage
                    .iter()
                    .find(|u| u.name == f.name)
                    .and_then(|u| u.resources.iter().find(|r| r.name == rq.name))
                    .and_then(|r| r.total.as_ref())
                    .map(|t| t.0.clone());
                if let Some(text) = &recorded
                    && check_recorded
                    && let Some(v) = amount_of(&rq.name, text)
                    && v != used
                {
                    notes.push(format!(
                        "status.{recorded_field} records {} of {} in flavor {}; the workloads holding quota use {}",
                        show(&rq.name, v),
                        rq.name,
                        f.name,
                        show(&rq.name, used)
                    ));
                }
                resources.push(ResourceRow {
                    flavor: f.name.clone(),
                    resource: rq.name.clone(),
                    nominal: show(&rq.name, q.nominal),
                    borrowing_limit: q.borrowing_limit.map(|v| show(&rq.name, v)),
                    lending_limit: q.lending_limit.map(|v| show(&rq.name, v)),
                    used: show(&rq.name, used),
                    borrowed: show(&rq.name, borrowed),
                    lent: show(&rq.name, lent),
                    pending: first
                        .then(|| show(&rq.name, pending_total.get(&rq.name).copied().unwrap_or(0))),
                    recorded,
                });
            }
        }
    }
    (resources, seen_resources, notes)
}

/// The report for ClusterQueue `cq`, or LocalQueue `lq` (whose ClusterQueue `cq` is).
pub(crate) fn build(
    s: &Snapshot,
    cq: &ClusterQueue,
    lq: Option<&LocalQueue>,
) -> Result<QueueReport, String> {
    let k = &s.kueue;
    let classes = priority_classes(k, &s.priority_classes);
    let tree = current_tree(k, &classes).map_err(|e| e.0)?;
    let requests = RequestOptions::of(s);
    let node = tree
        .cluster_queue(cq.name())
        .ok_or_else(|| format!("ClusterQueue {} is not in the quota tree", cq.name()))?;
    let now = s.now();
    let in_lq = |w: &crate::snapshot::kueue::Workload| {
        lq.is_none_or(|q| w.namespace() == q.namespace() && w.spec.queue_name == q.name())
    };
    let mut admitted: Vec<(Info, QueuedWorkload)> = Vec::new();
    let mut pending: Vec<(Info, QueuedWorkload)> = Vec::new();
    for (i, w) in k.workloads.iter().enumerate() {
        if w.is_finished() || !in_lq(w) {
            continue;
        }
        let holding = w.has_quota_reservation();
        let here = if holding {
            w.status
                .admission
                .as_ref()
                .is_some_and(|a| a.cluster_queue == cq.name())
        } else {
            w.is_pending() && cluster_queue_of(k, w).as_deref() == Some(cq.name())
        };
        if !here {
            continue;
        }
        let info = Info::with_options(i, w, &classes, &requests);
        let row = row_of(w, &info, holding, now);
        if holding {
            admitted.push((info, row));
        } else {
            pending.push((info, row));
        }
    }
    admitted.sort_by(|a, b| a.0.queue_order(&b.0));
    pending.sort_by(|a, b| a.0.queue_order(&b.0));
    let mut pending_total: BTreeMap<String, Amount> = BTreeMap::new();
    for (info, _) in &pending {
        for (r, v) in info.total_requests() {
            *pending_total.entry(r).or_insert(0) += v;
        }
    }
    let (resources, seen_resources, mut notes) =
        resource_rows(&tree, node, cq, lq.is_none(), &pending_total);
    for r in pending_total.keys() {
        if !seen_resources.contains(r) && pending_total.get(r).is_some_and(|v| *v > 0) {
            notes.push(format!(
                "waiting workloads request {r}, which no resource group of ClusterQueue {} covers: Kueue cannot admit them here",
                cq.name()
            ));
        }
    }
    Ok(QueueReport {
        cluster_queue: cq.name().to_owned(),
        local_queue: lq.map(|q| QueueName {
            namespace: q.namespace().to_owned(),
            name: q.name().to_owned(),
        }),
        cohorts: tree
            .ancestors(node)
            .map(|a| tree.nodes[a].name.clone())
            .collect(),
        queueing_strategy: strategy(cq.spec.queueing_strategy),
        stop_policy: format!("{:?}", cq.spec.stop_policy),
        resources,
        admitted: admitted.into_iter().map(|(_, r)| r).collect(),
        pending: pending.into_iter().map(|(_, r)| r).collect(),
        notes,
        warnings: s.warnings.clone(),
    })
}
