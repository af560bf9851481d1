//! The root moves: the legal moves at the root (those of `searchmoves` if any), each with what
//! the search learned about it. Iterative deepening keeps them best first. Before it starts, the
//! tablebases rank them where they know the root (`rank_by_tablebases`).

use crate::board::{Board, Outcome};
use crate::syzygy::{SyzygyConfig, Tablebases, Wdl};
use crate::types::score::{self, tb_win_in, Score, DRAW, INFINITY};
use crate::types::Move;

/// A legal move at the root with what the search learned about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    /// Score in the current iteration, or -INFINITY if not searched (yet) in it.
    pub score: Score,
    pub previous_score: Score,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    /// Nodes spent below this move in this search: how contested the choice is.
    pub nodes: u64,
    /// The tablebases' verdict at the root: moves of a higher rank keep a better result.
    pub tb_rank: i32,
    /// Order within a rank: the DTZ (the fastest win first, the slowest loss first).
    pub tb_order: i32,
    /// The score the tablebases give this move, shown unless the search finds a mate.
    pub tb_score: Option<Score>,
}

impl RootMove {
    pub fn new(mv: Move) -> Self {
        Self {
            mv,
            score: -INFINITY,
            previous_score: -INFINITY,
            pv: vec![mv],
            seldepth: 0,
            nodes: 0,
            tb_rank: 0,
            tb_order: 0,
            tb_score: None,
        }
    }

    /// The score to show: this iteration's, or the last one's if this move is not searched yet;
    /// the tablebases' score where they know it and the search found no mate.
    pub fn display_score(&self) -> Score {
        self.tablebase_score()
            .unwrap_or_else(|| self.searched_score())
    }

    /// The tablebases' score, when it is the one shown.
    pub fn tablebase_score(&self) -> Option<Score> {
        self.tb_score
            .filter(|_| !score::is_mate(self.searched_score()))
    }

    fn searched_score(&self) -> Score {
        if self.score == -INFINITY {
            self.previous_score
        } else {
            self.score
        }
    }
}

/// Root ranks apart by more than any DTZ plus a half-move clock.
const MAX_DTZ: i32 = 1 << 18;

/// Ranks the root moves by the tables' result, best first (by DTZ where the DTZ tables are
/// there, else by WDL), each with the score to show; the search looks at one rank at a time,
/// so the move played always keeps the best result. Returns the most pieces the search
/// should probe: none once DTZ ranked the moves (they are equal as far as the tables go) or
/// when the root is not won.
pub fn rank_by_tablebases(
    syzygy: &SyzygyConfig,
    board: &Board,
    root_moves: &mut [RootMove],
) -> usize {
    let cardinality = syzygy.cardinality();
    let Some(tables) = &syzygy.tables else {
        return cardinality;
    };
    if root_moves.is_empty()
        || board.occupied().count() as usize > cardinality
        || board.has_castling_rights()
    {
        return cardinality;
    }
    let by_dtz = rank_by_dtz(tables, board, root_moves, syzygy.rule50);
    if !by_dtz && !rank_by_wdl(tables, board, root_moves, syzygy.rule50) {
        for rm in root_moves.iter_mut() {
            rm.tb_rank = 0;
            rm.tb_score = None;
        }
        return cardinality;
    }
    // Stable: within a rank the order of `tb_order` (the fastest win, the slowest loss).
    root_moves.sort_by_key(|rm| (std::cmp::Reverse(rm.tb_rank), rm.tb_order));
    let best = root_moves[0].tb_rank;
    if by_dtz || best <= 0 {
        0
    } else {
        cardinality
    }
}

/// Ranks by distance to zeroing. Wins rank by it, the fastest first: each move then brings
/// the zeroing move nearer, and a win the fifty-move rule allows stays one (a search free to
/// choose among wins could walk in circles into a repetition). Losses rank equal, so the
/// search picks the hardest to win against, unless the fifty-move rule could save one.
fn rank_by_dtz(
    tables: &Tablebases,
    board: &Board,
    root_moves: &mut [RootMove],
    rule50: bool,
) -> bool {
    let clock = i32::from(board.halfmove_clock());
    let mut child = board.clone();
    for rm in root_moves.iter_mut() {
        child.make_move(rm.mv);
        let dtz = if child.halfmove_clock() == 0 {
            tables.probe_wdl(&child).map(|wdl| match wdl.flip() {
                Wdl::Win => 1,
                Wdl::CursedWin => 101,
                Wdl::Draw => 0,
                Wdl::BlessedLoss => -101,
                Wdl::Loss => -1,
            })
        } else if let Some(outcome) = child.outcome() {
            // Mate or a draw by the rules, repetition included.
            Some(i32::from(outcome == Outcome::Checkmate))
        } else {
            // One ply further from the root than from the child.
            tables.probe_dtz(&child).map(|dtz| -dtz - dtz.signum())
        };
        child.unmake_move(rm.mv);
        let Some(dtz) = dtz else {
            return false;
        };
        rm.tb_order = dtz;
        rm.tb_rank = if dtz > 0 {
            MAX_DTZ - (dtz + clock)
        } else if dtz < 0 {
            if -2 * dtz + clock < 100 {
                -MAX_DTZ
            } else {
                -MAX_DTZ + (-dtz + clock)
            }
        } else {
            0
        };
        rm.tb_score = Some(rank_score(rm.tb_rank, rule50));
    }
    true
}

/// Ranks by the result alone, for tables without their DTZ files. A child's result is read
/// as if its move had reset the half-move clock, as Stockfish reads it: without DTZ the
/// tables cannot say whether a win comes before the fifty-move rule ends the game, so late
/// in a long ending a win shown may be one the rule spoils.
fn rank_by_wdl(
    tables: &Tablebases,
    board: &Board,
    root_moves: &mut [RootMove],
    rule50: bool,
) -> bool {
    let mut child = board.clone();
    for rm in root_moves.iter_mut() {
        child.make_move(rm.mv);
        let wdl = match child.outcome() {
            Some(Outcome::Checkmate) => Some(Wdl::Win),
            // A draw by the rules, repetition included, whatever the material.
            Some(_) => Some(Wdl::Draw),
            None => tables.probe_wdl(&child).map(Wdl::flip),
        };
        child.unmake_move(rm.mv);
        let Some(wdl) = wdl else {
            return false;
        };
        rm.tb_order = 0;
        rm.tb_rank = match wdl {
            Wdl::Win => MAX_DTZ,
            Wdl::CursedWin if !rule50 => MAX_DTZ,
            Wdl::CursedWin => MAX_DTZ - 101,
            Wdl::Draw => 0,
            Wdl::BlessedLoss if !rule50 => -MAX_DTZ,
            Wdl::BlessedLoss => -MAX_DTZ + 101,
            Wdl::Loss => -MAX_DTZ,
        };
        rm.tb_score = Some(rank_score(rm.tb_rank, rule50));
    }
    true
}

/// The score shown for a root move of this rank: a tablebase win or loss, or for a result
/// the fifty-move rule spoils a small edge that grows as the real win comes nearer.
fn rank_score(rank: i32, rule50: bool) -> Score {
    let bound = if rule50 { MAX_DTZ - 100 } else { 1 };
    if rank >= bound {
        tb_win_in(1)
    } else if rank > 0 {
        (rank - (MAX_DTZ - 200)).max(3) / 2
    } else if rank == 0 {
        DRAW
    } else if rank > -bound {
        (rank + (MAX_DTZ - 200)).min(-3) / 2
    } else {
        -tb_win_in(1)
    }
}
