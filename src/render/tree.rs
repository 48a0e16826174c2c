//! Text view of a [`TreeReport`]: one aligned line per object with tree branches.

use std::io::{self, Write};

use super::color::Styler;
use super::sanitize;
use crate::graph::tree::{TreeNode, TreeReport};

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

const HEADERS: [&str; 8] = [
    "NAMESPACE",
    "NAME",
    "STATUS",
    "POLICY",
    "DISRUPTION",
    "PRIORITY",
    "NODE",
    "AGE",
];

fn cells(l: &Line) -> [String; 8] {
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
    [
        sanitize(&n.namespace).into_owned(),
        format!("{}{}/{}", l.prefix, n.kind, sanitize(&n.name)),
        sanitize(&status).into_owned(),
        n.policy.clone().unwrap_or_default(),
        n.disruption_mode.clone().unwrap_or_default(),
        n.priority.map(|p| p.to_string()).unwrap_or_default(),
        sanitize(n.node.as_deref().unwrap_or("")).into_owned(),
        n.age.clone().unwrap_or_default(),
    ]
}

/// Writes the tree as aligned text.
pub fn write_text(out: &mut dyn Write, report: &TreeReport, style: Styler) -> io::Result<()> {
    for w in &report.warnings {
        writeln!(out, "{} {}", style.warn("warning:"), sanitize(&w.message))?;
    }
    if report.roots.is_empty() {
        writeln!(out, "No Workloads, PodGroups or CompositePodGroups found.")?;
        return Ok(());
    }
    let mut lines = Vec::new();
    for r in &report.roots {
        flatten(r, "", "", &mut lines);
    }
    let rows: Vec<[String; 8]> = lines.iter().map(cells).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let header: Vec<String> = HEADERS
        .iter()
        .zip(widths)
        .map(|(h, w)| format!("{h:<w$}"))
        .collect();
    writeln!(out, "{}", style.bold(header.join("  ").trim_end()))?;
    for (line, row) in lines.iter().zip(&rows) {
        let mut text = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            let styled = match i {
                2 => color_status(style, cell),
                _ => cell.clone(),
            };
            text.push_str(&styled);
            if i + 1 < row.len() {
                text.push_str(&" ".repeat(pad + 2));
            }
        }
        let mut text = text.trim_end().to_owned();
        let n = &line.node;
        for d in &n.devices {
            text.push_str(&format!("  {}", style.dim(format!("[{}]", sanitize(d)))));
        }
        for m in &n.missing {
            text.push_str(&format!(
                "  {}",
                style.error(format!("✗ missing {}", sanitize(m)))
            ));
        }
        for note in &n.notes {
            text.push_str(&format!("  {}", style.dim(format!("({})", sanitize(note)))));
        }
        writeln!(out, "{text}")?;
    }
    for a in &report.assumed {
        writeln!(out, "{}", style.dim(format!("assumed: {a}")))?;
    }
    Ok(())
}

fn color_status(style: Styler, cell: &str) -> String {
    let first = cell.split(',').next().unwrap_or("");
    match first {
        "Running" | "Scheduled" | "Succeeded" | "Allocated" | "Allocated, reserved 1" => {
            style.ok(cell)
        }
        "Pending" | "NoPods" => style.warn(cell),
        "Failed" | "Unschedulable" | "SchedulerError" => style.error(cell),
        _ if first.starts_with("Allocated") => style.ok(cell),
        _ => cell.to_owned(),
    }
}
