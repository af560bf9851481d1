use std::io::Read;
use std::path::Path;

use rand_xoshiro::{
    rand_core::{RngCore, SeedableRng},
    Xoshiro256PlusPlus,
};
use thiserror::Error;

use super::king_buckets::{KingBuckets, KING_BUCKET_COUNTS, MAX_KING_BUCKETS};
use super::simd::{Active, Kernels};
use super::{output_bucket, HIDDEN, INPUTS, MAX_BUCKETS, QA, QB, SCALE};

/// The quantised network, read from bullet's file layout: little-endian i16 throughout, the
/// weight fields in this order, then padding up to a multiple of 64 bytes (zeros, or bullet's
/// "bulletbullet…"). K king buckets (`ChessBucketsMirrored`; K = 1 is plain chess768) and B
/// output buckets (`MaterialCount<B>`; B = 1 is a net without buckets) make the file
/// `2·(768·K·N + N + B·(2N + 1))` bytes before padding, so for a given N the size tells K and B.
#[derive(Clone)]
pub struct Network {
    /// One row of N weights per input (×QA): K buckets of 768 rows. Boxed: it is most of the
    /// file.
    pub feature_weights: Box<[[i16; HIDDEN]]>,
    pub feature_bias: [i16; HIDDEN],
    /// Per bucket, first N weights for the side to move's accumulator, then N for the
    /// opponent's (×QB): bullet's `l1w` transposed, so a bucket's weights are contiguous.
    pub output_weights: Vec<[i16; 2 * HIDDEN]>,
    /// Per bucket (×QA·QB).
    pub output_bias: Vec<i16>,
    /// The bucket of each piece count up to 32, worked out once rather than per evaluation.
    bucket_of: [usize; 33],
    /// Which of the K copies of the inputs each king square reads.
    pub king_buckets: KingBuckets,
}

// The file's bytes are read and written as the weights lie in memory.
#[cfg(target_endian = "big")]
compile_error!("net files are little-endian; a big-endian build would read every weight swapped");

/// Bytes of the feature layer with K = 1, and those each further king bucket adds.
const FEATURE_BYTES: usize = 2 * (INPUTS * HIDDEN + HIDDEN);
const KING_BUCKET_BYTES: usize = 2 * INPUTS * HIDDEN;
/// Bytes each output bucket adds: its 2N weights and its bias.
const BUCKET_BYTES: usize = 2 * (2 * HIDDEN + 1);
/// bullet fills the padding of the files it saves with these letters, repeated.
const BULLET_PADDING: &[u8] = b"bullet";

/// The unpadded and padded file sizes of a net with K king buckets and B output buckets.
const fn unpadded_size(king_buckets: usize, buckets: usize) -> usize {
    FEATURE_BYTES + (king_buckets - 1) * KING_BUCKET_BYTES + buckets * BUCKET_BYTES
}
const fn file_size(king_buckets: usize, buckets: usize) -> usize {
    unpadded_size(king_buckets, buckets).div_ceil(64) * 64
}
// Each output bucket adds more than the padding can hide, and each king bucket more than the
// most output buckets and padding: a size has at most one K and one B.
const _: () = assert!(BUCKET_BYTES > 64);
const _: () = assert!(KING_BUCKET_BYTES > MAX_BUCKETS * BUCKET_BYTES + 64);

/// The default net, chosen at build time (`EVALFILE` overrides the file `nets/DEFAULT` names).
static EMBEDDED_NET: &[u8] = include_bytes!(env!("PATINA_EVALFILE"));
pub const EMBEDDED_NET_NAME: &str = env!("PATINA_EVALFILE_NAME");

#[derive(Debug, Error)]
pub enum NetworkError {
    #[error("cannot read net file: {0}")]
    Io(#[from] std::io::Error),
    #[error(
        "net file has {found} bytes but a (768·K)→{hidden}x2→B net in bullet's layout has \
         2·(768·K·{hidden} + {hidden} + B·(2·{hidden} + 1)) bytes padded to 64: {expected} \
         without buckets (K = B = 1), {bucketed} with 8 output buckets (this engine was built \
         with N = {hidden})",
        expected = file_size(1, 1),
        bucketed = file_size(1, 8)
    )]
    WrongSize { found: usize, hidden: usize },
    #[error(
        "net file's size fits {count} king buckets, but this engine has bucket maps for \
         {KING_BUCKET_COUNTS:?}"
    )]
    KingBucketCount { count: usize },
    #[error(
        "net file's size fits {buckets} output buckets, but bullet's MaterialCount buckets \
         split 2 to 32 pieces into 1 to {MAX_BUCKETS}"
    )]
    BucketCount { buckets: usize },
    #[error(
        "net file is larger than {largest} bytes, the largest (768·K)→{HIDDEN}x2→B net \
         ({MAX_KING_BUCKETS} king buckets, {MAX_BUCKETS} output buckets): not a net for this \
         engine",
        largest = file_size(MAX_KING_BUCKETS, MAX_BUCKETS)
    )]
    TooLarge,
    #[error(
        "net file's padding after its {unpadded} bytes of weights is neither zeros nor bullet's: \
         not a net in bullet's layout"
    )]
    BadPadding { unpadded: usize },
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
        "net file's output weights of bucket {bucket}, perspective {perspective}, are too large \
         together: with every activation saturated its i32 dot product would overflow"
    )]
    DotProductRange { bucket: usize, perspective: usize },
}

/// |w| ≤ 128 keeps clamp(x, 0, QA)·w within i16, which `screlu_dot` relies on.
const MAX_OUTPUT_WEIGHT: i16 = 128;
/// At most 32 features are active, one per piece on the board.
const MAX_PIECES: i32 = 32;

/// Whether a perspective's SCReLU dot product, at most QA² · Σ|w| over its output weights, stays
/// within i32 (`screlu_dot` sums in i32). Only a wide net can fail it (N > 258 with every weight
/// at the limit); gen10's (N = 512) sums reach 16.1 % of the range.
fn dot_product_fits(weights: &[i16]) -> bool {
    let sum: i64 = weights.iter().map(|w| i64::from(w.unsigned_abs())).sum();
    sum * i64::from(QA * QA) <= i64::from(i32::MAX)
}

/// Refuses weights the integer inference cannot compute exactly. Works for any hidden width N
/// (the length of `feature_bias`) and any number of buckets (`feature_weights` holds 768·N per
/// king bucket, `output_weights` 2N per output bucket), so the trainer can vet a net wider than
/// this build reads. Checked: the
/// accumulators, the 16-bit activation × weight product and each bucket's two i32 dot products.
pub fn check_ranges(
    feature_weights: &[i16],
    feature_bias: &[i16],
    output_weights: &[i16],
) -> Result<(), NetworkError> {
    let hidden = feature_bias.len();
    debug_assert_eq!(feature_weights.len() % (INPUTS * hidden), 0);
    debug_assert_eq!(output_weights.len() % (2 * hidden), 0);
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
    if let Some(half) = output_weights
        .chunks(hidden)
        .position(|weights| !dot_product_fits(weights))
    {
        return Err(NetworkError::DotProductRange {
            bucket: half / 2,
            perspective: half % 2,
        });
    }
    Ok(())
}

impl Network {
    /// Parses a net file, refusing anything that is not exactly this architecture's layout.
    pub fn from_bytes(bytes: &[u8]) -> Result<Box<Self>, NetworkError> {
        // Each king bucket adds more than all output buckets and padding, and each output
        // bucket more than the padding, so rounding down gives the one K and B that can fit;
        // the size must then match them exactly.
        let wrong_size = NetworkError::WrongSize {
            found: bytes.len(),
            hidden: HIDDEN,
        };
        let Some(beyond_one_bucket) = bytes.len().checked_sub(FEATURE_BYTES) else {
            return Err(wrong_size);
        };
        let king_buckets = 1 + beyond_one_bucket / KING_BUCKET_BYTES;
        let buckets = (beyond_one_bucket % KING_BUCKET_BYTES) / BUCKET_BYTES;
        if buckets == 0 || bytes.len() != file_size(king_buckets, buckets) {
            return Err(wrong_size);
        }
        if buckets > MAX_BUCKETS {
            return Err(NetworkError::BucketCount { buckets });
        }
        let king_buckets =
            KingBuckets::with_count(king_buckets).ok_or(NetworkError::KingBucketCount {
                count: king_buckets,
            })?;
        let unpadded = unpadded_size(king_buckets.count(), buckets);
        let padding = &bytes[unpadded..];
        let zeros = padding.iter().all(|&b| b == 0);
        let bullets = padding
            .iter()
            .eq(BULLET_PADDING.iter().cycle().take(padding.len()));
        if !(zeros || bullets) {
            return Err(NetworkError::BadPadding { unpadded });
        }
        let mut net = Self::zeroed(king_buckets, buckets);
        let mut values = bytes[..unpadded]
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]));
        for w in net.weights_mut() {
            *w = values.next().expect("the size was checked");
        }
        // The right size can still hold weights the integer inference cannot compute exactly
        // (another trainer's clipping, or not a net at all): refuse them rather than misevaluate.
        check_ranges(
            net.feature_weights.as_flattened(),
            &net.feature_bias,
            net.output_weights.as_flattened(),
        )?;
        Ok(net)
    }

    /// Reads at most one byte more than the largest net, so that a path to something endless
    /// or huge (`/dev/zero`, a data file) is refused by its size instead of filling memory.
    pub fn load(path: &Path) -> Result<Box<Self>, NetworkError> {
        let largest = file_size(MAX_KING_BUCKETS, MAX_BUCKETS);
        let mut bytes = Vec::new();
        std::fs::File::open(path)?
            .take(largest as u64 + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() > largest {
            return Err(NetworkError::TooLarge);
        }
        Self::from_bytes(&bytes)
    }

    pub fn embedded() -> Box<Self> {
        Self::from_bytes(EMBEDDED_NET)
            .unwrap_or_else(|e| panic!("the embedded net {EMBEDDED_NET_NAME} is unusable: {e}"))
    }

    /// The file bytes, padding included.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes: Vec<u8> = self.weights().flat_map(|w| w.to_le_bytes()).collect();
        bytes.resize(file_size(self.king_buckets.count(), self.buckets()), 0);
        bytes
    }

    /// Output buckets (B).
    pub fn buckets(&self) -> usize {
        self.output_bias.len()
    }

    fn zeroed(king_buckets: KingBuckets, buckets: usize) -> Box<Self> {
        Box::new(Self {
            feature_weights: bytemuck::zeroed_slice_box(INPUTS * king_buckets.count()),
            feature_bias: [0; HIDDEN],
            output_weights: vec![[0; 2 * HIDDEN]; buckets],
            output_bias: vec![0; buckets],
            bucket_of: std::array::from_fn(|pieces| output_bucket(pieces, buckets)),
            king_buckets,
        })
    }

    /// Every weight in file order.
    fn weights(&self) -> impl Iterator<Item = &i16> {
        self.feature_weights
            .as_flattened()
            .iter()
            .chain(&self.feature_bias)
            .chain(self.output_weights.as_flattened())
            .chain(&self.output_bias)
    }

    fn weights_mut(&mut self) -> impl Iterator<Item = &mut i16> {
        self.feature_weights
            .as_flattened_mut()
            .iter_mut()
            .chain(&mut self.feature_bias)
            .chain(self.output_weights.as_flattened_mut())
            .chain(&mut self.output_bias)
    }

    /// A seeded random network without buckets: generation 0 of the zero-knowledge lineage.
    pub fn random(seed: u64) -> Box<Self> {
        Self::random_bucketed(seed, 1, 1)
    }

    /// A seeded random network with `king_buckets` king and `buckets` output buckets. Weights
    /// are uniform in ±1/√fan-in (as a trainer initialises them), then quantised.
    pub fn random_bucketed(seed: u64, king_buckets: usize, buckets: usize) -> Box<Self> {
        assert!((1..=MAX_BUCKETS).contains(&buckets), "{buckets} buckets");
        let king_buckets = KingBuckets::with_count(king_buckets)
            .unwrap_or_else(|| panic!("no map for {king_buckets} king buckets"));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut uniform =
            |bound: f64| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 * bound - bound;
        let mut net = Self::zeroed(king_buckets, buckets);
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
        for w in net.output_weights.as_flattened_mut() {
            *w = (uniform(output_bound) * QB as f64).round() as i16;
        }
        for b in &mut net.output_bias {
            *b = (uniform(output_bound) * (QA * QB) as f64).round() as i16;
        }
        net
    }

    /// The output in centipawns from the side to move's point of view, given the side to move's
    /// accumulator values and the other side's, through the output bucket of a board with
    /// `pieces` pieces (kings included).
    #[inline]
    pub fn evaluate(&self, us: &[i16; HIDDEN], them: &[i16; HIDDEN], pieces: usize) -> i32 {
        // A legal board has at most 32 pieces; a test position with more takes the last bucket.
        let bucket = self.bucket_of[pieces.min(32)];
        let (ours, theirs) = self.output_weights[bucket].split_at(HIDDEN);
        let sum = i64::from(Active::screlu_dot(us, ours.try_into().unwrap()))
            + i64::from(Active::screlu_dot(them, theirs.try_into().unwrap()));
        // SCReLU squares activations quantised by QA, so one factor of QA is divided out first.
        // In i64: the scaling to centipawns would overflow i32 for extreme (legal) weights.
        let cp = (sum / i64::from(QA) + i64::from(self.output_bias[bucket])) * i64::from(SCALE)
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
