//! `datagen pgn-to-vf`: match games (OpenBench, fastchess, cutechess) to viriformat, using
//! the engine score each move's comment carries: `{+0.35/12 0.123s}`, `{+0.35/12, 0.123s}`,
//! `{-M5/20 0.5s}`.
//!
//! That score is the mover's, so it belongs to the position the move was played from, as
//! viriformat wants. Patina prints normalised centipawns (`patina::wdl::to_cp`) but self-play
//! stores the network's units, so the scores are scaled back by `--pawn-units`. Book moves carry no score; a game's leading unscored moves become part
//! of its start position. A game with an unscored move after that, or no result, is skipped.

use std::io::Write;
use std::path::PathBuf;

use clap::Parser;
use patina::pgn::{parse_games, PgnGame};
use patina::score::{Score, MATE, MATE_BOUND};
use patina::wdl::{self, NORMALIZE_TO_PAWN};
use patina::Color;
use thiserror::Error;
use wholefile::WholeFile;

use crate::record::{GameRecord, GameResult};

#[derive(Parser, Debug)]
pub struct PgnArgs {
    /// PGN files.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output viriformat file (overwritten).
    #[arg(long, short)]
    pub out: PathBuf,
    /// Network units to the pawn of the engine that played the games, for scores stored in
    /// the network's units as self-play stores them: by default the embedded net's (a Patina
    /// build with another net printed its own `NORMALIZE_TO_PAWN`); 100 keeps the scores as
    /// printed (another engine's games).
    #[arg(long, default_value_t = NORMALIZE_TO_PAWN, value_parser = clap::value_parser!(i32).range(1..=1000))]
    pub pawn_units: Score,
}

#[derive(Debug, Error)]
pub enum PgnError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct PgnSummary {
    pub games: u64,
    pub positions: u64,
    pub unreadable: u64,
    pub unfinished: u64,
    pub unscored: u64,
    /// The first game skipped as unreadable, and why.
    pub first_unreadable: Option<String>,
}

/// Why a game cannot become training data.
enum Skip {
    Unfinished,
    Unscored,
    Unreadable(String),
}

pub fn run(args: &PgnArgs) -> Result<PgnSummary, PgnError> {
    let out_error = |source| PgnError::Io {
        path: args.out.clone(),
        source,
    };
    let mut out = WholeFile::create(&args.out, &args.inputs).map_err(out_error)?;
    let mut summary = PgnSummary::default();
    for path in &args.inputs {
        let text = patina::read_text(path).map_err(|source| PgnError::Io {
            path: path.clone(),
            source,
        })?;
        let name = path.display().to_string();
        convert(&text, &name, args.pawn_units, &mut out, &mut summary).map_err(out_error)?;
    }
    out.commit().map_err(out_error)?;
    Ok(summary)
}

/// Writes the games of one PGN text to `out` as viriformat and counts them in `summary`; `name`
/// says where the text came from in the first unreadable game's reason.
pub fn convert(
    text: &str,
    name: &str,
    pawn_units: Score,
    out: &mut impl Write,
    summary: &mut PgnSummary,
) -> std::io::Result<()> {
    for (index, game) in parse_games(text).enumerate() {
        match game
            .map_err(Skip::Unreadable)
            .and_then(|game| to_record(&game, pawn_units))
        {
            Ok(record) => {
                summary.games += 1;
                summary.positions += record.moves.len() as u64;
                record.to_viriformat().serialise_into(out)?;
            }
            Err(Skip::Unfinished) => summary.unfinished += 1,
            Err(Skip::Unscored) => summary.unscored += 1,
            Err(Skip::Unreadable(reason)) => {
                summary.unreadable += 1;
                summary
                    .first_unreadable
                    .get_or_insert_with(|| format!("{name}, game {}: {reason}", index + 1));
            }
        }
    }
    Ok(())
}

fn to_record(game: &PgnGame, pawn_units: Score) -> Result<GameRecord, Skip> {
    let result = GameResult::from_pgn(&game.result).ok_or(Skip::Unfinished)?;
    let book = game
        .moves
        .iter()
        .take_while(|(_, comment)| comment.as_deref().and_then(parse_score).is_none())
        .count();
    if book == game.moves.len() {
        return Err(Skip::Unscored);
    }
    let mut board = game.start.clone();
    for &(mv, _) in &game.moves[..book] {
        board.make_move(mv);
    }
    // viriformat packs the clock in a byte; a game that starts beyond it is no real game.
    if board.halfmove_clock() > u16::from(u8::MAX) {
        return Err(Skip::Unreadable(format!(
            "halfmove clock {} at the start",
            board.halfmove_clock()
        )));
    }
    // The start position is stored without the book moves' history.
    let start = board.clone();
    let mut moves = Vec::with_capacity(game.moves.len() - book);
    for (mv, comment) in &game.moves[book..] {
        let score = comment
            .as_deref()
            .and_then(parse_score)
            .ok_or(Skip::Unscored)?;
        let score = wdl::from_cp(score, pawn_units);
        let white_score = match board.side_to_move() {
            Color::White => score,
            Color::Black => -score,
        };
        moves.push((*mv, white_score));
        board.make_move(*mv);
    }
    Ok(GameRecord {
        start,
        moves,
        result,
    })
}

/// The mover's score from a comment's leading `+0.35/12`, `-1.20/9` or `+M3/15` (pawns,
/// as centipawns, or mate in moves); `None` for book moves and other comments.
pub(crate) fn parse_score(comment: &str) -> Option<Score> {
    let (score, _depth) = comment.split_whitespace().next()?.split_once('/')?;
    let (negative, magnitude) = match score.as_bytes().first()? {
        b'-' => (true, &score[1..]),
        b'+' => (false, &score[1..]),
        _ => (false, score),
    };
    let score = if let Some(moves) = magnitude.strip_prefix('M') {
        // Mate in n moves is 2n - 1 plies for the side delivering it, 2n for the other; a mate
        // further off than the mate range reaches is read as the furthest it holds.
        let moves = Score::from(moves.parse::<u16>().ok().filter(|&m| m > 0)?);
        let furthest = MATE - MATE_BOUND;
        if negative {
            -(MATE - (2 * moves).min(furthest))
        } else {
            MATE - (2 * moves - 1).min(furthest)
        }
    } else {
        // Digits only after the one sign: Rust's float syntax would also take a second sign,
        // `inf` and `NaN`, none of which a match PGN means as a score.
        if !magnitude.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let pawns: f64 = magnitude.parse().ok()?;
        // A centipawn score is never read as a mate, however large.
        let cp = (pawns * 100.0).round().min(f64::from(MATE_BOUND - 1)) as Score;
        if negative {
            -cp
        } else {
            cp
        }
    };
    Some(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_parse_in_match_formats() {
        assert_eq!(parse_score("+0.35/12 0.123s"), Some(35));
        assert_eq!(parse_score("+0.35/12, 0.123s, n=4512"), Some(35));
        assert_eq!(parse_score("-1.20/9 0.5s, White wins"), Some(-120));
        assert_eq!(parse_score("0.00/0 0s"), Some(0));
        assert_eq!(parse_score("+M3/15 0.2s"), Some(MATE - 5));
        assert_eq!(parse_score("-M2/7"), Some(-(MATE - 4)));
        assert_eq!(parse_score("book"), None);
        assert_eq!(parse_score("White mates"), None);
        assert_eq!(parse_score("-400.00/20"), Some(-(MATE_BOUND - 1)));
        // Mates beyond the range keep their winner.
        assert_eq!(parse_score("+M60000/3"), Some(MATE_BOUND));
        assert_eq!(parse_score("-M40000/2"), Some(-MATE_BOUND));
        // One sign, then a number: anything else is no score.
        for comment in ["+-1e9/3", "--0.5/3", "+inf/3", "-NaN/3", "+/3", "+.5/3"] {
            assert_eq!(parse_score(comment), None, "{comment}");
        }
    }
}
