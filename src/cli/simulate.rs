//! `kubectl wasctl simulate`: run every pending unit through the simulator in queue order.

use crate::snapshot::ObjKind;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::format::TableOutput;
use super::{
    Context, SelectorArgs, TableFormat, labels_match, parse_target, require_nodes_and_pods,
    resolve_target,
};
use crate::error::{Error, ExitStatus};
use crate::render::json::{Envelope, write_yaml};
use crate::render::plan::{TextOptions, write_names, write_notes, write_text};
use crate::sched::plan::Summary;
use crate::sched::schedule_one::Mode;
use crate::sched::{Options, whatif};
use crate::snapshot::Snapshot;
use crate::snapshot::source::{Collector, files};

/// The what-if flags `simulate` and `explain` share: changes applied to a copy of the
/// snapshot before simulating.
#[derive(Debug, Args)]
pub struct WhatIfArgs {
    /// Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating.
    #[arg(long, value_name = "FILE")]
    pub add: Vec<PathBuf>,
    /// Drain these nodes first (cordon; controller-owned pods become pending again).
    #[arg(long, value_name = "NODE")]
    pub drain: Vec<String>,
    /// Cordon these nodes first.
    #[arg(long, value_name = "NODE")]
    pub cordon: Vec<String>,
    /// Add N copies of the `--like` node (at most 5000).
    #[arg(long, value_name = "N", requires = "like", value_parser = parse_add_nodes)]
    pub add_nodes: Option<usize>,
    /// The node `--add-nodes` copies.
    #[arg(long, value_name = "NODE", requires = "add_nodes")]
    pub like: Option<String>,
    /// `exhaustive`: filter and score every node; `compat`: upstream's node sampling.
    #[arg(long, value_enum, default_value_t = Mode::Exhaustive)]
    pub mode: Mode,
    /// Do not simulate preemption: unschedulable units stay unschedulable.
    #[arg(long)]
    pub no_preemption: bool,
}

impl WhatIfArgs {
    /// Whether any what-if flag that changes the snapshot is given.
    pub(super) fn any(&self) -> bool {
        !self.add.is_empty()
            || !self.drain.is_empty()
            || !self.cordon.is_empty()
            || self.add_nodes.is_some()
    }
}

/// `simulate` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Simulate only this unit (`pg/NAME`, `cpg/NAME`, `pod/NAME`); the rest of the queue is ignored.
    #[arg(long, value_name = "TYPE/NAME")]
    pub only: Option<String>,
    /// Label selector: report only the units whose object's labels match (the whole queue is
    /// still simulated, so the others still take their room).
    #[command(flatten)]
    pub selector: SelectorArgs,
    /// What-ifs.
    #[command(flatten)]
    pub what_if: WhatIfArgs,
    /// Also show which device goes to which claim, pod and gang (a per-node device map).
    #[arg(long)]
    pub devices: bool,
    /// Output format: `text`, `wide`, `name`, `json`, `yaml`, or kubectl's
    /// `jsonpath=TEMPLATE`, `jsonpath-file=FILE`, `custom-columns=SPEC`,
    /// `custom-columns-file=FILE` (rows: the units).
    #[arg(short = 'o', long = "output", value_name = "FORMAT", default_value = "text",
          value_parser = super::format::table_output())]
    pub output: TableOutput,
    /// Keep following the cluster after printing the result, as `kubectl get -w`: one line
    /// per unit whose result changed, with the changes that caused it (`-o json`: one
    /// `WatchEvent` object per line). Ctrl-C ends it.
    #[arg(short = 'w', long)]
    pub watch: bool,
}

/// `--add-nodes N`: at most [`whatif::MAX_ADD_NODES`]; more is refused by clap (exit 2)
/// before any node is copied.
fn parse_add_nodes(text: &str) -> Result<usize, String> {
    let n: usize = text.parse().map_err(|_| {
        format!(
            "`{text}` is not a number of nodes from 0 to {}",
            whatif::MAX_ADD_NODES
        )
    })?;
    if n > whatif::MAX_ADD_NODES {
        return Err(format!(
            "{n} is too many: at most {} nodes can be added (the largest cluster Kubernetes supports)",
            whatif::MAX_ADD_NODES
        ));
    }
    Ok(n)
}

fn what_if_error(e: String) -> Error {
    Error::usage(
        e,
        "check the node names with `kubectl wasctl tree -A` or `kubectl get nodes`",
    )
}

/// Applies the what-if flags to `snapshot`; returns their descriptions. An `--add` object
/// that replaces one of the snapshot's (same kind, namespace and name) is named on stderr
/// ("replaced Node/gpu-a1"), whatever the output format.
pub(crate) fn apply_what_ifs(
    ctx: &Context,
    snapshot: &mut Snapshot,
    args: &WhatIfArgs,
) -> Result<Vec<String>, Error> {
    let gate_overrides = &ctx.gate_overrides()?;
    let mut applied = Vec::new();
    if !args.add.is_empty() {
        let mut collector = Collector::new();
        for path in &args.add {
            files::load_path(path, &mut collector)?;
        }
        let replaced = whatif::add_manifests(snapshot, collector.finish(), gate_overrides)
            .map_err(|m| super::refused(m, &args.add))?;
        if !replaced.is_empty() {
            let style = ctx.err_color.styler();
            let mut err = Vec::new();
            for r in &replaced {
                writeln!(
                    err,
                    "{} {} (by the --add object of the same kind and name)",
                    style.warn("note:"),
                    crate::sanitize::sanitize(&r.to_string())
                )?;
            }
            ctx.stderr(&err)?;
        }
        applied.push(format!(
            "added the objects of {}",
            args.add
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for node in &args.cordon {
        whatif::cordon(snapshot, node).map_err(what_if_error)?;
        applied.push(format!("cordoned node `{node}`"));
    }
    for node in &args.drain {
        let (recreated, deleted) = whatif::drain(snapshot, node).map_err(what_if_error)?;
        applied.push(format!(
            "drained node `{node}`: {recreated} pod(s) pending again, {deleted} bare pod(s) deleted"
        ));
    }
    if let (Some(n), Some(like)) = (args.add_nodes, &args.like) {
        let added = whatif::add_nodes(snapshot, n, like).map_err(what_if_error)?;
        applied.push(added.describe(like));
    }
    Ok(applied)
}

/// `--only`, parsed and checked to name a unit.
fn only_target(args: &SimulateArgs) -> Result<Option<(ObjKind, String)>, Error> {
    let only = args.only.as_deref().map(parse_target).transpose()?;
    if let Some((kind, _)) = &only
        && !matches!(
            kind,
            ObjKind::PodGroup | ObjKind::CompositePodGroup | ObjKind::Pod
        )
    {
        return Err(Error::usage(
            format!("`--only` takes a unit: `pg/`, `cpg/` or `pod/`, not `{kind}`"),
            "name the PodGroup, the root CompositePodGroup, or a pod without a group",
        ));
    }
    Ok(only)
}

pub(crate) fn run(ctx: &Context, args: &SimulateArgs) -> Result<ExitStatus, Error> {
    let only = only_target(args)?;
    let mut snapshot = ctx.load()?;
    require_nodes_and_pods(&snapshot)?;
    let what_if = apply_what_ifs(ctx, &mut snapshot, &args.what_if)?;
    let only = match only {
        Some((kind, name)) => Some(resolve_target(ctx, &snapshot, &kind, &name)?),
        None => None,
    };
    let (plan, empty) = simulated(ctx, args, &snapshot, only.as_ref(), what_if)?;
    let mut out = Vec::new();
    write_result(ctx, args, &snapshot, &plan, empty, &mut out)?;
    ctx.stdout(&out)?;
    super::release((plan, snapshot));
    Ok(ExitStatus::Success)
}

/// The unit `--only` names in `snapshot` (`simulate --watch` resolves it once).
pub(super) fn resolve_only(
    ctx: &Context,
    args: &SimulateArgs,
    snapshot: &Snapshot,
) -> Result<Option<crate::snapshot::ObjRef>, Error> {
    match only_target(args)? {
        Some((kind, name)) => Ok(Some(resolve_target(ctx, snapshot, &kind, &name)?)),
        None => Ok(None),
    }
}

/// Simulates `snapshot` as `simulate` does and narrows the plan to what it shows (`-n`,
/// `-l`), with the sentence an empty result prints instead of a table.
pub(super) fn simulated(
    ctx: &Context,
    args: &SimulateArgs,
    snapshot: &Snapshot,
    only: Option<&crate::snapshot::ObjRef>,
    what_if: Vec<String>,
) -> Result<(crate::sched::plan::Plan, Option<String>), Error> {
    let only = only.cloned();
    let options = Options {
        mode: args.what_if.mode,
        gate_overrides: ctx.gate_overrides()?,
        only: only.clone(),
        device_map: args.devices,
        no_preemption: args.what_if.no_preemption,
        what_if,
        ..Options::default()
    };
    let (mut plan, _staged) =
        crate::kueue::dry_run::simulate(snapshot, &options).map_err(super::kueue_error)?;
    super::profile::phase("simulate");
    if let Some(only) = &only
        && plan.units.is_empty()
    {
        return Err(Error::usage(
            format!(
                "{} `{}/{}` is not a pending unit",
                only.kind, only.namespace, only.name
            ),
            "run `kubectl wasctl simulate` to list the units; a PodGroup inside a CompositePodGroup tree is scheduled with its root",
        ));
    }
    // An empty result names the scope that emptied it, as kubectl does ("No resources found in
    // default namespace."): the namespace, with what is pending elsewhere, or the selector.
    let mut empty = None;
    if let Some(ns) = ctx.namespace_scope(snapshot) {
        let everywhere = plan.units.len();
        plan.units.retain(|u| u.namespace == ns);
        plan.summary = Summary::of(&plan.units);
        if plan.units.is_empty() {
            empty = Some(if everywhere > 0 {
                format!(
                    "No pending units in namespace {ns} ({everywhere} pending in other namespaces; use -A)."
                )
            } else {
                format!("No pending units in namespace {ns}: every pod is bound.")
            });
        }
    }
    if let Some(sel) = args.selector.compile()? {
        let before = plan.units.len();
        plan.units
            .retain(|u| labels_match(snapshot, &sel, &u.obj_ref()));
        plan.summary = Summary::of(&plan.units);
        if plan.units.is_empty() && before > 0 {
            empty = Some(format!(
                "No pending units match the selector {} ({before} pending without it).",
                args.selector.selector.as_deref().unwrap_or_default()
            ));
        }
    }
    // The notes of the units shown.
    plan.refresh_notes();
    Ok((plan, empty))
}

/// Writes a simulated plan as `-o` asks into `out` (JSON straight to stdout, pretty; with
/// `--watch` into `out`, on one line), its notes to stderr in text mode.
pub(super) fn write_result(
    ctx: &Context,
    args: &SimulateArgs,
    snapshot: &Snapshot,
    plan: &crate::sched::plan::Plan,
    empty: Option<String>,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let text = |wide| TextOptions {
        wide,
        hide_namespace: ctx.one_namespace(snapshot),
        empty: empty.clone(),
        // `-o wide` prints whole, as kubectl does.
        width: if wide { None } else { ctx.width() },
    };
    let format = match &args.output {
        TableOutput::Plain(f) => *f,
        TableOutput::Template(t) => {
            return ctx.write_template(t, "SimulationReport", plan, |doc| {
                super::format::rows_at(doc, "units")
            });
        }
    };
    match format {
        TableFormat::Text => write_text(out, plan, ctx.color.styler(), text(false))?,
        TableFormat::Wide => write_text(out, plan, ctx.color.styler(), text(true))?,
        TableFormat::Name => write_names(out, plan)?,
        TableFormat::Json if args.watch => {
            serde_json::to_writer(&mut *out, &Envelope::new("SimulationReport", plan))
                .map_err(std::io::Error::other)?;
            out.push(b'\n');
        }
        TableFormat::Json => ctx.stdout_json(&Envelope::new("SimulationReport", plan))?,
        TableFormat::Yaml => write_yaml(out, &Envelope::new("SimulationReport", plan))?,
    }
    if matches!(format, TableFormat::Text | TableFormat::Wide) {
        // The lines around the table (gates, preemptions, summary) wrap at the width.
        if format == TableFormat::Text {
            let whole = String::from_utf8_lossy(out);
            *out = crate::render::fit::fit_prose(&whole, ctx.width()).into_bytes();
        }
        let mut err = Vec::new();
        write_notes(&mut err, plan, ctx.verbosity(), ctx.err_color.styler())?;
        ctx.stderr(&err)?;
    }
    Ok(())
}
