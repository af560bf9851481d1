//! Starts of a given material, written as a tablebase names it ("KBNvK", "KRPvKR"): the
//! pieces stand on random squares, either side may own either half and be to move. Self-play
//! from such starts practises an ending that games from the opening rarely reach, and learns
//! it from its own results, as it learns everything else.

use std::fmt;
use std::str::FromStr;

use rand_xoshiro::rand_core::RngCore;
use thiserror::Error;

use crate::board::{placement_field, Board};

#[derive(Debug, Error, PartialEq, Eq)]
pub enum MaterialError {
    #[error("'{0}': expected two sides' pieces separated by 'v', as in KBNvK")]
    Form(String),
    #[error("'{text}': '{letter}' is not one of K, Q, R, B, N, P")]
    Letter { text: String, letter: char },
    #[error("'{0}': each side needs exactly one king, written first")]
    King(String),
    #[error("'{0}': a side has more than 16 pieces or 8 pawns")]
    TooMany(String),
    #[error("'{0}': neither side can ever mate, so every game is drawn at its start")]
    Insufficient(String),
}

/// The pieces of each side, king first, by their upper-case letters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Material {
    sides: [String; 2],
}

impl FromStr for Material {
    type Err = MaterialError;

    fn from_str(text: &str) -> Result<Self, MaterialError> {
        let (first, second) = text
            .split_once(['v', 'V'])
            .ok_or_else(|| MaterialError::Form(text.to_owned()))?;
        let side = |letters: &str| -> Result<String, MaterialError> {
            let letters = letters.to_ascii_uppercase();
            if let Some(letter) = letters.chars().find(|c| !"KQRBNP".contains(*c)) {
                return Err(MaterialError::Letter {
                    text: text.to_owned(),
                    letter,
                });
            }
            if !letters.starts_with('K') || letters.matches('K').count() != 1 {
                return Err(MaterialError::King(text.to_owned()));
            }
            if letters.len() > 16 || letters.matches('P').count() > 8 {
                return Err(MaterialError::TooMany(text.to_owned()));
            }
            Ok(letters)
        };
        let material = Self {
            sides: [side(first)?, side(second)?],
        };
        // Pawns, a rook or a queen can mate; without them only two minor pieces can.
        let minors = material.pieces().filter(|c| matches!(c, 'B' | 'N')).count();
        if !material.pieces().any(|c| "QRP".contains(c)) && minors < 2 {
            return Err(MaterialError::Insufficient(text.to_owned()));
        }
        Ok(material)
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}v{}", self.sides[0], self.sides[1])
    }
}

impl Material {
    fn pieces(&self) -> impl Iterator<Item = char> + '_ {
        self.sides.iter().flat_map(|side| side.chars())
    }

    /// One random placement: the first side is White or Black and either side is to move,
    /// each with even chances; pawns stand on ranks 2 to 7. `None` where the placement is not
    /// a legal position or the game is over there (the caller draws again).
    pub fn random_board(&self, rng: &mut impl RngCore) -> Option<Board> {
        let first_is_white = rng.next_u64() % 2 == 0;
        let white_to_move = rng.next_u64() % 2 == 0;
        let mut squares = [None::<char>; 64];
        for (index, side) in self.sides.iter().enumerate() {
            let white = (index == 0) == first_is_white;
            for letter in side.chars() {
                let allowed = if letter == 'P' { 8..56 } else { 0..64 };
                let free: Vec<usize> = allowed.filter(|&sq| squares[sq].is_none()).collect();
                let square = free[rng.next_u64() as usize % free.len()];
                squares[square] = Some(if white {
                    letter
                } else {
                    letter.to_ascii_lowercase()
                });
            }
        }
        let fen = format!(
            "{} {} - - 0 1",
            placement_field(&squares),
            if white_to_move { 'w' } else { 'b' }
        );
        Board::from_fen(&fen)
            .ok()
            .filter(|board| board.outcome().is_none())
    }
}

#[cfg(test)]
mod tests {
    use rand_xoshiro::rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::types::{Color, PieceType};

    #[test]
    fn signatures_parse_and_print() {
        let material: Material = "kbnvk".parse().unwrap();
        assert_eq!(material.to_string(), "KBNvK");
        assert_eq!("KRPvKR".parse::<Material>().unwrap().to_string(), "KRPvKR");
    }

    #[test]
    fn bad_signatures_are_refused() {
        let error = |text: &str| text.parse::<Material>().unwrap_err();
        assert_eq!(error("KBNK"), MaterialError::Form("KBNK".into()));
        assert!(matches!(
            error("KXvK"),
            MaterialError::Letter { letter: 'X', .. }
        ));
        assert_eq!(error("BNvK"), MaterialError::King("BNvK".into()));
        assert_eq!(error("KBNvKK"), MaterialError::King("KBNvKK".into()));
        assert_eq!(
            error("KPPPPPPPPPvK"),
            MaterialError::TooMany("KPPPPPPPPPvK".into())
        );
        assert_eq!(error("KNvK"), MaterialError::Insufficient("KNvK".into()));
        assert_eq!(error("KvK"), MaterialError::Insufficient("KvK".into()));
        // Two minor pieces can mate, on one side or (helped) across both.
        assert!("KNNvK".parse::<Material>().is_ok());
        assert!("KBvKN".parse::<Material>().is_ok());
        assert!("KPvK".parse::<Material>().is_ok());
    }

    /// Every start is legal and not over, holds exactly the signature's pieces with either
    /// side owning either half, and both sides get the move.
    #[test]
    fn random_starts_hold_the_material() {
        let material: Material = "KRPvKB".parse().unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let (mut strong_white, mut white_to_move, mut starts) = (0, 0, 0);
        for _ in 0..2000 {
            let Some(board) = material.random_board(&mut rng) else {
                continue;
            };
            starts += 1;
            assert!(board.outcome().is_none());
            assert!(board.has_legal_move());
            let count = |color, piece| board.colored_pieces(color, piece).count();
            let rook_side = if count(Color::White, PieceType::Rook) == 1 {
                strong_white += 1;
                Color::White
            } else {
                Color::Black
            };
            let other = !rook_side;
            assert_eq!(count(rook_side, PieceType::Rook), 1, "{}", board.to_fen());
            assert_eq!(count(rook_side, PieceType::Pawn), 1, "{}", board.to_fen());
            assert_eq!(count(other, PieceType::Bishop), 1, "{}", board.to_fen());
            assert_eq!(board.occupied().count(), 5, "{}", board.to_fen());
            let pawn = board.pieces(PieceType::Pawn).lsb();
            assert!((1..7).contains(&pawn.rank()), "{}", board.to_fen());
            white_to_move += usize::from(board.side_to_move() == Color::White);
        }
        assert!(starts > 1200, "{starts} of 2000 placements were legal");
        for share in [strong_white, white_to_move] {
            assert!(
                (starts * 2 / 5..starts * 3 / 5).contains(&share),
                "{share} of {starts}"
            );
        }
    }

    #[test]
    fn starts_are_reproducible() {
        let material: Material = "KBNvK".parse().unwrap();
        let draw = |seed| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            (0..20)
                .filter_map(|_| material.random_board(&mut rng))
                .map(|board| board.to_fen())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(5), draw(5));
        assert_ne!(draw(5), draw(6));
    }
}
