//! Styles. With colour, only the terminal's own named ANSI colours are used (they follow its
//! light or dark palette) and never a background colour, so text keeps the contrast the
//! terminal's theme gives it; the cursor row is reversed video. With `NO_COLOR` (or
//! `--color never`) every style is a modifier only: bold, reversed, underlined.

use ratatui::style::{Color, Modifier, Style};

use crate::sched::plan::Outcome;

/// The TUI's styles.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Theme {
    color: bool,
}

impl Theme {
    /// A theme with or without colours.
    pub(crate) fn new(color: bool) -> Self {
        Self { color }
    }

    fn fg(self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    /// Column headers and titles.
    pub(crate) fn header(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// The selected row: reversed video, whatever the row's own colours.
    pub(crate) fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// Good: running, scheduled, schedulable.
    pub(crate) fn ok(self) -> Style {
        self.fg(Color::Green)
    }

    /// Needs attention: pending, waiting, preempting, warnings.
    pub(crate) fn warn(self) -> Style {
        self.fg(Color::Yellow)
    }

    /// Bad: unschedulable, errors, missing objects.
    pub(crate) fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// Secondary details.
    pub(crate) fn dim(self) -> Style {
        if self.color {
            Style::new().add_modifier(Modifier::DIM)
        } else {
            Style::new()
        }
    }

    /// The part of a name that matches the filter.
    pub(crate) fn matched(self) -> Style {
        self.fg(Color::Magenta)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// Keys in the help and the status line.
    pub(crate) fn key(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// A simulator outcome's style: [`Theme::ok`] for Scheduled, [`Theme::warn`] for Waiting,
    /// Preempting, Suspended and NotSimulated, [`Theme::error`] for Unschedulable and Error.
    pub(crate) fn outcome(self, o: Outcome) -> Style {
        match o {
            Outcome::Scheduled => self.ok(),
            Outcome::Waiting | Outcome::Preempting | Outcome::Suspended | Outcome::NotSimulated => {
                self.warn()
            }
            Outcome::Unschedulable | Outcome::Error => self.error(),
        }
    }

    /// A status word from the tree (`Running`, `Pending`, `Unschedulable`, …).
    pub(crate) fn status(self, s: &str) -> Style {
        let first = s.split(',').next().unwrap_or("");
        match first {
            "Running" | "Scheduled" | "Succeeded" => self.ok(),
            _ if first.starts_with("Allocated") => self.ok(),
            "Pending" | "NoPods" => self.warn(),
            "Failed" | "Unschedulable" | "SchedulerError" => self.error(),
            _ => Style::new(),
        }
    }
}
