//! `patina play`: a game against the engine in the terminal, line by line. The board is drawn
//! once a full move, after Patina's reply, so the screen reads well in any terminal (and in a
//! test's `tmux`). Input is read on a thread of its own, so that `undo` typed while Patina
//! thinks stops it at once.

use std::collections::VecDeque;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use patina::{Color, Engine, Move, Piece, PieceType, Reporter, SearchInfo, SearchResult, Square};

use crate::game::{color_name, line_san, pgn_date, random_below, End, Game, MoveError};
use crate::rating::Rating;
use crate::score::score_text;
use crate::strength::Strength;

const HELP: &str = "\
Moves: SAN (Nf3, exd5, e8=Q, O-O) or UCI (g1f3, e7e8q).
Commands:
  new [white|black] [960 [N] | fen FEN]   new game: your colour, Chess960 (start N), or a FEN
  undo                 take back your last move (and the engine's reply)
  go                   the engine plays the side to move; you take the other side
  flip                 turn the board around
  hint                 ask the engine for a move
  level                show the level; change it with
  level RATING         beginner, novice, club, tournament, expert, master, grandmaster,
                       a rating 1320 to 3000, or full (Patina's full strength)
  level time S | depth N | nodes N | threads N
  resign               give up the game
  save [FILE]          save the game as PGN (default: patina-<time>.pgn)
  pgn | fen | moves    print the PGN, the position's FEN, or the legal moves
  help                 this text
  quit                 leave";

/// Parses `patina play` options and plays on stdin and stdout.
pub fn main(args: &[String]) -> ExitCode {
    let mut ascii = false;
    for arg in args {
        match arg.as_str() {
            "--ascii" => ascii = true,
            "-h" | "--help" => {
                println!("usage: patina play [--ascii]\n\n{HELP}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("patina play: unknown option '{other}' (try --help)");
                return ExitCode::FAILURE;
            }
        }
    }
    let mut out = std::io::stdout();
    // Piped input is a script, run line by line; only a person at a terminal types an `undo`
    // meant for the search under way.
    let mut session = Session::new(ascii, std::io::stdin().is_terminal());
    match session.run(std::io::BufReader::new(std::io::stdin()), &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("patina play: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Keeps the engine's last report of a search to show its score and line.
#[derive(Default)]
struct LastInfo(Option<SearchInfo>);

impl Reporter for LastInfo {
    fn report(&mut self, info: &SearchInfo) {
        self.0 = Some(info.clone());
    }
}

/// What the session waits for: a line typed, the end of the input, or news of Patina's search,
/// which runs in the background.
enum Event {
    Line(std::io::Result<String>),
    End,
    Info(SearchInfo),
    Searched(SearchResult),
}

/// Passes a background search's reports to the session.
struct EventReporter(Sender<Event>);

impl Reporter for EventReporter {
    fn report(&mut self, info: &SearchInfo) {
        let _ = self.0.send(Event::Info(info.clone()));
    }
}

/// What came of Patina's turn to think.
enum Thought {
    Played(Option<Move>, Option<SearchInfo>),
    /// An `undo` typed during the search stopped it.
    Undone,
}

pub struct Session {
    game: Game,
    engine: Engine,
    human: Color,
    /// Board seen from Black's side.
    flipped: bool,
    ascii: bool,
    strength: Strength,
    /// Patina's playing strength; hints are at full strength.
    rating: Rating,
    threads: usize,
    /// Whether an `undo` typed during Patina's search stops it.
    undo_stops_search: bool,
    events: Receiver<Event>,
    sender: Sender<Event>,
    /// Lines typed while Patina thought, to run in order once it has moved.
    pending: VecDeque<Event>,
}

impl Session {
    pub fn new(ascii: bool, undo_stops_search: bool) -> Self {
        let (sender, events) = mpsc::channel();
        Self {
            game: Game::default(),
            engine: Engine::default(),
            human: Color::White,
            flipped: false,
            ascii,
            strength: Strength::MoveTime(Duration::from_secs(1)),
            rating: Rating::FULL,
            threads: 1,
            undo_stops_search,
            events,
            sender,
            pending: VecDeque::new(),
        }
    }

    /// Plays until `quit` or the end of the input.
    pub fn run(
        &mut self,
        input: impl BufRead + Send + 'static,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        let lines = self.sender.clone();
        std::thread::spawn(move || {
            for line in input.lines() {
                // Past a line that is not UTF-8 the input goes on; past another error it ends.
                let more = match &line {
                    Ok(_) => true,
                    Err(e) => e.kind() == std::io::ErrorKind::InvalidData,
                };
                if lines.send(Event::Line(line)).is_err() || !more {
                    return;
                }
            }
            let _ = lines.send(Event::End);
        });
        writeln!(
            out,
            "Patina: you play White. Type a move (e4, Nf3, g1f3) or 'help'."
        )?;
        self.advance(out)?;
        loop {
            self.prompt(out)?;
            let Some(line) = self.next_line() else {
                writeln!(out)?;
                return Ok(());
            };
            let line = match line {
                Ok(line) => line,
                // A line that is not UTF-8 is a typo like any other.
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    writeln!(out, "Cannot read that line: it is not UTF-8 text.")?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            if !self.command(line.trim(), out)? {
                return Ok(());
            }
        }
    }

    fn prompt(&self, out: &mut impl Write) -> std::io::Result<()> {
        if self.game.is_over() {
            write!(out, "Game over. 'new', 'undo', 'save' or 'quit'> ")?;
        } else {
            write!(out, "{} to move> ", color_name(self.game.side_to_move()))?;
        }
        out.flush()
    }

    /// Runs one line of input; `false` to leave.
    fn command(&mut self, line: &str, out: &mut impl Write) -> std::io::Result<bool> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&first) = words.first() else {
            return Ok(true);
        };
        match first.to_ascii_lowercase().as_str() {
            "quit" | "exit" | "q" => return Ok(false),
            "help" | "?" => writeln!(out, "{HELP}")?,
            "new" => self.new_game(&words[1..], out)?,
            _ if is_undo(first) => self.undo(out)?,
            "go" | "switch" => {
                if self.game.is_over() {
                    writeln!(out, "The game is over: 'new', 'undo' or 'save'.")?;
                } else {
                    self.human = !self.game.side_to_move();
                    self.advance(out)?;
                }
            }
            "flip" => {
                self.flipped = !self.flipped;
                self.draw(out)?;
            }
            "hint" => self.hint(out)?,
            "level" => self.level(&words[1..], out)?,
            "resign" => {
                if self.game.is_over() {
                    writeln!(out, "The game is already over.")?;
                } else {
                    self.game.resign(self.human);
                    self.status(out)?;
                }
            }
            // The rest of the line is the file name, spaces and all.
            "save" => self.save(line[first.len()..].trim(), out)?,
            "pgn" => write!(out, "{}", self.pgn())?,
            "fen" => writeln!(out, "{}", self.game.board().to_fen())?,
            "moves" => {
                let board = self.game.board();
                let moves: Vec<String> = board
                    .legal_moves()
                    .iter()
                    .map(|&mv| board.san(mv))
                    .collect();
                writeln!(out, "Legal moves: {}", moves.join(" "))?;
            }
            _ if words.len() == 1 => self.human_move(first, out)?,
            _ => writeln!(
                out,
                "Unknown command '{line}'. Type 'help' for the commands."
            )?,
        }
        Ok(true)
    }

    fn human_move(&mut self, text: &str, out: &mut impl Write) -> std::io::Result<()> {
        if !self.game.is_over() && self.game.side_to_move() != self.human {
            return self.advance(out);
        }
        match self.game.parse_move(text).and_then(|mv| self.game.play(mv)) {
            Ok(_) => self.advance(out),
            Err(MoveError::Illegal { text, legal }) => writeln!(
                out,
                "Illegal move '{text}' (or unknown command; type 'help').\nLegal moves: {}",
                legal.join(" ")
            ),
            Err(e) => writeln!(out, "Cannot play that: {e}."),
        }
    }

    /// The next line typed, those typed while Patina thought first; `None` at the end of the
    /// input.
    fn next_line(&mut self) -> Option<std::io::Result<String>> {
        loop {
            let event = match self.pending.pop_front() {
                Some(event) => event,
                None => self.events.recv().ok()?,
            };
            match event {
                Event::Line(line) => return Some(line),
                Event::End => return None,
                Event::Info(_) | Event::Searched(_) => {}
            }
        }
    }

    /// Lets the engine move while it is its turn, then draws the board once and announces the
    /// end; or takes the person's move back if they asked while Patina thought.
    fn advance(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let mut replies = Vec::new();
        while !self.game.is_over() && self.game.side_to_move() != self.human {
            writeln!(out, "Patina is thinking ({})...", self.level_text())?;
            out.flush()?;
            let Thought::Played(best, info) = self.think() else {
                return self.undo(out);
            };
            let Some(best) = best else { break };
            let before = self.game.board().clone();
            let number = before.fullmove_number();
            let dots = if before.side_to_move() == Color::White {
                "."
            } else {
                "..."
            };
            let Ok(san) = self.game.play(best) else { break };
            let mut reply = format!("Patina played {number}{dots} {san}");
            if let Some(info) = info {
                reply += &format!(
                    "  (score {}, depth {}, {} nodes)\nLine: {}",
                    score_text(info.score, before.side_to_move()),
                    info.depth,
                    info.nodes,
                    line_san(&before, &info.pv)
                );
            }
            replies.push(reply);
        }
        self.draw_board(out)?;
        for reply in replies {
            writeln!(out, "{reply}")?;
        }
        self.status(out)
    }

    /// Searches in the background for Patina's move. Lines typed meanwhile wait for it, but an
    /// `undo` typed with nothing waiting before it (if `undo_stops_search`) stops the search.
    fn think(&mut self) -> Thought {
        self.engine.set_chess960(self.game.is_chess960());
        self.engine.set_board(self.game.board().clone());
        self.engine.set_strength(self.rating.strength());
        let done = self.sender.clone();
        self.engine.go(
            self.strength.limits(),
            Box::new(EventReporter(self.sender.clone())),
            Box::new(move |result| {
                let _ = done.send(Event::Searched(result));
            }),
        );
        let mut last = None;
        let mut undone = false;
        loop {
            let event = self
                .events
                .recv()
                .expect("the session holds a sender, so the channel stays open");
            match event {
                Event::Info(info) => last = Some(info),
                Event::Searched(result) if !undone => {
                    return Thought::Played(result.best_move, last);
                }
                Event::Searched(_) => return Thought::Undone,
                Event::Line(Ok(line))
                    if self.undo_stops_search && self.pending.is_empty() && is_undo(&line) =>
                {
                    self.engine.stop();
                    undone = true;
                }
                other => self.pending.push_back(other),
            }
        }
    }

    fn hint(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        if self.game.is_over() {
            return writeln!(out, "The game is over.");
        }
        writeln!(out, "Thinking ({})...", self.strength)?;
        let board = self.game.board().clone();
        self.engine.set_chess960(self.game.is_chess960());
        self.engine.set_board(board.clone());
        self.engine.set_strength(None);
        let mut last = LastInfo::default();
        let best = self
            .engine
            .search(self.strength.limits(), &mut last)
            .best_move;
        let info = last.0;
        match best {
            Some(mv) => {
                let score = info.map_or(String::new(), |i| {
                    format!(" (score {})", score_text(i.score, board.side_to_move()))
                });
                writeln!(out, "Hint: {}{score}", board.san(mv))
            }
            None => writeln!(out, "No move to suggest."),
        }
    }

    fn undo(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let human_moves = (0..self.game.moves().len()).any(|i| self.game.mover(i) == self.human);
        let resigned = matches!(self.game.end(), Some(End::Resignation { .. }));
        if !human_moves && !resigned {
            return writeln!(out, "Nothing to take back.");
        }
        if resigned {
            self.game.undo();
        } else {
            // Back to the last position where it was the person's turn before their move.
            while self.game.undo().is_some() {
                if self.game.side_to_move() == self.human {
                    break;
                }
            }
        }
        writeln!(out, "Took back. Your move again.")?;
        self.draw(out)
    }

    fn new_game(&mut self, args: &[&str], out: &mut impl Write) -> std::io::Result<()> {
        let mut human = None;
        let mut chess960 = None;
        let mut fen_game = None;
        let mut rest = args;
        while let Some((&word, tail)) = rest.split_first() {
            rest = tail;
            match word.to_ascii_lowercase().as_str() {
                "white" | "w" => human = Some(Color::White),
                "black" | "b" => human = Some(Color::Black),
                "960" | "chess960" | "frc" => {
                    // A number after `960` picks the start; any other word is the next option.
                    let index = match rest.first().map(|n| n.parse::<usize>()) {
                        Some(Ok(n)) if n < 960 => {
                            rest = &rest[1..];
                            n
                        }
                        Some(Ok(_)) => {
                            return writeln!(
                                out,
                                "Chess960 start positions are numbered 0 to 959."
                            );
                        }
                        _ => random_below(960),
                    };
                    chess960 = Some(index);
                }
                "fen" => {
                    let fen = rest.join(" ");
                    rest = &[];
                    match Game::from_fen(&fen, false) {
                        Ok(g) => {
                            human = human.or(Some(g.side_to_move()));
                            fen_game = Some(g);
                        }
                        Err(e) => return writeln!(out, "Bad FEN: {e}."),
                    }
                }
                other => {
                    return writeln!(
                        out,
                        "Unknown option '{other}': new [white|black] [960 [N] | fen FEN]"
                    )
                }
            }
        }
        self.game = match (chess960, fen_game) {
            (Some(_), Some(_)) => {
                return writeln!(out, "Choose a FEN or a Chess960 start, not both.");
            }
            (Some(index), None) => {
                writeln!(out, "Chess960 start position {index}.")?;
                Game::chess960(index)
            }
            (None, Some(game)) => game,
            (None, None) => Game::default(),
        };
        self.human = human.unwrap_or(self.human);
        self.flipped = self.human == Color::Black;
        self.engine.clear();
        writeln!(out, "New game: you play {}.", color_name(self.human))?;
        self.advance(out)
    }

    fn level(&mut self, args: &[&str], out: &mut impl Write) -> std::io::Result<()> {
        match args {
            [] => {}
            ["threads", n] => match n.parse::<usize>() {
                Ok(n) if (1..=256).contains(&n) => {
                    self.threads = n;
                    self.engine.set_threads(n);
                }
                _ => return writeln!(out, "threads must be 1 to 256, not '{n}'."),
            },
            [rating] => match Rating::parse(rating) {
                Ok(rating) => self.rating = rating,
                Err(e) => return writeln!(out, "{e}."),
            },
            [kind, value] => match Strength::parse(&kind.to_ascii_lowercase(), value) {
                Ok(strength) => self.strength = strength,
                Err(e) => return writeln!(out, "{e}."),
            },
            _ => {
                return writeln!(
                    out,
                    "Usage: level RATING | time S | depth N | nodes N | threads N"
                )
            }
        }
        writeln!(
            out,
            "Level: {}, {} thread{}.",
            self.level_text(),
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }

    fn pgn(&self) -> String {
        let (white, black) = match self.human {
            Color::White => ("You", "Patina"),
            Color::Black => ("Patina", "You"),
        };
        self.game.pgn(white, black, &pgn_date())
    }

    /// Saves the game as PGN to `path` (a default name when it is empty).
    fn save(&self, path: &str, out: &mut impl Write) -> std::io::Result<()> {
        let path = if path.is_empty() {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            format!("patina-{secs}.pgn")
        } else {
            path.to_string()
        };
        match std::fs::write(&path, self.pgn()) {
            Ok(()) => writeln!(out, "Saved the game to {path}."),
            Err(e) => writeln!(out, "Cannot save to {path}: {e}."),
        }
    }

    fn announce_end(&self, out: &mut impl Write) -> std::io::Result<()> {
        if let Some(end) = self.game.end() {
            writeln!(out, "{end} ({}).", end.result())?;
        }
        Ok(())
    }

    fn draw(&self, out: &mut impl Write) -> std::io::Result<()> {
        self.draw_board(out)?;
        self.status(out)
    }

    fn draw_board(&self, out: &mut impl Write) -> std::io::Result<()> {
        let board = render(&self.game, self.flipped, self.ascii);
        write!(out, "\n{board}")?;
        let moves = self.game.movetext();
        if !moves.is_empty() {
            writeln!(out, "Moves: {}", last_words(&moves, 12))?;
        }
        Ok(())
    }

    /// Whose turn it is, or how the game ended.
    fn status(&self, out: &mut impl Write) -> std::io::Result<()> {
        if self.game.is_over() {
            return self.announce_end(out);
        }
        let board = self.game.board();
        let who = if board.side_to_move() == self.human {
            "you"
        } else {
            "Patina"
        };
        let check = if board.in_check() { " Check!" } else { "" };
        writeln!(
            out,
            "{} to move ({who}).{check}  Level: {}.",
            color_name(board.side_to_move()),
            self.level_text()
        )
    }

    /// How Patina plays: its thinking limit, and its rating unless at full strength.
    fn level_text(&self) -> String {
        match self.rating.elo {
            Some(_) => format!("{}, {}", self.strength, self.rating),
            None => self.strength.to_string(),
        }
    }
}

fn is_undo(line: &str) -> bool {
    matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "undo" | "takeback"
    )
}

/// The last `count` moves of a long movetext, so the line stays readable.
fn last_words(text: &str, count: usize) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    if words.len() <= count * 3 / 2 {
        return text.to_string();
    }
    let mut start = words.len() - count;
    // Start at a move number.
    while start > 0 && !words[start].ends_with('.') {
        start -= 1;
    }
    format!("... {}", words[start..].join(" "))
}

/// The board as text: the last move's squares in brackets, the king in check in parentheses.
pub fn render(game: &Game, flipped: bool, ascii: bool) -> String {
    let board = game.board();
    let marked: Vec<Square> = game.last_move().map_or(Vec::new(), |mv| {
        let to = if mv.is_castle() {
            mv.castling_destinations().0
        } else {
            mv.to()
        };
        vec![mv.from(), to]
    });
    let checked = board
        .in_check()
        .then(|| board.king_square(board.side_to_move()));
    let files: String = (0..8)
        .map(|f| if flipped { 7 - f } else { f })
        .map(|f| format!(" {} ", (b'a' + f) as char))
        .collect();
    let mut text = format!("    {files}\n");
    for row in 0..8u8 {
        let rank = if flipped { row } else { 7 - row };
        text.push_str(&format!(" {}  ", rank + 1));
        for col in 0..8u8 {
            let file = if flipped { 7 - col } else { col };
            let sq = Square::from_coords(file, rank);
            let glyph = match board.piece_at(sq) {
                Some(piece) => glyph(piece, ascii),
                None if ascii => '.',
                None => '·',
            };
            let (open, close) = if Some(sq) == checked {
                ('(', ')')
            } else if marked.contains(&sq) {
                ('[', ']')
            } else {
                (' ', ' ')
            };
            text.push(open);
            text.push(glyph);
            text.push(close);
        }
        text.push_str(&format!("  {}\n", rank + 1));
    }
    text.push_str(&format!("    {files}\n"));
    text
}

fn glyph(piece: Piece, ascii: bool) -> char {
    let index = piece.piece_type().index();
    if ascii {
        let letter = PieceType::from_index(index).letter();
        return match piece.color() {
            Color::White => letter.to_ascii_uppercase(),
            Color::Black => letter,
        };
    }
    match piece.color() {
        Color::White => ['♙', '♘', '♗', '♖', '♕', '♔'][index],
        Color::Black => ['♟', '♞', '♝', '♜', '♛', '♚'][index],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: impl AsRef<[u8]>) -> String {
        let mut session = Session::new(true, false);
        session.strength = Strength::Depth(1);
        let mut out = Vec::new();
        let input = std::io::Cursor::new(input.as_ref().to_vec());
        session.run(input, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn draws_the_board_with_marks() {
        let mut game = Game::default();
        for text in ["f3", "e5", "g4", "Qh4"] {
            let mv = game.parse_move(text).unwrap();
            game.play(mv).unwrap();
        }
        let text = render(&game, false, true);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "     a  b  c  d  e  f  g  h ");
        assert_eq!(lines[1], " 8   r  n  b [.] k  b  n  r   8");
        assert_eq!(lines[4], " 5   .  .  .  .  p  .  .  .   5");
        assert_eq!(lines[5], " 4   .  .  .  .  .  .  P [q]  4");
        assert_eq!(lines[8], " 1   R  N  B  Q (K) B  N  R   1");
        let flipped = render(&game, true, false);
        assert!(flipped
            .lines()
            .nth(1)
            .unwrap()
            .starts_with(" 1   ♖  ♘  ♗ (♔)"));
    }

    #[test]
    fn plays_a_game_with_undo_and_bad_input() {
        let out = run(
            "new black\nf6\nf3\nNf3\nundo\nhello world\ne9\nlevel depth 0\nresign\npgn\nquit\n",
        );
        assert!(out.contains("New game: you play Black."), "{out}");
        assert!(out.contains("Patina played 1. "), "{out}");
        assert!(out.contains("Took back."), "{out}");
        assert!(out.contains("Unknown command 'hello world'"), "{out}");
        assert!(out.contains("Illegal move 'e9'"), "{out}");
        assert!(out.contains("depth must be 1 to 100"), "{out}");
        assert!(out.contains("Black resigns: White wins (1-0)."), "{out}");
        assert!(out.contains("[Black \"You\"]"), "{out}");
    }

    #[test]
    fn plays_at_a_named_rating() {
        let out = run("level club\nlevel 4000\nlevel\nnew black\nlevel full\nquit\n");
        assert!(
            out.contains("Level: depth 1, rated 1800 (club), 1 thread."),
            "{out}"
        );
        assert!(
            out.contains("a rating must be 1320 to 3000, not 4000."),
            "{out}"
        );
        assert!(
            out.contains("Patina is thinking (depth 1, rated 1800 (club))..."),
            "{out}"
        );
        assert!(out.contains("Level: depth 1, 1 thread."), "{out}");
    }

    #[test]
    fn starts_chess960_and_fen_games() {
        let out = run("new 960 0 black\nfen\nnew 960 1000\nnew fen 8/8 w\nnew purple\nquit\n");
        assert!(out.contains("Chess960 start position 0."), "{out}");
        assert!(out.contains("New game: you play Black."), "{out}");
        assert!(out.contains("Patina played 1. "), "{out}");
        assert!(out.contains("numbered 0 to 959"), "{out}");
        assert!(out.contains("Bad FEN: "), "{out}");
        assert!(out.contains("Unknown option 'purple'"), "{out}");
    }

    #[test]
    fn announces_only_the_game_it_starts() {
        let out = run("new 960 7 purple\nnew 960 5 fen 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\nquit\n");
        assert!(!out.contains("Chess960 start position"), "{out}");
        assert!(out.contains("Unknown option 'purple'"), "{out}");
        assert!(out.contains("not both"), "{out}");
        assert!(!out.contains("New game"), "{out}");
    }

    #[test]
    fn go_after_the_end_changes_nothing() {
        let out = run("new white fen 6k1/8/8/8/8/8/1r3PPP/6K1 b - - 0 1\ngo\npgn\nquit\n");
        assert!(out.contains("Checkmate: Black wins (0-1)."), "{out}");
        assert!(out.contains("The game is over"), "{out}");
        assert!(out.contains("[White \"You\"]"), "{out}");
    }

    #[test]
    fn saves_to_a_name_with_spaces() {
        let dir = std::env::temp_dir().join(format!("patina-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a b.pgn");
        let out = run(format!("e4\nsave {}\nquit\n", path.display()));
        assert!(out.contains("Saved the game to"), "{out}");
        let pgn = std::fs::read_to_string(&path).unwrap();
        assert!(pgn.contains("1. e4"), "{pgn}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn survives_input_that_is_not_text() {
        let out = run(b"\xff\xfe\ne4\nquit\n");
        assert!(out.contains("not UTF-8 text"), "{out}");
        assert!(out.contains("Patina played 1... "), "{out}");
    }

    #[test]
    fn draws_the_board_once_a_full_move() {
        let out = run("e4\nd4\nquit\n");
        // The start, then once after each of Patina's replies, above the reply's line.
        assert_eq!(out.matches(" 8   r").count(), 3, "{out}");
        let reply = out.find("Patina played 1... ").unwrap();
        assert_eq!(out[..reply].matches(" 8   r").count(), 2, "{out}");
    }

    #[test]
    fn undo_stops_the_search() {
        let mut session = Session::new(true, true);
        session.strength = Strength::MoveTime(Duration::from_secs(20));
        let input = std::io::Cursor::new(b"e4\nundo\nquit\n".to_vec());
        let mut out = Vec::new();
        let started = std::time::Instant::now();
        session.run(input, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(started.elapsed() < Duration::from_secs(10), "{out}");
        assert!(!out.contains("Patina played"), "{out}");
        // At once, with no prompt between.
        assert!(
            out.contains("Patina is thinking (20.00 s per move)...\nTook back. Your move again."),
            "{out}"
        );
        assert!(session.game.moves().is_empty());
    }

    #[test]
    fn announces_mate() {
        let out = run("f3\nnew fen 4k3/8/4K3/8/8/8/8/7R w - - 0 1\nRh8\nquit\n");
        assert!(out.contains("Checkmate: White wins (1-0)."), "{out}");
        assert!(out.contains("Game over."), "{out}");
    }
}
