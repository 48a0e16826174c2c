//! Fuzzes the `--from` loader: any bytes, as YAML or JSON, must load or fail with an error,
//! never panic, hang or exhaust memory. Run with `cargo +nightly fuzz run load_files`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wasctl::snapshot::source::Collector;
use wasctl::snapshot::source::files::load_str;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for name in ["fuzz.yaml", "fuzz.json"] {
            let mut collector = Collector::new();
            if load_str(text, name, &mut collector).is_ok() {
                let _ = collector.finish();
            }
        }
    }
});
