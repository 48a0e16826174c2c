//! Fitting text to the terminal: the width is decided once by the CLI (`COLUMNS`, else the
//! terminal's; none when stdout is a pipe) and passed down; these functions are pure.
//!
//! Tables keep every column and cut their free-text column with `…` (see
//! [`super::table::Table::flex`]); prose wraps at word boundaries, continuation lines indented
//! as the line they continue ([`fit_prose`]).

/// The narrowest width honoured: below it, text is printed whole (a 1-column `COLUMNS` would
/// only shred it).
pub(crate) const MIN_WIDTH: usize = 20;

/// A usable width, or `None` (print whole).
pub(crate) fn usable(width: Option<usize>) -> Option<usize> {
    width.filter(|w| *w >= MIN_WIDTH)
}

fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{FEFF}')
}

/// Display width of `s`, skipping ANSI escape sequences (`ESC [ … letter`) and zero-width
/// characters.
pub(crate) fn display_width(s: &str) -> usize {
    let mut n = 0;
    let mut escape = false;
    for c in s.chars() {
        if escape {
            if c.is_ascii_alphabetic() {
                escape = false;
            }
            continue;
        }
        if c == '\u{1b}' {
            escape = true;
        } else if !is_zero_width(c) {
            n += 1;
        }
    }
    n
}

/// Plain text (no escapes) cut to `width` columns, its last one `…` when cut.
pub(crate) fn truncate(s: &str, width: usize) -> String {
    if display_width(s) <= width {
        return s.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut n = 0;
    for c in s.chars() {
        if n + 1 >= width {
            break;
        }
        out.push(c);
        if !is_zero_width(c) {
            n += 1;
        }
    }
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// A line cut to `width` columns with `…`, escape sequences kept whole (a reset is added
/// when the cut falls inside coloured text).
pub(crate) fn truncate_styled(line: &str, width: usize) -> String {
    if display_width(line) <= width {
        return line.to_owned();
    }
    let mut out = String::new();
    let mut n = 0;
    let mut escape = false;
    let mut styled = false;
    for c in line.chars() {
        if escape {
            out.push(c);
            if c.is_ascii_alphabetic() {
                escape = false;
            }
            continue;
        }
        if c == '\u{1b}' {
            escape = true;
            styled = true;
            out.push(c);
            continue;
        }
        if n + 1 >= width {
            break;
        }
        out.push(c);
        if !is_zero_width(c) {
            n += 1;
        }
    }
    out.push('…');
    if styled {
        out.push_str("\u{1b}[0m");
    }
    out
}

/// True for a line laid out in columns (two spaces between words after its indent): such a
/// line is never wrapped, so its columns stay aligned with the lines around it (tables fit
/// the width themselves, by cutting their free-text column: [`super::table::Table::fit`]).
fn is_tabular(line: &str) -> bool {
    line.trim_start().trim_end().contains("  ")
}

/// The indent a wrapped line's continuation takes: the line's own, plus the width of a list
/// marker (`- `, `* `) or a label (`fix: `, `warning: `) it starts with.
fn hanging_indent(line: &str) -> usize {
    let lead = line.len() - line.trim_start().len();
    let rest = &line[lead..];
    let plain_rest: String = strip_escapes(rest);
    let marker = if plain_rest.starts_with("- ") || plain_rest.starts_with("* ") {
        2
    } else {
        match plain_rest.split_once(' ') {
            Some((word, _))
                if word.ends_with(':')
                    && word.len() <= 12
                    && word[..word.len() - 1]
                        .chars()
                        .all(|c| c.is_ascii_lowercase()) =>
            {
                word.chars().count() + 1
            }
            _ => 0,
        }
    };
    lead + marker
}

fn strip_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut escape = false;
    for c in s.chars() {
        if escape {
            if c.is_ascii_alphabetic() {
                escape = false;
            }
            continue;
        }
        if c == '\u{1b}' {
            escape = true;
        } else {
            out.push(c);
        }
    }
    out
}

/// Wraps prose to `width` (when given): each line longer than the width breaks at the last
/// space that fits, continuation lines indented as [`hanging_indent`] says; a word longer than
/// a line stays whole; lines laid out in columns are left as they are.
pub(crate) fn fit_prose(text: &str, width: Option<usize>) -> String {
    let Some(width) = usable(width) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if display_width(body) <= width {
            out.push_str(line);
            continue;
        }
        if is_tabular(body) {
            out.push_str(line);
            continue;
        }
        let indent = hanging_indent(body).min(width / 2);
        let lead = body.len() - body.trim_start().len();
        let mut current = body[..lead].to_owned();
        let mut current_width = lead;
        let mut first_word = true;
        for word in body[lead..].split(' ') {
            let w = display_width(word);
            if !first_word && current_width + 1 + w > width {
                out.push_str(&current);
                out.push('\n');
                current = " ".repeat(indent);
                current_width = indent;
                first_word = true;
            }
            if !first_word {
                current.push(' ');
                current_width += 1;
            }
            current.push_str(word);
            current_width += w;
            first_word = false;
        }
        out.push_str(&current);
        out.push_str(newline);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_at_word_boundaries_with_a_hanging_indent() {
        let text = "      fix: lower minCount of PodGroup big-train-workers to 4, or add 2 nodes like gpu-a1\nshort\n";
        let got = fit_prose(text, Some(40));
        assert_eq!(
            got,
            "      fix: lower minCount of PodGroup\n           big-train-workers to 4, or\n           add 2 nodes like gpu-a1\nshort\n"
        );
        for line in got.lines() {
            assert!(display_width(line) <= 40, "{line}");
        }
        // No width (a pipe): whole.
        assert_eq!(fit_prose(text, None), text);
    }

    #[test]
    fn a_list_item_continues_under_its_text() {
        let got = fit_prose(
            "  - add 2 nodes with 8 free nvidia.com/gpu each to rack-b\n",
            Some(30),
        );
        assert_eq!(
            got,
            "  - add 2 nodes with 8 free\n    nvidia.com/gpu each to\n    rack-b\n"
        );
    }

    #[test]
    fn a_word_longer_than_the_line_stays_whole() {
        let long = "x".repeat(50);
        let got = fit_prose(&format!("see {long} here\n"), Some(30));
        assert_eq!(got, format!("see\n{long}\nhere\n"));
    }

    #[test]
    fn column_lines_are_never_wrapped() {
        let line = "DOMAIN   COPIES  WITH PREEMPTION   and a lot more text that does not fit\n";
        assert_eq!(fit_prose(line, Some(30)), line);
    }

    #[test]
    fn escapes_do_not_count_and_are_kept_whole() {
        let red = "\u{1b}[31mUnschedulable\u{1b}[0m";
        assert_eq!(display_width(red), 13);
        let cut = truncate_styled(&format!("{red}  and more words"), 10);
        assert!(cut.starts_with("\u{1b}[31mUnschedul…"), "{cut:?}");
        assert!(cut.ends_with("\u{1b}[0m"));
    }

    #[test]
    fn truncate_marks_the_cut() {
        assert_eq!(truncate("0/4 nodes are available", 10), "0/4 nodes…");
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(usable(Some(5)), None);
    }
}
