//! Iterative deepening with aspiration windows, MultiPV and the stop decisions between iterations.

use std::sync::atomic::Ordering::Relaxed;

use super::alphabeta::Root;
use super::strength::Handicap;
use super::{params, Reporter, ScoreBound, SearchInfo};
use super::{SharedContext, ThreadData};
use crate::types::score::{self, INFINITY};
use crate::types::MAX_PLY;

impl ThreadData {
    pub(crate) fn iterative_deepening(
        &mut self,
        shared: &SharedContext,
        reporter: &mut dyn Reporter,
    ) {
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 1)
            .clamp(1, MAX_PLY as i32 - 1);
        // A limited strength searches lines for its choice beyond those a GUI asked to see.
        let multipv = shared.multipv.clamp(1, self.root_moves.len());
        let lines = shared
            .handicap
            .map_or(multipv, |h| multipv.max(h.strength.candidates()))
            .min(self.root_moves.len());
        let mut stability = 0;

        for depth in 1..=max_depth {
            self.root_depth = depth;
            for rm in &mut self.root_moves {
                rm.previous_score = rm.score;
                rm.score = -INFINITY;
            }
            for pv_index in 0..lines {
                // seldepth is reported per line and iteration, not as a running maximum.
                self.seldepth = 0;
                // A line chooses among the moves of its tablebase rank only (all moves share
                // rank 0 without tables), so a better result is never outscored by a worse one.
                self.pv_end = self.rank_end(pv_index);
                self.aspiration_search(shared, depth, pv_index, reporter);
                if self.aborted(shared) {
                    break;
                }
                // A later line can outscore an earlier one (the table and histories changed in
                // between): keep the lines in score order within a rank, so line 1 is the move
                // played.
                self.root_moves[..=pv_index]
                    .sort_by_key(|rm| (std::cmp::Reverse(rm.tb_rank), std::cmp::Reverse(rm.score)));
            }
            if self.aborted(shared) {
                break;
            }
            self.completed_depth = depth;
            let best = self.root_moves[0].mv;
            stability = if self.completed_best == Some(best) {
                stability + 1
            } else {
                0
            };
            self.completed_best = Some(best);
            if let Some(handicap) = shared.handicap {
                // Whatever MultiPV a GUI shows, the choice is among the level's own lines.
                let candidates = handicap.strength.candidates().min(lines);
                self.candidates = self.root_moves[..candidates].to_vec();
            }
            self.publish_nodes(shared);
            if !self.is_main() {
                continue;
            }
            for failure in shared
                .syzygy
                .tables
                .iter()
                .flat_map(|t| t.unreported_failures())
            {
                reporter.warn(&format!(
                    "tablebase probe failed, searching on without: {failure}"
                ));
            }
            for pv_index in 0..multipv {
                reporter.report(&self.search_info(shared, depth, pv_index, ScoreBound::Exact));
            }
            if self.should_stop_after_iteration(shared, stability) {
                break;
            }
        }

        if self.is_main() {
            if let Some(handicap) = shared.handicap {
                self.choose_weaker_move(shared, handicap, reporter);
            } else if self
                .completed_best
                .is_some_and(|best| best != self.root_moves[0].mv)
            {
                // The last completed iteration's report stands unless a later move replaced it.
                reporter.report(&self.played_line_info(shared));
            }
            shared.hold_answer(&self.limits);
            shared.stop.store(true, Relaxed);
        }
    }

    /// A limited strength's move: drawn from the lines of the last completed iteration (an
    /// unfinished one has not scored them all), then put first, where the result and the
    /// reports read the move played. When it is not the best line, its line is reported once
    /// more, so the last `info` a GUI shows is the move played with its own score.
    fn choose_weaker_move(
        &mut self,
        shared: &SharedContext,
        handicap: Handicap,
        reporter: &mut dyn Reporter,
    ) {
        let scores: Vec<_> = self
            .candidates
            .iter()
            .map(|rm| rm.display_score())
            .collect();
        let index = handicap.strength.choose(&scores, handicap.draw);
        let Some(chosen) = self.candidates.get(index).cloned() else {
            return;
        };
        if let Some(at) = self.root_moves.iter().position(|rm| rm.mv == chosen.mv) {
            self.root_moves.remove(at);
        }
        self.root_moves.insert(0, chosen);
        self.completed_best = Some(self.root_moves[0].mv);
        if index != 0 {
            reporter.report(&self.played_line_info(shared));
        }
    }

    fn should_stop_after_iteration(&mut self, shared: &SharedContext, stability: usize) -> bool {
        let best = &self.root_moves[0];
        if let Some(mate) = self.limits.mate {
            if score::moves_to_mate(best.score).is_some_and(|moves| moves <= mate as i32) {
                return true;
            }
        }
        if self
            .limits
            .soft_nodes
            .is_some_and(|limit| self.nodes >= limit)
        {
            return true;
        }
        // A single legal move, or the only one the tables leave the search (the best by DTZ),
        // needs no thought beyond a score to report.
        let timed = self.time.as_ref().is_some_and(|t| t.is_timed());
        if self.rank_end(0) == 1 && timed && self.completed_depth >= 4 {
            return !shared.pondering.load(Relaxed) && !self.limits.infinite;
        }
        if shared.pondering.load(Relaxed) {
            return false;
        }
        let best_move_nodes = best.nodes as f64 / self.nodes.max(1) as f64;
        self.time
            .as_ref()
            .is_some_and(|time| time.soft_limit_reached(stability, best_move_nodes))
    }

    /// The end of the run of root moves from `start` on that share its tablebase rank.
    fn rank_end(&self, start: usize) -> usize {
        let rank = self.root_moves[start].tb_rank;
        start
            + self.root_moves[start..]
                .iter()
                .take_while(|rm| rm.tb_rank == rank)
                .count()
    }

    /// Searches with a window around the last score, widening it on each failure.
    fn aspiration_search(
        &mut self,
        shared: &SharedContext,
        depth: i32,
        pv_index: usize,
        reporter: &mut dyn Reporter,
    ) {
        let previous = self.root_moves[pv_index].previous_score;
        let mut delta = params::aspiration_window();
        let (mut alpha, mut beta) = match params::aspiration()
            && depth >= 4
            && previous != -INFINITY
            && !score::is_decisive(previous)
        {
            true => (
                (previous - delta).max(-INFINITY),
                (previous + delta).min(INFINITY),
            ),
            false => (-INFINITY, INFINITY),
        };
        let mut search_depth = depth;
        loop {
            let value = self.negamax::<Root>(shared, alpha, beta, search_depth, 0, false, pv_index);
            // Keep searched moves ahead of unsearched ones; stable, so ties keep their order.
            self.root_moves[pv_index..self.pv_end].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.aborted(shared) {
                return;
            }
            let bound = if value <= alpha {
                ScoreBound::Upper
            } else if value >= beta {
                ScoreBound::Lower
            } else {
                return;
            };
            // Long searches show their failed windows so a GUI sees the score move.
            if self.is_main() && self.limits.start.elapsed().as_millis() > 3000 {
                reporter.report(&self.search_info(shared, depth, pv_index, bound));
            }
            if bound == ScoreBound::Upper {
                beta = (alpha + beta) / 2;
                alpha = (value - delta).max(-INFINITY);
                search_depth = depth;
            } else {
                beta = (value + delta).min(INFINITY);
                // A fail high is usually confirmed at a slightly lower depth.
                search_depth = (search_depth - 1).max(depth - 3).max(1);
            }
            delta += delta / 2;
        }
    }

    /// The line this thread would play, once it has stopped. An unfinished iteration that found
    /// a better move than the last completed one shows it one ply deeper, its score a lower
    /// bound (it beat the old best move, and the rest of the iteration is unknown).
    pub(crate) fn played_line_info(&self, shared: &SharedContext) -> SearchInfo {
        if self.completed_best == Some(self.root_moves[0].mv) {
            self.search_info(shared, self.completed_depth, 0, ScoreBound::Exact)
        } else {
            self.search_info(shared, self.completed_depth + 1, 0, ScoreBound::Lower)
        }
    }

    pub(crate) fn search_info(
        &self,
        shared: &SharedContext,
        depth: i32,
        pv_index: usize,
        bound: ScoreBound,
    ) -> SearchInfo {
        self.publish_nodes(shared);
        let rm = &self.root_moves[pv_index];
        SearchInfo {
            depth,
            seldepth: rm.seldepth.max(1),
            multipv: pv_index + 1,
            score: rm.display_score(),
            tablebase: rm.tablebase_score().is_some(),
            bound,
            nodes: shared.total_nodes(),
            tbhits: shared.tbhits.load(Relaxed),
            // From `go`, not from the time manager's start, which `ponderhit` moves.
            elapsed: self.limits.start.elapsed(),
            hashfull: shared.tt.hashfull(),
            pv: rm.pv.clone(),
        }
    }
}
