//! Patina: a UCI chess engine whose only evaluation is an NNUE trained from zero knowledge.

// Every `unsafe` block says why it is sound (SIMD in `nnue::simd`, the hash table's memory,
// PEXT and prefetch hints).
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod board;
pub mod cpu;
pub mod engine;
mod memory;
pub mod nnue;
pub mod play;
pub mod search;
pub mod thread;
pub mod time;
pub mod tools;
pub mod tt;
pub mod types;
pub mod uci;
