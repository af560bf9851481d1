//! The engine facade: a position, options and a search that runs in the background. It knows
//! nothing of UCI; the UCI loop, bench and datagen are its clients.

use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::board::Board;
use crate::nnue::{Network, NetworkError, EMBEDDED_NET_NAME};
use crate::search::{Limits, Reporter, SearchResult};
use crate::thread::{self, SharedContext, ThreadData};
use crate::tt::TranspositionTable;

pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 1 << 20;
pub const MAX_THREADS: usize = 512;

/// Settings that shape searches, as the UCI options set them.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: Duration,
    pub chess960: bool,
    /// The net in use: a file path, or the embedded net's name.
    pub eval_file: String,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            multipv: 1,
            move_overhead: Duration::from_millis(10),
            chess960: false,
            eval_file: EMBEDDED_NET_NAME.to_string(),
        }
    }
}

/// Search state that moves into the background search and comes back when it ends.
struct Workers {
    shared: Arc<SharedContext>,
    threads: Vec<ThreadData>,
}

pub struct Engine {
    board: Board,
    options: Options,
    idle: Option<Workers>,
    running: Option<(Arc<SharedContext>, JoinHandle<Workers>)>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new(Network::embedded())
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
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn set_board(&mut self, mut board: Board) {
        board.set_chess960(board.is_chess960() || self.options.chess960);
        self.board = board;
    }

    pub fn is_searching(&self) -> bool {
        self.running.is_some()
    }

    /// The idle workers, waiting for a running search to finish first.
    fn workers(&mut self) -> &mut Workers {
        if let Some((_, handle)) = self.running.take() {
            self.idle = Some(handle.join().expect("search thread panicked"));
        }
        self.idle.as_mut().expect("workers are idle once joined")
    }

    fn shared_mut(&mut self) -> &mut SharedContext {
        Arc::get_mut(&mut self.workers().shared).expect("no search holds the shared context")
    }

    pub fn network(&mut self) -> &Network {
        &self.workers().shared.network
    }

    /// Resizes the hash table; if the memory cannot be had, the old table stays.
    pub fn set_hash(&mut self, megabytes: usize) -> Result<(), String> {
        let megabytes = megabytes.clamp(1, MAX_HASH_MB);
        // Free the old table first so that growing it does not need both at once.
        self.shared_mut().tt = TranspositionTable::new(1).expect("a 1 MiB table");
        match TranspositionTable::new(megabytes) {
            Some(tt) => {
                self.shared_mut().tt = tt;
                self.options.hash_mb = megabytes;
                Ok(())
            }
            None => {
                self.shared_mut().tt = TranspositionTable::new(self.options.hash_mb)
                    .expect("the previous size fitted before");
                Err(format!(
                    "cannot allocate {megabytes} MiB for the hash table; keeping {} MiB",
                    self.options.hash_mb
                ))
            }
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
        self.options.multipv = multipv.max(1);
    }

    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.options.move_overhead = overhead;
    }

    pub fn set_chess960(&mut self, chess960: bool) {
        self.options.chess960 = chess960;
        self.board
            .set_chess960(chess960 || self.board.is_chess960());
    }

    /// Loads a net file; on any error the current net stays in use.
    pub fn load_network(&mut self, path: &Path) -> Result<(), NetworkError> {
        let network = Network::load(path)?;
        self.shared_mut().network = network;
        self.options.eval_file = path.display().to_string();
        Ok(())
    }

    /// Forgets everything learned from earlier positions (UCI `ucinewgame`, `Clear Hash`).
    pub fn clear(&mut self) {
        let workers = self.workers();
        workers.shared.tt.clear();
        for td in &mut workers.threads {
            td.clear_histories();
        }
    }

    /// Starts a search in the background; `on_done` receives the result when it ends.
    pub fn go(
        &mut self,
        mut limits: Limits,
        mut reporter: Box<dyn Reporter + Send>,
        on_done: Box<dyn FnOnce(SearchResult) + Send>,
    ) {
        self.prepare(&mut limits);
        let Workers {
            shared,
            mut threads,
        } = self.idle.take().expect("prepare left the workers idle");
        let board = self.board.clone();
        let handle_shared = Arc::clone(&shared);
        let handle = std::thread::spawn(move || {
            let result = thread::search(&shared, &mut threads, &board, &limits, reporter.as_mut());
            on_done(result);
            Workers { shared, threads }
        });
        self.running = Some((handle_shared, handle));
    }

    /// Searches in the calling thread and returns the result.
    pub fn search(&mut self, mut limits: Limits, reporter: &mut dyn Reporter) -> SearchResult {
        self.prepare(&mut limits);
        let board = self.board.clone();
        let Workers { shared, threads } = self.workers();
        thread::search(shared, threads, &board, &limits, reporter)
    }

    fn prepare(&mut self, limits: &mut Limits) {
        limits.multipv = self.options.multipv;
        limits.move_overhead = self.options.move_overhead;
        let shared = &self.workers().shared;
        shared.stop.store(false, Relaxed);
        shared.pondering.store(limits.ponder, Relaxed);
    }

    pub fn stop(&self) {
        if let Some((shared, _)) = &self.running {
            shared.pondering.store(false, Relaxed);
            shared.stop.store(true, Relaxed);
        }
    }

    /// The opponent played the expected move: the ponder search becomes a timed search.
    pub fn ponderhit(&self) {
        if let Some((shared, _)) = &self.running {
            shared.pondering.store(false, Relaxed);
        }
    }

    /// Blocks until the running search (if any) has finished and reported.
    pub fn wait(&mut self) {
        self.workers();
    }

    /// The network's static evaluation of the current position, from the side to move's view.
    pub fn static_eval(&mut self) -> i32 {
        let board = self.board.clone();
        let network = self.network();
        crate::nnue::AccumulatorStack::new(network, &board).evaluate(network, board.side_to_move())
    }
}
