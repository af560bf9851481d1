//! A run interrupted at a checkpoint and resumed ends bit-identical to an uninterrupted run, in
//! either precision, with or without output buckets. The run trains a width other than the
//! engine's, as a generation that grows N does.

mod common;

use std::path::PathBuf;

use common::temp_dir;
use trainer::checkpoint::Checkpoint;
use trainer::config::Config;
use trainer::loader::write_bulletformat;
use trainer::precision::Precision;
use trainer::run::{run, Start};
use trainer::schedule::{LrSchedule, WdlSchedule};
use trainer::synthetic;

#[test]
fn checkpoint_and_resume_match_an_uninterrupted_run() {
    resume_matches(Precision::Bf16, 1, 1, false);
    resume_matches(Precision::F32, 1, 8, false);
    resume_matches(Precision::Bf16, 4, 8, false);
    resume_matches(Precision::F32, 8, 8, true);
}

fn resume_matches(precision: Precision, king_buckets: usize, buckets: usize, factoriser: bool) {
    let dir = temp_dir(&format!(
        "resume-{precision}-{king_buckets}-{buckets}-{factoriser}"
    ));
    let data = dir.join("data.bin");
    write_bulletformat(&data, &synthetic::dataset(6_000, 3)).unwrap();
    let hidden = if patina::nnue::HIDDEN == 256 {
        128
    } else {
        256
    };
    let config = Config {
        net_id: "t".into(),
        hidden,
        buckets,
        king_buckets,
        factoriser,
        precision,
        data: vec![data],
        out_dir: dir.join("full"),
        superbatches: 4,
        epochs: None,
        batch_size: 256,
        batches_per_superbatch: 6,
        save_rate: 2,
        threads: 2,
        seed: 5,
        validation: 500,
        lr: LrSchedule::Cosine {
            start: 0.002,
            end: 0.0002,
            final_superbatch: 4,
        },
        wdl: WdlSchedule::Linear {
            start: 0.2,
            end: 0.6,
        },
        ..Config::default()
    };
    let net = run(
        &config,
        Start {
            resume: None,
            quiet: true,
        },
    )
    .unwrap();
    for file in [
        "t.nnue",
        "t.f32",
        "t-2.ckpt",
        "t-4.ckpt",
        "t-2.nnue",
        "log.csv",
        "loss.png",
        "config.toml",
    ] {
        assert!(config.out_dir.join(file).exists(), "{file} missing");
    }
    let log = std::fs::read_to_string(config.out_dir.join("log.csv")).unwrap();
    assert_eq!(log.lines().count(), 5, "{log}");

    // A new run into the finished one's folder would mix the two: refused, nothing touched.
    let again = run(
        &Config {
            superbatches: 1,
            ..config.clone()
        },
        Start {
            resume: None,
            quiet: true,
        },
    );
    let error = again.expect_err("a second run into the folder is refused");
    assert!(error.to_string().contains("--resume"), "{error}");
    assert_eq!(
        std::fs::read_to_string(config.out_dir.join("log.csv")).unwrap(),
        log
    );

    // bullet's file for that shape: 2·(768·K·N + N + B·(2N + 1)) bytes, padded to a multiple
    // of 64, a factoriser merged in.
    let size = std::fs::metadata(&net).unwrap().len() as usize;
    assert_eq!(
        size,
        (2 * (768 * king_buckets * hidden + hidden + buckets * (2 * hidden + 1))).div_ceil(64) * 64
    );

    // Resumed from a copy, which writes beside itself, not into the run it came from.
    let copy = dir.join("resumed").join("t-2.ckpt");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(config.out_dir.join("t-2.ckpt"), &copy).unwrap();
    let checkpoint = Checkpoint::load(&copy).unwrap();
    assert_eq!(checkpoint.step, 12);
    assert_eq!(checkpoint.hidden, hidden as u64);
    assert_eq!(checkpoint.buckets, buckets as u64);
    assert_eq!(checkpoint.king_buckets, king_buckets as u64);
    assert_eq!(checkpoint.factoriser, factoriser);
    assert_eq!(checkpoint.precision, precision);
    let resumed_config = checkpoint.resume_config(&copy, None).unwrap();
    assert_eq!(resumed_config.buckets, buckets);
    assert_eq!(resumed_config.king_buckets, king_buckets);
    assert_eq!(resumed_config.factoriser, factoriser);
    assert_eq!(resumed_config.out_dir, dir.join("resumed"));
    let elsewhere = dir.join("elsewhere");
    assert_eq!(
        checkpoint
            .resume_config(&copy, Some(&elsewhere))
            .unwrap()
            .out_dir,
        elsewhere
    );
    let resumed = run(
        &resumed_config,
        Start {
            resume: Some(checkpoint),
            quiet: true,
        },
    )
    .unwrap();

    let read = |p: &PathBuf| std::fs::read(p).unwrap();
    assert_eq!(
        read(&net.with_extension("f32")),
        read(&resumed.with_extension("f32")),
        "float weights differ"
    );
    assert_eq!(read(&net), read(&resumed));
    let full = Checkpoint::load(&config.out_dir.join("t-4.ckpt")).unwrap();
    let again = Checkpoint::load(&resumed_config.out_dir.join("t-4.ckpt")).unwrap();
    assert_eq!(full.momentum, again.momentum);
    assert_eq!(full.velocity, again.velocity);
    assert_eq!(full.history.len(), 4);
    assert_eq!(
        full.history
            .iter()
            .map(|r| r.train_loss.to_bits())
            .collect::<Vec<_>>(),
        again
            .history
            .iter()
            .map(|r| r.train_loss.to_bits())
            .collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(dir).unwrap();
}
