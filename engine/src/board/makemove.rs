//! Making and unmaking moves. Keys are updated incrementally on make and restored from the
//! state stack on unmake, so unmake only has to put the pieces back.

use super::{
    zobrist::{self, KEYS},
    Board,
};
use crate::types::{Bitboard, Color, Move, MoveKind, Piece, PieceType, Square};

impl Board {
    /// Plays a legal move.
    pub fn make_move(&mut self, mv: Move) {
        self.history.push(self.state);
        let us = self.side_to_move;
        let (from, to) = (mv.from(), mv.to());
        let piece = self.piece_at(from).expect("a legal move starts on a piece");

        self.state.halfmove_clock = self.state.halfmove_clock.saturating_add(1);
        self.state.plies_since_null += 1;
        self.state.captured = None;
        if let Some(ep) = self.state.en_passant.take() {
            self.state.key ^= KEYS.en_passant[ep.file() as usize];
        }

        match mv.kind() {
            MoveKind::Castle => {
                let rook = Piece::new(us, PieceType::Rook);
                let (king_to, rook_to) = mv.castling_destinations();
                // Remove both before placing either: in Chess960 the squares may overlap.
                self.remove_piece(piece, from);
                self.remove_piece(rook, to);
                self.add_piece(piece, king_to);
                self.add_piece(rook, rook_to);
                for (p, sq) in [(piece, from), (rook, to), (piece, king_to), (rook, rook_to)] {
                    self.toggle_keys(p, sq);
                }
            }
            MoveKind::EnPassant => {
                let victim_sq = to.offset(-us.forward());
                let victim = Piece::new(!us, PieceType::Pawn);
                self.remove_piece(victim, victim_sq);
                self.toggle_keys(victim, victim_sq);
                self.move_piece(piece, from, to);
                self.state.captured = Some(victim);
                self.state.halfmove_clock = 0;
            }
            kind => {
                if mv.is_capture() {
                    let victim = self.piece_at(to).expect("a capture has a victim");
                    self.remove_piece(victim, to);
                    self.toggle_keys(victim, to);
                    self.state.captured = Some(victim);
                    self.state.halfmove_clock = 0;
                }
                match mv.promotion() {
                    Some(promoted) => {
                        let promoted = Piece::new(us, promoted);
                        self.remove_piece(piece, from);
                        self.toggle_keys(piece, from);
                        self.add_piece(promoted, to);
                        self.toggle_keys(promoted, to);
                    }
                    None => self.move_piece(piece, from, to),
                }
                if piece.piece_type() == PieceType::Pawn {
                    self.state.halfmove_clock = 0;
                    if kind == MoveKind::DoublePush {
                        let ep = from.offset(us.forward());
                        // Only a capturable en-passant square counts, so transpositions hash alike.
                        let capturers = super::attacks::pawn_attacks(us, ep)
                            & self.colored_pieces(!us, PieceType::Pawn);
                        if capturers.is_nonempty() {
                            self.state.en_passant = Some(ep);
                            self.state.key ^= KEYS.en_passant[ep.file() as usize];
                        }
                    }
                }
            }
        }

        let lost = self.castling.lost_rights(from) | self.castling.lost_rights(to);
        if self.state.castling_rights & lost != 0 {
            self.state.key ^= KEYS.castling[self.state.castling_rights as usize];
            self.state.castling_rights &= !lost;
            self.state.key ^= KEYS.castling[self.state.castling_rights as usize];
        }

        // The counters saturate: a FEN may start them anywhere in u16.
        if us == Color::Black {
            self.state.fullmove_number = self.state.fullmove_number.saturating_add(1);
        }
        self.side_to_move = !us;
        self.state.key ^= KEYS.side;
        self.update_check_info();
    }

    /// The key `make_move(mv)` will give, computed without making it, so that the search can
    /// prefetch the move's table entry while it updates the accumulators. Castling, en passant,
    /// a new en-passant square and lost castling rights are left out: for those rarer moves the
    /// prefetch only misses.
    pub fn key_after(&self, mv: Move) -> u64 {
        let (from, to) = (mv.from(), mv.to());
        let piece = self.piece_at(from).expect("a legal move starts on a piece");
        let landed = mv
            .promotion()
            .map_or(piece, |promoted| Piece::new(self.side_to_move, promoted));
        let mut key = self.state.key
            ^ KEYS.side
            ^ zobrist::piece_key(piece, from)
            ^ zobrist::piece_key(landed, to);
        if let Some(ep) = self.state.en_passant {
            key ^= KEYS.en_passant[ep.file() as usize];
        }
        if let Some(victim) = self.piece_at(to).filter(|_| mv.is_capture()) {
            key ^= zobrist::piece_key(victim, to);
        }
        key
    }

    /// Takes back the last move made with `make_move`.
    pub fn unmake_move(&mut self, mv: Move) {
        let captured = self.state.captured;
        self.state = self.history.pop().expect("unmake follows a make");
        let us = !self.side_to_move;
        self.side_to_move = us;
        let (from, to) = (mv.from(), mv.to());

        match mv.kind() {
            MoveKind::Castle => {
                let king = Piece::new(us, PieceType::King);
                let rook = Piece::new(us, PieceType::Rook);
                let (king_to, rook_to) = mv.castling_destinations();
                self.remove_piece(king, king_to);
                self.remove_piece(rook, rook_to);
                self.add_piece(king, from);
                self.add_piece(rook, to);
            }
            MoveKind::EnPassant => {
                let pawn = Piece::new(us, PieceType::Pawn);
                self.remove_piece(pawn, to);
                self.add_piece(pawn, from);
                self.add_piece(Piece::new(!us, PieceType::Pawn), to.offset(-us.forward()));
            }
            _ => {
                let moved = self
                    .piece_at(to)
                    .expect("the moved piece stands on its target");
                self.remove_piece(moved, to);
                let original = if mv.is_promotion() {
                    Piece::new(us, PieceType::Pawn)
                } else {
                    moved
                };
                self.add_piece(original, from);
                if let Some(victim) = captured {
                    self.add_piece(victim, to);
                }
            }
        }
    }

    /// Passes the move: for null-move pruning. Never called in check.
    pub fn make_null_move(&mut self) {
        self.history.push(self.state);
        self.state.captured = None;
        self.state.halfmove_clock = self.state.halfmove_clock.saturating_add(1);
        self.state.plies_since_null = 0;
        if let Some(ep) = self.state.en_passant.take() {
            self.state.key ^= KEYS.en_passant[ep.file() as usize];
        }
        self.side_to_move = !self.side_to_move;
        self.state.key ^= KEYS.side;
        self.update_check_info();
    }

    pub fn unmake_null_move(&mut self) {
        self.state = self.history.pop().expect("unmake follows a make");
        self.side_to_move = !self.side_to_move;
    }

    #[inline(always)]
    fn move_piece(&mut self, piece: Piece, from: Square, to: Square) {
        self.remove_piece(piece, from);
        self.add_piece(piece, to);
        self.toggle_keys(piece, from);
        self.toggle_keys(piece, to);
    }

    /// Places a piece on an empty square (bitboards and mailbox only; keys are the caller's).
    #[inline(always)]
    pub(super) fn add_piece(&mut self, piece: Piece, sq: Square) {
        let bit = Bitboard::from_square(sq);
        self.pieces[piece.piece_type().index()] |= bit;
        self.colors[piece.color().index()] |= bit;
        self.mailbox[sq.index()] = Some(piece);
    }

    /// Takes a piece off its square (it must be there: the bits are toggled, not cleared).
    #[inline(always)]
    pub(super) fn remove_piece(&mut self, piece: Piece, sq: Square) {
        let bit = Bitboard::from_square(sq);
        self.pieces[piece.piece_type().index()] ^= bit;
        self.colors[piece.color().index()] ^= bit;
        self.mailbox[sq.index()] = None;
    }

    /// Adds or removes a piece on a square in the keys (the same XOR does both).
    #[inline(always)]
    pub(super) fn toggle_keys(&mut self, piece: Piece, sq: Square) {
        let k = zobrist::piece_key(piece, sq);
        self.state.key ^= k;
        if piece.piece_type() == PieceType::Pawn {
            self.state.pawn_key ^= k;
        } else {
            self.state.non_pawn_keys[piece.color().index()] ^= k;
        }
    }
}
