//! A whole training run: superbatches of batches, validation, logs, checkpoints and nets.
//!
//! Files in the output directory:
//! `config.toml` (the run's settings), `<id>-<sb>.ckpt` and `<id>-<sb>.nnue` at every save
//! point, `<id>.nnue` (quantised, for the engine's EvalFile) and `<id>.f32` (float copy) at the
//! end, `log.csv` and `loss.png` after every superbatch.

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use datagen::progress;

use crate::checkpoint::{write_whole_file, Checkpoint};
use crate::config::Config;
use crate::error::{Result, TrainerError};
use crate::history::{self, Record};
use crate::loader::Dataset;
use crate::model::{Model, Shape};
use crate::optim::AdamW;
use crate::plot;
use crate::precision::RowFormat;
use crate::quantise::{check_engine_ranges, dequantise, float_bytes, quantise};
use crate::shuffle::Split;
use crate::train::Trainer;

/// What a run needs beyond its config.
pub struct Start {
    /// Continue from this checkpoint instead of a fresh random net.
    pub resume: Option<Checkpoint>,
    /// No progress bar or per-superbatch lines (tests).
    pub quiet: bool,
}

/// A new run into a folder that holds an earlier run's checkpoints or final net of the same id
/// would mix the two runs' files (and log): refused. (A run killed before its first checkpoint
/// left nothing to continue, so its log may be written over.)
fn check_no_earlier_run(config: &Config) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(&config.out_dir) else {
        return Ok(());
    };
    let id = &config.net_id;
    let checkpoint_of_id = |name: &str| {
        name.strip_prefix(id.as_str())
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|rest| rest.strip_suffix(".ckpt"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let earlier = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .find(|name| *name == format!("{id}.nnue") || checkpoint_of_id(name));
    match earlier {
        Some(name) => Err(TrainerError::Config(format!(
            "{} already holds a run of {id} ({name}): continue it with --resume, or give \
             another --out-dir or --net-id",
            config.out_dir.display()
        ))),
        None => Ok(()),
    }
}

/// Trains to the end of the schedule and returns the path of the final quantised net.
pub fn run(config: &Config, start: Start) -> Result<PathBuf> {
    config.validate()?;
    if start.resume.is_none() {
        check_no_earlier_run(config)?;
    }
    crate::with_hidden!(config.hidden, N => {
        crate::with_precision!(config.precision, P => run_at::<N, P>(config, start))
    })
}

fn run_at<const N: usize, P: RowFormat>(config: &Config, start: Start) -> Result<PathBuf> {
    let say = |line: String| {
        if !start.quiet {
            println!("{line}");
        }
    };
    let data = Dataset::open(&config.data, &config.viri, &config.filter)?;
    let mut split = Split::new(data.len(), config.validation, config.seed)?;
    if !config.shuffle {
        split = split.in_file_order();
    }
    // A resumed run goes on with the sizes it was saved with.
    let resumed = start.resume.is_some();
    let config = &if resumed {
        config.clone()
    } else {
        config.sized_to(&split)
    };
    let positions = format!(
        "positions         {} ({} training, {} validation), {:.2} epochs",
        data.len(),
        split.training_len(),
        split.validation_len(),
        (config.superbatches * config.batches_per_superbatch * config.batch_size) as f64
            / split.training_len() as f64
    );

    // A resumed run takes its weights from the checkpoint, whatever its start was.
    let model = match (&config.init, &start.resume) {
        (Some(path), None) => init_from_net::<N>(path, config.shape(), config.seed)?,
        _ => Model::random(config.seed, config.shape()).expect("the config was checked"),
    };
    let mut trainer = Trainer::<N, P>::new(model, &data, split, config.batch_size, config.threads)?;
    let mut history = Vec::new();
    if let Some(checkpoint) = start.resume {
        restore(&mut trainer, &mut history, checkpoint, data.len(), config)?;
    }
    // Written once the run is sure to go on: a refused resume leaves the run's record as it was.
    std::fs::create_dir_all(&config.out_dir).map_err(TrainerError::io(&config.out_dir))?;
    write_whole_file(
        &config.out_dir.join("config.toml"),
        config.to_toml().as_bytes(),
    )?;
    say(format!("{config}"));
    say(positions);
    if resumed {
        say(format!("resumed after batch {}", trainer.step));
    } else if config.init.is_some() && !start.quiet {
        // The starting net's loss on the very positions the run validates on: what the
        // fine-tune has to beat.
        let wdl = config.wdl.wdl(1, config.superbatches);
        if let Some(loss) = trainer.validation_loss(wdl) {
            say(format!(
                "start             validation {loss:.6} (the --init net's)"
            ));
        }
    }

    let batches = config.batches_per_superbatch as u64;
    let first_superbatch = trainer.step / batches + 1;
    let timer = Instant::now();
    for superbatch in first_superbatch..=config.superbatches as u64 {
        let sb = superbatch as usize;
        let (lr, wdl) = (config.lr.lr(sb), config.wdl.wdl(sb, config.superbatches));
        let bar = progress_bar(superbatch, config, start.quiet);
        let clock = Instant::now();
        let mut loss_sum = 0.0;
        for batch in 0..batches {
            loss_sum += trainer.train_batch(lr, wdl)?;
            if batch % 32 == 31 || batch + 1 == batches {
                let done = batch + 1;
                let positions = (done as usize * config.batch_size) as f64;
                // The message first: setting either may draw, and a line a log prints then
                // should show the loss (its batch count a moment behind) rather than none.
                bar.set_message(format!(
                    "loss {:.6} | {:.2}M pos/s",
                    loss_sum / done as f64,
                    positions / clock.elapsed().as_secs_f64() / 1e6
                ));
                bar.set_position(done);
            }
        }
        bar.finish_and_clear();
        let seconds = clock.elapsed().as_secs_f64();
        let validation_loss = trainer.validation_loss(wdl);
        let record = Record {
            superbatch,
            train_loss: loss_sum / batches as f64,
            validation_loss: validation_loss.unwrap_or(f64::NAN),
            lr,
            wdl,
            positions_per_second: (batches as usize * config.batch_size) as f64 / seconds,
            seconds,
        };
        history.push(record);
        let done = superbatch - first_superbatch + 1;
        let left = config.superbatches as u64 - superbatch;
        let eta = timer.elapsed().as_secs_f64() / done as f64 * left as f64;
        // Nothing is held out with --validation 0 or data under ten positions (`Split::new`).
        let validation = validation_loss.map_or("none".to_string(), |loss| format!("{loss:.6}"));
        say(format!(
            "superbatch {superbatch:>4}/{} | loss {:.6} | validation {validation} | {:.2}M pos/s | lr {lr:.3e} | wdl {wdl:.2} | ETA {}",
            config.superbatches,
            record.train_loss,
            record.positions_per_second / 1e6,
            hms(eta)
        ));
        write_whole_file(
            &config.out_dir.join("log.csv"),
            history::csv(&history).as_bytes(),
        )?;
        plot::loss_curve(&config.out_dir.join("loss.png"), &history)?;

        if superbatch % config.save_rate as u64 == 0 || superbatch == config.superbatches as u64 {
            let name = format!("{}-{superbatch}", config.net_id);
            save_net(
                trainer.model(),
                &config.out_dir.join(format!("{name}.nnue")),
            )?;
            checkpoint(&trainer, &history, config, data.len())
                .save(&config.out_dir.join(format!("{name}.ckpt")))?;
            say(format!("saved {name}.nnue and {name}.ckpt"));
        }
    }

    let net = config.out_dir.join(format!("{}.nnue", config.net_id));
    save_net(trainer.model(), &net)?;
    write_whole_file(&net.with_extension("f32"), &float_bytes(trainer.model()))?;
    say(format!(
        "wrote {} and {}",
        net.display(),
        net.with_extension("f32").display()
    ));
    Ok(net)
}

/// Saves the net even if the engine would refuse it (training may bring the weights back in
/// range), but says so at once rather than at the engine's first load.
fn save_net<const N: usize>(model: &Model<N>, path: &Path) -> Result<()> {
    if let Err(refusal) = check_engine_ranges(model) {
        eprintln!(
            "warning: the engine will refuse {}: {refusal}",
            path.display()
        );
    }
    write_whole_file(path, &quantise(model))
}

fn checkpoint<const N: usize, P: RowFormat>(
    trainer: &Trainer<N, P>,
    history: &[Record],
    config: &Config,
    data_len: u64,
) -> Checkpoint {
    Checkpoint {
        config_toml: config.to_toml(),
        hidden: N as u64,
        buckets: trainer.model().buckets as u64,
        king_buckets: trainer.model().inputs.king_buckets.count() as u64,
        factoriser: trainer.model().inputs.factoriser,
        precision: config.precision,
        threads: config.threads as u64,
        step: trainer.step,
        data_len,
        history: history.to_vec(),
        params: trainer.model().params.clone(),
        momentum: trainer.adam.momentum.clone(),
        velocity: trainer.adam.velocity.clone(),
    }
}

fn restore<const N: usize, P: RowFormat>(
    trainer: &mut Trainer<N, P>,
    history: &mut Vec<Record>,
    checkpoint: Checkpoint,
    data_len: u64,
    config: &Config,
) -> Result<()> {
    let fail = |reason: String| Err(TrainerError::Config(format!("cannot resume: {reason}")));
    if checkpoint.hidden != N as u64 {
        return fail(format!(
            "checkpoint has N = {}, its config N = {N}",
            checkpoint.hidden
        ));
    }
    if checkpoint.buckets != config.buckets as u64 {
        return fail(format!(
            "checkpoint has {} output buckets, its config {}",
            checkpoint.buckets, config.buckets
        ));
    }
    if checkpoint.king_buckets != config.king_buckets as u64 {
        return fail(format!(
            "checkpoint has {} king buckets, its config {}",
            checkpoint.king_buckets, config.king_buckets
        ));
    }
    if checkpoint.factoriser != config.factoriser {
        return fail(format!(
            "checkpoint {} a factoriser, its config {}",
            if checkpoint.factoriser {
                "has"
            } else {
                "has no"
            },
            if config.factoriser { "has" } else { "has none" },
        ));
    }
    if checkpoint.precision != config.precision {
        return fail(format!(
            "checkpoint was trained in {}, its config says {}",
            checkpoint.precision, config.precision
        ));
    }
    if checkpoint.data_len != data_len {
        return fail(format!(
            "checkpoint was trained on {} positions, the data now has {data_len}",
            checkpoint.data_len
        ));
    }
    if checkpoint.threads != config.threads as u64 {
        return fail(format!(
            "checkpoint used {} threads; results are only reproducible with the same count",
            checkpoint.threads
        ));
    }
    let len = Model::<N>::param_count(config.shape());
    if checkpoint.momentum.len() != len || checkpoint.velocity.len() != len {
        return fail("optimiser state has the wrong size".into());
    }
    trainer.set_model(Model::from_params(checkpoint.params, config.shape()).ok_or(
        TrainerError::Config("cannot resume: weights have the wrong size".into()),
    )?);
    trainer.adam = AdamW {
        momentum: checkpoint.momentum,
        velocity: checkpoint.velocity,
    };
    trainer.step = checkpoint.step;
    *history = checkpoint.history;
    Ok(())
}

/// The start of a fine-tune: a net file of the run's shape, or a plain one (K = 1) spread over
/// the run's king buckets, of the run's width N or a narrower one (widened, `Model::widened`,
/// its new neurons drawn from `seed`). A net file has no factoriser: the run's, if it has one,
/// starts from zero (or, from a plain net, with half of each weight).
fn init_from_net<const N: usize>(path: &Path, shape: Shape, seed: u64) -> Result<Model<N>> {
    let bytes = std::fs::read(path).map_err(TrainerError::io(path))?;
    let refused = |reason| TrainerError::Init {
        path: path.to_owned(),
        reason,
    };
    let reason = match start_at_width::<N>(&bytes, shape) {
        Ok(model) => return Ok(model),
        Err(reason) => reason,
    };
    for narrower in crate::WIDTHS.into_iter().filter(|&width| width < N) {
        let widened = crate::with_hidden!(narrower, M => Ok(start_at_width::<M>(&bytes, shape)
            .ok()
            .map(|narrow| Model::<N>::widened(&narrow, seed).expect("M < N"))))?;
        if let Some(model) = widened {
            return Ok(model);
        }
    }
    Err(refused(format!("{reason}, nor a narrower net to widen")))
}

/// A net file of `shape` (without its factoriser) at width N, or a plain one spread over the
/// shape's king buckets; given the factoriser if the shape has one.
fn start_at_width<const N: usize>(
    bytes: &[u8],
    shape: Shape,
) -> std::result::Result<Model<N>, String> {
    match dequantise::<N>(bytes, shape.merged()) {
        Ok(net) if shape.factoriser => Ok(net.with_factoriser()),
        Ok(net) => Ok(net),
        Err(reason) if shape.king_buckets > 1 => {
            let plain = dequantise::<N>(bytes, Shape::plain(shape.buckets))
                .map_err(|_| format!("{reason}, nor a plain net of that N and B"))?;
            Ok(plain
                .spread_over_king_buckets(shape)
                .expect("a plain net of the run's N and B, and a checked shape"))
        }
        Err(reason) => Err(reason),
    }
}

fn progress_bar(superbatch: u64, config: &Config, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "superbatch {prefix} [{bar:30}] {pos}/{len} batches | {msg} | ETA {eta}",
    )
    .expect("valid template")
    .progress_chars("=> ");
    let bar = progress::bar(config.batches_per_superbatch as u64, style);
    bar.set_prefix(format!("{superbatch:>4}/{}", config.superbatches));
    bar
}

fn hms(seconds: f64) -> String {
    let s = seconds.round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
