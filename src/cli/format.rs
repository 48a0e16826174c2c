//! `-o` as kubectl's `get` takes it: the plain formats, and `jsonpath=TEMPLATE`,
//! `jsonpath-file=FILE`, `custom-columns=SPEC`, `custom-columns-file=FILE`, evaluated on the
//! report's `-o json` document (docs/json.md).

use std::ffi::OsStr;
use std::path::PathBuf;

use clap::builder::{PossibleValue, TypedValueParser};
use serde_json::Value;

use super::{Context, ReportFormat, TableFormat};
use crate::error::Error;
use crate::render::columns::Columns;
use crate::render::json::Envelope;
use crate::render::jsonpath::Template;

/// A kubectl template format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateFormat {
    /// `jsonpath=TEMPLATE`.
    JsonPath(String),
    /// `jsonpath-file=FILE`.
    JsonPathFile(PathBuf),
    /// `custom-columns=SPEC`.
    CustomColumns(String),
    /// `custom-columns-file=FILE`.
    CustomColumnsFile(PathBuf),
}

impl TemplateFormat {
    /// `jsonpath=…` and the others; `None` for any other word.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        if let Some(t) = text.strip_prefix("jsonpath=") {
            Some(Self::JsonPath(t.to_owned()))
        } else if let Some(f) = text.strip_prefix("jsonpath-file=") {
            Some(Self::JsonPathFile(PathBuf::from(f)))
        } else if let Some(s) = text.strip_prefix("custom-columns=") {
            Some(Self::CustomColumns(s.to_owned()))
        } else {
            text.strip_prefix("custom-columns-file=")
                .map(|f| Self::CustomColumnsFile(PathBuf::from(f)))
        }
    }

    /// Reads the file (if any) and parses the template; errors as kubectl words them.
    pub(crate) fn compile(&self) -> Result<Compiled, Error> {
        let read = |path: &PathBuf| {
            std::fs::read_to_string(path).map_err(|e| {
                Error::usage(
                    format!(
                        "cannot read template file `{}`: {}",
                        path.display(),
                        crate::sanitize::io_in_words(&e)
                    ),
                    "check the path given to `-o …-file=`",
                )
            })
        };
        match self {
            Self::JsonPath(t) => jsonpath(t),
            Self::JsonPathFile(path) => jsonpath(&read(path)?),
            Self::CustomColumns(spec) => Columns::parse_spec(spec)
                .map(Compiled::Columns)
                .map_err(|e| columns_error(&e.0)),
            Self::CustomColumnsFile(path) => Columns::parse_file(&read(path)?)
                .map(Compiled::Columns)
                .map_err(|e| columns_error(&format!("{}: {}", path.display(), e.0))),
        }
    }
}

fn jsonpath(template: &str) -> Result<Compiled, Error> {
    // kubectl: a template given with outer quotes still works (`-o jsonpath="'{.a}'"`); it
    // does not strip them either, so neither do we.
    Template::parse(template)
        .map(Compiled::JsonPath)
        .map_err(|e| {
            Error::usage(
                format!("error parsing jsonpath {template}, {e}"),
                "kubectl's template syntax: docs/guide/output.md, or kubectl's \"JSONPath Support\" page",
            )
        })
}

fn columns_error(message: &str) -> Error {
    Error::usage(
        message.to_owned(),
        "`-o custom-columns=HEADER:.path,HEADER:.path` (docs/guide/output.md)",
    )
}

/// A parsed template.
pub(crate) enum Compiled {
    JsonPath(Template),
    Columns(Columns),
}

/// `-o` for the commands whose text is a table (`simulate`, `tree`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableOutput {
    /// A plain format.
    Plain(TableFormat),
    /// A kubectl template.
    Template(TemplateFormat),
}

impl Default for TableOutput {
    fn default() -> Self {
        Self::Plain(TableFormat::Text)
    }
}

/// `-o` for the commands whose text is prose (`explain`, `doctor`, `capacity`, `diff`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportOutput {
    /// A plain format.
    Plain(ReportFormat),
    /// A kubectl template.
    Template(TemplateFormat),
}

impl Default for ReportOutput {
    fn default() -> Self {
        Self::Plain(ReportFormat::Text)
    }
}

/// The clap parser of `-o`: the plain words of `E`, or a template; the template prefixes are
/// listed as possible values (help, completions, man page), the template itself is free.
#[derive(Clone)]
pub(crate) struct OutputParser<E: clap::ValueEnum + Clone + Send + Sync + 'static> {
    _plain: std::marker::PhantomData<E>,
}

impl<E: clap::ValueEnum + Clone + Send + Sync + 'static> OutputParser<E> {
    pub(crate) fn new() -> Self {
        Self {
            _plain: std::marker::PhantomData,
        }
    }
}

/// What the parser yields before it is put in the command's type.
#[derive(Debug, Clone)]
pub(crate) enum Parsed<E> {
    Plain(E),
    Template(TemplateFormat),
}

impl<E: clap::ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for OutputParser<E> {
    type Value = Parsed<E>;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Self::Value, clap::Error> {
        let text = value.to_string_lossy();
        if let Some(t) = TemplateFormat::parse(&text) {
            return Ok(Parsed::Template(t));
        }
        if let Ok(plain) = E::from_str(&text, false) {
            return Ok(Parsed::Plain(plain));
        }
        let mut err = clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd);
        use clap::error::{ContextKind, ContextValue};
        if let Some(arg) = arg {
            err.insert(
                ContextKind::InvalidArg,
                ContextValue::String(arg.to_string()),
            );
        }
        err.insert(
            ContextKind::InvalidValue,
            ContextValue::String(text.into_owned()),
        );
        err.insert(
            ContextKind::ValidValue,
            ContextValue::Strings(
                self.possible_values()
                    .into_iter()
                    .flatten()
                    .map(|v| v.get_name().to_owned())
                    .collect(),
            ),
        );
        Err(err)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let plain = E::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value());
        let templates = [
            (
                "jsonpath=",
                "a kubectl JSONPath template on the -o json document",
            ),
            ("jsonpath-file=", "a JSONPath template read from a file"),
            (
                "custom-columns=",
                "HEADER:.path,… columns of the table's rows",
            ),
            ("custom-columns-file=", "custom columns read from a file"),
        ]
        .map(|(name, help)| PossibleValue::new(name).help(help));
        Some(Box::new(plain.chain(templates)))
    }
}

impl From<Parsed<TableFormat>> for TableOutput {
    fn from(p: Parsed<TableFormat>) -> Self {
        match p {
            Parsed::Plain(f) => Self::Plain(f),
            Parsed::Template(t) => Self::Template(t),
        }
    }
}

impl From<Parsed<ReportFormat>> for ReportOutput {
    fn from(p: Parsed<ReportFormat>) -> Self {
        match p {
            Parsed::Plain(f) => Self::Plain(f),
            Parsed::Template(t) => Self::Template(t),
        }
    }
}

/// The clap value parser of a table command's `-o`.
pub(crate) fn table_output() -> impl TypedValueParser<Value = TableOutput> {
    OutputParser::<TableFormat>::new().map(TableOutput::from)
}

/// The clap value parser of a report command's `-o`.
pub(crate) fn report_output() -> impl TypedValueParser<Value = ReportOutput> {
    OutputParser::<ReportFormat>::new().map(ReportOutput::from)
}

impl Context {
    /// Writes `report` (of `kind`) through a kubectl template: a JSONPath on the whole `-o json`
    /// document, or custom columns over the rows `rows` picks from it (the rows the command's
    /// table prints).
    pub(crate) fn write_template<T: serde::Serialize>(
        &self,
        format: &TemplateFormat,
        kind: &'static str,
        report: &T,
        rows: impl for<'a> Fn(&'a Value) -> Vec<&'a Value>,
    ) -> Result<(), Error> {
        let compiled = format.compile()?;
        let doc = serde_json::to_value(Envelope::new(kind, report))
            .map_err(|e| Error::Output(std::io::Error::other(e)))?;
        let mut out = Vec::new();
        match compiled {
            Compiled::JsonPath(t) => {
                let text = t.execute(&doc).map_err(|e| {
                    let template = match format {
                        TemplateFormat::JsonPath(t) => t.clone(),
                        other => format!("{other:?}"),
                    };
                    Error::usage(
                        format!("error executing jsonpath {template:?}: {e}"),
                        "the template runs on the -o json document: compare with `-o json`",
                    )
                })?;
                out.extend_from_slice(crate::sanitize::sanitize_lines(&text).as_bytes());
            }
            Compiled::Columns(c) => {
                let rows = rows(&doc);
                c.write(&mut out, &rows, self.color.styler())
                    .map_err(|e| {
                        Error::usage(
                            e.to_string(),
                            "the columns run on each row of the -o json document: compare with `-o json`",
                        )
                    })?;
            }
        }
        self.stdout(&out)
    }
}

/// Rows: the elements of the array at `key` (none when absent).
pub(crate) fn rows_at<'a>(doc: &'a Value, key: &str) -> Vec<&'a Value> {
    doc.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_prefixes_are_kubectls() {
        assert_eq!(
            TemplateFormat::parse("jsonpath={.kind}"),
            Some(TemplateFormat::JsonPath("{.kind}".to_owned()))
        );
        assert_eq!(
            TemplateFormat::parse("custom-columns-file=c.txt"),
            Some(TemplateFormat::CustomColumnsFile(PathBuf::from("c.txt")))
        );
        assert_eq!(TemplateFormat::parse("json"), None);
    }
}
