//! From float weights to a net file as bullet saves it: each layer scaled by its
//! quantisation factor and rounded to nearest (feature layer ×QA, output weights ×QB, output
//! biases ×QA·QB), clamped into i16. With output buckets the output weights are bucket by
//! bucket, as bullet writes `l1w` with `.transpose()`.

use patina::nnue::{check_ranges, NetworkError, QA, QB};

use crate::model::Model;

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
    let params = quantised_params(model);
    check_ranges(
        &params[..Model::<N>::FEATURE_BIAS],
        &params[Model::<N>::FEATURE_BIAS..Model::<N>::OUTPUT_WEIGHTS],
        &params[Model::<N>::OUTPUT_WEIGHTS..Model::<N>::output_bias(model.buckets)],
    )
}

fn quantised_params<const N: usize>(model: &Model<N>) -> Vec<i16> {
    model
        .params
        .iter()
        .enumerate()
        .map(|(i, &w)| quantise_one(w, scale::<N>(i, model.buckets)))
        .collect()
}

/// The quantisation factor of parameter `index` (in `Model::params` order).
fn scale<const N: usize>(index: usize, buckets: usize) -> i32 {
    match index {
        i if i < Model::<N>::OUTPUT_WEIGHTS => QA,
        i if i < Model::<N>::output_bias(buckets) => QB,
        _ => QA * QB,
    }
}

/// The model a net file holds, each weight its integer over its layer's factor: `quantise`
/// gives the same weights back. Refused unless the file is one of N hidden neurons and
/// `buckets` output buckets, padded as `quantise` or bullet pads it.
pub fn dequantise<const N: usize>(bytes: &[u8], buckets: usize) -> Result<Model<N>, String> {
    let count = Model::<N>::param_count(buckets);
    let size = (2 * count).div_ceil(64) * 64;
    if bytes.len() != size {
        return Err(format!(
            "{} bytes, not the {size} of a net with N = {N} and {buckets} output bucket(s)",
            bytes.len()
        ));
    }
    let params = bytes[..2 * count]
        .chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| {
            let weight = i16::from_le_bytes([pair[0], pair[1]]);
            (f64::from(weight) / f64::from(scale::<N>(i, buckets))) as f32
        })
        .collect();
    Ok(Model::from_params(params, buckets).expect("the parameter count was checked"))
}

/// The float copy: every parameter as little-endian f32, in the order of the quantised file
/// (feature weights row by row, feature bias, output weights, output biases), without padding.
pub fn float_bytes<const N: usize>(model: &Model<N>) -> Vec<u8> {
    model.params.iter().flat_map(|w| w.to_le_bytes()).collect()
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
        for buckets in [1, 8] {
            let mut model = Model::<HIDDEN>::zeroed(buckets);
            let last = buckets - 1;
            model.params[3 * HIDDEN + 5] = 1.0;
            model.params[Model::<HIDDEN>::FEATURE_BIAS + 1] = -1.0;
            model.params[Model::<HIDDEN>::OUTPUT_WEIGHTS + 2 * HIDDEN * last + HIDDEN] = 0.5;
            model.params[Model::<HIDDEN>::output_bias(buckets) + last] = 0.25;
            let net = Network::from_bytes(&quantise(&model)).unwrap();
            assert_eq!(net.buckets(), buckets);
            assert_eq!(net.feature_weights[3][5], 255);
            assert_eq!(net.feature_bias[1], -255);
            assert_eq!(net.output_weights[last][HIDDEN], 32);
            assert_eq!(net.output_bias[last], 4080);
            assert_eq!(
                float_bytes(&model).len(),
                4 * Model::<HIDDEN>::param_count(buckets)
            );
        }
    }

    /// With every output weight at the clip, N = 256 still fits the engine's i32 dot product;
    /// N = 512 does not, and the engine's check says so before anyone loads the file.
    #[test]
    fn wide_nets_are_vetted_by_the_engines_checks() {
        fn saturated<const N: usize>() -> Model<N> {
            let mut model = Model::<N>::zeroed(1);
            model.params[Model::<N>::OUTPUT_WEIGHTS..Model::<N>::output_bias(1)].fill(CLIP);
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
        let mut bucketed = Model::<512>::zeroed(8);
        let half = Model::<512>::OUTPUT_WEIGHTS + (2 * 5 + 1) * 512;
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
        let mut model = Model::<256>::zeroed(1);
        model.params[Model::<256>::output_bias(1)] = 0.25;
        let bytes = quantise(&model);
        assert_eq!(bytes.len(), 394_816);
        assert_eq!(&bytes[394_752..394_754], &4080i16.to_le_bytes());
        assert!(bytes[394_754..].iter().all(|&b| b == 0));

        let mut model = Model::<256>::zeroed(8);
        model.params[Model::<256>::output_bias(8) + 7] = 0.25;
        let bytes = quantise(&model);
        assert_eq!(bytes.len(), 401_984);
        assert_eq!(&bytes[401_934..401_936], &4080i16.to_le_bytes());
        assert!(bytes[401_936..].iter().all(|&b| b == 0));
    }

    /// A net read back for a fine-tune quantises to its own bytes, bullet's padding aside; a
    /// file of another shape is refused.
    #[test]
    fn a_dequantised_net_quantises_back_to_itself() {
        for buckets in [1, 8] {
            let bytes = quantise(&Model::<256>::random(3, buckets));
            assert!(bytes.iter().any(|&b| b != 0));
            let model = dequantise::<256>(&bytes, buckets).unwrap();
            assert_eq!(quantise(&model), bytes);
        }
        let embedded = Network::embedded().to_bytes();
        let buckets = Network::embedded().buckets();
        let model = dequantise::<HIDDEN>(&embedded, buckets).unwrap();
        let count = 2 * Model::<HIDDEN>::param_count(buckets);
        assert_eq!(quantise(&model)[..count], embedded[..count]);

        let bytes = quantise(&Model::<256>::zeroed(8));
        assert!(dequantise::<256>(&bytes, 1)
            .unwrap_err()
            .contains("401984 bytes"));
        assert!(dequantise::<128>(&bytes, 8).is_err());
        assert!(dequantise::<256>(&bytes[..bytes.len() - 64], 8).is_err());
    }
}
