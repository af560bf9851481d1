//! Legal move generation. Checks and pins are known before generating (see
//! `update_check_info`), so every move produced is legal and no make/unmake test is needed.

use arrayvec::ArrayVec;

use super::{
    attacks::{
        between, bishop_attacks, king_attacks, knight_attacks, line_through, pawn_attacks,
        queen_attacks, rook_attacks,
    },
    Board, Wing,
};
use crate::types::{Bitboard, Color, Move, MoveKind, PieceType, Square};

/// No legal position has more than 218 moves, nor any position the FEN parser accepts (its
/// material is one promotions could reach).
pub type MoveList = ArrayVec<Move, 256>;

impl Board {
    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<true, true>(&mut list);
        list
    }

    /// Legal captures and promotions.
    pub fn generate_noisy(&self, list: &mut MoveList) {
        self.generate::<true, false>(list);
    }

    /// Legal moves that are neither captures nor promotions (castling included).
    pub fn generate_quiet(&self, list: &mut MoveList) {
        self.generate::<false, true>(list);
    }

    pub fn has_legal_move(&self) -> bool {
        !self.legal_moves().is_empty()
    }

    /// Parses a UCI move (`e2e4`, `e7e8q`; castling as king-to-destination or king-takes-rook)
    /// and returns it only if it is legal here. The board's own notation is tried first: in
    /// Chess960 a king step such as `f1g1` reads in standard notation as castling with the h-rook.
    /// Upper case is accepted too, as some GUIs write the promotion piece (`e7e8Q`).
    pub fn parse_uci_move(&self, text: &str) -> Option<Move> {
        let text = text.to_ascii_lowercase();
        let moves = self.legal_moves();
        [self.chess960, !self.chess960]
            .into_iter()
            .find_map(|chess960| moves.iter().copied().find(|mv| mv.to_uci(chess960) == text))
    }

    fn generate<const NOISY: bool, const QUIET: bool>(&self, list: &mut MoveList) {
        let us = self.side_to_move;
        let them = !us;
        let ours = self.colored(us);
        let theirs = self.colored(them);
        let occupied = ours | theirs;
        let king = self.king_square(us);
        let checkers = self.checkers();

        let mut king_targets = king_attacks(king) & !ours;
        if !NOISY {
            king_targets &= !theirs;
        }
        if !QUIET {
            king_targets &= theirs;
        }
        let without_king = occupied.without(king);
        for to in king_targets {
            if !self.is_attacked(to, them, without_king) {
                let kind = if theirs.contains(to) {
                    MoveKind::Capture
                } else {
                    MoveKind::Quiet
                };
                list.push(Move::new(king, to, kind));
            }
        }
        if checkers.more_than_one() {
            return;
        }

        // In check, every non-king move must capture the checker or block it.
        let target = match checkers.is_nonempty() {
            true => between(king, checkers.lsb()) | checkers,
            false => Bitboard::FULL,
        };
        self.generate_pawn_moves::<NOISY, QUIET>(list, target);

        let pinned = self.pinned();
        for piece_type in [
            PieceType::Knight,
            PieceType::Bishop,
            PieceType::Rook,
            PieceType::Queen,
        ] {
            for from in self.colored_pieces(us, piece_type) {
                let mut targets = match piece_type {
                    PieceType::Knight => knight_attacks(from),
                    PieceType::Bishop => bishop_attacks(from, occupied),
                    PieceType::Rook => rook_attacks(from, occupied),
                    _ => queen_attacks(from, occupied),
                } & target;
                if pinned.contains(from) {
                    targets &= line_through(king, from);
                }
                if NOISY {
                    for to in targets & theirs {
                        list.push(Move::new(from, to, MoveKind::Capture));
                    }
                }
                if QUIET {
                    for to in targets & !occupied {
                        list.push(Move::new(from, to, MoveKind::Quiet));
                    }
                }
            }
        }

        if QUIET && checkers.is_empty() {
            self.generate_castling(list, king, occupied);
        }
    }

    fn generate_pawn_moves<const NOISY: bool, const QUIET: bool>(
        &self,
        list: &mut MoveList,
        target: Bitboard,
    ) {
        let us = self.side_to_move;
        let king = self.king_square(us);
        let pinned = self.pinned();
        let pawns = self.colored_pieces(us, PieceType::Pawn);
        let theirs = self.colored(!us);
        let empty = !self.occupied();
        let up = us.forward();
        let (third_rank, seventh_rank) = match us {
            Color::White => (Bitboard::rank(2), Bitboard::rank(6)),
            Color::Black => (Bitboard::rank(5), Bitboard::rank(1)),
        };
        let push = |b: Bitboard| {
            if us == Color::White {
                b.shift_north()
            } else {
                b.shift_south()
            }
        };
        // A pinned pawn may only move along the pin line.
        let allowed = |from: Square, to: Square| {
            !pinned.contains(from) || line_through(king, from).contains(to)
        };

        let promoting = pawns & seventh_rank;
        let others = pawns & !seventh_rank;

        if QUIET {
            let single = push(others) & empty;
            let double = push(single & third_rank) & empty;
            for to in single & target {
                let from = to.offset(-up);
                if allowed(from, to) {
                    list.push(Move::new(from, to, MoveKind::Quiet));
                }
            }
            for to in double & target {
                let from = to.offset(-2 * up);
                if allowed(from, to) {
                    list.push(Move::new(from, to, MoveKind::DoublePush));
                }
            }
        }

        if NOISY {
            for from in others {
                for to in pawn_attacks(us, from) & theirs & target {
                    if allowed(from, to) {
                        list.push(Move::new(from, to, MoveKind::Capture));
                    }
                }
            }
            for from in promoting {
                let pushes = push(Bitboard::from_square(from)) & empty;
                let captures = pawn_attacks(us, from) & theirs;
                for to in (pushes | captures) & target {
                    if allowed(from, to) {
                        let capture = theirs.contains(to);
                        for piece in PieceType::PROMOTIONS {
                            list.push(Move::new(from, to, MoveKind::promotion(piece, capture)));
                        }
                    }
                }
            }
            if let Some(ep) = self.en_passant() {
                self.generate_en_passant(list, ep, pawns);
            }
        }
    }

    /// En passant removes two pieces from one line, which pin detection cannot see, so each
    /// candidate is checked by looking at the king's attackers after the capture.
    fn generate_en_passant(&self, list: &mut MoveList, ep: Square, pawns: Bitboard) {
        let us = self.side_to_move;
        let king = self.king_square(us);
        let victim = ep.offset(-us.forward());
        for from in pawn_attacks(!us, ep) & pawns {
            let occupied = self.occupied().without(from).without(victim).with(ep);
            let attackers = self.attackers_to(king, occupied)
                & self.colored(!us)
                & !Bitboard::from_square(victim);
            if attackers.is_empty() {
                list.push(Move::new(from, ep, MoveKind::EnPassant));
            }
        }
    }

    fn generate_castling(&self, list: &mut MoveList, king: Square, occupied: Bitboard) {
        let us = self.side_to_move;
        for wing in Wing::BOTH {
            if !self.can_castle(us, wing) {
                continue;
            }
            let rook = self.castling.rook_square(us, wing);
            let mv = Move::new(king, rook, MoveKind::Castle);
            let (king_to, rook_to) = mv.castling_destinations();
            let king_path = between(king, king_to) | Bitboard::from_square(king_to);
            let rook_path = between(rook, rook_to) | Bitboard::from_square(rook_to);
            let movers = Bitboard::from_square(king) | Bitboard::from_square(rook);
            if ((king_path | rook_path) & occupied & !movers).is_nonempty() {
                continue;
            }
            // The castling rook may be what shields the king's path (Chess960), so look through it.
            let without_rook = occupied.without(rook);
            if king_path
                .into_iter()
                .any(|sq| self.is_attacked(sq, !us, without_rook))
            {
                continue;
            }
            list.push(mv);
        }
    }
}

impl Board {
    /// Whether a move from an untrusted source (the transposition table, a killer slot, another
    /// position) is legal here. Cheaper than generating: only the move's own geometry is checked.
    pub fn is_legal(&self, mv: Move) -> bool {
        let us = self.side_to_move;
        let (from, to) = (mv.from(), mv.to());
        let Some(piece) = self.piece_at(from).filter(|p| p.color() == us) else {
            return false;
        };
        if mv.is_castle() || mv.is_en_passant() {
            // Rare enough to settle by generating.
            let mut list = MoveList::new();
            match mv.is_castle() {
                true => self.generate_quiet(&mut list),
                false => self.generate_noisy(&mut list),
            }
            return list.contains(&mv);
        }
        let theirs = self.colored(!us);
        let occupied = self.occupied();
        if mv.is_capture() != theirs.contains(to) || (!mv.is_capture() && occupied.contains(to)) {
            return false;
        }
        let piece_type = piece.piece_type();
        if piece_type == PieceType::Pawn {
            let last_rank = if us == Color::White { 7 } else { 0 };
            if mv.is_promotion() != (to.rank() == last_rank) {
                return false;
            }
            let up = us.forward();
            let geometry_ok = match mv.kind() {
                MoveKind::DoublePush => {
                    from.rank() == if us == Color::White { 1 } else { 6 }
                        && to.index() as i8 == from.index() as i8 + 2 * up
                        && !occupied.contains(from.offset(up))
                }
                _ if mv.is_capture() => pawn_attacks(us, from).contains(to),
                _ => to.index() as i8 == from.index() as i8 + up,
            };
            if !geometry_ok {
                return false;
            }
        } else {
            if !matches!(mv.kind(), MoveKind::Quiet | MoveKind::Capture) {
                return false;
            }
            let reach = match piece_type {
                PieceType::Knight => knight_attacks(from),
                PieceType::Bishop => bishop_attacks(from, occupied),
                PieceType::Rook => rook_attacks(from, occupied),
                PieceType::Queen => queen_attacks(from, occupied),
                _ => king_attacks(from),
            };
            if !reach.contains(to) {
                return false;
            }
        }

        let king = self.king_square(us);
        if piece_type == PieceType::King {
            return !self.is_attacked(to, !us, occupied.without(from));
        }
        let checkers = self.checkers();
        if checkers.more_than_one() {
            return false;
        }
        if checkers.is_nonempty() && !(between(king, checkers.lsb()) | checkers).contains(to) {
            return false;
        }
        !self.pinned().contains(from) || line_through(king, from).contains(to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::perft::perft;
    use crate::types::Square;

    /// Every 16-bit pattern is offered to `is_legal`; exactly the generated moves pass.
    #[test]
    fn is_legal_agrees_with_generation() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
            "4k3/8/8/8/8/8/8/R3K2r w Q - 0 1",
        ] {
            let board = Board::from_fen(fen).unwrap();
            let legal = board.legal_moves();
            let accepted: Vec<Move> = (0..=u16::MAX)
                .filter_map(Move::from_bits)
                .filter(|&mv| board.is_legal(mv))
                .collect();
            assert_eq!(accepted.len(), legal.len(), "{fen}");
            assert!(accepted.iter().all(|mv| legal.contains(mv)), "{fen}");
        }
    }

    #[test]
    fn uci_move_parsing() {
        let board = Board::startpos();
        assert_eq!(
            board.parse_uci_move("e2e4").map(|m| m.kind()),
            Some(MoveKind::DoublePush)
        );
        assert!(board.parse_uci_move("e2e5").is_none());
        assert!(board.parse_uci_move("zz").is_none());
        let castle = Board::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
        let short = castle.parse_uci_move("e1g1").expect("standard notation");
        assert_eq!(castle.parse_uci_move("e1h1"), Some(short));
        assert_eq!(short.to(), Square::H1);
        // King on f1, rook on h1: in Chess960 notation f1g1 is the king step, f1h1 castling.
        let fischer = Board::from_fen("4k3/8/8/8/8/8/8/5K1R w K - 0 1").unwrap();
        assert!(fischer.is_chess960());
        let step = fischer.parse_uci_move("f1g1").expect("king step");
        assert_eq!((step.to(), step.kind()), (Square::G1, MoveKind::Quiet));
        let castling = fischer.parse_uci_move("f1h1").expect("castling");
        assert_eq!(castling.to(), Square::H1);
        assert_ne!(castling, step);
        assert_eq!(
            perft(&mut castle.clone(), 1),
            castle.legal_moves().len() as u64
        );
    }
}
