//! Score conventions: centipawns for the side to move; mates as distance from the root.

pub type Score = i32;

/// The deepest the search ever goes from the root (extensions included): mate and tablebase
/// distances, and so the bands of their scores, are counted in plies up to it.
pub const MAX_PLY: usize = 128;

pub const INFINITY: Score = 32_000;
pub const MATE: Score = 31_000;
/// Any score beyond this is a mate score.
pub const MATE_BOUND: Score = MATE - 256;
pub const DRAW: Score = 0;
/// Tablebase wins lie below the mates, `TB_WIN - ply` for a win known `ply` plies from the root:
/// a sure win, but no mate distance to report.
pub const TB_WIN: Score = MATE_BOUND - 1;
/// Any score beyond this is a tablebase win or a mate; evaluations stay within it. The band is
/// two searches deep, as the mates' is: a win stored in the table up to `MAX_PLY` plies from
/// its node can be read back up to `MAX_PLY` plies from a later root.
pub const TB_WIN_BOUND: Score = TB_WIN - 2 * MAX_PLY as Score;

/// Mate delivered `ply` plies from the root.
pub const fn mate_in(ply: usize) -> Score {
    MATE - ply as Score
}

/// Mated `ply` plies from the root.
pub const fn mated_in(ply: usize) -> Score {
    -MATE + ply as Score
}

pub const fn is_mate(score: Score) -> bool {
    score.abs() >= MATE_BOUND
}

/// A tablebase win reached `ply` plies from the root.
pub const fn tb_win_in(ply: usize) -> Score {
    TB_WIN - ply as Score
}

/// A win or a loss the tablebases know, with no mate distance.
pub const fn is_tb_result(score: Score) -> bool {
    score.abs() >= TB_WIN_BOUND && score.abs() < MATE_BOUND
}

/// A win or a loss, by mate or by the tablebases.
pub const fn is_decisive(score: Score) -> bool {
    score.abs() >= TB_WIN_BOUND
}

/// The table stores mates and tablebase wins as distance from the stored node, not from the root.
pub const fn to_tt(score: Score, ply: usize) -> Score {
    if score >= TB_WIN_BOUND {
        score + ply as Score
    } else if score <= -TB_WIN_BOUND {
        score - ply as Score
    } else {
        score
    }
}

/// A win read back is searched on and may be stored again at the reader's ancestors, each time
/// further from the node that found it; past what the bands hold it stays a win, at the floor of
/// the tablebase band (a sure win of unknown distance), and never passes for an evaluation.
pub const fn from_tt(score: Score, ply: usize) -> Score {
    if score >= TB_WIN_BOUND {
        let score = score - ply as Score;
        if score < TB_WIN_BOUND {
            TB_WIN_BOUND
        } else {
            score
        }
    } else if score <= -TB_WIN_BOUND {
        let score = score + ply as Score;
        if score > -TB_WIN_BOUND {
            -TB_WIN_BOUND
        } else {
            score
        }
    } else {
        score
    }
}

/// For a score that mates, in how many of our moves.
pub const fn moves_to_mate(score: Score) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else {
        None
    }
}

/// The model's `a` at the reference material (`wdl::MODEL`), rounded: the score that prints as
/// `cp 100`. Refitted with the model (`datagen wdl-fit`).
pub const NORMALIZE_TO_PAWN: Score = 214;

/// A score in printed centipawns; mate and tablebase scores pass through untouched.
pub fn to_cp(score: Score) -> Score {
    if score.abs() >= TB_WIN_BOUND {
        score
    } else {
        score * 100 / NORMALIZE_TO_PAWN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wins_and_losses_stay_in_their_band_through_the_table() {
        for stored_at in [0, 1, MAX_PLY / 2, MAX_PLY] {
            for found_at in stored_at..=MAX_PLY {
                for read_at in [0, 1, MAX_PLY / 2, MAX_PLY] {
                    let through_table = |score| from_tt(to_tt(score, stored_at), read_at);
                    for sign in [1, -1] {
                        let tb = through_table(sign * tb_win_in(found_at));
                        assert!(
                            is_tb_result(tb),
                            "tablebase {tb} ({stored_at}, {found_at}, {read_at})"
                        );
                        assert_eq!(tb.signum(), sign);
                        let mate = through_table(sign * mate_in(found_at));
                        assert!(
                            is_mate(mate),
                            "mate {mate} ({stored_at}, {found_at}, {read_at})"
                        );
                        assert_eq!(mate.signum(), sign);
                    }
                }
            }
        }
    }

    /// Read back at a node deep in the tree and stored again at one of its ancestors, over and
    /// over: the win drifts out of the mate band, then rests at the floor of the decisive scores.
    #[test]
    fn wins_stored_again_by_ancestors_stay_decisive() {
        for sign in [1, -1] {
            for start in [mate_in(3), tb_win_in(3)] {
                let (mut score, mut left_mates) = (sign * start, false);
                let mut stored = to_tt(score, 3);
                for hop in 0..20 {
                    score = from_tt(stored, MAX_PLY);
                    assert!(is_decisive(score), "hop {hop}: {score}");
                    assert_eq!(score.signum(), sign, "hop {hop}");
                    left_mates |= !is_mate(score);
                    assert!(!(left_mates && is_mate(score)), "hop {hop}: a mate again");
                    stored = to_tt(score, 1);
                }
                assert_eq!(score, sign * TB_WIN_BOUND);
            }
        }
    }
}
