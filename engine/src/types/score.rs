//! Score conventions: centipawns for the side to move; mates as distance from the root.

pub type Score = i32;

pub const INFINITY: Score = 32_000;
pub const MATE: Score = 31_000;
/// Any score beyond this is a mate score.
pub const MATE_BOUND: Score = MATE - 256;
pub const DRAW: Score = 0;

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

/// The table stores mates as distance from the stored node, not from the root.
pub const fn to_tt(score: Score, ply: usize) -> Score {
    if score >= MATE_BOUND {
        score + ply as Score
    } else if score <= -MATE_BOUND {
        score - ply as Score
    } else {
        score
    }
}

pub const fn from_tt(score: Score, ply: usize) -> Score {
    if score >= MATE_BOUND {
        score - ply as Score
    } else if score <= -MATE_BOUND {
        score + ply as Score
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

/// UCI form: `cp N` in normalised centipawns (`wdl::to_cp`) or `mate N` in moves (negative
/// when being mated).
pub fn to_uci(score: Score) -> String {
    if let Some(moves) = moves_to_mate(score) {
        format!("mate {moves}")
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score) / 2)
    } else {
        format!("cp {}", crate::wdl::to_cp(score))
    }
}
