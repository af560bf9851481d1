//! Lazy SMP: every thread searches the same root with its own board, accumulators and
//! histories, sharing only the transposition table, the stop flag and node counters.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use arrayvec::ArrayVec;

use crate::board::Board;
use crate::nnue::{AccumulatorStack, Network};
use crate::search::history::{ContinuationKey, Histories};
use crate::search::score::Score;
use crate::search::{Limits, Reporter, RootMove, SearchResult, Silent, MAX_PLY};
use crate::time::{TimeManager, DEFAULT_MOVE_OVERHEAD};
use crate::tt::TranspositionTable;
use crate::types::Move;

/// One thread's node count on its own cache line, so counting never contends.
#[repr(align(64))]
#[derive(Default)]
struct NodeCounter(AtomicU64);

/// State every search thread reads: created once, resized only between searches.
pub struct SharedContext {
    pub tt: TranspositionTable,
    pub network: Box<Network>,
    pub stop: AtomicBool,
    /// Set while a `go ponder` search waits for `ponderhit`.
    pub pondering: AtomicBool,
    node_counters: Vec<NodeCounter>,
    /// Lines to search and report (UCI `MultiPV`).
    pub multipv: usize,
    /// Time the time manager leaves for the trip to the clock (UCI `Move Overhead`).
    pub move_overhead: Duration,
}

impl SharedContext {
    pub fn new(hash_mb: usize, network: Box<Network>, threads: usize) -> Self {
        Self {
            tt: TranspositionTable::new(hash_mb, threads)
                .expect("memory for the default hash table"),
            network,
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            node_counters: (0..threads).map(|_| NodeCounter::default()).collect(),
            multipv: 1,
            move_overhead: DEFAULT_MOVE_OVERHEAD,
        }
    }

    pub fn total_nodes(&self) -> u64 {
        self.node_counters.iter().map(|c| c.0.load(Relaxed)).sum()
    }

    pub fn set_threads(&mut self, threads: usize) {
        self.node_counters
            .resize_with(threads, NodeCounter::default);
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// Holds the answer back while UCI forbids it: a `go infinite` until `stop`, a `go ponder`
    /// until `ponderhit` or `stop`, however soon the search itself ended.
    pub fn hold_answer(&self, limits: &Limits) {
        while (limits.infinite || self.pondering.load(Relaxed)) && !self.stopped() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

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
            nodes: 0,
            seldepth: 0,
            root_depth: 0,
            completed_depth: 0,
            completed_best: None,
            nmp_min_ply: 0,
            time: None,
            limits: Limits::default(),
        }
    }

    pub fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Publishes this thread's node count for `go nodes`, `info nodes` and nps.
    pub fn publish_nodes(&self, shared: &SharedContext) {
        shared.node_counters[self.id].0.store(self.nodes, Relaxed);
    }

    /// Forgets what earlier games taught (UCI `ucinewgame`).
    pub fn clear_histories(&mut self) {
        self.histories = Histories::default();
    }

    /// Prepares this thread for a search of `board`: its root moves are the legal ones (those of
    /// `searchmoves` if any), none where there is nothing to search.
    fn prepare(&mut self, shared: &SharedContext, board: &Board, limits: &Limits) {
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

/// Searches `board` with every thread in `threads` (the first is the main thread, which
/// manages time and reports) and returns the best thread's result.
pub fn search(
    shared: &SharedContext,
    threads: &mut [ThreadData],
    board: &Board,
    limits: &Limits,
    reporter: &mut dyn Reporter,
) -> SearchResult {
    shared.tt.new_search();
    for counter in &shared.node_counters {
        counter.0.store(0, Relaxed);
    }
    for td in threads.iter_mut() {
        td.prepare(shared, board, limits);
    }
    if threads[0].root_moves.is_empty() {
        shared.hold_answer(limits);
        return SearchResult::default();
    }

    let (main, helpers) = threads
        .split_first_mut()
        .expect("at least one search thread");
    std::thread::scope(|scope| {
        for helper in helpers.iter_mut() {
            scope.spawn(|| helper.iterative_deepening(shared, &mut Silent));
        }
        main.iterative_deepening(shared, reporter);
        shared.stop.store(true, Relaxed);
    });

    let best = best_thread(threads);
    if !best.is_main() {
        // The main thread reported its own line: show the one that will be played.
        reporter.report(&best.played_line_info(shared));
    }
    let root = &best.root_moves[0];
    SearchResult {
        best_move: Some(root.mv),
        ponder_move: root
            .pv
            .get(1)
            .copied()
            .or_else(|| ponder_from_table(shared, board, root.mv)),
        score: root.display_score(),
        nodes: shared.total_nodes(),
    }
}

/// A reply to ponder on where the line ends at the best move (a root fail-high, a search
/// stopped early or at depth 1): the table's move after it, if it is legal there.
fn ponder_from_table(shared: &SharedContext, board: &Board, best: Move) -> Option<Move> {
    let mut after = board.clone();
    after.make_move(best);
    let reply = shared.tt.probe(after.key(), 1)?.mv?;
    after.is_legal(reply).then_some(reply)
}

/// The thread whose move is played: the deepest completed iteration, then the best score, then
/// the lowest id. The score is the one reported: a move not yet searched in an unfinished
/// iteration keeps its last completed score rather than counting as -INFINITY.
fn best_thread(threads: &[ThreadData]) -> &ThreadData {
    threads
        .iter()
        .filter(|td| td.completed_depth > 0)
        .max_by_key(|td| {
            (
                td.completed_depth,
                td.root_moves[0].display_score(),
                usize::MAX - td.id,
            )
        })
        .unwrap_or(&threads[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::INFINITY;
    use crate::search::ScoreBound;

    fn thread(
        id: usize,
        network: &Network,
        completed_depth: i32,
        score: Score,
        previous: Score,
    ) -> ThreadData {
        let mut td = ThreadData::new(id, network);
        let mut root = RootMove::new(Board::startpos().legal_moves()[id]);
        root.score = score;
        root.previous_score = previous;
        td.root_moves = vec![root];
        td.completed_depth = completed_depth;
        td
    }

    #[test]
    fn the_deepest_thread_wins_then_the_best_score_then_the_lowest_id() {
        let network = Network::random(1);
        let threads = [
            thread(0, &network, 9, 50, 40),
            thread(1, &network, 10, 20, 30),
            thread(2, &network, 10, 25, 30),
            thread(3, &network, 10, 25, 30),
        ];
        assert_eq!(best_thread(&threads).id, 2);
    }

    #[test]
    fn an_unsearched_best_move_keeps_its_last_score() {
        let network = Network::random(1);
        // Thread 0 was stopped before its first move finished: it still stands on 60.
        let threads = [
            thread(0, &network, 10, -INFINITY, 60),
            thread(1, &network, 10, 20, 30),
        ];
        assert_eq!(best_thread(&threads).id, 0);
    }

    /// A helper's line is reported as the main thread's is: exact at its completed depth while
    /// its best move stands, a lower bound one ply deeper once an unfinished iteration replaced it.
    #[test]
    fn the_played_line_is_exact_only_if_its_iteration_completed() {
        let shared = SharedContext::new(1, Network::random(1), 2);
        let mut helper = thread(1, &shared.network, 10, 20, 30);
        helper.completed_best = Some(helper.root_moves[0].mv);
        let info = helper.played_line_info(&shared);
        assert_eq!((info.depth, info.bound), (10, ScoreBound::Exact));
        helper.completed_best = Some(Board::startpos().legal_moves()[0]);
        let info = helper.played_line_info(&shared);
        assert_eq!((info.depth, info.bound), (11, ScoreBound::Lower));
    }

    #[test]
    fn no_completed_iteration_falls_back_to_the_main_thread() {
        let network = Network::random(1);
        let threads = [thread(0, &network, 0, 5, 5), thread(1, &network, 0, 9, 9)];
        assert_eq!(best_thread(&threads).id, 0);
    }
}
