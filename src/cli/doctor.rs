//! `kubectl wasctl doctor`: cluster-wide checks (`WASD###`) over the snapshot and its graph.

use clap::Args;

use super::{Context, SelectorArgs, labels_match};
use crate::doctor::codes::ALL;
use crate::doctor::{Check, Options, Selection, Severity, report};
use crate::error::{Error, ExitStatus};
use crate::graph::Graph;
use crate::render::doctor::{write_notes, write_text_scoped};

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
    let snapshot = ctx.load()?;
    let graph = Graph::build(&snapshot);
    let options = Options {
        now: snapshot.now(),
        gate_overrides: ctx.gate_overrides()?,
        stuck_after: args.stuck_after,
    };
    let selection = Selection {
        namespace: ctx.namespace_scope(&snapshot),
        only,
        skip,
    };
    let selector = args.selector.compile()?;
    let mut report = report(&snapshot, &graph, &options, &selection);
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
        let elsewhere = crate::doctor::report(&snapshot, &graph, &options, &everywhere)
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
    if let Some(sel) = &selector {
        let before = report.findings.len();
        report
            .findings
            .retain(|f| labels_match(&snapshot, sel, &f.object));
        report.summary = crate::doctor::Summary::of(&report.findings);
        if report.findings.is_empty() && before > 0 {
            empty = Some(format!(
                "no findings match the selector {} ({before} without it)",
                args.selector.selector.as_deref().unwrap_or_default()
            ));
        }
    }
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
