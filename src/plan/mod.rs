//! Planning on top of the simulator: [`capacity`] (how many more copies of a gang shape fit,
//! placed one after another by the simulator) and [`diff`] (two snapshots' plans compared, with
//! the changes between the snapshots that the units' filters looked at), and [`watch`] (what
//! changed for each unit between two results while `--watch` follows the cluster).
//!
//! Pure: no IO, no printing. Neither module schedules anything itself: every placement,
//! rejection and victim comes from [`crate::sched`], every verdict from
//! [`crate::explain::Verdict`] and every "why" from the simulator's trace and explain.

pub mod capacity;
pub(crate) mod diff;
pub(crate) mod kueue_capacity;
pub(crate) mod shadow;
pub(crate) mod watch;
