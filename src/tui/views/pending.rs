//! The pending view: every pending unit of the plan, in queue order (the plan's order), with
//! its outcome — those that would schedule too, marked `Scheduled` (issue 51: hiding them hid
//! what the plan does) — placed/minCount, victims and the simulator's one-line why. On a
//! cluster that runs Kueue, the Kueue Workloads pending admission are units too (`kind`
//! `Workload.kueue.x-k8s.io`, their admission outcome in the why). Under what-ifs the units
//! the what-ifs changed are marked (newly placed, newly stuck, new victims), until the
//! what-ifs are undone.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Component, Cx, List};
use crate::sanitize::sanitize;
use crate::sched::plan::{AdmissionOutcome, UnitResult};
use crate::snapshot::ObjRef;
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

/// The pending screen: the plan's units not placed (or whose answer the what-ifs changed) in
/// the namespace shown, in plan order, under the filter, with the cursor.
#[derive(Debug, Default)]
pub(crate) struct PendingView {
    /// Indices into the plan's units.
    list: List<usize>,
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

impl PendingView {
    fn rebuild(&mut self, cx: &Cx<'_>) {
        let mut rows: Vec<usize> = cx
            .data
            .plan
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| cx.shows(&u.namespace))
            .filter(|(_, u)| matches(&u.name, self.list.needle()))
            .map(|(i, _)| i)
            .collect();
        let units = &cx.data.plan.units;
        self.list.sort_rows(&mut rows, |&i, key| {
            let at = COLUMNS.iter().position(|c| c.sort == Some(key))?;
            cells(cx, &units[i], "").into_iter().nth(at)
        });
        self.list.rows = rows;
        self.list.cursor.clamp(self.list.rows.len());
    }

    fn unit<'a>(&self, cx: &Cx<'a>) -> Option<&'a UnitResult> {
        self.list
            .rows
            .get(self.list.cursor.selected)
            .and_then(|&i| cx.data.plan.units.get(i))
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
        let units = &cx.data.plan.units;
        let keep = shown(cx);
        let columns: Vec<Column> = keep.iter().map(|&i| COLUMNS[i]).collect();
        let rows: Vec<Vec<Cell>> = self.list.rows[window]
            .iter()
            .map(|&i| pick(cells(cx, &units[i], self.list.filter()), &keep))
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
            && let Some(pos) = self.list.rows.iter().position(|&i| {
                let u = &cx.data.plan.units[i];
                u.kind == obj.kind && u.namespace == obj.namespace && u.name == obj.name
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
        self.unit(cx)
            .map(|u| ObjRef::new(u.kind.clone(), &u.namespace, &u.name))
    }

    fn click(&mut self, y: u16) {
        self.list.click(y);
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        self.list.scroll(delta);
    }
}
