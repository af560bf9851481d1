//! Everything that defines a training run, from a TOML file and/or the command line, printed
//! at the start and saved beside the output so a net can be traced to how it was made.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use viriformat::dataformat::Filter;

use patina::nnue::{KING_BUCKET_COUNTS, MAX_BUCKETS};

use crate::error::{Result, TrainerError};
use crate::model::Shape;
use crate::precision::Precision;
use crate::schedule::{LrSchedule, WdlSchedule};
use crate::shuffle::Split;

/// The most training threads a run takes: far above any machine's cores, low enough that a
/// typo is refused rather than spawning a million threads.
pub const MAX_THREADS: usize = 1024;

/// What `trainer train` does unless told otherwise: the recipe that trained the default net,
/// gen10 (nets/README.md), so that `trainer train --viri GAMES --net-id ID` alone trains a net
/// the way the engine's own was. The net's shape is the engine's (`patina::nnue`), the
/// precision `Precision::default()`, the threads every core. docs/trainer.md quotes these.
pub mod defaults {
    pub const NET_ID: &str = "patina";
    pub const OUT_DIR: &str = "checkpoints";
    /// Passes over the training positions; the run's length follows from the data's size.
    pub const EPOCHS: f64 = 5.0;
    pub const BATCH_SIZE: usize = 16_384;
    pub const BATCHES_PER_SUPERBATCH: usize = 25;
    pub const SAVE_RATE: usize = 5;
    pub const SEED: u64 = 0;
    pub const VALIDATION: u64 = 1 << 18;
    /// A cosine learning rate from `LR` to `LR_END` over the run.
    pub const LR: f32 = 0.001;
    pub const LR_END: f32 = 0.000_01;
    /// λ, the weight of the game result in the target.
    pub const WDL: f32 = 0.3;

    /// The step schedule's, bullet's: ×0.1 every 18 superbatches.
    pub const LR_GAMMA: f32 = 0.1;
    pub const LR_STEP: usize = 18;
    /// Where a cosine schedule that replaces another ends unless told, as a fraction of its
    /// start (the recipe's `LR_END / LR`).
    pub const LR_END_FRACTION: f32 = 0.01;
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Names the output files: `<net_id>.nnue`, `<net_id>-<superbatch>.nnue`, ….
    pub net_id: String,
    /// bulletformat files (32-byte `ChessBoard` records).
    pub data: Vec<PathBuf>,
    /// viriformat game files, unpacked through `filter`.
    pub viri: Vec<PathBuf>,
    pub out_dir: PathBuf,
    /// Start from this net file's weights (bullet's layout, of this run's N and B) instead of
    /// random ones: a fine-tune that carries a net on with new data.
    pub init: Option<PathBuf>,
    /// Hidden width N (one of `WIDTHS`); by default the width of the engine's embedded net, so
    /// a generation keeps its parent's width unless told to grow.
    pub hidden: usize,
    /// Output buckets B (bullet's `MaterialCount<B>`, picked by the piece count; 1 is a net
    /// without buckets); by default the embedded net's, as with `hidden`.
    pub buckets: usize,
    /// King buckets K (bullet's `ChessBucketsMirrored` with the engine's map for K: one of
    /// `KING_BUCKET_COUNTS`, 1 for plain chess768 inputs); by default the embedded net's.
    pub king_buckets: usize,
    /// Train a factoriser beside the king buckets: 768 rows every position uses as well as its
    /// bucket's, added into every bucket in the saved net (bullet's factoriser). Feature
    /// weights are then clipped to ±`optim::FACTORISED_CLIP`, so that the sums stay in range.
    pub factoriser: bool,
    /// Number format of the backward pass's working rows (`precision`).
    pub precision: Precision,
    /// The run's length; with `epochs` set (the default) it follows from the data's size when
    /// the run starts (`sized_to`).
    pub superbatches: usize,
    /// Passes over the training positions: where set, `superbatches` (and, for small data,
    /// the batch and superbatch sizes) follow from the data's size when the run starts.
    pub epochs: Option<f64>,
    pub batch_size: usize,
    pub batches_per_superbatch: usize,
    /// Checkpoint and numbered net every this many superbatches (and always at the end).
    pub save_rate: usize,
    /// Results are reproducible for a given seed and thread count.
    pub threads: usize,
    pub seed: u64,
    /// Positions held out for the validation loss (at most a tenth of the data); once the run
    /// starts, the number held out.
    pub validation: u64,
    /// A fresh random order every epoch; `false` reads in file order (for pre-shuffled data).
    pub shuffle: bool,
    pub lr: LrSchedule,
    pub wdl: WdlSchedule,
    /// viriformat's position filter; its random-skipping options are refused (not reproducible).
    pub filter: Filter,
}

impl Default for Config {
    fn default() -> Self {
        // Counted from the data and `epochs` when the run starts.
        let superbatches = 1;
        Self {
            net_id: defaults::NET_ID.into(),
            data: Vec::new(),
            viri: Vec::new(),
            out_dir: defaults::OUT_DIR.into(),
            init: None,
            hidden: patina::nnue::HIDDEN,
            buckets: patina::nnue::Network::embedded().buckets(),
            king_buckets: patina::nnue::Network::embedded().king_buckets.count(),
            factoriser: false,
            precision: Precision::default(),
            superbatches,
            epochs: Some(defaults::EPOCHS),
            batch_size: defaults::BATCH_SIZE,
            batches_per_superbatch: defaults::BATCHES_PER_SUPERBATCH,
            save_rate: defaults::SAVE_RATE,
            threads: every_core(),
            seed: defaults::SEED,
            validation: defaults::VALIDATION,
            shuffle: true,
            lr: LrSchedule::Cosine {
                start: defaults::LR,
                end: defaults::LR_END,
                final_superbatch: superbatches,
            },
            wdl: WdlSchedule::Constant {
                value: defaults::WDL,
            },
            filter: Filter::default(),
        }
    }
}

/// The default thread count.
pub fn every_core() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Config {
    pub fn from_toml(text: &str) -> Result<Self> {
        let invalid = |e: toml::de::Error| TrainerError::Config(e.to_string());
        // Parsed from the text, not from the table, so that errors give their line.
        let config = toml::from_str(text).map_err(invalid)?;
        let table: toml::Table = toml::from_str(text).map_err(invalid)?;
        if let Some(toml::Value::Table(filter)) = table.get("filter") {
            check_filter_keys(filter)?;
        }
        // A file that gives the superbatches and no epochs fixes the length, as --superbatches
        // does: the default epochs would size it anew.
        if table.contains_key("superbatches") && !table.contains_key("epochs") {
            return Ok(Self {
                epochs: None,
                ..config
            });
        }
        Ok(config)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a config always serialises")
    }

    /// Fixes the data a new run reads: every path absolute, so that `--resume` from another
    /// folder finds the same files, and each folder given to `--viri` replaced by the `.vf`
    /// files in it now, so that games added later do not change a resumed run's data.
    pub fn resolve_data_paths(&mut self) -> Result<()> {
        let absolute = |path: &PathBuf| std::path::absolute(path).map_err(TrainerError::io(path));
        if let Some(folder) = self.data.iter().find(|path| path.is_dir()) {
            return Err(TrainerError::Config(format!(
                "{}: --data takes bulletformat files, not a folder (viriformat game folders \
                 go to --viri)",
                folder.display()
            )));
        }
        self.data = self.data.iter().map(absolute).collect::<Result<_>>()?;
        self.viri = datagen::gamefile::collect_inputs(&self.viri)?
            .iter()
            .map(absolute)
            .collect::<Result<_>>()?;
        Ok(())
    }

    pub fn validate(&self) -> Result<()> {
        let fail = |reason: &str| Err(TrainerError::Config(reason.into()));
        if self.data.is_empty() && self.viri.is_empty() {
            return fail(
                "no data: give bulletformat files with --data or viriformat files with --viri",
            );
        }
        // Checked now, not at the first save, which may be hours of training away.
        if self.net_id.is_empty()
            || self.net_id.starts_with('.')
            || self.net_id.contains(['/', '\\'])
        {
            return Err(TrainerError::Config(format!(
                "net id {:?} names the output files: give a plain name, without path \
                 separators or a leading '.'",
                self.net_id
            )));
        }
        if self.batch_size == 0 || self.batches_per_superbatch == 0 || self.superbatches == 0 {
            return fail("batch size, batches per superbatch and superbatches must be at least 1");
        }
        if !(1..=MAX_BUCKETS).contains(&self.buckets) {
            return Err(TrainerError::Config(format!(
                "output buckets must be 1 (none) to {MAX_BUCKETS}, not {}",
                self.buckets
            )));
        }
        if !KING_BUCKET_COUNTS.contains(&self.king_buckets) {
            return Err(TrainerError::Config(format!(
                "king buckets must be one of {KING_BUCKET_COUNTS:?} (1: none), not {}",
                self.king_buckets
            )));
        }
        if self.factoriser && self.king_buckets == 1 {
            return fail("a factoriser needs king buckets (4, 8 or 16) to share its rows among");
        }
        if self.epochs.is_some_and(|e| !(e > 0.0 && e <= 10_000.0)) {
            return fail("epochs must be a number above 0 and at most 10000");
        }
        if self.threads == 0 || self.save_rate == 0 {
            return fail("threads and save rate must be at least 1");
        }
        if self.threads > MAX_THREADS {
            return Err(TrainerError::Config(format!(
                "threads must be at most {MAX_THREADS}, not {}",
                self.threads
            )));
        }
        let lambdas = match self.wdl {
            WdlSchedule::Constant { value } => [value, value],
            WdlSchedule::Linear { start, end } => [start, end],
        };
        if !lambdas.iter().all(|l| (0.0..=1.0).contains(l)) {
            return fail("λ (--wdl, --wdl-end) must be within 0 and 1");
        }
        let positive = |x: f32| x.is_finite() && x > 0.0;
        let rates_ok = match self.lr {
            LrSchedule::Constant { value } => positive(value),
            LrSchedule::Step { start, gamma, step } => {
                if step == 0 {
                    return fail("the step schedule's --lr-step must be at least 1 superbatch");
                }
                positive(start) && positive(gamma)
            }
            LrSchedule::Cosine { start, end, .. } => {
                positive(start) && (positive(end) || end == 0.0)
            }
        };
        if !rates_ok {
            return fail("learning rates and the step schedule's gamma must be positive numbers");
        }
        if !self.viri.is_empty() && !self.shuffle {
            return fail(
                "viriformat games unpack in game order: shuffle them (--no-shuffle is for \
                 bulletformat data shuffled beforehand with `trainer shuffle`)",
            );
        }
        check_filter(&self.filter)
    }
}

impl Config {
    /// The net's king and output buckets, and its factoriser.
    pub fn shape(&self) -> Shape {
        Shape {
            king_buckets: self.king_buckets,
            buckets: self.buckets,
            factoriser: self.factoriser,
        }
    }

    /// The run on the data `split` divides: `validation` the positions held out and, with
    /// `epochs` set, the run sized to the training positions.
    pub fn sized_to(&self, split: &Split) -> Self {
        let mut sized = Self {
            validation: split.validation_len(),
            ..self.clone()
        };
        let Some(epochs) = self.epochs else {
            return sized;
        };
        // A batch is at most every training position and a superbatch at most one pass over
        // them, so rounding the run up to whole superbatches adds less than one pass, whatever
        // the data's size.
        let training = split.training_len();
        sized.batch_size = self.batch_size.min(training as usize);
        let batches_per_pass = training / sized.batch_size as u64;
        sized.batches_per_superbatch = self.batches_per_superbatch.min(batches_per_pass as usize);
        let per_superbatch = (sized.batch_size * sized.batches_per_superbatch) as f64;
        sized.superbatches = ((epochs * training as f64 / per_superbatch).ceil() as usize).max(1);
        if let LrSchedule::Cosine {
            final_superbatch, ..
        } = &mut sized.lr
        {
            *final_superbatch = sized.superbatches;
        }
        sized
    }
}

/// viriformat's filter ignores keys it does not know, so a misspelt setting would silently keep
/// its default: a key the default filter does not have is refused.
fn check_filter_keys(filter: &toml::Table) -> Result<()> {
    let known = toml::Table::try_from(Filter::default()).expect("a filter serialises");
    let Some(unknown) = filter.keys().find(|key| !known.contains_key(key.as_str())) else {
        return Ok(());
    };
    let settings: Vec<&str> = known.keys().map(String::as_str).collect();
    Err(TrainerError::Config(format!(
        "unknown filter setting `{unknown}` (the settings: {})",
        settings.join(", ")
    )))
}

/// Refuses viriformat's random skipping: it draws from a thread RNG, so the same data and
/// seed would give other positions on every run.
fn check_filter(filter: &Filter) -> Result<()> {
    if filter.random_fen_skipping || filter.wdl_filtered || filter.material_count_filtered {
        return Err(TrainerError::Config(
            "viriformat's random skipping draws from a thread RNG and would make runs irreproducible"
                .into(),
        ));
    }
    Ok(())
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let factoriser = if self.factoriser { " + factoriser" } else { "" };
        let net = format!(
            "{}{factoriser}→{}x2→{} SCReLU",
            self.shape().merged().inputs(),
            self.hidden,
            self.buckets
        );
        writeln!(f, "net               {} ({net})", self.net_id)?;
        for path in &self.data {
            writeln!(f, "bulletformat      {}", path.display())?;
        }
        for path in &self.viri {
            writeln!(f, "viriformat        {}", path.display())?;
        }
        writeln!(f, "output            {}", self.out_dir.display())?;
        writeln!(f, "precision         {}", self.precision)?;
        write!(
            f,
            "superbatches      {} × {} batches × {} positions",
            self.superbatches, self.batches_per_superbatch, self.batch_size
        )?;
        match self.epochs {
            Some(epochs) => writeln!(f, " ({epochs} epochs)")?,
            None => writeln!(f)?,
        }
        writeln!(f, "learning rate     {}", self.lr)?;
        writeln!(f, "wdl (λ)           {}", self.wdl)?;
        writeln!(f, "save every        {} superbatches", self.save_rate)?;
        writeln!(f, "threads, seed     {}, {}", self.threads, self.seed)?;
        writeln!(
            f,
            "order             {}",
            if self.shuffle {
                "shuffled every epoch"
            } else {
                "file order"
            }
        )?;
        write!(f, "validation        {} positions", self.validation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_round_trips_and_partial_files_take_defaults() {
        let config = Config::from_toml(
            "net_id = \"x\"\ndata = [\"a.bin\"]\n[lr]\nkind = \"cosine\"\nstart = 0.001\nend = 0.00001\nfinal_superbatch = 5\n",
        )
        .unwrap();
        assert_eq!(config.batch_size, 16_384);
        assert_eq!(
            config.lr,
            LrSchedule::Cosine {
                start: 0.001,
                end: 0.00001,
                final_superbatch: 5
            }
        );
        let again = Config::from_toml(&config.to_toml()).unwrap();
        assert_eq!(again.to_toml(), config.to_toml());
        let error = Config::from_toml("net_id = \"x\"\nbogus = 1").unwrap_err();
        assert!(error.to_string().contains("line 2"), "{error}");
    }

    /// A file's superbatches fix the run's length unless it gives epochs too (as a sized run's
    /// saved config does), and either kind of run reads back as it was written.
    #[test]
    fn superbatches_without_epochs_fix_the_length() {
        let fixed = Config::from_toml("superbatches = 40\n").unwrap();
        assert_eq!((fixed.superbatches, fixed.epochs), (40, None));
        assert_eq!(
            Config::from_toml("").unwrap().epochs,
            Some(defaults::EPOCHS)
        );
        let sized = Config::from_toml("superbatches = 40\nepochs = 2.0\n").unwrap();
        assert_eq!(sized.epochs, Some(2.0));
        for config in [fixed, sized] {
            let again = Config::from_toml(&config.to_toml()).unwrap();
            assert_eq!(
                (again.superbatches, again.epochs),
                (config.superbatches, config.epochs)
            );
        }
    }

    #[test]
    fn a_net_id_must_be_a_plain_file_name() {
        let with_id = |net_id: &str| Config {
            net_id: net_id.into(),
            data: vec!["a.bin".into()],
            ..Config::default()
        };
        assert!(with_id("gen11-512-ob8").validate().is_ok());
        for bad in ["", ".hidden", "runs/x", "../escaped", "a\\b"] {
            let error = with_id(bad).validate().unwrap_err();
            assert!(error.to_string().contains("plain name"), "{bad:?}: {error}");
        }
    }

    #[test]
    fn a_misspelt_filter_setting_is_refused() {
        let config = Config::from_toml("[filter]\nmin_ply = 3\n").unwrap();
        assert_eq!(config.filter.min_ply, 3);
        let error = Config::from_toml("[filter]\nmin_plyy = 3\n").unwrap_err();
        assert!(error.to_string().contains("`min_plyy`"), "{error}");
    }

    #[test]
    fn settings_that_cannot_train_are_refused() {
        let base = Config {
            data: vec!["a.bin".into()],
            ..Config::default()
        };
        base.validate().unwrap();
        let refused = [
            Config {
                wdl: WdlSchedule::Constant { value: 7.5 },
                ..base.clone()
            },
            Config {
                wdl: WdlSchedule::Linear {
                    start: 0.5,
                    end: -0.1,
                },
                ..base.clone()
            },
            Config {
                lr: LrSchedule::Constant { value: -0.001 },
                ..base.clone()
            },
            Config {
                lr: LrSchedule::Cosine {
                    start: 0.001,
                    end: f32::NAN,
                    final_superbatch: 40,
                },
                ..base.clone()
            },
            Config {
                viri: vec!["games.vf".into()],
                shuffle: false,
                ..base.clone()
            },
            Config {
                buckets: 0,
                ..base.clone()
            },
            Config {
                buckets: MAX_BUCKETS + 1,
                ..base.clone()
            },
            Config {
                king_buckets: 0,
                ..base.clone()
            },
            Config {
                king_buckets: 2,
                ..base.clone()
            },
            Config {
                king_buckets: 1,
                factoriser: true,
                ..base.clone()
            },
            Config {
                lr: LrSchedule::Step {
                    start: 0.001,
                    gamma: 0.1,
                    step: 0,
                },
                ..base.clone()
            },
            Config {
                threads: MAX_THREADS + 1,
                ..base.clone()
            },
        ];
        for config in refused {
            assert!(config.validate().is_err(), "{config:?}");
        }
    }

    #[test]
    fn data_paths_become_absolute_and_game_folders_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let games = dir.path().join("games");
        std::fs::create_dir(&games).unwrap();
        std::fs::write(games.join("thread-1.vf"), b"").unwrap();
        std::fs::write(games.join("thread-0.vf"), b"").unwrap();
        let mut config = Config {
            data: vec!["relative/data.bin".into()],
            viri: vec![games.clone()],
            ..Config::default()
        };
        config.resolve_data_paths().unwrap();
        let here = std::env::current_dir().unwrap();
        assert_eq!(config.data, [here.join("relative/data.bin")]);
        assert_eq!(
            config.viri,
            [games.join("thread-0.vf"), games.join("thread-1.vf")]
        );

        let mut folder_as_data = Config {
            data: vec![games],
            ..Config::default()
        };
        let error = folder_as_data.resolve_data_paths().unwrap_err();
        assert!(error.to_string().contains("not a folder"), "{error}");
    }
}
