//! NodeResourcesFit: requests must fit the node's free allocatable resources.
//! Upstream: `pkg/scheduler/framework/plugins/noderesources/fit.go` (`fitsRequest`): "Too many
//! pods" first, then one "Insufficient `<resource>`" per short resource; the code is
//! UnschedulableAndUnresolvable when a request exceeds the node's allocatable outright
//! (preemption cannot help). Scores: LeastAllocated (cpu, memory; weight 1 each) and
//! BalancedAllocation.

use crate::sched::node_state::NodeState;
use crate::sched::pod_req::PodReq;
use crate::sched::resources::{CPU, MEMORY, PODS, ResourceId};
use crate::sched::status::{Code, Reason, Rejection};

/// Plugin name.
pub(crate) const NAME: &str = "NodeResourcesFit";
/// "Too many pods".
pub(crate) const ERR_TOO_MANY_PODS: &str = "Too many pods";

/// The filter.
#[inline]
#[cfg(test)]
pub(crate) fn filter(pod: &PodReq, node: &NodeState) -> Option<Rejection> {
    filter_ignoring(pod, node, &[])
}

/// The filter, not checking the extended resources in `ignored` (the profile's
/// `ignoredResources`/`ignoredResourceGroups`: `fit.go` `fitsRequest` skips them).
#[inline]
pub(crate) fn filter_ignoring(
    pod: &PodReq,
    node: &NodeState,
    ignored: &[ResourceId],
) -> Option<Rejection> {
    let mut reasons = Vec::new();
    let mut unresolvable = false;
    if node.free(PODS) < 1 {
        reasons.push(Reason::Static(ERR_TOO_MANY_PODS));
        unresolvable |= node.allocatable(PODS) < 1;
    }
    for (id, want) in &pod.requests {
        if *want > 0 && *want > node.free(*id) && !ignored.contains(id) {
            reasons.push(Reason::Insufficient(*id));
            unresolvable |= *want > node.allocatable(*id);
        }
    }
    if reasons.is_empty() {
        return None;
    }
    let code = if unresolvable {
        Code::UnschedulableAndUnresolvable
    } else {
        Code::Unschedulable
    };
    Some(Rejection {
        plugin: NAME,
        code,
        reasons,
        detail: None,
    })
}

/// LeastAllocated score (0–100): the mean over cpu and memory of free share after placing.
/// Upstream: `noderesources/least_allocated.go`, with non-zero request defaults.
#[inline]
pub(crate) fn least_allocated(pod: &PodReq, node: &NodeState) -> i64 {
    let part = |requested: i64, capacity: i64| {
        if capacity <= 0 || requested > capacity {
            0
        } else {
            // i128: `(capacity - requested) * 100` overflows an i64 for huge allocatables.
            i64::try_from(
                (i128::from(capacity) - i128::from(requested)) * 100 / i128::from(capacity),
            )
            .unwrap_or(0)
        }
    };
    let cpu = part(
        node.score_cpu.saturating_add(pod.score_cpu),
        node.allocatable(CPU),
    );
    let mem = part(
        node.score_memory.saturating_add(pod.score_memory),
        node.allocatable(MEMORY),
    );
    (cpu + mem) / 2
}

/// BalancedAllocation score (0–100): `(1 - std) * 100` of the cpu and memory fractions.
/// Upstream: `noderesources/balanced_allocation.go`.
#[inline]
pub(crate) fn balanced_allocation(pod: &PodReq, node: &NodeState) -> i64 {
    let frac = |requested: i64, capacity: i64| {
        if capacity <= 0 {
            1.0
        } else {
            (requested as f64 / capacity as f64).min(1.0)
        }
    };
    let cpu = frac(
        node.requested
            .get(usize::from(CPU))
            .copied()
            .unwrap_or(0)
            .saturating_add(pod.request(CPU)),
        node.allocatable(CPU),
    );
    let mem = frac(
        node.requested
            .get(usize::from(MEMORY))
            .copied()
            .unwrap_or(0)
            .saturating_add(pod.request(MEMORY)),
        node.allocatable(MEMORY),
    );
    let std = (cpu - mem).abs() / 2.0;
    ((1.0 - std) * 100.0) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(cpu: i64, mem: i64, pods: i64, gpu: i64) -> NodeState {
        NodeState {
            allocatable: vec![cpu, mem, 0, pods, gpu].into(),
            requested: vec![0; 5].into(),
            ..NodeState::default()
        }
    }

    #[test]
    fn reports_every_short_resource() {
        let n = node(1000, 1 << 30, 110, 0);
        let pod = PodReq {
            requests: vec![(CPU, 2000), (MEMORY, 2 << 30), (4, 1)].into(),
            ..PodReq::default()
        };
        let r = filter(&pod, &n).unwrap();
        assert_eq!(
            r.reasons,
            vec![
                Reason::Insufficient(CPU),
                Reason::Insufficient(MEMORY),
                Reason::Insufficient(4)
            ]
        );
        assert_eq!(
            r.code,
            Code::UnschedulableAndUnresolvable,
            "requests exceed allocatable outright"
        );
    }

    #[test]
    fn too_many_pods_and_resolvable_when_pods_could_be_evicted() {
        let mut n = node(4000, 1 << 30, 1, 8);
        n.requested[usize::from(PODS)] = 1;
        n.requested[4] = 6;
        let pod = PodReq {
            requests: vec![(4, 4)].into(),
            ..PodReq::default()
        };
        let r = filter(&pod, &n).unwrap();
        assert_eq!(
            r.reasons,
            vec![Reason::Static(ERR_TOO_MANY_PODS), Reason::Insufficient(4)]
        );
        assert_eq!(r.code, Code::Unschedulable);
    }

    #[test]
    fn ignored_extended_resources_are_not_checked() {
        // fit_test.go "skip checking ignored extended resource": the pod asks for more of an
        // ignored extended resource than the node has, and fits.
        let n = node(4000, 1 << 30, 110, 1);
        let pod = PodReq {
            requests: vec![(4, 8)].into(),
            ..PodReq::default()
        };
        assert!(filter(&pod, &n).is_some());
        assert!(filter_ignoring(&pod, &n, &[4]).is_none());
    }

    #[test]
    fn least_allocated_prefers_emptier_nodes() {
        let pod = PodReq {
            score_cpu: 1000,
            score_memory: 1 << 30,
            ..PodReq::default()
        };
        let empty = node(4000, 4 << 30, 110, 0);
        let mut busy = empty.clone();
        busy.score_cpu = 2000;
        busy.score_memory = 2 << 30;
        assert_eq!(least_allocated(&pod, &empty), 75);
        assert_eq!(least_allocated(&pod, &busy), 25);
    }
}
