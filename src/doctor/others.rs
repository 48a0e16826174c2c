//! Gangs of other schedulers (issue 52): Volcano PodGroups stuck `Pending` or `Inqueue`
//! longer than `--stuck-after` (with the reason Volcano recorded), pods of a Volcano gang that
//! name another scheduler (Volcano never places them), and YuniKorn placeholders left behind
//! (their application finished, or every real member of their task group runs).

use k8s_openapi::jiff::{SignedDuration, Timestamp};

use super::{Check, Checker, list, obj, pod_active, pod_running};
use crate::snapshot::{ObjKind, ObjRef, name_of, volcano};

/// Runs the checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    stuck_volcano_groups(c);
    volcano_tasks_short(c);
    volcano_pods_elsewhere(c);
    placeholders_left(c);
}

/// Since when a PodGroup is in its phase: the latest condition's transition, else its
/// creation.
fn since(pg: &volcano::PodGroup) -> Option<Timestamp> {
    pg.status
        .conditions
        .iter()
        .filter_map(|c| c.last_transition_time.as_ref().map(|t| t.0))
        .max()
        .or_else(|| pg.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// A duration kubectl-style (`10m`, `2h30m`).
fn human(now: Timestamp, d: SignedDuration) -> String {
    now.checked_sub(d).map_or_else(
        |_| format!("{}s", d.as_secs()),
        |then| {
            crate::snapshot::times::age(
                &k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(then),
                now,
            )
        },
    )
}

fn stuck_volcano_groups(c: &mut Checker<'_>) {
    let s = c.s;
    let now = c.options.now;
    let threshold = c.options.stuck_after;
    for pg in &s.volcano.pod_groups {
        let phase = pg.phase();
        if !matches!(phase, "Pending" | "Inqueue") {
            continue;
        }
        let Some(since) = since(pg) else {
            continue;
        };
        let waited = now.duration_since(since);
        if waited <= threshold {
            continue;
        }
        let reason = pg
            .condition("Unschedulable")
            .filter(|c| c.status == "True")
            .map(|c| {
                let mut r = format!("`{}`", c.reason);
                if !c.message.is_empty() {
                    r.push_str(&format!(" ({})", c.message));
                }
                format!("; Volcano recorded {r}")
            })
            .unwrap_or_else(|| "; Volcano recorded no reason".to_owned());
        let reason = match newest_event(c, pg) {
            Some(e) => format!("{reason}; newest event: {e}"),
            None => reason,
        };
        c.emit(
            Check::VolcanoGroupStuck,
            obj(ObjKind::VolcanoPodGroup, &pg.metadata),
            format!(
                "`{phase}` for {} (longer than {}), minMember {}, queue `{}`{reason}",
                human(now, waited),
                human(now, threshold),
                pg.spec.min_member,
                pg.queue_name()
            ),
            format!(
                "run `kubectl wasctl explain vcpg/{}` for capacity, node and queue checks that hold for any scheduler",
                pg.name()
            ),
        );
    }
}

/// The newest Event about the PodGroup or its pods, quoted: `FailedScheduling` on Pod
/// `x` (x12, 3m ago, by volcano): message.
fn newest_event(c: &Checker<'_>, pg: &volcano::PodGroup) -> Option<String> {
    use crate::snapshot::events;
    let all = events::of_volcano_group(c.s, pg.namespace(), pg.name());
    let e = all.first()?;
    let o = &e.involved_object;
    let mut when = format!("x{}", events::count(e));
    if let Some(t) = events::last_seen(e) {
        let ago = c.options.now.duration_since(t);
        if !ago.is_negative() {
            when.push_str(&format!(", {} ago", human(c.options.now, ago)));
        }
    }
    let by = events::reporter(e);
    if !by.is_empty() {
        when.push_str(&format!(", by {by}"));
    }
    Some(format!(
        "`{}` on {} `{}` ({when}): {}",
        e.reason.as_deref().unwrap_or_default(),
        o.kind.as_deref().unwrap_or_default(),
        o.name.as_deref().unwrap_or_default(),
        e.message.as_deref().unwrap_or_default()
    ))
}

/// Volcano gangs (not finished) with fewer pods of a task than `minTaskMember`.
fn volcano_tasks_short(c: &mut Checker<'_>) {
    let s = c.s;
    for pg in &s.volcano.pod_groups {
        if matches!(pg.phase(), "Completed" | "Running") {
            continue;
        }
        for (task, min) in &pg.spec.min_task_member {
            let have = s
                .pods
                .iter()
                .filter(|p| pod_active(p))
                .filter(|p| {
                    crate::snapshot::namespace_of(&p.metadata) == pg.namespace()
                        && volcano::group_name_of(&p.metadata) == Some(pg.name())
                        && volcano::task_of(&p.metadata) == Some(task.as_str())
                })
                .count();
            if have >= usize::try_from(*min).unwrap_or(0) {
                continue;
            }
            c.emit(
                Check::VolcanoTaskMembersMissing,
                obj(ObjKind::VolcanoPodGroup, &pg.metadata),
                format!(
                    "task `{task}` has {have} pod(s) of `minTaskMember` {min} (pods annotated `{}: {task}`): Volcano waits for the rest",
                    volcano::TASK_SPEC_ANNOTATION
                ),
                format!(
                    "create the missing pods (a Volcano Job's task `{task}` needs `replicas` of at least {min}), or lower `minTaskMember`; `kubectl wasctl explain vcpg/{}` checks whether they would fit",
                    pg.name()
                ),
            );
        }
    }
}

fn volcano_pods_elsewhere(c: &mut Checker<'_>) {
    let s = c.s;
    for pod in s.pods.iter().filter(|p| pod_active(p)) {
        let Some(group) = volcano::group_name_of(&pod.metadata) else {
            continue;
        };
        let spec = pod.spec.as_ref();
        if spec.is_some_and(|sp| sp.node_name.is_some()) {
            continue;
        }
        let scheduler = spec
            .and_then(|sp| sp.scheduler_name.as_deref())
            .unwrap_or(crate::sched::profile::DEFAULT_SCHEDULER_NAME);
        if scheduler == volcano::SCHEDULER_NAME {
            continue;
        }
        c.emit(
            Check::VolcanoPodOtherScheduler,
            obj(ObjKind::Pod, &pod.metadata),
            format!(
                "the pod belongs to Volcano PodGroup `{group}` but names `schedulerName: {scheduler}`: Volcano never places it, so the gang counts it as missing"
            ),
            "set `spec.schedulerName: volcano` in the pod's template (Volcano Jobs set it from `spec.schedulerName`)",
        );
    }
}

fn placeholders_left(c: &mut Checker<'_>) {
    let s = c.s;
    for g in &s.yunikorn {
        let left: Vec<String> = g
            .placeholders
            .iter()
            .map(|i| &*s.pods[*i])
            .filter(|p| pod_active(p))
            .map(|p| name_of(&p.metadata).to_owned())
            .collect();
        if left.is_empty() {
            continue;
        }
        let members: Vec<&crate::snapshot::Pod> = g.members.iter().map(|i| &*s.pods[*i]).collect();
        let finished = !members.is_empty() && members.iter().all(|p| !pod_active(p));
        let running = members.iter().filter(|p| pod_running(p)).count();
        let min = usize::try_from(g.task_group.min_member).unwrap_or(0);
        let why = if finished {
            "every real pod of the task group has finished".to_owned()
        } else if running >= min.max(1) && running >= members.len() {
            format!("all {running} real pod(s) of the task group run")
        } else {
            continue;
        };
        c.emit(
            Check::YunikornPlaceholderLeft,
            ObjRef::new(ObjKind::YunikornTaskGroup, &g.namespace, &g.name()),
            format!(
                "{} placeholder pod(s) ({}) of application `{}` are left although {why}: they hold their nodes' resources",
                left.len(),
                list(&left, 3),
                g.app_id
            ),
            format!(
                "delete the placeholders (`kubectl delete pod -n {} -l applicationId={},placeholder=true`); YuniKorn releases them after `placeholderTimeoutInSeconds` of `{}`",
                g.namespace,
                g.app_id,
                "yunikorn.apache.org/schedulingPolicyParameters"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run;

    const CLUSTER: &str = include_str!("../../testdata/clusters/volcano-yunikorn.yaml");

    #[test]
    fn the_fixtures_stuck_group_stray_pod_and_left_placeholder_are_found() {
        let found = run(CLUSTER);
        for (id, name) in [
            ("WASD304", "big-batch"),
            ("WASD305", "big-batch-3"),
            ("WASD306", "spark-pi:spark-executor"),
        ] {
            assert!(
                found.contains(&(id.to_owned(), name.to_owned())),
                "{id} {name}: {found:?}"
            );
        }
        // The running gang is not stuck, and its pods name volcano.
        assert!(
            !found.iter().any(|(_, n)| n.starts_with("mpi-job")),
            "{found:?}"
        );
    }
}
