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
    // Only the checked-out branch's ref: watching all of `.git/refs/heads` rebuilt the
    // crate whenever any other branch (or worktree) committed.
    if let Ok(head) = std::fs::read_to_string(".git/HEAD") {
        println!("cargo:rerun-if-changed=.git/HEAD");
        if let Some(branch) = head.trim().strip_prefix("ref: ") {
            let loose = format!(".git/{branch}");
            if std::path::Path::new(&loose).exists() {
                println!("cargo:rerun-if-changed={loose}");
            }
            if std::path::Path::new(".git/packed-refs").exists() {
                println!("cargo:rerun-if-changed=.git/packed-refs");
            }
        }
    }
}
