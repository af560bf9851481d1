//! AVX2 kernels: 16 i16 lanes per 256-bit register. This module is compiled only when the
//! build enables AVX2 (e.g. `target-cpu=native` on a machine that has it), which is what makes
//! calling the intrinsics sound without runtime detection.

use std::arch::x86_64::*;

use crate::nnue::QA;

pub const NAME: &str = "avx2";
/// i16 lanes per register; every width N must be a multiple of it.
pub const LANES: usize = 16;

/// Lanes `LANES·chunk ..` of `values`. Slicing checks the bounds; the check folds away
/// because callers loop `chunk` over `0..N / LANES`.
#[inline(always)]
fn load<const N: usize>(values: &[i16; N], chunk: usize) -> __m256i {
    let lanes = &values[chunk * LANES..(chunk + 1) * LANES];
    // SAFETY: `lanes` is 32 readable bytes, loadu has no alignment requirement, and AVX is
    // enabled for the whole build (this module's cfg).
    unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) }
}

#[inline(always)]
fn store<const N: usize>(values: &mut [i16; N], chunk: usize, v: __m256i) {
    let lanes = &mut values[chunk * LANES..(chunk + 1) * LANES];
    // SAFETY: as in `load`, for 32 writable bytes.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) }
}

/// output = input + Σ adds − Σ subs, wrapping; `input: None` updates `output` in place.
/// Every update kernel is this loop with its own number of rows (unrolled: A and S are constants).
#[inline(always)]
fn update<const N: usize, const A: usize, const S: usize>(
    output: &mut [i16; N],
    input: Option<&[i16; N]>,
    adds: [&[i16; N]; A],
    subs: [&[i16; N]; S],
) {
    const {
        assert!(
            N % LANES == 0,
            "the width must be a multiple of the AVX2 lane count"
        )
    };
    for chunk in 0..N / LANES {
        let mut v = load(input.unwrap_or(output), chunk);
        // SAFETY: AVX2 is enabled for the whole build (this module's cfg).
        unsafe {
            for add in adds {
                v = _mm256_add_epi16(v, load(add, chunk));
            }
            for sub in subs {
                v = _mm256_sub_epi16(v, load(sub, chunk));
            }
        }
        store(output, chunk, v);
    }
}

pub fn add_assign<const N: usize>(acc: &mut [i16; N], add: &[i16; N]) {
    update(acc, None, [add], []);
}

pub fn add_sub<const N: usize>(
    output: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub: &[i16; N],
) {
    update(output, Some(input), [add], [sub]);
}

pub fn add_sub_sub<const N: usize>(
    output: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub1: &[i16; N],
    sub2: &[i16; N],
) {
    update(output, Some(input), [add], [sub1, sub2]);
}

pub fn add_add_sub_sub<const N: usize>(
    output: &mut [i16; N],
    input: &[i16; N],
    add1: &[i16; N],
    add2: &[i16; N],
    sub1: &[i16; N],
    sub2: &[i16; N],
) {
    update(output, Some(input), [add1, add2], [sub1, sub2]);
}

/// Σ clamp(x, 0, QA)² · w as in `scalar::screlu_dot`: mullo_epi16 wraps v·w to i16 like
/// `wrapping_mul`, and madd_epi16 multiplies by v and adds lane pairs exactly (each product is
/// at most 2¹⁵·QA), so only the i32 accumulation wraps, and wrapping addition does not depend
/// on order. The result is therefore bit-identical to the scalar one for every input.
pub fn screlu_dot<const N: usize>(input: &[i16; N], weights: &[i16; N]) -> i32 {
    const {
        assert!(
            N % LANES == 0,
            "the width must be a multiple of the AVX2 lane count"
        )
    };
    // SAFETY: AVX2 is enabled for the whole build (this module's cfg).
    unsafe {
        let (zero, qa) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA as i16));
        let mut sum = zero;
        for chunk in 0..N / LANES {
            let v = _mm256_min_epi16(_mm256_max_epi16(load(input, chunk), zero), qa);
            let vw = _mm256_mullo_epi16(v, load(weights, chunk));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        // Horizontal sum: fold the high half onto the low, then swap 64-bit and 32-bit pairs.
        let sum = _mm_add_epi32(
            _mm256_castsi256_si128(sum),
            _mm256_extracti128_si256::<1>(sum),
        );
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b01_00_11_10>(sum));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b10_11_00_01>(sum));
        _mm_cvtsi128_si32(sum)
    }
}
