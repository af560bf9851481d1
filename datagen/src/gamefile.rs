//! Reading viriformat files game by game. A game is a 32-byte packed start position, then
//! 4-byte (move, score) records, then a 4-byte zero terminator; no record of a real move is
//! all zeros, so a file cut anywhere is a sequence of whole games plus a torn tail, and the
//! two are told apart without ambiguity. A torn tail must still look like the start of a game
//! (a start position, then legal moves), so that damage or a file of something else is never
//! taken for one and cut off.
//!
//! Every start position is checked before viriformat unpacks it (its unpacking panics on
//! some malformed bytes) and then parsed by our own board, and every move is proven legal on
//! our board before viriformat replays it (its replay panics on an illegal move, and its move
//! generation reads out of bounds on an impossible position), so a game that reads is a game
//! every tool here, and the trainer, can replay.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use patina::Board;
use thiserror::Error;
use viriformat::dataformat::Game;

use crate::record::{from_viri_board, from_viri_move};

const HEADER_BYTES: usize = 32;
const RECORD_BYTES: usize = 4;
/// Byte offsets inside the packed start position (marlinformat).
const OCCUPANCY: std::ops::Range<usize> = 0..8;
const PIECES: std::ops::Range<usize> = 8..24;
const STM_EP: usize = 24;
const FULLMOVE: std::ops::Range<usize> = 26..28;
const WDL: usize = 30;
/// Piece nibble codes: piece type (0..6, or 6 for a rook that may castle) plus colour bit 8.
const KING: u8 = 5;
const UNMOVED_ROOK: u8 = 6;

#[derive(Debug, Error)]
pub enum ReadError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: game at offset {offset} is corrupt: {reason}")]
    Corrupt {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
    #[error("{path}: the folder holds no .vf game files")]
    NoGameFiles { path: PathBuf },
    /// A well-formed game with an illegal move; the games after it can still be read.
    #[error("{path}: game at offset {offset}: move {} is not legal", ply + 1)]
    IllegalMove {
        path: PathBuf,
        offset: u64,
        ply: usize,
    },
}

/// A game read from a file, with our board for its start position.
pub struct StoredGame {
    pub offset: u64,
    pub game: Game,
    pub start: Board,
}

pub struct GameReader {
    path: PathBuf,
    reader: BufReader<File>,
    /// Where the next game starts: the end of the whole games read so far.
    offset: u64,
    bytes: Vec<u8>,
    torn: u64,
    /// The file's length when opened, and where the run of zeros that ends it begins.
    len: u64,
    zero_tail: u64,
}

impl GameReader {
    pub fn open(path: &Path) -> Result<Self, ReadError> {
        let io_error = |source| ReadError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::open(path).map_err(io_error)?;
        let len = file.metadata().map_err(io_error)?.len();
        let zero_tail = zero_tail_start(&mut file, len).map_err(io_error)?;
        Ok(Self {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 16, file),
            offset: 0,
            bytes: Vec::with_capacity(4096),
            torn: 0,
            len,
            zero_tail,
        })
    }

    /// Bytes of whole games read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Bytes after the last whole game that do not complete one: what a run killed while
    /// writing leaves behind. Known once `next_game` has returned `None`.
    pub fn torn_bytes(&self) -> u64 {
        self.torn
    }

    /// The next whole game; `Ok(None)` at the end of the file or at a torn final game. After
    /// `IllegalMove` the reader goes on with the next game; after any other error its position
    /// is lost: stop reading this file.
    pub fn next_game(&mut self) -> Result<Option<StoredGame>, ReadError> {
        let io_error = |path: &Path, source| ReadError::Io {
            path: path.to_path_buf(),
            source,
        };
        if self
            .reader
            .fill_buf()
            .map_err(|e| io_error(&self.path, e))?
            .is_empty()
        {
            return Ok(None);
        }
        self.bytes.clear();
        let mut whole = self.read_up_to(HEADER_BYTES)?;
        while whole {
            whole = self.read_up_to(self.bytes.len() + RECORD_BYTES)?;
            if self.bytes[self.bytes.len() - RECORD_BYTES..] == [0; RECORD_BYTES] {
                break;
            }
        }
        let offset = self.offset;
        if !whole {
            // The file ends inside a game: what a run killed while writing leaves, if the
            // bytes could begin one.
            check_fragment(&self.bytes).map_err(|reason| ReadError::Corrupt {
                path: self.path.clone(),
                offset,
                reason: format!("{reason}, in bytes at the end that begin no game"),
            })?;
            self.torn = self.bytes.len() as u64;
            return Ok(None);
        }
        // A power loss can leave the file longer than what reached the disk, with zeros in
        // place of the last game's end. A game that does not read, followed by nothing but
        // zeros or made of them, is that: a torn tail. (One that reads is kept: it may be
        // whole, and if not, it is the start of a real game with its real result.)
        let end = offset + self.bytes.len() as u64;
        // Games past the length the file had when opened were appended since: never a tail.
        let in_zero_tail = offset < self.len
            && end >= self.zero_tail
            && (end < self.len || offset >= self.zero_tail);
        let (game, start) = match parse_game(&self.bytes) {
            Ok(game) => match replay(&game) {
                Ok(start) => (game, start),
                Err(_) if in_zero_tail => return self.zero_tail_torn(offset),
                Err(Unplayable::Move(ply)) => {
                    self.offset = end;
                    return Err(ReadError::IllegalMove {
                        path: self.path.clone(),
                        offset,
                        ply,
                    });
                }
                Err(Unplayable::Corrupt(reason)) => {
                    return Err(ReadError::Corrupt {
                        path: self.path.clone(),
                        offset,
                        reason,
                    })
                }
            },
            Err(_) if in_zero_tail => return self.zero_tail_torn(offset),
            Err(reason) => {
                return Err(ReadError::Corrupt {
                    path: self.path.clone(),
                    offset,
                    reason,
                })
            }
        };
        self.offset = end;
        Ok(Some(StoredGame {
            offset,
            game,
            start,
        }))
    }

    /// Ends the file at `offset`: what follows, to the end, is a torn tail.
    fn zero_tail_torn(&mut self, offset: u64) -> Result<Option<StoredGame>, ReadError> {
        self.torn = self.len - offset;
        io::copy(&mut self.reader, &mut io::sink()).map_err(|source| ReadError::Io {
            path: self.path.clone(),
            source,
        })?;
        Ok(None)
    }

    /// Appends bytes up to a total of `len`; false if the file ends first.
    fn read_up_to(&mut self, len: usize) -> Result<bool, ReadError> {
        while self.bytes.len() < len {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(ReadError::Io {
                        path: self.path.clone(),
                        source,
                    })
                }
            };
            if available.is_empty() {
                return Ok(false);
            }
            let take = available.len().min(len - self.bytes.len());
            self.bytes.extend_from_slice(&available[..take]);
            self.reader.consume(take);
        }
        Ok(true)
    }
}

/// A game's bytes as viriformat's `Game`, once its header is proven safe to unpack.
fn parse_game(bytes: &[u8]) -> Result<Game, String> {
    check_header(&bytes[..HEADER_BYTES])?;
    let game = Game::deserialise_from(&mut &bytes[..], Vec::new()).map_err(|e| e.to_string())?;
    if game.is_empty() {
        return Err("a game without moves".into());
    }
    Ok(game)
}

/// Why a game that unpacked cannot be replayed.
enum Unplayable {
    /// A game no self-play run writes, for this reason.
    Corrupt(String),
    /// The ply of the first move that is not legal.
    Move(usize),
}

/// Our board for the game's start, once every move is proven legal on our board. viriformat's
/// own move generation must never see a position no game can reach: it indexes its attack
/// tables unchecked, and reads out of bounds on one.
fn replay(game: &Game) -> Result<Board, Unplayable> {
    let start = from_viri_board(&game.initial_position())
        .map_err(|e| Unplayable::Corrupt(format!("impossible start position: {e}")))?;
    let mut board = start.clone();
    for (ply, viri) in game.moves().enumerate() {
        // viriformat counts the halfmove clock in a byte and adds one before it resets it for
        // a capture or pawn move: any move from 255 overflows it.
        if board.halfmove_clock() >= u16::from(u8::MAX) {
            return Err(Unplayable::Corrupt(format!(
                "the halfmove clock is 255 before move {}",
                ply + 1
            )));
        }
        let mv = from_viri_move(&board, viri).ok_or(Unplayable::Move(ply))?;
        board.make_move(mv);
    }
    Ok(start)
}

/// Whether `bytes`, cut off by the end of the file, can begin a game: a start position a game
/// can have, then legal moves from it. Fewer bytes than a start position tell nothing.
fn check_fragment(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < HEADER_BYTES {
        return Ok(());
    }
    check_header(&bytes[..HEADER_BYTES])?;
    let records = (bytes.len() - HEADER_BYTES) / RECORD_BYTES;
    let mut whole = bytes[..HEADER_BYTES + records * RECORD_BYTES].to_vec();
    whole.extend_from_slice(&[0; RECORD_BYTES]);
    let game = Game::deserialise_from(&mut &whole[..], Vec::new()).map_err(|e| e.to_string())?;
    match replay(&game) {
        Ok(_) => Ok(()),
        Err(Unplayable::Corrupt(reason)) => Err(reason),
        Err(Unplayable::Move(ply)) => Err(format!("move {} is not legal", ply + 1)),
    }
}

/// Where the run of zero bytes that ends the file begins (`len` if it ends in none); the file
/// is left at its start.
fn zero_tail_start(file: &mut File, len: u64) -> io::Result<u64> {
    let mut chunk = vec![0; 1 << 16];
    let mut start = len;
    while start > 0 {
        let size = start.min(chunk.len() as u64);
        file.seek(SeekFrom::Start(start - size))?;
        file.read_exact(&mut chunk[..size as usize])?;
        if let Some(last) = chunk[..size as usize].iter().rposition(|&b| b != 0) {
            start = start - size + last as u64 + 1;
            break;
        }
        start -= size;
    }
    file.seek(SeekFrom::Start(0))?;
    Ok(start)
}

/// Rejects packed positions viriformat cannot unpack safely or that no game could reach.
fn check_header(header: &[u8]) -> Result<(), String> {
    let occupancy = u64::from_le_bytes(header[OCCUPANCY].try_into().expect("8 bytes"));
    let pieces = occupancy.count_ones() as usize;
    if !(2..=32).contains(&pieces) {
        return Err(format!("{pieces} pieces on the board"));
    }
    let mut kings = [0; 2];
    let squares = (0..64u32).filter(|sq| occupancy >> sq & 1 != 0);
    for (i, square) in squares.enumerate() {
        let code = header[PIECES][i / 2] >> (4 * (i % 2)) & 0xF;
        let color = usize::from(code >> 3);
        match code & 7 {
            KING => kings[color] += 1,
            // A rook that may castle stands on its own back rank; viriformat's castling
            // rights, read off these rooks, are otherwise not ours.
            UNMOVED_ROOK if square / 8 != [0, 7][color] => {
                return Err(format!("a castling rook on square {square}"))
            }
            c if c > UNMOVED_ROOK => return Err(format!("piece code {code}")),
            _ => {}
        }
    }
    if kings != [1, 1] {
        return Err(format!("{} white and {} black kings", kings[0], kings[1]));
    }
    if header[STM_EP] & 0x7F > 64 {
        return Err(format!("en-passant square {}", header[STM_EP] & 0x7F));
    }
    if u16::from_le_bytes(header[FULLMOVE].try_into().expect("2 bytes")) == 0 {
        return Err("full-move number 0".into());
    }
    if header[WDL] > 2 {
        return Err(format!("result code {}", header[WDL]));
    }
    Ok(())
}

/// Expands directories into the `.vf` files directly inside them, sorted by name. A folder
/// without any is refused: a mistyped folder would otherwise pass as checked, empty data.
pub fn collect_inputs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ReadError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|source| ReadError::Io {
                path: path.clone(),
                source,
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "vf"))
                .collect();
            if found.is_empty() {
                return Err(ReadError::NoGameFiles { path: path.clone() });
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_gives_its_game_files_and_one_without_any_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"not games").unwrap();
        let folder = [dir.path().to_path_buf()];
        assert!(matches!(
            collect_inputs(&folder),
            Err(ReadError::NoGameFiles { path }) if path == dir.path()
        ));
        for name in ["b.vf", "a.vf"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let names: Vec<_> = collect_inputs(&folder)
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["a.vf", "b.vf"]);
    }
}
