//! `--init`: a run that starts from a net's weights carries that net on instead of starting
//! from random ones, and a net of another shape is refused before any training.

mod common;

use std::path::{Path, PathBuf};

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

/// A short run of a plain N = 128 net with 8 output buckets on 4 000 synthetic positions,
/// named `id` and written into `dir/id`.
fn base_config(dir: &Path, id: &str) -> Config {
    let data = dir.join("data.bin");
    write_bulletformat(&data, &synthetic::dataset(4_000, 9)).unwrap();
    Config {
        net_id: id.into(),
        hidden: 128,
        buckets: 8,
        king_buckets: 1,
        data: vec![data],
        out_dir: dir.join(id),
        superbatches: 2,
        epochs: None,
        batch_size: 256,
        batches_per_superbatch: 4,
        threads: 2,
        seed: 1,
        validation: 400,
        ..Config::default()
    }
}

#[test]
fn a_fine_tune_starts_from_the_given_net() {
    let dir = temp_dir("finetune");
    let config = base_config(&dir, "base");
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

/// A plain net starts a king-bucketed run, with or without a factoriser: every bucket begins
/// with its rows mirrored, so at a learning rate too small to move a quantised weight the saved
/// net is the plain one with its mirrored rows repeated K times (the factoriser's half merged
/// back in).
#[test]
fn a_plain_net_starts_every_king_bucket() {
    let dir = temp_dir("finetune-buckets");
    let config = base_config(&dir, "plain");
    let plain = std::fs::read(run(&config, QUIET).unwrap()).unwrap();
    let rows = 768 * 128 * 2;
    let dense = 2 * (128 + 8 * (2 * 128 + 1));
    // Each bucket starts as the plain rows of the mirrored square (input ^ 7), the view of a
    // king on files e–h, which reads its board mirrored.
    let row = 128 * 2;
    let mirrored: Vec<u8> = (0..768)
        .flat_map(|input: usize| &plain[(input ^ 7) * row..][..row])
        .copied()
        .collect();

    for (king_buckets, factoriser) in [(8, false), (4, true)] {
        let out = format!("kb{king_buckets}-{factoriser}");
        let net = run(
            &Config {
                net_id: out.clone(),
                init: Some(dir.join("plain/plain.nnue")),
                king_buckets,
                factoriser,
                out_dir: dir.join(&out),
                superbatches: 1,
                lr: LrSchedule::Constant { value: 1e-12 },
                ..config.clone()
            },
            QUIET,
        )
        .unwrap();
        let bytes = std::fs::read(net).unwrap();
        let buckets = king_buckets * rows;
        for bucket in bytes[..buckets].chunks_exact(rows) {
            assert_eq!(bucket, &mirrored[..], "{out}");
        }
        assert_eq!(
            &bytes[buckets..buckets + dense],
            &plain[rows..rows + dense],
            "{out}"
        );
    }

    // A bucketed net cannot start a run of other king buckets.
    let error = run(
        &Config {
            net_id: "kb4".into(),
            init: Some(dir.join("kb8-false/kb8-false.nnue")),
            king_buckets: 4,
            out_dir: dir.join("kb4"),
            ..config.clone()
        },
        QUIET,
    )
    .expect_err("8 king buckets cannot start a run of 4");
    assert!(error.to_string().contains("nor a plain net"), "{error}");
}
