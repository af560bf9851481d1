//! Castling rights stored by rook square, so Chess960 and standard chess share one path.

pub use crate::types::Wing;
use crate::types::{Color, Square};

/// The four rights as bits (`2 * color + wing`) plus where each castling rook started.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Castling {
    rook_squares: [[Square; 2]; 2],
    /// For every square, the rights lost when a piece moves from or to it.
    lost_rights: [u8; 64],
}

impl Default for Castling {
    fn default() -> Self {
        Self {
            rook_squares: [
                [Square::H1, Square::A1],
                [Square::H1.flip_rank(), Square::A1.flip_rank()],
            ],
            lost_rights: [0; 64],
        }
    }
}

pub const fn right(color: Color, wing: Wing) -> u8 {
    1 << (2 * color as u8 + wing as u8)
}

impl Castling {
    pub fn rook_square(&self, color: Color, wing: Wing) -> Square {
        self.rook_squares[color.index()][wing as usize]
    }

    /// Registers a castling right; the king must already stand on `king`.
    pub fn add(&mut self, color: Color, wing: Wing, king: Square, rook: Square) {
        self.rook_squares[color.index()][wing as usize] = rook;
        self.lost_rights[rook.index()] |= right(color, wing);
        self.lost_rights[king.index()] |= right(color, wing);
    }

    #[inline(always)]
    pub fn lost_rights(&self, sq: Square) -> u8 {
        self.lost_rights[sq.index()]
    }
}
