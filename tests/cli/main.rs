//! Integration tests of the `kubectl-wasctl` binary.

mod fake_apiserver;
