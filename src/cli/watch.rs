//! `--watch` / `-w`: follow a live cluster by WATCH after the first result, as
//! `kubectl get -w` does: print the result, then one line per change (a `WatchEvent` object
//! per line with `-o json`), with the cluster's changes that caused it. One loop
//! ([`follow`]) serves every command that watches: `simulate` (a unit's result), `tree` (an
//! object's status or simulated outcome), `doctor` (a finding appeared or went away) and
//! `explain` (the target's verdict, findings or fixes), each a [`Followed`].
//!
//! The snapshot is listed once and kept current by the watches ([`crate::snapshot::source::live::load_watched`]);
//! events are coalesced for [`COALESCE`] after the first one of a batch, applied in place
//! ([`crate::snapshot::source::watch::apply`], which updates the snapshot's index per event), the rest of what is
//! derived from the objects refreshed once per batch from what the events touched
//! ([`Snapshot::after_objects_changed`]), and the command simulated again only when a kept
//! record changed. Ctrl-C (or SIGTERM) ends with exit 0; an API server lost
//! after the watches' retries ends with exit 3.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use super::format::TableOutput;
use super::simulate::{SimulateArgs, resolve_only, simulated, write_result};
use super::{Context, TableFormat, require_nodes_and_pods};
use crate::error::{Error, ExitStatus};
use crate::plan::diff::Change;
use crate::plan::watch::{WatchEvent, changes};
use crate::render::json::Envelope;
use crate::report::ObjectChange;
use crate::sanitize::sanitize;
use crate::snapshot::Snapshot;
use crate::snapshot::source::live::{self, Update};

pub(crate) use crate::snapshot::source::watch::{COALESCE, advance_clock};

/// How often the loop looks at Ctrl-C while nothing happens.
const TICK: Duration = Duration::from_millis(100);

/// A command `--watch` follows: it turns a snapshot into a report, and two reports into
/// the changes it streams. One loop ([`follow`]) serves simulate, tree, doctor and explain.
pub(super) trait Followed {
    /// The command's result for one snapshot.
    type Report;
    /// One change between two results (`kind: WatchEvent` in `-o json`).
    type Event: serde::Serialize + EventLine;
    /// The result for `snapshot`.
    fn report(&self, ctx: &Context, snapshot: &Snapshot) -> Result<Self::Report, Error>;
    /// The first result, as the command prints it (`-o json`: its document on one line).
    fn write_first(
        &self,
        ctx: &Context,
        snapshot: &Snapshot,
        report: &Self::Report,
        out: &mut Vec<u8>,
    ) -> Result<(), Error>;
    /// What changed from `before` to `after`, with the cluster's changes (`causes`).
    fn changes(
        &self,
        before: (&Snapshot, &Self::Report),
        after: (&Snapshot, &Self::Report),
        causes: &[String],
    ) -> Vec<Self::Event>;
}

/// A change that prints itself as one text line.
pub(super) trait EventLine {
    /// The line, with its newline.
    fn write_line(
        &self,
        out: &mut Vec<u8>,
        style: crate::render::color::Styler,
    ) -> std::io::Result<()>;
}

impl EventLine for WatchEvent {
    fn write_line(
        &self,
        out: &mut Vec<u8>,
        style: crate::render::color::Styler,
    ) -> std::io::Result<()> {
        write_line(out, self, style)
    }
}

impl EventLine for ObjectChange {
    fn write_line(
        &self,
        out: &mut Vec<u8>,
        style: crate::render::color::Styler,
    ) -> std::io::Result<()> {
        write_object_line(out, self, style)
    }
}

/// Refuses `--watch` where it cannot follow anything (`--from`, `--demo`), or in a format
/// that is not streamed (`json`: whether the command's `-o` is JSON; `streamed`: whether it
/// is one of text, wide or JSON), or with what-ifs (`what_if`).
pub(super) fn check(ctx: &Context, streamed: bool, what_if: bool) -> Result<(), Error> {
    if ctx.is_offline() {
        return Err(Error::usage(
            "`--watch` follows a live cluster: it cannot be used with `--from` or `--demo`",
            "drop `--watch` to read the files once, or drop `--from`/`--demo` to follow the cluster of the current context",
        ));
    }
    if !streamed {
        return Err(Error::usage(
            "`--watch` prints text or JSON lines: `-o yaml`, `-o name` and templates are not streamed",
            "use `-o json` (one object per line) or the default text",
        ));
    }
    if what_if {
        return Err(Error::usage(
            "`--watch` follows the cluster as it is: what-ifs (`--add`, `--drain`, `--cordon`, `--add-nodes`) are not applied while watching",
            "drop the what-if flags, or run the command with them once",
        ));
    }
    Ok(())
}

/// True when `output` is streamed by `--watch` (text, wide or JSON).
fn streamed_table(output: &TableOutput) -> bool {
    matches!(
        output,
        TableOutput::Plain(TableFormat::Text | TableFormat::Wide | TableFormat::Json)
    )
}

/// `simulate --watch`: one [`WatchEvent`] per unit whose result changed.
struct Simulation<'a> {
    args: &'a SimulateArgs,
    only: Option<crate::snapshot::ObjRef>,
}

impl Followed for Simulation<'_> {
    type Report = (crate::sched::plan::Plan, Option<String>);
    type Event = WatchEvent;

    fn report(&self, ctx: &Context, snapshot: &Snapshot) -> Result<Self::Report, Error> {
        simulated(ctx, self.args, snapshot, self.only.as_ref(), Vec::new())
    }

    fn write_first(
        &self,
        ctx: &Context,
        snapshot: &Snapshot,
        (plan, empty): &Self::Report,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        write_result(ctx, self.args, snapshot, plan, empty.clone(), out)
    }

    fn changes(
        &self,
        (old, (old_plan, _)): (&Snapshot, &Self::Report),
        (new, (new_plan, _)): (&Snapshot, &Self::Report),
        causes: &[String],
    ) -> Vec<WatchEvent> {
        changes(old, old_plan, new, new_plan, causes)
    }
}

/// `simulate --watch`.
pub(crate) fn simulate(ctx: &Context, args: &SimulateArgs) -> Result<ExitStatus, Error> {
    check(ctx, streamed_table(&args.output), args.what_if.any())?;
    let json = matches!(args.output, TableOutput::Plain(TableFormat::Json));
    follow(ctx, json, |snapshot| {
        require_nodes_and_pods(snapshot)?;
        Ok(Simulation {
            args,
            only: resolve_only(ctx, args, snapshot)?,
        })
    })
}

/// Registers Ctrl-C, SIGTERM and SIGHUP: the flag they set ends the watch with exit 0.
pub(super) fn stop_flag() -> Result<Arc<AtomicBool>, Error> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// Follows the cluster for a command: lists and watches it, prints the first result of the
/// [`Followed`] that `setup` makes from the first snapshot, then, per batch of events that
/// changed a kept record, the changes (a line each, or a `WatchEvent` object per line with
/// `json`). Ctrl-C ends it with exit 0, a lost API server with the access error (exit 3).
/// A later result that cannot be made is a warning, and the previous one stays.
pub(super) fn follow<F: Followed>(
    ctx: &Context,
    json: bool,
    setup: impl FnOnce(&Snapshot) -> Result<F, Error>,
) -> Result<ExitStatus, Error> {
    let stop = stop_flag()?;
    let (mut snapshot, watched) = ctx.load_watched()?;
    let followed = setup(&snapshot)?;
    let started = Instant::now();
    let listed_at = snapshot.now();
    let mut report = followed.report(ctx, &snapshot)?;
    let mut out = Vec::new();
    followed.write_first(ctx, &snapshot, &report, &mut out)?;
    ctx.stdout(&out)?;
    let style = ctx.color.styler();
    loop {
        let Batch::Updates(batch) = next_batch(&watched.updates, &stop, None)? else {
            return Ok(ExitStatus::Success);
        };
        let before = snapshot.clone();
        let causes = apply_batch(ctx, &mut snapshot, batch)?;
        if causes.is_empty() {
            continue;
        }
        snapshot.after_objects_changed();
        advance_clock(&mut snapshot, listed_at, started);
        let next = match followed.report(ctx, &snapshot) {
            Ok(next) => next,
            Err(e) => {
                warn(ctx, &format!("the result was not updated: {e}"))?;
                continue;
            }
        };
        let events = followed.changes((&before, &report), (&snapshot, &next), &causes);
        let mut out = Vec::new();
        for e in &events {
            if json {
                serde_json::to_writer(&mut out, &Envelope::new("WatchEvent", e))
                    .map_err(std::io::Error::other)?;
                out.push(b'\n');
            } else {
                e.write_line(&mut out, style)?;
            }
        }
        ctx.stdout(&out)?;
        if ctx.stdout_closed.load(Ordering::Relaxed) {
            return Ok(ExitStatus::Success);
        }
        report = next;
    }
}

/// One warning on stderr.
fn warn(ctx: &Context, message: &str) -> Result<(), Error> {
    let style = ctx.err_color.styler();
    let mut err = Vec::new();
    writeln!(err, "{} {}", style.warn("warning:"), sanitize(message))?;
    ctx.stderr(&err)
}

/// What [`next_batch`] waited for.
pub(super) enum Batch {
    /// Ctrl-C, or every watch ended.
    Stop,
    /// The deadline passed with no update.
    Tick,
    /// Updates, the first and those within [`COALESCE`] of it.
    Updates(Vec<Update>),
}

/// Waits for the next batch of updates: the first, then every update within [`COALESCE`]
/// of it; [`Batch::Tick`] when `until` passes first; [`Batch::Stop`] once Ctrl-C was
/// pressed or every watch ended (each said why on stderr).
pub(super) fn next_batch(
    updates: &std::sync::mpsc::Receiver<Update>,
    stop: &AtomicBool,
    until: Option<Instant>,
) -> Result<Batch, Error> {
    let first = loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(Batch::Stop);
        }
        let wait = match until {
            Some(at) => match at.checked_duration_since(Instant::now()) {
                Some(left) => left.min(TICK),
                None => return Ok(Batch::Tick),
            },
            None => TICK,
        };
        match updates.recv_timeout(wait) {
            Ok(u) => break u,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(Batch::Stop),
        }
    };
    let mut batch = vec![first];
    let until = Instant::now() + COALESCE;
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match updates.recv_timeout(left) {
            Ok(u) => batch.push(u),
            Err(_) => break,
        }
    }
    Ok(Batch::Updates(batch))
}

/// Applies a batch to the snapshot ([`live::apply_updates`]); returns the changes in words,
/// in order. Warnings go to stderr; a lost API server is the error that ends the command.
pub(super) fn apply_batch(
    ctx: &Context,
    snapshot: &mut Snapshot,
    batch: Vec<Update>,
) -> Result<Vec<String>, Error> {
    let applied = live::apply_updates(snapshot, batch).map_err(Error::Access)?;
    if !applied.warnings.is_empty() {
        let style = ctx.err_color.styler();
        let mut err = Vec::new();
        for w in applied.warnings {
            writeln!(err, "{} {}", style.warn("warning:"), sanitize(&w))?;
        }
        ctx.stderr(&err)?;
    }
    Ok(applied.causes)
}

/// The words of a change in a line.
fn change_words(c: Change) -> &'static str {
    match c {
        Change::NewlyUnschedulable => "newly unschedulable",
        Change::NewlySchedulable => "newly schedulable",
        Change::OutcomeChanged => "outcome changed",
        Change::DomainChanged => "another domain",
        Change::PlacementChanged => "other nodes",
        Change::VictimsChanged => "other victims",
        Change::ReasonChanged => "another reason",
        Change::Added => "new",
        Change::Removed => "gone",
    }
}

/// One change as a line: `PodGroup ml/train: Unschedulable → Scheduled (newly schedulable):
/// pod ml/blocker deleted`.
fn write_line(
    out: &mut Vec<u8>,
    e: &WatchEvent,
    style: crate::render::color::Styler,
) -> std::io::Result<()> {
    let side = |outcome: &str, domain: &Option<String>| match domain {
        Some(d) if e.change == Change::DomainChanged => format!("{outcome} ({})", sanitize(d)),
        _ => outcome.to_owned(),
    };
    let arrow = format!(
        "{} → {}",
        side(&e.before, &e.before_domain),
        side(&e.after, &e.after_domain)
    );
    let arrow = match e.change {
        Change::NewlyUnschedulable => style.error(arrow),
        Change::NewlySchedulable => style.ok(arrow),
        _ => style.warn(arrow),
    };
    let causes: Vec<String> = e.causes.iter().map(|c| sanitize(c).into_owned()).collect();
    writeln!(
        out,
        "{} {}/{}: {arrow} ({}){}",
        e.unit.kind,
        sanitize(&e.unit.namespace),
        sanitize(&e.unit.name),
        change_words(e.change),
        if causes.is_empty() {
            String::new()
        } else {
            format!(": {}", causes.join("; "))
        }
    )
}

/// The words of an [`ObjectChange`]'s type in a line.
fn object_change_words(change: &str) -> &str {
    match change {
        "StatusChanged" => "status changed",
        "SimulatedChanged" => "simulated outcome changed",
        "Added" => "new",
        "Removed" => "gone",
        "FindingAppeared" => "finding appeared",
        "FindingResolved" => "finding resolved",
        "VerdictChanged" => "verdict changed",
        "FindingsChanged" => "findings changed",
        "FixesChanged" => "fixes changed",
        other => other,
    }
}

/// One change of `tree`, `doctor` or `explain` as a line: `Pod ml/w-3: Pending (simulated
/// Unschedulable) → Pending (simulated Scheduled) (simulated outcome changed): pod
/// ml/blocker deleted`; a doctor finding: `WASD001 warning PodGroup ml/x: MESSAGE (finding
/// appeared): CAUSES`.
pub(super) fn write_object_line(
    out: &mut Vec<u8>,
    e: &ObjectChange,
    style: crate::render::color::Styler,
) -> std::io::Result<()> {
    let who = format!(
        "{} {}",
        sanitize(&e.object.kind),
        sanitize(&e.object.path())
    );
    let words = object_change_words(e.change);
    let causes: Vec<String> = e.causes.iter().map(|c| sanitize(c).into_owned()).collect();
    let causes = if causes.is_empty() {
        String::new()
    } else {
        format!(": {}", causes.join("; "))
    };
    if let Some(check) = &e.check {
        let (severity, what) = if e.change == "FindingResolved" {
            (&e.before, style.ok("resolved".to_owned()))
        } else {
            (&e.after, style.warn(sanitize(&e.message).into_owned()))
        };
        return writeln!(
            out,
            "{} {} {who}: {what} ({words}){causes}",
            sanitize(check),
            sanitize(severity)
        );
    }
    let arrow = format!("{} → {}", sanitize(&e.before), sanitize(&e.after));
    writeln!(out, "{who}: {} ({words}){causes}", style.warn(arrow))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::watch::Unit;
    use crate::snapshot::ObjKind;

    #[test]
    fn a_change_is_one_line_with_its_causes() {
        let e = WatchEvent {
            change: Change::NewlySchedulable,
            unit: Unit {
                kind: ObjKind::PodGroup,
                namespace: "ml".to_owned(),
                name: "train".to_owned(),
            },
            before: "Unschedulable".to_owned(),
            after: "Scheduled".to_owned(),
            before_domain: None,
            after_domain: None,
            message: String::new(),
            causes: vec![
                "pod ml/w-3 deleted".to_owned(),
                "node gpu-7 cordoned".to_owned(),
            ],
        };
        let mut out = Vec::new();
        write_line(
            &mut out,
            &e,
            crate::render::color::ColorChoice::Never.styler(),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "PodGroup ml/train: Unschedulable → Scheduled (newly schedulable): pod ml/w-3 deleted; node gpu-7 cordoned\n"
        );
    }
}
