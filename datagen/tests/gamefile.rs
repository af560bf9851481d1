//! Game files that no self-play run writes, found by the viriformat fuzz target: each is
//! refused with a reason, never replayed by viriformat (whose move generation reads out of
//! bounds on an impossible position, and whose halfmove clock is a byte).

use std::path::Path;

use datagen::gamefile::{GameReader, ReadError};

/// Why the reader refuses the first game of `path`, which must be a corrupt one.
fn corrupt_reason(path: &str) -> String {
    let mut reader = GameReader::open(Path::new(path)).unwrap();
    match reader.next_game() {
        Err(ReadError::Corrupt { offset, reason, .. }) => {
            assert_eq!(offset, 0);
            reason
        }
        Err(other) => panic!("expected a corrupt game, got {other}"),
        Ok(game) => panic!("read a game: {:?}", game.map(|g| g.start.to_fen())),
    }
}

/// An input the viriformat fuzz target found: a start position no game reaches (a second
/// white queen with no pawn missing, and Black in check with White to move), then a move.
/// `datagen validate` crashed on it.
const OPPONENT_IN_CHECK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fuzz/regressions/viriformat/opponent-in-check.vf"
);

#[test]
fn an_impossible_start_position_is_refused_before_replay() {
    let reason = corrupt_reason(OPPONENT_IN_CHECK);
    assert!(reason.contains("impossible start position"), "{reason}");
    let report = datagen::validate::run(&[OPPONENT_IN_CHECK.into()]).unwrap();
    assert_eq!((report.games, report.errors), (0, 1), "{}", report.report());
}

/// Another: a start position with the halfmove clock at 255, then a move: viriformat adds one
/// to the clock, a byte, before a capture resets it (an overflow in its replay).
const HALFMOVE_CLOCK_PAST_A_BYTE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fuzz/regressions/viriformat/halfmove-clock-past-a-byte.vf"
);

#[test]
fn a_halfmove_clock_past_a_byte_is_refused() {
    let reason = corrupt_reason(HALFMOVE_CLOCK_PAST_A_BYTE);
    assert_eq!(reason, "the halfmove clock is 255 before move 1");
}

/// Another: a rook marked as able to castle on the second rank, beside one on the first. Our
/// board and viriformat's read different castling rights off it, and viriformat's replay of a
/// castling move our board found legal panicked.
const CASTLING_ROOK_OFF_THE_BACK_RANK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fuzz/regressions/viriformat/castling-rook-off-the-back-rank.vf"
);

#[test]
fn a_castling_rook_off_the_back_rank_is_refused() {
    let reason = corrupt_reason(CASTLING_ROOK_OFF_THE_BACK_RANK);
    assert_eq!(reason, "a castling rook on square 14");
    let report = datagen::validate::run(&[CASTLING_ROOK_OFF_THE_BACK_RANK.into()]).unwrap();
    assert_eq!((report.games, report.errors), (0, 1), "{}", report.report());
}
