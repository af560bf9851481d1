//! Match PGNs, as `datagen pgn-to-vf` turns them into training data: whatever it writes must
//! read back as whole, legal games.
#![no_main]

use datagen::gamefile::GameReader;
use datagen::pgn::{convert, PgnSummary};
use libfuzzer_sys::fuzz_target;
use patina_fuzz::scratch_file;

fuzz_target!(|data: &[u8]| {
    // As `patina::read_text` reads a file: invalid UTF-8 replaced, not refused.
    let text = String::from_utf8_lossy(data);
    let mut written = Vec::new();
    let mut summary = PgnSummary::default();
    convert(
        &text,
        "input",
        patina::wdl::NORMALIZE_TO_PAWN,
        &mut written,
        &mut summary,
    )
    .expect("writing to memory cannot fail");
    let mut reader =
        GameReader::open(&scratch_file("games.vf", &written)).expect("the output opens");
    let mut games = 0;
    while let Some(stored) = reader.next_game().expect("every written game reads back") {
        assert!(!stored.game.is_empty());
        games += 1;
    }
    assert_eq!(reader.torn_bytes(), 0);
    assert_eq!(games, summary.games);
});
