//! Realistic dumps (issue 15): objects shaped like API-server output, written one at a time.
//!
//! `cargo bench --features testutil --bench realistic -- write DIR` writes `s.json`, `s.yaml`,
//! `l.json` (S: 1,000 nodes / 30,000 pods; L: 5,000 nodes / 150,000 pods) to DIR, for timing
//! the whole command with `/usr/bin/time -f "%e s %M KB" kubectl-wasctl simulate --from …`.
//! Generated dumps are never committed. Without `write`, a criterion bench loads a realistic
//! 200-node cluster (6,000 pods) from JSON and from YAML. No test asserts on timing.

// The writer mode reports what it wrote.
#![allow(clippy::print_stderr)]

use std::hint::black_box;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use wasctl::snapshot::source::Collector;
use wasctl::snapshot::source::files::load_str;
use wasctl::testutil::realistic::{Layout, RealisticProfile, write};

fn write_dumps(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, profile, layout) in [
        ("s.json", RealisticProfile::small(), Layout::JsonList),
        ("s.yaml", RealisticProfile::small(), Layout::YamlStream),
        ("l.json", RealisticProfile::large(), Layout::JsonList),
    ] {
        let path = dir.join(name);
        let mut out = BufWriter::new(std::fs::File::create(&path)?);
        let n = write(&mut out, &profile, 1, layout)?;
        drop(out);
        let size = std::fs::metadata(&path)?.len();
        eprintln!("{}: {n} objects, {size} bytes", path.display());
    }
    Ok(())
}

fn bench(c: &mut Criterion) {
    let profile = RealisticProfile {
        nodes: 200,
        running_pods: 6_000,
        gangs: (10, 8),
        stuck: 0,
    };
    for (name, layout, file) in [
        ("json_200_nodes_6k_pods", Layout::JsonList, "bench.json"),
        ("yaml_200_nodes_6k_pods", Layout::YamlStream, "bench.yaml"),
    ] {
        let mut bytes = Vec::new();
        write(&mut bytes, &profile, 1, layout).expect("writing to memory");
        let text = String::from_utf8(bytes).expect("the generator writes UTF-8");
        let mut group = c.benchmark_group("R1_load_realistic");
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(15));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter_with_large_drop(|| {
                let mut collector = Collector::new();
                load_str(black_box(&text), file, &mut collector).expect("realistic input loads");
                collector.finish()
            });
        });
        group.finish();
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "write") {
        let dir = args.get(i + 1).map_or("realistic-dumps", String::as_str);
        if let Err(e) = write_dumps(Path::new(dir)) {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
        return std::process::ExitCode::SUCCESS;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
    std::process::ExitCode::SUCCESS
}
