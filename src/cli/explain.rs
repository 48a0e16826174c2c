//! `kubectl wasctl explain TYPE/NAME`: why a gang is (or would be) unschedulable.

use crate::snapshot::ObjKind;
use clap::Args;

use super::simulate::{WhatIfArgs, apply_what_ifs};

use super::{Context, ReportFormat, parse_target_words, require_nodes_and_pods, resolve_target};
use crate::error::{Error, ExitStatus};
use crate::explain::{Diagnosis, Verdict, explain_target};
use crate::graph::Graph;
use crate::render::explain::{write_header, write_notes, write_text};
use crate::render::json::{Envelope, write_json, write_yaml};
use crate::sched::Options;

/// `explain` flags.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// `pod/`, `podgroup/` (`pg/`), `compositepodgroup/` (`cpg/`), `workload/` (all its
    /// groups) or `job/` (its group), followed by the name.
    #[arg(value_name = "TYPE/NAME", num_args = 1..=2, required = true)]
    pub target: Vec<String>,
    /// Exit with 1 when the target is not schedulable (Waiting, Unschedulable, Preempting, Error, Suspended).
    #[arg(long)]
    pub exit_code: bool,
    /// What-ifs, as for `simulate`.
    #[command(flatten)]
    pub what_if: WhatIfArgs,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}

/// Several diagnoses (a Workload's groups) as one report.
#[derive(Debug, serde::Serialize)]
struct Diagnoses<'a> {
    items: &'a [Diagnosis],
}

pub(crate) fn run(ctx: &Context, args: &ExplainArgs) -> Result<ExitStatus, Error> {
    let (kind, name) = parse_target_words(&args.target)?;
    if matches!(kind, ObjKind::ResourceClaim | ObjKind::Node) {
        return Err(Error::usage(
            "`explain` takes a pod, podgroup, compositepodgroup, workload or job",
            "for a claim or a node, use `kubectl wasctl tree resourceclaim/NAME` or `tree node/NAME`",
        ));
    }
    let mut snapshot = ctx.load()?;
    require_nodes_and_pods(&snapshot)?;
    let what_if = apply_what_ifs(ctx, &mut snapshot, &args.what_if)?;
    let target = resolve_target(ctx, &snapshot, &kind, &name)?;
    let options = Options {
        mode: args.what_if.mode,
        gate_overrides: ctx.gate_overrides()?,
        no_preemption: args.what_if.no_preemption,
        what_if,
        ..Options::default()
    };
    // The graph and the compiled simulation are independent reads of the snapshot: built at
    // once on two cores (at 150,000 pods each takes a few hundred milliseconds).
    let (graph, prepared) =
        Graph::build_beside(&snapshot, || crate::sched::prepare(&snapshot, &options));
    super::profile::phase("graph");
    let mut prepared = prepared;
    let diagnoses =
        explain_target(&snapshot, &graph, &mut prepared, &options, &target).map_err(|message| {
            Error::usage(
                message,
                "explain a PodGroup, or a Workload whose PodGroups exist",
            )
        })?;
    super::profile::phase("explain");
    let mut out = Vec::new();
    match args.output {
        ReportFormat::Text => {
            write_header(&mut out, &diagnoses[0], ctx.color.styler())?;
            for d in &diagnoses {
                write_text(&mut out, d, ctx.color.styler())?;
            }
            let mut err = Vec::new();
            write_notes(
                &mut err,
                &snapshot.warnings,
                &diagnoses,
                ctx.verbosity(),
                ctx.err_color.styler(),
            )?;
            ctx.stderr(&err)?;
        }
        ReportFormat::Json | ReportFormat::Yaml if diagnoses.len() == 1 => {
            let env = Envelope::new("Diagnosis", &diagnoses[0]);
            if args.output == ReportFormat::Json {
                write_json(&mut out, &env)?
            } else {
                write_yaml(&mut out, &env)?
            }
        }
        ReportFormat::Json | ReportFormat::Yaml => {
            let list = Diagnoses { items: &diagnoses };
            let env = Envelope::new("DiagnosisList", &list);
            if args.output == ReportFormat::Json {
                write_json(&mut out, &env)?
            } else {
                write_yaml(&mut out, &env)?
            }
        }
    }
    ctx.stdout(&out)?;
    let blocked = diagnoses
        .iter()
        .any(|d| !matches!(d.verdict, Verdict::Scheduled | Verdict::Schedulable));
    super::release(diagnoses);
    super::release((graph, prepared.retire()));
    super::release(snapshot);
    Ok(if args.exit_code && blocked {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}
