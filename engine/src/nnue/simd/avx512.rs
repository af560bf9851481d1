//! AVX-512 registers: 32 i16 lanes in 512 bits (the 16-bit operations need AVX-512BW).
//! Compiled only when the build enables AVX-512F and AVX-512BW, which is what makes calling
//! the intrinsics sound without runtime detection.

use std::arch::x86_64::*;

use super::vector::Vector;

#[derive(Clone, Copy)]
pub struct Avx512(__m512i);

impl Vector for Avx512 {
    const NAME: &'static str = "avx512";
    const LANES: usize = 32;

    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_setzero_si512() })
    }

    #[inline(always)]
    fn splat_i16(value: i16) -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_set1_epi16(value) })
    }

    #[inline(always)]
    fn load(lanes: &[i16]) -> Self {
        let lanes = &lanes[..Self::LANES];
        // SAFETY: `lanes` is 64 readable bytes and loadu has no alignment requirement;
        // AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) })
    }

    #[inline(always)]
    fn store(self, lanes: &mut [i16]) {
        let lanes = &mut lanes[..Self::LANES];
        // SAFETY: `lanes` is 64 writable bytes and storeu has no alignment requirement;
        // AVX-512F/BW are enabled for this build (module cfg).
        unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    fn add_i16(self, other: Self) -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_add_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn sub_i16(self, other: Self) -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_sub_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn min_i16(self, other: Self) -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_min_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn max_i16(self, other: Self) -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_max_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn mullo_i16(self, other: Self) -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_mullo_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn madd_i16(self, other: Self) -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_madd_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn add_i32(self, other: Self) -> Self {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        Self(unsafe { _mm512_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn sum_i32(self) -> i32 {
        // SAFETY: AVX-512F/BW are enabled for this build (module cfg).
        unsafe { _mm512_reduce_add_epi32(self.0) }
    }
}
