//! Zobrist keys, generated at compile time from a fixed seed so hashes are stable across builds.

use crate::types::{Piece, Square};

pub struct Keys {
    pub pieces: [[u64; 64]; 12],
    pub castling: [u64; 16],
    pub en_passant: [u64; 8],
    pub side: u64,
}

const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn generate() -> Keys {
    let mut seed = 0x5041_5449_4E41; // "PATINA"
    let mut keys = Keys {
        pieces: [[0; 64]; 12],
        castling: [0; 16],
        en_passant: [0; 8],
        side: 0,
    };
    let mut p = 0;
    while p < 12 {
        let mut sq = 0;
        while sq < 64 {
            keys.pieces[p][sq] = splitmix(&mut seed);
            sq += 1;
        }
        p += 1;
    }
    // Each set of castling rights hashes as the XOR of its single rights' keys (as in Polyglot).
    let single = [
        splitmix(&mut seed),
        splitmix(&mut seed),
        splitmix(&mut seed),
        splitmix(&mut seed),
    ];
    let mut rights = 0;
    while rights < 16 {
        let mut bit = 0;
        while bit < 4 {
            if rights & (1 << bit) != 0 {
                keys.castling[rights] ^= single[bit];
            }
            bit += 1;
        }
        rights += 1;
    }
    let mut file = 0;
    while file < 8 {
        keys.en_passant[file] = splitmix(&mut seed);
        file += 1;
    }
    keys.side = splitmix(&mut seed);
    keys
}

pub static KEYS: Keys = generate();

#[inline(always)]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    KEYS.pieces[piece.index()][sq.index()]
}
