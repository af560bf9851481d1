//! FEN parsing and printing: standard FEN, X-FEN and Shredder-FEN castling fields.
//! FEN comes from users and GUIs, so every malformed or impossible input is a typed error, but
//! castling and en-passant claims that the placement contradicts are dropped, not refused.

use std::fmt::Write;

use thiserror::Error;

use super::{castling::right, Board, Castling, State, Wing};
use crate::types::{Bitboard, Color, Piece, PieceType, Square};

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[derive(Debug, Error, PartialEq, Eq)]
pub enum FenError {
    #[error("expected 4 to 6 space-separated fields, found {0}")]
    FieldCount(usize),
    #[error("expected 8 ranks separated by '/', found {0}")]
    RankCount(usize),
    #[error("rank {rank} describes {files} files instead of 8")]
    RankLength { rank: u8, files: usize },
    #[error("'{0}' is not a piece letter or empty-square count")]
    BadPieceChar(char),
    #[error("side to move must be 'w' or 'b', found '{0}'")]
    BadSideToMove(String),
    #[error("{0:?} has {1} kings; each side needs exactly one")]
    KingCount(Color, u32),
    #[error("{0:?} has {1} pawns; at most 8 are possible")]
    PawnCount(Color, u32),
    #[error(
        "{color:?} has {promoted} pieces beyond the starting set, more than the {} pawns missing \
         could have promoted to",
        8 - pawns
    )]
    TooManyPromoted {
        color: Color,
        promoted: u32,
        pawns: u32,
    },
    #[error("pawns cannot stand on the first or last rank")]
    PawnOnBackRank,
    #[error("the side not to move is in check")]
    OpponentInCheck,
    #[error("the side to move is in check from {0} pieces; no move gives more than two checks")]
    TooManyCheckers(u32),
    #[error("bad castling field '{0}'")]
    BadCastling(String),
    #[error("bad en-passant field '{0}'")]
    BadEnPassant(String),
    #[error("bad halfmove clock '{0}'")]
    BadHalfmoveClock(String),
    #[error("bad fullmove number '{0}'")]
    BadFullmoveNumber(String),
}

impl Board {
    /// Parses FEN, X-FEN or Shredder-FEN; the halfmove and fullmove fields may be left out.
    pub fn from_fen(fen: &str) -> Result<Self, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let mut board = Self {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            mailbox: [None; 64],
            side_to_move: Color::White,
            castling: Castling::default(),
            chess960: false,
            state: State {
                fullmove_number: 1,
                ..State::default()
            },
            history: Vec::with_capacity(256),
        };
        board.parse_placement(fields[0])?;
        board.side_to_move = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadSideToMove(other.to_string())),
        };
        board.validate_material()?;
        board.parse_castling(fields[2])?;
        board.parse_en_passant(fields[3])?;
        if let Some(text) = fields.get(4) {
            board.state.halfmove_clock = text
                .parse()
                .map_err(|_| FenError::BadHalfmoveClock(text.to_string()))?;
        }
        if let Some(text) = fields.get(5) {
            // Some tools write move number 0; it is read as 1, as Stockfish reads it.
            board.state.fullmove_number = text
                .parse::<u16>()
                .map_err(|_| FenError::BadFullmoveNumber(text.to_string()))?
                .max(1);
        }
        let opponent_king = board.king_square(!board.side_to_move);
        if board.is_attacked(opponent_king, board.side_to_move, board.occupied()) {
            return Err(FenError::OpponentInCheck);
        }
        (
            board.state.key,
            board.state.pawn_key,
            board.state.non_pawn_keys,
        ) = board.compute_keys();
        board.update_check_info();
        let checkers = board.checkers().count();
        if checkers > 2 {
            return Err(FenError::TooManyCheckers(checkers));
        }
        Ok(board)
    }

    fn parse_placement(&mut self, placement: &str) -> Result<(), FenError> {
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return Err(FenError::RankCount(ranks.len()));
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file = 0usize;
            for c in text.chars() {
                if let Some(skip) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += skip as usize;
                } else {
                    let piece = Piece::from_letter(c).ok_or(FenError::BadPieceChar(c))?;
                    if file < 8 {
                        self.add_piece(piece, Square::from_coords(file as u8, rank));
                    }
                    file += 1;
                }
            }
            if file != 8 {
                return Err(FenError::RankLength {
                    rank: rank + 1,
                    files: file,
                });
            }
        }
        Ok(())
    }

    fn validate_material(&self) -> Result<(), FenError> {
        for color in Color::BOTH {
            let kings = self.colored_pieces(color, PieceType::King).count();
            if kings != 1 {
                return Err(FenError::KingCount(color, kings));
            }
            let pawns = self.colored_pieces(color, PieceType::Pawn).count();
            if pawns > 8 {
                return Err(FenError::PawnCount(color, pawns));
            }
            // Every piece beyond the starting set is a promoted pawn. This also bounds a side
            // to 16 men and keeps the move count within the 218 of legal positions.
            let promoted: u32 = [
                (PieceType::Knight, 2),
                (PieceType::Bishop, 2),
                (PieceType::Rook, 2),
                (PieceType::Queen, 1),
            ]
            .into_iter()
            .map(|(piece, start)| {
                self.colored_pieces(color, piece)
                    .count()
                    .saturating_sub(start)
            })
            .sum();
            if pawns + promoted > 8 {
                return Err(FenError::TooManyPromoted {
                    color,
                    promoted,
                    pawns,
                });
            }
        }
        if (self.pieces(PieceType::Pawn) & Bitboard::BACK_RANKS).is_nonempty() {
            return Err(FenError::PawnOnBackRank);
        }
        Ok(())
    }

    /// A right the placement contradicts (no king on its back rank, no rook for it) is dropped,
    /// not refused: books and GUIs write stale `KQkq`, and refusing the position would leave the
    /// engine on the previous one.
    fn parse_castling(&mut self, field: &str) -> Result<(), FenError> {
        if field == "-" {
            return Ok(());
        }
        if field.is_empty() || field.len() > 4 {
            return Err(FenError::BadCastling(field.to_string()));
        }
        for c in field.chars() {
            if !matches!(c.to_ascii_lowercase(), 'k' | 'q' | 'a'..='h') {
                return Err(FenError::BadCastling(field.to_string()));
            }
            let color = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            let back_rank = Bitboard::rank(7 * color as u8);
            let Some(king) = (self.colored_pieces(color, PieceType::King) & back_rank).next()
            else {
                continue;
            };
            let rooks = self.colored_pieces(color, PieceType::Rook) & back_rank;
            let outermost = |wing: Wing| -> Option<Square> {
                let mut side = rooks.filter(|sq| (sq.file() > king.file()) == (wing == Wing::King));
                match wing {
                    Wing::King => side.last(),
                    Wing::Queen => side.next(),
                }
            };
            let rook = match c.to_ascii_lowercase() {
                'k' => outermost(Wing::King),
                'q' => outermost(Wing::Queen),
                file => {
                    let sq = Square::from_coords(file as u8 - b'a', king.rank());
                    rooks.contains(sq).then_some(sq)
                }
            };
            let Some(rook) = rook else {
                continue;
            };
            let wing = if rook.file() > king.file() {
                Wing::King
            } else {
                Wing::Queen
            };
            if self.state.castling_rights & right(color, wing) != 0 {
                return Err(FenError::BadCastling(field.to_string()));
            }
            self.castling.add(color, wing, king, rook);
            self.state.castling_rights |= right(color, wing);
        }
        self.set_chess960(false);
        Ok(())
    }

    /// Keeps the en-passant square only when a pawn can capture there, as Stockfish does, so
    /// that equal positions have equal keys whatever the FEN said; a square the placement
    /// contradicts is dropped likewise.
    fn parse_en_passant(&mut self, field: &str) -> Result<(), FenError> {
        if field == "-" {
            return Ok(());
        }
        let sq = Square::parse(field).ok_or_else(|| FenError::BadEnPassant(field.to_string()))?;
        let us = self.side_to_move;
        let expected_rank = if us == Color::White { 5 } else { 2 };
        if sq.rank() != expected_rank {
            return Ok(());
        }
        // Only now are the squares in front and behind on the board.
        let pushed = sq.offset(-us.forward());
        let origin = sq.offset(us.forward());
        let double_step = self.piece_at(pushed) == Some(Piece::new(!us, PieceType::Pawn))
            && self.piece_at(sq).is_none()
            && self.piece_at(origin).is_none();
        let capturable = (super::attacks::pawn_attacks(!us, sq)
            & self.colored_pieces(us, PieceType::Pawn))
        .is_nonempty();
        if double_step && capturable {
            self.state.en_passant = Some(sq);
        }
        Ok(())
    }

    /// X-FEN: castling as `KQkq` where that is unambiguous, rook files otherwise.
    pub fn to_fen(&self) -> String {
        self.fen(false)
    }

    /// Shredder-FEN: castling always as the rook's file (`HAha`), as some tools require.
    pub fn to_shredder_fen(&self) -> String {
        self.fen(true)
    }

    fn fen(&self, shredder: bool) -> String {
        let mut fen = placement_field(&std::array::from_fn(|sq| {
            self.mailbox[sq].map(Piece::letter)
        }));
        fen.push_str(if self.side_to_move == Color::White {
            " w "
        } else {
            " b "
        });
        let castling_start = fen.len();
        for color in Color::BOTH {
            for wing in Wing::BOTH {
                if self.can_castle(color, wing) {
                    fen.push(self.castling_letter(color, wing, shredder));
                }
            }
        }
        if fen.len() == castling_start {
            fen.push('-');
        }
        match self.state.en_passant {
            Some(sq) => write!(fen, " {sq}").unwrap(),
            None => fen.push_str(" -"),
        }
        write!(
            fen,
            " {} {}",
            self.state.halfmove_clock, self.state.fullmove_number
        )
        .unwrap();
        fen
    }

    /// The rook's file; in X-FEN `K`/`Q` instead when it is the outermost rook on its side.
    fn castling_letter(&self, color: Color, wing: Wing, shredder: bool) -> char {
        let rook = self.castling.rook_square(color, wing);
        let below = (1u64 << rook.index()) - 1;
        let beyond = Bitboard::rank(rook.rank()).0
            & if wing == Wing::King {
                !below << 1
            } else {
                below
            };
        let outermost = (Bitboard(beyond) & self.colored_pieces(color, PieceType::Rook)).is_empty();
        let letter = if outermost && !shredder {
            if wing == Wing::King {
                'k'
            } else {
                'q'
            }
        } else {
            (b'a' + rook.file()) as char
        };
        if color == Color::White {
            letter.to_ascii_uppercase()
        } else {
            letter
        }
    }
}

/// FEN's piece placement field for the pieces' letters (upper case for White) square by
/// square, a1 first: for tools that place pieces before there is a board.
pub fn placement_field(letters: &[Option<char>; 64]) -> String {
    let mut field = String::with_capacity(72);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for letter in &letters[rank * 8..rank * 8 + 8] {
            match letter {
                Some(letter) => {
                    if empty > 0 {
                        write!(field, "{empty}").unwrap();
                        empty = 0;
                    }
                    field.push(*letter);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            write!(field, "{empty}").unwrap();
        }
        if rank > 0 {
            field.push('/');
        }
    }
    field
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_round_trips() {
        assert_eq!(Board::startpos().to_fen(), START_FEN);
    }

    #[test]
    fn shredder_and_xfen_castling() {
        let shredder =
            Board::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
                .unwrap();
        let xfen =
            Board::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9")
                .unwrap();
        assert_eq!(shredder, xfen);
        assert!(shredder.is_chess960());
        assert_eq!(
            shredder.castling().rook_square(Color::White, Wing::Queen),
            Square::F1
        );
        assert_eq!(
            shredder.to_fen(),
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9"
        );
        assert_eq!(
            xfen.to_shredder_fen(),
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
        );
        assert_eq!(
            Board::startpos().to_shredder_fen(),
            START_FEN.replace("KQkq", "HAha")
        );
    }

    #[test]
    fn move_number_zero_reads_as_one() {
        let board = Board::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 0").unwrap();
        assert_eq!(board.to_fen(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    }

    /// Castling rights and en-passant squares the placement contradicts are dropped; the
    /// position is read.
    #[test]
    fn contradicted_claims_are_dropped() {
        for (fen, read_as) in [
            (
                "4k3/8/8/8/8/8/8/4K2R w KQ - 0 1",
                "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
            ),
            (
                "4k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
                "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            ),
            (
                "4k3/8/8/8/8/8/4K3/7R w K - 0 1",
                "4k3/8/8/8/8/8/4K3/7R w - - 0 1",
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w - e6 0 1",
                "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
            ),
            (
                "4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1",
                "4k3/8/8/8/4P3/8/8/4K3 w - - 0 1",
            ),
            (
                "4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",
                "4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",
            ),
        ] {
            assert_eq!(Board::from_fen(fen).unwrap().to_fen(), read_as, "{fen}");
        }
    }

    #[test]
    fn malformed_fens_are_rejected() {
        let cases: &[(&str, FenError)] = &[
            ("", FenError::FieldCount(0)),
            ("8/8/8/8/8/8/8 w - - 0 1", FenError::RankCount(7)),
            (
                "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                FenError::RankLength { rank: 7, files: 9 },
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
                FenError::BadPieceChar('X'),
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
                FenError::BadSideToMove("x".into()),
            ),
            (
                "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
                FenError::KingCount(Color::Black, 0),
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w - - 0 1",
                FenError::KingCount(Color::White, 2),
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                FenError::PawnCount(Color::White, 9),
            ),
            (
                "rnbqkbnP/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w KQkq - 0 1",
                FenError::PawnOnBackRank,
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                FenError::TooManyPromoted {
                    color: Color::White,
                    promoted: 1,
                    pawns: 8,
                },
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w Kx - 0 1",
                FenError::BadCastling("Kx".into()),
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w - e9 0 1",
                FenError::BadEnPassant("e9".into()),
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w xK - 0 1",
                FenError::BadCastling("xK".into()),
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w - - x 1",
                FenError::BadHalfmoveClock("x".into()),
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w - - 0 -1",
                FenError::BadFullmoveNumber("-1".into()),
            ),
            ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", FenError::OpponentInCheck),
            (
                "4k3/8/8/8/8/8/2n2q2/r3K3 w - - 0 1",
                FenError::TooManyCheckers(3),
            ),
        ];
        for (fen, error) in cases {
            assert_eq!(Board::from_fen(fen).as_ref().err(), Some(error), "{fen}");
        }
    }
}
