//! Compiled label selectors, node selector terms and tolerations: matched in hot loops
//! without touching k8s-openapi structs.
//!
//! Upstream: `k8s.io/apimachinery/pkg/labels`, `k8s.io/component-helpers/scheduling/corev1`
//! (node affinity), `k8s.io/api/core/v1/toleration.go` (`ToleratesTaint`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiLabelSelector;

/// Labels of an object.
pub type Labels = BTreeMap<String, String>;

/// What a selector reads from an object's labels: the value of one key.
pub trait LabelLookup {
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
    pub fn from_map(map: &Labels) -> Self {
        Self::from_sorted(map.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// Labels from (key, value) pairs in any order; a repeated key keeps its last value.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
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
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
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
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No labels.
    pub fn is_empty(&self) -> bool {
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
    pub fn get(&self, key: &str) -> Option<&str> {
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
    fn compile(key: &str, operator: &str, values: Option<&Vec<String>>) -> Self {
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
    pub fn matches_value(&self, value: Option<&str>) -> bool {
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
    pub fn matches(&self, labels: &(impl LabelLookup + ?Sized)) -> bool {
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
    pub fn compile(s: &ApiLabelSelector) -> Self {
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

    /// Parses kubectl's `-l/--selector` syntax: requirements separated by commas, each
    /// `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key` or
    /// `!key` (k8s.io/apimachinery `labels.Parse`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut depth = 0usize;
        let mut start = 0;
        for (i, c) in text.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    parts.push(&text[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&text[start..]);
        let mut requirements = Vec::new();
        for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
            let set = |rest: &str| -> Result<Vec<String>, String> {
                let inner = rest
                    .trim()
                    .strip_prefix('(')
                    .and_then(|r| r.strip_suffix(')'))
                    .ok_or_else(|| format!("`{part}`: expected a set like `(a,b)`"))?;
                Ok(inner
                    .split(',')
                    .map(|v| v.trim().to_owned())
                    .filter(|v| !v.is_empty())
                    .collect())
            };
            let (key, op) = if let Some(key) = part.strip_prefix('!') {
                (key.trim(), Op::DoesNotExist)
            } else if let Some((k, v)) = part.split_once("!=") {
                (k.trim(), Op::NotIn(vec![v.trim().to_owned()]))
            } else if let Some((k, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                (k.trim(), Op::In(vec![v.trim().to_owned()]))
            } else if let Some((k, rest)) = part.split_once(" notin ") {
                (k.trim(), Op::NotIn(set(rest)?))
            } else if let Some((k, rest)) = part.split_once(" in ") {
                (k.trim(), Op::In(set(rest)?))
            } else {
                (part, Op::Exists)
            };
            let valid = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
            if !valid {
                return Err(format!("`{part}` is not a label requirement"));
            }
            requirements.push(Requirement {
                key: key.to_owned(),
                op,
            });
        }
        Ok(Self { requirements })
    }

    /// Adds `key In [value]` (matchLabelKeys).
    pub fn with_equal(mut self, key: &str, value: &str) -> Self {
        self.requirements.push(Requirement {
            key: key.to_owned(),
            op: Op::In(vec![value.to_owned()]),
        });
        self
    }

    /// Whether `labels` match.
    pub fn matches(&self, labels: &(impl LabelLookup + ?Sized)) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
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
    pub fn compile(t: &NodeSelectorTerm) -> Self {
        let req = |r: &NodeSelectorRequirement| {
            Requirement::compile(&r.key, &r.operator, r.values.as_ref())
        };
        Self {
            labels: t.match_expressions.iter().flatten().map(req).collect(),
            fields: t.match_fields.iter().flatten().map(req).collect(),
        }
    }

    /// Whether a node matches. Upstream: an empty term matches no objects.
    pub fn matches(&self, node_name: &str, labels: &Labels) -> bool {
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
    pub fn compile(t: &Toleration) -> Self {
        Self {
            key: t.key.clone().unwrap_or_default(),
            exists: t.operator.as_deref() == Some("Exists"),
            value: t.value.clone().unwrap_or_default(),
            effect: t.effect.clone().unwrap_or_default(),
        }
    }

    /// A toleration for `key:effect` with operator Exists.
    pub fn exists(key: &str, effect: &str) -> Self {
        Self {
            key: key.to_owned(),
            exists: true,
            value: String::new(),
            effect: effect.to_owned(),
        }
    }

    /// Upstream `Toleration.ToleratesTaint`.
    pub fn tolerates(&self, key: &str, value: &str, effect: &str) -> bool {
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
    pub fn compile(t: &Taint) -> Self {
        Self {
            key: t.key.clone(),
            value: t.value.clone().unwrap_or_default(),
            effect: t.effect.clone(),
        }
    }

    /// Whether any of `tolerations` tolerates this taint.
    pub fn tolerated_by(&self, tolerations: &[Tol]) -> bool {
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
