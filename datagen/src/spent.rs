//! The time a directory's self-play has cost, across every run that wrote to it: kept beside
//! the games in `selfplay-time`, so a net's lineage can say what its data cost next to what its
//! training did. Saved every minute and at the end of a run, so a killed run loses at most a
//! minute of it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cpu_time::ProcessTime;

use crate::keyfile;

pub const FILE_NAME: &str = "selfplay-time";
/// How often a running campaign saves its time.
pub const SAVE_EVERY: Duration = Duration::from_secs(60);

/// Wall-clock seconds; those times the threads playing (what the run held of a machine); and
/// the CPU time the runs took, which is less where other work shared the cores.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Spent {
    pub wall_seconds: f64,
    pub thread_seconds: f64,
    /// `None` once a run could not measure it: directories begun before datagen measured CPU
    /// time, or a system without a process clock.
    pub cpu_seconds: Option<f64>,
}

impl Default for Spent {
    /// A directory that nothing has been spent on yet.
    fn default() -> Self {
        Self {
            wall_seconds: 0.0,
            thread_seconds: 0.0,
            cpu_seconds: Some(0.0),
        }
    }
}

impl Spent {
    /// What the file in `dir` records: nothing yet where there is no file.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let path = dir.join(FILE_NAME);
        let Some(pairs) = keyfile::read(&path)? else {
            return Ok(Self::default());
        };
        Self::from_pairs(&pairs).ok_or_else(|| {
            format!(
                "{}: expected `wall_seconds S` and `thread_seconds S` lines, and maybe \
                 `cpu_seconds S`",
                path.display()
            )
        })
    }

    fn from_pairs(pairs: &[(String, String)]) -> Option<Self> {
        let (mut wall, mut threads, mut cpu) = (None, None, None);
        for (key, value) in pairs {
            let value: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
            match key.as_str() {
                "wall_seconds" => wall = Some(value),
                "thread_seconds" => threads = Some(value),
                "cpu_seconds" => cpu = Some(value),
                _ => return None,
            }
        }
        Some(Self {
            wall_seconds: wall?,
            thread_seconds: threads?,
            cpu_seconds: cpu,
        })
    }

    fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = vec![
            ("wall_seconds", format!("{:.3}", self.wall_seconds)),
            ("thread_seconds", format!("{:.3}", self.thread_seconds)),
        ];
        if let Some(cpu) = self.cpu_seconds {
            pairs.push(("cpu_seconds", format!("{cpu:.3}")));
        }
        pairs
    }
}

/// This run's clock on top of what the directory held when it started.
pub struct RunClock {
    path: PathBuf,
    before: Spent,
    threads: usize,
    start: Instant,
    /// The process's CPU clock at the start; `None` where the system has none.
    cpu_start: Option<ProcessTime>,
    last_save: Instant,
}

impl RunClock {
    /// Starts the clock of a run on `dir`, whose files hold `games` games. Games without a time
    /// file (from before datagen kept one) cost an unknown time: the file then counts from now
    /// and has no CPU time, so that no total passes for the directory's whole cost.
    pub fn start(dir: &Path, threads: usize, games: u64) -> Result<Self, String> {
        let now = Instant::now();
        let mut before = Spent::read(dir)?;
        if games > 0 && !dir.join(FILE_NAME).exists() {
            eprintln!(
                "{}: the time its {games} games took is unknown; {FILE_NAME} counts from now",
                dir.display()
            );
            before.cpu_seconds = None;
        }
        let mut clock = Self {
            path: dir.join(FILE_NAME),
            before,
            threads,
            start: now,
            cpu_start: ProcessTime::try_now().ok(),
            last_save: now,
        };
        // Written at once, so that a run killed within its first minute still leaves a record
        // (its games' time is then short by at most that minute, but known to exist).
        clock
            .save()
            .map_err(|e| format!("{}: {e}", clock.path.display()))?;
        Ok(clock)
    }

    pub fn total(&self) -> Spent {
        let seconds = self.start.elapsed().as_secs_f64();
        let cpu = self
            .cpu_start
            .and_then(|start| start.try_elapsed().ok())
            .map(|elapsed| elapsed.as_secs_f64());
        Spent {
            wall_seconds: self.before.wall_seconds + seconds,
            thread_seconds: self.before.thread_seconds + seconds * self.threads as f64,
            cpu_seconds: self.before.cpu_seconds.zip(cpu).map(|(a, b)| a + b),
        }
    }

    /// Saves the total once `SAVE_EVERY` has passed since the last save.
    pub fn save_now_and_then(&mut self) -> std::io::Result<()> {
        if self.last_save.elapsed() < SAVE_EVERY {
            return Ok(());
        }
        self.save()
    }

    pub fn save(&mut self) -> std::io::Result<()> {
        self.last_save = Instant::now();
        keyfile::write(&self.path, &self.total().pairs())
    }
}

#[cfg(test)]
mod tests {
    use cpu_time::ThreadTime;

    use super::*;

    #[test]
    fn runs_add_up_and_the_file_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Spent::read(dir.path()), Ok(Spent::default()));
        let mut clock = RunClock::start(dir.path(), 2, 0).unwrap();
        // On disk from the start: a run killed at once still leaves its record.
        assert!(dir.path().join(FILE_NAME).exists());
        // 30 ms of work on this thread: the process's CPU time grows by at least that.
        let busy = ThreadTime::now();
        while busy.elapsed() < Duration::from_millis(30) {
            std::hint::black_box(busy.elapsed());
        }
        clock.save().unwrap();
        let first = Spent::read(dir.path()).unwrap();
        assert!(first.wall_seconds >= 0.03, "{first:?}");
        assert!((first.thread_seconds - 2.0 * first.wall_seconds).abs() < 0.002);
        assert!(first.cpu_seconds.unwrap() >= 0.03, "{first:?}");

        let mut clock = RunClock::start(dir.path(), 1, 10).unwrap();
        clock.save().unwrap();
        let second = Spent::read(dir.path()).unwrap();
        assert!(second.wall_seconds >= first.wall_seconds);
        assert!(second.thread_seconds >= first.thread_seconds);
        assert!(second.cpu_seconds >= first.cpu_seconds);
    }

    #[test]
    fn a_directory_without_cpu_time_never_gets_a_partial_one() {
        // Games and a time file from before CPU time was measured.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, "wall_seconds 1.5\nthread_seconds 3\n").unwrap();
        let mut clock = RunClock::start(dir.path(), 2, 10).unwrap();
        clock.save().unwrap();
        let after = Spent::read(dir.path()).unwrap();
        assert!(
            after.wall_seconds >= 1.5 && after.cpu_seconds.is_none(),
            "{after:?}"
        );
        assert!(!std::fs::read_to_string(&path).unwrap().contains("cpu"));

        // Games and no time file at all.
        let dir = tempfile::tempdir().unwrap();
        let mut clock = RunClock::start(dir.path(), 2, 10).unwrap();
        clock.save().unwrap();
        assert_eq!(Spent::read(dir.path()).unwrap().cpu_seconds, None);
    }

    #[test]
    fn a_malformed_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        for text in [
            "",
            "wall_seconds 1\n",
            "wall_seconds x\nthread_seconds 2\n",
            "a 1\n",
            "wall_seconds inf\nthread_seconds 2\n",
            "wall_seconds 1\nwall_seconds 1\nthread_seconds 2\n",
            "wall_seconds 1\nthread_seconds 2\ncpu_seconds -1\n",
        ] {
            std::fs::write(dir.path().join(FILE_NAME), text).unwrap();
            assert!(Spent::read(dir.path()).is_err(), "{text:?}");
        }
        std::fs::write(
            dir.path().join(FILE_NAME),
            "wall_seconds 1.5\nthread_seconds 3\ncpu_seconds 2.5\n",
        )
        .unwrap();
        assert_eq!(
            Spent::read(dir.path()),
            Ok(Spent {
                wall_seconds: 1.5,
                thread_seconds: 3.0,
                cpu_seconds: Some(2.5),
            })
        );
    }
}
