//! Which claim a pod's or PodGroup's `spec.resourceClaims` entry stands for: the group's
//! shared claim (semantics §1.6) or the claim generated from a template, as recorded in
//! `status.resourceClaimStatuses`. The graph, the simulator's DRA state and tree all ask
//! these questions, so they live here, below all of them.

use k8s_openapi::api::scheduling::v1beta1::PodGroup;

use super::Pod;

/// Whether a pod's claim entry is the PodGroup's shared claim: the PodGroup has an entry with
/// the same name and the same `resourceClaimName` and `resourceClaimTemplateName`
/// (semantics §1.6).
pub(crate) fn is_group_claim_entry(
    pg: &PodGroup,
    name: &str,
    claim: Option<&str>,
    template: Option<&str>,
) -> bool {
    pg.spec.resource_claims.as_ref().is_some_and(|entries| {
        entries.iter().any(|e| {
            e.name == name
                && e.resource_claim_name.as_deref() == claim
                && e.resource_claim_template_name.as_deref() == template
        })
    })
}

/// The claim generated for a PodGroup's entry, from `status.resourceClaimStatuses`.
pub(crate) fn group_claim_status<'a>(pg: &'a PodGroup, entry: &str) -> Option<&'a str> {
    pg.status
        .as_ref()
        .and_then(|s| s.resource_claim_statuses.as_ref())
        .and_then(|list| list.iter().find(|s| s.name == entry))
        .and_then(|s| s.resource_claim_name.as_deref())
}

/// The claim generated for a pod's entry, from `status.resourceClaimStatuses`.
pub(crate) fn pod_claim_status<'a>(pod: &'a Pod, entry: &str) -> Option<&'a str> {
    pod.status
        .as_ref()
        .and_then(|s| s.resource_claim_statuses.as_ref())
        .and_then(|list| list.iter().find(|s| s.name == entry))
        .and_then(|s| s.resource_claim_name.as_deref())
}
