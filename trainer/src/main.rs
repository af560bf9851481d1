use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::RangedU64ValueParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use patina::nnue::Network;
use viriformat::dataformat::Filter;

use trainer::checkpoint::{write_whole_file, Checkpoint};
use trainer::config::{defaults, every_core, Config, MAX_THREADS};
use trainer::error::{Result, TrainerError};
use trainer::loader::{write_bulletformat, Dataset};
use trainer::precision::Precision;
use trainer::run::{run, Start};
use trainer::schedule::{LrSchedule, WdlSchedule};
use trainer::shuffle::write_shuffled;
use trainer::{bench, synthetic};

#[derive(Parser)]
#[command(
    version,
    about = "Train Patina's NNUE on CPU; reads and writes what bullet does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a seeded random network (generation 0 of a zero-knowledge lineage).
    Init {
        /// Seed of the random weights.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The net file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Train a net (settings from --config, then flags), or continue one with --resume.
    Train(Box<TrainArgs>),
    /// Write bulletformat files' positions, all together, in a uniformly random order (a
    /// pre-shuffle pass: train on the result with --no-shuffle, as bullet reads its data).
    Shuffle {
        /// bulletformat file (repeatable).
        #[arg(long, required = true)]
        data: Vec<PathBuf>,
        /// Seed of the order.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The bulletformat file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write generated positions labelled by a random teacher net (for smoke tests and benchmarks).
    Synth {
        /// Positions to write.
        #[arg(long, default_value_t = 1_000_000)]
        positions: usize,
        /// Seed of the random games the positions come from.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The bulletformat file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Measure training throughput for hidden sizes N (128, 256, 512, 768, 1024), thread counts and
    /// precisions.
    Bench {
        /// Generated positions to train on.
        #[arg(long, default_value_t = 262_144, value_parser = at_least_one)]
        positions: usize,
        /// Batches timed per measurement, after one warm-up batch.
        #[arg(long, default_value_t = 12, value_parser = at_least_one)]
        batches: usize,
        /// Hidden widths N to measure.
        #[arg(long, value_delimiter = ',', default_value = "128,256,512,768,1024")]
        hidden: Vec<usize>,
        /// Thread counts to measure.
        #[arg(long, value_delimiter = ',', default_value = "1,2",
              value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_THREADS as u64))]
        threads: Vec<usize>,
        /// Precisions to measure.
        #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Precision::default()])]
        precision: Vec<Precision>,
        /// Read positions in order instead of shuffled.
        #[arg(long)]
        no_shuffle: bool,
        /// Train on this bulletformat file instead of generated positions.
        #[arg(long)]
        data: Option<PathBuf>,
    },
}

/// The settings of a run. Each is optional: one not given keeps the value of the --config
/// file, or else the default (`config::defaults`), which its help line quotes.
#[derive(Args)]
struct TrainArgs {
    /// Continue exactly from this checkpoint (its settings are used; only --out-dir may change).
    #[arg(long)]
    resume: Option<PathBuf>,
    /// TOML file with any of the settings below (see docs/trainer.md); flags override it.
    #[arg(long)]
    config: Option<PathBuf>,
    /// bulletformat file (repeatable).
    #[arg(long)]
    data: Vec<PathBuf>,
    /// viriformat game file, or a folder of them (repeatable).
    #[arg(long)]
    viri: Vec<PathBuf>,
    #[arg(long, help = with_default(
        "Folder for the nets, checkpoints, config and log", defaults::OUT_DIR))]
    out_dir: Option<PathBuf>,
    /// Start from this net's weights instead of random ones (a fine-tune; same B, the same N
    /// or a narrower net, widened with new neurons, and same K or a plain net, whose rows,
    /// mirrored, then start every king bucket).
    #[arg(long)]
    init: Option<PathBuf>,
    #[arg(long, help = with_default(
        "Names the output files: <ID>.nnue, <ID>-<superbatch>.ckpt, …", defaults::NET_ID))]
    net_id: Option<String>,
    #[arg(long, help = with_default(
        "Hidden width N: 128, 256, 512, 768 or 1024",
        format!("{}, the engine's", patina::nnue::HIDDEN)))]
    hidden: Option<usize>,
    #[arg(long, help = with_default(
        "Output buckets B (1 to 32; 1 is none), chosen by piece count as bullet's `MaterialCount<B>`",
        format!("{}, the engine's", Network::embedded().buckets())))]
    buckets: Option<usize>,
    #[arg(long, help = with_default(
        "King buckets K: 1 (none), 4, 8 or 16, by each side's king square as bullet's \
         `ChessBucketsMirrored` with the engine's map (nets/README.md)",
        format!("{}, the engine's", Network::embedded().king_buckets.count())))]
    king_buckets: Option<usize>,
    /// Train bullet's factoriser beside the king buckets: 768 rows shared by all of them, added
    /// into each when the net is saved.
    #[arg(long)]
    factoriser: bool,
    #[arg(long, value_enum, help = with_default(
        "Number format of the weights and hidden gradients the backward pass sums (f32 computes \
         exactly as bullet does)",
        Precision::default()))]
    precision: Option<Precision>,
    /// Superbatches to train, instead of --epochs [default: as many as --epochs takes].
    #[arg(long, conflicts_with = "epochs")]
    superbatches: Option<usize>,
    #[arg(long, help = with_default(
        "Passes over the training positions: the number of superbatches follows from the data's \
         size (and for data smaller than a superbatch, the superbatch's and batch's sizes)",
        defaults::EPOCHS))]
    epochs: Option<f64>,
    #[arg(long, help = with_default("Positions per batch", defaults::BATCH_SIZE))]
    batch_size: Option<usize>,
    #[arg(long, help = with_default(
        "Batches per superbatch, the unit of the schedules, log and checkpoints",
        defaults::BATCHES_PER_SUPERBATCH))]
    batches_per_superbatch: Option<usize>,
    #[arg(long, help = with_default(
        "Checkpoint and numbered net every this many superbatches", defaults::SAVE_RATE))]
    save_rate: Option<usize>,
    #[arg(long, help = with_default(
        "Training threads (a run is reproducible for a seed and thread count)",
        format!("every core, {}", every_core())))]
    threads: Option<usize>,
    #[arg(long, help = with_default(
        "Seed of the random initial weights and of the order positions are read in",
        defaults::SEED))]
    seed: Option<u64>,
    #[arg(long, help = with_default(
        "Positions held out for the validation loss: the data's last, at most a tenth of it",
        defaults::VALIDATION))]
    validation: Option<u64>,
    /// Read positions in file order (for data shuffled beforehand) instead of reshuffling every epoch.
    #[arg(long)]
    no_shuffle: bool,
    #[arg(long, value_enum, help = with_default(
        "Learning-rate schedule", LrKind::of(&Config::default().lr)))]
    lr_schedule: Option<LrKind>,
    #[arg(long, help = with_default("Initial learning rate", defaults::LR))]
    lr: Option<f32>,
    #[arg(long, help = with_default(
        "Step schedule: multiply the learning rate by this every --lr-step superbatches",
        defaults::LR_GAMMA))]
    lr_gamma: Option<f32>,
    #[arg(long, help = with_default(
        "Step schedule: superbatches between multiplications", defaults::LR_STEP))]
    lr_step: Option<usize>,
    #[arg(long, help = with_default(
        "Cosine schedule: learning rate reached at the last superbatch", defaults::LR_END))]
    lr_end: Option<f32>,
    #[arg(long, help = with_default(
        "λ, the weight of the game result in the target", defaults::WDL))]
    wdl: Option<f32>,
    /// Taper λ linearly from --wdl to this [default: none, λ stays constant].
    #[arg(long)]
    wdl_end: Option<f32>,
}

/// A flag's help line ending in its default, taken from the default itself so that the two
/// cannot drift apart.
fn with_default(text: &str, default: impl fmt::Display) -> String {
    format!("{text} [default: {default}]")
}

#[derive(Clone, Copy, ValueEnum)]
enum LrKind {
    Constant,
    Step,
    Cosine,
}

impl LrKind {
    fn of(lr: &LrSchedule) -> Self {
        match lr {
            LrSchedule::Constant { .. } => Self::Constant,
            LrSchedule::Step { .. } => Self::Step,
            LrSchedule::Cosine { .. } => Self::Cosine,
        }
    }
}

impl fmt::Display for LrKind {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let value = self.to_possible_value().expect("no LrKind is skipped");
        f.write_str(value.get_name())
    }
}

impl TrainArgs {
    fn changes_settings(&self) -> bool {
        self.config.is_some()
            || !self.data.is_empty()
            || !self.viri.is_empty()
            || self.net_id.is_some()
            || self.init.is_some()
            || self.hidden.is_some()
            || self.buckets.is_some()
            || self.king_buckets.is_some()
            || self.factoriser
            || self.precision.is_some()
            || self.superbatches.is_some()
            || self.epochs.is_some()
            || self.batch_size.is_some()
            || self.batches_per_superbatch.is_some()
            || self.save_rate.is_some()
            || self.threads.is_some()
            || self.seed.is_some()
            || self.validation.is_some()
            || self.no_shuffle
            || self.lr_schedule.is_some()
            || self.lr.is_some()
            || self.lr_gamma.is_some()
            || self.lr_step.is_some()
            || self.lr_end.is_some()
            || self.wdl.is_some()
            || self.wdl_end.is_some()
    }

    fn apply(&self, config: &mut Config) -> Result<()> {
        config.data.extend(self.data.iter().cloned());
        config.viri.extend(self.viri.iter().cloned());
        macro_rules! set {
            ($($field:ident),*) => {$(if let Some(v) = self.$field.clone() { config.$field = v; })*};
        }
        set!(
            out_dir,
            net_id,
            hidden,
            buckets,
            king_buckets,
            precision,
            superbatches,
            batch_size,
            batches_per_superbatch,
            save_rate,
            threads,
            seed,
            validation
        );
        if let Some(init) = &self.init {
            config.init = Some(init.clone());
        }
        if self.factoriser {
            config.factoriser = true;
        }
        if self.no_shuffle {
            config.shuffle = false;
        }
        // One of the two lengths rules: a flag overrides a saved config's other one.
        if self.epochs.is_some() {
            config.epochs = self.epochs;
        } else if self.superbatches.is_some() {
            config.epochs = None;
        }

        let (gamma, step) = (defaults::LR_GAMMA, defaults::LR_STEP);
        let end_of = |start: f32| start * defaults::LR_END_FRACTION;
        let (start, gamma, step, end) = match config.lr {
            LrSchedule::Constant { value } => (value, gamma, step, end_of(value)),
            LrSchedule::Step { start, gamma, step } => (start, gamma, step, end_of(start)),
            LrSchedule::Cosine { start, end, .. } => (start, gamma, step, end),
        };
        let kind = self.lr_schedule.unwrap_or(LrKind::of(&config.lr));
        let is_step = matches!(kind, LrKind::Step);
        let misplaced = [
            ("--lr-gamma", self.lr_gamma.is_some() && !is_step),
            ("--lr-step", self.lr_step.is_some() && !is_step),
            (
                "--lr-end",
                self.lr_end.is_some() && !matches!(kind, LrKind::Cosine),
            ),
        ];
        if let Some((flag, _)) = misplaced.iter().find(|(_, misplaced)| *misplaced) {
            return Err(TrainerError::Config(format!(
                "{flag} does not apply to the {kind} learning-rate schedule"
            )));
        }
        let start = self.lr.unwrap_or(start);
        let new_lr = match kind {
            LrKind::Constant => LrSchedule::Constant { value: start },
            LrKind::Step => LrSchedule::Step {
                start,
                gamma: self.lr_gamma.unwrap_or(gamma),
                step: self.lr_step.unwrap_or(step),
            },
            LrKind::Cosine => LrSchedule::Cosine {
                start,
                end: self.lr_end.unwrap_or(end),
                final_superbatch: config.superbatches,
            },
        };
        let lr_flags = [
            self.lr.is_some(),
            self.lr_gamma.is_some(),
            self.lr_step.is_some(),
            self.lr_end.is_some(),
        ];
        if self.lr_schedule.is_some() || lr_flags.contains(&true) {
            config.lr = new_lr;
        }
        // A cosine schedule ends with the run, also when a saved config's run is lengthened.
        if let (
            Some(superbatches),
            LrSchedule::Cosine {
                final_superbatch, ..
            },
        ) = (self.superbatches, &mut config.lr)
        {
            *final_superbatch = superbatches;
        }
        match (self.wdl, self.wdl_end) {
            (Some(start), Some(end)) => config.wdl = WdlSchedule::Linear { start, end },
            (Some(value), None) => config.wdl = WdlSchedule::Constant { value },
            (None, Some(end)) => {
                let start = match config.wdl {
                    WdlSchedule::Constant { value } => value,
                    WdlSchedule::Linear { start, .. } => start,
                };
                config.wdl = WdlSchedule::Linear { start, end };
            }
            (None, None) => {}
        }
        Ok(())
    }
}

/// A count that must be positive: zero batches or positions would time nothing.
fn at_least_one(text: &str) -> std::result::Result<usize, String> {
    match text.parse() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{e}")),
    }
}

fn train(args: &TrainArgs) -> Result<()> {
    if let Some(path) = &args.resume {
        if args.changes_settings() {
            return Err(TrainerError::Config(
                "--resume takes its settings from the checkpoint; only --out-dir may be given"
                    .into(),
            ));
        }
        let checkpoint = Checkpoint::load(path)?;
        let config = checkpoint.resume_config(path, args.out_dir.as_deref())?;
        run(
            &config,
            Start {
                resume: Some(checkpoint),
                quiet: false,
            },
        )?;
        return Ok(());
    }
    let mut config = match &args.config {
        Some(path) => {
            Config::from_toml(&std::fs::read_to_string(path).map_err(TrainerError::io(path))?)?
        }
        None => Config::default(),
    };
    args.apply(&mut config)?;
    config.resolve_data_paths()?;
    if args.out_dir.is_none() && config.out_dir == Path::new(defaults::OUT_DIR) {
        let folder =
            std::path::absolute(&config.out_dir).map_err(TrainerError::io(&config.out_dir))?;
        println!("no --out-dir given: writing to {}", folder.display());
    }
    run(
        &config,
        Start {
            resume: None,
            quiet: false,
        },
    )?;
    Ok(())
}

fn shuffle(data: &[PathBuf], seed: u64, out: &Path) -> Result<()> {
    let dataset = Dataset::open(data, &[], &Filter::default())?;
    write_shuffled(&dataset, seed, out)?;
    println!(
        "wrote {} positions to {} (seed {seed})",
        dataset.len(),
        out.display()
    );
    Ok(())
}

fn main() -> ExitCode {
    let outcome = match Cli::parse().command {
        Command::Init { seed, out } => write_whole_file(&out, &Network::random(seed).to_bytes())
            .map(|()| println!("wrote random network (seed {seed}) to {}", out.display())),
        Command::Train(args) => train(&args),
        Command::Shuffle { data, seed, out } => shuffle(&data, seed, &out),
        Command::Synth {
            positions,
            seed,
            out,
        } => write_bulletformat(&out, &synthetic::dataset(positions, seed))
            .map(|()| println!("wrote {positions} positions to {}", out.display())),
        Command::Bench {
            positions,
            batches,
            hidden,
            threads,
            precision,
            no_shuffle,
            data,
        } => {
            let source = match &data {
                Some(path) => bench::Source::File(path),
                None => bench::Source::Generated(positions),
            };
            println!(
                "{:>6} {:>8} {:>10} {:>14}",
                "N", "threads", "precision", "positions/s"
            );
            bench::run(
                source,
                batches,
                &hidden,
                &threads,
                &precision,
                !no_shuffle,
                |m| {
                    println!(
                        "{:>6} {:>8} {:>10} {:>14.0}",
                        m.hidden, m.threads, m.precision, m.positions_per_second
                    )
                },
            )
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use trainer::shuffle::Split;

    use super::*;

    fn train_args(flags: &[&str]) -> Box<TrainArgs> {
        let line = ["trainer", "train"].iter().chain(flags);
        let Command::Train(args) = Cli::try_parse_from(line).unwrap().command else {
            unreachable!("a train line")
        };
        args
    }

    fn configured(flags: &[&str]) -> Result<Config> {
        let mut config = Config::default();
        train_args(&[&["--data", "a.bin"][..], flags].concat()).apply(&mut config)?;
        Ok(config)
    }

    #[test]
    fn a_flag_of_another_learning_rate_schedule_is_refused() {
        assert!(configured(&["--lr-gamma", "0.3"]).is_err());
        assert!(configured(&["--lr-schedule", "step", "--lr-end", "0.00001"]).is_err());
        assert!(configured(&["--lr-schedule", "cosine", "--lr-gamma", "0.3"]).is_err());
        let config = configured(&["--lr-step", "5", "--lr-schedule", "step"]).unwrap();
        assert_eq!(
            config.lr,
            LrSchedule::Step {
                start: defaults::LR,
                gamma: defaults::LR_GAMMA,
                step: 5
            }
        );
        // A cosine schedule in place of another ends, unless told, at a fraction of its start.
        let mut config = Config {
            lr: LrSchedule::Constant { value: 0.002 },
            ..Config::default()
        };
        train_args(&["--lr-schedule", "cosine", "--superbatches", "7"])
            .apply(&mut config)
            .unwrap();
        assert_eq!(
            config.lr,
            LrSchedule::Cosine {
                start: 0.002,
                end: 0.002 * defaults::LR_END_FRACTION,
                final_superbatch: 7
            }
        );
    }

    /// With no flags, a run follows the default net's recipe: cosine from `LR` to `LR_END`
    /// over `EPOCHS` passes.
    #[test]
    fn the_defaults_are_the_recipe() {
        let config = configured(&[]).unwrap();
        config.validate().unwrap();
        assert_eq!(config.epochs, Some(defaults::EPOCHS));
        assert!(matches!(
            config.lr,
            LrSchedule::Cosine { start, end, .. } if start == defaults::LR && end == defaults::LR_END
        ));
        assert_eq!(config.hidden, patina::nnue::HIDDEN);
    }

    #[test]
    fn every_train_flag_says_what_it_does_and_its_default() {
        // Flags that have no default: a file to read, or a switch.
        let without_default = [
            "resume",
            "config",
            "data",
            "viri",
            "init",
            "no_shuffle",
            "factoriser",
        ];
        let command = Cli::command();
        let train = command.find_subcommand("train").expect("a train command");
        for arg in train.get_arguments() {
            let id = arg.get_id().as_str();
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            assert!(!help.is_empty(), "--{id} has no description");
            if !without_default.contains(&id) {
                assert!(help.contains("[default: "), "--{id}: {help}");
            }
        }
    }

    #[test]
    fn buckets_come_from_the_flag_or_the_config_file() {
        let embedded = patina::nnue::Network::embedded().buckets();
        assert_eq!(configured(&[]).unwrap().buckets, embedded);
        let other = if embedded == 8 { 4 } else { 8 };
        assert_eq!(
            configured(&["--buckets", &other.to_string()])
                .unwrap()
                .buckets,
            other
        );
        let config = Config::from_toml(&format!("buckets = {other}\n")).unwrap();
        assert_eq!(config.buckets, other);
        assert!(config.to_toml().contains(&format!("buckets = {other}")));
        let embedded = patina::nnue::Network::embedded().king_buckets.count();
        assert_eq!(configured(&[]).unwrap().king_buckets, embedded);
        assert_eq!(
            configured(&["--king-buckets", "16"]).unwrap().king_buckets,
            16
        );
        let factorised = configured(&["--king-buckets", "8", "--factoriser"]).unwrap();
        assert!(factorised.factoriser);
        factorised.validate().unwrap();
        let alone = configured(&["--factoriser"]).unwrap();
        if embedded == 1 {
            assert!(alone
                .validate()
                .unwrap_err()
                .to_string()
                .contains("king buckets"));
        }
        let refused = configured(&["--king-buckets", "3"]).unwrap().validate();
        assert!(refused.unwrap_err().to_string().contains("king buckets"));
    }

    /// `--epochs` sizes the run to the data when it starts, cosine schedule included.
    #[test]
    fn epochs_size_the_run_to_the_data() {
        let flags = ["--lr-schedule", "cosine", "--epochs", "2.5"];
        let config = configured(&[&flags[..], &["--batch-size", "100"]].concat()).unwrap();
        config.validate().unwrap();
        let config = Config {
            batches_per_superbatch: 4,
            ..config
        };
        let sizes = |training| {
            let sized = config.sized_to(&Split::new(training, 0, 0).unwrap());
            let sizes = (
                sized.superbatches,
                sized.batches_per_superbatch,
                sized.batch_size,
            );
            assert!(
                matches!(sized.lr, LrSchedule::Cosine { final_superbatch, .. }
                    if final_superbatch == sized.superbatches),
                "{training}: {:?}",
                sized.lr
            );
            sizes
        };
        // 2.5 passes over 1000 positions are 2500, 6.25 superbatches of 4 batches of 100: 7.
        assert_eq!(sizes(1000), (7, 4, 100));
        // A superbatch is at most one pass: over 250 positions, 2 batches of 100; 3.125
        // superbatches are 4, 3.2 passes.
        assert_eq!(sizes(250), (4, 2, 100));
        // A batch is at most every position: 3 passes over 40.
        assert_eq!(sizes(40), (3, 1, 40));
        // The validation count becomes the positions held out.
        let held_out = config.sized_to(&Split::new(1000, 1 << 18, 0).unwrap());
        assert_eq!(held_out.validation, 100);
        // Without --epochs, the superbatch count stands.
        let fixed = configured(&["--superbatches", "9"]).unwrap();
        let sized = fixed.sized_to(&Split::new(1_000_000_000, 0, 0).unwrap());
        assert_eq!(sized.superbatches, 9);
        // Both lengths at once, or a length that is no number of passes, is refused.
        let both = ["trainer", "train", "--epochs", "2", "--superbatches", "9"];
        assert!(Cli::try_parse_from(both).is_err());
        for bad in ["--epochs=0", "--epochs=-1", "--epochs=NaN"] {
            assert!(configured(&[bad]).unwrap().validate().is_err(), "{bad}");
        }
    }

    /// A saved cosine run made longer still ends its schedule with the run.
    #[test]
    fn a_cosine_schedule_follows_the_superbatch_count() {
        let mut config = configured(&["--lr-schedule", "cosine"]).unwrap();
        train_args(&["--superbatches", "60"])
            .apply(&mut config)
            .unwrap();
        assert!(matches!(
            config.lr,
            LrSchedule::Cosine {
                final_superbatch: 60,
                ..
            }
        ));
    }
}
