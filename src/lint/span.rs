//! A YAML/JSON value that remembers where each node is, so a finding can point at the exact
//! line and column of the offending field (style §3.3: positions come from the parser).
//!
//! Input: one YAML document's text. Output: a [`SpanNode`] tree, convertible to a
//! `serde_json::Value` for the rules, and [`SpanNode::locate`] for a field path. Pure: no IO.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;

use crate::snapshot::source::parse::{
    KeyString, MAX_DEPTH, MAX_INPUT_BYTES, MAX_NODES_PER_DOCUMENT,
};

/// One step of a field path: a map key or a sequence index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A map key.
    Key(String),
    /// A sequence index.
    Index(usize),
}

/// Parses `spec.podGroupTemplates[2].name` into segments. A bracket holding something other
/// than a number is a key that may contain dots: `metadata.annotations[example.com/x]`.
pub(crate) fn parse_path(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut key = String::new();
    let mut chars = path.chars();
    let flush = |key: &mut String, out: &mut Vec<Segment>| {
        if !key.is_empty() {
            out.push(Segment::Key(std::mem::take(key)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '.' => flush(&mut key, &mut out),
            '[' => {
                flush(&mut key, &mut out);
                let inner: String = chars.by_ref().take_while(|c| *c != ']').collect();
                match inner.parse() {
                    Ok(n) => out.push(Segment::Index(n)),
                    Err(_) => out.push(Segment::Key(inner)),
                }
            }
            c => key.push(c),
        }
    }
    flush(&mut key, &mut out);
    out
}

/// A 1-based line and column inside one document.
pub(crate) type Position = (usize, usize);

/// A node with its position.
#[derive(Debug, Clone)]
pub struct SpanNode {
    /// Where the value starts.
    pub at: Position,
    /// The value.
    pub kind: SpanKind,
}

/// The value of a [`SpanNode`].
#[derive(Debug, Clone)]
pub enum SpanKind {
    /// A mapping; each entry keeps the position of its key.
    Map(Vec<(String, Position, SpanNode)>),
    /// A sequence.
    Seq(Vec<SpanNode>),
    /// A scalar, already typed.
    Scalar(Value),
}

impl SpanNode {
    /// The position of the deepest node on `path` that exists: the key of a map entry, or the
    /// start of a sequence item. An empty path gives the document start.
    pub(crate) fn locate(&self, path: &[Segment]) -> Position {
        let mut node = self;
        let mut at = self.at;
        for seg in path {
            let next = match (&node.kind, seg) {
                (SpanKind::Map(entries), Segment::Key(k)) => entries
                    .iter()
                    .find(|(key, _, _)| key == k)
                    .map(|(_, key_at, v)| (*key_at, v)),
                (SpanKind::Seq(items), Segment::Index(i)) => items.get(*i).map(|v| (v.at, v)),
                _ => None,
            };
            match next {
                Some((pos, child)) => {
                    at = pos;
                    node = child;
                }
                None => break,
            }
        }
        at
    }

    /// The position of the value (not the key) at `path`, when it exists.
    pub(crate) fn value_at(&self, path: &[Segment]) -> Option<Position> {
        let mut node = self;
        for seg in path {
            node = match (&node.kind, seg) {
                (SpanKind::Map(entries), Segment::Key(k)) => entries
                    .iter()
                    .find(|(key, _, _)| key == k)
                    .map(|(_, _, v)| v),
                (SpanKind::Seq(items), Segment::Index(i)) => items.get(*i),
                _ => None,
            }?;
        }
        Some(node.at)
    }

    /// A tree for a value that came without positions: every node is at `at`.
    pub fn unpositioned(value: &Value, at: Position) -> Self {
        let kind = match value {
            Value::Array(items) => {
                SpanKind::Seq(items.iter().map(|v| Self::unpositioned(v, at)).collect())
            }
            Value::Object(map) => SpanKind::Map(
                map.iter()
                    .map(|(k, v)| (k.clone(), at, Self::unpositioned(v, at)))
                    .collect(),
            ),
            scalar => SpanKind::Scalar(scalar.clone()),
        };
        Self { at, kind }
    }

    /// The value as plain JSON (later duplicate keys win, as in serde_json).
    pub(crate) fn to_value(&self) -> Value {
        match &self.kind {
            SpanKind::Scalar(v) => v.clone(),
            SpanKind::Seq(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            SpanKind::Map(entries) => {
                let mut map = Map::new();
                for (k, _, v) in entries {
                    map.insert(k.clone(), v.to_value());
                }
                Value::Object(map)
            }
        }
    }
}

/// The parser limits of the files loader, applied to one document.
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

/// A syntax error: position inside the document and the parser's first message line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// 1-based line and column inside the document.
    pub at: Position,
    /// What the parser said.
    pub message: String,
}

/// Parses one YAML (or JSON) document with positions.
#[cfg(test)]
pub(crate) fn parse_document(doc: &str) -> Result<SpanNode, SyntaxError> {
    parse_document_keys(doc).map(|(tree, _)| tree)
}

/// The document's tree, and whether the parser gave every map key as a string. The parser and
/// its limits are the loader's (`snapshot::source::parse`), and every kind of value this tree
/// accepts a `serde_json::Value` accepts too; so a YAML document that parses here with string
/// keys only parses in the loader as well, and lint needs no second parse for its verdict.
pub(crate) fn parse_document_keys(doc: &str) -> Result<(SpanNode, bool), SyntaxError> {
    let tree: Spanned<Raw> =
        serde_saphyr::from_str_with_options(doc, yaml_options()).map_err(|e| {
            let at = e.location().map_or((1, 1), |l| {
                (
                    usize::try_from(l.line()).unwrap_or(1).max(1),
                    usize::try_from(l.column()).unwrap_or(1).max(1),
                )
            });
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("").trim();
            // The position is reported separately.
            let message = first.rfind(" at line ").map_or(first, |i| &first[..i]);
            SyntaxError {
                at,
                message: message.to_owned(),
            }
        })?;
    let mut string_keys = true;
    let tree = convert(tree, &mut string_keys);
    Ok((tree, string_keys))
}

fn pos(loc: &serde_saphyr::Location) -> Position {
    (
        usize::try_from(loc.line()).unwrap_or(1).max(1),
        usize::try_from(loc.column()).unwrap_or(1).max(1),
    )
}

fn convert(s: Spanned<Raw>, string_keys: &mut bool) -> SpanNode {
    let at = pos(&s.referenced);
    let kind = match s.value {
        Raw::Scalar(v) => SpanKind::Scalar(v),
        Raw::Seq(items) => SpanKind::Seq(
            items
                .into_iter()
                .map(|item| convert(item, string_keys))
                .collect(),
        ),
        Raw::Map(entries) => SpanKind::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    *string_keys &= k.value.1;
                    (k.value.0, pos(&k.referenced), convert(v, string_keys))
                })
                .collect(),
        ),
    };
    SpanNode { at, kind }
}

enum Raw {
    Map(Vec<(Spanned<KeyString>, Spanned<Raw>)>),
    Seq(Vec<Spanned<Raw>>),
    Scalar(Value),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Raw, E> {
                Ok(Raw::Scalar(
                    Number::from_f64(v).map_or(Value::Null, Value::Number),
                ))
            }
            fn visit_str<E>(self, v: &str) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::String(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::String(v)))
            }
            fn visit_unit<E>(self) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::Null))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
                Raw::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Raw::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Raw::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_items_have_positions() {
        let doc = "kind: Workload\nspec:\n  podGroupTemplates:\n  - name: a\n    schedulingPolicy: {gang: {minCount: 0}}\n";
        let tree = parse_document(doc).unwrap();
        assert_eq!(
            tree.locate(&parse_path("spec.podGroupTemplates[0].name")),
            (4, 5)
        );
        assert_eq!(
            tree.locate(&parse_path("spec.podGroupTemplates[0]")),
            (4, 5)
        );
        assert_eq!(
            tree.locate(&parse_path(
                "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount"
            )),
            (5, 31)
        );
        assert_eq!(tree.locate(&parse_path("spec.missing.deeper")), (2, 1));
        assert_eq!(
            parse_path("metadata.annotations[a.b/c].x[3]"),
            vec![
                Segment::Key("metadata".into()),
                Segment::Key("annotations".into()),
                Segment::Key("a.b/c".into()),
                Segment::Key("x".into()),
                Segment::Index(3),
            ]
        );
        assert_eq!(tree.to_value()["spec"]["podGroupTemplates"][0]["name"], "a");
    }

    #[test]
    fn syntax_errors_have_positions() {
        let err = parse_document("a: 1\nb: [x\n").unwrap_err();
        assert!(err.at.0 >= 2, "{err:?}");
    }
}
