//! The network's vector kernels: the six operations inference needs, behind the `Kernels`
//! trait. `Scalar` is the plain-loop reference that every other path must match bit for bit;
//! it stays compiled so tests and benchmarks can compare against it. The vector paths are
//! written once (`vector`) over a handful of register operations that each instruction set
//! supplies in its own small module (`avx2`, `avx512`, `neon`).
//!
//! The path is chosen at compile time from the build's target features (the workspace builds
//! with `target-cpu=native`): on x86-64 AVX-512 if available, else AVX2, else scalar; on
//! AArch64 NEON.

mod scalar;
mod vector;

pub use scalar::Scalar;

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod avx2;
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub use avx2::Avx2;

// The AVX-512 intrinsics are stable from Rust 1.89; the rest of the crate keeps its older MSRV.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw"
))]
#[clippy::msrv = "1.89"]
mod avx512;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw"
))]
pub use avx512::Avx512;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
mod neon;
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub use neon::Neon;

/// The widest path this build compiles; the engine calls its kernels.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw"
))]
pub type Active = Avx512;

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    not(all(target_feature = "avx512f", target_feature = "avx512bw"))
))]
pub type Active = Avx2;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub type Active = Neon;

#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "avx2"),
    all(target_arch = "aarch64", target_feature = "neon")
)))]
pub type Active = Scalar;

/// The compiled path: "avx512", "avx2", "neon" or "scalar".
pub const ACTIVE_PATH: &str = <Active as Kernels>::NAME;

/// Accumulator updates and the output layer's dot product at any width N. The i16 updates
/// wrap and the dot product accumulates in wrapping i32, so every path gives the same bits.
pub trait Kernels {
    const NAME: &'static str;

    fn add_assign<const N: usize>(acc: &mut [i16; N], add: &[i16; N]);

    fn sub_assign<const N: usize>(acc: &mut [i16; N], sub: &[i16; N]);

    fn add_sub<const N: usize>(
        output: &mut [i16; N],
        input: &[i16; N],
        add: &[i16; N],
        sub: &[i16; N],
    );

    fn add_sub_sub<const N: usize>(
        output: &mut [i16; N],
        input: &[i16; N],
        add: &[i16; N],
        sub1: &[i16; N],
        sub2: &[i16; N],
    );

    fn add_add_sub_sub<const N: usize>(
        output: &mut [i16; N],
        input: &[i16; N],
        add1: &[i16; N],
        add2: &[i16; N],
        sub1: &[i16; N],
        sub2: &[i16; N],
    );

    /// Σ clamp(x, 0, QA)² · w, computed as (v·w)·v with v·w in i16 (it fits: |w| ≤ 128, which
    /// `Network::from_bytes` enforces and bullet's ±1.98 clipping at QB = 64 keeps) so the vector
    /// paths can use a 16-bit multiply.
    fn screlu_dot<const N: usize>(input: &[i16; N], weights: &[i16; N]) -> i32;
}
