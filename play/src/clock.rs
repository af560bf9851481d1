//! Chess clocks: a time control (`5+3`: five minutes each, three seconds added per move), the
//! time each side has left, and the side whose time runs. The engine gets the same clock as a
//! UCI `go wtime btime winc binc`, so its own time manager spends it.

use std::fmt;
use std::time::{Duration, Instant};

use patina::{Color, Limits};

/// The slowest and fastest controls offered: a second to three hours, and at most a minute a move.
const MIN_BASE: Duration = Duration::from_secs(1);
const MAX_BASE: Duration = Duration::from_secs(3 * 3600);
const MAX_INCREMENT: Duration = Duration::from_secs(60);

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TimeControl {
    pub base: Duration,
    pub increment: Duration,
}

impl TimeControl {
    /// Reads `MINUTES+SECONDS` as chess players write it: `3+2`, `15+10`, `0.5+0`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let error = || {
            format!(
                "a time control is minutes+seconds such as \"5+3\" (1 s to 180 min, at most \
                 60 s a move), not \"{text}\""
            )
        };
        let (minutes, seconds) = text.trim().split_once('+').ok_or_else(error)?;
        let number = |part: &str| {
            part.trim()
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n >= 0.0 && *n <= 1e6)
        };
        let base = Duration::from_secs_f64(number(minutes).ok_or_else(error)? * 60.0);
        let increment = Duration::from_secs_f64(number(seconds).ok_or_else(error)?);
        if !(MIN_BASE..=MAX_BASE).contains(&base) || increment > MAX_INCREMENT {
            return Err(error());
        }
        Ok(Self { base, increment })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base.as_secs_f64() / 60.0,
            self.increment.as_secs_f64()
        )
    }
}

#[derive(Clone, Debug)]
pub struct Clock {
    control: TimeControl,
    /// Time left at the moment the running side's time last started to run.
    left: [Duration; 2],
    /// The side whose time runs, and since when.
    running: Option<(Color, Instant)>,
}

impl Clock {
    /// Both sides at the control's base time, no time running.
    pub fn new(control: TimeControl) -> Self {
        Self {
            control,
            left: [control.base; 2],
            running: None,
        }
    }

    pub fn control(&self) -> TimeControl {
        self.control
    }

    pub fn running(&self) -> Option<Color> {
        self.running.map(|(color, _)| color)
    }

    /// Time `color` has left at `now`: zero once it has run out.
    pub fn left(&self, color: Color, now: Instant) -> Duration {
        let left = self.left[color.index()];
        match self.running {
            Some((running, since)) if running == color => {
                left.saturating_sub(now.saturating_duration_since(since))
            }
            _ => left,
        }
    }

    /// The side whose time has run out, if any.
    pub fn flagged(&self, now: Instant) -> Option<Color> {
        self.running()
            .filter(|&color| self.left(color, now).is_zero())
    }

    /// Stops the running side's time (no increment) and starts `color`'s.
    pub fn start(&mut self, color: Color, now: Instant) {
        self.stop(now);
        self.running = Some((color, now));
    }

    /// Stops the time, keeping what each side has left.
    pub fn stop(&mut self, now: Instant) {
        if let Some(color) = self.running() {
            self.left[color.index()] = self.left(color, now);
            self.running = None;
        }
    }

    /// The running side moved at `now`: its time stops and gains the increment, and the other
    /// side's starts. `Err` with the mover if its time had run out first.
    pub fn press(&mut self, now: Instant) -> Result<(), Color> {
        let Some(mover) = self.running() else {
            return Ok(());
        };
        if let Some(flagged) = self.flagged(now) {
            self.stop(now);
            return Err(flagged);
        }
        self.stop(now);
        self.left[mover.index()] += self.control.increment;
        self.running = Some((!mover, now));
        Ok(())
    }

    /// The clock as the engine's search limits: both sides' time and increment, as of `now`.
    pub fn limits(&self, now: Instant) -> Limits {
        let mut limits = Limits {
            start: now,
            ..Limits::default()
        };
        for color in [Color::White, Color::Black] {
            limits.time[color.index()] = Some(self.left(color, now));
            limits.increment[color.index()] = Some(self.control.increment);
        }
        limits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(text: &str) -> TimeControl {
        TimeControl::parse(text).unwrap()
    }

    #[test]
    fn reads_time_controls() {
        assert_eq!(
            control("5+3"),
            TimeControl {
                base: Duration::from_secs(300),
                increment: Duration::from_secs(3)
            }
        );
        assert_eq!(control(" 0.5 + 0 ").base, Duration::from_secs(30));
        assert_eq!(control("15+10").to_string(), "15+10");
        assert_eq!(control("0.5+0.5").to_string(), "0.5+0.5");
        for text in [
            "", "5", "+3", "5+", "x+3", "-1+0", "0+0", "181+0", "5+61", "NaN+1", "inf+0",
        ] {
            let error = TimeControl::parse(text).unwrap_err();
            assert!(error.contains("minutes+seconds"), "{text}: {error}");
        }
    }

    #[test]
    fn runs_the_side_to_move() {
        let start = Instant::now();
        let second = Duration::from_secs(1);
        let mut clock = Clock::new(control("1+2"));
        assert_eq!(clock.left(Color::White, start + 10 * second), 60 * second);
        clock.start(Color::White, start);
        assert_eq!(clock.left(Color::White, start + 10 * second), 50 * second);
        assert_eq!(clock.left(Color::Black, start + 10 * second), 60 * second);
        // White moves after 10 s: 50 s left plus the increment; Black's time runs.
        assert_eq!(clock.press(start + 10 * second), Ok(()));
        assert_eq!(clock.running(), Some(Color::Black));
        assert_eq!(clock.left(Color::White, start + 20 * second), 52 * second);
        assert_eq!(clock.left(Color::Black, start + 20 * second), 50 * second);
        let limits = clock.limits(start + 20 * second);
        assert_eq!(limits.time, [Some(52 * second), Some(50 * second)]);
        assert_eq!(limits.increment, [Some(2 * second); 2]);
        assert_eq!(limits.movetime, None);
        // A takeback gives White the move again without an increment for Black.
        clock.start(Color::White, start + 20 * second);
        assert_eq!(clock.left(Color::Black, start + 30 * second), 50 * second);
        clock.stop(start + 30 * second);
        assert_eq!(clock.running(), None);
        assert_eq!(clock.left(Color::White, start + 99 * second), 42 * second);
    }

    #[test]
    fn a_flag_falls_at_zero() {
        let start = Instant::now();
        let mut clock = Clock::new(control("0.05+5"));
        clock.start(Color::White, start);
        assert_eq!(clock.flagged(start + Duration::from_millis(2999)), None);
        assert_eq!(
            clock.flagged(start + Duration::from_secs(3)),
            Some(Color::White)
        );
        assert_eq!(
            clock.left(Color::White, start + Duration::from_secs(9)),
            Duration::ZERO
        );
        // A move after the fall does not count, and gains nothing.
        assert_eq!(
            clock.press(start + Duration::from_secs(4)),
            Err(Color::White)
        );
        assert_eq!(clock.running(), None);
        assert_eq!(clock.left(Color::White, start), Duration::ZERO);
    }
}
