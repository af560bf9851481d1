//! From float weights to the engine's `Network`, as bullet saves it: each layer scaled by its
//! quantisation factor and rounded to nearest (feature layer ×QA, output weights ×QB, output
//! bias ×QA·QB), clamped into i16.

use patina::nnue::{Network, HIDDEN, INPUTS, QA, QB};

use crate::model::Model;

pub fn quantise(model: &Model<HIDDEN>) -> Box<Network> {
    type M = Model<HIDDEN>;
    let p = &model.params;
    let mut net: Box<Network> = bytemuck::zeroed_box();
    for (row, weights) in net
        .feature_weights
        .iter_mut()
        .zip(p[..INPUTS * HIDDEN].chunks_exact(HIDDEN))
    {
        quantise_into(row, weights, QA);
    }
    quantise_into(
        &mut net.feature_bias,
        &p[M::FEATURE_BIAS..M::OUTPUT_WEIGHTS],
        QA,
    );
    quantise_into(
        &mut net.output_weights,
        &p[M::OUTPUT_WEIGHTS..M::OUTPUT_BIAS],
        QB,
    );
    net.output_bias = quantise_one(p[M::OUTPUT_BIAS], QA * QB);
    net
}

/// The float copy: every parameter as little-endian f32, in the order of the quantised file
/// (feature weights row by row, feature bias, output weights, output bias), without padding.
pub fn float_bytes<const N: usize>(model: &Model<N>) -> Vec<u8> {
    model.params.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn quantise_into(out: &mut [i16], weights: &[f32], scale: i32) {
    out.iter_mut()
        .zip(weights)
        .for_each(|(q, &w)| *q = quantise_one(w, scale));
}

fn quantise_one(weight: f32, scale: i32) -> i16 {
    (weight * scale as f32)
        .round()
        .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_and_clamps() {
        assert_eq!(quantise_one(0.5 / 255.0 + 1e-6, 255), 1);
        assert_eq!(quantise_one(-0.6 / 64.0, 64), -1);
        assert_eq!(quantise_one(3.0, 255 * 64), i16::MAX);
        assert_eq!(quantise_one(-3.0, 255 * 64), i16::MIN);
    }

    #[test]
    fn layers_land_where_the_engine_reads_them() {
        let mut model = Model::<HIDDEN>::zeroed();
        model.params[3 * HIDDEN + 5] = 1.0;
        model.params[Model::<HIDDEN>::FEATURE_BIAS + 1] = -1.0;
        model.params[Model::<HIDDEN>::OUTPUT_WEIGHTS + HIDDEN] = 0.5;
        model.params[Model::<HIDDEN>::OUTPUT_BIAS] = 0.25;
        let net = quantise(&model);
        assert_eq!(net.feature_weights[3][5], 255);
        assert_eq!(net.feature_bias[1], -255);
        assert_eq!(net.output_weights[HIDDEN], 32);
        assert_eq!(net.output_bias, 4080);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap().output_bias, 4080);
        assert_eq!(float_bytes(&model).len(), 4 * Model::<HIDDEN>::LEN);
    }
}
