//! `datagen validate`: replays every game on viriformat's board and on ours, move by move,
//! and checks that the result agrees with how the game ended.
//!
//! A game ends either by the rules (the final position is mate, stalemate or a rules draw,
//! and the result must match) or by adjudication (no rules ending; a win must then follow a
//! last score in the winner's favour). A rules ending before the last move is an error: play
//! should have stopped there.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use clap::Parser;
use patina::{Board, Outcome};
use viriformat::dataformat::Game;

use crate::gamefile::{collect_inputs, GameReader, ReadError, StoredGame};
use crate::record::{from_viri_move, GameResult};
use crate::selfplay::rules_result;

#[derive(Parser, Debug)]
pub struct ValidateArgs {
    /// Game files, or directories of `.vf` files.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

/// How a game finished.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Ending {
    Rules(Outcome),
    AdjudicatedWin,
    AdjudicatedDraw,
}

#[derive(Debug, Default)]
pub struct Report {
    pub files: usize,
    pub games: u64,
    pub positions: u64,
    pub endings: BTreeMap<Ending, u64>,
    /// Adjudicated wins whose last score did not favour the winner: a loss on time or a
    /// resignation in imported games; in self-play, a tablebase adjudication (`--syzygy`) just
    /// after the loser's mistake, else a bug.
    pub unexplained_wins: u64,
    pub torn_bytes: u64,
    pub errors: u64,
    pub first_error: Option<String>,
}

impl Report {
    fn error(&mut self, message: String) {
        self.errors += 1;
        self.first_error.get_or_insert(message);
    }

    pub fn report(&self) -> String {
        let mut text = format!(
            "{} files, {} games, {} positions\nendings:\n",
            self.files, self.games, self.positions
        );
        for (ending, count) in &self.endings {
            let name = match ending {
                Ending::Rules(outcome) => format!("{outcome:?}"),
                other => format!("{other:?}"),
            };
            writeln!(text, "  {name:>22} {count}").expect("writing to a String");
        }
        if self.unexplained_wins > 0 {
            writeln!(
                text,
                "{} adjudicated wins against the last score",
                self.unexplained_wins
            )
            .expect("writing to a String");
        }
        if self.torn_bytes > 0 {
            writeln!(
                text,
                "{} bytes of torn final games skipped (a resumed run removes them)",
                self.torn_bytes
            )
            .expect("writing to a String");
        }
        match &self.first_error {
            Some(first) => write!(text, "{} errors; first: {first}", self.errors),
            None => write!(text, "no errors"),
        }
        .expect("writing to a String");
        text
    }
}

pub fn run(inputs: &[PathBuf]) -> Result<Report, ReadError> {
    let mut report = Report::default();
    for path in collect_inputs(inputs)? {
        report.files += 1;
        let mut reader = GameReader::open(&path)?;
        loop {
            match reader.next_game() {
                Ok(Some(stored)) => check_game(&path, &stored, &mut report),
                Ok(None) => break,
                Err(e @ ReadError::IllegalMove { .. }) => report.error(e.to_string()),
                Err(e @ ReadError::Corrupt { .. }) => {
                    report.error(e.to_string());
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        report.torn_bytes += reader.torn_bytes();
    }
    Ok(report)
}

fn check_game(path: &Path, stored: &StoredGame, report: &mut Report) {
    report.games += 1;
    report.positions += stored.game.len() as u64;
    let at = |ply: usize| {
        format!(
            "{}, game at offset {}, ply {ply}",
            path.display(),
            stored.offset
        )
    };
    match replay(&stored.game, stored.start.clone()) {
        Ok(ending) => {
            *report.endings.entry(ending).or_default() += 1;
            let result = GameResult::from_wdl(stored.game.outcome());
            let last_score = stored.game.moves.last().map_or(0, |(_, s)| s.get());
            let favours_winner = match result {
                GameResult::WhiteWin => last_score > 0,
                GameResult::BlackWin => last_score < 0,
                GameResult::Draw => true,
            };
            if ending == Ending::AdjudicatedWin && !favours_winner {
                report.unexplained_wins += 1;
            }
        }
        Err((ply, message)) => report.error(format!("{}: {message}", at(ply))),
    }
}

/// Plays the game through on both boards; the failing ply and why, if any.
fn replay(game: &Game, mut board: Board) -> Result<Ending, (usize, String)> {
    let mut viri = game.initial_position();
    for (ply, viri_move) in game.moves().enumerate() {
        if let Some(outcome) = board.outcome() {
            return Err((ply, format!("moves continue after {outcome:?}")));
        }
        let Some(mv) = from_viri_move(&board, viri_move) else {
            return Err((ply, format!("patina finds {viri_move:?} illegal")));
        };
        board.make_move(mv);
        viri.make_move_simple(viri_move);
        if board.occupied().0 != viri.pieces.occupied().inner() {
            return Err((ply, "the two boards disagree after the move".into()));
        }
    }
    let result = GameResult::from_wdl(game.outcome());
    Ok(match board.outcome() {
        Some(outcome) if rules_result(outcome, board.side_to_move()) == result => {
            Ending::Rules(outcome)
        }
        Some(outcome) => {
            return Err((
                game.len(),
                format!("ends in {outcome:?} but the result is {result:?}"),
            ))
        }
        None if result == GameResult::Draw => Ending::AdjudicatedDraw,
        None => Ending::AdjudicatedWin,
    })
}
