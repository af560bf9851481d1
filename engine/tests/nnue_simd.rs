//! Every vector path must be bit-identical to the scalar reference, for any input and at every
//! width: the i16 updates wrap and the dot product's i32 sum wraps in both, so there is no
//! rounding or saturation to excuse a difference.
//!
//! A path's test exists only where the build enables its instruction set (the workspace builds
//! with `target-cpu=native`). On the AVX2-only CI machine the AVX-512 test is not compiled; it
//! runs on a CPU with AVX-512F and AVX-512BW.

use patina::nnue::simd::{self, scalar};
use patina::nnue::QA;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

type Row<const N: usize> = [i16; N];

/// One path's kernels at width N, so a single checker serves every path.
struct Kernels<const N: usize> {
    add_assign: fn(&mut Row<N>, &Row<N>),
    add_sub: fn(&mut Row<N>, &Row<N>, &Row<N>, &Row<N>),
    add_sub_sub: fn(&mut Row<N>, &Row<N>, &Row<N>, &Row<N>, &Row<N>),
    add_add_sub_sub: fn(&mut Row<N>, &Row<N>, &Row<N>, &Row<N>, &Row<N>, &Row<N>),
    screlu_dot: fn(&Row<N>, &Row<N>) -> i32,
}

macro_rules! kernels {
    ($($module:ident)::+) => {
        Kernels {
            add_assign: $($module)::+::add_assign,
            add_sub: $($module)::+::add_sub,
            add_sub_sub: $($module)::+::add_sub_sub,
            add_add_sub_sub: $($module)::+::add_add_sub_sub,
            screlu_dot: $($module)::+::screlu_dot,
        }
    };
}

/// How test values are drawn.
#[derive(Clone, Copy, Debug)]
enum Values {
    /// Any i16: exercises wrapping in the updates and in v·w.
    FullRange,
    /// What a trained net produces: accumulators of a few hundred to a few thousand, feature
    /// weights well under 128, output weights within bullet's clipping (|w| < 128).
    Realistic,
    /// Only the boundaries: i16::MIN/MAX, 0, ±1 and around QA, where clamping and wrapping flip.
    Edges,
}

fn random_row<const N: usize>(
    rng: &mut Xoshiro256PlusPlus,
    values: Values,
    realistic_bound: i16,
) -> Row<N> {
    const EDGES: [i16; 10] = [
        i16::MIN,
        i16::MIN + 1,
        -1,
        0,
        1,
        QA as i16 - 1,
        QA as i16,
        QA as i16 + 1,
        i16::MAX - 1,
        i16::MAX,
    ];
    std::array::from_fn(|_| {
        let r = rng.next_u64();
        match values {
            Values::FullRange => r as i16,
            Values::Realistic => (r % (2 * realistic_bound as u64 + 1)) as i16 - realistic_bound,
            Values::Edges => EDGES[(r % EDGES.len() as u64) as usize],
        }
    })
}

fn assert_matches_scalar<const N: usize>(path: &Kernels<N>, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for values in [Values::FullRange, Values::Realistic, Values::Edges] {
        for trial in 0..300 {
            let input: Row<N> = random_row(&mut rng, values, 3000);
            let [add1, add2, sub1, sub2]: [Row<N>; 4] =
                std::array::from_fn(|_| random_row(&mut rng, values, 64));
            let context = format!("N = {N}, {values:?} values, trial {trial}");

            let (mut expected, mut actual) = (input, input);
            scalar::add_assign(&mut expected, &add1);
            (path.add_assign)(&mut actual, &add1);
            assert_eq!(expected, actual, "add_assign, {context}");

            scalar::add_sub(&mut expected, &input, &add1, &sub1);
            (path.add_sub)(&mut actual, &input, &add1, &sub1);
            assert_eq!(expected, actual, "add_sub, {context}");

            scalar::add_sub_sub(&mut expected, &input, &add1, &sub1, &sub2);
            (path.add_sub_sub)(&mut actual, &input, &add1, &sub1, &sub2);
            assert_eq!(expected, actual, "add_sub_sub, {context}");

            scalar::add_add_sub_sub(&mut expected, &input, &add1, &add2, &sub1, &sub2);
            (path.add_add_sub_sub)(&mut actual, &input, &add1, &add2, &sub1, &sub2);
            assert_eq!(expected, actual, "add_add_sub_sub, {context}");

            let weights: Row<N> = random_row(&mut rng, values, 127);
            assert_eq!(
                scalar::screlu_dot(&input, &weights),
                (path.screlu_dot)(&input, &weights),
                "screlu_dot, {context}"
            );
        }
    }
}

#[test]
fn active_path_is_the_widest_compiled() {
    let expected = if cfg!(all(
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512bw"
    )) {
        "avx512"
    } else if cfg!(all(target_arch = "x86_64", target_feature = "avx2")) {
        "avx2"
    } else {
        "scalar"
    };
    assert_eq!(simd::ACTIVE_PATH, expected);
}

/// The plain names must be the active path's kernels (on a scalar build this is trivially true).
#[test]
fn active_kernels_match_scalar() {
    assert_matches_scalar::<{ patina::nnue::HIDDEN }>(&kernels!(simd), 5);
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[test]
fn avx2_matches_scalar() {
    assert_matches_scalar::<128>(&kernels!(simd::avx2), 1);
    assert_matches_scalar::<256>(&kernels!(simd::avx2), 2);
    assert_matches_scalar::<512>(&kernels!(simd::avx2), 3);
    assert_matches_scalar::<1024>(&kernels!(simd::avx2), 4);
}

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw"
))]
#[test]
fn avx512_matches_scalar() {
    assert_matches_scalar::<128>(&kernels!(simd::avx512), 1);
    assert_matches_scalar::<256>(&kernels!(simd::avx512), 2);
    assert_matches_scalar::<512>(&kernels!(simd::avx512), 3);
    assert_matches_scalar::<1024>(&kernels!(simd::avx512), 4);
}
