//! NodeResourcesFit scoring strategies and NodeResourcesBalancedAllocation over configured
//! resources, as pure functions of per-resource `(requested, allocatable)` vectors.
//!
//! Upstream (v1.37), `pkg/scheduler/framework/plugins/noderesources/`:
//! - `resource_allocation.go` `resourceAllocationScorer.score` /
//!   `calculateResourceAllocatableRequest`: per configured resource, the node's allocatable and
//!   its requested amount plus the pod's. Fit uses the *non-zero* requests for cpu and memory
//!   (`schedutil.DefaultMilliCPURequest`/`DefaultMemoryRequest` for containers requesting
//!   nothing, `NonZeroRequested` on the node); BalancedAllocation (`useRequested`) the real
//!   ones. An extended (scalar) resource the pod does not request is bypassed (allocatable 0),
//!   and so is a resource the node does not have.
//! - `least_allocated.go` `leastResourceScorer`, `most_allocated.go` `mostResourceScorer`:
//!   resources with allocatable 0 are skipped; `Σ score·weight / Σ weight`, integer division.
//! - `requested_to_capacity_ratio.go` `buildRequestedToCapacityRatioScorerFunction`: the shape
//!   (utilization 0–100 → score 0–10, scaled by `MaxNodeScore / MaxCustomPriorityScore` = 10)
//!   is interpolated linearly (`helper.BuildBrokenLinearFunction`); a request above capacity
//!   or a capacity of 0 scores the shape at 100 % utilization; only resources scoring above 0
//!   add their weight; the mean is rounded.
//! - `balanced_allocation.go` `balancedResourceScorer`: the standard deviation of the
//!   requested fractions (capped at 1) of the resources the node has; `(1 − std)·100`.

use crate::sched::node::NodeState;
use crate::sched::pod_req::PodReq;
pub(crate) use crate::sched::profile::{
    ResourceSpec, ScoringStrategy, ShapePoint, Strategy, default_resources,
};
use crate::sched::resources::{CPU, EPHEMERAL_STORAGE, MEMORY, PODS, ResourceId, ResourceTable};
use crate::sched::status::MAX_NODE_SCORE;

pub(crate) use crate::sched::profile::MAX_CUSTOM_PRIORITY_SCORE;
/// `maxUtilization`: the top of a shape's utilization axis.
pub(crate) const MAX_UTILIZATION: i64 = 100;

/// A configured resource resolved against a snapshot's resource table: `None` when no node
/// and no pod names it (every node's allocatable is then 0 and the resource is bypassed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// The interned id.
    pub id: Option<ResourceId>,
    /// The weight.
    pub weight: i64,
}

/// Resolves `resources` against `table`.
pub(crate) fn resolve(resources: &[ResourceSpec], table: &ResourceTable) -> Vec<Resolved> {
    resources
        .iter()
        .map(|r| Resolved {
            id: table.get(&r.name),
            weight: r.weight,
        })
        .collect()
}

/// `calculateResourceAllocatableRequest` for one resource: `(allocatable, requested)` with the
/// pod's request added; `(0, 0)` bypasses the resource. `use_requested` is BalancedAllocation's
/// (real requests); Fit uses the non-zero cpu/memory requests.
#[inline]
pub(crate) fn allocatable_request(
    pod: &PodReq,
    node: &NodeState,
    id: Option<ResourceId>,
    use_requested: bool,
) -> (i64, i64) {
    let Some(id) = id else {
        return (0, 0);
    };
    let requested = |id: ResourceId| {
        node.requested
            .get(usize::from(id))
            .copied()
            .unwrap_or(0)
            .saturating_add(pod.request(id))
    };
    match id {
        CPU if !use_requested => (
            node.allocatable(CPU),
            node.score_cpu.saturating_add(pod.score_cpu),
        ),
        MEMORY if !use_requested => (
            node.allocatable(MEMORY),
            node.score_memory.saturating_add(pod.score_memory),
        ),
        CPU | MEMORY | EPHEMERAL_STORAGE => (node.allocatable(id), requested(id)),
        // `pods` is neither a native nor a scalar resource to the scorer.
        PODS => (0, 0),
        _ => {
            // An extended resource the pod does not request is bypassed.
            if pod.request(id) == 0 {
                (0, 0)
            } else {
                (node.allocatable(id), requested(id))
            }
        }
    }
}

/// Fills `requested`/`allocatable` for `resources` (upstream `resourceAllocationScorer.score`:
/// a resource the node does not have keeps `(0, 0)`).
#[inline]
fn gather(
    pod: &PodReq,
    node: &NodeState,
    resources: &[Resolved],
    use_requested: bool,
    requested: &mut Vec<i64>,
    allocatable: &mut Vec<i64>,
) {
    requested.clear();
    allocatable.clear();
    for r in resources {
        let (alloc, req) = allocatable_request(pod, node, r.id, use_requested);
        if alloc == 0 {
            requested.push(0);
            allocatable.push(0);
        } else {
            requested.push(req);
            allocatable.push(alloc);
        }
    }
}

/// `leastRequestedScore`: free share of `capacity` after `requested`, 0–100.
#[inline]
pub(crate) fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    // i128: `(capacity - requested) * 100` overflows an i64 for huge allocatables.
    i64::try_from(
        (i128::from(capacity) - i128::from(requested)) * i128::from(MAX_NODE_SCORE)
            / i128::from(capacity),
    )
    .unwrap_or(0)
}

/// `mostRequestedScore`: used share of `capacity`, 0–100 (requests above capacity count as
/// full: pods without requests get the non-zero defaults).
#[inline]
pub(crate) fn most_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    let requested = requested.min(capacity);
    i64::try_from(i128::from(requested) * i128::from(MAX_NODE_SCORE) / i128::from(capacity))
        .unwrap_or(0)
}

/// The weighted integer mean shared by LeastAllocated and MostAllocated
/// (`leastResourceScorer` / `mostResourceScorer`).
#[inline]
fn weighted_mean(
    requested: &[i64],
    allocatable: &[i64],
    resources: &[Resolved],
    score: impl Fn(i64, i64) -> i64,
) -> i64 {
    let (mut node_score, mut weight_sum) = (0i64, 0i64);
    for ((req, alloc), r) in requested.iter().zip(allocatable).zip(resources) {
        if *alloc == 0 {
            continue;
        }
        node_score = node_score.saturating_add(score(*req, *alloc).saturating_mul(r.weight));
        weight_sum += r.weight;
    }
    if weight_sum == 0 {
        0
    } else {
        node_score / weight_sum
    }
}

/// `leastResourceScorer` (the tables' reference for [`FitScorer::score`]).
#[cfg(test)]
pub(crate) fn least_resource_scorer(
    requested: &[i64],
    allocatable: &[i64],
    resources: &[Resolved],
) -> i64 {
    weighted_mean(requested, allocatable, resources, least_requested_score)
}

/// `mostResourceScorer`.
pub(crate) fn most_resource_scorer(
    requested: &[i64],
    allocatable: &[i64],
    resources: &[Resolved],
) -> i64 {
    weighted_mean(requested, allocatable, resources, most_requested_score)
}

/// `helper.BuildBrokenLinearFunction` over a shape already scaled to 0–100 scores.
pub(crate) fn broken_linear(shape: &[(i64, i64)], p: i64) -> i64 {
    for (i, (utilization, score)) in shape.iter().enumerate() {
        if p <= *utilization {
            if i == 0 {
                return *score;
            }
            let (u0, s0) = shape[i - 1];
            let du = utilization - u0;
            if du == 0 {
                return *score;
            }
            return s0 + (score - s0) * (p - u0) / du;
        }
    }
    shape.last().map_or(0, |(_, s)| *s)
}

/// The shape scaled to the scheduler's score range (`requestedToCapacityRatioScorer`:
/// `score · MaxNodeScore / MaxCustomPriorityScore`).
pub(crate) fn scaled_shape(shape: &[ShapePoint]) -> Vec<(i64, i64)> {
    shape
        .iter()
        .map(|p| {
            (
                p.utilization,
                p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE),
            )
        })
        .collect()
}

/// `scaledUtilization`: `requested · 100 / capacity`, clamped to 0–100, exact.
#[inline]
fn scaled_utilization(requested: i64, capacity: i64) -> i64 {
    if capacity <= 0 || requested <= 0 {
        return 0;
    }
    if requested >= capacity {
        return MAX_UTILIZATION;
    }
    i64::try_from(i128::from(requested) * i128::from(MAX_UTILIZATION) / i128::from(capacity))
        .unwrap_or(MAX_UTILIZATION)
}

/// `buildRequestedToCapacityRatioScorerFunction`'s scorer, `shape` already scaled.
pub(crate) fn requested_to_capacity_ratio_scorer(
    shape: &[(i64, i64)],
    requested: &[i64],
    allocatable: &[i64],
    resources: &[Resolved],
) -> i64 {
    let resource_score = |req: i64, cap: i64| {
        if cap == 0 || req > cap {
            broken_linear(shape, MAX_UTILIZATION)
        } else {
            broken_linear(shape, scaled_utilization(req, cap))
        }
    };
    let (mut node_score, mut weight_sum) = (0i64, 0i64);
    for ((req, alloc), r) in requested.iter().zip(allocatable).zip(resources) {
        if *alloc == 0 {
            continue;
        }
        let s = resource_score(*req, *alloc);
        if s > 0 {
            node_score = node_score.saturating_add(s.saturating_mul(r.weight));
            weight_sum += r.weight;
        }
    }
    if weight_sum == 0 {
        0
    } else {
        (node_score as f64 / weight_sum as f64).round() as i64
    }
}

/// `balancedResourceScorer`.
pub(crate) fn balanced_resource_scorer(requested: &[i64], allocatable: &[i64]) -> i64 {
    let mut fractions: Vec<f64> = Vec::with_capacity(requested.len());
    let mut total = 0.0;
    for (req, alloc) in requested.iter().zip(allocatable) {
        if *alloc == 0 {
            continue;
        }
        let f = (*req as f64 / *alloc as f64).min(1.0);
        total += f;
        fractions.push(f);
    }
    let std = match fractions.len() {
        2 => ((fractions[0] - fractions[1]) / 2.0).abs(),
        n if n > 2 => {
            let mean = total / n as f64;
            let sum: f64 = fractions.iter().map(|f| (f - mean) * (f - mean)).sum();
            (sum / n as f64).sqrt()
        }
        _ => 0.0,
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// NodeResourcesFit as a PlacementScore plugin (TopologyAwareWorkloadScheduling): how full a
/// topology domain's nodes are once the group's proposed pods are assumed on them, summed over
/// the domain's nodes, 0–100.
///
/// Upstream 1.37: the `Fit` plugin keeps a second scorer, `placementScorer`, beside the
/// pod-by-pod one (`noderesources/fit.go`, v1.36.2 on); the topology-aware scheduling page
/// (concepts/scheduling-eviction/topology-aware-scheduling, "Scheduling framework: TAS plugins
/// configuration") says it "uses the `MostAllocated` strategy to maximize resource utilization
/// within a placement, and it inherits resource weights from the standard pod-by-pod plugin
/// settings". So the strategy is always MostAllocated (a profile's LeastAllocated or
/// RequestedToCapacityRatio does not change it) while the resources and weights are the
/// profile's `scoringStrategy.resources` (`MostAllocated` on `nvidia.com/gpu` scores domains
/// by their GPUs only). Per resource, as `resourceAllocationScorer`'s
/// `calculateResourceAllocatableRequest` per node, summed over the domain (the placement
/// scorer of the KEP-5732 implementation, `placement_score.go`, sums allocatable and
/// requested the same way): the non-zero requests for cpu and memory; an extended resource the
/// group's proposed pods do not request, and `pods`, are bypassed; a node without a resource
/// adds nothing to it. `nodes` already carry the proposed pods.
pub(crate) fn placement_most_allocated<'a>(
    resources: &[Resolved],
    group_request: &dyn Fn(ResourceId) -> i64,
    nodes: impl Iterator<Item = &'a NodeState>,
) -> i64 {
    let counted: Vec<Option<ResourceId>> = resources
        .iter()
        .map(|r| match r.id {
            None | Some(PODS) => None,
            Some(id @ (CPU | MEMORY | EPHEMERAL_STORAGE)) => Some(id),
            Some(id) => (group_request(id) != 0).then_some(id),
        })
        .collect();
    let mut requested = vec![0i64; resources.len()];
    let mut allocatable = vec![0i64; resources.len()];
    for n in nodes {
        for (i, id) in counted.iter().enumerate() {
            let Some(id) = *id else { continue };
            let (alloc, req) = match id {
                CPU => (n.allocatable(CPU), n.score_cpu),
                MEMORY => (n.allocatable(MEMORY), n.score_memory),
                _ => (
                    n.allocatable(id),
                    n.requested.get(usize::from(id)).copied().unwrap_or(0),
                ),
            };
            if alloc == 0 {
                continue;
            }
            allocatable[i] = allocatable[i].saturating_add(alloc);
            requested[i] = requested[i].saturating_add(req);
        }
    }
    most_resource_scorer(&requested, &allocatable, resources)
}

/// A strategy ready for one scoring pass: resources resolved, the shape scaled, scratch
/// vectors reused across nodes.
#[derive(Debug)]
pub(crate) struct FitScorer {
    kind: Kind,
    resources: Vec<Resolved>,
    requested: Vec<i64>,
    allocatable: Vec<i64>,
}

#[derive(Debug)]
enum Kind {
    Least,
    Most,
    Ratio(Vec<(i64, i64)>),
}

impl FitScorer {
    /// `strategy` resolved against `table`.
    pub(crate) fn new(strategy: &ScoringStrategy, table: &ResourceTable) -> Self {
        let kind = match &strategy.strategy {
            Strategy::LeastAllocated => Kind::Least,
            Strategy::MostAllocated => Kind::Most,
            Strategy::RequestedToCapacityRatio { shape } => Kind::Ratio(scaled_shape(shape)),
        };
        let resources = resolve(&strategy.resources, table);
        Self {
            kind,
            requested: Vec::with_capacity(resources.len()),
            allocatable: Vec::with_capacity(resources.len()),
            resources,
        }
    }

    /// Whether every resource of the strategy is bypassed for `pod` whatever the node: not in
    /// the table, `pods`, or an extended resource the pod does not request
    /// ([`allocatable_request`] gives `(0, 0)`). Every scorer then scores 0 on every node
    /// (upstream's weighted sums skip a resource with no allocatable, and a zero weight sum
    /// scores 0), so the per-node pass can be skipped: a CPU-only pod under a `MostAllocated`
    /// on `nvidia.com/gpu` profile.
    pub(crate) fn bypasses(&self, pod: &PodReq) -> bool {
        self.resources.iter().all(|r| match r.id {
            None | Some(PODS) => true,
            Some(CPU | MEMORY | EPHEMERAL_STORAGE) => false,
            Some(id) => pod.request(id) == 0,
        })
    }

    /// The NodeResourcesFit score of `node` for `pod` (0–100).
    ///
    /// LeastAllocated and MostAllocated take their weighted mean as they go (the same sums
    /// as [`gather`] then [`weighted_mean`], without the two buffers: this runs once per node
    /// per pod, and with a configured strategy it was a tenth of the scheduling time).
    #[inline]
    pub(crate) fn score(&mut self, pod: &PodReq, node: &NodeState) -> i64 {
        let per_resource: fn(i64, i64) -> i64 = match &self.kind {
            Kind::Least => least_requested_score,
            Kind::Most => most_requested_score,
            Kind::Ratio(shape) => {
                gather(
                    pod,
                    node,
                    &self.resources,
                    false,
                    &mut self.requested,
                    &mut self.allocatable,
                );
                return requested_to_capacity_ratio_scorer(
                    shape,
                    &self.requested,
                    &self.allocatable,
                    &self.resources,
                );
            }
        };
        let (mut node_score, mut weight_sum) = (0i64, 0i64);
        for r in &self.resources {
            let (alloc, req) = allocatable_request(pod, node, r.id, false);
            if alloc == 0 {
                continue;
            }
            node_score =
                node_score.saturating_add(per_resource(req, alloc).saturating_mul(r.weight));
            weight_sum += r.weight;
        }
        if weight_sum == 0 {
            0
        } else {
            node_score / weight_sum
        }
    }
}

/// NodeResourcesBalancedAllocation over configured resources, ready for one scoring pass.
#[derive(Debug)]
pub(crate) struct BalancedScorer {
    resources: Vec<Resolved>,
    requested: Vec<i64>,
    allocatable: Vec<i64>,
}

impl BalancedScorer {
    /// `resources` (weights unused: upstream ignores them here) resolved against `table`.
    pub(crate) fn new(resources: &[ResourceSpec], table: &ResourceTable) -> Self {
        let resources = resolve(resources, table);
        Self {
            requested: Vec::with_capacity(resources.len()),
            allocatable: Vec::with_capacity(resources.len()),
            resources,
        }
    }

    /// The BalancedAllocation score of `node` for `pod` (0–100).
    #[inline]
    pub(crate) fn score(&mut self, pod: &PodReq, node: &NodeState) -> i64 {
        gather(
            pod,
            node,
            &self.resources,
            true,
            &mut self.requested,
            &mut self.allocatable,
        );
        balanced_resource_scorer(&self.requested, &self.allocatable)
    }
}

#[cfg(test)]
mod tests {
    //! Tables ported from upstream `noderesources/{most_allocated,least_allocated,
    //! requested_to_capacity_ratio,balanced_allocation}_test.go` (v1.37): each test is named
    //! after its upstream case; requests are summed per node as the upstream comments do.

    use super::*;

    fn res(spec: &[(&str, i64)]) -> Vec<Resolved> {
        spec.iter()
            .enumerate()
            .map(|(i, (_, w))| Resolved {
                id: Some(u16::try_from(i).unwrap_or(0)),
                weight: *w,
            })
            .collect()
    }

    const CPU_MEM: &[(&str, i64)] = &[("cpu", 1), ("memory", 1)];

    fn most(requested: &[i64], allocatable: &[i64], spec: &[(&str, i64)]) -> i64 {
        most_resource_scorer(requested, allocatable, &res(spec))
    }

    fn least(requested: &[i64], allocatable: &[i64], spec: &[(&str, i64)]) -> i64 {
        least_resource_scorer(requested, allocatable, &res(spec))
    }

    // --- most_allocated_test.go TestMostAllocatedScoringStrategy ---

    #[test]
    fn most_allocated_nothing_scheduled_nothing_requested() {
        assert_eq!(most(&[0, 0], &[4000, 10000], CPU_MEM), 0);
    }

    #[test]
    fn most_allocated_nothing_scheduled_resources_requested_differently_sized_nodes() {
        assert_eq!(most(&[3000, 5000], &[4000, 10000], CPU_MEM), 62);
        assert_eq!(most(&[3000, 5000], &[6000, 10000], CPU_MEM), 50);
    }

    #[test]
    fn most_allocated_no_resources_requested_pods_scheduled_with_resources() {
        assert_eq!(most(&[6000, 0], &[10000, 20000], CPU_MEM), 30);
        assert_eq!(most(&[6000, 5000], &[10000, 20000], CPU_MEM), 42);
    }

    #[test]
    fn most_allocated_resources_requested_pods_scheduled_with_resources() {
        assert_eq!(most(&[6000, 5000], &[10000, 20000], CPU_MEM), 42);
        assert_eq!(most(&[6000, 10000], &[10000, 20000], CPU_MEM), 55);
    }

    #[test]
    fn most_allocated_resources_requested_equal_node_capacity() {
        assert_eq!(most(&[5000, 9000], &[5000, 10000], CPU_MEM), 95);
        assert_eq!(most(&[5000, 9000], &[10000, 9000], CPU_MEM), 75);
    }

    #[test]
    fn most_allocated_nothing_scheduled_differently_sized_nodes_with_weights() {
        // Resources {memory 2, cpu 1}: vectors in that order.
        let spec = &[("memory", 2), ("cpu", 1)];
        assert_eq!(most(&[5000, 3000], &[10000, 4000], spec), 58);
        assert_eq!(most(&[5000, 3000], &[10000, 6000], spec), 50);
    }

    #[test]
    fn most_allocated_no_resources_requested_pods_scheduled_nonzero_request_for_resource() {
        // Three pods without requests at 100m / 200Mi each on node1, one on node2 (the
        // incoming one): 300m of 250m is capped; 600Mi of 1000Mi.
        let mi = 1024 * 1024;
        assert_eq!(most(&[300, 600 * mi], &[250, 1000 * mi], CPU_MEM), 80);
        assert_eq!(most(&[100, 200 * mi], &[250, 1000 * mi], CPU_MEM), 30);
    }

    #[test]
    fn most_allocated_bypass_extended_resource_if_the_pod_does_not_request() {
        // extendedResourceSet: cpu, memory, extended (weight 1 each). The pod requests no
        // extended resource, so `allocatable_request` yields (0, 0) for it.
        let spec = &[("cpu", 1), ("memory", 1), ("ext", 1)];
        assert_eq!(most(&[3000, 5000, 0], &[6000, 10000, 0], spec), 50);
    }

    #[test]
    fn most_allocated_honor_extended_resource_if_the_pod_request() {
        let spec = &[("cpu", 1), ("memory", 1), ("ext", 1)];
        assert_eq!(most(&[3000, 5000, 2], &[6000, 10000, 4], spec), 50);
        assert_eq!(most(&[3000, 5000, 2], &[6000, 10000, 10], spec), 40);
    }

    #[test]
    fn most_allocated_if_the_node_doesnt_have_a_resource() {
        let spec = &[("ext", 2), ("cpu", 1), ("memory", 1)];
        assert_eq!(most(&[0, 3000, 4000], &[0, 6000, 10000], spec), 45);
    }

    // --- least_allocated_test.go TestLeastAllocatedScoringStrategy ---

    #[test]
    fn least_allocated_nothing_scheduled_nothing_requested() {
        // A pod without containers requests nothing.
        assert_eq!(least(&[0, 0], &[4000, 10000], CPU_MEM), 100);
    }

    #[test]
    fn least_allocated_nothing_scheduled_resources_requested_differently_sized_nodes() {
        assert_eq!(least(&[3000, 5000], &[4000, 10000], CPU_MEM), 37);
        assert_eq!(least(&[3000, 5000], &[6000, 10000], CPU_MEM), 50);
    }

    #[test]
    fn least_allocated_no_resources_requested_pods_scheduled() {
        // Pods without containers request nothing, not even the non-zero defaults.
        assert_eq!(least(&[0, 0], &[4000, 10000], CPU_MEM), 100);
    }

    #[test]
    fn least_allocated_no_resources_requested_pods_scheduled_with_resources() {
        assert_eq!(least(&[6000, 0], &[10000, 20000], CPU_MEM), 70);
        assert_eq!(least(&[6000, 5000], &[10000, 20000], CPU_MEM), 57);
    }

    #[test]
    fn least_allocated_resources_requested_pods_scheduled_with_resources() {
        assert_eq!(least(&[6000, 5000], &[10000, 20000], CPU_MEM), 57);
        assert_eq!(least(&[6000, 10000], &[10000, 20000], CPU_MEM), 45);
    }

    #[test]
    fn least_allocated_resources_requested_pods_scheduled_with_resources_differently_sized_nodes() {
        assert_eq!(least(&[6000, 5000], &[10000, 20000], CPU_MEM), 57);
        assert_eq!(least(&[6000, 10000], &[10000, 50000], CPU_MEM), 60);
    }

    #[test]
    fn least_allocated_requested_resources_exceed_node_capacity() {
        assert_eq!(least(&[6000, 0], &[4000, 10000], CPU_MEM), 50);
        assert_eq!(least(&[6000, 5000], &[4000, 10000], CPU_MEM), 25);
    }

    #[test]
    fn least_allocated_zero_node_resources_pods_scheduled_with_resources() {
        assert_eq!(least(&[0, 0], &[0, 0], CPU_MEM), 0);
    }

    #[test]
    fn least_allocated_nothing_scheduled_resources_requested_with_different_weight_on_cpu_and_memory_differently_sized_nodes()
     {
        // Resources {memory 2, cpu 1}: (25·1 + 50·2) / 3 = 41 and (50·1 + 50·2) / 3 = 50.
        let spec = &[("memory", 2), ("cpu", 1)];
        assert_eq!(least(&[5000, 3000], &[10000, 4000], spec), 41);
        assert_eq!(least(&[5000, 3000], &[10000, 6000], spec), 50);
    }

    #[test]
    fn least_allocated_bypass_extended_resource_if_the_pod_does_not_request() {
        let spec = &[("cpu", 1), ("memory", 1), ("ext", 1)];
        assert_eq!(least(&[3000, 5000, 0], &[6000, 10000, 0], spec), 50);
    }

    #[test]
    fn least_allocated_honor_extended_resource_if_the_pod_requests() {
        let spec = &[("cpu", 1), ("memory", 1), ("ext", 1)];
        // (50 + 50 + 50) / 3 and (50 + 50 + 80) / 3.
        assert_eq!(least(&[3000, 5000, 2], &[6000, 10000, 4], spec), 50);
        assert_eq!(least(&[3000, 5000, 2], &[6000, 10000, 10], spec), 60);
    }

    // --- requested_to_capacity_ratio_test.go ---

    fn shape(points: &[(i64, i64)]) -> Vec<(i64, i64)> {
        scaled_shape(
            &points
                .iter()
                .map(|(u, s)| ShapePoint {
                    utilization: *u,
                    score: *s,
                })
                .collect::<Vec<_>>(),
        )
    }

    fn ratio(
        points: &[(i64, i64)],
        requested: &[i64],
        allocatable: &[i64],
        spec: &[(&str, i64)],
    ) -> i64 {
        requested_to_capacity_ratio_scorer(&shape(points), requested, allocatable, &res(spec))
    }

    /// The shape of `TestRequestedToCapacityRatio`: {0 → 10, 100 → 0} (spreading).
    const SPREAD: &[(i64, i64)] = &[(0, 10), (100, 0)];

    #[test]
    fn requested_to_capacity_ratio_nothing_scheduled_nothing_requested_default_sizes() {
        // TestRequestedToCapacityRatio "nothing scheduled, nothing requested (default - least
        // requested nodes have priority)": 100, 100.
        assert_eq!(ratio(SPREAD, &[0, 0], &[4000, 10000], CPU_MEM), 100);
    }

    #[test]
    fn requested_to_capacity_ratio_nothing_scheduled_resources_requested_differently_sized_nodes() {
        // "nothing scheduled, resources requested, differently sized nodes (default - least
        // requested nodes have priority)": node1 {3000/4000 → 25, 5000/10000 → 50} = 38;
        // node2 {3000/6000 → 50, 5000/10000 → 50} = 50.
        assert_eq!(ratio(SPREAD, &[3000, 5000], &[4000, 10000], CPU_MEM), 38);
        assert_eq!(ratio(SPREAD, &[3000, 5000], &[6000, 10000], CPU_MEM), 50);
    }

    #[test]
    fn requested_to_capacity_ratio_no_resources_requested_pods_scheduled_with_resources() {
        // "no resources requested, pods scheduled with resources (default - least requested
        // nodes have priority)": 3000/5000 already on each node.
        assert_eq!(ratio(SPREAD, &[3000, 5000], &[4000, 10000], CPU_MEM), 38);
        assert_eq!(ratio(SPREAD, &[3000, 5000], &[6000, 10000], CPU_MEM), 50);
    }

    /// `TestResourceBinPacking*Extended`'s shape {0 → 0, 100 → 1}: scores 0–10.
    const PACK: &[(i64, i64)] = &[(0, 0), (100, 1)];

    #[test]
    fn resource_bin_packing_single_extended_resources_requested_pods_scheduled_with_less_resources()
    {
        // intel.com/foo weight 1: 2 of 8 → 2, 2 of 4 → 5.
        let spec = &[("intel.com/foo", 1)];
        assert_eq!(ratio(PACK, &[2], &[8], spec), 2);
        assert_eq!(ratio(PACK, &[2], &[4], spec), 5);
    }

    #[test]
    fn resource_bin_packing_single_extended_on_node_with_existing_pod_running() {
        let spec = &[("intel.com/foo", 1)];
        assert_eq!(ratio(PACK, &[2], &[8], spec), 2);
        assert_eq!(ratio(PACK, &[4], &[4], spec), 10);
    }

    #[test]
    fn resource_bin_packing_single_extended_nothing_scheduled_nothing_requested() {
        // The pod requests no intel.com/foo: bypassed, no weight, score 0.
        let spec = &[("intel.com/foo", 1)];
        assert_eq!(ratio(PACK, &[0], &[0], spec), 0);
    }

    #[test]
    fn resource_bin_packing_multiple_extended_resources_requested_pods_scheduled_with_less_resources()
     {
        // foo weight 3, bar weight 5: node1 (foo 2/8 → 2, bar 2/4 → 5) = 31/8 → 4;
        // node2 (foo 2/4 → 5, bar 2/8 → 2) = 25/8 → 3.
        let spec = &[("intel.com/foo", 3), ("intel.com/bar", 5)];
        assert_eq!(ratio(PACK, &[2, 2], &[8, 4], spec), 4);
        assert_eq!(ratio(PACK, &[2, 2], &[4, 8], spec), 3);
    }

    #[test]
    fn requested_to_capacity_ratio_request_above_capacity_scores_full_utilization() {
        assert_eq!(ratio(&[(0, 0), (100, 10)], &[5, 1], &[4, 2], CPU_MEM), 75);
    }

    #[test]
    fn broken_linear_function_matches_upstream_table() {
        // helper/shape_score_test.go TestBrokenLinearFunction: shape {10 → 1, 90 → 9}.
        let s = &[(10, 1), (90, 9)];
        for (p, want) in [
            (-10, 1),
            (0, 1),
            (9, 1),
            (10, 1),
            (15, 1),
            (19, 1),
            (20, 2),
            (89, 8),
            (90, 9),
            (99, 9),
            (100, 9),
            (110, 9),
        ] {
            assert_eq!(broken_linear(s, p), want, "p = {p}");
        }
        let s = &[(0, 2), (40, 10), (100, 0)];
        for (p, want) in [
            (-10, 2),
            (0, 2),
            (20, 6),
            (30, 8),
            (40, 10),
            (70, 5),
            (100, 0),
            (110, 0),
        ] {
            assert_eq!(broken_linear(s, p), want, "p = {p}");
        }
    }

    // --- balanced_allocation_test.go TestNodeResourcesBalancedAllocation ---

    fn balanced(requested: &[i64], allocatable: &[i64]) -> i64 {
        balanced_resource_scorer(requested, allocatable)
    }

    #[test]
    fn balanced_allocation_nothing_scheduled_resources_requested_differently_sized_nodes() {
        // cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5: std 0.125 → 87;
        // cpu 3000/6000 = 0.5, memory 0.5: 100.
        assert_eq!(balanced(&[3000, 5000], &[4000, 10000]), 87);
        assert_eq!(balanced(&[3000, 5000], &[6000, 10000]), 100);
    }

    #[test]
    fn balanced_allocation_resources_requested_pods_scheduled_with_resources() {
        // cpu 6000/10000 = 0.6, memory 5000/20000 = 0.25: std 0.175 → 82;
        // cpu 0.6, memory 10000/20000 = 0.5: std 0.05 → 95.
        assert_eq!(balanced(&[6000, 5000], &[10000, 20000]), 82);
        assert_eq!(balanced(&[6000, 10000], &[10000, 20000]), 95);
    }

    #[test]
    fn balanced_allocation_requested_resources_exceed_node_capacity() {
        // cpu 6000/4000 capped at 1, memory 5000/10000 = 0.5: std 0.25 → 75.
        assert_eq!(balanced(&[6000, 5000], &[4000, 10000]), 75);
    }

    #[test]
    fn balanced_allocation_zero_node_resources_pods_scheduled_with_resources() {
        assert_eq!(balanced(&[0, 0], &[0, 0]), 100);
    }

    #[test]
    fn balanced_allocation_include_scalar_resource_on_a_node_for_balanced_resource_allocation() {
        // cpu 3000/3500, memory 5000/40000, nvidia.com/gpu 1/4 (three fractions: the
        // population standard deviation).
        let fractions = [3000.0 / 3500.0, 5000.0 / 40000.0, 0.25];
        let mean: f64 = fractions.iter().sum::<f64>() / 3.0;
        let std = (fractions
            .iter()
            .map(|f| (f - mean) * (f - mean))
            .sum::<f64>()
            / 3.0)
            .sqrt();
        let want = ((1.0 - std) * 100.0) as i64;
        assert_eq!(balanced(&[3000, 5000, 1], &[3500, 40000, 4]), want);
        assert_eq!(want, 68);
    }

    #[test]
    fn balanced_allocation_node_without_the_scalar_resource_ignores_it() {
        // "if the pod doesn't request a scalar resource, it is ignored": (0, 0).
        assert_eq!(
            balanced(&[3000, 5000, 0], &[3500, 40000, 0]),
            balanced(&[3000, 5000], &[3500, 40000])
        );
    }

    #[test]
    fn describe_names_strategy_and_resources() {
        let s = ScoringStrategy {
            strategy: Strategy::MostAllocated,
            resources: vec![ResourceSpec::new("nvidia.com/gpu", 1)],
        };
        assert_eq!(s.describe(), "MostAllocated on nvidia.com/gpu");
        let s = ScoringStrategy {
            strategy: Strategy::LeastAllocated,
            resources: vec![
                ResourceSpec::new("cpu", 1),
                ResourceSpec::new("nvidia.com/gpu", 3),
            ],
        };
        assert_eq!(
            s.describe(),
            "LeastAllocated on cpu (weight 1), nvidia.com/gpu (weight 3)"
        );
        assert!(ScoringStrategy::default().is_default());
    }

    // --- NodeResourcesFit as a PlacementScore plugin (`placementScorer`, fit.go v1.36.2+;
    // concepts/scheduling-eviction/topology-aware-scheduling: MostAllocated with the
    // pod-by-pod plugin's resource weights) ---

    const GPU: ResourceId = 4;

    /// A node of `cpu` millicores, `mem` bytes and `gpus` GPUs with `used` of each requested
    /// (cpu and memory as the non-zero requests the scorer reads).
    fn placement_node(alloc: (i64, i64, i64), used: (i64, i64, i64)) -> NodeState {
        NodeState {
            allocatable: vec![alloc.0, alloc.1, 0, 110, alloc.2].into(),
            requested: vec![used.0, used.1, 0, 0, used.2].into(),
            score_cpu: used.0,
            score_memory: used.1,
            ..NodeState::default()
        }
    }

    fn placement(nodes: &[NodeState], spec: &[(ResourceId, i64)], group_gpus: i64) -> i64 {
        let resources: Vec<Resolved> = spec
            .iter()
            .map(|(id, w)| Resolved {
                id: Some(*id),
                weight: *w,
            })
            .collect();
        let request = |id: ResourceId| if id == GPU { group_gpus } else { 1000 };
        placement_most_allocated(&resources, &request, nodes.iter())
    }

    #[test]
    fn placement_default_resources_sum_cpu_and_memory_over_the_domain() {
        // Two 4-cpu/8-GiB nodes, 3 cpu and 2 GiB requested in all: cpu 3/8 → 37,
        // memory 2/16 → 12, mean 24 (integer division, as mostResourceScorer).
        let gib = 1 << 30;
        let nodes = [
            placement_node((4000, 8 * gib, 0), (2000, 2 * gib, 0)),
            placement_node((4000, 8 * gib, 0), (1000, 0, 0)),
        ];
        assert_eq!(placement(&nodes, &[(CPU, 1), (MEMORY, 1)], 0), 24);
    }

    #[test]
    fn placement_weights_come_from_the_profiles_resources() {
        // GPU-weighted (the profile's `MostAllocated on nvidia.com/gpu`): 6 of 8 GPUs used
        // scores 75 whatever the cpu; with cpu weight 1 and GPU weight 3 beside it,
        // (75·3 + 12·1) / 4 = 59.
        let nodes = [
            placement_node((8000, 0, 4), (1000, 0, 4)),
            placement_node((8000, 0, 4), (1000, 0, 2)),
        ];
        assert_eq!(placement(&nodes, &[(GPU, 1)], 2), 75);
        assert_eq!(placement(&nodes, &[(GPU, 3), (CPU, 1)], 2), 59);
    }

    #[test]
    fn placement_bypasses_an_extended_resource_the_group_does_not_request() {
        // calculateResourceAllocatableRequest: a scalar resource the pods do not request is
        // (0, 0); with GPUs the only configured resource the score is then 0.
        let nodes = [placement_node((8000, 0, 4), (1000, 0, 3))];
        assert_eq!(placement(&nodes, &[(GPU, 1)], 0), 0);
        assert_eq!(placement(&nodes, &[(GPU, 1), (CPU, 1)], 0), 12);
    }

    #[test]
    fn placement_ignores_nodes_without_the_resource() {
        // A CPU-only node in the domain adds nothing to the GPU sums.
        let nodes = [
            placement_node((8000, 0, 4), (0, 0, 2)),
            placement_node((8000, 0, 0), (0, 0, 0)),
        ];
        assert_eq!(placement(&nodes, &[(GPU, 1)], 2), 50);
    }
}
