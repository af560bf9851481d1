//! Command-line tools built into the engine binary.

pub mod perft;
