//! `kubectl wasctl doctor`: cluster-wide checks (`WASD###`) over the snapshot and its graph.

use clap::Args;

use super::ReportFormat;
use super::format::ReportOutput;
use super::{Context, SelectorArgs, labels_match};
use crate::doctor::codes::ALL;
use crate::doctor::{Check, DoctorReport, Options, Selection, Severity, report};
use crate::error::{Error, ExitStatus};
use crate::graph::Graph;
use crate::render::doctor::{write_notes, write_text_scoped};
use crate::render::json::Envelope;

/// `doctor` flags.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Exit 1 when a finding has this severity or a higher one (default: always exit 0).
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub fail_on: Option<FailOn>,
    /// Run only these checks (`WASD001`…); repeatable or comma-separated.
    #[arg(long, value_name = "ID", value_delimiter = ',', num_args = 1..)]
    pub only: Vec<String>,
    /// Skip these checks; repeatable or comma-separated.
    #[arg(long, value_name = "ID", value_delimiter = ',', num_args = 1..)]
    pub skip: Vec<String>,
    /// Print the check table and exit.
    #[arg(long)]
    pub list_checks: bool,
    /// How long a Volcano PodGroup may stay `Pending` or `Inqueue` before WASD304 reports it
    /// (`10m`, `1h30m`, `90s`).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_stuck_after)]
    pub stuck_after: k8s_openapi::jiff::SignedDuration,
    /// Label selector: only findings about objects whose labels match.
    #[command(flatten)]
    pub selector: SelectorArgs,
    /// Output format: `text`, `json`, `yaml`, or kubectl's `jsonpath=TEMPLATE`,
    /// `jsonpath-file=FILE`, `custom-columns=SPEC`, `custom-columns-file=FILE` (rows:
    /// the findings).
    #[arg(short = 'o', long = "output", value_name = "FORMAT", default_value = "text",
          value_parser = super::format::report_output())]
    pub output: super::format::ReportOutput,
    /// Keep following the cluster after printing the findings, as `kubectl get -w`: one line
    /// per finding that appeared or went away, with the changes that caused it (`-o json`:
    /// one `WatchEvent` object per line). Ctrl-C ends it (exit 0, whatever `--fail-on`).
    #[arg(short = 'w', long)]
    pub watch: bool,
}

/// `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Exit 1 when an error is found.
    Error,
    /// Exit 1 when an error or a warning is found.
    Warning,
}

impl From<FailOn> for Severity {
    fn from(f: FailOn) -> Self {
        match f {
            FailOn::Error => Self::Error,
            FailOn::Warning => Self::Warning,
        }
    }
}

/// `--stuck-after`: a non-negative duration (`10m`, `1h30m`, `90s`).
fn parse_stuck_after(text: &str) -> Result<k8s_openapi::jiff::SignedDuration, String> {
    let d: k8s_openapi::jiff::SignedDuration = text
        .parse()
        .map_err(|e| format!("`{text}` is not a duration such as `10m` or `1h30m` ({e})"))?;
    if d.is_negative() {
        return Err(format!("`{text}` is negative"));
    }
    Ok(d)
}

fn parse_ids(ids: &[String]) -> Result<Vec<Check>, Error> {
    ids.iter()
        .filter(|id| !id.trim().is_empty())
        .map(|id| {
            Check::parse(id).ok_or_else(|| {
                Error::usage(
                    format!("unknown check `{id}`"),
                    "list the checks with `kubectl wasctl doctor --list-checks`",
                )
            })
        })
        .collect()
}

fn list_checks() -> String {
    let mut out = format!("{:<8} {:<8} TITLE\n", "ID", "SEVERITY");
    for c in ALL {
        out.push_str(&format!(
            "{:<8} {:<8} {}\n",
            c.id(),
            c.severity().as_str(),
            c.title()
        ));
    }
    out
}

pub(crate) fn run(ctx: &Context, args: &DoctorArgs) -> Result<ExitStatus, Error> {
    if args.list_checks {
        ctx.stdout(list_checks().as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    let only = parse_ids(&args.only)?;
    let skip = parse_ids(&args.skip)?;
    let selector = args.selector.compile()?;
    let picked = Picked {
        only,
        skip,
        selector,
    };
    if args.watch {
        return watch(ctx, args, picked);
    }
    let snapshot = ctx.load()?;
    let (report, empty) = made(ctx, args, &snapshot, &picked)?;
    ctx.write_report(
        &args.output,
        ("DoctorReport", Some("findings")),
        &report,
        |out, style| write_text_scoped(out, &report, style, empty.as_deref()),
        |err, verbosity, style| write_notes(err, &report, verbosity, style),
    )?;
    Ok(match args.fail_on {
        Some(at) if report.fails(at.into()) => ExitStatus::Findings,
        _ => ExitStatus::Success,
    })
}

/// The checks and objects asked for: `--only`, `--skip`, `-l`.
struct Picked {
    only: Vec<Check>,
    skip: Vec<Check>,
    selector: Option<crate::sched::selector::LabelSelector>,
}

/// The doctor report of `snapshot`, with the sentence an empty result prints.
fn made(
    ctx: &Context,
    args: &DoctorArgs,
    snapshot: &crate::snapshot::Snapshot,
    picked: &Picked,
) -> Result<(DoctorReport, Option<String>), Error> {
    let graph = Graph::build(snapshot);
    let options = Options {
        now: snapshot.now(),
        gate_overrides: ctx.gate_overrides()?,
        stuck_after: args.stuck_after,
    };
    let selection = Selection {
        namespace: ctx.namespace_scope(snapshot),
        only: picked.only.clone(),
        skip: picked.skip.clone(),
    };
    let mut report = report(snapshot, &graph, &options, &selection);
    // An empty result names the scope that emptied it, as kubectl does: the namespace, with
    // how many findings the others have (checked again without the namespace only when this
    // one has none), or the selector.
    let mut empty = None;
    if report.findings.is_empty()
        && let Some(ns) = &selection.namespace
    {
        let everywhere = Selection {
            namespace: None,
            ..selection.clone()
        };
        let elsewhere = crate::doctor::report(snapshot, &graph, &options, &everywhere)
            .findings
            .len();
        if elsewhere > 0 {
            empty = Some(format!(
                "no findings in namespace {ns} ({elsewhere} in other namespaces; use -A)"
            ));
        } else {
            empty = Some(format!("no findings in namespace {ns}"));
        }
    }
    if let Some(sel) = &picked.selector {
        let before = report.findings.len();
        report
            .findings
            .retain(|f| labels_match(snapshot, sel, &f.object));
        report.summary = crate::doctor::Summary::of(&report.findings);
        if report.findings.is_empty() && before > 0 {
            empty = Some(format!(
                "no findings match the selector {} ({before} without it)",
                args.selector.selector.as_deref().unwrap_or_default()
            ));
        }
    }
    Ok((report, empty))
}

/// `doctor --watch`: the findings, then a line per finding that appeared or went away.
struct Following<'a> {
    args: &'a DoctorArgs,
    picked: Picked,
}

impl super::watch::Followed for Following<'_> {
    type Report = (DoctorReport, Option<String>);
    type Event = crate::report::ObjectChange;

    fn report(
        &self,
        ctx: &Context,
        snapshot: &crate::snapshot::Snapshot,
    ) -> Result<Self::Report, Error> {
        made(ctx, self.args, snapshot, &self.picked)
    }

    fn write_first(
        &self,
        ctx: &Context,
        _: &crate::snapshot::Snapshot,
        (report, empty): &Self::Report,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        if self.args.output == ReportOutput::Plain(ReportFormat::Json) {
            serde_json::to_writer(&mut *out, &Envelope::new("DoctorReport", report))
                .map_err(std::io::Error::other)?;
            out.push(b'\n');
            return Ok(());
        }
        ctx.write_report(
            &self.args.output,
            ("DoctorReport", Some("findings")),
            report,
            |out, style| write_text_scoped(out, report, style, empty.as_deref()),
            |err, verbosity, style| write_notes(err, report, verbosity, style),
        )
    }

    fn changes(
        &self,
        (_, (old, _)): (&crate::snapshot::Snapshot, &Self::Report),
        (_, (new, _)): (&crate::snapshot::Snapshot, &Self::Report),
        causes: &[String],
    ) -> Vec<Self::Event> {
        crate::doctor::watch::changes(old, new, causes)
    }
}

/// `doctor --watch`.
fn watch(ctx: &Context, args: &DoctorArgs, picked: Picked) -> Result<ExitStatus, Error> {
    let streamed = matches!(
        args.output,
        ReportOutput::Plain(ReportFormat::Text | ReportFormat::Json)
    );
    super::watch::check(ctx, streamed, false)?;
    let json = args.output == ReportOutput::Plain(ReportFormat::Json);
    super::watch::follow(ctx, json, |_| Ok(Following { args, picked }))
}
