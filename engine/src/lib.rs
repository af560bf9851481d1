//! Patina: a UCI chess engine whose only evaluation is an NNUE trained from zero knowledge.
//!
//! The library's surface is what the UCI binary, datagen, the trainer and other programs need:
//! the board and its moves, the `Engine` facade (set a position, search with limits, receive
//! progress through a `Reporter`), the network and its layout (`nnue`), the win-draw-loss model
//! behind the printed scores (`wdl`), and the opening and PGN readers. Everything else is internal to the engine.

// Every `unsafe` block says why it is sound (SIMD in `nnue::simd`, the hash table's memory,
// PEXT and prefetch hints).
#![deny(clippy::undocumented_unsafe_blocks)]

mod board;
mod cpu;
mod engine;
mod memory;
pub mod nnue;
mod search;
mod syzygy;
mod tools;
mod tt;
mod types;
mod uci;
pub mod wdl;

pub use board::{placement_field, Board, FenError, MoveList, Outcome, START_FEN};
pub use cpu::{missing_features, slow_sliders_warning};
pub use engine::{Engine, Options, DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS};
pub use nnue::{Network, NetworkError};
pub use search::strength::{self, Strength};
pub use search::{Limits, Reporter, ScoreBound, SearchInfo, SearchResult, Silent};
pub use syzygy::{Tablebases, Wdl, PATH_SEPARATOR};
pub use tools::{openings, perft::perft, pgn, read_text};
pub use types::{score, Bitboard, Color, Move, Piece, PieceType, Score, Square, Wing};
pub use uci::{command::command_lines, Executed, Uci, NAME};
