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
use crate::tui::widgets::{Cell, Column, highlight, matches, pick, table};

/// Groups with more members than this start collapsed.
const EXPAND_UP_TO: usize = 16;

/// The columns; NAMESPACE only while every namespace is shown.
pub(crate) const COLUMNS: [Column; 8] = [
    Column::whole("NAME").sorts('N'),
    Column::whole("NAMESPACE").drops(3).sorts('E'),
    Column::text("STATUS", 6, 22).drops(4).sorts('S'),
    Column::whole("POLICY").drops(5).sorts('L'),
    Column::whole("PRIORITY").drops(2).sorts('P'),
    Column::whole("NODE").drops(6).sorts('O'),
    Column::whole("SIMULATED").drops(1).sorts('I'),
    Column::whole("AGE").drops(7).sorts('A'),
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
    /// Only objects of this kind, as a flat list (`:pods`, `:pg`, `:claims`, `:kwl`).
    kind: Option<ObjKind>,
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

    /// Shows only objects of `kind` as a flat list (`None`: the whole tree).
    pub(crate) fn set_kind(&mut self, kind: Option<ObjKind>) {
        self.kind = kind;
    }

    /// The kind shown alone, if any.
    pub(crate) fn kind(&self) -> Option<&ObjKind> {
        self.kind.as_ref()
    }

    fn rebuild(&mut self, cx: &Cx<'_>) {
        self.rebuild_rows(cx);
        if self.list.sort().is_some() {
            self.sort(cx);
        }
    }

    /// Sorts the rows shown: a flat list as a whole, the tree among siblings (each subtree
    /// moves with its root).
    fn sort(&mut self, cx: &Cx<'_>) {
        let rows = &cx.data.tree;
        let key = |&i: &usize, k: char| {
            let at = COLUMNS.iter().position(|c| c.sort == Some(k))?;
            row_cells(cx, rows, i, "", false, true).into_iter().nth(at)
        };
        let mut shown = std::mem::take(&mut self.list.rows);
        if self.kind.is_some() {
            self.list.sort_rows(&mut shown, key);
            self.list.rows = shown;
            return;
        }
        let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
        let mut order = Vec::new();
        for &i in &shown {
            let p = rows[i].parent;
            if !children.contains_key(&p) {
                order.push(p);
            }
            children.entry(p).or_default().push(i);
        }
        for p in order {
            if let Some(list) = children.get_mut(&p) {
                self.list.sort_rows(list, key);
            }
        }
        // Pre-order over the sorted siblings (roots: the rows whose parent is not shown).
        let visible: std::collections::HashSet<usize> = shown.iter().copied().collect();
        let mut stack: Vec<usize> = shown
            .iter()
            .copied()
            .filter(|&i| rows[i].parent.is_none_or(|p| !visible.contains(&p)))
            .collect();
        let roots_sorted: Vec<usize> = {
            let mut r = stack.clone();
            self.list.sort_rows(&mut r, key);
            r
        };
        stack.clear();
        stack.extend(roots_sorted.into_iter().rev());
        let mut out = Vec::with_capacity(shown.len());
        while let Some(i) = stack.pop() {
            out.push(i);
            if let Some(kids) = children.get(&Some(i)) {
                stack.extend(kids.iter().rev());
            }
        }
        self.list.rows = out;
    }

    fn rebuild_rows(&mut self, cx: &Cx<'_>) {
        let rows = &cx.data.tree;
        self.list.rows.clear();
        if let Some(kind) = &self.kind {
            let f = self.list.needle().to_owned();
            let found: Vec<usize> = (0..rows.len())
                .filter(|&i| {
                    rows[i].node.kind == *kind
                        && cx.shows(&rows[i].node.namespace)
                        && matches(&rows[i].node.name, &f)
                })
                .collect();
            self.list.rows = found;
        } else if self.list.needle().is_empty() {
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
        "Pod" | "PodGroup" | "CompositePodGroup" | "Workload.kueue.x-k8s.io"
    ) {
        return None;
    }
    cx.data
        .plan
        .outcome_of(&cx.data.snapshot, &r.node.obj_ref())
}

/// Whether row `i` is shown collapsed (it has children, no filter shows them, and it is not
/// expanded).
fn r_collapsed(v: &TreeView, rows: &[TreeRow], i: usize) -> bool {
    rows[i].has_children(i) && v.list.needle().is_empty() && !v.expanded(rows, i)
}

/// Row `i`'s cells in [`COLUMNS`] order: the name indented with its expand marker (none in a
/// flat list; `open` says which marker), its match of `filter` highlighted.
fn row_cells(
    cx: &Cx<'_>,
    rows: &[TreeRow],
    i: usize,
    filter: &str,
    flat: bool,
    open: bool,
) -> Vec<Cell> {
    let theme = cx.theme;
    let r = &rows[i];
    let n = &r.node;
    let mut name = if flat {
        vec![Span::raw(format!("{}/", n.kind))]
    } else {
        let marker = if !r.has_children(i) {
            "  "
        } else if open {
            "▾ "
        } else {
            "▸ "
        };
        vec![Span::raw(format!(
            "{}{marker}{}/",
            "  ".repeat(usize::from(r.depth)),
            n.kind
        ))]
    };
    name.extend(highlight(&sanitize(&n.name), filter, Style::new(), theme));
    if !n.missing.is_empty() {
        name.push(Span::styled(" ✗", theme.error()));
    }
    let status = sanitize(n.status.as_deref().unwrap_or("")).into_owned();
    let sim = outcome(cx, r);
    vec![
        Line::from(name),
        Line::raw(sanitize(&n.namespace).into_owned()),
        Line::from(Span::styled(status.clone(), theme.status(&status))),
        Line::raw(n.policy.clone().unwrap_or_default()),
        Line::raw(n.priority.map(|p| p.to_string()).unwrap_or_default()),
        Line::raw(sanitize(n.node.as_deref().unwrap_or("")).into_owned()),
        sim.map_or_else(Line::default, |v| {
            Line::from(Span::styled(v.as_str(), theme.outcome(v)))
        }),
        Line::raw(n.age.clone().unwrap_or_default()),
    ]
}

impl Component for TreeView {
    fn title(&self, cx: &Cx<'_>) -> String {
        match &self.kind {
            Some(kind) => format!(
                "tree: {kind} ({} of {} rows)",
                self.list.rows.len(),
                cx.data.tree.len()
            ),
            None => format!(
                "tree ({} of {} rows)",
                self.list.rows.len(),
                cx.data.tree.len()
            ),
        }
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
        let keep: Vec<usize> = (0..COLUMNS.len())
            .filter(|&i| cx.namespace.is_none() || COLUMNS[i].title != "NAMESPACE")
            .collect();
        let columns: Vec<Column> = keep.iter().map(|&i| COLUMNS[i]).collect();
        let flat = self.kind.is_some();
        let cells: Vec<Vec<Cell>> = self.list.rows[window]
            .iter()
            .map(|&i| {
                let open = !r_collapsed(self, rows, i);
                let mut c = row_cells(cx, rows, i, self.list.filter(), flat, open);
                if let Some(name) = c.first_mut()
                    && rows[i].has_children(i)
                    && !flat
                    && !open
                {
                    name.spans.push(Span::styled(
                        format!(" [+{}]", rows[i].end - i - 1),
                        theme.dim(),
                    ));
                }
                pick(c, &keep)
            })
            .collect();
        table(
            buf,
            body,
            theme,
            &columns,
            &cells,
            Some(selected),
            self.list.sort(),
        );
        // The selected row's devices, notes and missing references.
        if let Some(i) = self.selected_row() {
            let n = &rows[i].node;
            let mut spans = Vec::new();
            // A Volcano or YuniKorn gang: its scheduler named, never simulated.
            if let Some(scheduler) = &n.scheduler {
                spans.push(Span::styled(
                    format!("scheduled by `{}`, not simulated ", sanitize(scheduler)),
                    theme.warn(),
                ));
            }
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
        if self.list.sort_key(key, &COLUMNS) {
            self.refresh(cx);
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
                | ObjKind::Job
                | ObjKind::KueueWorkload
                | ObjKind::VolcanoPodGroup
                | ObjKind::YunikornTaskGroup => {
                    queue.push(Intent::Explain(r.obj()));
                }
                _ => queue.push(Intent::Yaml(r.obj())),
            },
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
