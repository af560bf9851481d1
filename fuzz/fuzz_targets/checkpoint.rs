//! Trainer checkpoints: one that reads must write back to the same bytes and give a
//! configuration to resume with (or a clear error).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use trainer::checkpoint::{checksum, Checkpoint};

fn read(bytes: &[u8]) {
    let Ok(checkpoint) = Checkpoint::from_bytes(bytes) else {
        return;
    };
    // Compared as bytes: a diverged run's history holds NaN losses, which equal nothing.
    let written = checkpoint.to_bytes();
    let again = Checkpoint::from_bytes(&written).expect("a written checkpoint reads");
    assert_eq!(again.to_bytes(), written);
    if let Ok(config) = checkpoint.resume_config(Path::new("run/checkpoint.bin"), None) {
        let _ = config.validate();
    }
}

fuzz_target!(|data: &[u8]| {
    read(data);
    // A mutation almost always breaks the checksum, which stops the reader at once: the input
    // is also read as a body sealed with its checksum, so that the fields behind it are reached.
    let mut sealed = data.to_vec();
    sealed.extend_from_slice(&checksum(data).to_le_bytes());
    read(&sealed);
});
