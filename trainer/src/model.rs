//! The float network the trainer optimises: the engine's 768→N×2→1 SCReLU net before
//! quantisation, with the forward and backward pass for one position.
//!
//! All parameters live in one flat `Vec<f32>` in the order of bullet's file (feature weights
//! row by row, feature bias, output weights for the side to move then the other side, output
//! bias), so the optimiser, checkpoints and the float copy treat them as one slice.
//!
//! The loops are written for auto-vectorisation: `N` is a compile-time constant, rows are
//! contiguous, and sums run over fixed blocks of lanes so they stay in registers.

use rand_xoshiro::{
    rand_core::{RngCore, SeedableRng},
    Xoshiro256PlusPlus,
};

use crate::features::{sigmoid, Features, MAX_ACTIVE};
use patina::nnue::INPUTS;

/// Hidden neurons summed together: 64 f32 lanes are 8 AVX2 registers, leaving room for loads.
const BLOCK: usize = 64;
/// Independent partial sums for dot products (float addition is not associative, so the
/// compiler only vectorises a reduction we split into lanes ourselves).
const LANES: usize = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct Model<const N: usize> {
    pub params: Vec<f32>,
}

impl<const N: usize> Model<N> {
    pub const FEATURE_BIAS: usize = INPUTS * N;
    pub const OUTPUT_WEIGHTS: usize = Self::FEATURE_BIAS + N;
    pub const OUTPUT_BIAS: usize = Self::OUTPUT_WEIGHTS + 2 * N;
    pub const LEN: usize = Self::OUTPUT_BIAS + 1;
    const SHAPE_OK: () = assert!(
        N > 0 && N % BLOCK == 0,
        "N must be a positive multiple of 64"
    );

    pub fn zeroed() -> Self {
        let () = Self::SHAPE_OK;
        Self {
            params: vec![0.0; Self::LEN],
        }
    }

    /// Uniform in ±1/√fan-in, as bullet initialises an affine layer.
    pub fn random(seed: u64) -> Self {
        let mut model = Self::zeroed();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut uniform =
            |bound: f32| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * bound;
        let (features, output) = model.params.split_at_mut(Self::OUTPUT_WEIGHTS);
        let feature_bound = 1.0 / (INPUTS as f32).sqrt();
        features
            .iter_mut()
            .for_each(|w| *w = uniform(feature_bound));
        let output_bound = 1.0 / ((2 * N) as f32).sqrt();
        output.iter_mut().for_each(|w| *w = uniform(output_bound));
        model
    }

    /// Takes a parameter vector of exactly `LEN` values, e.g. from a checkpoint.
    pub fn from_params(params: Vec<f32>) -> Option<Self> {
        let () = Self::SHAPE_OK;
        (params.len() == Self::LEN).then_some(Self { params })
    }

    #[inline(always)]
    fn feature_bias(&self) -> &[f32; N] {
        self.params[Self::FEATURE_BIAS..][..N].try_into().unwrap()
    }

    /// Output weights applied to the side to move's (`side` 0) or the other side's hidden layer.
    #[inline(always)]
    fn output_weights(&self, side: usize) -> &[f32; N] {
        self.params[Self::OUTPUT_WEIGHTS + side * N..][..N]
            .try_into()
            .unwrap()
    }

    /// The raw output: centipawns are this × SCALE, the win probability its sigmoid.
    pub fn forward(&self, features: &Features) -> f32 {
        let (mut stm, mut ntm) = ([0.0; N], [0.0; N]);
        accumulate(&self.params, self.feature_bias(), features.stm(), &mut stm);
        accumulate(&self.params, self.feature_bias(), features.ntm(), &mut ntm);
        self.output(&stm, &ntm)
    }

    #[inline(always)]
    fn output(&self, stm: &[f32; N], ntm: &[f32; N]) -> f32 {
        activated_dot(stm, self.output_weights(0))
            + activated_dot(ntm, self.output_weights(1))
            + self.params[Self::OUTPUT_BIAS]
    }

    /// Adds this position's gradient of (sigmoid(output) − target)² to `grad` and returns that
    /// squared error.
    pub fn backprop(&self, features: &Features, target: f32, grad: &mut Gradients<N>) -> f32 {
        self.backprop_minibatch(&[(*features, target)], grad) as f32
    }

    /// Adds the gradients of up to `MINIBATCH` positions and returns their summed squared error.
    ///
    /// The first layer's gradient is gathered feature by feature: every row a feature receives
    /// in the minibatch is summed in registers, then added to its gradient row once. A position
    /// touches ~50 rows and a minibatch a few hundred distinct ones, so the gradient rows (too big
    /// for L1, and for L2 at large N) are read and written several times less often.
    pub fn backprop_minibatch(
        &self,
        positions: &[(Features, f32)],
        grad: &mut Gradients<N>,
    ) -> f64 {
        assert!(positions.len() <= MINIBATCH);
        let scratch = &mut *grad.scratch;
        let (rows, rest) = grad.values.split_at_mut(Self::FEATURE_BIAS);
        let (bias_grad, rest) = rest.split_at_mut(N);
        let (out_stm_grad, rest) = rest.split_at_mut(N);
        let (out_ntm_grad, out_bias_grad) = rest.split_at_mut(N);
        let bias_grad: &mut [f32; N] = bias_grad.try_into().unwrap();
        let mut loss = 0.0;
        for (p, (features, target)) in positions.iter().enumerate() {
            let (stm, ntm) = (&mut scratch.stm, &mut scratch.ntm);
            accumulate(&self.params, self.feature_bias(), features.stm(), stm);
            accumulate(&self.params, self.feature_bias(), features.ntm(), ntm);
            let prediction = sigmoid(self.output(stm, ntm));
            let error = prediction - target;
            loss += f64::from(error * error);
            // d/d(output) of the squared error, through the sigmoid.
            let delta = 2.0 * error * prediction * (1.0 - prediction);
            out_bias_grad[0] += delta;

            let (d_stm, d_ntm) = scratch.hidden[2 * p..2 * p + 2].split_at_mut(1);
            let (d_stm, d_ntm) = (&mut d_stm[0], &mut d_ntm[0]);
            hidden_backward(
                delta,
                stm,
                self.output_weights(0),
                out_stm_grad.try_into().unwrap(),
                d_stm,
            );
            hidden_backward(
                delta,
                ntm,
                self.output_weights(1),
                out_ntm_grad.try_into().unwrap(),
                d_ntm,
            );
            for i in 0..N {
                bias_grad[i] += d_stm[i] + d_ntm[i];
            }
            scratch.rows.add((2 * p) as u16, features.stm());
            scratch.rows.add((2 * p + 1) as u16, features.ntm());
        }
        scratch.rows.group();
        for (row, sources) in scratch.rows.drain() {
            grad.touched[row] = true;
            gather(&mut rows[row * N..][..N], &scratch.hidden, sources);
        }
        loss
    }
}

/// Positions per call of `backprop_minibatch`.
pub const MINIBATCH: usize = 32;

/// Working memory kept between calls so nothing is allocated or re-zeroed per position.
struct Scratch<const N: usize> {
    stm: [f32; N],
    ntm: [f32; N],
    /// Gradient reaching each hidden layer of the minibatch: side to move's, then the other's.
    hidden: Vec<[f32; N]>,
    rows: RowGroups,
}

/// Which hidden-layer gradients of a minibatch each feature row receives, grouped by row
/// (a counting sort over the 768 rows).
struct RowGroups {
    /// (row, source) pairs in arrival order.
    pairs: Vec<(u16, u16)>,
    /// Per row: how many sources, then where its group ends while grouping.
    counts: Vec<u16>,
    starts: Vec<u16>,
    /// Rows with at least one source, in first-arrival order.
    distinct: Vec<u16>,
    grouped: Vec<u16>,
}

impl RowGroups {
    fn new() -> Self {
        Self {
            pairs: Vec::with_capacity(2 * MINIBATCH * MAX_ACTIVE),
            counts: vec![0; INPUTS],
            starts: vec![0; INPUTS],
            distinct: Vec::with_capacity(INPUTS),
            grouped: vec![0; 2 * MINIBATCH * MAX_ACTIVE],
        }
    }

    fn add(&mut self, source: u16, rows: &[u16]) {
        for &row in rows {
            let count = &mut self.counts[usize::from(row)];
            if *count == 0 {
                self.distinct.push(row);
            }
            *count += 1;
            self.pairs.push((row, source));
        }
    }

    fn group(&mut self) {
        let mut start = 0;
        for &row in &self.distinct {
            let row = usize::from(row);
            self.starts[row] = start;
            start += self.counts[row];
            self.counts[row] = self.starts[row];
        }
        for &(row, source) in &self.pairs {
            let end = &mut self.counts[usize::from(row)];
            self.grouped[usize::from(*end)] = source;
            *end += 1;
        }
        self.pairs.clear();
    }

    /// Each row with its sources, leaving the groups empty for the next minibatch.
    fn drain(&mut self) -> impl Iterator<Item = (usize, &[u16])> {
        let (counts, starts, grouped) = (&mut self.counts, &self.starts, &self.grouped);
        self.distinct.drain(..).map(move |row| {
            let row = usize::from(row);
            let (start, end) = (
                usize::from(starts[row]),
                usize::from(std::mem::take(&mut counts[row])),
            );
            (row, &grouped[start..end])
        })
    }
}

/// One gradient accumulator, laid out like `Model::params`, remembering which feature rows
/// it has written so clearing and summing can skip the rest.
pub struct Gradients<const N: usize> {
    pub values: Vec<f32>,
    pub touched: Vec<bool>,
    scratch: Box<Scratch<N>>,
}

impl<const N: usize> Gradients<N> {
    pub fn new() -> Self {
        Self {
            values: vec![0.0; Model::<N>::LEN],
            touched: vec![false; INPUTS],
            scratch: Box::new(Scratch {
                stm: [0.0; N],
                ntm: [0.0; N],
                hidden: vec![[0.0; N]; 2 * MINIBATCH],
                rows: RowGroups::new(),
            }),
        }
    }

    /// Back to zero, touching only rows that were written.
    pub fn clear(&mut self) {
        let (rows, dense) = self.values.split_at_mut(Model::<N>::FEATURE_BIAS);
        for (row, touched) in rows.chunks_exact_mut(N).zip(self.touched.iter_mut()) {
            if std::mem::take(touched) {
                row.fill(0.0);
            }
        }
        dense.fill(0.0);
    }
}

impl<const N: usize> Default for Gradients<N> {
    fn default() -> Self {
        Self::new()
    }
}

#[inline(always)]
pub fn screlu(x: f32) -> f32 {
    let clipped = x.clamp(0.0, 1.0);
    clipped * clipped
}

/// `acc = bias + Σ weights[row]`, a block of neurons at a time so the block's sums stay in
/// registers and each weight is loaded once.
#[inline(always)]
fn accumulate<const N: usize>(weights: &[f32], bias: &[f32; N], rows: &[u16], acc: &mut [f32; N]) {
    for start in (0..N).step_by(BLOCK) {
        let mut block: [f32; BLOCK] = bias[start..start + BLOCK].try_into().unwrap();
        for &row in rows {
            let weights: &[f32; BLOCK] = weights[usize::from(row) * N + start..][..BLOCK]
                .try_into()
                .unwrap();
            for (b, w) in block.iter_mut().zip(weights) {
                *b += w;
            }
        }
        acc[start..start + BLOCK].copy_from_slice(&block);
    }
}

/// Σ screlu(hidden) · weights.
#[inline(always)]
fn activated_dot<const N: usize>(hidden: &[f32; N], weights: &[f32; N]) -> f32 {
    let mut lanes = [0.0f32; LANES];
    for (h, w) in hidden.chunks_exact(LANES).zip(weights.chunks_exact(LANES)) {
        for i in 0..LANES {
            lanes[i] = screlu(h[i]).mul_add(w[i], lanes[i]);
        }
    }
    lanes.iter().sum()
}

/// Output-weight gradients and the gradient reaching the hidden layer before activation.
#[inline(always)]
fn hidden_backward<const N: usize>(
    delta: f32,
    hidden: &[f32; N],
    weights: &[f32; N],
    weight_grad: &mut [f32; N],
    hidden_grad: &mut [f32; N],
) {
    for i in 0..N {
        let x = hidden[i];
        weight_grad[i] = delta.mul_add(screlu(x), weight_grad[i]);
        // SCReLU' = 2x inside (0, 1) and 0 where it clips.
        let slope = if x > 0.0 && x < 1.0 { 2.0 * x } else { 0.0 };
        hidden_grad[i] = delta * weights[i] * slope;
    }
}

/// `row += Σ hidden[source]`, a block of neurons at a time so the sum stays in registers.
#[inline(always)]
fn gather<const N: usize>(row: &mut [f32], hidden: &[[f32; N]], sources: &[u16]) {
    for start in (0..N).step_by(BLOCK) {
        let mut block = [0.0f32; BLOCK];
        for &source in sources {
            let grad: &[f32; BLOCK] = hidden[usize::from(source)][start..start + BLOCK]
                .try_into()
                .unwrap();
            for (b, g) in block.iter_mut().zip(grad) {
                *b += g;
            }
        }
        for (r, b) in row[start..start + BLOCK].iter_mut().zip(&block) {
            *r += b;
        }
    }
}
