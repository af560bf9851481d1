//! Output files that appear whole or not at all: written under a temporary name beside the
//! target, synced, then renamed over it. A run killed or failing midway leaves the old file
//! (or none), never a short one that a reader would take for complete.
//!
//! A crate of its own because datagen (games, splats, PGN conversions) and the trainer (nets,
//! checkpoints, plots) both write this way; neither is the other's file utility.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

pub struct WholeFile {
    file: BufWriter<NamedTempFile>,
    path: PathBuf,
}

impl WholeFile {
    /// Starts the file; nothing appears at `path` until `commit`. An output that is one of
    /// `inputs` is refused: it would replace what it is made from.
    pub fn create(path: &Path, inputs: &[PathBuf]) -> io::Result<Self> {
        if let Ok(output) = path.canonicalize() {
            if inputs
                .iter()
                .any(|input| input.canonicalize().is_ok_and(|input| input == output))
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the output is also an input: choose another output file",
                ));
            }
        }
        let temporary = temporary_beside(path, "")?;
        Ok(Self {
            file: BufWriter::with_capacity(1 << 20, temporary),
            path: path.to_owned(),
        })
    }

    /// Syncs the data and puts the file in place, replacing any file there.
    pub fn commit(self) -> io::Result<()> {
        let temporary = self.file.into_inner().map_err(|e| e.into_error())?;
        temporary.as_file().sync_all()?;
        temporary.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for WholeFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.file.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// A hidden temporary file in `path`'s folder, to be renamed over it, whose permissions are
/// those of a file created there as usual (tempfile's own default, owner-only, would stay with
/// the renamed file). Its name, `.<file name>.<random>`, says whose it is if a killed run
/// leaves it behind.
pub fn temporary_beside(path: &Path, suffix: &str) -> io::Result<NamedTempFile> {
    let prefix = match path.file_name() {
        Some(name) => format!(".{}.", name.to_string_lossy()),
        None => ".".to_string(),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Reduced by the umask, as for any new file.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(folder_of(path))
}

/// The folder `path` is in: its parent, or the working directory for a bare file name.
pub fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// `bytes` as the whole new content of `path`.
pub fn write_whole_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = WholeFile::create(path, &[])?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_appears_before_commit_and_a_dropped_file_leaves_no_trace() {
        let dir = std::env::temp_dir().join(format!("patina-whole-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.bin");
        std::fs::write(&path, b"old").unwrap();

        let mut file = WholeFile::create(&path, &[]).unwrap();
        file.write_all(b"new content").unwrap();
        file.flush().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(
            names.iter().any(|name| name.starts_with(".out.bin.")),
            "the temporary names its target: {names:?}"
        );
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "temporary removed"
        );

        write_whole_file(&path, b"new content").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new content");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("games.vf");
        std::fs::write(&input, b"games").unwrap();
        // The same file by another name is still the input.
        let same = dir.path().join(".").join("games.vf");
        let error = WholeFile::create(&same, &[dir.path().join("other.vf"), input.clone()])
            .err()
            .expect("refused");
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(std::fs::read(&input).unwrap(), b"games");
        assert!(WholeFile::create(&dir.path().join("out.bin"), &[input]).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn the_file_gets_the_permissions_of_an_ordinary_new_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let ordinary = dir.path().join("ordinary");
        std::fs::write(&ordinary, b"x").unwrap();
        let whole = dir.path().join("whole");
        write_whole_file(&whole, b"x").unwrap();
        assert_eq!(mode(&whole), mode(&ordinary));
    }
}
