//! Color decisions and styling helpers (owo-colors).
//!
//! Color is on only when the output is a terminal and `NO_COLOR` is unset (or forced with
//! `--color always`). Renderers receive the decision as a [`ColorChoice`] and style through
//! [`Styler`], so tests render without color.

use std::fmt::Display;

use owo_colors::OwoColorize;

/// Whether to emit ANSI colors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ColorChoice {
    /// Plain text.
    #[default]
    Never,
    /// ANSI colors.
    Always,
}

impl ColorChoice {
    /// Decides for one stream: `flag` is `--color` (auto|always|never).
    pub(crate) fn decide(flag: ColorFlag, is_terminal: bool, no_color_env: bool) -> Self {
        match flag {
            ColorFlag::Always => Self::Always,
            ColorFlag::Never => Self::Never,
            ColorFlag::Auto if is_terminal && !no_color_env => Self::Always,
            ColorFlag::Auto => Self::Never,
        }
    }

    /// A styler for this choice.
    pub(crate) fn styler(self) -> Styler {
        Styler {
            on: self == Self::Always,
        }
    }
}

/// The `--color` flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorFlag {
    /// Color on a terminal when `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

/// Applies styles when colors are on, and nothing otherwise.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Styler {
    on: bool,
}

impl Styler {
    /// Red: broken references, errors.
    pub(crate) fn error(self, s: impl Display) -> String {
        if self.on {
            s.red().bold().to_string()
        } else {
            s.to_string()
        }
    }
    /// Yellow: pending, warnings.
    pub(crate) fn warn(self, s: impl Display) -> String {
        if self.on {
            s.yellow().to_string()
        } else {
            s.to_string()
        }
    }
    /// Green: running, scheduled.
    pub(crate) fn ok(self, s: impl Display) -> String {
        if self.on {
            s.green().to_string()
        } else {
            s.to_string()
        }
    }
    /// Dim: secondary details.
    pub(crate) fn dim(self, s: impl Display) -> String {
        if self.on {
            s.dimmed().to_string()
        } else {
            s.to_string()
        }
    }
    /// Bold: names and headers.
    pub(crate) fn bold(self, s: impl Display) -> String {
        if self.on {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn color_only_on_terminals_without_no_color() {
        assert_eq!(
            ColorChoice::decide(ColorFlag::Auto, true, false),
            ColorChoice::Always
        );
        assert_eq!(
            ColorChoice::decide(ColorFlag::Auto, false, false),
            ColorChoice::Never
        );
        assert_eq!(
            ColorChoice::decide(ColorFlag::Auto, true, true),
            ColorChoice::Never
        );
        assert_eq!(
            ColorChoice::decide(ColorFlag::Always, false, true),
            ColorChoice::Always
        );
        assert_eq!(ColorChoice::Never.styler().error("x"), "x");
        assert!(ColorChoice::Always.styler().error("x").contains("\u{1b}["));
    }
}
