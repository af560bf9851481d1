//! The evaluation: a (768·K)→N×2→B network with SCReLU, quantised to i16, in bullet's file
//! layout. Each perspective reads one of K copies of its 768 inputs, chosen by its king's square
//! (king buckets); of the B outputs (output buckets) one is computed, chosen by the number of
//! pieces on the board. K = B = 1 is a plain 768→N×2→1 net.
//!
//! This module is the single definition of the network's shape, quantisation and feature
//! index; the trainer and datagen import it from here.

mod accumulator;
mod king_buckets;
mod network;
pub mod simd;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use king_buckets::{InputView, KingBuckets, KING_BUCKET_COUNTS, MAX_KING_BUCKETS};
pub use network::{check_ranges, Network, NetworkError, EMBEDDED_NET_NAME};

/// Inputs per perspective and king bucket: colour (relative to the perspective) × piece type ×
/// square.
pub const INPUTS: usize = 768;
/// Hidden neurons per perspective (N): the width of the embedded net, which the build script
/// reads off its size. A compile-time constant so every loop has a fixed trip count.
pub const HIDDEN: usize = include!(concat!(env!("OUT_DIR"), "/hidden.rs"));
/// Quantisation of the feature layer (weights and biases ×QA) and of the output weights (×QB).
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// The most output buckets a net may have: at 32 `output_bucket` already gives each piece count
/// its own bucket, so with more some could never be chosen.
pub const MAX_BUCKETS: usize = 32;
/// Network output 1.0 corresponds to this many centipawns (sigmoid(cp / SCALE) is the win probability).
pub const SCALE: i32 = 400;

/// bullet's `MaterialCount<B>` output bucket of a position with `pieces` pieces, kings included:
/// the piece counts from 2 up are cut into runs of ⌈32 / B⌉, fewest pieces in bucket 0. The one
/// definition, used by the engine and the trainer alike.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    pieces.saturating_sub(2) / 32usize.div_ceil(buckets)
}
