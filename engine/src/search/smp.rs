//! Lazy SMP: every thread searches the same root with its own board, accumulators and
//! histories, sharing only the transposition table, the stop flag and node counters. This module
//! starts the workers and picks the move to play; each worker searches in `iterate.rs` and
//! `alphabeta.rs`.

use std::sync::atomic::Ordering::Relaxed;

use super::root_moves::rank_by_tablebases;
use super::{Limits, Reporter, SearchResult, SharedContext, Silent, ThreadData};
use crate::board::Board;
use crate::types::score::{mated_in, DRAW};
use crate::types::Move;

/// Searches `board` with every thread in `threads` (the first is the main thread, which
/// manages time and reports) and returns the best thread's result.
pub(crate) fn search(
    shared: &SharedContext,
    threads: &mut [ThreadData],
    board: &Board,
    limits: &Limits,
    reporter: &mut dyn Reporter,
) -> SearchResult {
    // A limited strength searches on the main thread alone: its budget is then exact, and its
    // moves the same on any number of threads.
    let active = if shared.handicap.is_some() {
        1
    } else {
        threads.len()
    };
    let threads = &mut threads[..active];
    shared.tt.new_search();
    shared.reset_nodes();
    for td in threads.iter_mut() {
        td.prepare(shared, board, limits);
    }
    let (main, helpers) = threads
        .split_first_mut()
        .expect("at least one search thread");
    main.tb_cardinality = rank_by_tablebases(&shared.syzygy, board, &mut main.root_moves);
    if main.root_moves.iter().any(|rm| rm.tb_score.is_some()) {
        // The tables ranked the root moves, a probe each (after DTZ ranked them the search
        // probes no more, so without these `info` would say no table was used).
        shared
            .tbhits
            .fetch_add(main.root_moves.len() as u64, Relaxed);
    }
    for helper in helpers.iter_mut() {
        helper.root_moves.clone_from(&main.root_moves);
        helper.tb_cardinality = main.tb_cardinality;
    }
    if threads[0].root_moves.is_empty() {
        shared.hold_answer(limits);
        // Mated or stalemated: the score a search of the position would give it.
        return SearchResult {
            score: if board.in_check() { mated_in(0) } else { DRAW },
            ..SearchResult::default()
        };
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
    use crate::nnue::Network;
    use crate::search::{RootMove, ScoreBound};
    use crate::types::score::INFINITY;
    use crate::types::Score;

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
