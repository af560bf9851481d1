//! Everything that can stop a training run, each with enough context to act on.

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum TrainerError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{}: {len} bytes is not a whole number of 32-byte bulletformat records (truncated, or not bulletformat)",
        path.display()
    )]
    NotBulletformat { path: PathBuf, len: u64 },
    #[error("{}: record {index} is not a valid bulletformat position: {reason}", path.display())]
    BadRecord {
        path: PathBuf,
        index: u64,
        reason: &'static str,
    },
    #[error(transparent)]
    Games(#[from] datagen::gamefile::ReadError),
    #[error("{}: viriformat game at byte {offset}: {reason}", path.display())]
    BadGame {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
    #[error("no positions to train on: {0}")]
    NoPositions(String),
    #[error(
        "training loss became {loss} at batch {step}: lower the learning rate or check the data"
    )]
    NonFiniteLoss { loss: f64, step: u64 },
    #[error("checkpoint {}: {reason}", path.display())]
    BadCheckpoint { path: PathBuf, reason: String },
    #[error("--init {}: {reason}", path.display())]
    Init { path: PathBuf, reason: String },
    #[error("configuration: {0}")]
    Config(String),
    #[error(transparent)]
    Network(#[from] patina::nnue::NetworkError),
    #[error("loss plot {}: {reason}", path.display())]
    Plot { path: PathBuf, reason: String },
}

impl TrainerError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}

pub type Result<T> = std::result::Result<T, TrainerError>;
