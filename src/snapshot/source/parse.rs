//! What the loaders share about reading text: their limits, [`LoadError`] (every message
//! names the file, line and field), parser messages in our words, and positions of a failing
//! field. A leaf of `snapshot::source`: the streaming splitter (`stream`) and the
//! file loader ([`super::files`]) both use it; `files` drives `stream`, never the reverse.

use super::ObjectError;

/// Largest file (or stdin) read whole into memory (`lint`, which keeps the text for spans).
pub(crate) const MAX_INPUT_BYTES: u64 = 1 << 30;
/// Largest file (or stdin) the streaming loader reads, counted on the bytes actually read (so
/// `/dev/zero`-like input stops here too). Objects are typed and pruned as they stream, so the
/// file itself is never held in memory.
pub(crate) const MAX_STREAM_BYTES: u64 = 16 << 30;
/// Deepest nesting of YAML/JSON collections accepted (Kubernetes objects stay far below).
pub(crate) const MAX_DEPTH: usize = 100;
/// Most YAML nodes (scalars and collections) in one document.
pub(crate) const MAX_NODES_PER_DOCUMENT: usize = 200_000_000;

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
    /// A path given to `--from` (or found in a directory) is a FIFO, a device or a socket.
    #[error(
        "`{path}` is not a regular file (FIFOs, devices and sockets are not read; use `-` for stdin)"
    )]
    NotRegularFile {
        /// The path.
        path: String,
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
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            Self::Syntax { .. } => {
                Some("check the file with `kubectl apply --dry-run=client -f FILE`".to_owned())
            }
            Self::Object { object, .. } if object == "KubeSchedulerConfiguration" => Some(
                "kube-scheduler 1.37 refuses this configuration too: fix the field (`kubectl wasctl scheduler-config FILE` checks it; docs/guide/scheduler-config.md lists what is validated)"
                    .to_owned(),
            ),
            Self::Object { object, .. } if object == "Configuration.config.kueue.x-k8s.io" => Some(
                "Kueue's manager refuses this configuration too: fix the field (`kubectl wasctl kueue-config FILE` checks it; docs/guide/kueue-config.md lists what is read and validated)"
                    .to_owned(),
            ),
            Self::Object { .. } => Some(
                "fix the field or remove the object; `kubectl explain <kind>.<field>` shows the expected type"
                    .to_owned(),
            ),
            Self::Empty { .. } => Some("point `--from` at a file, a directory of manifests, or `-`".to_owned()),
            Self::Io { .. } | Self::TooLarge { .. } | Self::NotRegularFile { .. } => None,
        }
    }
}

/// The marker inside the `io::Error` a `files::Counted` reader returns past its limit.
#[derive(Debug)]
pub(crate) struct OverLimit(pub(crate) u64);

impl std::fmt::Display for OverLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "more than {} bytes", self.0)
    }
}

impl std::error::Error for OverLimit {}

/// Maps a read error, recognising the byte cap.
pub(crate) fn read_error(path: &str, source: std::io::Error) -> LoadError {
    if let Some(over) = source.get_ref().and_then(|e| e.downcast_ref::<OverLimit>()) {
        return LoadError::TooLarge {
            path: path.to_owned(),
            size: over.0 + 1,
            limit: over.0,
        };
    }
    LoadError::Io {
        path: path.to_owned(),
        source,
    }
}

pub(crate) fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    (line, column)
}

/// A YAML parser's message for an error at (absolute) `line`, in our words ([`first_line`]);
/// a duplicate key names its line, as kubectl does.
pub(crate) fn yaml_message(message: &str, line: usize) -> String {
    let message = first_line(message);
    if message.starts_with("duplicate key") {
        format!("{message} at line {line}")
    } else {
        message
    }
}

/// serde_json appends " at line L column C"; the position is shown separately.
pub(crate) fn strip_position(message: &str) -> String {
    let message = match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => message,
    };
    plain_type_error(message)
}

/// serde's "invalid type: string \"three\", expected i32" in the words of a user who wrote
/// the YAML: "expected an integer, found the string \"three\"". Other messages pass through.
fn plain_type_error(message: &str) -> String {
    // jiff's chain for a bad time ("failed to parse two digit integer as month: parameter
    // 'month' is not in the required range of 1..=12"): say what a time looks like, then why.
    if message.starts_with("failed to parse")
        && [
            "year",
            "month",
            "day",
            "hour",
            "minute",
            "second",
            "offset",
            "datetime",
            "timestamp",
        ]
        .iter()
        .any(|w| message.contains(w))
    {
        let why = message.rsplit(": ").next().unwrap_or(message);
        return format!("not an RFC 3339 time like `2026-01-31T12:00:00Z`: {why}");
    }
    // serde-saphyr's advice to its caller ("set DuplicateKeyPolicy in Options") is not for
    // a user: a mapping may hold a key once (kubectl: "mapping key already defined").
    if let Some(rest) = message.strip_prefix("duplicate mapping key") {
        let key = rest
            .strip_prefix(": ")
            .and_then(|r| r.rsplit_once(", set DuplicateKeyPolicy"))
            .map(|(k, _)| k);
        return match key {
            Some(k) => format!("duplicate key `{k}`"),
            None => "duplicate key".to_owned(),
        };
    }
    // A loader limit, which serde-saphyr names with a Debug dump ("budget breached: Depth
    // { depth: 101 }"): the limit in words.
    if let Some(breach) = message.strip_prefix("budget breached: ") {
        let name = breach.split([' ', '{']).next().unwrap_or(breach);
        return match name {
            "Depth" | "InclusionDepth" => {
                format!("nested deeper than {MAX_DEPTH} levels: the loader refuses it")
            }
            "Aliases" | "Anchors" | "AliasAnchorRatio" | "MergeKeys" => {
                "too many aliases or anchors (an alias bomb): the loader refuses it".to_owned()
            }
            _ => "the document is larger than the loader accepts".to_owned(),
        };
    }
    // serde-saphyr's advice to its caller about `!!binary`.
    if message.contains("set ignore_binary_tag_for_string") {
        return "a `!!binary` value that is not UTF-8 text where text is expected".to_owned();
    }
    // An integer too large for its field: the range in our words, not the Rust type.
    if let Some(rest) = message.strip_prefix("invalid value: integer `")
        && let Some((number, expected)) = rest.split_once("`, expected ")
        && let Some(range) = integer_range(expected)
    {
        return format!("{number} is out of range: the field takes {range}");
    }
    let Some((found, expected)) = ["invalid type: ", "invalid value: "]
        .iter()
        .find_map(|p| message.strip_prefix(p))
        .and_then(|rest| rest.split_once(", expected "))
    else {
        return message.to_owned();
    };
    let expected = match expected {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" => "an integer",
        "f32" | "f64" => "a number",
        "a sequence" => "a list",
        "a map" => "an object",
        "a boolean" | "bool" => "true or false",
        "a string" | "a borrowed string" | "char" => "a string",
        other => other,
    };
    let found = if let Some(v) = found.strip_prefix("string ") {
        format!("the string {v}")
    } else if let Some(v) = found.strip_prefix("boolean ") {
        v.trim_matches('`').to_owned()
    } else if let Some(v) = found
        .strip_prefix("integer ")
        .or_else(|| found.strip_prefix("floating point "))
    {
        format!("the number {}", v.trim_matches('`'))
    } else {
        match found {
            "sequence" => "a list".to_owned(),
            "map" => "an object".to_owned(),
            "unit value" | "null" | "option" => "null".to_owned(),
            other => other.to_owned(),
        }
    };
    format!("expected {expected}, found {found}")
}

/// The values an integer type of the API takes, in words.
fn integer_range(rust_type: &str) -> Option<&'static str> {
    Some(match rust_type {
        "i32" => "a 32-bit integer, -2147483648 to 2147483647",
        "i64" => "a 64-bit integer, -9223372036854775808 to 9223372036854775807",
        "u8" => "an integer from 0 to 255",
        "u16" => "an integer from 0 to 65535",
        "u32" => "an integer from 0 to 4294967295",
        "u64" | "usize" => "an integer from 0 to 18446744073709551615",
        "i8" => "an integer from -128 to 127",
        "i16" => "an integer from -32768 to 32767",
        _ => return None,
    })
}

pub(crate) fn yaml_options() -> serde_saphyr::Options {
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

pub(crate) fn has_content(doc: &str) -> bool {
    doc.lines().any(|l| {
        let t = l.trim();
        !(t.is_empty() || t.starts_with('#') || t == "---" || t.starts_with("%"))
    })
}

/// The first line of a parser's message, without its position (the caller reports one) and
/// in plain words ([`strip_position`]).
pub(crate) fn first_line(message: &str) -> String {
    strip_position(message.lines().next().unwrap_or(message).trim())
}

/// Finds the line and column (relative to the document) of the field an [`ObjectError`]
/// names, by walking the document's YAML again with spans.
pub(crate) fn locate_yaml(doc: &str, e: &ObjectError) -> Option<(usize, usize)> {
    let field = e.field.as_deref()?;
    let tree: serde_saphyr::Spanned<Node> =
        serde_saphyr::from_str_with_options(doc, yaml_options()).ok()?;
    tree.value.find(&parse_path(field)).or(Some((
        tree.referenced.line() as usize,
        tree.referenced.column() as usize,
    )))
}

pub(crate) fn locate_json(chunk: &str, e: &ObjectError) -> Option<(usize, usize)> {
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

/// A map key of any scalar type, as text (also used by lint's span tree), and whether the
/// parser gave it as a string (a key given as a number, a boolean or null is not: a
/// `serde_json::Value`, which asks for a string, may refuse it).
pub(crate) struct KeyString(pub(crate) String, pub(crate) bool);

impl<'de> serde::Deserialize<'de> for KeyString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = KeyString;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a scalar key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyString, E> {
                Ok(KeyString(v.to_owned(), true))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string(), false))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string(), false))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string(), false))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string(), false))
            }
            fn visit_unit<E>(self) -> Result<KeyString, E> {
                Ok(KeyString("null".to_owned(), false))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
