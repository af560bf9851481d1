//! Patina's CPU trainer for its NNUE: reads bullet's and viriformat's data, trains the
//! engine's 768→N×2→1 SCReLU net exactly as bullet does, and writes nets in bullet's layout.
//!
//! The network's shape, quantisation and feature index come from `patina::nnue`; nothing here
//! redefines them.

pub mod backprop;
pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod error;
pub mod features;
pub mod history;
pub mod loader;
pub mod model;
pub mod optim;
pub mod plot;
pub mod quantise;
pub mod run;
pub mod schedule;
pub mod shuffle;
pub mod synthetic;
pub mod train;
