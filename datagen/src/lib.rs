//! Patina's data generator as a library: self-play into viriformat game files, and the tools
//! that read them (stats, validation, bulletformat splats, the fit of the engine's
//! win-draw-loss model) or make them from match PGNs.
//! `main.rs` is the command line over it; the tests drive it directly.

pub mod adjudication;
pub mod gamefile;
pub mod keyfile;
pub mod pgn;
pub mod play;
pub mod progress;
pub mod recipe;
pub mod record;
pub mod selfplay;
pub mod spent;
pub mod splat;
pub mod stats;
pub mod validate;
pub mod wdl_fit;
pub mod writer;
