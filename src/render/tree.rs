//! Text view of a [`TreeReport`]: one aligned line per object with tree branches.

use std::io::{self, Write};

use super::color::Styler;
use crate::sanitize::sanitize;
use crate::tree::{TreeNode, TreeReport};

struct Line {
    prefix: String,
    node: TreeNode,
}

fn flatten(node: &TreeNode, prefix: &str, child_prefix: &str, out: &mut Vec<Line>) {
    let mut copy = node.clone();
    copy.children = Vec::new();
    out.push(Line {
        prefix: prefix.to_owned(),
        node: copy,
    });
    let n = node.children.len();
    for (i, c) in node.children.iter().enumerate() {
        let last = i + 1 == n;
        let (branch, cont) = if last {
            ("└─ ", "   ")
        } else {
            ("├─ ", "│  ")
        };
        flatten(
            c,
            &format!("{child_prefix}{branch}"),
            &format!("{child_prefix}{cont}"),
            out,
        );
    }
}

/// Options of the text view.
#[derive(Debug, Clone, Default)]
pub(crate) struct TextOptions {
    /// `-o wide`: also the priority class and the controlling owner.
    pub wide: bool,
    /// `-n`: one namespace, so the NAMESPACE column is hidden.
    pub hide_namespace: bool,
    /// What to say when no object is left to show, naming the scope that emptied it (a
    /// namespace, a selector); `None`: the cluster has none.
    pub empty: Option<String>,
    /// The terminal's width: the free-text column is cut with `…` to fit it; `None` (a pipe,
    /// `-o wide`): whole.
    pub width: Option<usize>,
}

fn headers(opts: &TextOptions) -> Vec<&'static str> {
    let mut h = vec![
        "NAMESPACE",
        "NAME",
        "STATUS",
        "SIMULATED",
        "POLICY",
        "DISRUPTION",
        "PRIORITY",
        "NODE",
        "AGE",
    ];
    if opts.wide {
        h.extend(["PRIORITYCLASS", "OWNER"]);
    }
    h
}

fn cells(l: &Line, opts: &TextOptions) -> Vec<String> {
    let n = &l.node;
    let mut status = n.status.clone().unwrap_or_default();
    // The status already says what PodGroupInitiallyScheduled and PodScheduled say; the text
    // view adds only the conditions it does not (JSON keeps them all).
    for c in n
        .conditions
        .iter()
        .filter(|c| c.as_str() == "DisruptionTarget")
    {
        if !status.is_empty() {
            status.push(',');
        }
        status.push_str(c);
    }
    let mut row = vec![
        sanitize(&n.namespace).into_owned(),
        format!("{}{}/{}", l.prefix, n.kind, sanitize(&n.name)),
        sanitize(&status).into_owned(),
        n.simulated.clone().unwrap_or_default(),
        n.policy.clone().unwrap_or_default(),
        n.disruption_mode.clone().unwrap_or_default(),
        n.priority.map(|p| p.to_string()).unwrap_or_default(),
        sanitize(n.node.as_deref().unwrap_or("")).into_owned(),
        n.age.clone().unwrap_or_default(),
    ];
    if opts.wide {
        row.push(sanitize(n.priority_class_name.as_deref().unwrap_or("")).into_owned());
        row.push(sanitize(n.owner.as_deref().unwrap_or("")).into_owned());
    }
    row
}

/// Writes the loader warnings and assumptions (stderr in text mode), through
/// [`super::notes::write_footer`].
pub(crate) fn write_notes(
    out: &mut dyn Write,
    report: &TreeReport,
    verbosity: super::notes::Verbosity,
    style: Styler,
) -> io::Result<()> {
    let footer = super::notes::Footer {
        warnings: &report.warnings,
        assumed: &report.assumed,
        ..Default::default()
    };
    super::notes::write_footer(out, &footer, verbosity, style)
}

/// `-o name`: `kind/name` of every object in the tree, in tree order.
pub(crate) fn write_names(out: &mut dyn Write, report: &TreeReport) -> io::Result<()> {
    let mut lines = Vec::new();
    for r in &report.roots {
        flatten(r, "", "", &mut lines);
    }
    for l in lines {
        writeln!(
            out,
            "{}/{}",
            l.node.kind.kubectl_name(),
            sanitize(&l.node.name)
        )?;
    }
    Ok(())
}

/// Writes the tree as aligned text: the gates line, then one row per object.
pub(crate) fn write_text(
    out: &mut dyn Write,
    report: &TreeReport,
    style: Styler,
    opts: TextOptions,
) -> io::Result<()> {
    if !report.feature_gates.is_empty() {
        writeln!(
            out,
            "{}",
            style.dim(super::plan::gates_line(
                "kube-scheduler",
                &report.feature_gates
            ))
        )?;
    }
    if report.roots.is_empty() {
        match &opts.empty {
            Some(line) => writeln!(out, "{}", sanitize(line))?,
            None => writeln!(out, "No Workloads, PodGroups or CompositePodGroups found.")?,
        }
        return Ok(());
    }
    let mut lines = Vec::new();
    for r in &report.roots {
        flatten(r, "", "", &mut lines);
    }
    let headers = headers(&opts);
    let rows: Vec<Vec<String>> = lines.iter().map(|l| cells(l, &opts)).collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    // kubectl hides NAMESPACE under -n, and this view hides SIMULATED when nothing differs.
    let shown: Vec<usize> = (0..headers.len())
        .filter(|i| !(opts.hide_namespace && *i == 0))
        .filter(|i| *i != 3 || rows.iter().any(|r| !r[3].is_empty()))
        .collect();
    let header: Vec<String> = shown
        .iter()
        .map(|i| format!("{:<w$}", headers[*i], w = widths[*i]))
        .collect();
    writeln!(out, "{}", style.bold(header.join("  ").trim_end()))?;
    for (line, row) in lines.iter().zip(&rows) {
        let mut text = String::new();
        for (pos, i) in shown.iter().enumerate() {
            let cell = &row[*i];
            let pad = widths[*i].saturating_sub(cell.chars().count());
            let styled = match i {
                2 | 3 => color_status(style, cell),
                _ => cell.clone(),
            };
            text.push_str(&styled);
            if pos + 1 < shown.len() {
                text.push_str(&" ".repeat(pad + 2));
            }
        }
        let text = text.trim_end().to_owned();
        let n = &line.node;
        // The free text after the columns (devices, dangling references, notes): cut with
        // `…` at the terminal's width, the columns never.
        let mut extra = String::new();
        for d in &n.devices {
            extra.push_str(&format!("  {}", style.dim(format!("[{}]", sanitize(d)))));
        }
        for m in &n.missing {
            extra.push_str(&format!(
                "  {}",
                style.error(format!("✗ missing {}", sanitize(m)))
            ));
        }
        for note in &n.notes {
            extra.push_str(&format!("  {}", style.dim(format!("({})", sanitize(note)))));
        }
        if let Some(width) = super::fit::usable(opts.width) {
            let room = width
                .saturating_sub(super::fit::display_width(&text))
                .max(3);
            extra = super::fit::truncate_styled(&extra, room);
        }
        writeln!(out, "{text}{extra}")?;
    }
    Ok(())
}

fn color_status(style: Styler, cell: &str) -> String {
    let first = cell.split(',').next().unwrap_or("");
    match first {
        "Running" | "Scheduled" | "Succeeded" | "Allocated" | "Allocated, reserved 1" => {
            style.ok(cell)
        }
        "Pending" | "NoPods" | "Waiting" | "Preempting" => style.warn(cell),
        "Failed" | "Unschedulable" | "SchedulerError" | "Error" | "NotReady" => style.error(cell),
        _ if first.starts_with("Allocated") => style.ok(cell),
        _ => cell.to_owned(),
    }
}

/// `tree clusterqueue/NAME` (`localqueue/NAME`): the queue line, the quota table, then the
/// workloads admitted and waiting.
pub(crate) fn write_queue_text(
    out: &mut dyn Write,
    report: &crate::tree::queue::QueueReport,
    style: Styler,
) -> io::Result<()> {
    use super::table::{Cell, Table};
    let mut head = match &report.local_queue {
        Some(lq) => format!(
            "LocalQueue {}/{} → ClusterQueue {}",
            sanitize(&lq.namespace),
            sanitize(&lq.name),
            sanitize(&report.cluster_queue)
        ),
        None => format!("ClusterQueue {}", sanitize(&report.cluster_queue)),
    };
    if report.cohorts.is_empty() {
        head.push_str(", no cohort");
    } else {
        let chain: Vec<String> = report
            .cohorts
            .iter()
            .map(|c| sanitize(c).into_owned())
            .collect();
        head.push_str(&format!(", cohort {}", chain.join(" → ")));
    }
    head.push_str(&format!(", {}", report.queueing_strategy));
    if report.stop_policy != "None" {
        head.push_str(&format!(", stopPolicy {}", report.stop_policy));
    }
    writeln!(out, "{}", style.bold(head))?;
    let mut t = Table::new([
        "FLAVOR",
        "RESOURCE",
        "NOMINAL",
        "BORROWING LIMIT",
        "LENDING LIMIT",
        "USED",
        "BORROWED",
        "LENT",
        "PENDING",
    ]);
    for r in &report.resources {
        t.row([
            Cell::from(sanitize(&r.flavor).into_owned()),
            Cell::from(sanitize(&r.resource).into_owned()),
            Cell::from(r.nominal.as_str()),
            Cell::from(r.borrowing_limit.as_deref().unwrap_or("-")),
            Cell::from(r.lending_limit.as_deref().unwrap_or("-")),
            Cell::from(r.used.as_str()),
            Cell::from(r.borrowed.as_str()),
            Cell::from(r.lent.as_str()),
            Cell::from(r.pending.as_deref().unwrap_or("")),
        ]);
    }
    t.write(out, style)?;
    write_workloads(
        out,
        style,
        format!("Admitted ({})", report.admitted.len()),
        &report.admitted,
        false,
    )?;
    let order = if report.queueing_strategy == "StrictFIFO" {
        "StrictFIFO: the head blocks the workloads behind it"
    } else {
        "BestEffortFIFO: a head that does not fit is set aside and the next one tried"
    };
    write_workloads(
        out,
        style,
        format!(
            "Waiting ({}), in queue order — {order}",
            report.pending.len()
        ),
        &report.pending,
        true,
    )?;
    if !report.notes.is_empty() {
        writeln!(out)?;
        for n in &report.notes {
            writeln!(out, "{}", style.warn(format!("note: {}", sanitize(n))))?;
        }
    }
    Ok(())
}

/// One list of a queue view (admitted, or waiting in queue order, `numbered`): a table of
/// its workloads, indented, or `(none)`.
fn write_workloads(
    out: &mut dyn Write,
    style: Styler,
    title: String,
    rows: &[crate::tree::queue::QueuedWorkload],
    numbered: bool,
) -> io::Result<()> {
    use super::table::{Cell, Paint, Table};
    writeln!(out)?;
    writeln!(out, "{}", style.bold(title))?;
    if rows.is_empty() {
        writeln!(out, "  (none)")?;
        return Ok(());
    }
    let mut t = Table::new([
        "#",
        "WORKLOAD",
        "LOCALQUEUE",
        "PRIORITY",
        "STATE",
        "AGE",
        "REQUESTS",
        "MESSAGE",
    ]);
    if !numbered {
        t.hide("#");
    }
    for (i, w) in rows.iter().enumerate() {
        let requests: Vec<String> = w
            .pod_sets
            .iter()
            .map(|p| {
                let each: Vec<String> =
                    p.requests.iter().map(|(r, v)| format!("{r}={v}")).collect();
                let mut flavors: Vec<&str> = p.flavors.values().map(String::as_str).collect();
                flavors.sort_unstable();
                flavors.dedup();
                format!(
                    "{}×{{{}}}{}",
                    p.count,
                    each.join(","),
                    if flavors.is_empty() {
                        String::new()
                    } else {
                        format!("@{}", flavors.join(","))
                    }
                )
            })
            .collect();
        let paint = match w.state.as_str() {
            "Admitted" => Paint::Ok,
            "Evicted" => Paint::Error,
            _ => Paint::Warn,
        };
        t.row([
            Cell::from((i + 1).to_string()),
            Cell::from(format!("{}/{}", sanitize(&w.namespace), sanitize(&w.name))),
            Cell::from(sanitize(&w.local_queue).into_owned()),
            Cell::from(w.priority.to_string()),
            Cell::painted(w.state.clone(), paint),
            Cell::from(w.age.clone().unwrap_or_default()),
            Cell::from(sanitize(&requests.join(" ")).into_owned()),
            Cell::from(sanitize(w.message.as_deref().unwrap_or("")).into_owned()),
        ]);
    }
    let mut buf = Vec::new();
    t.write(&mut buf, style)?;
    for line in String::from_utf8_lossy(&buf).lines() {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// `-o name` of a queue view: the queue, then its workloads, as kubectl spells them.
pub(crate) fn write_queue_names(
    out: &mut dyn Write,
    report: &crate::tree::queue::QueueReport,
) -> io::Result<()> {
    match &report.local_queue {
        Some(lq) => writeln!(out, "localqueue.kueue.x-k8s.io/{}", sanitize(&lq.name))?,
        None => writeln!(
            out,
            "clusterqueue.kueue.x-k8s.io/{}",
            sanitize(&report.cluster_queue)
        )?,
    }
    for w in report.admitted.iter().chain(&report.pending) {
        writeln!(out, "workload.kueue.x-k8s.io/{}", sanitize(&w.name))?;
    }
    Ok(())
}
