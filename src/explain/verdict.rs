//! explain's one-word `verdict`, a documented JSON value kept for its readers, derived from the
//! simulator's [`Outcome`] and nowhere else. Everything else — explain's text, its JSON
//! `outcome`, simulate, tree, the TUI, capacity and diff — says the [`Outcome`] itself.

use serde::Serialize;

use crate::sched::plan::Outcome;

/// The one-word answer of explain's JSON `verdict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Already running; see the health finding.
    Scheduled,
    /// Would be placed now.
    Schedulable,
    /// Would be placed after evicting victims.
    NeedsPreemption,
    /// Held before scheduling (PreEnqueue), or a suspended Job.
    Waiting,
    /// Cannot be placed.
    Unschedulable,
}

impl From<Outcome> for Verdict {
    /// The verdict for a unit the simulator tried: Scheduled → Schedulable, Preempting →
    /// NeedsPreemption, Waiting, Suspended and NotSimulated (another scheduler places it) →
    /// Waiting, Unschedulable and Error → Unschedulable.
    fn from(o: Outcome) -> Self {
        match o {
            Outcome::Scheduled => Self::Schedulable,
            Outcome::Preempting => Self::NeedsPreemption,
            Outcome::Waiting | Outcome::Suspended | Outcome::NotSimulated => Self::Waiting,
            Outcome::Unschedulable | Outcome::Error => Self::Unschedulable,
        }
    }
}
