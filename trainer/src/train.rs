//! One optimisation step: data-parallel gradients over the batch, then a parallel reduction
//! fused with the AdamW update.
//!
//! The batch is cut into one contiguous shard per thread, each summed into that thread's own
//! gradient buffer, and buffers are added in thread order, so for a given seed and thread
//! count every step is bit-for-bit reproducible.

use bulletformat::ChessBoard;
use rayon::prelude::*;

use crate::backprop::{backprop, copy_rows_to_runs, BlockedWeights, Gradients, CHUNK};
use crate::error::{Result, TrainerError};
use crate::features::{target, Features, InputLayout};
use crate::loader::Dataset;
use crate::model::Model;
use crate::optim::{self, AdamW, StepSize};
use crate::precision::RowFormat;
use crate::shuffle::Split;
use patina::nnue::INPUTS;

/// Validation positions per independently summed block (fixed, so the sum does not depend on
/// the thread count).
const VALIDATION_BLOCK: u64 = 4096;
/// Feature rows per unit of work in the reduce-and-update pass.
const ROWS_PER_UPDATE: usize = 32;
const ROWS_ALIGNED: () = assert!(
    INPUTS.is_multiple_of(ROWS_PER_UPDATE),
    "stretches of rows end where the feature rows do"
);

struct Worker<const N: usize, P: RowFormat> {
    grads: Gradients<N, P>,
    loss: f64,
}

/// Trains the width-`N` net, its hot loops reading rows in format `P`.
pub struct Trainer<'d, const N: usize, P: RowFormat> {
    model: Model<N>,
    /// The model's feature weights as the backward pass reads them, rewritten with every update.
    blocked: BlockedWeights<N, P>,
    pub adam: AdamW,
    /// Batches done since the start of training; with the batch size it is the data position.
    pub step: u64,
    batch_size: usize,
    data: &'d Dataset,
    split: Split,
    pool: rayon::ThreadPool,
    workers: Vec<Worker<N, P>>,
    summed: Vec<f32>,
}

impl<'d, const N: usize, P: RowFormat> Trainer<'d, N, P> {
    pub fn new(
        model: Model<N>,
        data: &'d Dataset,
        split: Split,
        batch_size: usize,
        threads: usize,
    ) -> Result<Self> {
        if threads == 0 {
            return Err(TrainerError::Config("threads must be at least 1".into()));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| TrainerError::Config(format!("cannot start {threads} threads: {e}")))?;
        let (len, shape) = (model.params.len(), model.shape());
        Ok(Self {
            adam: AdamW::new(len),
            blocked: BlockedWeights::new(&model),
            model,
            step: 0,
            batch_size,
            data,
            split,
            pool,
            workers: (0..threads)
                .map(|_| Worker {
                    grads: Gradients::new(shape),
                    loss: 0.0,
                })
                .collect(),
            summed: vec![0.0; len],
        })
    }

    pub fn model(&self) -> &Model<N> {
        &self.model
    }

    pub fn blocked(&self) -> &BlockedWeights<N, P> {
        &self.blocked
    }

    /// Replaces the weights, e.g. with a checkpoint's.
    pub fn set_model(&mut self, model: Model<N>) {
        self.blocked.refresh(&model);
        self.model = model;
    }

    /// Trains on the next batch and returns its mean loss.
    pub fn train_batch(&mut self, lr: f32, wdl: f32) -> Result<f64> {
        let batch = self.batch_size;
        let shard = batch.div_ceil(self.workers.len());
        let first = self.step * batch as u64;
        let (model, blocked, data, split) = (&self.model, &self.blocked, self.data, &self.split);
        let workers = &mut self.workers;
        self.pool.install(|| {
            workers.par_iter_mut().enumerate().for_each(|(t, worker)| {
                worker.grads.clear();
                worker.loss = 0.0;
                let (start, end) = ((t * shard).min(batch), ((t + 1) * shard).min(batch));
                let mut indices =
                    split.training_indices(first + start as u64, (end - start) as u64);
                let (mut chosen, mut boards) =
                    (Vec::with_capacity(CHUNK), Vec::with_capacity(CHUNK));
                let mut positions = Vec::with_capacity(CHUNK);
                loop {
                    chosen.clear();
                    chosen.extend(indices.by_ref().take(CHUNK));
                    if chosen.is_empty() {
                        break;
                    }
                    let layout = &model.inputs;
                    fetch(data, &chosen, wdl, layout, &mut boards, &mut positions);
                    worker.loss += backprop(model, blocked, &positions, &mut worker.grads);
                }
            })
        });
        let loss = self.workers.iter().map(|w| w.loss).sum::<f64>() / batch as f64;
        if !loss.is_finite() {
            return Err(TrainerError::NonFiniteLoss {
                loss,
                step: self.step,
            });
        }
        self.update(StepSize {
            lr,
            grad_scale: 1.0 / batch as f32,
        });
        self.step += 1;
        Ok(loss)
    }

    /// Sums the workers' gradients (skipping rows a worker never touched), applies AdamW and
    /// copies the new feature weights into the blocked layout, all in parallel over stretches
    /// of parameters.
    fn update(&mut self, step: StepSize) {
        let () = ROWS_ALIGNED;
        let stretch = ROWS_PER_UPDATE * N;
        // A stretch is all feature rows or all dense parameters (`ROWS_ALIGNED`).
        let shape = self.model.shape();
        let rows_end = Model::<N>::feature_bias(shape);
        let row_clip = if shape.factoriser {
            optim::FACTORISED_CLIP
        } else {
            optim::CLIP
        };
        let workers = &self.workers;
        let mut runs = self.blocked.row_runs(ROWS_PER_UPDATE);
        runs.resize_with(self.model.params.len().div_ceil(stretch), Vec::new);
        let params = self.model.params.par_chunks_mut(stretch);
        let momentum = self.adam.momentum.par_chunks_mut(stretch);
        let velocity = self.adam.velocity.par_chunks_mut(stretch);
        let summed = self.summed.par_chunks_mut(stretch);
        self.pool.install(|| {
            params
                .zip(momentum)
                .zip(velocity)
                .zip(summed)
                .zip(runs)
                .enumerate()
                .for_each(|(c, ((((p, m), v), sum), mut runs))| {
                    sum.fill(0.0);
                    for worker in workers {
                        worker.grads.add_to(c * stretch, sum);
                    }
                    let clip = if c * stretch < rows_end {
                        row_clip
                    } else {
                        optim::CLIP
                    };
                    optim::update(p, m, v, sum, step, clip);
                    copy_rows_to_runs::<N, P>(p, &mut runs);
                })
        });
    }

    /// Mean loss over the held-out positions, or `None` if none are held out.
    pub fn validation_loss(&self, wdl: f32) -> Option<f64> {
        let len = self.split.validation_len();
        if len == 0 {
            return None;
        }
        let (model, data, split) = (&self.model, self.data, &self.split);
        let blocks: Vec<f64> = self.pool.install(|| {
            (0..len.div_ceil(VALIDATION_BLOCK))
                .into_par_iter()
                .map(|b| {
                    let mut sum = 0.0;
                    for i in b * VALIDATION_BLOCK..((b + 1) * VALIDATION_BLOCK).min(len) {
                        let board = data.get(split.validation_index(i));
                        let prediction = crate::features::sigmoid(
                            model.forward(&Features::of(&board, &model.inputs)),
                        );
                        sum += f64::from((prediction - target(&board, wdl)).powi(2));
                    }
                    sum
                })
                .collect()
        });
        Some(blocks.iter().sum::<f64>() / len as f64)
    }
}

/// The chosen positions' features and targets. The records are fetched all before any is
/// decoded: the reads are random and mostly miss the cache, and back to back they are all in
/// flight at once instead of one at a time between longer computations.
#[inline(never)]
fn fetch(
    data: &Dataset,
    chosen: &[u64],
    wdl: f32,
    layout: &InputLayout,
    boards: &mut Vec<ChessBoard>,
    positions: &mut Vec<(Features, f32)>,
) {
    boards.clear();
    boards.extend(chosen.iter().map(|&index| data.get(index)));
    positions.clear();
    positions.extend(
        boards
            .iter()
            .map(|board| (Features::of(board, layout), target(board, wdl))),
    );
}
