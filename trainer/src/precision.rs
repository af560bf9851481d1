//! The number format of the rows the backward pass reads over and over: the feature weights
//! summed by the forward sweep and the positions' hidden gradients summed by the gather.
//!
//! Both sweeps wait on L2 rather than on arithmetic, so storing those rows as bfloat16 (half
//! the bytes) makes a step about a third faster. Only these working copies narrow: every sum is
//! taken in f32, and the parameters, gradients and optimiser state stay f32, as in mixed-precision
//! training on GPUs. `F32` keeps bullet's arithmetic exactly.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use crate::backprop::BLOCK;

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

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            Self::F32 => "f32",
            Self::Bf16 => "bf16",
        })
    }
}

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

pub struct F32;

impl RowFormat for F32 {
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
pub struct Bf16;

const HALF: usize = BLOCK / 2;

impl RowFormat for Bf16 {
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

/// The bfloat16 nearest `x` (ties to even), as the top 16 bits of an f32. Values here are
/// finite: a non-finite loss stops training before they could be packed.
#[inline(always)]
pub fn bf16_bits(x: f32) -> u32 {
    let bits = x.to_bits();
    bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16
}

/// Evaluates `$body` with the type `$format` set to the row format of `$precision`.
#[macro_export]
macro_rules! with_precision {
    ($precision:expr, $format:ident => $body:expr) => {
        match $precision {
            $crate::precision::Precision::F32 => {
                type $format = $crate::precision::F32;
                $body
            }
            $crate::precision::Precision::Bf16 => {
                type $format = $crate::precision::Bf16;
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
        Bf16::accumulate(&zero, std::iter::once(words)).to_vec()
    }

    #[test]
    fn bf16_rounds_to_nearest_even_and_keeps_neuron_order() {
        // 1 + 2^-8 lies exactly between two bfloat16 values (1 and 1 + 2^-7): ties go to even.
        // Just above the tie rounds up; negative values mirror positive ones.
        let cases = [
            (1.0, 1.0),
            (1.0 + 2f32.powi(-8), 1.0),
            (1.0 + 3.0 * 2f32.powi(-8), 1.0 + 2.0 * 2f32.powi(-7)),
            (1.0 + 2f32.powi(-8) + 2f32.powi(-20), 1.0 + 2f32.powi(-7)),
            (-0.3, -0.30078125),
            (1.98, 1.9765625),
            (0.0, 0.0),
        ];
        let mut values = [0.0; BLOCK];
        for (i, value) in values.iter_mut().enumerate() {
            *value = cases[i % cases.len()].0;
        }
        let mut words = [0; HALF];
        Bf16::pack(&values, &mut words);
        for (i, unpacked) in unpack(&words).into_iter().enumerate() {
            assert_eq!(unpacked, cases[i % cases.len()].1, "neuron {i}");
        }
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
                Bf16::pack(row, &mut words);
                words
            })
            .collect();
        let narrow = Bf16::accumulate(&start, packed.iter().map(|w| &w[..]));
        let rounded: Vec<[f32; BLOCK]> = rows
            .iter()
            .map(|row| row.map(|x| f32::from_bits(bf16_bits(x) << 16)))
            .collect();
        let wide = F32::accumulate(&start, rounded.iter().map(|r| &r[..]));
        assert_eq!(narrow, wide);
    }
}
