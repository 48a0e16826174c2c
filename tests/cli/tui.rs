//! `tui` in a real terminal: tmux runs `kubectl-wasctl tui --demo` in a detached session of its
//! own (a private socket, no user config); the test sends keys, reads the pane, and checks the
//! screens, the exit status, and that the terminal is back in its normal state afterwards
//! (line discipline, main screen, visible cursor, no mouse reporting).
//!
//! tmux is a required test tool (Debian package `tmux`): without it this test fails, it does
//! not skip.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use super::support::root;

struct Tmux {
    socket: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmux {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("tmux.sock");
        let probe = Command::new("tmux").arg("-V").output();
        assert!(
            probe.as_ref().is_ok_and(|o| o.status.success()),
            "tmux is required for the TUI's real-terminal test: install it (`apt-get install tmux`); \
             this test fails rather than skip ({probe:?})"
        );
        Self { socket, _dir: dir }
    }

    fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .unwrap()
    }

    /// Starts `script` under `sh -c` in a detached 140×40 session named `tui`, in the
    /// repository root, with `NO_COLOR=1` and an xterm `TERM`.
    fn start(&self, script: &str) {
        let out = self.cmd(&[
            "new-session",
            "-d",
            "-s",
            "tui",
            "-x",
            "140",
            "-y",
            "40",
            "-c",
            &root().display().to_string(),
            "env",
            "NO_COLOR=1",
            "TERM=xterm-256color",
            "sh",
            "-c",
            script,
        ]);
        assert!(out.status.success(), "new-session: {out:?}");
    }

    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "tui"]).stdout).into_owned()
    }

    fn show(&self, format: &str) -> String {
        String::from_utf8_lossy(
            &self
                .cmd(&["display-message", "-p", "-t", "tui", format])
                .stdout,
        )
        .trim()
        .to_owned()
    }

    fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "tui"];
        args.extend_from_slice(keys);
        let out = self.cmd(&args);
        assert!(out.status.success(), "send-keys: {out:?}");
    }

    /// Waits (bounded) until the pane shows every one of `needles`; returns the pane.
    fn wait_for(&self, needles: &[&str]) -> String {
        self.wait_until(
            |pane| needles.iter().all(|n| pane.contains(n)),
            &format!("the pane showed {needles:?}"),
        )
    }

    /// Waits (bounded) until `done` holds for the pane; returns the pane.
    fn wait_until(&self, done: impl Fn(&str) -> bool, what: &str) -> String {
        let start = Instant::now();
        loop {
            let pane = self.capture();
            if done(&pane) {
                return pane;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "never: {what}; the pane shows:\n{pane}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

#[test]
fn tui_demo_in_tmux_shows_views_quits_and_restores_the_terminal() {
    let tmux = Tmux::new();
    let bin = env!("CARGO_BIN_EXE_kubectl-wasctl");
    assert!(Path::new(bin).exists());
    // After the TUI exits, the shell prints its exit status and the line discipline's
    // `icanon`/`echo` flags (`-icanon` would mean raw mode was left on), then waits.
    let script = format!(
        "'{bin}' tui --demo; echo \"EXIT=$?\"; echo \"MODES=$(stty -a | tr ' ;' '\\n\\n' | grep -x -e '-\\?icanon' -e '-\\?echo' | tr '\\n' ' ')\"; sleep 600"
    );
    tmux.start(&script);

    let pane = tmux.wait_for(&["wasctl", "tree (", "PodGroup/big-train-workers"]);
    assert!(pane.contains("│ demo │"), "{pane}");
    assert_eq!(
        tmux.show("#{alternate_on}"),
        "1",
        "the TUI uses the alternate screen"
    );

    tmux.send(&["?"]);
    // The overlay's title and its body may reach the pane in different captures: wait for both.
    tmux.wait_for(&["keys (Esc closes)", "q Ctrl-C"]);
    tmux.send(&["Escape"]);
    // A key that follows Escape at once reaches the TUI as Alt+key (the terminal cannot tell
    // them apart), as with any terminal program: wait until the help has closed.
    tmux.wait_until(
        |pane| !pane.contains("keys (Esc closes)"),
        "the help closed",
    );

    tmux.send(&[":pending", "Enter"]);
    let pane = tmux.wait_for(&["pending (", "PodGroup/big-train-workers", "Unschedulable"]);
    assert!(!pane.contains("keys (Esc closes)"), "help closed: {pane}");

    // urgent: after the demo's two Kueue Workloads.
    tmux.send(&["j", "j", "Enter"]);
    tmux.wait_for(&[
        "explain PodGroup/ml/urgent",
        "PodGroup/ml/urgent: Preempting",
        "Victims",
    ]);

    // Issue 51: Shift and a column's letter sorts (the header says so), a `:KIND` alias
    // lists one kind, an unknown key names itself in the status line.
    tmux.send(&["Escape"]);
    tmux.wait_until(
        |pane| pane.contains("pending (") && !pane.contains("explain PodGroup"),
        "back on the pending view",
    );
    tmux.send(&["N"]);
    tmux.wait_for(&["UNIT↑"]);
    tmux.send(&[":pg", "Enter"]);
    tmux.wait_for(&["tree: PodGroup (", "PodGroup/big-train-workers"]);
    tmux.send(&["z"]);
    tmux.wait_for(&["unknown key `z` in the tree view"]);

    tmux.send(&["q"]);
    let pane = tmux.wait_for(&["EXIT=", "MODES="]);
    assert!(pane.contains("EXIT=0"), "exit status 0: {pane}");
    let modes = pane
        .lines()
        .find_map(|l| l.strip_prefix("MODES="))
        .unwrap_or_default();
    assert!(
        modes.split_whitespace().any(|m| m == "icanon")
            && modes.split_whitespace().any(|m| m == "echo"),
        "raw mode is off after exit: {modes:?}"
    );
    assert_eq!(tmux.show("#{alternate_on}"), "0", "back on the main screen");
    assert_eq!(tmux.show("#{cursor_flag}"), "1", "the cursor is visible");
    assert_eq!(
        tmux.show("#{mouse_any_flag}"),
        "0",
        "mouse reporting is off"
    );
}

/// A terminal that goes away (a closed window, a dropped ssh session; here `tmux kill-server`)
/// ends the TUI even when it is not the session leader: started from a script, the kernel's
/// SIGHUP goes to the shell, and the TUI notices its controlling terminal is gone on the next
/// idle tick (`Guard::hung_up`) rather than spinning on the dead tty.
#[test]
fn tui_exits_when_its_terminal_goes_away() {
    let tmux = Tmux::new();
    let bin = env!("CARGO_BIN_EXE_kubectl-wasctl");
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("tui.pid");
    // The outer shell stays the session leader; the inner one writes its pid and becomes
    // the TUI.
    let script = format!(
        "sh -c 'echo $$ > \"{}\"; exec \"{bin}\" tui --demo'; echo \"EXIT=$?\"; sleep 600",
        pid_file.display()
    );
    tmux.start(&script);
    tmux.wait_for(&["wasctl", "PodGroup/big-train-workers"]);
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_owned();
    let proc_dir = Path::new("/proc").join(&pid);
    assert!(proc_dir.exists(), "the TUI runs as pid {pid}");

    let _ = tmux.cmd(&["kill-server"]);
    let start = Instant::now();
    let gone = loop {
        // A zombie is gone too (its parent shell may be gone and not reaped it yet).
        let state = std::fs::read_to_string(proc_dir.join("stat")).unwrap_or_default();
        let zombie = state
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
        if !proc_dir.exists() || zombie {
            break true;
        }
        if start.elapsed() > Duration::from_secs(20) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if !gone {
        // Do not leave a spinning TUI behind a failed test.
        let _ = Command::new("kill").arg("-9").arg(&pid).status();
    }
    assert!(
        gone,
        "the TUI (pid {pid}) still runs 20 s after its terminal went away"
    );
}

#[test]
fn tui_refuses_without_a_terminal() {
    let run = super::support::run(&["tui", "--demo"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("the TUI needs a terminal"),
        "{}",
        run.transcript()
    );
}

#[test]
fn tui_refresh_needs_a_cluster() {
    let run = super::support::run(&["tui", "--demo", "--refresh", "5"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("`--refresh`"), "{}", run.transcript());
}

/// A PodGroup that only one of the fake clusters holds, to see which cluster a screen shows.
fn extra_pod_group(name: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "ml", "uid": format!("uid-{name}"),
                     "creationTimestamp": "2026-11-30T10:00:00Z"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}
    })
}

/// Live mode (issue 19 §4, issue 50 item 3) in a real terminal against two fake API servers
/// on 127.0.0.1: the cluster is listed once and watched — an object created and a pod
/// deleted in scripted steps show without a key pressed, the status line says "watching", and
/// after seconds of watching every resource was listed once and watched once (no re-lists;
/// `--refresh 1` is accepted and does nothing but say so); `:ctx b` lists and watches the
/// other context's cluster; a server that goes away shows as "lost" in the status line while
/// the UI keeps the last good data and still quits cleanly.
#[test]
fn tui_live_watches_and_switches_context_in_tmux() {
    use super::fake_apiserver::{FakeApiServer, FakeConfig, Step};
    use super::support::demo_objects;

    let a = FakeApiServer::start(demo_objects(), FakeConfig::default());
    let mut b_objects = demo_objects();
    b_objects.push(extra_pod_group("only-in-b"));
    let b = FakeApiServer::start(b_objects, FakeConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {{server: '{}'}}\n- name: b\n  cluster: {{server: '{}'}}\nusers:\n- name: u\n  user: {{token: fake-token}}\ncontexts:\n- name: a\n  context: {{cluster: a, user: u, namespace: ml}}\n- name: b\n  context: {{cluster: b, user: u, namespace: ml}}\ncurrent-context: a\n",
            a.url(),
            b.url()
        ),
    )
    .unwrap();

    let tmux = Tmux::new();
    let bin = env!("CARGO_BIN_EXE_kubectl-wasctl");
    let script = format!(
        "'{bin}' tui --refresh 1 --request-timeout 2s --kubeconfig '{}'; echo \"EXIT=$?\"; sleep 600",
        kubeconfig.display()
    );
    tmux.start(&script);
    let pane = tmux.wait_for(&[
        "PodGroup/big-train-workers",
        "context (current)",
        "`--refresh` is no longer needed",
    ]);
    assert!(!pane.contains("fresh-gang"), "{pane}");
    assert!(pane.contains("watching · "), "{pane}");

    // Created on the server: the watch shows it, no key pressed (the filter keeps the row on
    // screen whatever the tree's length).
    tmux.send(&["/fresh-gang", "Enter"]);
    tmux.wait_for(&["/fresh-gang", "Nothing matches"]);
    a.play(&[Step::Create(extra_pod_group("fresh-gang"))]);
    let pane = tmux.wait_for(&["PodGroup/fresh-gang", "last change"]);
    assert!(pane.contains("watching · "), "{pane}");
    tmux.send(&["Escape"]);
    // Cleared: the other rows are back (the cursor stays on the new PodGroup).
    tmux.wait_for(&["Workload/big-train", "PodGroup/ml/fresh-gang"]);

    // A pod deleted on the server leaves the view.
    tmux.send(&["/batch-low-0", "Enter"]);
    tmux.wait_for(&["Pod/batch-low-0"]);
    a.play(&[Step::delete_pod("ml", "batch-low-0")]);
    tmux.wait_for(&["/batch-low-0", "Nothing matches"]);
    tmux.send(&["Escape"]);

    // Seconds of watching later: one LIST and one WATCH per resource, never a re-list.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let log = a.requests();
    let mut per_path: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for r in &log {
        let e = per_path.entry(r.path.as_str()).or_default();
        if r.query.contains("watch=true") {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }
    assert!(
        per_path
            .values()
            .all(|&(lists, watches)| lists <= 1 && watches <= 1),
        "{per_path:#?}"
    );
    assert_eq!(per_path.get("/api/v1/pods"), Some(&(1, 1)), "{per_path:#?}");
    assert!(log.iter().all(|r| r.method == "GET"), "read-only: {log:#?}");

    // `:ctx b`: the other cluster, listed and watched.
    tmux.send(&[":ctx b", "Enter"]);
    tmux.wait_for(&["context b", "PodGroup/big-train-workers"]);
    tmux.send(&["/only-in-b", "Enter"]);
    let pane = tmux.wait_for(&["PodGroup/only-in-b", "context b", "watching · "]);
    assert!(
        !pane.contains("fresh-gang"),
        "cluster b has no fresh-gang: {pane}"
    );
    assert!(
        b.requests()
            .iter()
            .any(|r| r.path == "/api/v1/pods" && r.query.contains("watch=true")),
        "cluster b is watched"
    );

    // Cluster b goes away: after the retries the status line says it is lost, the data stays.
    drop(b);
    let pane = tmux.wait_for(&["lost: "]);
    assert!(
        pane.contains("PodGroup/only-in-b"),
        "the last good data stays: {pane}"
    );

    tmux.send(&["q"]);
    let pane = tmux.wait_for(&["EXIT="]);
    assert!(pane.contains("EXIT=0"), "exit status 0: {pane}");
}
