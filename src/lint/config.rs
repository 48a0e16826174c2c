//! `--config .wasctl.yaml`: which rules run and how severe they are.
//!
//! ```yaml
//! lint:
//!   targetVersion: "1.37"
//!   disable: [WAS403]          # codes or names
//!   enable: [WAS101, WAS3]     # when set, only these run (a code prefix selects a family)
//!   severity: {WAS301: error}
//! ```
//! Unknown keys and unknown codes are input errors, so a typo never silently disables nothing.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Rule, Severity, codes::ALL};

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigFile {
    /// The `lint:` section.
    #[serde(default)]
    pub lint: LintSection,
}

/// The `lint:` section of the config file; unknown keys are refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct LintSection {
    /// Kubernetes version (only `1.37`).
    pub target_version: Option<String>,
    /// Rules or code prefixes to run; all when empty.
    #[serde(default)]
    pub enable: Vec<String>,
    /// Rules or code prefixes not to run.
    #[serde(default)]
    pub disable: Vec<String>,
    /// Severity per rule (a code, a code prefix or a rule name), replacing its default.
    #[serde(default)]
    pub severity: BTreeMap<String, Severity>,
}

/// The resolved configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    disabled: Vec<Rule>,
    severities: BTreeMap<Rule, Severity>,
    /// `targetVersion` from the file, if set.
    pub target_version: Option<String>,
}

fn select(selector: &str) -> Result<Vec<Rule>, String> {
    if let Some(rule) = Rule::parse(selector) {
        return Ok(vec![rule]);
    }
    let upper = selector.to_ascii_uppercase();
    let rules: Vec<Rule> = ALL
        .iter()
        .copied()
        .filter(|r| upper.starts_with("WAS") && r.code().starts_with(&upper))
        .collect();
    if rules.is_empty() {
        Err(format!("unknown rule `{selector}`"))
    } else {
        Ok(rules)
    }
}

impl Config {
    /// Parses the YAML text of a config file.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let file: ConfigFile = if text.trim().is_empty() {
            ConfigFile::default()
        } else {
            serde_saphyr::from_str(text)
                .map_err(|e| e.to_string().lines().next().unwrap_or_default().to_owned())?
        };
        let section = file.lint;
        let mut config = Self {
            target_version: section.target_version,
            ..Self::default()
        };
        if !section.enable.is_empty() {
            let mut on = Vec::new();
            for s in &section.enable {
                on.extend(select(s)?);
            }
            config.disabled = ALL.iter().copied().filter(|r| !on.contains(r)).collect();
        }
        for s in &section.disable {
            config.disabled.extend(select(s)?);
        }
        for (s, severity) in section.severity {
            for rule in select(&s)? {
                config.severities.insert(rule, severity);
            }
        }
        Ok(config)
    }

    /// True when `rule` runs.
    pub(crate) fn enabled(&self, rule: Rule) -> bool {
        !self.disabled.contains(&rule)
    }

    /// The severity of `rule`: the config file's override, else the rule's default.
    pub(crate) fn severity(&self, rule: Rule) -> Severity {
        self.severities
            .get(&rule)
            .copied()
            .unwrap_or_else(|| rule.default_severity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enable_disable_and_severity() {
        let c = Config::parse(
            "lint:\n  enable: [WAS1, WAS301]\n  disable: [too-many-templates]\n  severity: {WAS301: error}\n",
        )
        .unwrap();
        assert!(c.enabled(Rule::InvalidObjectName));
        assert!(!c.enabled(Rule::TooManyTemplates));
        assert!(!c.enabled(Rule::RemovedApiVersion));
        assert_eq!(c.severity(Rule::MissingPodGroup), Severity::Error);
    }

    #[test]
    fn typos_are_errors() {
        assert!(Config::parse("lint:\n  disable: [WAS999]\n").is_err());
        assert!(Config::parse("lint:\n  disabled: [WAS101]\n").is_err());
    }
}
