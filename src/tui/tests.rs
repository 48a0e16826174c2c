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
    // The sixth row is PodGroup/batch-low under Workload/batch-low (the demo's two Kueue
    // Workloads and their Jobs come first in ml).
    h.keys("jjjjj");
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
    // big-train-workers: after the two Kueue Workloads and urgent.
    h.keys(":pending<Enter>jjj<Enter>");
    insta::assert_snapshot!(h.draw());
}

#[test]
fn explain_of_a_preemptor_shows_victims_and_blast_radius() {
    let mut h = Harness::demo();
    // urgent: after the two Kueue Workloads.
    h.keys(":pending<Enter>jj<Enter>");
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
    // On a changed unit, the line above `why:` says what changed and why, as `diff` does
    // (train-a-workers, after the two Kueue Workloads and urgent).
    h.keys("jjj");
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
    assert!(h.text().contains("tree (46 of 46 rows)"));
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
    h.keys("jjjjjjy");
    let text = h.text();
    assert!(text.contains("yaml Pod/ml/batch-low-0"), "{text}");
    assert!(text.contains("name: batch-low-0"), "{text}");
    h.keys(":pending<Enter>jj<Enter>");
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

// ---- Issue 51, item 3: the TUI never shows a wrong number -------------------------------

fn sized(width: u16, height: u16) -> Harness {
    Harness::with(
        Config {
            color: false,
            source: "demo".to_owned(),
            ..Config::default()
        },
        width,
        height,
    )
}

/// The screen's lines as text (the backend quotes each).
fn plain(text: &str) -> Vec<&str> {
    text.lines()
        .map(|l| l.strip_prefix('"').unwrap_or(l))
        .map(|l| l.strip_suffix('"').unwrap_or(l))
        .collect()
}

/// The screen's line that contains `needle`, as text.
fn line_of(text: &str, needle: &str) -> String {
    plain(text)
        .into_iter()
        .find(|l| l.contains(needle))
        .unwrap_or_default()
        .to_owned()
}

/// The header row of a list view: the line after the tab bar.
fn header_row(text: &str) -> String {
    plain(text).get(2).copied().unwrap_or_default().to_owned()
}

/// The screen's lines trimmed and joined by one space: text wrapped over lines reads whole.
fn joined(text: &str) -> String {
    plain(text)
        .into_iter()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

// At 80 and 160 columns the tree never cuts a number or a name: urgent's priority reads
// 1000000 (issue 51: it read `10000` at 80), the names are whole, SIMULATED stays; at 80 the
// low-priority columns went whole, in the documented order (AGE, NODE, POLICY first).
#[test]
fn tree_at_80_and_160_columns_cuts_no_number_or_name() {
    for width in [80, 160] {
        let mut h = sized(width, 40);
        let text = h.text();
        let urgent = line_of(&text, "PodGroup/urgent");
        assert!(urgent.contains(" 1000000 "), "{width}: {urgent}");
        assert!(urgent.contains("Preempting"), "{width}: {urgent}");
        assert!(
            text.contains("ResourceClaim/pipeline-prefill-kv-r2d8w"),
            "{width}: {text}"
        );
        let header = header_row(&text);
        for kept in ["NAME", "PRIORITY", "SIMULATED"] {
            assert!(header.contains(kept), "{width}: {header}");
        }
        if width == 80 {
            for dropped in ["AGE", "NODE", "POLICY"] {
                assert!(!header.contains(dropped), "80: {header}");
            }
            insta::assert_snapshot!("tree_at_80_columns", text);
        } else {
            for all in ["NAMESPACE", "STATUS", "POLICY", "NODE", "AGE"] {
                assert!(header.contains(all), "160: {header}");
            }
        }
    }
}

// The pending view at 80 keeps UNIT, OUTCOME and WHY (issue 51: WHY disappeared) and cuts
// only the free text, with `…`.
#[test]
fn pending_at_80_and_160_columns_keeps_the_why() {
    for width in [80, 160] {
        let mut h = sized(width, 30);
        h.keys(":pending<Enter>");
        let text = h.text();
        let header = header_row(&text);
        for kept in ["UNIT", "OUTCOME", "WHY"] {
            assert!(header.contains(kept), "{width}: {header}");
        }
        let row = line_of(&text, "PodGroup/big-train-workers");
        assert!(row.contains("Unschedulable"), "{width}: {row}");
        assert!(row.trim_end().ends_with('…'), "{width}: {row}");
        if width == 160 {
            assert!(
                header.contains("VICTIMS") && header.contains("MIN"),
                "{header}"
            );
        } else {
            assert!(!header.contains("VICTIMS"), "80: {header}");
        }
    }
}

// The explain view wraps at word boundaries: the message that read `…2 Insu` at 80 columns
// is there whole, and no line is wider than the screen.
#[test]
fn explain_at_80_and_160_columns_wraps_instead_of_cutting() {
    for width in [80, 160] {
        let mut h = sized(width, 60);
        h.keys(":pending<Enter>jjj<Enter>");
        let text = h.text();
        assert!(
            text.contains("explain PodGroup/ml/big-train-workers"),
            "{text}"
        );
        let joined = joined(&text);
        assert!(
            joined.contains("2 Insufficient nvidia.com/gpu."),
            "{width}: {text}"
        );
        assert!(
            joined.contains("No preemption victims found for incoming preemptor"),
            "{width}: {text}"
        );
    }
}

// The YAML view wraps a long value instead of cutting it.
#[test]
fn yaml_at_80_columns_wraps_a_long_value() {
    let long = "a very long annotation value that is much wider than an eighty column terminal and ends with END-OF-VALUE";
    let text = format!(
        "{}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: annotated\n  namespace: ml\n  annotations:\n    note: \"{long}\"\nspec:\n  schedulingPolicy:\n    gang:\n      minCount: 1\n",
        demo::DEMO_YAML
    );
    let mut c = crate::snapshot::source::Collector::new();
    crate::snapshot::source::files::load_str(&text, "annotated.yaml", &mut c).expect("loads");
    let app = App::new(
        Config {
            color: false,
            source: "annotated.yaml".to_owned(),
            select: Some(ObjRef::new(ObjKind::PodGroup, "ml", "annotated")),
            ..Config::default()
        },
        c.finish(),
        None,
    );
    let term = Terminal::new(TestBackend::new(80, 30)).expect("terminal");
    let mut h = Harness { app, term };
    h.app.settle();
    h.keys("y");
    let screen = h.text();
    let joined = joined(&screen);
    assert!(joined.contains("END-OF-VALUE"), "{screen}");
    assert!(joined.contains("much wider than an eighty"), "{screen}");
}

// The help box wraps a key's description under it: every word of every line is on the
// screen (issue 51: "add FI" at 80 columns).
#[test]
fn help_at_80_and_160_columns_never_cuts_a_keys_words() {
    for width in [80, 160] {
        let mut h = sized(width, 80);
        h.keys("?");
        let text = h.text();
        let words: std::collections::HashSet<&str> = text
            .split(|c: char| c.is_whitespace() || c == '│')
            .filter(|w| !w.is_empty())
            .collect();
        for (_, does) in crate::tui::keymap::GLOBAL
            .iter()
            .chain(crate::tui::keymap::TREE)
        {
            for w in does.split(' ') {
                assert!(
                    words.contains(w),
                    "{width}: `{w}` of `{does}` missing:\n{text}"
                );
            }
        }
    }
}

// A help longer than the screen scrolls (j) instead of losing its last lines.
#[test]
fn help_scrolls_when_it_does_not_fit() {
    let mut h = sized(80, 20);
    h.keys("?");
    let text = h.text();
    assert!(text.contains("j k scroll"), "{text}");
    assert!(!text.contains("q Ctrl-C"), "{text}");
    h.keys("jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj");
    assert!(h.text().contains("q Ctrl-C"));
}

// NAMESPACE shows while every namespace is shown, not once one is chosen (as kubectl -A).
#[test]
fn namespace_column_only_with_all_namespaces() {
    let mut h = sized(160, 40);
    assert!(header_row(&h.text()).contains("NAMESPACE"));
    h.keys(":ns ml<Enter>");
    let text = h.text();
    assert!(text.contains("ns: ml"), "{text}");
    assert!(!header_row(&text).contains("NAMESPACE"), "{text}");
    h.keys(":pending<Enter>");
    assert!(!header_row(&h.text()).contains("NAMESPACE"));
}

// Shift and a column's letter sorts by it, the header says so, again reverses; built into the
// shared list (tree, pending, nodes, doctor alike).
#[test]
fn shift_letter_sorts_and_the_header_shows_it() {
    let mut h = sized(160, 60);
    h.keys(":pending<Enter>N");
    let text = h.text();
    assert!(header_row(&text).contains("UNIT↑"), "{text}");
    let pos = |t: &str, s: &str| t.find(s).unwrap_or(usize::MAX);
    assert!(pos(&text, "Pod/lost-0") < pos(&text, "PodGroup/big-train-workers"));
    assert!(pos(&text, "PodGroup/big-train-workers") < pos(&text, "PodGroup/urgent"));
    h.keys("N");
    let text = h.text();
    assert!(header_row(&text).contains("UNIT↓"), "{text}");
    assert!(pos(&text, "PodGroup/urgent") < pos(&text, "Pod/lost-0"));
    // The tree: roots by age, youngest first (ages compare as durations: 10m < 90m < 4h).
    h.keys(":tree<Enter>A");
    let text = h.text();
    assert!(header_row(&text).contains("AGE↑"), "{text}");
    let order: Vec<usize> = [
        "Workload/urgent",
        "Workload/big-train",
        "Workload/train-a",
        "Workload/batch-low",
        "Workload/pipeline",
    ]
    .iter()
    .map(|w| pos(&text, w))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{text}");
    // Children stay under their parent.
    assert!(pos(&text, "PodGroup/urgent") > pos(&text, "Workload/urgent"));
    assert!(pos(&text, "PodGroup/urgent") < pos(&text, "Workload/big-train"));
    // Nodes: by CPU within the domain; doctor: by object within each severity.
    h.keys(":nodes<Enter>C");
    assert!(header_row(&h.text()).contains("CPU↑"));
    h.keys(":doctor<Enter>N");
    let text = h.text();
    assert!(header_row(&text).contains("OBJECT↑"), "{text}");
    assert!(pos(&text, "Errors (2)") < pos(&text, "Pod/ml/lost-0"));
    assert!(pos(&text, "Pod/ml/lost-0") < pos(&text, "ResourceClaim/ml/stale-claim"));
    assert!(pos(&text, "ResourceClaim/ml/stale-claim") < pos(&text, "Warnings ("));
}

// `:pg`, `:pods`, `:claims` list one kind from the registry's table; `:nodes` opens the nodes
// view; Esc goes back to the whole tree.
#[test]
fn kind_aliases_list_one_kind() {
    let mut h = sized(160, 40);
    h.keys(":pg<Enter>");
    let text = h.text();
    assert!(text.contains("tree: PodGroup ("), "{text}");
    let rows: Vec<&str> = plain(&text).into_iter().skip(3).take(6).collect();
    assert!(
        rows.iter()
            .all(|l| l.starts_with("PodGroup/") || l.trim().is_empty()),
        "{text}"
    );
    h.keys(":pods<Enter>");
    assert!(h.text().contains("tree: Pod ("));
    assert!(h.text().contains("\"Pod/urgent-0") || h.text().contains("Pod/urgent-0"));
    h.keys(":claims<Enter>");
    let text = h.text();
    assert!(text.contains("tree: ResourceClaim ("), "{text}");
    assert!(!text.contains("Workload/"), "{text}");
    h.keys("<Esc>");
    assert!(h.text().contains("tree (46 of 46 rows)"));
    h.keys(":no<Enter>");
    assert!(h.text().contains("nodes ("));
    h.keys(":cq<Enter>");
    assert!(h.text().contains("queues: ClusterQueue (2)"));
}

// A key that does nothing in the view flashes a hint naming it.
#[test]
fn unknown_keys_flash_a_hint() {
    let mut h = sized(100, 30);
    h.keys("z");
    let text = h.text();
    assert!(
        text.contains("unknown key `z` in the tree view: `?` lists its keys"),
        "{text}"
    );
    h.key(KeyCode::F(5));
    assert!(h.text().contains("unknown key `F5`"));
    // The next key clears it.
    h.keys("j");
    assert!(!h.text().contains("unknown key"));
}

// Enter on a doctor finding goes to its object: a claim no pod uses (not in the tree) opens
// its YAML; a node, the nodes view on it.
#[test]
fn doctor_enter_goes_to_claims_and_nodes() {
    let mut h = sized(160, 40);
    h.keys(":doctor<Enter>/stale<Enter><Enter>");
    let text = h.text();
    assert!(text.contains("yaml ResourceClaim/ml/stale-claim"), "{text}");
    assert!(text.contains("name: stale-claim"), "{text}");
    h.keys(":doctor<Enter><Esc>/gpu-c2<Enter><Enter>");
    let text = h.text();
    assert!(text.contains("nodes ("), "{text}");
    let y = h.line_with("  gpu-c2 ").expect("listed");
    assert!(h.reversed(y), "{text}");
}

// The pending view lists every pending unit, those that would schedule too (marked
// Scheduled), and the nodes view shows now+planned for every resource (issue 51: gpu-b2 said
// DEVICES 3/8 with 2 planned, CPU 16/64 without the planned 8).
#[test]
fn pending_lists_units_that_would_schedule_and_nodes_show_the_plan_alike() {
    let mut h = sized(160, 40);
    h.keys(":pending<Enter>");
    let row = line_of(&h.text(), "PodGroup/infer-a");
    assert!(row.contains("Scheduled"), "{row}");
    h.keys(":nodes<Enter>");
    let b2 = line_of(&h.text(), "gpu-b2");
    assert!(b2.contains("16+8/64"), "{b2}");
    assert!(b2.contains("1+2/8"), "{b2}");
    assert!(b2.contains("128+64/512Gi"), "{b2}");
    // A node the plan does not touch shows its usage alone.
    let a2 = line_of(&h.text(), "gpu-a2");
    assert!(a2.contains(" 20/64") && !a2.contains("20+"), "{a2}");
}

// ---- Issue 49 in the TUI: Kueue's admission, then kube-scheduler, one plan ----------------

fn kueue(width: u16, height: u16) -> Harness {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/kueue-sim/two-stages.yaml"
    );
    let text = std::fs::read_to_string(path).expect("fixture");
    let mut c = crate::snapshot::source::Collector::new();
    crate::snapshot::source::files::load_str(&text, "two-stages.yaml", &mut c).expect("loads");
    let app = App::new(
        Config {
            color: false,
            source: "two-stages.yaml".to_owned(),
            ..Config::default()
        },
        c.finish(),
        None,
    );
    let term = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    let mut h = Harness { app, term };
    h.app.settle();
    h
}

// testdata/kueue-sim/two-stages.yaml (the `simulate` CLI test's fixture): each Kueue Workload
// pending admission is a unit with Kueue's answer, as `simulate` reports it.
#[test]
fn kueue_workloads_are_pending_units_with_their_admission() {
    let mut h = kueue(180, 30);
    h.keys(":pending<Enter>");
    let text = h.text();
    assert!(header_row(&text).contains("ADMISSION"), "{text}");
    let c = line_of(&text, "job-train-c-5c7e1");
    assert!(
        c.contains("Workload.kueue.x-k8s.io/job-train-c-5c7e1"),
        "{c}"
    );
    assert!(c.contains("QuotaPending") && c.contains("Waiting"), "{c}");
    let b = line_of(&text, "job-train-b-5c7e1");
    assert!(b.contains("Admitted") && b.contains("Unschedulable"), "{b}");
    assert!(
        line_of(&text, "job-orphan-5c7e1").contains("NoQueue"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

// Enter on a Kueue Workload pending admission explains it as `explain kwl/NAME` does: which
// stage blocks it, with the ClusterQueue's numbers; on an admitted one, its pods' diagnosis.
#[test]
fn kueue_workload_explain_says_which_stage_blocks_it() {
    let mut h = kueue(140, 50);
    h.keys(":pending<Enter>/job-train-c<Enter><Enter>");
    let text = h.text();
    assert!(
        text.contains("explain Workload.kueue.x-k8s.io/ml/job-train-c-5c7e1"),
        "{text}"
    );
    assert!(text.contains("WASE100"), "{text}");
    assert!(
        text.contains("pending admission in ClusterQueue team-a"),
        "{text}"
    );
    h.keys("<Esc><Esc>/job-train-b<Enter><Enter>");
    let text = h.text();
    assert!(text.contains("WASE101"), "{text}");
    assert!(text.contains("Unschedulable"), "{text}");
}

// `:kwl` lists the Kueue Workloads; `:cq` the ClusterQueues with what the plan admits and
// what keeps waiting, Enter their quota; `:lq` the LocalQueues.
#[test]
fn kueue_kinds_and_queues() {
    let mut h = kueue(160, 40);
    h.keys(":kwl<Enter>");
    let text = h.text();
    assert!(text.contains("tree: Workload.kueue.x-k8s.io ("), "{text}");
    assert!(
        text.contains("Workload.kueue.x-k8s.io/job-train-c-5c7e1"),
        "{text}"
    );
    h.keys(":cq<Enter>");
    let text = h.text();
    assert!(text.contains("queues: ClusterQueue (1)"), "{text}");
    let row = line_of(&text, "team-a");
    // a and b admitted; c waits on quota (the orphan names no queue of team-a).
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["team-a", "-", "2", "1"], "{text}");
    h.keys("<Enter>");
    let text = h.text();
    assert!(text.contains("FLAVOR"), "{text}");
    assert!(line_of(&text, "nvidia.com/gpu").contains("16"), "{text}");
    h.keys(":lq<Enter>");
    let text = h.text();
    assert!(text.contains("queues: LocalQueue (1)"), "{text}");
    assert!(line_of(&text, "user-queue").contains("team-a"), "{text}");
    h.keys("y");
    assert!(h.text().contains("clusterQueue: team-a"));
}

// Without Kueue objects the data carries no stage one and the pending view no ADMISSION
// column: the screens are those of kube-scheduler's simulation alone.
#[test]
fn without_kueue_no_stage_one_and_no_admission_column() {
    // The demo without its Kueue objects and the Jobs Kueue manages.
    let text = demo::DEMO_YAML
        .split("\n---\n")
        .filter(|d| {
            !d.contains("apiVersion: kueue.x-k8s.io") && !d.contains("kueue.x-k8s.io/queue-name")
        })
        .collect::<Vec<_>>()
        .join("\n---\n");
    let mut c = crate::snapshot::source::Collector::new();
    crate::snapshot::source::files::load_str(&text, "demo.yaml", &mut c).expect("loads");
    let app = App::new(
        Config {
            color: false,
            source: "demo".to_owned(),
            ..Config::default()
        },
        c.finish(),
        None,
    );
    let term = Terminal::new(TestBackend::new(200, 30)).expect("terminal");
    let mut h = Harness { app, term };
    h.app.settle();
    assert!(h.app.data_for_tests().is_some_and(|d| d.staged.is_none()));
    h.keys(":pending<Enter>");
    assert!(!header_row(&h.text()).contains("ADMISSION"));
    h.keys(":cq<Enter>");
    assert!(h.text().contains("No Kueue objects in this snapshot."));
}

// The demo runs Kueue in front (issue 49): `:cq` lists team-ml (finetune admitted, distill
// waiting on quota) and team-research (idle) in cohort gpus; the pending view carries both
// Kueue Workloads with Kueue's answer and the placement's.
#[test]
fn the_demos_kueue_queues_and_workloads() {
    let mut h = sized(200, 40);
    h.keys(":cq<Enter>");
    let text = h.text();
    assert!(text.contains("queues: ClusterQueue (2)"), "{text}");
    let cells = |row: &str| {
        row.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        cells(&line_of(&text, "team-ml")),
        ["team-ml", "gpus", "1", "1"],
        "{text}"
    );
    assert_eq!(
        cells(&line_of(&text, "team-research")),
        ["team-research", "gpus", "0", "0"],
        "{text}"
    );
    h.keys(":pending<Enter>");
    let text = h.text();
    let distill = line_of(&text, "job-distill-32367");
    assert!(
        distill.contains("QuotaPending") && distill.contains("Waiting"),
        "{distill}"
    );
    let finetune = line_of(&text, "job-finetune-943b8");
    assert!(
        finetune.contains("Admitted") && finetune.contains("Unschedulable"),
        "{finetune}"
    );
}

// ---- Issue 50 item 3: a live cluster is watched; the views update in place ----------------

/// A pending pod asking for more than the one node has: a unit of its own, unschedulable.
fn big_pod(name: &str, minute: u32) -> serde_json::Value {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "uid": format!("uid-{name}"),
                     "creationTimestamp": format!("2026-11-29T11:{minute:02}:00Z")},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "8"}}}]},
        "status": {"phase": "Pending"}})
}

/// The app over node n1 (4 CPUs) and pending pods a-0, b-0, c-0 (8 CPUs each), watched
/// through a scripted channel; the sender plays the watches.
fn watched() -> (Harness, std::sync::mpsc::Sender<Update>) {
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "uid": "uid-n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let snapshot = crate::snapshot::source::files::test_snapshot_of(&[
        node,
        big_pod("a-0", 1),
        big_pod("b-0", 2),
        big_pod("c-0", 3),
    ]);
    let (tx, rx) = std::sync::mpsc::channel();
    let app = App::watching(
        Config {
            color: false,
            source: "context (current)".to_owned(),
            live: true,
            ..Config::default()
        },
        snapshot,
        None,
        Some(super::watching::Feed::new(rx, Box::new(()))),
    );
    let term = Terminal::new(TestBackend::new(140, 20)).expect("terminal");
    let mut h = Harness { app, term };
    h.app.settle();
    (h, tx)
}

fn pod_event(object: serde_json::Value, deleted: bool) -> Update {
    Update::Event {
        api_version: "v1".to_owned(),
        kind: "Pod".to_owned(),
        object: object.to_string(),
        deleted,
    }
}

use crate::snapshot::source::live::{AccessError, Update};

/// The status line (the screen's last line).
fn status_line(text: &str) -> String {
    plain(text)
        .last()
        .copied()
        .unwrap_or_default()
        .trim_end()
        .to_owned()
}

#[test]
fn watch_events_update_the_views_in_place_keeping_cursor_filter_and_what_ifs() {
    let (mut h, tx) = watched();
    // The pending view, the cursor on c-0 (the third unit), preemption off (a what-if).
    h.keys(":pending<Enter>jjx");
    let text = h.text();
    assert!(line_of(&text, "c-0").contains("Pod/c-0"), "{text}");
    let y = h.line_with("Pod/c-0").expect("c-0 shown");
    assert!(h.reversed(y), "the cursor is on c-0");
    assert!(text.contains("what-ifs: no preemption"), "{text}");
    let status = status_line(&text);
    assert!(status.contains("watching · 0 events/s"), "{status}");
    assert!(
        !status.contains("last change"),
        "nothing changed yet: {status}"
    );

    // a-0 is deleted and d-0 created, in one coalesced batch: the rows above the cursor
    // change, the cursor stays on c-0 by identity (not on the third row).
    tx.send(pod_event(big_pod("a-0", 1), true)).unwrap();
    tx.send(pod_event(big_pod("d-0", 4), false)).unwrap();
    h.app.settle_watch();
    let text = h.text();
    assert!(!text.contains("Pod/a-0"), "a-0 is gone: {text}");
    assert!(text.contains("Pod/d-0"), "d-0 is new: {text}");
    let y = h.line_with("Pod/c-0").expect("c-0 shown");
    assert!(h.reversed(y), "the cursor stayed on c-0: {text}");
    assert!(
        text.contains("what-ifs: no preemption"),
        "the what-if stays: {text}"
    );
    let status = status_line(&text);
    assert!(
        status.contains("watching · ") && status.contains(" events/s · last change "),
        "{status}"
    );
    assert!(status.ends_with("s ago"), "{status}");

    // A filter stays across a change too; the heartbeat of a kept record changes nothing.
    h.keys("/c-0<Enter>");
    tx.send(pod_event(big_pod("b-0", 2), true)).unwrap();
    h.app.settle_watch();
    let text = h.text();
    assert!(text.contains("/c-0"), "the filter stays: {text}");
    assert!(
        text.contains("Pod/c-0") && !text.contains("Pod/d-0"),
        "{text}"
    );
}

#[test]
fn the_status_line_says_when_a_watch_reconnects_and_when_the_server_is_lost() {
    let (mut h, tx) = watched();
    h.keys(":pending<Enter>");
    tx.send(Update::Reconnecting {
        resource: "pods".to_owned(),
        attempt: 2,
    })
    .unwrap();
    h.app.settle_watch();
    let text = h.text();
    assert!(
        status_line(&text).contains("reconnecting (attempt 2) · pods"),
        "{text}"
    );
    tx.send(Update::Resumed {
        resource: "pods".to_owned(),
    })
    .unwrap();
    h.app.settle_watch();
    assert!(status_line(&h.text()).contains("watching · "));
    tx.send(Update::Lost(AccessError::Lost {
        server: "https://127.0.0.1:1".to_owned(),
        reason: "watching `pods`: no answer 6 times in a row (connection refused)".to_owned(),
    }))
    .unwrap();
    h.app.settle_watch();
    let text = h.text();
    assert!(
        status_line(&text).contains(
            "lost: watching `pods`: no answer 6 times in a row (connection refused) (Ctrl-R lists again)"
        ),
        "{text}"
    );
    // The last data stays.
    assert!(text.contains("Pod/a-0"), "{text}");
}

// ---- Issue 52 in the TUI: Volcano PodGroups and YuniKorn task groups ----------------------

/// testdata/clusters/volcano-yunikorn.yaml (the `tree` fixture) in every namespace.
fn volcano(width: u16, height: u16) -> Harness {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/clusters/volcano-yunikorn.yaml"
    );
    let text = std::fs::read_to_string(path).expect("fixture");
    let mut c = crate::snapshot::source::Collector::new();
    crate::snapshot::source::files::load_str(&text, "volcano-yunikorn.yaml", &mut c)
        .expect("loads");
    let app = App::new(
        Config {
            color: false,
            source: "volcano-yunikorn.yaml".to_owned(),
            ..Config::default()
        },
        c.finish(),
        None,
    );
    let term = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    let mut h = Harness { app, term };
    h.app.settle();
    h
}

#[test]
fn volcano_and_yunikorn_gangs_in_the_tree() {
    let mut h = volcano(150, 30);
    let text = h.text();
    for row in [
        "PodGroup.scheduling.volcano.sh/big-batch",
        "TaskGroup.yunikorn.apache.org/spark-pi:spark-executor",
        "Pod/tg-spark-pi-spark-executor-0",
    ] {
        assert!(text.contains(row), "{row}: {text}");
    }
    insta::assert_snapshot!(h.draw());
    // `:vcpg` and `:tg` list one kind, as `tree` takes their names.
    h.keys(":vcpg<Enter>");
    let text = h.text();
    assert!(
        text.contains("PodGroup.scheduling.volcano.sh/big-batch"),
        "{text}"
    );
    assert!(!text.contains("TaskGroup.yunikorn"), "{text}");
    h.keys(":tg<Enter>");
    let text = h.text();
    assert!(
        text.contains("TaskGroup.yunikorn.apache.org/spark-pi:spark-driver"),
        "{text}"
    );
    assert!(!text.contains("PodGroup.scheduling.volcano.sh"), "{text}");
}

#[test]
fn volcano_gangs_are_pending_with_their_scheduler_named_and_not_simulated() {
    let mut h = volcano(150, 30);
    h.keys(":pending<Enter>");
    let text = h.text();
    let gang = line_of(&text, "PodGroup.scheduling.volcano.sh/big-batch");
    assert!(
        gang.contains("NotSimulated") && gang.contains("0/4"),
        "{gang}"
    );
    assert!(
        gang.contains("scheduled by `volcano`, not simulated"),
        "{gang}"
    );
    // Running gangs are not pending.
    assert!(!text.contains("mpi-job-6f2c1a9e"), "{text}");
    assert!(!text.contains("TaskGroup.yunikorn"), "{text}");
    insta::assert_snapshot!(h.draw());
}

/// Enter on a Volcano gang opens the report `explain vcpg/NAME` prints (the same
/// `GangDiagnosis`, written by the same writer), not a simulation.
#[test]
fn explain_of_a_volcano_gang_is_its_gang_diagnosis() {
    let mut h = volcano(150, 40);
    h.keys(":pending<Enter>/big-batch<Enter>G<Enter>");
    let text = h.text();
    assert!(
        text.contains("explain PodGroup.scheduling.volcano.sh/batch/big-batch"),
        "{text}"
    );
    let snapshot = &h.app.data_for_tests().expect("data").snapshot;
    let target = ObjRef::new(ObjKind::VolcanoPodGroup, "batch", "big-batch");
    let report = crate::explain::others::explain_other_gang(snapshot, &target).expect("a gang");
    let mut cli = Vec::new();
    crate::render::gang::write_text(
        &mut cli,
        &report,
        crate::render::color::ColorChoice::Never.styler(),
    )
    .expect("writes");
    let screen = joined(&text);
    for line in String::from_utf8(cli).expect("utf-8").lines().take(12) {
        let line = line.trim();
        assert!(screen.contains(line), "`{line}` not on the screen: {text}");
    }
    insta::assert_snapshot!(h.draw());
}

/// The queues view with its detail pane open (`:cq`, Enter) and the nodes view with the
/// selected node's pods: screens pinned so the shared list widget changes no pixel.
#[test]
fn queues_and_nodes_detail_panes() {
    let mut h = kueue(160, 30);
    h.keys(":cq<Enter><Enter>");
    insta::assert_snapshot!("queues_detail", h.draw());
    let mut h = Harness::demo();
    h.keys(":nodes<Enter>j<Enter>");
    insta::assert_snapshot!("nodes_detail", h.draw());
}
