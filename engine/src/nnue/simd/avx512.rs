//! AVX-512 kernels: 32 i16 lanes per 512-bit register (the 16-bit operations need AVX-512BW).
//! Compiled only when the build enables AVX-512F and AVX-512BW, which is what makes calling
//! the intrinsics sound without runtime detection.

use std::arch::x86_64::*;

use crate::nnue::QA;

pub const NAME: &str = "avx512";
/// i16 lanes per register; every width N must be a multiple of it.
pub const LANES: usize = 32;

/// Lanes `LANES·chunk ..` of `values`. Slicing checks the bounds; the check folds away
/// because callers loop `chunk` over `0..N / LANES`.
#[inline(always)]
fn load<const N: usize>(values: &[i16; N], chunk: usize) -> __m512i {
    let lanes = &values[chunk * LANES..(chunk + 1) * LANES];
    // SAFETY: `lanes` is 64 readable bytes, loadu has no alignment requirement, and AVX-512F is
    // enabled for the whole build (this module's cfg).
    unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) }
}

#[inline(always)]
fn store<const N: usize>(values: &mut [i16; N], chunk: usize, v: __m512i) {
    let lanes = &mut values[chunk * LANES..(chunk + 1) * LANES];
    // SAFETY: as in `load`, for 64 writable bytes.
    unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), v) }
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
            N.is_multiple_of(LANES),
            "the width must be a multiple of the AVX-512 lane count"
        )
    };
    for chunk in 0..N / LANES {
        let mut v = load(input.unwrap_or(output), chunk);
        // SAFETY: AVX-512BW is enabled for the whole build (this module's cfg).
        unsafe {
            for add in adds {
                v = _mm512_add_epi16(v, load(add, chunk));
            }
            for sub in subs {
                v = _mm512_sub_epi16(v, load(sub, chunk));
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

/// Σ clamp(x, 0, QA)² · w, bit-identical to `scalar::screlu_dot` for the reasons given at
/// `avx2::screlu_dot`: only the i32 accumulation wraps, and wrapping addition ignores order.
pub fn screlu_dot<const N: usize>(input: &[i16; N], weights: &[i16; N]) -> i32 {
    const {
        assert!(
            N.is_multiple_of(LANES),
            "the width must be a multiple of the AVX-512 lane count"
        )
    };
    // SAFETY: AVX-512F and AVX-512BW are enabled for the whole build (this module's cfg).
    unsafe {
        let (zero, qa) = (_mm512_setzero_si512(), _mm512_set1_epi16(QA as i16));
        let mut sum = zero;
        for chunk in 0..N / LANES {
            let v = _mm512_min_epi16(_mm512_max_epi16(load(input, chunk), zero), qa);
            let vw = _mm512_mullo_epi16(v, load(weights, chunk));
            sum = _mm512_add_epi32(sum, _mm512_madd_epi16(vw, v));
        }
        _mm512_reduce_add_epi32(sum)
    }
}
