//! A PGN reader: tags, SAN movetext, comments (which carry engine scores in match PGNs);
//! variations, NAGs and `%` escape lines skipped. Used for opening books and to turn match
//! games into data.

use std::iter::Peekable;

use crate::board::{Board, START_FEN};
use crate::types::Move;

/// One game: where it started, the moves with the comment after each, and its result.
pub struct PgnGame {
    pub start: Board,
    pub moves: Vec<(Move, Option<String>)>,
    /// "1-0", "0-1", "1/2-1/2" or "*": the Result tag, else the termination marker.
    pub result: String,
    /// The White and Black tags, indexed by `Color::index`.
    pub players: [Option<String>; 2],
}

impl PgnGame {
    pub fn final_board(&self) -> Board {
        let mut board = self.start.clone();
        for &(mv, _) in &self.moves {
            board.make_move(mv);
        }
        board
    }
}

/// Parses a PGN file game by game; an unreadable game yields an error text and the games
/// after it are still read. A game ends at its termination marker (`1-0`, `*`, …) or, for a
/// game without one, where the next game's tags begin.
pub fn parse_games(text: &str) -> impl Iterator<Item = Result<PgnGame, String>> + '_ {
    let mut tokens = Lexer { text, pos: 0 }.peekable();
    std::iter::from_fn(move || loop {
        tokens.peek()?;
        // Only comments or stray symbols after the last game make no game.
        if let Some(game) = parse_game(&mut tokens).transpose() {
            return Some(game);
        }
    })
}

enum Token<'a> {
    Tag {
        name: &'a str,
        value: String,
    },
    /// A line starting with `[` that is no tag pair: the reason.
    BadTag(String),
    Comment(&'a str),
    VariationStart,
    VariationEnd,
    Termination(&'a str),
    /// A move (perhaps with its number glued on, `12.Nf3`), a move number or a NAG.
    Symbol(&'a str),
}

const TERMINATIONS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn skip_line(&mut self) {
        self.pos = self.text[self.pos..]
            .find('\n')
            .map_or(self.text.len(), |end| self.pos + end);
    }

    /// A tag pair, starting at `[`: `[Name "value"]` with `\"` and `\\` escapes, or else, as
    /// tools write them unescaped (`[Site "C:\games\"]`), everything between the first quote
    /// and the last `"]` on the line.
    fn tag(&mut self) -> Token<'a> {
        let rest = &self.text[self.pos + 1..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        match strict_tag(line).or_else(|| loose_tag(line)) {
            Some((name, value, len)) => {
                self.pos += 1 + len;
                Token::Tag { name, value }
            }
            None => {
                self.skip_line();
                Token::BadTag(format!("malformed tag [{}", line.trim_end()))
            }
        }
    }
}

/// Name, value and length (through the `]`) of a tag pair by the standard's syntax.
fn strict_tag(line: &str) -> Option<(&str, String, usize)> {
    let (name, after_name) = line.trim_start().split_once(char::is_whitespace)?;
    let quoted = after_name.trim_start().strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    let close = loop {
        match chars.next()? {
            (_, '\\') => value.push(chars.next()?.1),
            (i, '"') => break i,
            (_, ch) => value.push(ch),
        }
    };
    let after_value = &quoted[close + 1..];
    let bracket = after_value.find(|ch: char| !ch.is_whitespace())?;
    (after_value[bracket..].starts_with(']'))
        .then(|| (name, value, line.len() - after_value.len() + bracket + 1))
}

/// A tag pair whose value holds unescaped quotes or backslashes: the last `"]` on the line
/// closes it.
fn loose_tag(line: &str) -> Option<(&str, String, usize)> {
    let end = line.rfind("\"]")?;
    let (name, after_name) = line[..end].trim_start().split_once(char::is_whitespace)?;
    let value = after_name.trim_start().strip_prefix('"')?;
    Some((name, value.to_string(), end + 2))
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Result<Token<'a>, String>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let rest = &self.text[self.pos..];
            let ch = rest.chars().next()?;
            let token = match ch {
                _ if ch.is_whitespace() => {
                    self.pos += ch.len_utf8();
                    continue;
                }
                // An escape line: `%` in a line's first column.
                '%' if self.pos == 0 || self.text[..self.pos].ends_with('\n') => {
                    self.skip_line();
                    continue;
                }
                ';' => {
                    self.skip_line();
                    continue;
                }
                '[' => self.tag(),
                '{' => match rest.find('}') {
                    Some(close) => {
                        self.pos += close + 1;
                        Token::Comment(rest[1..close].trim())
                    }
                    None => {
                        // Everything after is inside the comment: nothing more can be read.
                        self.pos = self.text.len();
                        return Some(Err("unclosed comment".into()));
                    }
                },
                '(' => {
                    self.pos += 1;
                    Token::VariationStart
                }
                ')' => {
                    self.pos += 1;
                    Token::VariationEnd
                }
                _ => {
                    let len = rest
                        .find(|c: char| c.is_whitespace() || "{}()[];".contains(c))
                        .unwrap_or(rest.len())
                        .max(ch.len_utf8());
                    self.pos += len;
                    let symbol = &rest[..len];
                    if TERMINATIONS.contains(&symbol) {
                        Token::Termination(symbol)
                    } else {
                        Token::Symbol(symbol)
                    }
                }
            };
            return Some(Ok(token));
        }
    }
}

/// One game's tokens; `None` if they held no tag and no move.
fn parse_game(tokens: &mut Peekable<Lexer<'_>>) -> Result<Option<PgnGame>, String> {
    let mut fen = None;
    let mut result_tag = None;
    let mut chess960 = false;
    let mut players = [None, None];
    let mut any_tag = false;
    // The first error makes the game unreadable, but its tokens are still consumed to its end.
    let mut error = None;
    while let Some(Ok(Token::Tag { .. } | Token::BadTag(_))) = tokens.peek() {
        any_tag = true;
        let (name, value) = match tokens.next() {
            Some(Ok(Token::Tag { name, value })) => (name, value),
            Some(Ok(Token::BadTag(reason))) => {
                error.get_or_insert(reason);
                continue;
            }
            _ => unreachable!("peeked a tag"),
        };
        match name {
            "FEN" => fen = Some(value),
            "Result" => result_tag = Some(value),
            "White" => players[0] = Some(value),
            "Black" => players[1] = Some(value),
            "Variant" => {
                chess960 = value.to_ascii_lowercase().contains("960")
                    || value.eq_ignore_ascii_case("fischerandom")
            }
            _ => {}
        }
    }
    let mut board = match Board::from_fen(fen.as_deref().unwrap_or(START_FEN)) {
        Ok(board) => board,
        Err(e) => {
            error.get_or_insert(e.to_string());
            Board::startpos()
        }
    };
    board.set_chess960(chess960);
    let start = board.clone();
    let mut moves: Vec<(Move, Option<String>)> = Vec::new();
    let mut termination = None;
    let mut variation_depth = 0;
    while !matches!(
        tokens.peek(),
        None | Some(Ok(Token::Tag { .. } | Token::BadTag(_)))
    ) {
        let token = match tokens.next().expect("peeked a token") {
            Ok(token) => token,
            Err(e) => {
                error.get_or_insert(e);
                continue;
            }
        };
        match token {
            Token::Tag { .. } | Token::BadTag(_) => unreachable!("tags end the movetext"),
            Token::VariationStart => variation_depth += 1,
            Token::VariationEnd if variation_depth == 0 => {
                error.get_or_insert_with(|| "unbalanced ')' in the movetext".into());
            }
            Token::VariationEnd => variation_depth -= 1,
            Token::Termination(marker) if variation_depth == 0 => {
                termination = Some(marker);
                break;
            }
            Token::Termination(_) => {}
            Token::Comment(comment) if variation_depth == 0 => {
                if let Some(last) = moves.last_mut() {
                    last.1 = Some(comment.to_string());
                }
            }
            Token::Comment(_) => {}
            Token::Symbol(_) if variation_depth > 0 || error.is_some() => {}
            Token::Symbol(symbol) => {
                let Some(san) = move_text(symbol) else {
                    continue;
                };
                match board.parse_san(san) {
                    Some(mv) => {
                        board.make_move(mv);
                        moves.push((mv, None));
                    }
                    None => {
                        error = Some(format!(
                            "illegal or unreadable move '{san}' in {}",
                            board.to_fen()
                        ))
                    }
                }
            }
        }
    }
    if let Some(error) = error {
        return Err(error);
    }
    // A stray marker or comment after the last game is no game.
    if !any_tag && moves.is_empty() {
        return Ok(None);
    }
    let result = result_tag.or(termination.map(str::to_string));
    Ok(Some(PgnGame {
        start,
        moves,
        result: result.unwrap_or_else(|| "*".into()),
        players,
    }))
}

/// The move in a movetext symbol: move numbers such as `12.` or `12...` (perhaps glued to the
/// move) stripped, NAGs (`$1`) dropped. Digits without a dot are part of the move, as in
/// zero-style castling `0-0`.
fn move_text(symbol: &str) -> Option<&str> {
    if symbol.starts_with('$') {
        return None;
    }
    let digits = symbol.trim_start_matches(|ch: char| ch.is_ascii_digit());
    let san = match digits.strip_prefix('.') {
        Some(_) => digits.trim_start_matches('.'),
        None => symbol,
    };
    (!san.is_empty()).then_some(san)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_games_with_comments_and_variations() {
        let pgn = r#"[Event "test"]
[White "new"]
[Black "base"]
[Result "1-0"]

1. e4 {+0.30/12 0.1s} e5 {-0.25/11} 2. Nf3 (2. f4 exf4) Nc6 $1 3. Bb5 1-0

[Event "two"]
[FEN "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]
[Result "1/2-1/2"]

1. O-O Kd7 1/2-1/2
"#;
        let games: Vec<PgnGame> = parse_games(pgn).collect::<Result<_, _>>().unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves.len(), 5);
        assert_eq!(games[0].moves[0].1.as_deref(), Some("+0.30/12 0.1s"));
        assert_eq!(games[0].result, "1-0");
        assert_eq!(games[0].players, [Some("new".into()), Some("base".into())]);
        assert_eq!(games[1].players, [None, None]);
        assert_eq!(games[1].moves.len(), 2);
        assert!(games[1].moves[0].0.is_castle());
        assert!(parse_games("1. e4 e5 2. Ke3 *").next().unwrap().is_err());
    }

    /// Zero-style castling, a first game without tags, clock comments holding `[`, and an
    /// unbalanced `)`.
    #[test]
    fn reads_the_forms_other_tools_write() {
        let pgn = "1. e4 {[%clk 0:05:00]} e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 Nf6 *\n\n\
                   [Event \"tagged\"]\n\n1. d4 d5 *\n";
        let games: Vec<PgnGame> = parse_games(pgn).collect::<Result<_, _>>().unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves.len(), 8);
        assert!(games[0].moves[6].0.is_castle());
        assert_eq!(games[1].moves.len(), 2);
        assert!(parse_games("1. e4 ) e5 *").next().unwrap().is_err());
    }

    /// A comment may span lines, and a line inside it may start with `[`.
    #[test]
    fn a_comment_holds_what_looks_like_a_tag() {
        let pgn = "[Event \"x\"]\n\n1. e4 { [%eval 0.2]\n[%clk 0:05:00] } e5 *\n";
        let games: Vec<PgnGame> = parse_games(pgn).collect::<Result<_, _>>().unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves.len(), 2);
        assert_eq!(
            games[0].moves[0].1.as_deref(),
            Some("[%eval 0.2]\n[%clk 0:05:00]")
        );
    }

    /// Games without tags end at their termination markers, on one line or several; the
    /// marker is the result when no tag gives one.
    #[test]
    fn games_without_tags_end_at_their_markers() {
        for pgn in ["1. e4 e5 1-0\n\n1. d4 d5 *\n", "1. e4 e5 1-0 1. d4 d5 *"] {
            let games: Vec<PgnGame> = parse_games(pgn).collect::<Result<_, _>>().unwrap();
            assert_eq!(games.len(), 2, "{pgn}");
            assert_eq!(games[0].result, "1-0");
            assert_eq!(games[1].final_board().to_fen(), {
                let mut board = Board::startpos();
                for san in ["d4", "d5"] {
                    board.make_move(board.parse_san(san).unwrap());
                }
                board.to_fen()
            });
        }
    }

    /// Escape lines, two tags on a line, a quote escaped in a tag value, a NAG glued to a
    /// variation, and a game left unfinished before the next one's tags.
    #[test]
    fn reads_escapes_and_packed_tags() {
        let pgn = "% exported by a tool\n[Event \"a \\\"b\\\" c\"] [Result \"0-1\"]\n\
                   1. f3 e5 2. g4 (2. e4 $2) Qh4#\n[Event \"next\"]\n1. e4\n";
        let games: Vec<PgnGame> = parse_games(pgn).collect::<Result<_, _>>().unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].result, "0-1");
        assert_eq!(games[0].moves.len(), 4);
        assert!(!games[0].final_board().has_legal_move(), "mate");
        assert_eq!((games[1].moves.len(), games[1].result.as_str()), (1, "*"));
    }

    /// An unreadable game is reported as one, whatever follows its bad part, and the games
    /// after it are read.
    #[test]
    fn reading_goes_on_after_a_bad_game() {
        let pgn = "[Event \"bad\"]\n1. e4 e4 *\n\
                   [Event \"bad tag]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n1. Kd1 *\n\n\
                   1. c4 *\n";
        let games: Vec<Result<PgnGame, String>> = parse_games(pgn).collect();
        assert_eq!(games.len(), 3);
        assert!(games[0].as_ref().is_err_and(|e| e.contains("'e4'")));
        assert!(games[1]
            .as_ref()
            .is_err_and(|e| e.contains("malformed tag")));
        assert_eq!(games[2].as_ref().unwrap().moves.len(), 1);
    }

    /// Tag values with unescaped quotes or backslashes, as some tools write them, end at the
    /// line's last `"]`; a stray marker after a game is no game.
    #[test]
    fn loose_tags_and_stray_markers() {
        let pgn = "[Site \"C:\\games\\\"]\n[White \"a \"b\" c\"]\n\
                   [FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n[Result \"1-0\"]\n\
                   1. O-O Kd7 1-0 1-0\n";
        let games: Vec<PgnGame> = parse_games(pgn).collect::<Result<_, _>>().unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].result, "1-0");
        assert!(
            games[0].moves[0].0.is_castle(),
            "the FEN after the loose tags was read"
        );
    }
}
