//! `--init`: a run that starts from a net's weights carries that net on instead of starting
//! from random ones, and a net of another shape is refused before any training; `--anchor`
//! positions are scored by that net itself; `compare` measures what a fine-tune changed.

use std::path::{Path, PathBuf};

use trainer::checkpoint::Checkpoint;
use trainer::compare::compare;
use trainer::config::Config;
use trainer::loader::{write_bulletformat, Dataset};
use trainer::model::Model;
use trainer::quantise::{quantise, read_net};
use trainer::run::{run, Start};
use trainer::schedule::LrSchedule;
use trainer::synthetic;
use viriformat::chess::board::{Board as ViriBoard, GameOutcome};
use viriformat::dataformat::{Filter, Game};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("patina-trainer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const QUIET: Start = Start {
    resume: None,
    quiet: true,
};

/// A short run on synthetic data of N = 128 and 8 buckets, and the net it wrote.
fn base_net(dir: &Path) -> (Config, PathBuf) {
    let data = dir.join("data.bin");
    write_bulletformat(&data, &synthetic::dataset(4_000, 9)).unwrap();
    let config = Config {
        net_id: "base".into(),
        hidden: 128,
        buckets: 8,
        data: vec![data],
        out_dir: dir.join("base"),
        superbatches: 2,
        batch_size: 256,
        batches_per_superbatch: 4,
        threads: 2,
        seed: 1,
        validation: 400,
        ..Config::default()
    };
    let base = run(&config, QUIET).unwrap();
    (config, base)
}

#[test]
fn a_fine_tune_starts_from_the_given_net() {
    let dir = temp_dir("finetune");
    let (config, base) = base_net(&dir);
    let base_bytes = std::fs::read(&base).unwrap();

    // At a learning rate too small to move any quantised weight, the fine-tune writes back the
    // net it started from; without --init the same run writes its random start's training.
    let still = |init: Option<PathBuf>, out: &str| {
        let net = run(
            &Config {
                net_id: "tuned".into(),
                init,
                out_dir: dir.join(out),
                superbatches: 1,
                seed: 2,
                lr: LrSchedule::Constant { value: 1e-12 },
                ..config.clone()
            },
            QUIET,
        )
        .unwrap();
        std::fs::read(net).unwrap()
    };
    assert_eq!(still(Some(base.clone()), "tuned"), base_bytes);
    assert_ne!(still(None, "fresh"), base_bytes);

    // Another shape is refused, naming the file.
    let error = run(
        &Config {
            init: Some(base.clone()),
            hidden: 256,
            out_dir: dir.join("wide"),
            ..config.clone()
        },
        QUIET,
    )
    .expect_err("a net of N = 128 cannot start a run of N = 256");
    assert!(error.to_string().starts_with("--init "), "{error}");
    assert!(error.to_string().contains("N = 256"), "{error}");
}

/// A folder `name`, the base net in it, and 50 games to score.
fn net_and_games(name: &str) -> (PathBuf, Config, PathBuf, PathBuf) {
    let dir = temp_dir(name);
    let (config, base) = base_net(&dir);
    let games = dir.join("games.vf");
    write_games(&games, 50);
    (dir, config, base, games)
}

/// `count` drawn games of 40 plies along different lines, scored +1.00 for White throughout.
fn write_games(path: &Path, count: usize) {
    let mut bytes = Vec::new();
    for g in 0..count {
        let mut board = ViriBoard::default();
        let mut game = Game::new(&board);
        for ply in 0..40 {
            let moves = board.legal_moves();
            let mv = moves[(ply * 7 + g * 3) % moves.len()];
            game.add_move(mv, 100);
            board.make_move_simple(mv);
        }
        game.set_outcome(GameOutcome::Draw(
            viriformat::chess::board::DrawType::FiftyMoves,
        ));
        game.serialise_into(&mut bytes).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn anchor_positions_are_scored_by_the_net_the_fine_tune_starts_from() {
    let (dir, config, base, games) = net_and_games("anchor");
    // The games come last either way, so the held-out positions are theirs. At a learning rate
    // too small to move a weight, the starting net is its own target on them as anchors (up to
    // rounding the score to an integer), whatever weight λ gives the results elsewhere; as
    // ordinary games they are scored by their searches and results.
    let validation_loss = |anchor: bool, out: &str| {
        let (viri, anchors) = if anchor {
            (vec![], vec![games.clone()])
        } else {
            (vec![games.clone()], vec![])
        };
        let tuned = Config {
            net_id: "tuned".into(),
            init: Some(base.clone()),
            viri,
            anchor: anchors,
            filter: Filter::UNRESTRICTED,
            out_dir: dir.join(out),
            superbatches: 1,
            validation: 1_000,
            wdl: trainer::schedule::WdlSchedule::Constant { value: 0.5 },
            lr: LrSchedule::Constant { value: 1e-12 },
            ..config.clone()
        };
        run(&tuned, QUIET).unwrap();
        let log = std::fs::read_to_string(tuned.out_dir.join("log.csv")).unwrap();
        let last = log
            .lines()
            .last()
            .unwrap()
            .split(',')
            .nth(2)
            .unwrap()
            .to_string();
        last.parse::<f64>().unwrap()
    };
    let (anchored, scored) = (
        validation_loss(true, "anchored"),
        validation_loss(false, "scored"),
    );
    assert!(anchored < 1e-7, "{anchored}");
    assert!(scored > 1e-4, "{scored}");

    let error = run(
        &Config {
            anchor: vec![games],
            out_dir: dir.join("no-init"),
            ..config.clone()
        },
        QUIET,
    )
    .expect_err("anchors need a net to score them");
    assert!(error.to_string().contains("init"), "{error}");

    // Five games' 200 anchor positions, all held out, would leave the fine-tune unanchored.
    let few = dir.join("few.vf");
    write_games(&few, 5);
    let error = run(
        &Config {
            init: Some(base),
            anchor: vec![few],
            filter: Filter::UNRESTRICTED,
            out_dir: dir.join("all-held-out"),
            validation: 200,
            ..config
        },
        QUIET,
    )
    .expect_err("anchors all held out are refused");
    assert!(error.to_string().contains("none to train on"), "{error}");
}

#[test]
fn compare_finds_the_change_in_the_bucket_that_has_it() {
    let (dir, _, base, games) = net_and_games("compare");
    let data = Dataset::open(&[], &[games], &Filter::default()).unwrap();

    // The same net: no difference anywhere.
    let same = compare::<128>(&base, &base, 8, &data).unwrap();
    assert!(
        same.iter().all(|d| d.positions == 0 || d.mean_abs == 0.0),
        "{same:?}"
    );

    // A net whose bucket-7 output bias is 0.25 higher: every position of 30 to 32 pieces moves
    // by that much, and no other.
    let mut model = read_net::<128>(&base, 8).unwrap();
    model.params[Model::<128>::output_bias(8) + 7] += 0.25;
    let raised = dir.join("raised.nnue");
    std::fs::write(&raised, quantise(&model)).unwrap();
    let drifts = compare::<128>(&base, &raised, 8, &data).unwrap();
    let cp = 0.25 * patina::nnue::SCALE as f64 * 100.0 / f64::from(patina::wdl::NORMALIZE_TO_PAWN);
    let (seven, others) = (drifts[7], &drifts[..7]);
    assert!(seven.positions > 0);
    assert!(
        (seven.mean - cp).abs() < 1e-3 * cp,
        "{seven:?}, expected {cp}"
    );
    assert!((seven.mean_abs - cp).abs() < 1e-3 * cp && (seven.rms - cp).abs() < 1e-3 * cp);
    assert!(
        others.iter().all(|d| d.positions == 0 || d.mean_abs == 0.0),
        "{others:?}"
    );
    assert!(
        others.iter().any(|d| d.positions > 0),
        "only bucket 7 was tried"
    );
    assert_eq!(
        drifts[8].positions,
        drifts.iter().take(8).map(|d| d.positions).sum::<u64>()
    );
}

#[test]
fn an_anchored_run_resumes_exactly_and_only_with_its_net() {
    let (dir, config, base, games) = net_and_games("anchor-resume");
    let init = dir.join("init.nnue");
    std::fs::copy(&base, &init).unwrap();
    let tuned = Config {
        net_id: "tuned".into(),
        init: Some(init.clone()),
        anchor: vec![games],
        filter: Filter::UNRESTRICTED,
        out_dir: dir.join("whole"),
        superbatches: 2,
        save_rate: 1,
        seed: 4,
        validation: 200,
        ..config
    };
    let whole = std::fs::read(run(&tuned, QUIET).unwrap()).unwrap();

    let resume = |out: &str| resume_into(&dir.join("whole/tuned-1.ckpt"), &dir.join(out));
    assert_eq!(std::fs::read(resume("resumed").unwrap()).unwrap(), whole);

    // The --init net changed since: its scores of the anchors would be other targets.
    let mut other = read_net::<128>(&init, 8).unwrap();
    other.params[Model::<128>::FEATURE_BIAS] += 0.5;
    std::fs::write(&init, quantise(&other)).unwrap();
    let error = resume("changed").expect_err("a resume with another init net is refused");
    assert!(error.to_string().contains("anchor"), "{error}");
}

/// Resumes the run of `checkpoint`, writing into `out`.
fn resume_into(checkpoint: &Path, out: &Path) -> trainer::error::Result<PathBuf> {
    let saved = Checkpoint::load(checkpoint).unwrap();
    let config = saved.resume_config(checkpoint, Some(out)).unwrap();
    run(
        &config,
        Start {
            resume: Some(saved),
            quiet: true,
        },
    )
}

#[test]
fn a_fine_tune_without_anchors_resumes_without_its_init_net() {
    let dir = temp_dir("finetune-resume");
    let (config, base) = base_net(&dir);
    let init = dir.join("init.nnue");
    std::fs::copy(&base, &init).unwrap();
    let tuned = Config {
        net_id: "tuned".into(),
        init: Some(init.clone()),
        out_dir: dir.join("whole"),
        superbatches: 2,
        save_rate: 1,
        seed: 5,
        ..config
    };
    let whole = std::fs::read(run(&tuned, QUIET).unwrap()).unwrap();
    // The checkpoint holds the weights: the net the run started from is not needed again.
    std::fs::remove_file(&init).unwrap();
    let resumed = resume_into(&dir.join("whole/tuned-1.ckpt"), &dir.join("resumed")).unwrap();
    assert_eq!(std::fs::read(resumed).unwrap(), whole);
}

#[test]
fn training_only_a_bucket_leaves_every_other_weight_as_it_was() {
    let dir = temp_dir("train-buckets");
    let (config, base) = base_net(&dir);
    let tuned = Config {
        net_id: "tuned".into(),
        init: Some(base.clone()),
        train_buckets: vec![7],
        out_dir: dir.join("bucket-7"),
        superbatches: 2,
        save_rate: 1,
        seed: 5,
        lr: LrSchedule::Constant { value: 1e-3 },
        ..config.clone()
    };
    let net = run(&tuned, QUIET).unwrap();
    let (before, after) = (
        read_net::<128>(&base, 8).unwrap(),
        read_net::<128>(&net, 8).unwrap(),
    );
    // Bucket 7 (30 to 32 pieces) learnt; not one other weight moved, in the feature layer or in
    // any other bucket, as the whole run's learning rate would move them.
    let [weights, bias] = Model::<128>::output_layer_of(7, 8);
    let trained = |i: &usize| weights.contains(i) || bias.contains(i);
    let changed: Vec<usize> = (0..before.params.len())
        .filter(|&i| before.params[i] != after.params[i])
        .collect();
    assert!(changed.iter().all(trained), "{} moved", changed[0]);
    assert!(changed.iter().filter(|i| weights.contains(i)).count() > 100);

    // A resume keeps the bucket to itself (and the data to its positions).
    let resumed = resume_into(&dir.join("bucket-7/tuned-1.ckpt"), &dir.join("resumed")).unwrap();
    assert_eq!(
        std::fs::read(resumed).unwrap(),
        std::fs::read(&net).unwrap()
    );

    // Refused: bucket 0, since the synthetic games never get down to its 2 to 5 pieces; a
    // bucket the net does not have; a bucket named twice; no net to start from.
    let cases = [
        (vec![0], Some(&base), "no positions of the buckets"),
        (vec![8], Some(&base), "0 to 7"),
        (vec![7, 7], Some(&base), "twice"),
        (vec![7], None, "--init"),
    ];
    for (n, (train_buckets, init, reason)) in cases.into_iter().enumerate() {
        let config = Config {
            train_buckets,
            init: init.cloned(),
            out_dir: dir.join(format!("refused-{n}")),
            ..tuned.clone()
        };
        let error = run(&config, QUIET).expect_err(reason).to_string();
        assert!(error.contains(reason), "{error}");
    }
}
