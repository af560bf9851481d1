//! Append-only game files that survive being killed at any moment.
//!
//! Each finished game goes to the kernel in one `write` of its serialised bytes and is synced
//! to disk: a game is about a kilobyte and takes a second or more to play, so per-game writes
//! cost nothing and a kill or power loss loses at most the games in progress. A write cut
//! short (kill mid-syscall, full disk) leaves a torn tail after the last whole game, a power
//! loss at most zeros there; reopening the file truncates that tail, and nothing else, before
//! appending again.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;
use viriformat::dataformat::Game;

use crate::gamefile::{GameReader, ReadError};

#[derive(Debug, Error)]
pub enum WriteError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "{0}\n(refusing to append after data that is not a torn final game; \
         check it with `datagen validate`)"
    )]
    Unreadable(ReadError),
}

impl From<ReadError> for WriteError {
    /// A file that cannot be read is an I/O failure; one that reads wrong is refused.
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::Io { path, source } => WriteError::Io { path, source },
            other => WriteError::Unreadable(other),
        }
    }
}

/// What a file already held when it was opened for appending.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Existing {
    pub games: u64,
    pub positions: u64,
    /// Bytes of a torn final game that were cut off.
    pub truncated: u64,
}

pub struct GameWriter {
    path: PathBuf,
    file: File,
    bytes: Vec<u8>,
}

impl GameWriter {
    /// Opens `path` for appending, creating it, or recovering it after a crash.
    pub fn open(path: &Path) -> Result<(Self, Existing), WriteError> {
        let io_error = |source| WriteError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut existing = Existing::default();
        if path.exists() {
            let mut reader = GameReader::open(path)?;
            while let Some(stored) = reader.next_game()? {
                existing.games += 1;
                existing.positions += stored.game.len() as u64;
            }
            existing.truncated = reader.torn_bytes();
            if existing.truncated > 0 {
                OpenOptions::new()
                    .write(true)
                    .open(path)
                    .and_then(|file| file.set_len(reader.offset()))
                    .map_err(io_error)?;
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io_error)?;
        let writer = Self {
            path: path.to_path_buf(),
            file,
            bytes: Vec::with_capacity(4096),
        };
        Ok((writer, existing))
    }

    pub fn write(&mut self, game: &Game) -> Result<(), WriteError> {
        self.bytes.clear();
        game.serialise_into(&mut self.bytes)
            .expect("writing to a Vec cannot fail");
        self.file
            .write_all(&self.bytes)
            .and_then(|()| self.file.sync_data())
            .map_err(|source| WriteError::Io {
                path: self.path.clone(),
                source,
            })
    }
}
