//! OpenBench's `genfens`: random-opening positions, filtered by a short search, that
//! OpenBench hands out to workers as self-play starting points.

use std::collections::HashSet;
use std::path::PathBuf;

use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use thiserror::Error;

use super::openings::{
    Book, BookError, OpeningSource, Start, MAX_OPENING_ATTEMPTS, MAX_OPENING_SCORE,
};
use crate::engine::Engine;
use crate::search::Limits;

const VERIFICATION_NODES: u64 = 1000;

/// What to generate: `genfens N seed S book <path|None> [extra]` (parsed by the UCI parser).
#[derive(Debug)]
pub struct GenFensRequest {
    pub count: usize,
    pub seed: u64,
    pub book: Option<PathBuf>,
    pub dfrc: bool,
}

#[derive(Debug, Error)]
pub enum GenFensError {
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(
        "{MAX_OPENING_ATTEMPTS} openings in a row scored beyond ±{MAX_OPENING_SCORE} cp; use \
         another book or net"
    )]
    NoBalancedOpening,
    #[error(
        "after {found} distinct openings, {MAX_OPENING_ATTEMPTS} in a row repeated earlier ones: \
         the book and random plies give too few for this request"
    )]
    TooFewDistinct { found: usize },
}

/// Produces the requested FENs, distinct and deterministic for a seed, handing each to `emit`
/// as soon as it is found (OpenBench waits on the output, and a large request takes a while).
pub fn generate(
    engine: &mut Engine,
    request: &GenFensRequest,
    mut emit: impl FnMut(&str),
) -> Result<(), GenFensError> {
    let book = request.book.as_deref().map(Book::load).transpose()?;
    let start = match (&book, request.dfrc) {
        (Some(book), _) => Start::Book(book),
        (None, true) => Start::Dfrc,
        (None, false) => Start::StartPosition,
    };
    let source = OpeningSource::new(start, None);
    let limits = Limits::nodes(VERIFICATION_NODES);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(request.seed);
    let mut seen = HashSet::new();
    let mut repeats = 0;
    while seen.len() < request.count {
        let (board, _) = source
            .balanced(engine, &mut rng, &limits, MAX_OPENING_SCORE)
            .ok_or(GenFensError::NoBalancedOpening)?;
        let fen = board.to_fen();
        if seen.contains(&fen) {
            // A small book with few random plies runs out of new positions.
            repeats += 1;
            if repeats == MAX_OPENING_ATTEMPTS {
                return Err(GenFensError::TooFewDistinct { found: seen.len() });
            }
        } else {
            emit(&fen);
            seen.insert(fen);
            repeats = 0;
        }
    }
    Ok(())
}
