//! Test and bench helpers: a seeded synthetic cluster generator (benches, property tests).
//! Compiled only for tests and with the `testutil` feature.

pub mod synthetic;
