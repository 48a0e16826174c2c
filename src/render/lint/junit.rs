//! JUnit XML: one `<testsuite>` per file, one `<testcase>` per linted object (named
//! `Kind namespace/name`), with a `<failure>` listing its findings at or above the failing
//! severity; lower findings go to `<system-out>`. Syntax errors are a testcase of their own.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::lint::{Finding, LintReport, ObjectId, Severity};

/// One testcase: the object, the line it starts on, its findings.
type Case<'a> = (ObjectId, usize, Vec<&'a Finding>);

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && !matches!(c, '\n' | '\t') => {
                out.push_str(&format!("\\u{{{:04x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

fn describe(f: &Finding) -> String {
    format!(
        "{}:{}:{}: {} {}: {} (fix: {})",
        f.file,
        f.line,
        f.column,
        f.rule,
        f.severity.as_str(),
        f.message,
        f.fix
    )
}

/// Writes `report` as JUnit XML; `fail_on` decides which findings are failures.
pub(crate) fn write(out: &mut dyn Write, report: &LintReport, fail_on: Severity) -> io::Result<()> {
    // file → (object → findings), in file order, objects in document order.
    let mut files: BTreeMap<&str, Vec<Case<'_>>> = BTreeMap::new();
    for o in &report.objects {
        let cases = files.entry(&o.file).or_default();
        if !cases
            .iter()
            .any(|(id, line, _)| *id == o.object && *line == o.line)
        {
            cases.push((o.object.clone(), o.line, Vec::new()));
        }
    }
    for f in &report.findings {
        let cases = files.entry(&f.file).or_default();
        // The object that starts last at or before the finding's line.
        let slot = cases
            .iter()
            .rposition(|(id, line, _)| *id == f.object && *line <= f.line)
            .or_else(|| cases.iter().position(|(id, _, _)| *id == f.object));
        match slot {
            Some(i) => cases[i].2.push(f),
            None => cases.push((f.object.clone(), f.line, vec![f])),
        }
    }
    let total: usize = files.values().map(Vec::len).sum();
    let failed = |fs: &[&Finding]| fs.iter().any(|f| f.severity >= fail_on);
    let failures: usize = files
        .values()
        .flatten()
        .filter(|(_, _, fs)| failed(fs))
        .count();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="wasctl lint" tests="{total}" failures="{failures}" errors="0">"#
    )?;
    for (file, cases) in &files {
        let suite_failures = cases.iter().filter(|(_, _, fs)| failed(fs)).count();
        writeln!(
            out,
            r#"  <testsuite name="{}" tests="{}" failures="{suite_failures}" errors="0">"#,
            xml(file),
            cases.len()
        )?;
        for (id, line, findings) in cases {
            let name = xml(&id.to_string());
            write!(
                out,
                r#"    <testcase name="{name}" classname="{}" file="{}" line="{line}""#,
                xml(file),
                xml(file)
            )?;
            if findings.is_empty() {
                writeln!(out, "/>")?;
                continue;
            }
            writeln!(out, ">")?;
            let (bad, other): (Vec<&Finding>, Vec<&Finding>) =
                findings.iter().partition(|f| f.severity >= fail_on);
            if !bad.is_empty() {
                let first = bad[0];
                writeln!(
                    out,
                    r#"      <failure message="{}" type="{}">{}</failure>"#,
                    xml(&format!("{} {}", first.rule, first.message)),
                    first.severity.as_str(),
                    xml(&bad
                        .iter()
                        .map(|f| describe(f))
                        .collect::<Vec<_>>()
                        .join("\n"))
                )?;
            }
            if !other.is_empty() {
                writeln!(
                    out,
                    "      <system-out>{}</system-out>",
                    xml(&other
                        .iter()
                        .map(|f| describe(f))
                        .collect::<Vec<_>>()
                        .join("\n"))
                )?;
            }
            writeln!(out, "    </testcase>")?;
        }
        writeln!(out, "  </testsuite>")?;
    }
    writeln!(out, "</testsuites>")
}

#[cfg(test)]
mod tests {
    use crate::lint::Severity;
    use crate::render::lint::fixture;

    #[test]
    fn output() {
        let mut out = Vec::new();
        super::write(&mut out, &fixture::report(), Severity::Warning).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }
}
