use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use super::Square;

/// A set of squares, one bit per square (bit 0 = a1).
#[derive(Copy, Clone, PartialEq, Eq, Default, Hash, Debug)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Self = Self(0);
    pub const FULL: Self = Self(!0);
    pub const FILE_A: Self = Self(0x0101_0101_0101_0101);
    pub const FILE_H: Self = Self(0x8080_8080_8080_8080);
    pub const RANK_1: Self = Self(0xFF);
    pub const RANK_8: Self = Self(0xFF << 56);
    pub const BACK_RANKS: Self = Self(Self::RANK_1.0 | Self::RANK_8.0);

    #[inline(always)]
    pub const fn from_square(sq: Square) -> Self {
        Self(1 << sq.index())
    }

    #[inline(always)]
    pub const fn rank(rank: u8) -> Self {
        Self(0xFF << (8 * rank))
    }

    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square in the set; the set must not be empty.
    #[inline(always)]
    pub const fn lsb(self) -> Square {
        debug_assert!(self.0 != 0);
        Square::new(self.0.trailing_zeros() as u8)
    }

    /// Pawn pushes are shifts: north for White, south for Black.
    #[inline(always)]
    pub const fn shift_north(self) -> Self {
        Self(self.0 << 8)
    }

    #[inline(always)]
    pub const fn shift_south(self) -> Self {
        Self(self.0 >> 8)
    }

    #[inline(always)]
    pub const fn with(self, sq: Square) -> Self {
        Self(self.0 | 1 << sq.index())
    }

    #[inline(always)]
    pub const fn without(self, sq: Square) -> Self {
        Self(self.0 & !(1 << sq.index()))
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.lsb();
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

macro_rules! bit_ops {
    ($($trait:ident $fn:ident $assign_trait:ident $assign_fn:ident $op:tt;)*) => {$(
        impl $trait for Bitboard {
            type Output = Self;
            #[inline(always)]
            fn $fn(self, rhs: Self) -> Self {
                Self(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign_fn(&mut self, rhs: Self) {
                self.0 = self.0 $op rhs.0;
            }
        }
    )*};
}

bit_ops! {
    BitAnd bitand BitAndAssign bitand_assign &;
    BitOr bitor BitOrAssign bitor_assign |;
    BitXor bitxor BitXorAssign bitxor_assign ^;
}

impl Not for Bitboard {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Self(!self.0)
    }
}
