//! FEN and EPD positions: a board that parses must print back as itself, and every legal move
//! must make and unmake to the same position, with keys that match a fresh computation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patina::Board;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut board) = Board::from_fen(text) else {
        return;
    };
    let fen = board.to_fen();
    let again = Board::from_fen(&fen).expect("a printed FEN parses");
    assert_eq!(again.to_fen(), fen);
    assert_eq!(
        board.compute_keys(),
        (
            board.key(),
            board.pawn_key(),
            [
                board.non_pawn_key(patina::Color::White),
                board.non_pawn_key(patina::Color::Black)
            ]
        )
    );
    for mv in board.legal_moves() {
        let san = board.san(mv);
        assert_eq!(board.parse_san(&san), Some(mv), "{fen}: {san}");
        let uci = mv.to_uci(board.is_chess960());
        assert_eq!(board.parse_uci_move(&uci), Some(mv), "{fen}: {uci}");
        board.make_move(mv);
        let _ = board.outcome();
        let _ = board.to_fen();
        board.unmake_move(mv);
        assert_eq!(board.to_fen(), fen);
    }
    // Moves named by the input itself, as `position ... moves` gives them.
    for word in text.split_whitespace() {
        if let Some(mv) = board.parse_uci_move(word) {
            board.make_move(mv);
            board.unmake_move(mv);
        }
        let _ = board.parse_san(word);
    }
});
