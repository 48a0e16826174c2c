//! NodeAffinity: `spec.nodeSelector` and required node affinity terms.
//! Upstream: `pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`,
//! `k8s.io/component-helpers/scheduling/corev1/nodeaffinity`.

use crate::sched::node_state::NodeState;
use crate::sched::pod_req::PodReq;
use crate::sched::profile::AddedAffinity;
use crate::sched::status::{Code, Rejection};

/// Plugin name.
pub(crate) const NAME: &str = "NodeAffinity";
/// Reason text.
pub(crate) const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
/// Reason text when the profile's `addedAffinity` rejects the node (`errReasonEnforced`).
pub(crate) const ERR_REASON_ENFORCED: &str =
    "node(s) didn't match scheduler-enforced node affinity";

/// Whether the node satisfies the pod's nodeSelector and required terms (terms are ORed).
pub(crate) fn matches(pod: &PodReq, node: &NodeState) -> bool {
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
pub(crate) fn filter(pod: &PodReq, node: &NodeState) -> Option<Rejection> {
    filter_with(pod, node, None)
}

/// The filter with the profile's `addedAffinity` (`Filter`: the scheduler-enforced
/// affinity is checked first).
#[inline]
pub(crate) fn filter_with(
    pod: &PodReq,
    node: &NodeState,
    added: Option<&AddedAffinity>,
) -> Option<Rejection> {
    if let Some(terms) = added.and_then(|a| a.required.as_ref())
        && !terms.iter().any(|t| t.matches(&node.name, &node.labels))
    {
        return Some(Rejection::new(
            NAME,
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_ENFORCED,
        ));
    }
    (!matches(pod, node))
        .then(|| Rejection::new(NAME, Code::UnschedulableAndUnresolvable, ERR_REASON_POD))
}

/// Score: the sum of weights of matching preferred terms.
#[cfg(test)]
pub(crate) fn score(pod: &PodReq, node: &NodeState) -> i64 {
    score_with(pod, node, None)
}

/// Score with the profile's `addedAffinity` preferred terms added (`Score`:
/// `addedPrefSchedTerms.Score(node)` plus the pod's own).
pub(crate) fn score_with(pod: &PodReq, node: &NodeState, added: Option<&AddedAffinity>) -> i64 {
    let weigh = |terms: &[(i32, crate::sched::selector::NodeTerm)]| -> i64 {
        terms
            .iter()
            .filter(|(_, t)| t.matches(&node.name, &node.labels))
            .map(|(w, _)| i64::from(*w))
            .sum()
    };
    weigh(&pod.preferred_terms) + added.map_or(0, |a| weigh(&a.preferred))
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

    #[test]
    fn added_affinity_is_enforced_first_and_adds_to_the_score() {
        // node_affinity.go: the profile's required terms reject with errReasonEnforced
        // whatever the pod says; its preferred terms add to every pod's score.
        let node = NodeState {
            name: "n1".into(),
            labels: [("zone".to_owned(), "foo".to_owned())]
                .into_iter()
                .collect(),
            ..NodeState::default()
        };
        let term = |v: &str| NodeTerm {
            labels: vec![Requirement {
                key: "zone".into(),
                op: Op::In(vec![v.into()]),
            }],
            fields: vec![],
        };
        let pod = PodReq::default();
        let bar = AddedAffinity {
            required: Some(vec![term("bar")]),
            preferred: vec![(3, term("foo"))],
        };
        assert_eq!(
            filter_with(&pod, &node, Some(&bar)).unwrap().reasons[0],
            crate::sched::status::Reason::Static(ERR_REASON_ENFORCED)
        );
        let foo = AddedAffinity {
            required: Some(vec![term("foo")]),
            preferred: vec![(3, term("foo"))],
        };
        assert!(filter_with(&pod, &node, Some(&foo)).is_none());
        assert_eq!(score_with(&pod, &node, Some(&foo)), 3);
        assert_eq!(score(&pod, &node), 0);
    }
}
