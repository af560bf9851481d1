//! Principal variation search and quiescence search. Node kinds are zero-sized type
//! parameters, so PV and non-PV logic share one function without runtime flags.

use std::sync::atomic::Ordering::Relaxed;

use arrayvec::ArrayVec;

use super::history::{history_bonus, ContinuationKey};
use super::movepick::MovePicker;
use super::params;
use super::{SharedContext, ThreadData};
use crate::syzygy::Wdl;
use crate::tt::{Bound, TtHit};
use crate::types::score::{is_decisive, is_tb_result, mate_in, mated_in, tb_win_in};
use crate::types::score::{DRAW, INFINITY, MATE_BOUND, TB_WIN_BOUND};
use crate::types::{Move, Score, MAX_PLY};

pub trait NodeType {
    const PV: bool;
    const ROOT: bool;
}

pub struct Root;
struct Pv;
struct NonPv;

impl NodeType for Root {
    const PV: bool = true;
    const ROOT: bool = true;
}
impl NodeType for Pv {
    const PV: bool = true;
    const ROOT: bool = false;
}
impl NodeType for NonPv {
    const PV: bool = false;
    const ROOT: bool = false;
}

/// Late-move reduction at `depth` for the `moves`-th move: `base + ln(depth)·ln(moves) / divisor`.
fn lmr_formula(depth: usize, moves: usize) -> i32 {
    if depth == 0 || moves == 0 {
        return 0;
    }
    let base = f64::from(params::lmr_base()) / 100.0;
    let divisor = f64::from(params::lmr_divisor()) / 100.0;
    (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32
}

/// The reduction from the formula, looked up in a table built once.
#[cfg(not(feature = "tune"))]
fn lmr_reduction(depth: i32, moves: usize) -> i32 {
    static TABLE: std::sync::LazyLock<[[i32; 64]; 64]> = std::sync::LazyLock::new(|| {
        std::array::from_fn(|depth| std::array::from_fn(|moves| lmr_formula(depth, moves)))
    });
    TABLE[depth.clamp(0, 63) as usize][moves.min(63)]
}

/// The reduction from the formula, computed each time so that tuned values apply at once.
#[cfg(feature = "tune")]
fn lmr_reduction(depth: i32, moves: usize) -> i32 {
    lmr_formula(depth.clamp(0, 63) as usize, moves.min(63))
}

/// How often (in nodes) the main thread looks at the clock.
const TIME_CHECK_INTERVAL: u64 = 1024;

/// From this half-move clock on, table scores no longer cut the search: a stored score knows
/// nothing of the clock, and the fifty-move draw may be near.
const TABLE_CUTOFF_HALFMOVE_LIMIT: u16 = 90;

impl ThreadData {
    /// Counts a node and, on the main thread, checks the hard limits now and then.
    fn visit_node(&mut self, shared: &SharedContext) {
        self.nodes += 1;
        // With one thread `go nodes` is exact; with more the sum is checked at intervals below.
        // A ponder search, as in Stockfish, heeds no limit until `ponderhit`, but for a limited
        // strength's budget: thinking on the opponent's time must not make it stronger.
        if self.is_main()
            && self.limits.nodes.is_some_and(|limit| self.nodes >= limit)
            && (shared.handicap.is_some() || !shared.pondering.load(Relaxed))
        {
            shared.stop.store(true, Relaxed);
        }
        if self.nodes % TIME_CHECK_INTERVAL != 0 {
            return;
        }
        self.publish_nodes(shared);
        if !self.is_main() {
            return;
        }
        if let Some(time) = &mut self.time {
            if shared.pondering.load(Relaxed) {
                time.restart();
            } else if time.hard_limit_reached() {
                shared.stop.store(true, Relaxed);
            }
        }
        if self
            .limits
            .nodes
            .is_some_and(|limit| shared.total_nodes() >= limit)
            && !shared.pondering.load(Relaxed)
        {
            shared.stop.store(true, Relaxed);
        }
    }

    /// Static evaluation for the side to move: the network plus the learned correction.
    fn evaluate(&self, shared: &SharedContext) -> Score {
        let raw = self
            .nnue
            .evaluate(&shared.network, self.board.side_to_move());
        raw.clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// The network's evaluation, taken from the table entry when it holds one.
    fn raw_eval(&self, shared: &SharedContext, tt_hit: Option<TtHit>) -> Score {
        match tt_hit {
            Some(hit) if hit.eval.abs() < MATE_BOUND => hit.eval,
            _ => self.evaluate(shared),
        }
    }

    fn corrected(&self, raw: Score) -> Score {
        self.histories
            .correction
            .correct(&self.board, raw)
            .clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// The score at the deepest ply the stack allows: no search below, so the corrected
    /// evaluation (a draw in check, where the evaluation means nothing).
    fn max_ply_score(&self, shared: &SharedContext) -> Score {
        if self.board.in_check() {
            DRAW
        } else {
            self.corrected(self.evaluate(shared))
        }
    }

    fn continuation_keys(&self, ply: usize) -> [Option<ContinuationKey>; 2] {
        [ply.checked_sub(1), ply.checked_sub(2)].map(|p| p.and_then(|p| self.stack[p].played))
    }

    fn make_move(&mut self, shared: &SharedContext, mv: Move, ply: usize) {
        let piece = self
            .board
            .piece_at(mv.from())
            .expect("a move starts on a piece");
        self.stack[ply].played = Some((piece, mv.to()));
        self.nnue.make_move(&shared.network, &self.board, mv);
        self.board.make_move(mv);
    }

    fn unmake_move(&mut self, mv: Move) {
        self.board.unmake_move(mv);
        self.nnue.unmake_move();
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax<Node: NodeType>(
        &mut self,
        shared: &SharedContext,
        mut alpha: Score,
        mut beta: Score,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
        pv_index: usize,
    ) -> Score {
        if depth <= 0 {
            return self.quiescence::<Node>(shared, alpha, beta, ply);
        }
        self.visit_node(shared);
        if Node::PV {
            self.pv.clear(ply);
            self.seldepth = self.seldepth.max(ply + 1);
        }
        if !Node::ROOT {
            if self.aborted(shared) {
                return DRAW;
            }
            if self.board.is_draw() {
                // A little noise keeps the search from treating every draw line as identical.
                return DRAW + 1 - (self.nodes & 2) as Score;
            }
            if ply >= MAX_PLY - 1 {
                return self.max_ply_score(shared);
            }
            // Mate distance pruning: no line from here can beat a mate already found nearer the root.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        let in_check = self.board.in_check();
        let excluded = self.stack[ply].excluded;
        let key = self.board.key();

        // Transposition table
        let tt_hit = if excluded.is_none() {
            shared.tt.probe(key, ply)
        } else {
            None
        };
        debug_assert!(
            !Node::ROOT || (pv_index < self.pv_end && self.pv_end <= self.root_moves.len())
        );
        let tt_move = match Node::ROOT {
            true => Some(self.root_moves[pv_index].mv),
            false => tt_hit.and_then(|hit| hit.mv),
        };
        let tt_pv = Node::PV || tt_hit.is_some_and(|hit| hit.was_pv);
        if let Some(hit) = tt_hit {
            let usable = hit.cuts(alpha, beta);
            if !Node::PV
                && hit.depth >= depth
                && usable
                && self.board.halfmove_clock() < TABLE_CUTOFF_HALFMOVE_LIMIT
            {
                return hit.score;
            }
        }

        // Tablebase probe, right after a capture or pawn move (the WDL tables assume one): the
        // result is known, and only the distance to it is not.
        let mut best_score = -INFINITY;
        let mut max_score = INFINITY;
        if !Node::ROOT && excluded.is_none() {
            if let Some(wdl) = self.probe_wdl(shared, depth) {
                let (value, bound) = tablebase_value(wdl, ply, shared.syzygy.rule50);
                if bound == Bound::Exact
                    || (bound == Bound::Lower && value >= beta)
                    || (bound == Bound::Upper && value <= alpha)
                {
                    let tb_depth = (depth + 6).min(MAX_PLY as i32 - 1);
                    shared
                        .tt
                        .store(key, ply, None, value, -INFINITY, tb_depth, bound, tt_pv);
                    return value;
                }
                // Otherwise the search finds how to win (or how long to resist), within the bound.
                if Node::PV {
                    if bound == Bound::Lower {
                        best_score = value;
                        alpha = alpha.max(value);
                    } else {
                        max_score = value;
                    }
                }
            }
        }

        // Static evaluation, corrected, and refined by a table bound when one is tighter
        let raw_eval;
        let static_eval;
        let mut eval;
        if in_check {
            raw_eval = -INFINITY;
            static_eval = None;
            eval = -INFINITY;
        } else {
            raw_eval = self.raw_eval(shared, tt_hit);
            if tt_hit.is_none() && excluded.is_none() {
                shared
                    .tt
                    .store(key, ply, None, -INFINITY, raw_eval, 0, Bound::None, tt_pv);
            }
            let corrected = self.corrected(raw_eval);
            static_eval = Some(corrected);
            eval = corrected;
            if let Some(hit) = tt_hit {
                eval = hit.refine(eval);
            }
        }
        self.stack[ply].static_eval = static_eval;
        self.stack[ply + 1].killer = None;

        // Improving: the position got better for us since our last move, so pruning can be bolder.
        let improving = match static_eval {
            None => false,
            Some(now) => {
                let earlier = ply
                    .checked_sub(2)
                    .and_then(|p| self.stack[p].static_eval)
                    .or_else(|| ply.checked_sub(4).and_then(|p| self.stack[p].static_eval));
                earlier.is_none_or(|then| now > then)
            }
        };

        if params::node_pruning() && !Node::PV && !in_check && excluded.is_none() {
            let eval = eval;
            let static_eval = static_eval.expect("not in check");

            // Reverse futility pruning (RFP): far above beta, a shallow search will not fall below it.
            let margin = params::rfp_margin() * (depth - i32::from(improving));
            // `eval` is never a mate score here: evaluations are clamped inside the mate bound
            // and `refine` takes no mate score from the table.
            if depth <= params::rfp_depth() && eval - margin >= beta {
                return (eval + beta) / 2;
            }

            // Razoring: far below alpha, only captures could save the position.
            if depth <= params::razor_depth() && eval + params::razor_margin() * depth < alpha {
                let value = self.quiescence::<NonPv>(shared, alpha, alpha + 1, ply);
                if value <= alpha {
                    return value;
                }
            }

            // Null-move pruning (NMP): if passing still beats beta, a real move will too.
            // Skipped without pieces (zugzwang) and right after another null move.
            let after_null = ply > 0 && self.stack[ply - 1].played.is_none();
            if depth >= 3
                && eval >= beta
                && static_eval
                    >= beta - params::nmp_eval_per_depth() * depth + params::nmp_eval_offset()
                && !after_null
                && ply >= self.nmp_min_ply
                && self.board.has_non_pawn_material(self.board.side_to_move())
                && beta > -TB_WIN_BOUND
            {
                let reduction = params::nmp_base_reduction()
                    + depth / params::nmp_depth_divisor()
                    + ((eval - beta) / params::nmp_eval_divisor()).min(3);
                self.stack[ply].played = None;
                self.stack[ply + 1].double_extensions = self.stack[ply].double_extensions;
                self.board.make_null_move();
                let value = -self.negamax::<NonPv>(
                    shared,
                    -beta,
                    -beta + 1,
                    depth - reduction,
                    ply + 1,
                    !cut_node,
                    0,
                );
                self.board.unmake_null_move();
                if self.aborted(shared) {
                    return DRAW;
                }
                if value >= beta {
                    let value = if is_decisive(value) { beta } else { value };
                    if depth < 14 || self.nmp_min_ply > 0 {
                        return value;
                    }
                    // Verification: at high depth, confirm with null moves off for a while.
                    self.nmp_min_ply = ply + 3 * (depth - reduction).max(0) as usize / 4;
                    let verified = self.negamax::<NonPv>(
                        shared,
                        beta - 1,
                        beta,
                        depth - reduction,
                        ply,
                        false,
                        0,
                    );
                    self.nmp_min_ply = 0;
                    if verified >= beta {
                        return value;
                    }
                }
            }
        }

        // Internal iterative reduction (IIR): without a table move this node was never searched
        // deeply, so search it shallower first and let the table fill.
        if params::iir()
            && depth >= params::iir_min_depth()
            && tt_move.is_none()
            && (Node::PV || cut_node)
        {
            depth -= 1;
        }

        let continuations = self.continuation_keys(ply);
        let mut picker = MovePicker::new(&self.board, tt_move, self.stack[ply].killer);
        let us = self.board.side_to_move();
        let mut best_move = None;
        let mut moves_searched = 0;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut noisy_tried: ArrayVec<Move, 32> = ArrayVec::new();

        while let Some(mv) = picker.next(&self.board, &self.histories, &continuations) {
            if Some(mv) == excluded {
                continue;
            }
            if Node::ROOT
                && !self.root_moves[pv_index..self.pv_end]
                    .iter()
                    .any(|rm| rm.mv == mv)
            {
                continue;
            }
            // Issued as soon as the move is known: the pruning decisions and the accumulator
            // update before the child's probe hide the memory's latency.
            shared.tt.prefetch(self.board.key_after(mv));
            let is_quiet = !mv.is_noisy();
            let piece = self
                .board
                .piece_at(mv.from())
                .expect("a move starts on a piece");
            let history = match is_quiet {
                true => self.histories.quiet_score(us, piece, mv, &continuations),
                false => self.histories.capture.get(&self.board, mv),
            };
            let lmr_depth = (depth - lmr_reduction(depth, moves_searched)).max(0);

            // Shallow-depth pruning, once a move has saved us from a mate or a tablebase loss.
            if params::move_pruning()
                && !Node::ROOT
                && best_score > -TB_WIN_BOUND
                && self.board.has_non_pawn_material(us)
            {
                // Late-move pruning (LMP): late quiets at low depth rarely matter.
                let lmp_limit = (params::lmp_base() + depth * depth) / (2 - i32::from(improving));
                if moves_searched as i32 >= lmp_limit {
                    picker.skip_quiets();
                }
                if is_quiet {
                    // Futility pruning: even a big positional gain would not reach alpha.
                    // Never against a mate or tablebase win: only a faster one beats it, and
                    // a quiet move that brings it is one no evaluation margin predicts.
                    if !in_check
                        && alpha < TB_WIN_BOUND
                        && lmr_depth <= 8
                        && static_eval.is_some_and(|e| {
                            e + params::futility_base() + params::futility_per_depth() * lmr_depth
                                <= alpha
                        })
                    {
                        picker.skip_quiets();
                        continue;
                    }
                    // History pruning: quiets that keep failing here.
                    if lmr_depth <= 4 && history < -params::history_prune_margin() * depth {
                        continue;
                    }
                    // SEE pruning of quiets that hang material.
                    if !self
                        .board
                        .see(mv, -params::see_quiet_margin() * lmr_depth * lmr_depth)
                    {
                        continue;
                    }
                } else if depth <= 8 && !self.board.see(mv, -params::see_noisy_margin() * depth) {
                    // SEE pruning of losing captures.
                    continue;
                }
            }

            // Extensions, none beyond twice the iteration's depth: a line of checks or singular
            // moves that kept its depth would otherwise run to MAX_PLY.
            let may_extend = ply < 2 * self.root_depth as usize;
            let mut extension = 0;
            if let Some(hit) = tt_hit.filter(|hit| {
                params::singular()
                    && !Node::ROOT
                    && may_extend
                    && Some(mv) == tt_move
                    && excluded.is_none()
                    && depth >= params::singular_min_depth()
                    && hit.depth >= depth - 3
                    && matches!(hit.bound, Bound::Lower | Bound::Exact)
                    && !is_decisive(hit.score)
            }) {
                // Singular extension: if every other move fails well below the table score,
                // the table move is the only good one and deserves more depth.
                let singular_beta = hit.score - depth;
                self.stack[ply].excluded = Some(mv);
                let value = self.negamax::<NonPv>(
                    shared,
                    singular_beta - 1,
                    singular_beta,
                    (depth - 1) / 2,
                    ply,
                    cut_node,
                    0,
                );
                self.stack[ply].excluded = None;
                if value < singular_beta {
                    extension = 1;
                    // Double extension, limited per path so the tree cannot explode.
                    if !Node::PV
                        && value < singular_beta - params::double_extension_margin()
                        && self.stack[ply].double_extensions < 6
                    {
                        extension = 2;
                    }
                } else if singular_beta >= beta {
                    // Multi-cut: several moves beat beta, so this node will too.
                    return singular_beta;
                } else if hit.score >= beta || cut_node {
                    // Negative extension: the table move is not alone in being good.
                    extension = -1;
                }
            }

            self.stack[ply + 1].double_extensions =
                self.stack[ply].double_extensions + i32::from(extension == 2);
            self.make_move(shared, mv, ply);
            // Check extension
            if params::check_extension() && extension == 0 && may_extend && self.board.in_check() {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;
            let nodes_before = self.nodes;
            moves_searched += 1;

            // Principal variation search: the first move with a full window, the rest with a
            // null window (reduced when late), re-searched only when they surprise.
            let mut value = -INFINITY;
            if params::lmr() && depth >= 3 && moves_searched > 1 + usize::from(Node::ROOT) {
                // Late-move reductions (LMR)
                let mut reduction = lmr_reduction(depth, moves_searched);
                reduction -= i32::from(Node::PV) + i32::from(tt_pv);
                reduction += i32::from(cut_node) * params::lmr_cut_node();
                reduction -= i32::from(improving);
                reduction -= i32::from(self.board.in_check());
                reduction -= history / params::lmr_history_divisor();
                let reduced = (new_depth - reduction).clamp(1, new_depth.max(1));
                value =
                    -self.negamax::<NonPv>(shared, -alpha - 1, -alpha, reduced, ply + 1, true, 0);
                if value > alpha && reduced < new_depth {
                    value = -self.negamax::<NonPv>(
                        shared,
                        -alpha - 1,
                        -alpha,
                        new_depth,
                        ply + 1,
                        !cut_node,
                        0,
                    );
                }
            } else if !Node::PV || moves_searched > 1 {
                value = -self.negamax::<NonPv>(
                    shared,
                    -alpha - 1,
                    -alpha,
                    new_depth,
                    ply + 1,
                    !cut_node,
                    0,
                );
            }
            if Node::PV && (moves_searched == 1 || value > alpha) {
                value = -self.negamax::<Pv>(shared, -beta, -alpha, new_depth, ply + 1, false, 0);
            }
            self.unmake_move(mv);

            if self.aborted(shared) {
                return DRAW;
            }

            if Node::ROOT {
                let seldepth = self.seldepth;
                let pv_tail = self.pv.line(ply + 1).to_vec();
                let rm = self
                    .root_moves
                    .iter_mut()
                    .find(|rm| rm.mv == mv)
                    .expect("searched root move is a root move");
                rm.nodes += self.nodes - nodes_before;
                if moves_searched == 1 || value > alpha {
                    rm.score = value;
                    rm.seldepth = seldepth;
                    rm.pv.truncate(1);
                    rm.pv.extend(pv_tail);
                } else {
                    rm.score = -INFINITY;
                }
            }

            if value > best_score {
                best_score = value;
                if value > alpha {
                    best_move = Some(mv);
                    if Node::PV && !Node::ROOT {
                        self.pv.update(ply, mv);
                    }
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
            if Some(mv) != best_move {
                if is_quiet {
                    let _ = quiets_tried.try_push(mv);
                } else {
                    let _ = noisy_tried.try_push(mv);
                }
            }
        }

        if moves_searched == 0 {
            return match excluded {
                Some(_) => alpha,
                // The tables call this PV node won and every move fell to pruning, which their
                // bound opened before any move was searched: a legal move exists, and the
                // tables' value stands.
                None if best_score > -INFINITY => best_score,
                None if in_check => mated_in(ply),
                None => DRAW,
            };
        }

        // A tablebase loss caps what the search found.
        best_score = best_score.min(max_score);

        if let Some(best) = best_move.filter(|_| best_score >= beta) {
            self.update_histories(
                best,
                depth,
                ply,
                &quiets_tried,
                &noisy_tried,
                &continuations,
            );
        }

        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_move.is_some() && Node::PV {
            Bound::Exact
        } else {
            Bound::Upper
        };

        // A later MultiPV line searched only the root moves not shown yet: its result is not the
        // position's, for the correction history or the table. (The first line's moves may be
        // only those of the tables' best rank, but they hold the position's best result.)
        let whole_position = !(Node::ROOT && pv_index > 0);

        // Correction history learns from quiet positions whose result disagrees with the static
        // eval; a tablebase result is no measure of the network's error.
        if let Some(static_eval) =
            static_eval.filter(|_| whole_position && !is_tb_result(best_score))
        {
            let best_is_quiet = best_move.is_none_or(|mv| !mv.is_noisy());
            let implausible = (bound == Bound::Lower && best_score <= static_eval)
                || (bound == Bound::Upper && best_score >= static_eval);
            if best_is_quiet && !implausible && excluded.is_none() {
                self.histories
                    .correction
                    .update(&self.board, depth, best_score - static_eval);
            }
        }

        if excluded.is_none() && whole_position {
            shared.tt.store(
                key, ply, best_move, best_score, raw_eval, depth, bound, tt_pv,
            );
        }
        best_score
    }

    /// The tablebases' result for this position, where the search probes it: few enough pieces
    /// (as many as the largest tables only from the probe depth on), just after a capture or
    /// pawn move, no castling rights.
    fn probe_wdl(&self, shared: &SharedContext, depth: i32) -> Option<Wdl> {
        let pieces = self.board.occupied().count() as usize;
        if pieces > self.tb_cardinality
            || (pieces == self.tb_cardinality && depth < shared.syzygy.probe_depth)
            || self.board.halfmove_clock() != 0
            || self.board.has_castling_rights()
        {
            return None;
        }
        let wdl = shared.syzygy.tables.as_ref()?.probe_wdl(&self.board)?;
        shared.tbhits.fetch_add(1, Relaxed);
        Some(wdl)
    }

    /// A cutoff rewards the move that caused it and penalises the moves tried before it.
    fn update_histories(
        &mut self,
        best: Move,
        depth: i32,
        ply: usize,
        quiets: &[Move],
        noisy: &[Move],
        continuations: &[Option<ContinuationKey>; 2],
    ) {
        let bonus = history_bonus(depth);
        let us = self.board.side_to_move();
        if best.is_noisy() {
            self.histories.capture.update(&self.board, best, bonus);
        } else {
            self.stack[ply].killer = Some(best);
            for (mv, delta) in
                std::iter::once((best, bonus)).chain(quiets.iter().map(|&mv| (mv, -bonus)))
            {
                let piece = self
                    .board
                    .piece_at(mv.from())
                    .expect("a move starts on a piece");
                self.histories.quiet.update(us, mv, delta);
                for &key in continuations.iter().flatten() {
                    self.histories.continuation.update(key, piece, mv, delta);
                }
            }
        }
        for &mv in noisy {
            self.histories.capture.update(&self.board, mv, -bonus);
        }
    }

    /// Quiescence search: only captures and promotions (all evasions in check) until the
    /// position is quiet, so the static evaluation is never taken mid-exchange.
    fn quiescence<Node: NodeType>(
        &mut self,
        shared: &SharedContext,
        mut alpha: Score,
        beta: Score,
        ply: usize,
    ) -> Score {
        self.visit_node(shared);
        if Node::PV {
            self.pv.clear(ply);
            self.seldepth = self.seldepth.max(ply + 1);
        }
        if self.aborted(shared) {
            return DRAW;
        }
        // The fifty-move rule too: a quiet move at depth 1 can complete the hundredth half-move.
        if self.board.is_draw() {
            return DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return self.max_ply_score(shared);
        }
        let in_check = self.board.in_check();

        let key = self.board.key();
        let tt_hit = shared.tt.probe(key, ply);
        if let Some(hit) = tt_hit {
            let usable = hit.cuts(alpha, beta);
            if !Node::PV && usable && self.board.halfmove_clock() < TABLE_CUTOFF_HALFMOVE_LIMIT {
                return hit.score;
            }
        }
        let tt_pv = tt_hit.is_some_and(|hit| hit.was_pv);

        // Stand pat: the side to move can usually do at least as well as doing nothing.
        let raw_eval;
        let mut best_score;
        if in_check {
            raw_eval = -INFINITY;
            best_score = -INFINITY;
        } else {
            raw_eval = self.raw_eval(shared, tt_hit);
            best_score = self.corrected(raw_eval);
            if let Some(hit) = tt_hit {
                best_score = hit.refine(best_score);
            }
            if best_score >= beta {
                if tt_hit.is_none() {
                    shared
                        .tt
                        .store(key, ply, None, best_score, raw_eval, 0, Bound::Lower, tt_pv);
                }
                return best_score;
            }
            alpha = alpha.max(best_score);
        }

        let mut picker = MovePicker::new_qsearch(&self.board, tt_hit.and_then(|hit| hit.mv));
        let continuations = self.continuation_keys(ply);
        let mut best_move = None;
        let mut moves_searched = 0;
        while let Some(mv) = picker.next(&self.board, &self.histories, &continuations) {
            shared.tt.prefetch(self.board.key_after(mv));
            if params::qsearch_pruning() && best_score > -TB_WIN_BOUND {
                // Under-promotions and losing captures are not worth resolving here.
                if mv
                    .promotion()
                    .is_some_and(|p| p != crate::types::PieceType::Queen)
                {
                    continue;
                }
                if !self.board.see(mv, 0) {
                    continue;
                }
            }
            self.make_move(shared, mv, ply);
            moves_searched += 1;
            let value = -self.quiescence::<Node>(shared, -beta, -alpha, ply + 1);
            self.unmake_move(mv);
            if self.aborted(shared) {
                return DRAW;
            }
            if value > best_score {
                best_score = value;
                if value > alpha {
                    best_move = Some(mv);
                    if Node::PV {
                        self.pv.update(ply, mv);
                    }
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
        }
        if in_check && moves_searched == 0 && best_score == -INFINITY {
            return mated_in(ply);
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        shared
            .tt
            .store(key, ply, best_move, best_score, raw_eval, 0, bound, tt_pv);
        best_score
    }
}

/// A tablebase result as a search value and the bound it is: a win is worth at least a
/// tablebase win (the search may still find a mate), a loss at most a tablebase loss. Under the
/// fifty-move rule a cursed win or blessed loss is a draw, a hair better or worse.
fn tablebase_value(wdl: Wdl, ply: usize, rule50: bool) -> (Score, Bound) {
    let draw_margin = i32::from(rule50);
    let wdl = wdl as i32;
    if wdl < -draw_margin {
        (-tb_win_in(ply), Bound::Upper)
    } else if wdl > draw_margin {
        (tb_win_in(ply), Bound::Lower)
    } else {
        (DRAW + 2 * wdl * draw_margin, Bound::Exact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursed_wins_and_blessed_losses_are_draws_only_under_the_fifty_move_rule() {
        let win = (tb_win_in(7), Bound::Lower);
        let loss = (-tb_win_in(7), Bound::Upper);
        let draw = (DRAW, Bound::Exact);
        assert_eq!(tablebase_value(Wdl::Win, 7, true), win);
        assert_eq!(
            tablebase_value(Wdl::CursedWin, 7, true),
            (DRAW + 2, Bound::Exact)
        );
        assert_eq!(tablebase_value(Wdl::Draw, 7, true), draw);
        assert_eq!(
            tablebase_value(Wdl::BlessedLoss, 7, true),
            (DRAW - 2, Bound::Exact)
        );
        assert_eq!(tablebase_value(Wdl::Loss, 7, true), loss);
        assert_eq!(tablebase_value(Wdl::Win, 7, false), win);
        assert_eq!(tablebase_value(Wdl::CursedWin, 7, false), win);
        assert_eq!(tablebase_value(Wdl::Draw, 7, false), draw);
        assert_eq!(tablebase_value(Wdl::BlessedLoss, 7, false), loss);
        assert_eq!(tablebase_value(Wdl::Loss, 7, false), loss);
        // Beyond any evaluation, short of any mate, and sooner is better.
        assert!((TB_WIN_BOUND..MATE_BOUND).contains(&win.0));
        assert!(tablebase_value(Wdl::Win, 3, true).0 > win.0);
    }

    /// Late moves at depth are reduced more: never the first moves at the shallowest depths,
    /// more with every further move or ply (the table saturates at 63 of either).
    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        assert_eq!(lmr_reduction(1, 1), 0);
        assert_eq!(lmr_reduction(0, 40), 0);
        for depth in 1..64 {
            for moves in 1..64 {
                let r = lmr_reduction(depth, moves);
                assert!(
                    r >= lmr_reduction(depth - 1, moves),
                    "depth {depth}, move {moves}"
                );
                assert!(
                    r >= lmr_reduction(depth, moves - 1),
                    "depth {depth}, move {moves}"
                );
            }
        }
        assert!(lmr_reduction(20, 30) > lmr_reduction(5, 3));
        assert_eq!(lmr_reduction(200, 500), lmr_reduction(63, 63));
    }

    /// SPSA sets the LMR parameters between searches: they must apply at once.
    #[cfg(feature = "tune")]
    #[test]
    fn tuned_lmr_parameters_apply_at_once() {
        let default = params::lmr_divisor();
        let before = lmr_reduction(20, 30);
        // A smaller divisor reduces more: 0.77 + ln 20 · ln 30 / 1.5 = 7.56.
        assert!(params::set("lmr_divisor", 150));
        assert_eq!(lmr_reduction(20, 30), 7);
        assert!(lmr_reduction(20, 30) > before);
        assert!(params::set("lmr_divisor", default));
    }
}
