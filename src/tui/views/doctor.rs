//! The doctor view: the [`DoctorReport`](crate::doctor::DoctorReport)'s findings grouped by
//! severity (a header row per group), narrowed to the namespace shown as `doctor -n` narrows
//! them; the selected finding's fix below. `Enter` jumps to the finding's object in the tree.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Component, Cx, List};
use crate::doctor::{Finding, Severity};
use crate::sanitize::sanitize;
use crate::snapshot::ObjRef;
use crate::tui::event::Intent;
use crate::tui::widgets::{Cell, Column, highlight, labelled_line, matches, table};

/// The columns.
pub(crate) const COLUMNS: [Column; 3] = [
    Column::whole("ID").sorts('I'),
    Column::whole("OBJECT").sorts('N'),
    Column::text("MESSAGE", 10, 300).sorts('M'),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Header(Severity, usize),
    Finding(usize),
}

/// The doctor screen: the findings of the namespace shown under the filter, grouped under a
/// header per severity (errors first), with the cursor.
#[derive(Debug, Default)]
pub(crate) struct DoctorView {
    list: List<Row>,
    /// The finding to select after the next refresh ([`Component::remember`]).
    want: Option<Finding>,
}

impl DoctorView {
    fn finding<'a>(&self, cx: &Cx<'a>) -> Option<&'a Finding> {
        match self.list.rows.get(self.list.cursor.selected)? {
            Row::Finding(i) => cx.data.doctor.findings.get(*i),
            Row::Header(..) => None,
        }
    }

    fn shown(&self, cx: &Cx<'_>, f: &Finding) -> bool {
        cx.shows(&f.object.namespace)
            && (matches(&f.object.name, self.list.needle())
                || matches(&f.message, self.list.needle()))
    }
}

fn paint(cx: &Cx<'_>, s: Severity) -> Style {
    match s {
        Severity::Error => cx.theme.error(),
        Severity::Warning => cx.theme.warn(),
        Severity::Info => cx.theme.dim(),
    }
}

/// A finding's cells, in [`COLUMNS`] order, its object's name's match of `filter` highlighted.
fn finding_cells(cx: &Cx<'_>, f: &Finding, filter: &str) -> Vec<Cell> {
    let ns = if f.object.namespace.is_empty() {
        String::new()
    } else {
        format!("{}/", sanitize(&f.object.namespace))
    };
    let mut obj = vec![Span::raw(format!("{}/{ns}", f.object.kind))];
    obj.extend(highlight(
        &sanitize(&f.object.name),
        filter,
        Style::new(),
        cx.theme,
    ));
    vec![
        Line::from(Span::styled(
            format!("  {}", f.id.id()),
            paint(cx, f.severity),
        )),
        Line::from(obj),
        Line::raw(sanitize(&f.message).into_owned()),
    ]
}

impl Component for DoctorView {
    fn title(&self, cx: &Cx<'_>) -> String {
        let n = |s: Severity| {
            self.list
                .rows
                .iter()
                .find_map(|r| match r {
                    Row::Header(x, n) if *x == s => Some(*n),
                    _ => None,
                })
                .unwrap_or(0)
        };
        let _ = cx;
        format!(
            "doctor ({} error(s), {} warning(s), {} info)",
            n(Severity::Error),
            n(Severity::Warning),
            n(Severity::Info)
        )
    }

    fn draw(&mut self, buf: &mut Buffer, area: Rect, cx: &Cx<'_>) {
        let theme = cx.theme;
        let body = Rect {
            height: area.height.saturating_sub(1),
            ..area
        };
        let (window, selected) = self.list.layout(body);
        if self.list.rows.is_empty() {
            buf.set_string(area.x, area.y, "No findings.", theme.ok());
            return;
        }
        let findings = &cx.data.doctor.findings;
        let cells: Vec<Vec<Cell>> = self.list.rows[window]
            .iter()
            .map(|row| match *row {
                Row::Header(s, n) => {
                    let title = match s {
                        Severity::Error => "Errors",
                        Severity::Warning => "Warnings",
                        Severity::Info => "Info",
                    };
                    vec![
                        Line::from(Span::styled(format!("{title} ({n})"), paint(cx, s))),
                        Line::default(),
                        Line::default(),
                    ]
                }
                Row::Finding(i) => finding_cells(cx, &findings[i], self.list.filter()),
            })
            .collect();
        table(
            buf,
            body,
            theme,
            &COLUMNS,
            &cells,
            Some(selected),
            self.list.sort(),
        );
        if let Some(f) = self.finding(cx) {
            labelled_line(buf, area, area.bottom() - 1, "fix: ", &f.fix, theme);
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
        if key.code == KeyCode::Enter {
            if let Some(f) = self.finding(cx) {
                queue.push(Intent::JumpTree(f.object.clone()));
            }
            return true;
        }
        false
    }

    fn remember(&mut self, cx: &Cx<'_>) {
        if self.want.is_none() {
            self.want = self.finding(cx).cloned();
        }
    }

    fn refresh(&mut self, cx: &Cx<'_>) {
        let keep = self.want.take().or_else(|| self.finding(cx).cloned());
        self.list.rows.clear();
        for s in [Severity::Error, Severity::Warning, Severity::Info] {
            let found: Vec<usize> = cx
                .data
                .doctor
                .findings
                .iter()
                .enumerate()
                .filter(|(_, f)| f.severity == s && self.shown(cx, f))
                .map(|(i, _)| i)
                .collect();
            let mut found = found;
            // Sorted within each severity.
            let findings = &cx.data.doctor.findings;
            self.list.sort_rows(&mut found, |&i, key| {
                let at = COLUMNS.iter().position(|c| c.sort == Some(key))?;
                finding_cells(cx, &findings[i], "").into_iter().nth(at)
            });
            if !found.is_empty() {
                self.list.rows.push(Row::Header(s, found.len()));
                self.list.rows.extend(found.into_iter().map(Row::Finding));
            }
        }
        let pos = keep.and_then(|k| {
            self.list.rows.iter().position(|r| match r {
                Row::Finding(i) => cx.data.doctor.findings[*i] == k,
                Row::Header(..) => false,
            })
        });
        match pos {
            Some(p) => self.list.cursor.selected = p,
            // Start on the first finding, not its header.
            None if self.list.cursor.selected == 0 && self.list.rows.len() > 1 => {
                self.list.cursor.selected = 1
            }
            None => self.list.cursor.clamp(self.list.rows.len()),
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
        self.finding(cx).map(|f| f.object.clone())
    }

    fn click(&mut self, y: u16) {
        self.list.click(y);
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        self.list.scroll(delta);
    }
}
