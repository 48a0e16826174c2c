//! Kueue's quota tree: ClusterQueues are the leaves and Cohorts the inner nodes of a forest
//! in which quota is owned, lent and borrowed per (flavor, resource).
//!
//! A port of Kueue's `pkg/cache/scheduler/resource_node.go` (August 2026):
//! - every node has `quotas` (nominal, borrowingLimit, lendingLimit), a `subtree_quota` (its
//!   nominal plus what its children lend to it) and a `usage`;
//! - a child keeps `localQuota = max(0, subtreeQuota - lendingLimit)` for itself; the rest is
//!   stored in the parent (`accumulateFromChild`);
//! - usage beyond a node's local quota is charged to its parent, recursively (`addUsage`,
//!   `removeUsage`);
//! - `available` is what a node can use now, borrowing through its ancestors within each
//!   borrowingLimit; `potential_available` is the most it could ever use (the
//!   `ExceedsMaxQuota` bound);
//! - `height_of_lowest_subtree_that_fits` is `classical.FindHeightOfLowestSubtreeThatFits`
//!   (`pkg/scheduler/preemption/classical/hierarchical_preemption.go`), the "borrowing
//!   level" flavor assignment compares.
//!
//! Amounts are Kueue's `resources.Amount`: milli-units for `cpu`, whole units for every other
//! resource (`resources.ResourceValue`). Nodes whose cohort chain has a cycle are inactive, as
//! in Kueue's scheduler snapshot (`skipInactiveCQReason`: `HasCycle`).

use std::collections::{BTreeMap, HashMap};

use crate::snapshot::kueue::{KueueObjects, ResourceGroup};
use crate::snapshot::quantity::{parse_milli, parse_quantity};

/// A quantity of one resource, in Kueue's units (milli for cpu).
pub(crate) type Amount = i64;

/// Kueue's value of a quantity of `resource`: milli-units for cpu, units otherwise
/// (`resources.ResourceValue`). An unparsable quantity is `None`.
pub(crate) fn amount_of(resource: &str, q: &str) -> Option<Amount> {
    if resource == "cpu" {
        parse_milli(q)
    } else {
        parse_quantity(q)
    }
}

/// A (flavor, resource) pair, as Kueue's `resources.FlavorResource`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct FlavorResource {
    /// The ResourceFlavor.
    pub flavor: String,
    /// The resource name.
    pub resource: String,
}

impl FlavorResource {
    /// Builds a pair.
    pub(crate) fn new(flavor: &str, resource: &str) -> Self {
        Self {
            flavor: flavor.to_owned(),
            resource: resource.to_owned(),
        }
    }
}

/// One resource's quota in one flavor of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Quota {
    /// `nominalQuota`.
    pub nominal: Amount,
    /// `borrowingLimit` (absent: unlimited).
    pub borrowing_limit: Option<Amount>,
    /// `lendingLimit` (absent: everything may be lent).
    pub lending_limit: Option<Amount>,
}

/// A ClusterQueue or a Cohort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum NodeKind {
    /// A leaf: workloads are admitted here.
    ClusterQueue,
    /// An inner node.
    Cohort,
}

/// A node of the quota tree.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// The object's name.
    pub name: String,
    /// What it is.
    pub kind: NodeKind,
    /// Its cohort, if any (`None` for roots, and for nodes under a cycle).
    pub parent: Option<usize>,
    /// Its own quotas.
    pub quotas: HashMap<FlavorResource, Quota>,
    /// Its nominal quota plus what its children store in it.
    pub subtree_quota: HashMap<FlavorResource, Amount>,
    /// What its own workloads (a ClusterQueue) or its children's borrowing (a Cohort) use.
    pub usage: HashMap<FlavorResource, Amount>,
    /// Its cohort chain has a cycle: Kueue admits nothing here.
    pub in_cycle: bool,
}

impl Node {
    fn new(name: &str, kind: NodeKind) -> Self {
        Self {
            name: name.to_owned(),
            kind,
            parent: None,
            quotas: HashMap::new(),
            subtree_quota: HashMap::new(),
            usage: HashMap::new(),
            in_cycle: false,
        }
    }

    fn quota(&self, fr: &FlavorResource) -> Quota {
        self.quotas.get(fr).copied().unwrap_or_default()
    }

    fn subtree(&self, fr: &FlavorResource) -> Amount {
        self.subtree_quota.get(fr).copied().unwrap_or(0)
    }

    /// Usage of `fr`.
    pub(crate) fn used(&self, fr: &FlavorResource) -> Amount {
        self.usage.get(fr).copied().unwrap_or(0)
    }

    /// `resourceNode.localQuota`: what the node keeps for itself and never lends.
    fn local_quota(&self, fr: &FlavorResource) -> Amount {
        match self.quota(fr).lending_limit {
            Some(lending) => (self.subtree(fr) - lending).max(0),
            None => 0,
        }
    }
}

/// A quota that cannot be read, as a sentence naming the object and the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QuotaError(pub String);

/// The quota forest of every ClusterQueue and Cohort.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tree {
    /// Nodes: ClusterQueues and Cohorts (API objects, and cohorts only named by a queue).
    pub nodes: Vec<Node>,
    cluster_queues: BTreeMap<String, usize>,
    cohorts: BTreeMap<String, usize>,
    /// Each node's children (none under a cycle), built once: the forest's shape is fixed.
    children: Vec<Vec<usize>>,
    /// Each node's `getNodeHeight`, built once.
    heights: Vec<usize>,
}

fn read_groups(
    groups: &[ResourceGroup],
    owner: &str,
    quotas: &mut HashMap<FlavorResource, Quota>,
) -> Result<(), QuotaError> {
    for (g, group) in groups.iter().enumerate() {
        for (f, flavor) in group.flavors.iter().enumerate() {
            for (r, q) in flavor.resources.iter().enumerate() {
                let field =
                    |name: &str| format!("resourceGroups[{g}].flavors[{f}].resources[{r}].{name}");
                let read = |name: &str, v: &str| {
                    amount_of(&q.name, v).ok_or_else(|| {
                        QuotaError(format!("{owner}: {} `{v}` is not a quantity", field(name)))
                    })
                };
                let opt = |name: &str, v: Option<&str>| v.map(|v| read(name, v)).transpose();
                quotas.insert(
                    FlavorResource::new(&flavor.name, &q.name),
                    Quota {
                        nominal: read("nominalQuota", &q.nominal_quota.0)?,
                        borrowing_limit: opt(
                            "borrowingLimit",
                            q.borrowing_limit.as_ref().map(|x| x.0.as_str()),
                        )?,
                        lending_limit: opt(
                            "lendingLimit",
                            q.lending_limit.as_ref().map(|x| x.0.as_str()),
                        )?,
                    },
                );
            }
        }
    }
    Ok(())
}

impl Tree {
    /// Builds the forest from the ClusterQueues and Cohorts, with no usage.
    pub(crate) fn build(kueue: &KueueObjects) -> Result<Self, QuotaError> {
        let mut t = Self::default();
        for c in &kueue.cohorts {
            let id = t.cohort_id(c.name());
            let mut quotas = HashMap::new();
            read_groups(
                &c.spec.resource_groups,
                &format!("Cohort {}", c.name()),
                &mut quotas,
            )?;
            t.nodes[id].quotas = quotas;
            if let Some(parent) = c.spec.parent_name.as_deref().filter(|p| !p.is_empty()) {
                let p = t.cohort_id(parent);
                t.nodes[id].parent = Some(p);
            }
        }
        for cq in &kueue.cluster_queues {
            let id = t.nodes.len();
            let mut node = Node::new(cq.name(), NodeKind::ClusterQueue);
            read_groups(
                &cq.spec.resource_groups,
                &format!("ClusterQueue {}", cq.name()),
                &mut node.quotas,
            )?;
            t.nodes.push(node);
            t.cluster_queues.insert(cq.name().to_owned(), id);
            if let Some(cohort) = cq.cohort() {
                let p = t.cohort_id(cohort);
                t.nodes[id].parent = Some(p);
            }
        }
        t.mark_cycles();
        t.link();
        t.accumulate();
        Ok(t)
    }

    fn cohort_id(&mut self, name: &str) -> usize {
        if let Some(id) = self.cohorts.get(name) {
            return *id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::new(name, NodeKind::Cohort));
        self.cohorts.insert(name.to_owned(), id);
        id
    }

    /// `hierarchy.HasCycle` for every node: a node is in a cycle when following parents from
    /// it returns to a node already seen. Nodes in a cycle lose their parent link.
    fn mark_cycles(&mut self) {
        let n = self.nodes.len();
        // 0 unvisited, 1 on the current path, 2 done (no cycle above), 3 done (cycle above).
        let mut state = vec![0u8; n];
        for start in 0..n {
            let mut path = Vec::new();
            let mut at = Some(start);
            let mut cyclic = false;
            while let Some(i) = at {
                match state[i] {
                    0 => {
                        state[i] = 1;
                        path.push(i);
                        at = self.nodes[i].parent;
                    }
                    1 => {
                        cyclic = true;
                        break;
                    }
                    s => {
                        cyclic = s == 3;
                        break;
                    }
                }
            }
            for i in path {
                state[i] = if cyclic { 3 } else { 2 };
            }
        }
        for (i, s) in state.into_iter().enumerate() {
            if s == 3 {
                self.nodes[i].in_cycle = true;
            }
        }
    }

    /// The children and heights of every node (the shape never changes after building).
    fn link(&mut self) {
        let n = self.nodes.len();
        self.children = vec![Vec::new(); n];
        for i in 0..n {
            if let Some(p) = self.parent(i) {
                self.children[p].push(i);
            }
        }
        self.heights = vec![0; n];
        for i in self.leaves_first() {
            if self.nodes[i].kind == NodeKind::Cohort {
                self.heights[i] = self.children[i]
                    .iter()
                    .map(|c| self.heights[*c] + 1)
                    .max()
                    .unwrap_or(0);
            }
        }
    }

    /// `updateCohortResourceNode` over every root: subtree quotas from the leaves up.
    fn accumulate(&mut self) {
        let order = self.leaves_first();
        for i in &order {
            let quotas: Vec<(FlavorResource, Amount)> = self.nodes[*i]
                .quotas
                .iter()
                .map(|(fr, q)| (fr.clone(), q.nominal))
                .collect();
            for (fr, nominal) in quotas {
                *self.nodes[*i].subtree_quota.entry(fr).or_insert(0) += nominal;
            }
        }
        for i in order {
            let Some(p) = self.parent(i) else { continue };
            let lent: Vec<(FlavorResource, Amount)> = self.nodes[i]
                .subtree_quota
                .iter()
                .map(|(fr, q)| (fr.clone(), q - self.nodes[i].local_quota(fr)))
                .collect();
            for (fr, delta) in lent {
                *self.nodes[p].subtree_quota.entry(fr).or_insert(0) += delta;
            }
        }
    }

    /// Nodes ordered so that every node comes after all of its descendants.
    fn leaves_first(&self) -> Vec<usize> {
        let depth = |mut i: usize| {
            let mut d = 0usize;
            while let Some(p) = self.parent(i) {
                d += 1;
                i = p;
            }
            d
        };
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by_key(|i| std::cmp::Reverse(depth(*i)));
        order
    }

    /// The node's parent, unless the node is in a cycle.
    pub(crate) fn parent(&self, i: usize) -> Option<usize> {
        let n = &self.nodes[i];
        if n.in_cycle { None } else { n.parent }
    }

    /// The ClusterQueue's node.
    pub(crate) fn cluster_queue(&self, name: &str) -> Option<usize> {
        self.cluster_queues.get(name).copied()
    }

    /// The Cohort's node (an API object, or a name a ClusterQueue gives).
    pub(crate) fn cohort(&self, name: &str) -> Option<usize> {
        self.cohorts.get(name).copied()
    }

    /// The node's ancestors, nearest first.
    pub(crate) fn ancestors(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.parent(i), |p| self.parent(*p))
    }

    /// `LocalAvailable`: what is left of the node's local quota.
    pub(crate) fn local_available(&self, i: usize, fr: &FlavorResource) -> Amount {
        let n = &self.nodes[i];
        (n.local_quota(fr) - n.used(fr)).max(0)
    }

    fn available_raw(&self, i: usize, fr: &FlavorResource) -> Amount {
        let n = &self.nodes[i];
        let Some(p) = self.parent(i) else {
            return n.subtree(fr) - n.used(fr);
        };
        let mut parent_available = self.available_raw(p, fr);
        if let Some(borrowing) = n.quota(fr).borrowing_limit {
            let lq = n.local_quota(fr);
            let stored_in_parent = n.subtree(fr) - lq;
            let used_in_parent = (n.used(fr) - lq).max(0);
            let with_max_from_parent = stored_in_parent - used_in_parent + borrowing;
            parent_available = parent_available.min(with_max_from_parent);
        }
        self.local_available(i, fr) + parent_available
    }

    /// `Available`: what the node can use now, borrowing within limits; 0 when in debt.
    pub(crate) fn available(&self, i: usize, fr: &FlavorResource) -> Amount {
        self.available_raw(i, fr).max(0)
    }

    /// `PotentialAvailable`: the most the node could use with nothing else admitted.
    pub(crate) fn potential_available(&self, i: usize, fr: &FlavorResource) -> Amount {
        let n = &self.nodes[i];
        let Some(p) = self.parent(i) else {
            return n.subtree(fr);
        };
        let avail = n.local_quota(fr) + self.potential_available(p, fr);
        match n.quota(fr).borrowing_limit {
            Some(borrowing) => avail.min(n.subtree(fr) + borrowing),
            None => avail,
        }
    }

    /// `addUsage`: charges `val` to the node and what exceeds its local quota to its parents.
    pub(crate) fn add_usage(&mut self, i: usize, fr: &FlavorResource, val: Amount) {
        let local_available = self.local_available(i, fr);
        *self.nodes[i].usage.entry(fr.clone()).or_insert(0) += val;
        if let Some(p) = self.parent(i)
            && val > local_available
        {
            self.add_usage(p, fr, val - local_available);
        }
    }

    /// `removeUsage`: the inverse of [`Tree::add_usage`].
    pub(crate) fn remove_usage(&mut self, i: usize, fr: &FlavorResource, val: Amount) {
        let n = &self.nodes[i];
        let stored_in_parent = n.used(fr) - n.local_quota(fr);
        *self.nodes[i].usage.entry(fr.clone()).or_insert(0) -= val;
        if stored_in_parent <= 0 {
            return;
        }
        if let Some(p) = self.parent(i) {
            self.remove_usage(p, fr, val.min(stored_in_parent));
        }
    }

    /// `BorrowingWith`: the node would use more than its own quota with `val` more — its
    /// nominal quota for a ClusterQueue (`ClusterQueueSnapshot.BorrowingWith`), its subtree
    /// quota (its own plus what its children lend it) for a Cohort
    /// (`CohortSnapshot.BorrowingWith`).
    pub(crate) fn borrowing_with(&self, i: usize, fr: &FlavorResource, val: Amount) -> bool {
        let n = &self.nodes[i];
        let own = match n.kind {
            NodeKind::ClusterQueue => n.quota(fr).nominal,
            NodeKind::Cohort => n.subtree(fr),
        };
        own < n.used(fr) + val
    }

    /// `FindHeightOfLowestSubtreeThatFits`: how high up the cohort tree `val` more of `fr`
    /// must be borrowed from (0: within the queue's nominal quota), and whether quota may
    /// still be reclaimed higher up the hierarchy.
    pub(crate) fn height_of_lowest_subtree_that_fits(
        &self,
        cq: usize,
        fr: &FlavorResource,
        val: Amount,
    ) -> (usize, bool) {
        let has_parent = self.parent(cq).is_some();
        if !self.borrowing_with(cq, fr, val) || !has_parent {
            return (0, has_parent);
        }
        let mut remaining = val - self.local_available(cq, fr);
        let mut last = cq;
        for node in self.ancestors(cq) {
            if !self.borrowing_with(node, fr, remaining) {
                return (self.height(node), self.parent(node).is_some());
            }
            remaining -= self.local_available(node, fr);
            last = node;
        }
        (self.height(last), false)
    }

    /// `getNodeHeight`: 0 for a ClusterQueue; for a Cohort 1 + the tallest child (a
    /// ClusterQueue child counts 0), 0 with no children.
    pub(crate) fn height(&self, i: usize) -> usize {
        self.heights.get(i).copied().unwrap_or(0)
    }

    /// The node's children (ClusterQueues and Cohorts).
    pub(crate) fn children(&self, i: usize) -> &[usize] {
        self.children.get(i).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::kueue::parse;
    use serde_json::json;

    /// Objects from JSON documents.
    fn objects(docs: &[serde_json::Value]) -> KueueObjects {
        let mut k = KueueObjects::default();
        for d in docs {
            k.push(parse(d.clone()).unwrap_or_else(|e| panic!("{e}")));
        }
        k
    }

    fn cq(name: &str, cohort: &str, resources: serde_json::Value) -> serde_json::Value {
        json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
               "metadata": {"name": name},
               "spec": {"cohortName": cohort, "resourceGroups": [{"coveredResources": ["cpu", "example.com/gpu"],
                        "flavors": [{"name": "default", "resources": resources}]}]}})
    }

    fn cpu() -> FlavorResource {
        FlavorResource::new("default", "cpu")
    }

    // Kueue resource_node_test.go TestCohortLendable: the cohort's subtree quota is what its
    // queues lend (cpu 8 + 2 = 10, gpu 3).
    #[test]
    fn cohort_lendable_is_the_sum_of_what_its_queues_lend() {
        let k = objects(&[
            cq(
                "cq1",
                "test-cohort",
                json!([{"name": "cpu", "nominalQuota": "8", "lendingLimit": "8"},
                       {"name": "example.com/gpu", "nominalQuota": "3", "lendingLimit": "3"}]),
            ),
            cq(
                "cq2",
                "test-cohort",
                json!([{"name": "cpu", "nominalQuota": "2", "lendingLimit": "2"}]),
            ),
        ]);
        let t = Tree::build(&k).unwrap_or_else(|e| panic!("{e:?}"));
        let c = t
            .cohort("test-cohort")
            .unwrap_or_else(|| panic!("no cohort"));
        assert_eq!(t.nodes[c].subtree(&cpu()), 10_000);
        assert_eq!(
            t.nodes[c].subtree(&FlavorResource::new("default", "example.com/gpu")),
            3
        );
    }

    /// Kueue snapshot_test.go TestSnapshotAddRemoveWorkloadWithLendingLimit: lend-a (cpu 10,
    /// lendingLimit 4) and lend-b (cpu 10, lendingLimit 6) in cohort `lend`; workloads
    /// lend-a-1 (1), lend-a-2 (9), lend-a-3 (6) in lend-a and lend-b-1 (4) in lend-b.
    fn lending_tree() -> (Tree, usize, usize, usize) {
        let k = objects(&[
            cq(
                "lend-a",
                "lend",
                json!([{"name": "cpu", "nominalQuota": "10", "lendingLimit": "4"}]),
            ),
            cq(
                "lend-b",
                "lend",
                json!([{"name": "cpu", "nominalQuota": "10", "lendingLimit": "6"}]),
            ),
        ]);
        let t = Tree::build(&k).unwrap_or_else(|e| panic!("{e:?}"));
        let a = t.cluster_queue("lend-a").unwrap_or(usize::MAX);
        let b = t.cluster_queue("lend-b").unwrap_or(usize::MAX);
        let c = t.cohort("lend").unwrap_or(usize::MAX);
        (t, a, b, c)
    }

    fn admit_all(t: &mut Tree, a: usize, b: usize) {
        for v in [1_000, 9_000, 6_000] {
            t.add_usage(a, &cpu(), v);
        }
        t.add_usage(b, &cpu(), 4_000);
    }

    /// Kueue `CohortSnapshot.BorrowingWith` compares with the subtree quota: a cohort with no
    /// quota of its own is not borrowing while what its queues lend covers the usage.
    #[test]
    fn a_cohort_borrows_only_beyond_what_its_queues_lend_it() {
        let (mut t, a, _, c) = lending_tree();
        assert!(!t.borrowing_with(c, &cpu(), 10_000), "4 + 6 lent");
        assert!(t.borrowing_with(c, &cpu(), 10_001));
        t.add_usage(a, &cpu(), 9_000);
        assert_eq!(t.nodes[c].used(&cpu()), 3_000, "6 local, 3 from the cohort");
        assert!(!t.borrowing_with(c, &cpu(), 7_000));
        assert!(
            t.borrowing_with(a, &cpu(), 2_000),
            "a queue compares with its nominal"
        );
    }

    #[test]
    fn lending_limit_snapshot_remove_all() {
        let (mut t, a, b, c) = lending_tree();
        admit_all(&mut t, a, b);
        for v in [1_000, 9_000, 6_000] {
            t.remove_usage(a, &cpu(), v);
        }
        t.remove_usage(b, &cpu(), 4_000);
        assert_eq!(t.nodes[c].used(&cpu()), 0);
        assert_eq!(t.nodes[a].used(&cpu()), 0);
        assert_eq!(t.nodes[c].subtree(&cpu()), 10_000, "4 + 6 lent");
    }

    #[test]
    fn lending_limit_snapshot_remove_workload_but_still_using_quota_over_guaranteed_quota() {
        let (mut t, a, b, c) = lending_tree();
        admit_all(&mut t, a, b);
        t.remove_usage(a, &cpu(), 9_000);
        assert_eq!(t.nodes[a].used(&cpu()), 7_000);
        assert_eq!(t.nodes[b].used(&cpu()), 4_000);
        assert_eq!(t.nodes[c].used(&cpu()), 1_000);
    }

    #[test]
    fn lending_limit_snapshot_remove_workload_using_same_quota_as_guaranteed_quota() {
        let (mut t, a, b, c) = lending_tree();
        admit_all(&mut t, a, b);
        t.remove_usage(a, &cpu(), 1_000);
        t.remove_usage(a, &cpu(), 9_000);
        assert_eq!(t.nodes[a].used(&cpu()), 6_000);
        assert_eq!(t.nodes[c].used(&cpu()), 0);
    }

    #[test]
    fn lending_limit_snapshot_remove_all_then_add_all_is_the_initial_state() {
        let (mut t, a, b, c) = lending_tree();
        admit_all(&mut t, a, b);
        let before = (t.nodes[a].used(&cpu()), t.nodes[c].used(&cpu()));
        for v in [1_000, 9_000, 6_000] {
            t.remove_usage(a, &cpu(), v);
        }
        t.remove_usage(b, &cpu(), 4_000);
        admit_all(&mut t, a, b);
        assert_eq!((t.nodes[a].used(&cpu()), t.nodes[c].used(&cpu())), before);
        // lend-a uses 16 of its own 10: 6 (its local quota) locally, 10 in the cohort.
        assert_eq!(before, (16_000, 10_000));
    }

    #[test]
    fn available_borrows_within_the_cohort_and_its_borrowing_limit() {
        let k = objects(&[
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                   "metadata": {"name": "a"},
                   "spec": {"cohortName": "c", "resourceGroups": [{"coveredResources": ["cpu"],
                     "flavors": [{"name": "default", "resources": [
                        {"name": "cpu", "nominalQuota": "4", "borrowingLimit": "2"}]}]}]}}),
            cq("b", "c", json!([{"name": "cpu", "nominalQuota": "6"}])),
        ]);
        let mut t = Tree::build(&k).unwrap_or_else(|e| panic!("{e:?}"));
        let a = t.cluster_queue("a").unwrap_or(usize::MAX);
        let b = t.cluster_queue("b").unwrap_or(usize::MAX);
        assert_eq!(t.available(a, &cpu()), 6_000, "4 own + at most 2 borrowed");
        assert_eq!(t.potential_available(a, &cpu()), 6_000);
        assert_eq!(t.available(b, &cpu()), 10_000, "no borrowing limit");
        t.add_usage(b, &cpu(), 9_000);
        assert_eq!(t.available(a, &cpu()), 1_000, "b borrowed 3 of a's 4");
        assert_eq!(
            t.height_of_lowest_subtree_that_fits(a, &cpu(), 1_000),
            (0, true)
        );
        t.remove_usage(b, &cpu(), 9_000);
        assert_eq!(
            t.height_of_lowest_subtree_that_fits(a, &cpu(), 5_000),
            (1, false),
            "borrowing from the root cohort"
        );
    }

    #[test]
    fn queues_under_a_cohort_cycle_have_no_parent() {
        let k = objects(&[
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
                   "metadata": {"name": "x"}, "spec": {"parentName": "y"}}),
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
                   "metadata": {"name": "y"}, "spec": {"parentName": "x"}}),
            cq("q", "x", json!([{"name": "cpu", "nominalQuota": "1"}])),
            cq("r", "", json!([{"name": "cpu", "nominalQuota": "1"}])),
        ]);
        let t = Tree::build(&k).unwrap_or_else(|e| panic!("{e:?}"));
        let q = t.cluster_queue("q").unwrap_or(usize::MAX);
        let r = t.cluster_queue("r").unwrap_or(usize::MAX);
        assert!(t.nodes[q].in_cycle);
        assert!(!t.nodes[r].in_cycle);
        assert_eq!(t.available(r, &cpu()), 1_000);
    }

    #[test]
    fn a_bad_quota_names_the_field() {
        let k = objects(&[cq(
            "q",
            "",
            json!([{"name": "cpu", "nominalQuota": "lots"}]),
        )]);
        let e = Tree::build(&k).err().map(|e| e.0);
        assert_eq!(
            e.as_deref(),
            Some(
                "ClusterQueue q: resourceGroups[0].flavors[0].resources[0].nominalQuota `lots` is not a quantity"
            )
        );
    }
}
