//! The float network the trainer optimises: the engine's (768·K)→N×2→B SCReLU net before
//! quantisation (K king buckets, one of which each perspective's king square picks; B output
//! buckets, one of which a position's piece count picks; K = B = 1 is a plain net), with an
//! optional factoriser (768 more rows that every position uses, `features::InputLayout`), and
//! its forward pass (the backward pass is in `backprop`).
//!
//! All parameters live in one flat `Vec<f32>` in the order of bullet's file (feature weights
//! row by row, feature bias, per bucket the output weights for the side to move then the other
//! side, the buckets' output biases), so the optimiser, checkpoints and the float copy treat
//! them as one slice.
//!
//! The loops are written for auto-vectorisation: `N` is a compile-time constant, rows are
//! contiguous, and sums run over fixed blocks of lanes so they stay in registers.

use std::borrow::Cow;

use rand_xoshiro::{
    rand_core::{RngCore, SeedableRng},
    Xoshiro256PlusPlus,
};

use crate::features::{Features, InputLayout};
use patina::nnue::{output_bucket, KingBuckets, INPUTS};

/// Hidden neurons the forward pass sums together: 64 f32 lanes are 8 AVX2 registers. Fixed
/// whatever the CPU, so that a model's outputs (and the synthetic data labelled with them) are
/// the same everywhere; training picks its own width (`precision::BLOCK`).
const BLOCK: usize = 64;
/// Independent partial sums for dot products (float addition is not associative, so the
/// compiler only vectorises a reduction we split into lanes ourselves).
const LANES: usize = 16;

/// The run-time part of a net's shape (N, the width, is a compile-time constant): K king buckets
/// (one of `patina::nnue::KING_BUCKET_COUNTS`), B output buckets and whether the feature layer
/// has a factoriser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub king_buckets: usize,
    pub buckets: usize,
    pub factoriser: bool,
}

impl Shape {
    /// No king buckets, B output buckets.
    pub const fn plain(buckets: usize) -> Self {
        Self {
            king_buckets: 1,
            buckets,
            factoriser: false,
        }
    }

    /// Rows of feature weights: 768 per king bucket, and 768 for a factoriser.
    pub const fn inputs(self) -> usize {
        INPUTS * (self.king_buckets + self.factoriser as usize)
    }

    /// The shape of the net the engine reads: the factoriser merged into the buckets.
    pub const fn merged(self) -> Self {
        Self {
            factoriser: false,
            ..self
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Model<const N: usize> {
    pub params: Vec<f32>,
    /// Output buckets (B).
    pub buckets: usize,
    /// King buckets and factoriser, by which `Features::of` picks each perspective's rows.
    pub inputs: InputLayout,
}

impl<const N: usize> Model<N> {
    const SHAPE_OK: () = assert!(
        N > 0 && N.is_multiple_of(BLOCK),
        "N must be a positive multiple of 64"
    );

    /// Index of the feature bias: after one row of N weights per input.
    pub const fn feature_bias(shape: Shape) -> usize {
        shape.inputs() * N
    }

    /// Index of the first output weight: after the N feature biases.
    pub const fn output_weights(shape: Shape) -> usize {
        Self::feature_bias(shape) + N
    }

    /// Index of the first output bias: after B rows of 2N output weights.
    pub const fn output_bias(shape: Shape) -> usize {
        Self::output_weights(shape) + 2 * N * shape.buckets
    }

    /// Number of parameters.
    pub const fn param_count(shape: Shape) -> usize {
        Self::output_bias(shape) + shape.buckets
    }

    /// None if K has no bucket map.
    pub fn zeroed(shape: Shape) -> Option<Self> {
        Self::from_params(vec![0.0; Self::param_count(shape)], shape)
    }

    /// Uniform in ±1/√fan-in, as bullet initialises an affine layer (the fan-in of a feature
    /// row is 768: only one king bucket's rows are ever active); a factoriser starts at zero,
    /// as bullet's does. None if K has no bucket map.
    pub fn random(seed: u64, shape: Shape) -> Option<Self> {
        let mut model = Self::zeroed(shape)?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut uniform =
            |bound: f32| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * bound;
        let (features, output) = model.params.split_at_mut(Self::output_weights(shape));
        let feature_bound = 1.0 / (INPUTS as f32).sqrt();
        let buckets = INPUTS * shape.king_buckets * N;
        let (bucket_rows, rest) = features.split_at_mut(buckets);
        let bias = &mut rest[usize::from(shape.factoriser) * INPUTS * N..];
        for w in bucket_rows.iter_mut().chain(bias) {
            *w = uniform(feature_bound);
        }
        let output_bound = 1.0 / ((2 * N) as f32).sqrt();
        output.iter_mut().for_each(|w| *w = uniform(output_bound));
        Some(model)
    }

    /// Takes a parameter vector of exactly `param_count(shape)` values, e.g. from a checkpoint.
    /// None if the count differs or K has no bucket map.
    pub fn from_params(params: Vec<f32>, shape: Shape) -> Option<Self> {
        let () = Self::SHAPE_OK;
        let king_buckets = KingBuckets::with_count(shape.king_buckets)?;
        (params.len() == Self::param_count(shape)).then_some(Self {
            params,
            buckets: shape.buckets,
            inputs: InputLayout {
                king_buckets,
                factoriser: shape.factoriser,
            },
        })
    }

    pub fn shape(&self) -> Shape {
        Shape {
            king_buckets: self.inputs.king_buckets.count(),
            buckets: self.buckets,
            factoriser: self.inputs.factoriser,
        }
    }

    /// The net as the engine and bullet's file have it: a factoriser's rows added into every
    /// king bucket's (bullet's save-time merge), which gives the same outputs.
    pub fn merged(&self) -> Cow<'_, Self> {
        let shape = self.shape();
        if !shape.factoriser {
            return Cow::Borrowed(self);
        }
        let buckets = INPUTS * shape.king_buckets * N;
        let (bucket_rows, rest) = self.params.split_at(buckets);
        let (factoriser, dense) = rest.split_at(INPUTS * N);
        let mut params = Vec::with_capacity(Self::param_count(shape.merged()));
        for bucket in bucket_rows.chunks_exact(INPUTS * N) {
            params.extend(bucket.iter().zip(factoriser).map(|(w, f)| w + f));
        }
        params.extend_from_slice(dense);
        Cow::Owned(Self::from_params(params, shape.merged()).expect("a shape with a map"))
    }

    /// This net with a factoriser added, at zero: the same outputs, to train on from here.
    pub fn with_factoriser(self) -> Self {
        let shape = self.shape();
        if shape.factoriser {
            return self;
        }
        let mut params = self.params;
        let at = INPUTS * shape.king_buckets * N;
        params.splice(at..at, std::iter::repeat_n(0.0, INPUTS * N));
        let factorised = Shape {
            factoriser: true,
            ..shape
        };
        Self::from_params(params, factorised).expect("a shape with a map")
    }

    /// A net of `shape` that starts from a plain one (K = 1, no factoriser, the same N and B):
    /// every king bucket begins with the plain rows mirrored left to right (input square `s`
    /// takes the row of `s ^ 7`). A king on files e–h reads its board mirrored, so there the
    /// start is exactly the plain net; that is where kings stand in most games (e1, and g1
    /// after castling short). A king on files a–d gets the plain net's evaluation of the mirror
    /// image, close (only castling breaks the symmetry) but not the same. With a factoriser
    /// the rows are split in halves between the buckets and it, so both stay inside the
    /// factorised clip. None if `self` is not plain or `shape` has no bucket map or another B.
    pub fn spread_over_king_buckets(&self, shape: Shape) -> Option<Self> {
        if self.shape() != Shape::plain(shape.buckets) {
            return None;
        }
        let (plain_rows, dense) = self.params.split_at(INPUTS * N);
        // Chess768's input is 64 × (colour, piece) + square, so `^ 7` mirrors its square.
        let mirrored: Vec<f32> = (0..INPUTS)
            .flat_map(|input| &plain_rows[(input ^ 7) * N..][..N])
            .copied()
            .collect();
        let share = if shape.factoriser { 0.5 } else { 1.0 };
        let mut params = Vec::with_capacity(Self::param_count(shape));
        for _ in 0..shape.king_buckets + usize::from(shape.factoriser) {
            params.extend(mirrored.iter().map(|w| w * share));
        }
        params.extend_from_slice(dense);
        Self::from_params(params, shape)
    }

    /// A net of M hidden neurons widened to N (M ≤ N, the same K, B and factoriser): the first M
    /// neurons keep their weights; the others start with feature rows and biases drawn as
    /// `random` draws them (a factoriser's at zero) and zero output weights, so the outputs are
    /// exactly the narrow net's until training moves them. The zero output weights get
    /// gradients from the new neurons' activations, and once they move so do the new rows.
    /// None if M > N.
    pub fn widened<const M: usize>(narrow: &Model<M>, seed: u64) -> Option<Self> {
        if M > N {
            return None;
        }
        let shape = narrow.shape();
        let fresh = Self::random(seed, shape)?;
        let mut params = Vec::with_capacity(Self::param_count(shape));
        // The feature rows and, right after them, the feature bias as one more row.
        let rows = Model::<M>::output_weights(shape);
        for (old, new) in narrow.params[..rows]
            .chunks_exact(M)
            .zip(fresh.params.chunks_exact(N))
        {
            params.extend_from_slice(old);
            params.extend_from_slice(&new[M..]);
        }
        let outputs = &narrow.params[rows..Model::<M>::output_bias(shape)];
        for old in outputs.chunks_exact(M) {
            params.extend_from_slice(old);
            params.extend(std::iter::repeat_n(0.0, N - M));
        }
        params.extend_from_slice(&narrow.params[Model::<M>::output_bias(shape)..]);
        Self::from_params(params, shape)
    }

    /// The output bucket of a position, from its piece count.
    #[inline(always)]
    pub fn bucket(&self, features: &Features) -> usize {
        output_bucket(features.pieces, self.buckets)
    }

    #[inline(always)]
    fn feature_bias_values(&self) -> &[f32; N] {
        self.params[Self::feature_bias(self.shape())..][..N]
            .try_into()
            .unwrap()
    }

    /// Output weights of a bucket applied to the side to move's (`side` 0) or the other side's
    /// hidden layer.
    #[inline(always)]
    fn output_weights_of(&self, bucket: usize, side: usize) -> &[f32; N] {
        self.params[Self::output_weights(self.shape()) + (2 * bucket + side) * N..][..N]
            .try_into()
            .unwrap()
    }

    #[inline(always)]
    pub(crate) fn output_bias_of(&self, bucket: usize) -> f32 {
        self.params[Self::output_bias(self.shape()) + bucket]
    }

    /// The raw output: centipawns are this × SCALE, the win probability its sigmoid.
    pub fn forward(&self, features: &Features) -> f32 {
        let bucket = self.bucket(features);
        let mut output = self.output_bias_of(bucket);
        for start in (0..N).step_by(BLOCK) {
            let bias = self.bias_block::<BLOCK>(start);
            for (side, rows) in [features.stm(), features.ntm()].into_iter().enumerate() {
                let rows = rows
                    .iter()
                    .map(|&row| block(&self.params, usize::from(row) * N + start));
                let hidden = accumulate(bias, rows);
                output += activated_dot(&hidden, self.output_block(bucket, side, start));
            }
        }
        output
    }

    /// Feature bias of neurons `start..start + B`.
    #[inline(always)]
    pub(crate) fn bias_block<const B: usize>(&self, start: usize) -> &[f32; B] {
        block(self.feature_bias_values(), start)
    }

    /// A bucket's output weights of neurons `start..start + B` of a side's hidden layer.
    #[inline(always)]
    pub(crate) fn output_block<const B: usize>(
        &self,
        bucket: usize,
        side: usize,
        start: usize,
    ) -> &[f32; B] {
        block(self.output_weights_of(bucket, side), start)
    }
}

#[inline(always)]
pub fn screlu(x: f32) -> f32 {
    let clipped = x.clamp(0.0, 1.0);
    clipped * clipped
}

#[inline(always)]
pub(crate) fn block<const B: usize>(values: &[f32], start: usize) -> &[f32; B] {
    values[start..start + B].try_into().unwrap()
}

/// A block of hidden neurons: `bias + Σ rows`, summed in registers so each weight is loaded once.
#[inline(always)]
pub(crate) fn accumulate<'w, const B: usize>(
    bias: &[f32; B],
    rows: impl Iterator<Item = &'w [f32; B]>,
) -> [f32; B] {
    let mut sum = *bias;
    for row in rows {
        for (s, w) in sum.iter_mut().zip(row) {
            *s += w;
        }
    }
    sum
}

/// Σ screlu(hidden) · weights.
#[inline(always)]
pub(crate) fn activated_dot<const B: usize>(hidden: &[f32; B], weights: &[f32; B]) -> f32 {
    let mut lanes = [0.0f32; LANES];
    for (h, w) in hidden.chunks_exact(LANES).zip(weights.chunks_exact(LANES)) {
        for i in 0..LANES {
            lanes[i] = screlu(h[i]).mul_add(w[i], lanes[i]);
        }
    }
    lanes.iter().sum()
}
