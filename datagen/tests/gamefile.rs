//! Game files that no self-play run writes: each is refused with a reason, never replayed by
//! viriformat (whose move generation reads out of bounds on an impossible position).

use std::path::Path;

use datagen::gamefile::{GameReader, ReadError};

/// An input the viriformat fuzz target found: a start position no game reaches (a second
/// white queen with no pawn missing, and Black in check with White to move), then a move.
/// `datagen validate` crashed on it.
const OPPONENT_IN_CHECK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fuzz/regressions/viriformat/opponent-in-check.vf"
);

#[test]
fn an_impossible_start_position_is_refused_before_replay() {
    let mut reader = GameReader::open(Path::new(OPPONENT_IN_CHECK)).unwrap();
    match reader.next_game() {
        Err(ReadError::Corrupt { offset, reason, .. }) => {
            assert_eq!(offset, 0);
            assert!(reason.contains("impossible start position"), "{reason}");
        }
        Err(other) => panic!("expected a corrupt game, got {other}"),
        Ok(game) => panic!("read a game: {:?}", game.map(|g| g.start.to_fen())),
    }
    let report = datagen::validate::run(&[OPPONENT_IN_CHECK.into()]).unwrap();
    assert_eq!((report.games, report.errors), (0, 1), "{}", report.report());
}
