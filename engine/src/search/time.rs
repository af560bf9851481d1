//! Time management: a soft limit (don't start another iteration past it, scaled by how settled
//! the search looks) and a hard limit (abort mid-iteration), both derived from the clock.

use std::time::{Duration, Instant};

use super::{params, Limits};
use crate::types::Color;

/// In sudden death no move gets more than this share of what is left. Spending at most a quarter
/// of the bank while the increment refills it keeps the bank above about four increments, so
/// late in a long game there is still a margin for a slow `bestmove` round trip; without the cap
/// an increment-heavy allowance drains the bank into the move overhead.
const SUDDEN_DEATH_MAX_SHARE: f64 = 0.25;

/// In a repeating control (`movestogo`) no move gets more than this share of what is left. Time
/// saved before the control carries over into the next period, so the bank's last fifth buys
/// the period's last moves little, while a stall with the bank spent loses the game.
const REPEATING_MAX_SHARE: f64 = 0.8;

/// Time kept in the bank beyond the move overhead, in move overheads: a margin for the process
/// being stalled (by the operating system, a loaded machine, a slow GUI) longer than the overhead
/// covers. It costs one-off thinking time, not time per move: late in an increment game the bank
/// settles this much higher. At 1+0.01 with the default 10 ms overhead the bank settles near
/// 105 ms instead of 55, so a move survives a stall of about 90 ms instead of 45.
const STALL_RESERVE_OVERHEADS: u32 = 5;

/// The `Move Overhead` option's default: time lost per move between the engine and the clock
/// (process start-up, pipes, the GUI).
pub const DEFAULT_MOVE_OVERHEAD: Duration = Duration::from_millis(10);

#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
}

impl TimeManager {
    pub fn new(limits: &Limits, us: Color, move_overhead: Duration) -> Self {
        let start = limits.start;
        if let Some(movetime) = limits.movetime {
            let budget = movetime
                .saturating_sub(move_overhead)
                .max(Duration::from_millis(1));
            return Self {
                start,
                soft: None,
                hard: Some(budget),
            };
        }
        let Some(time) = limits.time[us.index()] else {
            return Self {
                start,
                soft: None,
                hard: None,
            };
        };
        let increment = limits.increment[us.index()].unwrap_or_default();
        // Never plan to use more than what is left after the overhead and the stall reserve,
        // keeping a safety slice.
        let available = time
            .saturating_sub(move_overhead * (1 + STALL_RESERVE_OVERHEADS))
            .mul_f64(0.9)
            .max(Duration::from_millis(1));
        // `movestogo 0` (sent by some GUIs in sudden death) means no control ahead.
        let (soft, hard) = match limits.moves_to_go.filter(|&moves| moves > 0) {
            Some(moves) => {
                let share = available / moves.min(40);
                let cap = available.mul_f64(REPEATING_MAX_SHARE);
                (
                    (share.mul_f64(0.9) + increment.mul_f64(0.8)).min(cap),
                    (share.mul_f64(2.5) + increment).min(cap),
                )
            }
            // The hard limit is the cap itself; below it the soft limit, scaled by the search's
            // stability, decides how long a move takes.
            None => {
                let hard = available.mul_f64(SUDDEN_DEATH_MAX_SHARE);
                let soft = available.mul_f64(f64::from(params::tm_soft_permille()) / 1000.0)
                    + increment.mul_f64(f64::from(params::tm_increment_percent()) / 100.0);
                (soft.min(hard), hard)
            }
        };
        Self {
            start,
            soft: Some(soft.min(available)),
            hard: Some(hard.min(available)),
        }
    }

    /// Restarts the clock: after `ponderhit` our own time starts running only now.
    pub fn restart(&mut self) {
        self.start = Instant::now();
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether a clock or movetime limits this search (not just depth, nodes or nothing).
    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }

    pub fn hard_limit_reached(&self) -> bool {
        self.hard.is_some_and(|hard| self.elapsed() >= hard)
    }

    /// `stability` counts iterations the best move has not changed; `best_move_nodes` is the
    /// share of root nodes spent under the best move. A settled search stops early; an
    /// unsettled one may run up to 3.6× the base allowance (2.0 × 1.8), the hard limit
    /// permitting.
    pub fn soft_limit_reached(&self, stability: usize, best_move_nodes: f64) -> bool {
        let Some(soft) = self.soft else { return false };
        let stability_scale = [2.0, 1.5, 1.15, 0.95, 0.85, 0.75][stability.min(5)];
        let offset = f64::from(params::tm_node_offset_percent()) / 100.0;
        let scale = f64::from(params::tm_node_scale_percent()) / 100.0;
        let node_scale = ((offset - best_move_nodes) * scale).clamp(0.5, 1.8);
        self.elapsed() >= soft.mul_f64(stability_scale * node_scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sudden_death(time_ms: u64, increment_ms: u64) -> TimeManager {
        let mut limits = Limits::default();
        limits.time[Color::White.index()] = Some(Duration::from_millis(time_ms));
        limits.increment[Color::White.index()] = Some(Duration::from_millis(increment_ms));
        TimeManager::new(&limits, Color::White, Duration::from_millis(10))
    }

    #[test]
    fn movestogo_zero_is_sudden_death() {
        let mut limits = Limits::default();
        limits.time[Color::White.index()] = Some(Duration::from_millis(8_000));
        limits.moves_to_go = Some(0);
        let zero = TimeManager::new(&limits, Color::White, Duration::from_millis(10));
        let none = sudden_death(8_000, 0);
        assert_eq!((zero.soft, zero.hard), (none.soft, none.hard));
    }

    #[test]
    fn a_move_never_takes_more_than_a_quarter_of_the_bank() {
        for time in [30, 100, 250, 1_000, 8_000, 60_000] {
            for increment in [0, 10, 80, 100, 1_000] {
                let limits = sudden_death(time, increment);
                let hard = limits.hard.unwrap().as_secs_f64() * 1000.0;
                assert!(
                    hard <= time as f64 / 4.0 + 1.0,
                    "{time}+{increment}: hard {hard} ms"
                );
                assert!(limits.soft.unwrap() <= limits.hard.unwrap());
            }
        }
    }

    /// Spending the whole hard limit on every move, the worst case, the bank settles at several
    /// increments rather than running out, and a move can still overrun its plan by 50 ms.
    #[test]
    fn the_bank_settles_above_the_increment_when_every_move_uses_the_hard_limit() {
        let overhead = 10;
        for (start, increment) in [(8_000, 80), (1_000, 10), (10_000, 100), (60_000, 600)] {
            let mut bank = start;
            for _ in 0..300 {
                let spent = sudden_death(bank, increment).hard.unwrap().as_millis() as u64;
                // What a stall may add to the plan without a loss on time.
                let slack = bank - spent - overhead;
                assert!(
                    slack >= 50,
                    "{start}+{increment}: {spent} ms planned from a bank of {bank} ms"
                );
                bank = bank - spent + increment;
            }
            assert!(bank >= 3 * increment, "{start}+{increment}: bank {bank} ms");
        }
    }

    #[test]
    fn the_last_move_before_the_control_keeps_a_fifth_of_the_bank() {
        for bank in [300, 2_000, 10_000] {
            let mut limits = Limits::default();
            limits.time[Color::White.index()] = Some(Duration::from_millis(bank));
            limits.moves_to_go = Some(1);
            let manager = TimeManager::new(&limits, Color::White, Duration::from_millis(10));
            let hard = manager.hard.unwrap().as_millis() as u64;
            assert!(
                hard <= bank * 4 / 5,
                "{bank} ms in the bank: {hard} ms planned"
            );
        }
    }

    /// The same worst case in a repeating control (`movestogo`), over three periods: spending
    /// the hard limit every move drains the bank towards the reserve by the period's end, and
    /// even then a move has 50 ms to spare, less the 1 ms that any move is allowed.
    #[test]
    fn every_move_of_a_repeating_control_keeps_the_stall_margin() {
        let overhead = 10;
        for (moves, period) in [(40, 10_000), (40, 60_000), (40, 2_000), (5, 1_000)] {
            let mut bank = period;
            for played in 0..3 * moves {
                let moves_to_go = moves - played % moves;
                let mut limits = Limits::default();
                limits.time[Color::White.index()] = Some(Duration::from_millis(bank));
                limits.moves_to_go = Some(moves_to_go as u32);
                let manager =
                    TimeManager::new(&limits, Color::White, Duration::from_millis(overhead));
                let spent = manager.hard.unwrap().as_millis() as u64;
                assert!(manager.soft.unwrap() <= manager.hard.unwrap());
                let slack = bank - spent - overhead;
                assert!(
                    slack >= 49,
                    "{moves}/{period}, {moves_to_go} to go: {spent} ms planned from {bank} ms"
                );
                bank -= spent;
                if moves_to_go == 1 {
                    bank += period;
                }
            }
        }
    }
}
