//! One game in the browser as the server keeps it: the moves, the clocks, whose side the person
//! plays, and Patina's latest evaluation of each position. `games` runs the searches that change
//! it; `view` draws it.

use std::time::{Duration, Instant};

use patina::score::Score;
use patina::{Color, Move};

use super::api::ApiError;
use crate::clock::Clock;
use crate::game::Game;
use crate::rating::Rating;

pub(super) struct State {
    pub(super) game: Game,
    pub(super) human: Color,
    pub(super) timing: Timing,
    /// Patina's playing strength for its own moves; evaluations, hints and analysis are at full
    /// strength.
    pub(super) rating: Rating,
    /// In analysis, the number of moves played to the position analysed. Patina then plays no
    /// move, the person moves for both sides, and the clocks stand still.
    pub(super) analysed: Option<usize>,
    pub(super) search: Option<Task>,
    /// Patina's latest evaluation of the position after each number of moves.
    pub(super) evaluations: Vec<Option<Evaluation>>,
    pub(super) last_seen: Instant,
}

/// What bounds Patina's thinking: a fixed time a move, or its clock.
pub(super) enum Timing {
    MoveTime(Duration),
    Clock(Clock),
}

/// What the running search is for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Task {
    /// Patina's move, played when the search ends.
    Reply,
    /// An evaluation of a position, nothing played.
    Evaluate,
}

/// A search's report on one position.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Evaluation {
    pub(super) depth: i32,
    /// From the view of the side to move in that position.
    pub(super) score: Score,
    pub(super) nodes: u64,
    pub(super) pv: Vec<Move>,
}

impl Evaluation {
    /// The evaluation of the position after the line's first move: the rest of the line.
    fn after_first_move(&self) -> Self {
        Self {
            depth: (self.depth - 1).max(1),
            score: -self.score,
            nodes: self.nodes,
            pv: self.pv[1..].to_vec(),
        }
    }
}

impl State {
    pub(super) fn clock_mut(&mut self) -> Option<&mut Clock> {
        match &mut self.timing {
            Timing::Clock(clock) => Some(clock),
            Timing::MoveTime(_) => None,
        }
    }

    /// Marks the game as seen now and ends it if a clock has run out.
    pub(super) fn touch(&mut self) {
        let now = Instant::now();
        self.last_seen = now;
        if let Some(clock) = self.clock_mut() {
            if let Some(flagged) = clock.flagged(now) {
                clock.stop(now);
                self.game.flag(flagged);
            }
        }
    }

    /// Refuses a move (or a hint) from the person unless it is theirs to make.
    pub(super) fn check_may_move(&self) -> Result<(), ApiError> {
        if let Some(end) = self.game.end() {
            return Err(ApiError::conflict(format!("the game is over ({end})")));
        }
        if self.analysed.is_none() && self.game.side_to_move() != self.human {
            return Err(ApiError::conflict("it is not your move"));
        }
        Ok(())
    }

    /// After a move or a resignation: the clocks stop at the end, and in analysis the position
    /// analysed follows the game.
    pub(super) fn after_move(&mut self, now: Instant) {
        if self.game.is_over() {
            if let Some(clock) = self.clock_mut() {
                clock.stop(now);
            }
        }
        if self.analysed.is_some() {
            self.analysed = Some(self.game.moves().len());
        }
    }

    /// Runs the clock of the side to move, unless the game is over or in analysis.
    pub(super) fn start_clock(&mut self, now: Instant) {
        let side_to_move = self.game.side_to_move();
        let runs = !self.game.is_over() && self.analysed.is_none();
        if let Some(clock) = self.clock_mut().filter(|_| runs) {
            clock.start(side_to_move, now);
        }
    }

    pub(super) fn set_evaluation(&mut self, ply: usize, evaluation: Option<Evaluation>) {
        if self.evaluations.len() <= ply {
            self.evaluations.resize(ply + 1, None);
        }
        self.evaluations[ply] = evaluation;
    }

    /// Plays Patina's move from the search of the position after `ply` moves, if the game is
    /// still there and Patina's time has not run out.
    pub(super) fn reply(&mut self, ply: usize, best: Option<Move>) {
        let Some(mv) = best else { return };
        if self.game.is_over() || self.game.moves().len() != ply {
            return;
        }
        let now = Instant::now();
        if let Some(Err(flagged)) = self.clock_mut().map(|clock| clock.press(now)) {
            self.game.flag(flagged);
            return;
        }
        // `play` refuses a move the position does not allow.
        if self.game.play(mv).is_ok() {
            // The line searched before the move evaluates the position after it.
            let next = self.evaluations.get(ply).cloned().flatten();
            let next = next.filter(|e| e.pv.first() == Some(&mv));
            self.set_evaluation(ply + 1, next.map(|e| e.after_first_move()));
            self.after_move(now);
        }
    }
}
