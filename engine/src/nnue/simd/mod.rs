//! The network's vector kernels. Each instruction set gets one small module with the same
//! functions, generic over the width N; `scalar` is the reference every other path must match
//! bit for bit, and stays compiled so tests and benchmarks can compare against it.
//!
//! The path is chosen at compile time from the build's target features (the workspace builds
//! with `target-cpu=native`): AVX-512 if available, else AVX2, else scalar. Its functions are
//! re-exported here under the plain names.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod scalar;

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub mod avx2;

// The AVX-512 intrinsics are stable from Rust 1.89; the rest of the crate keeps its older MSRV.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw"
))]
#[clippy::msrv = "1.89"]
pub mod avx512;

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw"
))]
use avx512 as active;

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    not(all(target_feature = "avx512f", target_feature = "avx512bw"))
))]
use avx2 as active;

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
use scalar as active;

pub use active::{add_add_sub_sub, add_assign, add_sub, add_sub_sub, screlu_dot};

/// The compiled path: "avx512", "avx2" or "scalar".
pub const ACTIVE_PATH: &str = active::NAME;
