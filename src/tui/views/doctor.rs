//! The doctor view: the [`DoctorReport`](crate::doctor::DoctorReport)'s findings grouped by
//! severity (a header row per group), narrowed to the namespace shown as `doctor -n` narrows
//! them; the selected finding's fix below. `Enter` jumps to the finding's object in the tree.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Component, Cx, click_row, navigate};
use crate::doctor::{Finding, Severity};
use crate::graph::ObjRef;
use crate::render::sanitize;
use crate::tui::event::Intent;
use crate::tui::widgets::{Cell, Column, Cursor, highlight, labelled_line, matches, table};

const COLUMNS: [Column; 3] = [
    Column::new("ID", 8, 18),
    Column::new("OBJECT", 10, 50),
    Column::new("MESSAGE", 10, 300),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Header(Severity, usize),
    Finding(usize),
}

/// The doctor view's state.
#[derive(Debug, Default)]
pub struct DoctorView {
    rows: Vec<Row>,
    cursor: Cursor,
    filter: String,
    filter_lower: String,
    rows_area: Rect,
}

impl DoctorView {
    fn finding<'a>(&self, cx: &Cx<'a>) -> Option<&'a Finding> {
        match self.rows.get(self.cursor.selected)? {
            Row::Finding(i) => cx.data.doctor.findings.get(*i),
            Row::Header(..) => None,
        }
    }

    fn shown(&self, cx: &Cx<'_>, f: &Finding) -> bool {
        cx.shows(&f.object.namespace)
            && (matches(&f.object.name, &self.filter_lower)
                || matches(&f.message, &self.filter_lower))
    }
}

fn paint(cx: &Cx<'_>, s: Severity) -> Style {
    match s {
        Severity::Error => cx.theme.error(),
        Severity::Warning => cx.theme.warn(),
        Severity::Info => cx.theme.dim(),
    }
}

impl Component for DoctorView {
    fn title(&self, cx: &Cx<'_>) -> String {
        let n = |s: Severity| {
            self.rows
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
        self.rows_area = Rect {
            y: body.y + 1,
            height: body.height.saturating_sub(1),
            ..body
        };
        if self.rows.is_empty() {
            buf.set_string(area.x, area.y, "No findings.", theme.ok());
            return;
        }
        let window = self
            .cursor
            .window(usize::from(self.rows_area.height), self.rows.len());
        let selected = self.cursor.selected - window.start;
        let findings = &cx.data.doctor.findings;
        let cells: Vec<Vec<Cell>> = self.rows[window]
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
                Row::Finding(i) => {
                    let f = &findings[i];
                    let ns = if f.object.namespace.is_empty() {
                        String::new()
                    } else {
                        format!("{}/", sanitize(&f.object.namespace))
                    };
                    let mut obj = vec![Span::raw(format!("{}/{ns}", f.object.kind))];
                    obj.extend(highlight(
                        &sanitize(&f.object.name),
                        &self.filter,
                        Style::new(),
                        theme,
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
            })
            .collect();
        table(buf, body, theme, &COLUMNS, &cells, Some(selected));
        if let Some(f) = self.finding(cx) {
            labelled_line(buf, area, area.bottom() - 1, "fix: ", &f.fix, theme);
        }
    }

    fn on_key(&mut self, key: KeyEvent, cx: &Cx<'_>, queue: &mut Vec<Intent>) -> bool {
        let page = usize::from(self.rows_area.height);
        if navigate(key, &mut self.cursor, self.rows.len(), page) {
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

    fn refresh(&mut self, cx: &Cx<'_>) {
        let keep = self.finding(cx).cloned();
        self.rows.clear();
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
            if !found.is_empty() {
                self.rows.push(Row::Header(s, found.len()));
                self.rows.extend(found.into_iter().map(Row::Finding));
            }
        }
        let pos = keep.and_then(|k| {
            self.rows.iter().position(|r| match r {
                Row::Finding(i) => cx.data.doctor.findings[*i] == k,
                Row::Header(..) => false,
            })
        });
        match pos {
            Some(p) => self.cursor.selected = p,
            // Start on the first finding, not its header.
            None if self.cursor.selected == 0 && self.rows.len() > 1 => self.cursor.selected = 1,
            None => self.cursor.clamp(self.rows.len()),
        }
    }

    fn filter(&self) -> &str {
        &self.filter
    }

    fn set_filter(&mut self, filter: &str, cx: &Cx<'_>) {
        self.filter = filter.to_owned();
        self.filter_lower = filter.to_lowercase();
        self.refresh(cx);
    }

    fn selected(&self, cx: &Cx<'_>) -> Option<ObjRef> {
        self.finding(cx).map(|f| f.object.clone())
    }

    fn click(&mut self, y: u16) {
        click_row(&mut self.cursor, self.rows_area, y, self.rows.len());
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        self.cursor.move_by(delta, self.rows.len());
    }
}
