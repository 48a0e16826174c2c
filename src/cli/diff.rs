//! `kubectl wasctl diff --from OLD --to NEW`: both snapshots simulated with the same settings,
//! and per unit what changed and why. Without `--to`, NEW is the live cluster, or OLD with the
//! what-if flags applied when any is given. Exit 1 when a unit became unschedulable.

use std::path::PathBuf;

use clap::Args;

use super::simulate::{WhatIfArgs, apply_what_ifs};
use super::{Context, GlobalArgs};
use crate::error::{Error, ExitStatus};
use crate::plan::diff::diff;
use crate::render::diff::{write_notes, write_text};
use crate::sched::Options;

/// `diff` flags. OLD is the global source (`--from PATH`, `--demo`, or the cluster).
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// NEW: YAML/JSON files or directories (`-` for stdin). Without it, NEW is the cluster of
    /// the current context, or OLD with the what-ifs below applied.
    #[arg(long, value_name = "PATH")]
    pub to: Vec<PathBuf>,
    /// What-ifs applied to NEW (`--drain`, `--cordon`, `--add`, `--add-nodes`), and the
    /// simulation settings used for both sides (`--mode`, `--no-preemption`).
    #[command(flatten)]
    pub what_if: WhatIfArgs,
    /// Output format: `text`, `json`, `yaml`, or kubectl's `jsonpath=TEMPLATE`,
    /// `jsonpath-file=FILE`, `custom-columns=SPEC`, `custom-columns-file=FILE` (rows:
    /// the units that changed).
    #[arg(short = 'o', long = "output", value_name = "FORMAT", default_value = "text",
          value_parser = super::format::report_output())]
    pub output: super::format::ReportOutput,
}

/// How a source is named in the report.
fn source_name(g: &GlobalArgs) -> String {
    if g.demo {
        "demo".to_owned()
    } else if !g.from.is_empty() {
        g.from
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        match &g.context {
            Some(c) => format!("cluster (context {c})"),
            None => "cluster (current context)".to_owned(),
        }
    }
}

pub(crate) fn run(ctx: &Context, args: &DiffArgs) -> Result<ExitStatus, Error> {
    let live_old = !ctx.is_offline();
    if live_old && args.to.is_empty() && !args.what_if.any() {
        return Err(Error::usage(
            "`diff` needs two sides: OLD from `--from PATH` (or `--demo`), NEW from `--to PATH`, the cluster, or what-ifs",
            "for example `kubectl wasctl diff --from yesterday.yaml` compares a saved snapshot with the cluster",
        ));
    }
    let old = ctx.load()?;
    let (mut new, to_name) = if !args.to.is_empty() {
        let g = GlobalArgs {
            from: args.to.clone(),
            demo: false,
            ..ctx.global.clone()
        };
        let name = source_name(&g);
        (Context::new(g).load()?, name)
    } else if args.what_if.any() {
        (
            old.clone(),
            format!("{} with what-ifs", source_name(&ctx.global)),
        )
    } else {
        let g = GlobalArgs {
            from: Vec::new(),
            demo: false,
            ..ctx.global.clone()
        };
        let name = source_name(&g);
        (Context::new(g).load()?, name)
    };
    let applied = apply_what_ifs(ctx, &mut new, &args.what_if)?;
    let options = Options {
        mode: args.what_if.mode,
        gate_overrides: ctx.gate_overrides()?,
        no_preemption: args.what_if.no_preemption,
        ..Options::default()
    };
    // On a cluster that runs Kueue, each side is Kueue's admission, then kube-scheduler on the
    // cluster it leaves (as simulate shows it).
    let (old_plan, old_staged) =
        crate::kueue::dry_run::simulate(&old, &options).map_err(super::kueue_error)?;
    let (new_plan, new_staged) = crate::kueue::dry_run::simulate(
        &new,
        &Options {
            what_if: applied,
            ..options.clone()
        },
    )
    .map_err(super::kueue_error)?;
    let mut report = diff(
        old_staged.as_ref().map_or(&old, |s| s.cluster(&old)),
        &old_plan,
        new_staged.as_ref().map_or(&new, |s| s.cluster(&new)),
        &new_plan,
        (&source_name(&ctx.global), &to_name),
        !options.no_preemption,
    );
    if let Some(ns) = ctx.namespace_scope(&old) {
        report.units.retain(|u| u.namespace == ns);
        report.summary = crate::plan::diff::DiffSummary::of(&report.units);
    }
    ctx.write_report(
        &args.output,
        ("PlanDiff", Some("units")),
        &report,
        |out, style| write_text(out, &report, style),
        |err, verbosity, style| write_notes(err, &report, verbosity, style),
    )?;
    Ok(if report.summary.newly_unschedulable > 0 {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}
