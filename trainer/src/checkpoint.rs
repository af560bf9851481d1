//! Everything needed to continue a run exactly: config, float weights, AdamW moments, the
//! batch counter (which is also the data position: sample order is a pure function of seed and
//! counter, so there is no other RNG state) and the history so far.
//!
//! Files are written to a temporary name, synced, then renamed, so a crash never leaves a
//! half-written checkpoint or net under the real name. A trailing checksum catches corruption.

use std::path::Path;

use wholefile::folder_of;

use crate::config::Config;
use crate::error::{Result, TrainerError};
use crate::history::Record;
use crate::precision::Precision;

const MAGIC: &[u8; 8] = b"PATINACK";
/// Version 5 adds the number of king buckets and whether there is a factoriser after the output
/// buckets; a version 4 checkpoint is the same without them (no king buckets, no factoriser). Version 4 began holding out the data's last positions
/// for validation: earlier versions come from trainers that held out random ones, so their runs
/// cannot continue exactly and are refused.
const VERSION: u32 = 5;
const FIRST_READABLE: u32 = 4;

#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub config_toml: String,
    pub hidden: u64,
    /// Output buckets B.
    pub buckets: u64,
    /// King buckets K.
    pub king_buckets: u64,
    /// Whether the feature layer has a factoriser.
    pub factoriser: bool,
    pub precision: Precision,
    /// Reproducibility holds for the same thread count.
    pub threads: u64,
    pub step: u64,
    /// Positions in the data set, to catch resuming on different data.
    pub data_len: u64,
    pub history: Vec<Record>,
    pub params: Vec<f32>,
    pub momentum: Vec<f32>,
    pub velocity: Vec<f32>,
}

impl Checkpoint {
    /// The settings to continue this checkpoint's run with, writing beside the checkpoint file
    /// (`at`) unless `out_dir` says otherwise. Not into the output folder the run was started
    /// with: that may be relative to another working directory, and a checkpoint copied
    /// elsewhere would write over the run it came from.
    pub fn resume_config(&self, at: &Path, out_dir: Option<&Path>) -> Result<Config> {
        let mut config = Config::from_toml(&self.config_toml)?;
        // The checkpoint's own shape and precision win: configs saved before those settings
        // existed would otherwise take today's defaults.
        config.hidden = self.hidden as usize;
        config.buckets = self.buckets as usize;
        config.king_buckets = self.king_buckets as usize;
        config.factoriser = self.factoriser;
        config.precision = self.precision;
        config.out_dir = out_dir.unwrap_or(folder_of(at)).to_owned();
        Ok(config)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(VERSION.to_le_bytes());
        for v in [
            self.hidden,
            self.buckets,
            self.king_buckets,
            u64::from(self.factoriser),
            self.precision.code(),
            self.threads,
            self.step,
            self.data_len,
            self.config_toml.len() as u64,
        ] {
            out.extend(v.to_le_bytes());
        }
        out.extend(self.config_toml.as_bytes());
        out.extend((self.history.len() as u64).to_le_bytes());
        for r in &self.history {
            out.extend(r.superbatch.to_le_bytes());
            for v in [
                r.train_loss,
                r.validation_loss,
                f64::from(r.lr),
                f64::from(r.wdl),
                r.positions_per_second,
                r.seconds,
            ] {
                out.extend(v.to_le_bytes());
            }
        }
        for values in [&self.params, &self.momentum, &self.velocity] {
            out.extend((values.len() as u64).to_le_bytes());
            out.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        }
        let sum = checksum(&out);
        out.extend(sum.to_le_bytes());
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> std::result::Result<Self, String> {
        let body_len = bytes.len().checked_sub(8).ok_or("too short")?;
        let (body, sum) = bytes.split_at(body_len);
        if checksum(body).to_le_bytes() != sum {
            return Err("checksum mismatch: the file is damaged or not a checkpoint".into());
        }
        let mut r = Reader(body);
        if r.take(8)? != MAGIC {
            return Err("not a Patina trainer checkpoint".into());
        }
        let version = u32::from_le_bytes(r.take(4)?.try_into().unwrap());
        if version < FIRST_READABLE {
            return Err(format!(
                "checkpoint version {version} is from a trainer that validated on random \
                 positions, not on the data's last ones, so its run cannot continue: train afresh"
            ));
        }
        if version > VERSION {
            return Err(format!(
                "checkpoint version {version} is from a newer trainer; this one reads {VERSION}"
            ));
        }
        let (hidden, buckets) = (r.u64()?, r.u64()?);
        let (king_buckets, factoriser) = if version == 4 {
            (1, false)
        } else {
            let king_buckets = r.u64()?;
            let factoriser = match r.u64()? {
                0 => false,
                1 => true,
                other => return Err(format!("factoriser flag {other} is neither 0 nor 1")),
            };
            (king_buckets, factoriser)
        };
        let code = r.u64()?;
        let precision =
            Precision::from_code(code).ok_or(format!("unknown precision code {code}"))?;
        let (threads, step, data_len) = (r.u64()?, r.u64()?, r.u64()?);
        let config_len = r.len()?;
        let config_toml =
            String::from_utf8(r.take(config_len)?.to_vec()).map_err(|_| "config is not UTF-8")?;
        let mut history = Vec::new();
        for _ in 0..r.len()? {
            let superbatch = r.u64()?;
            let mut v = [0.0; 6];
            for x in &mut v {
                *x = r.f64()?;
            }
            history.push(Record {
                superbatch,
                train_loss: v[0],
                validation_loss: v[1],
                lr: v[2] as f32,
                wdl: v[3] as f32,
                positions_per_second: v[4],
                seconds: v[5],
            });
        }
        let [params, momentum, velocity] = [r.f32s()?, r.f32s()?, r.f32s()?];
        if !r.0.is_empty() {
            return Err("trailing bytes".into());
        }
        Ok(Self {
            config_toml,
            hidden,
            buckets,
            king_buckets,
            factoriser,
            precision,
            threads,
            step,
            data_len,
            history,
            params,
            momentum,
            velocity,
        })
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        write_whole_file(path, &self.to_bytes())
    }

    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(TrainerError::io(path))?;
        Self::from_bytes(&bytes).map_err(|reason| TrainerError::BadCheckpoint {
            path: path.to_owned(),
            reason,
        })
    }
}

/// `bytes` as the whole new content of `path`: the file appears whole or not at all.
pub fn write_whole_file(path: &Path, bytes: &[u8]) -> Result<()> {
    wholefile::write_whole_file(path, bytes).map_err(TrainerError::io(path))
}

/// FNV-1a, 64-bit: enough to tell a damaged file from a good one. A checkpoint's last 8 bytes
/// are the checksum of the rest, little-endian (public so that a fuzzer can seal what it writes).
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
    })
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("truncated".into());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u64(&mut self) -> std::result::Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }

    fn f64(&mut self) -> std::result::Result<f64, String> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }

    /// A length that must fit in what is left.
    fn len(&mut self) -> std::result::Result<usize, String> {
        let n = self.u64()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.0.len())
            .ok_or_else(|| "length past the end".into())
    }

    fn f32s(&mut self) -> std::result::Result<Vec<f32>, String> {
        let n = self.u64()?;
        let n = usize::try_from(n)
            .ok()
            .filter(|n| n.checked_mul(4).is_some_and(|b| b <= self.0.len()));
        let bytes = self.take(n.ok_or("length past the end")? * 4)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            config_toml: "net_id = \"x\"\n".into(),
            hidden: 64,
            buckets: 8,
            king_buckets: 4,
            factoriser: true,
            precision: Precision::Bf16,
            threads: 2,
            step: 12,
            data_len: 1000,
            history: vec![Record {
                superbatch: 1,
                train_loss: 0.1,
                validation_loss: f64::NAN,
                lr: 0.001,
                wdl: 0.5,
                positions_per_second: 1e6,
                seconds: 2.0,
            }],
            params: vec![1.0, -2.5],
            momentum: vec![0.0, 0.125],
            velocity: vec![3.0, 4.0],
        }
    }

    #[test]
    fn round_trips_through_a_file() {
        let dir = std::env::temp_dir().join(format!("patina-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.ckpt");
        let checkpoint = sample();
        checkpoint.save(&path).unwrap();
        let loaded = Checkpoint::load(&path).unwrap();
        assert_eq!(loaded.to_bytes(), checkpoint.to_bytes());
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary left"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn other_versions_are_refused() {
        let current = sample().to_bytes();
        let with_version = |version: u32| {
            let mut bytes = current[..current.len() - 8].to_vec();
            bytes[8..12].copy_from_slice(&version.to_le_bytes());
            bytes.extend(checksum(&bytes).to_le_bytes());
            bytes
        };
        let read = Checkpoint::from_bytes(&with_version(VERSION)).unwrap();
        assert_eq!(read.to_bytes(), current);
        let older = Checkpoint::from_bytes(&with_version(3)).unwrap_err();
        assert!(
            older.contains("version 3") && older.contains("train afresh"),
            "{older}"
        );
        let newer = Checkpoint::from_bytes(&with_version(6)).unwrap_err();
        assert!(newer.contains("version 6"), "{newer}");
    }

    /// Version 4, written before king buckets, is version 5 without their count and the
    /// factoriser flag: it reads as a run without either.
    #[test]
    fn version_4_reads_as_one_king_bucket() {
        let mut checkpoint = sample();
        checkpoint.king_buckets = 1;
        checkpoint.factoriser = false;
        let current = checkpoint.to_bytes();
        // The count and the flag are the third and fourth u64 after the magic and version.
        let field = 8 + 4 + 2 * 8;
        let mut bytes = [&current[..field], &current[field + 16..current.len() - 8]].concat();
        bytes[8..12].copy_from_slice(&4u32.to_le_bytes());
        bytes.extend(checksum(&bytes).to_le_bytes());
        // Compared as bytes: the sample's NaN validation loss is unequal to itself.
        assert_eq!(Checkpoint::from_bytes(&bytes).unwrap().to_bytes(), current);
    }

    #[test]
    fn damage_and_truncation_are_reported() {
        let bytes = sample().to_bytes();
        assert!(Checkpoint::from_bytes(&bytes[..bytes.len() - 9]).is_err());
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert!(Checkpoint::from_bytes(&flipped)
            .unwrap_err()
            .contains("checksum"));
        assert!(Checkpoint::from_bytes(&[]).is_err());
    }
}
