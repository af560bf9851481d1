//! One self-play game: a random opening kept only if a search finds it balanced, then a
//! fixed-node search per move until the rules or the adjudicator end the game.

use patina::board::{Board, Outcome};
use patina::engine::Engine;
use patina::search::score::Score;
use patina::search::{Limits, SearchResult, Silent};
use patina::tools::openings::OpeningSource;
use patina::types::Color;
use rand_xoshiro::Xoshiro256PlusPlus;
use thiserror::Error;

use crate::adjudication::{AdjudicationSettings, Adjudicator};
use crate::record::{GameRecord, GameResult};

/// After this many openings in a row fail the balance check, the settings (or the net) are
/// assumed unable to produce any, rather than looping forever.
const MAX_REJECTED_OPENINGS: usize = 10_000;

#[derive(Debug, Error)]
pub enum SelfPlayError {
    #[error(
        "{MAX_REJECTED_OPENINGS} openings in a row scored beyond ±{0} cp; \
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
    let (start, mut search) = balanced_opening(engine, rng, settings)?;
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
        if let Some(verdict) = verdict {
            break verdict;
        }
        engine.set_board(board.clone());
        search = engine.search(settings.limits(), &mut Silent);
    };
    Ok(GameRecord {
        start,
        moves,
        result,
    })
}

/// Draws openings until one scores within the limit. The verification search is the same
/// search the first move needs, so its result is handed on rather than repeated.
fn balanced_opening(
    engine: &mut Engine,
    rng: &mut Xoshiro256PlusPlus,
    settings: &SelfPlaySettings,
) -> Result<(Board, SearchResult), SelfPlayError> {
    for _ in 0..MAX_REJECTED_OPENINGS {
        // A book position may already be drawn by rule (its halfmove clock past 100, say).
        let Some(board) = settings
            .openings
            .generate(rng)
            .filter(|board| board.outcome().is_none())
        else {
            continue;
        };
        engine.clear();
        engine.set_board(board.clone());
        let search = engine.search(settings.limits(), &mut Silent);
        if search.score.abs() <= settings.max_opening_score {
            return Ok((board, search));
        }
    }
    Err(SelfPlayError::NoBalancedOpening(settings.max_opening_score))
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
