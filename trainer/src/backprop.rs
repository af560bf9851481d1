//! The backward pass: gradients of the squared error over chunks of positions.
//!
//! A chunk is processed in two sweeps over the hidden layer, a block of `BLOCK` neurons at a
//! time. The forward sweep sums every position's output and keeps the block's accumulators;
//! the backward sweep turns them into gradients and gathers, for each feature row, the
//! gradients of the positions where it is active (found through `Occurrences`), so a row's
//! gradient is written once per chunk rather than once per position using it. A block's slice
//! of the feature weights and of their gradients (a row of `BLOCK` floats per input, 768 per
//! king bucket) stays in L2 while the whole chunk passes through it, so the ~25 rows each
//! perspective of a position touches come from L2 rather than L3 (whole rows at large N),
//! whatever order the positions arrive in.
//!
//! For that the slices must be contiguous: in bullet's row-major layout a block's rows sit 4N
//! bytes apart, and at large N such a power-of-two stride maps them all onto a few cache sets
//! that evict each other. So the feature weights are copied block-major (`BlockedWeights`,
//! refreshed after every optimiser step) and the gradients are kept block-major too.
//!
//! The rows the sweeps sum over and over, the weight copies and the positions' hidden
//! gradients, are stored in the run's `RowFormat` (`precision`): bf16 halves what they take
//! from L2. Everything else, and every sum, is f32.

use crate::features::{sigmoid, Features, MAX_ACTIVE};
use crate::model::{activated_dot, screlu, Model, Shape};
use crate::precision::{RowFormat, BLOCK};

/// Positions per chunk: loading a block's weight rows into L2 is paid for hundreds of times
/// over, and per-chunk costs (the feature index, one pass over all the gradient rows) are
/// spread thin. 128 and 512 positions were no faster, 32 and 64 slower (N = 128 and 256).
pub const CHUNK: usize = 256;

/// The feature weights as `[N / BLOCK][inputs][P::WORDS]`.
pub struct BlockedWeights<const N: usize, P: RowFormat> {
    values: Vec<P::Word>,
    /// Feature rows: 768 per king bucket.
    inputs: usize,
}

impl<const N: usize, P: RowFormat> PartialEq for BlockedWeights<N, P> {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}

impl<const N: usize, P: RowFormat> BlockedWeights<N, P> {
    const SHAPE_OK: () = assert!(
        N.is_multiple_of(BLOCK),
        "N must be a multiple of the block width"
    );

    pub fn new(model: &Model<N>) -> Self {
        let () = Self::SHAPE_OK;
        let inputs = model.shape().inputs();
        let mut weights = Self {
            values: vec![P::Word::default(); inputs * N / BLOCK * P::WORDS],
            inputs,
        };
        weights.refresh(model);
        weights
    }

    /// Copies the model's feature weights in again.
    pub fn refresh(&mut self, model: &Model<N>) {
        let rows = &model.params[..Model::<N>::feature_bias(model.shape())];
        for (row, weights) in rows.chunks_exact(N).enumerate() {
            for (b, part) in weights.chunks_exact(BLOCK).enumerate() {
                let dst = &mut self.values[(b * self.inputs + row) * P::WORDS..][..P::WORDS];
                P::pack(part.try_into().unwrap(), dst);
            }
        }
    }

    /// The blocked weights cut into runs of `rows` rows: entry k holds, for every block in
    /// order, rows `k·rows..(k+1)·rows`, so whoever updates those rows of the model can rewrite
    /// their copies alongside.
    pub fn row_runs(&mut self, rows: usize) -> Vec<Vec<&mut [P::Word]>> {
        let runs_per_block = self.inputs.div_ceil(rows);
        let mut runs: Vec<Vec<_>> = (0..runs_per_block).map(|_| Vec::new()).collect();
        for block in self.values.chunks_exact_mut(self.inputs * P::WORDS) {
            for (k, run) in block.chunks_mut(rows * P::WORDS).enumerate() {
                runs[k].push(run);
            }
        }
        runs
    }
}

/// Writes consecutive model rows (row-major, N wide) into their runs from `row_runs`.
pub fn copy_rows_to_runs<const N: usize, P: RowFormat>(rows: &[f32], runs: &mut [&mut [P::Word]]) {
    for (r, row) in rows.chunks_exact(N).enumerate() {
        for (run, part) in runs.iter_mut().zip(row.chunks_exact(BLOCK)) {
            P::pack(
                part.try_into().unwrap(),
                &mut run[r * P::WORDS..][..P::WORDS],
            );
        }
    }
}

/// One gradient accumulator with the working memory of its chunks. Feature-weight gradients
/// are block-major like `BlockedWeights`; the rest follow `Model::params` from the feature bias
/// on. It remembers which feature rows it has written so clearing and summing skip the rest.
pub struct Gradients<const N: usize, P: RowFormat> {
    features: Vec<f32>,
    dense: Vec<f32>,
    shape: Shape,
    pub touched: Vec<bool>,
    /// The chunk's accumulators, `[N / BLOCK][CHUNK][2][BLOCK]`, from one sweep to the next.
    hidden: Vec<f32>,
    /// One block's gradients at those accumulators in the row format, `[CHUNK][2][P::WORDS]`,
    /// for the gather to read.
    hidden_grads: Vec<P::Word>,
    occurrences: Occurrences,
    /// Each position's output, then the gradient there.
    outputs: Vec<f32>,
    /// Each position's output bucket.
    position_buckets: Vec<usize>,
    /// One block's output-weight gradients, `[buckets][2][BLOCK]`, summed over the chunk.
    out_grads: Vec<[[f32; BLOCK]; 2]>,
}

impl<const N: usize, P: RowFormat> Gradients<N, P> {
    /// For a model of this shape.
    pub fn new(shape: Shape) -> Self {
        let inputs = shape.inputs();
        Self {
            features: vec![0.0; inputs * N],
            dense: vec![0.0; Model::<N>::param_count(shape) - Model::<N>::feature_bias(shape)],
            shape,
            touched: vec![false; inputs],
            hidden: vec![0.0; 2 * CHUNK * N],
            hidden_grads: vec![P::Word::default(); 2 * CHUNK * P::WORDS],
            occurrences: Occurrences::new(inputs),
            outputs: vec![0.0; CHUNK],
            position_buckets: vec![0; CHUNK],
            out_grads: vec![[[0.0; BLOCK]; 2]; shape.buckets],
        }
    }

    /// The gradient of parameter `index` of `Model::params`.
    pub fn get(&self, index: usize) -> f32 {
        match index.checked_sub(Model::<N>::feature_bias(self.shape)) {
            Some(dense) => self.dense[dense],
            None => {
                let (row, neuron) = (index / N, index % N);
                let inputs = self.shape.inputs();
                self.features[((neuron / BLOCK) * inputs + row) * BLOCK + neuron % BLOCK]
            }
        }
    }

    /// Adds the gradients of `Model::params[start..start + dst.len()]` to `dst`. A stretch of
    /// feature weights must be whole rows; untouched rows are skipped.
    pub fn add_to(&self, start: usize, dst: &mut [f32]) {
        if let Some(dense) = start.checked_sub(Model::<N>::feature_bias(self.shape)) {
            add(dst, &self.dense[dense..][..dst.len()]);
            return;
        }
        assert!(start.is_multiple_of(N) && dst.len().is_multiple_of(N));
        for (r, row) in dst.chunks_exact_mut(N).enumerate() {
            let index = start / N + r;
            if self.touched[index] {
                for (b, part) in row.chunks_exact_mut(BLOCK).enumerate() {
                    add(
                        part,
                        &self.features[(b * self.shape.inputs() + index) * BLOCK..][..BLOCK],
                    );
                }
            }
        }
    }

    /// Back to zero, touching only rows that were written.
    pub fn clear(&mut self) {
        for block in self.features.chunks_exact_mut(self.shape.inputs() * BLOCK) {
            for (row, touched) in block.chunks_exact_mut(BLOCK).zip(&self.touched) {
                if *touched {
                    row.fill(0.0);
                }
            }
        }
        self.touched.fill(false);
        self.dense.fill(0.0);
    }
}

/// Adds the gradient of Σ (sigmoid(output) − target)² over `positions` to `grad` and returns
/// that sum of squared errors. `weights` must hold `model`'s current feature weights.
pub fn backprop<const N: usize, P: RowFormat>(
    model: &Model<N>,
    weights: &BlockedWeights<N, P>,
    positions: &[(Features, f32)],
    grad: &mut Gradients<N, P>,
) -> f64 {
    debug_assert_eq!(model.shape(), grad.shape);
    positions
        .chunks(CHUNK)
        .map(|chunk| backprop_chunk(model, weights, chunk, grad))
        .sum()
}

fn backprop_chunk<const N: usize, P: RowFormat>(
    model: &Model<N>,
    weights: &BlockedWeights<N, P>,
    positions: &[(Features, f32)],
    grad: &mut Gradients<N, P>,
) -> f64 {
    forward_sweep(model, weights, positions, grad);
    let mut loss = 0.0;
    for ((_, target), output) in positions.iter().zip(grad.outputs.iter_mut()) {
        let prediction = sigmoid(*output);
        let error = prediction - target;
        loss += f64::from(error * error);
        // d/d(output) of the squared error, through the sigmoid.
        *output = 2.0 * error * prediction * (1.0 - prediction);
    }
    grad.occurrences.index(positions);
    for (touched, users) in grad.touched.iter_mut().zip(grad.occurrences.rows()) {
        *touched |= !users.is_empty();
    }
    backward_sweep(model, positions, grad);
    loss
}

/// Every position's output into `grad.outputs`, and its accumulators into `grad.hidden`.
#[inline(never)]
fn forward_sweep<const N: usize, P: RowFormat>(
    model: &Model<N>,
    weights: &BlockedWeights<N, P>,
    positions: &[(Features, f32)],
    grad: &mut Gradients<N, P>,
) {
    let outputs = &mut grad.outputs[..positions.len()];
    let buckets = &mut grad.position_buckets[..positions.len()];
    for (((features, _), output), bucket) in positions
        .iter()
        .zip(outputs.iter_mut())
        .zip(buckets.iter_mut())
    {
        *bucket = model.bucket(features);
        *output = model.output_bias_of(*bucket);
    }
    let blocks = weights.values.chunks_exact(weights.inputs * P::WORDS);
    for (b, (rows, hidden)) in blocks
        .zip(grad.hidden.chunks_exact_mut(2 * CHUNK * BLOCK))
        .enumerate()
    {
        let (start, bias) = (b * BLOCK, model.bias_block::<BLOCK>(b * BLOCK));
        for ((((features, _), output), hidden), &bucket) in positions
            .iter()
            .zip(outputs.iter_mut())
            .zip(hidden.chunks_exact_mut(2 * BLOCK))
            .zip(buckets.iter())
        {
            let sides = [features.stm(), features.ntm()].into_iter();
            for (side, (active, hidden)) in sides.zip(hidden.chunks_exact_mut(BLOCK)).enumerate() {
                let sum = P::accumulate(bias, active.iter().map(|&row| row_of::<P>(rows, row)));
                *output += activated_dot(&sum, model.output_block(bucket, side, start));
                hidden.copy_from_slice(&sum);
            }
        }
    }
}

/// Gradients from the output gradients in `grad.outputs` and the accumulators of the forward
/// sweep.
#[inline(never)]
fn backward_sweep<const N: usize, P: RowFormat>(
    model: &Model<N>,
    positions: &[(Features, f32)],
    grad: &mut Gradients<N, P>,
) {
    let deltas = &grad.outputs[..positions.len()];
    let buckets = &grad.position_buckets[..positions.len()];
    let dense = &mut grad.dense;
    let blocks = grad.features.chunks_exact_mut(grad.shape.inputs() * BLOCK);
    for (b, (rows, hidden)) in blocks
        .zip(grad.hidden.chunks_exact(2 * CHUNK * BLOCK))
        .enumerate()
    {
        let start = b * BLOCK;
        let mut bias_grad = [0.0; BLOCK];
        let out_grads = &mut grad.out_grads;
        out_grads.fill([[0.0; BLOCK]; 2]);
        let mut slot_grads = grad.hidden_grads.chunks_exact_mut(P::WORDS);
        for ((&delta, &bucket), hidden) in deltas
            .iter()
            .zip(buckets)
            .zip(hidden.chunks_exact(2 * BLOCK))
        {
            for (side, hidden) in hidden.chunks_exact(BLOCK).enumerate() {
                let gradient = hidden_backward(
                    delta,
                    hidden.try_into().unwrap(),
                    model.output_block(bucket, side, start),
                    &mut out_grads[bucket][side],
                );
                add(&mut bias_grad, &gradient);
                P::pack(&gradient, slot_grads.next().unwrap());
            }
        }
        let slot_grads = &grad.hidden_grads;
        for (row, users) in rows.chunks_exact_mut(BLOCK).zip(grad.occurrences.rows()) {
            if !users.is_empty() {
                let zero = [0.0; BLOCK];
                let users = users.iter().map(|&slot| row_of::<P>(slot_grads, slot));
                let sum = P::accumulate(&zero, users);
                add(row, &sum);
            }
        }
        add(&mut dense[start..][..BLOCK], &bias_grad);
        // Dense gradients follow `Model::params` from the feature bias: N biases, then each
        // bucket's 2N output weights.
        for (half, out_grad) in out_grads.as_flattened().iter().enumerate() {
            add(&mut dense[N + half * N + start..][..BLOCK], out_grad);
        }
    }
    // Summed per bucket before adding, as one sum when there is one bucket.
    let mut bias_sums = vec![0.0f32; grad.shape.buckets];
    for (&delta, &bucket) in deltas.iter().zip(buckets) {
        bias_sums[bucket] += delta;
    }
    add(&mut dense[N + 2 * N * grad.shape.buckets..], &bias_sums);
}

/// For each feature row, the chunk's slots (`2 · position + side`) where it is active, in
/// ascending order: a counting sort of the chunk's features, shared by all blocks.
struct Occurrences {
    /// Row r's slots are `slots[starts[r]..starts[r + 1]]`.
    starts: Vec<u32>,
    slots: Vec<u16>,
    cursor: Vec<u32>,
}

impl Occurrences {
    const SLOT_LIMIT: () = assert!(2 * CHUNK <= 1 << 16, "slots must fit in u16");

    fn new(inputs: usize) -> Self {
        let () = Self::SLOT_LIMIT;
        Self {
            starts: vec![0; inputs + 1],
            slots: vec![0; 2 * CHUNK * MAX_ACTIVE],
            cursor: vec![0; inputs],
        }
    }

    fn index(&mut self, positions: &[(Features, f32)]) {
        self.cursor.fill(0);
        for (features, _) in positions {
            for (&stm, &ntm) in features.stm().iter().zip(features.ntm()) {
                self.cursor[usize::from(stm)] += 1;
                self.cursor[usize::from(ntm)] += 1;
            }
        }
        let mut total = 0;
        for (start, count) in self.starts.iter_mut().zip(&mut self.cursor) {
            *start = total;
            total += *count;
            *count = *start;
        }
        *self.starts.last_mut().expect("one start more than rows") = total;
        for (p, (features, _)) in positions.iter().enumerate() {
            for (side, rows) in [features.stm(), features.ntm()].into_iter().enumerate() {
                let slot = (2 * p + side) as u16;
                for &row in rows {
                    let next = &mut self.cursor[usize::from(row)];
                    self.slots[*next as usize] = slot;
                    *next += 1;
                }
            }
        }
    }

    /// Each row's slots, row by row.
    fn rows(&self) -> impl Iterator<Item = &[u16]> {
        self.starts
            .windows(2)
            .map(|w| &self.slots[w[0] as usize..w[1] as usize])
    }
}

/// Entry `index` of a block's rows (a feature row, or a slot's gradient).
#[inline(always)]
fn row_of<P: RowFormat>(block_rows: &[P::Word], index: u16) -> &[P::Word] {
    &block_rows[usize::from(index) * P::WORDS..][..P::WORDS]
}

#[inline(always)]
fn add(dst: &mut [f32], src: &[f32]) {
    dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
}

/// Adds the output weights' gradient to `weight_grad` and returns the gradient reaching the
/// hidden layer (accumulators `hidden`) before activation.
#[inline(always)]
fn hidden_backward(
    delta: f32,
    hidden: &[f32; BLOCK],
    weights: &[f32; BLOCK],
    weight_grad: &mut [f32; BLOCK],
) -> [f32; BLOCK] {
    let mut gradient = [0.0; BLOCK];
    for i in 0..BLOCK {
        let x = hidden[i];
        weight_grad[i] = delta.mul_add(screlu(x), weight_grad[i]);
        // SCReLU' = 2x inside (0, 1) and 0 where it clips.
        let slope = if x > 0.0 && x < 1.0 { 2.0 * x } else { 0.0 };
        gradient[i] = delta * weights[i] * slope;
    }
    gradient
}
