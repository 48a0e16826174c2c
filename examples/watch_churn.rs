//! Memory under churn (issue 50's budget): `EVENTS` scripted watch events (default 360,000,
//! an hour at 100 events/s) on the synthetic S cluster (1,000 nodes, 30,000 running pods),
//! applied as fast as they can be, refreshed per batch of 20 (what `--watch` coalesces in
//! 200 ms at 100 events/s). Prints the peak RSS (`VmHWM` of `/proc/self/status`, Linux; reset
//! after loading, whose own peak is higher) after the first 10 % of the events and at the
//! end, and the growth in between; the budget is < 5 %. Not a test: run it by hand (docs/performance.md says how, and the last figures).
//!
//! `cargo run --release --features testutil --example watch_churn -- [EVENTS]`
//!
//! With `compare` instead of a count, it times one event to an updated index and to an
//! updated plan instead, in place and with everything rebuilt (what the B11 bench times,
//! for a build where the release bench is too slow to make): the mean of a few events each.

#![allow(clippy::print_stdout)]

use std::time::Instant;

use wasctl::sched::{Options, simulate};
use wasctl::testutil::synthetic::{
    Profile, apply_event, churn_event, refresh_in_place, refresh_rebuild, snapshot,
};

/// A line of `/proc/self/status` (`VmHWM`, `VmRSS`), in KB; 0 where there is none.
fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The mean time of `runs` calls of `f`, in ms.
fn mean_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let started = Instant::now();
    for _ in 0..runs {
        f();
    }
    started.elapsed().as_secs_f64() * 1000.0 / runs as f64
}

/// `compare`: one event to an updated index, and to an updated plan, in place and rebuilt.
fn compare() -> Result<(), String> {
    let p = Profile {
        gangs: vec![(50, 8)],
        ..Profile::with_nodes(1_000)
    };
    let mut s = snapshot(&p, 1);
    let mut t = 0;
    let mut step = |s: &mut wasctl::snapshot::Snapshot,
                    refresh: fn(&mut wasctl::snapshot::Snapshot)| {
        let e = churn_event(&p, t);
        t += 1;
        let applied = apply_event(s, &e);
        refresh(s);
        applied
    };
    let mut failed = None;
    let mut run = |s: &mut wasctl::snapshot::Snapshot, refresh, plan: bool| {
        if let Err(e) = step(s, refresh) {
            failed = Some(e);
        }
        if plan {
            std::hint::black_box(simulate(s, &Options::default()));
        }
    };
    let index_in_place = mean_ms(600, || run(&mut s, refresh_in_place, false));
    let index_rebuild = mean_ms(30, || run(&mut s, refresh_rebuild, false));
    let plan_in_place = mean_ms(6, || run(&mut s, refresh_in_place, true));
    let plan_rebuild = mean_ms(6, || run(&mut s, refresh_rebuild, true));
    let clone = mean_ms(10, || drop(std::hint::black_box(s.clone())));
    if let Some(e) = failed {
        return Err(e);
    }
    println!("S ({} pods), mean per event:", s.pods.len());
    println!("  event to index: in place {index_in_place:.3} ms, rebuilt {index_rebuild:.1} ms");
    println!("  event to plan:  in place {plan_in_place:.0} ms, rebuilt {plan_rebuild:.0} ms");
    println!("  snapshot clone: {clone:.1} ms");
    Ok(())
}

fn main() -> Result<(), String> {
    let events: usize = match std::env::args().nth(1) {
        Some(c) if c == "compare" => return compare(),
        Some(n) => n.parse().map_err(|e| format!("EVENTS `{n}`: {e}"))?,
        None => 360_000,
    };
    let p = Profile::with_nodes(1_000);
    let mut s = snapshot(&p, 1);
    let loaded = status_kb("VmHWM:");
    // Loading peaks higher than the churn (the JSON values of 30,000 pods): the peak is
    // reset (Linux's `clear_refs` 5), so the figures below are the churn's own.
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    println!(
        "S loaded: {} pods, peak RSS {loaded} KB, RSS {} KB; peak reset: {reset}",
        s.pods.len(),
        status_kb("VmRSS:")
    );
    let started = Instant::now();
    let tenth = (events / 10).max(1);
    let mut at_tenth = 0;
    for t in 0..events {
        apply_event(&mut s, &churn_event(&p, t))?;
        if t % 20 == 19 {
            refresh_in_place(&mut s);
        }
        if (t + 1) % tenth == 0 {
            let peak = status_kb("VmHWM:");
            if t + 1 == tenth {
                at_tenth = peak;
            }
            println!(
                "after {} events ({:.1} s): peak RSS {peak} KB, RSS {} KB",
                t + 1,
                started.elapsed().as_secs_f64(),
                status_kb("VmRSS:")
            );
        }
    }
    refresh_in_place(&mut s);
    let end = status_kb("VmHWM:");
    let secs = started.elapsed().as_secs_f64();
    println!(
        "after {events} events ({secs:.1} s, {:.0} events/s): peak RSS {end} KB, RSS {} KB, {} pods",
        events as f64 / secs,
        status_kb("VmRSS:"),
        s.pods.len()
    );
    let growth = (end as f64 - at_tenth as f64) * 100.0 / at_tenth.max(1) as f64;
    println!("peak RSS growth after the first 10 %: {growth:.2} % (budget < 5 %)");
    Ok(())
}
