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
    /// One member's request, as a quantity.
    pub per_pod: String,
    /// `minMember` times that.
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
                "{} member pod(s) exist of `minMember` {min}: {who} waits for the rest (the checks below copy a member up to {min})",
                gang.members.len()
            ),
        });
    }
    let template = gang
        .members
        .iter()
        .find(|p| !is_bound(p))
        .or_else(|| gang.members.first())
        .copied();
    let (resources, node_shapes) = template.map_or((Vec::new(), Vec::new()), |t| {
        resource_needs(s, t, gang.min_member)
    });
    let kube_scheduler_fit = template.map(|t| fit(s, &gang.members, t, min));
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
    })
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
    let st = &pg.status;
    let recorded = Recorded {
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
    };
    let q = pg.queue_name();
    let queue = match s.volcano.queue(q) {
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
    };
    Ok(Gang {
        scheduler: "volcano",
        min_member: pg.spec.min_member,
        members,
        recorded,
        checks: vec![queue],
    })
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
    let mut checks = vec![Check {
        id: "QueueConfig".into(),
        result: "unknown".into(),
        message: "YuniKorn's queues live in its ConfigMap `yunikorn/yunikorn-configs`, which wasctl does not read: the application's queue is not checked".to_owned(),
    }];
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
    })
}

/// Each requested resource against the nodes, and the node shapes.
fn resource_needs(s: &Snapshot, template: &Pod, min: i32) -> (Vec<ResourceNeed>, Vec<NodeShape>) {
    use crate::sched::resources::ResourceTable;
    let Some(spec) = template.spec.as_ref() else {
        return (Vec::new(), Vec::new());
    };
    let mut table = ResourceTable::default();
    let requests = crate::sched::pod_req::pod_requests(spec, &mut table);
    let wanted: Vec<(String, i64)> = requests
        .iter()
        .filter(|(_, v)| *v > 0)
        .map(|(id, v)| (table.name(*id).to_owned(), *v))
        .collect();
    let allocatable = |n: &k8s_openapi::api::core::v1::Node, r: &str| -> i64 {
        n.status
            .as_ref()
            .and_then(|st| st.allocatable.as_ref())
            .and_then(|a| a.get(r))
            .and_then(|q| ResourceTable::parse(r, &q.0))
            .unwrap_or(0)
    };
    let needs = wanted
        .iter()
        .map(|(r, per)| {
            let total: i64 = s.nodes.iter().map(|n| allocatable(n, r)).sum();
            ResourceNeed {
                resource: r.clone(),
                per_pod: show(r, *per),
                needed: show(r, per.saturating_mul(i64::from(min))),
                allocatable: show(r, total),
            }
        })
        .collect();
    let mut shapes: BTreeMap<String, (usize, i64)> = BTreeMap::new();
    for n in &s.nodes {
        let alloc: Vec<i64> = wanted.iter().map(|(r, _)| allocatable(n, r)).collect();
        let shape = wanted
            .iter()
            .zip(&alloc)
            .map(|((r, _), a)| format!("{r}={}", show(r, *a)))
            .collect::<Vec<_>>()
            .join(",");
        let per_node = wanted
            .iter()
            .zip(&alloc)
            .map(|((_, per), a)| a / per)
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
/// pending members (and copies of `template` up to `min`) tried as `default-scheduler` pods
/// in the simulator.
fn fit(s: &Snapshot, members: &[&Pod], template: &Pod, min: usize) -> KubeSchedulerFit {
    let (now, reasons) = trial(s, members, template, min, false);
    let (on_empty_nodes, _) = trial(s, members, template, min, true);
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
    template: &Pod,
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
    let have = members.len();
    for i in 0..min.saturating_sub(have) {
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
