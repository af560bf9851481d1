//! UCI input parsed into commands before anything acts on it, so malformed input is
//! reported as an error and never half-applied.

use std::time::Duration;

use thiserror::Error;

use crate::board::{Board, FenError};
use crate::search::Limits;
use crate::types::Move;

#[derive(Debug)]
pub enum Command {
    Uci,
    IsReady,
    NewGame,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position(Board),
    Go(GoCommand),
    Stop,
    PonderHit,
    Quit,
    /// Extensions
    Bench {
        depth: Option<i32>,
        nn: bool,
    },
    Perft(u32),
    Eval,
    Display,
    GenFens(crate::tools::genfens::GenFensRequest),
}

#[derive(Debug, Default)]
pub struct GoCommand {
    pub limits: Limits,
    pub perft: Option<u32>,
    /// Moves named by `searchmoves`, resolved once the position is known.
    pub search_moves: Vec<String>,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("unknown command '{0}'")]
    Unknown(String),
    #[error("'{0}' needs a value")]
    MissingValue(String),
    #[error("'{value}' is not a valid value for '{key}'")]
    BadValue { key: String, value: String },
    #[error("malformed setoption: expected 'setoption name <name> [value <value>]'")]
    SetOption,
    #[error("position needs 'startpos' or 'fen <fen>'")]
    PositionKind,
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    #[error("move '{0}' is not legal in the position it was played from")]
    IllegalMove(String),
}

pub fn parse(line: &str, chess960: bool) -> Result<Option<Command>, ParseError> {
    let mut tokens = line.split_whitespace();
    let Some(head) = tokens.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = tokens.collect();
    let command = match head {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::NewGame,
        "setoption" => parse_setoption(&rest)?,
        "position" => Command::Position(parse_position(&rest, chess960)?),
        "go" => parse_go(&rest)?,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        // Valid UCI that asks nothing of this engine: it has no debug output and needs no
        // registration.
        "debug" | "register" => return Ok(None),
        "bench" => match rest.first() {
            Some(&"nn") => Command::Bench {
                depth: None,
                nn: true,
            },
            Some(depth) => Command::Bench {
                depth: Some(number("bench", depth)?),
                nn: false,
            },
            None => Command::Bench {
                depth: None,
                nn: false,
            },
        },
        "perft" => Command::Perft(number(
            "perft",
            rest.first()
                .ok_or(ParseError::MissingValue("perft".into()))?,
        )?),
        "eval" => Command::Eval,
        "d" => Command::Display,
        "genfens" => Command::GenFens(crate::tools::genfens::GenFensRequest::parse(&rest)?),
        _ => return Err(ParseError::Unknown(head.to_string())),
    };
    Ok(Some(command))
}

pub fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, ParseError> {
    value.parse().map_err(|_| ParseError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
    })
}

fn parse_setoption(tokens: &[&str]) -> Result<Command, ParseError> {
    if tokens.first() != Some(&"name") {
        return Err(ParseError::SetOption);
    }
    let value_at = tokens.iter().position(|&t| t == "value");
    let name = tokens[1..value_at.unwrap_or(tokens.len())].join(" ");
    if name.is_empty() {
        return Err(ParseError::SetOption);
    }
    let value = value_at.map(|i| tokens[i + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

fn parse_position(tokens: &[&str], chess960: bool) -> Result<Board, ParseError> {
    let moves_at = tokens
        .iter()
        .position(|&t| t == "moves")
        .unwrap_or(tokens.len());
    let mut board = match tokens.first() {
        Some(&"startpos") if moves_at == 1 => Board::startpos(),
        Some(&"fen") => Board::from_fen(&tokens[1..moves_at].join(" "))?,
        _ => return Err(ParseError::PositionKind),
    };
    board.set_chess960(chess960);
    for text in tokens.iter().skip(moves_at + 1) {
        let mv = board
            .parse_uci_move(text)
            .ok_or_else(|| ParseError::IllegalMove(text.to_string()))?;
        board.make_move(mv);
    }
    Ok(board)
}

fn parse_go(tokens: &[&str]) -> Result<Command, ParseError> {
    let mut go = GoCommand::default();
    let limits = &mut go.limits;
    let mut i = 0;
    let value = |i: usize, key: &str| {
        tokens
            .get(i + 1)
            .copied()
            .ok_or_else(|| ParseError::MissingValue(key.to_string()))
    };
    let millis = |i: usize, key: &str| -> Result<Duration, ParseError> {
        // GUIs sometimes send negative clocks when a player is already late.
        let ms: i64 = number(key, value(i, key)?)?;
        Ok(Duration::from_millis(ms.max(0) as u64))
    };
    while i < tokens.len() {
        let key = tokens[i];
        match key {
            "wtime" => limits.time[0] = Some(millis(i, key)?),
            "btime" => limits.time[1] = Some(millis(i, key)?),
            "winc" => limits.increment[0] = Some(millis(i, key)?),
            "binc" => limits.increment[1] = Some(millis(i, key)?),
            "movetime" => limits.movetime = Some(millis(i, key)?),
            "movestogo" => limits.moves_to_go = Some(number(key, value(i, key)?)?),
            "depth" => limits.depth = Some(number(key, value(i, key)?)?),
            "nodes" => limits.nodes = Some(number(key, value(i, key)?)?),
            "mate" => limits.mate = Some(number(key, value(i, key)?)?),
            "perft" => go.perft = Some(number(key, value(i, key)?)?),
            "infinite" => {
                limits.infinite = true;
                i += 1;
                continue;
            }
            "ponder" => {
                limits.ponder = true;
                i += 1;
                continue;
            }
            "searchmoves" => {
                let end = tokens[i + 1..]
                    .iter()
                    .position(|t| is_go_keyword(t))
                    .map_or(tokens.len(), |p| i + 1 + p);
                go.search_moves = tokens[i + 1..end].iter().map(|s| s.to_string()).collect();
                i = end;
                continue;
            }
            other => {
                return Err(ParseError::BadValue {
                    key: "go".into(),
                    value: other.to_string(),
                })
            }
        }
        i += 2;
    }
    Ok(Command::Go(go))
}

fn is_go_keyword(token: &str) -> bool {
    matches!(
        token,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movetime"
            | "movestogo"
            | "depth"
            | "nodes"
            | "mate"
            | "perft"
            | "infinite"
            | "ponder"
    )
}

/// Resolves `searchmoves` in the position the search will start from.
pub fn resolve_moves(board: &Board, texts: &[String]) -> Result<Vec<Move>, ParseError> {
    texts
        .iter()
        .map(|t| {
            board
                .parse_uci_move(t)
                .ok_or_else(|| ParseError::IllegalMove(t.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go() {
        let Ok(Some(Command::Go(go))) = parse(
            "go wtime 1000 btime -5 winc 10 movestogo 3 searchmoves e2e4 d2d4 depth 5",
            false,
        ) else {
            panic!("go parses")
        };
        assert_eq!(
            go.limits.time,
            [Some(Duration::from_millis(1000)), Some(Duration::ZERO)]
        );
        assert_eq!(go.limits.moves_to_go, Some(3));
        assert_eq!(go.limits.depth, Some(5));
        assert_eq!(go.search_moves, ["e2e4", "d2d4"]);
    }

    #[test]
    fn debug_and_register_are_accepted_and_need_nothing() {
        for line in [
            "debug on",
            "debug off",
            "register later",
            "register name x code y",
        ] {
            assert!(matches!(parse(line, false), Ok(None)), "{line}");
        }
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            parse("go depth", false).err(),
            Some(ParseError::MissingValue("depth".into()))
        );
        assert_eq!(
            parse("go depth x", false).err(),
            Some(ParseError::BadValue {
                key: "depth".into(),
                value: "x".into()
            })
        );
        assert_eq!(
            parse("position startpos moves e2e5", false).err(),
            Some(ParseError::IllegalMove("e2e5".into()))
        );
        assert_eq!(
            parse("position", false).err(),
            Some(ParseError::PositionKind)
        );
        assert_eq!(
            parse("setoption Hash 5", false).err(),
            Some(ParseError::SetOption)
        );
        assert_eq!(
            parse("frobnicate", false).err(),
            Some(ParseError::Unknown("frobnicate".into()))
        );
        assert!(matches!(
            parse("position fen 8/8/8 w - - 0 1", false),
            Err(ParseError::Fen(_))
        ));
    }

    #[test]
    fn parses_setoption_with_spaces() {
        let Ok(Some(Command::SetOption { name, value })) =
            parse("setoption name Move Overhead value 30", false)
        else {
            panic!("setoption parses")
        };
        assert_eq!(
            (name.as_str(), value.as_deref()),
            ("Move Overhead", Some("30"))
        );
    }
}
