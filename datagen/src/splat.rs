//! `datagen splat`: games to bulletformat's 32-byte `ChessBoard` records, one per kept
//! position, with the filters that keep noise out of training: no opening plies, no
//! positions in check or whose best move is a capture or promotion (the score there
//! reflects a tactic, not the position), no mate or runaway scores.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use bulletformat::{BulletFormat, ChessBoard};
use clap::Parser;
use thiserror::Error;
use viriformat::dataformat::Filter;

use crate::gamefile::{collect_inputs, GameReader, ReadError};

#[derive(Parser, Debug)]
pub struct SplatArgs {
    /// Game files, or directories of `.vf` files.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output file of bulletformat records.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Skip positions before this game ply (counted from the start of the game, so the
    /// opening's random plies count too).
    #[arg(long, default_value_t = 16)]
    pub min_ply: u32,
    /// Skip positions whose |score| reaches this; the default also drops every mate score.
    #[arg(long, default_value_t = 10_000)]
    pub max_score: u32,
    /// Keep positions whose best move is a capture or a promotion.
    #[arg(long)]
    pub keep_noisy: bool,
    /// Keep positions where the side to move is in check.
    #[arg(long)]
    pub keep_check: bool,
}

#[derive(Debug, Error)]
pub enum SplatError {
    #[error("{0}")]
    Read(#[from] ReadError),
    #[error("{path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("game at offset {offset} of {path}: {reason}")]
    Convert {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct SplatSummary {
    pub games: u64,
    pub positions: u64,
    pub written: u64,
}

/// Records are buffered and written this many at a time.
const BATCH: usize = 1 << 14;

pub fn run(args: &SplatArgs) -> Result<SplatSummary, SplatError> {
    let filter = Filter {
        min_ply: args.min_ply,
        max_eval: args.max_score,
        filter_tactical: !args.keep_noisy,
        filter_check: !args.keep_check,
        ..Filter::UNRESTRICTED
    };
    let write_error = |source| SplatError::Write {
        path: args.out.clone(),
        source,
    };
    let mut out = BufWriter::new(File::create(&args.out).map_err(write_error)?);
    let mut batch: Vec<ChessBoard> = Vec::with_capacity(BATCH);
    let mut summary = SplatSummary::default();
    for path in collect_inputs(&args.inputs)? {
        let mut reader = GameReader::open(&path)?;
        while let Some(stored) = reader.next_game()? {
            summary.games += 1;
            summary.positions += stored.game.len() as u64;
            stored
                .game
                .splat_to_bulletformat(
                    |board| {
                        batch.push(board);
                        Ok(())
                    },
                    &filter,
                )
                .map_err(|e| SplatError::Convert {
                    path: path.clone(),
                    offset: stored.offset,
                    reason: e.to_string(),
                })?;
            if batch.len() >= BATCH {
                summary.written += batch.len() as u64;
                out.write_all(ChessBoard::as_bytes_slice(&batch))
                    .map_err(write_error)?;
                batch.clear();
            }
        }
    }
    summary.written += batch.len() as u64;
    out.write_all(ChessBoard::as_bytes_slice(&batch))
        .map_err(write_error)?;
    out.flush().map_err(write_error)?;
    Ok(summary)
}
