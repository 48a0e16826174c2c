//! `kubectl wasctl complete-names KIND WORD` (hidden): object names for shell completion,
//! read from the same source the completed command will read. Called by
//! `completions/kubectl_complete-wasctl`.

use clap::Args;

use super::Context;
use crate::error::{Error, ExitStatus};
use crate::snapshot::{Snapshot, name_of, namespace_of};

/// What to complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NameKind {
    /// `TYPE/NAME` targets (`tree`, `--only`).
    Targets,
    /// Node names (`--drain`, `--cordon`, `--like`).
    Nodes,
}

/// `complete-names` arguments.
#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// What to complete.
    #[arg(value_enum)]
    pub kind: NameKind,
    /// The word typed so far.
    #[arg(default_value = "", allow_hyphen_values = true)]
    pub word: String,
}

/// Target types offered before a `/` is typed, in the order users reach for them.
const TYPES: &[&str] = &["pg/", "cpg/", "workload/", "pod/", "job/", "resourceclaim/"];

/// Candidates for `word`, sorted and without duplicates.
pub fn candidates(
    s: &Snapshot,
    namespace: Option<&str>,
    kind: NameKind,
    word: &str,
) -> Vec<String> {
    let in_scope = |ns: &str| namespace.is_none_or(|n| n == ns);
    let mut out: Vec<String> = match kind {
        NameKind::Nodes => s
            .nodes
            .iter()
            .map(|n| name_of(&n.metadata).to_owned())
            .collect(),
        NameKind::Targets => match word.split_once('/') {
            None => TYPES.iter().map(|t| (*t).to_owned()).collect(),
            Some((ty, _)) => {
                let names: Vec<&str> = match ty {
                    "pg" | "podgroup" | "podgroups" => s
                        .pod_groups
                        .iter()
                        .filter(|o| in_scope(namespace_of(&o.metadata)))
                        .map(|o| name_of(&o.metadata))
                        .collect(),
                    "cpg" | "compositepodgroup" | "compositepodgroups" => s
                        .composite_pod_groups
                        .iter()
                        .filter(|o| in_scope(namespace_of(&o.metadata)))
                        .map(|o| name_of(&o.metadata))
                        .collect(),
                    "workload" | "workloads" | "wl" => s
                        .workloads
                        .iter()
                        .filter(|o| in_scope(namespace_of(&o.metadata)))
                        .map(|o| name_of(&o.metadata))
                        .collect(),
                    "pod" | "pods" | "po" => s
                        .pods
                        .iter()
                        .filter(|o| in_scope(namespace_of(&o.metadata)))
                        .map(|o| name_of(&o.metadata))
                        .collect(),
                    "job" | "jobs" => s
                        .jobs
                        .iter()
                        .filter(|o| in_scope(namespace_of(&o.metadata)))
                        .map(|o| name_of(&o.metadata))
                        .collect(),
                    "resourceclaim" | "resourceclaims" | "claim" | "claims" => s
                        .resource_claims
                        .iter()
                        .filter(|o| in_scope(namespace_of(&o.metadata)))
                        .map(|o| name_of(&o.metadata))
                        .collect(),
                    _ => Vec::new(),
                };
                names.into_iter().map(|n| format!("{ty}/{n}")).collect()
            }
        },
    };
    out.retain(|c| c.starts_with(word) && !c.chars().any(char::is_control));
    out.sort();
    out.dedup();
    out
}

pub(crate) fn run(ctx: &Context, args: &CompleteArgs) -> Result<ExitStatus, Error> {
    let snapshot = ctx.load()?;
    let scope = ctx.namespace_scope(&snapshot);
    let mut out = String::new();
    for c in candidates(&snapshot, scope.as_deref(), args.kind, &args.word) {
        out.push_str(&c);
        out.push('\n');
    }
    ctx.stdout(out.as_bytes())?;
    Ok(ExitStatus::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_complete_types_then_names() {
        let s = crate::snapshot::source::demo::load().unwrap();
        assert_eq!(
            candidates(&s, None, NameKind::Targets, "p"),
            vec!["pg/", "pod/"]
        );
        assert_eq!(
            candidates(&s, Some("ml"), NameKind::Targets, "pg/big"),
            vec!["pg/big-train-workers"]
        );
        assert!(candidates(&s, Some("research"), NameKind::Targets, "pg/big").is_empty());
        assert_eq!(
            candidates(&s, None, NameKind::Nodes, "gpu-c"),
            vec!["gpu-c1", "gpu-c2"]
        );
    }
}
