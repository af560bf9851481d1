//! Staged move ordering: the transposition-table move first (often a cutoff without generating
//! anything), then winning captures, the killer, quiets by history, and losing captures last.

use arrayvec::ArrayVec;

use super::history::{ContinuationKey, Histories};
use crate::board::{Board, MoveList, SEE_VALUES};
use crate::types::Move;

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TtMove,
    GenerateNoisy,
    GoodNoisy,
    Killer,
    GenerateQuiet,
    Quiet,
    BadNoisy,
    Done,
}

pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killer: Option<Move>,
    /// The stage's moves and, index for index, their scores: kept apart so that finding the best
    /// score is a vectorised scan of the scores alone.
    moves: MoveList,
    scores: ArrayVec<i32, 256>,
    bad_noisy: ArrayVec<Move, 256>,
    index: usize,
    /// Quiescence search: noisy moves only (unless in check, where every evasion counts).
    noisy_only: bool,
    skip_quiets: bool,
}

impl MovePicker {
    pub fn new(board: &Board, tt_move: Option<Move>, killer: Option<Move>) -> Self {
        Self::build(board, tt_move, killer, false)
    }

    pub fn new_qsearch(board: &Board, tt_move: Option<Move>) -> Self {
        let noisy_only = !board.in_check();
        Self::build(
            board,
            tt_move.filter(|mv| !noisy_only || mv.is_noisy()),
            None,
            noisy_only,
        )
    }

    fn build(board: &Board, tt_move: Option<Move>, killer: Option<Move>, noisy_only: bool) -> Self {
        let tt_move = tt_move.filter(|&mv| board.is_legal(mv));
        let killer =
            killer.filter(|&mv| Some(mv) != tt_move && !mv.is_noisy() && board.is_legal(mv));
        Self {
            stage: Stage::TtMove,
            tt_move,
            killer,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            bad_noisy: ArrayVec::new(),
            index: 0,
            noisy_only,
            skip_quiets: false,
        }
    }

    /// Late-move pruning: no more quiet moves from here on (captures still come).
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    pub fn next(
        &mut self,
        board: &Board,
        histories: &Histories,
        continuations: &[Option<ContinuationKey>; 2],
    ) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenerateNoisy;
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::GenerateNoisy => {
                    self.moves.clear();
                    board.generate_noisy(&mut self.moves);
                    self.score(|mv| {
                        let victim = board
                            .captured_piece(mv)
                            .map_or(0, |p| SEE_VALUES[p.piece_type().index()]);
                        let promotion = mv.promotion().map_or(0, |p| SEE_VALUES[p.index()]);
                        16 * (victim + promotion) + histories.capture.get(board, mv)
                    });
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => match self.select_best() {
                    Some(mv) if self.noisy_only || board.see(mv, 0) => return Some(mv),
                    Some(mv) => self.bad_noisy.push(mv),
                    None => {
                        self.stage = if self.noisy_only {
                            Stage::Done
                        } else {
                            Stage::Killer
                        };
                    }
                },
                Stage::Killer => {
                    self.stage = Stage::GenerateQuiet;
                    if !self.skip_quiets && self.killer.is_some() {
                        return self.killer;
                    }
                }
                Stage::GenerateQuiet => {
                    self.moves.clear();
                    if !self.skip_quiets {
                        board.generate_quiet(&mut self.moves);
                    }
                    let us = board.side_to_move();
                    self.score(|mv| {
                        let piece = board.piece_at(mv.from()).expect("a move starts on a piece");
                        histories.quiet_score(us, piece, mv, continuations)
                    });
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => match self.select_best() {
                    Some(mv) if !self.skip_quiets => return Some(mv),
                    _ => {
                        self.stage = Stage::BadNoisy;
                        self.index = 0;
                    }
                },
                Stage::BadNoisy => {
                    let mv = self.bad_noisy.get(self.index).copied();
                    self.index += 1;
                    if mv.is_none() {
                        self.stage = Stage::Done;
                    }
                    return mv;
                }
                Stage::Done => return None,
            }
        }
    }

    /// Scores the generated moves, leaving out those already tried in an earlier stage.
    fn score(&mut self, score: impl Fn(Move) -> i32) {
        let (tt_move, killer) = (self.tt_move, self.killer);
        self.moves
            .retain(|mv| Some(*mv) != tt_move && Some(*mv) != killer);
        self.scores.clear();
        self.scores.extend(self.moves.iter().map(|&mv| score(mv)));
        self.index = 0;
    }

    /// Selection sort, one step at a time: cutoffs usually come before the list is sorted. Of
    /// equal scores the last is taken.
    fn select_best(&mut self) -> Option<Move> {
        let rest = self
            .scores
            .get(self.index..)
            .filter(|rest| !rest.is_empty())?;
        // A fold with `i32::max` vectorises; `Iterator::max` does not.
        let max = rest.iter().copied().fold(i32::MIN, i32::max);
        let best = self.index + rest.iter().rposition(|&s| s == max)?;
        self.scores.swap(self.index, best);
        self.moves.swap(self.index, best);
        self.index += 1;
        Some(self.moves[self.index - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The picker yields every legal move exactly once, whatever the hints.
    #[test]
    fn yields_each_legal_move_once() {
        let histories = Histories::default();
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
        ] {
            let board = Board::from_fen(fen).unwrap();
            let legal = board.legal_moves();
            let hints = [None, Some(legal[0]), Some(legal[legal.len() - 1])];
            for tt_move in hints {
                for killer in hints {
                    let mut picker = MovePicker::new(&board, tt_move, killer);
                    let mut seen = Vec::new();
                    while let Some(mv) = picker.next(&board, &histories, &[None, None]) {
                        assert!(!seen.contains(&mv), "{mv} twice in {fen}");
                        seen.push(mv);
                    }
                    assert_eq!(seen.len(), legal.len(), "{fen}");
                }
            }
        }
    }
}
