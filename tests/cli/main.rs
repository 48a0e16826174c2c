//! Integration tests of the `kubectl-wasctl` binary: one test binary, one module per command
//! (ripgrep/ruff layout). `support` runs the binary; `fake_apiserver` serves a cluster on
//! 127.0.0.1 for live-mode tests.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers panic on broken fixtures by design"
)]

mod admission;
mod bad_input;
mod capacity;
mod completion;
mod consistency;
mod diff;
mod distribution;
mod doctor;
mod dumps;
mod explain;
mod fake_apiserver;
mod integrations;
mod kueue;
mod kueue_config;
mod lint;
mod lint_crd;
mod live;
mod loader;
mod mcp;
mod misleading;
mod notes;
mod other_schedulers;
mod output;
mod pipe;
mod plugin;
mod readme;
mod reliability;
mod scenarios;
mod scheduler_config;
mod shadow;
mod simulate;
mod snapshot;
mod support;
mod tree;
mod tui;
mod version;
mod watch;
