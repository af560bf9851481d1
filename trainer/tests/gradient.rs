//! The hand-written backward pass against finite differences of an independent f64 forward pass
//! (in f32, bullet's arithmetic), and the bf16 pass against the f32 one.

use trainer::backprop::{backprop, BlockedWeights, Gradients, CHUNK};
use trainer::features::{Features, InputLayout};
use trainer::model::{Model, Shape};
use trainer::precision::{bf16_bits, Bf16Rows, F32Rows, RowFormat};
use trainer::synthetic;

/// Two blocks of neurons, so the block loops are exercised.
const N: usize = 128;

/// Σ (sigmoid(output) − target)² over the positions, in f64, written from the definition: the
/// output layer is the bucket's, bucket (pieces − 2) / ⌈32 / B⌉ as bullet's `MaterialCount<B>`;
/// 768 feature rows per king bucket come first, then with a factoriser 768 rows of which
/// feature f's (its king bucket's row, mirrored or not) adds row f % 768.
fn reference_loss(params: &[f64], shape: Shape, positions: &[(Features, f32)]) -> f64 {
    let bucket_rows = 768 * shape.king_buckets;
    let inputs = bucket_rows + if shape.factoriser { 768 } else { 0 };
    let buckets = shape.buckets;
    let screlu = |x: f64| x.clamp(0.0, 1.0).powi(2);
    let weight = |f: usize, i: usize| {
        let shared = if shape.factoriser {
            params[(bucket_rows + f % 768) * N + i]
        } else {
            0.0
        };
        params[f * N + i] + shared
    };
    // Only each piece's own row: the factoriser's follow from the definition above.
    let hidden = |active: &[u16]| -> Vec<f64> {
        (0..N)
            .map(|i| {
                params[inputs * N + i]
                    + active
                        .iter()
                        .map(|&f| weight(usize::from(f), i))
                        .sum::<f64>()
            })
            .collect()
    };
    positions
        .iter()
        .map(|(features, target)| {
            let pieces = features.pieces;
            let (stm, ntm) = (
                hidden(&features.stm[..pieces]),
                hidden(&features.ntm[..pieces]),
            );
            let bucket = (pieces - 2) / 32usize.div_ceil(buckets);
            let out_weights = &params[inputs * N + N + 2 * N * bucket..];
            let output = (0..N)
                .map(|i| screlu(stm[i]) * out_weights[i] + screlu(ntm[i]) * out_weights[N + i])
                .sum::<f64>()
                + params[inputs * N + N + 2 * N * buckets + bucket];
            let prediction = 1.0 / (1.0 + (-output).exp());
            (prediction - f64::from(*target)).powi(2)
        })
        .sum()
}

/// Positions from a random walk with made-up targets spread over (0, 1).
fn positions(count: usize, seed: u64) -> Vec<(Features, f32)> {
    bucketed_positions(count, seed, &InputLayout::plain())
}

fn bucketed_positions(count: usize, seed: u64, layout: &InputLayout) -> Vec<(Features, f32)> {
    let mut positions = Vec::new();
    synthetic::random_walk(count, seed, |board| {
        let target = (positions.len() as f32 * 0.37) % 1.0;
        positions.push((Features::of(&synthetic::to_record(board), layout), target));
    });
    positions
}

fn gradients<P: RowFormat>(model: &Model<N>, positions: &[(Features, f32)]) -> Gradients<N, P> {
    let mut grads = Gradients::<N, P>::new(model.shape());
    backprop(model, &BlockedWeights::new(model), positions, &mut grads);
    grads
}

#[test]
fn backprop_matches_finite_differences() {
    // Scaled up so many hidden units sit inside SCReLU's curved range and the output is not tiny.
    let model = synthetic::teacher::<N>(3, Shape::plain(1));
    finite_differences(&model, &positions(12, 5));
}

/// With 8 output buckets, over positions of several piece counts: each bucket's output weights
/// and bias get the gradients of its own positions only, and unused buckets none.
#[test]
fn bucketed_backprop_matches_finite_differences() {
    let model = synthetic::teacher::<N>(6, Shape::plain(8));
    let mut positions = positions(8, 5);
    // Thinned out to other piece counts (the net does not need legal positions).
    for (k, (features, _)) in positions.iter_mut().enumerate() {
        assert!(features.len >= 31);
        features.len = [31, 29, 22, 17, 12, 9, 6, 3][k];
        features.pieces = features.len;
    }
    let grads = gradients::<F32Rows>(&model, &positions);
    let used: Vec<usize> = positions.iter().map(|(f, _)| model.bucket(f)).collect();
    assert_eq!(used, [7, 6, 5, 3, 2, 1, 1, 0]);
    // Bucket 4 has no position: its output weights and bias get no gradient.
    let bucket_4 = Model::<N>::output_weights(model.shape()) + 2 * N * 4;
    assert!((bucket_4..bucket_4 + 2 * N).all(|i| grads.get(i) == 0.0));
    assert_eq!(grads.get(Model::<N>::output_bias(model.shape()) + 4), 0.0);
    finite_differences(&model, &positions);
}

/// With 16 king buckets: positions whose kings stand in several buckets, mirrored or not, touch
/// rows beyond the first 768, and those rows get the right gradients.
#[test]
fn king_bucketed_backprop_matches_finite_differences() {
    let model = synthetic::teacher::<N>(
        7,
        Shape {
            king_buckets: 16,
            buckets: 8,
            factoriser: false,
        },
    );
    let positions = wandering_kings(&model.inputs);
    finite_differences(&model, &positions);
}

/// Every 16th position of random games, for kings that have wandered into several buckets.
fn wandering_kings(layout: &InputLayout) -> Vec<(Features, f32)> {
    let positions: Vec<_> = bucketed_positions(400, 11, layout)
        .into_iter()
        .step_by(16)
        .collect();
    let buckets_used: std::collections::HashSet<u16> = positions
        .iter()
        .flat_map(|(f, _)| [f.stm()[0] / 768, f.ntm()[0] / 768])
        .collect();
    assert!(buckets_used.len() > 2, "{buckets_used:?}");
    positions
}

/// A factorised net of 4 king buckets with a factoriser that is not zero.
fn factorised_teacher() -> Model<N> {
    let shape = Shape {
        king_buckets: 4,
        buckets: 8,
        factoriser: true,
    };
    let mut model = synthetic::teacher::<N>(8, shape);
    // The factoriser starts at zero: give it bucket 0's weights, halved.
    let (rows, factoriser) = model.params.split_at_mut(4 * 768 * N);
    for (f, w) in factoriser[..768 * N].iter_mut().zip(&rows[..768 * N]) {
        *f = 0.5 * w;
    }
    model
}

/// The factoriser's rows get, from every position, the gradients of the bucket rows they are
/// added to.
#[test]
fn factorised_backprop_matches_finite_differences() {
    let model = factorised_teacher();
    let positions = wandering_kings(&model.inputs);
    assert!(positions.iter().all(|(f, _)| f.len == 2 * f.pieces));
    finite_differences(&model, &positions);
}

/// Merging the factoriser into the buckets, as the saved net has it, keeps every output.
#[test]
fn a_merged_factoriser_gives_the_same_outputs() {
    let model = factorised_teacher();
    let merged = model.merged();
    assert_eq!(merged.shape(), model.shape().merged());
    assert_eq!(
        merged.params.len(),
        Model::<N>::param_count(model.shape()) - 768 * N
    );
    for ((factorised, _), (plain, _)) in wandering_kings(&model.inputs)
        .iter()
        .zip(&wandering_kings(&merged.inputs))
    {
        let (a, b) = (model.forward(factorised), merged.forward(plain));
        assert!((a - b).abs() < 1e-4 * a.abs().max(1.0), "{a} vs {b}");
    }
    // And a net given a factoriser at zero computes what it did.
    let plain = merged.into_owned();
    let zeroed = plain.clone().with_factoriser();
    for ((with, _), (without, _)) in wandering_kings(&zeroed.inputs)
        .iter()
        .zip(&wandering_kings(&plain.inputs))
    {
        assert_eq!(zeroed.forward(with), plain.forward(without));
    }
}

fn finite_differences(model: &Model<N>, positions: &[(Features, f32)]) {
    let grads = gradients::<F32Rows>(model, positions);
    let params: Vec<f64> = model.params.iter().map(|&w| f64::from(w)).collect();
    let touched_row = positions[0].0.stm()[0] as usize;
    let mut checked = 0;
    let candidates = (0..N)
        .map(|i| touched_row * N + i)
        .chain(Model::<N>::feature_bias(model.shape())..Model::<N>::param_count(model.shape()))
        .chain([positions[3].0.ntm()[5] as usize * N + 7])
        // The last active row: a factoriser's, if there is one.
        .chain([positions[1].0.stm()[positions[1].0.len - 1] as usize * N + 9]);
    for index in candidates {
        let h = 1e-5;
        let mut plus = params.clone();
        plus[index] += h;
        let mut minus = params.clone();
        minus[index] -= h;
        let loss = |params: &[f64]| reference_loss(params, model.shape(), positions);
        let numeric = (loss(&plus) - loss(&minus)) / (2.0 * h);
        let analytic = f64::from(grads.get(index));
        let tolerance = 1e-4 + 2e-3 * numeric.abs();
        assert!(
            (numeric - analytic).abs() < tolerance,
            "parameter {index}: numeric {numeric}, analytic {analytic}"
        );
        checked += 1;
    }
    assert!(checked > 4 * N);
    let nonzero = all(model, &grads).iter().filter(|g| **g != 0.0).count();
    assert!(
        nonzero > 2 * N,
        "the check must not pass on an all-zero gradient"
    );
    assert!(grads.touched[touched_row]);
}

/// With weights that bf16 holds exactly, the bf16 pass sums the same accumulators as the f32
/// one, so every dense gradient is identical; a feature row's gradient differs only by the
/// rounding of each position's hidden gradient. One rounding is off by at most 2⁻⁸ of the value
/// (bf16 keeps 8 significant bits), so the error's norm cannot exceed 2⁻⁸ of the sum of the
/// terms' magnitudes; with errors of both signs it stays far below (0.07 % here).
#[test]
fn bf16_gradients_are_the_f32_ones_up_to_rounding() {
    let mut model = synthetic::teacher::<N>(3, Shape::plain(1));
    for w in &mut model.params {
        *w = f32::from_bits(bf16_bits(*w) << 16);
    }
    let positions = positions(2 * CHUNK, 5);
    let (wide, narrow) = (
        gradients::<F32Rows>(&model, &positions),
        gradients::<Bf16Rows>(&model, &positions),
    );
    assert_eq!(wide.touched, narrow.touched);
    let (wide, narrow) = (all(&model, &wide), all(&model, &narrow));
    let dense = Model::<N>::feature_bias(model.shape());
    assert_eq!(wide[dense..], narrow[dense..]);
    let norm =
        |v: &mut dyn Iterator<Item = f32>| v.map(|x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    let error = norm(
        &mut wide[..dense]
            .iter()
            .zip(&narrow[..dense])
            .map(|(a, b)| a - b),
    );
    let size = norm(&mut wide[..dense].iter().copied());
    assert!(error > 0.0, "bf16 must actually round");
    assert!(
        error < 2f64.powi(-8) * size,
        "relative error {}",
        error / size
    );
}

/// On weights as training leaves them (not bf16 values), the gradient stays close to f32's.
#[test]
fn bf16_gradients_stay_close_on_arbitrary_weights() {
    let model = synthetic::teacher::<N>(4, Shape::plain(1));
    let positions = positions(2 * CHUNK, 6);
    let (wide, narrow) = (
        all(&model, &gradients::<F32Rows>(&model, &positions)),
        all(&model, &gradients::<Bf16Rows>(&model, &positions)),
    );
    let error: f64 = wide
        .iter()
        .zip(&narrow)
        .map(|(a, b)| f64::from(a - b).powi(2))
        .sum();
    let size: f64 = wide.iter().map(|a| f64::from(*a).powi(2)).sum();
    let relative = (error / size).sqrt();
    assert!(
        relative > 0.0 && relative < 0.01,
        "relative error {relative}"
    );
}

#[test]
fn clearing_resets_touched_rows_and_dense_layers() {
    clearing_resets::<F32Rows>();
    clearing_resets::<Bf16Rows>();
}

fn clearing_resets<P: RowFormat>() {
    let model = synthetic::teacher::<N>(1, Shape::plain(8));
    let weights = BlockedWeights::new(&model);
    let mut grads = Gradients::<N, P>::new(Shape::plain(8));
    synthetic::random_walk(3, 1, |board| {
        let position = (
            Features::of(&synthetic::to_record(board), &InputLayout::plain()),
            0.3,
        );
        backprop(&model, &weights, &[position], &mut grads);
    });
    assert!(all(&model, &grads).iter().any(|&g| g != 0.0));
    grads.clear();
    assert!(all(&model, &grads).iter().all(|&g| g == 0.0));
    assert!(grads.touched.iter().all(|&t| !t));
}

#[test]
fn chunked_backprop_sums_the_per_position_gradients() {
    chunked_backprop_sums::<F32Rows>();
    chunked_backprop_sums::<Bf16Rows>();
}

fn chunked_backprop_sums<P: RowFormat>() {
    // With buckets: a chunk's positions spread over several.
    let model = synthetic::teacher::<N>(2, Shape::plain(8));
    let mut positions = Vec::new();
    // More than one chunk, ending in a partial one.
    synthetic::random_walk(2 * CHUNK + 37, 9, |board| {
        let target = (positions.len() as f32 * 0.61) % 1.0;
        positions.push((
            Features::of(&synthetic::to_record(board), &InputLayout::plain()),
            target,
        ));
    });
    let weights = BlockedWeights::new(&model);
    let mut together = Gradients::<N, P>::new(Shape::plain(8));
    let loss_together = backprop(&model, &weights, &positions, &mut together);
    let mut one_by_one = Gradients::<N, P>::new(Shape::plain(8));
    let loss_one_by_one: f64 = positions
        .iter()
        .map(|position| {
            backprop(
                &model,
                &weights,
                std::slice::from_ref(position),
                &mut one_by_one,
            )
        })
        .sum();
    assert!((loss_together - loss_one_by_one).abs() < 1e-6 * loss_one_by_one);
    assert_eq!(together.touched, one_by_one.touched);
    let (together, one_by_one) = (all(&model, &together), all(&model, &one_by_one));
    let scale = one_by_one.iter().fold(0.0f32, |m, g| m.max(g.abs()));
    assert!(scale > 0.0);
    for (i, (a, b)) in together.iter().zip(&one_by_one).enumerate() {
        assert!((a - b).abs() <= 1e-4 * scale, "parameter {i}: {a} vs {b}");
    }
}

/// Every parameter's gradient, in `Model::params` order.
fn all<P: RowFormat>(model: &Model<N>, grads: &Gradients<N, P>) -> Vec<f32> {
    (0..model.params.len()).map(|i| grads.get(i)).collect()
}
