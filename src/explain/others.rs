//! `explain` on a gang of another scheduler: a Volcano PodGroup or a YuniKorn task group.
//!
//! wasctl does not simulate Volcano's or YuniKorn's scheduler, and the report says so first.
//! Then it gives what that scheduler recorded (Volcano's phase and conditions, YuniKorn's
//! placeholders) and checks that hold for any scheduler, all run by kube-scheduler's own
//! filters in the simulator (no filter is written here): how many of `minMember` pods the
//! cluster could hold at all (every pod removed from the nodes), how many would fit now (the
//! bound pods staying, other pending pods left out), each
//! resource against the nodes' allocatable, per node shape, and (Volcano) whether the Queue
//! exists and is open. The member pods are tried as copies naming `default-scheduler`, with
//! copies of a member added up to `minMember`; the fits are labelled as kube-scheduler's.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::sched::plan::Outcome;
use crate::sched::{Options, simulate};
use crate::snapshot::{ObjKind, ObjRef, Pod, Snapshot, name_of, yunikorn};

/// The report of `explain` on a Volcano PodGroup or a YuniKorn task group
/// (`kind: GangDiagnosis`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct GangDiagnosis {
    /// The gang, `Kind/namespace/name`.
    pub target: String,
    /// `volcano` or `yunikorn`.
    pub scheduler: String,
    /// The first thing said: wasctl does not simulate that scheduler.
    pub not_simulated: String,
    /// What the scheduler recorded.
    pub recorded: Recorded,
    /// The gang's `minMember`.
    pub min_member: i32,
    /// The member pods found (placeholders not counted), and how many are bound.
    pub members: Counted,
    /// Checks that hold for any scheduler, most decisive first.
    pub checks: Vec<Check>,
    /// Each resource a member asks for, against the nodes' allocatable.
    pub resources: Vec<ResourceNeed>,
    /// The nodes grouped by allocatable (of the resources the members ask for), with how
    /// many members each node could hold empty.
    pub node_shapes: Vec<NodeShape>,
    /// How many members kube-scheduler's filters would place: on the nodes emptied of every
    /// pod, and now; absent without a member pod to copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kube_scheduler_fit: Option<KubeSchedulerFit>,
    /// Volcano's `minResources`, each resource against the nodes' allocatable.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub min_resources: Vec<MinResource>,
    /// Volcano's `minTaskMember`, per task: the pods that exist and how many fit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskCount>,
    /// The member pod `explain` was asked about (`Pod/namespace/name`), when it explains the
    /// pod's gang instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirected_from: Option<String>,
}

/// One resource of Volcano's `minResources`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MinResource {
    /// Resource name.
    pub resource: String,
    /// What `minResources` asks, as written.
    pub asked: String,
    /// The nodes' allocatable, summed.
    pub allocatable: String,
    /// Whether the nodes together hold it.
    pub fits: bool,
}

/// One task of Volcano's `minTaskMember`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TaskCount {
    /// The task name (pod annotation `volcano.sh/task-spec`).
    pub task: String,
    /// `minTaskMember` of the task.
    pub min_task_member: i32,
    /// The task's pods that exist (and how many are bound).
    pub pods: Counted,
    /// How many of `minTaskMember` kube-scheduler's filters would place (the task alone);
    /// absent without a pod of the task to copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kube_scheduler_fit: Option<TaskFit>,
}

/// How many pods of one task fit.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TaskFit {
    /// On the nodes with every pod removed.
    pub on_empty_nodes: u32,
    /// Now.
    pub now: u32,
}

/// Events about the gang and its pods, of one reason and message, newest first.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RecordedEvent {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The reason (`FailedScheduling`, `Unschedulable`, …).
    pub reason: String,
    /// The message.
    pub message: String,
    /// `PodGroup` or `Pod`.
    pub kind: String,
    /// The objects it was recorded on (names).
    pub objects: Vec<String>,
    /// How many times, all objects together.
    pub count: i32,
    /// When last seen (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<String>,
    /// Who recorded it (`volcano`, `default-scheduler`, …).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reporter: String,
}

/// What Volcano or YuniKorn recorded.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    /// Volcano's `status.phase`; YuniKorn: `Running`, `Reserving` or `Pending` from its pods.
    pub phase: String,
    /// Volcano's conditions: `Type=Status(Reason): message`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<String>,
    /// Volcano's `status.running`/`succeeded`/`failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<i32>,
    /// Volcano's `status.succeeded`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub succeeded: Option<i32>,
    /// Volcano's `status.failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<i32>,
    /// The Volcano Queue (`spec.queue`, `default` when empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// YuniKorn's placeholders and how many are bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placeholders: Option<Counted>,
    /// Volcano's Events on the PodGroup and its pods, newest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<RecordedEvent>,
    /// Why no Event is shown when Events were not read (`not in the input`, `unreadable
    /// (forbidden)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_unknown: Option<String>,
}

/// A count and how many of it are bound to nodes.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Counted {
    /// How many.
    pub total: usize,
    /// How many are bound to a node.
    pub bound: usize,
}

/// One check.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// Stable name: `Capacity`, `FitNow`, `Queue`, `QueueConfig`, `Members`.
    pub id: String,
    /// `ok`, `problem` or `unknown`.
    pub result: String,
    /// For humans, values in backticks.
    pub message: String,
}

/// One resource a member asks for.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceNeed {
    /// Resource name.
    pub resource: String,
    /// One member's request, as a quantity (of the largest part: for a Volcano gang with
    /// tasks, of the task with the largest `minTaskMember`).
    pub per_pod: String,
    /// The sum that makes `needed`: `6 x 4`, or per task `4 x 1 + 32 x 8`.
    pub requested: String,
    /// `minMember` members' requests together (per task, `minTaskMember` of each).
    pub needed: String,
    /// The nodes' allocatable, summed.
    pub allocatable: String,
}

/// Nodes of one allocatable shape.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NodeShape {
    /// `resource=quantity` of the requested resources, comma-separated.
    pub shape: String,
    /// How many nodes have it.
    pub nodes: usize,
    /// How many members one such node holds when empty, by resources alone.
    pub pods_per_node: i64,
}

/// How many members kube-scheduler's filters would place.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct KubeSchedulerFit {
    /// The label every reader needs: these are kube-scheduler's filters, not the gang's
    /// scheduler.
    pub label: String,
    /// Members placed on the nodes with every pod removed (of `minMember`).
    pub on_empty_nodes: u32,
    /// Members placed now (bound members count as placed).
    pub now: u32,
    /// Why the others found no node (kube-scheduler's messages), now.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

const FIT_LABEL: &str = "if kube-scheduler's filters applied (wasctl's simulation of kube-scheduler 1.37, not of the gang's scheduler)";

/// What the report needs of a gang, whichever scheduler's.
struct Gang<'a> {
    scheduler: &'static str,
    min_member: i32,
    members: Vec<&'a Pod>,
    recorded: Recorded,
    checks: Vec<Check>,
    min_resources: Vec<MinResource>,
    tasks: Vec<TaskCount>,
    /// The gang's parts that differ (Volcano's tasks): one pod of each, how many the gang
    /// needs of it, and how many exist. Empty: one part, any member.
    shape: Vec<Part<'a>>,
}

/// One part of a gang: pods like `template`, `wanted` of them, `existing` already there.
#[derive(Clone, Copy)]
struct Part<'a> {
    template: &'a Pod,
    wanted: usize,
    existing: usize,
}

impl Part<'_> {
    /// How many copies of the template the checks add.
    fn copies(&self) -> usize {
        self.wanted.saturating_sub(self.existing)
    }
}

/// Explains the Volcano PodGroup or YuniKorn task group `target`.
pub fn explain_other_gang(s: &Snapshot, target: &ObjRef) -> Result<GangDiagnosis, String> {
    let gang = match target.kind {
        ObjKind::VolcanoPodGroup => volcano_gang(s, target)?,
        ObjKind::YunikornTaskGroup => yunikorn_gang(s, target)?,
        _ => return Err(format!("{target} is not a Volcano or YuniKorn gang")),
    };
    let who = if gang.scheduler == "volcano" {
        "Volcano"
    } else {
        "YuniKorn"
    };
    let bound = gang.members.iter().filter(|p| is_bound(p)).count();
    let mut checks = gang.checks;
    let min = usize::try_from(gang.min_member).unwrap_or(0);
    if gang.members.len() < min {
        checks.push(Check {
            id: "Members".into(),
            result: "problem".into(),
            message: format!(
                "{} member pod(s) exist of `minMember` {min}: {who} waits for the rest (the checks below add copies of a member, of each task, up to {min})",
                gang.members.len()
            ),
        });
    }
    let shape = whole_shape(&gang.members, gang.shape, min);
    let (resources, node_shapes) = resource_needs(s, &shape);
    let kube_scheduler_fit = (!shape.is_empty()).then(|| fit(s, &gang.members, &shape, min));
    if let Some(f) = &kube_scheduler_fit {
        checks.insert(0, capacity_check(f, min, who));
    }
    Ok(GangDiagnosis {
        target: format!("{}/{}/{}", target.kind, target.namespace, target.name),
        scheduler: gang.scheduler.to_owned(),
        not_simulated: format!(
            "wasctl does not simulate {who}'s scheduler: below is what {who} recorded, and checks that hold for any scheduler"
        ),
        recorded: gang.recorded,
        min_member: gang.min_member,
        members: Counted {
            total: gang.members.len(),
            bound,
        },
        checks,
        resources,
        node_shapes,
        kube_scheduler_fit,
        min_resources: gang.min_resources,
        tasks: gang.tasks,
        redirected_from: None,
    })
}

/// A pod of `pods` to copy: a pending one if any (a bound one's node says nothing).
fn template_of<'a>(pods: &[&'a Pod]) -> Option<&'a Pod> {
    pods.iter()
        .find(|p| !is_bound(p))
        .or_else(|| pods.first())
        .copied()
}

/// The gang's parts up to `min`: its own parts (Volcano's tasks), then any member for the
/// rest of `min`. Empty without a member to copy.
fn whole_shape<'a>(members: &[&'a Pod], mut parts: Vec<Part<'a>>, min: usize) -> Vec<Part<'a>> {
    let wanted: usize = parts.iter().map(|p| p.wanted).sum();
    let existing: usize = parts.iter().map(|p| p.existing).sum();
    if wanted < min
        && let Some(template) = template_of(members)
    {
        parts.push(Part {
            template,
            wanted: min - wanted,
            existing: members.len().saturating_sub(existing),
        });
    }
    parts
}

/// The Volcano or YuniKorn gang the pod `target` is a member of, if it is one (a Volcano
/// PodGroup that was read, or a YuniKorn task group) and names that scheduler, so that
/// `explain pod/NAME` explains the gang, as it does for a native gang's member. A member
/// that names another scheduler is that scheduler's pod (doctor's WASD305): explained as
/// kube-scheduler would place it.
pub fn gang_of_pod(s: &Snapshot, target: &ObjRef) -> Option<ObjRef> {
    if target.kind != ObjKind::Pod {
        return None;
    }
    let pod = s.pods.iter().find(|p| {
        crate::snapshot::namespace_of(&p.metadata) == target.namespace
            && name_of(&p.metadata) == target.name
    })?;
    let scheduler = pod
        .spec
        .as_ref()
        .and_then(|sp| sp.scheduler_name.as_deref());
    if scheduler == Some(crate::snapshot::volcano::SCHEDULER_NAME)
        && let Some(group) = crate::snapshot::volcano::group_name_of(&pod.metadata)
        && s.volcano.pod_group(&target.namespace, group).is_some()
    {
        return Some(ObjRef::new(
            ObjKind::VolcanoPodGroup,
            &target.namespace,
            group,
        ));
    }
    if scheduler != Some(yunikorn::SCHEDULER_NAME) {
        return None;
    }
    let app = yunikorn::app_id(&pod.metadata)?;
    let group = yunikorn::task_group_of(&pod.metadata)?;
    let name = format!("{app}:{group}");
    s.yunikorn_gang(&target.namespace, &name)?;
    Some(ObjRef::new(
        ObjKind::YunikornTaskGroup,
        &target.namespace,
        &name,
    ))
}

fn is_bound(p: &Pod) -> bool {
    p.spec.as_ref().is_some_and(|s| s.node_name.is_some())
}

fn capacity_check(f: &KubeSchedulerFit, min: usize, who: &str) -> Check {
    let min32 = u32::try_from(min).unwrap_or(u32::MAX);
    if f.on_empty_nodes < min32 {
        Check {
            id: "Capacity".into(),
            result: "problem".into(),
            message: format!(
                "even with every pod removed, the nodes hold {} of {min} members {FIT_LABEL}: no scheduler can start this gang here; {who} keeps it pending",
                f.on_empty_nodes
            ),
        }
    } else if f.now < min32 {
        Check {
            id: "FitNow".into(),
            result: "problem".into(),
            message: format!(
                "the nodes could hold all {min} members, but {} fit now {FIT_LABEL}: the gang waits for room",
                f.now
            ),
        }
    } else {
        Check {
            id: "FitNow".into(),
            result: "ok".into(),
            message: format!("all {min} members fit now {FIT_LABEL}"),
        }
    }
}

fn volcano_gang<'a>(s: &'a Snapshot, target: &ObjRef) -> Result<Gang<'a>, String> {
    let pg = s
        .volcano
        .pod_group(&target.namespace, &target.name)
        .ok_or_else(|| format!("Volcano PodGroup `{}` not found", target.name))?;
    let members: Vec<&Pod> = s
        .pods
        .iter()
        .filter(|p| {
            crate::snapshot::namespace_of(&p.metadata) == target.namespace
                && crate::snapshot::volcano::group_name_of(&p.metadata) == Some(&target.name)
        })
        .map(|p| &**p)
        .collect();
    let mut checks = vec![queue_check(s, pg.queue_name())];
    let min_resources = min_resources(s, pg);
    for r in min_resources.iter().filter(|r| !r.fits) {
        checks.push(Check {
            id: "MinResources".into(),
            result: "problem".into(),
            message: format!(
                "`minResources` asks {} {}; the cluster has {} allocatable: the gang's declared minimum exceeds every node together, so it never starts here",
                r.asked, r.resource, r.allocatable
            ),
        });
    }
    if !min_resources.is_empty() && min_resources.iter().all(|r| r.fits) {
        checks.push(Check {
            id: "MinResources".into(),
            result: "ok".into(),
            message: "the nodes' allocatable together hold `minResources`".to_owned(),
        });
    }
    let (tasks, shape) = task_counts(s, pg, &members);
    checks.extend(tasks.iter().map(task_check));
    Ok(Gang {
        scheduler: "volcano",
        min_member: pg.spec.min_member,
        members,
        recorded: volcano_recorded(s, pg),
        checks,
        min_resources,
        tasks,
        shape,
    })
}

/// What Volcano recorded on the PodGroup: phase, conditions, counts, queue and Events.
fn volcano_recorded(s: &Snapshot, pg: &crate::snapshot::volcano::PodGroup) -> Recorded {
    let st = &pg.status;
    let events = recorded_events(&crate::snapshot::events::of_volcano_group(
        s,
        pg.namespace(),
        pg.name(),
    ));
    let coverage = s.coverage("Event");
    let events_unknown = (events.is_empty() && !coverage.covers(Some(pg.namespace()))).then(|| {
        format!(
            "{}: what Volcano recorded in Events is unknown",
            coverage.describe()
        )
    });
    Recorded {
        phase: pg.phase().to_owned(),
        conditions: st
            .conditions
            .iter()
            .map(|c| {
                let reason = if c.reason.is_empty() {
                    String::new()
                } else {
                    format!("({})", c.reason)
                };
                let message = if c.message.is_empty() {
                    String::new()
                } else {
                    format!(": {}", c.message)
                };
                format!("{}={}{reason}{message}", c.type_, c.status)
            })
            .collect(),
        running: Some(st.running),
        succeeded: Some(st.succeeded),
        failed: Some(st.failed),
        queue: Some(pg.queue_name().to_owned()),
        placeholders: None,
        events,
        events_unknown,
    }
}

/// Events grouped by (kind, type, reason, message), newest group first.
fn recorded_events(events: &[&k8s_openapi::api::core::v1::Event]) -> Vec<RecordedEvent> {
    use crate::snapshot::events::{count, last_seen, reporter};
    let mut out: Vec<RecordedEvent> = Vec::new();
    // `events` come newest first: the first of a group is its newest.
    for e in events {
        let kind = e.involved_object.kind.clone().unwrap_or_default();
        let type_ = e.type_.clone().unwrap_or_default();
        let reason = e.reason.clone().unwrap_or_default();
        let message = e.message.clone().unwrap_or_default();
        let object = e.involved_object.name.clone().unwrap_or_default();
        if let Some(g) = out.iter_mut().find(|g| {
            g.kind == kind && g.type_ == type_ && g.reason == reason && g.message == message
        }) {
            g.count = g.count.saturating_add(count(e));
            if !g.objects.contains(&object) {
                g.objects.push(object);
            }
            continue;
        }
        out.push(RecordedEvent {
            type_,
            reason,
            message,
            kind,
            objects: vec![object],
            count: count(e),
            last_seen: last_seen(e).map(|t| t.to_string()),
            reporter: reporter(e).to_owned(),
        });
    }
    out
}

fn queue_check(s: &Snapshot, q: &str) -> Check {
    match s.volcano.queue(q) {
        Some(queue) if queue.status.state.is_empty() || queue.status.state == "Open" => Check {
            id: "Queue".into(),
            result: "ok".into(),
            message: format!("Volcano Queue `{q}` exists and is open"),
        },
        Some(queue) => Check {
            id: "Queue".into(),
            result: "problem".into(),
            message: format!(
                "Volcano Queue `{q}` is `{}`: Volcano enqueues no new PodGroup in it",
                queue.status.state
            ),
        },
        None if s.knows_all(ObjKind::VolcanoQueue.as_str(), None) => Check {
            id: "Queue".into(),
            result: "problem".into(),
            message: format!(
                "Volcano Queue `{q}` does not exist: Volcano never schedules this PodGroup"
            ),
        },
        None => Check {
            id: "Queue".into(),
            result: "unknown".into(),
            message: format!(
                "Volcano Queue `{q}` was not read ({}): whether it exists is unknown",
                s.coverage(ObjKind::VolcanoQueue.as_str()).describe()
            ),
        },
    }
}

/// The nodes' allocatable of `resource`, summed (in the simulator's units).
fn total_allocatable(s: &Snapshot, resource: &str) -> i64 {
    use crate::sched::resources::ResourceTable;
    s.nodes
        .iter()
        .filter_map(|n| n.status.as_ref()?.allocatable.as_ref()?.get(resource))
        .filter_map(|q| ResourceTable::parse(resource, &q.0))
        .fold(0i64, i64::saturating_add)
}

/// The node resource a `minResources` key stands for. Volcano's Job controller fills
/// `minResources` with the ResourceQuota usage of the pods (`quota/v1/evaluator/core`'s
/// `PodUsageFunc`): `requests.X` is the request of `X` (the only key of an extended
/// resource such as `requests.nvidia.com/gpu`), `cpu`/`memory` are requests too, `pods`
/// counts pods; `limits.X` and object counts (`count/pods`) are not node capacity: `None`.
fn node_resource(key: &str) -> Option<&str> {
    if key.starts_with("limits.") || key.starts_with("count/") {
        return None;
    }
    Some(key.strip_prefix("requests.").unwrap_or(key))
}

/// `minResources`, each node resource against the nodes' allocatable (a resource written
/// twice, `cpu` and `requests.cpu`, once with the larger value). A quantity that does not
/// parse is left out (the API server would have refused it).
fn min_resources(s: &Snapshot, pg: &crate::snapshot::volcano::PodGroup) -> Vec<MinResource> {
    use crate::sched::resources::ResourceTable;
    let mut asked: BTreeMap<&str, i64> = BTreeMap::new();
    for (key, q) in pg.spec.min_resources.iter().flatten() {
        let Some(r) = node_resource(key) else {
            continue;
        };
        let Some(v) = ResourceTable::parse(r, &q.0) else {
            continue;
        };
        let e = asked.entry(r).or_insert(v);
        *e = (*e).max(v);
    }
    asked
        .into_iter()
        .map(|(r, v)| {
            let total = total_allocatable(s, r);
            MinResource {
                resource: r.to_owned(),
                asked: show(r, v),
                allocatable: show(r, total),
                fits: v <= total,
            }
        })
        .collect()
}

/// `minTaskMember`, per task: the task's pods (annotation `volcano.sh/task-spec`) and how
/// many kube-scheduler's filters would place (the task alone, copies of one of its pods
/// added up to the task's minimum).
fn task_counts<'a>(
    s: &Snapshot,
    pg: &crate::snapshot::volcano::PodGroup,
    members: &[&'a Pod],
) -> (Vec<TaskCount>, Vec<Part<'a>>) {
    let mut shape = Vec::new();
    let counts = pg
        .spec
        .min_task_member
        .iter()
        .map(|(task, min)| {
            let pods: Vec<&Pod> = members
                .iter()
                .filter(|p| crate::snapshot::volcano::task_of(&p.metadata) == Some(task))
                .copied()
                .collect();
            let want = usize::try_from(*min).unwrap_or(0);
            let part = template_of(&pods).map(|template| Part {
                template,
                wanted: want,
                existing: pods.len(),
            });
            shape.extend(part);
            let kube_scheduler_fit = part.map(|part| {
                let f = fit(s, &pods, &[part], want);
                TaskFit {
                    on_empty_nodes: f.on_empty_nodes,
                    now: f.now,
                }
            });
            TaskCount {
                task: task.clone(),
                min_task_member: *min,
                pods: Counted {
                    total: pods.len(),
                    bound: pods.iter().filter(|p| is_bound(p)).count(),
                },
                kube_scheduler_fit,
            }
        })
        .collect();
    (counts, shape)
}

/// The check of one task's `minTaskMember`.
fn task_check(t: &TaskCount) -> Check {
    let min = t.min_task_member;
    let want = u32::try_from(min).unwrap_or(0);
    let key = crate::snapshot::volcano::TASK_SPEC_ANNOTATION;
    let (result, message) = if t.pods.total < usize::try_from(min).unwrap_or(0) {
        (
            "problem",
            format!(
                "task `{}`: `minTaskMember` {min}, but {} pod(s) with `{key}: {}` exist: Volcano waits for the rest",
                t.task, t.pods.total, t.task
            ),
        )
    } else if let Some(f) = t.kube_scheduler_fit.filter(|f| f.on_empty_nodes < want) {
        (
            "problem",
            format!(
                "task `{}`: `minTaskMember` {min}, but even with every pod removed the nodes hold {} {FIT_LABEL}",
                t.task, f.on_empty_nodes
            ),
        )
    } else if let Some(f) = t.kube_scheduler_fit.filter(|f| f.now < want) {
        (
            "problem",
            format!(
                "task `{}`: `minTaskMember` {min}, {} pod(s) exist, {} fit now {FIT_LABEL}",
                t.task, t.pods.total, f.now
            ),
        )
    } else {
        (
            "ok",
            format!(
                "task `{}`: `minTaskMember` {min}, {} pod(s) exist and fit (by kube-scheduler's filters)",
                t.task, t.pods.total
            ),
        )
    };
    Check {
        id: "MinTaskMember".into(),
        result: result.into(),
        message,
    }
}

fn yunikorn_gang<'a>(s: &'a Snapshot, target: &ObjRef) -> Result<Gang<'a>, String> {
    let g = s
        .yunikorn_gang(&target.namespace, &target.name)
        .ok_or_else(|| format!("YuniKorn task group `{}` not found", target.name))?;
    let pods = |idx: &[usize]| -> Vec<&'a Pod> { idx.iter().map(|i| &*s.pods[*i]).collect() };
    let members = pods(&g.members);
    let placeholders = pods(&g.placeholders);
    let bound = |list: &[&Pod]| list.iter().filter(|p| is_bound(p)).count();
    let min = usize::try_from(g.task_group.min_member).unwrap_or(0);
    let phase = if bound(&members) >= min && !members.is_empty() {
        "Running"
    } else if bound(&placeholders) > 0 {
        "Reserving"
    } else {
        "Pending"
    };
    let mut checks = vec![yunikorn_queue_check(s, &members, &placeholders)];
    if !g.declared {
        checks.push(Check {
            id: "TaskGroups".into(),
            result: "problem".into(),
            message: format!(
                "no pod of application `{}` declares task group `{}` in `{}`: YuniKorn schedules its pods without a gang",
                g.app_id,
                g.task_group.name,
                yunikorn::TASK_GROUPS
            ),
        });
    }
    Ok(Gang {
        scheduler: "yunikorn",
        min_member: g.task_group.min_member,
        members,
        recorded: Recorded {
            phase: phase.to_owned(),
            placeholders: Some(Counted {
                total: placeholders.len(),
                bound: bound(&placeholders),
            }),
            ..Recorded::default()
        },
        checks,
        min_resources: Vec::new(),
        tasks: Vec::new(),
        shape: Vec::new(),
    })
}

/// The queue a YuniKorn application's pods name: label `queue`, else annotation
/// `yunikorn.apache.org/queue`; a name without `root.` is under `root` (as YuniKorn reads it).
fn yunikorn_queue_of(pods: &[&Pod]) -> Option<String> {
    use crate::snapshot::yunikorn_queues::{QUEUE_ANNOTATION, QUEUE_LABEL};
    let q = pods.iter().find_map(|p| {
        let m = &p.metadata;
        m.labels
            .as_ref()
            .and_then(|l| l.get(QUEUE_LABEL))
            .or_else(|| m.annotations.as_ref().and_then(|a| a.get(QUEUE_ANNOTATION)))
            .filter(|q| !q.is_empty())
    })?;
    Some(
        if q.to_ascii_lowercase().starts_with("root.") || q.eq_ignore_ascii_case("root") {
            q.clone()
        } else {
            format!("root.{q}")
        },
    )
}

/// Whether the application's queue exists in YuniKorn's queue configuration (partition
/// `default`), with its `max`; unknown when the ConfigMap was not read, or the pods name no
/// queue (YuniKorn's placement rules then decide; they are not evaluated).
fn yunikorn_queue_check(s: &Snapshot, members: &[&Pod], placeholders: &[&Pod]) -> Check {
    use crate::snapshot::yunikorn_queues::{NAME, NAMESPACE, YunikornQueues, words};
    let all: Vec<&Pod> = members.iter().chain(placeholders).copied().collect();
    let check = |result: &str, message: String| Check {
        id: "QueueConfig".into(),
        result: result.into(),
        message,
    };
    let Some(queue) = yunikorn_queue_of(&all) else {
        return check(
            "unknown",
            "the application's pods name no queue (label `queue`, annotation `yunikorn.apache.org/queue`): YuniKorn's placement rules pick one, which wasctl does not evaluate".to_owned(),
        );
    };
    match &s.yunikorn_queues {
        YunikornQueues::NotRead => check(
            "unknown",
            format!(
                "YuniKorn's queues are in ConfigMap {NAMESPACE}/{NAME}, which is not in the input: whether queue `{queue}` exists is unknown"
            ),
        ),
        YunikornQueues::Unreadable(why) => check(
            "unknown",
            format!(
                "YuniKorn's queues are in ConfigMap {NAMESPACE}/{NAME}, which could not be read: {why}; whether queue `{queue}` exists is unknown"
            ),
        ),
        YunikornQueues::Read { source, config } => match config.queue("default", &queue) {
            Some(q) => {
                let max = q
                    .resources
                    .as_ref()
                    .filter(|r| !r.max.is_empty())
                    .map_or_else(|| "no max".to_owned(), |r| format!("max {}", words(&r.max)));
                check(
                    "ok",
                    format!(
                        "YuniKorn queue `{queue}` exists in partition `default` of ConfigMap {source} ({max})"
                    ),
                )
            }
            None => check(
                "problem",
                format!(
                    "YuniKorn queue `{queue}` is not in partition `default` of ConfigMap {source}: YuniKorn rejects the application unless a placement rule creates the queue"
                ),
            ),
        },
    }
}

/// The requests of one pod, `(resource, amount)`, the zero ones left out.
fn requests_of(template: &Pod) -> Vec<(String, i64)> {
    use crate::sched::resources::ResourceTable;
    let Some(spec) = template.spec.as_ref() else {
        return Vec::new();
    };
    let mut table = ResourceTable::default();
    crate::sched::pod_req::pod_requests(spec, &mut table)
        .iter()
        .filter(|(_, v)| *v > 0)
        .map(|(id, v)| (table.name(*id).to_owned(), *v))
        .collect()
}

/// Each resource the gang's parts request (their sum) against the nodes, and the node
/// shapes with how many pods of the largest part one node holds.
fn resource_needs(s: &Snapshot, shape: &[Part<'_>]) -> (Vec<ResourceNeed>, Vec<NodeShape>) {
    use crate::sched::resources::ResourceTable;
    let Some(largest) = shape.iter().max_by_key(|p| p.wanted) else {
        return (Vec::new(), Vec::new());
    };
    let parts: Vec<(Vec<(String, i64)>, usize)> = shape
        .iter()
        .map(|p| (requests_of(p.template), p.wanted))
        .collect();
    let mut names: Vec<String> = Vec::new();
    for (r, _) in parts.iter().flat_map(|(req, _)| req) {
        if !names.contains(r) {
            names.push(r.clone());
        }
    }
    let allocatable = |n: &k8s_openapi::api::core::v1::Node, r: &str| -> i64 {
        n.status
            .as_ref()
            .and_then(|st| st.allocatable.as_ref())
            .and_then(|a| a.get(r))
            .and_then(|q| ResourceTable::parse(r, &q.0))
            .unwrap_or(0)
    };
    let per =
        |req: &[(String, i64)], r: &str| req.iter().find(|(n, _)| n == r).map_or(0, |(_, v)| *v);
    let wanted = requests_of(largest.template);
    let needs = names
        .iter()
        .map(|r| {
            let total: i64 = s.nodes.iter().map(|n| allocatable(n, r)).sum();
            let needed = parts.iter().fold(0i64, |acc, (req, n)| {
                acc.saturating_add(per(req, r).saturating_mul(i64::try_from(*n).unwrap_or(0)))
            });
            ResourceNeed {
                resource: r.clone(),
                per_pod: show(r, per(&wanted, r)),
                requested: parts
                    .iter()
                    .map(|(req, n)| format!("{} x {n}", show(r, per(req, r))))
                    .collect::<Vec<_>>()
                    .join(" + "),
                needed: show(r, needed),
                allocatable: show(r, total),
            }
        })
        .collect();
    let mut shapes: BTreeMap<String, (usize, i64)> = BTreeMap::new();
    for n in &s.nodes {
        let alloc: Vec<i64> = names.iter().map(|r| allocatable(n, r)).collect();
        let shape = names
            .iter()
            .zip(&alloc)
            .map(|(r, a)| format!("{r}={}", show(r, *a)))
            .collect::<Vec<_>>()
            .join(",");
        let per_node = wanted
            .iter()
            .map(|(r, per)| {
                let i = names.iter().position(|n| n == r).unwrap_or(0);
                alloc.get(i).copied().unwrap_or(0) / per
            })
            .min()
            .unwrap_or(0);
        let e = shapes.entry(shape).or_insert((0, per_node));
        e.0 += 1;
    }
    let shapes = shapes
        .into_iter()
        .map(|(shape, (nodes, pods_per_node))| NodeShape {
            shape,
            nodes,
            pods_per_node,
        })
        .collect();
    (needs, shapes)
}

/// A quantity as the simulator holds it (milli-units for cpu, units otherwise) in words.
fn show(resource: &str, v: i64) -> String {
    if resource == "cpu" {
        if v % 1000 == 0 {
            (v / 1000).to_string()
        } else {
            format!("{v}m")
        }
    } else if resource == "memory" || resource.starts_with("hugepages-") {
        const GI: i64 = 1 << 30;
        const MI: i64 = 1 << 20;
        if v % GI == 0 {
            format!("{}Gi", v / GI)
        } else if v % MI == 0 {
            format!("{}Mi", v / MI)
        } else {
            v.to_string()
        }
    } else {
        v.to_string()
    }
}

/// The members kube-scheduler's filters would place, now and on emptied nodes: the gang's
/// pending members (and copies of each part's template up to what the part wants) tried as
/// `default-scheduler` pods in the simulator; at most `min` count.
fn fit(s: &Snapshot, members: &[&Pod], shape: &[Part<'_>], min: usize) -> KubeSchedulerFit {
    let (now, reasons) = trial(s, members, shape, min, false);
    let (on_empty_nodes, _) = trial(s, members, shape, min, true);
    KubeSchedulerFit {
        label: FIT_LABEL.to_owned(),
        on_empty_nodes,
        now,
        reasons,
    }
}

fn trial(
    s: &Snapshot,
    members: &[&Pod],
    shape: &[Part<'_>],
    min: usize,
    empty: bool,
) -> (u32, Vec<String>) {
    let mut copy = s.clone();
    let member_names: Vec<(String, String)> = members
        .iter()
        .map(|p| {
            (
                crate::snapshot::namespace_of(&p.metadata).to_owned(),
                name_of(&p.metadata).to_owned(),
            )
        })
        .collect();
    let is_member = |p: &Pod| {
        member_names.iter().any(|(ns, n)| {
            crate::snapshot::namespace_of(&p.metadata) == ns && name_of(&p.metadata) == n
        })
    };
    let mut placed_before: u32 = 0;
    let mut tried: Vec<String> = Vec::new();
    // Other pending pods do not compete: only bound pods (none on emptied nodes) and the
    // gang's members are kept.
    copy.pods.retain(|p| {
        if is_member(p) && is_bound(p) {
            placed_before += 1;
            return !empty;
        }
        is_member(p) || (!empty && is_bound(p))
    });
    for p in &mut copy.pods {
        if is_member(p) && !is_bound(p) {
            let pod = Arc::make_mut(p);
            as_default_scheduler(pod);
            tried.push(name_of(&pod.metadata).to_owned());
        }
    }
    for part in shape {
        let template = part.template;
        for i in 0..part.copies() {
            let mut pod = template.clone();
            pod.metadata.name = Some(format!("{}-wasctl-copy-{i}", name_of(&template.metadata)));
            pod.metadata.uid = None;
            if let Some(spec) = pod.spec.as_mut() {
                spec.node_name = None;
            }
            as_default_scheduler(&mut pod);
            tried.push(name_of(&pod.metadata).to_owned());
            copy.pods.push(Arc::new(pod));
        }
    }
    if empty {
        placed_before = 0;
        // Bound members were removed: tried again as pending copies.
        for p in members.iter().filter(|p| is_bound(p)) {
            let mut pod = (*p).clone();
            if let Some(spec) = pod.spec.as_mut() {
                spec.node_name = None;
            }
            as_default_scheduler(&mut pod);
            tried.push(name_of(&pod.metadata).to_owned());
            copy.pods.push(Arc::new(pod));
        }
    }
    let copy = copy.build();
    let options = Options {
        no_preemption: true,
        ..Options::default()
    };
    let plan = simulate(&copy, &options);
    let mut placed = placed_before;
    let mut reasons: Vec<String> = Vec::new();
    for u in plan
        .units
        .iter()
        .filter(|u| u.kind == ObjKind::Pod && tried.contains(&u.name))
    {
        if u.outcome == Outcome::Scheduled {
            placed += 1;
        } else if !reasons.contains(&u.message) {
            reasons.push(u.message.clone());
        }
    }
    let cap = u32::try_from(min).unwrap_or(u32::MAX);
    (placed.min(cap), reasons)
}

fn as_default_scheduler(pod: &mut Pod) {
    if let Some(spec) = pod.spec.as_mut() {
        spec.scheduler_name = Some(crate::sched::profile::DEFAULT_SCHEDULER_NAME.to_owned());
        spec.node_name = None;
    }
    if let Some(status) = pod.status.as_mut() {
        status.phase = Some("Pending".to_owned());
    }
}
