//! Training throughput for several hidden sizes and thread counts on generated data.
//!
//! Each measurement runs full training steps (sampling, features, forward, backward, gradient
//! reduction, AdamW) at bullet's batch size, after one warm-up step.

use std::time::Instant;

use crate::error::Result;
use crate::loader::Dataset;
use crate::model::Model;
use crate::shuffle::Split;
use crate::synthetic;
use crate::train::Trainer;

pub const BATCH_SIZE: usize = 16_384;

pub struct Measurement {
    pub hidden: usize,
    pub threads: usize,
    pub positions_per_second: f64,
}

/// Generates `positions` positions and times `batches` batches for every N and thread count,
/// calling `report` as each result arrives.
pub fn run(
    positions: usize,
    batches: usize,
    hidden: &[usize],
    threads: &[usize],
    shuffle: bool,
    mut report: impl FnMut(&Measurement),
) -> Result<()> {
    let boards = synthetic::dataset(positions, 1);
    let pieces = boards
        .iter()
        .map(|b| b.occ.count_ones() as f64)
        .sum::<f64>()
        / boards.len().max(1) as f64;
    println!("data: {positions} generated positions, {pieces:.1} pieces on average; batch {BATCH_SIZE}, {batches} timed batches");
    let data = Dataset::from_boards(boards);
    for &t in threads {
        for &n in hidden {
            let measurement =
                crate::with_hidden!(n, N => measure::<N>(&data, t, batches, shuffle))?;
            report(&measurement);
        }
    }
    Ok(())
}

fn measure<const N: usize>(
    data: &Dataset,
    threads: usize,
    batches: usize,
    shuffle: bool,
) -> Result<Measurement> {
    let mut split = Split::new(data.len(), 0, 0)?;
    if !shuffle {
        split = split.in_file_order();
    }
    let mut trainer = Trainer::<N>::new(Model::random(0), data, split, BATCH_SIZE, threads)?;
    trainer.train_batch(0.001, 0.5)?;
    let clock = Instant::now();
    for _ in 0..batches {
        trainer.train_batch(0.001, 0.5)?;
    }
    let positions_per_second = (batches * BATCH_SIZE) as f64 / clock.elapsed().as_secs_f64();
    Ok(Measurement {
        hidden: N,
        threads,
        positions_per_second,
    })
}
