//! The vocabulary every report shares: how bad a finding is ([`Severity`]), for doctor, lint
//! and explain alike (`-o json` spells it `error`, `warning` or `info` in all three).
//!
//! A leaf module: it imports nothing from the crate (docs/development.md, "Layers").

use serde::{Deserialize, Serialize};

/// How bad a finding is. Ordered `Info < Warning < Error`, so the worst of a list is its
/// maximum; a list shown worst first sorts by `Reverse(severity)`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing: nothing is broken.
    #[value(help = "Worth knowing; never fails CI unless `--fail-on info`")]
    Info,
    /// Will break or mislead: accepted today, but it will not behave as intended.
    #[value(help = "Probably wrong: the object is accepted but will not behave as intended")]
    Warning,
    /// Broken now: the API server rejects it, it blocks scheduling, or it can never work.
    #[value(help = "The API server rejects it, or it can never work")]
    Error,
}

impl Severity {
    /// `error`, `warning` or `info`, as the JSON spells it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

/// Causes listed per change at most (`--watch`); the rest are counted.
pub(crate) const MAX_CAUSES: usize = 5;

/// One object whose result changed while a command follows the cluster (`--watch` of
/// `tree`, `doctor` and `explain`; `kind: WatchEvent` in `-o json`, docs/json.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ObjectChange {
    /// What changed, one documented word per command (`StatusChanged`, `FindingAppeared`,
    /// `VerdictChanged`, ...).
    #[serde(rename = "type")]
    pub change: &'static str,
    /// The object.
    pub object: ObjectName,
    /// Before, in the command's words (`Absent` when the object or finding was not there).
    pub before: String,
    /// After, in the same words.
    pub after: String,
    /// A doctor finding's check (`WASD012`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// A message after the change (a finding's), when there is one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The cluster's changes since the previous result, those naming the object first
    /// ([`ordered_causes`]).
    pub causes: Vec<String>,
}

#[cfg(test)]
impl ObjectChange {
    /// `(type, object name, before, after)`: what the watch tests compare.
    pub(crate) fn summary(&self) -> (&str, &str, &str, &str) {
        (self.change, &self.object.name, &self.before, &self.after)
    }
}

/// An object named in an [`ObjectChange`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct ObjectName {
    /// Its kind (`PodGroup`, `Pod`, ...).
    pub kind: String,
    /// Its namespace (empty for a cluster-scoped object).
    pub namespace: String,
    /// Its name.
    pub name: String,
}

impl ObjectName {
    /// `namespace/name`, or `name` for a cluster-scoped object: how watch events name it.
    pub(crate) fn path(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

/// True when the event's words name `object` (`ns/name` or a node's name) as a whole word.
pub(crate) fn names_object(event: &str, object: &str) -> bool {
    event
        .split(' ')
        .any(|word| word == object || word.trim_end_matches([',', ':', ';']) == object)
}

/// `events` (the cluster's changes, in the order they came) as one change's causes: those
/// that name one of `names` first, at most [`MAX_CAUSES`], then a count of the rest.
pub(crate) fn ordered_causes(events: &[String], names: &[String]) -> Vec<String> {
    let (mut own, others): (Vec<&String>, Vec<&String>) = events
        .iter()
        .partition(|e| names.iter().any(|n| names_object(e, n)));
    own.extend(others);
    let mut causes: Vec<String> = own.into_iter().take(MAX_CAUSES).cloned().collect();
    if events.len() > MAX_CAUSES {
        causes.push(format!(
            "… and {} more change(s)",
            events.len() - MAX_CAUSES
        ));
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_is_the_greatest_and_json_spells_it_in_lowercase() {
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
        for s in [Severity::Info, Severity::Warning, Severity::Error] {
            assert_eq!(
                serde_json::to_string(&s).expect("serializes"),
                format!("\"{}\"", s.as_str())
            );
        }
    }

    #[test]
    fn causes_naming_the_object_come_first_and_the_rest_are_counted() {
        let mut events: Vec<String> = (0..6).map(|i| format!("pod ml/x-{i} deleted")).collect();
        events.push("node n1 cordoned".to_owned());
        let got = ordered_causes(&events, &["n1".to_owned()]);
        assert_eq!(got[0], "node n1 cordoned");
        assert_eq!(got.len(), MAX_CAUSES + 1);
        assert_eq!(got[MAX_CAUSES], "… and 2 more change(s)");
        assert!(names_object("pod ml/w deleted", "ml/w"));
        assert!(!names_object("pod ml/w-2 deleted", "ml/w"));
        assert_eq!(ordered_causes(&events[..2], &[]), events[..2]);
        let o = ObjectName {
            kind: "Node".into(),
            namespace: String::new(),
            name: "n1".into(),
        };
        assert_eq!(o.path(), "n1");
    }
}
