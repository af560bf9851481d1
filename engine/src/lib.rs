//! Patina: a UCI chess engine whose only evaluation is an NNUE trained from zero knowledge.

pub mod board;
pub mod nnue;
pub mod tools;
pub mod types;
