//! The game a person plays against the engine, shared by the terminal and the web page: moves
//! read in SAN or UCI, takebacks, how the game ended, and its PGN (written, and read back in).

use std::fmt;
use std::fmt::Write;

use patina::openings::chess960_back_rank;
use patina::{Board, Color, FenError, Move, Outcome, PieceType};

/// A move of the game with its SAN, written before it was played (SAN depends on the position).
#[derive(Clone, Debug)]
pub struct PlayedMove {
    pub mv: Move,
    pub san: String,
}

/// How a game ended: by the rules on the board, by a resignation, or on time.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum End {
    Checkmate {
        winner: Color,
    },
    Stalemate,
    FiftyMoves,
    InsufficientMaterial,
    Repetition,
    Resignation {
        winner: Color,
    },
    /// `flagged`'s clock reached zero. The game is drawn when the other side could never mate
    /// (FIDE 6.9): it has a bare king, or a lone minor piece against one.
    Timeout {
        flagged: Color,
        drawn: bool,
    },
}

impl End {
    /// The side that won, if any.
    pub fn winner(self) -> Option<Color> {
        match self {
            Self::Checkmate { winner } | Self::Resignation { winner } => Some(winner),
            Self::Timeout { flagged, drawn } => (!drawn).then_some(!flagged),
            _ => None,
        }
    }

    /// The PGN result.
    pub fn result(self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Checkmate { winner } => write!(f, "Checkmate: {} wins", color_name(*winner)),
            Self::Resignation { winner } => {
                write!(
                    f,
                    "{} resigns: {} wins",
                    color_name(!*winner),
                    color_name(*winner)
                )
            }
            Self::Timeout { flagged, drawn } => {
                let other = color_name(!*flagged);
                if *drawn {
                    write!(
                        f,
                        "{} ran out of time and {other} cannot mate: draw",
                        color_name(*flagged)
                    )
                } else {
                    write!(f, "{} ran out of time: {other} wins", color_name(*flagged))
                }
            }
            Self::Stalemate => f.write_str("Stalemate: draw"),
            Self::FiftyMoves => f.write_str("Draw by the fifty-move rule"),
            Self::InsufficientMaterial => f.write_str("Draw: insufficient material"),
            Self::Repetition => f.write_str("Draw by threefold repetition"),
        }
    }
}

pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Why a typed move was not played. The messages list what would have been accepted, so a
/// person never has to guess the notation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MoveError {
    Empty,
    GameOver(End),
    /// No legal move reads so; `legal` holds every legal move in SAN.
    Illegal {
        text: String,
        legal: Vec<String>,
    },
    /// Several legal moves read so (`Nd2` with two knights, `e8` without a promotion piece).
    Ambiguous {
        text: String,
        candidates: Vec<String>,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("no move given"),
            Self::GameOver(end) => write!(f, "the game is over ({end})"),
            Self::Illegal { text, legal } => write!(
                f,
                "'{text}' is not a legal move here; legal moves: {}",
                legal.join(" ")
            ),
            Self::Ambiguous { text, candidates } => write!(
                f,
                "'{text}' is ambiguous; it could be {}",
                candidates.join(" or ")
            ),
        }
    }
}

impl std::error::Error for MoveError {}

#[derive(Clone, Debug)]
pub struct Game {
    start: Board,
    board: Board,
    moves: Vec<PlayedMove>,
    /// An end the board does not show: a resignation or a flag fall.
    declared: Option<End>,
}

impl Default for Game {
    fn default() -> Self {
        Self::new(Board::startpos())
    }
}

impl Game {
    pub fn new(start: Board) -> Self {
        Self {
            board: start.clone(),
            start,
            moves: Vec::new(),
            declared: None,
        }
    }

    /// A game from a FEN (X-FEN or Shredder-FEN for Chess960 castling).
    pub fn from_fen(fen: &str, chess960: bool) -> Result<Self, FenError> {
        let mut board = Board::from_fen(fen)?;
        board.set_chess960(chess960);
        Ok(Self::new(board))
    }

    /// Chess960 start position `index` (0..960, Scharnagl's numbering; 518 is the standard one).
    pub fn chess960(index: usize) -> Self {
        let rank: String = chess960_back_rank(index).iter().collect();
        // Shredder-FEN names the castling rooks' files, so no rook placement is ambiguous.
        let rooks: String = rank
            .char_indices()
            .filter(|&(_, piece)| piece == 'r')
            .map(|(file, _)| (b'a' + file as u8) as char)
            .rev()
            .collect();
        let fen = format!(
            "{rank}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{rooks} - 0 1",
            rank.to_ascii_uppercase(),
            rooks.to_ascii_uppercase()
        );
        Self::from_fen(&fen, true).expect("every Chess960 start position is a valid FEN")
    }

    /// The first game of a PGN text, its moves played from its start (a `FEN` tag, Chess960 by
    /// its `Variant` tag). The error says what could not be read, and where.
    pub fn from_pgn(text: &str) -> Result<Self, String> {
        let pgn = patina::pgn::parse_games(text)
            .next()
            .ok_or("the PGN holds no game")??;
        let mut game = Self::new(pgn.start);
        // The reader played each move, so each is legal; players may go on past a repetition
        // or the fifty-move rule, which only end a game when claimed.
        for (mv, _) in pgn.moves {
            game.push(mv);
        }
        Ok(game)
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The position after the first `ply` moves (`ply` at most `moves().len()`).
    pub fn board_at(&self, ply: usize) -> Board {
        let mut board = self.start.clone();
        for played in &self.moves[..ply] {
            board.make_move(played.mv);
        }
        board
    }

    pub fn start(&self) -> &Board {
        &self.start
    }

    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().map(|played| played.mv)
    }

    pub fn is_chess960(&self) -> bool {
        self.board.is_chess960()
    }

    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    pub fn end(&self) -> Option<End> {
        if self.declared.is_some() {
            return self.declared;
        }
        self.board.outcome().map(|outcome| match outcome {
            Outcome::Checkmate => End::Checkmate {
                winner: !self.board.side_to_move(),
            },
            Outcome::Stalemate => End::Stalemate,
            Outcome::FiftyMoves => End::FiftyMoves,
            Outcome::InsufficientMaterial => End::InsufficientMaterial,
            Outcome::Repetition => End::Repetition,
        })
    }

    pub fn is_over(&self) -> bool {
        self.end().is_some()
    }

    pub fn resign(&mut self, color: Color) {
        if !self.is_over() {
            self.declared = Some(End::Resignation { winner: !color });
        }
    }

    /// `color`'s clock reached zero.
    pub fn flag(&mut self, color: Color) {
        if !self.is_over() {
            let drawn = !can_mate(&self.board, !color);
            self.declared = Some(End::Timeout {
                flagged: color,
                drawn,
            });
        }
    }

    /// Reads a move in SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`; check marks, `x` and `=` optional) or
    /// UCI (`g1f3`, `e7e8q`).
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(MoveError::Empty);
        }
        if let Some(end) = self.end() {
            return Err(MoveError::GameOver(end));
        }
        let legal = self.board.legal_moves();
        let matches: Vec<Move> = if looks_like_uci(text) {
            match self.board.parse_uci_move(text) {
                Some(mv) => vec![mv],
                // A promotion without its piece names four moves.
                None => legal
                    .iter()
                    .copied()
                    .filter(|mv| {
                        mv.is_promotion() && mv.to_uci(false)[..4] == text.to_ascii_lowercase()
                    })
                    .collect(),
            }
        } else {
            let wanted = normalise_san(text);
            legal
                .iter()
                .copied()
                .filter(|&mv| self.spellings(mv).contains(&wanted))
                .collect()
        };
        match matches.as_slice() {
            [mv] => Ok(*mv),
            [] => Err(MoveError::Illegal {
                text: text.to_string(),
                legal: legal.iter().map(|&mv| self.board.san(mv)).collect(),
            }),
            _ => Err(MoveError::Ambiguous {
                text: text.to_string(),
                candidates: matches.iter().map(|&mv| self.board.san(mv)).collect(),
            }),
        }
    }

    /// Every way a person may write `mv` in SAN, normalised as `normalise_san` does: with or
    /// without disambiguation (an ambiguous spelling then matches several moves, which is how
    /// ambiguity is found) and, for a promotion, without the piece.
    fn spellings(&self, mv: Move) -> Vec<String> {
        if mv.is_castle() {
            return vec![normalise_san(&self.board.san(mv))];
        }
        let to = mv.to().to_string();
        let file = ((b'a' + mv.from().file()) as char).to_string();
        let rank = ((b'1' + mv.from().rank()) as char).to_string();
        let piece = self.board.piece_at(mv.from()).map(|p| p.piece_type());
        match piece {
            Some(PieceType::Pawn) | None => {
                let base = if mv.is_capture() { file + &to } else { to };
                match mv.promotion() {
                    Some(promotion) => {
                        let letter = promotion.letter().to_ascii_uppercase();
                        vec![format!("{base}{letter}"), base]
                    }
                    None => vec![base],
                }
            }
            Some(piece) => {
                let letter = piece.letter().to_ascii_uppercase();
                ["", &file, &rank, &(file.clone() + &rank)]
                    .iter()
                    .map(|hint| format!("{letter}{hint}{to}"))
                    .collect()
            }
        }
    }

    /// Plays a legal move and returns its SAN; an illegal one (a stale engine move) is refused.
    pub fn play(&mut self, mv: Move) -> Result<String, MoveError> {
        if let Some(end) = self.end() {
            return Err(MoveError::GameOver(end));
        }
        if !self.board.legal_moves().contains(&mv) {
            return Err(MoveError::Illegal {
                text: mv.to_uci(self.is_chess960()),
                legal: Vec::new(),
            });
        }
        Ok(self.push(mv))
    }

    /// Plays a legal move whether or not the game has ended; returns its SAN.
    fn push(&mut self, mv: Move) -> String {
        let san = self.board.san(mv);
        self.board.make_move(mv);
        self.moves.push(PlayedMove {
            mv,
            san: san.clone(),
        });
        san
    }

    /// Takes back the last move (a resignation or flag fall first, if there was one).
    pub fn undo(&mut self) -> Option<Move> {
        if self.declared.take().is_some() {
            return None;
        }
        let played = self.moves.pop()?;
        self.board.unmake_move(played.mv);
        Some(played.mv)
    }

    /// The side that made move `index` of the game.
    pub fn mover(&self, index: usize) -> Color {
        if index % 2 == 0 {
            self.start.side_to_move()
        } else {
            !self.start.side_to_move()
        }
    }

    /// The moves as numbered SAN: `1. e4 e5 2. Nf3`, or `5... Kf8 6. Qd3` from a FEN with
    /// Black to move.
    pub fn movetext(&self) -> String {
        numbered(
            &self.start,
            self.moves.iter().map(|played| played.san.as_str()),
        )
    }

    /// The game as PGN, with a FEN tag when it did not start from the standard position.
    pub fn pgn(&self, white: &str, black: &str, date: &str) -> String {
        let result = self.end().map_or("*", End::result);
        let mut pgn = String::new();
        for (name, value) in [
            ("Event", "Casual game"),
            ("Site", "Patina"),
            ("Date", date),
            ("Round", "-"),
            ("White", white),
            ("Black", black),
            ("Result", result),
        ] {
            let _ = writeln!(pgn, "[{name} \"{}\"]", pgn_escape(value));
        }
        if self.is_chess960() {
            let _ = writeln!(pgn, "[Variant \"Chess960\"]");
        }
        let fen = self.start.to_fen();
        if fen != Board::startpos().to_fen() || self.is_chess960() {
            let _ = writeln!(pgn, "[SetUp \"1\"]\n[FEN \"{fen}\"]");
        }
        pgn.push('\n');
        let mut text = self.movetext();
        if let Some(End::Resignation { winner }) = self.end() {
            let _ = write!(text, " {{{} resigns}}", color_name(!winner));
        }
        text.push(' ');
        text.push_str(result);
        pgn.push_str(wrap(text.trim_start(), 79).as_str());
        pgn.push('\n');
        pgn
    }
}

/// Whether `color` has the material to mate, as FIDE's rule on a flag fall asks: anything beyond
/// a bare king, unless it is a lone knight or bishop against a bare king.
fn can_mate(board: &Board, color: Color) -> bool {
    let pieces = |side: Color| board.colored(side).count();
    let minors = board.colored_pieces(color, PieceType::Knight).count()
        + board.colored_pieces(color, PieceType::Bishop).count();
    match pieces(color) {
        1 => false,
        2 => !(minors == 1 && pieces(!color) == 1),
        _ => true,
    }
}

/// Numbered SAN of `moves` (already in SAN) played from `start`.
fn numbered<'a>(start: &Board, moves: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::new();
    let mut number = start.fullmove_number();
    let mut color = start.side_to_move();
    for (i, san) in moves.enumerate() {
        if color == Color::White {
            let _ = write!(text, "{number}. ");
        } else if i == 0 {
            let _ = write!(text, "{number}... ");
        }
        text.push_str(san);
        text.push(' ');
        if color == Color::Black {
            number += 1;
        }
        color = !color;
    }
    text.truncate(text.trim_end().len());
    text
}

/// A principal variation in numbered SAN. It stops at the first move that is not legal, so a
/// line that went stale can never show as nonsense.
pub fn line_san(start_of_line: &Board, line: &[Move]) -> String {
    let mut board = start_of_line.clone();
    let mut sans = Vec::new();
    for &mv in line {
        if !board.legal_moves().contains(&mv) {
            break;
        }
        sans.push(board.san(mv));
        board.make_move(mv);
    }
    numbered(start_of_line, sans.iter().map(String::as_str))
}

fn looks_like_uci(text: &str) -> bool {
    let bytes = text.as_bytes();
    let square = |file: u8, rank: u8| {
        (b'a'..=b'h').contains(&file.to_ascii_lowercase()) && (b'1'..=b'8').contains(&rank)
    };
    matches!(bytes.len(), 4 | 5)
        && square(bytes[0], bytes[1])
        && square(bytes[2], bytes[3])
        && bytes.get(4).is_none_or(|p| b"qrbnQRBN".contains(p))
}

/// SAN as the move matcher compares it: no check, capture or promotion marks, castling with
/// letter O, piece letters other than `b` (a file) read as upper case, and a pawn push typed
/// with a capital file (`E4`, `B8=Q`: phone keyboards capitalise) read as lower case. Only a
/// push: a capital before `x` may be another language's piece letter (`Dxe5`, `Fxe5`).
fn normalise_san(text: &str) -> String {
    let text = text
        .trim_end_matches(['+', '#', '!', '?'])
        .trim_end_matches("e.p.")
        .trim_end();
    let castle = text.replace('0', "O").to_ascii_uppercase();
    if castle == "O-O" || castle == "O-O-O" {
        return castle;
    }
    let mut out: String = text
        .chars()
        .filter(|c| !matches!(c, 'x' | 'X' | ':' | '=' | '-'))
        .collect();
    let first = match out.as_bytes() {
        [piece @ (b'n' | b'r' | b'q' | b'k'), ..] => Some(piece.to_ascii_uppercase()),
        [file @ b'A'..=b'H', b'1'..=b'8', ..] => Some(file.to_ascii_lowercase()),
        _ => None,
    };
    if let Some(first) = first {
        out.replace_range(..1, &char::from(first).to_string());
    }
    // A lower-case promotion piece after the rank (`e8q`).
    if let [.., rank, piece] = out.as_bytes() {
        if rank.is_ascii_digit() && b"qrbn".contains(piece) {
            let upper = (*piece as char).to_ascii_uppercase();
            out.pop();
            out.push(upper);
        }
    }
    out
}

fn pgn_escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Breaks movetext into lines of at most `width` characters, as PGN export format asks.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for word in text.split_whitespace() {
        if line_len > 0 && line_len + 1 + word.len() > width {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
    }
    out
}

/// Today's date as PGN writes it (`2026.11.24`), from the system clock in UTC.
pub fn pgn_date() -> String {
    let today = time::OffsetDateTime::now_utc().date();
    format!(
        "{:04}.{:02}.{:02}",
        today.year(),
        u8::from(today.month()),
        today.day()
    )
}

/// A number below `n` (at least 1), to pick a colour or a Chess960 start.
pub fn random_below(n: usize) -> usize {
    rand::random_range(0..n.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use patina::Wing;

    fn play_all(game: &mut Game, moves: &[&str]) {
        for text in moves {
            let mv = game
                .parse_move(text)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            game.play(mv).unwrap();
        }
    }

    fn uci(game: &Game, text: &str) -> String {
        game.parse_move(text).unwrap().to_uci(false)
    }

    #[test]
    fn reads_san_and_uci() {
        let mut game = Game::default();
        assert_eq!(uci(&game, "Nf3"), "g1f3");
        assert_eq!(uci(&game, "nf3"), "g1f3");
        assert_eq!(uci(&game, "g1f3"), "g1f3");
        assert_eq!(uci(&game, "Ng1-f3"), "g1f3");
        assert_eq!(uci(&game, " e4+ "), "e2e4");
        play_all(&mut game, &["e4", "d5"]);
        assert_eq!(uci(&game, "exd5"), "e4d5");
        assert_eq!(uci(&game, "ed5"), "e4d5");
        play_all(&mut game, &["Nf3", "Nc6", "Bc4", "e6", "O-O"]);
        assert_eq!(game.moves().last().unwrap().san, "O-O");
        assert_eq!(
            game.board()
                .piece_at(patina::Square::parse("g1").unwrap())
                .map(|p| p.piece_type()),
            Some(PieceType::King)
        );
    }

    #[test]
    fn castling_in_every_spelling() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        for text in ["O-O", "0-0", "o-o", "e1g1", "e1h1", "O-O+"] {
            let game = Game::from_fen(fen, false).unwrap();
            let mv = game.parse_move(text).unwrap();
            assert!(mv.is_castle(), "{text}");
            assert_eq!(game.board().san(mv), "O-O");
        }
        let game = Game::from_fen(fen, false).unwrap();
        assert_eq!(game.board().san(game.parse_move("0-0-0").unwrap()), "O-O-O");
    }

    #[test]
    fn ambiguous_moves_list_their_candidates() {
        // Knights on b1 and f3 both reach d2; rooks on a1 and a5 both reach a3.
        let game = Game::from_fen("4k3/8/8/R7/8/8/8/RN2K3 w - - 0 1", false).unwrap();
        match game.parse_move("Ra3") {
            Err(MoveError::Ambiguous { candidates, .. }) => {
                assert_eq!(sorted(candidates), ["R1a3", "R5a3"]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(uci(&game, "R1a3"), "a1a3");
        assert_eq!(uci(&game, "Ra5a3"), "a5a3");
        let game = Game::from_fen("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", false).unwrap();
        let error = game.parse_move("Nd2").unwrap_err();
        assert_eq!(
            error.to_string(),
            "'Nd2' is ambiguous; it could be Nbd2 or Nfd2"
        );
        assert_eq!(uci(&game, "Nfd2"), "f3d2");
    }

    #[test]
    fn a_pawn_push_may_have_a_capital_file() {
        let game = Game::default();
        assert_eq!(uci(&game, "E4"), "e2e4");
        assert_eq!(uci(&game, "B3"), "b2b3");
        let promotion = Game::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", false).unwrap();
        assert_eq!(uci(&promotion, "B8=Q"), "b7b8q");
        // A capital before a capture stays a piece letter: German `Dxe5` (a queen) is not the
        // d-pawn's capture, and a pinned bishop's `Bxc4` is not the b-pawn's.
        let capture = Game::from_fen("4k3/8/8/4p3/3P4/8/8/4K3 w - - 0 1", false).unwrap();
        assert!(capture.parse_move("Dxe5").is_err());
        assert_eq!(uci(&capture, "dxe5"), "d4e5");
        let pinned = Game::from_fen("3r2k1/8/8/8/2p5/1P1B4/8/3K4 w - - 0 1", false).unwrap();
        assert!(pinned.parse_move("Bxc4").is_err());
    }

    #[test]
    fn promotions_need_a_piece() {
        let game = Game::from_fen("8/4P3/8/8/8/k7/8/K7 w - - 0 1", false).unwrap();
        for text in ["e8", "e7e8", "E7E8"] {
            match game.parse_move(text) {
                Err(MoveError::Ambiguous { candidates, .. }) => {
                    assert_eq!(sorted(candidates), ["e8=B", "e8=N", "e8=Q", "e8=R"]);
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        for text in ["e8=Q", "e8Q", "e8q", "e7e8q", "e7e8Q"] {
            assert_eq!(uci(&game, text), "e7e8q", "{text}");
        }
        assert_eq!(uci(&game, "e8=N"), "e7e8n");
    }

    #[test]
    fn illegal_and_garbage_input_is_an_error_not_a_panic() {
        let game = Game::default();
        for text in [
            "Nd3", "e5", "e2e5", "O-O", "Qxh7", "zz", "é4", "♘f3", "=", "x", "e9", "0", "h1h1",
        ] {
            match game.parse_move(text) {
                Err(MoveError::Illegal { legal, .. }) => assert_eq!(legal.len(), 20, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert_eq!(game.parse_move("  "), Err(MoveError::Empty));
        let message = game.parse_move("Nd3").unwrap_err().to_string();
        assert!(message.starts_with("'Nd3' is not a legal move here; legal moves: "));
        assert!(message.contains("Nf3") && message.contains("e4"));
    }

    #[test]
    fn undo_restores_the_position() {
        let mut game = Game::default();
        let start = game.board().to_fen();
        play_all(&mut game, &["e4", "e5", "Nf3"]);
        let after_two = {
            let mut g = Game::default();
            play_all(&mut g, &["e4", "e5"]);
            g.board().to_fen()
        };
        assert_eq!(game.undo().map(|m| m.to_uci(false)), Some("g1f3".into()));
        assert_eq!(game.board().to_fen(), after_two);
        assert_eq!(game.movetext(), "1. e4 e5");
        game.undo();
        game.undo();
        assert_eq!(game.undo(), None);
        assert_eq!(game.board().to_fen(), start);
        assert!(game.moves().is_empty());
    }

    #[test]
    fn detects_every_ending() {
        let mut game = Game::default();
        play_all(&mut game, &["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(
            game.end(),
            Some(End::Checkmate {
                winner: Color::Black
            })
        );
        assert_eq!(game.end().unwrap().to_string(), "Checkmate: Black wins");
        assert!(matches!(game.parse_move("e4"), Err(MoveError::GameOver(_))));
        game.undo();
        assert_eq!(game.end(), None);

        // The start position for the third time.
        let mut game = Game::default();
        play_all(&mut game, &["Nf3", "Nf6", "Ng1", "Ng8"]);
        assert_eq!(game.end(), None);
        play_all(&mut game, &["Nf3", "Nf6", "Ng1", "Ng8"]);
        assert_eq!(game.end(), Some(End::Repetition));

        let stalemate = Game::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false).unwrap();
        assert_eq!(stalemate.end(), Some(End::Stalemate));
        let bare = Game::from_fen("7k/8/6K1/8/8/8/8/2B5 b - - 0 1", false).unwrap();
        assert_eq!(bare.end(), Some(End::InsufficientMaterial));
        let mut fifty = Game::from_fen("7k/8/6K1/8/8/8/8/R7 w - - 99 80", false).unwrap();
        play_all(&mut fifty, &["Ra2"]);
        assert_eq!(fifty.end(), Some(End::FiftyMoves));
        assert_eq!(fifty.end().unwrap().result(), "1/2-1/2");

        let mut resigned = Game::default();
        resigned.resign(Color::White);
        assert_eq!(
            resigned.end(),
            Some(End::Resignation {
                winner: Color::Black
            })
        );
        assert_eq!(resigned.undo(), None);
        assert_eq!(resigned.end(), None);
    }

    #[test]
    fn pgn_export() {
        let mut game = Game::default();
        play_all(&mut game, &["f3", "e5", "g4", "Qh4"]);
        let pgn = game.pgn("You", "Patina", "2026.11.24");
        assert!(pgn.contains("[White \"You\"]\n[Black \"Patina\"]\n[Result \"0-1\"]\n"));
        assert!(!pgn.contains("[FEN"));
        assert!(pgn.ends_with("\n1. f3 e5 2. g4 Qh4# 0-1\n"), "{pgn}");
        // The export reads back as the same game.
        let parsed = patina::pgn::parse_games(&pgn).next().unwrap().unwrap();
        assert_eq!(parsed.result, "0-1");
        assert_eq!(parsed.final_board().to_fen(), game.board().to_fen());

        let mut game = Game::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 7", false).unwrap();
        play_all(&mut game, &["Kd7", "e4"]);
        game.resign(Color::Black);
        let pgn = game.pgn("A \"quoted\" name", "B", "2026.01.01");
        assert!(pgn.contains("[White \"A \\\"quoted\\\" name\"]"));
        assert!(pgn.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 7\"]"));
        assert!(
            pgn.ends_with("\n7... Kd7 8. e4 {Black resigns} 1-0\n"),
            "{pgn}"
        );
        let parsed = patina::pgn::parse_games(&pgn).next().unwrap().unwrap();
        assert_eq!(parsed.final_board().to_fen(), game.board().to_fen());
    }

    #[test]
    fn a_flag_fall_loses_unless_the_other_side_cannot_mate() {
        let mut game = Game::default();
        game.flag(Color::White);
        assert_eq!(game.end().unwrap().result(), "0-1");
        assert_eq!(
            game.end().unwrap().to_string(),
            "White ran out of time: Black wins"
        );
        assert_eq!(game.undo(), None);
        assert_eq!(game.end(), None);
        // Black has a lone knight against a bare king; then a knight against a pawn, which can mate.
        for (fen, result) in [
            ("4k3/8/8/8/8/8/8/3nK3 w - - 0 1", "1/2-1/2"),
            ("4k3/8/8/8/8/8/3P4/3nK3 w - - 0 1", "0-1"),
            ("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1", "1/2-1/2"),
        ] {
            let mut game = Game::from_fen(fen, false).unwrap();
            game.flag(Color::White);
            assert_eq!(game.end().unwrap().result(), result, "{fen}");
        }
    }

    #[test]
    fn pgn_import() {
        let game =
            Game::from_pgn("[Event \"x\"]\n\n1. e4 {book} e5 2. Nf3 (2. f4) Nc6 *\n").unwrap();
        assert_eq!(game.movetext(), "1. e4 e5 2. Nf3 Nc6");
        assert_eq!(game.board_at(1).to_fen(), {
            let mut board = Board::startpos();
            board.make_move(board.parse_uci_move("e2e4").unwrap());
            board.to_fen()
        });
        // Knights out and back twice, a threefold repetition nobody claimed, and play goes on.
        let repeated = Game::from_pgn("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 *");
        assert_eq!(repeated.unwrap().moves().len(), 9);
        let fen = Game::from_pgn("[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 7\"]\n\n7... Kd7 8. e4 *");
        assert_eq!(fen.unwrap().movetext(), "7... Kd7 8. e4");
        for (text, reason) in [
            ("", "the PGN holds no game"),
            ("1. e4 e5 2. Ke3 *", "illegal or unreadable move 'Ke3'"),
            ("1. e4 {never closed", "unclosed comment"),
            ("[FEN \"8/8 w\"]\n1. e4 *", "space-separated fields"),
        ] {
            let error = Game::from_pgn(text).unwrap_err();
            assert!(error.contains(reason), "{text}: {error}");
        }
    }

    #[test]
    fn chess960_starts() {
        let game = Game::chess960(518);
        assert_eq!(game.board().to_fen(), Board::startpos().to_fen());
        assert!(game.is_chess960());
        let game = Game::chess960(0);
        assert_eq!(
            game.board().to_fen().split(' ').next(),
            Some("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR")
        );
        let pgn = game.pgn("a", "b", "d");
        assert!(pgn.contains("[Variant \"Chess960\"]"));
        for index in 0..960 {
            let board = Game::chess960(index).board().clone();
            for (color, wing) in [(Color::White, Wing::King), (Color::Black, Wing::Queen)] {
                assert!(board.can_castle(color, wing), "{index}");
            }
        }
    }

    #[test]
    fn lines_in_san() {
        let board = Board::startpos();
        let mut after = board.clone();
        let moves: Vec<Move> = ["e2e4", "e7e5", "g1f3"]
            .iter()
            .map(|text| {
                let mv = after.parse_uci_move(text).unwrap();
                after.make_move(mv);
                mv
            })
            .collect();
        assert_eq!(line_san(&board, &moves), "1. e4 e5 2. Nf3");
        // A stale move ends the line.
        assert_eq!(line_san(&board, &[moves[0], moves[0]]), "1. e4");
        let mut black = board.clone();
        black.make_move(moves[0]);
        assert_eq!(line_san(&black, &moves[1..]), "1... e5 2. Nf3");
    }

    #[test]
    fn the_pgn_date_is_written_year_month_day() {
        let date = pgn_date();
        let fields: Vec<u32> = date.split('.').map(|f| f.parse().unwrap()).collect();
        assert!(date.len() == 10 && fields.len() == 3, "{date}");
        assert!(
            fields[0] >= 2026 && (1..=12).contains(&fields[1]) && (1..=31).contains(&fields[2])
        );
    }

    fn sorted(mut items: Vec<String>) -> Vec<String> {
        items.sort();
        items
    }
}
