//! Test and bench helpers: a seeded synthetic cluster generator (benches, property tests) and
//! a realistic one (objects shaped like API-server output, for load benches at scale).
//! Compiled only for tests and with the `testutil` feature.

pub mod kueue;
pub mod realistic;
pub mod synthetic;

/// The explain and scenario fixtures (`testdata/{explain,scenarios}/NAME/cluster.yaml`) that
/// load, in name order, each with its directory: for tests that compare two ways of planning
/// on every fixture. Paths are relative to the crate root, where `cargo test` runs. A fixture
/// made to fail loading is left out (the scenario tests check its error).
#[cfg(test)]
pub(crate) fn fixture_clusters() -> Vec<(std::path::PathBuf, crate::snapshot::Snapshot)> {
    let mut dirs: Vec<std::path::PathBuf> = ["testdata/explain", "testdata/scenarios"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("fixture directory"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .filter_map(|dir| {
            let mut c = crate::snapshot::source::Collector::new();
            crate::snapshot::source::files::load_path(&dir.join("cluster.yaml"), &mut c).ok()?;
            Some((dir, c.finish()))
        })
        .collect()
}
