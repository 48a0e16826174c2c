//! `WASCTL_PROFILE=1`: a line on stderr at the end of each phase of a command (`read` the
//! files or `list` the cluster, build the `snapshot`, `simulate`, `done`) with the wall time
//! since the command started and the peak resident memory so far (`VmHWM` of `/proc/self/status`, Linux only).
//! For performance reports ("which phase takes the time, which one the memory"); the output is
//! not a contract and nothing else changes.

use std::io::Write as _;
use std::sync::OnceLock;
use std::time::Instant;

static START: OnceLock<Option<Instant>> = OnceLock::new();

/// Starts the clock (once, when [`super::run`] starts); a no-op unless `WASCTL_PROFILE` is
/// set to something other than empty or `0`.
pub(crate) fn start() {
    START.get_or_init(|| {
        std::env::var_os("WASCTL_PROFILE")
            .is_some_and(|v| !v.is_empty() && v != "0")
            .then(Instant::now)
    });
}

/// Reports the end of phase `name`.
pub(crate) fn phase(name: &str) {
    let Some(Some(start)) = START.get() else {
        return;
    };
    let peak = peak_rss_kb().map_or_else(|| "unknown".to_owned(), |kb| format!("{} MB", kb / 1024));
    let _ = writeln!(
        std::io::stderr().lock(),
        "wasctl profile: {name:<10} done at {:>7.3} s, peak RSS {peak}",
        start.elapsed().as_secs_f64()
    );
}

/// `VmHWM` (peak resident set size) in KB.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_hwm(&status)
}

fn parse_hwm(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_rss_is_read_from_proc_status() {
        let status =
            "Name:\tkubectl-wasctl\nVmPeak:\t  900 kB\nVmHWM:\t  123456 kB\nVmRSS:\t 1 kB\n";
        assert_eq!(parse_hwm(status), Some(123_456));
        assert_eq!(parse_hwm("Name: x\n"), None);
    }
}
