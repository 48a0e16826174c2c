//! The pending view: every pending unit of the plan, in queue order (the plan's order), with
//! its outcome — those that would schedule too, marked `Scheduled` (issue 51: hiding them hid
//! what the plan does) — placed/minCount, victims and the simulator's one-line why. On a
//! cluster that runs Kueue, the Kueue Workloads pending admission are units too (`kind`
//! `Workload.kueue.x-k8s.io`, their admission outcome in the why). Under what-ifs the units
//! the what-ifs changed are marked (newly placed, newly stuck, new victims), until the
//! what-ifs are undone. After them, the gangs of other schedulers with members not bound
//! (Volcano PodGroups, YuniKorn task groups): never simulated, their scheduler named and
//! what it recorded, as the tree report gives them.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Component, Cx, List};
use crate::sanitize::sanitize;
use crate::sched::plan::{AdmissionOutcome, Outcome, UnitResult};
use crate::snapshot::{ObjKind, ObjRef};
use crate::tree::TreeNode;
use crate::tui::data::{Change, UnitChange, WhatIf, marker};
use crate::tui::event::Intent;
use crate::tui::widgets::{Cell, Column, highlight, labelled_line, matches, pick, table};

/// The columns; NAMESPACE only while every namespace is shown, ADMISSION only on a cluster
/// that runs Kueue.
pub(crate) const COLUMNS: [Column; 9] = [
    Column::text("CHANGE", 6, 16).drops(5).sorts('C'),
    Column::whole("NAMESPACE").drops(3).sorts('E'),
    Column::whole("UNIT").sorts('N'),
    Column::whole("OUTCOME").sorts('O'),
    Column::whole("ADMISSION").drops(2).sorts('A'),
    Column::whole("PLACED").drops(4).sorts('L'),
    Column::whole("MIN").drops(6).sorts('M'),
    Column::whole("VICTIMS").drops(7).sorts('V'),
    Column::text("WHY", 10, 200).sorts('W'),
];

/// One row: a unit of the plan, or another scheduler's gang.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    /// An index into the plan's units.
    Unit(usize),
    /// An index into the tree's rows: a Volcano PodGroup or YuniKorn task group's row.
    Gang(usize),
}

/// The pending screen: the plan's units not placed (or whose answer the what-ifs changed) in
/// the namespace shown, in plan order, then the other schedulers' gangs not running, under
/// the filter, with the cursor.
#[derive(Debug, Default)]
pub(crate) struct PendingView {
    list: List<Row>,
    /// The unit to select after the next refresh ([`Component::remember`]).
    want: Option<ObjRef>,
}

fn change_of<'a>(cx: &'a Cx<'_>, u: &UnitResult) -> Option<&'a UnitChange> {
    cx.data
        .changes
        .get(&ObjRef::new(u.kind.clone(), &u.namespace, &u.name))
}

/// `placed/pending` as `simulate` shows it (`before+placed/total` when members already run).
fn placed(u: &UnitResult) -> String {
    if u.scheduled_before > 0 {
        format!(
            "{}+{}/{}",
            u.scheduled_before,
            u.placements.len(),
            u.pending + u.scheduled_before
        )
    } else {
        format!("{}/{}", u.placements.len(), u.pending)
    }
}

/// The columns shown: NAMESPACE only while every namespace is (kubectl's `-A`); ADMISSION
/// (Kueue's answer for a Kueue Workload) only when the plan has Kueue's stage.
fn shown(cx: &Cx<'_>) -> Vec<usize> {
    let kueue = cx.data.plan.units.iter().any(|u| u.kueue.is_some());
    (0..COLUMNS.len())
        .filter(|&i| cx.namespace.is_none() || COLUMNS[i].title != "NAMESPACE")
        .filter(|&i| kueue || COLUMNS[i].title != "ADMISSION")
        .collect()
}

/// A unit's cells, in [`COLUMNS`] order, its name's match of `filter` highlighted.
fn cells(cx: &Cx<'_>, u: &UnitResult, filter: &str) -> Vec<Cell> {
    let theme = cx.theme;
    let change = change_of(cx, u).map(|c| c.change);
    let change_style = match change {
        Some(Change::NewlySchedulable) => theme.ok(),
        Some(Change::NewlyUnschedulable | Change::VictimsChanged) => theme.error(),
        _ => theme.warn(),
    };
    let mut unit = vec![Span::raw(format!("{}/", u.kind))];
    unit.extend(highlight(&sanitize(&u.name), filter, Style::new(), theme));
    let why = u.message.lines().next().unwrap_or("");
    vec![
        Line::from(Span::styled(
            change.map(marker).unwrap_or_default(),
            change_style,
        )),
        Line::raw(sanitize(&u.namespace).into_owned()),
        Line::from(unit),
        Line::from(Span::styled(
            format!("{:?}", u.outcome),
            theme.outcome(u.outcome),
        )),
        admission(u, theme),
        Line::raw(placed_of(cx, u)),
        Line::raw(
            u.min_count
                .map_or_else(|| "-".to_owned(), |m| m.to_string()),
        ),
        Line::raw(match u.kueue.as_deref() {
            // The workloads Kueue preempts for it.
            Some(k) => k.admission.preempts.len().to_string(),
            None => u.victims.len().to_string(),
        }),
        Line::raw(sanitize(why).into_owned()),
    ]
}

/// Kueue's answer for a Kueue Workload (`QuotaPending`, `Admitted` …), painted as simulate
/// paints it; empty for the other units.
fn admission(u: &UnitResult, theme: crate::tui::theme::Theme) -> Cell {
    let Some(k) = u.kueue.as_deref() else {
        return Line::default();
    };
    let o = k.admission.outcome;
    let style = match o {
        AdmissionOutcome::Admitted => theme.ok(),
        AdmissionOutcome::NoQueue | AdmissionOutcome::QueueStopped => theme.error(),
        _ => theme.warn(),
    };
    Line::from(Span::styled(o.as_str(), style))
}

/// PLACED of a unit: for a Kueue Workload, that of the unit holding its pods (its own
/// placements are not repeated there: `0/1` beside `Scheduled` would be a wrong number), `-`
/// while it has none.
fn placed_of(cx: &Cx<'_>, u: &UnitResult) -> String {
    match u.kueue.as_deref() {
        None => placed(u),
        Some(k) => k
            .placement
            .as_ref()
            .and_then(|at| cx.data.plan.unit(at))
            .map_or_else(|| "-".to_owned(), placed),
    }
}

/// The other schedulers' gangs with a member pod not bound, or fewer bound than
/// `minMember`: indices of their rows in the tree (rows whose scheduler is named and whose
/// policy is `gang BOUND/MIN`, at any depth: a Volcano Job above its PodGroup is not one).
fn waiting_gangs(cx: &Cx<'_>) -> Vec<usize> {
    let tree = &cx.data.tree;
    tree.iter()
        .enumerate()
        .filter(|(_, r)| {
            r.node.scheduler.is_some()
                && r.node
                    .policy
                    .as_deref()
                    .is_some_and(|p| p.starts_with("gang "))
        })
        .filter(|(i, r)| {
            let members = &tree[i + 1..r.end];
            let (bound, min) = gang_counts(&r.node);
            members.iter().any(|m| {
                m.depth == r.depth + 1 && m.node.kind == ObjKind::Pod && m.node.node.is_none()
            }) || min.is_some_and(|m| bound.is_none_or(|b| b < m))
        })
        .map(|(i, _)| i)
        .collect()
}

/// A gang row's `gang BOUND/MIN` (the tree's policy) as numbers.
fn gang_counts(n: &TreeNode) -> (Option<u32>, Option<u32>) {
    let Some((bound, min)) = n
        .policy
        .as_deref()
        .and_then(|p| p.strip_prefix("gang "))
        .and_then(|p| p.split_once('/'))
    else {
        return (None, None);
    };
    (bound.parse().ok(), min.parse().ok())
}

/// Another scheduler's gang's cells, in [`COLUMNS`] order: not simulated, its scheduler
/// named; PLACED is the members bound, as the scheduler recorded them.
fn gang_cells(cx: &Cx<'_>, n: &TreeNode, filter: &str) -> Vec<Cell> {
    let theme = cx.theme;
    let mut unit = vec![Span::raw(format!("{}/", n.kind))];
    unit.extend(highlight(&sanitize(&n.name), filter, Style::new(), theme));
    let (bound, min) = gang_counts(n);
    let count = |c: Option<u32>| c.map_or_else(|| "-".to_owned(), |c| c.to_string());
    let why = gang_why(n);
    vec![
        Line::default(),
        Line::raw(sanitize(&n.namespace).into_owned()),
        Line::from(unit),
        Line::from(Span::styled(
            format!("{:?}", Outcome::NotSimulated),
            theme.outcome(Outcome::NotSimulated),
        )),
        Line::default(),
        Line::raw(format!("{}/{}", count(bound), count(min))),
        Line::raw(count(min)),
        Line::raw("-"),
        Line::raw(sanitize(&why).into_owned()),
    ]
}

/// Why another scheduler's gang waits, in words: its scheduler named (not simulated), and
/// what it recorded (phase, conditions, queue or application, placeholders).
fn gang_why(n: &TreeNode) -> String {
    let scheduler = n.scheduler.as_deref().unwrap_or_default();
    let mut why = format!(
        "scheduled by `{scheduler}`, not simulated; it recorded {}",
        n.status.as_deref().unwrap_or("nothing")
    );
    for c in n.conditions.iter().chain(&n.notes) {
        why.push_str(&format!(", {c}"));
    }
    why
}

/// A row's cells, in [`COLUMNS`] order.
fn row_cells(cx: &Cx<'_>, row: Row, filter: &str) -> Vec<Cell> {
    match row {
        Row::Unit(i) => cells(cx, &cx.data.plan.units[i], filter),
        Row::Gang(i) => gang_cells(cx, &cx.data.tree[i].node, filter),
    }
}

impl PendingView {
    fn rebuild(&mut self, cx: &Cx<'_>) {
        let mut rows: Vec<Row> = cx
            .data
            .plan
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| cx.shows(&u.namespace))
            .filter(|(_, u)| matches(&u.name, self.list.needle()))
            .map(|(i, _)| Row::Unit(i))
            .collect();
        rows.extend(
            waiting_gangs(cx)
                .into_iter()
                .filter(|&i| {
                    let n = &cx.data.tree[i].node;
                    cx.shows(&n.namespace) && matches(&n.name, self.list.needle())
                })
                .map(Row::Gang),
        );
        self.list.sort_rows(&mut rows, |&row, key| {
            let at = COLUMNS.iter().position(|c| c.sort == Some(key))?;
            row_cells(cx, row, "").into_iter().nth(at)
        });
        self.list.rows = rows;
        self.list.cursor.clamp(self.list.rows.len());
    }

    fn row(&self) -> Option<Row> {
        self.list.rows.get(self.list.cursor.selected).copied()
    }

    fn unit<'a>(&self, cx: &Cx<'a>) -> Option<&'a UnitResult> {
        match self.row()? {
            Row::Unit(i) => cx.data.plan.units.get(i),
            Row::Gang(_) => None,
        }
    }

    fn gang<'a>(&self, cx: &Cx<'a>) -> Option<&'a TreeNode> {
        match self.row()? {
            Row::Gang(i) => cx.data.tree.get(i).map(|r| &r.node),
            Row::Unit(_) => None,
        }
    }
}

impl Component for PendingView {
    fn title(&self, cx: &Cx<'_>) -> String {
        let s = &cx.data.plan.summary;
        format!(
            "pending ({} shown; plan: {})",
            self.list.rows.len(),
            s.counts_text()
        )
    }

    fn draw(&mut self, buf: &mut Buffer, area: Rect, cx: &Cx<'_>) {
        let theme = cx.theme;
        // The last line says why; under what-ifs the one above says what changed.
        let footer = if cx.data.changes.is_empty() { 1 } else { 2 };
        let body = Rect {
            height: area.height.saturating_sub(footer + 1),
            ..area
        };
        let (window, selected) = self.list.layout(body);
        if let Some(line) = &cx.data.plan.settings.pod_by_pod {
            buf.set_string(
                area.x,
                body.bottom(),
                format!("warning: {}", sanitize(line)),
                theme.warn(),
            );
        } else if let Some(e) = cx.data.plan.settings.extenders.first() {
            // Extenders are not simulated: the outcomes of the units they see may differ.
            buf.set_string(
                area.x,
                body.bottom(),
                format!(
                    "warning: extender `{}` is not simulated: outcomes may differ",
                    sanitize(e)
                ),
                theme.warn(),
            );
        }
        if self.list.rows.is_empty() {
            let msg = if self.list.filter().is_empty() {
                "Nothing pending: every pod is bound."
            } else {
                "Nothing matches (Esc clears the filter)."
            };
            buf.set_string(area.x, area.y, msg, theme.dim());
            return;
        }
        let keep = shown(cx);
        let columns: Vec<Column> = keep.iter().map(|&i| COLUMNS[i]).collect();
        let rows: Vec<Vec<Cell>> = self.list.rows[window]
            .iter()
            .map(|&row| pick(row_cells(cx, row, self.list.filter()), &keep))
            .collect();
        table(
            buf,
            body,
            theme,
            &columns,
            &rows,
            Some(selected),
            self.list.sort(),
        );
        if let Some(n) = self.gang(cx) {
            labelled_line(buf, area, area.bottom() - 1, "why: ", &gang_why(n), theme);
        }
        if let Some(u) = self.unit(cx) {
            labelled_line(buf, area, area.bottom() - 1, "why: ", &u.message, theme);
            // Under what-ifs: what changed for this unit and which changes caused it, in the
            // `diff` command's words.
            if let Some(c) = change_of(cx, u)
                && area.height > 2
            {
                let causes = if c.causes.is_empty() {
                    String::new()
                } else {
                    format!(" because {}", c.causes.join("; "))
                };
                let text = format!("{} → {}{causes}", c.before, c.after);
                labelled_line(buf, area, area.bottom() - 2, "changed: ", &text, theme);
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent, cx: &Cx<'_>, queue: &mut Vec<Intent>) -> bool {
        if self.list.navigate(key) {
            return true;
        }
        if self.list.sort_key(key, &COLUMNS) {
            self.refresh(cx);
            return true;
        }
        match key.code {
            KeyCode::Enter => {
                if let Some(obj) = self.selected(cx) {
                    queue.push(Intent::Explain(obj));
                }
            }
            KeyCode::Char('x') => queue.push(Intent::ToggleWhatIf(WhatIf::NoPreemption)),
            _ => return false,
        }
        true
    }

    fn remember(&mut self, cx: &Cx<'_>) {
        if self.want.is_none() {
            self.want = self.selected(cx);
        }
    }

    fn refresh(&mut self, cx: &Cx<'_>) {
        let keep = self.want.take().or_else(|| self.selected(cx));
        self.rebuild(cx);
        if let Some(obj) = keep
            && let Some(pos) = self.list.rows.iter().position(|&row| match row {
                Row::Unit(i) => {
                    let u = &cx.data.plan.units[i];
                    u.kind == obj.kind && u.namespace == obj.namespace && u.name == obj.name
                }
                Row::Gang(i) => cx.data.tree[i].is(&obj),
            })
        {
            self.list.cursor.selected = pos;
        }
    }

    fn filter(&self) -> &str {
        self.list.filter()
    }

    fn set_filter(&mut self, filter: &str, cx: &Cx<'_>) {
        self.list.set_filter(filter);
        self.refresh(cx);
    }

    fn selected(&self, cx: &Cx<'_>) -> Option<ObjRef> {
        match self.row()? {
            Row::Unit(_) => self
                .unit(cx)
                .map(|u| ObjRef::new(u.kind.clone(), &u.namespace, &u.name)),
            Row::Gang(i) => cx.data.tree.get(i).map(|r| r.obj()),
        }
    }

    fn click(&mut self, y: u16) {
        self.list.click(y);
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        self.list.scroll(delta);
    }
}
