//! Criterion bench for the TUI at scale (issue 19, B10): 5,000 nodes, 150,000 running pods and
//! 100 pending 8-pod gangs (the synthetic profile of B1), the app built once outside the timed
//! section (that is load + simulate, B1/B2). Timed: a key press to the next frame drawn into a
//! 140×40 buffer (`j` in the tree and in the pending view; `G` to the end of the tree), and a
//! filter typed over every tree row (`/gang-00042` + Enter, then the frame). Targets: ≤ 16 ms per
//! key to frame, ≤ 50 ms for the filter. A second cluster puts every running pod in a running
//! PodGroup, so the tree (and the filter) covers all 150,000 pods. Run with `cargo bench --features testutil --bench tui`;
//! the figures are in docs/performance.md. No test asserts on timing.

// The row counts are printed to stderr so a run shows what was measured.
#![allow(clippy::print_stderr)]

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use wasctl::testutil::synthetic::{Profile, snapshot};
use wasctl::tui::{App, Config};

fn key(app: &mut App, code: KeyCode) {
    app.handle(&Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn frame(app: &mut App, buf: &mut Buffer) {
    let area = Rect::new(0, 0, 140, 40);
    buf.reset();
    app.draw_into(buf, area);
}

fn header(buf: &Buffer) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, 0)].symbol().to_owned())
        .collect::<String>()
        .trim_end()
        .to_owned()
}

/// The app over a 5,000-node synthetic cluster with 100 pending 8-pod gangs, settled.
/// `running_group_size` > 0 puts every running pod in a running PodGroup of that size.
fn app_for(running_group_size: usize) -> (App, usize) {
    let s = snapshot(
        &Profile {
            gangs: vec![(100, 8)],
            running_group_size,
            ..Profile::with_nodes(5_000)
        },
        3,
    );
    let pods = s.pods.len();
    let mut app = App::new(
        Config {
            color: true,
            source: "bench".to_owned(),
            ..Config::default()
        },
        s,
        None,
    );
    app.settle();
    (app, pods)
}

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn bench_j(group: &mut Group<'_>, app: &mut App, buf: &mut Buffer, name: &str) {
    group.bench_function(name, |b| {
        b.iter(|| {
            key(app, KeyCode::Char('j'));
            frame(app, buf);
        });
    });
}

/// `/needle` + Enter, then the frame; Esc clears the filter for the next round.
fn bench_filter(group: &mut Group<'_>, app: &mut App, buf: &mut Buffer, needle: &str) {
    group.bench_function("filter_tree_rows", |b| {
        b.iter(|| {
            key(app, KeyCode::Char('/'));
            for c in needle.chars() {
                key(app, KeyCode::Char(c));
            }
            key(app, KeyCode::Enter);
            frame(app, buf);
            key(app, KeyCode::Esc);
        });
    });
    eprintln!("after a filter: {}", header(buf));
}

fn tui(c: &mut Criterion) {
    let (mut app, pods) = app_for(0);
    let mut buf = Buffer::empty(Rect::new(0, 0, 140, 40));
    frame(&mut app, &mut buf);
    eprintln!("{pods} pods; {}", header(&buf));

    let mut group = c.benchmark_group("B10_tui_5k_nodes_150k_pods");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    bench_j(&mut group, &mut app, &mut buf, "key_to_frame_tree_j");
    group.bench_function("key_to_frame_tree_G_then_g", |b| {
        b.iter(|| {
            key(&mut app, KeyCode::Char('G'));
            frame(&mut app, &mut buf);
            key(&mut app, KeyCode::Char('g'));
            frame(&mut app, &mut buf);
        });
    });
    bench_filter(&mut group, &mut app, &mut buf, "gang-00042");
    for c in ":pending".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    app.settle();
    frame(&mut app, &mut buf);
    eprintln!("{}", header(&buf));
    bench_j(&mut group, &mut app, &mut buf, "key_to_frame_pending_j");
    group.finish();
    drop(app);

    // The same cluster with every running pod in a running PodGroup of 10: the tree lists
    // all 150,000 pods (and 15,000 groups), and the filter runs over every row.
    let (mut app, _) = app_for(10);
    frame(&mut app, &mut buf);
    eprintln!("every pod in the tree: {}", header(&buf));
    let mut group = c.benchmark_group("B10_tui_tree_of_150k_pods");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    bench_j(&mut group, &mut app, &mut buf, "key_to_frame_tree_j");
    bench_filter(&mut group, &mut app, &mut buf, "run-042042");
    group.finish();
}

criterion_group!(benches, tui);
criterion_main!(benches);
