//! Syzygy endgame tablebases, read through `shakmaty-syzygy`: a Rust prober whose reads are
//! checked against each file's size when it was opened, so a file truncated or corrupt before
//! then is an error to report. The files are memory-mapped on 64-bit targets: reading them
//! through the operating system costs a system call per few bytes, about 70 ms for the DTZ
//! ranking of a won 5-piece root. A mapped file cut short later, or a disk error, ends the
//! process (SIGBUS), as in other engines that map their tables.
//! Probes build a `shakmaty::Chess` from our bitboards; they happen only at nodes with few
//! pieces and no castling rights, so the conversion's cost hardly shows.
//! This module answers for one position (its WDL, its DTZ) and holds the `Syzygy*` options;
//! what to probe is the search's business, the ranking of the root moves included
//! (`search/root_moves.rs`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{PoisonError, RwLock, RwLockWriteGuard};

use shakmaty::{CastlingMode, Chess};
use shakmaty_syzygy::{Metric, ProbeError, SyzygyError, Tablebase};

use crate::board::Board;
use crate::types::{Color, PieceType};

/// Separates directories in `SyzygyPath`, as the platform separates paths in `PATH`.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The directories a `SyzygyPath` names.
pub fn directories(path: &str) -> impl Iterator<Item = &str> {
    path.split(PATH_SEPARATOR)
        .map(str::trim)
        .filter(|dir| !dir.is_empty())
}

/// Win, draw or loss for the side to move, the 50-move rule considered: a cursed win is won
/// only without that rule, a blessed loss lost only without it.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Wdl {
    Loss = -2,
    BlessedLoss = -1,
    Draw = 0,
    CursedWin = 1,
    Win = 2,
}

impl Wdl {
    fn from_syzygy(wdl: shakmaty_syzygy::Wdl) -> Self {
        match wdl {
            shakmaty_syzygy::Wdl::Loss => Self::Loss,
            shakmaty_syzygy::Wdl::BlessedLoss => Self::BlessedLoss,
            shakmaty_syzygy::Wdl::Draw => Self::Draw,
            shakmaty_syzygy::Wdl::CursedWin => Self::CursedWin,
            shakmaty_syzygy::Wdl::Win => Self::Win,
        }
    }

    /// The same result from the opponent's side.
    pub fn flip(self) -> Self {
        match self {
            Self::Loss => Self::Win,
            Self::BlessedLoss => Self::CursedWin,
            Self::Draw => Self::Draw,
            Self::CursedWin => Self::BlessedLoss,
            Self::Win => Self::Loss,
        }
    }
}

/// The tables found in a `SyzygyPath`.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    files: usize,
    skipped: Vec<String>,
    /// Read at every probe once anything failed, written only on a failure.
    failures: RwLock<Failures>,
    /// Whether `failures` holds any material: probes look there only then.
    any_failed: AtomicBool,
}

/// What went wrong in probes so far.
#[derive(Default)]
struct Failures {
    /// Each distinct error, in order.
    messages: Vec<String>,
    /// How many of `messages` the search has reported.
    reported: usize,
    /// The materials (`material_key`) and metrics whose probes failed: the search probes them
    /// no more, since shakmaty-syzygy would reopen a broken file at every probe. A position
    /// whose probe failed only through a capture into a broken table marks its whole material,
    /// which leaves some good probes out: the tables are broken, and the engine has said so.
    materials: HashSet<(u64, Metric)>,
}

impl Tablebases {
    /// Adds the tables of every directory in `path` (separated by `PATH_SEPARATOR`). Files are
    /// opened lazily, at their first probe. A directory that cannot be read (an unmounted
    /// drive) and a file whose size shows it corrupt are left out, each with a warning in
    /// `skipped`; only a path none of whose directories can be read is an error.
    pub fn open(path: &str) -> Result<Self, String> {
        let mut tables = new_tablebase();
        // By name: a table in two directories is one table (the later directory's file, if
        // it is not left out).
        let mut names = HashSet::new();
        let mut skipped = Vec::new();
        let mut unreadable = Vec::new();
        let dirs: Vec<&str> = directories(path).collect();
        if dirs.is_empty() {
            return Err("no directory in the Syzygy path".to_owned());
        }
        for &dir in &dirs {
            let entries = match std::fs::read_dir(dir) {
                Ok(entries) => entries,
                Err(e) => {
                    unreadable.push(format!("directory '{dir}': {e}"));
                    continue;
                }
            };
            for entry in entries.flatten() {
                let file = entry.path();
                let is_table = file
                    .extension()
                    .is_some_and(|ext| ext == "rtbw" || ext == "rtbz");
                if !is_table {
                    continue;
                }
                match tables.add_file(&file) {
                    Ok(()) => {
                        names.insert(entry.file_name());
                    }
                    Err(e) => skipped.push(format!("{}: {e}", file.display())),
                }
            }
        }
        if unreadable.len() == dirs.len() {
            return Err(format!("cannot read Syzygy {}", unreadable.join("; ")));
        }
        skipped.extend(unreadable);
        Ok(Self {
            tables,
            files: names.len(),
            skipped,
            failures: RwLock::default(),
            any_failed: AtomicBool::new(false),
        })
    }

    /// The table files left out, each with why.
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    /// The number of table files found.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The most pieces (kings included) of any table found.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// The position's result if it was reached by a capture or pawn move (the WDL tables store
    /// that), or `None` where no table answers; an error is kept for `unreported_failures`.
    pub fn probe_wdl(&self, board: &Board) -> Option<Wdl> {
        if self.failed_before(board, Metric::Wdl) {
            return None;
        }
        self.try_probe_wdl(board)
            .unwrap_or_else(|e| self.fail(board, Metric::Wdl, e))
    }

    /// Plies to the next capture or pawn move (or mate) with best play, positive when the side
    /// to move wins and negative when it loses; 0 in a draw. Where the table rounds (DTZ tables
    /// store some with less precision) the truth may be one ply further from zero: the tables
    /// round only where that ply cannot change the result for a clock at zero, so a position
    /// reached with a clock above zero may be ranked one ply off at the fifty-move limit.
    pub fn probe_dtz(&self, board: &Board) -> Option<i32> {
        if self.failed_before(board, Metric::Dtz) {
            return None;
        }
        self.try_probe_dtz(board)
            .unwrap_or_else(|e| self.fail(board, Metric::Dtz, e))
    }

    /// `probe_wdl`, with the error of a missing or broken table.
    pub fn try_probe_wdl(&self, board: &Board) -> Result<Option<Wdl>, String> {
        let Some(pos) = self.position(board) else {
            return Ok(None);
        };
        answer(self.tables.probe_wdl_after_zeroing(&pos)).map(|wdl| wdl.map(Wdl::from_syzygy))
    }

    /// `probe_dtz`, with the error of a missing or broken table.
    pub fn try_probe_dtz(&self, board: &Board) -> Result<Option<i32>, String> {
        let Some(pos) = self.position(board) else {
            return Ok(None);
        };
        match self.tables.probe_dtz(&pos) {
            // Many keep only the WDL tables: no DTZ then, but nothing broken either.
            Err(SyzygyError::MissingTable {
                metric: Metric::Dtz,
                ..
            }) => Ok(None),
            result => answer(result).map(|dtz| dtz.map(|dtz| dtz.ignore_rounding().0)),
        }
    }

    /// Probe errors not reported yet, each once.
    pub fn unreported_failures(&self) -> Vec<String> {
        let mut failures = self.write_failures();
        let new = failures.messages[failures.reported..].to_vec();
        failures.reported = failures.messages.len();
        new
    }

    /// Keeps `error` to report and the board's material to probe no more in `metric`.
    fn fail<T>(&self, board: &Board, metric: Metric, error: String) -> Option<T> {
        let mut failures = self.write_failures();
        if !failures.messages.contains(&error) {
            failures.messages.push(error);
        }
        failures.materials.insert((material_key(board), metric));
        self.any_failed.store(true, Relaxed);
        None
    }

    /// Whether probes of the board's material in `metric` failed before.
    fn failed_before(&self, board: &Board, metric: Metric) -> bool {
        self.any_failed.load(Relaxed)
            && self
                .failures
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .materials
                .contains(&(material_key(board), metric))
    }

    fn write_failures(&self) -> RwLockWriteGuard<'_, Failures> {
        self.failures
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The position as `shakmaty` holds it; `None` with castling rights or too many pieces.
    fn position(&self, board: &Board) -> Option<Chess> {
        if board.occupied().count() as usize > self.max_pieces() || board.has_castling_rights() {
            return None;
        }
        let mut pieces = shakmaty::Board::empty();
        for sq in board.occupied() {
            let piece = board.piece_at(sq)?;
            let role = match piece.piece_type() {
                PieceType::Pawn => shakmaty::Role::Pawn,
                PieceType::Knight => shakmaty::Role::Knight,
                PieceType::Bishop => shakmaty::Role::Bishop,
                PieceType::Rook => shakmaty::Role::Rook,
                PieceType::Queen => shakmaty::Role::Queen,
                PieceType::King => shakmaty::Role::King,
            };
            pieces.set_piece_at(square(sq.index()), role.of(color(piece.color())));
        }
        let setup = shakmaty::Setup {
            board: pieces,
            turn: color(board.side_to_move()),
            ep_square: board.en_passant().map(|sq| square(sq.index())),
            halfmoves: u32::from(board.halfmove_clock()),
            ..shakmaty::Setup::empty()
        };
        setup.position(CastlingMode::Standard).ok()
    }
}

/// An empty set of tables, read through memory maps where shakmaty-syzygy offers them.
#[cfg(target_pointer_width = "64")]
fn new_tablebase() -> Tablebase<Chess> {
    // SAFETY: memmap2's contract is that a mapped file does not change while mapped; the README
    // asks users not to change table files while the engine runs. One rewritten anyway gives
    // wrong answers, one cut short (or a disk error) stops the process with SIGBUS. Reads stay
    // within each file's size at opening.
    unsafe { Tablebase::with_mmap_filesystem() }
}

#[cfg(not(target_pointer_width = "64"))]
fn new_tablebase() -> Tablebase<Chess> {
    Tablebase::new()
}

/// Each side's count of each piece but the king, four bits each.
fn material_key(board: &Board) -> u64 {
    let mut key = 0;
    for color in [Color::White, Color::Black] {
        for piece_type in &PieceType::ALL[..5] {
            key = key << 4 | u64::from(board.colored_pieces(color, *piece_type).count());
        }
    }
    key
}

/// A probe's answer; castling rights and too many pieces mean no answer (no file was read).
fn answer<T>(result: Result<T, SyzygyError>) -> Result<Option<T>, String> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(SyzygyError::Castling | SyzygyError::TooManyPieces) => Ok(None),
        Err(error) => Err(describe(&error)),
    }
}

/// The error on one line: shakmaty-syzygy's own text of a corrupt table carries a backtrace.
fn describe(error: &SyzygyError) -> String {
    match error {
        SyzygyError::ProbeFailed {
            metric,
            material,
            error,
        } => {
            let why = match &**error {
                ProbeError::Read { error } => format!("cannot read it: {error}"),
                ProbeError::Magic { .. } => "not a table file (bad magic bytes)".to_owned(),
                ProbeError::CorruptedTable { .. } => "corrupted or truncated".to_owned(),
            };
            format!("{metric} table {material}: {why}")
        }
        other => other.to_string(),
    }
}

fn square(index: usize) -> shakmaty::Square {
    shakmaty::Square::new(index as u32)
}

fn color(color: Color) -> shakmaty::Color {
    match color {
        Color::White => shakmaty::Color::White,
        Color::Black => shakmaty::Color::Black,
    }
}

/// Tablebases and how the search uses them: the `Syzygy*` UCI options.
pub struct SyzygyConfig {
    pub tables: Option<Tablebases>,
    /// The depth from which the search probes positions with as many pieces as the largest
    /// tables (fewer pieces are probed at any depth).
    pub probe_depth: i32,
    /// The most pieces probed, at most the largest tables' count.
    pub probe_limit: usize,
    /// Whether a win the fifty-move rule would spoil (a cursed win) counts as a draw.
    pub rule50: bool,
}

impl Default for SyzygyConfig {
    fn default() -> Self {
        Self {
            tables: None,
            probe_depth: 1,
            probe_limit: 7,
            rule50: true,
        }
    }
}

impl SyzygyConfig {
    /// The most pieces a probe may see; 0 without tables.
    pub fn cardinality(&self) -> usize {
        self.tables
            .as_ref()
            .map_or(0, |t| t.max_pieces().min(self.probe_limit))
    }
}
