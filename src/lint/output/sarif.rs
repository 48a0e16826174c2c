//! SARIF 2.1.0 for GitHub code scanning: one run, the rule table as `tool.driver.rules` (with
//! the full doc as `help.markdown`), one result per finding with a physical location.
//! Levels: error → `error`, warning → `warning`, info → `note`.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::lint::codes::ALL;
use crate::lint::{LintReport, Severity};

/// The SARIF schema the output follows.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The SARIF log as JSON.
pub fn to_value(report: &LintReport) -> Value {
    let rules: Vec<Value> = ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.code(),
                "name": r.name(),
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": r.summary()},
                "help": {"text": r.summary(), "markdown": r.doc()},
                "helpUri": format!("https://github.com/wasctl/wasctl#{}", r.code().to_ascii_lowercase()),
                "defaultConfiguration": {"level": level(r.default_severity())},
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let index = ALL.iter().position(|r| r.code() == f.rule).unwrap_or(0);
            let mut message = format!("{}: {}", f.object, f.message);
            if !f.fix.is_empty() {
                message.push_str(&format!("\nFix: {}", f.fix));
            }
            json!({
                "ruleId": f.rule,
                "ruleIndex": index,
                "level": level(f.severity),
                "message": {"text": message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.file.trim_start_matches("./")},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    },
                    "logicalLocations": [{
                        "name": f.object.name,
                        "fullyQualifiedName": f.object.to_string(),
                        "kind": "object",
                    }],
                }],
                "partialFingerprints": {
                    "wasctl/v1": format!("{}:{}:{}", f.rule, f.object, f.message),
                },
            })
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "wasctl",
                "informationUri": "https://github.com/wasctl/wasctl",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    })
}

/// Writes `report` as SARIF 2.1.0.
pub fn write(out: &mut dyn Write, report: &LintReport) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &to_value(report)).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use crate::lint::output::fixture;

    #[test]
    fn output() {
        let mut value = super::to_value(&fixture::report());
        // The rule table is long and covered by `--list-rules`; keep the results in view.
        value["runs"][0]["tool"]["driver"]["rules"] = serde_json::json!("<rules>");
        value["runs"][0]["tool"]["driver"]["semanticVersion"] = serde_json::json!("<version>");
        insta::assert_snapshot!(serde_json::to_string_pretty(&value).unwrap());
    }
}
