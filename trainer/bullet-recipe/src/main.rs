//! Patina's network, trained with bullet on a GPU.
//!
//! The net is the engine's: 768 chess inputs → N hidden (one layer shared by both perspectives),
//! SCReLU, the two halves concatenated side to move first, → B outputs of which the position's
//! output bucket is used (`--buckets`: 1, a plain net, or 8, bullet's `MaterialCount<8>`,
//! bucket (pieces − 2) / 4); eval scale 400; saved quantised with QA = 255, QB = 64 in the
//! layout `patina::nnue::Network` reads:
//!
//! ```text
//! feature weights [768][N] i16 (×QA)    one row of N per input feature
//! feature bias    [N]      i16 (×QA)
//! output weights  [B][2N]  i16 (×QB)    per bucket, first N for the side to move's half
//! output biases   [B]      i16 (×QA·QB)
//! padding to a multiple of 64 bytes (bullet's letters "bullet", which the engine accepts)
//! ```
//!
//! bullet stores an affine layer's weights as an `outputs × inputs` matrix, column-major, so
//! `l0w` (N × 768) is already 768 runs of N values. `l1w` (B × 2N) column-major holds, for each
//! hidden input, its B bucket weights; `.transpose()` writes it bucket by bucket instead, as
//! the engine reads it (with B = 1 transposing changes nothing). Every checkpoint's
//! `quantised.bin` loads in the engine as it is.
//!
//! Defaults are those of Patina's own trainer (`trainer/src/config.rs`). Run with `--help`.

use std::{path::Path, process::ExitCode};

use bullet_lib::{
    game::{
        formats::bulletformat::ChessBoard,
        inputs::Chess768,
        outputs::{MaterialCount, OutputBuckets},
    },
    nn::optimiser::{AdamW, AdamWOptimiser},
    trainer::{
        save::SavedFormat,
        schedule::{
            lr::{self, LrScheduler},
            wdl::{self, WdlScheduler},
            TrainingSchedule, TrainingSteps,
        },
        settings::LocalSettings,
    },
    value::{
        loader::{viribinpack::Filter, DirectSequentialDataLoader, ViriBinpackLoader},
        ValueTrainer, ValueTrainerBuilder,
    },
};

/// Quantisation of the feature layer (weights and bias).
const QA: i16 = 255;
/// Quantisation of the output weights (the output bias gets QA·QB).
const QB: i16 = 64;
/// Network output 1.0 is this many centipawns: the target's score part is sigmoid(cp / SCALE).
const SCALE: f32 = 400.0;

const USAGE: &str = "\
patina-bullet-recipe: train Patina's 768->Nx2->B SCReLU net with bullet

USAGE: cargo run --release -- [OPTIONS] --data FILE [--data FILE ...]
       cargo run --release -- [OPTIONS] --viri FILE [--viri FILE ...]

DATA (one kind per run)
  --data FILE               bulletformat file (32-byte ChessBoard records), read in order; repeatable
  --viri FILE               viriformat game file, through viriformat's default filter; repeatable
  --viri-buffer-mb MB       shuffle buffer of the viriformat loader [1024]

NETWORK AND RUN
  --hidden N                hidden width, a multiple of 32 [512, the default net's]
  --buckets B               output buckets by piece count: 1 (none) or 8 (MaterialCount<8>) [8]
  --superbatches S          [40]
  --batch-size B            [16384]
  --batches-per-superbatch  [6104]
  --save-rate K             checkpoint every K superbatches (and at the end) [10]
  --net-id NAME             [patina]
  --out-dir DIR             [checkpoints]
  --threads T               data-loading threads [all cores]
  --device ORDINAL          GPU to train on [0]
  --seed SEED               weight initialisation seed [bullet's default]

SCHEDULES (as Patina's trainer: superbatches count from 1)
  --lr-schedule KIND        constant | step | cosine [step]
  --lr LR                   initial learning rate [0.001]
  --lr-gamma G              step: multiply by G every --lr-step superbatches [0.1]
  --lr-step K               [18]
  --lr-end LR               cosine: rate reached at the last superbatch [--lr x 0.01]
  --wdl L                   lambda, the game result's weight in the target [0.75]
  --wdl-end L               taper lambda linearly from --wdl to this over the run

OTHER
  --dry-run                 build the net, write its untrained quantised file and exit
  -h, --help                this text
";

/// The learning-rate schedules Patina's trainer offers, as bullet's schedulers.
#[derive(Clone, Debug)]
enum Lr {
    Constant(lr::ConstantLR),
    Step(lr::StepLR),
    Cosine(lr::CosineDecayLR),
}

impl LrScheduler for Lr {
    fn lr(&self, batch: usize, superbatch: usize) -> f32 {
        match self {
            Lr::Constant(s) => s.lr(batch, superbatch),
            Lr::Step(s) => s.lr(batch, superbatch),
            Lr::Cosine(s) => s.lr(batch, superbatch),
        }
    }

    fn colourful(&self) -> String {
        match self {
            Lr::Constant(s) => s.colourful(),
            Lr::Step(s) => s.colourful(),
            Lr::Cosine(s) => s.colourful(),
        }
    }
}

/// The WDL (λ) schedules Patina's trainer offers, as bullet's schedulers.
#[derive(Clone, Debug)]
enum Wdl {
    Constant(wdl::ConstantWDL),
    Linear(wdl::LinearWDL),
}

impl WdlScheduler for Wdl {
    fn blend(&self, batch: usize, superbatch: usize, max: usize) -> f32 {
        match self {
            Wdl::Constant(s) => s.blend(batch, superbatch, max),
            Wdl::Linear(s) => s.blend(batch, superbatch, max),
        }
    }

    fn colourful(&self) -> String {
        match self {
            Wdl::Constant(s) => s.colourful(),
            Wdl::Linear(s) => s.colourful(),
        }
    }
}

struct Options {
    data: Vec<String>,
    viri: Vec<String>,
    viri_buffer_mb: usize,
    hidden: usize,
    buckets: usize,
    superbatches: usize,
    batch_size: usize,
    batches_per_superbatch: usize,
    save_rate: usize,
    net_id: String,
    out_dir: String,
    threads: usize,
    device: i32,
    seed: Option<u64>,
    lr_schedule: String,
    lr: f32,
    lr_gamma: f32,
    lr_step: usize,
    lr_end: Option<f32>,
    wdl: f32,
    wdl_end: Option<f32>,
    dry_run: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            data: Vec::new(),
            viri: Vec::new(),
            viri_buffer_mb: 1024,
            hidden: 512,
            buckets: 8,
            superbatches: 40,
            batch_size: 16_384,
            batches_per_superbatch: 6104,
            save_rate: 10,
            net_id: "patina".into(),
            out_dir: "checkpoints".into(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            device: 0,
            seed: None,
            lr_schedule: "step".into(),
            lr: 0.001,
            lr_gamma: 0.1,
            lr_step: 18,
            lr_end: None,
            wdl: 0.75,
            wdl_end: None,
            dry_run: false,
        }
    }
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag}: cannot read {value:?}"))
}

impl Options {
    /// `--flag value` or `--flag=value`; `None` for `--help`.
    fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Self>, String> {
        let mut o = Options::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (arg, None),
            };
            match flag.as_str() {
                "-h" | "--help" => return Ok(None),
                "--dry-run" => {
                    o.dry_run = true;
                    continue;
                }
                _ => {}
            }
            let value = match inline.or_else(|| args.next()) {
                Some(v) => v,
                None => return Err(format!("{flag} needs a value (see --help)")),
            };
            let v = value.as_str();
            match flag.as_str() {
                "--data" => o.data.push(value),
                "--viri" => o.viri.push(value),
                "--viri-buffer-mb" => o.viri_buffer_mb = number(&flag, v)?,
                "--hidden" => o.hidden = number(&flag, v)?,
                "--buckets" => o.buckets = number(&flag, v)?,
                "--superbatches" => o.superbatches = number(&flag, v)?,
                "--batch-size" => o.batch_size = number(&flag, v)?,
                "--batches-per-superbatch" => o.batches_per_superbatch = number(&flag, v)?,
                "--save-rate" => o.save_rate = number(&flag, v)?,
                "--net-id" => o.net_id = value,
                "--out-dir" => o.out_dir = value,
                "--threads" => o.threads = number(&flag, v)?,
                "--device" => o.device = number(&flag, v)?,
                "--seed" => o.seed = Some(number(&flag, v)?),
                "--lr-schedule" => o.lr_schedule = value,
                "--lr" => o.lr = number(&flag, v)?,
                "--lr-gamma" => o.lr_gamma = number(&flag, v)?,
                "--lr-step" => o.lr_step = number(&flag, v)?,
                "--lr-end" => o.lr_end = Some(number(&flag, v)?),
                "--wdl" => o.wdl = number(&flag, v)?,
                "--wdl-end" => o.wdl_end = Some(number(&flag, v)?),
                _ => return Err(format!("unknown option {flag} (see --help)")),
            }
        }
        o.check()?;
        Ok(Some(o))
    }

    fn check(&self) -> Result<(), String> {
        if self.data.is_empty() == self.viri.is_empty() {
            return Err(
                "give bulletformat files (--data) or viriformat files (--viri), not both \
                        (convert one kind with Patina's `trainer convert`)"
                    .into(),
            );
        }
        for path in self.data.iter().chain(&self.viri) {
            let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
            if self.viri.is_empty() && !meta.len().is_multiple_of(32) {
                return Err(format!(
                    "{path}: not bulletformat (size is no multiple of 32 bytes)"
                ));
            }
        }
        if self.hidden == 0 || !self.hidden.is_multiple_of(32) {
            return Err(
                "--hidden must be a positive multiple of 32 (the engine's SIMD width)".into(),
            );
        }
        // bullet's bucket count is a type parameter, so only the counts compiled in below.
        if ![1, 8].contains(&self.buckets) {
            return Err("--buckets must be 1 (no output buckets) or 8".into());
        }
        if [
            self.superbatches,
            self.batch_size,
            self.batches_per_superbatch,
            self.save_rate,
            self.threads,
        ]
        .contains(&0)
        {
            return Err("superbatches, batch size, batches per superbatch, save rate and threads must be at least 1".into());
        }
        if self.lr_step == 0 {
            return Err("--lr-step must be at least 1".into());
        }
        for l in [Some(self.wdl), self.wdl_end].into_iter().flatten() {
            if !(0.0..=1.0).contains(&l) {
                return Err("λ (--wdl, --wdl-end) must lie in [0, 1]".into());
            }
        }
        self.lr_scheduler().map(|_| ())
    }

    fn lr_scheduler(&self) -> Result<Lr, String> {
        Ok(match self.lr_schedule.as_str() {
            "constant" => Lr::Constant(lr::ConstantLR { value: self.lr }),
            "step" => Lr::Step(lr::StepLR {
                start: self.lr,
                gamma: self.lr_gamma,
                step: self.lr_step,
            }),
            "cosine" => Lr::Cosine(lr::CosineDecayLR {
                initial_lr: self.lr,
                final_lr: self.lr_end.unwrap_or(self.lr * 0.01),
                final_superbatch: self.superbatches,
            }),
            other => {
                return Err(format!(
                    "--lr-schedule: {other:?} is none of constant, step, cosine"
                ))
            }
        })
    }

    fn wdl_scheduler(&self) -> Wdl {
        match self.wdl_end {
            None => Wdl::Constant(wdl::ConstantWDL { value: self.wdl }),
            Some(end) => Wdl::Linear(wdl::LinearWDL {
                start: self.wdl,
                end,
            }),
        }
    }
}

/// Bytes of a quantised 768→N×2→B net's values: 769·N + B·(2N + 1) i16s.
fn unpadded_bytes(hidden: usize, buckets: usize) -> u64 {
    2 * (769 * hidden as u64 + buckets as u64 * (2 * hidden as u64 + 1))
}

/// Size of the net file: the values padded to a multiple of 64 bytes.
fn net_bytes(hidden: usize, buckets: usize) -> u64 {
    unpadded_bytes(hidden, buckets).div_ceil(64) * 64
}

/// Positions to print the trained net's evaluation of, for comparison with the engine's `eval`.
const CHECK_FENS: [&str; 3] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "8/8/4k3/8/2R5/4K3/8/8 b - - 0 1",
];

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !cfg!(any(feature = "cuda", feature = "rocm", feature = "metal")) && !options.dry_run {
        eprintln!(
            "error: built without a GPU backend; enable the `cuda`, `rocm` or `metal` feature"
        );
        return ExitCode::FAILURE;
    }

    let hidden = options.hidden;
    let mut builder = ValueTrainerBuilder::default()
        .dual_perspective()
        .optimiser(AdamW) // AdamW defaults: decay 0.01, β 0.9/0.999, weights clipped to ±1.98
        .inputs(Chess768)
        .use_device(options.device)
        .save_format(&[
            SavedFormat::id("l0w").round().quantise::<i16>(QA),
            SavedFormat::id("l0b").round().quantise::<i16>(QA),
            SavedFormat::id("l1w").round().quantise::<i16>(QB).transpose(),
            SavedFormat::id("l1b").round().quantise::<i16>(QA * QB),
        ])
        // Target: λ·result + (1 − λ)·sigmoid(score / SCALE); the net's output goes through a
        // sigmoid too, and the loss is the squared difference.
        .loss_fn(|output, target| output.sigmoid().squared_error(target));
    if let Some(seed) = options.seed {
        builder = builder.seed(seed);
    }
    // bullet takes no one-bucket `output_buckets`, and the graph gains a bucket input with them.
    match options.buckets {
        1 => train(
            builder.build(move |b, stm, ntm| {
                let l0 = b.new_affine("l0", 768, hidden);
                let l1 = b.new_affine("l1", 2 * hidden, 1);
                let ours = l0.forward(stm).screlu();
                let theirs = l0.forward(ntm).screlu();
                l1.forward(ours.concat(theirs))
            }),
            &options,
        ),
        8 => train(
            builder
                .output_buckets(MaterialCount::<8>)
                .build(move |b, stm, ntm, buckets| {
                    let l0 = b.new_affine("l0", 768, hidden);
                    let l1 = b.new_affine("l1", 2 * hidden, 8);
                    let ours = l0.forward(stm).screlu();
                    let theirs = l0.forward(ntm).screlu();
                    l1.forward(ours.concat(theirs)).select(buckets)
                }),
            &options,
        ),
        _ => unreachable!("checked when parsing"),
    }
}

/// Trains the built net (or, with --dry-run, saves it untrained) and copies the final net out.
fn train<Out: OutputBuckets<ChessBoard>>(
    mut trainer: ValueTrainer<AdamWOptimiser, Chess768, Out>,
    options: &Options,
) -> ExitCode {
    let (hidden, buckets) = (options.hidden, options.buckets);
    if let Err(e) = std::fs::create_dir_all(&options.out_dir) {
        eprintln!("error: {}: {e}", options.out_dir);
        return ExitCode::FAILURE;
    }

    if options.dry_run {
        let path = format!("{}/{}-untrained.nnue", options.out_dir, options.net_id);
        if let Err(e) = trainer.save_quantised(&path) {
            eprintln!("error: {path}: {e}");
            return ExitCode::FAILURE;
        }
        return report_net(&path, hidden, buckets);
    }

    let schedule = TrainingSchedule {
        net_id: options.net_id.clone(),
        eval_scale: SCALE,
        steps: TrainingSteps {
            batch_size: options.batch_size,
            batches_per_superbatch: options.batches_per_superbatch,
            start_superbatch: 1,
            end_superbatch: options.superbatches,
        },
        wdl_scheduler: options.wdl_scheduler(),
        lr_scheduler: options.lr_scheduler().expect("checked when parsing"),
        save_rate: options.save_rate,
    };
    let settings = LocalSettings {
        threads: options.threads,
        test_set: None,
        output_directory: &options.out_dir,
        batch_queue_size: 32,
    };

    if options.viri.is_empty() {
        let paths: Vec<&str> = options.data.iter().map(String::as_str).collect();
        trainer.run(
            &schedule,
            &settings,
            &DirectSequentialDataLoader::new(&paths),
        );
    } else {
        let paths: Vec<&str> = options.viri.iter().map(String::as_str).collect();
        let loader = ViriBinpackLoader::new_concat_multiple(
            &paths,
            options.viri_buffer_mb,
            options.threads,
            Filter::default(),
        );
        trainer.run(&schedule, &settings, &loader);
    }

    println!("Float output × {SCALE} (side to move), to compare with the engine's `eval`:");
    for fen in CHECK_FENS {
        println!("  {:>8.1} cp  {fen}", trainer.eval(fen) * SCALE);
    }

    // bullet writes `<out_dir>/<net_id>-<superbatch>/quantised.bin`; the last one is the net.
    let last = format!(
        "{}/{}-{}/quantised.bin",
        options.out_dir, options.net_id, options.superbatches
    );
    let net = format!("{}/{}.nnue", options.out_dir, options.net_id);
    if let Err(e) = std::fs::copy(&last, &net) {
        eprintln!("error: copying {last} to {net}: {e}");
        return ExitCode::FAILURE;
    }
    report_net(&net, hidden, buckets)
}

/// Checks the file has the size the engine loads for width `hidden` and `buckets` buckets.
fn report_net(path: &str, hidden: usize, buckets: usize) -> ExitCode {
    let want = net_bytes(hidden, buckets);
    match std::fs::read(Path::new(path)) {
        Ok(bytes) if bytes.len() as u64 != want => {
            eprintln!(
                "error: {path} has {} bytes, expected {want} for N = {hidden}, B = {buckets}",
                bytes.len()
            );
            ExitCode::FAILURE
        }
        Ok(_) => {
            println!(
                "Wrote {path} ({want} bytes, 768→{hidden}x2→{buckets}): load it with EvalFile or EVALFILE="
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_size_matches_the_engine() {
        // nets/gen0-random-128.nnue and friends are 197440 bytes; with 8 buckets 201024.
        assert_eq!(net_bytes(128, 1), 197_440);
        assert_eq!(unpadded_bytes(128, 1), 197_378);
        assert_eq!(net_bytes(128, 8), 201_024);
        assert_eq!(unpadded_bytes(128, 8), 200_976);
        assert_eq!(net_bytes(96, 8) % 64, 0);
    }

    #[test]
    fn schedules_match_patina_defaults() {
        let o = Options {
            data: vec!["Cargo.toml".into()],
            ..Options::default()
        };
        let lr = o.lr_scheduler().unwrap();
        assert_eq!(lr.lr(0, 18), 0.001);
        assert!((lr.lr(0, 19) - 0.0001).abs() < 1e-9);
        assert_eq!(o.wdl_scheduler().blend(0, 7, 40), 0.75);
    }
}
