//! Widgets shared by the views: a cursor over a long list, a table that renders only its
//! visible window, filter-match highlighting and a text gauge. They draw into a
//! [`Buffer`] and are tested on one.

use std::ops::Range;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::theme::Theme;

/// A selected row and the first visible row of a list of `len` rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cursor {
    /// The selected row.
    pub selected: usize,
    /// The first visible row.
    pub offset: usize,
}

impl Cursor {
    /// Moves by `delta` rows, staying inside `0..len`.
    pub(crate) fn move_by(&mut self, delta: isize, len: usize) {
        if len == 0 {
            self.selected = 0;
            return;
        }
        let target = self.selected.saturating_add_signed(delta);
        self.selected = target.min(len - 1);
    }

    /// The first row.
    pub(crate) fn top(&mut self) {
        self.selected = 0;
    }

    /// The last row.
    pub(crate) fn bottom(&mut self, len: usize) {
        self.selected = len.saturating_sub(1);
    }

    /// Keeps the selection inside `0..len`.
    pub(crate) fn clamp(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
    }

    /// The rows to draw in `height` lines: scrolls so that the selection is visible.
    pub(crate) fn window(&mut self, height: usize, len: usize) -> Range<usize> {
        self.clamp(len);
        if height == 0 {
            return 0..0;
        }
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(len.saturating_sub(height));
        self.offset..(self.offset + height).min(len)
    }
}

/// A table column: a title and the width range it may take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    /// The header.
    pub title: &'static str,
    /// The narrowest it gets.
    pub min: u16,
    /// The widest it gets (the last column takes what is left).
    pub max: u16,
}

impl Column {
    /// A column.
    pub(crate) const fn new(title: &'static str, min: u16, max: u16) -> Self {
        Self { title, min, max }
    }
}

/// One cell: a line of spans (a name with its filter match highlighted is several spans).
pub(crate) type Cell = Line<'static>;

/// Cuts `cell` to `w` columns, ending with `…` when it was longer.
fn fit(cell: Cell, w: usize) -> Vec<Span<'static>> {
    if cell.width() <= w {
        let pad = w - cell.width();
        let mut spans = cell.spans;
        spans.push(Span::raw(" ".repeat(pad)));
        return spans;
    }
    let mut out = Vec::new();
    let mut left = w.saturating_sub(1);
    for s in cell.spans {
        if left == 0 {
            break;
        }
        let text: String = s.content.chars().take(left).collect();
        left -= text.chars().count();
        out.push(Span::styled(text, s.style));
    }
    out.push(Span::raw("…"));
    out
}

/// Draws a header and `rows` (the visible window only) in `area`; `selected` is the index in
/// `rows` of the cursor row. Column widths fit the visible rows, as kubectl fits a page.
pub(crate) fn table(
    buf: &mut Buffer,
    area: Rect,
    theme: Theme,
    columns: &[Column],
    rows: &[Vec<Cell>],
    selected: Option<usize>,
) {
    if area.height == 0 || columns.is_empty() {
        return;
    }
    let mut widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let content = rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(Line::width)
                .max()
                .unwrap_or(0);
            content
                .max(c.title.len())
                .clamp(usize::from(c.min), usize::from(c.max.max(c.min)))
        })
        .collect();
    let fixed: usize = widths[..widths.len() - 1].iter().map(|w| w + 2).sum();
    if let Some(last) = widths.last_mut() {
        *last = usize::from(area.width).saturating_sub(fixed).max(1);
    }
    let line_of = |cells: Vec<Cell>| -> Line<'static> {
        let mut spans = Vec::with_capacity(cells.len() * 3);
        let n = cells.len();
        for (i, (cell, w)) in cells.into_iter().zip(&widths).enumerate() {
            spans.extend(fit(cell, *w));
            if i + 1 < n {
                spans.push(Span::raw("  "));
            }
        }
        Line::from(spans)
    };
    let header: Vec<Cell> = columns
        .iter()
        .map(|c| Line::from(Span::styled(c.title, theme.header())))
        .collect();
    buf.set_line(area.x, area.y, &line_of(header), area.width);
    for (i, row) in rows.iter().enumerate() {
        let y = area.y + 1 + u16::try_from(i).unwrap_or(u16::MAX);
        if y >= area.bottom() {
            break;
        }
        let line = line_of(row.clone());
        buf.set_line(area.x, y, &line, area.width);
        if selected == Some(i) {
            buf.set_style(Rect::new(area.x, y, area.width, 1), theme.selected());
        }
    }
}

/// A status line of a view: a dimmed label (`why: `, `fix: `) then the text, sanitised, on row
/// `y` of `area`.
pub(crate) fn labelled_line(
    buf: &mut Buffer,
    area: Rect,
    y: u16,
    label: &str,
    text: &str,
    theme: Theme,
) {
    buf.set_line(
        area.x,
        y,
        &Line::from(vec![
            Span::styled(label.to_owned(), theme.dim()),
            Span::raw(crate::sanitize::sanitize(text).into_owned()),
        ]),
        area.width,
    );
}

/// Splits `text` into spans with the (case-insensitive) match of `filter` highlighted.
pub(crate) fn highlight(text: &str, filter: &str, base: Style, theme: Theme) -> Vec<Span<'static>> {
    if filter.is_empty() {
        return vec![Span::styled(text.to_owned(), base)];
    }
    let lower = text.to_lowercase();
    let needle = filter.to_lowercase();
    match lower.find(&needle) {
        // Lowercasing can change byte lengths (non-ASCII); highlight only when it did not.
        Some(at) if lower.len() == text.len() && text.is_char_boundary(at + needle.len()) => {
            vec![
                Span::styled(text[..at].to_owned(), base),
                Span::styled(
                    text[at..at + needle.len()].to_owned(),
                    base.patch(theme.matched()),
                ),
                Span::styled(text[at + needle.len()..].to_owned(), base),
            ]
        }
        _ => vec![Span::styled(text.to_owned(), base)],
    }
}

/// Whether `text` contains `filter`, ignoring ASCII case (the filter's test: cheap enough for
/// 150,000 names per key press).
pub(crate) fn matches(text: &str, filter_lower: &str) -> bool {
    if filter_lower.is_empty() {
        return true;
    }
    let (t, f) = (text.as_bytes(), filter_lower.as_bytes());
    if f.len() > t.len() {
        return false;
    }
    t.windows(f.len()).any(|w| w.eq_ignore_ascii_case(f))
}

/// A text gauge `███░░░░░ 42%` of `width` cells (plus the percentage).
pub(crate) fn gauge(used: i64, total: i64, width: usize) -> String {
    if total <= 0 {
        return format!("{} -", "·".repeat(width));
    }
    let ratio = (used.max(0) as f64 / total as f64).min(1.0);
    let filled = ((ratio * width as f64).round() as usize).min(width);
    format!(
        "{}{} {:>3}%",
        "█".repeat(filled),
        "░".repeat(width - filled),
        (ratio * 100.0).round() as u32
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_scrolls_to_keep_the_selection_visible() {
        let mut c = Cursor::default();
        assert_eq!(c.window(3, 10), 0..3);
        c.move_by(5, 10);
        assert_eq!(c.window(3, 10), 3..6);
        c.bottom(10);
        assert_eq!(c.window(3, 10), 7..10);
        c.move_by(-100, 10);
        assert_eq!(c.selected, 0);
        assert_eq!(c.window(3, 10), 0..3);
        c.move_by(1, 0);
        assert_eq!(c.window(3, 0), 0..0);
    }

    #[test]
    fn table_renders_header_and_rows_in_a_buffer() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 24, 3));
        let columns = [Column::new("NAME", 4, 10), Column::new("STATUS", 6, 20)];
        let rows: Vec<Vec<Cell>> = vec![
            vec![Line::raw("pod-a"), Line::raw("Running")],
            vec![Line::raw("a-very-long-name"), Line::raw("Pending")],
        ];
        let area = buf.area;
        table(&mut buf, area, Theme::new(false), &columns, &rows, Some(1));
        let expected = Buffer::with_lines([
            "NAME        STATUS      ",
            "pod-a       Running     ",
            "a-very-lo…  Pending     ",
        ]);
        // Compare the text; styles are checked below.
        for y in 0..3 {
            for x in 0..24 {
                assert_eq!(
                    buf[(x, y)].symbol(),
                    expected[(x, y)].symbol(),
                    "at {x},{y}"
                );
            }
        }
        assert!(
            buf[(0, 2)]
                .modifier
                .contains(ratatui::style::Modifier::REVERSED)
        );
        assert!(
            !buf[(0, 1)]
                .modifier
                .contains(ratatui::style::Modifier::REVERSED)
        );
    }

    #[test]
    fn highlight_marks_the_match() {
        let theme = Theme::new(true);
        let spans = highlight("big-Train-0", "train", Style::new(), theme);
        let texts: Vec<&str> = spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(texts, ["big-", "Train", "-0"]);
        assert_eq!(spans[1].style, theme.matched());
        assert_eq!(highlight("x", "y", Style::new(), theme).len(), 1);
    }

    #[test]
    fn matches_ignores_ascii_case() {
        assert!(matches("Big-Train", "train"));
        assert!(matches("anything", ""));
        assert!(!matches("ab", "abc"));
    }

    #[test]
    fn gauge_fills_in_proportion() {
        assert_eq!(gauge(1, 2, 4), "██░░  50%");
        assert_eq!(gauge(5, 2, 4), "████ 100%");
        assert_eq!(gauge(0, 0, 2), "·· -");
    }
}
