//! Scores as a person reads them.

use patina::score::{is_tb_result, Score, MATE, MATE_BOUND};
use patina::Color;

/// A score from the side to move's view, shown from White's as GUIs do: `+0.35`, `-1.20`,
/// `#3` (White mates in 3), `#-2` (Black mates in 2), `+TB` (the tablebases say White wins).
pub fn score_text(score: Score, side_to_move: Color) -> String {
    let white = if side_to_move == Color::White {
        score
    } else {
        -score
    };
    if white >= MATE_BOUND {
        format!("#{}", (MATE - white + 1) / 2)
    } else if white <= -MATE_BOUND {
        format!("#-{}", (MATE + white + 1) / 2)
    } else if is_tb_result(white) {
        String::from(if white > 0 { "+TB" } else { "-TB" })
    } else {
        format!("{:+.2}", f64::from(patina::wdl::to_cp(white)) / 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use patina::score::tb_win_in;

    #[test]
    fn scores_from_whites_view() {
        // Printed in normalised pawns, as UCI prints them.
        let pawn = patina::wdl::NORMALIZE_TO_PAWN;
        assert_eq!(score_text(pawn, Color::White), "+1.00");
        assert_eq!(score_text(pawn, Color::Black), "-1.00");
        assert_eq!(score_text(0, Color::Black), "+0.00");
        // Mate in one move is one ply from the root.
        assert_eq!(score_text(MATE - 1, Color::White), "#1");
        assert_eq!(score_text(MATE - 1, Color::Black), "#-1");
        assert_eq!(score_text(MATE - 5, Color::White), "#3");
        // Mated now (the side to move has been mated at the root's child).
        assert_eq!(score_text(-(MATE - 2), Color::White), "#-1");
        // A tablebase win has no mate distance to show, and is no pawn count either.
        assert_eq!(score_text(tb_win_in(3), Color::White), "+TB");
        assert_eq!(score_text(tb_win_in(3), Color::Black), "-TB");
        assert_eq!(score_text(-tb_win_in(8), Color::Black), "+TB");
    }
}
