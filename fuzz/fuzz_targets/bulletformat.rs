//! bulletformat records as the trainer maps them: a file that loads must give every position's
//! input features and target without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patina_fuzz::scratch_file;
use trainer::features::{target, Features};
use trainer::loader::Dataset;
use viriformat::dataformat::Filter;

fuzz_target!(|data: &[u8]| {
    let path = scratch_file("positions.data", data);
    let Ok(dataset) = Dataset::open(&[path], &[], &Filter::default()) else {
        return;
    };
    for index in 0..dataset.len() {
        let board = dataset.get(index);
        let features = Features::of(&board);
        assert!(features.stm().len() <= 32 && features.ntm().len() == features.stm().len());
        let t = target(&board, 0.5);
        assert!((0.0..=1.0).contains(&t), "target {t}");
    }
});
