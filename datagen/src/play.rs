//! `datagen play`: self-play on several threads into an output directory that a later run
//! with the same directory resumes.
//!
//! Worker `k` owns `thread-k.vf` and appends to it without locks. Game `i` of that file is
//! played from a generator seeded by `(seed, k, i)`, so a resumed run, which starts at `i` =
//! the games already there, never replays a game the directory holds (with the same `--seed`
//! or another). One run at a time holds a directory: two would play the same seeds.

use std::fs::File;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use clap::builder::TypedValueParser;
use clap::{Args, Parser};
use patina::nnue::{Network, NetworkError, EMBEDDED_NET_NAME};
use patina::openings::{Book, BookError, OpeningSource, Start, MAX_OPENING_SCORE};
use patina::score::Score;
use patina::{Engine, Tablebases, MAX_HASH_MB};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::adjudication::AdjudicationSettings;
use crate::progress::{Counts, Progress, Tally, Target};
use crate::recipe::{self, Claim, Recipe};
use crate::selfplay::{play_game, SelfPlayError, SelfPlaySettings};
use crate::spent::{self, RunClock};
use crate::writer::{GameWriter, WriteError};

#[derive(Parser, Debug)]
pub struct PlayArgs {
    /// Output directory: one `thread-<k>.vf` per thread; an existing one is resumed.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Worker threads, each with its own single-threaded engine.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096).map(|n| n as usize))]
    pub threads: usize,
    /// Net file (bullet layout); the embedded net by default.
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// Soft node limit per move: the search finishes the iteration that passes it.
    /// 2500 by default: at equal CPU time its games made a stronger net than games at 5000,
    /// and games at 1250 no better one (docs/experiments.md).
    #[arg(long, default_value_t = 2500)]
    pub nodes: u64,
    /// Hard node limit per move [default: 10 × --nodes].
    #[arg(long)]
    pub hard_nodes: Option<u64>,
    /// Random plies played before the engine takes over, `N` or `MIN-MAX`
    /// [default: 8-9, or 2-3 after a --book position].
    #[arg(long, value_parser = parse_plies)]
    pub random_plies: Option<RangeInclusive<u32>>,
    /// Start from positions of this EPD or PGN book (then add random plies).
    #[arg(long)]
    pub book: Option<PathBuf>,
    /// Double Fischer random starts (a --book brings its own positions).
    #[arg(long, conflicts_with = "book")]
    pub dfrc: bool,
    /// Seed for the random openings [default: from the clock, printed at start].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Transposition table per thread, in MB. A search of a few thousand nodes fills a fraction
    /// of 2 MB, and a table that stays in cache plays the same games faster than a larger one.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=MAX_HASH_MB as i64).map(|mb| mb as usize))]
    pub hash: usize,
    /// Discard openings whose first search scores beyond ±this (network units, as stored)
    #[arg(long, default_value_t = MAX_OPENING_SCORE)]
    pub max_opening_score: Score,
    #[command(flatten)]
    pub adjudication: AdjudicationSettings,
}

#[derive(Args, Debug, Clone, Copy)]
#[group(required = true, multiple = false)]
pub struct TargetArgs {
    /// Stop once the directory holds this many games.
    #[arg(long)]
    pub games: Option<u64>,
    /// Stop once the directory holds this many positions (moves stored).
    #[arg(long)]
    pub positions: Option<u64>,
}

impl From<TargetArgs> for Target {
    fn from(args: TargetArgs) -> Self {
        match (args.games, args.positions) {
            (Some(games), _) => Self::Games(games),
            (None, Some(positions)) => Self::Positions(positions),
            (None, None) => unreachable!("clap requires --games or --positions"),
        }
    }
}

fn parse_plies(text: &str) -> Result<RangeInclusive<u32>, String> {
    let number = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{t}' is not a number of plies"))
    };
    let (min, max) = match text.split_once('-') {
        Some((min, max)) => (number(min)?, number(max)?),
        None => (number(text)?, number(text)?),
    };
    if min > max {
        return Err(format!("{min} is more than {max}"));
    }
    Ok(min..=max)
}

#[derive(Debug, Error)]
pub enum PlayError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Net { path: PathBuf, source: NetworkError },
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    SelfPlay(#[from] SelfPlayError),
    #[error("--hash {0}: cannot allocate a table of {0} MiB per thread")]
    Hash(usize),
    #[error("--hard-nodes ({hard}) is below --nodes ({soft})")]
    HardBelowSoft { soft: u64, hard: u64 },
    #[error(
        "without random plies every game starts from the start position and is the same game; \
         give --random-plies above 0, a --book or --dfrc"
    )]
    OneOpening,
    #[error("{0} is in use by another datagen run (it holds {LOCK_FILE})")]
    Busy(PathBuf),
    #[error("--syzygy: {0}")]
    Syzygy(String),
    #[error("{0}")]
    Spent(String),
    #[error("{0}")]
    Recipe(String),
}

/// What one run added, for the summary and for tests.
#[derive(Debug)]
pub struct PlaySummary {
    pub before: Counts,
    pub run: Counts,
    pub elapsed: Duration,
}

const FILE_PREFIX: &str = "thread-";
const LOCK_FILE: &str = "datagen.lock";

/// Locks `out` for this run until the returned file is dropped: a second run on the same
/// directory would play the same seeds into the same files, and its start-up recovery could
/// cut off a game the first is writing as if it were torn.
fn lock_output(out: &Path) -> Result<File, PlayError> {
    let path = out.join(LOCK_FILE);
    let file = File::create(&path).map_err(|source| PlayError::Io {
        path: path.clone(),
        source,
    })?;
    // A lock just released can still be held for a moment: a child process that another
    // thread of this program is starting shares every open file, and so the lock, until its
    // exec closes them. So a held lock is retried for a second before the run is refused.
    for attempt in 0..=LOCK_RETRIES {
        // Called by path: the standard library's own `try_lock` needs a newer Rust than the
        // workspace's minimum.
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => return Ok(file),
            Err(fs4::TryLockError::WouldBlock) if attempt < LOCK_RETRIES => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(fs4::TryLockError::WouldBlock) => break,
            Err(fs4::TryLockError::Error(source)) => return Err(PlayError::Io { path, source }),
        }
    }
    Err(PlayError::Busy(out.to_path_buf()))
}

/// Retries of a held lock, 50 ms apart.
const LOCK_RETRIES: u32 = 20;

fn thread_file(out: &Path, thread: usize) -> PathBuf {
    out.join(format!("{FILE_PREFIX}{thread}.vf"))
}

/// Every `thread-<k>.vf` already in `out`, by thread number.
fn existing_threads(out: &Path) -> Result<Vec<usize>, PlayError> {
    let entries = std::fs::read_dir(out).map_err(|source| PlayError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    let mut threads: Vec<usize> = entries
        .filter_map(|entry| {
            let name = entry.ok()?.file_name();
            name.to_str()?
                .strip_prefix(FILE_PREFIX)?
                .strip_suffix(".vf")?
                .parse()
                .ok()
        })
        .collect();
    threads.sort_unstable();
    Ok(threads)
}

/// Mixes the run seed, the file and the game's index in it into one generator seed.
fn game_seed(seed: u64, thread: usize, index: u64) -> u64 {
    let splitmix = |mut z: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    splitmix(splitmix(splitmix(seed) ^ thread as u64) ^ index)
}

/// Hands out games to workers until the target is met or a worker has failed.
struct Budget {
    target: Target,
    claimed_games: AtomicU64,
    before_positions: u64,
    failed: AtomicBool,
}

impl Budget {
    fn claim(&self, tally: &Tally) -> bool {
        if self.failed.load(Relaxed) {
            return false;
        }
        match self.target {
            Target::Games(n) => self.claimed_games.fetch_add(1, Relaxed) < n,
            Target::Positions(n) => self.before_positions + tally.positions() < n,
        }
    }
}

/// One thread's engine and file, and the index in that file of its next game.
struct Worker {
    thread: usize,
    engine: Engine,
    writer: GameWriter,
    next_game: u64,
}

impl Worker {
    fn run(
        mut self,
        seed: u64,
        settings: &SelfPlaySettings,
        budget: &Budget,
        tally: &Tally,
    ) -> Result<(), PlayError> {
        while budget.claim(tally) {
            let game_seed = game_seed(seed, self.thread, self.next_game);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(game_seed);
            let record = play_game(&mut self.engine, &mut rng, settings)?;
            self.writer.write(&record.to_viriformat())?;
            tally.record(record.moves.len(), record.result);
            self.next_game += 1;
        }
        Ok(())
    }
}

/// Recovers every thread file in `out` (a torn final game is cut off) and counts what they
/// hold; returns that and a worker, with its engine, for each of the first `threads` files.
fn open_output(
    args: &PlayArgs,
    threads: usize,
    network: &Network,
) -> Result<(Counts, Vec<Worker>), PlayError> {
    let mut files = existing_threads(&args.out)?;
    files.extend(0..threads);
    files.sort_unstable();
    files.dedup();
    let mut before = Counts::default();
    let mut workers = Vec::with_capacity(threads);
    for thread in files {
        let path = thread_file(&args.out, thread);
        let (writer, existing) = GameWriter::open(&path)?;
        if existing.truncated > 0 {
            eprintln!(
                "{}: cut off {} bytes of a game that was being written",
                path.display(),
                existing.truncated
            );
        }
        before.games += existing.games;
        before.positions += existing.positions;
        if thread < threads {
            let mut engine = Engine::new(Box::new(network.clone()));
            engine
                .set_hash(args.hash)
                .map_err(|_| PlayError::Hash(args.hash))?;
            workers.push(Worker {
                thread,
                engine,
                writer,
                next_game: existing.games,
            });
        }
    }
    Ok((before, workers))
}

/// The settings that shape this run's games, for the directory's `selfplay-recipe`. Seeds,
/// threads and table sizes are left out: games of several runs that differ in them belong
/// together.
fn recipe(
    args: &PlayArgs,
    network: &Network,
    openings: &OpeningSource,
    soft: u64,
    hard: u64,
) -> Recipe {
    let file_name = |path: &Path| {
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        )
    };
    // Named as its file is, and known by its bytes: the embedded net and the same file given
    // by --net are one recipe, and two nets of one name are two.
    let name = args
        .net
        .as_deref()
        .map_or_else(|| EMBEDDED_NET_NAME.to_owned(), file_name);
    let digest = Sha256::digest(network.to_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    let net = format!("{name} sha256 {hex}");
    let start = match openings.start {
        Start::StartPosition => "start position".into(),
        Start::Dfrc => "double Fischer random".into(),
        Start::Book(_) => {
            let book = args
                .book
                .as_deref()
                .expect("a book start comes from --book");
            format!("book {}", file_name(book))
        }
    };
    let a = &args.adjudication;
    Recipe::new(vec![
        ("net", net),
        ("nodes", soft.to_string()),
        ("hard_nodes", hard.to_string()),
        (
            "openings",
            format!(
                "{start}, {}-{} random plies, first score within ±{}",
                openings.random_plies.start(),
                openings.random_plies.end(),
                args.max_opening_score
            ),
        ),
        (
            "adjudication",
            format!(
                "win beyond {} for {} plies, draw within ±{} for {} plies from move {}",
                a.win_score, a.win_plies, a.draw_score, a.draw_plies, a.draw_move
            ),
        ),
        (
            "tablebase_results",
            if a.syzygy.is_some() { "yes" } else { "no" }.into(),
        ),
    ])
}

pub fn run(args: &PlayArgs) -> Result<PlaySummary, PlayError> {
    let soft_nodes = args.nodes.max(1);
    let hard_nodes = args.hard_nodes.unwrap_or(soft_nodes.saturating_mul(10));
    if hard_nodes < soft_nodes {
        return Err(PlayError::HardBelowSoft {
            soft: soft_nodes,
            hard: hard_nodes,
        });
    }
    let single_opening = args.book.is_none()
        && !args.dfrc
        && args
            .random_plies
            .as_ref()
            .is_some_and(|plies| *plies.end() == 0);
    if single_opening {
        return Err(PlayError::OneOpening);
    }
    let network = match &args.net {
        Some(path) => Network::load(path).map_err(|source| PlayError::Net {
            path: path.clone(),
            source,
        })?,
        None => Network::embedded(),
    };
    let book = args.book.as_deref().map(Book::load).transpose()?;
    let tablebases = args
        .adjudication
        .syzygy
        .as_deref()
        .map(|path| match Tablebases::open(path) {
            // Adjudication asked for and impossible: refused, not silently skipped.
            Ok(tables) if tables.files() == 0 => {
                Err(format!("no Syzygy tables (.rtbw, .rtbz) in {path}"))
            }
            opened => opened,
        })
        .transpose()
        .map_err(PlayError::Syzygy)?;
    if let Some(tables) = &tablebases {
        eprintln!(
            "adjudicating by {} tablebase files, up to {} pieces",
            tables.files(),
            tables.max_pieces()
        );
        for skipped in tables.skipped() {
            eprintln!("left out {skipped}");
        }
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    eprintln!("seed {seed}");
    std::fs::create_dir_all(&args.out).map_err(|source| PlayError::Io {
        path: args.out.clone(),
        source,
    })?;
    let _lock = lock_output(&args.out)?;
    let (before, workers) = open_output(args, args.threads, &network)?;
    let start = match (&book, args.dfrc) {
        (Some(book), _) => Start::Book(book),
        (None, true) => Start::Dfrc,
        (None, false) => Start::StartPosition,
    };
    let openings = OpeningSource::new(start, args.random_plies.clone());
    let recipe = recipe(args, &network, &openings, soft_nodes, hard_nodes);
    if recipe
        .claim(&args.out, before.games)
        .map_err(PlayError::Recipe)?
        == Claim::Adopted
    {
        eprintln!(
            "{}: its {} games had no {}; taken to be of this run's",
            args.out.display(),
            before.games,
            recipe::FILE_NAME
        );
    }
    let mut clock =
        RunClock::start(&args.out, args.threads, before.games).map_err(PlayError::Spent)?;
    let save_failed = |source| PlayError::Io {
        path: args.out.join(spent::FILE_NAME),
        source,
    };

    let target = Target::from(args.target);
    let budget = Budget {
        target,
        claimed_games: AtomicU64::new(before.games),
        before_positions: before.positions,
        failed: AtomicBool::new(false),
    };
    let tally = Tally::default();
    let settings = SelfPlaySettings {
        openings,
        soft_nodes,
        hard_nodes,
        max_opening_score: args.max_opening_score,
        adjudication: args.adjudication.clone(),
        tablebases,
    };
    let progress = Progress::new(target, before);
    let results: Vec<Result<(), PlayError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .into_iter()
            .map(|worker| {
                let (settings, budget, tally) = (&settings, &budget, &tally);
                scope.spawn(move || {
                    let result = worker.run(seed, settings, budget, tally);
                    if result.is_err() {
                        // The others finish the game they are playing, then stop.
                        budget.failed.store(true, Relaxed);
                    }
                    result
                })
            })
            .collect();
        let mut saved = Ok(());
        while !handles.iter().all(|h| h.is_finished()) {
            progress.update(&tally.counts());
            if saved.is_ok() {
                saved = clock.save_now_and_then();
                if let Err(e) = &saved {
                    // The games go on; the run ends with this error once they are written.
                    eprintln!("warning: cannot save the self-play time: {e}");
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut results: Vec<Result<(), PlayError>> = handles
            .into_iter()
            .map(|h| h.join().expect("a worker panicked"))
            .collect();
        results.push(saved.and_then(|()| clock.save()).map_err(save_failed));
        results
    });
    progress.update(&tally.counts());
    let elapsed = progress.finish();
    results.into_iter().collect::<Result<(), _>>()?;
    Ok(PlaySummary {
        before,
        run: tally.counts(),
        elapsed,
    })
}

impl PlaySummary {
    pub fn report(&self) -> String {
        let run = &self.run;
        let seconds = self.elapsed.as_secs_f64();
        format!(
            "played {} games, {} positions in {seconds:.1} s ({:.0} positions/s, {:.2} games/s); \
             {}; mean length {:.1} plies\n\
             directory now holds {} games, {} positions",
            run.games,
            run.positions,
            run.positions as f64 / seconds,
            run.games as f64 / seconds,
            run.results(),
            run.positions as f64 / run.games.max(1) as f64,
            self.before.games + run.games,
            self.before.positions + run.positions,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ply_ranges_parse() {
        assert_eq!(parse_plies("8-9"), Ok(8..=9));
        assert_eq!(parse_plies("4"), Ok(4..=4));
        assert!(parse_plies("9-8").is_err());
        assert!(parse_plies("x").is_err());
    }

    #[test]
    fn settings_that_spoil_every_game_are_refused() {
        let parse = |extra: &[&str]| {
            let base = ["play", "--out", "unused", "--games", "1"];
            PlayArgs::try_parse_from(base.iter().chain(extra))
        };
        assert!(parse(&[]).is_ok());
        for bad in [
            &["--win-plies", "0"][..],
            &["--draw-plies", "0"],
            &["--win-score", "0"],
            &["--book", "b.epd", "--dfrc"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let args = parse(&["--random-plies", "0"]).unwrap();
        assert!(matches!(run(&args), Err(PlayError::OneOpening)));
    }

    #[test]
    fn a_directory_takes_one_run_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock_output(dir.path()).unwrap();
        assert!(matches!(lock_output(dir.path()), Err(PlayError::Busy(_))));
        drop(held);
        lock_output(dir.path()).unwrap();
    }

    #[test]
    fn game_seeds_differ_by_file_and_index() {
        let seeds = [
            game_seed(1, 0, 0),
            game_seed(1, 0, 1),
            game_seed(1, 1, 0),
            game_seed(2, 0, 0),
        ];
        for (i, a) in seeds.iter().enumerate() {
            assert!(seeds[i + 1..].iter().all(|b| a != b));
        }
    }
}
