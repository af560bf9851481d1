//! Scores for people. The search works in the network's units; what Patina prints is
//! normalised so that `cp 100` means its own self-play wins from there about half the time,
//! and `wdl W D L` comes from the same win-draw-loss model (Stockfish's shape: a logistic
//! curve in the score whose centre `a` and width `b` are cubics in the material).
//!
//! The model is fitted to self-play of one network: refit it (`datagen wdl-fit`, see
//! docs/scores.md) whenever the default net changes, and paste the printed constants here.

use crate::board::Board;
use crate::types::score::{moves_to_mate, Score, MATE, MATE_BOUND, TB_WIN_BOUND};
use crate::types::PieceType;

/// Material on the board, both sides: P + 3N + 3B + 5R + 9Q (78 at the start).
pub fn material(board: &Board) -> i32 {
    [
        (PieceType::Pawn, 1),
        (PieceType::Knight, 3),
        (PieceType::Bishop, 3),
        (PieceType::Rook, 5),
        (PieceType::Queen, 9),
    ]
    .iter()
    .map(|&(piece, value)| value * board.pieces(piece).count() as i32)
    .sum()
}

/// Material outside this range is treated as its nearest end: the data thins out there.
pub const MIN_MATERIAL: i32 = 17;
pub const MAX_MATERIAL: i32 = 78;
/// The material at which `a` is the normalisation constant: a middlegame, as in Stockfish.
pub const REFERENCE_MATERIAL: i32 = 58;

/// P(win) = 1 / (1 + exp(−(x − a) / b)), P(loss) = 1 / (1 + exp((x + a) / b)) for a score x
/// (network units, the side to move's view), with `a` and `b` cubics in
/// m = clamp(material) / REFERENCE_MATERIAL, highest power first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    pub a: [f64; 4],
    pub b: [f64; 4],
}

impl WdlModel {
    /// The variable the cubics take: the clamped material over the reference material.
    pub fn scaled_material(material: i32) -> f64 {
        f64::from(material.clamp(MIN_MATERIAL, MAX_MATERIAL)) / f64::from(REFERENCE_MATERIAL)
    }

    /// The curve's centre and width at this material.
    pub fn params(&self, material: i32) -> (f64, f64) {
        let m = Self::scaled_material(material);
        let cubic = |c: &[f64; 4]| ((c[0] * m + c[1]) * m + c[2]) * m + c[3];
        (cubic(&self.a), cubic(&self.b))
    }

    /// Probabilities of win, draw and loss for the side whose score this is.
    pub fn probabilities(&self, score: f64, material: i32) -> [f64; 3] {
        let (a, b) = self.params(material);
        let win = 1.0 / (1.0 + (-(score - a) / b).exp());
        let loss = 1.0 / (1.0 + ((score + a) / b).exp());
        [win, 1.0 - win - loss, loss]
    }
}

/// The net `MODEL` was fitted for; a unit test holds it equal to the one `nets/DEFAULT` names,
/// so that a new default net is not shipped with the old one's scale.
pub const FITTED_FOR: &str = "gen13-512-ft-ob8-15bb0458.nnue";

/// Fitted for `FITTED_FOR` on 2026-12-07, from its own moves in the 650 games of its promotion
/// SPRT at 8+0.08 (the SPRTs' time control, so the scale a GUI user sees), by `datagen wdl-fit`
/// (docs/scores.md).
pub const MODEL: WdlModel = WdlModel {
    a: [-112.530501, 463.940545, -729.055192, 591.979406],
    b: [204.734146, -503.828167, 404.516862, -3.665859],
};

// The printed centipawn scale is `a` at the reference material; it lives with `Score`, below
// the search, which weighs moves in it (a limited strength's choice).
pub use crate::types::score::{to_cp, NORMALIZE_TO_PAWN};

/// Network units from centipawns printed by a build whose pawn was `pawn` units (`to_cp`'s
/// inverse for `NORMALIZE_TO_PAWN`, to within rounding; `pawn` = 100 takes them as they are).
/// Tablebase and mate scores, which `to_cp` prints untouched, come back untouched; any other
/// score stays inside the evaluation range.
pub fn from_cp(cp: Score, pawn: Score) -> Score {
    if cp.abs() >= TB_WIN_BOUND {
        cp
    } else {
        (cp * pawn / 100).clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }
}

/// UCI form: `cp N` in normalised centipawns (`wdl::to_cp`) or `mate N` in moves (negative
/// when being mated).
pub fn to_uci(score: Score) -> String {
    if let Some(moves) = moves_to_mate(score) {
        format!("mate {moves}")
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score) / 2)
    } else {
        format!("cp {}", to_cp(score))
    }
}

/// Win, draw and loss per mille for the side to move; they sum to 1000. A mate score is
/// certain, and so is a tablebase result.
pub fn wdl(score: Score, material: i32) -> [u32; 3] {
    if score.abs() >= TB_WIN_BOUND {
        return certain(score);
    }
    let [win, _, loss] = MODEL.probabilities(f64::from(score), material);
    let win = (win * 1000.0).round() as u32;
    // Both rounded up could pass 1000 where draws all but vanish.
    let loss = ((loss * 1000.0).round() as u32).min(1000 - win);
    [win, 1000 - win - loss, loss]
}

/// The result of a score the tablebases gave: a win or loss, or, for anything short of those
/// (a draw, or a win the fifty-move rule spoils), a draw.
pub fn certain(score: Score) -> [u32; 3] {
    if score >= TB_WIN_BOUND {
        [1000, 0, 0]
    } else if score <= -TB_WIN_BOUND {
        [0, 0, 1000]
    } else {
        [0, 1000, 0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::score::{mate_in, mated_in};

    #[test]
    fn the_model_is_fitted_for_the_default_net() {
        let default = include_str!("../../nets/DEFAULT").trim();
        assert_eq!(
            default, FITTED_FOR,
            "the default net changed: refit the model (docs/scores.md)"
        );
    }

    #[test]
    fn the_start_position_has_all_the_material() {
        assert_eq!(material(&Board::default()), 78);
    }

    #[test]
    fn the_normalisation_constant_prints_as_one_pawn() {
        assert_eq!(to_cp(NORMALIZE_TO_PAWN), 100);
        assert_eq!(to_cp(-NORMALIZE_TO_PAWN), -100);
        assert_eq!(to_cp(0), 0);
    }

    #[test]
    fn the_normalisation_constant_is_the_fitted_centre() {
        let (a, _) = MODEL.params(REFERENCE_MATERIAL);
        assert_eq!(a.round() as Score, NORMALIZE_TO_PAWN);
        // Which is where winning becomes as likely as not, to within the rounding of `a` to a
        // whole unit (under half a unit, a few tenths of a per mille).
        let win = wdl(NORMALIZE_TO_PAWN, REFERENCE_MATERIAL)[0];
        assert!((499..=501).contains(&win), "{win}");
    }

    #[test]
    fn printed_centipawns_read_back_as_network_units() {
        for score in (-TB_WIN_BOUND + 1..TB_WIN_BOUND).step_by(97) {
            let back = from_cp(to_cp(score), NORMALIZE_TO_PAWN);
            // Printing truncates less than a centipawn (NORMALIZE_TO_PAWN / 100 units),
            // reading back less than a unit.
            assert!(
                (score - back).abs() * 100 < NORMALIZE_TO_PAWN + 100,
                "{score} printed {} read back {back}",
                to_cp(score)
            );
        }
        for score in [TB_WIN_BOUND, -TB_WIN_BOUND - 3, mate_in(5), mated_in(2)] {
            assert_eq!(from_cp(to_cp(score), NORMALIZE_TO_PAWN), score);
        }
        assert_eq!(from_cp(-35, 100), -35);
        // Another scale's large score never reaches the tablebase band.
        assert_eq!(from_cp(TB_WIN_BOUND - 1, 300), TB_WIN_BOUND - 1);
    }

    #[test]
    fn mate_scores_pass_through() {
        for score in [mate_in(3), mated_in(4), MATE_BOUND, -MATE_BOUND] {
            assert_eq!(to_cp(score), score);
        }
        assert_eq!(wdl(mate_in(1), 78), [1000, 0, 0]);
        assert_eq!(wdl(mated_in(2), 78), [0, 0, 1000]);
    }

    #[test]
    fn wdl_sums_to_1000_and_favours_the_better_side() {
        for material in [0, 17, 30, 58, 78] {
            let mut last_win = 0;
            for score in (-3000..=3000).step_by(25) {
                let [win, draw, loss] = wdl(score, material);
                // A draw share wrapped below zero would still sum to 1000.
                assert!(draw <= 1000, "score {score}, material {material}");
                assert_eq!(
                    win + draw + loss,
                    1000,
                    "score {score}, material {material}"
                );
                assert!(win >= last_win, "score {score}, material {material}");
                last_win = win;
            }
            let [win, _, loss] = wdl(0, material);
            assert_eq!(win, loss);
        }
    }
}
