//! Tools built into the engine: perft, bench, OpenBench's genfens, and the opening sources
//! (books) and PGN reader that datagen shares.

pub mod bench;
pub mod genfens;
pub mod nnbench;
pub mod openings;
pub mod perft;
pub mod pgn;

/// Reads a text file another program wrote (a book, a match PGN): bytes that are not UTF-8,
/// such as a Latin-1 player name, become U+FFFD rather than refusing the file, and a leading
/// byte-order mark is dropped.
pub fn read_text(path: &std::path::Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    Ok(String::from_utf8_lossy(text).into_owned())
}
