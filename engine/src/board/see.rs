//! Static exchange evaluation: does a capture sequence on one square win at least a threshold?

use super::{
    attacks::{bishop_attacks, rook_attacks},
    Board,
};
use crate::types::{Move, PieceType};

/// Piece values for exchange arithmetic only; the evaluation itself is the network.
pub const SEE_VALUES: [i32; 6] = [100, 300, 300, 500, 900, 0];

impl Board {
    /// Whether `mv` wins at least `threshold` centipawns of material once every recapture on
    /// its target square has been played out, cheapest attacker first.
    pub fn see(&self, mv: Move, threshold: i32) -> bool {
        if mv.is_castle() {
            return threshold <= 0;
        }
        let (from, to) = (mv.from(), mv.to());
        let mut gain = self
            .captured_piece(mv)
            .map_or(0, |p| SEE_VALUES[p.piece_type().index()]);
        let mut next_victim = self
            .piece_at(from)
            .expect("a move starts on a piece")
            .piece_type();
        if let Some(promoted) = mv.promotion() {
            gain += SEE_VALUES[promoted.index()] - SEE_VALUES[PieceType::Pawn.index()];
            next_victim = promoted;
        }
        // Even if the opponent does not recapture, this does not reach the threshold.
        let mut balance = gain - threshold;
        if balance < 0 {
            return false;
        }
        // Even if we lose the moved piece for nothing, we are still at the threshold.
        balance -= SEE_VALUES[next_victim.index()];
        if balance >= 0 {
            return true;
        }

        let mut occupied = self.occupied().without(from).without(to);
        if mv.is_en_passant() {
            occupied = occupied.without(to.offset(-self.side_to_move().forward()));
        }
        let diagonal = self.pieces(PieceType::Bishop) | self.pieces(PieceType::Queen);
        let straight = self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen);
        let mut attackers = self.attackers_to(to, occupied) & occupied;
        let mut side = !self.side_to_move();

        loop {
            let ours = attackers & self.colored(side);
            if ours.is_empty() {
                break;
            }
            let attacker = PieceType::ALL
                .into_iter()
                .find(|&pt| (ours & self.pieces(pt)).is_nonempty())
                .expect("an attacker has a type");
            occupied = occupied.without((ours & self.pieces(attacker)).lsb());
            // Sliders behind the piece that just captured join in (x-rays).
            if matches!(
                attacker,
                PieceType::Pawn | PieceType::Bishop | PieceType::Queen
            ) {
                attackers |= bishop_attacks(to, occupied) & diagonal;
            }
            if matches!(attacker, PieceType::Rook | PieceType::Queen) {
                attackers |= rook_attacks(to, occupied) & straight;
            }
            attackers &= occupied;
            side = !side;
            balance = -balance - 1 - SEE_VALUES[attacker.index()];
            if balance >= 0 {
                // A king may only take last: if the other side still attacks, the king capture was illegal.
                if attacker == PieceType::King && (attackers & self.colored(side)).is_nonempty() {
                    side = !side;
                }
                break;
            }
        }
        side != self.side_to_move()
    }
}

#[cfg(test)]
mod tests {
    use crate::board::Board;

    fn see(fen: &str, uci: &str, threshold: i32) -> bool {
        let board = Board::from_fen(fen).unwrap();
        let mv = board.parse_uci_move(uci).expect("legal test move");
        board.see(mv, threshold)
    }

    #[test]
    fn exchanges() {
        // Pawn defended by pawn: rook takes, pawn retakes.
        let fen = "4k3/8/3p4/4p3/8/8/8/4R1K1 w - - 0 1";
        assert!(see(fen, "e1e5", -400));
        assert!(!see(fen, "e1e5", 1));
        // Undefended pawn wins a pawn.
        let fen = "4k3/8/8/4p3/8/8/8/4R1K1 w - - 0 1";
        assert!(see(fen, "e1e5", 100));
        assert!(!see(fen, "e1e5", 101));
        // X-ray: doubled rooks win the defended pawn's exchange.
        let fen = "4r1k1/8/8/4p3/8/8/4R3/4R1K1 w - - 0 1";
        assert!(see(fen, "e2e5", 100));
    }
}
