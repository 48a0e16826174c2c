//! Builds the edges of a [`Graph`](super::Graph) from a snapshot, one pass per kind.

use crate::snapshot::ObjKind;
use k8s_openapi::api::scheduling::v1beta1::Workload;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::{Edge, EdgeKind, EdgeState};
use crate::snapshot::ObjRef;
use crate::snapshot::claims::{group_claim_status, is_group_claim_entry, pod_claim_status};
use crate::snapshot::{FOREIGN_GROUPS, Snapshot, name_of, namespace_of, volcano, yunikorn};

/// The reference to a foreign owner kind; kinds that clash with native ones get their group.
pub(crate) fn foreign_kind(kind: &str, group: &str) -> ObjKind {
    if matches!(kind, "Workload" | "PodGroup" | "Job")
        && !matches!(group, "scheduling.k8s.io" | "batch")
    {
        // `Workload.kueue.x-k8s.io` is a kind wasctl knows ([`ObjKind::KueueWorkload`]).
        ObjKind::parse(&format!("{kind}.{group}"))
    } else {
        ObjKind::parse(kind)
    }
}

struct Builder<'a> {
    s: &'a Snapshot,
    edges: Vec<Edge>,
}

impl Builder<'_> {
    /// Resolved when found; when not, dangling only if every object of `kind` in `namespace`
    /// was read: a kind missing from the input or unreadable proves nothing.
    fn state(
        &self,
        kind: &str,
        namespace: &str,
        found: bool,
        missing: impl FnOnce() -> String,
    ) -> EdgeState {
        if found {
            return EdgeState::Resolved;
        }
        let ns = (!namespace.is_empty()).then_some(namespace);
        match self.s.coverage(kind) {
            c if c.covers(ns) => EdgeState::Dangling { missing: missing() },
            c => EdgeState::Unknown {
                reason: format!("{kind} objects {}", c.describe()),
            },
        }
    }

    fn push(
        &mut self,
        from: &ObjRef,
        to: ObjRef,
        kind: EdgeKind,
        label: Option<&str>,
        state: EdgeState,
    ) {
        self.edges.push(Edge {
            from: from.clone(),
            to,
            kind,
            label: label.map(str::to_owned),
            state,
        });
    }

    /// Resolves a reference to an object of `kind` in `group` (as ownerReferences and
    /// controllerRef spell them).
    fn resolve(&self, group: &str, kind: &str, namespace: &str, name: &str) -> (ObjRef, EdgeState) {
        let s = self.s;
        let missing = || format!("{kind} `{name}`");
        let found = match (group, kind) {
            ("batch", "Job") => Some(s.job(namespace, name).is_some()),
            ("scheduling.k8s.io", "Workload") => Some(s.workload(namespace, name).is_some()),
            ("scheduling.k8s.io", "PodGroup") => Some(s.pod_group(namespace, name).is_some()),
            ("scheduling.k8s.io", "CompositePodGroup") => {
                Some(s.composite_pod_group(namespace, name).is_some())
            }
            ("", "Pod") => Some(s.pod(namespace, name).is_some()),
            ("", "Node") => Some(s.node(name).is_some()),
            _ if FOREIGN_GROUPS.contains(&group) => Some(
                s.index
                    .foreign
                    .get(namespace, &format!("{kind}/{name}"))
                    .is_some(),
            ),
            _ => None,
        };
        let to_kind = foreign_kind(kind, group);
        let ns = if kind == "Node" { "" } else { namespace };
        let to = ObjRef::new(to_kind, ns, name);
        match found {
            Some(found) => {
                let key = crate::snapshot::coverage_key(group, kind);
                let state = self.state(&key, ns, found, missing);
                (to, state)
            }
            None => (to, EdgeState::Unchecked),
        }
    }

    fn owners(&mut self, from: &ObjRef, meta: &ObjectMeta) {
        for owner in meta.owner_references.iter().flatten() {
            let group = owner.api_version.rsplit_once('/').map_or("", |(g, _)| g);
            let (to, state) = self.resolve(group, &owner.kind, namespace_of(meta), &owner.name);
            self.push(from, to, EdgeKind::Owner, None, state);
        }
    }

    fn workloads(&mut self) {
        for w in &self.s.workloads {
            let from = ObjRef::new(
                ObjKind::Workload,
                namespace_of(&w.metadata),
                name_of(&w.metadata),
            );
            self.owners(&from, &w.metadata);
            if let Some(c) = w.spec.controller_ref.as_ref() {
                let group = c.api_group.as_deref().unwrap_or("");
                let (to, state) = self.resolve(group, &c.kind, &from.namespace, &c.name);
                self.push(&from, to, EdgeKind::ControllerRef, None, state);
            }
        }
    }

    fn workload_ref(&mut self, from: &ObjRef, workload: &str, template: &str) {
        // An empty name is no reference (a CompositePodGroup written without its required
        // `workloadRef`: lint says so), not a Workload named "" that is missing.
        if workload.is_empty() {
            return;
        }
        let to = ObjRef::new(ObjKind::Workload, &from.namespace, workload);
        let state = match self.s.workload(&from.namespace, workload) {
            None => self.state("Workload", &from.namespace, false, || {
                format!("Workload `{workload}`")
            }),
            Some(w) if !has_template(w, template) => EdgeState::Dangling {
                missing: format!("template `{template}` in Workload `{workload}`"),
            },
            Some(_) => EdgeState::Resolved,
        };
        self.push(from, to, EdgeKind::WorkloadRef, Some(template), state);
    }

    fn parent(&mut self, from: &ObjRef, parent: &str) {
        let found = self
            .s
            .composite_pod_group(&from.namespace, parent)
            .is_some();
        let to = ObjRef::new(ObjKind::CompositePodGroup, &from.namespace, parent);
        let state = self.state("CompositePodGroup", &from.namespace, found, || {
            format!("CompositePodGroup `{parent}`")
        });
        self.push(from, to, EdgeKind::Parent, None, state);
    }

    fn template(&mut self, from: &ObjRef, entry: &str, template: &str) {
        let found = self
            .s
            .index
            .resource_claim_templates
            .get(&from.namespace, template)
            .is_some();
        let to = ObjRef::new(ObjKind::ResourceClaimTemplate, &from.namespace, template);
        let state = self.state("ResourceClaimTemplate", &from.namespace, found, || {
            format!("ResourceClaimTemplate `{template}`")
        });
        self.push(from, to, EdgeKind::ClaimTemplate, Some(entry), state);
    }

    fn claim(&mut self, from: &ObjRef, kind: EdgeKind, entry: &str, claim: &str) {
        let found = self.s.resource_claim(&from.namespace, claim).is_some();
        let to = ObjRef::new(ObjKind::ResourceClaim, &from.namespace, claim);
        let state = self.state("ResourceClaim", &from.namespace, found, || {
            format!("ResourceClaim `{claim}`")
        });
        self.push(from, to, kind, Some(entry), state);
    }

    fn pod_groups(&mut self) {
        for pg in &self.s.pod_groups {
            let from = ObjRef::new(
                ObjKind::PodGroup,
                namespace_of(&pg.metadata),
                name_of(&pg.metadata),
            );
            self.owners(&from, &pg.metadata);
            let spec = &pg.spec;
            if let Some(w) = spec.workload_ref.as_ref() {
                self.workload_ref(&from, &w.workload_name, &w.template_name);
            }
            if let Some(parent) = spec.parent_composite_pod_group_name.as_deref() {
                self.parent(&from, parent);
            }
            for entry in spec.resource_claims.iter().flatten() {
                if let Some(claim) = entry.resource_claim_name.as_deref() {
                    self.claim(&from, EdgeKind::GroupClaim, &entry.name, claim);
                } else if let Some(template) = entry.resource_claim_template_name.as_deref() {
                    self.template(&from, &entry.name, template);
                    match group_claim_status(pg, &entry.name) {
                        Some(claim) => self.claim(&from, EdgeKind::GroupClaim, &entry.name, claim),
                        None => self.push(
                            &from,
                            ObjRef::new(ObjKind::ResourceClaim, &from.namespace, ""),
                            EdgeKind::GroupClaim,
                            Some(&entry.name),
                            EdgeState::Pending {
                                note: format!("claim for `{}` not generated yet", entry.name),
                            },
                        ),
                    }
                }
            }
        }
    }

    fn composite_pod_groups(&mut self) {
        for cpg in &self.s.composite_pod_groups {
            let from = ObjRef::new(
                ObjKind::CompositePodGroup,
                namespace_of(&cpg.metadata),
                name_of(&cpg.metadata),
            );
            self.owners(&from, &cpg.metadata);
            let spec = &cpg.spec;
            self.workload_ref(
                &from,
                &spec.workload_ref.workload_name,
                &spec.workload_ref.template_name,
            );
            if let Some(parent) = spec.parent_composite_pod_group_name.as_deref() {
                self.parent(&from, parent);
            }
        }
    }

    fn pods(&mut self) {
        for pod in &self.s.pods {
            let from = ObjRef::new(
                ObjKind::Pod,
                namespace_of(&pod.metadata),
                name_of(&pod.metadata),
            );
            self.owners(&from, &pod.metadata);
            let Some(spec) = pod.spec.as_ref() else {
                continue;
            };
            let group_name = spec
                .scheduling_group
                .as_ref()
                .and_then(|g| g.pod_group_name.as_deref());
            let group = group_name.and_then(|g| self.s.pod_group(&from.namespace, g));
            if let Some(g) = group_name {
                let to = ObjRef::new(ObjKind::PodGroup, &from.namespace, g);
                let state = self.state("PodGroup", &from.namespace, group.is_some(), || {
                    format!("PodGroup `{g}`")
                });
                self.push(&from, to, EdgeKind::SchedulingGroup, None, state);
            }
            for entry in spec.resource_claims.iter().flatten() {
                if let Some(claim) = entry.resource_claim_name.as_deref() {
                    self.claim(&from, EdgeKind::PodClaim, &entry.name, claim);
                    continue;
                }
                let Some(template) = entry.resource_claim_template_name.as_deref() else {
                    continue;
                };
                self.template(&from, &entry.name, template);
                let shared =
                    group.filter(|pg| is_group_claim_entry(pg, &entry.name, None, Some(template)));
                let generated = match shared {
                    Some(pg) => group_claim_status(pg, &entry.name),
                    None => pod_claim_status(pod, &entry.name),
                };
                match generated {
                    Some(claim) => self.claim(&from, EdgeKind::PodClaim, &entry.name, claim),
                    None => self.push(
                        &from,
                        ObjRef::new(ObjKind::ResourceClaim, &from.namespace, ""),
                        EdgeKind::PodClaim,
                        Some(&entry.name),
                        EdgeState::Pending {
                            note: if shared.is_some() {
                                format!(
                                    "the PodGroup's claim for `{}` is not generated yet",
                                    entry.name
                                )
                            } else {
                                format!("claim for `{}` not generated yet", entry.name)
                            },
                        },
                    ),
                }
            }
        }
    }

    fn claims(&mut self) {
        for claim in &self.s.resource_claims {
            let from = ObjRef::new(
                ObjKind::ResourceClaim,
                namespace_of(&claim.metadata),
                name_of(&claim.metadata),
            );
            self.owners(&from, &claim.metadata);
            for consumer in claim
                .status
                .iter()
                .flat_map(|s| s.reserved_for.iter().flatten())
            {
                let group = consumer.api_group.as_deref().unwrap_or("");
                let kind = match (group, consumer.resource.as_str()) {
                    ("", "pods") => "Pod",
                    ("scheduling.k8s.io", "podgroups") => "PodGroup",
                    (_, other) => other,
                };
                let (to, state) = self.resolve(group, kind, &from.namespace, &consumer.name);
                self.push(&from, to, EdgeKind::ReservedFor, None, state);
            }
        }
    }

    fn jobs_and_foreign(&mut self) {
        for job in &self.s.jobs {
            let from = ObjRef::new(
                ObjKind::Job,
                namespace_of(&job.metadata),
                name_of(&job.metadata),
            );
            self.owners(&from, &job.metadata);
        }
        for o in &self.s.foreign {
            let from = ObjRef::new(
                foreign_kind(&o.kind, o.group()),
                namespace_of(&o.metadata),
                name_of(&o.metadata),
            );
            self.owners(&from, &o.metadata);
        }
    }
}

impl Builder<'_> {
    /// Pods → their Volcano PodGroup (annotation), Volcano PodGroups → their Queue.
    fn volcano(&mut self) {
        let s = self.s;
        for pod in &s.pods {
            let meta = &pod.metadata;
            let Some(g) = volcano::group_name_of(meta) else {
                continue;
            };
            let ns = namespace_of(meta);
            let from = ObjRef::new(ObjKind::Pod, ns, name_of(meta));
            let found = s.volcano.pod_group(ns, g).is_some();
            let state = self.state(ObjKind::VolcanoPodGroup.as_str(), ns, found, || {
                format!("Volcano PodGroup `{g}`")
            });
            let to = ObjRef::new(ObjKind::VolcanoPodGroup, ns, g);
            self.push(&from, to, EdgeKind::VolcanoGroup, None, state);
        }
        for pg in &s.volcano.pod_groups {
            let from = ObjRef::new(ObjKind::VolcanoPodGroup, pg.namespace(), pg.name());
            let q = pg.queue_name();
            let found = s.volcano.queue(q).is_some();
            let state = self.state(ObjKind::VolcanoQueue.as_str(), "", found, || {
                format!("Volcano Queue `{q}`")
            });
            let to = ObjRef::new(ObjKind::VolcanoQueue, "", q);
            self.push(&from, to, EdgeKind::VolcanoQueue, None, state);
        }
    }

    /// Pods → their YuniKorn task group: resolved when some pod of the application declares
    /// the group (`yunikorn.apache.org/task-groups`), dangling when none does.
    fn yunikorn(&mut self) {
        let s = self.s;
        for g in &s.yunikorn {
            let to = ObjRef::new(ObjKind::YunikornTaskGroup, &g.namespace, &g.name());
            let state = if g.declared {
                EdgeState::Resolved
            } else {
                EdgeState::Dangling {
                    missing: format!(
                        "task group `{}` of application `{}` (no pod declares it in `{}`)",
                        g.task_group.name,
                        g.app_id,
                        yunikorn::TASK_GROUPS
                    ),
                }
            };
            let pods = g
                .members
                .iter()
                .map(|i| (i, None))
                .chain(g.placeholders.iter().map(|i| (i, Some("placeholder"))));
            for (i, label) in pods {
                let from = ObjRef::new(ObjKind::Pod, &g.namespace, name_of(&s.pods[*i].metadata));
                self.push(&from, to.clone(), EdgeKind::TaskGroup, label, state.clone());
            }
        }
    }
}

/// Whether `template` names a PodGroup template of `w`, at any depth of its tree.
pub(crate) fn has_template(w: &Workload, template: &str) -> bool {
    use k8s_openapi::api::scheduling::v1beta1::CompositePodGroupTemplate;
    fn in_composite(c: &CompositePodGroupTemplate, t: &str) -> bool {
        c.name == t
            || c.pod_group_templates.iter().flatten().any(|p| p.name == t)
            || c.composite_pod_group_templates
                .iter()
                .flatten()
                .any(|c| in_composite(c, t))
    }
    w.spec
        .pod_group_templates
        .iter()
        .flatten()
        .any(|p| p.name == template)
        || w.spec
            .composite_pod_group_templates
            .iter()
            .flatten()
            .any(|c| in_composite(c, template))
}

pub(super) fn edges(s: &Snapshot) -> Vec<Edge> {
    let mut b = Builder {
        s,
        edges: Vec::with_capacity(s.pods.len() * 2),
    };
    b.workloads();
    b.composite_pod_groups();
    b.pod_groups();
    b.pods();
    b.claims();
    b.jobs_and_foreign();
    b.volcano();
    b.yunikorn();
    b.edges
}
