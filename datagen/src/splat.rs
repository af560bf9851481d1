//! `datagen splat`: games to bulletformat's 32-byte `ChessBoard` records, one per kept
//! position, with the filters that keep noise out of training: no opening plies, no
//! positions in check or whose best move is a capture or promotion (the score there
//! reflects a tactic, not the position), no mate or runaway scores. `training_positions` is
//! the one conversion every tool uses, the trainer's included.

use std::io::Write;
use std::path::PathBuf;

use bulletformat::{BulletFormat, ChessBoard};
use clap::Parser;
use thiserror::Error;
use viriformat::dataformat::{Filter, Game};
use wholefile::WholeFile;

use crate::gamefile::{collect_inputs, GameReader, ReadError};

#[derive(Parser, Debug)]
pub struct SplatArgs {
    /// Game files, or directories of `.vf` files.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output file of bulletformat records.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Skip positions before this ply, counted as viriformat does from the start position's
    /// full-move number: a game from startpos skips its first plies (random ones included),
    /// a game from a book position at move 9 is already at ply 16.
    #[arg(long, default_value_t = Filter::default().min_ply)]
    pub min_ply: u32,
    /// Skip positions whose |score| reaches this. Scores of ±10000 and beyond, mates
    /// included, are always skipped.
    #[arg(long, default_value_t = Filter::default().max_eval)]
    pub max_score: u32,
    /// Skip positions with fewer pieces on the board (kings included).
    #[arg(long, default_value_t = Filter::default().min_pieces)]
    pub min_pieces: u32,
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
        min_pieces: args.min_pieces,
        filter_tactical: !args.keep_noisy,
        filter_check: !args.keep_check,
        ..Filter::default()
    };
    let write_error = |source| SplatError::Write {
        path: args.out.clone(),
        source,
    };
    let inputs = collect_inputs(&args.inputs)?;
    let mut out = WholeFile::create(&args.out, &inputs).map_err(write_error)?;
    let mut batch: Vec<ChessBoard> = Vec::with_capacity(BATCH);
    let mut summary = SplatSummary::default();
    for path in inputs {
        let mut reader = GameReader::open(&path)?;
        while let Some(stored) = reader.next_game()? {
            summary.games += 1;
            summary.positions += stored.game.len() as u64;
            training_positions(&stored.game, &filter, |board| batch.push(board)).map_err(
                |reason| SplatError::Convert {
                    path: path.clone(),
                    offset: stored.offset,
                    reason,
                },
            )?;
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
    out.commit().map_err(write_error)?;
    Ok(summary)
}

/// Beyond this a score is a mate or a runaway evaluation (a PGN's "+400.00"), not a target:
/// sigmoid(10000 / 400) is already 1 − 10⁻¹¹. Patina's mates, ±(31000 − ply), lie below
/// viriformat's default `max_eval` (31339), so its filter alone would keep them.
pub const MAX_TRAINING_SCORE: i32 = 10_000;

/// A game's positions that `filter` keeps, never one scored at ±`MAX_TRAINING_SCORE` or
/// beyond.
/// The game must come from a `GameReader`, which has proven its moves legal (viriformat
/// panics on an illegal one).
pub fn training_positions(
    game: &Game,
    filter: &Filter,
    mut keep: impl FnMut(ChessBoard),
) -> Result<(), String> {
    game.splat_to_bulletformat_with_filter_callback(
        |board| {
            keep(board);
            Ok(())
        },
        |mv, eval, board, outcome, rng| {
            eval.abs() >= MAX_TRAINING_SCORE || filter.should_filter(mv, eval, board, outcome, rng)
        },
    )
    .map_err(|e| e.to_string())
}
