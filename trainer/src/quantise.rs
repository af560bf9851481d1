//! From float weights to a net file as bullet saves it: each layer scaled by its
//! quantisation factor and rounded to nearest (feature layer ×QA, output weights ×QB, output
//! biases ×QA·QB), clamped into i16. With output buckets the output weights are bucket by
//! bucket, as bullet writes `l1w` with `.transpose()`. A factoriser is first added into every
//! king bucket (`Model::merged`), as bullet merges it when saving.

use patina::nnue::{check_ranges, NetworkError, QA, QB};

use crate::model::{Model, Shape};

/// The net file: every parameter in `Model::params` order (which is bullet's file order) as a
/// little-endian i16, scaled by its layer's factor, then zero padding to a multiple of 64 bytes.
/// For any N, so a run can train a wider net than the engine at hand was built for.
pub fn quantise<const N: usize>(model: &Model<N>) -> Vec<u8> {
    let mut bytes: Vec<u8> = quantised_params(model)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    bytes.resize(bytes.len().div_ceil(64) * 64, 0);
    bytes
}

/// Refuses what the engine's loader would refuse in the quantised net, by the loader's own range
/// checks, whatever N the engine at hand was built for: a wide net's output weights can overflow
/// its i32 sums.
pub fn check_engine_ranges<const N: usize>(model: &Model<N>) -> Result<(), NetworkError> {
    let model = model.merged();
    let params = quantised_params(&model);
    let shape = model.shape();
    let (bias, output) = (
        Model::<N>::feature_bias(shape),
        Model::<N>::output_weights(shape),
    );
    check_ranges(
        &params[..bias],
        &params[bias..output],
        &params[output..Model::<N>::output_bias(shape)],
    )
}

fn quantised_params<const N: usize>(model: &Model<N>) -> Vec<i16> {
    let model = model.merged();
    model
        .params
        .iter()
        .enumerate()
        .map(|(i, &w)| quantise_one(w, scale::<N>(i, model.shape())))
        .collect()
}

/// The quantisation factor of parameter `index` (in `Model::params` order).
fn scale<const N: usize>(index: usize, shape: Shape) -> i32 {
    match index {
        i if i < Model::<N>::output_weights(shape) => QA,
        i if i < Model::<N>::output_bias(shape) => QB,
        _ => QA * QB,
    }
}

/// The model a net file holds, each weight its integer over its layer's factor: `quantise`
/// gives the same weights back. Refused unless the file is one of N hidden neurons and the
/// given king and output buckets, padded as `quantise` or bullet pads it. A file holds no
/// factoriser: `shape` must have none.
pub fn dequantise<const N: usize>(bytes: &[u8], shape: Shape) -> Result<Model<N>, String> {
    assert!(!shape.factoriser, "a net file holds no factoriser");
    let count = Model::<N>::param_count(shape);
    let size = (2 * count).div_ceil(64) * 64;
    if bytes.len() != size {
        return Err(format!(
            "{} bytes, not the {size} of a net with N = {N}, {} king bucket(s) and {} output \
             bucket(s)",
            bytes.len(),
            shape.king_buckets,
            shape.buckets
        ));
    }
    let params = bytes[..2 * count]
        .chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| {
            let weight = i16::from_le_bytes([pair[0], pair[1]]);
            (f64::from(weight) / f64::from(scale::<N>(i, shape))) as f32
        })
        .collect();
    Model::from_params(params, shape).ok_or_else(|| {
        format!(
            "no king bucket map for {} buckets (the engine has {:?})",
            shape.king_buckets,
            patina::nnue::KING_BUCKET_COUNTS
        )
    })
}

/// The float copy: every parameter as little-endian f32, in the order of the quantised file
/// (feature weights row by row, feature bias, output weights, output biases), without padding.
pub fn float_bytes<const N: usize>(model: &Model<N>) -> Vec<u8> {
    model
        .merged()
        .params
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

/// The product is taken in f64, as bullet takes it: in f32 it can round up to a half and then
/// away from bullet's integer (1.0333333 × 255 = 263.49999 becomes 263.5).
fn quantise_one(weight: f32, scale: i32) -> i16 {
    (f64::from(weight) * f64::from(scale))
        .round()
        .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::CLIP;
    use patina::nnue::{Network, HIDDEN};

    #[test]
    fn rounds_to_nearest_and_clamps() {
        assert_eq!(quantise_one(0.5 / 255.0 + 1e-6, 255), 1);
        assert_eq!(quantise_one(-0.6 / 64.0, 64), -1);
        assert_eq!(quantise_one(f32::from_bits(0x3f84_4444), 255), 263);
        assert_eq!(quantise_one(3.0, 255 * 64), i16::MAX);
        assert_eq!(quantise_one(-3.0, 255 * 64), i16::MIN);
    }

    #[test]
    fn layers_land_where_the_engine_reads_them() {
        for (king_buckets, buckets) in [(1, 1), (1, 8), (4, 8), (16, 1)] {
            let shape = Shape {
                king_buckets,
                buckets,
                factoriser: false,
            };
            let mut model = Model::<HIDDEN>::zeroed(shape).unwrap();
            let (last, last_row) = (buckets - 1, 768 * king_buckets - 1);
            model.params[3 * HIDDEN + 5] = 1.0;
            model.params[last_row * HIDDEN + 7] = -0.5;
            model.params[Model::<HIDDEN>::feature_bias(shape) + 1] = -1.0;
            model.params[Model::<HIDDEN>::output_weights(shape) + 2 * HIDDEN * last + HIDDEN] = 0.5;
            model.params[Model::<HIDDEN>::output_bias(shape) + last] = 0.25;
            let net = Network::from_bytes(&quantise(&model)).unwrap();
            assert_eq!(
                (net.king_buckets.count(), net.buckets()),
                (king_buckets, buckets)
            );
            assert_eq!(net.feature_weights[3][5], 255);
            assert_eq!(net.feature_weights[last_row][7], -128);
            assert_eq!(net.feature_bias[1], -255);
            assert_eq!(net.output_weights[last][HIDDEN], 32);
            assert_eq!(net.output_bias[last], 4080);
            assert_eq!(
                float_bytes(&model).len(),
                4 * Model::<HIDDEN>::param_count(shape)
            );
        }
    }

    /// With every output weight at the clip, N = 256 still fits the engine's i32 dot product;
    /// N = 512 does not, and the engine's check says so before anyone loads the file.
    #[test]
    fn wide_nets_are_vetted_by_the_engines_checks() {
        fn saturated<const N: usize>() -> Model<N> {
            let shape = Shape::plain(1);
            let mut model = Model::<N>::zeroed(shape).unwrap();
            model.params[Model::<N>::output_weights(shape)..Model::<N>::output_bias(shape)]
                .fill(CLIP);
            model
        }
        assert!(check_engine_ranges(&saturated::<256>()).is_ok());
        assert!(matches!(
            check_engine_ranges(&saturated::<512>()),
            Err(NetworkError::DotProductRange {
                bucket: 0,
                perspective: 0
            })
        ));
        // Each bucket is vetted on its own: here only bucket 5's opponent half overflows.
        let mut bucketed = Model::<512>::zeroed(Shape::plain(8)).unwrap();
        let half = Model::<512>::output_weights(Shape::plain(8)) + (2 * 5 + 1) * 512;
        bucketed.params[half..half + 512].fill(CLIP);
        assert!(matches!(
            check_engine_ranges(&bucketed),
            Err(NetworkError::DotProductRange {
                bucket: 5,
                perspective: 1
            })
        ));
    }

    /// bullet's file size for N = 256: 2·(771·256 + 1) = 394 754 bytes, padded to 394 816; with
    /// 8 buckets 2·(769·256 + 8·513) = 401 936, padded to 401 984, the last bias at the end.
    #[test]
    fn wider_nets_have_bullets_size_and_padding() {
        let mut model = Model::<256>::zeroed(Shape::plain(1)).unwrap();
        model.params[Model::<256>::output_bias(Shape::plain(1))] = 0.25;
        let bytes = quantise(&model);
        assert_eq!(bytes.len(), 394_816);
        assert_eq!(&bytes[394_752..394_754], &4080i16.to_le_bytes());
        assert!(bytes[394_754..].iter().all(|&b| b == 0));

        let mut model = Model::<256>::zeroed(Shape::plain(8)).unwrap();
        model.params[Model::<256>::output_bias(Shape::plain(8)) + 7] = 0.25;
        let bytes = quantise(&model);
        assert_eq!(bytes.len(), 401_984);
        assert_eq!(&bytes[401_934..401_936], &4080i16.to_le_bytes());
        assert!(bytes[401_936..].iter().all(|&b| b == 0));
    }

    /// A factoriser row is added into the same row of every king bucket: the file holds the
    /// sums (0.25 + 0.5 in bucket 2, 0.5 elsewhere), as bullet's merge writes them.
    #[test]
    fn a_factoriser_is_added_into_every_bucket() {
        let shape = Shape {
            king_buckets: 4,
            buckets: 8,
            factoriser: true,
        };
        let mut model = Model::<HIDDEN>::zeroed(shape).unwrap();
        model.params[(4 * 768 + 10) * HIDDEN + 3] = 0.5;
        model.params[(2 * 768 + 10) * HIDDEN + 3] = 0.25;
        let net = Network::from_bytes(&quantise(&model)).unwrap();
        assert_eq!(net.king_buckets.count(), 4);
        for bucket in 0..4 {
            let expected = if bucket == 2 { 191 } else { 128 };
            assert_eq!(
                net.feature_weights[768 * bucket + 10][3],
                expected,
                "{bucket}"
            );
        }
        assert_eq!(
            float_bytes(&model).len(),
            4 * Model::<HIDDEN>::param_count(shape.merged())
        );
    }

    /// A net read back for a fine-tune quantises to its own bytes, bullet's padding aside; a
    /// file of another shape is refused.
    #[test]
    fn a_dequantised_net_quantises_back_to_itself() {
        for shape in [
            Shape::plain(1),
            Shape::plain(8),
            Shape {
                king_buckets: 8,
                buckets: 8,
                factoriser: false,
            },
        ] {
            let bytes = quantise(&Model::<256>::random(3, shape).unwrap());
            assert!(bytes.iter().any(|&b| b != 0));
            let model = dequantise::<256>(&bytes, shape).unwrap();
            assert_eq!(quantise(&model), bytes);
        }
        let embedded = Network::embedded();
        let shape = Shape {
            king_buckets: embedded.king_buckets.count(),
            buckets: embedded.buckets(),
            factoriser: false,
        };
        let embedded = embedded.to_bytes();
        let model = dequantise::<HIDDEN>(&embedded, shape).unwrap();
        let count = 2 * Model::<HIDDEN>::param_count(shape);
        assert_eq!(quantise(&model)[..count], embedded[..count]);

        let bytes = quantise(&Model::<256>::zeroed(Shape::plain(8)).unwrap());
        assert!(dequantise::<256>(&bytes, Shape::plain(1))
            .unwrap_err()
            .contains("401984 bytes"));
        assert!(dequantise::<128>(&bytes, Shape::plain(8)).is_err());
        assert!(dequantise::<256>(&bytes[..bytes.len() - 64], Shape::plain(8)).is_err());
        let two_king_buckets = Shape {
            king_buckets: 2,
            buckets: 8,
            factoriser: false,
        };
        let bytes = vec![0; (2 * Model::<256>::param_count(two_king_buckets)).div_ceil(64) * 64];
        assert!(dequantise::<256>(&bytes, two_king_buckets)
            .unwrap_err()
            .contains("no king bucket map"));
    }
}
