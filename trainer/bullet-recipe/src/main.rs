//! Patina's network, trained with bullet on a GPU.
//!
//! The net is the engine's: 768·K inputs → N hidden (one layer shared by both perspectives),
//! SCReLU, the two halves concatenated side to move first, → B outputs of which the position's
//! output bucket is used (`--buckets`: 1, a plain net, or 8, bullet's `MaterialCount<8>`,
//! bucket (pieces − 2) / 4); eval scale 400; saved quantised with QA = 255, QB = 64 in the
//! layout `patina::nnue::Network` reads. K (`--king-buckets`) is 1 for plain `Chess768`, or
//! 4, 8 or 16 for `ChessBucketsMirrored` with the engine's own bucket map
//! (`patina::nnue::KingBuckets`), so the trainer, this recipe and the engine cannot disagree.
//!
//! ```text
//! feature weights [768·K][N] i16 (×QA)  one row of N per input feature, bucket by bucket
//! feature bias    [N]      i16 (×QA)
//! output weights  [B][2N]  i16 (×QB)    per bucket, first N for the side to move's half
//! output biases   [B]      i16 (×QA·QB)
//! padding to a multiple of 64 bytes (bullet's letters "bullet", which the engine accepts)
//! ```
//!
//! bullet stores an affine layer's weights as an `outputs × inputs` matrix, column-major, so
//! `l0w` (N × 768·K) is already 768·K runs of N values. `l1w` (B × 2N) column-major holds, for each
//! hidden input, its B bucket weights; `.transpose()` writes it bucket by bucket instead, as
//! the engine reads it (with B = 1 transposing changes nothing). Every checkpoint's
//! `quantised.bin` loads in the engine as it is.
//!
//! `--factoriser` adds bullet's factoriser: a shared 768 × N block added to every bucket's
//! weights while training and merged into them when saving, so a rarely seen bucket starts
//! from what all buckets learnt. The saved net has the same layout either way.
//!
//! Defaults are those of Patina's own trainer (`trainer/src/config.rs`). Run with `--help`.

use std::{path::Path, process::ExitCode};

use bullet_lib::{
    game::{
        formats::bulletformat::ChessBoard,
        inputs::{Chess768, ChessBucketsMirrored, SparseInputType},
        outputs::{MaterialCount, OutputBuckets},
    },
    nn::{
        optimiser::{AdamW, AdamWOptimiser, AdamWParams},
        InitSettings, ModelBuilder, ModelNode, Shape,
    },
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
use patina::nnue::{KingBuckets, KING_BUCKET_COUNTS};
use patina::wdl::NORMALIZE_TO_PAWN;

/// Quantisation of the feature layer (weights and bias).
const QA: i16 = 255;
/// Quantisation of the output weights (the output bias gets QA·QB).
const QB: i16 = 64;
/// Network output 1.0 is this many centipawns: the target's score part is sigmoid(cp / SCALE).
const SCALE: f32 = 400.0;
/// Weight clipping with the factoriser: a bucket's effective weight is the sum of two clipped
/// values, so each is held to half of AdamW's usual ±1.98 (bullet's choice too).
const FACTORISED_CLIP: f32 = 0.99;

const USAGE: &str = "\
patina-bullet-recipe: train Patina's 768xK->Nx2->B SCReLU net with bullet

USAGE: cargo run --release -- [OPTIONS] --data FILE [--data FILE ...]
       cargo run --release -- [OPTIONS] --viri FILE [--viri FILE ...]

DATA (one kind per run)
  --data FILE               bulletformat file (32-byte ChessBoard records), read in order; repeatable
  --viri FILE               viriformat game file, through viriformat's default filter; repeatable
  --viri-buffer-mb MB       shuffle buffer of the viriformat loader [1024]

NETWORK AND RUN
  --hidden N                hidden width, a multiple of 32 [the embedded net's]
  --buckets B               output buckets by piece count: 1 (none) or 8 (MaterialCount<8>)
                            [the embedded net's]
  --king-buckets K          input buckets by king square, mirrored: 1 (none), 4, 8 or 16
                            (ChessBucketsMirrored with the engine's maps) [the embedded net's]
  --factoriser              train a shared 768xN factoriser beside the K buckets, merged
                            into them when saving
  --epochs E                passes over --data, which sets the superbatches [5]
  --superbatches S          run length instead of --epochs (required with --viri)
  --batch-size B            [16384]
  --batches-per-superbatch  [25]
  --save-rate K             checkpoint every K superbatches (and at the end) [5]
  --net-id NAME             [patina]
  --out-dir DIR             [checkpoints]
  --threads T               data-loading threads [all cores]
  --device ORDINAL          GPU to train on [0]
  --seed SEED               weight initialisation seed [bullet's default]

SCHEDULES (as Patina's trainer: superbatches count from 1)
  --lr-schedule KIND        constant | step | cosine [cosine]
  --lr LR                   initial learning rate [0.001]
  --lr-gamma G              step: multiply by G every --lr-step superbatches [0.1]
  --lr-step K               [18]
  --lr-end LR               cosine: rate reached at the last superbatch [0.00001, or
                            --lr x 0.01 when --lr is given]
  --wdl L                   lambda, the game result's weight in the target [0.3]
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
    king_buckets: usize,
    factorise: bool,
    epochs: f64,
    superbatches: Option<usize>,
    batch_size: usize,
    batches_per_superbatch: usize,
    save_rate: usize,
    net_id: String,
    out_dir: String,
    threads: usize,
    device: i32,
    seed: Option<u64>,
    lr_schedule: String,
    lr: Option<f32>,
    lr_gamma: f32,
    lr_step: usize,
    lr_end: Option<f32>,
    wdl: f32,
    wdl_end: Option<f32>,
    dry_run: bool,
}

/// Patina's trainer's defaults (`trainer/src/config.rs`), which are the default net's recipe.
const EPOCHS: f64 = 5.0;
const LR: f32 = 0.001;
const LR_END: f32 = 0.000_01;
const WDL: f32 = 0.3;

impl Default for Options {
    fn default() -> Self {
        let embedded = patina::nnue::Network::embedded();
        Self {
            data: Vec::new(),
            viri: Vec::new(),
            viri_buffer_mb: 1024,
            hidden: patina::nnue::HIDDEN,
            buckets: embedded.buckets(),
            king_buckets: embedded.king_buckets.count(),
            factorise: false,
            epochs: EPOCHS,
            superbatches: None,
            batch_size: 16_384,
            batches_per_superbatch: 25,
            save_rate: 5,
            net_id: "patina".into(),
            out_dir: "checkpoints".into(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            device: 0,
            seed: None,
            lr_schedule: "cosine".into(),
            lr: None,
            lr_gamma: 0.1,
            lr_step: 18,
            lr_end: None,
            wdl: WDL,
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
                "--factoriser" => {
                    o.factorise = true;
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
                "--king-buckets" => o.king_buckets = number(&flag, v)?,
                "--epochs" => o.epochs = number(&flag, v)?,
                "--superbatches" => o.superbatches = Some(number(&flag, v)?),
                "--batch-size" => o.batch_size = number(&flag, v)?,
                "--batches-per-superbatch" => o.batches_per_superbatch = number(&flag, v)?,
                "--save-rate" => o.save_rate = number(&flag, v)?,
                "--net-id" => o.net_id = value,
                "--out-dir" => o.out_dir = value,
                "--threads" => o.threads = number(&flag, v)?,
                "--device" => o.device = number(&flag, v)?,
                "--seed" => o.seed = Some(number(&flag, v)?),
                "--lr-schedule" => o.lr_schedule = value,
                "--lr" => o.lr = Some(number(&flag, v)?),
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
        if self.data.is_empty() && self.viri.is_empty() {
            return Err(
                "no data: give bulletformat files (--data) or viriformat games (--viri)".into(),
            );
        }
        if !self.data.is_empty() && !self.viri.is_empty() {
            return Err(
                "give bulletformat files (--data) or viriformat games (--viri), not both \
                        (`datagen splat` turns games into bulletformat)"
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
        if !KING_BUCKET_COUNTS.contains(&self.king_buckets) {
            return Err(format!(
                "--king-buckets must be one of {KING_BUCKET_COUNTS:?} (1: none)"
            ));
        }
        if self.factorise && self.king_buckets == 1 {
            return Err("--factoriser needs king buckets (--king-buckets 4, 8 or 16)".into());
        }
        if !(self.epochs > 0.0 && self.epochs <= 10_000.0) {
            return Err("--epochs must lie in (0, 10000]".into());
        }
        if self.superbatches.is_none() && !self.viri.is_empty() {
            return Err(
                "--viri needs --superbatches: the positions in game files are not \
                        known before they are read"
                    .into(),
            );
        }
        if [
            self.superbatches(),
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

    fn dims(&self) -> Dims {
        Dims {
            hidden: self.hidden,
            buckets: self.buckets,
            king_buckets: self.king_buckets,
        }
    }

    /// Positions in the bulletformat files (32 bytes each); 0 with viriformat files.
    fn positions(&self) -> u64 {
        let bytes = self.data.iter().filter_map(|p| std::fs::metadata(p).ok());
        bytes.map(|m| m.len() / 32).sum()
    }

    /// `--superbatches`, or as many as `--epochs` passes over the data take (at least one).
    fn superbatches(&self) -> usize {
        self.superbatches.unwrap_or_else(|| {
            let batch = (self.batch_size * self.batches_per_superbatch).max(1) as f64;
            ((self.epochs * self.positions() as f64 / batch).ceil() as usize).max(1)
        })
    }

    fn lr_scheduler(&self) -> Result<Lr, String> {
        let start = self.lr.unwrap_or(LR);
        Ok(match self.lr_schedule.as_str() {
            "constant" => Lr::Constant(lr::ConstantLR { value: start }),
            "step" => Lr::Step(lr::StepLR {
                start,
                gamma: self.lr_gamma,
                step: self.lr_step,
            }),
            "cosine" => Lr::Cosine(lr::CosineDecayLR {
                initial_lr: start,
                final_lr: self
                    .lr_end
                    .unwrap_or(self.lr.map_or(LR_END, |lr| lr * 0.01)),
                final_superbatch: self.superbatches(),
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

/// The net's dimensions: N, B and K.
#[derive(Clone, Copy, Debug)]
struct Dims {
    hidden: usize,
    buckets: usize,
    king_buckets: usize,
}

impl Dims {
    fn inputs(self) -> usize {
        768 * self.king_buckets
    }

    /// Bytes of the quantised values: (768·K + 1)·N + B·(2N + 1) i16s.
    fn unpadded_bytes(self) -> u64 {
        let (n, b) = (self.hidden as u64, self.buckets as u64);
        2 * ((self.inputs() as u64 + 1) * n + b * (2 * n + 1))
    }

    /// Size of the net file: the values padded to a multiple of 64 bytes.
    fn net_bytes(self) -> u64 {
        self.unpadded_bytes().div_ceil(64) * 64
    }
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
    // One bucket is plain chess768: ChessBucketsMirrored would still mirror the board.
    match KingBuckets::with_count(options.king_buckets) {
        Some(map) if map.count() > 1 => build(
            ChessBucketsMirrored::new(map.map().map(usize::from)),
            &options,
        ),
        _ => build(Chess768, &options),
    }
}

/// Sets the net up on `inputs` (768·K of them) and trains it.
fn build<I: SparseInputType<RequiredDataType = ChessBoard>>(
    inputs: I,
    options: &Options,
) -> ExitCode {
    let dims = options.dims();
    let factorise = options.factorise;
    let king_buckets = dims.king_buckets;
    let feature_weights = if factorise {
        // The factoriser, 768 runs of N, repeats once per bucket as the weights do.
        SavedFormat::id("l0w").transform(move |store, weights| {
            let shared = store.get("l0f").values.f32().repeat(king_buckets);
            weights
                .into_iter()
                .zip(shared)
                .map(|(w, f)| w + f)
                .collect()
        })
    } else {
        SavedFormat::id("l0w")
    };
    let mut builder = ValueTrainerBuilder::default()
        .dual_perspective()
        .optimiser(AdamW) // AdamW defaults: decay 0.01, β 0.9/0.999, weights clipped to ±1.98
        .inputs(inputs)
        .use_device(options.device)
        .save_format(&[
            feature_weights.round().quantise::<i16>(QA),
            SavedFormat::id("l0b").round().quantise::<i16>(QA),
            SavedFormat::id("l1w")
                .round()
                .quantise::<i16>(QB)
                .transpose(),
            SavedFormat::id("l1b").round().quantise::<i16>(QA * QB),
        ])
        // Target: λ·result + (1 − λ)·sigmoid(score / SCALE); the net's output goes through a
        // sigmoid too, and the loss is the squared difference.
        .loss_fn(|output, target| output.sigmoid().squared_error(target));
    if let Some(seed) = options.seed {
        builder = builder.seed(seed);
    }
    // bullet takes no one-bucket `output_buckets`, and the graph gains a bucket input with them.
    match dims.buckets {
        1 => train(
            builder.build(move |b, stm, ntm| {
                let hidden = hidden_layer(b, stm, ntm, dims, factorise);
                b.new_affine("l1", 2 * dims.hidden, 1).forward(hidden)
            }),
            options,
        ),
        8 => train(
            builder
                .output_buckets(MaterialCount::<8>)
                .build(move |b, stm, ntm, buckets| {
                    let hidden = hidden_layer(b, stm, ntm, dims, factorise);
                    let l1 = b.new_affine("l1", 2 * dims.hidden, 8);
                    l1.forward(hidden).select(buckets)
                }),
            options,
        ),
        _ => unreachable!("checked when parsing"),
    }
}

/// Both perspectives through the feature layer `l0` and SCReLU, side to move first.
fn hidden_layer<'a>(
    b: &'a ModelBuilder,
    stm: ModelNode<'a>,
    ntm: ModelNode<'a>,
    dims: Dims,
    factorise: bool,
) -> ModelNode<'a> {
    let mut l0 = b.new_affine("l0", dims.inputs(), dims.hidden);
    // 32 of the 768·K inputs are active whatever K is: initialise as for 768 inputs, as
    // Patina's trainer does.
    l0.init_with_effective_input_size(768);
    if factorise {
        let shared = b.new_weights("l0f", Shape::new(dims.hidden, 768), InitSettings::Zeroed);
        l0.weights = l0.weights + shared.repeat(dims.king_buckets);
    }
    l0.forward(stm).screlu().concat(l0.forward(ntm).screlu())
}

/// Trains the built net (or, with --dry-run, saves it untrained) and copies the final net out.
fn train<I: SparseInputType<RequiredDataType = ChessBoard>, Out: OutputBuckets<ChessBoard>>(
    mut trainer: ValueTrainer<AdamWOptimiser, I, Out>,
    options: &Options,
) -> ExitCode {
    let dims = options.dims();
    if let Err(e) = std::fs::create_dir_all(&options.out_dir) {
        eprintln!("error: {}: {e}", options.out_dir);
        return ExitCode::FAILURE;
    }
    if options.factorise {
        let clip = AdamWParams {
            min_weight: -FACTORISED_CLIP,
            max_weight: FACTORISED_CLIP,
            ..AdamWParams::default()
        };
        trainer.optimiser.set_params_for_weight("l0w", clip);
        trainer.optimiser.set_params_for_weight("l0f", clip);
    }

    if options.dry_run {
        let path = format!("{}/{}-untrained.nnue", options.out_dir, options.net_id);
        if let Err(e) = trainer.save_quantised(&path) {
            eprintln!("error: {path}: {e}");
            return ExitCode::FAILURE;
        }
        return report_net(&path, dims);
    }

    let superbatches = options.superbatches();
    let schedule = TrainingSchedule {
        net_id: options.net_id.clone(),
        eval_scale: SCALE,
        steps: TrainingSteps {
            batch_size: options.batch_size,
            batches_per_superbatch: options.batches_per_superbatch,
            start_superbatch: 1,
            end_superbatch: superbatches,
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

    // The engine's `eval` prints normalised centipawns (network units · 100 / NORMALIZE_TO_PAWN,
    // docs/scores.md), so these are scaled the same way.
    println!("Float output (side to move) in the centipawns of the engine's `eval`:");
    for fen in CHECK_FENS {
        let units = trainer.eval(fen) * SCALE;
        let cp = units * 100.0 / NORMALIZE_TO_PAWN as f32;
        println!("  {cp:>8.1} cp  {fen}");
    }

    // bullet writes `<out_dir>/<net_id>-<superbatch>/quantised.bin`; the last one is the net.
    let last = format!(
        "{}/{}-{superbatches}/quantised.bin",
        options.out_dir, options.net_id
    );
    let net = format!("{}/{}.nnue", options.out_dir, options.net_id);
    if let Err(e) = std::fs::copy(&last, &net) {
        eprintln!("error: copying {last} to {net}: {e}");
        return ExitCode::FAILURE;
    }
    report_net(&net, dims)
}

/// Checks that the file loads in the engine as a net of these dimensions.
fn report_net(path: &str, dims: Dims) -> ExitCode {
    let bytes = match std::fs::read(Path::new(path)) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    if bytes.len() as u64 != dims.net_bytes() {
        eprintln!(
            "error: {path} has {} bytes, expected {} for {dims:?}",
            bytes.len(),
            dims.net_bytes()
        );
        return ExitCode::FAILURE;
    }
    match patina::nnue::Network::from_bytes(&bytes) {
        Ok(net)
            if net.king_buckets.count() == dims.king_buckets && net.buckets() == dims.buckets =>
        {
            println!(
                "Wrote {path} ({} bytes, 768x{}->{}x2->{}): load it with EvalFile or EVALFILE=",
                bytes.len(),
                dims.king_buckets,
                dims.hidden,
                dims.buckets
            );
            ExitCode::SUCCESS
        }
        Ok(_) => {
            eprintln!("error: {path} loads with other bucket counts than {dims:?}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {path} does not load in the engine: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(hidden: usize, buckets: usize, king_buckets: usize) -> Dims {
        Dims {
            hidden,
            buckets,
            king_buckets,
        }
    }

    #[test]
    fn net_size_matches_the_engine() {
        // nets/gen0-random-128.nnue and friends are 197440 bytes; with 8 buckets 201024.
        assert_eq!(dims(128, 1, 1).net_bytes(), 197_440);
        assert_eq!(dims(128, 1, 1).unpadded_bytes(), 197_378);
        assert_eq!(dims(128, 8, 1).net_bytes(), 201_024);
        assert_eq!(dims(128, 8, 1).unpadded_bytes(), 200_976);
        assert_eq!(dims(96, 8, 1).net_bytes() % 64, 0);
        // Four buckets hold three more copies of the 768 × 128 weights.
        assert_eq!(
            dims(128, 8, 4).unpadded_bytes(),
            200_976 + 2 * 3 * 768 * 128
        );
    }

    #[test]
    fn net_size_is_the_engines_for_every_shape() {
        for &k in &KING_BUCKET_COUNTS {
            for b in [1, 8] {
                let d = dims(patina::nnue::HIDDEN, b, k);
                let random = patina::nnue::Network::random_bucketed(1, k, b);
                assert_eq!(random.to_bytes().len() as u64, d.net_bytes(), "{d:?}");
            }
        }
    }

    /// A bulletformat file of `positions` (zeroed) records, in a folder of its own.
    fn bulletformat_file(name: &str, positions: usize) -> String {
        let dir = std::env::temp_dir().join(format!("recipe-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.bin");
        std::fs::write(&path, vec![0u8; 32 * positions]).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn schedules_match_patina_defaults() {
        let o = Options {
            data: vec![bulletformat_file("schedules", 1)],
            superbatches: Some(40),
            ..Options::default()
        };
        let lr = o.lr_scheduler().unwrap();
        // bullet's cosine starts at superbatch 0 and reaches the end at the last one.
        assert_eq!(lr.lr(0, 0), LR);
        assert!((lr.lr(0, 40) - LR_END).abs() < 1e-9);
        assert_eq!(o.wdl_scheduler().blend(0, 7, 40), WDL);
    }

    #[test]
    fn epochs_size_the_run() {
        let o = Options {
            data: vec![bulletformat_file("epochs", 1000)],
            batch_size: 10,
            batches_per_superbatch: 3,
            epochs: 2.0,
            ..Options::default()
        };
        // 2000 positions in superbatches of 30: the last one partly filled.
        assert_eq!(o.superbatches(), 67);
    }

    #[test]
    fn bucket_flags_are_checked() {
        let data = bulletformat_file("flags", 10);
        let parse = |extra: &[&str]| {
            let args = ["--data", data.as_str()]
                .into_iter()
                .chain(extra.iter().copied());
            Options::parse(args.map(String::from))
        };
        let o = parse(&["--king-buckets", "8", "--factoriser"])
            .unwrap()
            .unwrap();
        assert_eq!((o.king_buckets, o.factorise), (8, true));
        assert!(parse(&["--king-buckets", "3"]).is_err());
        assert!(parse(&["--king-buckets", "1", "--factoriser"]).is_err());
    }
}
