//! The hand-written backward pass against finite differences of an independent f64 forward pass.

use trainer::features::Features;
use trainer::model::{Gradients, Model};
use trainer::synthetic;

const N: usize = 64;
const INPUTS: usize = 768;

/// Σ (sigmoid(output) − target)² over the positions, in f64, written from the definition.
fn reference_loss(params: &[f64], positions: &[(Features, f32)]) -> f64 {
    let screlu = |x: f64| x.clamp(0.0, 1.0).powi(2);
    let hidden = |active: &[u16]| -> Vec<f64> {
        (0..N)
            .map(|i| {
                params[INPUTS * N + i]
                    + active
                        .iter()
                        .map(|&f| params[f as usize * N + i])
                        .sum::<f64>()
            })
            .collect()
    };
    positions
        .iter()
        .map(|(features, target)| {
            let (stm, ntm) = (hidden(features.stm()), hidden(features.ntm()));
            let out_weights = &params[INPUTS * N + N..];
            let output = (0..N)
                .map(|i| screlu(stm[i]) * out_weights[i] + screlu(ntm[i]) * out_weights[N + i])
                .sum::<f64>()
                + params[INPUTS * N + 3 * N];
            let prediction = 1.0 / (1.0 + (-output).exp());
            (prediction - f64::from(*target)).powi(2)
        })
        .sum()
}

#[test]
fn backprop_matches_finite_differences() {
    // Scaled up so many hidden units sit inside SCReLU's curved range and the output is not tiny.
    let model = synthetic::teacher(3);
    let mut positions = Vec::new();
    synthetic::random_walk(12, 5, |board| {
        let record = synthetic::to_record(board);
        let target = (positions.len() as f32 * 0.37) % 1.0;
        positions.push((Features::of(&record), target));
    });

    let mut grads = Gradients::<N>::new();
    for (features, target) in &positions {
        model.backprop(features, *target, &mut grads);
    }

    let params: Vec<f64> = model.params.iter().map(|&w| f64::from(w)).collect();
    let touched_row = positions[0].0.stm()[0] as usize;
    let mut checked = 0;
    let candidates = (0..N)
        .map(|i| touched_row * N + i)
        .chain(Model::<N>::FEATURE_BIAS..Model::<N>::LEN)
        .chain([positions[3].0.ntm()[5] as usize * N + 7]);
    for index in candidates {
        let h = 1e-5;
        let mut plus = params.clone();
        plus[index] += h;
        let mut minus = params.clone();
        minus[index] -= h;
        let numeric =
            (reference_loss(&plus, &positions) - reference_loss(&minus, &positions)) / (2.0 * h);
        let analytic = f64::from(grads.values[index]);
        let tolerance = 1e-4 + 2e-3 * numeric.abs();
        assert!(
            (numeric - analytic).abs() < tolerance,
            "parameter {index}: numeric {numeric}, analytic {analytic}"
        );
        checked += 1;
    }
    assert!(checked > 4 * N);
    let nonzero = grads.values.iter().filter(|g| **g != 0.0).count();
    assert!(
        nonzero > 2 * N,
        "the check must not pass on an all-zero gradient"
    );
    assert!(grads.touched[touched_row]);
}

#[test]
fn clearing_resets_touched_rows_and_dense_layers() {
    let model = synthetic::teacher(1);
    let mut grads = Gradients::<N>::new();
    synthetic::random_walk(3, 1, |board| {
        model.backprop(&Features::of(&synthetic::to_record(board)), 0.3, &mut grads);
    });
    grads.clear();
    assert!(grads.values.iter().all(|&g| g == 0.0));
    assert!(grads.touched.iter().all(|&t| !t));
}
