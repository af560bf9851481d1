//! Standard algebraic notation, for PGN books and for people playing the engine.

use super::Board;
use crate::types::{Move, PieceType, Square, Wing};

impl Board {
    /// Parses SAN (`Nf3`, `exd5`, `e8=Q+`, `O-O`, `Rad1`) and returns the legal move it names.
    pub fn parse_san(&self, text: &str) -> Option<Move> {
        let text = text.trim_end_matches(['+', '#', '!', '?']);
        let legal = self.legal_moves();
        if text == "O-O" || text == "0-0" || text == "O-O-O" || text == "0-0-0" {
            let king_side = text.len() == 3;
            return legal
                .into_iter()
                .find(|mv| mv.is_castle() && (mv.castling_wing() == Wing::King) == king_side);
        }
        let (body, promotion) = match text.split_once('=') {
            Some((body, piece)) => (body, Some(PieceType::from_letter(piece.chars().next()?)?)),
            None => (text, None),
        };
        let bytes = body.as_bytes();
        let piece_type = match bytes.first()? {
            c @ (b'N' | b'B' | b'R' | b'Q' | b'K') => PieceType::from_letter(*c as char)?,
            _ => PieceType::Pawn,
        };
        let body = if piece_type == PieceType::Pawn {
            body
        } else {
            &body[1..]
        };
        let body = body.replace('x', "");
        if body.len() < 2 || !body.is_ascii() {
            return None;
        }
        let to = Square::parse(&body[body.len() - 2..])?;
        let hint = &body[..body.len() - 2];
        let (mut file, mut rank) = (None, None);
        for c in hint.chars() {
            match c {
                'a'..='h' => file = Some(c as u8 - b'a'),
                '1'..='8' => rank = Some(c as u8 - b'1'),
                _ => return None,
            }
        }
        let mut candidates = legal.into_iter().filter(|mv| {
            !mv.is_castle()
                && mv.to() == to
                && self.piece_at(mv.from()).map(|p| p.piece_type()) == Some(piece_type)
                && mv.promotion() == promotion
                && file.is_none_or(|f| mv.from().file() == f)
                && rank.is_none_or(|r| mv.from().rank() == r)
        });
        let found = candidates.next()?;
        candidates.next().is_none().then_some(found)
    }

    /// The move in SAN, with disambiguation and check/mate suffix (the parser's test oracle, and
    /// the notation `patina play` shows).
    pub fn san(&self, mv: Move) -> String {
        let mut san = String::new();
        let piece_type = self
            .piece_at(mv.from())
            .map_or(PieceType::Pawn, |p| p.piece_type());
        if mv.is_castle() {
            san.push_str(match mv.castling_wing() {
                Wing::King => "O-O",
                Wing::Queen => "O-O-O",
            });
        } else if piece_type == PieceType::Pawn {
            if mv.is_capture() {
                san.push((b'a' + mv.from().file()) as char);
                san.push('x');
            }
            san.push_str(&mv.to().to_string());
            if let Some(p) = mv.promotion() {
                san.push('=');
                san.push(p.letter().to_ascii_uppercase());
            }
        } else {
            san.push(piece_type.letter().to_ascii_uppercase());
            let rivals: Vec<Square> = self
                .legal_moves()
                .into_iter()
                .filter(|o| o.to() == mv.to() && o.from() != mv.from() && !o.is_castle())
                .filter(|o| self.piece_at(o.from()).map(|p| p.piece_type()) == Some(piece_type))
                .map(|o| o.from())
                .collect();
            if !rivals.is_empty() {
                let file = (b'a' + mv.from().file()) as char;
                let rank = (b'1' + mv.from().rank()) as char;
                if rivals.iter().all(|r| r.file() != mv.from().file()) {
                    san.push(file);
                } else if rivals.iter().all(|r| r.rank() != mv.from().rank()) {
                    san.push(rank);
                } else {
                    san.push(file);
                    san.push(rank);
                }
            }
            if mv.is_capture() {
                san.push('x');
            }
            san.push_str(&mv.to().to_string());
        }
        let mut after = self.clone();
        after.make_move(mv);
        if after.in_check() {
            san.push(if after.has_legal_move() { '+' } else { '#' });
        }
        san
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every legal move's SAN parses back to the same move.
    #[test]
    fn san_round_trips() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ] {
            let board = Board::from_fen(fen).unwrap();
            for mv in board.legal_moves() {
                let san = board.san(mv);
                assert_eq!(board.parse_san(&san), Some(mv), "{fen}: {san}");
            }
        }
        let board = Board::startpos();
        assert_eq!(
            board.parse_san("Nf3").map(|m| m.to_uci(false)),
            Some("g1f3".to_string())
        );
        assert_eq!(board.parse_san("Nd3"), None);
        assert_eq!(board.parse_san("e5"), None);
    }
}
