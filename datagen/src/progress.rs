//! Counting what a run produced, shared by the workers, and showing it as a live line: a bar
//! on a terminal, a plain line every so often in a log (`bar`, which the trainer uses too).

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{FormattedDuration, ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

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
            "{{elapsed_precise}} [{{bar:25}}] {{human_pos}}/{{human_len}} {unit} | {{msg}}"
        ))
        .expect("the template is valid");
        let bar =
            bar(target.amount(), style).with_position(target.reached(&before).min(target.amount()));
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
        let reached = self.target.reached(&total);
        self.bar.set_position(reached);
        let elapsed = self.start.elapsed();
        let eta = eta(
            self.target.amount().saturating_sub(reached),
            self.target.reached(run),
            elapsed,
        )
        .map_or_else(|| "-".to_owned(), |eta| FormattedDuration(eta).to_string());
        self.bar.set_message(format!(
            "{} games, {} pos, {:.0} pos/s | W/D/L {}/{}/{} | ETA {eta}",
            run.games,
            run.positions,
            run.positions as f64 / elapsed.as_secs_f64(),
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

/// Time left at this run's rate: `remaining` more of what `done` counts, `done` having taken
/// `elapsed`. indicatif's own `{eta}` measures the rate from position 0, so on a resumed run it
/// would count what earlier runs produced as made in this run's first seconds.
fn eta(remaining: u64, done: u64, elapsed: Duration) -> Option<Duration> {
    (done > 0).then(|| elapsed.mul_f64(remaining as f64 / done as f64))
}

/// Time between plain progress lines in a log; the environment variable
/// `PATINA_PROGRESS_INTERVAL` (whole seconds) overrides it.
const LINE_INTERVAL: Duration = Duration::from_secs(20);

/// A progress bar of `len` steps on stderr, drawn in `style`: indicatif's live bar on a
/// terminal. Elsewhere (a pipe, a log file) indicatif would draw nothing at all, so there the
/// same line is printed as plain text every `LINE_INTERVAL`.
pub fn bar(len: u64, style: ProgressStyle) -> ProgressBar {
    let target = if io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        let interval = std::env::var("PATINA_PROGRESS_INTERVAL")
            .ok()
            .and_then(|seconds| seconds.parse().ok())
            .map_or(LINE_INTERVAL, Duration::from_secs);
        let lines = LogLines {
            interval,
            drawn: Mutex::new(Drawn {
                line: String::new(),
                printed: Instant::now(),
            }),
        };
        ProgressDrawTarget::term_like_with_hz(Box::new(lines), 1)
    };
    ProgressBar::with_draw_target(Some(len), target).with_style(style)
}

/// indicatif's drawing as lines of a log: cursor moves and clearing are dropped, and a drawn
/// line is printed once `interval` has passed since the last one (or since the start).
#[derive(Debug)]
struct LogLines {
    interval: Duration,
    drawn: Mutex<Drawn>,
}

#[derive(Debug)]
struct Drawn {
    /// The line drawn since the last flush, padded to the width.
    line: String,
    printed: Instant,
}

impl TermLike for LogLines {
    /// Wide enough that no line wraps; the padding to it is trimmed off.
    fn width(&self) -> u16 {
        1000
    }

    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.write_str(s)
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.drawn
            .lock()
            .expect("no drawer panics")
            .line
            .push_str(s);
        Ok(())
    }

    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        let mut drawn = self.drawn.lock().expect("no drawer panics");
        let line = std::mem::take(&mut drawn.line);
        let line = line.trim();
        if line.is_empty() || drawn.printed.elapsed() < self.interval {
            return Ok(());
        }
        drawn.printed = Instant::now();
        writeln!(io::stderr(), "{line}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_follows_this_runs_rate_only() {
        // A resumed run: 100 made in 10 s, 900 to go -> 90 s, whatever earlier runs made.
        assert_eq!(
            eta(900, 100, Duration::from_secs(10)),
            Some(Duration::from_secs(90))
        );
        assert_eq!(eta(0, 100, Duration::from_secs(10)), Some(Duration::ZERO));
        assert_eq!(eta(900, 0, Duration::from_secs(10)), None);
    }
}
