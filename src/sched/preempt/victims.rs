//! Who can be a preemption victim, as one unit, with which priority (semantics §6.2).
//!
//! Upstream: `pkg/scheduler/framework/preemption/types.go`, `util.go`. A pod whose PodGroup, or
//! an ancestor CompositePodGroup, has `disruptionMode: all` belongs to an atomic victim: the
//! subtree of the highest such ancestor, i.e. every scheduled pod of every leaf PodGroup under
//! it, on any node. Other pods are victims on their own. Group members compare with their root
//! group's priority; plain pods with their own.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::scheduling::v1beta1::DisruptionMode;

use crate::sched::node_state::{ClusterState, NodeId, PodId};
use crate::sched::selector::LabelSelector;
use crate::snapshot::facts::FeatureGates;
use crate::snapshot::{Snapshot, name_of, namespace_of};

/// Victim kind rank used by `MoreImportantVictim`: CompositePodGroup > PodGroup > Pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// A plain pod (or a single-mode group member).
    Pod = 1,
    /// An atomic PodGroup.
    PodGroup = 2,
    /// An atomic CompositePodGroup.
    CompositePodGroup = 3,
}

/// What preemption needs to know of every pod.
#[derive(Debug, Clone)]
pub struct PodFacts {
    /// Priority used in comparisons (root group priority for group members).
    pub priority: i32,
    /// The atomic unit it belongs to (`Kind/namespace/name`), if any.
    pub unit: Option<String>,
    /// The group it belongs to (`PodGroup/name`), for reports.
    pub group: Option<String>,
    /// Kind rank of its victim unit.
    pub rank: Rank,
}

/// A PodDisruptionBudget, compiled.
#[derive(Debug, Clone)]
pub struct Budget {
    /// Namespace.
    pub namespace: String,
    /// Selector (`None`: matches nothing, as upstream treats an empty selector here).
    pub selector: Option<LabelSelector>,
    /// `status.disruptionsAllowed`.
    pub allowed: i32,
    /// `status.disruptedPods` names.
    pub disrupted: Vec<String>,
}

/// Per-pod facts, atomic units and budgets of a simulation.
#[derive(Debug, Clone, Default)]
pub struct VictimIndex {
    /// Facts per pod id.
    pub pods: Vec<PodFacts>,
    /// Atomic unit → member pods (every pod of the subtree, placed or not).
    pub units: BTreeMap<String, Vec<PodId>>,
    /// PodDisruptionBudgets.
    pub budgets: Vec<Budget>,
}

fn all_mode(mode: Option<&DisruptionMode>) -> bool {
    mode.is_some_and(|d| d.all.is_some())
}

impl VictimIndex {
    /// Builds the index from the snapshot and the simulation's pods.
    pub fn build(s: &Snapshot, st: &ClusterState, gates: &FeatureGates) -> Self {
        let generic = gates.enabled("GenericWorkload");
        let composite = gates.enabled("CompositePodGroup");
        let mut idx = Self::default();
        let mut unit_of_pg: HashMap<(String, String), Option<(String, Rank)>> = HashMap::new();
        let mut root_priority: HashMap<(String, String), i32> = HashMap::new();
        for pg in &s.pod_groups {
            let ns = namespace_of(&pg.metadata).to_owned();
            let name = name_of(&pg.metadata).to_owned();
            // Walk up: the highest ancestor with disruptionMode all wins; the root gives priority.
            let mut unit = all_mode(pg.spec.disruption_mode.as_ref())
                .then(|| (format!("PodGroup/{ns}/{name}"), Rank::PodGroup));
            let mut priority = pg.spec.priority.unwrap_or(0);
            let mut parent = if composite {
                pg.spec.parent_composite_pod_group_name.clone()
            } else {
                None
            };
            for _ in 0..8 {
                let Some(p) = parent.take() else { break };
                let Some(cpg) = s.composite_pod_group(&ns, &p) else {
                    break;
                };
                if all_mode_composite(cpg.spec.disruption_mode.as_ref()) {
                    unit = Some((
                        format!("CompositePodGroup/{ns}/{p}"),
                        Rank::CompositePodGroup,
                    ));
                }
                priority = cpg.spec.priority.unwrap_or(0);
                parent = cpg.spec.parent_composite_pod_group_name.clone();
            }
            unit_of_pg.insert((ns.clone(), name.clone()), unit);
            root_priority.insert((ns, name), priority);
        }
        for (id, p) in st.pods.iter().enumerate() {
            let key = p
                .group
                .as_ref()
                .filter(|_| generic)
                .map(|g| (p.namespace.clone(), g.clone()));
            let known = key.as_ref().filter(|k| unit_of_pg.contains_key(*k));
            let (priority, unit, rank) = match known {
                Some(k) => {
                    let unit = unit_of_pg.get(k).cloned().flatten();
                    let rank = unit.as_ref().map_or(Rank::Pod, |(_, r)| *r);
                    (
                        root_priority.get(k).copied().unwrap_or(0),
                        unit.map(|(u, _)| u),
                        rank,
                    )
                }
                None => (p.priority, None, Rank::Pod),
            };
            if let Some(u) = &unit {
                idx.units.entry(u.clone()).or_default().push(id);
            }
            idx.pods.push(PodFacts {
                priority,
                unit,
                group: known.map(|(_, g)| format!("PodGroup/{g}")),
                rank,
            });
        }
        for pdb in &s.pod_disruption_budgets {
            let selector = pdb
                .spec
                .as_ref()
                .and_then(|sp| sp.selector.as_ref())
                .filter(|sel| {
                    sel.match_labels.as_ref().is_some_and(|m| !m.is_empty())
                        || sel
                            .match_expressions
                            .as_ref()
                            .is_some_and(|e| !e.is_empty())
                })
                .map(LabelSelector::compile);
            let status = pdb.status.as_ref();
            idx.budgets.push(Budget {
                namespace: namespace_of(&pdb.metadata).to_owned(),
                selector,
                allowed: status.and_then(|s| s.disruptions_allowed).unwrap_or(0),
                disrupted: status
                    .and_then(|s| s.disrupted_pods.as_ref())
                    .map(|d| d.keys().cloned().collect())
                    .unwrap_or_default(),
            });
        }
        idx
    }

    /// Whether budget `b` counts `pod` (namespace and labels).
    fn budget_matches(b: &Budget, p: &crate::sched::pod_req::PodReq) -> bool {
        b.namespace == p.namespace && b.selector.as_ref().is_some_and(|s| s.matches(&p.labels))
    }

    /// Whether a budget counts a pod of `unit` ([`pdb_violations`](Self::pdb_violations) spends
    /// no budget on any other unit, so leaving those out of its order changes no answer).
    pub(crate) fn covers(&self, st: &ClusterState, unit: &[(PodId, NodeId)]) -> bool {
        !self.budgets.is_empty()
            && unit.iter().any(|(pod, _)| {
                let p = &st.pods[*pod];
                self.budgets.iter().any(|b| Self::budget_matches(b, p))
            })
    }

    /// Upstream PDB accounting: for each budget matching a pod (namespace and labels), its
    /// allowance is decremented per matching victim not already disrupted; going below 0 is a
    /// violation. Returns, per victim unit (its pods with their nodes, in order), whether it
    /// violates a budget.
    pub(crate) fn pdb_violations<'a>(
        &self,
        st: &ClusterState,
        victims: impl ExactSizeIterator<Item = &'a [(PodId, NodeId)]>,
    ) -> Vec<bool> {
        if self.budgets.is_empty() {
            return vec![false; victims.len()];
        }
        let mut allowed: Vec<i32> = self.budgets.iter().map(|b| b.allowed).collect();
        victims
            .map(|unit| {
                let mut violates = false;
                for &(pod, _) in unit {
                    let p = &st.pods[pod];
                    for (i, b) in self.budgets.iter().enumerate() {
                        if Self::budget_matches(b, p) && !b.disrupted.iter().any(|d| **d == *p.name)
                        {
                            allowed[i] -= 1;
                            if allowed[i] < 0 {
                                violates = true;
                            }
                        }
                    }
                }
                violates
            })
            .collect()
    }
}

fn all_mode_composite(
    mode: Option<&k8s_openapi::api::scheduling::v1alpha3::CompositeDisruptionMode>,
) -> bool {
    mode.is_some_and(|d| d.all.is_some())
}
