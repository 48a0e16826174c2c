//! The cluster's current Kueue state, read (not simulated): the quota forest charged with what
//! the workloads holding quota use now, as Kueue's cache holds it (`pkg/cache/scheduler`
//! `AddOrUpdateWorkload`: every workload with `QuotaReserved` True and not `Finished` charges
//! its admission's flavors). `tree clusterqueue/NAME` and `capacity --queue` read it.

use k8s_openapi::api::scheduling::v1::PriorityClass;

use super::quota::{QuotaError, Tree};
use super::workload::{Info, PriorityClasses, RequestOptions, admitted_usage};
use crate::snapshot::kueue::KueueObjects;

/// Priority classes by name, as Kueue's `priority.EffectivePriority` reads them.
pub(crate) fn priority_classes(k: &KueueObjects, pcs: &[PriorityClass]) -> PriorityClasses {
    PriorityClasses {
        workload: k
            .workload_priority_classes
            .iter()
            .map(|c| (c.metadata.name.clone().unwrap_or_default(), c.value))
            .collect(),
        pod: pcs
            .iter()
            .filter_map(|c| Some((c.metadata.name.clone()?, c.value?)))
            .collect(),
    }
}

/// The quota forest with the usage of every workload holding quota (not finished) charged
/// to its admission's ClusterQueue.
pub(crate) fn current_tree(
    k: &KueueObjects,
    classes: &PriorityClasses,
) -> Result<Tree, QuotaError> {
    let mut tree = Tree::build(k)?;
    for (i, w) in k.workloads.iter().enumerate() {
        if w.is_finished() || !w.has_quota_reservation() {
            continue;
        }
        let Some(node) = w
            .status
            .admission
            .as_ref()
            .and_then(|a| tree.cluster_queue(&a.cluster_queue))
        else {
            continue;
        };
        // A holder's requests come from its admission: the configuration changes nothing.
        let info = Info::with_options(i, w, classes, &RequestOptions::default());
        for (fr, v) in admitted_usage(w, &info) {
            tree.add_usage(node, &fr, v);
        }
    }
    Ok(tree)
}
