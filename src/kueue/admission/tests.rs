//! Admission scenarios built from Kueue's documented behaviour (concepts/cluster_queue.md:
//! cohorts, borrowing, preemption, queueing strategies) and its scheduler tests
//! (`pkg/scheduler/scheduler_test.go`), each named after what it checks.

use serde_json::{Value, json};

use super::*;
use crate::snapshot::kueue::parse;

const V: &str = "kueue.x-k8s.io/v1beta2";

fn flavor(name: &str) -> Value {
    json!({"apiVersion": V, "kind": "ResourceFlavor", "metadata": {"name": name}})
}

/// A ClusterQueue with one flavor `default` of `gpu` GPUs (and a borrowing limit if given).
fn cq(name: &str, cohort: &str, gpu: &str, spec: Value) -> Value {
    let mut s = json!({
        "namespaceSelector": {},
        "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
            "flavors": [{"name": "default", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": gpu}]}]}]
    });
    if !cohort.is_empty() {
        s["cohortName"] = json!(cohort);
    }
    if let (Some(o), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
        for (k, v) in extra {
            o.insert(k.clone(), v.clone());
        }
    }
    json!({"apiVersion": V, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": s})
}

fn lq(name: &str, cq: &str) -> Value {
    json!({"apiVersion": V, "kind": "LocalQueue", "metadata": {"name": name, "namespace": "ml"},
           "spec": {"clusterQueue": cq}})
}

/// A pending workload of one pod set of `pods` pods with one GPU each.
fn wl(name: &str, queue: &str, pods: i32, priority: i32, created: &str) -> Value {
    json!({"apiVersion": V, "kind": "Workload",
        "metadata": {"name": name, "namespace": "ml", "creationTimestamp": created},
        "spec": {"queueName": queue, "priority": priority, "podSets": [{"name": "main", "count": pods,
            "template": {"spec": {"containers": [{"name": "c",
                "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}}}]}})
}

/// An admitted workload holding `pods` GPUs of flavor `default` in `cq`.
fn admitted(name: &str, queue: &str, cq: &str, pods: i32, priority: i32) -> Value {
    let mut w = wl(name, queue, pods, priority, "2026-08-01T00:00:00Z");
    let t = "2026-08-01T00:01:00Z";
    w["status"] = json!({
        "conditions": [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "", "lastTransitionTime": t},
            {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "", "lastTransitionTime": t}],
        "admission": {"clusterQueue": cq, "podSetAssignments": [{"name": "main", "count": pods,
            "flavors": {"nvidia.com/gpu": "default"}, "resourceUsage": {"nvidia.com/gpu": pods.to_string()}}]}
    });
    w
}

fn run_docs(docs: Vec<Value>) -> (KueueObjects, Admission) {
    let mut k = KueueObjects::default();
    for d in docs {
        k.push(parse(d).unwrap_or_else(|e| panic!("{e}")));
    }
    let a = run(&k, &[], &[]).unwrap_or_else(|e| panic!("{e:?}"));
    (k, a)
}

fn outcome_of<'a>(k: &KueueObjects, a: &'a Admission, name: &str) -> &'a WorkloadResult {
    a.workloads
        .iter()
        .find(|r| k.workloads[r.index].name() == name)
        .unwrap_or_else(|| panic!("no result for {name}"))
}

#[test]
fn a_workload_that_fits_its_nominal_quota_is_admitted_to_the_flavor() {
    let (k, a) = run_docs(vec![
        flavor("default"),
        cq("team-a", "", "8", json!({})),
        lq("q", "team-a"),
        wl("job", "q", 4, 0, "2026-08-01T00:00:00Z"),
    ]);
    let r = outcome_of(&k, &a, "job");
    assert_eq!(r.outcome, AdmissionOutcome::Admitted);
    assert_eq!(r.cluster_queue, "team-a");
    assert_eq!(r.pod_sets[0].flavors["nvidia.com/gpu"], "default");
    assert_eq!(a.cycles, 1);
}

#[test]
fn borrowing_from_the_cohort_admits_beyond_nominal() {
    let (k, a) = run_docs(vec![
        flavor("default"),
        cq("team-a", "research", "4", json!({})),
        cq("team-b", "research", "4", json!({})),
        lq("qa", "team-a"),
        wl("big", "qa", 6, 0, "2026-08-01T00:00:00Z"),
    ]);
    assert_eq!(
        outcome_of(&k, &a, "big").outcome,
        AdmissionOutcome::Admitted
    );
}

// makeClassicalIterator: "request under nominal quota before borrowing", whatever the age.
#[test]
fn a_head_within_nominal_quota_goes_before_a_borrowing_one_and_the_borrower_waits_with_its_shortfall()
 {
    let (k, a) = run_docs(vec![
        flavor("default"),
        cq("team-a", "research", "4", json!({})),
        cq("team-b", "research", "4", json!({})),
        lq("qa", "team-a"),
        lq("qb", "team-b"),
        wl("big", "qa", 6, 0, "2026-08-01T00:00:00Z"),
        wl("late", "qb", 4, 0, "2026-08-02T00:00:00Z"),
    ]);
    assert_eq!(
        outcome_of(&k, &a, "late").outcome,
        AdmissionOutcome::Admitted
    );
    let big = outcome_of(&k, &a, "big");
    assert_eq!(big.outcome, AdmissionOutcome::QuotaPending);
    assert_eq!(big.shortfall["nvidia.com/gpu"], "2");
    assert!(
        big.message.contains(
            "insufficient unused quota for nvidia.com/gpu in flavor default, 2 more needed"
        ),
        "{}",
        big.message
    );
}

#[test]
fn reclaim_within_cohort_preempts_the_borrower_which_goes_back_to_its_queue() {
    let (k, a) = run_docs(vec![
        flavor("default"),
        cq("team-a", "research", "4", json!({})),
        cq(
            "team-b",
            "research",
            "4",
            json!({"preemption": {"reclaimWithinCohort": "Any"}}),
        ),
        lq("qa", "team-a"),
        lq("qb", "team-b"),
        admitted("big", "qa", "team-a", 6, 0),
        wl("mine", "qb", 4, 0, "2026-08-02T00:00:00Z"),
    ]);
    let mine = outcome_of(&k, &a, "mine");
    assert_eq!(mine.outcome, AdmissionOutcome::Preempting);
    assert_eq!(mine.preempts, [("ml".to_owned(), "big".to_owned())]);
    let big = outcome_of(&k, &a, "big");
    assert_eq!(big.outcome, AdmissionOutcome::QuotaPending);
    assert!(
        big.evicted,
        "preempted and not admitted again: 6 > the 4 left"
    );
}

#[test]
fn lower_priority_preemption_within_the_cluster_queue() {
    let (k, a) = run_docs(vec![
        flavor("default"),
        cq(
            "team-a",
            "",
            "4",
            json!({"preemption": {"withinClusterQueue": "LowerPriority"}}),
        ),
        lq("q", "team-a"),
        admitted("low", "q", "team-a", 4, 10),
        wl("high", "q", 4, 100, "2026-08-02T00:00:00Z"),
        wl("same", "q", 4, 10, "2026-08-03T00:00:00Z"),
    ]);
    assert_eq!(
        outcome_of(&k, &a, "high").outcome,
        AdmissionOutcome::Preempting
    );
    let low = outcome_of(&k, &a, "low");
    assert!(low.evicted);
    assert_eq!(low.outcome, AdmissionOutcome::QuotaPending);
    assert_eq!(
        outcome_of(&k, &a, "same").outcome,
        AdmissionOutcome::QuotaPending,
        "equal priority may not preempt under LowerPriority"
    );
}

#[test]
fn strict_fifo_blocks_behind_its_head_best_effort_fifo_lets_the_next_one_in() {
    let docs = |strategy: &str| {
        vec![
            flavor("default"),
            cq("team-a", "", "4", json!({"queueingStrategy": strategy})),
            lq("q", "team-a"),
            wl("huge", "q", 6, 0, "2026-08-01T00:00:00Z"),
            wl("small", "q", 2, 0, "2026-08-02T00:00:00Z"),
        ]
    };
    let (k, a) = run_docs(docs("StrictFIFO"));
    assert_eq!(
        outcome_of(&k, &a, "small").outcome,
        AdmissionOutcome::QuotaPending
    );
    let (k, a) = run_docs(docs("BestEffortFIFO"));
    assert_eq!(
        outcome_of(&k, &a, "small").outcome,
        AdmissionOutcome::Admitted
    );
    assert_eq!(
        outcome_of(&k, &a, "huge").outcome,
        AdmissionOutcome::QuotaPending
    );
}

#[test]
fn higher_priority_goes_first_within_a_queue() {
    let (k, a) = run_docs(vec![
        flavor("default"),
        cq("team-a", "", "4", json!({})),
        lq("q", "team-a"),
        wl("old", "q", 4, 0, "2026-08-01T00:00:00Z"),
        wl("urgent", "q", 4, 1000, "2026-08-05T00:00:00Z"),
    ]);
    assert_eq!(
        outcome_of(&k, &a, "urgent").outcome,
        AdmissionOutcome::Admitted
    );
    assert_eq!(
        outcome_of(&k, &a, "old").outcome,
        AdmissionOutcome::QuotaPending
    );
}

#[test]
fn queues_that_admit_nothing_are_named() {
    let (k, a) = run_docs(vec![
        flavor("default"),
        cq("held", "", "4", json!({"stopPolicy": "Hold"})),
        cq("ghost-flavor", "", "4", json!({})),
        lq("q-held", "held"),
        lq("q-missing-cq", "nope"),
        wl("a", "q-held", 1, 0, "2026-08-01T00:00:00Z"),
        wl("b", "no-such-queue", 1, 0, "2026-08-01T00:00:00Z"),
        wl("c", "q-missing-cq", 1, 0, "2026-08-01T00:00:00Z"),
        json!({"apiVersion": V, "kind": "Workload", "metadata": {"name": "d", "namespace": "ml"},
               "spec": {"queueName": "q-held", "active": false, "podSets": []}}),
    ]);
    assert_eq!(
        outcome_of(&k, &a, "a").outcome,
        AdmissionOutcome::QueueStopped
    );
    let b = outcome_of(&k, &a, "b");
    assert_eq!(
        (b.outcome, b.message.as_str()),
        (
            AdmissionOutcome::NoQueue,
            "LocalQueue no-such-queue doesn't exist"
        )
    );
    assert_eq!(
        outcome_of(&k, &a, "c").message,
        "ClusterQueue nope doesn't exist"
    );
    assert_eq!(outcome_of(&k, &a, "d").outcome, AdmissionOutcome::Inactive);
}

#[test]
fn a_cluster_queue_without_a_namespace_selector_accepts_no_namespace() {
    let mut q = cq("team-a", "", "4", json!({}));
    if let Some(spec) = q["spec"].as_object_mut() {
        spec.remove("namespaceSelector");
    }
    let (k, a) = run_docs(vec![
        flavor("default"),
        q,
        lq("q", "team-a"),
        wl("job", "q", 1, 0, "2026-08-01T00:00:00Z"),
    ]);
    assert_eq!(outcome_of(&k, &a, "job").outcome, AdmissionOutcome::NoQueue);
}

#[test]
fn admission_checks_hold_an_admitted_workload_until_they_pass() {
    let (k, a) = run_docs(vec![
        flavor("default"),
        json!({"apiVersion": V, "kind": "AdmissionCheck", "metadata": {"name": "prov"},
               "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request"}}),
        cq(
            "team-a",
            "",
            "8",
            json!({"admissionChecksStrategy": {"admissionChecks": [{"name": "prov"}]}}),
        ),
        lq("q", "team-a"),
        wl("job", "q", 4, 0, "2026-08-01T00:00:00Z"),
    ]);
    assert_eq!(
        outcome_of(&k, &a, "job").outcome,
        AdmissionOutcome::WaitingForAdmissionCheck
    );
}

#[test]
fn stored_admissions_hold_their_quota() {
    let (k, a) = run_docs(vec![
        flavor("default"),
        cq("team-a", "", "8", json!({})),
        lq("q", "team-a"),
        admitted("running", "q", "team-a", 6, 0),
        wl("next", "q", 4, 0, "2026-08-02T00:00:00Z"),
    ]);
    let running = outcome_of(&k, &a, "running");
    assert!(running.held_before);
    assert_eq!(running.outcome, AdmissionOutcome::Admitted);
    assert_eq!(outcome_of(&k, &a, "next").shortfall["nvidia.com/gpu"], "2");
}

fn run_docs_with(docs: Vec<Value>, options: Options) -> (KueueObjects, Admission) {
    let mut k = KueueObjects::default();
    for d in docs {
        k.push(parse(d).unwrap_or_else(|e| panic!("{e}")));
    }
    let a = run_with(&k, &[], &[], options).unwrap_or_else(|e| panic!("{e:?}"));
    (k, a)
}

fn config(v: Value) -> KueueConfiguration {
    let mut doc = json!({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"});
    if let (Some(m), Some(e)) = (doc.as_object_mut(), v.as_object()) {
        m.extend(e.clone());
    }
    crate::snapshot::kueue_config::from_value(doc).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_transformation_charges_the_quota_its_outputs_name() {
    // Kueue's configuration turns each GPU into 4 `example.com/credits` (Replace): a queue
    // covering only credits admits a GPU workload by its credits (workload.go
    // applyResourceTransformations, as Kueue's site tasks/manage/administer_cluster_quotas.md
    // describes resource transformations).
    let credits_cq = json!({"apiVersion": V, "kind": "ClusterQueue", "metadata": {"name": "cq"},
        "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["example.com/credits"],
            "flavors": [{"name": "default", "resources": [{"name": "example.com/credits", "nominalQuota": "16"}]}]}]}});
    let docs = || {
        vec![
            flavor("default"),
            credits_cq.clone(),
            lq("q", "cq"),
            wl("fits", "q", 4, 0, "2026-08-01T00:00:00Z"),
            wl("too-big", "q", 2, 0, "2026-08-01T00:00:01Z"),
        ]
    };
    let c = config(json!({"resources": {"transformations": [
        {"input": "nvidia.com/gpu", "strategy": "Replace", "outputs": {"example.com/credits": "4"}}]}}));
    let (k, a) = run_docs_with(docs(), Options::from_config(&c));
    assert_eq!(
        outcome_of(&k, &a, "fits").outcome,
        AdmissionOutcome::Admitted
    );
    let big = outcome_of(&k, &a, "too-big");
    assert_eq!(big.outcome, AdmissionOutcome::QuotaPending, "{big:?}");
    // Without the configuration the GPUs are charged as they are: not covered by the queue.
    let (k, a) = run_docs(docs());
    assert_ne!(
        outcome_of(&k, &a, "fits").outcome,
        AdmissionOutcome::Admitted
    );
}

#[test]
fn an_excluded_resource_is_not_charged() {
    let docs = vec![
        flavor("default"),
        cq("cq", "", "4", json!({})),
        lq("q", "cq"),
        json!({"apiVersion": V, "kind": "Workload",
            "metadata": {"name": "nic", "namespace": "ml", "creationTimestamp": "2026-08-01T00:00:00Z"},
            "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 2,
                "template": {"spec": {"containers": [{"name": "c",
                    "resources": {"requests": {"nvidia.com/gpu": "1", "networking.example.com/vpc1": "1"}}}]}}}]}}),
    ];
    let (k, a) = run_docs_with(docs.clone(), Options::default());
    assert_ne!(
        outcome_of(&k, &a, "nic").outcome,
        AdmissionOutcome::Admitted,
        "vpc1 is not covered"
    );
    let c = config(json!({"resources": {"excludeResourcePrefixes": ["networking.example.com/"]}}));
    let (k, a) = run_docs_with(docs, Options::from_config(&c));
    assert_eq!(
        outcome_of(&k, &a, "nic").outcome,
        AdmissionOutcome::Admitted
    );
}

#[test]
fn fair_sharing_marks_the_cohort_queues_and_wait_for_pods_ready_is_reported() {
    let docs = || {
        vec![
            flavor("default"),
            cq("a", "research", "4", json!({})),
            cq("b", "research", "4", json!({})),
            cq("alone", "", "4", json!({})),
        ]
    };
    let c = config(
        json!({"fairSharing": {"preemptionStrategies": ["LessThanInitialShare"]},
        "waitForPodsReady": {"timeout": "10m", "requeuingStrategy": {"backoffLimitCount": 3}}}),
    );
    let (_, a) = run_docs_with(docs(), Options::from_config(&c));
    assert_eq!(a.fair_sharing_not_simulated, ["a", "b"]);
    let p = a
        .wait_for_pods_ready
        .clone()
        .unwrap_or_else(|| panic!("on"));
    assert_eq!(
        p.eviction_words(),
        "Kueue would evict and requeue it after 10m0s (waitForPodsReady), and deactivate it after 3 requeues"
    );
    // Kueue's defaults (v1beta2): no fair sharing, waitForPodsReady on with 30m0s.
    let (_, a) = run_docs_with(
        docs(),
        Options::from_config(&KueueConfiguration::default_config()),
    );
    assert!(a.fair_sharing_not_simulated.is_empty());
    assert_eq!(
        a.wait_for_pods_ready.map(|p| p.timeout.to_string()),
        Some("30m0s".to_owned())
    );
    let off = config(json!({"featureGates": {"DisableWaitForPodsReady": true}}));
    let (_, a) = run_docs_with(docs(), Options::from_config(&off));
    assert_eq!(a.wait_for_pods_ready, None);
}

#[test]
fn a_namespace_not_read_leaves_a_selective_queue_unknown_not_unmatched() {
    let docs = vec![
        flavor("default"),
        cq(
            "cq",
            "",
            "4",
            json!({"namespaceSelector": {"matchLabels": {"team": "ml"}}}),
        ),
        cq("open", "", "4", json!({})),
        lq("q", "cq"),
        json!({"apiVersion": V, "kind": "LocalQueue", "metadata": {"name": "o", "namespace": "ml"},
               "spec": {"clusterQueue": "open"}}),
        wl("w", "q", 1, 0, "2026-08-01T00:00:00Z"),
        wl("x", "o", 1, 0, "2026-08-01T00:00:00Z"),
    ];
    let (k, a) = run_docs_with(
        docs.clone(),
        Options {
            unread: vec!["Namespace"],
            ..Options::default()
        },
    );
    let w = outcome_of(&k, &a, "w");
    assert!(w.message.contains("is unknown"), "{w:?}");
    assert!(!w.message.contains("doesn't match"), "{w:?}");
    assert_eq!(
        outcome_of(&k, &a, "x").outcome,
        AdmissionOutcome::Admitted,
        "`{{}}` selects every namespace"
    );
    // Namespaces read (none named ml): the selector does not match.
    let (k, a) = run_docs_with(docs, Options::default());
    assert!(outcome_of(&k, &a, "w").message.contains("doesn't match"));
}
