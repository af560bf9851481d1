//! Tools built into the engine: perft, bench, OpenBench's genfens, and the opening and PGN
//! readers that datagen shares.

pub mod bench;
pub mod genfens;
pub mod nnbench;
pub mod openings;
pub mod perft;
pub mod pgn;
