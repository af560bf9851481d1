//! A finished game in patina's terms and its translation to and from viriformat, whose
//! board and move types are separate from ours.
//!
//! Castling rights cross over as rook squares (Shredder-FEN file letters): plain `KQkq` would
//! lose which rook may castle in Fischer random games. Both crates encode castling as
//! king-takes-own-rook, so moves map field for field.

use patina::score::Score;
use patina::{Board, FenError};
use patina::{Color, Move, PieceType};
use viriformat::chess::board::{Board as ViriBoard, DrawType, GameOutcome, WinType};
use viriformat::chess::chessmove::{Move as ViriMove, MoveFlags};
use viriformat::chess::piece::PieceType as ViriPieceType;
use viriformat::chess::types::Square as ViriSquare;
use viriformat::dataformat::{Game, WDL};

/// How a game ended, from White's point of view: all that viriformat keeps of it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum GameResult {
    WhiteWin,
    Draw,
    BlackWin,
}

impl GameResult {
    /// A win for `color`.
    pub fn win(color: Color) -> Self {
        match color {
            Color::White => Self::WhiteWin,
            Color::Black => Self::BlackWin,
        }
    }

    pub fn from_wdl(wdl: WDL) -> Self {
        match wdl {
            WDL::Win => Self::WhiteWin,
            WDL::Draw => Self::Draw,
            WDL::Loss => Self::BlackWin,
        }
    }

    /// PGN result tag; `None` for an unfinished game (`*`) or anything unknown.
    pub fn from_pgn(tag: &str) -> Option<Self> {
        match tag {
            "1-0" => Some(Self::WhiteWin),
            "1/2-1/2" => Some(Self::Draw),
            "0-1" => Some(Self::BlackWin),
            _ => None,
        }
    }

    fn to_outcome(self) -> GameOutcome {
        // Only the winner survives packing; the kind of win or draw is not stored.
        match self {
            Self::WhiteWin => GameOutcome::WhiteWin(WinType::Adjudication),
            Self::Draw => GameOutcome::Draw(DrawType::Adjudication),
            Self::BlackWin => GameOutcome::BlackWin(WinType::Adjudication),
        }
    }
}

/// A game as played: where it started, each move with the score of the position it was
/// played from (White's view, centipawns or mate scores), and the result.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub start: Board,
    pub moves: Vec<(Move, Score)>,
    pub result: GameResult,
}

impl GameRecord {
    pub fn to_viriformat(&self) -> Game {
        let mut game = Game::new(&to_viri_board(&self.start));
        for &(mv, score) in &self.moves {
            // Symmetric: bulletformat negates scores for Black to move, and −i16::MIN overflows.
            let score = score.clamp(-Score::from(i16::MAX), i16::MAX.into()) as i16;
            game.add_move(to_viri_move(mv), score);
        }
        game.set_outcome(self.result.to_outcome());
        game
    }
}

/// The same position as a viriformat board, full-move number included.
pub fn to_viri_board(board: &Board) -> ViriBoard {
    // Shredder-FEN: viriformat's Chess960 parsing takes castling rights as rook files.
    let mut viri = ViriBoard::new();
    viri.set_from_fen(&board.to_shredder_fen(), true)
        .expect("viriformat reads the FEN of any legal position");
    viri
}

/// Our board for a viriformat one; fails for positions our FEN parser rejects as impossible.
pub fn from_viri_board(viri: &ViriBoard) -> Result<Board, FenError> {
    let text = viri.to_string();
    let mut fields: Vec<&str> = text.split(' ').collect();
    let rights = viri.castling_rights();
    let castling: String = [
        (rights.wk, 'A'),
        (rights.wq, 'A'),
        (rights.bk, 'a'),
        (rights.bq, 'a'),
    ]
    .into_iter()
    .filter_map(|(square, base)| square.map(|sq| (base as u8 + sq.file() as u8) as char))
    .collect();
    if !castling.is_empty() {
        fields[2] = &castling;
    }
    Board::from_fen(&fields.join(" "))
}

pub fn to_viri_move(mv: Move) -> ViriMove {
    let square = |sq: patina::Square| {
        ViriSquare::new(sq.index() as u8).expect("squares index 0..64 in both crates")
    };
    let (from, to) = (square(mv.from()), square(mv.to()));
    if let Some(piece) = mv.promotion() {
        ViriMove::new_with_promo(from, to, to_viri_piece_type(piece))
    } else if mv.is_castle() {
        ViriMove::new_with_flags(from, to, MoveFlags::Castle)
    } else if mv.is_en_passant() {
        ViriMove::new_with_flags(from, to, MoveFlags::EnPassant)
    } else {
        ViriMove::new(from, to)
    }
}

fn to_viri_piece_type(piece: PieceType) -> ViriPieceType {
    // Both crates order piece types pawn, knight, bishop, rook, queen, king.
    ViriPieceType::new(piece.index() as u8).expect("piece type indices agree")
}

/// Our legal move that encodes to `viri`, if there is one.
pub fn from_viri_move(board: &Board, viri: ViriMove) -> Option<Move> {
    board
        .legal_moves()
        .iter()
        .copied()
        .find(|&mv| to_viri_move(mv) == viri)
}

#[cfg(test)]
mod tests {
    use super::*;
    use patina::openings::dfrc_board;

    /// Every legal move of ours encodes to one of viriformat's legal moves, and back.
    fn assert_moves_agree(fen: &str) {
        let board = Board::from_fen(fen).unwrap();
        let mut viri = to_viri_board(&board);
        let mut ours: Vec<u16> = board
            .legal_moves()
            .iter()
            .map(|&mv| to_viri_move(mv).inner())
            .collect();
        let mut theirs: Vec<u16> = viri.legal_moves().iter().map(|mv| mv.inner()).collect();
        ours.sort_unstable();
        theirs.sort_unstable();
        assert_eq!(ours, theirs, "{fen}");
        for viri_move in viri.legal_moves() {
            assert!(from_viri_move(&board, viri_move).is_some(), "{fen}");
        }
    }

    #[test]
    fn castling_en_passant_and_promotions_agree() {
        for fen in [
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 30",
            "n3k3/1P6/8/8/8/8/6p1/4K2N w - - 0 40",
            "1rk4r/8/8/8/8/8/8/1RK3R1 w BGbh - 0 12",
            "r5kr/8/8/8/8/8/8/R5KR w AHah - 0 1",
        ] {
            assert_moves_agree(fen);
        }
        let mut board = dfrc_board(123, 777);
        for i in 0..12 {
            let moves = board.legal_moves();
            board.make_move(moves[i * 7 % moves.len()]);
            assert_moves_agree(&board.to_fen());
        }
    }

    #[test]
    fn positions_survive_the_round_trip() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 7 93",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 30",
            "1rk4r/8/8/8/8/8/8/1RK3R1 w BGbh - 0 12",
        ] {
            let board = Board::from_fen(fen).unwrap();
            let back = from_viri_board(&to_viri_board(&board)).unwrap();
            assert_eq!(back.to_fen(), board.to_fen());
            assert!(back == board, "{fen}");
        }
    }

    #[test]
    fn packing_keeps_the_fullmove_number() {
        let board = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQk - 7 93").unwrap();
        let record = GameRecord {
            start: board.clone(),
            moves: vec![(board.legal_moves()[0], -12)],
            result: GameResult::BlackWin,
        };
        let game = record.to_viriformat();
        let unpacked = game.initial_position();
        assert_eq!(unpacked.full_move_number(), 93);
        assert_eq!(from_viri_board(&unpacked).unwrap().to_fen(), board.to_fen());
        assert_eq!(GameResult::from_wdl(game.outcome()), GameResult::BlackWin);
    }

    /// Out-of-range scores clamp symmetrically: bulletformat negates Black's, and the negation
    /// of i16::MIN would wrap to itself, turning a lost position into a won one.
    #[test]
    fn scores_clamp_symmetrically() {
        let board = Board::from_fen("4k3/8/8/8/8/8/8/4K2R b K - 0 1").unwrap();
        let record = GameRecord {
            start: board.clone(),
            moves: vec![(board.legal_moves()[0], -40_000)],
            result: GameResult::WhiteWin,
        };
        let mut stm_scores = Vec::new();
        record
            .to_viriformat()
            .splat_to_bulletformat(
                |position| {
                    stm_scores.push(position.score);
                    Ok(())
                },
                &viriformat::dataformat::Filter::UNRESTRICTED,
            )
            .unwrap();
        assert_eq!(stm_scores, [i16::MAX]);
    }
}
