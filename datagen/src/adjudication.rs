//! Ending self-play games early once the result is clear: positions after that teach the net
//! little and cost as much to generate as any other. The scores settle most games; Syzygy
//! tables, where given, settle the endgames they hold exactly.

use clap::Args;
use patina::score::Score;
use patina::{Board, Tablebases, Wdl};

use crate::record::GameResult;

// Zero plies or a win score of zero would end every game after its first move, so the
// command line refuses them.
#[derive(Args, Clone, Debug)]
pub struct AdjudicationSettings {
    /// Adjudicate a win once the scores are beyond this (network units, White's view)…
    #[arg(long, default_value_t = 2500, value_parser = clap::value_parser!(Score).range(1..))]
    pub win_score: Score,
    /// …for this many consecutive plies (an even number has both sides' searches agree).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub win_plies: u32,
    /// Adjudicate a draw once scores stay within ±this…
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(Score).range(0..))]
    pub draw_score: Score,
    /// …for this many consecutive plies…
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..))]
    pub draw_plies: u32,
    /// …from this full move on.
    #[arg(long, default_value_t = 40)]
    pub draw_move: u16,
    /// Syzygy tables (directories separated as in PATH): a game ends with their result once
    /// a capture or pawn move reaches them. The positions' scores stay the search's.
    #[arg(long)]
    pub syzygy: Option<String>,
}

/// The tables' result for a game at `board`, under the fifty-move rule: only just after a
/// capture or pawn move, where the WDL tables are exact.
pub fn tablebase_result(tables: &Tablebases, board: &Board) -> Option<GameResult> {
    if board.halfmove_clock() != 0 {
        return None;
    }
    let us = board.side_to_move();
    match tables.probe_wdl(board)? {
        Wdl::Win => Some(GameResult::win(us)),
        Wdl::Loss => Some(GameResult::win(!us)),
        Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => Some(GameResult::Draw),
    }
}

/// Counts how long the scores have agreed on a result.
pub struct Adjudicator<'a> {
    settings: &'a AdjudicationSettings,
    white_winning: u32,
    black_winning: u32,
    drawn: u32,
}

impl<'a> Adjudicator<'a> {
    pub fn new(settings: &'a AdjudicationSettings) -> Self {
        Self {
            settings,
            white_winning: 0,
            black_winning: 0,
            drawn: 0,
        }
    }

    /// Takes the score (White's view) of the position searched at `fullmove`; returns the
    /// result once the scores have settled it.
    pub fn update(&mut self, white_score: Score, fullmove: u16) -> Option<GameResult> {
        let s = self.settings;
        let streak = |count: u32, holds: bool| if holds { count + 1 } else { 0 };
        self.white_winning = streak(self.white_winning, white_score >= s.win_score);
        self.black_winning = streak(self.black_winning, white_score <= -s.win_score);
        self.drawn = streak(
            self.drawn,
            white_score.abs() <= s.draw_score && fullmove >= s.draw_move,
        );
        if self.white_winning >= s.win_plies {
            Some(GameResult::WhiteWin)
        } else if self.black_winning >= s.win_plies {
            Some(GameResult::BlackWin)
        } else if self.drawn >= s.draw_plies {
            Some(GameResult::Draw)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> AdjudicationSettings {
        AdjudicationSettings {
            win_score: 2500,
            win_plies: 4,
            draw_score: 10,
            draw_plies: 12,
            draw_move: 40,
            syzygy: None,
        }
    }

    #[test]
    fn a_win_needs_consecutive_agreement() {
        let settings = settings();
        let mut adjudicator = Adjudicator::new(&settings);
        for score in [3000, 2600, -100, 2500, 2700, 2900] {
            assert_eq!(adjudicator.update(score, 20), None);
        }
        assert_eq!(adjudicator.update(2501, 21), Some(GameResult::WhiteWin));
        let mut adjudicator = Adjudicator::new(&settings);
        let verdicts: Vec<_> = (0..4).map(|_| adjudicator.update(-30_000, 5)).collect();
        assert_eq!(verdicts[3], Some(GameResult::BlackWin));
    }

    #[test]
    fn a_draw_needs_quiet_scores_late_in_the_game() {
        let settings = settings();
        let mut adjudicator = Adjudicator::new(&settings);
        for _ in 0..30 {
            assert_eq!(adjudicator.update(0, 39), None);
        }
        for _ in 0..11 {
            assert_eq!(adjudicator.update(-10, 40), None);
        }
        assert_eq!(adjudicator.update(5, 46), Some(GameResult::Draw));
    }

    #[test]
    fn tables_settle_endgames_just_after_a_capture() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/tests/syzygy");
        let tables = Tablebases::open(dir).expect("the engine's test tables");
        let result = |fen: &str| tablebase_result(&tables, &Board::from_fen(fen).expect("FEN"));
        assert_eq!(
            result("8/8/8/4k3/8/8/8/KQ6 b - - 0 1"),
            Some(GameResult::WhiteWin)
        );
        assert_eq!(
            result("8/8/8/4K3/8/8/8/kq6 w - - 0 1"),
            Some(GameResult::BlackWin)
        );
        assert_eq!(
            result("8/8/8/8/4k3/8/3KP3/8 w - - 0 1"),
            Some(GameResult::Draw)
        );
        // Not just after a zeroing move, or beyond the tables: the game goes on.
        assert_eq!(result("8/8/8/4k3/8/8/8/KQ6 b - - 1 1"), None);
        assert_eq!(result("8/8/8/4k3/8/8/2PP4/KQ6 b - - 0 1"), None);
    }
}
