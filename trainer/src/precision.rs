//! The number format of the rows the backward pass reads over and over: the feature weights
//! summed by the forward sweep and the positions' hidden gradients summed by the gather.
//!
//! Both sweeps wait on L2 rather than on arithmetic, so storing those rows as bfloat16 (half
//! the bytes) makes a step about a third faster. Only these working copies narrow: every sum is
//! taken in f32, and the parameters, gradients and optimiser state stay f32, as in mixed-precision
//! training on GPUs. `Precision::F32` keeps bullet's arithmetic exactly.
//!
//! `Precision` is the run's setting; `F32Rows` and `Bf16Rows` are the `RowFormat`s the hot
//! loops are compiled for, one per setting (`with_precision!`).

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

/// The format chosen for a run (`--precision`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Single precision throughout, as bullet computes.
    F32,
    /// bfloat16 working copies of weights and hidden gradients, f32 sums.
    #[default]
    Bf16,
}

impl Precision {
    /// Its number in a checkpoint.
    pub fn code(self) -> u64 {
        match self {
            Self::F32 => 0,
            Self::Bf16 => 1,
        }
    }

    pub fn from_code(code: u64) -> Option<Self> {
        Self::value_variants()
            .iter()
            .copied()
            .find(|p| p.code() == code)
    }
}

/// The name `--precision` and the config file take.
impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let value = self.to_possible_value().expect("no variant is skipped");
        f.write_str(value.get_name())
    }
}

/// Hidden neurons per block: 8 registers of the widest vectors the CPU has, so a block's sums
/// stay in registers with room left for loads. Wider blocks cost fewer passes over each
/// position's features and fewer horizontal sums.
pub const BLOCK: usize = if cfg!(target_feature = "avx512f") {
    128
} else {
    64
};

/// How a block of `BLOCK` values is stored and summed.
pub trait RowFormat: Send + Sync + 'static {
    type Word: Copy + Default + PartialEq + Send + Sync;
    /// Words holding one block.
    const WORDS: usize;

    fn pack(values: &[f32; BLOCK], words: &mut [Self::Word]);

    /// `start + Σ rows`, each row a block of `WORDS` words, summed in registers.
    fn accumulate<'w>(
        start: &[f32; BLOCK],
        rows: impl Iterator<Item = &'w [Self::Word]>,
    ) -> [f32; BLOCK];
}

pub struct F32Rows;

impl RowFormat for F32Rows {
    type Word = f32;
    const WORDS: usize = BLOCK;

    #[inline(always)]
    fn pack(values: &[f32; BLOCK], words: &mut [f32]) {
        words.copy_from_slice(values);
    }

    #[inline(always)]
    fn accumulate<'w>(start: &[f32; BLOCK], rows: impl Iterator<Item = &'w [f32]>) -> [f32; BLOCK] {
        crate::model::accumulate(start, rows.map(|row| row.try_into().unwrap()))
    }
}

/// Pairs of bfloat16 in a `u32`: word j holds neuron j in its low half and neuron j + BLOCK/2
/// in its high half, so unpacking is a shift and a mask per half and keeps neurons in order.
pub struct Bf16Rows;

const HALF: usize = BLOCK / 2;

impl RowFormat for Bf16Rows {
    type Word = u32;
    const WORDS: usize = HALF;

    #[inline(always)]
    fn pack(values: &[f32; BLOCK], words: &mut [u32]) {
        let (low, high) = values.split_at(HALF);
        for ((word, &low), &high) in words[..HALF].iter_mut().zip(low).zip(high) {
            *word = bf16_bits(high) << 16 | bf16_bits(low);
        }
    }

    #[inline(always)]
    fn accumulate<'w>(start: &[f32; BLOCK], rows: impl Iterator<Item = &'w [u32]>) -> [f32; BLOCK] {
        let mut sum = *start;
        let (low, high) = sum.split_at_mut(HALF);
        let (low, high): (&mut [f32; HALF], &mut [f32; HALF]) =
            (low.try_into().unwrap(), high.try_into().unwrap());
        for row in rows {
            let row: &[u32; HALF] = row.try_into().unwrap();
            for j in 0..HALF {
                low[j] += f32::from_bits(row[j] << 16);
                high[j] += f32::from_bits(row[j] & 0xFFFF_0000);
            }
        }
        sum
    }
}

/// The bfloat16 nearest `x` (ties to even), as the top 16 bits of an f32. A NaN stays a NaN
/// (rounding its bits could carry it into an infinity or, wrapping, zero).
#[inline(always)]
pub fn bf16_bits(x: f32) -> u32 {
    let bits = x.to_bits();
    let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16;
    if x.is_nan() {
        bits >> 16 | 0x40
    } else {
        rounded
    }
}

/// Evaluates `$body` with the type `$format` set to the row format of `$precision`.
#[macro_export]
macro_rules! with_precision {
    ($precision:expr, $format:ident => $body:expr) => {
        match $precision {
            $crate::precision::Precision::F32 => {
                type $format = $crate::precision::F32Rows;
                $body
            }
            $crate::precision::Precision::Bf16 => {
                type $format = $crate::precision::Bf16Rows;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unpack(words: &[u32]) -> Vec<f32> {
        let zero = [0.0; BLOCK];
        Bf16Rows::accumulate(&zero, std::iter::once(words)).to_vec()
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        // 1 + 2^-8 lies exactly between two bfloat16 values (1 and 1 + 2^-7): ties go to even.
        // Just above the tie rounds up; negative values mirror positive ones.
        let tie = 2f32.powi(-8);
        let cases = [
            (1.0, 1.0),
            (1.0 + tie, 1.0),
            (-1.0 - tie, -1.0),
            (1.0 + 3.0 * tie, 1.0 + 2.0 * 2f32.powi(-7)),
            (-1.0 - 3.0 * tie, -1.0 - 2.0 * 2f32.powi(-7)),
            (1.0 + tie + 2f32.powi(-20), 1.0 + 2f32.powi(-7)),
            (-0.3, -0.30078125),
            (1.98, 1.9765625),
            (0.0, 0.0),
        ];
        for (x, nearest) in cases {
            assert_eq!(f32::from_bits(bf16_bits(x) << 16), nearest, "{x}");
        }
        for nan in [
            f32::NAN,
            f32::from_bits(0x7F80_0001),
            f32::from_bits(0xFFFF_FFFF),
        ] {
            assert!(
                f32::from_bits(bf16_bits(nan) << 16).is_nan(),
                "{:#x}",
                nan.to_bits()
            );
        }
    }

    #[test]
    fn bf16_pairs_hold_neuron_j_low_and_j_plus_half_high() {
        let values: [f32; BLOCK] = std::array::from_fn(|i| i as f32 - 40.5);
        let mut words = [0; HALF];
        Bf16Rows::pack(&values, &mut words);
        for (j, word) in words.iter().enumerate() {
            assert_eq!(word & 0xFFFF, bf16_bits(values[j]), "low half of word {j}");
            assert_eq!(
                word >> 16,
                bf16_bits(values[j + HALF]),
                "high half of word {j}"
            );
        }
        assert_eq!(
            unpack(&words),
            values.map(|x| f32::from_bits(bf16_bits(x) << 16))
        );
    }

    #[test]
    fn checkpoint_codes_round_trip() {
        for precision in Precision::value_variants() {
            assert_eq!(Precision::from_code(precision.code()), Some(*precision));
        }
        assert_eq!(Precision::from_code(2), None);
        assert_eq!(Precision::default().to_string(), "bf16");
    }

    #[test]
    fn bf16_sums_match_f32_sums_of_the_rounded_values() {
        let rows: Vec<[f32; BLOCK]> = (0..25)
            .map(|r| std::array::from_fn(|i| ((r * 31 + i * 7) % 97) as f32 / 97.0 - 0.5))
            .collect();
        let start: [f32; BLOCK] = std::array::from_fn(|i| i as f32 / BLOCK as f32);
        let packed: Vec<[u32; HALF]> = rows
            .iter()
            .map(|row| {
                let mut words = [0; HALF];
                Bf16Rows::pack(row, &mut words);
                words
            })
            .collect();
        let narrow = Bf16Rows::accumulate(&start, packed.iter().map(|w| &w[..]));
        let rounded: Vec<[f32; BLOCK]> = rows
            .iter()
            .map(|row| row.map(|x| f32::from_bits(bf16_bits(x) << 16)))
            .collect();
        let wide = F32Rows::accumulate(&start, rounded.iter().map(|r| &r[..]));
        assert_eq!(narrow, wide);
    }
}
