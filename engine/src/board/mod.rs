//! The chess position: bitboards plus a mailbox, incremental Zobrist keys, and a stack of
//! irreversible state so moves can be unmade and repetitions found.

pub mod attacks;
mod castling;
mod fen;
mod makemove;
mod movegen;
mod san;
mod see;
mod zobrist;

pub use castling::{Castling, Wing};
pub use fen::{placement_field, FenError, START_FEN};
pub use movegen::MoveList;
pub use see::SEE_VALUES;

use crate::types::{Bitboard, Color, Move, Piece, PieceType, Square};
use attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};

/// What cannot be recomputed when a move is unmade, plus cached check information.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
struct State {
    key: u64,
    pawn_key: u64,
    non_pawn_keys: [u64; 2],
    castling_rights: u8,
    en_passant: Option<Square>,
    halfmove_clock: u16,
    /// Here rather than in `Board` because it saturates at u16's end: unmaking a move cannot
    /// tell a saturated count from an incremented one, so the count is restored, not undone.
    fullmove_number: u16,
    /// Plies since the last null move: repetitions never reach across one.
    plies_since_null: u16,
    captured: Option<Piece>,
    checkers: Bitboard,
    /// Pieces of the side to move that shield their own king from a slider.
    pinned: Bitboard,
}

#[derive(Clone, Debug)]
pub struct Board {
    pieces: [Bitboard; 6],
    colors: [Bitboard; 2],
    mailbox: [Option<Piece>; 64],
    side_to_move: Color,
    castling: Castling,
    chess960: bool,
    state: State,
    history: Vec<State>,
}

impl Default for Board {
    fn default() -> Self {
        Self::startpos()
    }
}

impl PartialEq for Board {
    /// Identical boards: pieces, side, rights, en passant, clocks and the search's bookkeeping
    /// (plies since a null move, checkers, pins), history aside. A board after a move is not
    /// equal to the same position parsed from its FEN; compare FENs or keys for that.
    fn eq(&self, other: &Self) -> bool {
        self.pieces == other.pieces
            && self.colors == other.colors
            && self.side_to_move == other.side_to_move
            && self.state == other.state
            && (0..4).all(|bit| {
                let (color, wing) = (Color::BOTH[bit / 2], Wing::BOTH[bit % 2]);
                self.state.castling_rights & 1 << bit == 0
                    || self.castling.rook_square(color, wing)
                        == other.castling.rook_square(color, wing)
            })
    }
}

impl Board {
    pub fn startpos() -> Self {
        Self::from_fen(START_FEN).expect("the start position parses")
    }

    // ----- Accessors -----

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    #[inline(always)]
    pub fn pieces(&self, piece_type: PieceType) -> Bitboard {
        self.pieces[piece_type.index()]
    }

    #[inline(always)]
    pub fn colored(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    #[inline(always)]
    pub fn colored_pieces(&self, color: Color, piece_type: PieceType) -> Bitboard {
        self.pieces[piece_type.index()] & self.colors[color.index()]
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.mailbox[sq.index()]
    }

    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Square {
        self.colored_pieces(color, PieceType::King).lsb()
    }

    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.state.key
    }

    #[inline(always)]
    pub fn pawn_key(&self) -> u64 {
        self.state.pawn_key
    }

    #[inline(always)]
    pub fn non_pawn_key(&self, color: Color) -> u64 {
        self.state.non_pawn_keys[color.index()]
    }

    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.state.checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.state.checkers.is_nonempty()
    }

    #[inline(always)]
    pub fn pinned(&self) -> Bitboard {
        self.state.pinned
    }

    #[inline(always)]
    pub fn en_passant(&self) -> Option<Square> {
        self.state.en_passant
    }

    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.state.halfmove_clock
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.state.fullmove_number
    }

    /// The piece a capture removes (the pawn behind the target square for en passant).
    #[inline(always)]
    pub fn captured_piece(&self, mv: Move) -> Option<Piece> {
        match mv {
            _ if mv.is_en_passant() => Some(Piece::new(!self.side_to_move, PieceType::Pawn)),
            _ if mv.is_capture() => self.piece_at(mv.to()),
            _ => None,
        }
    }

    /// Whether `color` may still castle on `wing` (not whether it is legal now).
    pub fn can_castle(&self, color: Color, wing: Wing) -> bool {
        self.state.castling_rights & castling::right(color, wing) != 0
    }

    /// Whether either side may still castle (Syzygy tables hold no such position).
    pub fn has_castling_rights(&self) -> bool {
        self.state.castling_rights != 0
    }

    #[cfg(test)]
    pub fn castling(&self) -> &Castling {
        &self.castling
    }

    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    /// Chess960 affects only move notation: castling as king-takes-rook (FENs are X-FEN either
    /// way). A position whose castling only Chess960 can set up keeps that notation regardless.
    pub fn set_chess960(&mut self, chess960: bool) {
        self.chess960 = chess960 || self.castling_needs_chess960();
    }

    /// Whether a castling move here can only be written king-takes-rook: a king that may still
    /// castle stands off the e-file, or its castling rook off the corner files. Only Chess960
    /// sets up such positions.
    fn castling_needs_chess960(&self) -> bool {
        Color::BOTH.into_iter().any(|color| {
            Wing::BOTH.into_iter().any(|wing| {
                let rook = self.castling.rook_square(color, wing);
                self.can_castle(color, wing)
                    && (self.king_square(color).file() != 4
                        || (rook.file() != 0 && rook.file() != 7))
            })
        })
    }

    /// Plies played since the position the board was set up from.
    pub fn game_ply(&self) -> usize {
        self.history.len()
    }

    /// Non-pawn, non-king material exists for `color`: the null-move zugzwang guard.
    pub fn has_non_pawn_material(&self, color: Color) -> bool {
        (self.colored(color) & !(self.pieces(PieceType::Pawn) | self.pieces(PieceType::King)))
            .is_nonempty()
    }

    // ----- Attacks -----

    /// Every piece of either colour attacking `sq`, given occupancy `occupied`.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let rooks = self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen);
        let bishops = self.pieces(PieceType::Bishop) | self.pieces(PieceType::Queen);
        (pawn_attacks(Color::White, sq) & self.colored_pieces(Color::Black, PieceType::Pawn))
            | (pawn_attacks(Color::Black, sq) & self.colored_pieces(Color::White, PieceType::Pawn))
            | (knight_attacks(sq) & self.pieces(PieceType::Knight))
            | (king_attacks(sq) & self.pieces(PieceType::King))
            | (rook_attacks(sq, occupied) & rooks)
            | (bishop_attacks(sq, occupied) & bishops)
    }

    /// Whether `by` attacks `sq` with the given occupancy.
    #[inline(always)]
    pub fn is_attacked(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let them = self.colored(by);
        let rooks = (self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen)) & them;
        let bishops = (self.pieces(PieceType::Bishop) | self.pieces(PieceType::Queen)) & them;
        (knight_attacks(sq) & self.pieces(PieceType::Knight) & them).is_nonempty()
            || (pawn_attacks(!by, sq) & self.pieces(PieceType::Pawn) & them).is_nonempty()
            || (king_attacks(sq) & self.pieces(PieceType::King) & them).is_nonempty()
            || (rook_attacks(sq, occupied) & rooks).is_nonempty()
            || (bishop_attacks(sq, occupied) & bishops).is_nonempty()
    }

    fn update_check_info(&mut self) {
        let us = self.side_to_move;
        let king = self.king_square(us);
        let occupied = self.occupied();
        let them = self.colored(!us);
        self.state.checkers = self.attackers_to(king, occupied) & them;

        let rooks = self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen);
        let bishops = self.pieces(PieceType::Bishop) | self.pieces(PieceType::Queen);
        let snipers = ((rook_attacks(king, Bitboard::EMPTY) & rooks)
            | (bishop_attacks(king, Bitboard::EMPTY) & bishops))
            & them;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(king, sniper) & occupied;
            if !blockers.more_than_one() {
                pinned |= blockers & self.colored(us);
            }
        }
        self.state.pinned = pinned;
    }

    // ----- Draws -----

    /// The position occurred before since the last irreversible move. Inside the search a
    /// single earlier occurrence is enough: a line that can repeat once can repeat forever.
    pub fn is_repetition(&self) -> bool {
        let reach = self.state.halfmove_clock.min(self.state.plies_since_null);
        self.repetitions(reach as usize).next().is_some()
    }

    /// Plies back to each earlier occurrence of this position within `reach` plies (the same
    /// side to move, so every other ply from the fourth).
    fn repetitions(&self, reach: usize) -> impl Iterator<Item = usize> + '_ {
        let n = self.history.len();
        (4..=reach.min(n))
            .step_by(2)
            .filter(move |&back| self.history[n - back].key == self.state.key)
    }

    /// Neither side can ever mate: K v K, K+minor v K, or only same-coloured bishops.
    pub fn is_insufficient_material(&self) -> bool {
        let heavy = self.pieces(PieceType::Pawn)
            | self.pieces(PieceType::Rook)
            | self.pieces(PieceType::Queen);
        if heavy.is_nonempty() {
            return false;
        }
        let knights = self.pieces(PieceType::Knight);
        let bishops = self.pieces(PieceType::Bishop);
        if (knights | bishops).count() <= 1 {
            return true;
        }
        const DARK: u64 = 0xAA55_AA55_AA55_AA55;
        knights.is_empty() && (bishops.0 & DARK == 0 || bishops.0 & !DARK == 0)
    }

    /// Fifty-move rule; a mate delivered on the hundredth ply still counts as mate.
    pub fn is_fifty_move_draw(&self) -> bool {
        self.state.halfmove_clock >= 100 && (!self.in_check() || self.has_legal_move())
    }

    pub fn is_draw(&self) -> bool {
        self.is_fifty_move_draw() || self.is_insufficient_material() || self.is_repetition()
    }

    /// Mate, stalemate or a rules draw, judged as a tournament arbiter would (threefold repetition).
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.has_legal_move() {
            return Some(if self.in_check() {
                Outcome::Checkmate
            } else {
                Outcome::Stalemate
            });
        }
        if self.state.halfmove_clock >= 100 {
            Some(Outcome::FiftyMoves)
        } else if self.is_insufficient_material() {
            Some(Outcome::InsufficientMaterial)
        } else if self.repetition_count() >= 2 {
            Some(Outcome::Repetition)
        } else {
            None
        }
    }

    /// How many earlier positions in the game equal the current one.
    fn repetition_count(&self) -> usize {
        self.repetitions(self.state.halfmove_clock as usize).count()
    }

    /// Recomputes every key from scratch: the reference the incremental keys are tested against.
    pub fn compute_keys(&self) -> (u64, u64, [u64; 2]) {
        let mut key = 0;
        let mut pawn_key = 0;
        let mut non_pawn = [0; 2];
        for sq in self.occupied() {
            let piece = self.mailbox[sq.index()].expect("occupied square has a piece");
            let k = zobrist::piece_key(piece, sq);
            key ^= k;
            if piece.piece_type() == PieceType::Pawn {
                pawn_key ^= k;
            } else {
                non_pawn[piece.color().index()] ^= k;
            }
        }
        key ^= zobrist::KEYS.castling[self.state.castling_rights as usize];
        if let Some(ep) = self.state.en_passant {
            key ^= zobrist::KEYS.en_passant[ep.file() as usize];
        }
        if self.side_to_move == Color::Black {
            key ^= zobrist::KEYS.side;
        }
        (key, pawn_key, non_pawn)
    }
}

/// How a game ends by the rules.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Outcome {
    /// The side to move is mated.
    Checkmate,
    Stalemate,
    FiftyMoves,
    InsufficientMaterial,
    Repetition,
}
