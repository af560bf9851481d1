//! `bench`: a fixed-depth search of fixed positions. The node count is deterministic and is
//! the commit's signature (a change meant not to alter search must not alter it); nps is the
//! speed figure.

use std::time::{Duration, Instant};

use crate::board::Board;
use crate::engine::Engine;
use crate::search::{Limits, Silent};

pub const DEFAULT_DEPTH: i32 = 12;

/// Middlegames from the UHO 2022 book (CC0), plus endgames and tactical positions.
pub const POSITIONS: [&str; 50] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnb1k2r/pp2ppbp/1q1p1np1/2pP4/4PB2/2N2N2/PPP2PPP/1R1QKB1R w Kkq - 0 1",
    "r2qk1nr/1p1n1ppp/3b4/pPp1p3/2Pp2b1/3P1NP1/P2NPPBP/R1BQK2R w KQkq - 0 1",
    "r2qk2r/pppbnpbp/3p1np1/3Pp3/2P1P3/2N2N2/PP2BPPP/R1BQ1RK1 w kq - 0 1",
    "r1bq1rk1/pp2ppbp/n2p1np1/8/3PP3/2N1BN1P/PP3PP1/R2QKB1R w KQ - 0 1",
    "rnb1k2r/pp3ppp/2p2n2/3q4/4pB2/P1P5/1PP2PPP/R2QKBNR w KQkq - 0 1",
    "r2q1rk1/ppp1ppbp/2n2np1/3p4/2PPbBP1/2N1PN1P/PP3P2/R2QKB1R w KQ - 0 1",
    "rn1qk2r/1p3ppp/p1p1pn2/3p4/1b1PPB2/2NB1Q1P/PPP2PP1/R3K2R w KQkq - 0 1",
    "2bqk2r/1p2ppbp/r1pp1np1/p7/P2PP3/2N1B3/1PPQNPPP/R3K2R w KQk - 0 1",
    "r2qk2r/1bpnbppp/p2p1n2/1p2p3/3PPP2/2PB1N2/PP2Q1PP/RNB2RK1 w kq - 0 1",
    "rn1qk2r/pbp2pp1/1p1pp3/4Pn1p/1b1P1P2/2NB1N2/PPPB2PP/R2QK2R w KQkq - 0 1",
    "r1b1kbnr/1p1nqp2/p2p2p1/2pPp2p/P3PP2/2N2N1P/1PP3P1/R1BQKB1R w KQkq - 0 1",
    "r2qkb1r/pppnppp1/8/3pPb2/3P3p/B1P2N1P/P1P2PP1/R2QKB1R w KQkq - 0 1",
    "r2qkb1r/pb1n1ppp/1p1p1n2/2pp4/2P1P3/2N1BP2/PP1Q2PP/R3KBNR w KQkq - 0 1",
    "r1bqkb1r/pp2nppp/4p3/2n5/3Np3/2P5/PPBN1PPP/R1BQK2R w KQkq - 0 1",
    "rn1q1rk1/pp2ppbp/2ppbnp1/8/2PP4/2N2NP1/PP2PPBP/R1BQR1K1 w - - 0 1",
    "r3k1nr/1ppb1ppp/p1n1p3/3q4/Q2P4/2P2N2/P2BPPPP/R3KB1R w KQkq - 0 1",
    "r1b1k1nr/ppqnppbp/3p2p1/2p5/N1PPP3/5N2/PP1BBPPP/R2QK2R w KQkq - 0 1",
    "rn1qk2r/pp2bppp/3p1n2/4p2b/4P3/1N1B1P2/PPP3PP/RNBQ1RK1 w kq - 0 1",
    "r1bqk2r/pppnnp2/4p1pp/3pP1B1/3P2QP/2P5/P1P2PP1/R3KBNR w KQkq - 0 1",
    "r1bqk2r/pp1nbppp/2pppn2/8/3P4/4PN1P/PPPNBPPB/R2QK2R w KQkq - 0 1",
    "r1bqkb1r/p2n1p1p/3p1np1/1p1pp3/4P3/2N1B3/PPPQNPPP/2KR1B1R w kq - 0 1",
    "r1bqkb1r/4pp1p/p1n2np1/1p1p4/3P1B2/2NBPN2/PP3PPP/R2QK2R w KQkq - 0 1",
    "r3kb1r/ppqbnppp/2n1p3/2PpP3/8/2PBBN2/PP3PPP/RN1QK2R w KQkq - 0 1",
    "r2qk1nr/ppp2pbp/2n1p1p1/4P3/3P4/2P2b1P/PP4P1/RNBQKB1R w KQkq - 0 1",
    "r1bq1rk1/p2nppbp/2pp1np1/1p6/3PP3/2PB1N1P/PP3PP1/RNBQR1K1 w - - 0 1",
    "2rqkb1r/1p3ppp/p1n1pn2/2ppNb2/3P1B2/2NBP3/PPP2PPP/R2Q1RK1 w k - 0 1",
    "r1b1k2r/pp1nqpbp/2pp2pn/4p1N1/3PP3/1BP5/PP3PPP/RNBQ1RK1 w kq - 0 1",
    "rn1qk2r/p2p1pbp/1pp1pnp1/8/2PP4/2N2PP1/PP3PBP/R1BQ1RK1 w kq - 0 1",
    "r1bq1rk1/1p1pppbp/2n2np1/p7/2BNP3/2N1BP2/PPP3PP/R2QK2R w KQ - 0 1",
    "r1bqkb1r/pp1n1ppp/4pn2/2p1N3/3P4/2P2N2/PP3PPP/R1BQKB1R w KQkq - 0 1",
    "r2qkb1r/ppp2p1p/3p1np1/3Pp3/2BnP3/2N1BQ2/PPP2PPP/R3K2R w KQkq - 0 1",
    "r3kb1r/pp2pp1p/1qn2pb1/2pp4/3P4/1QP1PN2/PP1N1PPP/R3KB1R w KQkq - 0 1",
    "r1bq1rk1/pppn1ppp/2np1b2/4p3/P1B1P3/2PP1N2/1P3PPP/RNBQR1K1 w - - 0 1",
    "r2qkbnr/ppp3p1/2n1bp2/3pp2p/4P3/3P1NPP/PPPN1PB1/R1BQ1RK1 w kq - 0 1",
    "r1bqk2r/3pbppp/p1p1pn2/8/2B1P3/2N5/PPP2PPP/R1BQ1RK1 w kq - 0 1",
    "rnbq1rk1/pp2npbp/4p1p1/2P5/2p5/2N1PN2/PP2BPPP/R1BQ1RK1 w - - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "8/8/1p6/p1p1k3/P1P5/1P2K3/8/8 w - - 0 50",
    "8/8/8/4k3/8/8/2R5/4K3 w - - 0 60",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 30",
    "2r3k1/5pp1/p3p2p/1p1nP3/3P4/P4N1P/1P3PP1/2R3K1 b - - 0 28",
    "5rk1/pp3ppp/8/3q4/3P4/1Q6/PP3PPP/5RK1 w - - 0 25",
    "8/5pk1/6p1/8/8/3B2P1/5PK1/8 w - - 0 45",
    "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQK2R w KQ - 4 6",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
];

pub struct BenchReport {
    pub nodes: u64,
    pub elapsed: Duration,
}

impl BenchReport {
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches every position from a cleared state, so with one thread the node count depends only
/// on the code, the net, the depth and the Hash, MultiPV, SyzygyPath and strength options (the
/// defaults unless a `setoption` came first). Only the searches are timed: clearing the table
/// takes as long with any number of threads and would understate the speed-up of more.
pub fn run(engine: &mut Engine, depth: i32) -> BenchReport {
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    for fen in POSITIONS {
        engine.clear();
        engine.set_board(Board::from_fen(fen).expect("bench positions are valid"));
        let start = Instant::now();
        nodes += engine.search(Limits::depth(depth), &mut Silent).nodes;
        elapsed += start.elapsed();
    }
    BenchReport { nodes, elapsed }
}
