//! `--init`: a run that starts from a net's weights carries that net on instead of starting
//! from random ones, a narrower net is widened, and a net of another shape is refused before
//! any training.

mod common;

use std::path::{Path, PathBuf};

use common::temp_dir;
use trainer::config::Config;
use trainer::features::Features;
use trainer::loader::write_bulletformat;
use trainer::model::{Model, Shape};
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
            buckets: 4,
            out_dir: dir.join("other-buckets"),
            ..config.clone()
        },
        QUIET,
    )
    .expect_err("a net of 8 output buckets cannot start a run of 4");
    assert!(error.to_string().starts_with("--init "), "{error}");
    assert!(error.to_string().contains("4 output bucket(s)"), "{error}");
}

/// A net starts a run of more hidden neurons: at a learning rate too small to move a quantised
/// weight, the saved net holds the narrow net's weights in its first neurons, new feature rows
/// and biases that are not all zero, and zero output weights for the new neurons. A wider net
/// cannot start a narrower run.
#[test]
fn a_narrower_net_starts_a_wider_run() {
    let dir = temp_dir("finetune-widen");
    let config = base_config(&dir, "narrow");
    let narrow = std::fs::read(run(&config, QUIET).unwrap()).unwrap();
    let wide = std::fs::read(
        run(
            &Config {
                net_id: "wide".into(),
                init: Some(dir.join("narrow/narrow.nnue")),
                hidden: 256,
                out_dir: dir.join("wide"),
                superbatches: 1,
                lr: LrSchedule::Constant { value: 1e-12 },
                ..config.clone()
            },
            QUIET,
        )
        .unwrap(),
    )
    .unwrap();
    let weights = |bytes: &[u8]| -> Vec<i16> {
        bytes
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
            .collect()
    };
    let (narrow, wide) = (weights(&narrow), weights(&wide));
    // 768 feature rows and the feature bias, then 8 buckets × 2 sides of output weights.
    let (rows, outputs) = (769, 16);
    let split = |net: &[i16], n: usize| {
        let (features, rest) = net.split_at(rows * n);
        (
            features.to_vec(),
            rest[..outputs * n].to_vec(),
            rest[outputs * n..][..8].to_vec(),
        )
    };
    let (narrow_features, narrow_outputs, narrow_biases) = split(&narrow, 128);
    let (wide_features, wide_outputs, wide_biases) = split(&wide, 256);
    for (old, new) in narrow_features
        .chunks_exact(128)
        .zip(wide_features.chunks_exact(256))
    {
        assert_eq!(old, &new[..128]);
    }
    let new_rows = wide_features.chunks_exact(256).flat_map(|row| &row[128..]);
    assert!(new_rows.filter(|&&w| w != 0).count() > 769 * 128 / 2);
    for (old, new) in narrow_outputs
        .chunks_exact(128)
        .zip(wide_outputs.chunks_exact(256))
    {
        assert_eq!(old, &new[..128]);
        assert!(new[128..].iter().all(|&w| w == 0));
    }
    assert_eq!(narrow_biases, wide_biases);

    let error = run(
        &Config {
            net_id: "narrower".into(),
            init: Some(dir.join("wide/wide.nnue")),
            out_dir: dir.join("narrower"),
            ..config.clone()
        },
        QUIET,
    )
    .expect_err("a net of N = 256 cannot start a run of N = 128");
    assert!(
        error.to_string().contains("nor a narrower net to widen"),
        "{error}"
    );
}

/// Widening keeps the float net's outputs bit for bit, with king buckets and a factoriser too:
/// the new neurons' zero output weights add exact zeros.
#[test]
fn a_widened_net_gives_the_same_outputs() {
    let shapes = [
        Shape::plain(8),
        Shape {
            king_buckets: 4,
            buckets: 8,
            factoriser: true,
        },
    ];
    for shape in shapes {
        let narrow = synthetic::teacher::<128>(5, shape);
        let wide = Model::<256>::widened(&narrow, 6).unwrap();
        assert_eq!(wide.shape(), shape);
        let mut positions = 0;
        synthetic::random_walk(300, 7, |board| {
            let record = synthetic::to_record(board);
            let features = Features::of(&record, &narrow.inputs);
            assert_eq!(
                narrow.forward(&features).to_bits(),
                wide.forward(&Features::of(&record, &wide.inputs)).to_bits()
            );
            positions += 1;
        });
        assert_eq!(positions, 300);
    }
    assert!(Model::<128>::widened(&Model::<256>::random(1, Shape::plain(8)).unwrap(), 2).is_none());
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
