//! Playing below full strength (UCI `UCI_LimitStrength` with `UCI_Elo`, or `Skill Level`), as
//! strong engines do it: each move gets a node budget, and the move played is drawn from the
//! best few root moves (searched as MultiPV lines) with odds that fall with how much worse each
//! one scores; the temperature of that draw sets how far.
//!
//! A node budget rather than a depth or a time: it weakens the same on every machine and at
//! every time control a GUI sends (movetime, clocks, depth, infinite), and it scales smoothly
//! where depths jump by a factor of two or three. The random choice makes the mistakes a weaker
//! player makes (a plausible second-best move, now and then a real blunder) instead of only
//! seeing less far, which alone stays much stronger than a person of the same rating at the
//! bottom of the range.
//!
//! `LEVELS` is the one place that maps a rating to (nodes, temperature); calibration by
//! matches adjusts it (docs/strength.md).

use crate::types::score::to_cp;
use crate::types::Score;

/// The lowest and highest `UCI_Elo`, on the CCRL Blitz scale as Stockfish's levels are. The
/// top is still a limit: Patina at full strength plays near 3415.
pub const MIN_ELO: u32 = 1320;
pub const MAX_ELO: u32 = 3000;

/// `Skill Level` runs from 0 (`MIN_ELO`) to 19 (`MAX_ELO`); `MAX_SKILL_LEVEL` is full strength,
/// as in Stockfish.
pub const MAX_SKILL_LEVEL: u32 = 20;

/// Root moves searched as lines for the draw (Stockfish takes four as well): enough that a
/// weak level's alternatives include real mistakes, few enough that its budget still goes
/// a few plies deep.
pub const CANDIDATES: usize = 4;

/// One row of the table: the rating, the nodes a move may search, the temperature of the draw
/// in printed centipawns (a move that scores `t` worse is played `e` times less often than the
/// best).
struct Level {
    elo: u32,
    nodes: u64,
    temperature: f64,
}

/// Ratings between rows interpolate: nodes geometrically (strength grows roughly by a constant
/// per doubling), the temperature linearly. The rows are calibrated by matches against
/// Stockfish 15.1's levels at 10+0.1, each rated by Stockfish's own 2023 calibration, and
/// against Glaurung 2.2 at 60+0.6 (docs/strength.md): from 1500 up the choice is the search's
/// own (temperature 0, a single line) and only the budget holds the engine back, about 240 Elo
/// a doubling of nodes below 8 000 and 120 above; at the bottom a small temperature adds the
/// odd plausible mistake. The top row is extrapolated from 230 000 nodes (about 2850), a budget
/// that a blitz clock allows on one core.
const LEVELS: [Level; 5] = [
    Level {
        elo: MIN_ELO,
        nodes: 200,
        temperature: 40.0,
    },
    Level {
        elo: 1500,
        nodes: 600,
        temperature: 0.0,
    },
    Level {
        elo: 2000,
        nodes: 2_900,
        temperature: 0.0,
    },
    Level {
        elo: 2500,
        nodes: 19_000,
        temperature: 0.0,
    },
    Level {
        elo: MAX_ELO,
        nodes: 600_000,
        temperature: 0.0,
    },
];

/// A playing strength below full: a node budget per move and the temperature of the choice
/// among the best root moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    elo: u32,
    nodes: u64,
    temperature: f64,
}

impl Strength {
    /// The strength of a rating, clamped into `MIN_ELO..=MAX_ELO`.
    pub fn from_elo(elo: u32) -> Self {
        let elo = elo.clamp(MIN_ELO, MAX_ELO);
        let upper = LEVELS
            .iter()
            .position(|level| level.elo >= elo)
            .expect("the last level is MAX_ELO")
            .max(1);
        let (low, high) = (&LEVELS[upper - 1], &LEVELS[upper]);
        let t = f64::from(elo - low.elo) / f64::from(high.elo - low.elo);
        let log_nodes = (low.nodes as f64).ln() * (1.0 - t) + (high.nodes as f64).ln() * t;
        Self {
            elo,
            nodes: log_nodes.exp().round() as u64,
            temperature: low.temperature * (1.0 - t) + high.temperature * t,
        }
    }

    /// Stockfish's `Skill Level`: 0 to 19 spread evenly over the ratings, `MAX_SKILL_LEVEL`
    /// (or more) full strength.
    pub fn from_skill_level(level: u32) -> Option<Self> {
        (level < MAX_SKILL_LEVEL).then(|| {
            let span = MAX_ELO - MIN_ELO;
            Self::from_elo(MIN_ELO + span * level / (MAX_SKILL_LEVEL - 1))
        })
    }

    pub fn elo(&self) -> u32 {
        self.elo
    }

    /// Nodes a move may search (a `go nodes` below it still applies).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Centipawns worse at which a move is played `e` times less often than the best.
    pub fn temperature(&self) -> f64 {
        self.temperature
    }

    /// Root moves searched as lines to choose among: one where the choice is the search's own.
    pub fn candidates(&self) -> usize {
        if self.temperature > 0.0 {
            CANDIDATES
        } else {
            1
        }
    }

    /// Which of the candidates to play, given their scores (the search's units, any order) and
    /// a uniformly random `draw`: each is played with a weight `exp(-loss / temperature)`,
    /// the loss in printed centipawns below the best. A mate or tablebase result outweighs any
    /// centipawn score, so a won ending is not thrown away at random.
    pub fn choose(&self, scores: &[Score], draw: u64) -> usize {
        let Some(&best) = scores.iter().max() else {
            return 0;
        };
        if self.temperature <= 0.0 {
            return scores.iter().position(|&s| s == best).unwrap_or(0);
        }
        let weights: Vec<f64> = scores
            .iter()
            .map(|&score| {
                let loss = f64::from(to_cp(best) - to_cp(score));
                (-loss / self.temperature).exp()
            })
            .collect();
        // 53 random bits: a uniform number in (0, 1], never 0, which a move with a vanishing
        // weight would catch.
        let uniform = ((draw >> 11) + 1) as f64 / (1u64 << 53) as f64;
        let mut left = uniform * weights.iter().sum::<f64>();
        for (index, weight) in weights.iter().enumerate() {
            if left <= *weight {
                return index;
            }
            left -= weight;
        }
        // Rounding left a sliver past the last weight: the last move with any weight.
        weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
    }
}

/// The strength limit of one search, with its random draw (taken by the engine before the search
/// starts, so that a seeded engine repeats its games).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Handicap {
    pub strength: Strength,
    pub draw: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::score::mate_in;

    #[test]
    fn the_table_rises_with_the_rating() {
        for pair in LEVELS.windows(2) {
            assert!(pair[0].elo < pair[1].elo);
            assert!(pair[0].nodes < pair[1].nodes);
            assert!(pair[0].temperature >= pair[1].temperature);
        }
        assert_eq!(
            (LEVELS[0].elo, LEVELS[LEVELS.len() - 1].elo),
            (MIN_ELO, MAX_ELO)
        );
        let mut last = Strength::from_elo(MIN_ELO);
        for elo in MIN_ELO + 1..=MAX_ELO {
            let next = Strength::from_elo(elo);
            assert!(next.nodes >= last.nodes && next.temperature <= last.temperature);
            last = next;
        }
    }

    #[test]
    fn rows_are_met_exactly_and_ratings_outside_are_clamped() {
        for level in &LEVELS {
            let strength = Strength::from_elo(level.elo);
            assert_eq!(strength.nodes(), level.nodes);
            assert!((strength.temperature() - level.temperature).abs() < 1e-9);
        }
        assert_eq!(Strength::from_elo(0), Strength::from_elo(MIN_ELO));
        assert_eq!(Strength::from_elo(9999), Strength::from_elo(MAX_ELO));
        assert_eq!(Strength::from_elo(MAX_ELO).candidates(), 1);
        assert_eq!(Strength::from_elo(MIN_ELO).candidates(), CANDIDATES);
    }

    #[test]
    fn skill_levels_span_the_ratings() {
        assert_eq!(Strength::from_skill_level(0).unwrap().elo(), MIN_ELO);
        assert_eq!(Strength::from_skill_level(19).unwrap().elo(), MAX_ELO);
        assert_eq!(Strength::from_skill_level(MAX_SKILL_LEVEL), None);
    }

    /// Draws spread over the whole range of `u64` pick each move about as often as its weight.
    #[test]
    fn the_choice_follows_the_weights() {
        let strength = Strength::from_elo(MIN_ELO);
        // Equal scores: equal shares.
        let mut counts = [0; 4];
        let draws = 4000u64;
        for i in 0..draws {
            counts[strength.choose(&[10, 10, 10, 10], i * (u64::MAX / draws))] += 1;
        }
        assert!(
            counts.iter().all(|&c| (900..=1100).contains(&c)),
            "{counts:?}"
        );
        // A move a pawn worse is played less often, but played.
        let pawn = crate::types::score::NORMALIZE_TO_PAWN;
        let mut counts = [0; 2];
        for i in 0..draws {
            counts[strength.choose(&[pawn, 0], i * (u64::MAX / draws))] += 1;
        }
        assert!(counts[1] > 0 && counts[1] < counts[0], "{counts:?}");
    }

    #[test]
    fn a_mate_is_never_thrown_away_and_the_top_level_plays_the_best() {
        let weakest = Strength::from_elo(MIN_ELO);
        for draw in [0, u64::MAX / 3, u64::MAX / 2, u64::MAX] {
            assert_eq!(weakest.choose(&[300, mate_in(5), 0], draw), 1);
            assert_eq!(Strength::from_elo(MAX_ELO).choose(&[5, 40, -3], draw), 1);
        }
        assert_eq!(weakest.choose(&[], 7), 0);
    }
}
