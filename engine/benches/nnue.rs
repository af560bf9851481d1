//! Nanoseconds per accumulator update and per evaluation at widths N = 128..1024, for the
//! scalar reference and each vector path this build compiles. Results and the exact commands
//! are in docs/experiments.md ("NNUE kernels").
//!
//! An update is one `add_sub` of width N (one perspective of a quiet move); an evaluation is
//! the two `screlu_dot` calls over both perspectives (the output arithmetic after them is a
//! handful of scalar operations and is left out). All rows are small enough to stay in L1, so
//! these are kernel costs; `bench nn` (tools::nnbench) measures whole-engine updates.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use patina::nnue::simd::{Kernels, Scalar};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Realistic magnitudes: accumulators within a few thousand, weights within ±127.
fn random_row<const N: usize>(rng: &mut Xoshiro256PlusPlus, bound: i16) -> [i16; N] {
    std::array::from_fn(|_| (rng.next_u64() % (2 * bound as u64 + 1)) as i16 - bound)
}

/// Benchmarks one path at width N.
fn bench_path<Path: Kernels, const N: usize>(c: &mut Criterion) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(N as u64);
    let (us, them): ([i16; N], [i16; N]) = (random_row(&mut rng, 2000), random_row(&mut rng, 2000));
    let (add, sub): ([i16; N], [i16; N]) = (random_row(&mut rng, 64), random_row(&mut rng, 64));
    let (our_weights, their_weights): ([i16; N], [i16; N]) =
        (random_row(&mut rng, 127), random_row(&mut rng, 127));

    let mut group = c.benchmark_group(format!("N={N}"));
    let mut output = [0i16; N];
    group.bench_function(BenchmarkId::new("update", Path::NAME), |b| {
        b.iter(|| {
            Path::add_sub(
                &mut output,
                black_box(&us),
                black_box(&add),
                black_box(&sub),
            );
            black_box(&output);
        })
    });
    group.bench_function(BenchmarkId::new("eval", Path::NAME), |b| {
        b.iter(|| {
            Path::screlu_dot(black_box(&us), black_box(&our_weights)).wrapping_add(
                Path::screlu_dot(black_box(&them), black_box(&their_weights)),
            )
        })
    });
    group.finish();
}

fn bench_width<const N: usize>(c: &mut Criterion) {
    bench_path::<Scalar, N>(c);
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    bench_path::<patina::nnue::simd::Avx2, N>(c);
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512bw"
    ))]
    bench_path::<patina::nnue::simd::Avx512, N>(c);
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    bench_path::<patina::nnue::simd::Neon, N>(c);
}

fn widths(c: &mut Criterion) {
    bench_width::<128>(c);
    bench_width::<256>(c);
    bench_width::<512>(c);
    bench_width::<1024>(c);
}

criterion_group!(benches, widths);
criterion_main!(benches);
