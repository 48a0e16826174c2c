//! The integrations as a user installs them: the GitHub Action downloads the archive
//! `packaging/release.sh` packs (one name, from `packaging/archive-name.sh`, in release.sh,
//! the krew manifest and the action), checks its checksum and lints; the k9s plugins validate
//! against k9s's plugin schema and clash with no k9s key; the pre-commit hooks run through
//! `pre-commit try-repo` on a sample repository.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{root, tool};

fn read_yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text(out: &Output) -> String {
    format!(
        "{}\n--- stdout ---\n{}--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `packaging/archive-name.sh VERSION OS ARCH`.
fn archive_name(version: &str, os: &str, arch: &str) -> String {
    let out = Command::new("sh")
        .arg(root().join("packaging/archive-name.sh"))
        .args([version, os, arch])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Packs a release of the built binary for the host (linux/amd64) into `dist`.
fn pack_release(dist: &Path) {
    let out = Command::new("bash")
        .arg(root().join("packaging/release.sh"))
        .arg("x86_64-unknown-linux-gnu")
        .current_dir(root())
        .env("DIST_DIR", dist)
        .env(
            "WASCTL_RELEASE_PREBUILT",
            env!("CARGO_BIN_EXE_kubectl-wasctl"),
        )
        .env(
            "WASCTL_RELEASE_URL",
            "https://github.com/wasctl/wasctl/releases/download/v0.1.0",
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "release.sh: {}", text(&out));
}

// ---------------------------------------------------------------------------------------------
// GitHub Action

/// The `run` script of the action's step `index`.
fn action_step(index: usize) -> String {
    let action = read_yaml(&root().join("plugins/github-action/action.yml"));
    action["runs"]["steps"][index]["run"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A fake `gh` that serves a release from `$FAKE_GH_DIST` and logs its arguments.
const FAKE_GH: &str = r#"#!/bin/sh
echo "$*" >>"$FAKE_GH_LOG"
case "$1 $2" in
    "release view") echo "$FAKE_GH_TAG" ;;
    "release download")
        shift 2
        dir=.
        while [ "$#" -gt 0 ]; do
            case $1 in
                --dir) dir=$2; shift 2 ;;
                --pattern)
                    [ -f "$FAKE_GH_DIST/$2" ] || { echo "no assets match $2" >&2; exit 1; }
                    cp "$FAKE_GH_DIST/$2" "$dir/"
                    shift 2 ;;
                *) shift ;;
            esac
        done ;;
    *) exit 1 ;;
esac
"#;

/// A runner's environment for the action's steps.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new(dist: &Path) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("gh"), FAKE_GH).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(bin.join("gh"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
        }
        std::fs::create_dir_all(dir.path().join("temp")).unwrap();
        std::fs::create_dir_all(dir.path().join("workspace")).unwrap();
        std::os::unix::fs::symlink(dist, dir.path().join("dist")).unwrap();
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs a step's script as GitHub does (`bash --noprofile --norc -eo pipefail`).
    fn run(&self, script: &str, env: &[(&str, &str)]) -> Output {
        let file = self.path("step.sh");
        std::fs::write(&file, script).unwrap();
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            self.path("bin").display(),
            self.path("temp/wasctl").display()
        );
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&file)
            .current_dir(self.path("workspace"))
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.dir.path())
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("RUNNER_TEMP", self.path("temp"))
            .env("GITHUB_PATH", self.path("github_path"))
            .env("GITHUB_OUTPUT", self.path("github_output"))
            .env("GITHUB_ACTION_PATH", root().join("plugins/github-action"))
            .env("GH_TOKEN", "test")
            .env("WASCTL_VERSION", "latest")
            .env("FAKE_GH_TAG", format!("v{}", env!("CARGO_PKG_VERSION")))
            .env("FAKE_GH_DIST", self.path("dist"))
            .env("FAKE_GH_LOG", self.path("gh.log"))
            .env("NO_COLOR", "1");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// The archive names the action asked `gh` for.
    fn requested(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.path("gh.log")).unwrap_or_default();
        let words: Vec<&str> = log.split_whitespace().collect();
        words
            .windows(2)
            .filter(|w| w[0] == "--pattern" && w[1] != "sha256sums.txt")
            .map(|w| w[1].to_owned())
            .collect()
    }
}

/// release.sh, the rendered krew manifest and the action name the same archive, for every
/// platform the action runs on; the action checks the checksum and installs a binary that runs.
#[test]
fn action_release_and_krew_agree_on_archive_names() {
    let version = env!("CARGO_PKG_VERSION");
    let dist = tempfile::tempdir().unwrap();
    pack_release(dist.path());
    let host = archive_name(version, "linux", "amd64");
    assert!(
        dist.path().join(&host).is_file(),
        "release.sh packed {host}"
    );
    let krew = read_yaml(&dist.path().join("krew-manifest.yaml"));
    let uri = krew["spec"]["platforms"][0]["uri"].as_str().unwrap();
    assert_eq!(
        uri,
        format!("https://github.com/wasctl/wasctl/releases/download/v{version}/{host}")
    );

    // On a Linux x64 runner the action downloads that archive, checks it, and installs it.
    let runner = Runner::new(dist.path());
    let out = runner.run(&action_step(0), &[]);
    assert!(out.status.success(), "install step: {}", text(&out));
    assert_eq!(runner.requested(), [host.clone()]);
    let github_path = std::fs::read_to_string(runner.path("github_path")).unwrap();
    let installed = PathBuf::from(github_path.trim()).join("kubectl-wasctl");
    assert!(installed.is_file(), "{github_path}");
    let output = std::fs::read_to_string(runner.path("github_output")).unwrap();
    assert!(output.contains(&format!("version=v{version}")), "{output}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(": OK"),
        "checksum verified: {}",
        text(&out)
    );

    // Every platform the action maps a runner to has the name archive-name.sh gives and a
    // platform in the committed krew manifest.
    let committed = read_yaml(&root().join("krew-manifest.yaml"));
    let krew_platforms: BTreeSet<(String, String)> = committed["spec"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let l = &p["selector"]["matchLabels"];
            (
                l["os"].as_str().unwrap().to_owned(),
                l["arch"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for (runner_os, runner_arch, os, arch) in [
        ("Linux", "X64", "linux", "amd64"),
        ("Linux", "ARM64", "linux", "arm64"),
        ("macOS", "X64", "darwin", "amd64"),
        ("macOS", "ARM64", "darwin", "arm64"),
    ] {
        let r = Runner::new(dist.path());
        let out = r.run(
            &action_step(0),
            &[("RUNNER_OS", runner_os), ("RUNNER_ARCH", runner_arch)],
        );
        let want = archive_name(version, os, arch);
        assert_eq!(r.requested(), [want.clone()], "{runner_os}/{runner_arch}");
        assert_eq!(
            out.status.success(),
            want == host,
            "only the packed archive is there: {}",
            text(&out)
        );
        assert!(
            krew_platforms.contains(&(os.to_owned(), arch.to_owned())),
            "krew-manifest.yaml has no {os}/{arch}"
        );
    }
    let r = Runner::new(dist.path());
    let out = r.run(&action_step(0), &[("RUNNER_OS", "Windows")]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("::error::"),
        "{}",
        text(&out)
    );
}

#[test]
fn action_rejects_an_archive_whose_checksum_differs() {
    let dist = tempfile::tempdir().unwrap();
    pack_release(dist.path());
    let sums = dist.path().join("sha256sums.txt");
    let tampered =
        std::fs::read_to_string(&sums)
            .unwrap()
            .replacen(|c: char| c.is_ascii_hexdigit(), "0", 8);
    std::fs::write(&sums, tampered).unwrap();
    let runner = Runner::new(dist.path());
    let out = runner.run(&action_step(0), &[]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(!runner.path("github_path").exists(), "nothing installed");
}

/// The lint step with its default paths on a repository with manifests, a package.json and a
/// workflow: only the manifest directories are linted, SARIF is written.
#[test]
fn action_lints_the_default_manifest_directories() {
    let dist = tempfile::tempdir().unwrap();
    pack_release(dist.path());
    let runner = Runner::new(dist.path());
    let out = runner.run(&action_step(0), &[]);
    assert!(out.status.success(), "install step: {}", text(&out));

    let ws = runner.path("workspace");
    std::fs::write(ws.join("package.json"), "{\"name\": \"app\"}\n").unwrap();
    std::fs::create_dir_all(ws.join(".github/workflows")).unwrap();
    std::fs::write(ws.join(".github/workflows/ci.yml"), "on: push\njobs: {}\n").unwrap();
    std::fs::create_dir_all(ws.join("deploy")).unwrap();
    std::fs::copy(
        root().join("testdata/manifests/lint/good/gang-training.yaml"),
        ws.join("deploy/gang-training.yaml"),
    )
    .unwrap();
    let lint = action_step(1);
    let env = [
        ("PATHS", ""),
        ("FAIL_ON", "warning"),
        ("ARGS", ""),
        ("SARIF", "wasctl-lint.sarif"),
    ];
    let out = runner.run(&lint, &env);
    assert!(out.status.success(), "lint step: {}", text(&out));
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("wasctl-lint.sarif")).unwrap())
            .unwrap();
    assert_eq!(sarif["version"], "2.1.0");

    // A finding fails the step and is annotated.
    std::fs::copy(
        root().join("testdata/manifests/lint/bad/WAS110-min-count-below-one.yaml"),
        ws.join("deploy/bad.yaml"),
    )
    .unwrap();
    let out = runner.run(&lint, &env);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("::error"),
        "{}",
        text(&out)
    );

    // No default directory: a clear error naming the input.
    std::fs::remove_dir_all(ws.join("deploy")).unwrap();
    let out = runner.run(&lint, &env);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("`paths`"),
        "{}",
        text(&out)
    );
}
