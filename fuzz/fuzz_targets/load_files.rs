//! Fuzzes the one loader through its entry paths with one corpus: `--from FILE` (named
//! `.yaml` and `.json`), `--from -` (stdin, sniffed) and `lint` (which cuts documents with the
//! same scanner and lints them). Any bytes must load or fail with an error, never panic, hang
//! or exhaust memory. Run with `cargo +nightly fuzz run load_files`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wasctl::lint::{Input, Options, lint};
use wasctl::snapshot::source::Collector;
use wasctl::snapshot::source::files::{load_str, parse_documents};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for name in ["fuzz.yaml", "fuzz.json", "<stdin>"] {
            let mut collector = Collector::new();
            if load_str(text, name, &mut collector).is_ok() {
                let _ = collector.finish();
            }
            let _ = parse_documents(name, text);
        }
        let inputs = [Input {
            name: "fuzz.yaml".to_owned(),
            text: Ok(text.to_owned()),
        }];
        let _ = lint(&inputs, &Options::default(), None);
    }
});
