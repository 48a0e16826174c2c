//! Text view of a [`CapacityReport`]: one line with the answer, the copies per domain as a
//! table, the preempting copies, what stops the next copy, and what the what-ifs changed.

use std::io::{self, Write};

use super::color::Styler;
use super::table::{Cell, Paint, Table};
use crate::explain::{DOMAINS_SHOWN, leading};
use crate::plan::capacity::{CapacityReport, Limit, QuotaLimit, WhatIfImpact};
use crate::sanitize::sanitize;
use crate::sched::plan::Outcome;

/// Writes the report: the target's shape and the answer (copies that fit, with preemption,
/// and what the what-ifs changed), then each section the report has: copies per domain,
/// copies that fit only by preempting, what stops the next copy, units the what-ifs displaced.
pub(crate) fn write_text(out: &mut dyn Write, r: &CapacityReport, style: Styler) -> io::Result<()> {
    write_answer(out, r, style)?;
    if let Some(q) = &r.queue {
        write_queue(out, q, style)?;
    }
    if !r.domains.is_empty() {
        write_domains(out, r, style)?;
    }
    if !r.preemptions.is_empty() {
        write_preemptions(out, r, style)?;
    }
    match &r.limit {
        Some(l) => write_limit(out, l, r.limited_by.is_some(), style)?,
        // The quota line already says what stops the next copy.
        None if r.quota_limit.is_some() => {}
        None => writeln!(
            out,
            "\nevery copy tried fit: raise `--max` (now {}) to look further",
            r.settings.max_copies
        )?,
    }
    if let Some(w) = &r.what_if
        && !w.displaced.is_empty()
    {
        write_displaced(out, w, style)?;
    }
    Ok(())
}

/// The first lines: `PodGroup/ns/name (shape, from source)`, the copies that fit ("at least"
/// when every copy tried fit; with preemption, or that it was not simulated) and, after
/// what-ifs, whether capacity drops, rises or stays.
fn write_answer(out: &mut dyn Write, r: &CapacityReport, style: Styler) -> io::Result<()> {
    let t = &r.target;
    let mut shape = vec![format!("{} pod(s)", t.pods)];
    if let Some(m) = t.min_count {
        shape.push(format!("minCount {m}"));
    }
    if let Some(k) = &t.topology_key {
        shape.push(format!("topology {}", sanitize(k)));
    }
    // The profile, when not the default one (`profile gpu-binpack: MostAllocated on …`).
    match (&t.scoring, t.profile.as_str()) {
        (Some(scoring), _) => shape.push(sanitize(scoring).into_owned()),
        (None, "") => {}
        (None, name) => shape.push(format!("profile {}", sanitize(name))),
    }
    writeln!(
        out,
        "{} ({}, from {})",
        style.bold(format!(
            "PodGroup/{}/{}",
            sanitize(&t.object.namespace),
            sanitize(&t.object.name)
        )),
        shape.join(", "),
        sanitize(&t.source)
    )?;
    let at_least = if r.capped { "at least " } else { "" };
    let with = if r.settings.preemption {
        let capped_with = r.copies_with_preemption as usize == r.settings.max_copies;
        format!(
            ", {}{} with preemption",
            if capped_with { "at least " } else { "" },
            r.copies_with_preemption
        )
    } else {
        " (preemption not simulated)".to_owned()
    };
    let copies = format!("{at_least}{} more cop{} fit", r.copies, plural(r.copies));
    let copies = if r.copies == 0 {
        style.error(copies)
    } else {
        style.ok(copies)
    };
    writeln!(out, "  {copies}{with}")?;
    if let Some(q) = &r.quota_limit {
        write_quota_limit(out, r, q, style)?;
    }
    if let Some(w) = &r.what_if {
        let verb = match r.copies.cmp(&w.copies_before) {
            std::cmp::Ordering::Less => "drops",
            std::cmp::Ordering::Greater => "rises",
            std::cmp::Ordering::Equal => "stays",
        };
        let what = r.settings.simulation.what_if.join("; ");
        writeln!(
            out,
            "  after the what-ifs ({}), capacity {verb} from {} to {} ({} to {} with preemption)",
            sanitize(&what),
            w.copies_before,
            r.copies,
            w.copies_with_preemption_before,
            r.copies_with_preemption
        )?;
    }
    Ok(())
}

/// The copies per topology domain, best first and at most [`DOMAINS_SHOWN`] of them (then a
/// count of the rest), and the copies spread over several domains.
fn write_domains(out: &mut dyn Write, r: &CapacityReport, style: Styler) -> io::Result<()> {
    writeln!(out)?;
    let mut table = Table::new(["DOMAIN", "COPIES", "WITH PREEMPTION"]);
    // Hundreds of racks at 5,000 nodes: the best domains, then a count of the rest.
    let (shown, rest) = leading(&r.domains, DOMAINS_SHOWN, |d| {
        u64::from(d.copies) << 32 | u64::from(d.copies_with_preemption)
    });
    let least_shown = shown.last().map_or(0, |d| d.copies);
    for d in shown {
        let paint = if d.copies > 0 { Paint::Ok } else { Paint::Dim };
        table.row([
            Cell::painted(
                format!("{}={}", sanitize(&d.key), sanitize(&d.value)),
                paint,
            ),
            Cell::from(d.copies.to_string()),
            Cell::from(d.copies_with_preemption.to_string()),
        ]);
    }
    table.write(out, style)?;
    if rest > 0 {
        writeln!(
            out,
            "{}",
            style.dim(format!(
                "… {rest} more domain(s), at most {least_shown} cop{} in each (-o json lists all)",
                plural(least_shown)
            ))
        )?;
    }
    if r.copies_across_domains > 0 {
        writeln!(
            out,
            "{} cop{} spread over several domains",
            r.copies_across_domains,
            plural(r.copies_across_domains)
        )?;
    }
    Ok(())
}

/// The copies that fit only by preempting: victims (count), victim groups, GPUs freed and
/// GPU-hours lost (one decimal) of each; `-` where the copy has no blast radius.
fn write_preemptions(out: &mut dyn Write, r: &CapacityReport, style: Styler) -> io::Result<()> {
    writeln!(
        out,
        "\n{}",
        style.bold("Copies that fit only by preempting")
    )?;
    let mut table = Table::new(["COPY", "VICTIMS", "GROUPS", "GPUS FREED", "GPU-HOURS LOST"]);
    for p in &r.preemptions {
        let (groups, gpus, hours) = p.blast_radius.as_ref().map_or_else(
            || ("-".to_owned(), "-".to_owned(), "-".to_owned()),
            |b| {
                (
                    if b.victim_groups.is_empty() {
                        "-".to_owned()
                    } else {
                        b.victim_groups.join(",")
                    },
                    b.gpus_freed.to_string(),
                    format!("{:.1}", b.gpu_hours_lost),
                )
            },
        );
        table.row([
            Cell::from(sanitize(&p.copy).into_owned()),
            Cell::painted(p.victims.len().to_string(), Paint::Warn),
            Cell::from(sanitize(&groups).into_owned()),
            Cell::from(gpus),
            Cell::from(hours),
        ]);
    }
    table.write(out, style)
}

/// What stops the next copy (without preemption): its outcome and message, the closest
/// domain's fit (or the members that fit at once), the resource the rest run short of, and
/// the node rejection reasons with their node counts. `on_nodes`: a quota allows fewer
/// copies than the nodes, so this is what stops the next copy *on the nodes*.
fn write_limit(out: &mut dyn Write, l: &Limit, on_nodes: bool, style: Styler) -> io::Result<()> {
    let verdict = l.outcome.as_str();
    let verdict = match l.outcome {
        Outcome::Unschedulable | Outcome::Error => style.error(verdict),
        _ => style.warn(verdict),
    };
    let header = if on_nodes {
        "What stops the next copy on the nodes (without preemption)"
    } else {
        "What stops the next copy (without preemption)"
    };
    writeln!(out, "\n{}", style.bold(header))?;
    writeln!(out, "  {}: {verdict}", sanitize(&l.copy))?;
    if !l.message.is_empty() {
        writeln!(out, "  {}", sanitize(&l.message))?;
    }
    if let Some(d) = &l.closest_domain {
        writeln!(
            out,
            "  closest domain: {}={} fits {} of {} member(s)",
            sanitize(&d.key),
            sanitize(&d.value),
            d.placeable,
            l.min_count
        )?;
    } else if l.min_count > 1 {
        writeln!(
            out,
            "  {} of {} member(s) fit at once",
            l.placeable, l.min_count
        )?;
    }
    if let Some(s) = &l.short {
        let place = l
            .closest_domain
            .as_ref()
            .map(|d| format!(" in {}={}", sanitize(&d.key), sanitize(&d.value)))
            .unwrap_or_default();
        writeln!(
            out,
            "  short: {}: the {} member(s) left need {} more{place}",
            sanitize(&s.resource),
            s.members,
            sanitize(&s.amount)
        )?;
    }
    for (reason, n) in &l.node_reasons {
        writeln!(out, "  {n} node(s): {}", sanitize(reason))?;
    }
    Ok(())
}

/// The running units the what-ifs displaced: pods made pending or deleted, the outcome when
/// scheduled again and whether they were placed again.
fn write_displaced(out: &mut dyn Write, w: &WhatIfImpact, style: Styler) -> io::Result<()> {
    writeln!(
        out,
        "\n{}",
        style.bold("Running units displaced by the what-ifs")
    )?;
    let mut table = Table::new(["UNIT", "PENDING", "DELETED", "OUTCOME", "RE-PLACED"]);
    for d in &w.displaced {
        table.row([
            Cell::from(format!(
                "{}/{}/{}",
                d.kind,
                sanitize(&d.namespace),
                sanitize(&d.name)
            )),
            Cell::from(d.pending.to_string()),
            Cell::from(d.deleted.to_string()),
            Cell::from(d.outcome.clone()),
            if d.replaced {
                Cell::painted("yes", Paint::Ok)
            } else {
                Cell::painted("no", Paint::Error)
            },
        ]);
    }
    table.write(out, style)
}

/// `3 copies fit on nodes; quota `gpu-quota` (requests.nvidia.com/gpu: 8 used of 16) allows 2`.
fn write_quota_limit(
    out: &mut dyn Write,
    r: &CapacityReport,
    q: &QuotaLimit,
    style: Styler,
) -> io::Result<()> {
    let at_least = |n: u32| {
        if n as usize == r.settings.max_copies {
            "at least "
        } else {
            ""
        }
    };
    let with = if r.settings.preemption && q.copies_with_preemption_on_nodes != q.copies_on_nodes {
        format!(
            " ({}{} with preemption)",
            at_least(q.copies_with_preemption_on_nodes),
            q.copies_with_preemption_on_nodes
        )
    } else {
        String::new()
    };
    let nodes = format!(
        "{}{} cop{} on nodes{with}",
        at_least(q.copies_on_nodes),
        q.copies_on_nodes,
        if q.copies_on_nodes == 1 {
            "y fits"
        } else {
            "ies fit"
        }
    );
    let allows = match q.copies {
        0 => "allows none".to_owned(),
        n => format!("allows {n}"),
    };
    let quota = if q.must_specify {
        format!(
            "quota `{}` {allows}: it tracks `{}`, which a container of the shape does not request (every container must set it)",
            sanitize(&q.quota),
            sanitize(&q.resource)
        )
    } else {
        format!(
            "quota `{}` ({}: {} used of {}) {allows}",
            sanitize(&q.quota),
            sanitize(&q.resource),
            sanitize(&q.used),
            sanitize(&q.hard)
        )
    };
    writeln!(out, "  {nodes}; {}", style.warn(quota))
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

/// Writes the loader warnings, assumptions and the notes this count met (text mode sends
/// them to stderr), through [`super::notes::write_footer`].
pub(crate) fn write_notes(
    out: &mut dyn Write,
    r: &CapacityReport,
    verbosity: super::notes::Verbosity,
    style: Styler,
) -> io::Result<()> {
    let sim = &r.settings.simulation;
    crate::render::plan::write_extenders(
        out,
        &sim.extenders,
        "the copies that fit may differ if it filters, scores or binds the copies' pods",
        style,
    )?;
    let footer = super::notes::Footer {
        warnings: &r.warnings,
        more_warnings: sim.pod_by_pod.as_deref().into_iter().collect(),
        admitted: &sim.admitted,
        assumed: &sim.assumed,
        notes: &sim.relevant_notes,
        catalogue: CATALOGUE,
    };
    super::notes::write_footer(out, &footer, verbosity, style)
}

/// The notes capacity may meet: the simulation's and its own.
const CATALOGUE: &[crate::notes::Note] = &[
    crate::notes::Note::Ties,
    crate::notes::Note::ImageLocality,
    crate::notes::Note::ShareIds,
    crate::notes::Note::PreemptionTiming,
    crate::notes::Note::GroupPreemption,
    crate::notes::Note::PercentageCompat,
    crate::notes::Note::PercentageExhaustive,
    crate::notes::Note::CapacityCopies,
];

/// `--queue`: what Kueue's quota admits beside what the nodes hold, and which limits first.
fn write_queue(
    out: &mut dyn Write,
    q: &crate::plan::kueue_capacity::QueueCapacity,
    style: Styler,
) -> io::Result<()> {
    let flavors: Vec<String> = q
        .flavors
        .iter()
        .map(|f| format!("{} on {}", f.copies, sanitize(&f.flavor)))
        .collect();
    writeln!(
        out,
        "Kueue: LocalQueue {} → ClusterQueue {}: {} cop{} fit the quota{}, {} the nodes{}",
        sanitize(&q.local_queue),
        sanitize(&q.cluster_queue),
        q.by_quota,
        if q.by_quota == 1 { "y" } else { "ies" },
        if flavors.is_empty() {
            String::new()
        } else {
            format!(" ({})", flavors.join(", "))
        },
        q.by_nodes,
        q.node_flavor
            .as_deref()
            .map(|f| format!(" with flavor {}", sanitize(f)))
            .unwrap_or_default(),
    )?;
    let limit = if q.limited_by == "quota" {
        style.warn("the quota limits first")
    } else {
        "the nodes limit first".to_owned()
    };
    match &q.quota_message {
        Some(m) if q.limited_by == "quota" => {
            writeln!(out, "{limit}: {}", sanitize(m))?;
        }
        _ => writeln!(out, "{limit}")?,
    }
    if let Some(p) = &q.preemption {
        writeln!(out, "{}", sanitize(p))?;
    }
    Ok(())
}
