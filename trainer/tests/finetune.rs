//! `--init`: a run that starts from a net's weights carries that net on instead of starting
//! from random ones, and a net of another shape is refused before any training.

mod common;

use std::path::PathBuf;

use common::temp_dir;
use trainer::config::Config;
use trainer::loader::write_bulletformat;
use trainer::run::{run, Start};
use trainer::schedule::LrSchedule;
use trainer::synthetic;

const QUIET: Start = Start {
    resume: None,
    quiet: true,
};

#[test]
fn a_fine_tune_starts_from_the_given_net() {
    let dir = temp_dir("finetune");
    let data = dir.join("data.bin");
    write_bulletformat(&data, &synthetic::dataset(4_000, 9)).unwrap();
    let config = Config {
        net_id: "base".into(),
        hidden: 128,
        buckets: 8,
        data: vec![data],
        out_dir: dir.join("base"),
        superbatches: 2,
        epochs: None,
        batch_size: 256,
        batches_per_superbatch: 4,
        threads: 2,
        seed: 1,
        validation: 400,
        ..Config::default()
    };
    let base = run(&config, QUIET).unwrap();
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
