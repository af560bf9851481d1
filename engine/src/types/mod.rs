//! Plain value types shared by every part of the engine.

mod bitboard;
mod moves;
mod piece;
pub mod score;
mod square;

pub use bitboard::Bitboard;
pub use moves::{Move, MoveKind, Wing};
pub use piece::{Color, Piece, PieceType};
pub use score::{Score, MAX_PLY};
pub use square::Square;
