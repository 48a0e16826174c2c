//! GitHub Actions workflow commands: one `::error|warning|notice file=…,line=…,col=…,title=…::…`
//! annotation per finding (ruff_db `render/github.rs`). Property values and messages are
//! escaped as the runner requires (`%`, CR, LF; and `:`/`,` in properties).

use std::io::{self, Write};

use crate::lint::{LintReport, Severity};

/// The runner's escapes, then every other control character made visible (`\x1b`), so a
/// name or message cannot write raw escape sequences into the job log.
fn escape_data(s: &str) -> String {
    let escaped = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    crate::sanitize::sanitize(&escaped).into_owned()
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Writes one annotation per finding.
pub(crate) fn write(out: &mut dyn Write, report: &LintReport) -> io::Result<()> {
    for f in &report.findings {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut message = format!("{}: {}", f.object, f.message);
        if !f.fix.is_empty() {
            message.push_str(&format!(" (fix: {})", f.fix));
        }
        writeln!(
            out,
            "::{level} file={},line={},col={},title={}::{}",
            escape_property(&f.file),
            f.line,
            f.column,
            escape_property(&format!(
                "{} {}",
                f.rule,
                crate::lint::Rule::parse(f.rule).map_or("", |r| r.name())
            )),
            escape_data(&message)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::render::lint::fixture;

    #[test]
    fn output() {
        let mut out = Vec::new();
        super::write(&mut out, &fixture::report()).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }

    #[test]
    fn escapes_newlines_and_separators() {
        assert_eq!(super::escape_data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(super::escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
