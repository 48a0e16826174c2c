//! `kubectl wasctl lint`: checks manifests against the 1.37 Workload-Aware Scheduling
//! validation rules (semantics §2), cross-object references, and version/gate facts.
//!
//! Input: file texts ([`Input`]) and, optionally, a cluster [`Snapshot`] for cluster-aware
//! rules. Output: a [`LintReport`] of [`Finding`]s, each with file, line, column, object,
//! rule, severity, message and fix. Pure: no IO here except [`read_inputs`]; nothing prints.
//! A bad document never stops the run: syntax errors are findings (`WAS001`).
//!
//! Layout (style §3.1): [`codes`] maps stable `WAS###` codes to rules, [`rules`] holds one file
//! per family, [`crate::render::lint`] one writer per format, [`schema`] the JSON Schemas of the checked
//! kinds, [`span`] the positioned YAML tree.

pub(crate) mod codes;
pub(crate) mod config;
pub(crate) mod crd;
pub(crate) mod feasibility;
pub mod rules;
pub(crate) mod schema;
pub mod span;
pub(crate) mod value;

#[cfg(test)]
mod fixture_tests;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::snapshot::Snapshot;
use crate::snapshot::facts::{ClusterFacts, Component, ComponentFacts};
use crate::snapshot::source::parse::{LoadError, MAX_INPUT_BYTES};

pub(crate) use codes::Rule;
pub use config::Config;
use span::{Segment, SpanNode, parse_path};

/// The only Kubernetes version wasctl lints for.
pub(crate) const TARGET_VERSION: &str = "1.37";

pub(crate) use crate::report::Severity;

/// The object a finding is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ObjectId {
    /// Kind, e.g. `PodGroup` (empty when the document could not be read).
    pub kind: String,
    /// Namespace, when the manifest sets one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Name (empty when missing).
    pub name: String,
}

impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.kind.is_empty() {
            "document"
        } else {
            &self.kind
        };
        match (&self.namespace, self.name.is_empty()) {
            (_, true) => write!(f, "{kind}"),
            (Some(ns), false) => write!(f, "{kind} {ns}/{}", self.name),
            (None, false) => write!(f, "{kind} {}", self.name),
        }
    }
}

/// One problem found in one object.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Stable code, e.g. `WAS101`.
    pub rule: &'static str,
    /// Severity after `--config` overrides.
    pub severity: Severity,
    /// The file as given on the command line (`<stdin>` for `-`).
    pub file: String,
    /// 1-based line of the offending field.
    pub line: usize,
    /// 1-based column of the offending field.
    pub column: usize,
    /// Kind, namespace and name of the object the offending field belongs to.
    pub object: ObjectId,
    /// What is wrong, values in backticks.
    pub message: String,
    /// What to do about it.
    pub fix: String,
}

/// An object that was linted, with where it starts (JUnit has one testcase per object).
#[derive(Debug, Clone, Serialize)]
pub struct LintedObject {
    /// The file as given on the command line (`<stdin>` for `-`).
    pub file: String,
    /// 1-based line where the object starts.
    pub line: usize,
    /// Kind, namespace and name (the JUnit testcase name).
    pub object: ObjectId,
}

/// Counts for the summary line and the JSON contract.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Files read.
    pub files: usize,
    /// Objects linted.
    pub objects: usize,
    /// Findings with severity `error`.
    pub errors: usize,
    /// Findings with severity `warning`.
    pub warnings: usize,
    /// Findings with severity `info`.
    pub info: usize,
}

/// The result of a lint run (`kind: LintReport` in JSON).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LintReport {
    /// The Kubernetes version the rules describe.
    pub target_version: String,
    /// Files, objects and findings per severity, for the summary line.
    pub summary: Summary,
    /// Findings, sorted by file, line, column, rule.
    pub findings: Vec<Finding>,
    /// Every linted object (not serialized; JUnit uses it).
    #[serde(skip)]
    pub objects: Vec<LintedObject>,
    /// Source text per file, for excerpts in the text output (not serialized).
    #[serde(skip)]
    pub sources: BTreeMap<String, String>,
}

impl LintReport {
    /// True when some finding is at or above `threshold`.
    pub(crate) fn fails(&self, threshold: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= threshold)
    }
}

/// One file's text and the name shown in findings.
#[derive(Debug, Clone)]
pub struct Input {
    /// The path as given (`<stdin>` for `-`).
    pub name: String,
    /// The text, or why it is not text (not UTF-8: line, column).
    pub text: Result<String, (usize, usize)>,
}

/// What to do with fields the 1.37 types do not have, with kubectl's names
/// (`kubectl apply --validate=strict|warn|ignore`, the API server's `fieldValidation`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FieldValidation {
    /// Unknown, removed and renamed fields are errors (kubectl's default).
    #[default]
    Strict,
    /// They are warnings.
    Warn,
    /// They are not reported.
    Ignore,
}

/// What a lint run is asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Unknown, removed and renamed fields (`WAS003`): errors, warnings or nothing.
    pub field_validation: FieldValidation,
    /// Unknown kinds are errors instead of "not checked" info findings.
    pub reject_unknown: bool,
    /// Rule selection and severities.
    pub config: Config,
    /// The namespace of objects that set none (`-n`, else `default`).
    pub default_namespace: String,
    /// `--feature-gates` overrides, for the gate rule (`WAS403`).
    pub gate_overrides: BTreeMap<String, bool>,
    /// Simulate the linted gangs on the empty cluster (`--feasibility`, `WAS312`).
    pub feasibility: bool,
    /// CustomResourceDefinitions given outside the linted files (`--crd`, `--crd-from-cluster`),
    /// each with where it came from; the linted files' own CRDs come first.
    pub crds: Vec<(String, Value)>,
}

/// What is known of feature gates per component: from `--feature-gates`, `ClusterFacts`
/// documents among the linted files, and the cluster snapshot's facts.
#[derive(Debug, Clone, Default)]
pub(crate) struct GateView {
    overrides: BTreeMap<String, bool>,
    components: Vec<ComponentFacts>,
}

impl GateView {
    /// `Some(true)` when `gate` is known on for every instance of `component`, `Some(false)`
    /// when some instance has it off, `None` when nothing is known.
    pub(crate) fn state(&self, gate: &str, component: Component) -> Option<bool> {
        if let Some(v) = self.overrides.get(gate) {
            return Some(*v);
        }
        let known: Vec<bool> = self
            .components
            .iter()
            .filter(|c| c.component == component)
            .filter_map(|c| c.feature_gates.get(gate).copied())
            .collect();
        if known.is_empty() {
            None
        } else {
            Some(known.iter().all(|v| *v))
        }
    }
}

/// Reads files, directories (recursively: `.yaml`, `.yml`, `.json`, hidden entries skipped)
/// and `-` (stdin), in order. Unreadable or missing paths are input errors.
pub(crate) fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, LoadError> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .take(MAX_INPUT_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(|source| LoadError::Io {
                    path: "<stdin>".to_owned(),
                    source,
                })?;
            inputs.push(decode("<stdin>".to_owned(), bytes)?);
            continue;
        }
        let display = path.display().to_string();
        let meta = std::fs::metadata(path).map_err(|source| LoadError::Io {
            path: display.clone(),
            source,
        })?;
        if meta.is_dir() {
            let mut files = Vec::new();
            crate::snapshot::source::files::collect_files(path, &mut files, 0)?;
            if files.is_empty() {
                return Err(LoadError::Empty { path: display });
            }
            for file in files {
                inputs.push(read_file(&file)?);
            }
        } else {
            inputs.push(read_file(path)?);
        }
    }
    Ok(inputs)
}

/// The CustomResourceDefinitions of `--crd FILE|DIR` (files and directories as for the linted
/// paths; a `CustomResourceDefinitionList`, as `kubectl get crd -o yaml` writes it, counts),
/// each with its file. A syntax error, or a path with no CRD at all, is an error naming the
/// file (and line): a `--crd` the user gave must not be silently ignored.
pub(crate) fn read_crds(paths: &[PathBuf]) -> Result<Vec<(String, Value)>, String> {
    let inputs = read_inputs(paths).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for input in &inputs {
        let text = input.text.as_ref().map_err(|(line, column)| {
            format!(
                "{}:{line}:{column}: the file is not valid UTF-8",
                input.name
            )
        })?;
        let (documents, stopped) =
            crate::snapshot::source::files::split_documents(&input.name, text);
        if let Some(e) = stopped {
            return Err(e.to_string());
        }
        for doc in documents {
            let json = doc.format == crate::snapshot::source::files::Format::Json;
            let (parsed, _) = parse_chunk(&input.name, doc.line, &doc.text, json);
            let (_, value) = parsed.map_err(|(file, (line, column), message)| {
                format!("{file}:{line}:{column}: invalid YAML or JSON: {message}")
            })?;
            let items = match value {
                Value::Array(items) => items,
                Value::Object(ref m)
                    if m.get("kind").and_then(Value::as_str)
                        == Some("CustomResourceDefinitionList") =>
                {
                    m.get("items")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default()
                }
                other => vec![other],
            };
            out.extend(
                items
                    .into_iter()
                    .filter(|v| {
                        str_at(v, &["apiVersion"]) == Some(crd::CRD_API_VERSION)
                            && str_at(v, &["kind"]) == Some(crd::CRD_KIND)
                    })
                    .map(|v| (input.name.clone(), v)),
            );
        }
    }
    if out.is_empty() {
        return Err(format!(
            "no `{}` `{}` in {}",
            crd::CRD_API_VERSION,
            crd::CRD_KIND,
            paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(out)
}

fn read_file(path: &Path) -> Result<Input, LoadError> {
    let (display, bytes) = crate::snapshot::source::files::read_limited(path)?;
    decode(display, bytes)
}

fn decode(name: String, bytes: Vec<u8>) -> Result<Input, LoadError> {
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(LoadError::TooLarge {
            path: name,
            size: bytes.len() as u64,
            limit: MAX_INPUT_BYTES,
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let column = valid.iter().rev().take_while(|b| **b != b'\n').count() + 1;
        (line, column)
    });
    Ok(Input { name, text })
}

/// A parsed document with positions.
#[derive(Debug)]
pub struct Document {
    /// The file as given on the command line (`<stdin>` for `-`).
    pub file: String,
    /// 1-based line of the document's first line in the file.
    pub line: usize,
    /// The positioned tree.
    pub tree: SpanNode,
}

/// One object of the linted set, as plain JSON plus where to find it.
#[derive(Debug)]
pub struct Object {
    /// Index into the run's documents.
    pub doc: usize,
    /// Path of the object inside its document (`items[3]` in a List).
    pub prefix: Vec<Segment>,
    /// The object as plain JSON, converted from its positioned tree.
    pub value: Value,
    /// `apiVersion` as written (empty when missing or not a string).
    pub api_version: String,
    /// `kind` as written (empty when missing or not a string).
    pub kind: String,
    /// Kind, namespace, name.
    pub id: ObjectId,
    /// The namespace the object lands in (its own, else the default).
    pub namespace: String,
}

impl Object {
    /// The API group (`""` for core).
    pub(crate) fn group(&self) -> &str {
        self.api_version.rsplit_once('/').map_or("", |(g, _)| g)
    }

    /// The version part of `apiVersion`.
    pub(crate) fn version(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or(self.api_version.as_str(), |(_, v)| v)
    }

    /// `metadata.name` (empty when missing).
    pub(crate) fn name(&self) -> &str {
        &self.id.name
    }
}

/// Collects findings and applies the configuration (disabled rules, severities).
pub struct Emitter<'a> {
    docs: &'a [Document],
    config: &'a Config,
    findings: Vec<Finding>,
}

impl<'a> Emitter<'a> {
    /// An emitter over `docs`.
    pub fn new(docs: &'a [Document], config: &'a Config) -> Self {
        Self {
            docs,
            config,
            findings: Vec::new(),
        }
    }

    /// True when `rule` runs under the configuration.
    pub(crate) fn enabled(&self, rule: Rule) -> bool {
        self.config.enabled(rule)
    }

    /// Reports `rule` on `obj` at the field `path` (`spec.podGroupTemplates[2].name`).
    pub(crate) fn emit(
        &mut self,
        rule: Rule,
        obj: &Object,
        path: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.emit_with(rule, None, obj, path, message, fix);
    }

    /// Like [`emit`](Self::emit) with an explicit severity (e.g. `--reject-unknown`).
    pub(crate) fn emit_with(
        &mut self,
        rule: Rule,
        severity: Option<Severity>,
        obj: &Object,
        path: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        if !self.enabled(rule) {
            return;
        }
        let doc = &self.docs[obj.doc];
        let mut full = obj.prefix.clone();
        full.extend(parse_path(path));
        let (line, column) = doc.tree.locate(&full);
        self.findings.push(Finding {
            rule: rule.code(),
            severity: severity.unwrap_or_else(|| self.config.severity(rule)),
            file: doc.file.clone(),
            line: doc.line + line - 1,
            column,
            object: obj.id.clone(),
            message: message.into(),
            fix: fix.into(),
        });
    }

    /// Reports `rule` at the value (not the key) of `path`, e.g. the `apiVersion` string.
    pub(crate) fn emit_at_value(
        &mut self,
        rule: Rule,
        obj: &Object,
        path: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        let before = self.findings.len();
        self.emit(rule, obj, path, message, fix);
        if let Some(f) = self.findings.get_mut(before) {
            let doc = &self.docs[obj.doc];
            let mut full = obj.prefix.clone();
            full.extend(parse_path(path));
            if let Some((line, column)) = doc.tree.value_at(&full) {
                f.line = doc.line + line - 1;
                f.column = column;
            }
        }
    }

    /// Reports a finding with an explicit position (syntax errors).
    fn push(&mut self, rule: Rule, file: &str, at: (usize, usize), message: String, fix: &str) {
        if !self.enabled(rule) {
            return;
        }
        self.findings.push(Finding {
            rule: rule.code(),
            severity: self.config.severity(rule),
            file: file.to_owned(),
            line: at.0,
            column: at.1,
            object: ObjectId::default(),
            message,
            fix: fix.to_owned(),
        });
    }
}

fn str_at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    let mut v = v;
    for k in path {
        v = v.get(k)?;
    }
    v.as_str()
}

/// Runs `f` over chunks of `items` on up to `available_parallelism` threads (two on the
/// project's machines) and concatenates the results in order. Small inputs stay on one thread.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> Vec<R> + Sync) -> Vec<R> {
    const MIN_PER_THREAD: usize = 64;
    let threads = crate::snapshot::source::stream::cores()
        .min(items.len() / MIN_PER_THREAD)
        .min(16);
    if threads < 2 {
        return f(items);
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| {
                let f = &f;
                scope.spawn(move || f(c))
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A parsed document and its plain value, or a syntax error (file, position, message).
type Parsed = Result<(Document, Value), (String, (usize, usize), String)>;

/// The loader's verdict on one file's text (`--from` reads files with the same function), so
/// that lint rejects exactly what the loader rejects: `Some((line, column, message))` for a
/// syntax error. Object errors (a wrong field type) are not syntax: lint reports those itself.
fn loader_syntax_error(name: &str, text: &str) -> Option<((usize, usize), String)> {
    let mut collector = crate::snapshot::source::Collector::new();
    match crate::snapshot::source::files::load_str(text, name, &mut collector) {
        Err(LoadError::Syntax {
            line,
            column,
            message,
            format,
            ..
        }) => Some((
            (line, column),
            format!(
                "invalid {format}: {}",
                crate::snapshot::source::parse::strip_position(&message)
            ),
        )),
        _ => None,
    }
}

/// A document of a file to parse: file, first line, text, and whether the loader reads it
/// as JSON.
type Chunk = (String, usize, String, bool);

/// A chunk parsed with positions ([`parse_chunk`]), and whether the parse vouches for the
/// loader's: a YAML document whose map keys all came as strings (see
/// [`span::parse_document_keys`]).
type ParsedChunk = (Parsed, bool);

/// Parses a chunk with positions. When the positioned parser refuses a JSON text the loader
/// accepted (a stream of concatenated values, say), the values are taken from serde_json, with
/// every position at the start of the file: the loader's verdict stands.
fn parse_chunk(file: &str, line: usize, chunk: &str, json: bool) -> ParsedChunk {
    match span::parse_document_keys(chunk) {
        Ok((tree, string_keys)) => {
            let value = tree.to_value();
            (
                Ok((
                    Document {
                        file: file.to_owned(),
                        line,
                        tree,
                    },
                    value,
                )),
                string_keys && !json,
            )
        }
        Err(e) if json => {
            let values: Result<Vec<Value>, _> = serde_json::Deserializer::from_str(chunk)
                .into_iter::<Value>()
                .collect();
            let parsed = match values {
                Ok(values) => {
                    let value = Value::Array(values);
                    Ok((
                        Document {
                            file: file.to_owned(),
                            line,
                            tree: SpanNode::unpositioned(&value, (1, 1)),
                        },
                        value,
                    ))
                }
                Err(_) => Err((file.to_owned(), (line + e.at.0 - 1, e.at.1), e.message)),
            };
            (parsed, false)
        }
        Err(e) => (
            Err((file.to_owned(), (line + e.at.0 - 1, e.at.1), e.message)),
            false,
        ),
    }
}

/// Whether the loader's verdict on a file must be asked for ([`loader_syntax_error`]), or is
/// known to be "no syntax error" from lint's own parse of its documents (`parsed`, the file's
/// chunks in order): the cut stopped at no error, and every document is YAML the loader reads
/// as one unit (no column-1 `items:` line, which the loader cuts into a List's items) that the
/// positioned parse read with string keys only. The loader parses such a document's very text
/// with the same parser and limits, into a `serde_json::Value` that accepts every value the
/// positioned tree does: it finds no syntax error either. One parse per document then, where
/// every document used to be parsed twice (issue 46 item 4: two thirds of `lint`'s time on a
/// 20,000-long chain).
fn needs_loader_verdict(stopped: bool, chunks: &[Chunk], parsed: &[ParsedChunk]) -> bool {
    stopped
        || chunks.len() != parsed.len()
        || chunks
            .iter()
            .zip(parsed)
            .any(|((_, _, text, json), (result, vouches))| {
                *json
                    || result.is_err()
                    || !vouches
                    || text.lines().any(|l| l.trim_end() == "items:")
            })
}

/// Lints `inputs`; `cluster` enables the cluster-aware lookups.
pub fn lint(inputs: &[Input], options: &Options, cluster: Option<&Snapshot>) -> LintReport {
    lint_counting(inputs, options, cluster).0
}

/// [`lint`], and how many files it asked the loader for its verdict (a test counts them).
fn lint_counting(
    inputs: &[Input],
    options: &Options,
    cluster: Option<&Snapshot>,
) -> (LintReport, usize) {
    let read = read_documents(inputs, &options.default_namespace);
    let mut em = Emitter::new(&read.docs, &options.config);
    for (file, at, message) in read.syntax {
        em.push(
            Rule::SyntaxError,
            &file,
            at,
            message,
            "fix the syntax; `--from` and `kubectl apply` refuse the whole file",
        );
    }
    for file in read.empty_files {
        em.push(
            Rule::EmptyInput,
            &file,
            (1, 1),
            format!("`{file}` has no YAML or JSON documents: nothing to lint"),
            "check the path; an empty file is skipped",
        );
    }
    let (docs, objects) = (&read.docs, &read.objects);
    let per_object = check_objects(docs, objects, options, cluster);
    rules::references::check(objects, cluster, options.feasibility, &mut em);
    if options.feasibility
        && let Some(cluster) = cluster
    {
        feasibility::check(objects, cluster, &options.gate_overrides, &mut em);
    }
    let mut findings = em.findings;
    findings.extend(per_object);
    tidy(&mut findings);
    let linted: Vec<LintedObject> = objects
        .iter()
        .map(|o| {
            let doc = &docs[o.doc];
            let (line, _) = doc.tree.locate(&o.prefix);
            LintedObject {
                file: doc.file.clone(),
                line: doc.line + line - 1,
                object: o.id.clone(),
            }
        })
        .collect();
    let count = |s| findings.iter().filter(|f| f.severity == s).count();
    let report = LintReport {
        target_version: TARGET_VERSION.to_owned(),
        summary: Summary {
            files: inputs.len(),
            objects: linted.len(),
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            info: count(Severity::Info),
        },
        findings,
        objects: linted,
        sources: read.sources,
    };
    (report, read.loader_calls)
}

/// The inputs as lint reads them: the objects its rules check, and what stopped reading.
struct ReadDocuments {
    /// (file, (line, column), message) of a document or file that cannot be read.
    syntax: Vec<(String, (usize, usize), String)>,
    /// Each readable file's text, by name.
    sources: BTreeMap<String, String>,
    /// Files with no document.
    empty_files: Vec<String>,
    docs: Vec<Document>,
    objects: Vec<Object>,
    /// How many files the loader was asked for its verdict.
    loader_calls: usize,
}

/// Cuts the inputs into documents as the loader does (one scanner for `--from` and lint; a
/// List stays one document here, for positions), parses each with positions on both cores,
/// asks the loader's verdict only for the files lint's parse does not vouch for, and collects
/// the objects of the documents both accept.
fn read_documents(inputs: &[Input], default_namespace: &str) -> ReadDocuments {
    // Per file: its chunks' range in `all` and the error that stopped the cut.
    let mut all: Vec<Chunk> = Vec::new();
    let mut cuts: Vec<(std::ops::Range<usize>, Option<LoadError>)> = Vec::new();
    for input in inputs {
        let Ok(text) = &input.text else {
            continue;
        };
        let (documents, stopped) =
            crate::snapshot::source::files::split_documents(&input.name, text);
        let start = all.len();
        for doc in documents {
            let json = doc.format == crate::snapshot::source::files::Format::Json;
            all.push((input.name.clone(), doc.line, doc.text, json));
        }
        cuts.push((start..all.len(), stopped));
    }
    let parsed: Vec<ParsedChunk> = parallel(&all, |part| {
        part.iter()
            .map(|(file, line, chunk, json)| parse_chunk(file, *line, chunk, *json))
            .collect()
    });
    let (verdicts, loader_calls) = loader_verdicts(inputs, &all, &cuts, &parsed);
    let mut read = ReadDocuments {
        syntax: Vec::new(),
        sources: BTreeMap::new(),
        empty_files: Vec::new(),
        docs: Vec::new(),
        objects: Vec::new(),
        loader_calls,
    };
    let keep = file_errors(inputs, &all, cuts, verdicts, &mut read);
    let parsed = parsed
        .into_iter()
        .zip(keep)
        .filter_map(|((p, _), keep)| keep.then_some(p));
    for p in parsed {
        match p {
            Ok((doc, value)) => {
                collect_objects(
                    read.docs.len(),
                    Vec::new(),
                    value,
                    default_namespace,
                    &mut read.objects,
                );
                read.docs.push(doc);
            }
            Err((file, at, message)) => {
                read.syntax
                    .push((file, at, format!("invalid YAML or JSON: {message}")));
            }
        }
    }
    read
}

/// The loader's syntax error in a file ((line, column), message), if it was asked and found one.
type LoaderVerdict = Option<((usize, usize), String)>;

/// The loader's verdict per readable file (`None` where lint's parse vouches for it, or the
/// loader found no error), and how many files it was asked about.
fn loader_verdicts(
    inputs: &[Input],
    all: &[Chunk],
    cuts: &[(std::ops::Range<usize>, Option<LoadError>)],
    parsed: &[ParsedChunk],
) -> (Vec<LoaderVerdict>, usize) {
    let texts: Vec<(&str, &str)> = inputs
        .iter()
        .filter_map(|input| match &input.text {
            Ok(text) => Some((input.name.as_str(), text.as_str())),
            Err(_) => None,
        })
        .collect();
    let asked: Vec<Option<(&str, &str)>> = texts
        .iter()
        .zip(cuts)
        .map(|(t, (range, stopped))| {
            let chunks = all.get(range.clone()).unwrap_or_default();
            let parsed = parsed.get(range.clone()).unwrap_or_default();
            needs_loader_verdict(stopped.is_some(), chunks, parsed).then_some(*t)
        })
        .collect();
    let calls = asked.iter().flatten().count();
    let verdicts = parallel(&asked, |part| {
        part.iter()
            .map(|t| t.and_then(|(name, text)| loader_syntax_error(name, text)))
            .collect()
    });
    (verdicts, calls)
}

/// Records each file's syntax errors (not UTF-8, the loader's verdict, the error that stopped
/// the cut), its text, and whether it is empty; returns which chunks of `all` to keep: the
/// loader's message and position stand for a document it refused, while the positioned parser
/// still reads the other documents.
fn file_errors(
    inputs: &[Input],
    all: &[Chunk],
    cuts: Vec<(std::ops::Range<usize>, Option<LoadError>)>,
    verdicts: Vec<LoaderVerdict>,
    read: &mut ReadDocuments,
) -> Vec<bool> {
    let mut verdicts = verdicts.into_iter();
    let mut cuts = cuts.into_iter();
    let mut keep = vec![true; all.len()];
    for input in inputs {
        let text = match &input.text {
            Ok(text) => text,
            Err(at) => {
                read.syntax.push((
                    input.name.clone(),
                    *at,
                    "the file is not valid UTF-8".to_owned(),
                ));
                continue;
            }
        };
        let verdict = verdicts.next().flatten();
        let Some((range, stopped)) = cuts.next() else {
            continue;
        };
        read.sources.insert(input.name.clone(), text.clone());
        let mut kept = range.len();
        if let Some((at, _)) = &verdict
            && let Some(bad) = range.clone().find(|&i| {
                all.get(i).is_some_and(|(_, line, text, _)| {
                    at.0 >= *line && at.0 < *line + text.lines().count().max(1)
                })
            })
            && let Some(k) = keep.get_mut(bad)
        {
            *k = false;
            kept -= 1;
        }
        match (verdict, stopped) {
            (Some((at, message)), _) => read.syntax.push((input.name.clone(), at, message)),
            (
                None,
                Some(LoadError::Syntax {
                    line,
                    column,
                    format,
                    message,
                    ..
                }),
            ) => read.syntax.push((
                input.name.clone(),
                (line, column),
                format!("invalid {format}: {message}"),
            )),
            (None, _) => {}
        }
        if kept == 0 && !read.syntax.iter().any(|(f, ..)| *f == input.name) {
            read.empty_files.push(input.name.clone());
        }
    }
    keep
}

/// The per-object rules, on both cores, with the gates the files' `ClusterFacts` (or the
/// cluster's) set and the CRDs among the files and the options.
fn check_objects(
    docs: &[Document],
    objects: &[Object],
    options: &Options,
    cluster: Option<&Snapshot>,
) -> Vec<Finding> {
    let mut gates = GateView {
        overrides: options.gate_overrides.clone(),
        components: cluster
            .map(|c| c.facts.components.clone())
            .unwrap_or_default(),
    };
    for obj in objects {
        if obj.api_version == crate::snapshot::facts::WASCTL_API_VERSION
            && obj.kind == "ClusterFacts"
            && let Ok(facts) = serde_json::from_value::<ClusterFacts>(obj.value.clone())
        {
            gates.components.extend(facts.components);
        }
    }
    let mut crds = crd::CrdSet::default();
    for obj in objects {
        crds.add(&obj.value, &docs[obj.doc].file);
    }
    for (origin, value) in &options.crds {
        crds.add(value, origin);
    }
    parallel(objects, |part| {
        let mut em = Emitter::new(docs, &options.config);
        for obj in part {
            rules::check_object(obj, options, &gates, &crds, &mut em);
        }
        em.findings
    })
}

/// Sorts the findings by position and drops repeats: a schema mismatch (WAS004) at the exact
/// spot of a specific rule's error says less than that finding (a template without `name` is
/// WAS102's).
fn tidy(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        (&a.file, a.line, a.column, a.rule).cmp(&(&b.file, b.line, b.column, b.rule))
    });
    let specific: std::collections::BTreeSet<(String, usize, usize)> = findings
        .iter()
        .filter(|f| f.rule != Rule::InvalidObject.code() && f.severity == Severity::Error)
        .map(|f| (f.file.clone(), f.line, f.column))
        .collect();
    findings.retain(|f| {
        f.rule != Rule::InvalidObject.code()
            || !specific.contains(&(f.file.clone(), f.line, f.column))
    });
    findings.dedup_by(|a, b| {
        (&a.file, a.line, a.column, a.rule, &a.message)
            == (&b.file, b.line, b.column, b.rule, &b.message)
    });
}

fn collect_objects(
    doc: usize,
    prefix: Vec<Segment>,
    value: Value,
    default_namespace: &str,
    out: &mut Vec<Object>,
) {
    if value.is_null() {
        return;
    }
    if let Value::Array(items) = value {
        for (i, item) in items.into_iter().enumerate() {
            let mut p = prefix.clone();
            p.push(Segment::Index(i));
            collect_objects(doc, p, item, default_namespace, out);
        }
        return;
    }
    let api_version = str_at(&value, &["apiVersion"]).unwrap_or("").to_owned();
    let kind = str_at(&value, &["kind"]).unwrap_or("").to_owned();
    if (kind == "List" || kind.ends_with("List"))
        && let Some(Value::Array(items)) = value.get("items")
    {
        for (i, item) in items.iter().enumerate() {
            let mut p = prefix.clone();
            p.push(Segment::Key("items".to_owned()));
            p.push(Segment::Index(i));
            collect_objects(doc, p, item.clone(), default_namespace, out);
        }
        return;
    }
    let namespace = str_at(&value, &["metadata", "namespace"]).map(str::to_owned);
    let id = ObjectId {
        kind: kind.clone(),
        namespace: namespace.clone(),
        name: str_at(&value, &["metadata", "name"])
            .unwrap_or("")
            .to_owned(),
    };
    out.push(Object {
        doc,
        prefix,
        value,
        api_version,
        kind,
        id,
        namespace: namespace.unwrap_or_else(|| default_namespace.to_owned()),
    });
}
