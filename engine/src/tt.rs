//! The shared transposition table. Racy by design (every search thread reads and writes it
//! without locks) but sound: each entry is two relaxed atomics, and the key is stored XORed
//! with the data so a torn read (key of one write, data of another) fails verification.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use bytemuck::Zeroable;

use crate::memory::{self, LargeBuffer};
use crate::types::score::{self, Score};
use crate::types::Move;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    /// Only the static evaluation is known.
    None = 0,
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

/// A verified copy of an entry: what a probe hands the search.
#[derive(Copy, Clone, Debug)]
pub struct TtHit {
    pub mv: Option<Move>,
    /// Mate scores are already converted to be relative to the probing ply.
    pub score: Score,
    pub eval: Score,
    pub depth: i32,
    pub bound: Bound,
    pub was_pv: bool,
}

impl TtHit {
    /// Whether the stored bound settles a search of the window (alpha, beta).
    pub fn cuts(&self, alpha: Score, beta: Score) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
            Bound::None => false,
        }
    }

    /// A static evaluation sharpened by the stored bound when the bound is tighter.
    pub fn refine(&self, eval: Score) -> Score {
        let tighter = match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score > eval,
            Bound::Upper => self.score < eval,
            Bound::None => false,
        };
        if tighter && !score::is_decisive(self.score) {
            self.score
        } else {
            eval
        }
    }
}

#[derive(Zeroable)]
struct Entry {
    /// `key ^ data`, so that `stored_key ^ data == key` proves the pair was written together.
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

// Data packing: move 16 | score 16 | eval 16 | depth 8 | bound 2 | pv 1 | age 5.
const AGE_BITS: u32 = 5;
const AGE_CYCLE: u8 = 1 << AGE_BITS;

fn pack(
    mv: Option<Move>,
    score: Score,
    eval: Score,
    depth: i32,
    bound: Bound,
    pv: bool,
    age: u8,
) -> u64 {
    u64::from(mv.map_or(0, Move::to_bits))
        | u64::from(score as i16 as u16) << 16
        | u64::from(eval as i16 as u16) << 32
        | u64::from(depth.clamp(0, 255) as u8) << 48
        | (bound as u64) << 56
        | u64::from(pv) << 58
        | u64::from(age) << 59
}

struct Unpacked {
    mv: Option<Move>,
    score: Score,
    eval: Score,
    depth: i32,
    bound: Bound,
    pv: bool,
    age: u8,
}

fn unpack(data: u64) -> Unpacked {
    Unpacked {
        mv: Move::from_bits(data as u16),
        score: Score::from((data >> 16) as u16 as i16),
        eval: Score::from((data >> 32) as u16 as i16),
        depth: i32::from((data >> 48) as u8),
        bound: match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        },
        pv: (data >> 58) & 1 != 0,
        age: (data >> 59) as u8,
    }
}

const ENTRIES_PER_BUCKET: usize = 4;

/// Four entries in one cache line: a probe touches a single line.
#[repr(C, align(64))]
#[derive(Zeroable)]
struct Bucket {
    entries: [Entry; ENTRIES_PER_BUCKET],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

pub struct TranspositionTable {
    buckets: LargeBuffer<Bucket>,
    age: AtomicU8,
}

impl TranspositionTable {
    /// A table of `megabytes` MiB, zeroed by `threads` threads; `None` if the memory cannot be
    /// had (the caller keeps its old table).
    pub fn new(megabytes: usize, threads: usize) -> Option<Self> {
        let count = megabytes.max(1).checked_mul(1 << 20)? / std::mem::size_of::<Bucket>();
        Some(Self {
            buckets: LargeBuffer::zeroed(count, threads)?,
            age: AtomicU8::new(0),
        })
    }

    /// Empties the table with `threads` threads sharing the work: one alone keeps a GUI's
    /// `ucinewgame` waiting about a second per 4 GiB.
    pub fn clear(&self, threads: usize) {
        let part = self.buckets.len().div_ceil(threads.max(1)).max(1);
        std::thread::scope(|scope| {
            for buckets in self.buckets.chunks(part) {
                scope.spawn(move || {
                    for entry in buckets.iter().flat_map(|b| &b.entries) {
                        entry.key_xor_data.store(0, Relaxed);
                        entry.data.store(0, Relaxed);
                    }
                });
            }
        });
        self.age.store(0, Relaxed);
    }

    /// Called once per search so entries from earlier searches are replaced first.
    pub fn new_search(&self) {
        self.age
            .store((self.age.load(Relaxed) + 1) % AGE_CYCLE, Relaxed);
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto the table without a modulo.
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Asks the memory to bring `key`'s bucket into the cache ahead of the probe.
    pub fn prefetch(&self, key: u64) {
        memory::prefetch(self.bucket(key));
    }

    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        for entry in &self.bucket(key).entries {
            let data = entry.data.load(Relaxed);
            if data == 0 || entry.key_xor_data.load(Relaxed) ^ data != key {
                continue;
            }
            let e = unpack(data);
            return Some(TtHit {
                mv: e.mv,
                score: score::from_tt(e.score, ply),
                eval: e.eval,
                depth: e.depth,
                bound: e.bound,
                was_pv: e.pv,
            });
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        mv: Option<Move>,
        score: Score,
        eval: Score,
        depth: i32,
        bound: Bound,
        pv: bool,
    ) {
        let age = self.age.load(Relaxed);
        let bucket = self.bucket(key);
        // Replace the same position if present, else the entry least worth keeping:
        // shallow and from older searches.
        let mut victim = &bucket.entries[0];
        let mut victim_worth = i32::MAX;
        let mut old_move = None;
        for entry in &bucket.entries {
            let data = entry.data.load(Relaxed);
            if entry.key_xor_data.load(Relaxed) ^ data == key {
                victim = entry;
                let old = unpack(data);
                old_move = old.mv;
                // Keep a much deeper entry from this search, whatever its bound, unless the new
                // one is exact; and never let a bare static eval (another thread's probe missed
                // just before this search stored a bound) wipe out a searched score.
                if (bound != Bound::Exact && old.age == age && old.depth > depth + 4)
                    || (bound == Bound::None && old.bound != Bound::None)
                {
                    return;
                }
                break;
            }
            let e = unpack(data);
            let relative_age = i32::from((AGE_CYCLE + age - e.age) % AGE_CYCLE);
            let worth = e.depth - 8 * relative_age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = entry;
            }
        }
        // A search that found no move keeps the move an earlier search stored.
        let mv = mv.or(old_move);
        let data = pack(mv, score::to_tt(score, ply), eval, depth, bound, pv, age);
        victim.data.store(data, Relaxed);
        victim.key_xor_data.store(key ^ data, Relaxed);
    }

    /// Permille of sampled entries written by the current search, for UCI `hashfull`.
    pub fn hashfull(&self) -> usize {
        let age = self.age.load(Relaxed);
        self.buckets
            .iter()
            .take(1000 / ENTRIES_PER_BUCKET)
            .flat_map(|b| &b.entries)
            .filter(|e| {
                let data = e.data.load(Relaxed);
                data != 0 && unpack(data).age == age
            })
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{MoveKind, Square};

    #[test]
    fn store_then_probe_round_trips() {
        let tt = TranspositionTable::new(1, 1).unwrap();
        let mv = Move::new(Square::E1, Square::E8, MoveKind::Quiet);
        tt.store(0xDEAD_BEEF, 3, Some(mv), -1234, 56, 9, Bound::Lower, true);
        let hit = tt.probe(0xDEAD_BEEF, 3).expect("stored entry is found");
        assert_eq!(
            (hit.mv, hit.score, hit.eval, hit.depth, hit.bound, hit.was_pv),
            (Some(mv), -1234, 56, 9, Bound::Lower, true)
        );
        assert!(tt.probe(0xDEAD_BEEE, 3).is_none());
    }

    #[test]
    fn mate_scores_are_stored_relative_to_the_node() {
        let tt = TranspositionTable::new(1, 1).unwrap();
        let mate_in_3_from_root = score::mate_in(5);
        tt.store(42, 2, None, mate_in_3_from_root, 0, 5, Bound::Exact, false);
        // The same node reached at ply 4 is two plies further from the mate's root.
        assert_eq!(tt.probe(42, 4).unwrap().score, score::mate_in(7));
    }

    #[test]
    fn clearing_in_parallel_empties_every_bucket() {
        for threads in [1, 3] {
            let tt = TranspositionTable::new(1, 1).unwrap();
            // Keys spread over the whole table: the multiply-shift index takes the high bits.
            let keys: Vec<u64> = (0..4096u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
                .collect();
            for &key in &keys {
                tt.store(key, 0, None, 1, 1, 5, Bound::Exact, false);
            }
            assert!(keys.iter().filter(|&&k| tt.probe(k, 0).is_some()).count() > 3000);
            tt.clear(threads);
            assert!(
                keys.iter().all(|&k| tt.probe(k, 0).is_none()),
                "{threads} threads"
            );
            assert!(tt
                .buckets
                .iter()
                .flat_map(|b| &b.entries)
                .all(|e| e.data.load(Relaxed) == 0));
        }
    }

    #[test]
    fn a_bare_eval_never_replaces_a_searched_score() {
        let tt = TranspositionTable::new(1, 1).unwrap();
        tt.store(42, 0, None, 120, 30, 2, Bound::Lower, false);
        tt.store(42, 0, None, -score::INFINITY, 35, 0, Bound::None, false);
        let hit = tt.probe(42, 0).unwrap();
        assert_eq!((hit.score, hit.depth, hit.bound), (120, 2, Bound::Lower));
        // A real bound still replaces it, and a bare eval fills an empty slot.
        tt.store(42, 0, None, 90, 30, 1, Bound::Upper, false);
        assert_eq!(tt.probe(42, 0).unwrap().bound, Bound::Upper);
        tt.store(43, 0, None, -score::INFINITY, 35, 0, Bound::None, false);
        assert_eq!(tt.probe(43, 0).unwrap().eval, 35);
    }

    #[test]
    fn torn_entry_is_rejected() {
        let tt = TranspositionTable::new(1, 1).unwrap();
        tt.store(7, 0, None, 10, 10, 3, Bound::Exact, false);
        let entry = tt
            .bucket(7)
            .entries
            .iter()
            .find(|e| e.data.load(Relaxed) != 0)
            .unwrap();
        entry
            .data
            .store(entry.data.load(Relaxed) ^ 1 << 20, Relaxed);
        assert!(tt.probe(7, 0).is_none());
    }
}
