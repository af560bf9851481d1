//! OpenBench's `genfens`: random-opening positions, filtered by a short search, that
//! OpenBench hands out to workers as self-play starting points.

use std::path::PathBuf;

use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::openings::{Book, OpeningSource, RANDOM_PLIES, RANDOM_PLIES_AFTER_BOOK};
use crate::engine::Engine;
use crate::search::{Limits, Silent};
use crate::uci::command::{number, ParseError};

/// Openings whose verification search scores beyond this are too lopsided to learn from.
pub const MAX_OPENING_SCORE: i32 = 1000;
const VERIFICATION_NODES: u64 = 1000;

#[derive(Debug)]
pub struct GenFensRequest {
    pub count: usize,
    pub seed: u64,
    pub book: Option<PathBuf>,
    pub dfrc: bool,
}

impl GenFensRequest {
    /// `N seed S book <path|None> [extra]`; `extra` may contain `dfrc`.
    pub fn parse(tokens: &[&str]) -> Result<Self, ParseError> {
        let count = number(
            "genfens",
            tokens
                .first()
                .ok_or(ParseError::MissingValue("genfens".into()))?,
        )?;
        let mut request = Self {
            count,
            seed: 0,
            book: None,
            dfrc: false,
        };
        let mut i = 1;
        while i < tokens.len() {
            match tokens[i] {
                "seed" => {
                    request.seed = number(
                        "seed",
                        tokens
                            .get(i + 1)
                            .ok_or(ParseError::MissingValue("seed".into()))?,
                    )?;
                    i += 2;
                }
                "book" => {
                    let path = tokens
                        .get(i + 1)
                        .ok_or(ParseError::MissingValue("book".into()))?;
                    request.book =
                        (!path.eq_ignore_ascii_case("none")).then(|| PathBuf::from(path));
                    i += 2;
                }
                extra => {
                    request.dfrc |= extra.eq_ignore_ascii_case("dfrc");
                    i += 1;
                }
            }
        }
        Ok(request)
    }
}

/// Produces the requested FENs, deterministically for a seed.
pub fn generate(
    engine: &mut Engine,
    request: &GenFensRequest,
) -> Result<Vec<String>, super::openings::BookError> {
    let book = request.book.as_deref().map(Book::load).transpose()?;
    let source = OpeningSource {
        book: book.as_ref(),
        dfrc: request.dfrc,
        random_plies: if book.is_some() {
            RANDOM_PLIES_AFTER_BOOK
        } else {
            RANDOM_PLIES
        },
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(request.seed);
    let mut fens = Vec::with_capacity(request.count);
    while fens.len() < request.count {
        let Some(board) = source.generate(&mut rng) else {
            continue;
        };
        engine.clear();
        engine.set_board(board.clone());
        let result = engine.search(Limits::nodes(VERIFICATION_NODES), &mut Silent);
        let fen = board.to_fen();
        if result.score.abs() <= MAX_OPENING_SCORE && !fens.contains(&fen) {
            fens.push(fen);
        }
    }
    Ok(fens)
}
