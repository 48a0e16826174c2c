//! Field checks the loader applies to typed objects, as the API server would have rejected
//! them: k8s-openapi keeps a `Quantity` as the text it was given, so a quantity that
//! `resource.ParseQuantity` refuses (`abc`, `NaN`, `1 e3`) or that pod and node validation
//! refuses (a negative request, limit, overhead, capacity or allocatable) would otherwise reach
//! the simulator as "no amount". DRA quantities (ResourceSlice capacities and counters, the
//! capacity a claim requests) are checked for being quantities at all. The loader turns a failure into an input error at the field's
//! file, line and column. Pure: no IO.

use std::any::Any;
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Node, Pod, ResourceRequirements};
use k8s_openapi::api::resource::v1::{
    ResourceClaim, ResourceClaimSpec, ResourceClaimTemplate, ResourceSlice,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::snapshot::quantity::quantity_scaled;

/// A field that is wrong: its JSON path (`spec.containers[0].resources.requests.cpu`) and
/// what is wrong with it.
pub(crate) type FieldProblem = (String, String);

/// Why `q` is not an amount a pod or node may have: not a quantity, or negative
/// (`ValidateNonnegativeQuantity`: "must be greater than or equal to 0").
pub(crate) fn amount_problem(q: &str) -> Option<String> {
    match quantity_scaled(q, 9) {
        Err(e) => Some(format!("`{q}` is not a quantity: {e}")),
        Ok(v) if v < 0 => Some(format!("`{q}` must be greater than or equal to 0")),
        Ok(_) => None,
    }
}

fn check_list(path: &str, list: Option<&BTreeMap<String, Quantity>>) -> Result<(), FieldProblem> {
    for (name, q) in list.into_iter().flatten() {
        if let Some(message) = amount_problem(&q.0) {
            return Err((format!("{path}.{name}"), message));
        }
    }
    Ok(())
}

fn check_requirements(path: &str, r: Option<&ResourceRequirements>) -> Result<(), FieldProblem> {
    let Some(r) = r else { return Ok(()) };
    check_list(&format!("{path}.requests"), r.requests.as_ref())?;
    check_list(&format!("{path}.limits"), r.limits.as_ref())
}

fn check_containers(path: &str, containers: &[Container]) -> Result<(), FieldProblem> {
    for (i, c) in containers.iter().enumerate() {
        check_requirements(&format!("{path}[{i}].resources"), c.resources.as_ref())?;
    }
    Ok(())
}

/// The first quantity problem of a pod: container, init container and pod-level requests and
/// limits, and the overhead.
pub(crate) fn check_pod(pod: &Pod) -> Result<(), FieldProblem> {
    let Some(spec) = pod.spec.as_ref() else {
        return Ok(());
    };
    check_containers("spec.containers", &spec.containers)?;
    check_containers(
        "spec.initContainers",
        spec.init_containers.as_deref().unwrap_or_default(),
    )?;
    check_requirements("spec.resources", spec.resources.as_ref())?;
    check_list("spec.overhead", spec.overhead.as_ref())
}

/// The first quantity problem of a node: capacity and allocatable.
pub(crate) fn check_node(node: &Node) -> Result<(), FieldProblem> {
    let Some(status) = node.status.as_ref() else {
        return Ok(());
    };
    check_list("status.capacity", status.capacity.as_ref())?;
    check_list("status.allocatable", status.allocatable.as_ref())
}

/// Why `q` is not a quantity at all (a DRA capacity or counter: the API server cannot decode
/// it; the sign is left to the DRA checks).
fn quantity_problem(q: &str) -> Option<String> {
    quantity_scaled(q, 9)
        .err()
        .map(|e| format!("`{q}` is not a quantity: {e}"))
}

fn check_quantities<'q>(
    path: &str,
    list: impl IntoIterator<Item = (&'q String, &'q Quantity)>,
) -> Result<(), FieldProblem> {
    for (name, q) in list {
        if let Some(message) = quantity_problem(&q.0) {
            return Err((format!("{path}.{name}"), message));
        }
    }
    Ok(())
}

/// The first quantity problem of a ResourceSlice: device capacities, the counters devices
/// consume, and the shared counter sets.
pub(crate) fn check_resource_slice(slice: &ResourceSlice) -> Result<(), FieldProblem> {
    let spec = &slice.spec;
    for (i, d) in spec.devices.iter().flatten().enumerate() {
        let capacity = d.capacity.iter().flatten().map(|(n, c)| (n, &c.value));
        check_quantities(&format!("spec.devices[{i}].capacity"), capacity)?;
        for (j, c) in d.consumes_counters.iter().flatten().enumerate() {
            let counters = c.counters.iter().map(|(n, c)| (n, &c.value));
            check_quantities(
                &format!("spec.devices[{i}].consumesCounters[{j}].counters"),
                counters,
            )?;
        }
    }
    for (i, set) in spec.shared_counters.iter().flatten().enumerate() {
        let counters = set.counters.iter().map(|(n, c)| (n, &c.value));
        check_quantities(&format!("spec.sharedCounters[{i}].counters"), counters)?;
    }
    Ok(())
}

/// The first quantity problem of a claim spec at `path`: the capacity each request (or
/// `firstAvailable` subrequest) asks of a device.
fn check_claim_spec(path: &str, spec: &ResourceClaimSpec) -> Result<(), FieldProblem> {
    let requests = spec.devices.as_ref().and_then(|d| d.requests.as_ref());
    for (i, r) in requests.into_iter().flatten().enumerate() {
        if let Some(exactly) = &r.exactly {
            let asked = exactly.capacity.as_ref().and_then(|c| c.requests.as_ref());
            check_quantities(
                &format!("{path}.devices.requests[{i}].exactly.capacity.requests"),
                asked.into_iter().flatten(),
            )?;
        }
        for (j, sub) in r.first_available.iter().flatten().enumerate() {
            let asked = sub.capacity.as_ref().and_then(|c| c.requests.as_ref());
            check_quantities(
                &format!("{path}.devices.requests[{i}].firstAvailable[{j}].capacity.requests"),
                asked.into_iter().flatten(),
            )?;
        }
    }
    Ok(())
}

/// The loader's hook: checks the kinds that have checks (pods, nodes, ResourceSlices,
/// ResourceClaims and their templates) and accepts the rest.
pub(crate) fn check(object: &dyn Any) -> Result<(), FieldProblem> {
    if let Some(pod) = object.downcast_ref::<Pod>() {
        check_pod(pod)
    } else if let Some(node) = object.downcast_ref::<Node>() {
        check_node(node)
    } else if let Some(slice) = object.downcast_ref::<ResourceSlice>() {
        check_resource_slice(slice)
    } else if let Some(claim) = object.downcast_ref::<ResourceClaim>() {
        claim
            .spec
            .as_ref()
            .map_or(Ok(()), |spec| check_claim_spec("spec", spec))
    } else if let Some(template) = object.downcast_ref::<ResourceClaimTemplate>() {
        template
            .spec
            .as_ref()
            .and_then(|t| t.spec.as_ref())
            .map_or(Ok(()), |spec| check_claim_spec("spec.spec", spec))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(json: &str) -> Pod {
        serde_json::from_str(json).expect("test pod")
    }

    #[test]
    fn bad_and_negative_quantities_name_their_field() {
        for (cpu, want) in [
            ("abc", "`abc` is not a quantity: quantities must match"),
            ("NaN", "`NaN` is not a quantity"),
            ("1Zi", "`1Zi` is not a quantity"),
            ("-5", "`-5` must be greater than or equal to 0"),
        ] {
            let p = pod(&format!(
                r#"{{"metadata": {{"name": "p"}}, "spec": {{"containers": [{{"name": "a"}}, {{"name": "b", "resources": {{"limits": {{"cpu": "{cpu}"}}}}}}]}}}}"#
            ));
            let (field, message) = check(&p).unwrap_err();
            assert_eq!(field, "spec.containers[1].resources.limits.cpu");
            assert!(message.starts_with(want), "{message}");
        }
        let p = pod(
            r#"{"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}], "overhead": {"memory": "1x"}}}"#,
        );
        assert_eq!(check(&p).unwrap_err().0, "spec.overhead.memory");
    }

    #[test]
    fn dra_quantities_name_their_field() {
        let slice: ResourceSlice = serde_json::from_str(
            r#"{"metadata": {"name": "s"}, "spec": {"driver": "d", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                "sharedCounters": [{"name": "set", "counters": {"memory": {"value": "80Gi"}}}],
                "devices": [{"name": "a", "capacity": {"memory": {"value": "40Gi"}},
                             "consumesCounters": [{"counterSet": "set", "counters": {"memory": {"value": "4O"}}}]}]}}"#,
        )
        .expect("test slice");
        let (field, message) = check(&slice).unwrap_err();
        assert_eq!(field, "spec.devices[0].consumesCounters[0].counters.memory");
        assert!(message.starts_with("`4O` is not a quantity"), "{message}");
        let claim: ResourceClaim = serde_json::from_str(
            r#"{"metadata": {"name": "c"}, "spec": {"devices": {"requests": [
                {"name": "r", "exactly": {"deviceClassName": "gpu", "capacity": {"requests": {"memory": "10Gi"}}}},
                {"name": "s", "firstAvailable": [{"name": "x", "deviceClassName": "gpu", "capacity": {"requests": {"memory": "lots"}}}]}]}}}"#,
        )
        .expect("test claim");
        assert_eq!(
            check(&claim).unwrap_err().0,
            "spec.devices.requests[1].firstAvailable[0].capacity.requests.memory"
        );
        let good: ResourceClaim = serde_json::from_str(
            r#"{"metadata": {"name": "c"}, "spec": {"devices": {"requests": [
                {"name": "r", "exactly": {"deviceClassName": "gpu", "capacity": {"requests": {"memory": "10Gi"}}}}]}}}"#,
        )
        .expect("test claim");
        assert_eq!(check(&good), Ok(()));
    }

    #[test]
    fn valid_and_huge_quantities_pass() {
        let p = pod(
            r#"{"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1e30", "memory": "7Ei", "nvidia.com/gpu": "1"}}}]}}"#,
        );
        assert_eq!(check(&p), Ok(()));
        let n: Node = serde_json::from_str(
            r#"{"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "8", "memory": "-1Gi"}}}"#,
        )
        .expect("test node");
        assert_eq!(
            check(&n).unwrap_err(),
            (
                "status.allocatable.memory".to_owned(),
                "`-1Gi` must be greater than or equal to 0".to_owned()
            )
        );
    }
}
