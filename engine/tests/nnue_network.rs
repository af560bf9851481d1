//! Net files: only bullet's exact layout for this build's architecture is accepted, with a
//! typed error otherwise, and writing then reading a net gives back the same bytes.

use patina::nnue::{Network, NetworkError, HIDDEN};

/// The file is the struct's bytes, padded to a multiple of 64.
const UNPADDED_SIZE: usize = std::mem::size_of::<Network>();
const FILE_SIZE: usize = UNPADDED_SIZE.div_ceil(64) * 64;
// Otherwise the padding test below would check nothing.
const _: () = assert!(FILE_SIZE > UNPADDED_SIZE);

#[test]
fn to_bytes_then_from_bytes_round_trips() {
    for net in [Network::embedded(), Network::random(1), Network::random(2)] {
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), FILE_SIZE);
        assert_eq!(Network::from_bytes(&bytes).unwrap().to_bytes(), bytes);
    }
}

#[test]
fn from_bytes_refuses_wrong_sizes() {
    let bytes = Network::random(3).to_bytes();
    for len in [
        0,
        1,
        UNPADDED_SIZE,
        FILE_SIZE - 1,
        FILE_SIZE + 1,
        FILE_SIZE + 64,
        2 * FILE_SIZE,
    ] {
        let mut wrong = bytes.clone();
        wrong.resize(len, 0);
        match Network::from_bytes(&wrong) {
            Err(NetworkError::WrongSize {
                found,
                expected,
                hidden,
            }) => {
                assert_eq!((found, expected, hidden), (len, FILE_SIZE, HIDDEN));
            }
            Err(other) => panic!("{len} bytes: expected WrongSize, got {other}"),
            Ok(_) => panic!("{len} bytes: accepted"),
        }
    }
}

/// The padding bullet writes: its name, repeated from the first padding byte.
fn bullet_padded(net: &Network) -> Vec<u8> {
    let mut bytes = net.to_bytes();
    for (i, byte) in bytes[UNPADDED_SIZE..].iter_mut().enumerate() {
        *byte = b"bullet"[i % 6];
    }
    bytes
}

#[test]
fn from_bytes_accepts_bullets_padding() {
    let net = Network::random(5);
    let loaded = Network::from_bytes(&bullet_padded(&net)).unwrap();
    assert_eq!(loaded.to_bytes(), net.to_bytes());
}

#[test]
fn from_bytes_refuses_other_padding() {
    let net = Network::random(4);
    for bytes in [net.to_bytes(), bullet_padded(&net)] {
        for position in [UNPADDED_SIZE, FILE_SIZE - 1] {
            let mut corrupt = bytes.clone();
            corrupt[position] = 1;
            assert!(
                matches!(Network::from_bytes(&corrupt), Err(NetworkError::BadPadding)),
                "byte 1 at {position}"
            );
        }
    }
}

/// A file of the right size whose weights the integer inference cannot compute exactly.
#[test]
fn from_bytes_refuses_weights_out_of_range() {
    let net = Network::random(6);

    for (value, accepted) in [(128, true), (-128, true), (129, false), (-129, false)] {
        let mut wide = net.clone();
        wide.output_weights[HIDDEN + 3] = value;
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
                Err(NetworkError::WrongSize { .. }) => {}
                Err(other) => panic!("{}: {other}", path.display()),
            }
        }
    }
    assert!(loaded > 0, "no net of width {HIDDEN} in nets/");
}
