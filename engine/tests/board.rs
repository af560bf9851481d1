//! Board invariants under make/unmake, and robustness against malformed FEN.

use patina::{Board, Outcome, START_FEN};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const FENS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
];

fn castling_field(board: &Board) -> String {
    board.to_fen().split(' ').nth(2).unwrap().to_string()
}

#[test]
fn incremental_keys_match_scratch_after_random_games() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for fen in FENS {
        for _ in 0..50 {
            let mut board = Board::from_fen(fen).unwrap();
            let root = board.clone();
            let mut played = Vec::new();
            for _ in 0..80 {
                let moves = board.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mv = moves[rng.next_u64() as usize % moves.len()];
                let (predicted, rights) = (board.key_after(mv), castling_field(&board));
                board.make_move(mv);
                played.push(mv);
                // The prefetch key is exact but for the moves it is documented to leave out.
                if !mv.is_castle()
                    && !mv.is_en_passant()
                    && board.en_passant().is_none()
                    && castling_field(&board) == rights
                {
                    assert_eq!(predicted, board.key(), "{mv} to {}", board.to_fen());
                }
                assert_eq!(
                    board.compute_keys(),
                    (
                        board.key(),
                        board.pawn_key(),
                        [0, 1].map(|c| board.non_pawn_key(patina::Color::BOTH[c]))
                    )
                );
                // The board after the move parses back from its own FEN into the same position.
                assert_eq!(
                    Board::from_fen(&board.to_fen()).unwrap().key(),
                    board.key(),
                    "{}",
                    board.to_fen()
                );
            }
            for &mv in played.iter().rev() {
                board.unmake_move(mv);
            }
            assert_eq!(board, root);
        }
    }
}

#[test]
fn null_moves_restore_the_position() {
    let mut board = Board::from_fen(FENS[1]).unwrap();
    let before = board.clone();
    board.make_null_move();
    assert_ne!(board.key(), before.key());
    board.unmake_null_move();
    assert_eq!(board, before);
}

/// A FEN may start the move counters anywhere in u16; they stop at the top instead of wrapping
/// to a fresh fifty-move count.
#[test]
fn move_counters_saturate() {
    let mut board = Board::from_fen("4k3/8/8/8/8/8/8/4K2R b K - 65535 65535").unwrap();
    board.make_move(board.parse_uci_move("e8e7").unwrap());
    assert_eq!(board.to_fen(), "8/4k3/8/8/8/8/8/4K2R w K - 65535 65535");
    board.make_null_move();
    assert_eq!(board.to_fen(), "8/4k3/8/8/8/8/8/4K2R b K - 65535 65535");
}

/// Unmaking a move at the top of the counters gives back the position, not one move less.
#[test]
fn unmake_restores_saturated_counters() {
    let fen = "4k3/8/8/8/8/8/8/4K2R b K - 65535 65535";
    let mut board = Board::from_fen(fen).unwrap();
    for mv in board.legal_moves() {
        board.make_move(mv);
        board.unmake_move(mv);
        assert_eq!(board.to_fen(), fen);
    }
}

#[test]
fn mutated_fens_never_panic() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let alphabet = b"pnbrqkPNBRQK12345678/ wb-KQkqabcdefghABCDEFGH09x";
    let mut accepted = 0;
    for i in 0..200_000 {
        let mut bytes = FENS[i % FENS.len()].as_bytes().to_vec();
        for _ in 0..1 + rng.next_u64() % 3 {
            let pos = rng.next_u64() as usize % bytes.len();
            match rng.next_u64() % 3 {
                0 => bytes[pos] = alphabet[rng.next_u64() as usize % alphabet.len()],
                1 => {
                    bytes.remove(pos);
                }
                _ => bytes.insert(pos, alphabet[rng.next_u64() as usize % alphabet.len()]),
            }
        }
        let fen = String::from_utf8(bytes).unwrap();
        if let Ok(board) = Board::from_fen(&fen) {
            accepted += 1;
            // Whatever parses must be a position the move generator and printer can handle.
            let _ = board.legal_moves();
            assert!(Board::from_fen(&board.to_fen()).is_ok(), "{fen}");
        }
    }
    assert!(
        accepted > 1000,
        "the mutations should leave many FENs valid"
    );
}

#[test]
fn draws_by_rule() {
    let mut board = Board::startpos();
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] {
        assert!(!board.is_repetition());
        board.make_move(board.parse_uci_move(uci).unwrap());
    }
    assert!(board.is_repetition());
    assert!(Board::from_fen("8/8/4k3/8/8/3BK3/8/8 w - - 0 1")
        .unwrap()
        .is_insufficient_material());
    assert!(Board::from_fen("8/8/4k3/5b2/8/3BK3/8/8 w - - 0 1")
        .unwrap()
        .is_insufficient_material());
    assert!(!Board::from_fen("8/8/4k3/8/5b2/3BK3/8/8 w - - 0 1")
        .unwrap()
        .is_insufficient_material());
    assert!(Board::from_fen("8/8/4k3/8/8/3PK3/8/8 w - - 100 80")
        .unwrap()
        .is_fifty_move_draw());
}

/// The results self-play records: each rule's ending, mate before the fifty-move rule, and a
/// repetition ending the game only on its third occurrence.
#[test]
fn outcomes_as_an_arbiter_judges_them() {
    let after = |fen: &str, moves: &[&str]| {
        let mut board = Board::from_fen(fen).unwrap();
        for uci in moves {
            board.make_move(board.parse_uci_move(uci).unwrap());
        }
        board.outcome()
    };
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    assert_eq!(after(START_FEN, &shuffle), None);
    assert_eq!(
        after(START_FEN, &[shuffle, shuffle].concat()),
        Some(Outcome::Repetition)
    );
    // The hundredth quiet ply: a mate stays a mate, any other move draws.
    let back_rank = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80";
    assert_eq!(after(back_rank, &["a1a8"]), Some(Outcome::Checkmate));
    assert_eq!(after(back_rank, &["a1a2"]), Some(Outcome::FiftyMoves));
    assert_eq!(after(back_rank, &[]), None);
    assert_eq!(
        after("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", &[]),
        Some(Outcome::Stalemate)
    );
    assert_eq!(
        after("8/8/4k3/8/8/3BK3/8/8 w - - 0 1", &[]),
        Some(Outcome::InsufficientMaterial)
    );
}
