//! Trainer checkpoints: one that reads must write back to the same bytes and give a
//! configuration to resume with (or a clear error).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use trainer::checkpoint::Checkpoint;

fuzz_target!(|data: &[u8]| {
    let Ok(checkpoint) = Checkpoint::from_bytes(data) else {
        return;
    };
    let bytes = checkpoint.to_bytes();
    assert_eq!(Checkpoint::from_bytes(&bytes).as_ref(), Ok(&checkpoint));
    if let Ok(config) = checkpoint.resume_config(Path::new("run/checkpoint.bin"), None) {
        let _ = config.validate();
    }
});
