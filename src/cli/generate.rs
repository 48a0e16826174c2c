//! `kubectl wasctl generate` (hidden): writes the shipped files derived from the clap
//! definitions, or with `--check` compares them with the committed copies (style §3.5 item 7,
//! uv's `generate_json_schema.rs` `Mode::{Write, Check}`).
//!
//! - `generate completions`: bash, zsh, fish, PowerShell and elvish scripts from clap_complete
//!   in `completions/kubectl-wasctl.{bash,zsh,fish,ps1,elv}`, plus `completions/kubectl_complete-wasctl`,
//!   the helper kubectl runs for `kubectl wasctl <TAB>`;
//! - `generate man`: the roff man page `packaging/kubectl-wasctl.1` from clap_mangen;
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
use clap_complete::Shell;

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
    /// The man page `kubectl-wasctl.1`.
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
    /// Directory to write to or check (default: `completions` or `packaging`).
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
        GenerateCommand::Man(o) => ("man", "packaging", o, man()?),
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
/// subcommands (clap_complete would otherwise complete `generate` itself).
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
    let shells = [
        (Shell::Bash, "bash"),
        (Shell::Zsh, "zsh"),
        (Shell::Fish, "fish"),
        (Shell::PowerShell, "ps1"),
        (Shell::Elvish, "elv"),
    ];
    let mut files = Vec::new();
    for (shell, ext) in shells {
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut command(), BIN, &mut buf);
        files.push(Generated {
            name: format!("{BIN}.{ext}"),
            contents: buf,
            executable: false,
        });
    }
    files.push(Generated {
        name: "kubectl_complete-wasctl".to_owned(),
        contents: kubectl_helper().into_bytes(),
        executable: true,
    });
    Ok(files)
}

fn man() -> Result<Vec<Generated>, Error> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(command()).render(&mut buf)?;
    Ok(vec![Generated {
        name: format!("{BIN}.1"),
        contents: buf,
        executable: false,
    }])
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

/// Long and short spellings of the visible flags of `cmd`, and the subset that take a value.
fn flags(cmd: &clap::Command, global_only: bool) -> (Vec<String>, Vec<String>) {
    let mut all = Vec::new();
    let mut with_value = Vec::new();
    for arg in cmd.get_arguments() {
        if arg.is_hide_set() || arg.is_positional() || (global_only && !arg.is_global_set()) {
            continue;
        }
        let takes_value = arg.get_action().takes_values();
        let mut names: Vec<String> = Vec::new();
        if let Some(long) = arg.get_long() {
            names.push(format!("--{long}"));
        }
        if let Some(short) = arg.get_short() {
            names.push(format!("-{short}"));
        }
        for n in names {
            if takes_value {
                with_value.push(n.clone());
            }
            all.push(n);
        }
    }
    (all, with_value)
}

/// The possible values of the value-taking flags of `cmd` that have a fixed set, as
/// `(flag spelling, values)`; without the global flags (propagated from the top level) when
/// `own_only`.
fn flag_values(cmd: &clap::Command, own_only: bool) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for arg in cmd.get_arguments() {
        if arg.is_hide_set()
            || arg.is_positional()
            || !arg.get_action().takes_values()
            || (own_only && arg.is_global_set())
        {
            continue;
        }
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        if values.is_empty() {
            continue;
        }
        let spellings = arg
            .get_long()
            .map(|l| format!("--{l}"))
            .into_iter()
            .chain(arg.get_short().map(|s| format!("-{s}")));
        for s in spellings {
            out.push((s, values.clone()));
        }
    }
    out
}

/// `kubectl_complete-wasctl`: kubectl (≥ 1.26) runs it as `kubectl_complete-wasctl WORDS…
/// CURRENT` for `kubectl wasctl <TAB>` and reads one candidate per line, then `:DIRECTIVE`
/// (cobra's `ShellCompDirective`: 0 default, 4 no file completion). The stable clap_complete
/// API has no dynamic completion (it is behind `unstable-dynamic`), so the helper carries the
/// subcommand and flag names from the clap definitions and answers from them, in POSIX sh;
/// object names (`tree TYPE/NAME`, `--only`, `--drain`/`--cordon`/`--like` nodes) come from
/// the hidden `kubectl-wasctl complete-names`, which reads the same source as the command.
fn kubectl_helper() -> String {
    let mut cmd = command();
    cmd.build();
    let subcommands: Vec<&clap::Command> =
        cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    let (root_flags, mut value_flags) = flags(&cmd, false);
    // `--help` is on every subcommand; `--version` only on the top level.
    let (mut global, _) = flags(&cmd, true);
    global.extend(["--help".to_owned(), "-h".to_owned()]);
    let root_only: Vec<String> = root_flags
        .into_iter()
        .filter(|f| !global.contains(f))
        .collect();
    let mut values = flag_values(&cmd, false);

    let mut s = String::new();
    s.push_str(
        "#!/bin/sh\n\
         # kubectl_complete-wasctl: completion of `kubectl wasctl <TAB>` through kubectl's plugin\n\
         # completion (kubectl >= 1.26). Put it on PATH next to kubectl-wasctl.\n\
         # kubectl runs `kubectl_complete-wasctl WORDS... CURRENT` and reads one candidate per\n\
         # line, then `:DIRECTIVE` (cobra's ShellCompDirective: 0 default, 4 no file completion).\n\
         #\n\
         # Generated by `kubectl-wasctl generate completions`; do not edit.\n\
         set -eu\n\n",
    );
    let names: Vec<&str> = subcommands.iter().map(|c| c.get_name()).collect();
    let _ = writeln!(s, "subcommands='{}'", names.join(" "));
    let _ = writeln!(s, "global_flags='{}'", global.join(" "));
    s.push_str("\n# flags_for SUBCOMMAND: its own flags (the top level's when empty).\n");
    s.push_str("flags_for() {\n    case $1 in\n");
    let _ = writeln!(s, "        '') echo '{}' ;;", root_only.join(" "));
    for sub in &subcommands {
        let (own, own_value) = flags(sub, false);
        value_flags.extend(own_value);
        values.extend(
            flag_values(sub, true)
                .into_iter()
                .map(|(f, v)| (format!("{}:{f}", sub.get_name()), v)),
        );
        let own: Vec<String> = own.into_iter().filter(|f| !global.contains(f)).collect();
        let _ = writeln!(s, "        {}) echo '{}' ;;", sub.get_name(), own.join(" "));
    }
    s.push_str("        *) echo '' ;;\n    esac\n}\n\n");
    value_flags.sort();
    value_flags.dedup();
    let _ = writeln!(s, "value_flags=' {} '", value_flags.join(" "));
    s.push_str(
        "\n# values_for SUBCOMMAND FLAG: the fixed values of a flag, if it has them.\n\
         values_for() {\n    case $1:$2 in\n",
    );
    for (flag, vals) in &values {
        // Global flags apply under every subcommand; subcommand flags carry their prefix.
        let pattern = if flag.contains(':') {
            flag.clone()
        } else {
            format!("*:{flag}")
        };
        let _ = writeln!(s, "        {pattern}) echo '{}' ;;", vals.join(" "));
    }
    s.push_str("        *) echo '' ;;\n    esac\n}\n");
    s.push_str(
        r#"
cur=''
prev=''
sub=''
n=$#
i=0
demo=''
from=''
kubeconfig=''
context=''
namespace=''
all_namespaces=''
for word in "$@"; do
    i=$((i + 1))
    if [ "$i" -eq "$n" ]; then
        cur=$word
        break
    fi
    # Remember the source flags, so names come from the same source the command will read.
    case $prev in
        --from) from=$word ;;
        --kubeconfig) kubeconfig=$word ;;
        --context) context=$word ;;
        -n | --namespace) namespace=$word ;;
    esac
    case $word in
        --demo) demo=1 ;;
        -A | --all-namespaces) all_namespaces=1 ;;
        --from=*) from=${word#--from=} ;;
        --kubeconfig=*) kubeconfig=${word#--kubeconfig=} ;;
        --context=*) context=${word#--context=} ;;
        --namespace=*) namespace=${word#--namespace=} ;;
    esac
    case $word in
        -*) ;;
        *)
            # A word after a value-taking flag is that flag's value, not a subcommand.
            case $value_flags in *" $prev "*) word='' ;; esac
            if [ -z "$sub" ] && [ -n "$word" ]; then
                for s in $subcommands; do
                    if [ "$word" = "$s" ]; then sub=$s; fi
                done
            fi
            ;;
    esac
    prev=$word
    case $prev in '') prev=x ;; esac
done

emit() {
    for candidate in $1; do
        case $candidate in "$cur"*) printf '%s\n' "$candidate" ;; esac
    done
}

# names KIND: object names from the current source (`targets`: TYPE/NAME, `nodes`: node names),
# asked of kubectl-wasctl itself; nothing when it is not on PATH or the source cannot be read.
names() {
    command -v kubectl-wasctl >/dev/null 2>&1 || return 0
    set -- complete-names "$1" "$cur"
    if [ -n "$demo" ]; then set -- "$@" --demo; fi
    if [ -n "$from" ]; then set -- "$@" --from "$from"; fi
    if [ -n "$kubeconfig" ]; then set -- "$@" --kubeconfig "$kubeconfig"; fi
    if [ -n "$context" ]; then set -- "$@" --context "$context"; fi
    if [ -n "$namespace" ]; then set -- "$@" --namespace "$namespace"; fi
    if [ -n "$all_namespaces" ]; then set -- "$@" --all-namespaces; fi
    kubectl-wasctl "$@" 2>/dev/null || true
}

# A TYPE/NAME (or a type prefix such as `pg/`, which must not get a trailing space).
complete_targets() {
    out=$(names targets)
    if [ -n "$out" ]; then printf '%s\n' "$out"; fi
    case $cur in */*) echo ':4' ;; *) echo ':6' ;; esac
    exit 0
}

case $prev in
    --only) complete_targets ;;
    --drain | --cordon | --like)
        out=$(names nodes)
        if [ -n "$out" ]; then printf '%s\n' "$out"; fi
        echo ':4'
        exit 0
        ;;
esac

case $value_flags in
    *" $prev "*)
        vals=$(values_for "$sub" "$prev")
        if [ -n "$vals" ]; then
            emit "$vals"
            echo ':4'
        else
            # A file, a name or a context: let the shell complete files.
            echo ':0'
        fi
        exit 0
        ;;
esac

case $cur in
    -*) emit "$(flags_for "$sub") $global_flags" ;;
    *)
        if [ -z "$sub" ]; then
            emit "$subcommands"
        elif [ "$sub" = tree ]; then
            complete_targets
        fi
        ;;
esac
echo ':4'
"#,
    );
    s
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
    std::fs::write(path, &f.contents).map_err(fail)?;
    #[cfg(unix)]
    if f.executable {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(fail)?;
    }
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
