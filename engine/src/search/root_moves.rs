//! The root moves: the legal moves at the root (those of `searchmoves` if any), each with what
//! the search learned about it. Iterative deepening keeps them best first.

use crate::types::score::{self, Score, INFINITY};
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
