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

use crate::features::{sigmoid, Features};
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
        let (mut stm, mut ntm) = ([0.0; N], [0.0; N]);
        accumulate(&self.params, self.feature_bias(), features.stm(), &mut stm);
        accumulate(&self.params, self.feature_bias(), features.ntm(), &mut ntm);
        let prediction = sigmoid(self.output(&stm, &ntm));
        let error = prediction - target;
        // d/d(output) of the squared error, through the sigmoid.
        let delta = 2.0 * error * prediction * (1.0 - prediction);

        let (rows, rest) = grad.values.split_at_mut(Self::FEATURE_BIAS);
        let (bias_grad, rest) = rest.split_at_mut(N);
        let (out_stm_grad, rest) = rest.split_at_mut(N);
        let (out_ntm_grad, out_bias_grad) = rest.split_at_mut(N);
        out_bias_grad[0] += delta;

        let (mut d_stm, mut d_ntm) = ([0.0; N], [0.0; N]);
        hidden_backward(
            delta,
            &stm,
            self.output_weights(0),
            out_stm_grad.try_into().unwrap(),
            &mut d_stm,
        );
        hidden_backward(
            delta,
            &ntm,
            self.output_weights(1),
            out_ntm_grad.try_into().unwrap(),
            &mut d_ntm,
        );
        for ((b, s), n) in bias_grad.iter_mut().zip(&d_stm).zip(&d_ntm) {
            *b += s + n;
        }
        scatter(rows, &mut grad.touched, features.stm(), &d_stm);
        scatter(rows, &mut grad.touched, features.ntm(), &d_ntm);
        error * error
    }
}

/// One gradient accumulator, laid out like `Model::params`, remembering which feature rows
/// it has written so clearing and summing can skip the rest.
pub struct Gradients<const N: usize> {
    pub values: Vec<f32>,
    pub touched: Vec<bool>,
}

impl<const N: usize> Gradients<N> {
    pub fn new() -> Self {
        Self {
            values: vec![0.0; Model::<N>::LEN],
            touched: vec![false; INPUTS],
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

/// `acc = bias + Σ weights[row]`, a block of neurons at a time so the block stays in registers.
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

/// Adds the hidden layer's gradient to the row of every active feature.
#[inline(always)]
fn scatter<const N: usize>(
    rows: &mut [f32],
    touched: &mut [bool],
    active: &[u16],
    hidden_grad: &[f32; N],
) {
    for &row in active {
        touched[usize::from(row)] = true;
    }
    for start in (0..N).step_by(BLOCK) {
        let block: &[f32; BLOCK] = hidden_grad[start..start + BLOCK].try_into().unwrap();
        for &row in active {
            let grad: &mut [f32; BLOCK] = (&mut rows[usize::from(row) * N + start..][..BLOCK])
                .try_into()
                .unwrap();
            for (g, d) in grad.iter_mut().zip(block) {
                *g += d;
            }
        }
    }
}
