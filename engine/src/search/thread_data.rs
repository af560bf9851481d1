//! One search thread's own state: its board and accumulators, the per-ply stack, histories,
//! principal variations and root moves. The search itself is written as methods on
//! `ThreadData` (`iterate.rs`, `alphabeta.rs`).

use arrayvec::ArrayVec;

use super::history::{ContinuationKey, Histories};
use super::time::TimeManager;
use super::{Limits, RootMove, SharedContext};
use crate::board::Board;
use crate::nnue::{AccumulatorStack, Network};
use crate::types::{Move, Score, MAX_PLY};

/// Per-ply search state.
#[derive(Copy, Clone, Default)]
pub struct StackEntry {
    pub static_eval: Option<Score>,
    pub killer: Option<Move>,
    /// The move played from this ply and the (piece, square) it indexes continuation history by.
    pub played: Option<ContinuationKey>,
    pub excluded: Option<Move>,
    pub double_extensions: i32,
}

/// Principal variations, one per ply, as a triangular table.
pub struct PvTable {
    lines: Vec<ArrayVec<Move, MAX_PLY>>,
}

impl PvTable {
    fn new() -> Self {
        Self {
            lines: vec![ArrayVec::new(); MAX_PLY + 1],
        }
    }

    pub fn clear(&mut self, ply: usize) {
        self.lines[ply].clear();
    }

    /// The line at `ply` becomes `mv` followed by the line found one ply deeper.
    pub fn update(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.lines.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend(tail[0].iter().copied().take(MAX_PLY - 1));
    }

    pub fn line(&self, ply: usize) -> &[Move] {
        &self.lines[ply]
    }
}

/// Everything one search thread owns.
pub struct ThreadData {
    pub id: usize,
    pub board: Board,
    pub nnue: AccumulatorStack,
    pub stack: Vec<StackEntry>,
    pub histories: Histories,
    pub pv: PvTable,
    pub root_moves: Vec<RootMove>,
    /// The root moves of the line being searched are `root_moves[pv_index..pv_end]`.
    pub pv_end: usize,
    pub nodes: u64,
    pub seldepth: usize,
    /// The iteration being searched: extensions stop at twice its depth in plies.
    pub root_depth: i32,
    pub completed_depth: i32,
    /// The best move of the last completed iteration.
    pub completed_best: Option<Move>,
    /// Plies below which null-move pruning is off (during a null-move verification search).
    pub nmp_min_ply: usize,
    pub time: Option<TimeManager>,
    pub limits: Limits,
    /// The most pieces the search probes the tablebases with in this search (0: none).
    pub tb_cardinality: usize,
    /// A limited strength's lines of the last completed iteration, best first: the moves it
    /// chooses among.
    pub candidates: Vec<RootMove>,
}

impl ThreadData {
    pub fn new(id: usize, network: &Network) -> Self {
        let board = Board::startpos();
        Self {
            id,
            nnue: AccumulatorStack::new(network, &board),
            board,
            stack: vec![StackEntry::default(); MAX_PLY + 8],
            histories: Histories::default(),
            pv: PvTable::new(),
            root_moves: Vec::new(),
            pv_end: 0,
            nodes: 0,
            seldepth: 0,
            root_depth: 0,
            completed_depth: 0,
            completed_best: None,
            nmp_min_ply: 0,
            time: None,
            limits: Limits::default(),
            tb_cardinality: 0,
            candidates: Vec::new(),
        }
    }

    pub fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Whether the search is to be abandoned. A stop (`stop`, the end of input, a node or time
    /// limit) waits for the first iteration, so that the move played has always been searched.
    pub fn aborted(&self, shared: &SharedContext) -> bool {
        self.completed_depth >= 1 && shared.stopped()
    }

    /// Publishes this thread's node count for `go nodes`, `info nodes` and nps.
    pub fn publish_nodes(&self, shared: &SharedContext) {
        shared.publish_nodes(self.id, self.nodes);
    }

    /// Forgets what earlier games taught (UCI `ucinewgame`).
    pub fn clear_histories(&mut self) {
        self.histories = Histories::default();
    }

    /// Prepares this thread for a search of `board`: its root moves are the legal ones (those of
    /// `searchmoves` if any), none where there is nothing to search.
    pub(crate) fn prepare(&mut self, shared: &SharedContext, board: &Board, limits: &Limits) {
        self.board = board.clone();
        self.nnue.refresh(&shared.network, &self.board);
        self.nodes = 0;
        self.seldepth = 0;
        self.root_depth = 0;
        self.completed_depth = 0;
        self.completed_best = None;
        self.nmp_min_ply = 0;
        self.stack.fill(StackEntry::default());
        self.limits = limits.clone();
        // A limited strength's budget caps any `go nodes`; the search stops there whatever
        // the clock allows.
        if let Some(handicap) = shared.handicap {
            let budget = handicap.strength.nodes();
            self.limits.nodes = Some(self.limits.nodes.map_or(budget, |n| n.min(budget)));
        }
        self.candidates.clear();
        self.time = self
            .is_main()
            .then(|| TimeManager::new(limits, board.side_to_move(), shared.move_overhead));
        self.root_moves = board
            .legal_moves()
            .into_iter()
            .filter(|mv| limits.search_moves.is_empty() || limits.search_moves.contains(mv))
            .map(RootMove::new)
            .collect();
    }
}
