//! `kubectl wasctl tree [TYPE/NAME]`.

use clap::Args;

use super::format::TableOutput;
use super::{Context, SelectorArgs, TableFormat, labels_match, parse_target_words, resolve_target};
use crate::error::{Error, ExitStatus};
use crate::graph::Graph;
use crate::render::json::{Envelope, write_yaml};
use crate::render::tree::{TextOptions, write_names, write_notes, write_text};
use crate::sched::Options;
use crate::sched::plan::Plan;
use crate::snapshot::{ObjKind, ObjRef, Snapshot};
use crate::tree::{TreeNode, TreeReport, TreeScope, build};

/// `tree` flags.
#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Show one object's chain: `workload/`, `compositepodgroup/` (`cpg/`), `podgroup/`
    /// (`pg/`), `pod/`, `job/`, `resourceclaim/` followed by the name (or `TYPE NAME`); or
    /// `node/NAME`: what runs on a node, by gang and claim. Kueue: `kwl/` (its Workload, above
    /// the Job), `clusterqueue/` (`cq/`) or `localqueue/` (`lq/`): quota per flavor and the
    /// workloads admitted and waiting.
    #[arg(value_name = "TYPE/NAME", num_args = 0..=2)]
    pub target: Vec<String>,
    /// Label selector.
    #[command(flatten)]
    pub selector: SelectorArgs,
    /// Output format: `text`, `wide`, `name`, `json`, `yaml`, or kubectl's
    /// `jsonpath=TEMPLATE`, `jsonpath-file=FILE`, `custom-columns=SPEC`,
    /// `custom-columns-file=FILE` (rows: the objects, depth first).
    #[arg(short = 'o', long = "output", value_name = "FORMAT", default_value = "text",
          value_parser = super::format::table_output())]
    pub output: TableOutput,
    /// Show the recorded status only, without simulating the pending groups (no SIMULATED
    /// column, no `simulated` keys in `-o json`): at 150,000 pods the simulation is a third of
    /// the command's time.
    #[arg(long)]
    pub no_simulate: bool,
    /// Keep following the cluster after printing the tree, as `kubectl get -w`: one line per
    /// object whose status or simulated outcome changed, with the changes that caused it
    /// (`-o json`: one `WatchEvent` object per line). Ctrl-C ends it.
    #[arg(short = 'w', long)]
    pub watch: bool,
}

/// True when `node` or something below it is an object whose labels match.
fn subtree_matches(
    s: &crate::snapshot::Snapshot,
    sel: &crate::sched::selector::LabelSelector,
    node: &TreeNode,
) -> bool {
    labels_match(s, sel, &node.obj_ref())
        || node.children.iter().any(|c| subtree_matches(s, sel, c))
}

pub(crate) fn run(ctx: &Context, args: &TreeArgs) -> Result<ExitStatus, Error> {
    let parsed = (!args.target.is_empty())
        .then(|| parse_target_words(&args.target))
        .transpose()?;
    let selector = args.selector.compile()?;
    if args.watch {
        return watch(ctx, args, parsed, selector);
    }
    let snapshot = ctx.load()?;
    let target = match parsed {
        Some((kind, name)) => Some(resolve_target(ctx, &snapshot, &kind, &name)?),
        None => None,
    };
    if let Some(t) = &target
        && matches!(t.kind, ObjKind::ClusterQueue | ObjKind::LocalQueue)
    {
        return run_queue(ctx, args, &snapshot, t);
    }
    let (report, empty, rest) = made(ctx, args, &snapshot, target, selector.as_ref())?;
    write_report(ctx, &args.output, &snapshot, &report, empty)?;
    super::release((report, rest));
    super::release(snapshot);
    Ok(ExitStatus::Success)
}

/// What a tree report was made from: the graph and the plan.
type MadeFrom = (Graph, Option<Plan>);

/// The tree report of `snapshot` for `target` (or the namespace's forest), narrowed by the
/// selector, with the sentence an empty result prints; and the graph and plan it was made
/// from (left to [`super::release`]).
fn made(
    ctx: &Context,
    args: &TreeArgs,
    snapshot: &Snapshot,
    target: Option<ObjRef>,
    selector: Option<&crate::sched::selector::LabelSelector>,
) -> Result<(TreeReport, Option<String>, MadeFrom), Error> {
    let scope = TreeScope {
        namespace: ctx.namespace_scope(snapshot),
        target,
    };
    let now = snapshot.now();
    // The simulated outcome beside the recorded status: the same plan `simulate` makes.
    let options = Options {
        gate_overrides: ctx.gate_overrides()?,
        ..Options::default()
    };
    // The graph and the plan are independent reads of the snapshot: made at once on two
    // cores (at 150,000 pods the graph takes a quarter of a second, the plan two).
    let (graph, plan) = if args.no_simulate {
        (Graph::build(snapshot), None)
    } else {
        // On a cluster that runs Kueue, the plan simulate makes: Kueue's admission first.
        let (graph, plan) = Graph::build_beside(snapshot, || {
            crate::kueue::dry_run::simulate(snapshot, &options).map(|(plan, _)| plan)
        });
        (graph, Some(plan.map_err(super::kueue_error)?))
    };
    super::profile::phase("simulate");
    let assumed = plan.as_ref().map_or_else(
        || snapshot.facts.assumed.clone(),
        |p| p.settings.assumed.clone(),
    );
    let mut report = build(
        snapshot,
        &graph,
        &scope,
        now,
        assumed.clone(),
        plan.as_ref(),
    );
    let empty = narrow(
        &mut report,
        snapshot,
        &scope,
        selector.map(|sel| (sel, args)),
        || {
            let all = TreeScope::default();
            build(snapshot, &graph, &all, now, assumed, plan.as_ref())
                .roots
                .len()
        },
    );
    super::profile::phase("report");
    Ok((report, empty, (graph, plan)))
}

/// `tree --watch`: the tree, then a line per object whose row changed.
struct Following<'a> {
    args: &'a TreeArgs,
    target: Option<ObjRef>,
    selector: Option<crate::sched::selector::LabelSelector>,
}

impl super::watch::Followed for Following<'_> {
    type Report = (TreeReport, Option<String>);
    type Event = crate::report::ObjectChange;

    fn report(&self, ctx: &Context, snapshot: &Snapshot) -> Result<Self::Report, Error> {
        let (report, empty, _) = made(
            ctx,
            self.args,
            snapshot,
            self.target.clone(),
            self.selector.as_ref(),
        )?;
        Ok((report, empty))
    }

    fn write_first(
        &self,
        ctx: &Context,
        snapshot: &Snapshot,
        (report, empty): &Self::Report,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        if self.args.output == TableOutput::Plain(TableFormat::Json) {
            serde_json::to_writer(&mut *out, &Envelope::new("Tree", report))
                .map_err(std::io::Error::other)?;
            out.push(b'\n');
            return Ok(());
        }
        write_report(ctx, &self.args.output, snapshot, report, empty.clone())
    }

    fn changes(
        &self,
        (_, (old, _)): (&Snapshot, &Self::Report),
        (_, (new, _)): (&Snapshot, &Self::Report),
        causes: &[String],
    ) -> Vec<Self::Event> {
        crate::tree::watch::changes(old, new, causes)
    }
}

/// `tree --watch`.
fn watch(
    ctx: &Context,
    args: &TreeArgs,
    parsed: Option<(ObjKind, String)>,
    selector: Option<crate::sched::selector::LabelSelector>,
) -> Result<ExitStatus, Error> {
    let streamed = matches!(
        args.output,
        TableOutput::Plain(TableFormat::Text | TableFormat::Wide | TableFormat::Json)
    );
    super::watch::check(ctx, streamed, false)?;
    if let Some((ObjKind::ClusterQueue | ObjKind::LocalQueue, _)) = &parsed {
        return Err(Error::usage(
            "`tree --watch` follows objects' status: a queue's quota view is not streamed",
            "drop `--watch`, or watch the Kueue Workload (`tree kwl/NAME --watch`)",
        ));
    }
    let json = args.output == TableOutput::Plain(TableFormat::Json);
    super::watch::follow(ctx, json, |snapshot| {
        let target = match parsed {
            Some((kind, name)) => Some(resolve_target(ctx, snapshot, &kind, &name)?),
            None => None,
        };
        Ok(Following {
            args,
            target,
            selector,
        })
    })
}

/// Applies the label selector to `report`'s roots, and says why the result is empty when its
/// scope emptied it, as kubectl does ("No resources found in default namespace."): the
/// namespace, with how many trees other namespaces hold (`elsewhere`, counted only when this
/// one has none), or the selector.
fn narrow(
    report: &mut TreeReport,
    snapshot: &Snapshot,
    scope: &TreeScope,
    selector: Option<(&crate::sched::selector::LabelSelector, &TreeArgs)>,
    elsewhere: impl FnOnce() -> usize,
) -> Option<String> {
    const WHAT: &str = "No Workloads, PodGroups or CompositePodGroups";
    let mut empty = None;
    if report.roots.is_empty()
        && scope.target.is_none()
        && let Some(ns) = &scope.namespace
    {
        let elsewhere = elsewhere();
        empty = Some(if elsewhere > 0 {
            format!("{WHAT} in namespace {ns} ({elsewhere} in other namespaces; use -A).")
        } else {
            format!("{WHAT} in namespace {ns}.")
        });
    }
    if let Some((sel, args)) = selector {
        let before = report.roots.len();
        report.roots.retain(|r| subtree_matches(snapshot, sel, r));
        if report.roots.is_empty() && before > 0 {
            empty = Some(format!(
                "{WHAT} match the selector {} ({before} without it).",
                args.selector.selector.as_deref().unwrap_or_default()
            ));
        }
    }
    empty
}

/// Prints the tree report in the chosen format (its notes go to stderr with the text views).
fn write_report(
    ctx: &Context,
    output: &TableOutput,
    snapshot: &Snapshot,
    report: &TreeReport,
    empty: Option<String>,
) -> Result<(), Error> {
    let text = |wide| TextOptions {
        wide,
        hide_namespace: ctx.one_namespace(snapshot),
        empty: empty.clone(),
        // `-o wide` prints whole, as kubectl does.
        width: if wide { None } else { ctx.width() },
    };
    let format = match output {
        TableOutput::Plain(f) => *f,
        TableOutput::Template(t) => {
            return ctx.write_template(t, "Tree", report, |doc| {
                let mut rows = Vec::new();
                for root in super::format::rows_at(doc, "roots") {
                    tree_rows(root, &mut rows);
                }
                rows
            });
        }
    };
    let mut out = Vec::new();
    match format {
        TableFormat::Text => write_text(&mut out, report, ctx.color.styler(), text(false))?,
        TableFormat::Wide => write_text(&mut out, report, ctx.color.styler(), text(true))?,
        TableFormat::Name => write_names(&mut out, report)?,
        TableFormat::Json => ctx.stdout_json(&Envelope::new("Tree", report))?,
        TableFormat::Yaml => write_yaml(&mut out, &Envelope::new("Tree", report))?,
    }
    if matches!(format, TableFormat::Text | TableFormat::Wide) {
        // The lines around the table (gates, preemptions, summary) wrap at the width.
        if format == TableFormat::Text {
            let whole = String::from_utf8_lossy(&out);
            out = crate::render::fit::fit_prose(&whole, ctx.width()).into_bytes();
        }
        let mut err = Vec::new();
        write_notes(&mut err, report, ctx.verbosity(), ctx.err_color.styler())?;
        ctx.stderr(&err)?;
    }
    ctx.stdout(&out)
}

/// `tree clusterqueue/NAME` and `tree localqueue/NAME`: the queue's quota and workloads.
fn run_queue(
    ctx: &Context,
    args: &TreeArgs,
    snapshot: &Snapshot,
    target: &ObjRef,
) -> Result<ExitStatus, Error> {
    use crate::render::tree::{write_queue_names, write_queue_text};
    let k = &snapshot.kueue;
    let (cq_name, lq) = if target.kind == ObjKind::LocalQueue {
        let lq = k
            .local_queues
            .iter()
            .find(|q| q.namespace() == target.namespace && q.name() == target.name)
            .ok_or_else(|| {
                Error::usage(
                    format!(
                        "LocalQueue `{}/{}` not found",
                        target.namespace, target.name
                    ),
                    "check the name with `kubectl get localqueues -A`",
                )
            })?;
        (lq.spec.cluster_queue.clone(), Some(lq))
    } else {
        (target.name.clone(), None)
    };
    let Some(cq) = k.cluster_queues.iter().find(|c| c.name() == cq_name) else {
        let read = snapshot.coverage("ClusterQueue").covers(None);
        return Err(Error::usage(
            if read {
                format!(
                    "LocalQueue `{}/{}` names ClusterQueue `{cq_name}`, which does not exist",
                    target.namespace, target.name
                )
            } else {
                format!(
                    "LocalQueue `{}/{}` names ClusterQueue `{cq_name}`, which is not in the input (ClusterQueues were not read)",
                    target.namespace, target.name
                )
            },
            "check it with `kubectl get clusterqueues`",
        ));
    };
    let report = crate::tree::queue::build(snapshot, cq, lq)
        .map_err(|e| Error::usage(e, "fix the ClusterQueue's or Cohort's quota"))?;
    let mut out = Vec::new();
    let format = match &args.output {
        TableOutput::Plain(f) => *f,
        TableOutput::Template(t) => {
            // Rows: the workloads `-o name` lists, admitted first, then waiting.
            ctx.write_template(t, "QueueTree", &report, |doc| {
                let mut rows = super::format::rows_at(doc, "admitted");
                rows.extend(super::format::rows_at(doc, "pending"));
                rows
            })?;
            return Ok(ExitStatus::Success);
        }
    };
    match format {
        TableFormat::Text | TableFormat::Wide => {
            write_queue_text(&mut out, &report, ctx.color.styler())?;
        }
        TableFormat::Name => write_queue_names(&mut out, &report)?,
        TableFormat::Json => ctx.stdout_json(&Envelope::new("QueueTree", &report))?,
        TableFormat::Yaml => write_yaml(&mut out, &Envelope::new("QueueTree", &report))?,
    }
    if matches!(format, TableFormat::Text | TableFormat::Wide) {
        let mut err = Vec::new();
        let style = ctx.err_color.styler();
        for w in &report.warnings {
            use std::io::Write;
            writeln!(
                err,
                "{} {}",
                style.warn("warning:"),
                crate::sanitize::sanitize(&w.message)
            )?;
        }
        ctx.stderr(&err)?;
    }
    ctx.stdout(&out)?;
    Ok(ExitStatus::Success)
}

/// The rows of `tree`'s table in its `-o json` document: every node, depth first (a node
/// before its children, as the table draws them).
fn tree_rows<'a>(node: &'a serde_json::Value, rows: &mut Vec<&'a serde_json::Value>) {
    rows.push(node);
    for child in super::format::rows_at(node, "children") {
        tree_rows(child, rows);
    }
}
