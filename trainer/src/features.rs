//! The network's inputs for one bulletformat position, for both perspectives at once.
//!
//! A `ChessBoard` is stored from the side to move's view: squares are flipped when Black is to
//! move and piece colour bit 3 means "the opponent's". bullet's chess768 then reads the side to
//! move's perspective straight off the record and the other perspective by swapping colours and
//! flipping ranks — which is the engine's input index without king buckets
//! (`patina::nnue::InputView::default()`) for the two real colours.

use bulletformat::ChessBoard;
use patina::nnue::{KingBuckets, INPUTS, SCALE};

/// A position has at most 32 pieces.
pub const MAX_PIECES: usize = 32;
/// Each piece activates one row, and one more with a factoriser.
pub const MAX_ACTIVE: usize = 2 * MAX_PIECES;

/// Which rows of the feature weights a position activates: those of each perspective's king
/// bucket and, with a factoriser, the same feature's row in a block of 768 after the last
/// bucket that every position shares (bullet's factoriser, as a virtual bucket always active).
/// A trained factoriser is added into every bucket for the engine (`Model::merged`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputLayout {
    pub king_buckets: KingBuckets,
    pub factoriser: bool,
}

impl InputLayout {
    /// Plain chess768: no king buckets, no factoriser.
    pub const fn plain() -> Self {
        Self {
            king_buckets: KingBuckets::none(),
            factoriser: false,
        }
    }
}

/// Rows of the feature weights that are active, per perspective.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    pub stm: [u16; MAX_ACTIVE],
    pub ntm: [u16; MAX_ACTIVE],
    /// Active rows per perspective: the pieces, twice with a factoriser.
    pub len: usize,
    /// Pieces on the board, which pick the output bucket.
    pub pieces: usize,
}

impl Features {
    /// The record must have passed `check_record` (at most 32 pieces, piece types 0–5, king
    /// squares on the board). With king buckets each perspective's rows are those of its king's
    /// bucket, its squares mirrored when that king is on files e–h, as bullet's
    /// `ChessBucketsMirrored` reads the record (bulletformat stores the other side's king square
    /// from that side's view). A factoriser adds, after the pieces' rows, their rows in its
    /// block: bullet's `feature % 768`, mirroring included.
    ///
    /// Reads the record's fields directly (bit by bit as bulletformat's own iterator does):
    /// this runs for every position of every batch.
    #[inline]
    pub fn of(board: &ChessBoard, layout: &InputLayout) -> Self {
        let king_buckets = &layout.king_buckets;
        let stm_view = king_buckets.view_from_own_side(usize::from(board.our_ksq()));
        let ntm_view = king_buckets.view_from_own_side(usize::from(board.opp_ksq()));
        let (mut stm, mut ntm) = ([0; MAX_ACTIVE], [0; MAX_ACTIVE]);
        // A local count, not `self.len`: the loop stays in registers instead of a store and
        // reload of the length per piece.
        let mut len = 0;
        let mut occupied = board.occ;
        while occupied != 0 {
            let square = occupied.trailing_zeros() as u16;
            occupied &= occupied - 1;
            // The k-th occupied square's piece is the k-th nibble, low nibble first.
            let piece = u16::from(board.pcs[len / 2] >> (4 * (len & 1))) & 0b1111;
            let (theirs, piece_type) = (piece >> 3 != 0, usize::from(piece & 7));
            let square = usize::from(square);
            stm[len] = stm_view.index_from_own_side(theirs, piece_type, square) as u16;
            ntm[len] = ntm_view.index_from_own_side(!theirs, piece_type, square ^ 56) as u16;
            len += 1;
        }
        let pieces = len;
        if layout.factoriser {
            let block = (INPUTS * king_buckets.count()) as u16;
            for i in 0..pieces {
                stm[pieces + i] = block + stm[i] % INPUTS as u16;
                ntm[pieces + i] = block + ntm[i] % INPUTS as u16;
            }
            len *= 2;
        }
        Self {
            stm,
            ntm,
            len,
            pieces,
        }
    }

    pub fn stm(&self) -> &[u16] {
        &self.stm[..self.len]
    }

    pub fn ntm(&self) -> &[u16] {
        &self.ntm[..self.len]
    }
}

/// Why a record cannot be turned into features, if it cannot.
pub fn check_record(board: &ChessBoard) -> Result<(), &'static str> {
    let pieces = board.occ.count_ones() as usize;
    if pieces > MAX_PIECES {
        return Err("more than 32 pieces");
    }
    let codes = (0..pieces).map(|i| (board.pcs[i / 2] >> (4 * (i & 1))) & 0b1111);
    if codes.into_iter().any(|code| code & 7 > 5) {
        return Err("piece code is not a chess piece");
    }
    if board.result > 2 {
        return Err("result is not 0, 1 or 2");
    }
    if board.our_ksq() > 63 || board.opp_ksq() > 63 {
        return Err("king square is off the board");
    }
    Ok(())
}

/// bullet's target: λ·result + (1−λ)·sigmoid(score / SCALE), both from the side to move's view.
#[inline]
pub fn target(board: &ChessBoard, wdl: f32) -> f32 {
    let result = f32::from(board.result) / 2.0;
    let score = sigmoid(f32::from(board.score) * (1.0 / SCALE as f32));
    wdl * result + (1.0 - wdl) * score
}

#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use patina::nnue::InputView;
    use patina::Board;
    use patina::Color;

    /// Converts through bulletformat's own FEN parser, independent of patina's board.
    fn record(fen: &str) -> ChessBoard {
        format!("{fen} | 0 | 0.5").parse().expect("valid FEN")
    }

    fn patina_features(board: &Board, perspective: Color) -> Vec<u16> {
        let mut features: Vec<u16> = board
            .occupied()
            .map(|sq| {
                InputView::default().index(perspective, board.piece_at(sq).unwrap(), sq) as u16
            })
            .collect();
        features.sort_unstable();
        features
    }

    #[test]
    fn both_perspectives_match_the_engine() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
            "4k3/8/8/8/8/8/8/4K2R b K - 0 1",
        ];
        for fen in fens {
            let board = Board::from_fen(fen).unwrap();
            let features = Features::of(&record(fen), &InputLayout::plain());
            let (us, them) = (board.side_to_move(), !board.side_to_move());
            let mut stm = features.stm().to_vec();
            let mut ntm = features.ntm().to_vec();
            stm.sort_unstable();
            ntm.sort_unstable();
            assert_eq!(stm, patina_features(&board, us), "side to move, {fen}");
            assert_eq!(ntm, patina_features(&board, them), "other side, {fen}");
        }
    }

    /// bullet's `ChessBucketsMirrored::map_features` on a record, written from its source: the
    /// 32-square map expanded to 64 by mirroring files e–h, each side's bucket from its own king
    /// square (bulletformat stores the opponent's from the opponent's side), and every square
    /// of a perspective whose king stands on files e–h mirrored (`^ 7`).
    fn bullet_king_bucketed(board: &ChessBoard, map: [u8; 32]) -> (Vec<usize>, Vec<usize>) {
        let expanded: [usize; 64] = std::array::from_fn(|i| {
            usize::from(map[(i / 8) * 4 + [0, 1, 2, 3, 3, 2, 1, 0][i % 8]])
        });
        let view = |ksq: u8| {
            let flip = if ksq % 8 > 3 { 7 } else { 0 };
            (flip, 768 * expanded[usize::from(ksq)])
        };
        let (stm_flip, stm_bucket) = view(board.our_ksq());
        let (ntm_flip, ntm_bucket) = view(board.opp_ksq());
        let (mut stm, mut ntm) = (Vec::new(), Vec::new());
        for (piece, square) in *board {
            let (c, pc, sq) = (
                usize::from(piece >> 3),
                64 * usize::from(piece & 7),
                usize::from(square),
            );
            stm.push(stm_bucket + (([0, 384][c] + pc + sq) ^ stm_flip));
            ntm.push(ntm_bucket + (([384, 0][c] + pc + (sq ^ 56)) ^ ntm_flip));
        }
        stm.sort_unstable();
        ntm.sort_unstable();
        (stm, ntm)
    }

    #[test]
    fn king_buckets_are_bullets_chess_buckets_mirrored() {
        use patina::nnue::KING_BUCKET_COUNTS;
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
            "6k1/5ppp/8/8/3K4/8/5PPP/8 w - - 0 1",
            "1k6/8/8/3q4/4Q3/8/8/6K1 b - - 0 1",
        ];
        // K = 1 is plain chess768 (`both_perspectives_match_the_engine`), without mirroring.
        for count in KING_BUCKET_COUNTS[1..].iter().copied() {
            let buckets = KingBuckets::with_count(count).unwrap();
            for fen in fens {
                let board = Board::from_fen(fen).unwrap();
                let engine = |perspective: Color| {
                    let view = buckets.view(perspective, board.king_square(perspective));
                    let mut features: Vec<usize> = board
                        .occupied()
                        .map(|sq| view.index(perspective, board.piece_at(sq).unwrap(), sq))
                        .collect();
                    features.sort_unstable();
                    features
                };
                let (stm, ntm) = bullet_king_bucketed(&record(fen), buckets.map());
                assert_eq!(engine(board.side_to_move()), stm, "{count} buckets, {fen}");
                assert_eq!(engine(!board.side_to_move()), ntm, "{count} buckets, {fen}");
                // And the trainer's own reading of the record.
                let mut layout = InputLayout {
                    king_buckets: buckets,
                    factoriser: false,
                };
                let features = Features::of(&record(fen), &layout);
                let sorted = |rows: &[u16]| {
                    let mut rows: Vec<usize> = rows.iter().map(|&r| usize::from(r)).collect();
                    rows.sort_unstable();
                    rows
                };
                assert_eq!(sorted(features.stm()), stm, "{count} buckets, {fen}");
                assert_eq!(sorted(features.ntm()), ntm, "{count} buckets, {fen}");
                // A factoriser adds bullet's `Factorises<ChessBucketsMirrored> for Chess768`
                // rows, feature % 768, in the block after the buckets.
                layout.factoriser = true;
                let factorised = Features::of(&record(fen), &layout);
                assert_eq!(factorised.pieces, features.len);
                let shared = |rows: &[usize]| {
                    let block = 768 * count;
                    let mut rows: Vec<usize> = rows.iter().map(|r| block + r % 768).collect();
                    rows.sort_unstable();
                    rows
                };
                let both = |bucketed: &[usize]| {
                    let mut rows = [bucketed, &shared(bucketed)].concat();
                    rows.sort_unstable();
                    rows
                };
                assert_eq!(sorted(factorised.stm()), both(&stm), "{count}, {fen}");
                assert_eq!(sorted(factorised.ntm()), both(&ntm), "{count}, {fen}");
            }
        }
    }

    #[test]
    fn reads_records_as_bulletformats_iterator_does() {
        let board = record("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1");
        let features = Features::of(&board, &InputLayout::plain());
        let pairs: Vec<(u8, u8)> = board.into_iter().collect();
        assert_eq!(pairs.len(), features.len);
        for (k, (piece, square)) in pairs.into_iter().enumerate() {
            let (theirs, piece_square) = (u16::from(piece >> 3), 64 * u16::from(piece & 7));
            assert_eq!(
                features.stm[k],
                384 * theirs + piece_square + u16::from(square)
            );
        }
    }

    #[test]
    fn target_blends_result_and_score_from_the_side_to_move() {
        let mut board = record("4k3/8/8/8/8/8/8/4K2R b K - 0 1");
        board.score = 400;
        board.result = 2;
        assert!((target(&board, 0.0) - sigmoid(1.0)).abs() < 1e-6);
        assert_eq!(target(&board, 1.0), 1.0);
        assert!((target(&board, 0.5) - 0.5 * (1.0 + sigmoid(1.0))).abs() < 1e-6);
    }

    #[test]
    fn malformed_records_are_rejected() {
        let mut board = record("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        assert!(check_record(&board).is_ok());
        board.pcs[0] |= 0b0111;
        assert!(check_record(&board).is_err());
        let mut board = record("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        board.occ = u64::MAX;
        assert!(check_record(&board).is_err());
        for king in [64, 255] {
            let mut board = record("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
            board.ksq = king;
            assert_eq!(check_record(&board), Err("king square is off the board"));
            let mut board = record("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
            board.opp_ksq = king;
            assert_eq!(check_record(&board), Err("king square is off the board"));
        }
    }
}
