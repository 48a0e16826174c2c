//! Compiled label selectors, node selector terms and tolerations: matched in hot loops
//! without touching k8s-openapi structs.
//!
//! Upstream: `k8s.io/apimachinery/pkg/labels`, `k8s.io/component-helpers/scheduling/corev1`
//! (node affinity), `k8s.io/api/core/v1/toleration.go` (`ToleratesTaint`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiLabelSelector;

/// Labels of an object.
pub(crate) type Labels = BTreeMap<String, String>;

/// What a selector reads from an object's labels: the value of one key.
pub(crate) trait LabelLookup {
    /// The value of `key`, if the label is set.
    fn label(&self, key: &str) -> Option<&str>;
}

impl LabelLookup for Labels {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

/// A pod's labels as the simulator keeps them: the keys and values in one string, keys sorted,
/// with their end offsets. A `BTreeMap` of the same six labels takes a 544-byte node and twelve
/// strings (about 950 bytes, 13 allocations); this takes the text and 8 bytes a label (about
/// 250 bytes, 2 allocations), for every one of 150,000 compiled pods.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodLabels {
    text: Box<str>,
    /// Per label: (end of the key, end of the value) in `text`; the value starts where the
    /// key ends.
    ends: Box<[(u32, u32)]>,
}

impl PodLabels {
    /// The labels of a map (its order is the keys' order).
    pub(crate) fn from_map(map: &Labels) -> Self {
        Self::from_sorted(map.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// Labels from (key, value) pairs in any order; a repeated key keeps its last value.
    #[cfg(test)]
    pub(crate) fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let map: BTreeMap<&str, &str> = pairs.into_iter().collect();
        Self::from_sorted(map.iter().map(|(k, v)| (*k, *v)))
    }

    fn from_sorted<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)> + Clone) -> Self {
        let len: usize = pairs.clone().map(|(k, v)| k.len() + v.len()).sum();
        // Label keys and values are at most 316 bytes (validation); a hostile file's longer
        // ones still fit u32 offsets unless the labels of one pod pass 4 GiB, past the
        // loader's 1 GiB file limit.
        let mut text = String::with_capacity(len);
        let mut ends = Vec::with_capacity(pairs.clone().count());
        for (k, v) in pairs {
            text.push_str(k);
            let key_end = u32::try_from(text.len()).unwrap_or(u32::MAX);
            text.push_str(v);
            let value_end = u32::try_from(text.len()).unwrap_or(u32::MAX);
            ends.push((key_end, value_end));
        }
        Self {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        }
    }

    /// The labels in key order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&(k, v)| {
            let (k, v) = (k as usize, v as usize);
            let pair = (
                self.text.get(start..k).unwrap_or(""),
                self.text.get(k..v).unwrap_or(""),
            );
            start = v;
            pair
        })
    }

    /// The number of labels.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// No labels.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn key_at(&self, i: usize) -> (&str, usize) {
        let start = match i.checked_sub(1) {
            Some(prev) => self.ends[prev].1 as usize,
            None => 0,
        };
        let end = self.ends[i].0 as usize;
        (self.text.get(start..end).unwrap_or(""), end)
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        let (mut lo, mut hi) = (0usize, self.ends.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (k, end) = self.key_at(mid);
            match k.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return self.text.get(end..self.ends[mid].1 as usize);
                }
            }
        }
        None
    }
}

impl LabelLookup for PodLabels {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key)
    }
}

/// A selector operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Value in the set.
    In(Vec<String>),
    /// Value not in the set (or key absent).
    NotIn(Vec<String>),
    /// Key present.
    Exists,
    /// Key absent.
    DoesNotExist,
    /// Integer value greater than (node selectors only).
    Gt(i64),
    /// Integer value less than (node selectors only).
    Lt(i64),
    /// An operator that can never match (unknown, or a malformed Gt/Lt value).
    Never,
}

/// One requirement on one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The label key (or `metadata.name` for a node field requirement).
    pub key: String,
    /// The operator.
    pub op: Op,
}

impl Requirement {
    /// Compiles a requirement from its key, operator and values (label selector and node
    /// selector requirements alike).
    pub(crate) fn compile(key: &str, operator: &str, values: Option<&Vec<String>>) -> Self {
        let values = values.cloned().unwrap_or_default();
        let int = || {
            values
                .first()
                .and_then(|v| v.parse::<i64>().ok())
                .filter(|_| values.len() == 1)
        };
        let op = match operator {
            "In" => Op::In(values),
            "NotIn" => Op::NotIn(values),
            "Exists" => Op::Exists,
            "DoesNotExist" => Op::DoesNotExist,
            "Gt" => int().map_or(Op::Never, Op::Gt),
            "Lt" => int().map_or(Op::Never, Op::Lt),
            _ => Op::Never,
        };
        Self {
            key: key.to_owned(),
            op,
        }
    }

    /// Whether `value` (the key's value, if present) satisfies the requirement.
    pub(crate) fn matches_value(&self, value: Option<&str>) -> bool {
        match (&self.op, value) {
            (Op::In(vs), Some(v)) => vs.iter().any(|x| x == v),
            (Op::In(_), None) => false,
            (Op::NotIn(vs), Some(v)) => !vs.iter().any(|x| x == v),
            (Op::NotIn(_), None) => true,
            (Op::Exists, v) => v.is_some(),
            (Op::DoesNotExist, v) => v.is_none(),
            (Op::Gt(n), Some(v)) => v.parse::<i64>().is_ok_and(|x| x > *n),
            (Op::Lt(n), Some(v)) => v.parse::<i64>().is_ok_and(|x| x < *n),
            (Op::Gt(_) | Op::Lt(_), None) | (Op::Never, _) => false,
        }
    }

    /// Whether `labels` satisfy the requirement.
    pub(crate) fn matches(&self, labels: &(impl LabelLookup + ?Sized)) -> bool {
        self.matches_value(labels.label(&self.key))
    }
}

/// A compiled `metav1.LabelSelector`. `None` in the API means "match nothing" where upstream
/// says so (e.g. PDBs); an empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    /// All must hold.
    pub requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Compiles an API selector.
    pub(crate) fn compile(s: &ApiLabelSelector) -> Self {
        let mut requirements: Vec<Requirement> = s
            .match_labels
            .iter()
            .flatten()
            .map(|(k, v)| Requirement {
                key: k.clone(),
                op: Op::In(vec![v.clone()]),
            })
            .collect();
        for e in s.match_expressions.iter().flatten() {
            requirements.push(Requirement::compile(&e.key, &e.operator, e.values.as_ref()));
        }
        Self { requirements }
    }

    /// Parses kubectl's `-l/--selector` syntax exactly as `k8s.io/apimachinery/pkg/labels`
    /// `Parse` does (the API server parses `labelSelector` with it, so this is what kubectl
    /// accepts): requirements separated by commas, each `key`, `!key`, `key=value`,
    /// `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key>N` or `key<N`. Keys
    /// must be qualified names and values label values. An empty set `key in ()` is upstream's
    /// set of the empty value; an empty requirement (`a=b,,c=d`, a trailing `,`) is refused. The
    /// error is upstream's wording (`found ',', expected: identifier after ','`).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let requirements = parse::Parser::new(text).parse()?;
        Ok(Self { requirements })
    }

    /// Adds `key In [value]` (matchLabelKeys).
    pub(crate) fn with_equal(mut self, key: &str, value: &str) -> Self {
        self.requirements.push(Requirement {
            key: key.to_owned(),
            op: Op::In(vec![value.to_owned()]),
        });
        self
    }

    /// Whether `labels` match.
    pub(crate) fn matches(&self, labels: &(impl LabelLookup + ?Sized)) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }
}

/// A port of the lexer and parser of `k8s.io/apimachinery/pkg/labels/selector.go`.
mod parse {
    use super::{Op, Requirement};
    use crate::snapshot::names::{label_value_problems, qualified_name_problems};

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Token {
        Error,
        EndOfString,
        ClosedPar,
        Comma,
        DoesNotExist,
        DoubleEquals,
        Equals,
        GreaterThan,
        Identifier,
        In,
        LessThan,
        NotEquals,
        NotIn,
        OpenPar,
    }

    /// Upstream `string2token`: every literal that is a token of its own.
    fn literal_token(s: &[u8]) -> Option<Token> {
        Some(match s {
            b")" => Token::ClosedPar,
            b"," => Token::Comma,
            b"!" => Token::DoesNotExist,
            b"==" => Token::DoubleEquals,
            b"=" => Token::Equals,
            b">" => Token::GreaterThan,
            b"in" => Token::In,
            b"<" => Token::LessThan,
            b"!=" => Token::NotEquals,
            b"notin" => Token::NotIn,
            b"(" => Token::OpenPar,
            _ => return None,
        })
    }

    fn is_whitespace(c: u8) -> bool {
        matches!(c, b' ' | b'\t' | b'\r' | b'\n')
    }

    fn is_special(c: u8) -> bool {
        matches!(c, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
    }

    /// Upstream `Lexer`: bytes, since every delimiter is ASCII (a multi-byte character is part
    /// of an identifier, and then fails key or value validation).
    pub(super) struct Lexer<'a> {
        s: &'a [u8],
        pos: usize,
    }

    impl<'a> Lexer<'a> {
        pub(super) fn new(s: &'a str) -> Self {
            Self {
                s: s.as_bytes(),
                pos: 0,
            }
        }

        fn text(bytes: &[u8]) -> String {
            String::from_utf8_lossy(bytes).into_owned()
        }

        /// Upstream `Lex`: the next token and its literal.
        pub(super) fn lex(&mut self) -> (Token, String) {
            while self.s.get(self.pos).copied().is_some_and(is_whitespace) {
                self.pos += 1;
            }
            match self.s.get(self.pos).copied() {
                None => (Token::EndOfString, String::new()),
                Some(c) if is_special(c) => self.special(),
                Some(_) => {
                    let start = self.pos;
                    while let Some(&c) = self.s.get(self.pos) {
                        if is_special(c) || is_whitespace(c) {
                            break;
                        }
                        self.pos += 1;
                    }
                    let lit = &self.s[start..self.pos];
                    (
                        literal_token(lit).unwrap_or(Token::Identifier),
                        Self::text(lit),
                    )
                }
            }
        }

        /// Upstream `scanSpecialSymbol`: the longest run of special characters that is a token.
        fn special(&mut self) -> (Token, String) {
            let start = self.pos;
            let mut last: Option<(Token, usize)> = None;
            while let Some(&c) = self.s.get(self.pos) {
                if !is_special(c) {
                    break;
                }
                self.pos += 1;
                let buffer = &self.s[start..self.pos];
                if let Some(t) = literal_token(buffer) {
                    last = Some((t, self.pos));
                } else if last.is_some() {
                    self.pos -= 1;
                    break;
                }
            }
            match last {
                Some((t, end)) => {
                    self.pos = end;
                    (t, Self::text(&self.s[start..end]))
                }
                None => (
                    Token::Error,
                    format!(
                        "error expected: keyword found '{}'",
                        Self::text(&self.s[start..self.pos])
                    ),
                ),
            }
        }
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Context {
        KeyAndOperator,
        Values,
    }

    /// Upstream `Parser`: the scanned tokens and a position.
    pub(super) struct Parser {
        items: Vec<(Token, String)>,
        position: usize,
    }

    /// The operators upstream lists in "expected: …".
    const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

    enum Parsed {
        In,
        NotIn,
        Equals,
        NotEquals,
        GreaterThan,
        LessThan,
    }

    impl Parser {
        pub(super) fn new(text: &str) -> Self {
            let mut lexer = Lexer::new(text);
            let mut items = Vec::new();
            loop {
                let (t, lit) = lexer.lex();
                items.push((t, lit));
                if t == Token::EndOfString {
                    break;
                }
            }
            Self { items, position: 0 }
        }

        fn at(&self, i: usize, context: Context) -> (Token, &str) {
            // The last item is always EndOfString; never read past it.
            let (t, lit) = self
                .items
                .get(i)
                .or_else(|| self.items.last())
                .map_or((Token::EndOfString, ""), |(t, l)| (*t, l.as_str()));
            let t = match (context, t) {
                (Context::Values, Token::In | Token::NotIn) => Token::Identifier,
                _ => t,
            };
            (t, lit)
        }

        fn lookahead(&self, context: Context) -> (Token, String) {
            let (t, l) = self.at(self.position, context);
            (t, l.to_owned())
        }

        fn consume(&mut self, context: Context) -> (Token, String) {
            let (t, l) = self.at(self.position, context);
            let out = (t, l.to_owned());
            self.position = (self.position + 1).min(self.items.len().saturating_sub(1));
            out
        }

        /// Upstream `parse`.
        pub(super) fn parse(mut self) -> Result<Vec<Requirement>, String> {
            let mut requirements = Vec::new();
            loop {
                let (t, lit) = self.lookahead(Context::Values);
                match t {
                    Token::Identifier | Token::DoesNotExist => {
                        let r = self
                            .requirement()
                            .map_err(|e| format!("unable to parse requirement: {e}"))?;
                        requirements.push(r);
                        let (t, l) = self.consume(Context::Values);
                        match t {
                            Token::EndOfString => return Ok(requirements),
                            Token::Comma => {
                                let (t2, l2) = self.lookahead(Context::Values);
                                if t2 != Token::Identifier && t2 != Token::DoesNotExist {
                                    return Err(format!(
                                        "found '{l2}', expected: identifier after ','"
                                    ));
                                }
                            }
                            _ => {
                                return Err(format!(
                                    "found '{l}', expected: ',' or 'end of string'"
                                ));
                            }
                        }
                    }
                    Token::EndOfString => return Ok(requirements),
                    _ => {
                        return Err(format!(
                            "found '{lit}', expected: !, identifier, or 'end of string'"
                        ));
                    }
                }
            }
        }

        /// Upstream `parseRequirement` and `NewRequirement`'s checks.
        fn requirement(&mut self) -> Result<Requirement, String> {
            let mut does_not_exist = false;
            let (mut t, mut key) = self.consume(Context::Values);
            if t == Token::DoesNotExist {
                does_not_exist = true;
                (t, key) = self.consume(Context::Values);
            }
            if t != Token::Identifier {
                return Err(format!("found '{key}', expected: identifier"));
            }
            let problems = qualified_name_problems(&key);
            if !problems.is_empty() {
                return Err(format!("Invalid value: \"{key}\": {}", problems.join("; ")));
            }
            if does_not_exist {
                // `!key=a`: upstream builds `!key` and then refuses the `=` that follows it.
                return Ok(Requirement {
                    key,
                    op: Op::DoesNotExist,
                });
            }
            let (next, _) = self.lookahead(Context::Values);
            if matches!(next, Token::EndOfString | Token::Comma) {
                return Ok(Requirement {
                    key,
                    op: Op::Exists,
                });
            }
            let (t, lit) = self.consume(Context::KeyAndOperator);
            let op = match t {
                Token::In => Parsed::In,
                Token::NotIn => Parsed::NotIn,
                Token::Equals | Token::DoubleEquals => Parsed::Equals,
                Token::NotEquals => Parsed::NotEquals,
                Token::GreaterThan => Parsed::GreaterThan,
                Token::LessThan => Parsed::LessThan,
                _ => return Err(format!("found '{lit}', expected: {BINARY_OPERATORS}")),
            };
            let values = match op {
                Parsed::In | Parsed::NotIn => self.values()?,
                _ => vec![self.exact_value()?],
            };
            for v in &values {
                let problems = label_value_problems(v);
                if !problems.is_empty() {
                    return Err(format!(
                        "values[0][{key}]: Invalid value: \"{v}\": {}",
                        problems.join("; ")
                    ));
                }
            }
            let int = || -> Result<i64, String> {
                let v = values.first().map_or("", String::as_str);
                v.parse::<i64>().map_err(|_| {
                    format!(
                        "values[0]: Invalid value: \"{v}\": for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                })
            };
            let op = match op {
                Parsed::In => Op::In(values),
                Parsed::Equals => Op::In(values),
                Parsed::NotIn | Parsed::NotEquals => Op::NotIn(values),
                Parsed::GreaterThan => Op::Gt(int()?),
                Parsed::LessThan => Op::Lt(int()?),
            };
            Ok(Requirement { key, op })
        }

        /// Upstream `parseValues`: `(a,b)`, where `()` is the set of the empty value and an
        /// empty item (`(a,)`, `(,a)`) is the empty value.
        fn values(&mut self) -> Result<Vec<String>, String> {
            let (t, lit) = self.consume(Context::Values);
            if t != Token::OpenPar {
                return Err(format!("found '{lit}' expected: '('"));
            }
            let (t, lit) = self.lookahead(Context::Values);
            match t {
                Token::Identifier | Token::Comma => {
                    let s = self.identifiers()?;
                    let (t, _) = self.consume(Context::Values);
                    if t != Token::ClosedPar {
                        return Err(format!("found '{lit}', expected: ')'"));
                    }
                    Ok(s)
                }
                Token::ClosedPar => {
                    self.consume(Context::Values);
                    Ok(vec![String::new()])
                }
                _ => Err(format!("found '{lit}', expected: ',', ')' or identifier")),
            }
        }

        /// Upstream `parseIdentifiersList`, keeping each value once.
        fn identifiers(&mut self) -> Result<Vec<String>, String> {
            let mut s: Vec<String> = Vec::new();
            let insert = |s: &mut Vec<String>, v: &str| {
                if !s.iter().any(|x| x == v) {
                    s.push(v.to_owned());
                }
            };
            loop {
                let (t, lit) = self.consume(Context::Values);
                match t {
                    Token::Identifier => {
                        insert(&mut s, &lit);
                        let (t2, l2) = self.lookahead(Context::Values);
                        match t2 {
                            Token::Comma => continue,
                            Token::ClosedPar => return Ok(s),
                            _ => return Err(format!("found '{l2}', expected: ',' or ')'")),
                        }
                    }
                    Token::Comma => {
                        if s.is_empty() {
                            insert(&mut s, "");
                        }
                        let (t2, _) = self.lookahead(Context::Values);
                        if t2 == Token::ClosedPar {
                            insert(&mut s, "");
                            return Ok(s);
                        }
                        if t2 == Token::Comma {
                            insert(&mut s, "");
                        }
                    }
                    _ => return Err(format!("found '{lit}', expected: ',', or identifier")),
                }
            }
        }

        /// Upstream `parseExactValue`: one value, empty when the requirement ends.
        fn exact_value(&mut self) -> Result<String, String> {
            let (t, _) = self.lookahead(Context::Values);
            if matches!(t, Token::EndOfString | Token::Comma) {
                return Ok(String::new());
            }
            let (t, lit) = self.consume(Context::Values);
            if t == Token::Identifier {
                Ok(lit)
            } else {
                Err(format!("found '{lit}', expected: identifier"))
            }
        }
    }
}

/// One node selector term: label requirements AND `metadata.name` field requirements.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeTerm {
    /// `matchExpressions`.
    pub labels: Vec<Requirement>,
    /// `matchFields` (only `metadata.name` is defined).
    pub fields: Vec<Requirement>,
}

impl NodeTerm {
    /// Compiles a term.
    pub(crate) fn compile(t: &NodeSelectorTerm) -> Self {
        let req = |r: &NodeSelectorRequirement| {
            Requirement::compile(&r.key, &r.operator, r.values.as_ref())
        };
        Self {
            labels: t.match_expressions.iter().flatten().map(req).collect(),
            fields: t.match_fields.iter().flatten().map(req).collect(),
        }
    }

    /// Whether a node matches. Upstream: an empty term matches no objects.
    pub(crate) fn matches(&self, node_name: &str, labels: &Labels) -> bool {
        if self.labels.is_empty() && self.fields.is_empty() {
            return false;
        }
        self.labels.iter().all(|r| r.matches(labels))
            && self
                .fields
                .iter()
                .all(|r| r.key == "metadata.name" && r.matches_value(Some(node_name)))
    }
}

/// A compiled toleration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tol {
    key: String,
    exists: bool,
    value: String,
    effect: String,
}

impl Tol {
    /// Compiles a toleration.
    pub(crate) fn compile(t: &Toleration) -> Self {
        Self {
            key: t.key.clone().unwrap_or_default(),
            exists: t.operator.as_deref() == Some("Exists"),
            value: t.value.clone().unwrap_or_default(),
            effect: t.effect.clone().unwrap_or_default(),
        }
    }

    /// A toleration for `key:effect` with operator Exists.
    #[cfg(test)]
    pub(crate) fn exists(key: &str, effect: &str) -> Self {
        Self {
            key: key.to_owned(),
            exists: true,
            value: String::new(),
            effect: effect.to_owned(),
        }
    }

    /// Upstream `Toleration.ToleratesTaint`.
    pub(crate) fn tolerates(&self, key: &str, value: &str, effect: &str) -> bool {
        if !self.effect.is_empty() && self.effect != effect {
            return false;
        }
        if !self.key.is_empty() && self.key != key {
            return false;
        }
        if self.exists {
            return true;
        }
        // An empty key with operator Equal is invalid in the API; it matches nothing here.
        !self.key.is_empty() && self.value == value
    }
}

/// A node taint, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTaint {
    /// Key.
    pub key: String,
    /// Value.
    pub value: String,
    /// `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    pub effect: String,
}

impl NodeTaint {
    /// Compiles a taint.
    pub(crate) fn compile(t: &Taint) -> Self {
        Self {
            key: t.key.clone(),
            value: t.value.clone().unwrap_or_default(),
            effect: t.effect.clone(),
        }
    }

    /// Whether any of `tolerations` tolerates this taint.
    pub(crate) fn tolerated_by(&self, tolerations: &[Tol]) -> bool {
        tolerations
            .iter()
            .any(|t| t.tolerates(&self.key, &self.value, &self.effect))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_selector_syntax_parses_and_matches() {
        let labels: Labels = [("app", "train"), ("tier", "gpu")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        for (sel, want) in [
            ("app=train", true),
            ("app==train,tier=gpu", true),
            ("app!=train", false),
            ("app in (x, train)", true),
            ("tier notin (gpu)", false),
            ("app", true),
            ("!app", false),
            ("!team", true),
            ("", true),
        ] {
            let s = LabelSelector::parse(sel).expect(sel);
            assert_eq!(s.matches(&labels), want, "{sel}");
        }
        assert!(LabelSelector::parse("app in x").is_err());
        assert!(LabelSelector::parse("a b").is_err());
    }

    fn set(pairs: &[(&str, &str)]) -> Labels {
        labels(pairs)
    }

    /// k8s.io/apimachinery/pkg/labels/selector_test.go `TestSelectorParse`, and the inputs the
    /// adversarial pass of issue #46 found accepted (`a=b,,c=d`).
    #[test]
    fn selector_parse_accepts_and_refuses_as_upstream_test_selector_parse() {
        for good in [
            "x=a,y=b,z=c",
            "",
            "x!=a,y=b",
            "x=",
            "x= ",
            "x=,z= ",
            "x= ,z= ",
            "!x",
            "x>1",
            "x>1,z<5",
        ] {
            assert!(LabelSelector::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "x=a||y=b", "x==a==b", "!x=a", "x<a", "a=b,,c=d", ",a", "a,", "a=b,",
        ] {
            assert!(LabelSelector::parse(bad).is_err(), "{bad}");
        }
    }

    /// `TestSetSelectorParser`: (input, valid, the parsed requirements when valid).
    #[test]
    fn set_selector_parser_as_upstream_test_set_selector_parser() {
        let r = |key: &str, op: Op| Requirement {
            key: key.to_owned(),
            op,
        };
        let vals = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let sorted = |mut reqs: Vec<Requirement>| {
            for q in &mut reqs {
                if let Op::In(v) | Op::NotIn(v) = &mut q.op {
                    v.sort();
                }
            }
            reqs.sort_by(|a, b| a.key.cmp(&b.key));
            reqs
        };
        let cases: Vec<(&str, Option<Vec<Requirement>>)> = vec![
            ("", Some(vec![])),
            ("\rx", Some(vec![r("x", Op::Exists)])),
            (
                "this-is-a-dns.domain.com/key-with-dash",
                Some(vec![r(
                    "this-is-a-dns.domain.com/key-with-dash",
                    Op::Exists,
                )]),
            ),
            (
                "this-is-another-dns.domain.com/key-with-dash in (so,what)",
                Some(vec![r(
                    "this-is-another-dns.domain.com/key-with-dash",
                    Op::In(vals(&["so", "what"])),
                )]),
            ),
            (
                "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
                Some(vec![r(
                    "0.1.2.domain/99",
                    Op::NotIn(vals(&["10.10.100.1", "tick.tack.clock"])),
                )]),
            ),
            (
                "foo  in\t (abc)",
                Some(vec![r("foo", Op::In(vals(&["abc"])))]),
            ),
            (
                "x notin\n (abc)",
                Some(vec![r("x", Op::NotIn(vals(&["abc"])))]),
            ),
            (
                "x  notin\t\t\t(abc,def)",
                Some(vec![r("x", Op::NotIn(vals(&["abc", "def"])))]),
            ),
            (
                "x in (abc,def)",
                Some(vec![r("x", Op::In(vals(&["abc", "def"])))]),
            ),
            (
                "x in (abc,)",
                Some(vec![r("x", Op::In(vals(&["", "abc"])))]),
            ),
            // Upstream reads `()` as the set of the empty value: valid.
            ("x in ()", Some(vec![r("x", Op::In(vals(&[""])))])),
            (
                "x notin (abc,,def),bar,z in (),w",
                Some(vec![
                    r("bar", Op::Exists),
                    r("w", Op::Exists),
                    r("x", Op::NotIn(vals(&["", "abc", "def"]))),
                    r("z", Op::In(vals(&[""]))),
                ]),
            ),
            (
                "x,y in (a)",
                Some(vec![r("x", Op::Exists), r("y", Op::In(vals(&["a"])))]),
            ),
            ("x=a", Some(vec![r("x", Op::In(vals(&["a"])))])),
            ("x>1", Some(vec![r("x", Op::Gt(1))])),
            ("x<7", Some(vec![r("x", Op::Lt(7))])),
            (
                "x=a,y!=b",
                Some(vec![
                    r("x", Op::In(vals(&["a"]))),
                    r("y", Op::NotIn(vals(&["b"]))),
                ]),
            ),
            (
                "x=a,y!=b,z in (h,i,j)",
                Some(vec![
                    r("x", Op::In(vals(&["a"]))),
                    r("y", Op::NotIn(vals(&["b"]))),
                    r("z", Op::In(vals(&["h", "i", "j"]))),
                ]),
            ),
            ("x=a||y=b", None),
            ("x,,y", None),
            ("x,y", Some(vec![r("x", Op::Exists), r("y", Op::Exists)])),
            (",x,y", None),
            ("x nott in (y)", None),
            ("x notin ( )", Some(vec![r("x", Op::NotIn(vals(&[""])))])),
            (
                "x notin (, a)",
                Some(vec![r("x", Op::NotIn(vals(&["", "a"])))]),
            ),
            ("a in (xyz),", None),
            ("a in (xyz)b notin ()", None),
            ("a ", Some(vec![r("a", Op::Exists)])),
            (
                "a in (x,y,notin, z,in)",
                Some(vec![r("a", Op::In(vals(&["in", "notin", "x", "y", "z"])))]),
            ),
            ("a in (xyz abc)", None),
            ("a notin(", None),
            ("a (", None),
            ("(", None),
        ];
        for (input, want) in cases {
            let got = LabelSelector::parse(input);
            match want {
                Some(want) => {
                    let got = got.unwrap_or_else(|e| panic!("{input:?}: {e}"));
                    assert_eq!(sorted(got.requirements), sorted(want), "{input:?}");
                }
                None => assert!(got.is_err(), "{input:?} parsed as {got:?}"),
            }
        }
    }

    /// `TestSelectorMatches`.
    #[test]
    fn selector_matches_as_upstream_test_selector_matches() {
        let m = |sel: &str, l: &Labels| LabelSelector::parse(sel).expect(sel).matches(l);
        assert!(m("", &set(&[("x", "y")])));
        assert!(m("x=y", &set(&[("x", "y")])));
        assert!(m("x=y,z=w", &set(&[("x", "y"), ("z", "w")])));
        assert!(m("x!=y,z!=w", &set(&[("x", "z"), ("z", "a")])));
        assert!(m("notin=in", &set(&[("notin", "in")])));
        assert!(m("x", &set(&[("x", "z")])));
        assert!(m("!x", &set(&[("y", "z")])));
        assert!(m("x>1", &set(&[("x", "2")])));
        assert!(m("x<1", &set(&[("x", "0")])));
        assert!(!m("x=z", &set(&[])));
        assert!(!m("x=y", &set(&[("x", "z")])));
        assert!(!m("x=y,z=w", &set(&[("x", "w"), ("z", "w")])));
        assert!(!m("x!=y,z!=w", &set(&[("x", "z"), ("z", "w")])));
        assert!(!m("x", &set(&[("y", "z")])));
        assert!(!m("!x", &set(&[("x", "z")])));
        assert!(!m("x>1", &set(&[("x", "0")])));
        assert!(!m("x<1", &set(&[("x", "2")])));
        let l = set(&[("foo", "bar"), ("baz", "blah")]);
        assert!(m("foo=bar,baz=blah", &l));
        assert!(!m("foo=bar,foobar=bar,baz=blah", &l));
        // `x in ()` selects objects whose `x` is the empty value.
        assert!(m("x in ()", &set(&[("x", "")])));
        assert!(!m("x in ()", &set(&[("x", "a")])));
    }

    /// `TestLexer` and `TestLexerSequence`.
    #[test]
    fn lexer_as_upstream_test_lexer() {
        use parse::{Lexer, Token};
        for (s, want) in [
            ("", Token::EndOfString),
            (",", Token::Comma),
            ("notin", Token::NotIn),
            ("in", Token::In),
            ("=", Token::Equals),
            ("==", Token::DoubleEquals),
            (">", Token::GreaterThan),
            ("<", Token::LessThan),
            ("!", Token::DoesNotExist),
            ("!=", Token::NotEquals),
            ("(", Token::OpenPar),
            (")", Token::ClosedPar),
            ("~", Token::Identifier),
            ("||", Token::Identifier),
        ] {
            let (t, lit) = Lexer::new(s).lex();
            assert_eq!((t, lit.as_str()), (want, s), "{s:?}");
        }
        use Token::*;
        for (s, want) in [
            (
                "key in ( value )",
                vec![Identifier, In, OpenPar, Identifier, ClosedPar],
            ),
            ("!key", vec![DoesNotExist, Identifier]),
            (
                "x in (),y",
                vec![Identifier, In, OpenPar, ClosedPar, Comma, Identifier],
            ),
            (
                "== != (), = notin",
                vec![
                    DoubleEquals,
                    NotEquals,
                    OpenPar,
                    ClosedPar,
                    Comma,
                    Equals,
                    NotIn,
                ],
            ),
            ("key>2", vec![Identifier, GreaterThan, Identifier]),
            ("key<1", vec![Identifier, LessThan, Identifier]),
        ] {
            let mut l = Lexer::new(s);
            let mut got = Vec::new();
            loop {
                match l.lex().0 {
                    EndOfString => break,
                    t => got.push(t),
                }
            }
            assert_eq!(got, want, "{s:?}");
        }
    }

    /// `TestRequirementConstructor`'s key and value checks, and upstream's wording.
    #[test]
    fn selector_errors_use_upstream_words() {
        let err = |s: &str| LabelSelector::parse(s).expect_err(s);
        assert_eq!(err("a=b,,c=d"), "found ',', expected: identifier after ','");
        assert_eq!(err("a=b,"), "found '', expected: identifier after ','");
        assert_eq!(
            err("x==a==b"),
            "found '==', expected: ',' or 'end of string'"
        );
        assert_eq!(err("!x=a"), "found '=', expected: ',' or 'end of string'");
        assert!(err("x<a").contains("for 'Gt', 'Lt' operators, the value must be an integer"));
        assert!(err(&"a".repeat(254)).contains("must be no more than"));
        assert!(err("1foo=a b").contains("expected: ',' or 'end of string'"));
        assert!(
            err("x=a||y")
                .starts_with("unable to parse requirement: values[0][x]: Invalid value: \"a||y\": a valid label must be")
        );
        assert!(err("Bad_/x").contains("prefix part a lowercase RFC 1123 subdomain"));
        assert!(LabelSelector::parse("1foo=bar,1234=bar").is_ok());
    }

    #[test]
    fn pod_labels_answer_as_the_map_does() {
        let map = labels(&[
            ("batch.kubernetes.io/job-name", "run-0001"),
            ("app", "trainer"),
            ("z", ""),
            ("controller-uid", "9b0c"),
        ]);
        let packed = PodLabels::from_map(&map);
        assert_eq!(packed.len(), 4);
        for key in [
            "app",
            "z",
            "controller-uid",
            "batch.kubernetes.io/job-name",
            "",
            "b",
            "zz",
        ] {
            assert_eq!(packed.get(key), map.label(key), "{key}");
        }
        let pairs: Vec<(&str, &str)> = packed.iter().collect();
        let want: Vec<(&str, &str)> = map.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(pairs, want);
        let selector = LabelSelector::compile(&ApiLabelSelector {
            match_labels: Some(BTreeMap::from([("app".to_owned(), "trainer".to_owned())])),
            match_expressions: None,
        });
        assert!(selector.matches(&packed) && selector.matches(&map));
        // Equal labels are equal however they were given; a later value wins.
        assert_eq!(
            PodLabels::from_pairs([("b", "2"), ("a", "1"), ("b", "3")]),
            PodLabels::from_map(&labels(&[("a", "1"), ("b", "3")]))
        );
        assert_ne!(
            PodLabels::from_pairs([("ab", "c")]),
            PodLabels::from_pairs([("a", "bc")])
        );
        assert!(PodLabels::default().is_empty() && PodLabels::default().get("a").is_none());
    }

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn requirements_follow_upstream_semantics() {
        let l = labels(&[("zone", "a"), ("gen", "5")]);
        let r = |op: &str, vals: &[&str]| {
            Requirement::compile(
                "zone",
                op,
                Some(&vals.iter().map(|v| (*v).to_owned()).collect()),
            )
        };
        assert!(r("In", &["a", "b"]).matches(&l));
        assert!(!r("NotIn", &["a"]).matches(&l));
        assert!(Requirement::compile("missing", "NotIn", None).matches(&l));
        assert!(Requirement::compile("gen", "Gt", Some(&vec!["4".into()])).matches(&l));
        assert!(!Requirement::compile("gen", "Lt", Some(&vec!["4".into()])).matches(&l));
        assert!(!Requirement::compile("gen", "Gt", Some(&vec!["x".into()])).matches(&l));
        assert!(!Requirement::compile("zone", "Bogus", None).matches(&l));
    }

    #[test]
    fn empty_node_term_matches_nothing() {
        assert!(!NodeTerm::default().matches("n1", &labels(&[])));
        let t = NodeTerm {
            labels: vec![],
            fields: vec![Requirement {
                key: "metadata.name".into(),
                op: Op::In(vec!["n1".into()]),
            }],
        };
        assert!(t.matches("n1", &labels(&[])));
        assert!(!t.matches("n2", &labels(&[])));
    }

    #[test]
    fn tolerations_match_like_upstream() {
        let exists_all = Tol {
            key: String::new(),
            exists: true,
            value: String::new(),
            effect: String::new(),
        };
        assert!(exists_all.tolerates("any", "v", "NoSchedule"));
        let equal = Tol {
            key: "gpu".into(),
            exists: false,
            value: "true".into(),
            effect: "NoSchedule".into(),
        };
        assert!(equal.tolerates("gpu", "true", "NoSchedule"));
        assert!(!equal.tolerates("gpu", "false", "NoSchedule"));
        assert!(!equal.tolerates("gpu", "true", "NoExecute"));
        assert!(Tol::exists("gpu", "").tolerates("gpu", "x", "NoExecute"));
    }
}
