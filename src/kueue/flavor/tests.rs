//! Cases ported from Kueue's `pkg/scheduler/flavorassigner/flavorassigner_test.go`
//! (`TestAssignFlavors`), each named after its upstream case. The upstream test oracle answers
//! `Preempt` unless a case says otherwise; [`TestOracle`] does the same.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::kueue::workload::PriorityClasses;
use crate::snapshot::kueue::{KueueObjects, parse};

struct TestOracle<'a>(&'a Tree, BTreeMap<FlavorResource, (Possibility, usize)>);

impl Oracle for TestOracle<'_> {
    fn tree(&self) -> &Tree {
        self.0
    }

    fn simulate(
        &mut self,
        _: usize,
        _: &Info,
        fr: &FlavorResource,
        _: Amount,
    ) -> (Possibility, usize) {
        self.1.get(fr).copied().unwrap_or((Possibility::Preempt, 0))
    }
}

/// The ResourceFlavors of `TestAssignFlavors`.
fn flavors() -> Vec<Value> {
    let f = |name: &str, spec: Value| {
        json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
               "metadata": {"name": name}, "spec": spec})
    };
    let spot = json!({"key": "instance", "value": "spot", "effect": "NoSchedule"});
    vec![
        f("default", json!({})),
        f("one", json!({"nodeLabels": {"type": "one"}})),
        f("two", json!({"nodeLabels": {"type": "two"}})),
        f("b_one", json!({"nodeLabels": {"b_type": "one"}})),
        f("b_two", json!({"nodeLabels": {"b_type": "two"}})),
        f("tainted", json!({"nodeTaints": [spot]})),
        f(
            "taint_and_toleration",
            json!({"nodeTaints": [spot],
                   "tolerations": [{"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]}),
        ),
    ]
}

/// `MakeFlavorQuotas(name).Resource(r, nominal)…`: `(resource, nominal, borrowingLimit,
/// lendingLimit)`, empty strings for absent limits.
fn fq(name: &str, resources: &[(&str, &str, &str, &str)]) -> Value {
    let rs: Vec<Value> = resources
        .iter()
        .map(|(r, n, b, l)| {
            let mut q = json!({"name": r, "nominalQuota": n});
            if !b.is_empty() {
                q["borrowingLimit"] = json!(b);
            }
            if !l.is_empty() {
                q["lendingLimit"] = json!(l);
            }
            q
        })
        .collect();
    json!({"name": name, "resources": rs})
}

/// A ClusterQueue with resource groups (each a list of flavor quotas; covered resources are
/// the resources the flavors name, as Kueue's wrapper derives them).
fn cq(name: &str, cohort: &str, groups: Vec<Vec<Value>>, fungibility: Option<Value>) -> Value {
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|flavors| {
            let mut covered: Vec<String> = Vec::new();
            for f in &flavors {
                for r in f["resources"].as_array().into_iter().flatten() {
                    let n = r["name"].as_str().unwrap_or_default().to_owned();
                    if !covered.contains(&n) {
                        covered.push(n);
                    }
                }
            }
            json!({"coveredResources": covered, "flavors": flavors})
        })
        .collect();
    let mut spec = json!({"resourceGroups": groups});
    if !cohort.is_empty() {
        spec["cohortName"] = json!(cohort);
    }
    if let Some(f) = fungibility {
        spec["flavorFungibility"] = f;
    }
    json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
           "metadata": {"name": name}, "spec": spec})
}

/// `MakePodSet(name, count).Request(…)`, with extra pod spec fields.
fn ps(name: &str, count: i32, requests: &[(&str, &str)], extra: Value) -> Value {
    let req: serde_json::Map<String, Value> = requests
        .iter()
        .map(|(r, q)| ((*r).to_owned(), json!(q)))
        .collect();
    let mut spec = json!({"containers": [{"name": "c", "resources": {"requests": req}}]});
    if let (Some(s), Some(e)) = (spec.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            s.insert(k.clone(), v.clone());
        }
    }
    json!({"name": name, "count": count, "template": {"spec": spec}})
}

struct Case {
    pod_sets: Vec<Value>,
    cluster_queue: Value,
    usage: Vec<(&'static str, &'static str, Amount)>,
    secondary: Option<Value>,
    secondary_usage: Vec<(&'static str, &'static str, Amount)>,
    oracle: Vec<(&'static str, &'static str, Possibility, usize)>,
}

impl Case {
    fn new(pod_sets: Vec<Value>, cluster_queue: Value) -> Self {
        Self {
            pod_sets,
            cluster_queue,
            usage: Vec::new(),
            secondary: None,
            secondary_usage: Vec::new(),
            oracle: Vec::new(),
        }
    }

    fn run(self) -> Assignment {
        let mut k = KueueObjects::default();
        let mut docs = flavors();
        docs.push(self.cluster_queue);
        docs.extend(self.secondary);
        docs.push(
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "wl", "namespace": "ns"},
            "spec": {"queueName": "q", "podSets": self.pod_sets}}),
        );
        for d in docs {
            k.push(parse(d).unwrap_or_else(|e| panic!("{e}")));
        }
        let mut tree = Tree::build(&k).unwrap_or_else(|e| panic!("{e:?}"));
        let main = tree
            .cluster_queue("test-clusterqueue")
            .unwrap_or(usize::MAX);
        for (f, r, v) in &self.usage {
            tree.add_usage(main, &FlavorResource::new(f, r), *v);
        }
        if let Some(second) = tree.cluster_queue("test-secondary-clusterqueue") {
            for (f, r, v) in &self.secondary_usage {
                tree.add_usage(second, &FlavorResource::new(f, r), *v);
            }
        }
        let by_name: BTreeMap<String, &ResourceFlavor> = k
            .resource_flavors
            .iter()
            .map(|f| (f.name().to_owned(), f))
            .collect();
        let cq_obj = k
            .cluster_queues
            .iter()
            .find(|c| c.name() == "test-clusterqueue")
            .unwrap_or_else(|| panic!("no cq"));
        let ctx = Context {
            cq: cq_obj,
            cq_node: main,
            flavors: &by_name,
        };
        let info = Info::new(0, &k.workloads[0], &PriorityClasses::default());
        let mut oracle = TestOracle(
            &tree,
            self.oracle
                .iter()
                .map(|(f, r, p, b)| (FlavorResource::new(f, r), (*p, *b)))
                .collect(),
        );
        assign(&ctx, &info, &k.workloads[0], &mut oracle)
    }
}

/// resource → (flavor, mode) of the first pod set.
fn flavors_of(a: &Assignment, i: usize) -> BTreeMap<String, (String, Mode)> {
    a.pod_sets[i]
        .flavors
        .iter()
        .map(|(r, c)| (r.clone(), (c.flavor.clone(), c.mode)))
        .collect()
}

fn want(pairs: &[(&str, &str, Mode)]) -> BTreeMap<String, (String, Mode)> {
    pairs
        .iter()
        .map(|(r, f, m)| ((*r).to_owned(), ((*f).to_owned(), *m)))
        .collect()
}

fn usage(a: &Assignment) -> Vec<(String, String, Amount)> {
    a.usage
        .iter()
        .map(|(fr, v)| (fr.flavor.clone(), fr.resource.clone(), *v))
        .collect()
}

fn u(pairs: &[(&str, &str, Amount)]) -> Vec<(String, String, Amount)> {
    pairs
        .iter()
        .map(|(f, r, v)| ((*f).to_owned(), (*r).to_owned(), *v))
        .collect()
}

const MI: Amount = 1 << 20;

#[test]
fn single_flavor_fits() {
    let a = Case::new(
        vec![ps("main", 1, &[("cpu", "1"), ("memory", "1Mi")], json!({}))],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![fq(
                "default",
                &[("cpu", "1", "", ""), ("memory", "2Mi", "", "")],
            )]],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(
        flavors_of(&a, 0),
        want(&[
            ("cpu", "default", Mode::Fit),
            ("memory", "default", Mode::Fit)
        ])
    );
    assert_eq!(
        usage(&a),
        u(&[("default", "cpu", 1_000), ("default", "memory", MI)])
    );
}

#[test]
fn single_flavor_fits_tainted_flavor() {
    let tol = json!({"tolerations": [{"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]});
    let a = Case::new(
        vec![ps("main", 1, &[("cpu", "1")], tol)],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![fq("tainted", &[("cpu", "4", "", "")])]],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(flavors_of(&a, 0), want(&[("cpu", "tainted", Mode::Fit)]));
}

#[test]
fn single_flavor_fits_tainted_flavor_with_toleration() {
    let a = Case::new(
        vec![ps("main", 1, &[("cpu", "1")], json!({}))],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![fq("taint_and_toleration", &[("cpu", "4", "", "")])]],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::Fit);
}

#[test]
fn single_flavor_used_resources_doesnt_fit() {
    let mut c = Case::new(
        vec![ps("main", 1, &[("cpu", "2")], json!({}))],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![fq("default", &[("cpu", "4", "", "")])]],
            None,
        ),
    );
    c.usage = vec![("default", "cpu", 3_000)];
    let a = c.run();
    assert_eq!(a.mode(), Mode::Preempt);
    assert_eq!(
        flavors_of(&a, 0),
        want(&[("cpu", "default", Mode::Preempt)])
    );
    assert_eq!(
        a.reasons(),
        ["insufficient unused quota for cpu in flavor default, 1 more needed"]
    );
    assert_eq!(usage(&a), u(&[("default", "cpu", 2_000)]));
}

#[test]
fn multiple_resource_groups_fits() {
    let a = Case::new(
        vec![ps(
            "main",
            1,
            &[("cpu", "3"), ("memory", "10Mi")],
            json!({}),
        )],
        cq(
            "test-clusterqueue",
            "",
            vec![
                vec![
                    fq("one", &[("cpu", "2", "", "")]),
                    fq("two", &[("cpu", "4", "", "")]),
                ],
                vec![
                    fq("b_one", &[("memory", "1Gi", "", "")]),
                    fq("b_two", &[("memory", "5Gi", "", "")]),
                ],
            ],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(
        flavors_of(&a, 0),
        want(&[("cpu", "two", Mode::Fit), ("memory", "b_one", Mode::Fit)])
    );
    assert_eq!(
        usage(&a),
        u(&[("b_one", "memory", 10 * MI), ("two", "cpu", 3_000)])
    );
}

#[test]
fn multiple_flavors_fits_while_skipping_tainted_flavor() {
    let a = Case::new(
        vec![ps("main", 1, &[("cpu", "3")], json!({}))],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![
                fq("tainted", &[("cpu", "4", "", "")]),
                fq("two", &[("cpu", "4", "", "")]),
            ]],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(flavors_of(&a, 0), want(&[("cpu", "two", Mode::Fit)]));
}

#[test]
fn the_untolerated_taint_reason_reads_as_kueue_prints_it() {
    let a = Case::new(
        vec![ps("main", 1, &[("cpu", "3")], json!({}))],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![fq("tainted", &[("cpu", "4", "", "")])]],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::NoFit);
    assert_eq!(
        a.reasons(),
        ["untolerated taint {instance spot NoSchedule <nil>} in flavor tainted"]
    );
}

#[test]
fn multiple_flavors_fits_a_node_selector() {
    let extra = json!({
        "nodeSelector": {"type": "two", "ignored1": "foo"},
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "ignored2", "operator": "In", "values": ["bar"]}]}]}}}
    });
    let a = Case::new(
        vec![ps("main", 1, &[("cpu", "1")], extra)],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![
                fq("one", &[("cpu", "4", "", "")]),
                fq("two", &[("cpu", "4", "", "")]),
            ]],
            None,
        ),
    )
    .run();
    assert_eq!(flavors_of(&a, 0), want(&[("cpu", "two", Mode::Fit)]));
}

#[test]
fn multiple_flavors_doesnt_fit_node_affinity() {
    let extra = json!({
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "type", "operator": "In", "values": ["three"]}]}]}}}
    });
    let a = Case::new(
        vec![ps("main", 1, &[("cpu", "1")], extra)],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![
                fq("one", &[("cpu", "4", "", "")]),
                fq("two", &[("cpu", "4", "", "")]),
            ]],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::NoFit);
    assert!(a.pod_sets[0].flavors.is_empty());
    assert_eq!(
        a.reasons(),
        [
            "flavor one doesn't match node affinity",
            "flavor two doesn't match node affinity"
        ]
    );
}

#[test]
fn multiple_specs_fits_borrowing() {
    let mut c = Case::new(
        vec![
            ps("driver", 1, &[("cpu", "4"), ("memory", "1Gi")], json!({})),
            ps("worker", 1, &[("cpu", "6"), ("memory", "4Gi")], json!({})),
        ],
        cq(
            "test-clusterqueue",
            "test-cohort",
            vec![vec![fq(
                "default",
                &[("cpu", "2", "98", ""), ("memory", "2Gi", "", "")],
            )]],
            None,
        ),
    );
    c.secondary = Some(cq(
        "test-secondary-clusterqueue",
        "test-cohort",
        vec![vec![fq(
            "default",
            &[("cpu", "198", "", ""), ("memory", "198Gi", "", "")],
        )]],
        None,
    ));
    let a = c.run();
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(a.borrowing, 1);
    assert_eq!(
        flavors_of(&a, 1),
        want(&[
            ("cpu", "default", Mode::Fit),
            ("memory", "default", Mode::Fit)
        ])
    );
    assert_eq!(
        usage(&a),
        u(&[("default", "cpu", 10_000), ("default", "memory", 5 << 30)])
    );
}

#[test]
fn not_enough_space_to_borrow() {
    let mut c = Case::new(
        vec![ps("main", 1, &[("cpu", "2")], json!({}))],
        cq(
            "test-clusterqueue",
            "test-cohort",
            vec![vec![fq("one", &[("cpu", "1", "", "")])]],
            None,
        ),
    );
    c.secondary = Some(cq(
        "test-secondary-clusterqueue",
        "test-cohort",
        vec![vec![fq("one", &[("cpu", "10", "", "0")])]],
        None,
    ));
    let a = c.run();
    assert_eq!(a.mode(), Mode::NoFit);
    assert_eq!(
        a.reasons(),
        [
            "insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset request (2) > maximum capacity (1)"
        ]
    );
}

#[test]
fn resource_not_listed_in_cluster_queue() {
    let a = Case::new(
        vec![ps("main", 1, &[("example.com/gpu", "2")], json!({}))],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![fq("one", &[("cpu", "4", "", "")])]],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::NoFit);
    assert_eq!(
        a.reasons(),
        ["resource example.com/gpu unavailable in ClusterQueue"]
    );
}

#[test]
fn zero_resource_request_not_in_cluster_queue_should_succeed() {
    let a = Case::new(
        vec![ps(
            "main",
            1,
            &[("cpu", "1"), ("example.com/gpu", "0")],
            json!({}),
        )],
        cq(
            "test-clusterqueue",
            "",
            vec![vec![fq("default", &[("cpu", "4", "", "")])]],
            None,
        ),
    )
    .run();
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(flavors_of(&a, 0), want(&[("cpu", "default", Mode::Fit)]));
}

#[test]
fn num_pods_fit_and_dont_fit() {
    let run = |pods: &str| {
        Case::new(
            vec![ps("main", 3, &[("cpu", "1")], json!({}))],
            cq(
                "test-clusterqueue",
                "",
                vec![vec![fq(
                    "default",
                    &[("pods", pods, "", ""), ("cpu", "10", "", "")],
                )]],
                None,
            ),
        )
        .run()
    };
    let fit = run("3");
    assert_eq!(fit.mode(), Mode::Fit);
    assert_eq!(
        usage(&fit),
        u(&[("default", "cpu", 3_000), ("default", "pods", 3)])
    );
    let no = run("2");
    assert_eq!(no.mode(), Mode::NoFit);
    assert_eq!(
        no.reasons(),
        [
            "insufficient quota for pods in flavor default, previously considered podsets requests (0) + current podset request (3) > maximum capacity (2)"
        ]
    );
}

fn two_flavors(
    cohort: &str,
    one_cpu: (&str, &str),
    two_cpu: &str,
    fungibility: Option<Value>,
) -> Value {
    cq(
        "test-clusterqueue",
        cohort,
        vec![vec![
            fq(
                "one",
                &[("pods", "10", "", ""), ("cpu", one_cpu.0, one_cpu.1, "")],
            ),
            fq("two", &[("pods", "10", "", ""), ("cpu", two_cpu, "", "")]),
        ]],
        fungibility,
    )
}

#[test]
fn preempt_before_try_next_flavor() {
    let mut c = Case::new(
        vec![ps("main", 1, &[("cpu", "9")], json!({}))],
        two_flavors(
            "",
            ("10", ""),
            "10",
            Some(json!({"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"})),
        ),
    );
    c.usage = vec![("one", "cpu", 2_000)];
    let a = c.run();
    assert_eq!(a.mode(), Mode::Preempt);
    assert_eq!(
        flavors_of(&a, 0),
        want(&[("cpu", "one", Mode::Preempt), ("pods", "one", Mode::Fit)])
    );
    assert_eq!(usage(&a), u(&[("one", "cpu", 9_000), ("one", "pods", 1)]));
}

#[test]
fn preempt_try_next_flavor() {
    let mut c = Case::new(
        vec![ps("main", 1, &[("cpu", "9")], json!({}))],
        two_flavors("", ("10", ""), "10", None),
    );
    c.usage = vec![("one", "cpu", 2_000)];
    let a = c.run();
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(
        flavors_of(&a, 0),
        want(&[("cpu", "two", Mode::Fit), ("pods", "two", Mode::Fit)])
    );
}

fn borrow_case(two_cpu: &str, fungibility: Option<Value>) -> Assignment {
    let mut c = Case::new(
        vec![ps("main", 1, &[("cpu", "9")], json!({}))],
        two_flavors("test-cohort", ("10", "1"), two_cpu, fungibility),
    );
    c.usage = vec![("one", "cpu", 2_000)];
    c.secondary = Some(cq(
        "test-secondary-clusterqueue",
        "test-cohort",
        vec![vec![fq("one", &[("cpu", "1", "", "")])]],
        None,
    ));
    c.run()
}

#[test]
fn borrow_try_next_flavor_found_the_first_flavor() {
    let a = borrow_case(
        "1",
        Some(json!({"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"})),
    );
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(a.borrowing, 1);
    assert_eq!(flavors_of(&a, 0)["cpu"], ("one".to_owned(), Mode::Fit));
}

#[test]
fn borrow_try_next_flavor_found_the_second_flavor() {
    let a = borrow_case(
        "10",
        Some(json!({"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"})),
    );
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(a.borrowing, 0);
    assert_eq!(flavors_of(&a, 0)["cpu"], ("two".to_owned(), Mode::Fit));
}

#[test]
fn borrow_before_try_next_flavor() {
    let a = borrow_case("10", None);
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(a.borrowing, 1);
    assert_eq!(flavors_of(&a, 0)["cpu"], ("one".to_owned(), Mode::Fit));
}

#[test]
fn cannot_preempt_in_cohort_oracle_returns_none_for_the_first_flavor_tries_the_second() {
    let mut c = Case::new(
        vec![ps("main", 1, &[("cpu", "9")], json!({}))],
        two_flavors(
            "",
            ("10", ""),
            "10",
            Some(json!({"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"})),
        ),
    );
    c.usage = vec![("one", "cpu", 2_000)];
    c.oracle = vec![("one", "cpu", Possibility::NoCandidates, 0)];
    let a = c.run();
    assert_eq!(a.mode(), Mode::Fit);
    assert_eq!(flavors_of(&a, 0)["cpu"], ("two".to_owned(), Mode::Fit));
}

#[test]
fn shown_amounts_follow_kueues_formatter() {
    assert_eq!(show("cpu", 3_000), "3");
    assert_eq!(show("cpu", 500), "500m");
    assert_eq!(show("nvidia.com/gpu", 8), "8");
}
