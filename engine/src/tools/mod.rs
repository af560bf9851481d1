//! Command-line tools built into the engine binary.

pub mod nnbench;
pub mod perft;
