//! Net files as `EvalFile` reads them: a net that loads must write back to the bytes it came
//! from and evaluate positions, incrementally as the search does, without a panic or an overflow
//! (overflow checks are on), and the same as a fresh accumulator.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patina::nnue::{Accumulator, AccumulatorStack, Network};
use patina::Board;
use patina::Color;

const POSITIONS: [&str; 3] = [
    patina::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
];

fuzz_target!(|data: &[u8]| {
    let Ok(network) = Network::from_bytes(data) else {
        return;
    };
    // Written back with zeros for padding, which may have been bullet's letters.
    let written = network.to_bytes();
    assert_eq!(written.len(), data.len());
    assert_eq!(Network::from_bytes(&written).unwrap().to_bytes(), written);
    for fen in POSITIONS {
        let mut board = Board::from_fen(fen).unwrap();
        let mut stack = AccumulatorStack::new(&network, &board);
        for mv in board.legal_moves() {
            stack.make_move(&network, &board, mv);
            board.make_move(mv);
            let fresh = Color::BOTH.map(|c| Accumulator::refresh(&network, &board, c));
            assert!(stack.current() == &fresh, "{fen} {mv}");
            std::hint::black_box(stack.evaluate(&network, board.side_to_move()));
            board.unmake_move(mv);
            stack.unmake_move();
        }
    }
});
