//! The gangs of other schedulers in the tree: Volcano PodGroups and YuniKorn task groups,
//! beside the native ones, each with its member pods and its scheduler named. wasctl never
//! simulates them: their rows show what Volcano or YuniKorn recorded.

use crate::graph::{EdgeKind, EdgeState};
use crate::snapshot::{ObjKind, ObjRef};

use super::{TreeBuilder, TreeNode, in_scope, is_scheduled};

impl TreeBuilder<'_> {
    /// The Volcano PodGroup or YuniKorn task group a pod belongs to, if resolved.
    pub(super) fn other_gang_of(&self, pod: &ObjRef) -> Option<ObjRef> {
        self.g
            .outgoing(pod, None)
            .find(|e| {
                matches!(e.kind, EdgeKind::VolcanoGroup | EdgeKind::TaskGroup)
                    && e.state == EdgeState::Resolved
            })
            .map(|e| e.to.clone())
    }

    /// The Volcano Job that owns the Volcano PodGroup `pg`, if read.
    pub(super) fn volcano_job_of(&self, pg: &ObjRef) -> Option<ObjRef> {
        self.g
            .outgoing(pg, Some(EdgeKind::Owner))
            .find(|e| e.state == EdgeState::Resolved && e.to.kind == ObjKind::VolcanoJob)
            .map(|e| e.to.clone())
    }

    /// Adds every Volcano PodGroup (under its Volcano Job when one owns it) and YuniKorn
    /// task group in scope as a root.
    pub(super) fn other_roots(&self, namespace: Option<&str>, roots: &mut Vec<ObjRef>) {
        for pg in &self.s.volcano.pod_groups {
            if in_scope(&pg.metadata, namespace) {
                let r = ObjRef::new(ObjKind::VolcanoPodGroup, pg.namespace(), pg.name());
                let top = self.volcano_job_of(&r).unwrap_or(r);
                if !roots.contains(&top) {
                    roots.push(top);
                }
            }
        }
        for g in &self.s.yunikorn {
            if namespace.is_none_or(|ns| ns == g.namespace) {
                roots.push(ObjRef::new(
                    ObjKind::YunikornTaskGroup,
                    &g.namespace,
                    &g.name(),
                ));
            }
        }
    }

    /// The pods pointing at `r` by `kind`, as rows (by name), each with its edge's label.
    fn member_rows(&self, r: &ObjRef, kind: EdgeKind) -> Vec<(TreeNode, bool)> {
        let mut members: Vec<(ObjRef, bool)> = self
            .g
            .incoming(r, Some(kind))
            .map(|e| (e.from.clone(), e.label.as_deref() == Some("placeholder")))
            .collect();
        members.sort();
        members.dedup();
        members
            .iter()
            .filter_map(|(p, placeholder)| {
                let pod = self.s.pod(&p.namespace, &p.name)?;
                Some((self.pod(p, pod), *placeholder && is_scheduled(pod)))
            })
            .collect()
    }

    /// A Volcano PodGroup's row: its phase and conditions as Volcano recorded them, the
    /// bound members against `minMember`, its queue, and its pods below.
    pub(super) fn volcano_group(&self, r: &ObjRef) -> Option<TreeNode> {
        let pg = self.s.volcano.pod_group(&r.namespace, &r.name)?;
        let mut n = self.base(r, &pg.metadata);
        n.scheduler = r.kind.other_scheduler().map(str::to_owned);
        let rows = self.member_rows(r, EdgeKind::VolcanoGroup);
        let bound = rows.iter().filter(|(row, _)| row.node.is_some()).count();
        n.policy = Some(format!("gang {bound}/{}", pg.spec.min_member));
        n.status = Some(pg.phase().to_owned());
        n.priority_class_name =
            (!pg.spec.priority_class_name.is_empty()).then(|| pg.spec.priority_class_name.clone());
        for c in pg.status.conditions.iter().filter(|c| c.status == "True") {
            n.conditions.push(if c.reason.is_empty() {
                c.type_.clone()
            } else {
                format!("{}({})", c.type_, c.reason)
            });
        }
        n.notes.push(format!("queue `{}`", pg.queue_name()));
        n.children = rows.into_iter().map(|(row, _)| row).collect();
        Some(n)
    }

    /// A Volcano Job's row: its state, `minAvailable`, tasks and queue, and its PodGroups
    /// below.
    pub(super) fn volcano_job(&self, r: &ObjRef) -> Option<TreeNode> {
        let job = self.s.volcano.job(&r.namespace, &r.name)?;
        let mut n = self.base(r, &job.metadata);
        n.scheduler = Some(if job.spec.scheduler_name.is_empty() {
            crate::snapshot::volcano::SCHEDULER_NAME.to_owned()
        } else {
            job.spec.scheduler_name.clone()
        });
        n.status = Some(if job.status.state.phase.is_empty() {
            "Pending".to_owned()
        } else {
            job.status.state.phase.clone()
        });
        n.policy = Some(format!("minAvailable {}", job.spec.min_available));
        n.priority_class_name = (!job.spec.priority_class_name.is_empty())
            .then(|| job.spec.priority_class_name.clone());
        let tasks: Vec<String> = job
            .spec
            .tasks
            .iter()
            .map(|t| format!("{} x{}", t.name, t.replicas))
            .collect();
        if !tasks.is_empty() {
            n.notes.push(format!("tasks {}", tasks.join(", ")));
        }
        let mut children: Vec<ObjRef> = self
            .g
            .incoming(r, Some(EdgeKind::Owner))
            .filter(|e| e.state == EdgeState::Resolved && e.from.kind == ObjKind::VolcanoPodGroup)
            .map(|e| e.from.clone())
            .collect();
        children.sort();
        children.dedup();
        n.children = children.iter().filter_map(|c| self.node(c)).collect();
        Some(n)
    }

    /// A YuniKorn task group's row: bound members against `minMember`, its placeholders,
    /// and its pods (placeholders marked) below.
    pub(super) fn task_group(&self, r: &ObjRef) -> Option<TreeNode> {
        let g = self.s.yunikorn_gang(&r.namespace, &r.name)?;
        let mut n = TreeNode::of(r);
        for e in self.g.incoming(r, Some(EdgeKind::TaskGroup)).take(1) {
            if let EdgeState::Dangling { missing } = &e.state {
                n.missing.push(missing.clone());
            }
        }
        n.scheduler = r.kind.other_scheduler().map(str::to_owned);
        let rows = self.member_rows(r, EdgeKind::TaskGroup);
        let placeholders_bound = rows.iter().filter(|(_, p)| *p).count();
        let members_bound = g
            .members
            .iter()
            .filter(|i| is_scheduled(&self.s.pods[**i]))
            .count();
        let min = g.task_group.min_member;
        n.policy = Some(format!("gang {members_bound}/{min}"));
        n.status = Some(
            if usize::try_from(min).is_ok_and(|m| members_bound >= m) && members_bound > 0 {
                "Running"
            } else if placeholders_bound > 0 {
                "Reserving"
            } else {
                "Pending"
            }
            .to_owned(),
        );
        n.notes.push(format!("application `{}`", g.app_id));
        if !g.placeholders.is_empty() {
            n.notes.push(format!(
                "{} placeholder(s), {placeholders_bound} bound",
                g.placeholders.len()
            ));
        }
        n.children = rows
            .into_iter()
            .map(|(mut row, _)| {
                if g.placeholders
                    .iter()
                    .any(|i| crate::snapshot::name_of(&self.s.pods[*i].metadata) == row.name)
                {
                    row.notes.insert(0, "YuniKorn placeholder".to_owned());
                }
                row
            })
            .collect();
        Some(n)
    }
}
