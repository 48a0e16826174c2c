//! A dry run on a cluster that runs Kueue, as one plan: stage one is Kueue's admission
//! ([`super::stages`]), stage two kube-scheduler's simulation of the cluster Kueue leaves
//! (admitted Jobs started, preempted ones stopped). The plan gains one unit per Kueue Workload
//! that was pending admission (or is preempted in the run), with stage one's answer in
//! `admission` and, once its pods exist, a `placement` pointer to the stage-two unit that holds
//! them: placements are not repeated, and summaries count each job once.
//!
//! Pure: the commands call [`simulate`] where they called `sched::simulate`.

use std::collections::{BTreeMap, HashMap};

use super::admission::WorkloadResult;
use super::launch::Launched;
use super::quota::QuotaError;
use super::stages::{self, Staged};
use crate::sched::plan::{
    AdmissionOutcome, AdmittedPodSet, KueueAdmission, KueueStage, KueueUnit, NamespacedName,
    Outcome, Plan, Summary, UnitResult, UnitTrace,
};
use crate::sched::{self, Options};
use crate::snapshot::{ObjKind, Snapshot};

/// The plan of `s` under `options`: with Kueue's objects in `s`, stage one first and stage two
/// on the cluster it leaves, joined ([`join`]); without them, today's simulation. Also returns
/// stage one's result (`None` without Kueue), whose `snapshot` is the one stage two ran on.
pub(crate) fn simulate(
    s: &Snapshot,
    options: &Options,
) -> Result<(Plan, Option<Staged>), QuotaError> {
    let Some(staged) = stages::stage(s, &options.gate_overrides)? else {
        return Ok((sched::simulate(s, options), None));
    };
    let mut plan = sched::simulate(staged.cluster(s), options);
    join(&mut plan, &staged, s);
    // `--only`: that unit alone, as without Kueue; stage one's units are other units.
    if let Some(only) = &options.only {
        plan.units.retain(|u| u.obj_ref() == *only);
        plan.summary = Summary::of(&plan.units);
        plan.refresh_notes();
    }
    Ok((plan, Some(staged)))
}

/// Adds stage one's units to stage two's `plan`: one per Kueue Workload of `s` that was pending
/// admission or is preempted in the run (an admitted workload whose pods already exist is not
/// pending and gets none), first, in the order Kueue's results list them.
pub(crate) fn join(plan: &mut Plan, staged: &Staged, s: &Snapshot) {
    let launched: BTreeMap<usize, &Launched> =
        staged.launched.iter().map(|l| (l.workload, l)).collect();
    let not_started: BTreeMap<usize, &str> = staged
        .not_launched
        .iter()
        .map(|n| (n.workload, n.reason.as_str()))
        .collect();
    let evicts = evicts_words(staged);
    let index = Holders::of(plan);
    let mut units = Vec::new();
    for r in &staged.admission.workloads {
        let start = launched.get(&r.index).copied();
        let running = r.held_before && r.outcome == AdmissionOutcome::Admitted && start.is_none();
        if running && !not_started.contains_key(&r.index) {
            continue;
        }
        let namespace = s.kueue.workloads[r.index].namespace();
        let held = start
            .map(|l| index.of_job(plan, namespace, l))
            .unwrap_or_default();
        units.push(unit(
            s,
            r,
            &held,
            not_started.get(&r.index).copied(),
            &evicts,
        ));
    }
    plan.kueue = Some(KueueStage {
        cycles: staged.admission.cycles,
        unsettled: staged.admission.unsettled,
        not_started: staged
            .not_launched
            .iter()
            .map(|n| n.reason.clone())
            .collect(),
        fair_sharing_not_simulated: staged.admission.fair_sharing_not_simulated.clone(),
    });
    // Kueue's notes join the list of every note this simulation may meet (`settings.notes`)
    // only when Kueue's stage ran: topology requests always may; fair sharing when enabled.
    plan.settings
        .notes
        .push(crate::notes::Note::KueueTopology.used().sentence());
    if !staged.admission.fair_sharing_not_simulated.is_empty() {
        let fair = crate::notes::NoteUse {
            note: crate::notes::Note::KueueFairSharing,
            detail: Some(staged.admission.fair_sharing_not_simulated.join(", ")),
        };
        plan.settings.notes.push(fair.sentence());
        plan.settings.setting_notes.push(fair);
    }
    units.append(&mut plan.units);
    plan.units = units;
    plan.summary = Summary::of(&plan.units);
    plan.refresh_notes();
}

/// Kueue TAS: a pod set with a `topologyRequest`, or (as a Job's template carries them) the
/// `kueue.x-k8s.io/podset-{required,preferred,unconstrained}-topology` annotations.
fn requests_topology(w: &crate::snapshot::kueue::Workload) -> bool {
    use crate::admit::kueue::{PREFERRED_TOPOLOGY, REQUIRED_TOPOLOGY, UNCONSTRAINED_TOPOLOGY};
    w.spec.pod_sets.iter().any(|p| {
        p.topology_request.is_some()
            || p.template
                .metadata
                .as_ref()
                .and_then(|m| m.annotations.as_ref())
                .is_some_and(|a| {
                    [
                        REQUIRED_TOPOLOGY,
                        PREFERRED_TOPOLOGY,
                        UNCONSTRAINED_TOPOLOGY,
                    ]
                    .iter()
                    .any(|k| a.contains_key(*k))
                })
    })
}

/// The unit of one Kueue Workload.
fn unit(
    s: &Snapshot,
    r: &WorkloadResult,
    held: &[&UnitResult],
    not_started: Option<&str>,
    evicts: &str,
) -> UnitResult {
    let w = &s.kueue.workloads[r.index];
    let namespace = w.namespace().to_owned();
    let placement = held.first().map(|u| u.obj_ref());
    let pending: i32 = w.spec.pod_sets.iter().map(|p| p.count.max(0)).sum();
    let (outcome, message) = match r.outcome {
        AdmissionOutcome::Admitted => match (held.is_empty(), not_started) {
            (false, _) => admitted(r, held, evicts),
            (true, Some(why)) => (
                Outcome::NotSimulated,
                format!("admitted to ClusterQueue {}; {why}", r.cluster_queue),
            ),
            (true, None) => (
                Outcome::Waiting,
                format!(
                    "admitted to ClusterQueue {}; its pods are not created yet",
                    r.cluster_queue
                ),
            ),
        },
        AdmissionOutcome::Preempting => (Outcome::Preempting, r.message.clone()),
        _ => (Outcome::Waiting, waiting_message(r)),
    };
    UnitResult {
        kind: ObjKind::KueueWorkload,
        namespace,
        name: w.name().to_owned(),
        outcome,
        message,
        placements: Vec::new(),
        victims: Vec::new(),
        blast_radius: None,
        min_count: None,
        known: None,
        scheduled_before: 0,
        pending: u32::try_from(pending).unwrap_or(u32::MAX),
        priority: r.priority,
        profile: String::new(),
        trace: UnitTrace::default(),
        kueue: Some(Box::new(KueueUnit {
            api_version: w.api_version.clone(),
            admission: KueueAdmission {
                outcome: r.outcome,
                cluster_queue: r.cluster_queue.clone(),
                pod_sets: r
                    .pod_sets
                    .iter()
                    .map(|p| AdmittedPodSet {
                        name: p.name.clone(),
                        count: p.count,
                        flavors: p.flavors.clone(),
                    })
                    .collect(),
                preempts: r
                    .preempts
                    .iter()
                    .map(|(namespace, name)| NamespacedName {
                        namespace: namespace.clone(),
                        name: name.clone(),
                    })
                    .collect(),
                evicted: r.evicted,
                shortfall: r.shortfall.clone(),
            },
            placement,
            topology: requests_topology(w),
        })),
    }
}

/// Where each pod and PodGroup of stage two is held: unit indexes by (namespace, name), built
/// once per plan, so finding a started Job's units costs its pods, not the whole plan (10,000
/// admitted workloads against 150,000 units).
#[derive(Default)]
struct Holders<'p> {
    groups: HashMap<(&'p str, &'p str), usize>,
    pods: HashMap<(&'p str, &'p str), usize>,
}

impl<'p> Holders<'p> {
    fn of(plan: &'p Plan) -> Self {
        let mut h = Self::default();
        for (i, u) in plan.units.iter().enumerate() {
            let ns = u.namespace.as_str();
            match u.kind {
                ObjKind::PodGroup => {
                    h.groups.entry((ns, u.name.as_str())).or_insert(i);
                }
                ObjKind::Pod => {
                    h.pods.entry((ns, u.name.as_str())).or_insert(i);
                }
                _ => {}
            }
            // A tree's unit holds the pods of the groups below its root.
            let members = u
                .placements
                .iter()
                .map(|p| p.pod.as_str())
                .chain(u.trace.pods.iter().map(|t| &*t.pod));
            for pod in members {
                h.pods.entry((ns, pod)).or_insert(i);
            }
        }
        h
    }

    /// The stage-two units that hold the pods a started Job creates: its PodGroup's unit (or
    /// the unit of the tree it belongs to), else its pods' own units, in plan order.
    fn of_job(&self, plan: &'p Plan, namespace: &str, l: &Launched) -> Vec<&'p UnitResult> {
        let mut found: Vec<usize> = l
            .objects
            .pod_group
            .as_ref()
            .and_then(|g| g.metadata.name.as_deref())
            .and_then(|g| self.groups.get(&(namespace, g)).copied())
            .into_iter()
            .chain(
                l.objects
                    .pods
                    .iter()
                    .filter_map(|p| p.metadata.name.as_deref())
                    .filter_map(|p| self.pods.get(&(namespace, p)).copied()),
            )
            .collect();
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|i| &plan.units[i]).collect()
    }
}

/// What Kueue does with an admitted workload whose pods never all start.
pub(crate) fn evicts_words(staged: &Staged) -> String {
    match &staged.admission.wait_for_pods_ready {
        Some(p) => p.eviction_words(),
        None => "Kueue holds its quota while it waits (waitForPodsReady is off)".to_owned(),
    }
}

/// An admitted workload whose pods exist: the placement stage's outcome, in words that say
/// which stage blocks when the nodes cannot back the quota.
fn admitted(r: &WorkloadResult, held: &[&UnitResult], evicts: &str) -> (Outcome, String) {
    let outcome = Outcome::combine(held.iter().map(|u| u.outcome)).unwrap_or(Outcome::Waiting);
    let first = held[0];
    let at = format!("{}/{}", first.kind, first.name);
    (
        outcome,
        admitted_words(r, outcome, &at, &first.message, evicts),
    )
}

/// The words of an admitted workload whose pods (first held by unit `at`, with its
/// `message`) end in `outcome` in stage two.
pub(crate) fn admitted_words(
    r: &WorkloadResult,
    outcome: Outcome,
    at: &str,
    message: &str,
    evicts: &str,
) -> String {
    let flavors = flavors_text(r);
    match outcome {
        Outcome::Scheduled => format!(
            "admitted to ClusterQueue {}{flavors}; {at} is placed",
            r.cluster_queue
        ),
        // Kueue keeps the quota of a workload whose pods never start, unless waitForPodsReady
        // evicts it (workload_controller.go, the PodsReady timeout).
        Outcome::Unschedulable | Outcome::Error => format!(
            "admitted but unschedulable: ClusterQueue {} has quota{flavors}, but the nodes cannot place {at}; {evicts}: {message}",
            r.cluster_queue
        ),
        _ => format!(
            "admitted to ClusterQueue {}{flavors}; {at}: {message}",
            r.cluster_queue
        ),
    }
}

/// ` (flavor h100 for nvidia.com/gpu, …)`: the flavors assigned, resource by resource.
fn flavors_text(r: &WorkloadResult) -> String {
    let mut by_flavor: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for p in &r.pod_sets {
        for (resource, flavor) in &p.flavors {
            let list = by_flavor.entry(flavor.as_str()).or_default();
            if !list.contains(&resource.as_str()) {
                list.push(resource.as_str());
            }
        }
    }
    if by_flavor.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = by_flavor
        .iter()
        .map(|(f, rs)| format!("flavor {f} for {}", rs.join(", ")))
        .collect();
    format!(" ({})", parts.join("; "))
}

/// Why a workload is not admitted: Kueue's words, with the shortfall when quota is short.
fn waiting_message(r: &WorkloadResult) -> String {
    let mut message = match r.outcome {
        AdmissionOutcome::QuotaPending if r.message.is_empty() => format!(
            "pending admission in ClusterQueue {}: not enough quota",
            r.cluster_queue
        ),
        AdmissionOutcome::WaitingForAdmissionCheck if r.message.is_empty() => format!(
            "quota reserved in ClusterQueue {}; waiting for its admission checks",
            r.cluster_queue
        ),
        _ => r.message.clone(),
    };
    if r.evicted {
        message = format!("preempted by Kueue in this run; {message}");
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::source::files::test_snapshot as snapshot;

    /// One 8-GPU node behind a ClusterQueue with 16 GPUs of quota: two 8-GPU Jobs are both
    /// admitted by quota; kube-scheduler places one, and the other is admitted but
    /// unschedulable. A third Job does not fit the quota.
    const CLUSTER: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: gpu-1, labels: {pool: h100}}
status: {allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ml}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
spec: {nodeLabels: {pool: h100}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 16}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ml}
spec: {clusterQueue: team}
"#;

    fn job(name: &str, created: &str) -> String {
        format!(
            r#"---
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: ml, uid: uid-{name}, labels: {{kueue.x-k8s.io/queue-name: q}}, creationTimestamp: "{created}"}}
spec:
  suspend: true
  parallelism: 1
  completions: 1
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{nvidia.com/gpu: "8"}}}}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: job-{name}
  namespace: ml
  creationTimestamp: "{created}"
  ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: {name}, uid: uid-{name}, controller: true}}]
spec:
  queueName: q
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{{name: c, image: x, resources: {{requests: {{nvidia.com/gpu: "8"}}}}}}]
"#
        )
    }

    fn run() -> Plan {
        let s = snapshot(
            &[
                CLUSTER,
                &job("a", "2026-01-01T00:00:00Z"),
                &job("b", "2026-01-01T00:01:00Z"),
                &job("c", "2026-01-01T00:02:00Z"),
            ]
            .concat(),
        );
        simulate(&s, &Options::default())
            .unwrap_or_else(|e| panic!("{e:?}"))
            .0
    }

    fn kueue_unit<'a>(plan: &'a Plan, name: &str) -> &'a UnitResult {
        plan.units
            .iter()
            .find(|u| u.kind == ObjKind::KueueWorkload && u.name == name)
            .unwrap_or_else(|| panic!("no unit {name}: {:#?}", plan.units))
    }

    #[test]
    fn quota_admits_two_the_node_places_one_and_the_third_waits_for_quota() {
        let plan = run();
        let a = kueue_unit(&plan, "job-a");
        let k = a.kueue.as_deref().expect("kueue");
        assert_eq!(k.admission.outcome, AdmissionOutcome::Admitted);
        assert_eq!(k.admission.cluster_queue, "team");
        assert_eq!(
            k.admission.pod_sets[0]
                .flavors
                .get("nvidia.com/gpu")
                .map(String::as_str),
            Some("h100")
        );
        assert_eq!(a.outcome, Outcome::Scheduled, "{}", a.message);
        let held = k.placement.as_ref().expect("placement");
        let unit = plan
            .units
            .iter()
            .find(|u| u.is(held))
            .expect("the unit it points at");
        assert_eq!(unit.placements.len(), 1);
        assert_eq!(unit.placements[0].node, "gpu-1");
        // Its pods get the flavor's node labels: the placement is on the flavor's node.
        let b = kueue_unit(&plan, "job-b");
        assert_eq!(
            b.kueue.as_deref().map(|k| k.admission.outcome),
            Some(AdmissionOutcome::Admitted)
        );
        assert_eq!(b.outcome, Outcome::Unschedulable);
        assert!(
            b.message
                .starts_with("admitted but unschedulable: ClusterQueue team has quota"),
            "{}",
            b.message
        );
        let c = kueue_unit(&plan, "job-c");
        let kc = c.kueue.as_deref().expect("kueue");
        assert_eq!(kc.admission.outcome, AdmissionOutcome::QuotaPending);
        assert_eq!(c.outcome, Outcome::Waiting);
        assert!(kc.placement.is_none());
        assert_eq!(plan.kueue.as_ref().map(|k| k.cycles > 0), Some(true));
    }

    #[test]
    fn each_job_is_counted_once() {
        let plan = run();
        // a: Scheduled (its pod unit), b: Unschedulable (its pod unit), c: Waiting (Kueue).
        assert_eq!(plan.summary.scheduled, 1);
        assert_eq!(plan.summary.unschedulable, 1);
        assert_eq!(plan.summary.waiting, 1);
    }

    #[test]
    fn the_json_unit_says_workload_with_kueues_api_version() {
        let plan = run();
        let json = serde_json::to_value(kueue_unit(&plan, "job-c")).expect("json");
        assert_eq!(json["kind"], "Workload");
        assert_eq!(json["apiVersion"], "kueue.x-k8s.io/v1beta2");
        assert_eq!(json["admission"]["outcome"], "QuotaPending");
        assert_eq!(json["admission"]["clusterQueue"], "team");
        assert_eq!(json["outcome"], "Waiting");
        assert!(json.get("placement").is_none());
        let a = serde_json::to_value(kueue_unit(&plan, "job-a")).expect("json");
        assert_eq!(a["placement"]["kind"], "Pod");
        assert_eq!(a["placement"]["namespace"], "ml");
    }

    /// Issue 49, Kueue TAS: a pod set's `topologyRequest` (kueue `apis/kueue/v1beta2`
    /// `PodSetTopologyRequest`) is not simulated, and the note names the workload.
    #[test]
    fn a_workload_requesting_a_kueue_topology_is_named_in_the_kueue_topology_note() {
        let with_topology = job("a", "2026-01-01T00:00:00Z").replace(
            "  - name: main\n    count: 1\n",
            "  - name: main\n    count: 1\n    topologyRequest: {required: cloud.provider.com/rack}\n",
        );
        assert!(with_topology.contains("topologyRequest"));
        let s = snapshot(&[CLUSTER, &with_topology, &job("b", "2026-01-01T00:01:00Z")].concat());
        let plan = simulate(&s, &Options::default())
            .unwrap_or_else(|e| panic!("{e:?}"))
            .0;
        let notes: Vec<_> = plan
            .settings
            .relevant_notes
            .iter()
            .filter(|u| u.note == crate::notes::Note::KueueTopology)
            .collect();
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].detail.as_deref(), Some("ml/job-a"));
        assert!(
            notes[0]
                .sentence()
                .starts_with("Kueue's topology assignment is not simulated for ml/job-a:")
        );
    }

    /// With fair sharing on, the ClusterQueues in a cohort are named: in the JSON's
    /// `kueue.fairSharingNotSimulated` and in the `kueue-fair-sharing` note.
    #[test]
    fn fair_sharing_queues_are_named_in_the_plan_and_its_note() {
        let cluster = CLUSTER.replace(
            "metadata: {name: team}\nspec:\n",
            "metadata: {name: team}\nspec:\n  cohortName: research\n",
        );
        assert!(cluster.contains("cohortName"));
        let config = "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare]}\n";
        let s = snapshot(&[&cluster, config, &job("a", "2026-01-01T00:00:00Z")].concat());
        let plan = simulate(&s, &Options::default())
            .unwrap_or_else(|e| panic!("{e:?}"))
            .0;
        let json = serde_json::to_value(plan.kueue.as_ref()).expect("json");
        assert_eq!(json["fairSharingNotSimulated"], serde_json::json!(["team"]));
        let note = plan
            .settings
            .relevant_notes
            .iter()
            .find(|u| u.note == crate::notes::Note::KueueFairSharing)
            .unwrap_or_else(|| panic!("no fair-sharing note"));
        assert!(
            note.sentence()
                .contains("not simulated for ClusterQueues team:")
        );
    }

    #[test]
    fn without_kueue_objects_the_plan_is_todays() {
        let s = snapshot(
            "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus: {allocatable: {cpu: '1', pods: '10'}}\n",
        );
        let (plan, staged) = simulate(&s, &Options::default()).expect("plan");
        assert!(staged.is_none());
        assert!(plan.kueue.is_none());
        assert_eq!(plan, sched::simulate(&s, &Options::default()));
    }
}
