//! Training data: bulletformat files memory-mapped in place, viriformat game files unpacked
//! into memory through viriformat's filter (by the data tools' reader), all addressed as one
//! indexable set.
//!
//! Records are decoded field by field from little-endian bytes rather than cast, so a mapping
//! needs no alignment or layout assumptions; the one `unsafe` is the mapping itself.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use bulletformat::ChessBoard;
use datagen::gamefile::GameReader;
use datagen::splat::training_positions;
use memmap2::Mmap;
use rayon::prelude::*;
use viriformat::dataformat::Filter;
use wholefile::WholeFile;

use crate::error::{Result, TrainerError};
use crate::features::check_record;

pub const RECORD_SIZE: usize = 32;
const _: () = assert!(std::mem::size_of::<ChessBoard>() == RECORD_SIZE);

enum Source {
    Mapped(Mmap),
    Memory(Vec<ChessBoard>),
}

impl Source {
    fn len(&self) -> u64 {
        match self {
            Self::Mapped(map) => (map.len() / RECORD_SIZE) as u64,
            Self::Memory(boards) => boards.len() as u64,
        }
    }

    #[inline]
    fn get(&self, i: usize) -> ChessBoard {
        match self {
            Self::Mapped(map) => decode(map[i * RECORD_SIZE..][..RECORD_SIZE].try_into().unwrap()),
            Self::Memory(boards) => boards[i],
        }
    }
}

/// All positions of all files, indexed 0..len in file order.
pub struct Dataset {
    sources: Vec<Source>,
    /// Index of each source's first position, plus the total at the end.
    starts: Vec<u64>,
}

impl Dataset {
    /// Maps bulletformat files and unpacks viriformat files, checking every record.
    pub fn open(bulletformat: &[PathBuf], viriformat: &[PathBuf], filter: &Filter) -> Result<Self> {
        let mut sources = Vec::new();
        for path in bulletformat {
            sources.push(Source::Mapped(map_bulletformat(path)?));
        }
        for path in viriformat {
            sources.push(Source::Memory(read_viriformat(path, filter)?));
        }
        let dataset = Self::from_sources(sources);
        if dataset.is_empty() {
            return Err(TrainerError::NoPositions(
                "the data files hold no positions (after filtering)".into(),
            ));
        }
        Ok(dataset)
    }

    pub fn from_boards(boards: Vec<ChessBoard>) -> Self {
        Self::from_sources(vec![Source::Memory(boards)])
    }

    fn from_sources(sources: Vec<Source>) -> Self {
        let mut starts = vec![0];
        for source in &sources {
            starts.push(starts.last().unwrap() + source.len());
        }
        Self { sources, starts }
    }

    pub fn len(&self) -> u64 {
        *self.starts.last().unwrap()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn get(&self, index: u64) -> ChessBoard {
        let source = self.starts.partition_point(|&start| start <= index) - 1;
        self.sources[source].get((index - self.starts[source]) as usize)
    }
}

fn map_bulletformat(path: &Path) -> Result<Mmap> {
    let file = File::open(path).map_err(TrainerError::io(path))?;
    // SAFETY: the mapping is read-only; the file must not be truncated or rewritten while
    // training reads it, which is the contract of every mmap-based loader (bullet's included).
    let map = unsafe { Mmap::map(&file) }.map_err(TrainerError::io(path))?;
    if map.len() % RECORD_SIZE != 0 {
        return Err(TrainerError::NotBulletformat {
            path: path.to_owned(),
            len: map.len() as u64,
        });
    }
    let bad = map
        .par_chunks(RECORD_SIZE)
        .enumerate()
        .find_first(|(_, bytes)| check_record(&decode((*bytes).try_into().unwrap())).is_err());
    if let Some((index, bytes)) = bad {
        let reason = check_record(&decode(bytes.try_into().unwrap())).unwrap_err();
        return Err(TrainerError::BadRecord {
            path: path.to_owned(),
            index: index as u64,
            reason,
        });
    }
    Ok(map)
}

/// Unpacks every whole game, keeping the positions `filter` passes, through the data tools'
/// own reader (which checks each header and proves each move legal) and conversion. A torn
/// final game, what a datagen killed mid-write leaves, is skipped as every data tool skips it.
pub fn read_viriformat(path: &Path, filter: &Filter) -> Result<Vec<ChessBoard>> {
    let mut reader = GameReader::open(path)?;
    let mut boards = Vec::new();
    while let Some(stored) = reader.next_game()? {
        training_positions(&stored.game, filter, |board| boards.push(board)).map_err(|reason| {
            TrainerError::BadGame {
                path: path.to_owned(),
                offset: stored.offset,
                reason,
            }
        })?;
    }
    if reader.torn_bytes() > 0 {
        eprintln!(
            "{}: skipping a torn final game ({} bytes)",
            path.display(),
            reader.torn_bytes()
        );
    }
    Ok(boards)
}

/// bulletformat's in-memory layout, little-endian: occupancy, 16 bytes of piece nibbles, score,
/// result, king squares and 3 spare bytes.
pub fn decode(bytes: &[u8; RECORD_SIZE]) -> ChessBoard {
    ChessBoard {
        occ: u64::from_le_bytes(bytes[..8].try_into().unwrap()),
        pcs: bytes[8..24].try_into().unwrap(),
        score: i16::from_le_bytes([bytes[24], bytes[25]]),
        result: bytes[26],
        ksq: bytes[27],
        opp_ksq: bytes[28],
        extra: [bytes[29], bytes[30], bytes[31]],
    }
}

pub fn encode(board: &ChessBoard) -> [u8; RECORD_SIZE] {
    let mut bytes = [0; RECORD_SIZE];
    bytes[..8].copy_from_slice(&board.occ.to_le_bytes());
    bytes[8..24].copy_from_slice(&board.pcs);
    bytes[24..26].copy_from_slice(&board.score.to_le_bytes());
    bytes[26] = board.result;
    bytes[27] = board.ksq;
    bytes[28] = board.opp_ksq;
    bytes[29..].copy_from_slice(&board.extra);
    bytes
}

pub fn write_bulletformat(path: &Path, boards: &[ChessBoard]) -> Result<()> {
    write_records(path, boards.iter().copied())
}

/// Writes `boards` so that `path` is either the whole new file or untouched (it may be the
/// file they were read from: they are in memory).
pub fn write_records(path: &Path, boards: impl Iterator<Item = ChessBoard>) -> Result<()> {
    let mut out = WholeFile::create(path, &[]).map_err(TrainerError::io(path))?;
    for board in boards {
        out.write_all(&encode(&board))
            .map_err(TrainerError::io(path))?;
    }
    out.commit().map_err(TrainerError::io(path))
}
