//! NodePorts: requested host ports must be free.
//! Upstream: `pkg/scheduler/framework/plugins/nodeports/node_ports.go` and `HostPortInfo`:
//! ports conflict on the same protocol and port when either host IP is `0.0.0.0` or both match.

use crate::sched::node_state::NodeState;
use crate::sched::pod_req::PodReq;
use crate::sched::status::{Code, Rejection};

/// Plugin name.
pub(crate) const NAME: &str = "NodePorts";
/// Reason text.
pub(crate) const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

fn conflicts(a: &(String, i32, String), b: &(String, i32, String)) -> bool {
    a.0 == b.0 && a.1 == b.1 && (a.2 == b.2 || a.2 == "0.0.0.0" || b.2 == "0.0.0.0")
}

/// The filter.
#[inline]
pub(crate) fn filter(pod: &PodReq, node: &NodeState) -> Option<Rejection> {
    let clash = pod
        .host_ports
        .iter()
        .any(|want| node.used_ports.iter().any(|used| conflicts(want, used)));
    clash.then(|| Rejection::new(NAME, Code::Unschedulable, ERR_REASON))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_ip_conflicts_with_any_ip() {
        let used = |ip: &str| NodeState {
            used_ports: vec![("TCP".into(), 8080, ip.into())],
            ..NodeState::default()
        };
        let pod = |ip: &str| PodReq {
            host_ports: vec![("TCP".into(), 8080, ip.into())],
            ..PodReq::default()
        };
        assert!(filter(&pod("0.0.0.0"), &used("10.0.0.1")).is_some());
        assert!(filter(&pod("10.0.0.2"), &used("10.0.0.1")).is_none());
        assert!(filter(&pod("10.0.0.1"), &used("10.0.0.1")).is_some());
        let udp = PodReq {
            host_ports: vec![("UDP".into(), 8080, "0.0.0.0".into())],
            ..PodReq::default()
        };
        assert!(filter(&udp, &used("0.0.0.0")).is_none());
    }
}
