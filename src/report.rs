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
}
