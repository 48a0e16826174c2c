//! Shell completion as a user meets it: `kubectl wasctl completion SHELL` prints the committed
//! scripts; a real bash and zsh (driven through tmux, the keys a user types) and fish complete
//! subcommands, flags, flag values and object names, through `kubectl-wasctl` and through
//! `kubectl wasctl` (kubectl 1.37's `__complete` protocol and `kubectl_complete-wasctl`).
//! The shells, tmux and kubectl come from `cargo xtask setup`; a missing one fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{root, run, tool};

/// `PATH` with the built binary, the kubectl helper and the set-up kubectl first.
fn test_path() -> String {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kubectl-wasctl"))
        .parent()
        .unwrap()
        .to_owned();
    let kubectl_dir = tool("kubectl").parent().unwrap().to_owned();
    std::env::join_paths([
        bin_dir,
        root().join("completions"),
        kubectl_dir,
        PathBuf::from("/usr/local/bin"),
        PathBuf::from("/usr/bin"),
        PathBuf::from("/bin"),
    ])
    .unwrap()
    .into_string()
    .unwrap()
}

fn lines(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn completion_prints_the_committed_scripts() {
    for (shell, file) in [
        ("bash", "kubectl-wasctl.bash"),
        ("zsh", "_kubectl-wasctl"),
        ("fish", "kubectl-wasctl.fish"),
        ("powershell", "kubectl-wasctl.ps1"),
        ("kubectl", "kubectl_complete-wasctl"),
    ] {
        let r = run(&["completion", shell]);
        assert_eq!(r.code, 0, "{}", r.transcript());
        let committed = std::fs::read_to_string(root().join("completions").join(file)).unwrap();
        assert_eq!(r.stdout, committed, "`completion {shell}` is {file}");
    }
    let r = run(&["completion", "tcsh"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
}

#[test]
fn hidden_commands_are_not_offered() {
    let help = run(&["--help"]);
    assert!(!help.stdout.contains("generate"), "{}", help.stdout);
    assert!(!help.stdout.contains("__complete"), "{}", help.stdout);
    assert!(help.stdout.contains("completion"), "{}", help.stdout);
    let r = run(&["__complete", "--", ""]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(!r.stdout.contains("generate"), "{}", r.stdout);
    assert!(!r.stdout.contains("__complete"), "{}", r.stdout);
    assert!(r.stdout.ends_with("help\n:4\n"), "{}", r.stdout);
}

/// The helper, run as kubectl runs it: `kubectl_complete-wasctl WORDS… CURRENT`.
#[test]
fn kubectl_helper_answers_in_cobras_protocol() {
    let helper = |words: &[&str]| {
        let out = Command::new("sh")
            .arg(root().join("completions/kubectl_complete-wasctl"))
            .args(words)
            .env("PATH", test_path())
            .env_remove("KUBECONFIG")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        lines(&out)
    };
    assert_eq!(helper(&["sn"]), ["snapshot", ":4"]);
    assert_eq!(helper(&["-n", "ml", "tr"]), ["tree", ":4"]);
    assert_eq!(
        helper(&["tree", "-o", ""]),
        [
            "text",
            "wide",
            "name",
            "json",
            "yaml",
            "jsonpath=",
            "jsonpath-file=",
            "custom-columns=",
            "custom-columns-file=",
            ":4"
        ]
    );
    assert_eq!(
        helper(&["tree", "--demo", "pg/big"]),
        ["pg/big-train-workers", ":4"]
    );
    assert_eq!(
        helper(&["--demo", "-n", "research", "tree", "pod/"]),
        [
            "pod/infer-a-0",
            "pod/infer-a-1",
            "pod/infer-b-0",
            "pod/infer-b-1",
            ":4"
        ],
        "-n limits the names"
    );
    assert_eq!(
        helper(&[
            "simulate",
            "--from",
            "testdata/clusters/demo.yaml",
            "--only",
            "cpg/p"
        ]),
        ["cpg/pipeline", ":4"]
    );
    assert_eq!(
        helper(&["--kubeconfig", ""]),
        [":0"],
        "file names are the shell's job"
    );
    // Without the binary on PATH the helper offers nothing instead of failing.
    let out = Command::new("sh")
        .arg(root().join("completions/kubectl_complete-wasctl"))
        .arg("")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(lines(&out), [":4"]);
}

/// kubectl 1.37 itself: `kubectl __complete wasctl …` finds the helper on PATH.
#[test]
fn kubectl_completes_the_plugin_through_the_helper() {
    let kubectl = tool("kubectl");
    let home = tempfile::tempdir().unwrap();
    let complete = |words: &[&str]| {
        let out = Command::new(&kubectl)
            .arg("__complete")
            .arg("wasctl")
            .args(words)
            .env("PATH", test_path())
            .env("HOME", home.path())
            .env_remove("KUBECONFIG")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            stderr.contains("kubectl_complete-wasctl"),
            "kubectl did not call the helper (kubectl >= 1.26 needed):\n{stderr}"
        );
        lines(&out)
    };
    assert_eq!(complete(&["ver"]), ["version", ":4"]);
    assert_eq!(
        complete(&["tree", "--demo", "pg/big"]),
        ["pg/big-train-workers", ":4"]
    );
    assert_eq!(complete(&["lint", "--fail-on", "w"]), ["warning", ":4"]);
}

/// fish's own completion engine (`complete -C`), after sourcing both scripts.
#[test]
fn fish_completes_through_both_commands() {
    let fish = tool("fish");
    let home = tempfile::tempdir().unwrap();
    let complete = |line: &str| {
        let script = format!(
            "kubectl-wasctl completion fish | source; kubectl completion fish | source; complete -C'{line}'"
        );
        let out = Command::new(&fish)
            .args(["--no-config", "-c", &script])
            .env("PATH", test_path())
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path())
            .env("XDG_DATA_HOME", home.path())
            .env_remove("KUBECONFIG")
            .current_dir(root())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        // fish prints `candidate<TAB>description`.
        lines(&out)
            .into_iter()
            .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
            .collect::<Vec<String>>()
    };
    assert_eq!(complete("kubectl-wasctl sn"), ["snapshot"]);
    assert_eq!(complete("kubectl-wasctl tree --dem"), ["--demo"]);
    assert_eq!(complete("kubectl-wasctl tree -o y"), ["yaml"]);
    assert_eq!(
        complete("kubectl-wasctl tree --demo pg/big"),
        ["pg/big-train-workers"]
    );
    assert_eq!(
        complete("kubectl-wasctl simulate --demo --only ")
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>(),
        ["cpg/", "pg/", "pod/"].map(str::to_owned).into(),
    );
    assert_eq!(
        complete("kubectl wasctl tree --demo pg/big"),
        ["pg/big-train-workers"]
    );
    assert_eq!(complete("kubectl wasctl sn"), ["snapshot"]);
}

/// An interactive shell in a private tmux server: keys in, screen out.
struct Tmux {
    dir: tempfile::TempDir,
    socket: PathBuf,
    tmux: PathBuf,
}

impl Tmux {
    /// Starts `shell_cmd` (run by sh; `{dir}` is the session's directory) in a 160x40 window,
    /// with `rc` written to `{dir}/rc` and `{dir}/.zshrc`, and waits for its `$ ` prompt.
    fn start(shell_cmd: &str, rc: &str) -> Self {
        let tmux = tool("tmux");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("rc"), rc).unwrap();
        std::fs::write(dir.path().join(".zshrc"), rc).unwrap();
        let socket = dir.path().join("tmux.sock");
        let status = Command::new(&tmux)
            .arg("-S")
            .arg(&socket)
            .args([
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "160",
                "-y",
                "40",
            ])
            .arg(shell_cmd.replace("{dir}", &dir.path().display().to_string()))
            .current_dir(root())
            .env("PATH", test_path())
            .env("HOME", dir.path())
            .env("ZDOTDIR", dir.path())
            .env("TERM", "xterm")
            .env_remove("KUBECONFIG")
            .env_remove("TMUX")
            .status()
            .unwrap();
        assert!(status.success(), "tmux new-session failed");
        let t = Self { dir, socket, tmux };
        t.wait_for_prompt_line("$", "the shell's first prompt");
        t
    }

    fn tmux(&self) -> Command {
        let mut c = Command::new(&self.tmux);
        c.arg("-S").arg(&self.socket);
        c
    }

    fn screen(&self) -> String {
        let out = self.tmux().args(["capture-pane", "-p"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The last line that starts with the prompt, without trailing blanks.
    fn prompt_line(&self) -> String {
        self.screen()
            .lines()
            .rfind(|l| l.starts_with('$'))
            .unwrap_or_default()
            .trim_end()
            .to_owned()
    }

    /// Waits (up to a minute: builds and shells are slow on a busy machine) until the last
    /// prompt line is `want`.
    fn wait_for_prompt_line(&self, want: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if self.prompt_line() == want {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "{what}: expected the prompt line `{want}`, the screen is:\n{}",
            self.screen()
        );
    }

    /// Types `line`, presses Tab, and expects the line to become `want`.
    fn tab(&self, line: &str, want: &str) {
        let status = self
            .tmux()
            .args(["send-keys", "-l", line])
            .status()
            .unwrap();
        assert!(status.success());
        let status = self.tmux().args(["send-keys", "Tab"]).status().unwrap();
        assert!(status.success());
        self.wait_for_prompt_line(&format!("$ {want}"), &format!("`{line}<TAB>`"));
        // An empty line for the next case: keys (not a signal), so they wait for the
        // completion function to finish.
        let status = self
            .tmux()
            .args(["send-keys", "C-e", "C-u"])
            .status()
            .unwrap();
        assert!(status.success());
        self.wait_for_prompt_line("$", "the prompt after C-u");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").status();
        let _ = &self.dir;
    }
}

/// The cases every interactive shell must complete, as (typed, line after Tab).
const CASES: &[(&str, &str)] = &[
    ("kubectl-wasctl sna", "kubectl-wasctl snapshot"),
    ("kubectl-wasctl tree --dem", "kubectl-wasctl tree --demo"),
    ("kubectl-wasctl tree -o ya", "kubectl-wasctl tree -o yaml"),
    (
        "kubectl-wasctl doctor --fail-on w",
        "kubectl-wasctl doctor --fail-on warning",
    ),
    (
        "kubectl-wasctl tree --demo pg/big",
        "kubectl-wasctl tree --demo pg/big-train-workers",
    ),
    (
        "kubectl-wasctl simulate --demo --only=cpg/p",
        "kubectl-wasctl simulate --demo --only=cpg/pipeline",
    ),
    (
        "kubectl-wasctl simulate --demo --drain cp",
        "kubectl-wasctl simulate --demo --drain cp-1",
    ),
    ("kubectl wasctl sna", "kubectl wasctl snapshot"),
    (
        "kubectl wasctl tree --demo pg/big",
        "kubectl wasctl tree --demo pg/big-train-workers",
    ),
];

#[test]
fn bash_completes_through_both_commands() {
    let bash = tool("bash");
    let bash_completion = Path::new("/usr/share/bash-completion/bash_completion");
    assert!(
        bash_completion.is_file(),
        "kubectl's bash completion needs bash-completion: run `cargo xtask setup`"
    );
    let rc = format!(
        "PS1='$ '\nsource {}\nsource <(kubectl-wasctl completion bash)\nsource <(kubectl completion bash)\n",
        bash_completion.display()
    );
    let t = Tmux::start(&format!("{} --rcfile {{dir}}/rc -i", bash.display()), &rc);
    for (typed, want) in CASES {
        t.tab(typed, want);
    }
}

#[test]
fn zsh_completes_through_both_commands() {
    let zsh = tool("zsh");
    let rc = "PS1='$ '\nautoload -Uz compinit && compinit -u\nsource <(kubectl-wasctl completion zsh)\nsource <(kubectl completion zsh)\n";
    let t = Tmux::start(&format!("{} -i", zsh.display()), rc);
    for (typed, want) in CASES {
        t.tab(typed, want);
    }
}

/// `tree` completes Kueue's types and names (issue 49 item 2); commands that do not take them
/// do not offer them.
#[test]
fn tree_completes_kueue_types_and_names() {
    let complete = |words: &[&str]| {
        let mut all = vec!["__complete", "--"];
        all.extend_from_slice(words);
        run(&all).stdout
    };
    let dump = "testdata/dumps/kueue-get-list.yaml";
    let types = complete(&["tree", ""]);
    for t in ["kwl/", "cq/", "lq/"] {
        assert!(types.lines().any(|l| l == t), "{t}:\n{types}");
    }
    let capacity = complete(&["capacity", ""]);
    assert!(!capacity.lines().any(|l| l == "cq/"), "{capacity}");
    let cqs = complete(&["tree", "--from", dump, "-n", "ml", "cq/"]);
    assert!(cqs.starts_with("cq/team-a\ncq/team-b\n"), "{cqs}");
    let lqs = complete(&["tree", "--from", dump, "-n", "ml", "lq/"]);
    assert!(lqs.starts_with("lq/user-queue\n"), "{lqs}");
    let kwls = complete(&["tree", "--from", dump, "-A", "kwl/job-p"]);
    assert!(kwls.starts_with("kwl/job-pretrain-8f2c1\n"), "{kwls}");
}
