//! Records the git commit, its date and the target triple for `kubectl wasctl version`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    let commit = std::env::var("WASCTL_COMMIT")
        .ok()
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]));
    let date = std::env::var("WASCTL_BUILD_DATE")
        .ok()
        .or_else(|| git(&["log", "-1", "--format=%cs"]));
    println!(
        "cargo:rustc-env=WASCTL_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    println!(
        "cargo:rustc-env=WASCTL_BUILD_DATE={}",
        date.as_deref().unwrap_or("unknown")
    );
    println!(
        "cargo:rustc-env=WASCTL_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!("cargo:rerun-if-env-changed=WASCTL_COMMIT");
    println!("cargo:rerun-if-env-changed=WASCTL_BUILD_DATE");
    if std::path::Path::new(".git/HEAD").exists() {
        println!("cargo:rerun-if-changed=.git/HEAD");
        println!("cargo:rerun-if-changed=.git/refs/heads");
    }
}
