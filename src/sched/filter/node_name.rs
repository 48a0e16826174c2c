//! NodeName: a pod with `spec.nodeName` fits only that node.
//! Upstream: `pkg/scheduler/framework/plugins/nodename/node_name.go`.

use crate::sched::node_state::NodeState;
use crate::sched::pod_req::PodReq;
use crate::sched::status::{Code, Rejection};

/// Plugin name.
pub(crate) const NAME: &str = "NodeName";
/// Reason text.
pub(crate) const ERR_REASON: &str = "node(s) didn't match the requested node name";

/// The filter.
#[inline]
pub(crate) fn filter(pod: &PodReq, node: &NodeState) -> Option<Rejection> {
    match pod.node_name.as_deref() {
        Some(name) if name != &*node.name => Some(Rejection::new(
            NAME,
            Code::UnschedulableAndUnresolvable,
            ERR_REASON,
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_node_fits() {
        let pod = PodReq {
            node_name: Some("n1".into()),
            ..PodReq::default()
        };
        assert!(
            filter(
                &pod,
                &NodeState {
                    name: "n1".into(),
                    ..NodeState::default()
                }
            )
            .is_none()
        );
        let r = filter(
            &pod,
            &NodeState {
                name: "n2".into(),
                ..NodeState::default()
            },
        )
        .unwrap();
        assert_eq!(
            r.reasons[0],
            crate::sched::status::Reason::Static(ERR_REASON)
        );
    }
}
