//! Attack tables. Leapers are plain lookups; sliders use fancy magic bitboards, or PEXT where
//! the build script chose it (a target with BMI2 whose PEXT is not microcode: see
//! `cpu::sliders`). The table's layout is the same, only the index differs. Everything is
//! computed at compile time so lookups are plain static loads.

pub use crate::cpu::sliders::SliderLookup;
use crate::cpu::SLIDERS;
use crate::types::{Bitboard, Color, Square};

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_STEPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_STEPS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// Sliding attacks found by walking rays; the reference the tables are built from and tested against.
pub const fn slider_attacks_slow(sq: usize, occupied: u64, dirs: &[(i8, i8); 4]) -> u64 {
    let mut attacks = 0;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let (mut f, mut r) = ((sq % 8) as i8 + df, (sq / 8) as i8 + dr);
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            let bit = 1u64 << (r * 8 + f);
            attacks |= bit;
            if occupied & bit != 0 {
                break;
            }
            f += df;
            r += dr;
        }
        d += 1;
    }
    attacks
}

/// The squares whose occupancy matters for a slider: its rays without the board edge.
const fn relevant_mask(sq: usize, dirs: &[(i8, i8); 4]) -> u64 {
    let mut mask = 0;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let (mut f, mut r) = ((sq % 8) as i8 + df, (sq / 8) as i8 + dr);
        while f + df >= 0 && f + df < 8 && r + dr >= 0 && r + dr < 8 {
            mask |= 1u64 << (r * 8 + f);
            f += df;
            r += dr;
        }
        d += 1;
    }
    mask
}

const fn step_attacks(steps: &[(i8, i8); 8]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut bits = 0u64;
        let mut i = 0;
        while i < 8 {
            let (f, r) = ((sq % 8) as i8 + steps[i].0, (sq / 8) as i8 + steps[i].1);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                bits |= 1u64 << (r * 8 + f);
            }
            i += 1;
        }
        table[sq] = Bitboard(bits);
        sq += 1;
    }
    table
}

const fn pawn_attack_table() -> [[Bitboard; 64]; 2] {
    let mut table = [[Bitboard::EMPTY; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let bit = 1u64 << sq;
        let west = bit & !Bitboard::FILE_A.0;
        let east = bit & !Bitboard::FILE_H.0;
        table[0][sq] = Bitboard(west << 7 | east << 9);
        table[1][sq] = Bitboard(west >> 9 | east >> 7);
        sq += 1;
    }
    table
}

static KNIGHT_ATTACKS: [Bitboard; 64] = step_attacks(&KNIGHT_STEPS);
static KING_ATTACKS: [Bitboard; 64] = step_attacks(&KING_STEPS);
static PAWN_ATTACKS: [[Bitboard; 64]; 2] = pawn_attack_table();

/// Where one slider's slice of the shared table starts, and how to index it.
#[derive(Copy, Clone)]
struct SliderEntry {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

impl SliderEntry {
    #[inline(always)]
    const fn magic_index(&self, occupied: u64) -> usize {
        ((occupied & self.mask).wrapping_mul(self.magic) >> self.shift) as usize
    }

    #[inline(always)]
    fn index(&self, occupied: u64) -> usize {
        #[cfg(all(pext_sliders, target_feature = "bmi2"))]
        {
            // SAFETY: the bmi2 target feature is enabled for this build, so the instruction exists.
            unsafe { std::arch::x86_64::_pext_u64(occupied, self.mask) as usize }
        }
        #[cfg(not(all(pext_sliders, target_feature = "bmi2")))]
        {
            self.magic_index(occupied)
        }
    }
}

const ROOK_TABLE_SIZE: usize = 102_400;
const BISHOP_TABLE_SIZE: usize = 5_248;

struct SliderTables<const N: usize> {
    entries: [SliderEntry; 64],
    attacks: [Bitboard; N],
}

const fn slider_tables<const N: usize>(
    dirs: &[(i8, i8); 4],
    magics: &[u64; 64],
) -> SliderTables<N> {
    let empty = SliderEntry {
        mask: 0,
        magic: 0,
        shift: 0,
        offset: 0,
    };
    let mut tables = SliderTables {
        entries: [empty; 64],
        attacks: [Bitboard::EMPTY; N],
    };
    let mut offset = 0;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, dirs);
        let entry = SliderEntry {
            mask,
            magic: magics[sq],
            shift: 64 - mask.count_ones(),
            offset,
        };
        // Carry-rippler: enumerate every subset of the mask in increasing order, which is
        // also the order of their PEXT indices.
        let mut subset = 0u64;
        let mut pext_index = 0;
        loop {
            let index = if matches!(SLIDERS, SliderLookup::Pext) {
                pext_index
            } else {
                entry.magic_index(subset)
            };
            tables.attacks[offset + index] = Bitboard(slider_attacks_slow(sq, subset, dirs));
            pext_index += 1;
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        tables.entries[sq] = entry;
        offset += 1 << mask.count_ones();
        sq += 1;
    }
    assert!(offset == N);
    tables
}

/// Magic multipliers found by a seeded random search; each maps every blocker subset of
/// its square to a slot without a harmful collision.
const ROOK_MAGICS: [u64; 64] = [
    0x2080002080400010,
    0x00C0002001401000,
    0x2100110008402002,
    0x0880080081041000,
    0x0200020020041008,
    0x2300040008010012,
    0x0C00283004008201,
    0x0180010000407A80,
    0x0168800080400020,
    0x0010400040201000,
    0x1001002001001048,
    0x1001002408100100,
    0x0801000408010012,
    0x4001000209000400,
    0x08A20004C8020001,
    0x2002801145002280,
    0x0080860021004200,
    0x001000C009402002,
    0x00B0002004002800,
    0x100A808010020800,
    0x8101010008000410,
    0x0244008002000480,
    0x0000040010810208,
    0x2000020000448534,
    0x4104400480008033,
    0x0000810100204000,
    0x0440430900200010,
    0x4600240900100100,
    0x0060080080040080,
    0x0001000300080400,
    0x0004084400011002,
    0x0023040200008041,
    0x0580050043002080,
    0x0400804002802008,
    0x0001002001004010,
    0x1000200901001000,
    0x4410800801800C00,
    0xA012003806001004,
    0x0020100104008802,
    0x0004808402000041,
    0x0010400170898000,
    0x0080500020004004,
    0x1040408012020020,
    0x8010040008004040,
    0x2001080100110004,
    0x0000020004008080,
    0x0021010810040002,
    0x0800008C43020024,
    0x0000800021005100,
    0x0070201040008080,
    0x0000D04282006A00,
    0x0010014400080240,
    0x0001080110050100,
    0x0012000810240600,
    0x0402000801040200,
    0x028100108A004100,
    0x0050800300102045,
    0x8208210040120882,
    0x8010600101183441,
    0x020B000910006045,
    0x0241001002480005,
    0x0081000400880241,
    0x0000009008024124,
    0x0048122980410402,
];

const BISHOP_MAGICS: [u64; 64] = [
    0x0848020822040013,
    0x8010A40085821200,
    0x0008008430840822,
    0x0808048108040000,
    0x1304042100008104,
    0x5001012010204023,
    0x81048801B8200420,
    0x200A008084012000,
    0x0040102001042084,
    0x840A505042428020,
    0x0000700102202920,
    0x44101C0C10800002,
    0x0040040422000000,
    0x0180020802090202,
    0x4020020811041202,
    0x000104308C042000,
    0x4140661002424400,
    0x0028012008010460,
    0x0188062102002A00,
    0x0014004840102008,
    0x0105000290400002,
    0x8001022200410400,
    0x104A041918013446,
    0x008A000082008238,
    0x04A0060008100430,
    0x0008220008820801,
    0x2508041208005010,
    0x4008080200202020,
    0x2441001013004000,
    0x0030008060407000,
    0x4008108000420800,
    0x0012021050290100,
    0x0210080482200500,
    0xCC01112048100480,
    0x0020402806500440,
    0x00048E0080580080,
    0x0040102020020080,
    0x0028010440080807,
    0x4601041108008800,
    0x8040810E04104200,
    0x901210110400088A,
    0xA003080212081050,
    0x00C1004048401004,
    0x900000A014400800,
    0x0008021040405401,
    0x4020008206002090,
    0x0004190424030100,
    0x0424008A02026250,
    0x8004088250900040,
    0x1C00430088A04200,
    0x0001020094040001,
    0x8040210020880061,
    0x2010040450442032,
    0x0800840850044001,
    0x0004040802140004,
    0x0004080A04222020,
    0x8088802110022000,
    0x1081A10416114400,
    0x0205010A24060820,
    0x0000000720411080,
    0x1008000208430400,
    0x580C026028810840,
    0x802020441020A110,
    0x12C0022401020018,
];

// Building 100k entries at compile time trips rustc's guard against endless loops.
#[allow(long_running_const_eval)]
static ROOK_TABLES: SliderTables<ROOK_TABLE_SIZE> = slider_tables(&ROOK_DIRS, &ROOK_MAGICS);
static BISHOP_TABLES: SliderTables<BISHOP_TABLE_SIZE> = slider_tables(&BISHOP_DIRS, &BISHOP_MAGICS);

#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    PAWN_ATTACKS[color.index()][sq.index()]
}

#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    KNIGHT_ATTACKS[sq.index()]
}

#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING_ATTACKS[sq.index()]
}

#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let entry = &ROOK_TABLES.entries[sq.index()];
    ROOK_TABLES.attacks[entry.offset + entry.index(occupied.0)]
}

#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let entry = &BISHOP_TABLES.entries[sq.index()];
    BISHOP_TABLES.attacks[entry.offset + entry.index(occupied.0)]
}

#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

const fn line_tables() -> ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]) {
    let mut between = [[Bitboard::EMPTY; 64]; 64];
    let mut line = [[Bitboard::EMPTY; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let b_bit = 1u64 << b;
            let dir_sets = [&ROOK_DIRS, &BISHOP_DIRS];
            let mut k = 0;
            while k < 2 {
                let dirs = dir_sets[k];
                if a != b && slider_attacks_slow(a, 0, dirs) & b_bit != 0 {
                    between[a][b] = Bitboard(
                        slider_attacks_slow(a, b_bit, dirs) & slider_attacks_slow(b, 1 << a, dirs),
                    );
                    line[a][b] = Bitboard(
                        (slider_attacks_slow(a, 0, dirs) & slider_attacks_slow(b, 0, dirs))
                            | 1 << a
                            | b_bit,
                    );
                }
                k += 1;
            }
            b += 1;
        }
        a += 1;
    }
    (between, line)
}

static LINES: ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]) = line_tables();

/// Squares strictly between two aligned squares; empty if they share no line.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    LINES.0[a.index()][b.index()]
}

/// The whole line (edge to edge) through two aligned squares; empty if they share none.
#[inline(always)]
pub fn line_through(a: Square, b: Square) -> Bitboard {
    LINES.1[a.index()][b.index()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::{rand_core::RngCore, rand_core::SeedableRng, Xoshiro256PlusPlus};

    fn random_occupancies() -> impl Iterator<Item = u64> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        (0..4000).map(move |_| rng.next_u64() & rng.next_u64())
    }

    #[test]
    fn slider_lookups_match_ray_walks() {
        for occ in random_occupancies() {
            for sq in Square::ALL {
                let i = sq.index();
                assert_eq!(
                    rook_attacks(sq, Bitboard(occ)).0,
                    slider_attacks_slow(i, occ, &ROOK_DIRS)
                );
                assert_eq!(
                    bishop_attacks(sq, Bitboard(occ)).0,
                    slider_attacks_slow(i, occ, &BISHOP_DIRS)
                );
            }
        }
    }

    /// Builds that use PEXT never index by magic, so the multipliers are checked here on their own.
    #[test]
    fn magic_index_is_collision_free() {
        for (tables, dirs) in [
            (&ROOK_TABLES.entries, &ROOK_DIRS),
            (&BISHOP_TABLES.entries, &BISHOP_DIRS),
        ] {
            for (sq, entry) in tables.iter().enumerate() {
                let mut slots = vec![None; 1 << entry.mask.count_ones()];
                let mut subset = 0u64;
                loop {
                    let attacks = slider_attacks_slow(sq, subset, dirs);
                    let slot = &mut slots[entry.magic_index(subset)];
                    assert!(
                        slot.is_none_or(|a| a == attacks),
                        "magic collision on square {sq}"
                    );
                    *slot = Some(attacks);
                    subset = subset.wrapping_sub(entry.mask) & entry.mask;
                    if subset == 0 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn between_and_line() {
        let (a1, h8, c3) = (Square::A1, Square::new(63), Square::new(18));
        assert_eq!(between(a1, h8).count(), 6);
        assert!(between(a1, h8).contains(c3));
        assert!(line_through(a1, c3).contains(h8));
        assert!(between(a1, Square::new(17)).is_empty());
    }
}
