//! NodeUnschedulable: cordoned nodes reject pods that do not tolerate
//! `node.kubernetes.io/unschedulable:NoSchedule`.
//! Upstream: `pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go`.

use crate::sched::node_state::NodeState;
use crate::sched::pod_req::PodReq;
use crate::sched::status::{Code, Rejection};

/// Plugin name.
pub(crate) const NAME: &str = "NodeUnschedulable";
/// Reason text.
pub(crate) const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
/// The taint key a cordoned node implies.
pub(crate) const TAINT_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// The filter.
#[inline]
pub(crate) fn filter(pod: &PodReq, node: &NodeState) -> Option<Rejection> {
    if !node.unschedulable {
        return None;
    }
    let tolerated = pod
        .tolerations
        .iter()
        .any(|t| t.tolerates(TAINT_UNSCHEDULABLE, "", "NoSchedule"));
    (!tolerated).then(|| {
        Rejection::new(
            NAME,
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_UNSCHEDULABLE,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::selector::Tol;

    #[test]
    fn cordoned_node_rejects_unless_tolerated() {
        let node = NodeState {
            unschedulable: true,
            ..NodeState::default()
        };
        let mut pod = PodReq::default();
        let r = filter(&pod, &node).unwrap();
        assert_eq!(
            r.reasons[0],
            crate::sched::status::Reason::Static("node(s) were unschedulable")
        );
        pod.tolerations
            .push(Tol::exists(TAINT_UNSCHEDULABLE, "NoSchedule"));
        assert!(filter(&pod, &node).is_none());
    }
}
