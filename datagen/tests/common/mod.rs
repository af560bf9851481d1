//! Helpers shared by the integration tests.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use clap::Parser;
use datagen::play::{self, PlayArgs, PlaySummary};
use viriformat::dataformat::Game;

/// A fresh, empty directory for one test under cargo's scratch space.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `datagen play` in-process with tiny searches.
pub fn play(out: &Path, extra: &[&str]) -> PlaySummary {
    let mut args = vec!["play", "--out", out.to_str().unwrap(), "--nodes", "300"];
    args.extend_from_slice(extra);
    play::run(&PlayArgs::parse_from(args)).unwrap()
}

/// Every game in a file through viriformat's own reader, which must consume it exactly.
pub fn read_with_viriformat(path: &Path) -> Vec<Game> {
    let bytes = std::fs::read(path).unwrap();
    let mut reader = bytes.as_slice();
    let mut games = Vec::new();
    while !reader.fill_buf().unwrap().is_empty() {
        games.push(Game::deserialise_from(&mut reader, Vec::new()).unwrap());
    }
    games
}
