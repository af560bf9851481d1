//! Counting what a run produced, shared by the workers, and showing it as a live line.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::record::GameResult;

/// Games, positions and results, updated once per finished game by any worker.
#[derive(Default)]
pub struct Tally {
    games: AtomicU64,
    positions: AtomicU64,
    /// White wins, draws, Black wins.
    results: [AtomicU64; 3],
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub games: u64,
    pub positions: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
}

impl Tally {
    pub fn record(&self, positions: usize, result: GameResult) {
        self.positions.fetch_add(positions as u64, Relaxed);
        self.results[result as usize].fetch_add(1, Relaxed);
        self.games.fetch_add(1, Relaxed);
    }

    pub fn positions(&self) -> u64 {
        self.positions.load(Relaxed)
    }

    pub fn counts(&self) -> Counts {
        Counts {
            games: self.games.load(Relaxed),
            positions: self.positions.load(Relaxed),
            white_wins: self.results[GameResult::WhiteWin as usize].load(Relaxed),
            draws: self.results[GameResult::Draw as usize].load(Relaxed),
            black_wins: self.results[GameResult::BlackWin as usize].load(Relaxed),
        }
    }
}

impl Counts {
    /// `W/D/L a/b/c` with percentages, White's view.
    pub fn results(&self) -> String {
        let percent = |n: u64| 100.0 * n as f64 / self.games.max(1) as f64;
        format!(
            "W/D/L {}/{}/{} ({:.0}%/{:.0}%/{:.0}%)",
            self.white_wins,
            self.draws,
            self.black_wins,
            percent(self.white_wins),
            percent(self.draws),
            percent(self.black_wins)
        )
    }
}

/// What the run counts towards: whole games, or positions (moves stored).
#[derive(Copy, Clone, Debug)]
pub enum Target {
    Games(u64),
    Positions(u64),
}

impl Target {
    fn amount(self) -> u64 {
        match self {
            Self::Games(n) | Self::Positions(n) => n,
        }
    }

    fn reached(self, counts: &Counts) -> u64 {
        match self {
            Self::Games(_) => counts.games,
            Self::Positions(_) => counts.positions,
        }
    }
}

/// The live line: progress towards the target, this run's rate and results.
pub struct Progress {
    bar: ProgressBar,
    target: Target,
    /// What the output directory held before this run.
    before: Counts,
    start: Instant,
}

impl Progress {
    pub fn new(target: Target, before: Counts) -> Self {
        let unit = match target {
            Target::Games(_) => "games",
            Target::Positions(_) => "positions",
        };
        let style = ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:25}}] {{human_pos}}/{{human_len}} {unit} | {{msg}} | ETA {{eta}}"
        ))
        .expect("the template is valid");
        let bar = ProgressBar::new(target.amount())
            .with_style(style)
            .with_position(target.reached(&before).min(target.amount()));
        bar.reset_eta();
        bar.enable_steady_tick(Duration::from_millis(500));
        Self {
            bar,
            target,
            before,
            start: Instant::now(),
        }
    }

    pub fn update(&self, run: &Counts) {
        let total = Counts {
            games: self.before.games + run.games,
            positions: self.before.positions + run.positions,
            ..*run
        };
        self.bar.set_position(self.target.reached(&total));
        self.bar.set_message(format!(
            "{} games, {} pos, {:.0} pos/s | W/D/L {}/{}/{}",
            run.games,
            run.positions,
            run.positions as f64 / self.start.elapsed().as_secs_f64(),
            run.white_wins,
            run.draws,
            run.black_wins
        ));
    }

    pub fn finish(self) -> Duration {
        self.bar.finish_and_clear();
        self.start.elapsed()
    }
}
