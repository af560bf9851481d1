//! `bench nn`: evaluations and accumulator updates per second through the engine's own code
//! (`AccumulatorStack::make_move` and `Network::evaluate` on the compiled SIMD path), over a
//! fixed set of positions and all their legal moves. Each measurement repeats whole passes
//! over that set for a fixed time, so the numbers compare builds and machines, not positions.

use std::fmt;
use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::board::{Board, MoveList};
use crate::nnue::{simd, Accumulator, AccumulatorStack, Network, HIDDEN};
use crate::types::Color;

/// Openings, middlegames and endgames, so moves of every kind (castling, captures, en passant,
/// promotions) are among the updates.
const POSITIONS: [&str; 8] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
    "2r2rk1/1bqnbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 4 14",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
];

/// Time spent on each of the two measurements.
const BUDGET: Duration = Duration::from_secs(1);

pub struct NnBenchReport {
    pub evals_per_sec: f64,
    /// `make_move` calls per second; each updates both perspectives.
    pub updates_per_sec: f64,
    /// The SIMD path compiled in (`nnue::simd::ACTIVE_PATH`).
    pub path: &'static str,
    /// King buckets (1: plain chess768 inputs).
    pub king_buckets: usize,
    pub hidden: usize,
    /// Output buckets by piece count (1: a single output).
    pub buckets: usize,
}

impl fmt::Display for NnBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "nn bench: {:.0} evals/s, {:.0} updates/s, path {}, king buckets={}, N={}, buckets={}",
            self.evals_per_sec,
            self.updates_per_sec,
            self.path,
            self.king_buckets,
            self.hidden,
            self.buckets
        )
    }
}

/// About two seconds of work.
pub fn run(net: &Network) -> NnBenchReport {
    run_for(net, BUDGET)
}

/// Like `run`, spending `budget` on each measurement.
pub fn run_for(net: &Network, budget: Duration) -> NnBenchReport {
    let boards: Vec<Board> = POSITIONS
        .iter()
        .map(|fen| Board::from_fen(fen).expect("bench FENs are valid"))
        .collect();
    let moves: Vec<MoveList> = boards.iter().map(Board::legal_moves).collect();
    let mut stacks: Vec<AccumulatorStack> = boards
        .iter()
        .map(|board| AccumulatorStack::new(net, board))
        .collect();

    // Every legal move of every position, made on the stack and taken back again.
    let updates_per_sec = rate(budget, || {
        let mut updates = 0;
        for ((board, moves), stack) in boards.iter().zip(&moves).zip(&mut stacks) {
            for &mv in moves {
                stack.make_move(net, board, mv);
                black_box(stack.current());
                stack.unmake_move();
                updates += 1;
            }
        }
        updates
    });

    // The positions after those moves, as (side to move, other side) accumulator pairs with the
    // piece count that picks the output bucket.
    let mut children: Vec<(Accumulator, Accumulator, usize)> = Vec::new();
    for ((board, moves), stack) in boards.iter().zip(&moves).zip(&mut stacks) {
        for &mv in moves {
            stack.make_move(net, board, mv);
            let [white, black] = *stack.current();
            children.push(if board.side_to_move() == Color::White {
                (black, white, stack.pieces())
            } else {
                (white, black, stack.pieces())
            });
            stack.unmake_move();
        }
    }
    let evals_per_sec = rate(budget, || {
        for (us, them, pieces) in &children {
            black_box(net.evaluate(&us.values, &them.values, *pieces));
        }
        children.len()
    });

    NnBenchReport {
        evals_per_sec,
        updates_per_sec,
        path: simd::ACTIVE_PATH,
        king_buckets: net.king_buckets.count(),
        hidden: HIDDEN,
        buckets: net.buckets(),
    }
}

/// Repeats `pass`, which returns how many operations it did, until `budget` has elapsed.
fn rate(budget: Duration, mut pass: impl FnMut() -> usize) -> f64 {
    let start = Instant::now();
    let mut operations = 0;
    while start.elapsed() < budget {
        operations += pass();
    }
    operations as f64 / start.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_positive_rates_and_the_shape_in_one_line() {
        // scripts/generation.sh reads the parent's shape off the end of this line.
        let net = Network::random_bucketed(1, 4, 8);
        let report = run_for(&net, Duration::from_millis(20));
        assert!(report.evals_per_sec > 0.0 && report.updates_per_sec > 0.0);
        let line = report.to_string();
        assert!(
            line.starts_with("nn bench: ")
                && line.ends_with(&format!(
                    "path {}, king buckets=4, N={HIDDEN}, buckets=8",
                    simd::ACTIVE_PATH
                )),
            "{line}"
        );
    }
}
