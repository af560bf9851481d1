//! One self-play game: a random opening kept only if a search finds it balanced, then a
//! fixed-node search per move until the rules or the adjudicator end the game.

use patina::openings::{OpeningSource, MAX_OPENING_ATTEMPTS};
use patina::score::Score;
use patina::Color;
use patina::Engine;
use patina::Outcome;
use patina::{Limits, Silent, Tablebases};
use rand_xoshiro::Xoshiro256PlusPlus;
use thiserror::Error;

use crate::adjudication::{tablebase_result, AdjudicationSettings, Adjudicator};
use crate::record::{GameRecord, GameResult};

#[derive(Debug, Error)]
pub enum SelfPlayError {
    #[error(
        "{MAX_OPENING_ATTEMPTS} openings in a row were finished games or scored beyond ±{0} cp; \
         raise --max-opening-score or use another net or book"
    )]
    NoBalancedOpening(Score),
}

pub struct SelfPlaySettings<'a> {
    pub openings: OpeningSource<'a>,
    /// Search budget per move: finish the iteration that passes `soft_nodes`, never pass
    /// `hard_nodes`.
    pub soft_nodes: u64,
    pub hard_nodes: u64,
    pub max_opening_score: Score,
    pub adjudication: AdjudicationSettings,
    /// The tables of `--syzygy`, opened once for every worker.
    pub tablebases: Option<Tablebases>,
}

impl SelfPlaySettings<'_> {
    fn limits(&self) -> Limits {
        Limits {
            soft_nodes: Some(self.soft_nodes),
            nodes: Some(self.hard_nodes),
            ..Limits::default()
        }
    }
}

/// Plays one game with `engine`, whose transposition table lives for the game only.
pub fn play_game(
    engine: &mut Engine,
    rng: &mut Xoshiro256PlusPlus,
    settings: &SelfPlaySettings,
) -> Result<GameRecord, SelfPlayError> {
    // The verification search is the one the first move needs: its result is played on.
    let (start, mut search) = settings
        .openings
        .balanced(engine, rng, &settings.limits(), settings.max_opening_score)
        .ok_or(SelfPlayError::NoBalancedOpening(settings.max_opening_score))?;
    let mut board = start.clone();
    let mut adjudicator = Adjudicator::new(&settings.adjudication);
    let mut moves = Vec::with_capacity(256);
    let result = loop {
        let mv = search
            .best_move
            .expect("the game goes on only while the side to move has a legal move");
        let white_score = match board.side_to_move() {
            Color::White => search.score,
            Color::Black => -search.score,
        };
        moves.push((mv, white_score));
        let verdict = adjudicator.update(white_score, board.fullmove_number());
        board.make_move(mv);
        if let Some(outcome) = board.outcome() {
            break rules_result(outcome, board.side_to_move());
        }
        if let Some(result) = settings
            .tablebases
            .as_ref()
            .and_then(|tables| tablebase_result(tables, &board))
        {
            break result;
        }
        if let Some(verdict) = verdict {
            break verdict;
        }
        engine.set_board(board.clone());
        search = engine.search(settings.limits(), &mut Silent);
    };
    // A table that fails to read adjudicates nothing; the game's result came from play instead.
    for failure in settings
        .tablebases
        .iter()
        .flat_map(Tablebases::unreported_failures)
    {
        eprintln!("warning: tablebase probe failed, games go on without it: {failure}");
    }
    Ok(GameRecord {
        start,
        moves,
        result,
    })
}

/// The result of a game the rules have ended, `to_move` being the side to move at the end.
pub fn rules_result(outcome: Outcome, to_move: Color) -> GameResult {
    match outcome {
        Outcome::Checkmate => GameResult::win(!to_move),
        Outcome::Stalemate
        | Outcome::FiftyMoves
        | Outcome::InsufficientMaterial
        | Outcome::Repetition => GameResult::Draw,
    }
}
