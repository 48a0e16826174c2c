//! `kubectl wasctl tree [TYPE/NAME]`.

use clap::Args;

use super::{Context, ReportFormat, parse_target, resolve_target};
use crate::error::{Error, ExitStatus};
use crate::graph::Graph;
use crate::graph::tree::{TreeScope, build};
use crate::render::json::{Envelope, write_json, write_yaml};
use crate::render::tree::write_text;
use crate::snapshot::facts::Component;

/// `tree` flags.
#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Show one object's chain: `workload/`, `compositepodgroup/` (`cpg/`), `podgroup/`
    /// (`pg/`), `pod/`, `job/`, `resourceclaim/` followed by the name.
    #[arg(value_name = "TYPE/NAME")]
    pub target: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}

pub(crate) fn run(ctx: &Context, args: &TreeArgs) -> Result<ExitStatus, Error> {
    let parsed = args.target.as_deref().map(parse_target).transpose()?;
    let snapshot = ctx.load()?;
    let graph = Graph::build(&snapshot);
    let target = match parsed {
        Some((kind, name)) => Some(resolve_target(ctx, &snapshot, &kind, &name)?),
        None => None,
    };
    let scope = TreeScope {
        namespace: ctx.namespace_scope(&snapshot),
        target,
    };
    let now = snapshot.now();
    let gates = snapshot
        .facts
        .gates_for(Component::KubeScheduler, &ctx.gate_overrides()?);
    let mut assumed = gates.assumed;
    assumed.extend(snapshot.facts.assumed.iter().cloned());
    let report = build(&snapshot, &graph, &scope, now, assumed);
    let mut out = Vec::new();
    match args.output {
        ReportFormat::Text => write_text(&mut out, &report, ctx.color.styler())?,
        ReportFormat::Json => write_json(&mut out, &Envelope::new("Tree", &report))?,
        ReportFormat::Yaml => write_yaml(&mut out, &Envelope::new("Tree", &report))?,
    }
    ctx.stdout(&out)?;
    Ok(ExitStatus::Success)
}
