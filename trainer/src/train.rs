//! One optimisation step: data-parallel gradients over the batch, then a parallel reduction
//! fused with the AdamW update.
//!
//! The batch is cut into one contiguous shard per thread, each summed into that thread's own
//! gradient buffer, and buffers are added in thread order, so for a given seed and thread
//! count every step is bit-for-bit reproducible.

use rayon::prelude::*;

use crate::error::{Result, TrainerError};
use crate::features::{target, Features};
use crate::loader::Dataset;
use crate::model::{Gradients, Model, MINIBATCH};
use crate::optim::{self, AdamW, StepSize};
use crate::shuffle::Split;
use patina::nnue::INPUTS;

/// Validation positions per independently summed block (fixed, so the sum does not depend on
/// the thread count).
const VALIDATION_BLOCK: u64 = 4096;
/// Feature rows per unit of work in the reduce-and-update pass.
const ROWS_PER_UPDATE: usize = 32;

struct Worker<const N: usize> {
    grads: Gradients<N>,
    loss: f64,
}

pub struct Trainer<'d, const N: usize> {
    pub model: Model<N>,
    pub adam: AdamW,
    /// Batches done since the start of training; with the batch size it is the data position.
    pub step: u64,
    batch_size: usize,
    data: &'d Dataset,
    split: Split,
    pool: rayon::ThreadPool,
    workers: Vec<Worker<N>>,
    summed: Vec<f32>,
}

impl<'d, const N: usize> Trainer<'d, N> {
    pub fn new(
        model: Model<N>,
        data: &'d Dataset,
        split: Split,
        batch_size: usize,
        threads: usize,
    ) -> Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| TrainerError::Config(format!("cannot start {threads} threads: {e}")))?;
        Ok(Self {
            adam: AdamW::new(Model::<N>::LEN),
            model,
            step: 0,
            batch_size,
            data,
            split,
            pool,
            workers: (0..threads)
                .map(|_| Worker {
                    grads: Gradients::new(),
                    loss: 0.0,
                })
                .collect(),
            summed: vec![0.0; Model::<N>::LEN],
        })
    }

    /// Trains on the next batch and returns its mean loss.
    pub fn train_batch(&mut self, lr: f32, wdl: f32) -> Result<f64> {
        let batch = self.batch_size;
        let shard = batch.div_ceil(self.workers.len());
        let first = self.step * batch as u64;
        let (model, data, split) = (&self.model, self.data, &self.split);
        let workers = &mut self.workers;
        self.pool.install(|| {
            workers.par_iter_mut().enumerate().for_each(|(t, worker)| {
                worker.grads.clear();
                worker.loss = 0.0;
                let (start, end) = ((t * shard).min(batch), ((t + 1) * shard).min(batch));
                let mut indices =
                    split.training_indices(first + start as u64, (end - start) as u64);
                let (mut chosen, mut boards) =
                    (Vec::with_capacity(MINIBATCH), Vec::with_capacity(MINIBATCH));
                let mut positions = Vec::with_capacity(MINIBATCH);
                loop {
                    // Choose the whole minibatch, then fetch it, then decode it: the reads are
                    // random and mostly miss the cache, and back to back they are all in flight
                    // at once instead of one at a time between long computations.
                    chosen.clear();
                    chosen.extend(indices.by_ref().take(MINIBATCH));
                    if chosen.is_empty() {
                        break;
                    }
                    boards.clear();
                    boards.extend(chosen.iter().map(|&index| data.get(index)));
                    positions.clear();
                    positions.extend(
                        boards
                            .iter()
                            .map(|board| (Features::of(board), target(board, wdl))),
                    );
                    worker.loss += model.backprop_minibatch(&positions, &mut worker.grads);
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

    /// Sums the workers' gradients (skipping rows a worker never touched) and applies AdamW,
    /// both in parallel over stretches of parameters.
    fn update(&mut self, step: StepSize) {
        let stretch = ROWS_PER_UPDATE * N;
        let workers = &self.workers;
        let params = self.model.params.par_chunks_mut(stretch);
        let momentum = self.adam.momentum.par_chunks_mut(stretch);
        let velocity = self.adam.velocity.par_chunks_mut(stretch);
        let summed = self.summed.par_chunks_mut(stretch);
        self.pool.install(|| {
            params
                .zip(momentum)
                .zip(velocity)
                .zip(summed)
                .enumerate()
                .for_each(|(c, (((p, m), v), sum))| {
                    let start = c * stretch;
                    sum.fill(0.0);
                    for worker in workers {
                        let grads = &worker.grads.values[start..start + sum.len()];
                        for (r, (dst, src)) in sum.chunks_mut(N).zip(grads.chunks(N)).enumerate() {
                            let row = start / N + r;
                            if row >= INPUTS || worker.grads.touched[row] {
                                dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
                            }
                        }
                    }
                    optim::update(p, m, v, sum, step);
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
                        let prediction =
                            crate::features::sigmoid(model.forward(&Features::of(&board)));
                        sum += f64::from((prediction - target(&board, wdl)).powi(2));
                    }
                    sum
                })
                .collect()
        });
        Some(blocks.iter().sum::<f64>() / len as f64)
    }
}
