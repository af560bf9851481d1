use std::fmt;

/// A board square, 0 = a1 … 63 = h8 (little-endian rank-file mapping).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    pub const A1: Self = Self(0);
    pub const E1: Self = Self(4);
    pub const F1: Self = Self(5);
    pub const G1: Self = Self(6);
    pub const H1: Self = Self(7);
    pub const E8: Self = Self(60);

    pub const ALL: [Self; 64] = {
        let mut all = [Self(0); 64];
        let mut i = 0;
        while i < 64 {
            all[i] = Self(i as u8);
            i += 1;
        }
        all
    };

    /// `index` must be below 64; the mask keeps release builds in bounds regardless.
    #[inline(always)]
    pub const fn new(index: u8) -> Self {
        debug_assert!(index < 64);
        Self(index & 63)
    }

    #[inline(always)]
    pub const fn from_coords(file: u8, rank: u8) -> Self {
        Self::new(rank * 8 + file)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The same square seen from the other side of the board (a1 ↔ a8).
    #[inline(always)]
    pub const fn flip_rank(self) -> Self {
        Self(self.0 ^ 56)
    }

    /// This square seen from `color`'s side: identity for White, vertical flip for Black.
    #[inline(always)]
    pub const fn relative_to(self, color: super::Color) -> Self {
        Self(self.0 ^ (56 * color as u8))
    }

    /// The square `delta` steps away in index space; the caller guarantees it stays on the board.
    #[inline(always)]
    pub const fn offset(self, delta: i8) -> Self {
        Self::new((self.0 as i8 + delta) as u8)
    }

    /// Parses algebraic notation such as `e4`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.as_bytes() {
            &[file @ b'a'..=b'h', rank @ b'1'..=b'8'] => {
                Some(Self::from_coords(file - b'a', rank - b'1'))
            }
            _ => None,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file()) as char,
            (b'1' + self.rank()) as char
        )
    }
}
