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

/// A table column: its title, how it may be narrowed on a small screen, when it is dropped,
/// and the key that sorts by it.
///
/// Numbers and names are never cut (issue 51: a cut `1000000` read `10000`): a `whole` column
/// is as wide as its widest cell, and on a narrow screen it is dropped whole instead, in its
/// `drop` order. Free text (`text` columns) is cut with `…`; the last column, when it is text,
/// takes what is left.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    /// The header.
    pub title: &'static str,
    /// The narrowest a text column gets.
    pub min: u16,
    /// The widest a text column gets (the last column takes what is left).
    pub max: u16,
    /// Numbers and names: never cut.
    pub whole: bool,
    /// When it is dropped on a narrow screen: the highest first; 0 never.
    pub drop: u8,
    /// The key (an upper-case letter: Shift and the letter) that sorts by it.
    pub sort: Option<char>,
}

impl Column {
    /// A column of numbers or names: never cut, never dropped (see [`Column::drops`]).
    pub(crate) const fn whole(title: &'static str) -> Self {
        Self {
            title,
            min: title.len() as u16,
            max: u16::MAX,
            whole: true,
            drop: 0,
            sort: None,
        }
    }

    /// A column of free text, `min` to `max` wide, cut with `…`.
    pub(crate) const fn text(title: &'static str, min: u16, max: u16) -> Self {
        Self {
            title,
            min,
            max,
            whole: false,
            drop: 0,
            sort: None,
        }
    }

    /// Dropped on a narrow screen, the column with the highest `order` first.
    pub(crate) const fn drops(self, order: u8) -> Self {
        Self {
            drop: order,
            ..self
        }
    }

    /// Sorted by Shift and `key` (upper case).
    pub(crate) const fn sorts(self, key: char) -> Self {
        Self {
            sort: Some(key),
            ..self
        }
    }
}

/// The order a view's columns are dropped in on a narrow screen, first dropped first, and
/// the columns never dropped: what docs/guide/tui.md documents (a test keeps them equal).
#[cfg(test)]
pub(crate) fn drop_order(columns: &[Column]) -> String {
    let mut dropped: Vec<&Column> = columns.iter().filter(|c| c.drop > 0).collect();
    dropped.sort_by_key(|c| std::cmp::Reverse(c.drop));
    let kept: Vec<&str> = columns
        .iter()
        .filter(|c| c.drop == 0)
        .map(|c| c.title)
        .collect();
    let dropped: Vec<&str> = dropped.iter().map(|c| c.title).collect();
    format!(
        "{} | {}",
        if dropped.is_empty() {
            "none".to_owned()
        } else {
            dropped.join(", ")
        },
        kept.join(", ")
    )
}

/// A list's sort: the column's key, and the direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sort {
    /// The sort key of the column ([`Column::sort`]).
    pub key: char,
    /// Largest first.
    pub descending: bool,
}

/// One cell: a line of spans (a name with its filter match highlighted is several spans).
pub(crate) type Cell = Line<'static>;

/// How many of `chars` to keep to show at most `keep` of them before a `…`: `keep`, or fewer
/// when the cut would fall inside a word holding a digit — a number is never shown cut (issue
/// 51: `1000000` read `10000`); the whole word goes behind the `…` instead.
pub(crate) fn cut_point(chars: &[char], keep: usize) -> usize {
    if keep >= chars.len() {
        return chars.len();
    }
    let inside = |c: char| !c.is_whitespace() && c != ',' && c != ';' && c != '(' && c != ')';
    if !inside(chars[keep]) || keep == 0 || !inside(chars[keep - 1]) {
        return keep;
    }
    let start = chars[..keep]
        .iter()
        .rposition(|&c| !inside(c))
        .map_or(0, |p| p + 1);
    let end = chars[keep..]
        .iter()
        .position(|&c| !inside(c))
        .map_or(chars.len(), |p| keep + p);
    if chars[start..end].iter().any(char::is_ascii_digit) {
        start
    } else {
        keep
    }
}

/// Cuts `cell` to `w` columns, ending with `…` when it was longer (never inside a number:
/// [`cut_point`]).
fn fit(cell: Cell, w: usize) -> Vec<Span<'static>> {
    if cell.width() <= w {
        let pad = w - cell.width();
        let mut spans = cell.spans;
        spans.push(Span::raw(" ".repeat(pad)));
        return spans;
    }
    let chars: Vec<char> = cell.spans.iter().flat_map(|s| s.content.chars()).collect();
    let keep = cut_point(&chars, w.saturating_sub(1));
    let mut out = Vec::new();
    let mut left = keep;
    for s in cell.spans {
        if left == 0 {
            break;
        }
        let text: String = s.content.chars().take(left).collect();
        left -= text.chars().count();
        out.push(Span::styled(text, s.style));
    }
    out.push(Span::raw("…"));
    // Pad what the cut left short.
    let shown = keep + 1;
    if shown < w {
        out.push(Span::raw(" ".repeat(w - shown)));
    }
    out
}

/// The cells of `keep` (indices into a row's cells), in order: a view's row without the
/// columns it does not show.
pub(crate) fn pick(cells: Vec<Cell>, keep: &[usize]) -> Vec<Cell> {
    let mut cells: Vec<Option<Cell>> = cells.into_iter().map(Some).collect();
    keep.iter()
        .filter_map(|&i| cells.get_mut(i).and_then(Option::take))
        .collect()
}

/// A column's header: its title, with `↑`/`↓` when the list is sorted by it.
fn header_of(c: &Column, sort: Option<Sort>) -> String {
    match sort {
        Some(s) if c.sort == Some(s.key) => {
            format!("{}{}", c.title, if s.descending { "↓" } else { "↑" })
        }
        _ => c.title.to_owned(),
    }
}

/// The width of each column in `width` cells, `None` for a column dropped: whole columns as
/// wide as their widest cell, text columns within their range; while the row is wider than
/// the screen, the droppable column with the highest drop order goes, then text columns shrink
/// to their minimum. A last text column takes what is left.
pub(crate) fn widths(
    columns: &[Column],
    rows: &[Vec<Cell>],
    width: usize,
    sort: Option<Sort>,
) -> Vec<Option<usize>> {
    let n = columns.len();
    let natural: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(Line::width)
                .max()
                .unwrap_or(0)
                .max(header_of(c, sort).chars().count())
        })
        .collect();
    let mut w: Vec<Option<usize>> = columns
        .iter()
        .zip(&natural)
        .map(|(c, &nat)| {
            Some(if c.whole {
                nat
            } else {
                nat.clamp(usize::from(c.min), usize::from(c.max.max(c.min)))
            })
        })
        .collect();
    let last_free = columns.last().is_some_and(|c| !c.whole);
    let need = |w: &[Option<usize>]| -> usize {
        let shown = w.iter().filter(|x| x.is_some()).count();
        let sum: usize = w
            .iter()
            .enumerate()
            .filter_map(|(i, x)| {
                x.map(|v| {
                    if last_free && i + 1 == n {
                        usize::from(columns[i].min)
                    } else {
                        v
                    }
                })
            })
            .sum();
        sum + 2 * shown.saturating_sub(1)
    };
    while need(&w) > width {
        let victim = (0..n)
            .filter(|&i| w[i].is_some() && columns[i].drop > 0)
            .max_by_key(|&i| (columns[i].drop, i));
        match victim {
            Some(i) => w[i] = None,
            None => break,
        }
    }
    if need(&w) > width {
        for (i, c) in columns.iter().enumerate() {
            let last = last_free && i + 1 == n;
            if !c.whole
                && !last
                && let Some(v) = w[i].as_mut()
            {
                *v = usize::from(c.min);
            }
        }
    }
    if last_free {
        let fixed: usize = w[..n - 1].iter().flatten().map(|v| v + 2).sum();
        w[n - 1] = Some(width.saturating_sub(fixed).max(1));
    }
    w
}

/// Draws a header and `rows` (the visible window only) in `area`; `selected` is the index in
/// `rows` of the cursor row. Column widths fit the visible rows, as kubectl fits a page; on a
/// narrow screen whole columns drop ([`widths`]); the header marks the sort.
pub(crate) fn table(
    buf: &mut Buffer,
    area: Rect,
    theme: Theme,
    columns: &[Column],
    rows: &[Vec<Cell>],
    selected: Option<usize>,
    sort: Option<Sort>,
) {
    if area.height == 0 || columns.is_empty() {
        return;
    }
    let widths = widths(columns, rows, usize::from(area.width), sort);
    let line_of = |cells: Vec<Cell>| -> Line<'static> {
        let mut spans = Vec::with_capacity(cells.len() * 3);
        let mut first = true;
        for (cell, w) in cells.into_iter().zip(&widths) {
            let Some(w) = w else { continue };
            if !first {
                spans.push(Span::raw("  "));
            }
            first = false;
            spans.extend(fit(cell, *w));
        }
        Line::from(spans)
    };
    let header: Vec<Cell> = columns
        .iter()
        .map(|c| Line::from(Span::styled(header_of(c, sort), theme.header())))
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

/// The text a cell sorts by: its characters after any leading marks (tree markers, gauges,
/// indentation), so `▾ PodGroup/x` sorts as `PodGroup/x` and `██░░  25% 16/64` as `25% …`.
pub(crate) fn sort_text(cell: &Cell) -> String {
    let text: String = cell.spans.iter().map(|s| s.content.as_ref()).collect();
    text.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '+')
        .to_owned()
}

/// kubectl's ages and durations (`90m`, `6h`, `2d3h`, `45s`) in seconds.
fn duration_seconds(text: &str) -> Option<u64> {
    let mut total = 0u64;
    let mut digits = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'y' => 31_536_000,
            _ => return None,
        };
        let n: u64 = digits.parse().ok()?;
        total = total.saturating_add(n.saturating_mul(unit));
        digits.clear();
    }
    (digits.is_empty() && !text.is_empty()).then_some(total)
}

/// Compares two cells' sort texts as people read them: ages by their duration, runs of digits
/// by their value (`9` before `10`, `1000` before `1000000`), the rest ignoring case.
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if let (Some(x), Some(y)) = (duration_seconds(a), duration_seconds(b)) {
        return x.cmp(&y);
    }
    let (mut a, mut b) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (a.peek().copied(), b.peek().copied()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let run = |it: &mut std::iter::Peekable<std::str::Chars<'_>>| {
                    let mut s = String::new();
                    while let Some(c) = it.peek().copied().filter(char::is_ascii_digit) {
                        s.push(c);
                        it.next();
                    }
                    s.trim_start_matches('0').to_owned()
                };
                let (x, y) = (run(&mut a), run(&mut b));
                let o = x.len().cmp(&y.len()).then_with(|| x.cmp(&y));
                if o != Ordering::Equal {
                    return o;
                }
            }
            (Some(x), Some(y)) => {
                let o = x.to_lowercase().cmp(y.to_lowercase());
                if o != Ordering::Equal {
                    return o;
                }
                a.next();
                b.next();
            }
        }
    }
}

/// Sorts `rows` by `sort` (stable: equal rows keep their order), the key of each row being
/// the sort text of its cell in the sorted column (`key`); empty cells last either way.
pub(crate) fn sort_rows<R>(rows: &mut Vec<R>, sort: Sort, key: impl Fn(&R) -> String) {
    let mut keyed: Vec<(String, R)> = rows.drain(..).map(|r| (key(&r), r)).collect();
    keyed.sort_by(|(a, _), (b, _)| match (a.is_empty(), b.is_empty()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        (false, false) if sort.descending => natural_cmp(b, a),
        (false, false) => natural_cmp(a, b),
    });
    rows.extend(keyed.into_iter().map(|(_, r)| r));
}

/// Cuts `text` to `width` columns with `…` when longer (free text on one line), never inside
/// a number ([`cut_point`]).
pub(crate) fn ellipsize(text: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= width {
        return text.to_owned();
    }
    let keep = cut_point(&chars, width.saturating_sub(1));
    let mut out: String = chars[..keep].iter().collect();
    out.push('…');
    out
}

/// Wraps `line` at word boundaries to `width` columns, keeping each span's style; a word wider
/// than the line is broken, never cut. Continuation lines are indented like the first line
/// plus two columns, so a wrapped message still reads as one.
pub(crate) fn wrap(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line.width() <= width || width < 8 {
        return vec![line.clone()];
    }
    type Styled = Vec<(char, Style)>;
    let chars: Styled = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let lead = chars.iter().take_while(|(c, _)| *c == ' ').count();
    let indent = (lead + 2).min(width / 2);
    let fresh = || -> Styled { vec![(' ', Style::new()); indent] };
    let mut out: Vec<Styled> = Vec::new();
    let mut cur: Styled = chars[..lead].to_vec();
    let mut has_word = false;
    let mut i = lead;
    while i < chars.len() {
        let mut j = i;
        while j < chars.len() && chars[j].0 == ' ' {
            j += 1;
        }
        let mut k = j;
        while k < chars.len() && chars[k].0 != ' ' {
            k += 1;
        }
        if has_word && cur.len() + (k - i) > width {
            out.push(std::mem::replace(&mut cur, fresh()));
            cur.extend_from_slice(&chars[j..k]);
        } else {
            cur.extend_from_slice(&chars[i..k]);
        }
        has_word = true;
        // A word longer than a line: broken, never cut.
        while cur.len() > width {
            let rest = cur.split_off(width);
            out.push(std::mem::replace(&mut cur, fresh()));
            cur.extend(rest);
        }
        i = k;
    }
    out.push(cur);
    out.into_iter()
        .map(|cs| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (c, st) in cs {
                match spans.last_mut() {
                    Some(last) if last.style == st => last.content.to_mut().push(c),
                    _ => spans.push(Span::styled(c.to_string(), st)),
                }
            }
            Line::from(spans)
        })
        .collect()
}

/// A list view's detail pane (Enter toggles it: the nodes' pods, a queue's quota): when
/// `open`, the bottom third of `area` (at least `min` rows) below the rows. Returns the rows'
/// area and the pane's height (0 when closed).
pub(crate) fn detail_split(area: Rect, open: bool, min: u16) -> (Rect, u16) {
    let height = if open { (area.height / 3).max(min) } else { 0 };
    (
        Rect {
            height: area.height.saturating_sub(height),
            ..area
        },
        height,
    )
}

/// Draws a detail pane's lines from row `top` of `area`, at most `height` of them.
pub(crate) fn draw_detail(buf: &mut Buffer, area: Rect, top: u16, height: u16, lines: &[Line<'_>]) {
    for (i, line) in lines.iter().take(usize::from(height)).enumerate() {
        let y = top + u16::try_from(i).unwrap_or(u16::MAX);
        buf.set_line(area.x, y, line, area.width);
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
    // Free text: cut with `…` when it is longer than the line (Enter shows it whole).
    let room = usize::from(area.width).saturating_sub(label.chars().count());
    let text = ellipsize(&crate::sanitize::sanitize(text), room);
    buf.set_line(
        area.x,
        y,
        &Line::from(vec![
            Span::styled(label.to_owned(), theme.dim()),
            Span::raw(text),
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
        let columns = [Column::text("NAME", 4, 10), Column::text("STATUS", 6, 20)];
        let rows: Vec<Vec<Cell>> = vec![
            vec![Line::raw("pod-a"), Line::raw("Running")],
            vec![Line::raw("a-very-long-name"), Line::raw("Pending")],
        ];
        let area = buf.area;
        table(
            &mut buf,
            area,
            Theme::new(false),
            &columns,
            &rows,
            Some(1),
            None,
        );
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
    fn a_cut_never_falls_inside_a_number() {
        let chars: Vec<char> = "priority 1000000 here".chars().collect();
        // Inside `1000000`: the whole number goes.
        assert_eq!(cut_point(&chars, 13), 9);
        // Inside a word without digits: cut there.
        let words: Vec<char> = "Insufficient nvidia".chars().collect();
        assert_eq!(cut_point(&words, 4), 4);
        assert_eq!(ellipsize("0/7 nodes: 12 Insufficient", 13), "0/7 nodes: …");
        assert_eq!(ellipsize("short", 10), "short");
        let cell = Line::raw("gang 1000000/2000000");
        let text: String = fit(cell, 12).iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "gang …      ");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_indents_the_rest() {
        let line = Line::raw("  one two three four five six");
        let lines: Vec<String> = wrap(&line, 14)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(lines, ["  one two", "    three four", "    five six"]);
        // A word longer than the line is broken, not cut.
        let long = Line::raw("abcdefghijklmnopqrstuvwxyz");
        let all: String = wrap(&long, 10)
            .iter()
            .flat_map(|l| l.spans.iter().map(|s| s.content.trim().to_owned()))
            .collect();
        assert_eq!(all, "abcdefghijklmnopqrstuvwxyz");
    }

    #[test]
    fn widths_drop_whole_columns_in_order_then_shrink_text() {
        let columns = [
            Column::whole("NAME"),
            Column::whole("AGE").drops(2),
            Column::whole("PRIORITY").drops(1),
            Column::text("WHY", 5, 100),
        ];
        let rows = vec![vec![
            Line::raw("pod-a"),
            Line::raw("90m"),
            Line::raw("1000000"),
            Line::raw("a long reason"),
        ]];
        // Everything fits at 60: WHY takes the rest.
        assert_eq!(
            widths(&columns, &rows, 60, None),
            [Some(5), Some(3), Some(8), Some(60 - 5 - 3 - 8 - 6)]
        );
        // At 24: AGE (drop order 2) goes first, PRIORITY stays whole.
        assert_eq!(
            widths(&columns, &rows, 24, None),
            [Some(5), None, Some(8), Some(24 - 5 - 8 - 4)]
        );
        // At 12: PRIORITY goes too.
        assert_eq!(
            widths(&columns, &rows, 12, None),
            [Some(5), None, None, Some(5)]
        );
        // The sort arrow widens its header.
        let sort = Some(Sort {
            key: 'A',
            descending: false,
        });
        let sorted = [Column::whole("AGE").sorts('A')];
        let ages = vec![vec![Line::raw("9m")]];
        assert_eq!(widths(&sorted, &ages, 60, sort), [Some(4)]);
        assert_eq!(widths(&sorted, &ages, 60, None), [Some(3)]);
    }

    #[test]
    fn natural_order_of_numbers_and_ages() {
        use std::cmp::Ordering::*;
        assert_eq!(natural_cmp("9", "10"), Less);
        assert_eq!(natural_cmp("1000", "1000000"), Less);
        assert_eq!(natural_cmp("90m", "4h"), Less);
        assert_eq!(natural_cmp("2d", "27h"), Greater);
        assert_eq!(natural_cmp("gpu-a10", "gpu-a9"), Greater);
        assert_eq!(natural_cmp("Pod/x", "pod/x"), Equal);
        let mut rows = vec!["b", "", "a10", "a9"];
        sort_rows(
            &mut rows,
            Sort {
                key: 'N',
                descending: true,
            },
            |r| (*r).to_owned(),
        );
        assert_eq!(rows, ["b", "a10", "a9", ""]);
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
