//! `--watch` / `-w`: follow a live cluster by WATCH after the first result, as
//! `kubectl get -w` does: print the result, then one line per unit whose result changed (a
//! `WatchEvent` object per line with `-o json`), with the cluster's changes that caused it.
//!
//! The snapshot is listed once and kept current by the watches ([`crate::snapshot::source::live::load_watched`]);
//! events are coalesced for [`COALESCE`] after the first one of a batch, applied in place
//! ([`watch::apply`]), the indexes refreshed once per batch, and the command simulated again
//! only when a kept record changed. Ctrl-C (or SIGTERM) ends with exit 0; an API server lost
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
use crate::sanitize::sanitize;
use crate::snapshot::Snapshot;
use crate::snapshot::source::live::Update;
use crate::snapshot::source::watch::{self, Applied};

/// How long events are gathered after the first of a batch before simulating again.
pub(crate) const COALESCE: Duration = Duration::from_millis(200);

/// How often the loop looks at Ctrl-C while nothing happens.
const TICK: Duration = Duration::from_millis(100);

/// Refuses `--watch` where it cannot follow anything, or with what it does not do yet.
fn check(ctx: &Context, args: &SimulateArgs) -> Result<(), Error> {
    if ctx.is_offline() {
        return Err(Error::usage(
            "`--watch` follows a live cluster: it cannot be used with `--from` or `--demo`",
            "drop `--watch` to simulate the files once, or drop `--from`/`--demo` to follow the cluster of the current context",
        ));
    }
    if !matches!(
        args.output,
        TableOutput::Plain(TableFormat::Text | TableFormat::Wide | TableFormat::Json)
    ) {
        return Err(Error::usage(
            "`--watch` prints text or JSON lines: `-o yaml`, `-o name` and templates are not streamed",
            "use `-o json` (one object per line) or the default table",
        ));
    }
    if args.what_if.any() {
        return Err(Error::usage(
            "`--watch` follows the cluster as it is: what-ifs (`--add`, `--drain`, `--cordon`, `--add-nodes`) are not applied while watching",
            "drop the what-if flags, or run `simulate` with them once",
        ));
    }
    Ok(())
}

/// `simulate --watch`.
pub(crate) fn simulate(ctx: &Context, args: &SimulateArgs) -> Result<ExitStatus, Error> {
    check(ctx, args)?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let (mut snapshot, watched) = ctx.load_watched()?;
    require_nodes_and_pods(&snapshot)?;
    let only = resolve_only(ctx, args, &snapshot)?;
    let started = Instant::now();
    let listed_at = snapshot.now();
    let (mut plan, empty) = simulated(ctx, args, &snapshot, only.as_ref(), Vec::new())?;
    let mut out = Vec::new();
    write_result(ctx, args, &snapshot, &plan, empty, &mut out)?;
    ctx.stdout(&out)?;
    let style = ctx.color.styler();
    loop {
        let Some(batch) = next_batch(&watched.updates, &stop)? else {
            return Ok(ExitStatus::Success);
        };
        let before = snapshot.clone();
        let causes = apply_batch(ctx, &mut snapshot, batch)?;
        if causes.is_empty() {
            continue;
        }
        snapshot.after_objects_changed();
        // "Now" moves on with the local clock from the server's time at the list.
        let elapsed = k8s_openapi::jiff::SignedDuration::try_from(started.elapsed())
            .unwrap_or(k8s_openapi::jiff::SignedDuration::ZERO);
        if let Ok(now) = listed_at.checked_add(elapsed) {
            snapshot.facts.snapshot_time =
                Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(now));
        }
        let (next, _) = simulated(ctx, args, &snapshot, only.as_ref(), Vec::new())?;
        let events = changes(&before, &plan, &snapshot, &next, &causes);
        let mut out = Vec::new();
        for e in &events {
            match args.output {
                TableOutput::Plain(TableFormat::Json) => {
                    serde_json::to_writer(&mut out, &Envelope::new("WatchEvent", e))
                        .map_err(std::io::Error::other)?;
                    out.push(b'\n');
                }
                _ => write_line(&mut out, e, style)?,
            }
        }
        ctx.stdout(&out)?;
        if ctx.stdout_closed.load(Ordering::Relaxed) {
            return Ok(ExitStatus::Success);
        }
        plan = next;
    }
}

/// Waits for the next batch of updates: the first, then every update within [`COALESCE`]
/// of it. `None` once Ctrl-C was pressed; an error when every watch ended.
fn next_batch(
    updates: &std::sync::mpsc::Receiver<Update>,
    stop: &AtomicBool,
) -> Result<Option<Vec<Update>>, Error> {
    let first = loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        match updates.recv_timeout(TICK) {
            Ok(u) => break u,
            Err(RecvTimeoutError::Timeout) => {}
            // Every watch stopped (each said why on stderr): nothing more can change.
            Err(RecvTimeoutError::Disconnected) => return Ok(None),
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
    Ok(Some(batch))
}

/// Applies a batch to the snapshot; returns the changes in words, in order. Warnings go to
/// stderr; a lost API server is the error that ends the command.
fn apply_batch(
    ctx: &Context,
    snapshot: &mut Snapshot,
    batch: Vec<Update>,
) -> Result<Vec<String>, Error> {
    let mut causes = Vec::new();
    let mut warnings = Vec::new();
    for update in batch {
        match update {
            Update::Event {
                api_version,
                kind,
                object,
                deleted,
            } => match watch::apply(snapshot, &api_version, &kind, &object, deleted) {
                Ok(Applied::Changed(words)) => causes.push(words),
                Ok(Applied::Same) => {}
                Err(why) => warnings.push(format!("a watched {kind} was not applied: {why}")),
            },
            Update::Relisted {
                group,
                kind,
                display,
                objects,
            } => {
                // The watch's version expired: what the list found changed, object by
                // object.
                let _ = display;
                causes.extend(watch::replace_kind(snapshot, &group, &kind, *objects));
            }
            Update::Warning(w) => warnings.push(w.message),
            Update::Lost(e) => return Err(Error::Access(e)),
        }
    }
    if !warnings.is_empty() {
        let style = ctx.err_color.styler();
        let mut err = Vec::new();
        for w in warnings {
            writeln!(err, "{} {}", style.warn("warning:"), sanitize(&w))?;
        }
        ctx.stderr(&err)?;
    }
    Ok(causes)
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
