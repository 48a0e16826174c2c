//! Test and bench helpers: a seeded synthetic cluster generator (benches, property tests) and
//! a realistic one (objects shaped like API-server output, for load benches at scale).
//! Compiled only for tests and with the `testutil` feature.

pub mod realistic;
pub mod synthetic;
