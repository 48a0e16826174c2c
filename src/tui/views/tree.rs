//! The tree view: Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim, with the
//! `tree` command's status columns and the simulated outcome (`Plan::outcome_of`, the word
//! `tree` and `simulate` print). Rows expand and collapse; a collapsed row says how many rows it hides. Only the
//! visible window is drawn; the visible-row list is rebuilt only when expansion, filter,
//! namespace or data change.

use crate::snapshot::ObjKind;
use std::collections::HashMap;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Component, Cx, List};
use crate::sanitize::sanitize;
use crate::sched::plan::Outcome;
use crate::snapshot::ObjRef;
use crate::tui::data::TreeRow;
use crate::tui::event::Intent;
use crate::tui::widgets::{Cell, Column, highlight, matches, table};

/// Groups with more members than this start collapsed.
const EXPAND_UP_TO: usize = 16;

const COLUMNS: [Column; 7] = [
    Column::new("NAME", 20, 60),
    Column::new("STATUS", 6, 22),
    Column::new("POLICY", 6, 10),
    Column::new("PRIORITY", 8, 10),
    Column::new("NODE", 4, 20),
    Column::new("SIMULATED", 9, 15),
    Column::new("AGE", 3, 5),
];

/// The tree screen: which rows the user expanded or collapsed, the rows shown, the filter's
/// matches, and the object to put the cursor on after the next refresh.
#[derive(Debug, Default)]
pub(crate) struct TreeView {
    /// Rows the user expanded (`true`) or collapsed (`false`), by object; the others follow
    /// the default (expanded unless a group has many members).
    toggled: HashMap<String, bool>,
    /// Indices into the data's rows, in display order.
    list: List<usize>,
    /// An object to put the cursor on at the next refresh.
    want: Option<ObjRef>,
    /// The rows whose name matches `matched_for` (lowercase), over the data as of the last
    /// refresh. A filter typed one key at a time grows, and a longer filter matches a subset
    /// of these: each key then tests only the rows that matched the key before.
    matched: Vec<usize>,
    matched_for: String,
    /// The number of rows `matched` was computed over (a guard beside `refresh`).
    matched_over: usize,
}

fn key_of(r: &TreeRow) -> String {
    format!("{}/{}/{}", r.node.kind, r.node.namespace, r.node.name)
}

impl TreeView {
    fn expanded(&self, rows: &[TreeRow], i: usize) -> bool {
        let r = &rows[i];
        self.toggled
            .get(&key_of(r))
            .copied()
            .unwrap_or_else(|| r.depth < 1 || r.end - i - 1 <= EXPAND_UP_TO)
    }

    fn rebuild(&mut self, cx: &Cx<'_>) {
        let rows = &cx.data.tree;
        self.list.rows.clear();
        if self.list.needle().is_empty() {
            let mut i = 0;
            while i < rows.len() {
                let r = &rows[i];
                if r.depth == 0 && !cx.shows(&r.node.namespace) {
                    i = r.end;
                    continue;
                }
                self.list.rows.push(i);
                i = if r.has_children(i) && !self.expanded(rows, i) {
                    r.end
                } else {
                    i + 1
                };
            }
        } else {
            // Matches and their ancestors, whatever is collapsed.
            let f = self.list.needle();
            let narrowing = !self.matched_for.is_empty()
                && self.matched_over == rows.len()
                && f.starts_with(&self.matched_for);
            self.matched = if narrowing {
                let before = std::mem::take(&mut self.matched);
                before
                    .into_iter()
                    .filter(|&i| matches(&rows[i].node.name, f))
                    .collect()
            } else {
                (0..rows.len())
                    .filter(|&i| matches(&rows[i].node.name, f))
                    .collect()
            };
            f.clone_into(&mut self.matched_for);
            self.matched_over = rows.len();
            let mut keep = vec![false; rows.len()];
            for &i in &self.matched {
                if cx.shows(&rows[i].node.namespace) {
                    let mut at = Some(i);
                    while let Some(j) = at {
                        if keep[j] {
                            break;
                        }
                        keep[j] = true;
                        at = rows[j].parent;
                    }
                }
            }
            self.list
                .rows
                .extend(keep.iter().enumerate().filter(|(_, k)| **k).map(|(i, _)| i));
        }
    }

    fn selected_row(&self) -> Option<usize> {
        self.list.rows.get(self.list.cursor.selected).copied()
    }

    /// Puts the cursor on `obj` at the next refresh (expanding its ancestors).
    pub(crate) fn jump_to(&mut self, obj: ObjRef) {
        self.want = Some(obj);
    }

    fn place_cursor(&mut self, cx: &Cx<'_>, obj: &ObjRef) -> bool {
        let rows = &cx.data.tree;
        let Some(i) = rows.iter().position(|r| r.is(obj)) else {
            return false;
        };
        let mut at = rows[i].parent;
        while let Some(p) = at {
            self.toggled.insert(key_of(&rows[p]), true);
            at = rows[p].parent;
        }
        self.rebuild(cx);
        if let Some(pos) = self.list.rows.iter().position(|&v| v == i) {
            self.list.cursor.selected = pos;
            return true;
        }
        false
    }
}

fn outcome(cx: &Cx<'_>, r: &TreeRow) -> Option<Outcome> {
    if !matches!(
        r.node.kind.as_str(),
        "Pod" | "PodGroup" | "CompositePodGroup"
    ) {
        return None;
    }
    cx.data
        .plan
        .outcome_of(&cx.data.snapshot, &r.node.obj_ref())
}

impl Component for TreeView {
    fn title(&self, cx: &Cx<'_>) -> String {
        format!(
            "tree ({} of {} rows)",
            self.list.rows.len(),
            cx.data.tree.len()
        )
    }

    fn draw(&mut self, buf: &mut Buffer, area: Rect, cx: &Cx<'_>) {
        let theme = cx.theme;
        let rows = &cx.data.tree;
        let body = Rect {
            height: area.height.saturating_sub(1),
            ..area
        };
        let (window, selected) = self.list.layout(body);
        if self.list.rows.is_empty() {
            let msg = if rows.is_empty() {
                "No Workloads, PodGroups or CompositePodGroups found."
            } else {
                "Nothing matches (Esc clears the filter, `:ns all` shows every namespace)."
            };
            buf.set_string(area.x, area.y, msg, theme.dim());
            return;
        }
        let cells: Vec<Vec<Cell>> = self.list.rows[window]
            .iter()
            .map(|&i| {
                let r = &rows[i];
                let n = &r.node;
                let marker = if !r.has_children(i) {
                    "  "
                } else if self.list.needle().is_empty() && !self.expanded(rows, i) {
                    "▸ "
                } else {
                    "▾ "
                };
                let mut name = vec![Span::raw(format!(
                    "{}{marker}{}/",
                    "  ".repeat(usize::from(r.depth)),
                    n.kind
                ))];
                name.extend(highlight(
                    &sanitize(&n.name),
                    self.list.filter(),
                    Style::new(),
                    theme,
                ));
                if r.has_children(i) && self.list.needle().is_empty() && !self.expanded(rows, i) {
                    name.push(Span::styled(format!(" [+{}]", r.end - i - 1), theme.dim()));
                }
                if !n.missing.is_empty() {
                    name.push(Span::styled(" ✗", theme.error()));
                }
                let status = sanitize(n.status.as_deref().unwrap_or("")).into_owned();
                let sim = outcome(cx, r);
                vec![
                    Line::from(name),
                    Line::from(Span::styled(status.clone(), theme.status(&status))),
                    Line::raw(n.policy.clone().unwrap_or_default()),
                    Line::raw(n.priority.map(|p| p.to_string()).unwrap_or_default()),
                    Line::raw(sanitize(n.node.as_deref().unwrap_or("")).into_owned()),
                    sim.map_or_else(Line::default, |v| {
                        Line::from(Span::styled(v.as_str(), theme.outcome(v)))
                    }),
                    Line::raw(n.age.clone().unwrap_or_default()),
                ]
            })
            .collect();
        table(buf, body, theme, &COLUMNS, &cells, Some(selected));
        // The selected row's devices, notes and missing references.
        if let Some(i) = self.selected_row() {
            let n = &rows[i].node;
            let mut spans = Vec::new();
            for d in &n.devices {
                spans.push(Span::styled(format!("[{}] ", sanitize(d)), theme.dim()));
            }
            for m in &n.missing {
                spans.push(Span::styled(
                    format!("✗ missing {} ", sanitize(m)),
                    theme.error(),
                ));
            }
            for note in &n.notes {
                spans.push(Span::styled(format!("({}) ", sanitize(note)), theme.dim()));
            }
            if spans.is_empty() {
                spans.push(Span::styled(
                    format!("{}/{}/{}", n.kind, n.namespace, sanitize(&n.name)),
                    theme.dim(),
                ));
            }
            buf.set_line(area.x, area.bottom() - 1, &Line::from(spans), area.width);
        }
    }

    fn on_key(&mut self, key: KeyEvent, cx: &Cx<'_>, queue: &mut Vec<Intent>) -> bool {
        if self.list.navigate(key) {
            return true;
        }
        let rows = &cx.data.tree;
        let Some(i) = self.selected_row() else {
            return false;
        };
        let r = &rows[i];
        match key.code {
            KeyCode::Char(' ') | KeyCode::Char('l') | KeyCode::Right if r.has_children(i) => {
                let open = if key.code == KeyCode::Char(' ') {
                    !self.expanded(rows, i)
                } else {
                    true
                };
                self.toggled.insert(key_of(r), open);
                self.rebuild(cx);
            }
            KeyCode::Char('h') | KeyCode::Left => {
                if r.has_children(i) && self.expanded(rows, i) {
                    self.toggled.insert(key_of(r), false);
                    self.rebuild(cx);
                } else if let Some(p) = r.parent {
                    let obj = rows[p].obj();
                    self.place_cursor(cx, &obj);
                }
            }
            KeyCode::Char('p') => match r.parent {
                Some(p) => {
                    let obj = rows[p].obj();
                    self.place_cursor(cx, &obj);
                }
                None => queue.push(Intent::Status("already at the top".to_owned())),
            },
            KeyCode::Enter => match r.node.kind {
                ObjKind::Workload
                | ObjKind::CompositePodGroup
                | ObjKind::PodGroup
                | ObjKind::Pod
                | ObjKind::Job => {
                    queue.push(Intent::Explain(r.obj()));
                }
                _ => queue.push(Intent::Yaml(r.obj())),
            },
            _ => return false,
        }
        true
    }

    fn refresh(&mut self, cx: &Cx<'_>) {
        // The data may have changed: match every row again.
        self.matched_for.clear();
        let keep = self.want.take().or_else(|| self.selected(cx));
        self.rebuild(cx);
        if let Some(obj) = keep
            && !self.place_cursor(cx, &obj)
        {
            self.list.cursor.clamp(self.list.rows.len());
        }
    }

    fn filter(&self) -> &str {
        self.list.filter()
    }

    fn set_filter(&mut self, filter: &str, cx: &Cx<'_>) {
        let keep = self.selected(cx);
        self.list.set_filter(filter);
        self.rebuild(cx);
        let pos = keep.and_then(|obj| {
            self.list
                .rows
                .iter()
                .position(|&i| cx.data.tree[i].is(&obj))
        });
        // While filtering, the first match; after, the object that was selected.
        self.list.cursor.selected = match pos {
            Some(p) if self.list.filter().is_empty() => p,
            _ => self
                .list
                .rows
                .iter()
                .position(|&i| matches(&cx.data.tree[i].node.name, self.list.needle()))
                .unwrap_or(0),
        };
    }

    fn selected(&self, cx: &Cx<'_>) -> Option<ObjRef> {
        self.selected_row()
            .and_then(|i| cx.data.tree.get(i))
            .map(TreeRow::obj)
    }

    fn click(&mut self, y: u16) {
        self.list.click(y);
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        self.list.scroll(delta);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::snapshot::source::demo;
    use crate::tui::data::{BuildOptions, Data};
    use crate::tui::theme::Theme;

    fn data() -> Data {
        Data::build(
            Arc::new(demo::load().expect("demo")),
            &BuildOptions::default(),
            None,
        )
        .expect("builds")
    }

    #[test]
    fn filter_keeps_matches_and_their_ancestors() {
        let d = data();
        let cx = Cx {
            data: &d,
            theme: Theme::new(false),
            namespace: None,
        };
        let mut v = TreeView::default();
        v.refresh(&cx);
        let all = v.list.rows.len();
        v.set_filter("decode-1", &cx);
        let names: Vec<&str> = v
            .list
            .rows
            .iter()
            .map(|&i| d.tree[i].node.name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "pipeline",
                "pipeline",
                "pipeline-decode",
                "pipeline-decode-1"
            ]
        );
        assert_eq!(
            v.selected(&cx).map(|o| o.name),
            Some("pipeline-decode-1".into())
        );
        v.set_filter("", &cx);
        assert_eq!(v.list.rows.len(), all);
        assert_eq!(
            v.selected(&cx).map(|o| o.name),
            Some("pipeline-decode-1".into())
        );
    }

    // Typed key by key, each key narrowing the rows the key before matched, the filter shows
    // what the whole filter set at once shows; a shorter filter (Backspace) matches anew.
    #[test]
    fn filter_typed_key_by_key_matches_the_whole_filter() {
        let d = data();
        let cx = Cx {
            data: &d,
            theme: Theme::new(false),
            namespace: None,
        };
        let at_once = |f: &str| {
            let mut v = TreeView::default();
            v.refresh(&cx);
            v.set_filter(f, &cx);
            v.list.rows
        };
        let mut v = TreeView::default();
        v.refresh(&cx);
        let mut typed = String::new();
        for c in "decode-1".chars() {
            typed.push(c);
            v.set_filter(&typed, &cx);
            assert_eq!(v.list.rows, at_once(&typed), "after typing {typed:?}");
        }
        v.set_filter("decode", &cx);
        assert_eq!(v.list.rows, at_once("decode"));
        assert!(at_once("decode").len() > at_once("decode-1").len());
        // A refresh (new data) matches every row again.
        v.refresh(&cx);
        v.set_filter("decode-", &cx);
        assert_eq!(v.list.rows, at_once("decode-"));
    }

    #[test]
    fn namespace_narrows_the_roots() {
        let d = data();
        let cx = Cx {
            data: &d,
            theme: Theme::new(false),
            namespace: Some("research"),
        };
        let mut v = TreeView::default();
        v.refresh(&cx);
        assert!(!v.list.rows.is_empty());
        assert!(
            v.list
                .rows
                .iter()
                .all(|&i| d.tree[i].node.namespace == "research")
        );
    }
}
