use std::path::Path;

use bytemuck::{Pod, Zeroable};
use rand_xoshiro::{
    rand_core::{RngCore, SeedableRng},
    Xoshiro256PlusPlus,
};
use thiserror::Error;

use super::simd::{Active, Kernels};
use super::{Accumulator, HIDDEN, INPUTS, QA, QB, SCALE};

/// The quantised network exactly as bullet writes it: little-endian i16 throughout, in this
/// order, then padding up to a multiple of 64 bytes (zeros, or bullet's "bulletbullet…").
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct Network {
    /// One row of N weights per input feature (×QA).
    pub feature_weights: [[i16; HIDDEN]; INPUTS],
    pub feature_bias: [i16; HIDDEN],
    /// First N weights for the side to move's accumulator, then N for the opponent's (×QB).
    pub output_weights: [i16; 2 * HIDDEN],
    pub output_bias: i16,
}

// The file's bytes are the struct's, read and written as they lie in memory.
#[cfg(target_endian = "big")]
compile_error!("net files are little-endian; a big-endian build would read every weight swapped");

const UNPADDED_SIZE: usize = std::mem::size_of::<Network>();
/// bullet fills the padding of the files it saves with these letters, repeated.
const BULLET_PADDING: &[u8] = b"bullet";
/// bullet pads the file to a multiple of 64 bytes.
const FILE_SIZE: usize = UNPADDED_SIZE.div_ceil(64) * 64;
const _: () = assert!(UNPADDED_SIZE == 2 * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN + 1));

/// The default net, chosen at build time (`EVALFILE` overrides the file `nets/DEFAULT` names).
static EMBEDDED_NET: &[u8] = include_bytes!(env!("PATINA_EVALFILE"));
pub const EMBEDDED_NET_NAME: &str = env!("PATINA_EVALFILE_NAME");

#[derive(Debug, Error)]
pub enum NetworkError {
    #[error("cannot read net file: {0}")]
    Io(#[from] std::io::Error),
    #[error(
        "net file has {found} bytes but a 768→{hidden}x2→1 net in bullet's layout has {expected} \
         (this engine was built with N = {hidden})"
    )]
    WrongSize {
        found: usize,
        expected: usize,
        hidden: usize,
    },
    #[error(
        "net file's padding after byte {UNPADDED_SIZE} is neither zeros nor bullet's: not a net in bullet's layout"
    )]
    BadPadding,
    #[error(
        "net file's output weight {index} is {value}, outside ±{MAX_OUTPUT_WEIGHT}: the engine's \
         16-bit activation × weight product would overflow (bullet's ±1.98 clipping keeps it inside)"
    )]
    OutputWeightRange { index: usize, value: i16 },
    #[error(
        "net file's hidden neuron {neuron} can reach {reach} (bias plus {MAX_PIECES} of its largest \
         feature weights), beyond i16: its accumulator could overflow"
    )]
    AccumulatorRange { neuron: usize, reach: i32 },
    #[error(
        "net file's output weights of perspective {perspective} are too large together: with every \
         activation saturated its i32 dot product would overflow"
    )]
    DotProductRange { perspective: usize },
}

/// |w| ≤ 128 keeps clamp(x, 0, QA)·w within i16, which `screlu_dot` relies on.
const MAX_OUTPUT_WEIGHT: i16 = 128;
/// At most 32 features are active, one per piece on the board.
const MAX_PIECES: i32 = 32;

/// Whether a perspective's SCReLU dot product, at most QA² · Σ|w| over its output weights, stays
/// within i32 (`screlu_dot` sums in i32). Only a wide net can fail it (N > 258 with every weight
/// at the limit); the default net's sums reach about 6 % of the range.
fn dot_product_fits(weights: &[i16]) -> bool {
    let sum: i64 = weights.iter().map(|w| i64::from(w.unsigned_abs())).sum();
    sum * i64::from(QA * QA) <= i64::from(i32::MAX)
}

/// Refuses weights the integer inference cannot compute exactly. Works for any hidden width N
/// (the length of `feature_bias`), so the trainer can vet a net wider than this build reads.
/// Checked: the accumulators, the 16-bit activation × weight product and each perspective's
/// i32 dot product.
pub fn check_ranges(
    feature_weights: &[i16],
    feature_bias: &[i16],
    output_weights: &[i16],
) -> Result<(), NetworkError> {
    let hidden = feature_bias.len();
    debug_assert_eq!(feature_weights.len(), INPUTS * hidden);
    debug_assert_eq!(output_weights.len(), 2 * hidden);
    if let Some((index, &value)) = output_weights
        .iter()
        .enumerate()
        .find(|(_, w)| w.unsigned_abs() > MAX_OUTPUT_WEIGHT.unsigned_abs())
    {
        return Err(NetworkError::OutputWeightRange { index, value });
    }
    let mut largest = vec![0u16; hidden];
    for row in feature_weights.chunks_exact(hidden) {
        for (largest, w) in largest.iter_mut().zip(row) {
            *largest = (*largest).max(w.unsigned_abs());
        }
    }
    for (neuron, (&bias, &largest)) in feature_bias.iter().zip(&largest).enumerate() {
        let reach = i32::from(bias.unsigned_abs()) + MAX_PIECES * i32::from(largest);
        if reach > i32::from(i16::MAX) {
            return Err(NetworkError::AccumulatorRange { neuron, reach });
        }
    }
    if let Some(perspective) = output_weights
        .chunks(hidden)
        .position(|weights| !dot_product_fits(weights))
    {
        return Err(NetworkError::DotProductRange { perspective });
    }
    Ok(())
}

impl Network {
    /// Parses a net file, refusing anything that is not exactly this architecture's layout.
    pub fn from_bytes(bytes: &[u8]) -> Result<Box<Self>, NetworkError> {
        if bytes.len() != FILE_SIZE {
            return Err(NetworkError::WrongSize {
                found: bytes.len(),
                expected: FILE_SIZE,
                hidden: HIDDEN,
            });
        }
        let padding = &bytes[UNPADDED_SIZE..];
        let zeros = padding.iter().all(|&b| b == 0);
        let bullets = padding
            .iter()
            .eq(BULLET_PADDING.iter().cycle().take(padding.len()));
        if !(zeros || bullets) {
            return Err(NetworkError::BadPadding);
        }
        let mut net: Box<Self> = bytemuck::zeroed_box();
        bytemuck::bytes_of_mut(net.as_mut()).copy_from_slice(&bytes[..UNPADDED_SIZE]);
        // The right size can still hold weights the integer inference cannot compute exactly
        // (another trainer's clipping, or not a net at all): refuse them rather than misevaluate.
        check_ranges(
            net.feature_weights.as_flattened(),
            &net.feature_bias,
            &net.output_weights,
        )?;
        Ok(net)
    }

    pub fn load(path: &Path) -> Result<Box<Self>, NetworkError> {
        Self::from_bytes(&std::fs::read(path)?)
    }

    pub fn embedded() -> Box<Self> {
        Self::from_bytes(EMBEDDED_NET)
            .unwrap_or_else(|e| panic!("the embedded net {EMBEDDED_NET_NAME} is unusable: {e}"))
    }

    /// The file bytes, padding included.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = bytemuck::bytes_of(self).to_vec();
        bytes.resize(FILE_SIZE, 0);
        bytes
    }

    /// A seeded random network: generation 0 of the zero-knowledge lineage. Weights are
    /// uniform in ±1/√fan-in (as a trainer initialises them), then quantised.
    pub fn random(seed: u64) -> Box<Self> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut uniform =
            |bound: f64| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 * bound - bound;
        let mut net: Box<Self> = bytemuck::zeroed_box();
        let feature_bound = 1.0 / (INPUTS as f64).sqrt();
        for w in net
            .feature_weights
            .iter_mut()
            .flatten()
            .chain(net.feature_bias.iter_mut())
        {
            *w = (uniform(feature_bound) * QA as f64).round() as i16;
        }
        let output_bound = 1.0 / ((2 * HIDDEN) as f64).sqrt();
        for w in net.output_weights.iter_mut() {
            *w = (uniform(output_bound) * QB as f64).round() as i16;
        }
        net.output_bias = (uniform(output_bound) * (QA * QB) as f64).round() as i16;
        net
    }

    /// The output in centipawns from the side to move's point of view.
    #[inline]
    pub fn evaluate(&self, us: &Accumulator, them: &Accumulator) -> i32 {
        let (ours, theirs) = self.output_weights.split_at(HIDDEN);
        let sum = i64::from(Active::screlu_dot(&us.values, ours.try_into().unwrap()))
            + i64::from(Active::screlu_dot(&them.values, theirs.try_into().unwrap()));
        // SCReLU squares activations quantised by QA, so one factor of QA is divided out first.
        // In i64: the scaling to centipawns would overflow i32 for extreme (legal) weights.
        let cp = (sum / i64::from(QA) + i64::from(self.output_bias)) * i64::from(SCALE)
            / i64::from(QA * QB);
        cp as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_products_fit_up_to_the_i32_range() {
        assert!(dot_product_fits(&[MAX_OUTPUT_WEIGHT; 256]));
        assert!(dot_product_fits(&[MAX_OUTPUT_WEIGHT; 258]));
        assert!(!dot_product_fits(&[MAX_OUTPUT_WEIGHT; 259]));
        assert!(dot_product_fits(&[-30; 1024]));
        assert!(!dot_product_fits(&[-33; 1024]));
    }
}
