//! The one-word answer, derived from the simulator's outcome and nowhere else, so that
//! explain, simulate, tree, the TUI, capacity and diff say the same thing about a unit.

use serde::Serialize;

use crate::sched::plan::Outcome;

/// The one-word answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Already running; see the health finding.
    Scheduled,
    /// Would be placed now.
    Schedulable,
    /// Would be placed after evicting victims.
    NeedsPreemption,
    /// Held before scheduling (PreEnqueue).
    Waiting,
    /// Cannot be placed.
    Unschedulable,
}

impl From<Outcome> for Verdict {
    /// The verdict for a unit the simulator tried: Scheduled → Schedulable, Preempting →
    /// NeedsPreemption, Waiting → Waiting, Unschedulable and Error → Unschedulable.
    fn from(o: Outcome) -> Self {
        match o {
            Outcome::Scheduled => Self::Schedulable,
            Outcome::Preempting => Self::NeedsPreemption,
            Outcome::Waiting => Self::Waiting,
            Outcome::Unschedulable | Outcome::Error => Self::Unschedulable,
        }
    }
}
