//! `trainer compare`: how far one net's evaluations lie from another's, output bucket by output
//! bucket, over the positions of some games. A fine-tune meant to change one thing (an ending
//! it drilled) shows here what else it changed.

use std::path::Path;

use patina::nnue::{output_bucket, SCALE};
use patina::wdl::NORMALIZE_TO_PAWN;
use rayon::prelude::*;

use crate::error::{Result, TrainerError};
use crate::features::Features;
use crate::loader::Dataset;
use crate::model::Model;
use crate::quantise::read_net;

/// Positions where either net's evaluation is beyond this (centipawns as Patina prints them)
/// are left out: the game is decided there, and how decided matters little.
pub const DECIDED_CP: f64 = 1000.0;

/// The differences (net − base, centipawns as Patina prints them) in one output bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Drift {
    pub positions: u64,
    pub mean_abs: f64,
    pub rms: f64,
    pub mean: f64,
}

impl Drift {
    /// Of no differences, all zero.
    fn of(differences: &[f64]) -> Self {
        if differences.is_empty() {
            return Self::default();
        }
        let count = differences.len() as f64;
        let mean_of = |f: fn(f64) -> f64| differences.iter().map(|&d| f(d)).sum::<f64>() / count;
        Self {
            positions: differences.len() as u64,
            mean_abs: mean_of(f64::abs),
            rms: mean_of(|d| d * d).sqrt(),
            mean: mean_of(|d| d),
        }
    }
}

/// Per output bucket (then all buckets together, last) over `data`'s positions, as the float
/// models of the two net files evaluate them, on the current rayon pool.
pub fn compare<const N: usize>(
    base: &Path,
    net: &Path,
    buckets: usize,
    data: &Dataset,
) -> Result<Vec<Drift>> {
    let read = |path: &Path| {
        read_net::<N>(path, buckets).map_err(|reason| TrainerError::Net {
            path: path.to_owned(),
            reason,
        })
    };
    let (base, net) = (read(base)?, read(net)?);
    let cp = |model: &Model<N>, features: &Features| {
        f64::from(model.forward(features)) * SCALE as f64 * 100.0 / f64::from(NORMALIZE_TO_PAWN)
    };
    let scored: Vec<(usize, f64)> = (0..data.len())
        .into_par_iter()
        .filter_map(|i| {
            let features = Features::of(&data.get(i));
            let (before, after) = (cp(&base, &features), cp(&net, &features));
            (before.abs() <= DECIDED_CP && after.abs() <= DECIDED_CP)
                .then(|| (output_bucket(features.len, buckets), after - before))
        })
        .collect();
    let mut by_bucket = vec![Vec::new(); buckets];
    for &(bucket, difference) in &scored {
        by_bucket[bucket].push(difference);
    }
    let all: Vec<f64> = scored.iter().map(|&(_, d)| d).collect();
    Ok(by_bucket
        .iter()
        .chain([&all])
        .map(|d| Drift::of(d))
        .collect())
}

/// The piece counts (kings included) whose positions use `bucket` of `buckets`, if any do.
pub fn pieces_of(bucket: usize, buckets: usize) -> Option<(usize, usize)> {
    let mut pieces = (2..=32).filter(|&p| output_bucket(p, buckets) == bucket);
    let first = pieces.next()?;
    Some((first, pieces.next_back().unwrap_or(first)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_labels_follow_the_engine_buckets() {
        assert_eq!(pieces_of(0, 8), Some((2, 5)));
        assert_eq!(pieces_of(7, 8), Some((30, 32)));
        assert_eq!(pieces_of(0, 1), Some((2, 32)));
        // With 9 buckets of 4 counts each, the ninth starts at 34 pieces: none reach it.
        assert_eq!(pieces_of(7, 9), Some((30, 32)));
        assert_eq!(pieces_of(8, 9), None);
    }
}
