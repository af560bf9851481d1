//! Accumulators: the feature layer's output per perspective, updated incrementally.

use super::simd::{Active, Kernels};
use super::{feature_index, Network, HIDDEN};
use crate::board::Board;
use crate::types::{Color, Move, Piece, PieceType, Square};

/// The hidden layer before activation for one perspective.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Accumulator {
    pub values: [i16; HIDDEN],
}

impl Accumulator {
    /// Computes the accumulator from scratch: the reference incremental updates must match.
    pub fn refresh(net: &Network, board: &Board, perspective: Color) -> Self {
        let mut acc = Self {
            values: net.feature_bias,
        };
        for sq in board.occupied() {
            let piece = board.piece_at(sq).expect("occupied square has a piece");
            Active::add_assign(
                &mut acc.values,
                &net.feature_weights[feature_index(perspective, piece, sq)],
            );
        }
        acc
    }
}

/// The features a move switches on and off, as (piece, square) pairs.
struct FeatureDelta {
    added: [(Piece, Square); 2],
    removed: [(Piece, Square); 2],
    /// 1 or 2 additions; 1 or 2 removals.
    n_added: usize,
    n_removed: usize,
}

impl FeatureDelta {
    /// Read off the board before `mv` is made.
    fn of_move(board: &Board, mv: Move) -> Self {
        let us = board.side_to_move();
        let piece = board.piece_at(mv.from()).expect("a move starts on a piece");
        if mv.is_castle() {
            let rook = Piece::new(us, PieceType::Rook);
            let (king_to, rook_to) = mv.castling_destinations();
            return Self {
                added: [(piece, king_to), (rook, rook_to)],
                removed: [(piece, mv.from()), (rook, mv.to())],
                n_added: 2,
                n_removed: 2,
            };
        }
        let landed = mv
            .promotion()
            .map_or(piece, |promoted| Piece::new(us, promoted));
        let mut delta = Self {
            added: [(landed, mv.to()); 2],
            removed: [(piece, mv.from()); 2],
            n_added: 1,
            n_removed: 1,
        };
        if let Some(victim) = board.captured_piece(mv) {
            let victim_sq = match mv.is_en_passant() {
                true => mv.to().offset(-us.forward()),
                false => mv.to(),
            };
            delta.removed[1] = (victim, victim_sq);
            delta.n_removed = 2;
        }
        delta
    }
}

/// One pair of accumulators per ply of the current line. Making a move writes the next
/// entry from the current one; unmaking just steps back; a null move shares its parent's.
pub struct AccumulatorStack {
    entries: Vec<Entry>,
    top: usize,
}

/// A ply's accumulators and its piece count, which picks the output bucket. The count is
/// carried along with the features the move changes, so evaluating needs no board.
#[derive(Clone, Copy)]
struct Entry {
    accumulators: [Accumulator; 2],
    pieces: usize,
}

impl AccumulatorStack {
    pub fn new(net: &Network, board: &Board) -> Self {
        let mut stack = Self {
            entries: vec![
                Entry {
                    accumulators: [Accumulator {
                        values: [0; HIDDEN]
                    }; 2],
                    pieces: 0,
                };
                256
            ],
            top: 0,
        };
        stack.refresh(net, board);
        stack
    }

    /// Recomputes the current entry from the board.
    pub fn refresh(&mut self, net: &Network, board: &Board) {
        self.entries[self.top] = Entry {
            accumulators: Color::BOTH.map(|c| Accumulator::refresh(net, board, c)),
            pieces: board.occupied().count() as usize,
        };
    }

    /// Call before `board.make_move(mv)`, with the board as it is before the move.
    pub fn make_move(&mut self, net: &Network, board: &Board, mv: Move) {
        let delta = FeatureDelta::of_move(board, mv);
        if self.top + 1 == self.entries.len() {
            self.entries.push(self.entries[self.top]);
        }
        let (done, rest) = self.entries.split_at_mut(self.top + 1);
        let (parent, child) = (&done[self.top], &mut rest[0]);
        // A capture removes one feature more than it adds; every other move as many as it adds.
        child.pieces = parent.pieces + delta.n_added - delta.n_removed;
        for perspective in Color::BOTH {
            let p = perspective.index();
            let row = |(piece, sq): (Piece, Square)| {
                &net.feature_weights[feature_index(perspective, piece, sq)]
            };
            let (add0, sub0) = (row(delta.added[0]), row(delta.removed[0]));
            let (output, input) = (
                &mut child.accumulators[p].values,
                &parent.accumulators[p].values,
            );
            match (delta.n_added, delta.n_removed) {
                (1, 1) => Active::add_sub(output, input, add0, sub0),
                (1, _) => Active::add_sub_sub(output, input, add0, sub0, row(delta.removed[1])),
                _ => Active::add_add_sub_sub(
                    output,
                    input,
                    add0,
                    row(delta.added[1]),
                    sub0,
                    row(delta.removed[1]),
                ),
            }
        }
        self.top += 1;
    }

    pub fn unmake_move(&mut self) {
        self.top -= 1;
    }

    /// Both perspectives' accumulators for the position at the top of the stack.
    pub fn current(&self) -> &[Accumulator; 2] {
        &self.entries[self.top].accumulators
    }

    /// Pieces on the board at the top of the stack, kings included.
    pub fn pieces(&self) -> usize {
        self.entries[self.top].pieces
    }

    /// Static evaluation in centipawns for the side to move.
    pub fn evaluate(&self, net: &Network, side_to_move: Color) -> i32 {
        let Entry {
            accumulators: [white, black],
            pieces,
        } = &self.entries[self.top];
        match side_to_move {
            Color::White => net.evaluate(&white.values, &black.values, *pieces),
            Color::Black => net.evaluate(&black.values, &white.values, *pieces),
        }
    }
}
