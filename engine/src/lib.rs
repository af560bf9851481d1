//! Patina: a UCI chess engine whose only evaluation is an NNUE trained from zero knowledge.

pub mod board;
pub mod engine;
mod memory;
pub mod nnue;
pub mod search;
pub mod thread;
pub mod time;
pub mod tools;
pub mod tt;
pub mod types;
pub mod uci;
