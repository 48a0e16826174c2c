//! Entering and leaving the terminal's TUI state (raw mode, alternate screen, mouse capture,
//! hidden cursor), restored on every exit path: a normal return, an error (the [`Guard`]'s
//! `Drop`), a panic (the panic hook restores before the message is printed) and SIGTERM,
//! SIGHUP or SIGQUIT (flags the event loop checks, so it returns and the guard restores), and a
//! terminal that hung up, which [`Guard::spawn_watchdog`] notices even while the event loop is
//! stuck in crossterm's reader.
//!
//! A panic on the background worker thread does not leave the UI: the hook records its message
//! ([`take_worker_panic`]) for the status line instead of printing over the screen.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crossterm::cursor::{Hide, Show};
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

/// The name of the worker thread (its panics are messages, not exits).
pub(crate) const WORKER_THREAD: &str = "wasctl-tui-worker";

static WORKER_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// The last panic message of the worker thread, if any (taken once).
pub(crate) fn take_worker_panic() -> Option<String> {
    WORKER_PANIC.lock().ok().and_then(|mut m| m.take())
}

/// Writes the sequences that undo [`enter_sequence`]: show the cursor, stop mouse capture,
/// leave the alternate screen.
pub(crate) fn restore_sequence(out: &mut impl Write) -> io::Result<()> {
    execute!(out, DisableMouseCapture, LeaveAlternateScreen, Show)
}

/// Writes the sequences that set the TUI up: alternate screen, mouse capture, hidden cursor.
pub(crate) fn enter_sequence(out: &mut impl Write) -> io::Result<()> {
    execute!(out, EnterAlternateScreen, EnableMouseCapture, Hide)
}

/// Restores the real terminal (stdout): leaves raw mode and undoes [`enter_sequence`].
/// Safe to call more than once.
pub(crate) fn restore() {
    let _ = disable_raw_mode();
    let _ = restore_sequence(&mut io::stdout());
}

type Restore = Arc<dyn Fn() + Send + Sync>;

/// Installs a panic hook that calls `restore` before the previous hook prints the message,
/// except on the worker thread, whose message is kept for [`take_worker_panic`].
pub(crate) fn install_panic_hook(restore: Restore) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some(WORKER_THREAD) {
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_owned());
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            if let Ok(mut slot) = WORKER_PANIC.lock() {
                *slot = Some(format!("{msg}{at}"));
            }
            return;
        }
        restore();
        previous(info);
    }));
}

/// The TUI state of the real terminal; dropping it restores the terminal.
pub(crate) struct Guard {
    /// Set by SIGTERM, SIGHUP and SIGQUIT.
    pub signalled: Arc<AtomicBool>,
    /// Whether `/dev/tty` opened at start: only then can its failing later mean a hangup.
    had_tty: bool,
}

impl Guard {
    /// Enters raw mode and the alternate screen, installs the panic hook and the signal flags.
    pub(crate) fn enter() -> io::Result<Self> {
        install_panic_hook(Arc::new(restore));
        let signalled = Arc::new(AtomicBool::new(false));
        for sig in [
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
            signal_hook::consts::SIGQUIT,
        ] {
            signal_hook::flag::register(sig, Arc::clone(&signalled))?;
        }
        enable_raw_mode()?;
        if let Err(e) = enter_sequence(&mut io::stdout()) {
            restore();
            return Err(e);
        }
        Ok(Self {
            signalled,
            had_tty: std::fs::File::open("/dev/tty").is_ok(),
        })
    }

    /// Whether a termination signal arrived.
    pub(crate) fn signalled(&self) -> bool {
        self.signalled.load(Ordering::Relaxed)
    }

    /// Whether the terminal went away: after a hangup (a closed window, a dropped ssh
    /// session, `tmux kill-server`) the kernel detaches the session from the tty, and
    /// opening `/dev/tty` (our controlling terminal) fails from then on. Only meaningful when
    /// it opened at start: without a controlling terminal there is nothing to watch.
    pub(crate) fn hung_up(&self) -> bool {
        hung_up(self.had_tty)
    }

    /// Starts the watchdog thread that ends the process when the event loop cannot. On a
    /// hung-up tty crossterm's reader retries the failing `read` in a loop inside
    /// `event::poll` (seen with crossterm 0.29: EIO is neither `WouldBlock` nor
    /// `Interrupted`), so the loop never gets back to check the signal flag: the TUI spun at
    /// 100 % CPU after its terminal closed. Every 250 ms the watchdog checks: a terminal that
    /// is gone ends the process at once with 129 (128 + SIGHUP; there is no terminal left to
    /// restore), and a termination signal the loop has not acted on within 2 s ends it with
    /// 128 + 15 after restoring what can be restored.
    pub(crate) fn spawn_watchdog(&self) {
        let (signalled, had_tty) = (Arc::clone(&self.signalled), self.had_tty);
        // Without the thread the TUI still works; only the dead-terminal exit is lost.
        let _ = std::thread::Builder::new()
            .name("wasctl-tui-watchdog".to_owned())
            .spawn(move || {
                let mut signalled_ticks = 0u32;
                loop {
                    std::thread::sleep(std::time::Duration::from_millis(250));
                    if hung_up(had_tty) {
                        exit_now(129);
                    }
                    if signalled.load(Ordering::Relaxed) {
                        signalled_ticks += 1;
                        if signalled_ticks >= 8 {
                            restore();
                            exit_now(143);
                        }
                    }
                }
            });
    }
}

fn hung_up(had_tty: bool) -> bool {
    had_tty && std::fs::File::open("/dev/tty").is_err()
}

#[allow(
    clippy::exit,
    reason = "the event loop is stuck in crossterm's reader: only an exit ends it"
)]
fn exit_now(code: i32) -> ! {
    std::process::exit(code)
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restore_undoes_enter() {
        let mut enter = Vec::new();
        enter_sequence(&mut enter).expect("writes");
        let mut leave = Vec::new();
        restore_sequence(&mut leave).expect("writes");
        let (enter, leave) = (
            String::from_utf8_lossy(&enter).into_owned(),
            String::from_utf8_lossy(&leave).into_owned(),
        );
        // Alternate screen, mouse capture (SGR) and cursor, each turned back off.
        assert!(enter.contains("\u{1b}[?1049h") && leave.contains("\u{1b}[?1049l"));
        assert!(enter.contains("\u{1b}[?1006h") && leave.contains("\u{1b}[?1006l"));
        assert!(enter.contains("\u{1b}[?25l") && leave.contains("\u{1b}[?25h"));
    }

    /// A panic inside the app (here: on the UI thread, in a drawing closure) runs the hook's
    /// restore before unwinding; a panic on the worker thread is recorded and restores nothing.
    #[test]
    fn panic_in_the_app_restores_the_terminal() {
        let restored: Arc<Mutex<Vec<u8>>> = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&restored);
        let previous = std::panic::take_hook();
        install_panic_hook(Arc::new(move || {
            if let Ok(mut out) = sink.lock() {
                let _ = restore_sequence(&mut *out);
            }
        }));
        let worker = std::thread::Builder::new()
            .name(WORKER_THREAD.to_owned())
            .spawn(|| std::panic::catch_unwind(|| panic!("worker boom")).is_err())
            .expect("spawns")
            .join()
            .expect("joins");
        assert!(worker);
        let after_worker = restored.lock().expect("lock").len();
        let caught = std::panic::catch_unwind(|| {
            let backend = ratatui::backend::TestBackend::new(10, 2);
            let mut terminal = ratatui::Terminal::new(backend).expect("terminal");
            let _ = terminal.draw(|_| panic!("boom in the app"));
        });
        // Put the default hook back before asserting (other tests' panics print normally).
        std::panic::set_hook(previous);
        assert!(caught.is_err());
        assert_eq!(
            after_worker, 0,
            "a worker panic must not restore the terminal"
        );
        assert!(take_worker_panic().is_some_and(|m| m.contains("worker boom")));
        let bytes = restored.lock().expect("lock").clone();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains("\u{1b}[?1049l"),
            "left the alternate screen: {text:?}"
        );
        assert!(text.contains("\u{1b}[?25h"), "showed the cursor: {text:?}");
    }
}
