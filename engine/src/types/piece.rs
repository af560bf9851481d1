use std::ops::Not;

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const BOTH: [Self; 2] = [Self::White, Self::Black];

    /// The square offset of this side's pawn push: a rank up for White, down for Black.
    #[inline(always)]
    pub const fn forward(self) -> i8 {
        match self {
            Self::White => 8,
            Self::Black => -8,
        }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl Not for Color {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        match self {
            Self::White => Self::Black,
            Self::Black => Self::White,
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum PieceType {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl PieceType {
    pub const ALL: [Self; 6] = [
        Self::Pawn,
        Self::Knight,
        Self::Bishop,
        Self::Rook,
        Self::Queen,
        Self::King,
    ];
    /// Promotion choices in generation order: the queen first, then the knight, the
    /// underpromotion most often right (it gives check or forks where a queen cannot).
    pub const PROMOTIONS: [Self; 4] = [Self::Queen, Self::Knight, Self::Rook, Self::Bishop];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn from_index(index: usize) -> Self {
        Self::ALL[index]
    }

    /// The lower-case letter used in FEN and UCI promotions.
    pub const fn letter(self) -> char {
        ['p', 'n', 'b', 'r', 'q', 'k'][self as usize]
    }

    pub const fn from_letter(letter: char) -> Option<Self> {
        match letter.to_ascii_lowercase() {
            'p' => Some(Self::Pawn),
            'n' => Some(Self::Knight),
            'b' => Some(Self::Bishop),
            'r' => Some(Self::Rook),
            'q' => Some(Self::Queen),
            'k' => Some(Self::King),
            _ => None,
        }
    }
}

/// A coloured piece, packed as `6 * color + piece type` so it can index tables directly.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece(u8);

impl Piece {
    #[inline(always)]
    pub const fn new(color: Color, piece_type: PieceType) -> Self {
        Self(color as u8 * 6 + piece_type as u8)
    }

    #[inline(always)]
    pub const fn color(self) -> Color {
        if self.0 < 6 {
            Color::White
        } else {
            Color::Black
        }
    }

    #[inline(always)]
    pub const fn piece_type(self) -> PieceType {
        PieceType::from_index(self.0 as usize % 6)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// FEN letter: upper case for White.
    pub const fn letter(self) -> char {
        let c = self.piece_type().letter();
        match self.color() {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    pub const fn from_letter(letter: char) -> Option<Self> {
        let color = if letter.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        match PieceType::from_letter(letter) {
            Some(pt) => Some(Self::new(color, pt)),
            None => None,
        }
    }
}
