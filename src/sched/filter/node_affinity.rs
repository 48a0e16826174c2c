//! NodeAffinity: `spec.nodeSelector` and required node affinity terms.
//! Upstream: `pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`,
//! `k8s.io/component-helpers/scheduling/corev1/nodeaffinity`.

use crate::sched::node_state::NodeState;
use crate::sched::pod_req::PodReq;
use crate::sched::status::{Code, Rejection};

/// Plugin name.
pub const NAME: &str = "NodeAffinity";
/// Reason text.
pub const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";

/// Whether the node satisfies the pod's nodeSelector and required terms (terms are ORed).
pub fn matches(pod: &PodReq, node: &NodeState) -> bool {
    let selector_ok = pod
        .node_selector
        .iter()
        .all(|(k, v)| node.labels.get(k) == Some(v));
    selector_ok
        && pod
            .required_terms
            .as_ref()
            .is_none_or(|terms| terms.iter().any(|t| t.matches(&node.name, &node.labels)))
}

/// The filter.
#[inline]
pub fn filter(pod: &PodReq, node: &NodeState) -> Option<Rejection> {
    (!matches(pod, node))
        .then(|| Rejection::new(NAME, Code::UnschedulableAndUnresolvable, ERR_REASON_POD))
}

/// Score: the sum of weights of matching preferred terms.
pub fn score(pod: &PodReq, node: &NodeState) -> i64 {
    pod.preferred_terms
        .iter()
        .filter(|(_, t)| t.matches(&node.name, &node.labels))
        .map(|(w, _)| i64::from(*w))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::selector::{NodeTerm, Op, Requirement};

    #[test]
    fn selector_and_terms() {
        let node = NodeState {
            name: "n1".into(),
            labels: [("rack".to_owned(), "a".to_owned())].into_iter().collect(),
            ..NodeState::default()
        };
        let mut pod = PodReq {
            node_selector: vec![("rack".into(), "b".into())],
            ..PodReq::default()
        };
        assert_eq!(
            filter(&pod, &node).unwrap().reasons[0],
            crate::sched::status::Reason::Static(ERR_REASON_POD)
        );
        pod.node_selector.clear();
        let term = |v: &str| NodeTerm {
            labels: vec![Requirement {
                key: "rack".into(),
                op: Op::In(vec![v.into()]),
            }],
            fields: vec![],
        };
        pod.required_terms = Some(vec![term("b"), term("a")]);
        assert!(filter(&pod, &node).is_none(), "terms are ORed");
        pod.preferred_terms = vec![(5, term("a")), (3, term("b"))];
        assert_eq!(score(&pod, &node), 5);
    }
}
