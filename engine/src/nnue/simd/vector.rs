//! The kernels for every vector instruction set, written once over `Vector`: the dozen
//! register operations each set supplies, one intrinsic apiece.

use super::Kernels;
use crate::nnue::QA;

/// A register of `LANES` i16 lanes (or half as many i32 lanes, after `madd_i16`). The
/// implementing modules are compiled only where the build enables their instruction set,
/// which is what makes these safe functions sound without runtime detection.
pub trait Vector: Copy {
    const NAME: &'static str;
    /// i16 lanes per register; every width N must be a multiple of it.
    const LANES: usize;

    fn zero() -> Self;
    fn splat_i16(value: i16) -> Self;
    /// The first `LANES` values of `lanes` (slicing checks the length).
    fn load(lanes: &[i16]) -> Self;
    fn store(self, lanes: &mut [i16]);
    /// Lane-wise, wrapping.
    fn add_i16(self, other: Self) -> Self;
    /// Lane-wise, wrapping.
    fn sub_i16(self, other: Self) -> Self;
    fn min_i16(self, other: Self) -> Self;
    fn max_i16(self, other: Self) -> Self;
    /// Lane-wise product, wrapped to 16 bits.
    fn mullo_i16(self, other: Self) -> Self;
    /// Products widened to i32 and adjacent pairs added: i32 lanes, exact.
    fn madd_i16(self, other: Self) -> Self;
    /// i32 lanes, wrapping.
    fn add_i32(self, other: Self) -> Self;
    /// The wrapping sum of all i32 lanes.
    fn sum_i32(self) -> i32;
}

/// Lanes `LANES·chunk ..` of `values`. The bounds check folds away because callers loop `chunk`
/// over `0..N / LANES`.
#[inline(always)]
fn load<V: Vector, const N: usize>(values: &[i16; N], chunk: usize) -> V {
    V::load(&values[chunk * V::LANES..])
}

/// output = input + Σ adds − Σ subs, wrapping; `input: None` updates `output` in place.
/// Every update kernel is this loop with its own number of rows (unrolled: A and S are constants).
#[inline(always)]
fn update<V: Vector, const N: usize, const A: usize, const S: usize>(
    output: &mut [i16; N],
    input: Option<&[i16; N]>,
    adds: [&[i16; N]; A],
    subs: [&[i16; N]; S],
) {
    const {
        assert!(
            N % V::LANES == 0,
            "the width must be a multiple of the lane count"
        )
    };
    for chunk in 0..N / V::LANES {
        let mut v: V = load(input.unwrap_or(output), chunk);
        for add in adds {
            v = v.add_i16(load(add, chunk));
        }
        for sub in subs {
            v = v.sub_i16(load(sub, chunk));
        }
        v.store(&mut output[chunk * V::LANES..]);
    }
}

impl<V: Vector> Kernels for V {
    const NAME: &'static str = <V as Vector>::NAME;

    fn add_assign<const N: usize>(acc: &mut [i16; N], add: &[i16; N]) {
        update::<V, N, 1, 0>(acc, None, [add], []);
    }

    fn sub_assign<const N: usize>(acc: &mut [i16; N], sub: &[i16; N]) {
        update::<V, N, 0, 1>(acc, None, [], [sub]);
    }

    fn add_sub<const N: usize>(
        output: &mut [i16; N],
        input: &[i16; N],
        add: &[i16; N],
        sub: &[i16; N],
    ) {
        update::<V, N, 1, 1>(output, Some(input), [add], [sub]);
    }

    fn add_sub_sub<const N: usize>(
        output: &mut [i16; N],
        input: &[i16; N],
        add: &[i16; N],
        sub1: &[i16; N],
        sub2: &[i16; N],
    ) {
        update::<V, N, 1, 2>(output, Some(input), [add], [sub1, sub2]);
    }

    fn add_add_sub_sub<const N: usize>(
        output: &mut [i16; N],
        input: &[i16; N],
        add1: &[i16; N],
        add2: &[i16; N],
        sub1: &[i16; N],
        sub2: &[i16; N],
    ) {
        update::<V, N, 2, 2>(output, Some(input), [add1, add2], [sub1, sub2]);
    }

    /// mullo wraps v·w to i16 like the scalar `wrapping_mul`, and madd multiplies by v and adds
    /// lane pairs exactly (each product is at most 2¹⁵·QA), so only the i32 accumulation wraps,
    /// and wrapping addition does not depend on order: bit-identical to `Scalar` for every input.
    fn screlu_dot<const N: usize>(input: &[i16; N], weights: &[i16; N]) -> i32 {
        const {
            assert!(
                N % V::LANES == 0,
                "the width must be a multiple of the lane count"
            )
        };
        let (zero, qa) = (V::zero(), V::splat_i16(QA as i16));
        let mut sum = zero;
        for chunk in 0..N / V::LANES {
            let v = load::<V, N>(input, chunk).max_i16(zero).min_i16(qa);
            let vw = v.mullo_i16(load(weights, chunk));
            sum = sum.add_i32(vw.madd_i16(v));
        }
        sum.sum_i32()
    }
}
