//! `kubectl wasctl tui`: the interactive, gang- and DRA-aware terminal UI (ratatui + crossterm).
//!
//! Input: a loaded [`Snapshot`] and, in live mode, its watches (a [`Feed`]: listed once,
//! then kept current by WATCH, [`watching`]) and a [`Loader`] that lists and watches again
//! (Ctrl-R, `:ctx`). Output: screens. It renders the same
//! reports the commands build — [`Plan`](crate::sched::plan::Plan) (with
//! `Plan::outcome_of` as the one outcome, in simulate's words), the tree report,
//! [`Diagnosis`](crate::explain::Diagnosis) and [`DoctorReport`](crate::doctor::DoctorReport) —
//! and contains no scheduling or check logic: what-ifs are `sched::whatif` on a copy of the
//! snapshot, simulated again.
//!
//! Shape (gitui's): [`app`] holds the state and the history of screens; [`views`] are
//! components, one per view, each with its own state, drawing itself and turning keys into
//! [`Intent`](event::Intent)s; [`event`] is the queue and the background worker that
//! simulates, explains and reloads while the UI keeps drawing; [`data`] is what the worker
//! builds; [`terminal`] enters the TUI state and restores the terminal on every exit path.
//! Every string from the cluster passes [`sanitize`](crate::sanitize::sanitize()).

pub(crate) mod app;
pub(crate) mod data;
pub(crate) mod event;
pub(crate) mod keymap;
pub(crate) mod terminal;
pub(crate) mod theme;
pub(crate) mod views;
pub(crate) mod watching;
pub(crate) mod widgets;

use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub use app::{App, Config};
pub(crate) use event::Loader;
pub(crate) use watching::Feed;

use crate::snapshot::Snapshot;

/// Runs the TUI on the real terminal until the user quits or a termination signal arrives.
/// Fails before touching the terminal when stdin or stdout is not one.
pub(crate) fn run(
    config: Config,
    snapshot: Snapshot,
    loader: Option<Loader>,
    feed: Option<Feed>,
) -> io::Result<()> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(io::Error::other(
            "the TUI needs a terminal on stdin and stdout",
        ));
    }
    let guard = terminal::Guard::enter()?;
    guard.spawn_watchdog();
    let mut term = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    term.clear()?;
    let mut app = App::watching(config, snapshot, loader, feed);
    let mut dirty = true;
    let mut last_tick = Instant::now();
    while !app.should_quit() && !guard.signalled() {
        if app.poll() {
            dirty = true;
        }
        if dirty {
            term.draw(|f| app.draw(f))?;
            dirty = false;
        }
        let tick = if app.is_busy() {
            Duration::from_millis(80)
        } else {
            Duration::from_millis(250)
        };
        if crossterm::event::poll(tick)? {
            let ev = crossterm::event::read()?;
            app.handle(&ev);
            dirty = true;
        } else if guard.hung_up() {
            // Usually the watchdog's to notice; here when poll returned first.
            break;
        }
        let now = Instant::now();
        if now.duration_since(last_tick) >= tick {
            last_tick = now;
            // The spinner turns; the watch status's "3s ago" moves on.
            dirty |= app.tick(now) || app.is_busy();
        }
    }
    drop(term);
    drop(guard);
    Ok(())
}

#[cfg(test)]
mod tests;
