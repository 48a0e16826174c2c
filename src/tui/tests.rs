//! The whole app driven by scripted keys on ratatui's `TestBackend`, with snapshots of full
//! screens (gitui's `gitui.rs` tests). The worker thread runs for real; [`App::settle`] waits
//! for it before each screen is drawn, so the screens are deterministic.

use crate::snapshot::ObjKind;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};

use super::{App, Config};
use crate::snapshot::ObjRef;
use crate::snapshot::source::demo;

struct Harness {
    app: App,
    term: Terminal<TestBackend>,
}

impl Harness {
    fn with(config: Config, width: u16, height: u16) -> Self {
        let app = App::new(config, demo::load().expect("the demo loads"), None);
        let term = Terminal::new(TestBackend::new(width, height)).expect("terminal");
        let mut h = Self { app, term };
        h.app.settle();
        h
    }

    fn demo() -> Self {
        Self::with(
            Config {
                color: true,
                source: "demo".to_owned(),
                ..Config::default()
            },
            140,
            36,
        )
    }

    fn key(&mut self, code: KeyCode) {
        self.app
            .handle(&Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        self.app.settle();
    }

    /// Types `keys`: plain characters, and `<Enter>`, `<Esc>`, `<Tab>`, `<Down>`, `<Up>`,
    /// `<PgDn>`, `<BS>` for the special keys.
    fn keys(&mut self, keys: &str) {
        let mut rest = keys;
        while let Some(c) = rest.chars().next() {
            if c == '<'
                && let Some(end) = rest.find('>')
                && end > 1
            {
                let code = match &rest[1..end] {
                    "Enter" => KeyCode::Enter,
                    "Esc" => KeyCode::Esc,
                    "Tab" => KeyCode::Tab,
                    "Down" => KeyCode::Down,
                    "Up" => KeyCode::Up,
                    "PgDn" => KeyCode::PageDown,
                    "BS" => KeyCode::Backspace,
                    other => panic!("unknown key <{other}>"),
                };
                self.key(code);
                rest = &rest[end + 1..];
                continue;
            }
            self.key(KeyCode::Char(c));
            rest = &rest[c.len_utf8()..];
        }
    }

    fn draw(&mut self) -> &TestBackend {
        self.app.settle();
        self.term.draw(|f| self.app.draw(f)).expect("draws");
        self.term.backend()
    }

    fn text(&mut self) -> String {
        self.draw().to_string()
    }

    /// The screen line that contains `needle`.
    fn line_with(&mut self, needle: &str) -> Option<u16> {
        let backend = self.draw();
        let buf = backend.buffer();
        (0..buf.area.height).find(|&y| {
            let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            line.contains(needle)
        })
    }

    fn reversed(&mut self, y: u16) -> bool {
        let buf = self.draw().buffer().clone();
        buf[(2, y)].modifier.contains(Modifier::REVERSED)
    }
}

#[test]
fn tree_view() {
    let mut h = Harness::demo();
    insta::assert_snapshot!(h.draw());
}

#[test]
fn tree_collapse_expand_and_parent() {
    let mut h = Harness::demo();
    // The second row is PodGroup/batch-low under Workload/batch-low.
    h.keys("j");
    assert!(h.text().contains("Pod/batch-low-0"));
    h.keys("h");
    let text = h.text();
    assert!(!text.contains("Pod/batch-low-0"), "{text}");
    assert!(text.contains("PodGroup/batch-low [+2]"), "{text}");
    h.keys("l");
    assert!(h.text().contains("Pod/batch-low-0"));
    h.keys("jp");
    let y = h.line_with("▾ PodGroup/batch-low").expect("row shown");
    assert!(h.reversed(y), "p selects the parent");
}

#[test]
fn pending_view() {
    let mut h = Harness::demo();
    h.keys(":pending<Enter>");
    insta::assert_snapshot!(h.draw());
}

#[test]
fn explain_view_from_pending() {
    let mut h = Harness::demo();
    h.keys(":pending<Enter>j<Enter>");
    insta::assert_snapshot!(h.draw());
}

#[test]
fn explain_of_a_preemptor_shows_victims_and_blast_radius() {
    let mut h = Harness::demo();
    h.keys(":pending<Enter><Enter>");
    let text = h.text();
    assert!(text.contains("explain PodGroup/ml/urgent"), "{text}");
    // Simulate's word (issue #45: one vocabulary), not explain's JSON verdict.
    assert!(text.contains("PodGroup/ml/urgent: Preempting"), "{text}");
    assert!(!text.contains("NeedsPreemption"), "{text}");
    assert!(text.contains("Victims (2)"), "{text}");
    assert!(
        text.contains("blast radius: 2 pod(s) in 1 group(s)"),
        "{text}"
    );
}

#[test]
fn doctor_view() {
    let mut h = Harness::demo();
    h.keys(":doctor<Enter>");
    insta::assert_snapshot!(h.draw());
}

#[test]
fn doctor_enter_jumps_to_the_object_in_the_tree() {
    let mut h = Harness::demo();
    h.keys(":doctor<Enter>/lost<Enter><Enter>");
    let text = h.text();
    assert!(text.contains(" tree "), "{text}");
    let y = h.line_with("Pod/lost-0").expect("shown in the tree");
    assert!(h.reversed(y));
}

#[test]
fn nodes_view() {
    let mut h = Harness::demo();
    h.keys(":nodes<Enter>t<Enter>");
    insta::assert_snapshot!(h.draw());
}

#[test]
fn help_view() {
    let mut h = Harness::demo();
    h.keys("?");
    insta::assert_snapshot!(h.draw());
    h.keys("<Esc>");
    assert!(!h.text().contains("keys (Esc closes)"));
}

#[test]
fn drain_what_if_before_and_after() {
    let mut h = Harness::demo();
    h.keys(":pending<Enter>");
    insta::assert_snapshot!("drain_what_if_before", h.draw());
    h.keys(":nodes<Enter>/gpu-a1<Enter>d");
    h.keys(":pending<Enter>");
    insta::assert_snapshot!("drain_what_if_after", h.draw());
    // On a changed unit, the line above `why:` says what changed and why, as `diff` does.
    h.keys("j");
    let text = h.text();
    let changed = text
        .lines()
        .find(|l| l.contains("changed: "))
        .unwrap_or_default();
    assert!(
        changed.contains("NotPending → Scheduled") && changed.contains("gpu-a1"),
        "{text}"
    );
    // `u` undoes it: no markers, no what-ifs in the header.
    h.keys("u");
    let text = h.text();
    assert!(!text.contains("what-ifs:"), "{text}");
    assert!(
        !text.contains("- stuck") && !text.contains("+ placed"),
        "{text}"
    );
}

#[test]
fn no_preemption_what_if_toggles() {
    let mut h = Harness::demo();
    h.keys(":pending<Enter>x");
    let text = h.text();
    assert!(text.contains("what-ifs: no preemption"), "{text}");
    let y = h.line_with("PodGroup/urgent").expect("listed");
    let line = h
        .text()
        .lines()
        .nth(usize::from(y))
        .unwrap_or("")
        .to_owned();
    assert!(
        line.contains("Unschedulable") && line.contains("- stuck"),
        "{line}"
    );
    h.keys("x");
    assert!(!h.text().contains("what-ifs:"));
}

#[test]
fn filter_highlights_matches() {
    let mut h = Harness::demo();
    h.keys("/train");
    insta::assert_snapshot!(h.draw());
    // The match is highlighted (underlined).
    let y = h.line_with("big-train-0").expect("shown");
    let x = h
        .text()
        .lines()
        .nth(usize::from(y))
        .and_then(|l| l.find("train-0"))
        .expect("in line");
    let buf = h.draw().buffer().clone();
    let x = u16::try_from(x).expect("fits");
    assert!(buf[(x, y)].modifier.contains(Modifier::UNDERLINED));
    // Esc restores the previous filter (none); Enter would keep it.
    h.keys("<Esc>");
    assert!(h.text().contains("tree (42 of 42 rows)"));
}

#[test]
fn tiny_terminal() {
    let mut h = Harness::with(
        Config {
            color: true,
            source: "demo".to_owned(),
            ..Config::default()
        },
        40,
        10,
    );
    insta::assert_snapshot!(h.draw());
}

#[test]
fn resize_redraws_the_layout() {
    let mut h = Harness::demo();
    h.term.backend_mut().resize(50, 10);
    assert!(h.text().contains("needs at least"));
    h.term.backend_mut().resize(100, 30);
    assert!(h.text().contains("Workload/big-train"));
}

#[test]
fn no_color() {
    let mut h = Harness::with(
        Config {
            color: false,
            source: "demo".to_owned(),
            ..Config::default()
        },
        140,
        36,
    );
    h.keys(":pending<Enter>");
    insta::assert_snapshot!(h.draw());
    let buf = h.draw().buffer().clone();
    for cell in buf.content() {
        assert_eq!(cell.fg, Color::Reset, "no foreground colour with NO_COLOR");
        assert_eq!(cell.bg, Color::Reset, "no background colour with NO_COLOR");
    }
    // With colours, the same screen has some.
    let mut c = Harness::demo();
    c.keys(":pending<Enter>");
    let buf = c.draw().buffer().clone();
    assert!(buf.content().iter().any(|cell| cell.fg != Color::Reset));
}

#[test]
fn yaml_view_and_history() {
    let mut h = Harness::demo();
    h.keys("jjy");
    let text = h.text();
    assert!(text.contains("yaml Pod/ml/batch-low-0"), "{text}");
    assert!(text.contains("name: batch-low-0"), "{text}");
    h.keys(":pending<Enter><Enter>");
    assert!(h.text().contains("explain PodGroup/ml/urgent"));
    h.keys("<Esc>");
    assert!(h.text().contains("pending ("));
    h.keys("<Esc>");
    assert!(h.text().contains("yaml Pod/ml/batch-low-0"));
    h.keys("<Esc>");
    assert!(h.text().contains("tree ("));
}

#[test]
fn tab_cycles_the_main_views() {
    let mut h = Harness::demo();
    for title in ["pending (", "nodes (", "doctor (", "tree ("] {
        h.keys("<Tab>");
        assert!(h.text().contains(title), "expected {title}");
    }
}

#[test]
fn mouse_click_selects_and_wheel_scrolls() {
    let mut h = Harness::demo();
    let y = h.line_with("Pod/big-train-3").expect("shown");
    h.app.handle(&Event::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 5,
        row: y,
        modifiers: KeyModifiers::NONE,
    }));
    assert!(h.reversed(y));
    h.app.handle(&Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 5,
        row: y,
        modifiers: KeyModifiers::NONE,
    }));
    let y2 = h.line_with("Workload/pipeline").expect("shown");
    assert_eq!(y2, y + 3);
    assert!(h.reversed(y2), "the wheel moved the cursor three rows");
}

#[test]
fn prompt_completes_and_errors_stay_in_the_status_line() {
    let mut h = Harness::demo();
    h.keys(":pe<Tab>");
    assert!(h.text().contains(":pending"));
    h.keys("<Enter>:nonsense<Enter>");
    let text = h.text();
    assert!(text.contains("error: unknown command `nonsense`"), "{text}");
    assert!(text.contains("pending ("), "the UI keeps running: {text}");
    h.keys(":ctx other<Enter>");
    assert!(h.text().contains("`:ctx` works in live mode only"));
    h.keys(":ns res<Tab><Enter>");
    let text = h.text();
    assert!(text.contains("ns: research"), "{text}");
    assert!(!text.contains("PodGroup/urgent"), "{text}");
}

#[test]
fn a_failing_what_if_is_a_message() {
    let mut h = Harness::demo();
    h.keys(":add /nonexistent/wasctl-test.yaml<Enter>");
    let text = h.text();
    assert!(text.contains("error:"), "{text}");
    assert!(text.contains("wasctl-test.yaml"), "{text}");
    assert!(!text.contains("what-ifs:"), "{text}");
}

#[test]
fn add_file_what_if_adds_a_pending_gang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("extra.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: extra-0\n  namespace: ml\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      requests:\n        cpu: \"512\"\n",
    )
    .expect("writes");
    let mut h = Harness::demo();
    h.keys(&format!(":add {}<Enter>:pending<Enter>", path.display()));
    let text = h.text();
    assert!(text.contains("Pod/extra-0"), "{text}");
    assert!(text.contains("+ new"), "{text}");
}

#[test]
fn add_file_naming_a_missing_priority_class_is_refused_as_the_api_server_would() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("typo.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: typo-0\n  namespace: ml\nspec:\n  priorityClassName: hihg\n  containers:\n  - name: c\n    image: x\n",
    )
    .expect("writes");
    let mut h = Harness::with(
        Config {
            color: false,
            source: "demo".to_owned(),
            ..Config::default()
        },
        200,
        36,
    );
    h.keys(&format!(":add {}<Enter>", path.display()));
    let text = h.text();
    assert!(text.contains("error:"), "{text}");
    assert!(
        text.contains("priorityClassName `hihg` names no PriorityClass"),
        "{text}"
    );
    assert!(!text.contains("what-ifs:"), "{text}");
}

#[test]
fn select_opens_on_the_object() {
    let mut h = Harness::with(
        Config {
            color: true,
            source: "demo".to_owned(),
            select: Some(ObjRef::new(ObjKind::Pod, "research", "infer-b-1")),
            ..Config::default()
        },
        140,
        36,
    );
    let y = h.line_with("Pod/infer-b-1").expect("shown");
    assert!(h.reversed(y));
}

#[test]
fn quit_keys() {
    let mut h = Harness::demo();
    assert!(!h.app.should_quit());
    h.keys("q");
    assert!(h.app.should_quit());
    let mut h = Harness::demo();
    h.app.handle(&Event::Key(KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    )));
    assert!(h.app.should_quit());
}

#[test]
fn yaml_view() {
    let mut h = Harness::with(
        Config {
            color: true,
            source: "demo".to_owned(),
            select: Some(ObjRef::new(ObjKind::PodGroup, "ml", "big-train-workers")),
            ..Config::default()
        },
        100,
        24,
    );
    h.keys("y");
    insta::assert_snapshot!(h.draw());
}

/// The demo plus a PodGroup in namespace `ml\u{200b}`, which differs from the demo's `ml` only
/// by a zero-width space (issue #46: the TUI escapes every character the CLI's
/// `sanitize` escapes, so the two look different).
fn lookalike_namespaces() -> Harness {
    let extra = "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: look\n  namespace: \"ml\\u200b\"\nspec:\n  schedulingPolicy:\n    gang:\n      minCount: 1\n";
    let mut collector = crate::snapshot::source::Collector::new();
    crate::snapshot::source::files::load_str(
        &format!("{}\n{extra}", demo::DEMO_YAML),
        "<lookalike>",
        &mut collector,
    )
    .expect("loads");
    let app = App::new(
        Config {
            color: false,
            source: "lookalike\u{200b}".to_owned(),
            select: Some(ObjRef::new(ObjKind::PodGroup, "ml\u{200b}", "look")),
            ..Config::default()
        },
        collector.finish(),
        None,
    );
    let term = Terminal::new(TestBackend::new(120, 30)).expect("terminal");
    let mut h = Harness { app, term };
    h.app.settle();
    h
}

#[test]
fn yaml_header_escapes_zero_width_characters() {
    let mut h = lookalike_namespaces();
    h.keys("y");
    let text = h.text();
    assert!(text.contains("yaml PodGroup/ml\\u{200b}/look"), "{text}");
    assert!(text.contains("lookalike\\u{200b}"), "{text}");
    let header = text.lines().next().unwrap_or_default().to_owned();
    insta::assert_snapshot!(header);
}

#[test]
fn status_line_escapes_control_bidi_and_zero_width_characters() {
    let mut h = lookalike_namespaces();
    h.keys(":ns ml\u{200b}<Enter>");
    let text = h.text();
    assert!(text.contains("ns: ml\\u{200b}"), "{text}");
    // A namespace that is not in the snapshot is an error message naming it, escaped.
    h.keys(":ns m\u{200b}l<Enter>");
    let text = h.text();
    let status = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_owned();
    assert!(!status.contains('\u{200b}'), "{status}");
    insta::assert_snapshot!(status);
    // Bidi overrides and control characters too, in the header and the status line.
    h.keys(":ns evil\u{202e}txt\u{7}<Enter>");
    let text = h.text();
    assert!(text.contains("ns: evil\\u{202e}txt\\x07"), "{text}");
    assert!(text.contains("namespace: evil\\u{202e}txt\\x07"), "{text}");
}

#[test]
fn explain_names_the_units_profile_when_not_the_default() {
    // Issue 48: the unit's detail names the profile that simulated it and how it scores.
    let text = r#"
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: gpu-binpack
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: nvidia.com/gpu, weight: 1}]
---
{"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts", "snapshotTime": "2026-11-20T12:00:00Z", "serverVersion": "v1.37.0", "components": [{"component": "kube-scheduler", "version": "v1.37.0", "featureGates": {"GenericWorkload": true}}]}
---
{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "train", "namespace": "ml", "creationTimestamp": "2026-11-20T11:00:00Z"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}}}
---
{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-1"}, "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110", "nvidia.com/gpu": "8"}}}
---
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train", "namespace": "ml", "creationTimestamp": "2026-11-20T11:00:00Z"}, "spec": {"schedulerName": "gpu-binpack", "schedulingGroup": {"podGroupName": "train"}, "containers": [{"name": "c", "image": "x", "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}]}, "status": {"phase": "Pending"}}
"#;
    let mut c = crate::snapshot::source::Collector::new();
    crate::snapshot::source::files::load_str(text, "profiles.yaml", &mut c).expect("loads");
    let app = App::new(
        Config {
            color: false,
            source: "profiles.yaml".to_owned(),
            select: Some(ObjRef::new(ObjKind::PodGroup, "ml", "train")),
            ..Config::default()
        },
        c.finish(),
        None,
    );
    let term = Terminal::new(TestBackend::new(140, 30)).expect("terminal");
    let mut h = Harness { app, term };
    h.app.settle();
    h.keys("<Enter>");
    let screen = h.text();
    assert!(screen.contains("train"), "{screen}");
    assert!(
        screen.contains("profile gpu-binpack: MostAllocated on nvidia.com/gpu"),
        "{screen}"
    );
}
