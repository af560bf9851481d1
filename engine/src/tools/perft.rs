//! Move-generation node counts, the standard correctness and speed check.

use crate::board::Board;
use crate::types::Move;

/// Leaf count at `depth`; the last ply is counted from the move list without being played.
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    let moves = board.legal_moves();
    if depth <= 1 {
        return if depth == 0 { 1 } else { moves.len() as u64 };
    }
    let mut nodes = 0;
    for &mv in &moves {
        board.make_move(mv);
        nodes += perft(board, depth - 1);
        board.unmake_move(mv);
    }
    nodes
}

/// Per-root-move counts, as Stockfish's `go perft` prints them.
pub fn divide(board: &mut Board, depth: u32) -> Vec<(Move, u64)> {
    board
        .legal_moves()
        .into_iter()
        .map(|mv| {
            board.make_move(mv);
            let nodes = if depth <= 1 {
                1
            } else {
                perft(board, depth - 1)
            };
            board.unmake_move(mv);
            (mv, nodes)
        })
        .collect()
}
