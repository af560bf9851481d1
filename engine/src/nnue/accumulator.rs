//! Accumulators: the feature layer's output per perspective, updated incrementally. A king move
//! into another king bucket (or across the mirror line) changes every input of its side's
//! perspective; that perspective is then rebuilt from the last accumulator computed for the new
//! bucket, by the difference in pieces since then (the "Finny table" of Koivisto and others).

use super::simd::{Active, Kernels};
use super::{InputView, Network, HIDDEN};
use crate::board::Board;
use crate::types::{Bitboard, Color, Move, Piece, PieceType, Square};

/// The hidden layer before activation for one perspective.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Accumulator {
    pub values: [i16; HIDDEN],
}

impl Accumulator {
    /// Computes the accumulator from scratch: the reference incremental updates must match.
    pub fn refresh(net: &Network, board: &Board, perspective: Color) -> Self {
        let view = net
            .king_buckets
            .view(perspective, board.king_square(perspective));
        let mut acc = Self {
            values: net.feature_bias,
        };
        for sq in board.occupied() {
            let piece = board.piece_at(sq).expect("occupied square has a piece");
            Active::add_assign(
                &mut acc.values,
                &net.feature_weights[view.index(perspective, piece, sq)],
            );
        }
        acc
    }
}

/// The twelve coloured pieces in `Piece::index` order.
fn all_pieces() -> impl Iterator<Item = Piece> {
    Color::BOTH
        .into_iter()
        .flat_map(|color| PieceType::ALL.map(|piece_type| Piece::new(color, piece_type)))
}

/// The squares of each coloured piece (by `Piece::index`).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
struct Placement([Bitboard; 12]);

impl Placement {
    fn of(board: &Board) -> Self {
        let mut placement = Self::default();
        for piece in all_pieces() {
            placement.0[piece.index()] = board.colored_pieces(piece.color(), piece.piece_type());
        }
        placement
    }

    /// The placement after the move `delta` describes: removals first, so that a piece landing
    /// where another stood (a capture, a Chess960 castle) stays.
    fn after(mut self, delta: &FeatureDelta) -> Self {
        for &(piece, sq) in &delta.removed[..delta.n_removed] {
            self.0[piece.index()] &= !Bitboard::from_square(sq);
        }
        for &(piece, sq) in &delta.added[..delta.n_added] {
            self.0[piece.index()] |= Bitboard::from_square(sq);
        }
        self
    }
}

/// Per perspective and input view, the accumulator last computed in that view and the placement
/// it was computed for. Starting from the bias of an empty board, so every slot is valid.
struct RefreshCache {
    slots: Vec<(Accumulator, Placement)>,
    views: usize,
}

impl RefreshCache {
    fn new(net: &Network) -> Self {
        let mut cache = Self {
            slots: Vec::new(),
            views: 0,
        };
        cache.reset(net);
        cache
    }

    /// Empties every slot, for `net` (which may not be the net the slots were computed with).
    fn reset(&mut self, net: &Network) {
        self.views = net.king_buckets.view_count();
        let empty = Accumulator {
            values: net.feature_bias,
        };
        self.slots.clear();
        self.slots
            .resize(2 * self.views, (empty, Placement::default()));
    }

    /// The accumulator of `perspective` in `view` after `mv` on `board` (the board before the
    /// move), by adding and removing the pieces that differ from the
    /// slot's last placement; the slot keeps the result. Out of line: it runs on few moves, and
    /// inlined into `make_move` it slowed every other update.
    #[cold]
    #[inline(never)]
    fn rebuild(
        &mut self,
        net: &Network,
        board: &Board,
        mv: Move,
        perspective: Color,
        view: InputView,
    ) -> Accumulator {
        let placement = Placement::of(board).after(&FeatureDelta::of_move(board, mv));
        let (acc, cached) = &mut self.slots[perspective.index() * self.views + view.number()];
        for piece in all_pieces() {
            let (now, then) = (placement.0[piece.index()], cached.0[piece.index()]);
            let row = |sq| &net.feature_weights[view.index(perspective, piece, sq)];
            for sq in now & !then {
                Active::add_assign(&mut acc.values, row(sq));
            }
            for sq in then & !now {
                Active::sub_assign(&mut acc.values, row(sq));
            }
        }
        *cached = placement;
        *acc
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

/// `child`'s accumulator of `perspective` from `parent`'s, in the same view, with the features of
/// `delta` added and removed.
#[inline(always)]
fn update(
    child: &mut Entry,
    parent: &Entry,
    net: &Network,
    delta: &FeatureDelta,
    perspective: Color,
) {
    let p = perspective.index();
    let view = parent.views[p];
    let rows = view.rows(&net.feature_weights);
    let row = |(piece, sq)| &rows[view.input(perspective, piece, sq)];
    let (output, input) = (
        &mut child.accumulators[p].values,
        &parent.accumulators[p].values,
    );
    let (add0, sub0) = (row(delta.added[0]), row(delta.removed[0]));
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

/// One pair of accumulators per ply of the current line. Making a move writes the next
/// entry from the current one; unmaking just steps back; a null move shares its parent's.
pub struct AccumulatorStack {
    entries: Vec<Entry>,
    top: usize,
    cache: RefreshCache,
}

/// A ply's accumulators, the input view each was computed in, and its piece count, which picks
/// the output bucket. The count is carried along with the features the move changes, so
/// evaluating needs no board.
#[derive(Clone, Copy)]
struct Entry {
    accumulators: [Accumulator; 2],
    views: [InputView; 2],
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
                    views: [InputView::default(); 2],
                    pieces: 0,
                };
                256
            ],
            top: 0,
            cache: RefreshCache::new(net),
        };
        stack.refresh(net, board);
        stack
    }

    /// Recomputes the current entry from the board, for `net` (which may be another net than
    /// the stack last saw).
    pub fn refresh(&mut self, net: &Network, board: &Board) {
        self.cache.reset(net);
        self.entries[self.top] = Entry {
            accumulators: Color::BOTH.map(|c| Accumulator::refresh(net, board, c)),
            views: Color::BOTH.map(|c| net.king_buckets.view(c, board.king_square(c))),
            pieces: board.occupied().count() as usize,
        };
    }

    /// Call before `board.make_move(mv)`, with the board as it is before the move, and the net
    /// of the last `new` or `refresh`.
    pub fn make_move(&mut self, net: &Network, board: &Board, mv: Move) {
        let delta = FeatureDelta::of_move(board, mv);
        if self.top + 1 == self.entries.len() {
            self.entries.push(self.entries[self.top]);
        }
        let (done, rest) = self.entries.split_at_mut(self.top + 1);
        let (parent, child) = (&done[self.top], &mut rest[0]);
        // A capture removes one feature more than it adds; every other move as many as it adds.
        child.pieces = parent.pieces + delta.n_added - delta.n_removed;
        // Only the mover's king changes a view: its own side's. Its first removal and addition
        // are the king's (a castle lists the king before the rook).
        child.views = parent.views;
        let (mover, landing) = (delta.removed[0].0, delta.added[0].1);
        if mover.piece_type() == PieceType::King {
            let us = mover.color();
            child.views[us.index()] = net.king_buckets.view(us, landing);
        }
        // The incremental updates in a loop of their own: with the rare rebuild inside it, the
        // compiler kept the loop over the two colours rolled.
        for perspective in [Color::White, Color::Black] {
            let p = perspective.index();
            if child.views[p] == parent.views[p] {
                update(child, parent, net, &delta, perspective);
            }
        }
        for perspective in [Color::White, Color::Black] {
            let p = perspective.index();
            if child.views[p] != parent.views[p] {
                let view = child.views[p];
                child.accumulators[p] = self.cache.rebuild(net, board, mv, perspective, view);
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
            ..
        } = &self.entries[self.top];
        match side_to_move {
            Color::White => net.evaluate(&white.values, &black.values, *pieces),
            Color::Black => net.evaluate(&black.values, &white.values, *pieces),
        }
    }
}
