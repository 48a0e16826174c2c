//! `kubectl wasctl generate` (hidden): writes the shipped files derived from the clap
//! definitions, or with `--check` compares them with the committed copies (style §3.5 item 7,
//! uv's `generate_json_schema.rs` `Mode::{Write, Check}`).
//!
//! - `generate completions`: the bash, zsh, fish and PowerShell scripts that
//!   `kubectl wasctl completion SHELL` prints, in `completions/`, plus
//!   `completions/kubectl_complete-wasctl`, the helper kubectl runs for `kubectl wasctl <TAB>`;
//! - `generate man`: the roff man pages `packaging/man/kubectl-wasctl.1` and one per subcommand
//!   (`kubectl-wasctl-explain.1`, …), from clap_mangen plus EXAMPLES, EXIT STATUS, ENVIRONMENT;
//! - `generate schemas`: the JSON Schemas of the kinds `lint` checks, `schemas/*.json`, from the
//!   k8s-openapi `v1_37` types (`crate::lint::schema::KINDS`), plus `schemas/index.json` and
//!   the lint rules page `schemas/rules.md` (SARIF `helpUri`s point at its headings).
//!
//! Paths are relative to the working directory (run it from the repository root) unless `--dir`
//! says otherwise. The output must not depend on the build (commit, date) or on the terminal, or
//! the drift check would fail on every commit; the version shown is the crate version alone.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, Subcommand};

use super::complete::Shell;
use super::{Cli, Context};
use crate::error::{Error, ExitStatus};

/// The name the generated files complete and document: the plugin binary on `PATH`.
const BIN: &str = "kubectl-wasctl";

/// `generate` flags.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to generate.
    #[command(subcommand)]
    pub what: GenerateCommand,
}

/// What `generate` writes.
#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Shell completions (bash, zsh, fish, PowerShell, elvish) and kubectl's completion helper.
    Completions(GenerateOptions),
    /// The man pages `kubectl-wasctl.1` and `kubectl-wasctl-SUBCOMMAND.1`.
    Man(GenerateOptions),
    /// JSON Schemas of the kinds `lint` checks (`schemas/`).
    Schemas(GenerateOptions),
}

/// Flags shared by the `generate` subcommands.
#[derive(Debug, Args)]
pub struct GenerateOptions {
    /// Compare with the files on disk instead of writing; exit 1 when one differs.
    #[arg(long)]
    pub check: bool,
    /// Directory to write to or check (default: `completions`, `packaging/man` or `schemas`).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// One generated file: its name inside the directory, its contents, whether it is executable.
struct Generated {
    name: String,
    contents: Vec<u8>,
    executable: bool,
}

pub(crate) fn run(ctx: &Context, args: &GenerateArgs) -> Result<ExitStatus, Error> {
    let (subcommand, default_dir, options, files) = match &args.what {
        GenerateCommand::Completions(o) => ("completions", "completions", o, completions()?),
        GenerateCommand::Man(o) => ("man", "packaging/man", o, man()?),
        GenerateCommand::Schemas(o) => ("schemas", "schemas", o, schemas()?),
    };
    let dir = options
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(default_dir));
    let mut regenerate = format!("cargo run --locked -- generate {subcommand}");
    if let Some(d) = &options.dir {
        let _ = write!(regenerate, " --dir {}", d.display());
    }
    if options.check {
        check(&dir, &files, &regenerate)
    } else {
        let mut out = String::new();
        for f in &files {
            let path = dir.join(&f.name);
            write_file(&path, f)?;
            let _ = writeln!(out, "wrote {}", path.display());
        }
        ctx.stdout(out.as_bytes())?;
        Ok(ExitStatus::Success)
    }
}

/// The clap command as the generated files see it: named after the binary, with the crate
/// version alone (no commit), so the files change only when the CLI does, and without hidden
/// subcommands (the completion engine would otherwise offer `generate` itself).
fn command() -> clap::Command {
    let cli = Cli::command();
    let mut cmd = clap::Command::new(BIN)
        .bin_name(BIN)
        .version(env!("CARGO_PKG_VERSION"))
        .args(cli.get_arguments().cloned())
        .subcommands(cli.get_subcommands().filter(|s| !s.is_hide_set()).cloned())
        .subcommand_required(cli.is_subcommand_required_set())
        .max_term_width(100);
    if let Some(about) = cli.get_about() {
        cmd = cmd.about(about.clone());
    }
    if let Some(after) = cli.get_after_help() {
        cmd = cmd.after_help(after.clone());
    }
    cmd
}

fn completions() -> Result<Vec<Generated>, Error> {
    Ok(Shell::ALL
        .iter()
        .map(|shell| Generated {
            name: shell.file_name().to_owned(),
            contents: shell.script().as_bytes().to_vec(),
            executable: *shell == Shell::Kubectl,
        })
        .collect())
}

/// One man page per visible subcommand (`kubectl-wasctl-explain.1`, …) and the top page
/// `kubectl-wasctl.1` that lists them, each with EXAMPLES, EXIT STATUS and ENVIRONMENT.
fn man() -> Result<Vec<Generated>, Error> {
    // Built, so each subcommand's synopsis reads `kubectl wasctl SUBCOMMAND`.
    let mut top = command().bin_name("kubectl wasctl");
    top.build();
    let subs: Vec<&clap::Command> = top
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .collect();
    let pages: Vec<String> = subs
        .iter()
        .map(|s| format!("{BIN}-{}(1)", s.get_name()))
        .collect();
    let mut files = vec![man_page(&top, None, &pages)?];
    for sub in subs {
        files.push(man_page(sub, Some(sub.get_name()), &[format!("{BIN}(1)")])?);
    }
    Ok(files)
}

/// The page of `cmd`: the top page when `sub` is `None`.
fn man_page(
    cmd: &clap::Command,
    sub: Option<&str>,
    see_also: &[String],
) -> Result<Generated, Error> {
    let page_name = match sub {
        Some(s) => format!("{BIN}-{s}"),
        None => BIN.to_owned(),
    };
    let page = cmd
        .clone()
        .display_name(page_name.clone())
        .version(env!("CARGO_PKG_VERSION"));
    let man = clap_mangen::Man::new(page)
        .title(page_name.to_uppercase())
        .section("1")
        .source(format!("wasctl {}", env!("CARGO_PKG_VERSION")))
        .manual("kubectl plugins");
    let mut buf = Vec::new();
    man.render_title(&mut buf)?;
    man.render_name_section(&mut buf)?;
    man.render_synopsis_section(&mut buf)?;
    man.render_description_section(&mut buf)?;
    man.render_options_section(&mut buf)?;
    if sub.is_none() {
        man.render_subcommands_section(&mut buf)?;
    }
    let mut text = String::from_utf8(buf).map_err(std::io::Error::other)?;
    text.push_str(&man_sections(sub, see_also));
    let mut out = Vec::new();
    man.render_version_section(&mut out)?;
    text.push_str(&String::from_utf8(out).map_err(std::io::Error::other)?);
    Ok(Generated {
        name: format!("{page_name}.1"),
        contents: without_backticks(&text).into_bytes(),
        executable: false,
    })
}

/// Examples of each page, as `(what it does, command line)`; the command lines parse (a test
/// checks them), up to a shell redirection or pipe. A subcommand's examples are the ones its
/// `--help` prints (one source): `# what` lines, each followed by its command lines.
pub(crate) fn examples(sub: Option<&str>) -> Vec<(String, String)> {
    let fixed: &[(&str, &str)] = match sub {
        None => &[
            (
                "Try wasctl on the embedded demo cluster:",
                "kubectl wasctl simulate --demo",
            ),
            (
                "Show every gang of the current context with its status:",
                "kubectl wasctl tree -A",
            ),
            (
                "Say why a PodGroup is pending:",
                "kubectl wasctl explain pg/big-train-workers -n ml",
            ),
        ],
        Some("completion") => &[
            (
                "Complete kubectl-wasctl in the current bash:",
                "source <(kubectl wasctl completion bash)",
            ),
            (
                "Install the fish completion:",
                "kubectl wasctl completion fish > ~/.config/fish/completions/kubectl-wasctl.fish",
            ),
            (
                "Let kubectl complete kubectl wasctl (kubectl 1.26 or later):",
                "kubectl wasctl completion kubectl > ~/.local/bin/kubectl_complete-wasctl",
            ),
        ],
        Some(name) => {
            let help = Cli::command()
                .find_subcommand(name)
                .and_then(|c| c.get_after_help().map(ToString::to_string))
                .unwrap_or_default();
            return examples_in_help(&help);
        }
    };
    fixed
        .iter()
        .map(|(what, line)| ((*what).to_owned(), (*line).to_owned()))
        .collect()
}

/// The `(what, command line)` pairs of an `Examples:` block of a `--help` text; a command
/// line after the first under one `# what` has an empty `what`.
fn examples_in_help(help: &str) -> Vec<(String, String)> {
    let Some((_, block)) = help.split_once("Examples:") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut what: Option<String> = None;
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(comment) = line.strip_prefix('#') {
            what = Some(comment.trim().to_owned());
        } else {
            out.push((what.take().unwrap_or_default(), line.to_owned()));
        }
    }
    out
}

/// Escapes text for a roff line.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// EXAMPLES, EXIT STATUS, ENVIRONMENT and SEE ALSO.
fn man_sections(sub: Option<&str>, see_also: &[String]) -> String {
    let mut s = String::from(".SH EXAMPLES\n");
    for (what, line) in examples(sub) {
        if !what.is_empty() {
            let _ = write!(s, ".PP\n{}\n", roff(&what));
        }
        let _ = write!(s, ".PP\n.RS 4\n.nf\n\\fB{}\\fR\n.fi\n.RE\n", roff(&line));
    }
    let findings = match sub {
        Some("explain") => {
            "With \\fB\\-\\-exit\\-code\\fR: the target is not schedulable (Waiting, Unschedulable, Preempting, Error or Suspended)."
        }
        Some("doctor") => "A finding at or above \\fB\\-\\-fail\\-on\\fR (default: error).",
        Some("lint") => "A finding at or above \\fB\\-\\-fail\\-on\\fR (default: warning).",
        Some(_) => "Not used by this command.",
        None => {
            "Findings at or above the failing severity (doctor, lint), or an unschedulable target (explain \\fB\\-\\-exit\\-code\\fR)."
        }
    };
    let _ = write!(
        s,
        ".SH \"EXIT STATUS\"\n\
         .TP\n\\fB0\\fR\nSuccess.\n\
         .TP\n\\fB1\\fR\n{findings}\n\
         .TP\n\\fB2\\fR\nBad usage or bad input: flags, files or manifests (the message names the file, line and field).\n\
         .TP\n\\fB3\\fR\nThe cluster could not be reached or read.\n"
    );
    s.push_str(
        ".SH ENVIRONMENT\n\
         .TP\n\\fBKUBECONFIG\\fR\nColon\\-separated kubeconfig files, as for kubectl; \\fB\\-\\-kubeconfig\\fR wins over it.\n\
         .TP\n\\fBHOME\\fR\nWithout \\fBKUBECONFIG\\fR, the kubeconfig is \\fI~/.kube/config\\fR.\n\
         .TP\n\\fBNO_COLOR\\fR\nWhen set and not empty, no colors (unless \\fB\\-\\-color always\\fR).\n",
    );
    s.push_str(".SH \"SEE ALSO\"\n");
    let mut pages = see_also.to_vec();
    pages.push("kubectl(1)".to_owned());
    let _ = writeln!(s, "{}", roff(&pages.join(", ")));
    s
}

/// Turns each `code` span into bold (man pages show no literal backticks) and other characters
/// than ASCII into roff's `\[uXXXX]` escapes.
fn without_backticks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut open = false;
    for ch in text.chars() {
        if ch == '`' {
            out.push_str(if open { "\\fR" } else { "\\fB" });
            open = !open;
        } else {
            if ch == '\n' && open {
                // An unbalanced backtick: close the span at the end of its line.
                out.push_str("\\fR");
                open = false;
            }
            if ch.is_ascii() {
                out.push(ch);
            } else {
                // Plain ASCII roff: any troff reads it without a preprocessor.
                let _ = write!(out, "\\[u{:04X}]", u32::from(ch));
            }
        }
    }
    out
}

fn schemas() -> Result<Vec<Generated>, Error> {
    use crate::lint::schema::KINDS;
    let json = |value: &serde_json::Value| -> Result<Vec<u8>, Error> {
        let mut text = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
        text.push(b'\n');
        Ok(text)
    };
    let mut files = Vec::new();
    let mut index = Vec::new();
    for kind in KINDS {
        files.push(Generated {
            name: kind.file.to_owned(),
            contents: json(&(kind.schema)())?,
            executable: false,
        });
        index.push(serde_json::json!({
            "apiVersion": kind.api_version,
            "kind": kind.kind,
            "schema": kind.file,
        }));
    }
    files.push(Generated {
        name: "rules.md".to_owned(),
        contents: crate::lint::codes::rules_page().into_bytes(),
        executable: false,
    });
    files.push(Generated {
        name: "index.json".to_owned(),
        contents: json(&serde_json::json!({
            "kubernetes": crate::lint::TARGET_VERSION,
            "generator": "kubectl wasctl generate schemas (k8s-openapi v1_37, schemars)",
            "schemas": index,
        }))?,
        executable: false,
    });
    Ok(files)
}

fn write_file(path: &Path, f: &Generated) -> Result<(), Error> {
    let fail = |e: std::io::Error| {
        Error::usage(
            format!("cannot write `{}`: {e}", path.display()),
            "check the directory is writable, or pass `--dir DIR`",
        )
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    let mode = f.executable.then_some(0o755);
    super::output_file::write_file(path, mode, |out| out.write_all(&f.contents))?;
    Ok(())
}

/// Compares every generated file with the one on disk; prints each drift with its first
/// differing line and the command that regenerates it.
fn check(dir: &Path, files: &[Generated], regenerate: &str) -> Result<ExitStatus, Error> {
    let mut report = String::new();
    for f in files {
        let path = dir.join(&f.name);
        match std::fs::read(&path) {
            Ok(on_disk) if on_disk == f.contents => {}
            Ok(on_disk) => {
                let _ = writeln!(
                    report,
                    "error: `{}` differs from the generated file",
                    path.display()
                );
                report.push_str(&first_difference(&on_disk, &f.contents));
            }
            Err(e) => {
                let _ = writeln!(report, "error: `{}` cannot be read: {e}", path.display());
            }
        }
    }
    if report.is_empty() {
        return Ok(ExitStatus::Success);
    }
    let _ = writeln!(report, "\nhint: regenerate with `{regenerate}`");
    let _ = std::io::stderr().lock().write_all(report.as_bytes());
    Ok(ExitStatus::Findings)
}

/// The first line where `committed` and `generated` differ, as a two-line diff.
fn first_difference(committed: &[u8], generated: &[u8]) -> String {
    let old = String::from_utf8_lossy(committed);
    let new = String::from_utf8_lossy(generated);
    let mut old_lines = old.lines();
    let mut new_lines = new.lines();
    let mut line = 1;
    loop {
        match (old_lines.next(), new_lines.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (None, None) => return "  (line endings differ)\n".to_owned(),
            (a, b) => {
                return format!(
                    "  line {line}:\n  - {}\n  + {}\n",
                    a.unwrap_or("(end of file)"),
                    b.unwrap_or("(end of file)")
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;

    /// Every example on the man pages parses, up to a shell redirection or pipe.
    #[test]
    fn man_page_examples_parse() {
        let mut pages = vec![None];
        pages.extend(
            command()
                .get_subcommands()
                .filter(|s| !s.is_hide_set())
                .map(|s| Some(s.get_name().to_owned())),
        );
        for page in pages {
            let examples = examples(page.as_deref());
            assert!(!examples.is_empty(), "{page:?} has no examples");
            for (_, line) in examples {
                let line = line.trim_start_matches("source <(").trim_end_matches(')');
                // The wasctl part of a pipeline, up to a redirection.
                let words: Vec<&str> = line
                    .split('|')
                    .find(|part| part.trim_start().starts_with("kubectl wasctl"))
                    .unwrap_or(line)
                    .split('>')
                    .next()
                    .unwrap_or_default()
                    .split_whitespace()
                    .collect();
                assert_eq!(&words[..2], ["kubectl", "wasctl"], "{line}");
                let argv = std::iter::once("kubectl-wasctl").chain(words[2..].iter().copied());
                if let Err(e) = Cli::try_parse_from(argv) {
                    panic!("`{line}` does not parse: {e}");
                }
            }
        }
    }

    #[test]
    fn man_pages_have_the_sections_and_no_backticks() {
        let files = man().unwrap();
        assert!(files.len() >= 9, "{}", files.len());
        for f in &files {
            let text = String::from_utf8(f.contents.clone()).unwrap();
            for section in [
                ".SH EXAMPLES",
                ".SH \"EXIT STATUS\"",
                ".SH ENVIRONMENT",
                ".SH OPTIONS",
            ] {
                assert!(text.contains(section), "{} lacks {section}", f.name);
            }
            assert!(!text.contains('`'), "{} has a backtick", f.name);
        }
        let top = String::from_utf8(files[0].contents.clone()).unwrap();
        for f in &files[1..] {
            let page = f.name.trim_end_matches(".1");
            assert!(top.contains(&roff(page)), "the top page names {page}");
        }
    }

    #[test]
    fn backticks_become_bold() {
        assert_eq!(without_backticks("a `b` c"), "a \\fBb\\fR c");
        assert_eq!(without_backticks("a `b\nc"), "a \\fBb\\fR\nc");
        assert_eq!(without_backticks("x…"), "x\\[u2026]");
    }
}
