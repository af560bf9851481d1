//! What the fuzz targets share: readers that take a path get the input through a scratch file.

use std::path::PathBuf;

/// Writes `bytes` to a file named `name` in this process's scratch folder and returns its path.
/// One folder per process, so that parallel fuzzing jobs do not share files.
pub fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("patina-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the scratch folder can be made");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("the scratch file can be written");
    path
}
