use std::{fmt, num::NonZeroU16};

use super::{PieceType, Square};

/// The side a castling move goes to.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Wing {
    King = 0,
    Queen = 1,
}

impl Wing {
    pub const BOTH: [Self; 2] = [Self::King, Self::Queen];

    /// The files the king and the rook end up on.
    pub const fn destinations(self) -> (u8, u8) {
        match self {
            Self::King => (6, 5),
            Self::Queen => (2, 3),
        }
    }
}

/// What a move does beyond moving a piece from one square to another.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum MoveKind {
    Quiet = 0,
    DoublePush = 1,
    /// Encoded as king-takes-own-rook (`to` is the rook's square) so Chess960 and standard
    /// chess share one representation.
    Castle = 2,
    Capture = 4,
    EnPassant = 5,
    PromoKnight = 8,
    PromoBishop = 9,
    PromoRook = 10,
    PromoQueen = 11,
    PromoCaptureKnight = 12,
    PromoCaptureBishop = 13,
    PromoCaptureRook = 14,
    PromoCaptureQueen = 15,
}

const KINDS: [Option<MoveKind>; 16] = [
    Some(MoveKind::Quiet),
    Some(MoveKind::DoublePush),
    Some(MoveKind::Castle),
    None,
    Some(MoveKind::Capture),
    Some(MoveKind::EnPassant),
    None,
    None,
    Some(MoveKind::PromoKnight),
    Some(MoveKind::PromoBishop),
    Some(MoveKind::PromoRook),
    Some(MoveKind::PromoQueen),
    Some(MoveKind::PromoCaptureKnight),
    Some(MoveKind::PromoCaptureBishop),
    Some(MoveKind::PromoCaptureRook),
    Some(MoveKind::PromoCaptureQueen),
];

impl MoveKind {
    const CAPTURE_BIT: u8 = 4;
    const PROMOTION_BIT: u8 = 8;

    pub const fn promotion(piece: PieceType, capture: bool) -> Self {
        let bits = Self::PROMOTION_BIT
            | if capture { Self::CAPTURE_BIT } else { 0 }
            | match piece {
                PieceType::Knight => 0,
                PieceType::Bishop => 1,
                PieceType::Rook => 2,
                PieceType::Queen => 3,
                PieceType::Pawn | PieceType::King => unreachable!(),
            };
        match KINDS[bits as usize] {
            Some(kind) => kind,
            None => unreachable!(),
        }
    }
}

/// A move in 16 bits: from (6) | to (6) | kind (4). `from != to` for every real move, so
/// the encoding is never zero and `Option<Move>` costs nothing.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

impl Move {
    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Self {
        let bits = from.index() as u16 | (to.index() as u16) << 6 | (kind as u16) << 12;
        match NonZeroU16::new(bits) {
            Some(bits) => Self(bits),
            None => panic!("a move from a1 to a1 is not a move"),
        }
    }

    /// Rebuilds a move from `to_bits`; `None` for patterns no move has.
    pub const fn from_bits(bits: u16) -> Option<Self> {
        let from = bits & 63;
        let to = bits >> 6 & 63;
        if from == to || KINDS[(bits >> 12) as usize].is_none() {
            return None;
        }
        match NonZeroU16::new(bits) {
            Some(bits) => Some(Self(bits)),
            None => None,
        }
    }

    #[inline(always)]
    pub const fn to_bits(self) -> u16 {
        self.0.get()
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new((self.0.get() & 63) as u8)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new((self.0.get() >> 6 & 63) as u8)
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match KINDS[(self.0.get() >> 12) as usize] {
            Some(kind) => kind,
            None => unreachable!(),
        }
    }

    #[inline(always)]
    const fn flags(self) -> u8 {
        (self.0.get() >> 12) as u8
    }

    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        self.flags() & MoveKind::CAPTURE_BIT != 0
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.flags() & MoveKind::PROMOTION_BIT != 0
    }

    /// Captures and promotions: the moves quiescence search looks at.
    #[inline(always)]
    pub const fn is_noisy(self) -> bool {
        self.flags() & (MoveKind::CAPTURE_BIT | MoveKind::PROMOTION_BIT) != 0
    }

    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        self.flags() == MoveKind::Castle as u8
    }

    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.flags() == MoveKind::EnPassant as u8
    }

    pub const fn promotion(self) -> Option<PieceType> {
        if !self.is_promotion() {
            return None;
        }
        Some(match self.flags() & 3 {
            0 => PieceType::Knight,
            1 => PieceType::Bishop,
            2 => PieceType::Rook,
            _ => PieceType::Queen,
        })
    }

    /// For a castling move (king takes own rook): the side it castles to.
    #[inline(always)]
    pub fn castling_wing(self) -> Wing {
        if self.to().file() > self.from().file() {
            Wing::King
        } else {
            Wing::Queen
        }
    }

    /// For a castling move: where the king and the rook land.
    #[inline(always)]
    pub fn castling_destinations(self) -> (Square, Square) {
        let (king_file, rook_file) = self.castling_wing().destinations();
        let rank = self.from().rank();
        (
            Square::from_coords(king_file, rank),
            Square::from_coords(rook_file, rank),
        )
    }

    /// UCI text. Castling is printed king-to-destination unless `chess960`, where UCI asks
    /// for king-takes-rook.
    pub fn to_uci(self, chess960: bool) -> String {
        let to = if self.is_castle() && !chess960 {
            self.castling_destinations().0
        } else {
            self.to()
        };
        match self.promotion() {
            Some(piece) => format!("{}{}{}", self.from(), to, piece.letter()),
            None => format!("{}{}", self.from(), to),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}({:?})", self.to_uci(true), self.kind())
    }
}

impl fmt::Display for Move {
    /// Chess960 notation: unambiguous without knowing the game's variant.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.to_uci(true))
    }
}
