//! Errors that stop wasctl from doing its job, their exit codes, and how they are shown.
//!
//! Outcomes (an unschedulable gang, a lint finding) are never errors: they live in reports.
//! An [`Error`] means wasctl could not run. [`Error::exit_status`] maps each one to the exit
//! codes of the architecture (2 for usage or input errors, 3 for cluster access errors), and
//! [`write_error_chain`] renders it as `error:` / `caused by:` / `hint:` lines.

use std::fmt::Write as _;
use std::io;
use std::process::ExitCode;

use crate::snapshot::source::files::LoadError;
use crate::snapshot::source::live::AccessError;

/// The process exit status, as documented in docs/guide/README.md ("Exit codes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// The command ran and found nothing at or above the failing severity.
    Success,
    /// Findings at or above the failing severity, or an unschedulable target when asked.
    Findings,
    /// Bad usage or bad input (flags, files, manifests).
    Input,
    /// The cluster could not be reached or read.
    ClusterAccess,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        match status {
            ExitStatus::Success => Self::from(0),
            ExitStatus::Findings => Self::from(1),
            ExitStatus::Input => Self::from(2),
            ExitStatus::ClusterAccess => Self::from(3),
        }
    }
}

/// Everything that can stop a wasctl command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file, directory or stdin could not be read or parsed.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The cluster could not be reached, or refused the request.
    #[error(transparent)]
    Access(#[from] AccessError),
    /// A flag or argument is wrong in a way clap cannot see (e.g. an unknown target kind).
    #[error("{message}")]
    Usage {
        /// What is wrong, values in backticks.
        message: String,
        /// What to do about it.
        hint: Option<String>,
    },
    /// Writing the output failed (other than a closed pipe, which is not an error).
    #[error("cannot write output")]
    Output(#[source] io::Error),
    /// The target exists only in an API version 1.37 no longer serves (doctor `WASD107`):
    /// nothing acts on it, so there is nothing to show or explain. A finding about the target,
    /// exit 1.
    #[error("{message}")]
    Stale {
        /// Which object, in which version, in doctor's words.
        message: String,
        /// Doctor's fix.
        hint: Option<String>,
    },
    /// The cluster was reached but a kind the command cannot do without could not be read.
    #[error("{message}")]
    Incomplete {
        /// What could not be read, values in backticks.
        message: String,
        /// What to do about it.
        hint: Option<String>,
    },
}

impl Error {
    /// A usage error with a hint.
    pub(crate) fn usage(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::Usage {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    /// The exit status this error maps to.
    pub fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Load(_) | Self::Usage { .. } | Self::Output(_) => ExitStatus::Input,
            Self::Access(_) | Self::Incomplete { .. } => ExitStatus::ClusterAccess,
            Self::Stale { .. } => ExitStatus::Findings,
        }
    }

    /// True when the error is a closed pipe on stdout (`wasctl … | head`), which exits 0.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Self::Output(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }

    /// A suggestion shown after the error, if there is one.
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            Self::Load(e) => e.hint(),
            Self::Access(e) => e.hint(),
            Self::Usage { hint, .. } | Self::Incomplete { hint, .. } | Self::Stale { hint, .. } => {
                hint.clone()
            }
            Self::Output(_) => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Self::Output(e)
    }
}

/// Renders `error: …`, one `  caused by: …` per source, then `hint: …` lines.
pub fn write_error_chain(err: &Error) -> String {
    let out = error_chain_text(err);
    // Messages carry names, paths and API-server text: no terminal control characters and no
    // URL credentials reach stderr.
    let out = crate::sanitize::redact_userinfo(&out).into_owned();
    crate::sanitize::sanitize_lines(&out).into_owned()
}

fn error_chain_text(err: &Error) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "error: {err}");
    let mut source = std::error::Error::source(err);
    // `transparent` variants forward `source()` to the inner error, whose own message is
    // already the headline; skip a cause that repeats the headline.
    let headline = err.to_string();
    while let Some(cause) = source {
        let text = cause.to_string();
        if text != headline {
            let _ = writeln!(out, "  caused by: {text}");
        }
        source = cause.source();
    }
    if let Some(hint) = err.hint() {
        let _ = writeln!(out, "\nhint: {hint}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_exit_2_and_show_hint() {
        let err = Error::usage("unknown kind `foo`", "use one of `workload/`, `pg/`");
        assert_eq!(err.exit_status(), ExitStatus::Input);
        assert_eq!(
            write_error_chain(&err),
            "error: unknown kind `foo`\n\nhint: use one of `workload/`, `pg/`\n"
        );
    }

    #[test]
    fn broken_pipe_is_recognised() {
        let err = Error::from(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(err.is_broken_pipe());
        let other = Error::from(io::Error::other("disk full"));
        assert!(!other.is_broken_pipe());
    }
}
