//! bulletformat records as the trainer maps them: a file that loads must give every position's
//! input features and target without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patina::nnue::KingBuckets;
use patina_fuzz::scratch_file;
use trainer::features::{target, Features, InputLayout};
use trainer::loader::Dataset;
use viriformat::dataformat::Filter;

fuzz_target!(|data: &[u8]| {
    let path = scratch_file("positions.data", data);
    let Ok(dataset) = Dataset::open(&[path], &[], &Filter::default()) else {
        return;
    };
    // Plain inputs, and the widest layout: 16 king buckets with a factoriser after them.
    let widest = InputLayout {
        king_buckets: KingBuckets::with_count(16).expect("a map for 16 buckets"),
        factoriser: true,
    };
    for index in 0..dataset.len() {
        let board = dataset.get(index);
        for (layout, rows) in [(InputLayout::plain(), 768), (widest, 17 * 768)] {
            let features = Features::of(&board, &layout);
            assert!(features.pieces <= 32 && features.ntm().len() == features.stm().len());
            let mut all = features.stm().iter().chain(features.ntm());
            assert!(all.all(|&row| usize::from(row) < rows));
        }
        let t = target(&board, 0.5);
        assert!((0.0..=1.0).contains(&t), "target {t}");
    }
});
