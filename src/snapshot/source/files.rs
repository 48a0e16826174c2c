//! `--from PATH`: YAML or JSON files, directories (recursive), or `-` for stdin.
//!
//! Accepts multi-document YAML, `kind: List` (as `kubectl get -o yaml` and
//! `kwokctl snapshot export` print it), JSON objects, JSON arrays and concatenated JSON values.
//! Every error names the file, the 1-based line and column, and for a known kind with a wrong
//! field the object and the field path. Limits on size, depth and node count keep hostile input
//! from exhausting memory or the stack; nothing here panics on any input.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use super::JsonError;

use super::{Collector, ObjectError};

/// Largest file (or stdin) wasctl reads.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;
/// Deepest nesting of YAML/JSON collections accepted (Kubernetes objects stay far below).
pub const MAX_DEPTH: usize = 100;
/// Most YAML nodes (scalars and collections) in one document.
pub const MAX_NODES_PER_DOCUMENT: usize = 200_000_000;

/// Why loading a file failed. Each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file or directory could not be read.
    #[error("cannot read `{path}`")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_INPUT_BYTES`].
    #[error("`{path}` is too large ({size} bytes; the limit is {limit} bytes)")]
    TooLarge {
        /// The file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Not valid YAML or JSON, or beyond a parser limit.
    #[error("{path}:{line}:{column}: invalid {format}: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// `YAML` or `JSON`.
        format: &'static str,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// A document is well-formed but an object in it is not.
    #[error("{path}:{line}:{column}: {object}: {}{message}", field.as_ref().map(|f| format!("field `{f}`: ")).unwrap_or_default())]
    Object {
        /// The file.
        path: String,
        /// 1-based line of the field (or of the document when unknown).
        line: usize,
        /// 1-based column (1 when only the document is known).
        column: usize,
        /// `Kind namespace/name`.
        object: String,
        /// JSON path of the field.
        field: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A path given to `--from` has no YAML or JSON files.
    #[error("`{path}` contains no `.yaml`, `.yml` or `.json` files")]
    Empty {
        /// The directory.
        path: String,
    },
}

impl LoadError {
    /// A suggestion for the user.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Syntax { .. } => {
                Some("check the file with `kubectl apply --dry-run=client -f FILE`".to_owned())
            }
            Self::Object { .. } => Some(
                "fix the field or remove the object; `kubectl explain <kind>.<field>` shows the expected type"
                    .to_owned(),
            ),
            Self::Empty { .. } => Some("point `--from` at a file, a directory of manifests, or `-`".to_owned()),
            Self::Io { .. } | Self::TooLarge { .. } => None,
        }
    }
}

/// Loads `path` (file, directory, or `-` for stdin) into `collector`.
pub fn load_path(path: &Path, collector: &mut Collector) -> Result<(), LoadError> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|source| LoadError::Io {
                path: "<stdin>".to_owned(),
                source,
            })?;
        if text.len() as u64 > MAX_INPUT_BYTES {
            return Err(LoadError::TooLarge {
                path: "<stdin>".to_owned(),
                size: text.len() as u64,
                limit: MAX_INPUT_BYTES,
            });
        }
        return load_str(&text, "<stdin>", collector);
    }
    let display = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|source| LoadError::Io {
        path: display.clone(),
        source,
    })?;
    if meta.is_dir() {
        let mut files = Vec::new();
        collect_files(path, &mut files, 0)?;
        if files.is_empty() {
            return Err(LoadError::Empty { path: display });
        }
        for file in files {
            load_file(&file, collector)?;
        }
        Ok(())
    } else {
        load_file(path, collector)
    }
}

/// Every `.yaml`/`.yml`/`.json` file under `dir`, sorted, hidden entries skipped (also used by
/// lint).
pub(crate) fn collect_files(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    depth: usize,
) -> Result<(), LoadError> {
    const MAX_DIR_DEPTH: usize = 32;
    let io = |source| LoadError::Io {
        path: dir.display().to_string(),
        source,
    };
    if depth > MAX_DIR_DEPTH {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        let hidden = entry
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        // `metadata` follows symlinks; a dangling link is skipped rather than fatal.
        let Ok(meta) = std::fs::metadata(&entry) else {
            continue;
        };
        if meta.is_dir() {
            collect_files(&entry, out, depth + 1)?;
        } else if matches!(
            entry.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            out.push(entry);
        }
    }
    Ok(())
}

/// Reads a file within [`MAX_INPUT_BYTES`]; returns its display name and bytes.
pub(crate) fn read_limited(path: &Path) -> Result<(String, Vec<u8>), LoadError> {
    let display = path.display().to_string();
    let io = |source| LoadError::Io {
        path: display.clone(),
        source,
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > MAX_INPUT_BYTES {
        return Err(LoadError::TooLarge {
            path: display,
            size,
            limit: MAX_INPUT_BYTES,
        });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    Ok((display, bytes))
}

fn load_file(path: &Path, collector: &mut Collector) -> Result<(), LoadError> {
    let (display, bytes) = read_limited(path)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_col(e.as_bytes(), e.utf8_error().valid_up_to());
        LoadError::Syntax {
            path: display.clone(),
            format: "UTF-8",
            line,
            column,
            message: "the file is not valid UTF-8".to_owned(),
        }
    })?;
    load_str(&text, &display, collector)
}

fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    (line, column)
}

/// Loads the text of one file; `path` is only used in messages.
pub fn load_str(text: &str, path: &str, collector: &mut Collector) -> Result<(), LoadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.trim_start().chars().next();
    if path.ends_with(".json") || matches!(first, Some('{' | '[')) {
        load_json(text, path, collector)
    } else {
        load_yaml(text, path, collector)
    }
}

fn load_json(text: &str, path: &str, collector: &mut Collector) -> Result<(), LoadError> {
    let syntax = |e: serde_json::Error| LoadError::Syntax {
        path: path.to_owned(),
        format: "JSON",
        line: e.line().max(1),
        column: e.column().max(1),
        message: strip_position(&e.to_string()),
    };
    // Each top-level value is kept as raw text: objects are deserialized straight into their
    // typed form (no intermediate `Value` tree for the bulk kinds).
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    loop {
        let start = stream.byte_offset();
        let Some(value) = stream.next() else { break };
        // Skipping raw values words some errors less precisely ("expected value" for a
        // trailing comma): on error, parse again as values for serde_json's usual message.
        let value = value.map_err(|e| {
            syntax(
                serde_json::Deserializer::from_str(text)
                    .into_iter::<Value>()
                    .find_map(Result::err)
                    .unwrap_or(e),
            )
        })?;
        let end = stream.byte_offset();
        let (line, _) = line_col(text.as_bytes(), start + leading_ws(&text[start..end]));
        let values = if value.get().starts_with('[') {
            serde_json::from_str::<Vec<&RawValue>>(value.get()).map_err(syntax)?
        } else {
            vec![value]
        };
        for value in values {
            collector.add_json(value.get()).map_err(|e| match e {
                JsonError::Syntax(e) => LoadError::Syntax {
                    path: path.to_owned(),
                    format: "JSON",
                    line: line + e.line().max(1) - 1,
                    column: e.column().max(1),
                    message: strip_position(&e.to_string()),
                },
                JsonError::Object(e) => {
                    let chunk = &text[start..end];
                    let located = locate_json(chunk, &e);
                    object_error(path, line, located, e)
                }
            })?;
        }
    }
    Ok(())
}

fn leading_ws(s: &str) -> usize {
    s.len() - s.trim_start().len()
}

/// serde_json appends " at line L column C"; the position is shown separately.
pub(crate) fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

fn object_error(
    path: &str,
    doc_line: usize,
    located: Option<(usize, usize)>,
    e: ObjectError,
) -> LoadError {
    let (line, column) = located.map_or((doc_line, 1), |(l, c)| (doc_line + l - 1, c));
    LoadError::Object {
        path: path.to_owned(),
        line,
        column,
        object: e.object,
        field: e.field,
        message: e.message,
    }
}

/// The YAML documents of a stream with the 1-based line each starts on. Documents are split at
/// `---` and `...` markers in column 1, which YAML reserves for that use.
pub(crate) fn yaml_documents(text: &str) -> Vec<(usize, &str)> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut start_line = 1;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let is_start = bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t");
        let is_end = bare == "...";
        if (is_start || is_end) && offset > start {
            docs.push((start_line, &text[start..offset]));
            start = offset;
            start_line = i + 1;
        }
        offset += line.len();
        if is_end {
            start = offset;
            start_line = i + 2;
        }
    }
    if offset > start {
        docs.push((start_line, &text[start..]));
    }
    docs
}

fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_documents = 2;
    budget.max_nodes = MAX_NODES_PER_DOCUMENT;
    budget.max_total_scalar_bytes = usize::try_from(MAX_INPUT_BYTES).unwrap_or(usize::MAX);
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.with_snippet = false;
    options
}

fn has_content(doc: &str) -> bool {
    doc.lines().any(|l| {
        let t = l.trim();
        !(t.is_empty() || t.starts_with('#') || t == "---" || t.starts_with("%"))
    })
}

fn load_yaml(text: &str, path: &str, collector: &mut Collector) -> Result<(), LoadError> {
    for (doc_line, doc) in yaml_documents(text) {
        if !has_content(doc) {
            continue;
        }
        let value: Value =
            serde_saphyr::from_str_with_options(doc, yaml_options()).map_err(|e| {
                let (line, column) = e.location().map_or((1, 1), |l| {
                    (
                        usize::try_from(l.line()).unwrap_or(1),
                        usize::try_from(l.column()).unwrap_or(1),
                    )
                });
                LoadError::Syntax {
                    path: path.to_owned(),
                    format: "YAML",
                    line: doc_line + line.max(1) - 1,
                    column: column.max(1),
                    message: first_line(&e.to_string()),
                }
            })?;
        collector.add(value).map_err(|e| {
            let located = locate_yaml(doc, &e);
            object_error(path, doc_line, located, e)
        })?;
    }
    Ok(())
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or(message).trim().to_owned()
}

/// Finds the line and column (relative to the document) of the field an [`ObjectError`]
/// names, by walking the document's YAML again with spans.
fn locate_yaml(doc: &str, e: &ObjectError) -> Option<(usize, usize)> {
    let field = e.field.as_deref()?;
    let tree: serde_saphyr::Spanned<Node> =
        serde_saphyr::from_str_with_options(doc, yaml_options()).ok()?;
    tree.value.find(&parse_path(field)).or(Some((
        tree.referenced.line() as usize,
        tree.referenced.column() as usize,
    )))
}

fn locate_json(chunk: &str, e: &ObjectError) -> Option<(usize, usize)> {
    // JSON is YAML: the same span walk applies.
    let trimmed = chunk.trim_start();
    let skipped = &chunk[..chunk.len() - trimmed.len()];
    let lines_skipped = skipped.matches('\n').count();
    locate_yaml(trimmed, e).map(|(l, c)| (l - lines_skipped.min(l - 1), c))
}

#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// Parses `spec.containers[0].name` (serde_path_to_error's format) into segments.
fn parse_path(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut rest = part;
        if let Some(i) = rest.find('[') {
            if i > 0 {
                out.push(Segment::Key(rest[..i].to_owned()));
            }
            rest = &rest[i..];
            while let Some(stripped) = rest.strip_prefix('[') {
                let Some(end) = stripped.find(']') else { break };
                if let Ok(n) = stripped[..end].parse() {
                    out.push(Segment::Index(n));
                }
                rest = &stripped[end + 1..];
            }
        } else if !rest.is_empty() {
            out.push(Segment::Key(rest.to_owned()));
        }
    }
    out
}

/// A YAML value with the position of every node, used only to locate errors.
#[derive(Debug)]
enum Node {
    Map(Vec<(String, serde_saphyr::Spanned<Node>)>),
    Seq(Vec<serde_saphyr::Spanned<Node>>),
    Scalar,
}

impl Node {
    fn find(&self, path: &[Segment]) -> Option<(usize, usize)> {
        let (first, rest) = path.split_first()?;
        let child = match (self, first) {
            (Self::Map(entries), Segment::Key(k)) => {
                entries.iter().find(|(key, _)| key == k).map(|(_, v)| v)
            }
            (Self::Seq(items), Segment::Index(i)) => items.get(*i),
            _ => None,
        }?;
        let here = (
            child.referenced.line() as usize,
            child.referenced.column() as usize,
        );
        Some(child.value.find(rest).unwrap_or(here))
    }
}

impl<'de> serde::Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_str<E>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                <Node as serde::Deserialize>::deserialize(d)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node::Seq(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) =
                    map.next_entry::<KeyString, serde_saphyr::Spanned<Node>>()?
                {
                    entries.push((k.0, v));
                }
                Ok(Node::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

/// A map key of any scalar type, as text (also used by lint's span tree).
pub(crate) struct KeyString(pub(crate) String);

impl<'de> serde::Deserialize<'de> for KeyString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = KeyString;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a scalar key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyString, E> {
                Ok(KeyString(v.to_owned()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<KeyString, E> {
                Ok(KeyString("null".to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

/// Parses one typed object from YAML text, for tests and the demo.
pub fn parse_yaml<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_saphyr::from_str_with_options(text, yaml_options())
        .map_err(|e| first_line(&e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, path: &str) -> Result<crate::snapshot::Snapshot, LoadError> {
        let mut c = Collector::new();
        load_str(text, path, &mut c)?;
        Ok(c.finish())
    }

    #[test]
    fn multi_document_yaml_with_list_and_comments() {
        let text = "# a comment\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n---\n\
            apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n2}\n...\n";
        let s = load(text, "x.yaml").unwrap();
        assert_eq!(s.nodes.len(), 2);
    }

    #[test]
    fn malformed_yaml_names_file_line_and_column() {
        let text =
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: [Node\n";
        let err = load(text, "bad.yaml").unwrap_err();
        let LoadError::Syntax { line, format, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*format, "YAML");
        assert!(
            *line >= 6,
            "line {line} should be in the second document: {err}"
        );
        assert!(err.to_string().starts_with("bad.yaml:"));
    }

    #[test]
    fn wrong_field_type_in_yaml_points_at_the_field() {
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Pod\n\
            metadata:\n  name: p\n  namespace: ml\nspec:\n  containers:\n  - name: c\n    ports: eighty\n";
        let err = load(text, "pod.yaml").unwrap_err();
        let LoadError::Object {
            line,
            column,
            object,
            field,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(object, "Pod ml/p");
        assert_eq!(field.as_deref(), Some("spec.containers[0].ports"));
        assert_eq!((*line, *column), (13, 12), "{err}");
    }

    #[test]
    fn json_fast_path_reads_the_same_objects_as_the_value_path() {
        // The demo as one JSON List: nodes, pods and namespaces take the typed fast path.
        let yaml = super::super::demo::DEMO_YAML;
        let docs: Vec<Value> = yaml_documents(yaml)
            .into_iter()
            .filter(|(_, d)| has_content(d))
            .map(|(_, d)| parse_yaml::<Value>(d).unwrap())
            .collect();
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": docs});
        let from_json = load(&list.to_string(), "demo.json").unwrap();
        let from_yaml = load(yaml, "demo.yaml").unwrap();
        assert!(!from_json.pods.is_empty() && !from_json.nodes.is_empty());
        let json = |s: &crate::snapshot::Snapshot| {
            serde_json::json!([
                s.nodes,
                s.pods,
                s.namespaces,
                s.pod_groups,
                s.resource_claims
            ])
        };
        assert_eq!(json(&from_json), json(&from_yaml));
    }

    #[test]
    fn wrong_field_type_in_a_json_list_points_at_the_item_field() {
        let text = "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n\
            {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}},\n\
            {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", \"namespace\": \"ml\"},\n\
             \"spec\": {\"containers\": [{\"name\": \"c\", \"ports\": \"eighty\"}]}}]}\n";
        let err = load(text, "pods.json").unwrap_err();
        let LoadError::Object {
            line,
            object,
            field,
            message,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(object, "Pod ml/p");
        assert_eq!(field.as_deref(), Some("items[1].spec.containers[0].ports"));
        assert_eq!(*line, 4, "{err}");
        assert!(!message.contains(" at line "), "{message}");
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let err = load("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \n}", "x.json").unwrap_err();
        let LoadError::Syntax {
            line,
            column,
            format,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!((*format, *line, *column), ("JSON", 4, 1));
    }

    #[test]
    fn json_array_and_stream() {
        let text = "[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}]\n\
            {\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"b\"}}";
        assert_eq!(load(text, "x.json").unwrap().nodes.len(), 2);
    }

    #[test]
    fn deep_nesting_is_refused_not_crashing() {
        let deep = format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: n}}\nx: {}{}",
            "[".repeat(5000),
            "]".repeat(5000)
        );
        assert!(matches!(
            load(&deep, "deep.yaml"),
            Err(LoadError::Syntax { .. })
        ));
        let deep_json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(
            load(&deep_json, "deep.json"),
            Err(LoadError::Syntax { .. })
        ));
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = i - 1;
            text.push_str(&format!("a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
        }
        assert!(load(&text, "bomb.yaml").is_err());
    }

    #[test]
    fn path_parsing() {
        assert_eq!(
            parse_path("items[2].spec.containers[0].ports"),
            vec![
                Segment::Key("items".into()),
                Segment::Index(2),
                Segment::Key("spec".into()),
                Segment::Key("containers".into()),
                Segment::Index(0),
                Segment::Key("ports".into()),
            ]
        );
    }
}

/// Property and corpus tests: no input makes the loader panic. The same property is fuzzed by
/// `fuzz/fuzz_targets/load_files.rs` (cargo-fuzz, nightly); these run in every `cargo test`.
#[cfg(test)]
mod no_panic {
    use proptest::prelude::*;

    use super::*;
    use crate::snapshot::source::demo::DEMO_YAML;

    fn load_any(text: &str, path: &str) {
        let mut c = Collector::new();
        if load_str(text, path, &mut c).is_ok() {
            let s = c.finish();
            let graph = crate::graph::Graph::build(&s);
            let _ = crate::graph::tree::build(
                &s,
                &graph,
                &crate::graph::tree::TreeScope::default(),
                k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
                Vec::new(),
                None,
            );
        }
    }

    /// A window of the demo cluster, cut at line boundaries, as a realistic seed.
    fn demo_window(start: usize, len: usize) -> String {
        let lines: Vec<&str> = DEMO_YAML.lines().collect();
        let start = start % lines.len();
        lines[start..(start + len).min(lines.len())].join("\n")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
            load_any(&text, "x.yaml");
            load_any(&text, "x.json");
        }

        #[test]
        fn yamlish_text_never_panics(text in "([a-zA-Z]{1,6}: (\\[|\\{|&a |\\*a |!!str |\"|'|-|[0-9]{1,3}|\\n  |\\n- ){0,3}\\n?){0,40}") {
            load_any(&text, "x.yaml");
        }

        #[test]
        fn mutated_demo_never_panics(start in 0usize..5000, len in 1usize..150, cut in 0usize..4000, insert in "\\PC{0,3}") {
            let mut text = demo_window(start, len);
            let at = text.char_indices().map(|(i, _)| i).nth(cut % text.len().max(1)).unwrap_or(0);
            text.insert_str(at, &insert);
            load_any(&text, "demo.yaml");
        }
    }

    #[test]
    fn every_bad_fixture_fails_without_panicking() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/manifests/bad");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let mut c = Collector::new();
            assert!(
                load_path(&path, &mut c).is_err(),
                "{} must fail",
                path.display()
            );
        }
    }
}
