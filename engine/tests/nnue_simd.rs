//! Every vector path must be bit-identical to the scalar reference, for any input and at every
//! width: the i16 updates wrap and the dot product's i32 sum wraps in both, so there is no
//! rounding or saturation to excuse a difference.
//!
//! A path's test exists only where the build enables its instruction set (the workspace builds
//! with `target-cpu=native`). On the AVX2-only CI machine the AVX-512 test is not compiled; it
//! runs on a CPU with AVX-512F and AVX-512BW. The NEON test runs on AArch64, natively or under
//! QEMU (the README shows how).

use patina::nnue::simd::{self, Kernels, Scalar};
use patina::nnue::{AccumulatorStack, Network, HIDDEN, QA, QB, SCALE};
use patina::Board;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

type Row<const N: usize> = [i16; N];

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

fn assert_matches_scalar<Path: Kernels, const N: usize>(seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for values in [Values::FullRange, Values::Realistic, Values::Edges] {
        for trial in 0..300 {
            let input: Row<N> = random_row(&mut rng, values, 3000);
            let [add1, add2, sub1, sub2]: [Row<N>; 4] =
                std::array::from_fn(|_| random_row(&mut rng, values, 64));
            let context = format!("N = {N}, {values:?} values, trial {trial}");

            let (mut expected, mut actual) = (input, input);
            Scalar::add_assign(&mut expected, &add1);
            Path::add_assign(&mut actual, &add1);
            assert_eq!(expected, actual, "add_assign, {context}");

            Scalar::sub_assign(&mut expected, &sub1);
            Path::sub_assign(&mut actual, &sub1);
            assert_eq!(expected, actual, "sub_assign, {context}");

            Scalar::add_sub(&mut expected, &input, &add1, &sub1);
            Path::add_sub(&mut actual, &input, &add1, &sub1);
            assert_eq!(expected, actual, "add_sub, {context}");

            Scalar::add_sub_sub(&mut expected, &input, &add1, &sub1, &sub2);
            Path::add_sub_sub(&mut actual, &input, &add1, &sub1, &sub2);
            assert_eq!(expected, actual, "add_sub_sub, {context}");

            Scalar::add_add_sub_sub(&mut expected, &input, &add1, &add2, &sub1, &sub2);
            Path::add_add_sub_sub(&mut actual, &input, &add1, &add2, &sub1, &sub2);
            assert_eq!(expected, actual, "add_add_sub_sub, {context}");

            let weights: Row<N> = random_row(&mut rng, values, 127);
            assert_eq!(
                Scalar::screlu_dot(&input, &weights),
                Path::screlu_dot(&input, &weights),
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
    } else if cfg!(all(target_arch = "aarch64", target_feature = "neon")) {
        "neon"
    } else {
        "scalar"
    };
    assert_eq!(simd::ACTIVE_PATH, expected);
}

/// The engine's kernels are the active path's (on a scalar build this is trivially true).
#[test]
fn active_kernels_match_scalar() {
    assert_matches_scalar::<simd::Active, HIDDEN>(5);
}

/// The engine's evaluation of a net with 8 output buckets, on the active path, against the
/// output layer written out with the scalar kernel and bullet's `MaterialCount<8>` bucket,
/// over positions of every bucket.
#[test]
fn bucketed_evaluation_matches_scalar() {
    let net = Network::random_bucketed(21, 1, 8);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    let mut seen = [false; 8];
    for _ in 0..40 {
        let mut board = Board::startpos();
        // Random games, capturing whenever possible, go down to a handful of pieces.
        for _ in 0..300 {
            let moves = board.legal_moves();
            let captures: Vec<_> = moves.iter().copied().filter(|m| m.is_capture()).collect();
            let pool = if captures.is_empty() {
                &moves[..]
            } else {
                &captures[..]
            };
            if pool.is_empty() || board.is_draw() {
                break;
            }
            board.make_move(pool[(rng.next_u64() % pool.len() as u64) as usize]);
            let stack = AccumulatorStack::new(&net, &board);
            let [white, black] = *stack.current();
            let (us, them) = match board.side_to_move() {
                patina::Color::White => (white, black),
                patina::Color::Black => (black, white),
            };
            let pieces = board.occupied().count() as usize;
            let bucket = (pieces - 2) / 4;
            seen[bucket] = true;
            let (ours, theirs) = net.output_weights[bucket].split_at(HIDDEN);
            let sum = i64::from(Scalar::screlu_dot(&us.values, ours.try_into().unwrap()))
                + i64::from(Scalar::screlu_dot(&them.values, theirs.try_into().unwrap()));
            let expected = (sum / i64::from(QA) + i64::from(net.output_bias[bucket]))
                * i64::from(SCALE)
                / i64::from(QA * QB);
            assert_eq!(
                i64::from(stack.evaluate(&net, board.side_to_move())),
                expected,
                "{}",
                board.to_fen()
            );
        }
    }
    assert_eq!(seen, [true; 8], "every bucket reached");
}

/// A vector path at the widths nets are trained with, each from its own seed.
#[allow(dead_code)] // on a build that compiles no vector path
fn assert_matches_scalar_at_every_width<Path: Kernels>() {
    assert_matches_scalar::<Path, 128>(1);
    assert_matches_scalar::<Path, 256>(2);
    assert_matches_scalar::<Path, 512>(3);
    assert_matches_scalar::<Path, 1024>(4);
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[test]
fn avx2_matches_scalar() {
    assert_matches_scalar_at_every_width::<simd::Avx2>();
}

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw"
))]
#[test]
fn avx512_matches_scalar() {
    assert_matches_scalar_at_every_width::<simd::Avx512>();
}

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
#[test]
fn neon_matches_scalar() {
    assert_matches_scalar_at_every_width::<simd::Neon>();
}
