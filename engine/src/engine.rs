//! The engine facade: a position, options and a search that runs in the background. It knows
//! nothing of UCI; the UCI loop, bench and datagen are its clients.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::board::Board;
use crate::nnue::{Network, NetworkError};
use crate::search::smp;
use crate::search::strength::{Handicap, Strength};
use crate::search::{Limits, Reporter, SearchResult};
use crate::search::{SharedContext, ThreadData};
use crate::syzygy::{self, Tablebases, Wdl};
use crate::tt::TranspositionTable;
use crate::types::score::TB_WIN_BOUND;

pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 1 << 20;
pub const MAX_THREADS: usize = 512;

/// The engine's settings, as the UCI options set them. The ones a running search reads
/// (`MultiPV`, `Move Overhead`) are kept in its `SharedContext` alone.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub chess960: bool,
    /// The net file in use; `None` for the net built into the binary.
    pub eval_file: Option<PathBuf>,
    /// Play below full strength; `None` (the default) is full strength.
    pub strength: Option<Strength>,
    /// Seeds the random choice of a limited strength anew at each game (`clear`), so that a
    /// game repeats; `None` (the default) seeds each game from the clock, so games vary.
    pub strength_seed: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            chess960: false,
            eval_file: None,
            strength: None,
            strength_seed: None,
        }
    }
}

/// Search state that moves into the background search and comes back when it ends.
struct Workers {
    shared: Arc<SharedContext>,
    threads: Vec<ThreadData>,
}

/// A search running in the background.
struct Running {
    shared: Arc<SharedContext>,
    handle: JoinHandle<Workers>,
    /// `go infinite`, or a `go` with no limit: only `stop` ends it.
    unbounded: bool,
}

/// One search at a time runs in the background. Methods that change search state (`go`,
/// `search`, the option setters but `set_chess960`, `clear`, `network`) first wait for a
/// running search to end: `stop` it before calling them to end it early. The position may
/// change during a search, which started from a copy of it.
pub struct Engine {
    board: Board,
    options: Options,
    idle: Option<Workers>,
    running: Option<Running>,
    /// The random draws of a limited strength's choice of move, one per search.
    rng: Xoshiro256PlusPlus,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new(Network::embedded())
    }
}

/// An engine dropped mid-search stops it and joins its thread: left running, a `go infinite`
/// would keep a core busy, and its hash table alive, for the rest of the process.
impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        if let Some(running) = self.running.take() {
            // A search thread that panicked has nothing left to stop.
            let _ = running.handle.join();
        }
    }
}

impl Engine {
    pub fn new(network: Box<Network>) -> Self {
        let options = Options::default();
        let shared = SharedContext::new(options.hash_mb, network, options.threads);
        let threads = vec![ThreadData::new(0, &shared.network)];
        Self {
            board: Board::startpos(),
            options,
            idle: Some(Workers {
                shared: Arc::new(shared),
                threads,
            }),
            running: None,
            rng: Xoshiro256PlusPlus::seed_from_u64(clock_seed()),
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn set_board(&mut self, mut board: Board) {
        board.set_chess960(self.options.chess960);
        self.board = board;
    }

    pub fn is_searching(&self) -> bool {
        self.running.is_some()
    }

    /// The idle workers, waiting for a running search to finish first.
    fn workers(&mut self) -> &mut Workers {
        if let Some(running) = self.running.take() {
            self.idle = Some(running.handle.join().expect("search thread panicked"));
        }
        self.idle.as_mut().expect("workers are idle once joined")
    }

    fn shared_mut(&mut self) -> &mut SharedContext {
        Arc::get_mut(&mut self.workers().shared).expect("no search holds the shared context")
    }

    pub fn network(&mut self) -> &Network {
        &self.workers().shared.network
    }

    /// Resizes the hash table, which empties it. The old table is freed first so that growing it
    /// does not need both at once; if the new size cannot be had, the old size is used, or the
    /// largest halving of it that can be had, and the error says so.
    pub fn set_hash(&mut self, megabytes: usize) -> Result<(), String> {
        let requested = megabytes.clamp(1, MAX_HASH_MB);
        let previous = self.options.hash_mb;
        let threads = self.options.threads;
        let shared = self.shared_mut();
        // 1 MiB failing means the machine has no memory left; nothing else would work either.
        shared.tt = TranspositionTable::new(1, 1).expect("a 1 MiB table");
        let halvings = std::iter::successors(Some(previous), |&mb| (mb > 1).then_some(mb / 2));
        let (size, tt) = std::iter::once(requested)
            .chain(halvings)
            .find_map(|mb| Some((mb, TranspositionTable::new(mb, threads)?)))
            .expect("a 1 MiB table");
        shared.tt = tt;
        self.options.hash_mb = size;
        if size == requested {
            Ok(())
        } else {
            Err(format!(
                "cannot allocate {requested} MiB for the hash table; using {size} MiB"
            ))
        }
    }

    pub fn set_threads(&mut self, threads: usize) {
        self.options.threads = threads.clamp(1, MAX_THREADS);
        let count = self.options.threads;
        self.shared_mut().set_threads(count);
        let workers = self.workers();
        let network = &workers.shared.network;
        let existing = workers.threads.len();
        workers.threads.truncate(count);
        workers
            .threads
            .extend((existing..count).map(|id| ThreadData::new(id, network)));
    }

    pub fn set_multipv(&mut self, multipv: usize) {
        self.shared_mut().multipv = multipv.max(1);
    }

    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.shared_mut().move_overhead = overhead;
    }

    /// Plays below full strength from the next search on (`None`: full strength).
    pub fn set_strength(&mut self, strength: Option<Strength>) {
        self.options.strength = strength;
    }

    /// Fixes the seed of a limited strength's random choice (`None`: from the clock) and starts
    /// its sequence again, as a new game (`clear`) does.
    pub fn set_strength_seed(&mut self, seed: Option<u64>) {
        self.options.strength_seed = seed;
        self.reseed();
    }

    fn reseed(&mut self) {
        let seed = self.options.strength_seed.unwrap_or_else(clock_seed);
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    }

    pub fn set_chess960(&mut self, chess960: bool) {
        self.options.chess960 = chess960;
        // Applies at once: a GUI may switch it off and search without a new `position`.
        self.board.set_chess960(chess960);
    }

    /// Opens the Syzygy tables in `path`'s directories (separated as in `PATH`); a path that
    /// names no directory, or `<empty>`, closes them. Says how many files and pieces were
    /// found; on an error the tables open before stay.
    pub fn set_syzygy_path(&mut self, path: &str) -> Result<String, String> {
        let syzygy = &mut self.shared_mut().syzygy;
        if path == "<empty>" || syzygy::directories(path).next().is_none() {
            syzygy.tables = None;
            return Ok("no tablebases".to_owned());
        }
        let tables = Tablebases::open(path)?;
        let mut found = format!(
            "found {} tablebase files, up to {} pieces",
            tables.files(),
            tables.max_pieces()
        );
        for skipped in tables.skipped() {
            found += &format!("; left out {skipped}");
        }
        syzygy.tables = Some(tables);
        Ok(found)
    }

    /// Positions with as many pieces as the largest tables are probed from this depth on.
    pub fn set_syzygy_probe_depth(&mut self, depth: i32) {
        self.shared_mut().syzygy.probe_depth = depth;
    }

    /// The most pieces probed (the largest tables found cap it).
    pub fn set_syzygy_probe_limit(&mut self, pieces: usize) {
        self.shared_mut().syzygy.probe_limit = pieces;
    }

    /// Whether tablebase wins the fifty-move rule would spoil count as draws.
    pub fn set_syzygy_50_move_rule(&mut self, rule50: bool) {
        self.shared_mut().syzygy.rule50 = rule50;
    }

    /// The tables' result (as if just after a capture or pawn move) and DTZ for the current
    /// position: `None` where no table answers, the DTZ `None` without DTZ tables.
    pub fn probe_tablebases(&mut self) -> Result<Option<(Wdl, Option<i32>)>, String> {
        let board = self.board.clone();
        let Some(tables) = &self.workers().shared.syzygy.tables else {
            return Ok(None);
        };
        let Some(wdl) = tables.try_probe_wdl(&board)? else {
            return Ok(None);
        };
        Ok(Some((wdl, tables.try_probe_dtz(&board)?)))
    }

    /// Loads a net file; on any error the current net stays in use.
    pub fn load_network(&mut self, path: &Path) -> Result<(), NetworkError> {
        let network = Network::load(path)?;
        self.install_network(network, Some(path.to_owned()));
        Ok(())
    }

    /// Goes back to the net built into the binary.
    pub fn use_embedded_network(&mut self) {
        if self.options.eval_file.is_some() {
            self.install_network(Network::embedded(), None);
        }
    }

    fn install_network(&mut self, network: Box<Network>, file: Option<PathBuf>) {
        self.shared_mut().network = network;
        self.options.eval_file = file;
    }

    /// Forgets everything learned from earlier positions (UCI `ucinewgame`, `Clear Hash`); a
    /// limited strength's random choice starts a new sequence.
    pub fn clear(&mut self) {
        self.reseed();
        let workers = self.workers();
        workers.shared.tt.clear(workers.threads.len());
        for td in &mut workers.threads {
            td.clear_histories();
        }
    }

    /// Starts a search in the background; `on_done` receives the result when it ends.
    pub fn go(
        &mut self,
        limits: Limits,
        mut reporter: Box<dyn Reporter + Send>,
        on_done: Box<dyn FnOnce(SearchResult) + Send>,
    ) {
        self.prepare(limits.ponder);
        let Workers {
            shared,
            mut threads,
        } = self.idle.take().expect("prepare left the workers idle");
        let board = self.board.clone();
        let unbounded = !limits.ends_by_itself(board.side_to_move());
        let running_shared = Arc::clone(&shared);
        let handle = std::thread::spawn(move || {
            let result = smp::search(&shared, &mut threads, &board, &limits, reporter.as_mut());
            on_done(result);
            Workers { shared, threads }
        });
        self.running = Some(Running {
            shared: running_shared,
            handle,
            unbounded,
        });
    }

    /// Searches in the calling thread and returns the result.
    pub fn search(&mut self, limits: Limits, reporter: &mut dyn Reporter) -> SearchResult {
        self.prepare(limits.ponder);
        let board = self.board.clone();
        let Workers { shared, threads } = self.workers();
        smp::search(shared, threads, &board, &limits, reporter)
    }

    fn prepare(&mut self, ponder: bool) {
        // One draw a search, taken here, so that a seeded engine's moves depend on its games
        // alone and never on the search's timing.
        let handicap = self.options.strength.map(|strength| Handicap {
            strength,
            draw: self.rng.next_u64(),
        });
        let shared = self.shared_mut();
        shared.handicap = handicap;
        shared.stop.store(false, Relaxed);
        shared.stop_requested.store(false, Relaxed);
        shared.pondering.store(ponder, Relaxed);
    }

    pub fn stop(&self) {
        if let Some(Running { shared, .. }) = &self.running {
            shared.pondering.store(false, Relaxed);
            shared.stop_requested.store(true, Relaxed);
            shared.stop.store(true, Relaxed);
        }
    }

    /// The opponent played the expected move: the ponder search becomes a timed search.
    pub fn ponderhit(&self) {
        if let Some(Running { shared, .. }) = &self.running {
            shared.pondering.store(false, Relaxed);
        }
    }

    /// Blocks until the running search (if any) has finished and reported.
    pub fn wait(&mut self) {
        self.workers();
    }

    /// Brings the engine to idle without cutting a search short: waits for a search that ends by
    /// itself and stops one that would not (`go infinite`, a `go` with no limit for the side to
    /// move, or a ponder search, whose `ponderhit` can no longer come first).
    pub fn finish(&mut self) {
        if let Some(Running {
            shared, unbounded, ..
        }) = &self.running
        {
            if *unbounded || shared.pondering.load(Relaxed) {
                self.stop();
            }
        }
        self.wait();
    }

    /// The network's static evaluation of the current position, from the side to move's view,
    /// kept inside the evaluation range as the search keeps it (never a tablebase score).
    pub fn static_eval(&mut self) -> i32 {
        let board = self.board.clone();
        let network = self.network();
        crate::nnue::AccumulatorStack::new(network, &board)
            .evaluate(network, board.side_to_move())
            .clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }
}

/// A seed that differs from game to game: the clock's nanoseconds.
fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64)
}
