//! `kubectl wasctl capacity TYPE/NAME` (or `--shape FILE`): how many more copies of a gang fit,
//! without and with preemption, per topology domain, what stops the next copy, and with the
//! what-if flags, what a drain or cordon changes.

use std::path::PathBuf;

use clap::Args;

use super::simulate::{WhatIfArgs, apply_what_ifs};
use super::{Context, parse_target, resolve_target};
use crate::error::{Error, ExitStatus};
use crate::plan::capacity::{CapacityOptions, Shape, WhatIfImpact, capacity_keeping, displaced};
use crate::render::capacity::{write_notes, write_text};
use crate::sched::{Options, simulate};
use crate::snapshot::source::{Collector, files};

/// `capacity` flags.
#[derive(Debug, Args)]
pub struct CapacityArgs {
    /// The gang to copy: `podgroup/` (`pg/`), `job/` or `workload/` (one PodGroup), then the name.
    #[arg(
        value_name = "TYPE/NAME",
        required_unless_present = "shape",
        conflicts_with = "shape"
    )]
    pub target: Option<String>,
    /// Copy the gang in this manifest instead: one PodGroup and its pods, one Job (its
    /// `spec.scheduling` and pod template), or one Workload with one PodGroup template and its pods.
    #[arg(long, value_name = "FILE")]
    pub shape: Option<PathBuf>,
    /// The most copies to try.
    #[arg(long = "max", value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_copies: u32,
    /// Count copies per value of this node label (default: the gang's topology key).
    #[arg(long = "by", value_name = "LABEL")]
    pub domain_key: Option<String>,
    /// Kueue: also count the copies the quota of this LocalQueue's ClusterQueue admits (in
    /// the namespace of `-n`), and count on the nodes with the flavor Kueue assigns applied.
    #[arg(long = "queue", value_name = "LOCALQUEUE")]
    pub queue: Option<String>,
    /// What-ifs, as for `simulate`: capacity is then reported before and after them.
    #[command(flatten)]
    pub what_if: WhatIfArgs,
    /// Output format: `text`, `json`, `yaml`, or kubectl's `jsonpath=TEMPLATE`,
    /// `jsonpath-file=FILE`, `custom-columns=SPEC`, `custom-columns-file=FILE` (rows:
    /// the report).
    #[arg(short = 'o', long = "output", value_name = "FORMAT", default_value = "text",
          value_parser = super::format::report_output())]
    pub output: super::format::ReportOutput,
}

fn shape_error(e: String) -> Error {
    Error::usage(
        e,
        "name a PodGroup with pods (`pg/NAME`), or pass `--shape FILE` with a PodGroup and its pods, a Job, or a Workload and its pods",
    )
}

pub(crate) fn run(ctx: &Context, args: &CapacityArgs) -> Result<ExitStatus, Error> {
    let target = args.target.as_deref().map(parse_target).transpose()?;
    let mut snapshot = ctx.load()?;
    let shape = match (&target, &args.shape) {
        (Some((kind, name)), _) => {
            let r = resolve_target(ctx, &snapshot, kind, name)?;
            Shape::from_snapshot(&snapshot, &r).map_err(shape_error)?
        }
        (None, Some(path)) => {
            let mut collector = Collector::new();
            files::load_path(path, &mut collector)?;
            let namespace = ctx
                .global
                .namespace
                .clone()
                .unwrap_or_else(|| "default".to_owned());
            let file = collector.finish();
            let gate =
                crate::admit::controllers::workload_with_job(&snapshot, &ctx.gate_overrides()?);
            let mut shape =
                Shape::from_objects(&file, &namespace, &format!("`{}`", path.display()), gate)
                    .map_err(shape_error)?;
            let admission = shape.admit(&file, &snapshot);
            if let Some(message) = admission.refusal_message() {
                return Err(super::refused(message, std::slice::from_ref(path)));
            }
            admission.record(&mut snapshot);
            shape
        }
        (None, None) => {
            return Err(Error::usage(
                "`capacity` needs a gang: `TYPE/NAME` or `--shape FILE`",
                "for example `kubectl wasctl capacity pg/train`",
            ));
        }
    };
    let (shape, queue) = match &args.queue {
        Some(name) => {
            let (shape, q) = queue_fit(ctx, &snapshot, shape, name, args.max_copies)?;
            (shape, Some(q))
        }
        None => (shape, None),
    };
    let mut options = Options {
        mode: args.what_if.mode,
        gate_overrides: ctx.gate_overrides()?,
        no_preemption: args.what_if.no_preemption,
        ..Options::default()
    };
    let copt = CapacityOptions {
        max_copies: usize::try_from(args.max_copies).unwrap_or(100),
        domain_key: args.domain_key.clone(),
    };
    let (report, leftovers) = if args.what_if.any() {
        let mut after = snapshot.clone();
        options.what_if = apply_what_ifs(ctx, &mut after, &args.what_if)?;
        let plan_after = simulate(&after, &options);
        let moved = displaced(&snapshot, &after, &plan_after);
        drop(plan_after);
        let before_options = Options {
            what_if: Vec::new(),
            ..options.clone()
        };
        let (before, left_before) = capacity_keeping(snapshot, &shape, &before_options, &copt);
        // Freed before the second count, whose state would otherwise add to the peak.
        drop(left_before);
        let (mut report, left) = capacity_keeping(after, &shape, &options, &copt);
        report.what_if = Some(WhatIfImpact {
            copies_before: before.copies,
            copies_with_preemption_before: before.copies_with_preemption,
            displaced: moved,
        });
        (report, left)
    } else {
        // No what-ifs: the loaded snapshot takes the copies itself (no clone at 150,000 pods).
        capacity_keeping(snapshot, &shape, &options, &copt)
    };
    let mut report = report;
    report.queue = queue.map(|q| crate::plan::kueue_capacity::finish(q, report.copies));
    // The process exits after the report: freeing the snapshot and the simulation state
    // object by object would only make the user wait (see `release`).
    super::release(leftovers);
    ctx.write_report(
        &args.output,
        ("CapacityReport", None),
        &report,
        |out, style| write_text(out, &report, style),
        |err, verbosity, style| write_notes(err, &report, verbosity, style),
    )?;
    Ok(ExitStatus::Success)
}

/// `--queue`: the copies the LocalQueue's ClusterQueue admits, and the shape with the flavor
/// Kueue assigns applied, for the node count.
fn queue_fit(
    ctx: &Context,
    snapshot: &crate::snapshot::Snapshot,
    shape: crate::plan::capacity::Shape,
    name: &str,
    max: u32,
) -> Result<
    (
        crate::plan::capacity::Shape,
        crate::plan::kueue_capacity::QueueCapacity,
    ),
    Error,
> {
    use crate::plan::kueue_capacity::{quota_copies, with_flavor};
    let ns = ctx
        .global
        .namespace
        .clone()
        .unwrap_or_else(|| "default".to_owned());
    let k = &snapshot.kueue;
    let Some(lq) = k
        .local_queues
        .iter()
        .find(|q| q.namespace() == ns && q.name() == name)
    else {
        if !snapshot.coverage("LocalQueue").covers(Some(&ns)) {
            return Err(Error::usage(
                format!(
                    "LocalQueue `{ns}/{name}`: LocalQueues were not read (not in the input, or forbidden), so `--queue` cannot be answered"
                ),
                "include them: `kubectl get localqueues,clusterqueues,resourceflavors,workloads.kueue.x-k8s.io -A -o yaml`",
            ));
        }
        return Err(Error::usage(
            format!("LocalQueue `{ns}/{name}` not found"),
            format!(
                "check the name with `kubectl get localqueues -n {ns}`, or pass `-n NAMESPACE`"
            ),
        ));
    };
    let cq_name = &lq.spec.cluster_queue;
    let Some(cq) = k.cluster_queues.iter().find(|c| c.name() == cq_name) else {
        return Err(Error::usage(
            format!(
                "LocalQueue `{ns}/{name}` names ClusterQueue `{cq_name}`, which is not in the input"
            ),
            "check it with `kubectl get clusterqueues`",
        ));
    };
    let max = usize::try_from(max).unwrap_or(100);
    let priority = shape.pod_group.spec.priority;
    let fit = quota_copies(
        snapshot,
        (cq, lq),
        (shape.name(), &shape.pods, priority),
        max,
    )
    .map_err(|e| Error::usage(e, "fix the ClusterQueue's or Cohort's quota"))?;
    let mut shape = shape;
    if let Some(f) = &fit.flavor {
        with_flavor(&mut shape.pods, f);
    }
    Ok((shape, fit.queue))
}
