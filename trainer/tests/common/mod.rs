//! Helpers shared by the trainer's integration tests.

use std::path::PathBuf;

/// An empty scratch folder of this test process, named for the test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("patina-trainer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
