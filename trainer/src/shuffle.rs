//! The order positions are visited in: a fresh uniformly shuffled pass over the training
//! positions every epoch, and a held-out validation slice, without storing any permutation.
//! The validation positions are the data's last ones: game files store each game's positions
//! together, so they are whole games that training never saw. Positions of one game share its
//! result and most of their pieces, so positions held out at random from games trained on
//! would measure recall, and reward the widest net for memorising.
//!
//! A keyed Feistel network is a bijection on [0, 2^2h); walking the cycle until the value
//! falls below n makes it a bijection on [0, n). So the i-th sample of an epoch is computed
//! directly from (seed, epoch, i): memory stays O(1) for any data size, there is no shuffle
//! buffer whose size bounds how far apart correlated positions (one game's) end up, and a
//! resumed run needs only the sample counter to continue exactly.
//!
//! The same permutation also drives a pre-shuffle pass (`write_shuffled`): data written in a
//! uniformly random order once can then be read straight through (`Split::in_file_order`), as
//! bullet reads its shuffled files, which spares every epoch the random reads.

use std::path::Path;

use crate::error::{Result, TrainerError};
use crate::loader::{write_records, Dataset};

const ROUNDS: usize = 4;

#[derive(Clone, Debug)]
pub struct Permutation {
    len: u64,
    half_bits: u32,
    keys: [u64; ROUNDS],
}

impl Permutation {
    pub fn new(len: u64, seed: u64) -> Self {
        let bits = (64 - len.saturating_sub(1).leading_zeros()).max(2);
        let mut state = seed;
        Self {
            len,
            half_bits: bits.div_ceil(2),
            keys: std::array::from_fn(|_| splitmix(&mut state)),
        }
    }

    /// The image of `index` (< len).
    #[inline]
    pub fn apply(&self, index: u64) -> u64 {
        debug_assert!(index < self.len);
        let mut x = index;
        loop {
            x = self.encrypt(x);
            if x < self.len {
                return x;
            }
        }
    }

    #[inline(always)]
    fn encrypt(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut left, mut right) = (x >> self.half_bits, x & mask);
        for key in self.keys {
            let mixed = mix(right ^ key) & mask;
            (left, right) = (right, left ^ mixed);
        }
        left << self.half_bits | right
    }
}

/// Which data position is the i-th training sample, or the i-th validation position.
#[derive(Clone, Debug)]
pub struct Split {
    validation: u64,
    training: u64,
    seed: u64,
    shuffled: bool,
}

impl Split {
    /// Holds out `validation` positions, but never more than a tenth of the data.
    pub fn new(len: u64, validation: u64, seed: u64) -> Result<Self> {
        let validation = validation.min(len / 10);
        let training = len - validation;
        if training == 0 {
            return Err(TrainerError::NoPositions("the data set is empty".into()));
        }
        Ok(Self {
            validation,
            training,
            seed,
            shuffled: true,
        })
    }

    /// Reads positions in file order instead, for data shuffled beforehand: the held-out
    /// positions are the first ones and every epoch repeats the same order. Random reads cost
    /// cache misses that sequential reads do not (docs/experiments.md, "Trainer speed").
    pub fn in_file_order(self) -> Self {
        Self {
            shuffled: false,
            ..self
        }
    }

    pub fn training_len(&self) -> u64 {
        self.training
    }

    pub fn validation_len(&self) -> u64 {
        self.validation
    }

    /// The data index of training sample `sample`, counted from the start of training across epochs.
    #[cfg(test)]
    fn training_index(&self, sample: u64) -> u64 {
        self.training_indices(sample, 1).next().unwrap()
    }

    /// Data indices of `count` consecutive training samples from `first`, building each epoch's
    /// permutation once rather than per sample.
    pub fn training_indices(&self, first: u64, count: u64) -> impl Iterator<Item = u64> + '_ {
        let shuffled = self.shuffled;
        let mut epoch = first / self.training;
        let mut within = first % self.training;
        let mut order = self.epoch_order(epoch);
        (0..count).map(move |_| {
            if within == self.training {
                (epoch, within) = (epoch + 1, 0);
                order = self.epoch_order(epoch);
            }
            within += 1;
            match shuffled {
                true => order.apply(within - 1),
                false => self.validation + within - 1,
            }
        })
    }

    fn epoch_order(&self, epoch: u64) -> Permutation {
        // The epoch is hashed into the seed: an offset of a multiple of splitmix's increment
        // would only shift the previous epoch's keys along by one.
        let mut epoch_hash = epoch;
        Permutation::new(self.training, self.seed ^ splitmix(&mut epoch_hash))
    }

    #[inline]
    pub fn validation_index(&self, i: u64) -> u64 {
        match self.shuffled {
            true => self.training + i,
            false => i,
        }
    }
}

/// Writes every position of `data` to `out` in a uniformly random order drawn from `seed`.
pub fn write_shuffled(data: &Dataset, seed: u64, out: &Path) -> Result<()> {
    let order = Permutation::new(data.len(), seed);
    write_records(out, (0..data.len()).map(|i| data.get(order.apply(i))))
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix(*state)
}

#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_bijections() {
        for len in [1, 2, 3, 17, 1000, 4097] {
            let perm = Permutation::new(len, 42);
            let mut seen = vec![false; len as usize];
            for i in 0..len {
                let j = perm.apply(i);
                assert!(!seen[j as usize], "{j} hit twice for len {len}");
                seen[j as usize] = true;
            }
        }
    }

    #[test]
    fn validation_and_training_partition_the_data_and_epochs_reshuffle() {
        let split = Split::new(1000, 50, 7).unwrap();
        let mut seen = vec![0; 1000];
        (0..50).for_each(|i| seen[split.validation_index(i) as usize] += 1);
        (0..950).for_each(|i| seen[split.training_index(i) as usize] += 1);
        assert!(seen.iter().all(|&n| n == 1));
        let first: Vec<_> = (0..950).map(|i| split.training_index(i)).collect();
        let second: Vec<_> = (950..1900).map(|i| split.training_index(i)).collect();
        assert_ne!(first, second);
        let (mut a, mut b) = (first.clone(), second);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "every epoch visits the same training positions");
        let batched: Vec<_> = split.training_indices(900, 100).collect();
        assert_eq!(
            batched,
            (900..1000)
                .map(|i| split.training_index(i))
                .collect::<Vec<_>>()
        );
        let in_order = first.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(
            in_order < 20,
            "neighbours stay neighbours too often: {in_order}"
        );
    }

    /// Each epoch's permutation has keys of its own, not the last epoch's shifted along.
    #[test]
    fn epochs_share_no_shuffle_keys() {
        let split = Split::new(1000, 50, 7).unwrap();
        let keys: Vec<[u64; ROUNDS]> = (0..4).map(|e| split.epoch_order(e).keys).collect();
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert!(a.iter().all(|k| !b.contains(k)), "{a:x?} {b:x?}");
            }
        }
    }

    #[test]
    fn validation_holds_out_the_last_positions_whole() {
        let split = Split::new(1000, 50, 7).unwrap();
        let held_out: Vec<_> = (0..50).map(|i| split.validation_index(i)).collect();
        assert_eq!(held_out, (950..1000).collect::<Vec<_>>());
        assert!(split.training_indices(0, 2000).all(|i| i < 950));
    }

    #[test]
    fn file_order_reads_straight_through() {
        let split = Split::new(100, 10, 3).unwrap().in_file_order();
        assert_eq!(split.validation_index(4), 4);
        assert_eq!(
            split.training_indices(85, 10).collect::<Vec<_>>(),
            [95, 96, 97, 98, 99, 10, 11, 12, 13, 14]
        );
    }

    #[test]
    fn validation_is_capped_at_a_tenth() {
        let split = Split::new(100, 1 << 20, 0).unwrap();
        assert_eq!((split.validation_len(), split.training_len()), (10, 90));
        assert!(Split::new(0, 0, 0).is_err());
    }
}
