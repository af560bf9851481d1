//! AVX2 registers: 16 i16 lanes in 256 bits. Compiled only when the build enables AVX2, which is
//! what makes calling the intrinsics sound without runtime detection.

use std::arch::x86_64::*;

use super::vector::Vector;

#[derive(Clone, Copy)]
pub struct Avx2(__m256i);

impl Vector for Avx2 {
    const NAME: &'static str = "avx2";
    const LANES: usize = 16;

    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_setzero_si256() })
    }

    #[inline(always)]
    fn splat_i16(value: i16) -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_set1_epi16(value) })
    }

    #[inline(always)]
    fn load(lanes: &[i16]) -> Self {
        let lanes = &lanes[..Self::LANES];
        // SAFETY: `lanes` is 32 readable bytes and loadu has no alignment requirement; AVX2
        // is enabled for this build (module cfg).
        Self(unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) })
    }

    #[inline(always)]
    fn store(self, lanes: &mut [i16]) {
        let lanes = &mut lanes[..Self::LANES];
        // SAFETY: `lanes` is 32 writable bytes and storeu has no alignment requirement; AVX2
        // is enabled for this build (module cfg).
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    fn add_i16(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_add_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn sub_i16(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_sub_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn min_i16(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_min_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn max_i16(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_max_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn mullo_i16(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_mullo_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn madd_i16(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_madd_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn add_i32(self, other: Self) -> Self {
        // SAFETY: AVX2 is enabled for this build (module cfg).
        Self(unsafe { _mm256_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn sum_i32(self) -> i32 {
        // SAFETY: AVX2 is enabled for this build (module cfg). Fold the high half onto the low, then swap 64-bit and 32-bit pairs.
        unsafe {
            let sum = _mm_add_epi32(
                _mm256_castsi256_si128(self.0),
                _mm256_extracti128_si256::<1>(self.0),
            );
            let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b01_00_11_10>(sum));
            let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b10_11_00_01>(sum));
            _mm_cvtsi128_si32(sum)
        }
    }
}
