//! UCI input parsed into commands before anything acts on it, so malformed input is
//! reported as an error and never half-applied.

use std::iter::Peekable;
use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use crate::board::{Board, FenError};
use crate::search::Limits;
use crate::tools::genfens::GenFensRequest;
use crate::types::{Square, MAX_PLY};

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
    // Extensions.
    Bench {
        depth: Option<i32>,
        nn: bool,
    },
    Perft(u32),
    Eval,
    Display,
    GenFens(GenFensRequest),
    /// `probe`: the tablebases' WDL and DTZ for the current position.
    Probe,
}

#[derive(Debug, Default)]
pub struct GoCommand {
    pub limits: Limits,
    pub perft: Option<u32>,
    /// Moves named by `searchmoves`, resolved once the position is known.
    pub search_moves: Vec<String>,
    /// What could not be read, each part skipped: a GUI waiting for `bestmove` must get one,
    /// so the search runs on the rest of the line (as Stockfish's does).
    pub skipped: Vec<ParseError>,
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
    #[error("unknown go parameter '{0}'")]
    UnknownGoParameter(String),
    #[error("unexpected '{extra}' after '{command}'")]
    Unexpected { command: String, extra: String },
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
        "go" => Command::Go(parse_go(&rest)?),
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        // Valid UCI that asks nothing of this engine: it has no debug output and needs no
        // registration.
        "debug" | "register" => return Ok(None),
        // The extensions take exactly their arguments: `eval <fen>` or `perft 5 <fen>` would
        // otherwise answer for the current position as if for the one given.
        "bench" => match *only(head, &rest, 1)? {
            ["nn"] => Command::Bench {
                depth: None,
                nn: true,
            },
            [depth] => Command::Bench {
                depth: Some(bench_depth(depth)?),
                nn: false,
            },
            _ => Command::Bench {
                depth: None,
                nn: false,
            },
        },
        "perft" => match *only(head, &rest, 1)? {
            [depth] => Command::Perft(number("perft", depth)?),
            _ => return Err(ParseError::MissingValue("perft".into())),
        },
        "eval" => only(head, &rest, 0).map(|_| Command::Eval)?,
        "d" => only(head, &rest, 0).map(|_| Command::Display)?,
        "probe" => only(head, &rest, 0).map(|_| Command::Probe)?,
        "genfens" => Command::GenFens(parse_genfens(&rest)?),
        _ => return Err(ParseError::Unknown(head.to_string())),
    };
    Ok(Some(command))
}

/// `rest`, which may hold at most `most` arguments of `command`.
fn only<'a, 'b>(
    command: &str,
    rest: &'a [&'b str],
    most: usize,
) -> Result<&'a [&'b str], ParseError> {
    match rest.get(most) {
        Some(extra) => Err(ParseError::Unexpected {
            command: [&[command], &rest[..most]].concat().join(" "),
            extra: extra.to_string(),
        }),
        None => Ok(rest),
    }
}

/// A bench depth the search can reach: 1 to `MAX_PLY - 1`.
fn bench_depth(text: &str) -> Result<i32, ParseError> {
    number("bench", text)
        .ok()
        .filter(|depth| (1..MAX_PLY as i32).contains(depth))
        .ok_or_else(|| ParseError::BadValue {
            key: "bench".into(),
            value: text.to_string(),
        })
}

/// The command lines that `patina`'s arguments stand for. OpenBench passes one command per
/// argument (`patina "setoption name EvalFile value x.nnue" bench`), and an argument holding a
/// space is always a whole command; a shell user types a command as words (`patina bench 13`),
/// and a bare word continues the words before it unless it names a command (`patina
/// "setoption name Hash value 16" bench 4` is two commands). `perft N FEN…` sets the position
/// first, and `perft N startpos` is the start position.
pub fn command_lines(args: &[String]) -> Vec<String> {
    if let [perft, depth, position @ ..] = args {
        if perft == "perft" && !position.is_empty() {
            let position = match position {
                [startpos] if startpos == "startpos" => "startpos".to_string(),
                fen => format!("fen {}", fen.join(" ")),
            };
            return vec![format!("position {position}"), format!("perft {depth}")];
        }
    }
    let mut lines: Vec<String> = Vec::new();
    // Whether the last line was made of bare words, which may go on.
    let mut open = false;
    for arg in args {
        if arg.contains(char::is_whitespace) {
            lines.push(arg.clone());
            open = false;
            continue;
        }
        match lines.last_mut() {
            Some(line) if open && continues(line, arg) => {
                line.push(' ');
                line.push_str(arg);
            }
            _ => {
                lines.push(arg.clone());
                open = true;
            }
        }
    }
    lines
}

/// Whether the bare word `word` belongs to `line`: it names no command, or it is `go`'s `perft`
/// or the first word of a `setoption` value (`setoption name EvalFile value eval`).
fn continues(line: &str, word: &str) -> bool {
    let names_command = !matches!(parse(word, false), Err(ParseError::Unknown(_)));
    let mut words = line.split_whitespace();
    let head = words.next();
    !names_command
        || (head == Some("go") && word == "perft")
        || (head == Some("setoption") && words.last() == Some("value"))
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, ParseError> {
    value.parse().map_err(|_| ParseError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
    })
}

/// OpenBench's `genfens N seed S book <path|None> [extra]`; `extra` may be `dfrc`. Any other
/// word is refused: a misspelt `seed` or `book` would silently give other openings.
fn parse_genfens(tokens: &[&str]) -> Result<GenFensRequest, ParseError> {
    let count = number(
        "genfens",
        tokens
            .first()
            .ok_or(ParseError::MissingValue("genfens".into()))?,
    )?;
    let mut request = GenFensRequest {
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
                request.book = (!path.eq_ignore_ascii_case("none")).then(|| PathBuf::from(path));
                i += 2;
            }
            extra if extra.eq_ignore_ascii_case("dfrc") => {
                request.dfrc = true;
                i += 1;
            }
            extra => {
                return Err(ParseError::Unexpected {
                    command: format!("genfens {}", tokens[..i].join(" ")),
                    extra: extra.to_string(),
                })
            }
        }
    }
    Ok(request)
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

fn parse_go(tokens: &[&str]) -> Result<GoCommand, ParseError> {
    let mut go = GoCommand::default();
    let mut rest = tokens.iter().copied().peekable();
    while let Some(key) = rest.next() {
        match go.read(key, &mut rest) {
            Ok(()) => {}
            // `go perft` is a test, not a game: a bad depth is refused, never a search instead.
            Err(error) if key == "perft" => return Err(error),
            Err(error) => go.skipped.push(error),
        }
    }
    Ok(go)
}

impl GoCommand {
    /// Reads the parameter `key` and the value that follows it in `rest`.
    fn read<'a, I: Iterator<Item = &'a str>>(
        &mut self,
        key: &str,
        rest: &mut Peekable<I>,
    ) -> Result<(), ParseError> {
        let limits = &mut self.limits;
        let mut value = || {
            rest.next()
                .ok_or_else(|| ParseError::MissingValue(key.to_string()))
        };
        match key {
            "wtime" => limits.time[0] = Some(millis(key, value()?)?),
            "btime" => limits.time[1] = Some(millis(key, value()?)?),
            "winc" => limits.increment[0] = Some(millis(key, value()?)?),
            "binc" => limits.increment[1] = Some(millis(key, value()?)?),
            "movetime" => limits.movetime = Some(millis(key, value()?)?),
            "movestogo" => limits.moves_to_go = Some(number(key, value()?)?),
            "depth" => limits.depth = Some(number(key, value()?)?),
            "nodes" => limits.nodes = Some(number(key, value()?)?),
            "mate" => limits.mate = Some(number(key, value()?)?),
            "perft" => self.perft = Some(number(key, value()?)?),
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                while let Some(text) = rest.next_if(|t| is_move_text(t)) {
                    self.search_moves.push(text.to_string());
                }
            }
            _ => return Err(ParseError::UnknownGoParameter(key.to_string())),
        }
        Ok(())
    }
}

fn millis(key: &str, value: &str) -> Result<Duration, ParseError> {
    // GUIs sometimes send negative clocks when a player is already late.
    let ms: i64 = number(key, value)?;
    Ok(Duration::from_millis(ms.max(0) as u64))
}

/// Whether `token` has the shape of a UCI move (`e2e4`, `e7e8q`), as no `go` keyword does:
/// `searchmoves` takes the moves that follow it.
fn is_move_text(token: &str) -> bool {
    let square = |range| token.get(range).and_then(Square::parse).is_some();
    matches!(token.len(), 4 | 5) && square(0..2) && square(2..4)
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
    fn go_skips_what_it_cannot_read_and_keeps_the_rest() {
        let go = |line| match parse(line, false) {
            Ok(Some(Command::Go(go))) => go,
            other => panic!("{line}: {other:?}"),
        };
        let unreadable = go("go wtime 500 frobnicate depth x searchmoves e2e4 E7E8 nodes");
        assert_eq!(
            unreadable.skipped,
            [
                ParseError::UnknownGoParameter("frobnicate".into()),
                ParseError::BadValue {
                    key: "depth".into(),
                    value: "x".into()
                },
                ParseError::UnknownGoParameter("E7E8".into()),
                ParseError::MissingValue("nodes".into()),
            ]
        );
        assert_eq!(unreadable.limits.time[0], Some(Duration::from_millis(500)));
        assert_eq!(unreadable.limits.depth, None);
        assert_eq!(unreadable.search_moves, ["e2e4"]);
        assert!(go("go infinite searchmoves").search_moves.is_empty());
    }

    #[test]
    fn rejects_bad_input() {
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
    fn extensions_refuse_what_they_do_not_take() {
        for (line, error) in [
            (
                "eval 8/8/8/8/8/8/8/K6k w - - 0 1",
                "unexpected '8/8/8/8/8/8/8/K6k' after 'eval'",
            ),
            ("d x", "unexpected 'x' after 'd'"),
            ("probe now", "unexpected 'now' after 'probe'"),
            ("perft 2 junk", "unexpected 'junk' after 'perft 2'"),
            ("bench 1 extra", "unexpected 'extra' after 'bench 1'"),
            ("bench 0", "'0' is not a valid value for 'bench'"),
            ("bench -5", "'-5' is not a valid value for 'bench'"),
            ("bench 1000", "'1000' is not a valid value for 'bench'"),
            ("go perft -2", "'-2' is not a valid value for 'perft'"),
            (
                "genfens 2 sed 1 book None",
                "unexpected 'sed' after 'genfens 2'",
            ),
            (
                "genfens 2 seed 7 bok x",
                "unexpected 'bok' after 'genfens 2 seed 7'",
            ),
        ] {
            assert_eq!(parse(line, false).unwrap_err().to_string(), error, "{line}");
        }
        assert!(matches!(
            parse("bench 127", false),
            Ok(Some(Command::Bench {
                depth: Some(127),
                nn: false
            }))
        ));
        assert!(matches!(
            parse("genfens 4 seed 9 book None DFRC", false),
            Ok(Some(Command::GenFens(GenFensRequest {
                count: 4,
                seed: 9,
                book: None,
                dfrc: true
            })))
        ));
    }

    #[test]
    fn arguments_become_command_lines() {
        let lines =
            |args: &[&str]| command_lines(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
        assert_eq!(lines(&["bench", "13"]), ["bench 13"]);
        assert_eq!(
            lines(&["setoption name Hash value 16", "bench", "1"]),
            ["setoption name Hash value 16", "bench 1"]
        );
        assert_eq!(
            lines(&["genfens 5 seed 3 book None", "quit"]),
            ["genfens 5 seed 3 book None", "quit"]
        );
        assert_eq!(lines(&["go", "perft", "3"]), ["go perft 3"]);
        assert_eq!(
            lines(&["setoption", "name", "EvalFile", "value", "eval", "bench"]),
            ["setoption name EvalFile value eval", "bench"]
        );
        assert_eq!(
            lines(&["setoption name Hash value 16", "eval", "x"]),
            ["setoption name Hash value 16", "eval x"]
        );
        assert_eq!(
            lines(&["perft", "3", "8/8/8/8/8/8/8/K6k", "w", "-", "-", "0", "1"]),
            ["position fen 8/8/8/8/8/8/8/K6k w - - 0 1", "perft 3"]
        );
        assert_eq!(
            lines(&["perft", "4", "startpos"]),
            ["position startpos", "perft 4"]
        );
        // Nothing before it to continue: an unknown first word is its own (refused) line.
        assert_eq!(lines(&["frobnicate", "2"]), ["frobnicate 2"]);
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
