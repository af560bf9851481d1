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
    fn of(differences: &[f64]) -> Self {
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
/// models of the two net files evaluate them.
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
    let mut drifts: Vec<Drift> = (0..buckets)
        .map(|bucket| {
            let differences: Vec<f64> = scored
                .iter()
                .filter(|&&(b, _)| b == bucket)
                .map(|&(_, d)| d)
                .collect();
            Drift::of(&differences)
        })
        .collect();
    let all: Vec<f64> = scored.iter().map(|&(_, d)| d).collect();
    drifts.push(Drift::of(&all));
    Ok(drifts)
}
