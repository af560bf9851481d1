//! A PGN reader: tags, SAN movetext, comments (which carry engine scores in match PGNs),
//! variations and NAGs skipped. Used for opening books and to turn match games into data.

use crate::board::{Board, START_FEN};
use crate::types::Move;

/// One game: where it started, the moves with the comment after each, and the result tag.
pub struct PgnGame {
    pub start: Board,
    pub moves: Vec<(Move, Option<String>)>,
    /// "1-0", "0-1", "1/2-1/2" or "*".
    pub result: String,
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

/// Splits a PGN file into games and parses each; an unparsable game yields an error text.
pub fn parse_games(text: &str) -> impl Iterator<Item = Result<PgnGame, String>> + '_ {
    let mut rest = text;
    std::iter::from_fn(move || {
        // A game starts at its first non-blank character, tags or not (a `[` inside a
        // comment such as `{[%clk 0:05:00]}` is not a tag section).
        let start = rest.find(|ch: char| !ch.is_whitespace())?;
        rest = &rest[start..];
        // A game ends where the next tag section begins after movetext.
        let mut end = rest.len();
        let mut seen_movetext = false;
        let mut offset = 0;
        for line in rest.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if trimmed.starts_with('[') && seen_movetext {
                end = offset;
                break;
            }
            if !trimmed.is_empty() && !trimmed.starts_with('[') {
                seen_movetext = true;
            }
            offset += line.len();
        }
        let game = &rest[..end];
        rest = &rest[end..];
        Some(parse_game(game))
    })
}

fn parse_game(text: &str) -> Result<PgnGame, String> {
    let mut fen = None;
    let mut result = "*".to_string();
    let mut chess960 = false;
    let mut movetext = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let (name, value) = tag
                .split_once(' ')
                .ok_or_else(|| format!("malformed tag [{tag}]"))?;
            let value = value.trim().trim_matches('"').to_string();
            match name {
                "FEN" => fen = Some(value),
                "Result" => result = value,
                "Variant" => {
                    chess960 = value.to_ascii_lowercase().contains("960")
                        || value.eq_ignore_ascii_case("fischerandom")
                }
                _ => {}
            }
        } else {
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    let mut board =
        Board::from_fen(fen.as_deref().unwrap_or(START_FEN)).map_err(|e| e.to_string())?;
    board.set_chess960(chess960);
    let start = board.clone();
    let mut moves: Vec<(Move, Option<String>)> = Vec::new();
    let mut chars = movetext.char_indices().peekable();
    let mut variation_depth = 0;
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                let close = movetext[i..].find('}').ok_or("unclosed comment")? + i;
                let comment = movetext[i + 1..close].trim().to_string();
                if variation_depth == 0 {
                    if let Some(last) = moves.last_mut() {
                        last.1 = Some(comment);
                    }
                }
                while chars.peek().is_some_and(|&(j, _)| j <= close) {
                    chars.next();
                }
            }
            ';' => {
                while chars.peek().is_some_and(|&(_, ch)| ch != '\n') {
                    chars.next();
                }
            }
            '(' => variation_depth += 1,
            ')' if variation_depth == 0 => return Err("unbalanced ')' in the movetext".into()),
            ')' => variation_depth -= 1,
            c if c.is_whitespace() => {}
            _ => {
                let end = movetext[i..]
                    .find(|ch: char| ch.is_whitespace() || "{}();".contains(ch))
                    .map_or(movetext.len(), |e| i + e);
                let token = &movetext[i..end];
                while chars.peek().is_some_and(|&(j, _)| j < end) {
                    chars.next();
                }
                if variation_depth > 0
                    || token.starts_with('$')
                    || ["1-0", "0-1", "1/2-1/2", "*"].contains(&token)
                {
                    continue;
                }
                // Strip move numbers such as "12." or "12..." (possibly glued to the move); digits
                // without a dot are part of the move, as in zero-style castling `0-0`.
                let digits = token.trim_start_matches(|ch: char| ch.is_ascii_digit());
                let san = match digits.strip_prefix('.') {
                    Some(_) => digits.trim_start_matches('.'),
                    None => token,
                };
                if san.is_empty() {
                    continue;
                }
                let mv = board.parse_san(san).ok_or_else(|| {
                    format!("illegal or unreadable move '{san}' in {}", board.to_fen())
                })?;
                board.make_move(mv);
                moves.push((mv, None));
            }
        }
    }
    Ok(PgnGame {
        start,
        moves,
        result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_games_with_comments_and_variations() {
        let pgn = r#"[Event "test"]
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
}
