//! Move-ordering and evaluation-correction statistics learned during the search, per thread.

use crate::board::Board;
use crate::types::{Color, Move, Piece};

use super::params;

/// History scores saturate toward this bound (the "gravity" update keeps them within it).
const HISTORY_MAX: i32 = 16384;

#[inline(always)]
fn apply_gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let current = i32::from(*entry);
    *entry = (current + bonus - current * bonus.abs() / HISTORY_MAX) as i16;
}

/// Bonus for a move that caused a cutoff at `depth` (and the matching malus for the others).
pub fn history_bonus(depth: i32) -> i32 {
    (params::history_bonus_scale() * depth - params::history_bonus_offset())
        .clamp(0, params::history_bonus_max())
}

/// Quiet moves by (side, from, to): the butterfly table.
pub struct QuietHistory(Box<[[[i16; 64]; 64]; 2]>);

impl QuietHistory {
    #[inline(always)]
    pub fn get(&self, color: Color, mv: Move) -> i32 {
        i32::from(self.0[color.index()][mv.from().index()][mv.to().index()])
    }

    pub fn update(&mut self, color: Color, mv: Move, bonus: i32) {
        apply_gravity(
            &mut self.0[color.index()][mv.from().index()][mv.to().index()],
            bonus,
        );
    }
}

/// Captures by (moving piece, target square, captured piece type).
pub struct CaptureHistory(Box<[[[i16; 6]; 64]; 12]>);

impl CaptureHistory {
    #[inline(always)]
    pub fn get(&self, board: &Board, mv: Move) -> i32 {
        if !params::capture_history() {
            return 0;
        }
        let (piece, victim) = Self::key(board, mv);
        i32::from(self.0[piece][mv.to().index()][victim])
    }

    pub fn update(&mut self, board: &Board, mv: Move, bonus: i32) {
        let (piece, victim) = Self::key(board, mv);
        apply_gravity(&mut self.0[piece][mv.to().index()][victim], bonus);
    }

    /// Promotions without capture share the pawn slot as "victim".
    fn key(board: &Board, mv: Move) -> (usize, usize) {
        let piece = board
            .piece_at(mv.from())
            .expect("a move starts on a piece")
            .index();
        (
            piece,
            board
                .captured_piece(mv)
                .map_or(0, |p| p.piece_type().index()),
        )
    }
}

/// A (piece, destination) pair: what continuation histories are indexed by.
pub type ContinuationKey = (Piece, crate::types::Square);

/// Quiet moves scored by the move played one or two plies earlier.
pub struct ContinuationHistory(Box<[[[[i16; 64]; 12]; 64]; 12]>);

impl ContinuationHistory {
    #[inline(always)]
    pub fn get(&self, previous: ContinuationKey, piece: Piece, mv: Move) -> i32 {
        if !params::continuation_history() {
            return 0;
        }
        i32::from(self.0[previous.0.index()][previous.1.index()][piece.index()][mv.to().index()])
    }

    pub fn update(&mut self, previous: ContinuationKey, piece: Piece, mv: Move, bonus: i32) {
        apply_gravity(
            &mut self.0[previous.0.index()][previous.1.index()][piece.index()][mv.to().index()],
            bonus,
        );
    }
}

const CORRECTION_SIZE: usize = 16384;
const CORRECTION_GRAIN: i32 = 256;
const CORRECTION_MAX: i32 = 32 * CORRECTION_GRAIN;

/// How far the static evaluation tends to be from search results, keyed by pawn structure and
/// by each side's non-pawn pieces; added to the network's output.
pub struct CorrectionHistory {
    pawn: Box<[[i16; CORRECTION_SIZE]; 2]>,
    non_pawn: Box<[[[i16; CORRECTION_SIZE]; 2]; 2]>,
}

impl CorrectionHistory {
    fn slots(board: &Board) -> (usize, [usize; 2]) {
        let slot = |key: u64| (key % CORRECTION_SIZE as u64) as usize;
        (
            slot(board.pawn_key()),
            Color::BOTH.map(|c| slot(board.non_pawn_key(c))),
        )
    }

    pub fn correct(&self, board: &Board, raw_eval: i32) -> i32 {
        if !params::correction() {
            return raw_eval;
        }
        let us = board.side_to_move().index();
        let (pawn, non_pawn) = Self::slots(board);
        let total = i32::from(self.pawn[us][pawn])
            + i32::from(self.non_pawn[us][0][non_pawn[0]])
            + i32::from(self.non_pawn[us][1][non_pawn[1]]);
        raw_eval + total * params::correction_weight() / (CORRECTION_GRAIN * 256)
    }

    /// Moves the entries toward the observed error `search_score - static_eval`, more for deeper searches.
    pub fn update(&mut self, board: &Board, depth: i32, error: i32) {
        let us = board.side_to_move().index();
        let (pawn, non_pawn) = Self::slots(board);
        let weight = (depth + 1).min(16);
        let target = (error * CORRECTION_GRAIN).clamp(-CORRECTION_MAX, CORRECTION_MAX);
        let blend = |entry: &mut i16| {
            let value = (i32::from(*entry) * (256 - weight) + target * weight) / 256;
            *entry = value.clamp(-CORRECTION_MAX, CORRECTION_MAX) as i16;
        };
        blend(&mut self.pawn[us][pawn]);
        blend(&mut self.non_pawn[us][0][non_pawn[0]]);
        blend(&mut self.non_pawn[us][1][non_pawn[1]]);
    }
}

fn zeroed<T: bytemuck::Zeroable>() -> Box<T> {
    bytemuck::zeroed_box()
}

/// Every statistic one search thread keeps.
pub struct Histories {
    pub quiet: QuietHistory,
    pub capture: CaptureHistory,
    pub continuation: ContinuationHistory,
    pub correction: CorrectionHistory,
}

impl Default for Histories {
    fn default() -> Self {
        Self {
            quiet: QuietHistory(zeroed()),
            capture: CaptureHistory(zeroed()),
            continuation: ContinuationHistory(zeroed()),
            correction: CorrectionHistory {
                pawn: zeroed(),
                non_pawn: zeroed(),
            },
        }
    }
}

impl Histories {
    /// A quiet move's score, for ordering and for reductions alike: its butterfly history plus
    /// its continuation histories after the moves one and two plies back.
    pub fn quiet_score(
        &self,
        us: Color,
        piece: Piece,
        mv: Move,
        continuations: &[Option<ContinuationKey>; 2],
    ) -> i32 {
        let continuation: i32 = continuations
            .iter()
            .flatten()
            .map(|&key| self.continuation.get(key, piece, mv))
            .sum();
        self.quiet.get(us, mv) + continuation
    }
}
