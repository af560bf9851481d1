//! The search: iterative deepening with aspiration windows around a PVS alpha-beta search
//! (`alphabeta.rs`), move ordering (`movepick.rs`) and learned statistics (`history.rs`), run
//! by each thread on its own `ThreadData` (`thread_data.rs`) over a `SharedContext` (`shared.rs`).
//! `smp.rs` starts the threads (Lazy SMP) and picks the move to play; the main thread's
//! `TimeManager` (`time.rs`) says when to stop. The tablebases rank the root moves
//! (`root_moves.rs`) first where they know the root. A limited strength (`strength.rs`) caps
//! the nodes and draws the move played from the best few lines.

mod alphabeta;
pub mod history;
mod iterate;
mod movepick;
pub mod params;
mod root_moves;
mod shared;
pub mod smp;
pub mod strength;
mod thread_data;
mod time;

use std::time::{Duration, Instant};

use crate::types::{Color, Move, Score};

pub use root_moves::RootMove;
pub use shared::SharedContext;
pub use thread_data::ThreadData;
pub use time::DEFAULT_MOVE_OVERHEAD;

/// What to search and when to stop: the content of a UCI `go`.
#[derive(Clone, Debug)]
pub struct Limits {
    pub start: Instant,
    pub depth: Option<i32>,
    /// Stop once this many nodes are searched (exact with one thread).
    pub nodes: Option<u64>,
    /// Finish the current iteration past this many nodes, then stop (datagen's budget).
    pub soft_nodes: Option<u64>,
    pub movetime: Option<Duration>,
    /// Remaining clock and increment, indexed by colour.
    pub time: [Option<Duration>; 2],
    pub increment: [Option<Duration>; 2],
    pub moves_to_go: Option<u32>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub search_moves: Vec<Move>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            start: Instant::now(),
            depth: None,
            nodes: None,
            soft_nodes: None,
            movetime: None,
            time: [None; 2],
            increment: [None; 2],
            moves_to_go: None,
            mate: None,
            infinite: false,
            ponder: false,
            search_moves: Vec::new(),
        }
    }
}

impl Limits {
    /// Whether a search for `us` ends without `stop`: some depth, node or time limit applies,
    /// or `us` has a clock (the opponent's clock alone limits nothing; `go mate` alone may never
    /// find its mate).
    pub fn ends_by_itself(&self, us: Color) -> bool {
        !self.infinite
            && (self.depth.is_some()
                || self.nodes.is_some()
                || self.soft_nodes.is_some()
                || self.movetime.is_some()
                || self.time[us.index()].is_some())
    }

    pub fn depth(depth: i32) -> Self {
        Self {
            depth: Some(depth),
            ..Self::default()
        }
    }

    pub fn nodes(nodes: u64) -> Self {
        Self {
            nodes: Some(nodes),
            ..Self::default()
        }
    }
}

/// Bound of a reported score: exact, or the result of a failed aspiration window.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ScoreBound {
    Exact,
    Lower,
    Upper,
}

/// One line of search progress, as the main thread reports it after an iteration (or a
/// failed aspiration window).
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: Score,
    /// The score is the tablebases' (they ranked the root moves): exact, whatever `bound` the
    /// search's window gave, and its result certain.
    pub tablebase: bool,
    pub bound: ScoreBound,
    pub nodes: u64,
    pub tbhits: u64,
    pub elapsed: Duration,
    pub hashfull: usize,
    pub pv: Vec<Move>,
}

/// Receives search progress; UCI prints it, datagen and bench ignore it.
pub trait Reporter {
    fn report(&mut self, info: &SearchInfo);

    /// A problem the search met and worked around (a tablebase file that cannot be read).
    fn warn(&mut self, _message: &str) {}
}

/// Discards progress reports.
pub struct Silent;

impl Reporter for Silent {
    fn report(&mut self, _: &SearchInfo) {}
}

#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// `None` only when the side to move has no legal move.
    pub best_move: Option<Move>,
    pub ponder_move: Option<Move>,
    pub score: Score,
    pub nodes: u64,
}
