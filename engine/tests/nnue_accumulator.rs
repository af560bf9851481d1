//! The incremental accumulator (and the piece count that picks the output bucket) must always
//! equal a refresh from the board, with and without king buckets, and the evaluation must not
//! care which colour is which. Random nets suffice: any wrong feature, sign, bucket or
//! perspective shows up whatever the weights.

use patina::nnue::{Accumulator, AccumulatorStack, Network, KING_BUCKET_COUNTS};
use patina::{Board, START_FEN};
use patina::{Color, Move};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Positions chosen for the moves whose feature deltas differ from a plain move.
const FENS: [&str; 6] = [
    START_FEN,
    // Kiwipete: castling both ways for both sides, many captures.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    // Promotions with and without capture, a capture on the promotion square, en passant after c7c5.
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    // Both sides promote, underpromote and capture-promote at once.
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    // Chess960 with rooks on f and h: the king may stay put or land where a rook stood.
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    // En passant available at once (e5xf6).
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
];

fn refreshed(net: &Network, board: &Board) -> [Accumulator; 2] {
    Color::BOTH.map(|perspective| Accumulator::refresh(net, board, perspective))
}

/// Castling, en passant and promotion are rare among legal moves; pick one of them half the
/// time it is available so every game exercises them.
fn pick_move(board: &Board, rng: &mut Xoshiro256PlusPlus) -> Option<Move> {
    let moves = board.legal_moves();
    let special: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|mv| mv.is_castle() || mv.is_en_passant() || mv.is_promotion())
        .collect();
    let pool = if !special.is_empty() && rng.next_u64() % 2 == 0 {
        &special[..]
    } else {
        &moves[..]
    };
    (!pool.is_empty()).then(|| pool[(rng.next_u64() % pool.len() as u64) as usize])
}

#[derive(Default, Debug)]
struct Coverage {
    castles: usize,
    chess960_castles: usize,
    en_passants: usize,
    promotions: usize,
    capture_promotions: usize,
    /// King moves into another king bucket or across the mirror line, which rebuild their
    /// side's accumulator from the refresh cache.
    view_changes: usize,
    deepest_line: usize,
}

/// Plays a random line of up to `plies` moves from `fen`, checking the incremental stack against
/// a refresh after every move and again after every unmake on the way back to the root.
fn check_random_line(
    net: &Network,
    fen: &str,
    plies: usize,
    rng: &mut Xoshiro256PlusPlus,
    coverage: &mut Coverage,
) {
    let board = Board::from_fen(fen).unwrap();
    let mut stack = AccumulatorStack::new(net, &board);
    check_random_line_of(&mut stack, net, board, plies, rng, coverage);
}

/// As `check_random_line`, on a stack whose top is `board`'s.
fn check_random_line_of(
    stack: &mut AccumulatorStack,
    net: &Network,
    mut board: Board,
    plies: usize,
    rng: &mut Xoshiro256PlusPlus,
    coverage: &mut Coverage,
) {
    let root = board.clone();
    let mut line = Vec::new();
    while line.len() < plies {
        let Some(mv) = pick_move(&board, rng) else {
            break;
        };
        coverage.castles += mv.is_castle() as usize;
        coverage.chess960_castles += (mv.is_castle() && board.is_chess960()) as usize;
        coverage.en_passants += mv.is_en_passant() as usize;
        coverage.promotions += mv.is_promotion() as usize;
        coverage.capture_promotions += (mv.is_promotion() && mv.is_capture()) as usize;
        let uci = mv.to_uci(board.is_chess960());
        let before = board.to_fen();
        let us = board.side_to_move();
        let view_before = net.king_buckets.view(us, board.king_square(us));

        stack.make_move(net, &board, mv);
        board.make_move(mv);
        line.push(mv);
        coverage.view_changes +=
            (net.king_buckets.view(us, board.king_square(us)) != view_before) as usize;
        assert_eq!(
            stack.current(),
            &refreshed(net, &board),
            "after {uci} from {before}"
        );
        assert_eq!(
            stack.pieces(),
            board.occupied().count() as usize,
            "after {uci} from {before}"
        );
        assert_eq!(
            stack.evaluate(net, board.side_to_move()),
            AccumulatorStack::new(net, &board).evaluate(net, board.side_to_move()),
            "after {uci} from {before}"
        );
    }
    coverage.deepest_line = coverage.deepest_line.max(line.len());
    for mv in line.into_iter().rev() {
        board.unmake_move(mv);
        stack.unmake_move();
        assert_eq!(
            stack.current(),
            &refreshed(net, &board),
            "after unmaking {} back to {}",
            mv.to_uci(board.is_chess960()),
            board.to_fen()
        );
        assert_eq!(stack.pieces(), board.occupied().count() as usize);
    }
    assert_eq!(board, root);
}

#[test]
fn incremental_updates_match_refresh() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5eed);
    let mut coverage = Coverage::default();
    // With output buckets too: the bucket follows the piece count through captures. With king
    // buckets a king's side is rebuilt from the refresh cache, whose slots were filled at other
    // positions of the line (or never).
    let mut nets = vec![(0, 1, 1), (1, 1, 1), (2, 1, 8)];
    nets.extend(KING_BUCKET_COUNTS[1..].iter().map(|&k| (k as u64, k, 8)));
    for (seed, king_buckets, buckets) in nets {
        let net = Network::random_bucketed(seed, king_buckets, buckets);
        for fen in FENS {
            for _ in 0..20 {
                check_random_line(&net, fen, 40, &mut rng, &mut coverage);
            }
        }
    }
    // Lines longer than the stack's 256 preallocated entries make it grow.
    let net = Network::random(3);
    for _ in 0..5 {
        check_random_line(&net, START_FEN, 400, &mut rng, &mut coverage);
    }
    // Guard against the move picker drifting away from what this test exists for.
    assert!(
        coverage.castles > 0 && coverage.chess960_castles > 0 && coverage.en_passants > 0,
        "{coverage:?}"
    );
    assert!(
        coverage.promotions > 0 && coverage.capture_promotions > 0 && coverage.deepest_line > 256,
        "{coverage:?}"
    );
    assert!(coverage.view_changes > 100, "{coverage:?}");
}

/// A stack keeps its refresh cache across searches; a new net (`setoption name EvalFile`, here
/// with another number of king buckets) must not find the old net's accumulators in it.
#[test]
fn a_refresh_for_another_net_forgets_the_cache() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xf1);
    let first = Network::random_bucketed(31, 16, 1);
    let board = Board::from_fen(FENS[1]).unwrap();
    let mut stack = AccumulatorStack::new(&first, &board);
    let mut coverage = Coverage::default();
    for net in [
        Network::random_bucketed(32, 16, 1),
        Network::random_bucketed(33, 4, 8),
        Network::random(34),
    ] {
        // King moves fill the first net's cache, then the stack moves on to the next net.
        let mut board = board.clone();
        stack.refresh(&first, &board);
        for _ in 0..200 {
            let Some(mv) = pick_move(&board, &mut rng) else {
                break;
            };
            stack.make_move(&first, &board, mv);
            board.make_move(mv);
        }
        stack.refresh(&net, &board);
        assert_eq!(stack.current(), &refreshed(&net, &board));
        check_random_line_of(&mut stack, &net, board, 60, &mut rng, &mut coverage);
    }
    assert!(coverage.view_changes > 0, "{coverage:?}");
}

/// The same position with colours swapped: ranks flipped, piece colours and side to move swapped.
/// Castling rights and en passant are left out (the net does not see them).
fn mirrored_fen(board: &Board) -> String {
    let fen = board.to_fen();
    let mut fields = fen.split_whitespace();
    let placement = fields.next().unwrap();
    let side = if board.side_to_move() == Color::White {
        "b"
    } else {
        "w"
    };
    let ranks: Vec<String> = placement
        .split('/')
        .rev()
        .map(|rank| rank.chars().map(swap_case).collect())
        .collect();
    format!("{} {side} - - 0 1", ranks.join("/"))
}

fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    }
}

/// Each perspective sees its own pieces as "ours" on a board flipped to its side, so a
/// position and its colour mirror give the same accumulators (swapped) and the same evaluation.
#[test]
fn evaluation_is_colour_symmetric() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xc010);
    let nets = [
        Network::embedded(),
        Network::random(11),
        Network::random_bucketed(12, 1, 8),
        Network::random_bucketed(13, 16, 8),
    ];
    let mut positions = 0;
    for fen in FENS {
        for _ in 0..10 {
            let mut board = Board::from_fen(fen).unwrap();
            for _ in 0..30 {
                let Some(mv) = pick_move(&board, &mut rng) else {
                    break;
                };
                board.make_move(mv);
                let placement_and_side = board
                    .to_fen()
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ");
                let original = Board::from_fen(&format!("{placement_and_side} - - 0 1")).unwrap();
                let mirror = Board::from_fen(&mirrored_fen(&board)).unwrap();
                for net in &nets {
                    let [white, black] = refreshed(net, &original);
                    let [mirror_white, mirror_black] = refreshed(net, &mirror);
                    assert_eq!(
                        (white, black),
                        (mirror_black, mirror_white),
                        "{}",
                        original.to_fen()
                    );
                    let eval = AccumulatorStack::new(net, &original)
                        .evaluate(net, original.side_to_move());
                    let mirror_eval =
                        AccumulatorStack::new(net, &mirror).evaluate(net, mirror.side_to_move());
                    assert_eq!(
                        eval,
                        mirror_eval,
                        "{} vs {}",
                        original.to_fen(),
                        mirror.to_fen()
                    );
                }
                positions += 1;
            }
        }
    }
    assert!(positions > 1000);
}
