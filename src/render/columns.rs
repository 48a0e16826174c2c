//! kubectl's `-o custom-columns=HEADER:PATH,…` (and `custom-columns-file=`), on the rows a
//! command's table prints, read from its `-o json` document.
//!
//! As kubectl's custom-columns printer (kubectl `get/customcolumn.go`): a path is a relaxed
//! JSONPath (`.a.b`, `a.b`, `{.a.b}`); a cell with no value prints `<none>`; several values are
//! joined with `,`. One difference: an object or array value prints as compact JSON, where
//! kubectl prints Go's `map[…]` form.

use std::io::{self, Write};

use serde_json::Value;

use super::color::Styler;
use super::jsonpath::{ParseError, Template, relaxed, to_text};
use super::table::{Cell, Table};

/// The columns of a custom-columns spec.
#[derive(Debug, Clone)]
pub(crate) struct Columns {
    columns: Vec<(String, Template)>,
}

impl Columns {
    /// Parses `HEADER:PATH,HEADER:PATH` (`-o custom-columns=`). The messages are kubectl's.
    pub(crate) fn parse_spec(spec: &str) -> Result<Self, ParseError> {
        if spec.trim().is_empty() {
            return Err(ParseError(
                "custom-columns format specified but no custom columns given".to_owned(),
            ));
        }
        let mut columns = Vec::new();
        for part in spec.split(',') {
            let Some((header, path)) = part.split_once(':') else {
                return Err(ParseError(format!(
                    "unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"
                )));
            };
            columns.push((header.to_owned(), Template::parse(&relaxed(path)?)?));
        }
        Ok(Self { columns })
    }

    /// Parses a custom-columns file (`-o custom-columns-file=`): a line of headers, then a
    /// line of paths, separated by whitespace.
    pub(crate) fn parse_file(text: &str) -> Result<Self, ParseError> {
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let [headers, paths] = lines.as_slice() else {
            return Err(ParseError(format!(
                "invalid template, expected two lines, a line of headers and a line of paths, got {}",
                lines.len()
            )));
        };
        let headers: Vec<&str> = headers.split_whitespace().collect();
        let paths: Vec<&str> = paths.split_whitespace().collect();
        if headers.len() != paths.len() {
            return Err(ParseError(format!(
                "number of headers ({}) and field specifications ({}) don't match",
                headers.len(),
                paths.len()
            )));
        }
        let mut columns = Vec::new();
        for (h, p) in headers.into_iter().zip(paths) {
            columns.push((h.to_owned(), Template::parse(&relaxed(p)?)?));
        }
        Ok(Self { columns })
    }

    /// Writes the table: one row per value of `rows`, each cell its column's values.
    pub(crate) fn write(
        &self,
        out: &mut dyn Write,
        rows: &[&Value],
        style: Styler,
    ) -> io::Result<()> {
        let mut table = Table::new(self.columns.iter().map(|(h, _)| h.clone()));
        for row in rows {
            let mut cells = Vec::new();
            for (_, template) in &self.columns {
                let values = template
                    .values(row)
                    .map_err(|e| io::Error::other(format!("error executing jsonpath: {e}")))?;
                let text = if values.is_empty() {
                    "<none>".to_owned()
                } else {
                    values
                        .iter()
                        .map(|v| to_text(v))
                        .collect::<Vec<_>>()
                        .join(",")
                };
                cells.push(Cell::from(crate::sanitize::sanitize(&text).into_owned()));
            }
            table.row(cells);
        }
        table.write(out, style)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::color::ColorChoice;
    use serde_json::json;

    fn render(spec: &str, rows: &[&Value]) -> String {
        let c = Columns::parse_spec(spec).expect("parses");
        let mut out = Vec::new();
        c.write(&mut out, rows, ColorChoice::Never.styler())
            .expect("writes");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn missing_values_print_none_and_several_join_with_commas() {
        let a = json!({"name": "a", "outcome": "Scheduled", "placements": [{"node": "n1"}, {"node": "n2"}]});
        let b = json!({"name": "bb", "outcome": "Waiting"});
        assert_eq!(
            render(
                "NAME:.name,OUTCOME:outcome,NODES:{.placements[*].node}",
                &[&a, &b]
            ),
            "NAME  OUTCOME    NODES\na     Scheduled  n1,n2\nbb    Waiting    <none>\n"
        );
    }

    #[test]
    fn kubectl_spec_errors() {
        let e = Columns::parse_spec("NAME").expect_err("no path");
        assert_eq!(
            e.0,
            "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"
        );
        assert!(Columns::parse_spec("").is_err());
        assert!(Columns::parse_spec("A:{.a").is_err());
    }

    #[test]
    fn a_file_is_headers_then_paths() {
        let c = Columns::parse_file("NAME   OUTCOME\n.name  .outcome\n").expect("parses");
        let a = json!({"name": "a", "outcome": "Scheduled"});
        let mut out = Vec::new();
        c.write(&mut out, &[&a], ColorChoice::Never.styler())
            .expect("writes");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "NAME  OUTCOME\na     Scheduled\n"
        );
        assert!(Columns::parse_file("NAME OUTCOME\n.name\n").is_err());
        assert!(Columns::parse_file("NAME\n").is_err());
    }
}
