//! Where self-play games start: a book position or the start position (or a double Fischer
//! random one), followed by a few uniformly random legal moves for diversity, and kept only if
//! a short search finds it balanced. Datagen and OpenBench's `genfens` both draw from here.

use std::path::Path;

use rand_xoshiro::rand_core::RngCore;
use thiserror::Error;

use crate::board::{Board, START_FEN};
use crate::engine::Engine;
use crate::search::{Limits, SearchResult, Silent};
use crate::types::Score;

#[derive(Debug, Error)]
pub enum BookError {
    #[error("cannot read book {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// `place` is `line N` of an EPD file or `game N` of a PGN, counted from 1.
    #[error("book {path}, {place}: {reason}")]
    Entry {
        path: String,
        place: String,
        reason: String,
    },
    #[error("book {0} holds no positions")]
    Empty(String),
    #[error(
        "every one of the {count} positions in book {path} ends the game (mate, stalemate or a \
         draw by rule)"
    )]
    AllFinished { path: String, count: usize },
}

/// Positions to start games from: FENs from an EPD file or the end positions of PGN games.
pub struct Book {
    positions: Vec<String>,
}

impl Book {
    /// Reads `.epd` (one position per line: four FEN fields, then the clocks if they are
    /// numbers; EPD operations such as `bm e4;` are ignored) or `.pgn`.
    pub fn load(path: &Path) -> Result<Self, BookError> {
        let name = path.display().to_string();
        let text = super::read_text(path).map_err(|source| BookError::Io {
            path: name.clone(),
            source,
        })?;
        // Each entry as (FEN, board): the board decides below whether a game can start there.
        let entries: Vec<(String, Board)> = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
        {
            crate::tools::pgn::parse_games(&text)
                .enumerate()
                .map(|(index, game)| {
                    let game = game.map_err(|reason| BookError::Entry {
                        path: name.clone(),
                        place: format!("game {}", index + 1),
                        reason,
                    })?;
                    let board = game.final_board();
                    Ok((board.to_fen(), board))
                })
                .collect::<Result<Vec<_>, _>>()?
        } else {
            text.lines()
                .enumerate()
                .filter(|(_, line)| !line.trim().is_empty())
                .map(|(index, line)| {
                    let mut fields = line.split_whitespace();
                    let mut fen: Vec<&str> = fields.by_ref().take(4).collect();
                    fen.extend(fields.take(2).take_while(|f| f.parse::<u32>().is_ok()));
                    let fen = fen.join(" ");
                    Board::from_fen(&fen)
                        .map(|board| (fen, board))
                        .map_err(|e| BookError::Entry {
                            path: name.clone(),
                            place: format!("line {}", index + 1),
                            reason: e.to_string(),
                        })
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        if entries.is_empty() {
            return Err(BookError::Empty(name));
        }
        // A book of finished games ends them in mate; no game can start there.
        let count = entries.len();
        let positions: Vec<String> = entries
            .into_iter()
            .filter(|(_, board)| board.outcome().is_none())
            .map(|(fen, _)| fen)
            .collect();
        if positions.is_empty() {
            return Err(BookError::AllFinished { path: name, count });
        }
        Ok(Self { positions })
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    pub fn random(&self, rng: &mut impl RngCore) -> Board {
        let fen = &self.positions[rng.next_u64() as usize % self.positions.len()];
        Board::from_fen(fen).expect("book positions were validated on load")
    }
}

/// The back rank of Chess960 position `index` (0..960), by Scharnagl's numbering.
pub fn chess960_back_rank(index: usize) -> [char; 8] {
    let mut rank = [' '; 8];
    let mut n = index % 960;
    rank[2 * (n % 4) + 1] = 'b';
    n /= 4;
    rank[2 * (n % 4)] = 'b';
    n /= 4;
    let mut place = |nth: usize, piece: char| {
        let file = (0..8)
            .filter(|&f| rank[f] == ' ')
            .nth(nth)
            .expect("a free file remains");
        rank[file] = piece;
    };
    place(n % 6, 'q');
    n /= 6;
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (first, second) = KNIGHTS[n];
    // Placing the first knight shifts the second one's index among the free files down by one.
    place(first, 'n');
    place(second - 1, 'n');
    for piece in ['r', 'k', 'r'] {
        place(0, piece);
    }
    rank
}

/// A double Fischer random start: each side's back rank chosen independently.
pub fn dfrc_board(white: usize, black: usize) -> Board {
    let white_rank = chess960_back_rank(white);
    let black_rank = chess960_back_rank(black);
    let rook_files = |rank: &[char; 8]| -> String {
        (0..8)
            .filter(|&f| rank[f] == 'r')
            .rev()
            .map(|f| (b'a' + f as u8) as char)
            .collect()
    };
    let fen = format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{} - 0 1",
        black_rank.iter().collect::<String>(),
        white_rank.iter().collect::<String>().to_uppercase(),
        rook_files(&white_rank).to_uppercase(),
        rook_files(&black_rank),
    );
    let mut board = Board::from_fen(&fen).expect("Chess960 back ranks form a legal position");
    board.set_chess960(true);
    board
}

/// Random plies after the start position, and after a book position (which is varied already).
pub const RANDOM_PLIES: std::ops::RangeInclusive<u32> = 8..=9;
pub const RANDOM_PLIES_AFTER_BOOK: std::ops::RangeInclusive<u32> = 2..=3;

/// Openings whose verification search scores beyond this are too lopsided to learn from.
pub const MAX_OPENING_SCORE: Score = 1000;

/// After this many openings in a row fail the balance check, the settings (or the net) are
/// taken to be unable to produce any, rather than drawing forever.
pub const MAX_OPENING_ATTEMPTS: usize = 10_000;

/// Where a game's opening begins, before its random plies.
#[derive(Clone, Copy)]
pub enum Start<'a> {
    StartPosition,
    /// A double Fischer random start.
    Dfrc,
    Book(&'a Book),
}

/// How to begin a game before the engine plays it.
pub struct OpeningSource<'a> {
    pub start: Start<'a>,
    /// Random plies to add, drawn uniformly from the range.
    pub random_plies: std::ops::RangeInclusive<u32>,
}

impl<'a> OpeningSource<'a> {
    /// Random plies default to fewer after a book position, which is varied already.
    pub fn new(start: Start<'a>, random_plies: Option<std::ops::RangeInclusive<u32>>) -> Self {
        let default = match start {
            Start::StartPosition | Start::Dfrc => RANDOM_PLIES,
            Start::Book(_) => RANDOM_PLIES_AFTER_BOOK,
        };
        Self {
            start,
            random_plies: random_plies.unwrap_or(default),
        }
    }

    /// Draws openings until a search of one (with `limits`, from a cleared engine) scores
    /// within ±`max_score`; `None` after `MAX_OPENING_ATTEMPTS` draws. The search result comes
    /// too: it is the one the first move of the game needs.
    pub fn balanced(
        &self,
        engine: &mut Engine,
        rng: &mut impl RngCore,
        limits: &Limits,
        max_score: Score,
    ) -> Option<(Board, SearchResult)> {
        for _ in 0..MAX_OPENING_ATTEMPTS {
            // A book position may already be drawn by rule (its halfmove clock past 100, say).
            let Some(board) = self.generate(rng).filter(|b| b.outcome().is_none()) else {
                continue;
            };
            engine.clear();
            engine.set_board(board.clone());
            let search = engine.search(limits.clone(), &mut Silent);
            if search.score.abs() <= max_score {
                return Some((board, search));
            }
        }
        None
    }

    /// A start followed by random legal moves; `None` if the random moves reached a position
    /// with no legal move (the caller draws again).
    pub fn generate(&self, rng: &mut impl RngCore) -> Option<Board> {
        let mut board = match self.start {
            Start::StartPosition => Board::from_fen(START_FEN).expect("start position parses"),
            Start::Dfrc => dfrc_board(rng.next_u64() as usize % 960, rng.next_u64() as usize % 960),
            Start::Book(book) => book.random(rng),
        };
        let span = u64::from(self.random_plies.end() - self.random_plies.start() + 1);
        let plies = self.random_plies.start() + (rng.next_u64() % span) as u32;
        for _ in 0..plies {
            let moves = board.legal_moves();
            if moves.is_empty() {
                return None;
            }
            board.make_move(moves[rng.next_u64() as usize % moves.len()]);
        }
        board.has_legal_move().then(|| {
            Board::from_fen(&board.to_fen())
                .map(|mut b| {
                    b.set_chess960(board.is_chess960());
                    b
                })
                .expect("a reached position prints a valid FEN")
        })
    }
}

#[cfg(test)]
mod tests {
    use rand_xoshiro::rand_core::SeedableRng;

    use super::*;

    #[test]
    fn scharnagl_numbering() {
        assert_eq!(
            chess960_back_rank(518).iter().collect::<String>(),
            "rnbqkbnr"
        );
        assert_eq!(chess960_back_rank(0).iter().collect::<String>(), "bbqnnrkr");
        let distinct: std::collections::HashSet<[char; 8]> =
            (0..960).map(chess960_back_rank).collect();
        assert_eq!(distinct.len(), 960);
    }

    #[test]
    fn dfrc_positions_are_legal() {
        let board = dfrc_board(0, 959);
        assert_eq!(board.legal_moves().len(), 20);
        assert!(board.is_chess960());
    }

    /// Plain FENs, EPD lines with operations, and lines with only four fields all load.
    #[test]
    fn epd_books_ignore_operations() {
        let path = std::env::temp_dir().join(format!("patina-book-{}.epd", std::process::id()));
        std::fs::write(
            &path,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
             r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; id \"ruy\";\n\
             \n\
             4k3/8/8/8/8/8/8/4K2R w K -\n",
        )
        .unwrap();
        let book = Book::load(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(book.len(), 3);
        assert_eq!(
            book.positions[1],
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -"
        );
    }

    /// A bad entry is named by its line in the file, blank lines counted.
    #[test]
    fn book_errors_name_the_line() {
        let path = std::env::temp_dir().join(format!("patina-bad-{}.epd", std::process::id()));
        std::fs::write(&path, "4k3/8/8/8/8/8/8/4K2R w K -\n\n4k3/8/8 w - -\n").unwrap();
        let error = Book::load(&path).err().unwrap().to_string();
        std::fs::remove_file(&path).unwrap();
        assert!(error.contains(", line 3: "), "{error}");
    }

    /// A byte-order mark and a Latin-1 tag value, as old tools write them, are read past.
    #[test]
    fn books_from_other_tools_load() {
        let path = std::env::temp_dir().join(format!("patina-latin-{}.pgn", std::process::id()));
        let mut bytes = b"\xef\xbb\xbf[White \"M\xfcller\"]\n\n1. e4 e5 *\n".to_vec();
        bytes.extend_from_slice(b"[White \"x\"]\n\n1. d4 *\n");
        std::fs::write(&path, bytes).unwrap();
        let book = Book::load(&path);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(book.unwrap().len(), 2);
    }

    /// Positions that end the game are dropped; a book of nothing else is refused.
    #[test]
    fn finished_positions_are_dropped() {
        let mated = "1. f3 e5 2. g4 Qh4# 0-1\n\n";
        let load = |text: &str| {
            let path = std::env::temp_dir().join(format!("patina-mate-{}.pgn", std::process::id()));
            std::fs::write(&path, text).unwrap();
            let book = Book::load(&path);
            std::fs::remove_file(&path).unwrap();
            book
        };
        assert_eq!(load(&format!("{mated}1. e4 *\n")).unwrap().len(), 1);
        assert!(matches!(
            load(mated),
            Err(BookError::AllFinished { count: 1, .. })
        ));
    }

    /// With a fixed seed the same openings come back, each balanced and playable.
    #[test]
    fn balanced_openings_are_reproducible() {
        let source = OpeningSource::new(Start::StartPosition, None);
        let draw = |seed| {
            let mut engine = Engine::default();
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let (board, search) = source
                .balanced(
                    &mut engine,
                    &mut rng,
                    &Limits::nodes(500),
                    MAX_OPENING_SCORE,
                )
                .expect("the start position's neighbourhood is balanced");
            assert!(search.score.abs() <= MAX_OPENING_SCORE);
            assert!(board.game_ply() == 0 && board.has_legal_move());
            board.to_fen()
        };
        assert_eq!(draw(3), draw(3));
    }
}
