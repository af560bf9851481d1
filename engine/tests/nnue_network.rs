//! Net files: only bullet's exact layout for this build's architecture is accepted, with or
//! without output buckets, with a typed error otherwise, and writing then reading a net gives
//! back the same bytes.

use patina::nnue::{
    Accumulator, AccumulatorStack, Network, NetworkError, HIDDEN, INPUTS, KING_BUCKET_COUNTS,
    MAX_BUCKETS, QA, QB, SCALE,
};
use patina::Board;
use patina::Color;

/// bullet's size: 2·(769·N + B·(2N + 1)) bytes, padded to a multiple of 64.
fn unpadded_size(buckets: usize) -> usize {
    2 * (769 * HIDDEN + buckets * (2 * HIDDEN + 1))
}
fn file_size(buckets: usize) -> usize {
    unpadded_size(buckets).div_ceil(64) * 64
}

#[test]
fn to_bytes_then_from_bytes_round_trips() {
    let nets = [
        Network::embedded(),
        Network::random(1),
        Network::random(2),
        Network::random_bucketed(3, 1, 8),
        Network::random_bucketed(4, 1, MAX_BUCKETS),
    ];
    for net in nets {
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), file_size(net.buckets()));
        let loaded = Network::from_bytes(&bytes).unwrap();
        assert_eq!(loaded.buckets(), net.buckets());
        assert_eq!(loaded.to_bytes(), bytes);
    }
}

/// bullet's size with K king buckets: 2·(768·K·N + N + B·(2N + 1)), padded to 64.
fn king_bucketed_size(king_buckets: usize, buckets: usize) -> usize {
    (2 * (768 * king_buckets * HIDDEN + HIDDEN + buckets * (2 * HIDDEN + 1))).div_ceil(64) * 64
}

#[test]
fn king_bucketed_nets_round_trip_and_their_size_tells_k_and_b() {
    for king_buckets in KING_BUCKET_COUNTS {
        for buckets in [1, 8, MAX_BUCKETS] {
            let net = Network::random_bucketed(9, king_buckets, buckets);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), king_bucketed_size(king_buckets, buckets));
            let loaded = Network::from_bytes(&bytes).unwrap();
            assert_eq!(
                (loaded.king_buckets.count(), loaded.buckets()),
                (king_buckets, buckets)
            );
            assert_eq!(loaded.to_bytes(), bytes);
        }
    }
}

#[test]
fn king_bucket_counts_without_a_map_are_refused() {
    for count in [2, 3, 5, 17] {
        let bytes = vec![0; king_bucketed_size(count, 8)];
        match Network::from_bytes(&bytes) {
            Err(NetworkError::KingBucketCount { count: found }) => assert_eq!(found, count),
            Err(other) => panic!("{count} king buckets: expected KingBucketCount, got {other}"),
            Ok(_) => panic!("{count} king buckets: accepted"),
        }
    }
}

#[test]
fn the_size_tells_the_bucket_count() {
    // N = 128: 197 378 bytes padded to 197 440 without buckets, 200 976 padded to 201 024 with 8.
    if HIDDEN == 128 {
        assert_eq!((file_size(1), file_size(8)), (197_440, 201_024));
    }
    for buckets in 1..=MAX_BUCKETS {
        let net = Network::from_bytes(&Network::random_bucketed(7, 1, buckets).to_bytes()).unwrap();
        assert_eq!(net.buckets(), buckets);
    }
}

#[test]
fn from_bytes_refuses_wrong_sizes() {
    let bytes = Network::random(3).to_bytes();
    for len in [
        0,
        1,
        2 * (INPUTS * HIDDEN + HIDDEN),
        unpadded_size(1),
        file_size(1) - 1,
        file_size(1) + 1,
        file_size(1) + 64,
        file_size(8) - 64,
        file_size(8) + 64,
        2 * file_size(1),
    ] {
        let mut wrong = bytes.clone();
        wrong.resize(len, 0);
        match Network::from_bytes(&wrong) {
            Err(NetworkError::WrongSize { found, hidden }) => {
                assert_eq!((found, hidden), (len, HIDDEN));
            }
            Err(other) => panic!("{len} bytes: expected WrongSize, got {other}"),
            Ok(_) => panic!("{len} bytes: accepted"),
        }
    }
}

#[test]
fn more_buckets_than_bullet_makes_are_refused() {
    let mut bytes = Network::random(3).to_bytes();
    bytes.resize(file_size(MAX_BUCKETS + 1), 0);
    let error = Network::from_bytes(&bytes).err().expect("refused");
    assert!(
        matches!(error, NetworkError::BucketCount { buckets } if buckets == MAX_BUCKETS + 1),
        "{error}"
    );
    assert!(error.to_string().contains("output buckets"), "{error}");
}

/// A file far larger than any net, or endless, is refused by its size before it fills memory.
#[test]
fn load_refuses_a_file_larger_than_any_net() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.nnue");
    let largest = king_bucketed_size(
        KING_BUCKET_COUNTS[KING_BUCKET_COUNTS.len() - 1],
        MAX_BUCKETS,
    );
    std::fs::write(&path, vec![0u8; largest + 1]).unwrap();
    let error = Network::load(&path).err().expect("refused");
    assert!(matches!(error, NetworkError::TooLarge), "{error}");
    assert!(error.to_string().contains("larger than"), "{error}");
    #[cfg(unix)]
    assert!(matches!(
        Network::load(std::path::Path::new("/dev/zero")),
        Err(NetworkError::TooLarge)
    ));
}

/// The padding bullet writes: its name, repeated from the first padding byte.
fn bullet_padded(net: &Network) -> Vec<u8> {
    let mut bytes = net.to_bytes();
    for (i, byte) in bytes[unpadded_size(net.buckets())..].iter_mut().enumerate() {
        *byte = b"bullet"[i % 6];
    }
    bytes
}

#[test]
fn from_bytes_accepts_bullets_padding() {
    for net in [Network::random(5), Network::random_bucketed(5, 1, 8)] {
        let loaded = Network::from_bytes(&bullet_padded(&net)).unwrap();
        assert_eq!(loaded.to_bytes(), net.to_bytes());
    }
}

#[test]
fn from_bytes_refuses_other_padding() {
    for net in [Network::random(4), Network::random_bucketed(4, 1, 8)] {
        let unpadded = unpadded_size(net.buckets());
        for bytes in [net.to_bytes(), bullet_padded(&net)] {
            for position in [unpadded, bytes.len() - 1] {
                let mut corrupt = bytes.clone();
                corrupt[position] = 1;
                assert!(
                    matches!(
                        Network::from_bytes(&corrupt),
                        Err(NetworkError::BadPadding { unpadded: u }) if u == unpadded
                    ),
                    "byte 1 at {position}"
                );
            }
        }
    }
}

/// A bucketed net exactly as bullet's `save_quantised` writes it for `SavedFormat`s l0w, l0b,
/// `l1w.transpose()`, l1b: l1w is a B × 2N matrix kept column-major (one column of B per
/// hidden input), and bullet's transpose writes `new[2N·i + j] = old[B·j + i]`, row i being
/// bucket i. Each bucket here has its own output bias and one non-zero output weight, and
/// hidden neuron i always reads 50 + i (feature weights 0), so the evaluation shows which
/// bucket the engine read and where.
#[test]
fn a_bullet_bucketed_file_loads_as_written() {
    const B: usize = 8;
    let mut column_major = vec![0i16; B * 2 * HIDDEN];
    for bucket in 0..B {
        let input = 3 * bucket + HIDDEN * (bucket % 2);
        column_major[B * input + bucket] = 10 + bucket as i16;
    }
    let mut transposed = vec![0i16; B * 2 * HIDDEN];
    for i in 0..B {
        for j in 0..2 * HIDDEN {
            transposed[2 * HIDDEN * i + j] = column_major[B * j + i];
        }
    }
    let biases: Vec<i16> = (0..B as i16).map(|b| 1000 * b - 3000).collect();
    let mut values = vec![0i16; INPUTS * HIDDEN];
    values.extend((0..HIDDEN as i16).map(|i| 50 + i));
    values.extend(&transposed);
    values.extend(&biases);
    let mut bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let unpadded = bytes.len();
    while bytes.len() % 64 != 0 {
        bytes.push(b"bullet"[(bytes.len() - unpadded) % 6]);
    }

    let net = Network::from_bytes(&bytes).unwrap();
    assert_eq!(net.buckets(), B);
    let board = Board::startpos();
    let [white, black] = Color::BOTH.map(|c| Accumulator::refresh(&net, &board, c));
    for pieces in 2..=32 {
        let bucket = (pieces - 2) / 4;
        let input = 3 * bucket + HIDDEN * (bucket % 2);
        let activation = 50 + (input % HIDDEN) as i64;
        let weight = 10 + bucket as i64;
        let expected = (activation * activation * weight / i64::from(QA)
            + i64::from(biases[bucket]))
            * i64::from(SCALE)
            / i64::from(QA * QB);
        assert_eq!(
            i64::from(net.evaluate(&white.values, &black.values, pieces)),
            expected,
            "{pieces} pieces"
        );
    }
    assert_eq!(
        AccumulatorStack::new(&net, &board).evaluate(&net, Color::White),
        net.evaluate(&white.values, &black.values, 32)
    );
}

/// A file of the right size whose weights the integer inference cannot compute exactly.
#[test]
fn from_bytes_refuses_weights_out_of_range() {
    let net = Network::random(6);

    for (value, accepted) in [(128, true), (-128, true), (129, false), (-129, false)] {
        let mut wide = net.clone();
        wide.output_weights[0][HIDDEN + 3] = value;
        let result = Network::from_bytes(&wide.to_bytes());
        match result {
            Ok(_) => assert!(accepted, "output weight {value} accepted"),
            Err(NetworkError::OutputWeightRange {
                index,
                value: found,
            }) => {
                assert!(!accepted, "output weight {value} refused");
                assert_eq!((index, found), (HIDDEN + 3, value));
            }
            Err(other) => panic!("output weight {value}: {other}"),
        }
    }

    // 32 pieces could each add this neuron's largest weight on top of its bias.
    let mut loud = net.clone();
    loud.feature_bias[5] = 0;
    loud.feature_weights[100][5] = i16::MAX / 32 + 1;
    assert!(matches!(
        Network::from_bytes(&loud.to_bytes()),
        Err(NetworkError::AccumulatorRange { neuron: 5, .. })
    ));
    // 32 · 1023 = 32736 still fits.
    loud.feature_weights[100][5] = -(i16::MAX / 32);
    assert!(Network::from_bytes(&loud.to_bytes()).is_ok());

    // Every bucket's weights are checked, not only the first's.
    let mut bucketed = Network::random_bucketed(6, 1, 8);
    bucketed.output_weights[5][7] = 129;
    assert!(matches!(
        Network::from_bytes(&bucketed.to_bytes()),
        Err(NetworkError::OutputWeightRange { index, value: 129 }) if index == 5 * 2 * HIDDEN + 7
    ));
}

/// Every net of the lineage that this build's width can load passes the range checks.
#[test]
fn lineage_nets_load() {
    let nets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets");
    let mut loaded = 0;
    for entry in std::fs::read_dir(nets).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "nnue") {
            match Network::load(&path) {
                Ok(_) => loaded += 1,
                // A net of another width.
                Err(NetworkError::WrongSize { .. } | NetworkError::TooLarge) => {}
                Err(other) => panic!("{}: {other}", path.display()),
            }
        }
    }
    assert!(loaded > 0, "no net of width {HIDDEN} in nets/");
}

/// The engine's static evaluation stays inside the evaluation range, as the search's does, even
/// for a net whose output (legal weights, every neuron saturated) goes far beyond it: a printed
/// `eval` is never taken for a tablebase score.
#[test]
fn static_eval_stays_inside_the_evaluation_range() {
    let buckets = 8;
    let mut bytes = Network::random_bucketed(3, 1, buckets).to_bytes();
    let mut put = |index: usize, value: i16| {
        bytes[2 * index..2 * index + 2].copy_from_slice(&value.to_le_bytes());
    };
    // No feature weights, every bias at QA, every output weight 32: each side's dot product
    // is HIDDEN · QA² · 32, about 1e9 at N = 512, inside the i32 range the engine checks.
    (0..INPUTS * HIDDEN).for_each(|i| put(i, 0));
    (0..HIDDEN).for_each(|i| put(INPUTS * HIDDEN + i, QA as i16));
    (0..buckets * 2 * HIDDEN).for_each(|i| put((INPUTS + 1) * HIDDEN + i, 32));
    let network = Network::from_bytes(&bytes).expect("legal weights");
    let mut engine = patina::Engine::new(network);
    assert_eq!(engine.static_eval(), patina::score::TB_WIN_BOUND - 1);
}
