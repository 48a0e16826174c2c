//! `kubectl wasctl shadow`: predict every pending unit, then watch what the cluster's
//! scheduler does with it and score the prediction (agreed, disagreed by kind, undecided).
//!
//! The cluster is listed once and followed by WATCH as `--watch` does ([`super::watch`]);
//! the scoring is [`crate::plan::shadow`]'s. Each batch of events settles what was decided
//! and predicts the units that became pending; a tick every second settles what stayed
//! pending past `--undecided-after`. A summary is printed every `--summary-every` and on
//! exit. Ctrl-C ends it with exit 0; a lost API server with exit 3.

use std::io::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::Args;

use super::watch::{Batch, advance_clock, apply_batch, next_batch, stop_flag};
use super::{Context, require_nodes_and_pods};
use crate::error::{Error, ExitStatus};
use crate::plan::shadow::{Shadow, ShadowEvent, ShadowReport, Verdict, preemption_victim, words};
use crate::render::json::Envelope;
use crate::sanitize::sanitize;
use crate::sched::Options;
use crate::sched::plan::Plan;
use crate::snapshot::Snapshot;
use crate::snapshot::source::live::Update;

/// How often the loop settles what stayed pending, when no event comes.
const SETTLE_EVERY: Duration = Duration::from_secs(1);

/// `shadow` flags.
#[derive(Debug, Args)]
pub struct ShadowArgs {
    /// How long a unit may stay pending before it counts as undecided (`30s`, `10m`, `1h`).
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub undecided_after: String,
    /// How often to print the summary (it is also printed on exit).
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub summary_every: String,
    /// Output format: `text` (a line per prediction and per settled unit), or `json` (one
    /// `ShadowEvent` or `ShadowReport` object per line).
    #[arg(short = 'o', long = "output", value_enum, value_name = "FORMAT", default_value_t = ShadowFormat::Text)]
    pub output: ShadowFormat,
}

/// `shadow -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShadowFormat {
    /// Lines of text.
    Text,
    /// One JSON object per line (`apiVersion: wasctl.dev/v1alpha1`).
    Json,
}

/// A positive duration, as kubectl writes them (`30s`, `10m`, `1h30m`; a bare number is
/// seconds).
fn duration(flag: &str, text: &str) -> Result<Duration, Error> {
    match crate::snapshot::source::live::parse_request_timeout(text) {
        Ok(Some(d)) => Ok(d),
        Ok(None) => Err(Error::usage(
            format!("invalid `{flag}`: it must be longer than 0"),
            format!("write e.g. `{flag} 10m`"),
        )),
        Err(e) => Err(Error::usage(
            format!("invalid `{flag}`: {e}"),
            format!("write e.g. `{flag} 10m` or `{flag} 30s`"),
        )),
    }
}

/// The cause every disagreement may have: the scheduler configuration wasctl simulated.
fn config_cause(ctx: &Context) -> String {
    match &ctx.global.scheduler_config {
        Some(source) => format!(
            "the scheduler configuration given (`{source}`) may differ from the one kube-scheduler runs"
        ),
        None => "no `--scheduler-config` given: wasctl simulated kube-scheduler's default profile, the cluster's may differ".to_owned(),
    }
}

/// The plan of the units shown (`-n`, or every namespace with `-A`).
fn plan_of(ctx: &Context, snapshot: &Snapshot) -> Result<Plan, Error> {
    let options = Options {
        gate_overrides: ctx.gate_overrides()?,
        ..Options::default()
    };
    let (mut plan, _) =
        crate::kueue::dry_run::simulate(snapshot, &options).map_err(super::kueue_error)?;
    if let Some(ns) = ctx.namespace_scope(snapshot) {
        plan.units.retain(|u| u.namespace == ns);
    }
    Ok(plan)
}

pub(crate) fn run(ctx: &Context, args: &ShadowArgs) -> Result<ExitStatus, Error> {
    let undecided_after = duration("--undecided-after", &args.undecided_after)?;
    let summary_every = duration("--summary-every", &args.summary_every)?;
    if ctx.is_offline() {
        return Err(Error::usage(
            "`shadow` watches what a live cluster's scheduler does: it cannot be used with `--from` or `--demo`",
            "drop `--from`/`--demo` to shadow the cluster of the current context, or use `simulate` on the files",
        ));
    }
    let stop = stop_flag()?;
    let (mut snapshot, watched) = ctx.load_watched()?;
    require_nodes_and_pods(&snapshot)?;
    let started = Instant::now();
    let listed_at = snapshot.now();
    let mut shadow = Shadow::new(config_cause(ctx));
    let plan = plan_of(ctx, &snapshot)?;
    let events = shadow.predict(&snapshot, &plan, started.elapsed());
    write_events(ctx, args, &events)?;
    let mut next_summary = started + summary_every;
    loop {
        let until = next_summary.min(Instant::now() + SETTLE_EVERY);
        let mut events = Vec::new();
        match next_batch(&watched.updates, &stop, Some(until))? {
            Batch::Stop => {
                write_summary(ctx, args, &shadow.report(started.elapsed()))?;
                return Ok(ExitStatus::Success);
            }
            Batch::Tick => {}
            Batch::Updates(batch) => {
                for u in &batch {
                    if let Update::Event { kind, object, .. } = u
                        && kind == "Pod"
                        && let Some((pod, node)) = preemption_victim(object)
                    {
                        shadow.preempted(pod, node);
                    }
                }
                let causes = apply_batch(ctx, &mut snapshot, batch)?;
                if !causes.is_empty() {
                    snapshot.after_objects_changed();
                    advance_clock(&mut snapshot, listed_at, started);
                    events.extend(shadow.settle(&snapshot, started.elapsed(), undecided_after));
                    // Units that became pending since: predicted on the cluster as it is now.
                    let plan = plan_of(ctx, &snapshot)?;
                    events.extend(shadow.predict(&snapshot, &plan, started.elapsed()));
                }
            }
        }
        events.extend(shadow.settle(&snapshot, started.elapsed(), undecided_after));
        write_events(ctx, args, &events)?;
        if Instant::now() >= next_summary {
            write_summary(ctx, args, &shadow.report(started.elapsed()))?;
            next_summary += summary_every;
        }
        if ctx.stdout_closed.load(Ordering::Relaxed) {
            return Ok(ExitStatus::Success);
        }
    }
}

/// The events, a line each.
fn write_events(ctx: &Context, args: &ShadowArgs, events: &[ShadowEvent]) -> Result<(), Error> {
    let mut out = Vec::new();
    for e in events {
        match args.output {
            ShadowFormat::Json => {
                serde_json::to_writer(&mut out, &Envelope::new("ShadowEvent", e))
                    .map_err(std::io::Error::other)?;
                out.push(b'\n');
            }
            ShadowFormat::Text => write_line(&mut out, e, ctx.color.styler())?,
        }
    }
    ctx.stdout(&out)
}

/// One event as a line: `Pod ml/w-3: disagreed (nodes): predicted n1, bound to n2; likely
/// causes: …`.
fn write_line(
    out: &mut Vec<u8>,
    e: &ShadowEvent,
    style: crate::render::color::Styler,
) -> std::io::Result<()> {
    let who = format!(
        "{} {}/{}",
        e.unit.kind,
        sanitize(&e.unit.namespace),
        sanitize(&e.unit.name)
    );
    let message = sanitize(&e.message);
    match e.verdict {
        Verdict::Predicted => writeln!(out, "{who}: {message}"),
        Verdict::Agreed => writeln!(out, "{who}: {}: {message}", style.ok("agreed")),
        Verdict::Undecided => writeln!(out, "{who}: {}: {message}", style.warn("undecided")),
        Verdict::Disagreed => {
            let kinds: Vec<&str> = e.differences.iter().map(|d| d.word()).collect();
            let causes: Vec<String> = e
                .likely_causes
                .iter()
                .map(|c| sanitize(c).into_owned())
                .collect();
            writeln!(
                out,
                "{who}: {} ({}): {message}; likely causes: {}",
                style.error("disagreed"),
                kinds.join(", "),
                causes.join("; ")
            )
        }
    }
}

/// The summary, as a line or a `ShadowReport` object.
fn write_summary(ctx: &Context, args: &ShadowArgs, r: &ShadowReport) -> Result<(), Error> {
    let mut out = Vec::new();
    match args.output {
        ShadowFormat::Json => {
            serde_json::to_writer(&mut out, &Envelope::new("ShadowReport", r))
                .map_err(std::io::Error::other)?;
            out.push(b'\n');
        }
        ShadowFormat::Text => writeln!(out, "{}", summary_line(r))?,
    }
    ctx.stdout(&out)
}

/// `Summary after 10m: 12 prediction(s): 9 agreed, 2 disagreed (nodes 1, victims 1), 1
/// undecided, 0 pending`.
fn summary_line(r: &ShadowReport) -> String {
    let by = &r.disagreed_by;
    let kinds: Vec<String> = [
        ("outcome", by.outcome),
        ("domain", by.domain),
        ("nodes", by.nodes),
        ("victims", by.victims),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .map(|(k, n)| format!("{k} {n}"))
    .collect();
    let kinds = if kinds.is_empty() {
        String::new()
    } else {
        format!(" ({})", kinds.join(", "))
    };
    format!(
        "Summary after {}: {} prediction(s): {} agreed, {} disagreed{kinds}, {} undecided, {} pending",
        words(Duration::from_secs(r.elapsed_seconds)),
        r.predictions,
        r.agreed,
        r.disagreed,
        r.undecided,
        r.pending
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_disagreements_by_kind() {
        let mut r = ShadowReport {
            predictions: 4,
            agreed: 2,
            disagreed: 1,
            undecided: 1,
            elapsed_seconds: 600,
            ..ShadowReport::default()
        };
        r.disagreed_by.nodes = 1;
        assert_eq!(
            summary_line(&r),
            "Summary after 10m: 4 prediction(s): 2 agreed, 1 disagreed (nodes 1), 1 undecided, 0 pending"
        );
    }

    #[test]
    fn durations_parse_as_kubectl_writes_them() {
        assert_eq!(
            duration("--undecided-after", "10m").ok(),
            Some(Duration::from_secs(600))
        );
        assert_eq!(
            duration("--undecided-after", "1h30m").ok(),
            Some(Duration::from_secs(5400))
        );
        assert_eq!(
            duration("--summary-every", "30").ok(),
            Some(Duration::from_secs(30))
        );
        assert!(duration("--summary-every", "0").is_err());
        assert!(duration("--summary-every", "soon").is_err());
    }
}
