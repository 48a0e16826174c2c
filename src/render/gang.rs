//! Text view of a [`GangDiagnosis`]: `explain` on a Volcano PodGroup or a YuniKorn task
//! group. The first line says that wasctl does not simulate that scheduler.

use std::io::{self, Write};

use super::color::Styler;
use crate::explain::others::GangDiagnosis;
use crate::sanitize::sanitize;

/// Writes the report as text.
pub(crate) fn write_text(out: &mut dyn Write, d: &GangDiagnosis, style: Styler) -> io::Result<()> {
    if let Some(from) = &d.redirected_from {
        let who = if d.scheduler == "volcano" {
            "Volcano PodGroup"
        } else {
            "YuniKorn task group"
        };
        let gang = d.target.splitn(3, '/').nth(2).unwrap_or(&d.target);
        let relation = if from.starts_with("Pod/") {
            "is a member of"
        } else {
            "owns"
        };
        writeln!(
            out,
            "{} {relation} {who} `{}`: explaining the gang",
            sanitize(from),
            sanitize(gang)
        )?;
    }
    writeln!(
        out,
        "{}: {}",
        style.bold(sanitize(&d.target)),
        d.not_simulated
    )?;
    writeln!(out)?;
    write_recorded(out, d)?;
    writeln!(
        out,
        "Members: {} pod(s), {} bound; minMember {}",
        d.members.total, d.members.bound, d.min_member
    )?;
    writeln!(out)?;
    writeln!(out, "Checks:")?;
    for c in &d.checks {
        let mark = match c.result.as_str() {
            "ok" => style.ok("ok"),
            "problem" => style.error("problem"),
            _ => style.warn("unknown"),
        };
        writeln!(out, "  {mark} {}: {}", c.id, sanitize(&c.message))?;
    }
    write_volcano_minimums(out, d)?;
    if !d.resources.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Resources (a member's request x how many the gang needs, against the nodes' allocatable):"
        )?;
        for r in &d.resources {
            writeln!(
                out,
                "  {}: {} = {}, allocatable {}",
                sanitize(&r.resource),
                r.requested,
                r.needed,
                r.allocatable
            )?;
        }
        writeln!(out, "Node shapes:")?;
        for s in &d.node_shapes {
            writeln!(
                out,
                "  {} node(s) {}: {} member(s) each when empty",
                s.nodes,
                sanitize(&s.shape),
                s.pods_per_node
            )?;
        }
    }
    if let Some(f) = &d.kube_scheduler_fit {
        writeln!(out)?;
        writeln!(out, "How many members fit {}:", f.label)?;
        writeln!(
            out,
            "  {} of {} with every pod removed from the nodes; {} of {} now",
            f.on_empty_nodes, d.min_member, f.now, d.min_member
        )?;
        for r in &f.reasons {
            writeln!(out, "  {}", sanitize(r))?;
        }
    }
    Ok(())
}

fn write_recorded(out: &mut dyn Write, d: &GangDiagnosis) -> io::Result<()> {
    let r = &d.recorded;
    writeln!(out, "Recorded by {}:", d.scheduler)?;
    let mut line = format!("  phase {}", sanitize(&r.phase));
    if let Some(q) = &r.queue {
        line.push_str(&format!(", queue `{}`", sanitize(q)));
    }
    if let (Some(run), Some(ok), Some(failed)) = (r.running, r.succeeded, r.failed) {
        line.push_str(&format!(", running {run}, succeeded {ok}, failed {failed}"));
    }
    if let Some(p) = &r.placeholders {
        line.push_str(&format!(", placeholders {} ({} bound)", p.total, p.bound));
    }
    writeln!(out, "{line}")?;
    for c in &r.conditions {
        writeln!(out, "  {}", sanitize(c))?;
    }
    write_events(out, r)
}

/// How many event groups the text shows (JSON has them all).
const EVENTS_SHOWN: usize = 8;

fn write_events(out: &mut dyn Write, r: &crate::explain::others::Recorded) -> io::Result<()> {
    if let Some(why) = &r.events_unknown {
        writeln!(out, "  Events: {}", sanitize(why))?;
    }
    if r.events.is_empty() {
        return Ok(());
    }
    writeln!(out, "  Events (newest first):")?;
    for e in r.events.iter().take(EVENTS_SHOWN) {
        let on = match e.objects.as_slice() {
            [one] => format!("{} {}", e.kind, one),
            many => format!("{} {}s ({})", many.len(), e.kind, some(many, 3)),
        };
        let mut when = format!("x{}", e.count);
        if let Some(t) = &e.last_seen {
            when.push_str(&format!(", last {t}"));
        }
        if !e.reporter.is_empty() {
            when.push_str(&format!(", by {}", e.reporter));
        }
        writeln!(
            out,
            "    {} {} on {} ({}): {}",
            sanitize(&e.type_),
            sanitize(&e.reason),
            sanitize(&on),
            sanitize(&when),
            sanitize(&e.message)
        )?;
    }
    if r.events.len() > EVENTS_SHOWN {
        writeln!(
            out,
            "    … {} more (`-o json` lists them all)",
            r.events.len() - EVENTS_SHOWN
        )?;
    }
    Ok(())
}

/// Volcano's `minResources` and `minTaskMember` against the cluster.
fn write_volcano_minimums(out: &mut dyn Write, d: &GangDiagnosis) -> io::Result<()> {
    if !d.min_resources.is_empty() {
        writeln!(out)?;
        writeln!(out, "minResources (against the nodes' allocatable):")?;
        for r in &d.min_resources {
            writeln!(
                out,
                "  {}: asks {}, allocatable {}{}",
                sanitize(&r.resource),
                r.asked,
                r.allocatable,
                if r.fits {
                    ""
                } else {
                    " (more than the cluster has)"
                }
            )?;
        }
    }
    if !d.tasks.is_empty() {
        writeln!(out)?;
        writeln!(out, "minTaskMember (pods per task):")?;
        for t in &d.tasks {
            let fit = t.kube_scheduler_fit.map_or_else(String::new, |f| {
                format!(
                    "; {} fit with every pod removed, {} now",
                    f.on_empty_nodes, f.now
                )
            });
            writeln!(
                out,
                "  {}: {} pod(s), {} bound, minTaskMember {}{fit}",
                sanitize(&t.task),
                t.pods.total,
                t.pods.bound,
                t.min_task_member
            )?;
        }
    }
    Ok(())
}

/// The first `max` names, and how many more.
fn some(items: &[String], max: usize) -> String {
    let mut out = items
        .iter()
        .take(max)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        out.push_str(&format!(" and {} more", items.len() - max));
    }
    out
}
