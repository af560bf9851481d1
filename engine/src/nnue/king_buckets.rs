//! Input buckets by the king's square: each perspective's 768 inputs are repeated K times and the
//! copy in use is chosen by where that perspective's king stands, so a piece's weight can depend
//! on the king it attacks or shields. This is bullet's `ChessBucketsMirrored`: with the king on
//! files e–h the perspective sees its board mirrored left to right (a king on g1 uses the inputs
//! of a king on b1, with every square mirrored), so K buckets cover the board with half the
//! weights. K = 1 is bullet's plain `Chess768`, without mirroring.
//!
//! A net file does not name its bucket map: its size tells K, and each K has one map,
//! `MAPS` below, which the trainer and the bullet recipe use too.

use super::INPUTS;
use crate::types::{Color, Piece, Square};

/// Bucket maps by K, in bullet's order: 32 entries for files a–d of ranks 1 to 8, seen from the
/// perspective's own side (its first rank first). Finer near the home corner, where a king
/// spends most of a game and where a square more or less changes its shelter.
#[rustfmt::skip]
const MAPS: [(usize, [u8; 32]); 3] = [
    (4, [
        0, 0, 1, 1,
        2, 2, 2, 2,
        3, 3, 3, 3,
        3, 3, 3, 3,
        3, 3, 3, 3,
        3, 3, 3, 3,
        3, 3, 3, 3,
        3, 3, 3, 3,
    ]),
    (8, [
        0, 1, 2, 3,
        4, 4, 5, 5,
        6, 6, 6, 6,
        6, 6, 6, 6,
        7, 7, 7, 7,
        7, 7, 7, 7,
        7, 7, 7, 7,
        7, 7, 7, 7,
    ]),
    (16, [
         0,  1,  2,  3,
         4,  5,  6,  7,
         8,  8,  9,  9,
        10, 10, 11, 11,
        12, 12, 13, 13,
        14, 14, 14, 14,
        15, 15, 15, 15,
        15, 15, 15, 15,
    ]),
];

/// The bucket counts a net may have: 1 and those of `MAPS`.
pub const KING_BUCKET_COUNTS: [usize; 4] = [1, MAPS[0].0, MAPS[1].0, MAPS[2].0];

/// The largest K, which bounds the size of a net file.
pub const MAX_KING_BUCKETS: usize = MAPS[MAPS.len() - 1].0;

/// A perspective's bucket map over its 64 king squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KingBuckets {
    /// Per king square (from the perspective's side): the view its inputs are read in.
    views: [InputView; 64],
    count: usize,
    /// bullet's form of the map (all zeros for K = 1).
    map: [u8; 32],
}

/// Where a perspective's inputs lie for one king square: the first row of its bucket, and
/// whether its squares are mirrored left to right. Two king squares with the same view share
/// every input, so a king move between them updates the accumulator like any other move. The
/// default view, bucket 0 unmirrored, is plain chess768.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct InputView {
    /// 768 × bucket.
    first_row: u16,
    /// 7 to mirror a square's file (`square ^ 7`), else 0.
    file_flip: u8,
}

impl KingBuckets {
    /// No king buckets: plain chess768 inputs, unmirrored.
    pub const fn none() -> Self {
        Self {
            views: [InputView {
                first_row: 0,
                file_flip: 0,
            }; 64],
            count: 1,
            map: [0; 32],
        }
    }

    /// The map with `count` buckets, if there is one (`KING_BUCKET_COUNTS`).
    pub fn with_count(count: usize) -> Option<Self> {
        if count == 1 {
            return Some(Self::none());
        }
        let &(_, map) = MAPS.iter().find(|(k, _)| *k == count)?;
        let views = std::array::from_fn(|sq| {
            let (rank, file) = (sq / 8, sq % 8);
            let mirrored = file > 3;
            let half_file = if mirrored { 7 - file } else { file };
            InputView {
                first_row: 768 * u16::from(map[4 * rank + half_file]),
                file_flip: if mirrored { 7 } else { 0 },
            }
        });
        Some(Self { views, count, map })
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// The map as bullet's `ChessBucketsMirrored::new` takes it: the bucket of each king square
    /// on files a–d, rank 1 first, from the perspective's side.
    pub fn map(&self) -> [u8; 32] {
        self.map
    }

    /// The view of `perspective` with its king on `king`.
    #[inline(always)]
    pub fn view(&self, perspective: Color, king: Square) -> InputView {
        self.views[king.relative_to(perspective).index()]
    }

    /// The view of a perspective whose king stands on `king`, a square seen from its own side
    /// (as training records store it).
    #[inline(always)]
    pub fn view_from_own_side(&self, king: usize) -> InputView {
        self.views[king]
    }

    /// Distinct views: a bucket each, mirrored or not.
    pub fn view_count(&self) -> usize {
        2 * self.count
    }
}

impl InputView {
    /// This view's number, below `KingBuckets::view_count`.
    #[inline(always)]
    pub fn number(self) -> usize {
        2 * usize::from(self.first_row / 768) + usize::from(self.file_flip & 1)
    }

    /// The input row of `piece` on `sq` for `perspective`: within the bucket, bullet's chess768
    /// index `384·c + 64·piece + square` with c = 0 for the perspective's own pieces and the
    /// square seen from its side (ranks flipped for Black, files too when mirrored).
    #[inline(always)]
    pub fn index(self, perspective: Color, piece: Piece, sq: Square) -> usize {
        usize::from(self.first_row) + self.input(perspective, piece, sq)
    }

    /// The row of `piece` on `sq` among this view's bucket's rows (`rows`).
    #[inline(always)]
    pub fn input(self, perspective: Color, piece: Piece, sq: Square) -> usize {
        let relative_color = (piece.color() != perspective) as usize;
        let square = sq.relative_to(perspective).index() ^ usize::from(self.file_flip);
        384 * relative_color + 64 * piece.piece_type().index() + square
    }

    /// This view's bucket among rows of all K buckets: taken once, it spares each row of an
    /// update a bounds check against the whole.
    #[inline(always)]
    pub fn rows<T>(self, all: &[T]) -> &[T; INPUTS] {
        all[usize::from(self.first_row)..][..INPUTS]
            .try_into()
            .expect("a view's bucket is within the net's")
    }

    /// As `index`, from what the perspective sees: whether the piece is the other side's, its
    /// type (0 pawn … 5 king) and its square from the perspective's side.
    #[inline(always)]
    pub fn index_from_own_side(self, theirs: bool, piece_type: usize, sq: usize) -> usize {
        usize::from(self.first_row)
            + 384 * usize::from(theirs)
            + 64 * piece_type
            + (sq ^ usize::from(self.file_flip))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_map_uses_each_of_its_buckets() {
        for (count, map) in MAPS {
            let mut used = vec![false; count];
            for bucket in map {
                used[usize::from(bucket)] = true;
            }
            assert!(used.iter().all(|&u| u), "{count} buckets: {map:?}");
        }
    }

    #[test]
    fn mirrored_king_squares_share_a_bucket() {
        for count in KING_BUCKET_COUNTS {
            let buckets = KingBuckets::with_count(count).unwrap();
            for sq in Square::ALL {
                let mirror = Square::from_coords(7 - sq.file(), sq.rank());
                let (view, mirror_view) =
                    (buckets.views[sq.index()], buckets.views[mirror.index()]);
                assert_eq!(view.first_row, mirror_view.first_row);
                // Mirroring applies to one of each pair, and only with buckets.
                assert_eq!(view.file_flip != mirror_view.file_flip, count > 1, "{sq:?}");
            }
        }
        assert!(KingBuckets::with_count(3).is_none());
    }
}
