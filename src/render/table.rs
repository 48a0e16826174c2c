//! kubectl-style tables: a header cell for every column, columns padded on the plain text
//! and coloured afterwards (so ANSI codes never count as width), two spaces between columns,
//! no trailing spaces, and columns that can be hidden (`-n` hides NAMESPACE).

use std::io::{self, Write};

use super::color::Styler;

/// How a cell is coloured once padded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Paint {
    /// As is.
    #[default]
    Plain,
    /// Green.
    Ok,
    /// Yellow.
    Warn,
    /// Red.
    Error,
    /// Faint: secondary details and empty cells (`free` devices, domains where nothing fits).
    Dim,
}

/// One cell: plain text (already sanitised) and its paint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Cell {
    /// The text, without escape codes.
    pub text: String,
    /// How to colour it.
    pub paint: Paint,
}

impl Cell {
    /// A cell painted `paint`.
    pub(crate) fn painted(text: impl Into<String>, paint: Paint) -> Self {
        Self {
            text: text.into(),
            paint,
        }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Self {
            text,
            paint: Paint::Plain,
        }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Self::from(text.to_owned())
    }
}

/// A table with a header row.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<Cell>>,
    hidden: Vec<bool>,
    /// The free-text column cut with `…` to fit [`Table::fit`]'s width.
    flex: Option<usize>,
    /// The width to fit (a terminal's); `None`: whole.
    width: Option<usize>,
}

/// Display width of `s`: characters, with the zero-width ones not counted.
fn width(s: &str) -> usize {
    s.chars()
        .filter(|c| !matches!(c, '\u{200B}'..='\u{200D}' | '\u{FEFF}'))
        .count()
}

impl Table {
    /// A table with these column headers.
    pub(crate) fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Self {
        let headers: Vec<String> = headers.into_iter().map(Into::into).collect();
        let hidden = vec![false; headers.len()];
        Self {
            headers,
            rows: Vec::new(),
            hidden,
            flex: None,
            width: None,
        }
    }

    /// Names the free-text column (`MESSAGE`) that is cut with `…` when the table is wider
    /// than [`Table::fit`]'s width; the other columns are never cut.
    pub(crate) fn flex(&mut self, header: &str) {
        self.flex = self.headers.iter().position(|h| h == header);
    }

    /// Fits the table to `width` columns (a terminal's), by cutting the [`Table::flex`] column
    /// (never narrower than its header); `None` prints it whole, as kubectl does on a pipe
    /// and with `-o wide`.
    pub(crate) fn fit(&mut self, width: Option<usize>) {
        self.width = super::fit::usable(width);
    }

    /// Adds a row (missing cells are empty, extra cells are dropped).
    pub(crate) fn row(&mut self, cells: impl IntoIterator<Item = Cell>) {
        let mut cells: Vec<Cell> = cells.into_iter().collect();
        cells.resize(self.headers.len(), Cell::default());
        self.rows.push(cells);
    }

    /// Hides the column named `header` (e.g. `NAMESPACE` under `-n`).
    pub(crate) fn hide(&mut self, header: &str) {
        if let Some(i) = self.headers.iter().position(|h| h == header) {
            self.hidden[i] = true;
        }
    }

    /// Writes the header and the rows.
    pub(crate) fn write(&self, out: &mut dyn Write, style: Styler) -> io::Result<()> {
        let shown: Vec<usize> = (0..self.headers.len())
            .filter(|i| !self.hidden[*i])
            .collect();
        let mut widths: Vec<usize> = (0..self.headers.len())
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| width(&r[i].text))
                    .chain([width(&self.headers[i])])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Too wide for the terminal: the free-text column gives up what is needed.
        let mut cut_at = None;
        if let (Some(limit), Some(flex)) = (self.width, self.flex)
            && !self.hidden[flex]
        {
            let total: usize =
                shown.iter().map(|i| widths[*i]).sum::<usize>() + 2 * shown.len().saturating_sub(1);
            if total > limit {
                let others = total - widths[flex];
                let room = limit.saturating_sub(others).max(width(&self.headers[flex]));
                widths[flex] = room;
                cut_at = Some((flex, room));
            }
        }
        let header: Vec<Cell> = self
            .headers
            .iter()
            .map(|h| Cell::from(h.as_str()))
            .collect();
        for row in std::iter::once(&header).chain(&self.rows) {
            let mut line = String::new();
            for (pos, i) in shown.iter().enumerate() {
                let cut;
                let cell = match cut_at {
                    Some((flex, room)) if flex == *i && width(&row[*i].text) > room => {
                        cut =
                            Cell::painted(super::fit::truncate(&row[*i].text, room), row[*i].paint);
                        &cut
                    }
                    _ => &row[*i],
                };
                let last = pos + 1 == shown.len();
                let painted = match cell.paint {
                    Paint::Plain => cell.text.clone(),
                    Paint::Ok => style.ok(&cell.text),
                    Paint::Warn => style.warn(&cell.text),
                    Paint::Error => style.error(&cell.text),
                    Paint::Dim => style.dim(&cell.text),
                };
                line.push_str(&painted);
                if !last {
                    let pad = widths[*i].saturating_sub(width(&cell.text)) + 2;
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::color::ColorChoice;

    fn render(t: &Table, color: ColorChoice) -> String {
        let mut out = Vec::new();
        t.write(&mut out, color.styler()).expect("writes");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn columns_line_up_with_and_without_colour() {
        let mut t = Table::new(["NAME", "OUTCOME", "NODES"]);
        t.row([
            Cell::from("a"),
            Cell::painted("Scheduled", Paint::Ok),
            Cell::from("n1"),
        ]);
        t.row([
            Cell::from("bbbb"),
            Cell::painted("Unschedulable", Paint::Error),
            Cell::from("-"),
        ]);
        let plain = render(&t, ColorChoice::Never);
        assert_eq!(
            plain,
            "NAME  OUTCOME        NODES\na     Scheduled      n1\nbbbb  Unschedulable  -\n"
        );
        // With colour, stripping the escape codes gives the same text: padding was computed
        // on the plain text.
        let colored = render(&t, ColorChoice::Always);
        assert_ne!(colored, plain);
        let mut stripped = String::new();
        let mut in_escape = false;
        for c in colored.chars() {
            match (in_escape, c) {
                (false, '\u{1b}') => in_escape = true,
                (true, 'm') => in_escape = false,
                (true, _) => {}
                (false, c) => stripped.push(c),
            }
        }
        assert_eq!(stripped, plain);
    }

    #[test]
    fn the_free_text_column_is_cut_to_the_width_and_no_other() {
        let mut t = Table::new(["NAME", "OUTCOME", "MESSAGE", "NODES"]);
        t.row([
            Cell::from("train-workers"),
            Cell::painted("Unschedulable", Paint::Error),
            Cell::from("0/4 nodes are available: 4 Insufficient nvidia.com/gpu"),
            Cell::from("-"),
        ]);
        t.flex("MESSAGE");
        t.fit(Some(60));
        let text = render(&t, ColorChoice::Never);
        for line in text.lines() {
            assert!(line.chars().count() <= 60, "{line}");
        }
        assert!(
            text.contains("train-workers  Unschedulable  0/4 nodes are availabl…  -"),
            "{text}"
        );
        // A pipe (no width) and `-o wide` print it whole.
        t.fit(None);
        assert!(render(&t, ColorChoice::Never).contains("Insufficient nvidia.com/gpu"));
    }

    #[test]
    fn hidden_columns_vanish_with_their_header() {
        let mut t = Table::new(["NAMESPACE", "NAME"]);
        t.row([Cell::from("ml"), Cell::from("x")]);
        t.hide("NAMESPACE");
        assert_eq!(render(&t, ColorChoice::Never), "NAME\nx\n");
    }
}
