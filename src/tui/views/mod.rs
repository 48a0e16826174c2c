//! The views, one component each (gitui's components): each keeps its own state (cursor,
//! filter, expansion), draws itself into a buffer area, and turns keys into state changes or
//! [`Intent`]s for the app. Composition by code: the app owns one of each list view and at most
//! one explain and one YAML view; views never call each other.

pub(crate) mod doctor;
pub(crate) mod explain;
pub(crate) mod nodes;
pub(crate) mod pending;
pub(crate) mod queues;
pub(crate) mod tree;
pub(crate) mod yaml;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::ops::Range;

use super::data::Data;
use super::event::Intent;
use super::theme::Theme;
use super::widgets::{Cell, Column, Cursor, Sort, sort_rows, sort_text};
use crate::snapshot::ObjRef;

/// What a view reads while drawing or handling a key.
pub(crate) struct Cx<'a> {
    /// The latest data the worker built (what-ifs applied).
    pub data: &'a Data,
    /// The colours and modifiers every view draws with.
    pub theme: Theme,
    /// The namespace shown (`None`: all).
    pub namespace: Option<&'a str>,
}

impl Cx<'_> {
    /// Whether an object of `namespace` is shown (cluster-scoped objects always are).
    pub(crate) fn shows(&self, namespace: &str) -> bool {
        namespace.is_empty() || self.namespace.is_none_or(|ns| ns == namespace)
    }
}

/// What every screen implements: its header title, drawing, its own keys, and a rebuild when
/// the data or the namespace changes; a filter and a selected object are optional.
pub(crate) trait Component {
    /// The title in the header (with counts).
    fn title(&self, cx: &Cx<'_>) -> String;
    /// Draws into `area` of `buf`.
    fn draw(&mut self, buf: &mut Buffer, area: Rect, cx: &Cx<'_>);
    /// Handles a key; returns whether it was used.
    fn on_key(&mut self, key: KeyEvent, cx: &Cx<'_>, queue: &mut Vec<Intent>) -> bool;
    /// The data or the namespace changed: rebuild the rows, keeping the cursor on the same
    /// object when it is still there.
    fn refresh(&mut self, cx: &Cx<'_>);
    /// New data is coming (a watch event, a what-if, a reload): note the selected row by
    /// what it stands for in `cx` (the data it was built from), for the next
    /// [`Component::refresh`] (rows are indices into the data, meaningless in the next).
    fn remember(&mut self, _cx: &Cx<'_>) {}
    /// The filter (empty: none).
    fn filter(&self) -> &str {
        ""
    }
    /// Sets the filter (views without rows ignore it).
    fn set_filter(&mut self, _filter: &str, _cx: &Cx<'_>) {}
    /// The object under the cursor, for `y` and `e`.
    fn selected(&self, _cx: &Cx<'_>) -> Option<ObjRef> {
        None
    }
    /// A mouse click on screen row `y`.
    fn click(&mut self, _y: u16) {}
    /// Mouse wheel: `delta` rows.
    fn scroll(&mut self, delta: isize, cx: &Cx<'_>);
}

/// The list keys every list view shares: j/k, arrows, g/G, PgUp/PgDn. Returns whether the key
/// moved the cursor.
pub(crate) fn navigate(key: KeyEvent, cursor: &mut Cursor, len: usize, page: usize) -> bool {
    let page = isize::try_from(page.max(1)).unwrap_or(isize::MAX);
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => cursor.move_by(1, len),
        KeyCode::Char('k') | KeyCode::Up => cursor.move_by(-1, len),
        KeyCode::Char('g') | KeyCode::Home => cursor.top(),
        KeyCode::Char('G') | KeyCode::End => cursor.bottom(len),
        KeyCode::PageDown => cursor.move_by(page, len),
        KeyCode::PageUp => cursor.move_by(-page, len),
        KeyCode::Char('f') if key.modifiers.contains(KeyModifiers::CONTROL) => {
            cursor.move_by(page, len);
        }
        KeyCode::Char('b') if key.modifiers.contains(KeyModifiers::CONTROL) => {
            cursor.move_by(-page, len);
        }
        _ => return false,
    }
    true
}

/// Selects the row at screen line `y` of a table whose rows start at `rows.y`.
pub(crate) fn click_row(cursor: &mut Cursor, rows: Rect, y: u16, len: usize) {
    if y >= rows.y && y < rows.bottom() {
        let i = cursor.offset + usize::from(y - rows.y);
        if i < len {
            cursor.selected = i;
        }
    }
}

/// A scrollable text: `scroll` keys for the explain and YAML views.
pub(crate) fn scroll_text(key: KeyEvent, offset: &mut usize, len: usize, page: usize) -> bool {
    let mut c = Cursor {
        selected: *offset,
        offset: 0,
    };
    let used = navigate(key, &mut c, len, page);
    *offset = c.selected;
    used
}

/// What [`List::list_key`] made of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKey {
    /// A list key: the cursor moved.
    Moved,
    /// A sort key: the view rebuilds its rows.
    Sorted,
    /// Neither: the view's own key, perhaps.
    Other,
}

/// What every list view (tree, pending, nodes, doctor, queues) keeps the same way: the rows shown, the
/// cursor over them, the filter as typed and lower-cased, the sort (k9s's: Shift and a
/// column's key sorts by it, again reverses, the header shows it), and where the rows were
/// last drawn (a header line above them), which paging and mouse clicks need.
#[derive(Debug)]
pub(crate) struct List<R> {
    /// The rows shown, in display order.
    pub rows: Vec<R>,
    /// The selection and the first visible row.
    pub cursor: Cursor,
    filter: String,
    needle: String,
    sort: Option<Sort>,
    area: Rect,
}

impl<R> Default for List<R> {
    fn default() -> Self {
        Self {
            rows: Vec::new(),
            cursor: Cursor::default(),
            filter: String::new(),
            needle: String::new(),
            sort: None,
            area: Rect::default(),
        }
    }
}

impl<R> List<R> {
    /// The sort (`None`: the view's own order).
    pub(crate) fn sort(&self) -> Option<Sort> {
        self.sort
    }

    /// Shift and a column's letter: sorts by that column of `columns` (ascending), or
    /// reverses the sort when it is already by that column. Returns whether the key was one.
    /// The view rebuilds its rows after.
    pub(crate) fn sort_key(&mut self, key: KeyEvent, columns: &[Column]) -> bool {
        let KeyCode::Char(c) = key.code else {
            return false;
        };
        if !c.is_ascii_uppercase()
            || key.modifiers.contains(KeyModifiers::CONTROL)
            || !columns.iter().any(|col| col.sort == Some(c))
        {
            return false;
        }
        self.sort = Some(match self.sort {
            Some(s) if s.key == c => Sort {
                key: c,
                descending: !s.descending,
            },
            _ => Sort {
                key: c,
                descending: false,
            },
        });
        true
    }

    /// Sorts `rows` by the list's sort, the key of a row being the sort text of its cell in
    /// the sorted column (`cell(row, key)`); without a sort, leaves them.
    pub(crate) fn sort_rows<T>(&self, rows: &mut Vec<T>, cell: impl Fn(&T, char) -> Option<Cell>) {
        if let Some(sort) = self.sort {
            sort_rows(rows, sort, |r| {
                cell(r, sort.key).map_or_else(String::new, |c| sort_text(&c))
            });
        }
    }

    /// The filter as typed (empty: none).
    pub(crate) fn filter(&self) -> &str {
        &self.filter
    }

    /// The filter lower-cased, as [`super::widgets::matches()`] takes it.
    pub(crate) fn needle(&self) -> &str {
        &self.needle
    }

    /// Sets the filter; the view rebuilds its rows after.
    pub(crate) fn set_filter(&mut self, filter: &str) {
        self.filter = filter.to_owned();
        self.needle = filter.to_lowercase();
    }

    /// Lays the list out in `body` (a header line, then the rows): the rows to draw, and the
    /// selected row's position among them.
    pub(crate) fn layout(&mut self, body: Rect) -> (Range<usize>, usize) {
        self.area = Rect {
            y: body.y + 1,
            height: body.height.saturating_sub(1),
            ..body
        };
        let window = self
            .cursor
            .window(usize::from(self.area.height), self.rows.len());
        let selected = self.cursor.selected.saturating_sub(window.start);
        (window, selected)
    }

    /// The list keys ([`navigate`]), a page being the rows last drawn.
    pub(crate) fn navigate(&mut self, key: KeyEvent) -> bool {
        navigate(
            key,
            &mut self.cursor,
            self.rows.len(),
            usize::from(self.area.height),
        )
    }

    /// A mouse click on screen row `y`.
    pub(crate) fn click(&mut self, y: u16) {
        click_row(&mut self.cursor, self.area, y, self.rows.len());
    }

    /// The keys every list view handles alike: the list keys ([`List::navigate`]), and Shift
    /// and a column's letter ([`List::sort_key`], after which the view rebuilds its rows).
    pub(crate) fn list_key(&mut self, key: KeyEvent, columns: &[Column]) -> ListKey {
        if self.navigate(key) {
            ListKey::Moved
        } else if self.sort_key(key, columns) {
            ListKey::Sorted
        } else {
            ListKey::Other
        }
    }

    /// Puts the cursor on the first row `is` accepts (a refresh keeping the selected object);
    /// returns whether one did.
    pub(crate) fn select_where(&mut self, is: impl Fn(&R) -> bool) -> bool {
        match self.rows.iter().position(is) {
            Some(p) => {
                self.cursor.selected = p;
                true
            }
            None => false,
        }
    }

    /// Mouse wheel: `delta` rows.
    pub(crate) fn scroll(&mut self, delta: isize) {
        self.cursor.move_by(delta, self.rows.len());
    }
}
