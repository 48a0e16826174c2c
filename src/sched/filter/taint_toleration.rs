//! TaintToleration: `NoSchedule` and `NoExecute` taints must be tolerated.
//! Upstream: `pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go` (1.35+ reason
//! text "node(s) had untolerated taint(s)").

use crate::sched::node_state::NodeState;
use crate::sched::pod_req::PodReq;
use crate::sched::status::{Code, Rejection};

/// Plugin name.
pub(crate) const NAME: &str = "TaintToleration";
/// Reason text.
pub(crate) const ERR_REASON_NOT_MATCH: &str = "node(s) had untolerated taint(s)";

/// The filter.
#[inline]
pub(crate) fn filter(pod: &PodReq, node: &NodeState) -> Option<Rejection> {
    let untolerated = node
        .taints
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .any(|t| !t.tolerated_by(&pod.tolerations));
    untolerated.then(|| {
        Rejection::new(
            NAME,
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_NOT_MATCH,
        )
    })
}

/// Score: the number of `PreferNoSchedule` taints the pod does not tolerate (normalized in
/// reverse: fewer is better).
pub(crate) fn score(pod: &PodReq, node: &NodeState) -> i64 {
    let n = node
        .taints
        .iter()
        .filter(|t| t.effect == "PreferNoSchedule" && !t.tolerated_by(&pod.tolerations))
        .count();
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::selector::{NodeTaint, Tol};

    fn taint(effect: &str) -> NodeTaint {
        NodeTaint {
            key: "gpu".into(),
            value: "true".into(),
            effect: effect.into(),
        }
    }

    #[test]
    fn untolerated_no_schedule_rejects_prefer_does_not() {
        let node = NodeState {
            taints: vec![taint("NoSchedule")],
            ..NodeState::default()
        };
        let mut pod = PodReq::default();
        assert_eq!(
            filter(&pod, &node).unwrap().reasons[0],
            crate::sched::status::Reason::Static("node(s) had untolerated taint(s)")
        );
        pod.tolerations.push(Tol::exists("gpu", "NoSchedule"));
        assert!(filter(&pod, &node).is_none());
        let soft = NodeState {
            taints: vec![taint("PreferNoSchedule")],
            ..NodeState::default()
        };
        assert!(filter(&PodReq::default(), &soft).is_none());
        assert_eq!(score(&PodReq::default(), &soft), 1);
    }
}
