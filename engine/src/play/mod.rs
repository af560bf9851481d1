//! Playing Patina as a person: `patina play` in a terminal and `patina web` in a browser. Both
//! drive the engine as a library through its `Engine` facade and share the game model.

pub mod game;
pub mod terminal;
pub mod web;

use std::fmt;
use std::time::Duration;

use crate::search::Limits;
use crate::types::score::{is_tb_result, Score, MATE, MATE_BOUND};
use crate::types::Color;

/// How long the engine thinks per move: a strength a person can pick.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum Strength {
    MoveTime(Duration),
    Depth(i32),
    Nodes(u64),
}

impl Strength {
    pub fn limits(self) -> Limits {
        match self {
            Self::MoveTime(time) => Limits {
                movetime: Some(time),
                ..Limits::default()
            },
            Self::Depth(depth) => Limits::depth(depth),
            Self::Nodes(nodes) => Limits::nodes(nodes),
        }
    }

    /// Reads `time SECONDS`, `depth N` or `nodes N`, within bounds a person would want.
    pub fn parse(kind: &str, value: &str) -> Result<Self, String> {
        match kind {
            "time" | "movetime" => match value.parse::<f64>() {
                Ok(secs) if (0.01..=3600.0).contains(&secs) => {
                    Ok(Self::MoveTime(Duration::from_secs_f64(secs)))
                }
                _ => Err(format!("time must be 0.01 to 3600 seconds, not '{value}'")),
            },
            "depth" => match value.parse::<i32>() {
                Ok(depth) if (1..=100).contains(&depth) => Ok(Self::Depth(depth)),
                _ => Err(format!("depth must be 1 to 100, not '{value}'")),
            },
            "nodes" => match value.parse::<u64>() {
                Ok(nodes) if nodes >= 1 => Ok(Self::Nodes(nodes)),
                _ => Err(format!("nodes must be a positive number, not '{value}'")),
            },
            _ => Err(format!("unknown level '{kind}': use time, depth or nodes")),
        }
    }
}

impl fmt::Display for Strength {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::MoveTime(time) => write!(f, "{:.2} s per move", time.as_secs_f64()),
            Self::Depth(depth) => write!(f, "depth {depth}"),
            Self::Nodes(nodes) => write!(f, "{nodes} nodes per move"),
        }
    }
}

/// A score from the side to move's view, shown from White's as GUIs do: `+0.35`, `-1.20`,
/// `#3` (White mates in 3), `#-2` (Black mates in 2), `+TB` (the tablebases say White wins).
pub fn score_text(score: Score, side_to_move: Color) -> String {
    let white = if side_to_move == Color::White {
        score
    } else {
        -score
    };
    if white >= MATE_BOUND {
        format!("#{}", (MATE - white + 1) / 2)
    } else if white <= -MATE_BOUND {
        format!("#-{}", (MATE + white + 1) / 2)
    } else if is_tb_result(white) {
        String::from(if white > 0 { "+TB" } else { "-TB" })
    } else {
        format!("{:+.2}", f64::from(crate::wdl::to_cp(white)) / 100.0)
    }
}

/// A number below `n` that differs from call to call (the standard library keys each hasher
/// afresh): enough to pick a colour or a Chess960 start, not for secrets.
pub fn random_below(n: usize) -> usize {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    (hasher.finish() % n.max(1) as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::score::tb_win_in;

    #[test]
    fn scores_from_whites_view() {
        // Printed in normalised pawns, as UCI prints them.
        let pawn = crate::wdl::NORMALIZE_TO_PAWN;
        assert_eq!(score_text(pawn, Color::White), "+1.00");
        assert_eq!(score_text(pawn, Color::Black), "-1.00");
        assert_eq!(score_text(0, Color::Black), "+0.00");
        // Mate in one move is one ply from the root.
        assert_eq!(score_text(MATE - 1, Color::White), "#1");
        assert_eq!(score_text(MATE - 1, Color::Black), "#-1");
        assert_eq!(score_text(MATE - 5, Color::White), "#3");
        // Mated now (the side to move has been mated at the root's child).
        assert_eq!(score_text(-(MATE - 2), Color::White), "#-1");
        // A tablebase win has no mate distance to show, and is no pawn count either.
        assert_eq!(score_text(tb_win_in(3), Color::White), "+TB");
        assert_eq!(score_text(tb_win_in(3), Color::Black), "-TB");
        assert_eq!(score_text(-tb_win_in(8), Color::Black), "+TB");
    }

    #[test]
    fn strength_bounds() {
        assert_eq!(Strength::parse("depth", "8"), Ok(Strength::Depth(8)));
        assert_eq!(
            Strength::parse("time", "0.5"),
            Ok(Strength::MoveTime(Duration::from_millis(500)))
        );
        for (kind, value) in [
            ("depth", "0"),
            ("depth", "x"),
            ("time", "-1"),
            ("time", "NaN"),
            ("time", "inf"),
            ("nodes", "0"),
            ("speed", "1"),
        ] {
            assert!(Strength::parse(kind, value).is_err(), "{kind} {value}");
        }
    }
}
