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
    assert_eq!(runner.requested(), std::slice::from_ref(&host));
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
        assert_eq!(
            r.requested(),
            std::slice::from_ref(&want),
            "{runner_os}/{runner_arch}"
        );
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

// ---------------------------------------------------------------------------------------------
// k9s plugins

/// Keys k9s itself binds in the views of wasctl's scopes (k9s's internal/view: the table and
/// browser bind Shift-N/Shift-A sorts, the pod view its sorts, Shift-F port-forward and Shift-J
/// owner jump, the namespace view Shift-S). A plugin on one of these would need `override`.
fn k9s_builtin_keys(scope: &str) -> Vec<&'static str> {
    let mut keys = vec!["Shift-N", "Shift-A", "Shift-J"];
    match scope {
        "pods" => keys.extend([
            "Shift-R", "Shift-T", "Shift-S", "Shift-I", "Shift-O", "Shift-C", "Shift-M", "Shift-X",
            "Shift-Z", "Shift-F",
        ]),
        "namespaces" => keys.push("Shift-S"),
        _ => {}
    }
    keys
}

/// The plural resource names k9s lists these kinds under (its scope names).
const K9S_SCOPES: &[&str] = &[
    "podgroups",
    "compositepodgroups",
    "pods",
    "jobs",
    "resourceclaims",
    "namespaces",
];

#[test]
fn k9s_plugins_follow_k9s_schema_and_keys() {
    let plugins = read_yaml(&root().join("plugins/k9s/plugins.yaml"));
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("testdata/k9s/plugins.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&plugins)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "plugins.yaml: {errors:#?}");
    // The schema catches what k9s would reject.
    let mut broken = plugins.clone();
    broken["plugins"]["wasctl-tree-pod"]
        .as_object_mut()
        .unwrap()
        .remove("shortCut");
    assert!(!validator.is_valid(&broken));

    let mut keys_in_scope: BTreeSet<(String, String)> = BTreeSet::new();
    let mut covered: BTreeSet<(String, String)> = BTreeSet::new();
    for (name, p) in plugins["plugins"].as_object().unwrap() {
        let key = p["shortCut"].as_str().unwrap();
        assert_ne!(p["override"], true, "{name} overrides a k9s key");
        assert_eq!(
            p["background"], false,
            "{name}: output is shown, in a pager"
        );
        let script = p["args"][1].as_str().unwrap();
        // Reports go through a pager; the TUI takes the terminal itself.
        let tui = script.starts_with("kubectl wasctl tui ");
        assert!(tui || script.ends_with("| less -RK"), "{name}: {script}");
        for scope in p["scopes"].as_array().unwrap() {
            let scope = scope.as_str().unwrap();
            assert!(K9S_SCOPES.contains(&scope), "{name}: scope `{scope}`");
            assert!(
                !k9s_builtin_keys(scope).contains(&key),
                "{name}: {key} is k9s's own key in the {scope} view"
            );
            assert!(
                keys_in_scope.insert((scope.to_owned(), key.to_owned())),
                "{name}: two plugins on {key} in {scope}"
            );
            let command = script.split_whitespace().nth(2).unwrap_or_default();
            covered.insert((command.to_owned(), scope.to_owned()));
        }
    }
    for want in [
        ("explain", "podgroups"),
        ("explain", "pods"),
        ("tree", "podgroups"),
        ("tree", "pods"),
        ("tree", "resourceclaims"),
        ("doctor", "namespaces"),
        ("tui", "podgroups"),
        ("tui", "pods"),
    ] {
        assert!(
            covered.contains(&(want.0.to_owned(), want.1.to_owned())),
            "no `{}` on {}",
            want.0,
            want.1
        );
    }
}

/// Each plugin's command line, with k9s's variables set to a demo object, runs and shows it
/// (a stand-in kubectl adds `--demo`, a stand-in less prints).
#[test]
fn k9s_plugin_commands_run() {
    let plugins = read_yaml(&root().join("plugins/k9s/plugins.yaml"));
    let bin = tempfile::tempdir().unwrap();
    let write = |name: &str, body: &str| {
        let path = bin.path().join(name);
        std::fs::write(&path, body).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write(
        "kubectl",
        "#!/bin/sh\n[ \"$1\" = wasctl ] || exit 9\nshift\nexec kubectl-wasctl \"$@\" --demo\n",
    );
    write("less", "#!/bin/sh\n[ \"$1\" = -RK ] || exit 9\nexec cat\n");
    let exe_dir = Path::new(env!("CARGO_BIN_EXE_kubectl-wasctl"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}:/usr/bin:/bin",
        bin.path().display(),
        exe_dir.display()
    );
    let samples = [
        ("podgroups", "big-train-workers", "ml"),
        ("compositepodgroups", "pipeline", "ml"),
        ("pods", "big-train-0", "ml"),
        ("jobs", "big-train", "ml"),
        ("resourceclaims", "pipeline-decode-kv-x7k2p", "ml"),
        ("namespaces", "ml", ""),
    ];
    for (name, p) in plugins["plugins"].as_object().unwrap() {
        assert_eq!(p["command"], "sh", "{name}");
        assert_eq!(p["args"][0], "-c", "{name}");
        let scope = p["scopes"][0].as_str().unwrap();
        let (_, object, namespace) = samples.iter().find(|s| s.0 == scope).unwrap();
        // k9s substitutes its variables in the arguments before running them.
        let script = p["args"][1]
            .as_str()
            .unwrap()
            .replace("$NAMESPACE", namespace)
            .replace("$NAME", object)
            .replace("$CONTEXT", "kind-test");
        let out = Command::new("sh")
            .args(["-c", &script])
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        if script.contains("wasctl tui ") {
            // Without a terminal the TUI refuses after parsing its arguments and loading the
            // selection (a bad flag or object would fail earlier, with another message).
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("needs a terminal"),
                "{name}: `{script}`: {}",
                text(&out)
            );
            continue;
        }
        assert!(out.status.success(), "{name}: `{script}`: {}", text(&out));
        // The pipe hides wasctl's exit status: its errors start a line with `error:`.
        assert!(
            !stdout.trim().is_empty()
                && !stdout
                    .lines()
                    .any(|l| l.to_ascii_lowercase().starts_with("error:")),
            "{name}: `{script}`: {}",
            text(&out)
        );
        if scope != "pods" {
            // A pod is explained through its gang; the others name themselves.
            assert!(stdout.contains(object), "{name}: {}", text(&out));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// pre-commit

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
}

/// `pre-commit try-repo` with the hooks on a sample repository: the manifest is linted, the
/// package.json, workflow and compose files are not passed to lint; a bad manifest fails.
#[test]
fn pre_commit_hook_lints_manifests_only() {
    let pre_commit = tool("pre-commit");
    let hooks = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join(".pre-commit-hooks.yaml"),
        hooks.path().join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    git(hooks.path(), &["init", "-q"]);
    git(hooks.path(), &["add", "."]);
    git(hooks.path(), &["commit", "-q", "-m", "hooks"]);

    let repo = tempfile::tempdir().unwrap();
    let r = repo.path();
    std::fs::create_dir_all(r.join("deploy")).unwrap();
    std::fs::copy(
        root().join("testdata/manifests/lint/good/gang-training.yaml"),
        r.join("deploy/gang-training.yaml"),
    )
    .unwrap();
    std::fs::write(
        r.join("package.json"),
        "{\"name\": \"app\", \"version\": \"1.0.0\"}\n",
    )
    .unwrap();
    std::fs::write(r.join("package-lock.json"), "{\"lockfileVersion\": 3}\n").unwrap();
    std::fs::create_dir_all(r.join(".github/workflows")).unwrap();
    std::fs::write(r.join(".github/workflows/ci.yml"), "on: push\njobs: {}\n").unwrap();
    std::fs::write(
        r.join("docker-compose.yml"),
        "services:\n  web:\n    image: nginx\n",
    )
    .unwrap();
    git(r, &["init", "-q"]);
    git(r, &["add", "."]);

    let exe_dir = Path::new(env!("CARGO_BIN_EXE_kubectl-wasctl"))
        .parent()
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let try_repo = |hook: &str| {
        Command::new(&pre_commit)
            .arg("try-repo")
            .arg(hooks.path())
            .args([hook, "--all-files", "--verbose", "--color", "never"])
            .current_dir(r)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    exe_dir.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("HOME", home.path())
            .env("PRE_COMMIT_HOME", home.path().join("pre-commit"))
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .output()
            .unwrap()
    };
    let out = try_repo("wasctl-lint-system");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        stdout.contains("in 1 file(s), no findings"),
        "only the manifest is linted: {}",
        text(&out)
    );

    std::fs::copy(
        root().join("testdata/manifests/lint/bad/WAS110-min-count-below-one.yaml"),
        r.join("deploy/bad.yaml"),
    )
    .unwrap();
    git(r, &["add", "."]);
    let out = try_repo("wasctl-lint-system");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("WAS110"), "{}", text(&out));
    assert!(!stdout.contains("package.json"), "{}", text(&out));

    // Both hooks select the same files.
    let defs = read_yaml(&root().join(".pre-commit-hooks.yaml"));
    let defs = defs.as_array().unwrap();
    for key in ["types_or", "exclude", "files"] {
        assert_eq!(defs[0][key], defs[1][key], "{key}");
    }
}
