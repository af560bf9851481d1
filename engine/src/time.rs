//! Time management: a soft limit (don't start another iteration past it, scaled by how settled
//! the search looks) and a hard limit (abort mid-iteration), both derived from the clock.

use std::time::{Duration, Instant};

use crate::search::params;
use crate::search::Limits;
use crate::types::Color;

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
        // Never plan to use more than what is left after the overhead, keeping a safety slice.
        let available = time
            .saturating_sub(move_overhead)
            .mul_f64(0.9)
            .max(Duration::from_millis(1));
        let (soft, hard) = match limits.moves_to_go {
            Some(moves) => {
                let share = available / moves.clamp(1, 50).min(40);
                (
                    share.mul_f64(0.9) + increment.mul_f64(0.8),
                    share.mul_f64(2.5) + increment,
                )
            }
            None => (
                available.mul_f64(f64::from(params::tm_soft_percent()) / 1000.0)
                    + increment.mul_f64(f64::from(params::tm_increment_percent()) / 100.0),
                available.mul_f64(f64::from(params::tm_hard_percent()) / 1000.0) + increment,
            ),
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
    /// unsettled one may run up to 2.5× the base allowance.
    pub fn soft_limit_reached(&self, stability: usize, best_move_nodes: f64) -> bool {
        let Some(soft) = self.soft else { return false };
        let stability_scale = [2.0, 1.5, 1.15, 0.95, 0.85, 0.75][stability.min(5)];
        let node_scale = ((1.5 - best_move_nodes) * 1.35).clamp(0.5, 1.8);
        self.elapsed() >= soft.mul_f64(stability_scale * node_scale)
    }
}
