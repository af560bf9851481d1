//! What every search thread reads and the main thread controls: the transposition table, the
//! network, the stop and ponder flags, per-thread node counters and the options a running search
//! reads.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use super::strength::Handicap;
use super::{Limits, DEFAULT_MOVE_OVERHEAD};
use crate::nnue::Network;
use crate::syzygy::SyzygyConfig;
use crate::tt::TranspositionTable;

/// One thread's node count on its own cache line, so counting never contends.
#[repr(align(64))]
#[derive(Default)]
struct NodeCounter(AtomicU64);

/// State every search thread reads: created once, resized only between searches.
pub struct SharedContext {
    pub tt: TranspositionTable,
    pub network: Box<Network>,
    /// Ends the search: the client's `stop`, or a limit reached.
    pub stop: AtomicBool,
    /// The client's `stop` alone: it releases an answer held for `go infinite` or `go ponder`,
    /// which a limit reached (the node budget of a limited strength) does not.
    pub stop_requested: AtomicBool,
    /// Set while a `go ponder` search waits for `ponderhit`.
    pub pondering: AtomicBool,
    node_counters: Vec<NodeCounter>,
    /// Lines to search and report (UCI `MultiPV`).
    pub multipv: usize,
    /// Time the time manager leaves for the trip to the clock (UCI `Move Overhead`).
    pub move_overhead: Duration,
    pub syzygy: SyzygyConfig,
    /// This search's strength limit (UCI `UCI_LimitStrength`, `Skill Level`); `None` at full
    /// strength.
    pub handicap: Option<Handicap>,
    /// Tablebase probes that answered, over all threads (probes are rare: one counter will do).
    pub tbhits: AtomicU64,
}

impl SharedContext {
    pub fn new(hash_mb: usize, network: Box<Network>, threads: usize) -> Self {
        Self {
            tt: TranspositionTable::new(hash_mb, threads)
                .expect("memory for the default hash table"),
            network,
            stop: AtomicBool::new(false),
            stop_requested: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            node_counters: (0..threads).map(|_| NodeCounter::default()).collect(),
            multipv: 1,
            move_overhead: DEFAULT_MOVE_OVERHEAD,
            syzygy: SyzygyConfig::default(),
            handicap: None,
            tbhits: AtomicU64::new(0),
        }
    }

    /// Publishes thread `id`'s node count for `go nodes`, `info nodes` and nps.
    pub fn publish_nodes(&self, id: usize, nodes: u64) {
        self.node_counters[id].0.store(nodes, Relaxed);
    }

    pub fn reset_nodes(&self) {
        for counter in &self.node_counters {
            counter.0.store(0, Relaxed);
        }
        self.tbhits.store(0, Relaxed);
    }

    pub fn total_nodes(&self) -> u64 {
        self.node_counters.iter().map(|c| c.0.load(Relaxed)).sum()
    }

    pub fn set_threads(&mut self, threads: usize) {
        self.node_counters
            .resize_with(threads, NodeCounter::default);
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// Holds the answer back while UCI forbids it: a `go infinite` until `stop`, a `go ponder`
    /// until `ponderhit` or `stop`, however soon the search itself ended.
    pub fn hold_answer(&self, limits: &Limits) {
        while (limits.infinite || self.pondering.load(Relaxed))
            && !self.stop_requested.load(Relaxed)
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
