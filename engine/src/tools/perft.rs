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

/// Per-root-move counts, as Stockfish's `go perft` prints them. None at depth 0, whose one node
/// is the position itself (Stockfish counts depth 0 as depth 1).
pub fn divide(board: &mut Board, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divide_splits_perft_by_root_move() {
        let mut board =
            Board::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
                .unwrap();
        assert_eq!(perft(&mut board, 0), 1);
        assert!(divide(&mut board, 0).is_empty());
        // Kiwipete's published counts.
        for (depth, expected) in [(1, 48), (2, 2039), (3, 97_862)] {
            let split = divide(&mut board, depth);
            assert_eq!(split.len(), 48);
            let total: u64 = split.iter().map(|&(_, nodes)| nodes).sum();
            assert_eq!(
                (total, perft(&mut board, depth)),
                (expected, expected),
                "depth {depth}"
            );
        }
    }
}
