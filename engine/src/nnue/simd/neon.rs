//! NEON registers: 8 i16 lanes in 128 bits. NEON is enabled by default on the AArch64 targets
//! Patina is built for; the module is compiled only where the build enables it, which is what
//! makes calling the intrinsics sound without runtime detection. A register holds i16 lanes or,
//! after `madd_i16`, i32 lanes reinterpreted in place.

use std::arch::aarch64::*;

use super::vector::Vector;

#[derive(Clone, Copy)]
pub struct Neon(int16x8_t);

impl Neon {
    #[inline(always)]
    fn i32_lanes(self) -> int32x4_t {
        // SAFETY: NEON is enabled for this build (module cfg); a reinterpretation moves no bits.
        unsafe { vreinterpretq_s32_s16(self.0) }
    }

    #[inline(always)]
    fn from_i32_lanes(lanes: int32x4_t) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg); a reinterpretation moves no bits.
        Self(unsafe { vreinterpretq_s16_s32(lanes) })
    }
}

impl Vector for Neon {
    const NAME: &'static str = "neon";
    const LANES: usize = 8;

    #[inline(always)]
    fn zero() -> Self {
        Self::splat_i16(0)
    }

    #[inline(always)]
    fn splat_i16(value: i16) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg).
        Self(unsafe { vdupq_n_s16(value) })
    }

    #[inline(always)]
    fn load(lanes: &[i16]) -> Self {
        let lanes = &lanes[..Self::LANES];
        // SAFETY: `lanes` is 16 readable bytes, aligned for i16 as vld1q_s16 asks; NEON is
        // enabled for this build (module cfg).
        Self(unsafe { vld1q_s16(lanes.as_ptr()) })
    }

    #[inline(always)]
    fn store(self, lanes: &mut [i16]) {
        let lanes = &mut lanes[..Self::LANES];
        // SAFETY: `lanes` is 16 writable bytes, aligned for i16 as vst1q_s16 asks; NEON is
        // enabled for this build (module cfg).
        unsafe { vst1q_s16(lanes.as_mut_ptr(), self.0) }
    }

    #[inline(always)]
    fn add_i16(self, other: Self) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg).
        Self(unsafe { vaddq_s16(self.0, other.0) })
    }

    #[inline(always)]
    fn sub_i16(self, other: Self) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg).
        Self(unsafe { vsubq_s16(self.0, other.0) })
    }

    #[inline(always)]
    fn min_i16(self, other: Self) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg).
        Self(unsafe { vminq_s16(self.0, other.0) })
    }

    #[inline(always)]
    fn max_i16(self, other: Self) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg).
        Self(unsafe { vmaxq_s16(self.0, other.0) })
    }

    #[inline(always)]
    fn mullo_i16(self, other: Self) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg).
        Self(unsafe { vmulq_s16(self.0, other.0) })
    }

    /// Widening products of the low and the high four lanes, then pairwise sums across both:
    /// lanes (0+1, 2+3, 4+5, 6+7), the pairs x86's madd adds.
    #[inline(always)]
    fn madd_i16(self, other: Self) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg).
        Self::from_i32_lanes(unsafe {
            let low = vmull_s16(vget_low_s16(self.0), vget_low_s16(other.0));
            let high = vmull_high_s16(self.0, other.0);
            vpaddq_s32(low, high)
        })
    }

    #[inline(always)]
    fn add_i32(self, other: Self) -> Self {
        // SAFETY: NEON is enabled for this build (module cfg).
        Self::from_i32_lanes(unsafe { vaddq_s32(self.i32_lanes(), other.i32_lanes()) })
    }

    #[inline(always)]
    fn sum_i32(self) -> i32 {
        // SAFETY: NEON is enabled for this build (module cfg). ADDV wraps like the other paths.
        unsafe { vaddvq_s32(self.i32_lanes()) }
    }
}
