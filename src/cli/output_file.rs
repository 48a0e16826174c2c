//! Every file wasctl writes (`snapshot --file`, `lint -o FORMAT=FILE`, `generate`) goes
//! through [`write_file`]: written whole or not at all.
//!
//! A regular file (or a name that does not exist yet) is written to a temporary file in the
//! same directory, synced, and renamed over the target, so the old file stays intact until
//! the new one is complete, whatever fails (a full disk, a kill, a serializer error). A
//! symbolic link is followed to the file it names: the link stays, its target is replaced,
//! with the target's permission mode (and, when allowed, owner). A target that is not a
//! regular file (a device such as `/dev/null`, a FIFO, `/dev/stdout` or `/proc/self/fd/N`) is
//! written in place: it is never truncated-then-unlinked.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::Error;
use crate::sanitize::io_in_words;

/// How many symbolic links are followed before giving up (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Why a file could not be written: which step failed, in words, and the cause.
#[derive(Debug)]
pub(crate) struct WriteError {
    /// The path as the user named it.
    path: PathBuf,
    /// What was being done, when it is not the write itself (`cannot create a temporary
    /// file in `dir``).
    step: Option<String>,
    /// The cause.
    source: io::Error,
    /// True when a file existed at the target and is left as it was.
    unchanged: bool,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write `{}`: ", self.path.display())?;
        if let Some(step) = &self.step {
            write!(f, "{step}: ")?;
        }
        f.write_str(&io_in_words(&self.source))
    }
}

impl WriteError {
    /// The io error that caused this one.
    #[cfg(test)]
    pub(crate) fn kind(&self) -> io::ErrorKind {
        self.source.kind()
    }

    /// What to do about it.
    fn hint(&self) -> String {
        let kept = if self.unchanged {
            format!("`{}` is unchanged; ", self.path.display())
        } else {
            String::new()
        };
        let what = match self.source.kind() {
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => {
                "free some space on that disk, or write the file elsewhere"
            }
            io::ErrorKind::NotFound => "check that the directory exists",
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                "check the permissions of the file and of its directory (the file is written to a temporary file beside it, then renamed)"
            }
            _ => "check the path, or write the file elsewhere",
        };
        format!("{kept}{what}")
    }
}

impl From<WriteError> for Error {
    fn from(e: WriteError) -> Self {
        let hint = e.hint();
        Error::usage(e.to_string(), hint)
    }
}

/// Writes `path` with what `write` produces (see the module docs). `mode` forces the file's
/// permission bits (`generate` makes scripts executable); otherwise an existing target keeps
/// its mode and a new file gets `0666` less the umask.
pub(crate) fn write_file(
    path: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), WriteError> {
    let fail = |step: Option<String>, source: io::Error, unchanged: bool| WriteError {
        path: path.to_owned(),
        step,
        source,
        unchanged,
    };
    match target(path).map_err(|(step, e)| fail(step, e, false))? {
        Target::InPlace { truncate } => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(truncate)
                .open(path)
                .map_err(|e| fail(None, e, false))?;
            let mut out = io::BufWriter::with_capacity(1 << 16, file);
            write(&mut out)
                .and_then(|()| out.flush())
                .map_err(|e| fail(None, e, false))
        }
        Target::Replace { real, existing } => {
            let unchanged = existing.is_some();
            replace(&real, existing.as_ref(), mode, write).map_err(|(step, e)| WriteError {
                path: path.to_owned(),
                step,
                source: e,
                unchanged,
            })
        }
    }
}

/// Where and how a file is written.
#[derive(Debug)]
enum Target {
    /// Not a regular file (or reached through `/proc` or `/dev`): opened and written as is.
    InPlace {
        /// A regular file reached through `/proc/self/fd/N` is truncated first, as a shell's
        /// `>` would.
        truncate: bool,
    },
    /// A regular file, or a name that does not exist yet: replaced by rename.
    Replace {
        /// The path with every symbolic link followed.
        real: PathBuf,
        /// The metadata of the file replaced, if there is one.
        existing: Option<std::fs::Metadata>,
    },
}

type StepError = (Option<String>, io::Error);

fn target(path: &Path) -> Result<Target, StepError> {
    let special = |p: &Path| p.starts_with("/proc") || p.starts_with("/dev");
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err((None, io::Error::from(io::ErrorKind::IsADirectory))),
        Ok(m) if !m.is_file() => Ok(Target::InPlace { truncate: false }),
        Ok(m) => {
            let real = follow_links(path)?;
            // `/proc/self/fd/1` links to `/tmp/x (deleted)` or `pipe:[…]`: not a name to
            // rename onto.
            if special(path) || special(&real) {
                Ok(Target::InPlace { truncate: true })
            } else {
                Ok(Target::Replace {
                    real,
                    existing: Some(m),
                })
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A new file, or a link to one that does not exist yet (the link then names the
            // new file, as after `echo > link`).
            let real = follow_links(path)?;
            Ok(Target::Replace {
                real,
                existing: None,
            })
        }
        Err(e) => Err((None, e)),
    }
}

/// `path` with every symbolic link along the last component followed (a relative link is
/// read from the link's directory; directories are left to the kernel).
fn follow_links(path: &Path) -> Result<PathBuf, StepError> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p).map_err(|e| {
                    (
                        Some(format!("cannot read the symbolic link `{}`", p.display())),
                        e,
                    )
                })?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(p),
        }
    }
    Err((None, io::Error::other("too many levels of symbolic links")))
}

static SEQUENCE: AtomicU32 = AtomicU32::new(0);

/// Writes a temporary file beside `real`, syncs it and renames it over `real`; removes the
/// temporary file on any failure.
fn replace(
    real: &Path,
    existing: Option<&std::fs::Metadata>,
    mode: Option<u32>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), StepError> {
    let dir = match real.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // A file its owner made read-only stays protected, as with `>`: a rename would replace
    // it regardless (opening for writing, without truncating, changes nothing).
    if existing.is_some() {
        std::fs::OpenOptions::new()
            .write(true)
            .open(real)
            .map_err(|e| (None, e))?;
    }
    let (tmp, file) = create_temporary(dir)?;
    let result = (|| -> Result<(), StepError> {
        set_mode(&file, existing, mode).map_err(|e| {
            (
                Some("cannot set the permissions of the temporary file".to_owned()),
                e,
            )
        })?;
        let mut out = io::BufWriter::with_capacity(1 << 16, &file);
        write(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| (None, e))?;
        drop(out);
        file.sync_all().map_err(|e| (None, e))?;
        std::fs::rename(&tmp, real).map_err(|e| {
            (
                Some(format!(
                    "cannot rename the temporary file `{}` over it",
                    tmp.display()
                )),
                e,
            )
        })
    })();
    drop(file);
    match result {
        Ok(()) => {
            // The rename itself reaches the disk with the directory (best effort: some file
            // systems refuse to sync a directory).
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// A new, empty file in `dir` with a name no other file has: `.wasctl-PID-N.tmp`.
fn create_temporary(dir: &Path) -> Result<(PathBuf, std::fs::File), StepError> {
    let step = || {
        Some(format!(
            "cannot create a temporary file in `{}`",
            dir.display()
        ))
    };
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..64 {
        let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".wasctl-{}-{n}.tmp", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
        match options.open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err((step(), e)),
        }
    }
    Err((step(), last))
}

/// Gives the temporary file the forced `mode`, or the replaced file's mode and owner.
#[cfg(unix)]
fn set_mode(
    file: &std::fs::File,
    existing: Option<&std::fs::Metadata>,
    mode: Option<u32>,
) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    if let Some(m) = existing {
        // Keeping the owner needs privileges; a file of one's own needs nothing.
        let mine = file.metadata()?;
        if mine.uid() != m.uid() || mine.gid() != m.gid() {
            let _ = std::os::unix::fs::fchown(file, Some(m.uid()), Some(m.gid()));
        }
    }
    let bits = match (mode, existing) {
        (Some(mode), _) => mode,
        (None, Some(m)) => m.mode() & 0o7777,
        (None, None) => return Ok(()),
    };
    file.set_permissions(std::fs::Permissions::from_mode(bits))
}

#[cfg(not(unix))]
fn set_mode(
    file: &std::fs::File,
    existing: Option<&std::fs::Metadata>,
    _mode: Option<u32>,
) -> io::Result<()> {
    match existing {
        Some(m) => file.set_permissions(m.permissions()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &'static str) -> impl FnOnce(&mut dyn Write) -> io::Result<()> {
        move |out| out.write_all(s.as_bytes())
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".wasctl-") && n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn writes_a_new_file_and_replaces_an_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.yaml");
        write_file(&path, None, text("one\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n");
        write_file(&path, None, text("two\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_write_that_fails_midway_leaves_the_old_file_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("snap.yaml");
        std::fs::write(&path, "the old snapshot\n").unwrap();
        let err = write_file(&path, None, |out| {
            out.write_all(&[b'x'; 200_000])?;
            Err(io::Error::from(io::ErrorKind::StorageFull))
        })
        .unwrap_err();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "the old snapshot\n"
        );
        assert!(
            leftovers(dir.path()).is_empty(),
            "the temporary file is removed"
        );
        let message = err.to_string();
        assert_eq!(
            message,
            format!(
                "cannot write `{}`: disk full (no space left on device)",
                path.display()
            )
        );
        assert!(err.hint().contains("is unchanged"), "{}", err.hint());
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_stays_and_its_target_is_replaced_with_its_mode() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let real_dir = dir.path().join("real");
        std::fs::create_dir(&real_dir).unwrap();
        let real = real_dir.join("snap.yaml");
        std::fs::write(&real, "old\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink("real/snap.yaml", &link).unwrap();
        write_file(&link, None, text("new\n")).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link is kept"
        );
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            Path::new("real/snap.yaml")
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new\n");
        assert_eq!(
            std::fs::metadata(&real).unwrap().permissions().mode() & 0o7777,
            0o640
        );
        assert!(leftovers(dir.path()).is_empty() && leftovers(&real_dir).is_empty());
    }

    /// A read-only file is refused as `>` refuses it (root may write any file, as with `>`).
    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_not_replaced() {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kept.yaml");
        std::fs::write(&path, "kept\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let result = write_file(&path, None, text("new\n"));
        if std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0) {
            assert!(result.is_ok());
            return;
        }
        let err = result.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept\n");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_link_gets_its_target_created() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink("new.yaml", &link).unwrap();
        write_file(&link, None, text("hello\n")).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("new.yaml")).unwrap(),
            "hello\n"
        );
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_forced_mode_makes_a_script_executable() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.sh");
        std::fs::write(&path, "old").unwrap();
        write_file(&path, Some(0o755), text("#!/bin/sh\n")).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
            0o755
        );
    }

    #[test]
    fn a_directory_is_refused_and_a_missing_directory_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_file(dir.path(), None, text("x")).unwrap_err();
        assert!(err.to_string().ends_with(": it is a directory"), "{err}");
        let missing = dir.path().join("no/such/dir/out.yaml");
        let err = write_file(&missing, None, text("x")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(
            err.to_string()
                .contains("cannot create a temporary file in")
                && err.to_string().ends_with("no such file or directory"),
            "{err}"
        );
    }

    /// `/dev/full` (and a link to it) is written in place: the write fails with a clean
    /// "disk full", and the device node survives (as root the old code unlinked it).
    #[cfg(target_os = "linux")]
    #[test]
    fn dev_full_is_written_in_place_and_survives() {
        use std::os::unix::fs::FileTypeExt as _;
        let full = Path::new("/dev/full");
        if !std::fs::metadata(full).is_ok_and(|m| m.file_type().is_char_device()) {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("full");
        std::os::unix::fs::symlink(full, &link).unwrap();
        for path in [full, link.as_path()] {
            let err = write_file(path, None, text("data\n")).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::StorageFull);
            assert!(
                err.to_string()
                    .ends_with(": disk full (no space left on device)")
            );
            assert!(
                std::fs::metadata(full)
                    .unwrap()
                    .file_type()
                    .is_char_device()
            );
        }
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(leftovers(Path::new("/dev")).is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn dev_null_is_written_in_place() {
        use std::os::unix::fs::FileTypeExt as _;
        write_file(Path::new("/dev/null"), None, text("gone\n")).unwrap();
        assert!(
            std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}
