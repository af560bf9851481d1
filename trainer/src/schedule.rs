//! Learning-rate and WDL-blend schedules, with bullet's definitions. Superbatches count from 1.

use std::f32::consts::PI;
use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum LrSchedule {
    Constant {
        value: f32,
    },
    /// `start · gamma^⌊(superbatch − 1) / step⌋`.
    Step {
        start: f32,
        gamma: f32,
        step: usize,
    },
    /// Cosine from `start` to `end`, reached at `final_superbatch` and held after.
    Cosine {
        start: f32,
        end: f32,
        final_superbatch: usize,
    },
}

impl LrSchedule {
    pub fn lr(&self, superbatch: usize) -> f32 {
        match *self {
            Self::Constant { value } => value,
            Self::Step { start, gamma, step } => {
                start * gamma.powi((superbatch.saturating_sub(1) / step.max(1)) as i32)
            }
            Self::Cosine {
                start,
                end,
                final_superbatch,
            } => {
                if superbatch >= final_superbatch {
                    return end;
                }
                let progress = superbatch as f32 / final_superbatch as f32;
                let lambda = 1.0 - 0.5 * (1.0 + (PI * progress).cos());
                start + lambda * (end - start)
            }
        }
    }
}

impl fmt::Display for LrSchedule {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Constant { value } => write!(f, "constant {value}"),
            Self::Step { start, gamma, step } => {
                write!(f, "step: {start}, ×{gamma} every {step} superbatches")
            }
            Self::Cosine {
                start,
                end,
                final_superbatch,
            } => {
                write!(
                    f,
                    "cosine: {start} → {end} at superbatch {final_superbatch}"
                )
            }
        }
    }
}

/// λ, the weight of the game result in the target (1 − λ goes to the search score).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum WdlSchedule {
    Constant {
        value: f32,
    },
    /// From `start` at the first superbatch to `end` at the last.
    Linear {
        start: f32,
        end: f32,
    },
}

impl WdlSchedule {
    pub fn wdl(&self, superbatch: usize, superbatches: usize) -> f32 {
        match *self {
            Self::Constant { value } => value,
            Self::Linear { start, end } => {
                let slope = (end - start) / (superbatches.saturating_sub(1)).max(1) as f32;
                start + slope * superbatch.saturating_sub(1) as f32
            }
        }
    }
}

impl fmt::Display for WdlSchedule {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Constant { value } => write!(f, "constant {value}"),
            Self::Linear { start, end } => write!(f, "linear {start} → {end}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_drops_every_step_superbatches() {
        let lr = LrSchedule::Step {
            start: 0.001,
            gamma: 0.1,
            step: 18,
        };
        assert_eq!(lr.lr(1), 0.001);
        assert_eq!(lr.lr(18), 0.001);
        assert!((lr.lr(19) - 0.0001).abs() < 1e-9);
    }

    #[test]
    fn cosine_runs_from_start_to_end() {
        let lr = LrSchedule::Cosine {
            start: 0.001,
            end: 0.0001,
            final_superbatch: 10,
        };
        assert!((lr.lr(0) - 0.001).abs() < 1e-9);
        assert!((lr.lr(5) - 0.00055).abs() < 1e-7);
        assert_eq!(lr.lr(10), 0.0001);
        assert_eq!(lr.lr(20), 0.0001);
    }

    #[test]
    fn linear_wdl_hits_both_ends() {
        let wdl = WdlSchedule::Linear {
            start: 0.2,
            end: 0.6,
        };
        assert_eq!(wdl.wdl(1, 5), 0.2);
        assert!((wdl.wdl(5, 5) - 0.6).abs() < 1e-6);
    }
}
