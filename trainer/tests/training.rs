//! Training end to end on generated data: the loss falls in either precision, runs are
//! reproducible, the engine reads the quantised net and agrees with the float net (with output
//! buckets too, bucket by bucket, and with king buckets), and NaN stops training.

use patina::nnue::{AccumulatorStack, Network, HIDDEN, QA, QB, SCALE};
use patina::{placement_field, Board, Color};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use trainer::backprop::BlockedWeights;
use trainer::error::TrainerError;
use trainer::features::{Features, InputLayout};
use trainer::loader::Dataset;
use trainer::model::{Model, Shape};
use trainer::precision::{Bf16Rows, F32Rows, RowFormat};
use trainer::quantise::quantise;
use trainer::shuffle::Split;
use trainer::synthetic;
use trainer::train::Trainer;

const BATCH: usize = 512;

fn trained<P: RowFormat>(
    data: &Dataset,
    steps: usize,
    threads: usize,
) -> (Model<HIDDEN>, Vec<f64>, f64, f64) {
    let split = Split::new(data.len(), 2000, 11).unwrap();
    let mut trainer = Trainer::<HIDDEN, P>::new(
        Model::random(11, Shape::plain(1)).unwrap(),
        data,
        split,
        BATCH,
        threads,
    )
    .unwrap();
    let before = trainer.validation_loss(0.3).unwrap();
    let losses = (0..steps)
        .map(|_| trainer.train_batch(0.002, 0.3).unwrap())
        .collect();
    let after = trainer.validation_loss(0.3).unwrap();
    assert!(
        *trainer.blocked() == BlockedWeights::new(trainer.model()),
        "the backward pass must read the weights the optimiser wrote"
    );
    (trainer.model().clone(), losses, before, after)
}

/// Training lowers the loss in either precision, and the engine, loading the quantised net
/// trained as bullet would (f32), agrees with the trainer's float forward pass.
#[test]
fn loss_falls_and_the_engine_agrees_with_the_float_net() {
    let data = Dataset::from_boards(synthetic::dataset(40_000, 4));
    loss_falls::<Bf16Rows>(&data);
    let model = loss_falls::<F32Rows>(&data);
    let net = Network::from_bytes(&quantise(&model)).unwrap();
    let (mut compared, mut worst, mut total) = (0, 0.0f32, 0.0f32);
    synthetic::random_walk(300, 99, |board| {
        let board = Board::from_fen(&board.to_fen()).unwrap();
        let float_cp = model.forward(&Features::of(
            &synthetic::to_record(&board),
            &InputLayout::plain(),
        )) * SCALE as f32;
        let engine_cp = AccumulatorStack::new(&net, &board).evaluate(&net, board.side_to_move());
        let difference = (float_cp - engine_cp as f32).abs();
        worst = worst.max(difference);
        total += difference;
        compared += 1;
    });
    assert_eq!(compared, 300);
    // Rounding output weights to 1/QB moves a net whose hidden units are often saturated by a
    // few centipawns, occasionally ten or so: at N = 128 the mean was 2.6 and 3.6 cp for two
    // shuffles of this data, at N = 512 5.7 cp (worst 19.8). The 2N rounding errors add up like
    // independent ones, so the tolerance grows as √N; a layout or scaling mistake costs hundreds.
    let mean = total / compared as f32;
    let width_factor = (HIDDEN as f32 / 128.0).sqrt();
    eprintln!("engine vs float: mean {mean:.2} cp, worst {worst:.2} cp");
    assert!(
        mean <= 5.0 * width_factor && worst <= 20.0 * width_factor,
        "engine and float net differ by {mean} cp on average, {worst} at worst"
    );
}

/// Positions of every piece count from 2 to 32: both kings of the start position and a random
/// choice of its other pieces, on their start squares. From there no piece attacks a king,
/// whatever else is gone, so every such position is legal.
fn thinned_start_positions(per_count: usize, seed: u64) -> Vec<Board> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let start: Vec<(usize, char)> = "RNBQKBNRPPPPPPPP"
        .chars()
        .enumerate()
        .chain(
            "pppppppprnbqkbnr"
                .chars()
                .enumerate()
                .map(|(i, c)| (i + 48, c)),
        )
        .collect();
    let mut boards = Vec::new();
    for pieces in 2..=32 {
        for k in 0..per_count {
            let mut others: Vec<_> = start
                .iter()
                .filter(|(_, c)| *c != 'K' && *c != 'k')
                .collect();
            while others.len() > pieces - 2 {
                others.swap_remove((rng.next_u64() % others.len() as u64) as usize);
            }
            let mut squares = [None; 64];
            for &(square, piece) in others.into_iter().chain([&(4, 'K'), &(60, 'k')]) {
                squares[square] = Some(piece);
            }
            let side = if k % 2 == 0 { "w" } else { "b" };
            let board =
                Board::from_fen(&format!("{} {side} - - 0 1", placement_field(&squares))).unwrap();
            assert_eq!(board.occupied().count() as usize, pieces);
            boards.push(board);
        }
    }
    boards
}

/// The model's one bucket as a net without buckets: the float output through that bucket.
fn only_bucket(model: &Model<HIDDEN>, bucket: usize) -> Model<HIDDEN> {
    let weights = Model::<HIDDEN>::output_weights(model.shape()) + 2 * HIDDEN * bucket;
    let mut params = model.params[..Model::<HIDDEN>::output_weights(model.shape())].to_vec();
    params.extend_from_slice(&model.params[weights..weights + 2 * HIDDEN]);
    params.push(model.params[Model::<HIDDEN>::output_bias(model.shape()) + bucket]);
    Model::from_params(params, Shape::plain(1)).unwrap()
}

/// `model` with every weight a multiple of its quantisation step, so that quantising it rounds
/// nothing: the factoriser's rows too, whose sum with a bucket's is then on the grid as well.
fn on_quantisation_grid(mut model: Model<HIDDEN>) -> Model<HIDDEN> {
    let shape = model.shape();
    let output_weights = Model::<HIDDEN>::output_weights(shape);
    let output_bias = Model::<HIDDEN>::output_bias(shape);
    for (i, w) in model.params.iter_mut().enumerate() {
        let scale = match i {
            i if i < output_weights => QA,
            i if i < output_bias => QB,
            _ => QA * QB,
        } as f32;
        *w = (*w * scale).round() / scale;
    }
    model
}

/// A net with 8 output buckets, quantised by the trainer and loaded by the engine: the engine's
/// evaluation equals the float forward pass, bucket by bucket, and is far from what any other
/// bucket would give, so each piece count reads its own bucket. The weights are put on the
/// quantisation grid first, so that what is left is the engine's integer division, under a
/// centipawn or two, rather than rounding (tens of centipawns for this teacher), which would
/// hide a small error.
#[test]
fn the_engine_agrees_with_the_float_net_in_every_bucket() {
    const BUCKETS: usize = 8;
    let model = on_quantisation_grid(synthetic::teacher::<HIDDEN>(17, Shape::plain(BUCKETS)));
    let net = Network::from_bytes(&quantise(&model)).unwrap();
    assert_eq!(net.buckets(), BUCKETS);
    let mut worst = [0.0f32; BUCKETS];
    let (mut other_buckets, mut compared) = (0.0f32, 0);
    for board in thinned_start_positions(6, 3) {
        let features = Features::of(&synthetic::to_record(&board), &InputLayout::plain());
        let bucket = (board.occupied().count() as usize - 2) / 4;
        assert_eq!(model.bucket(&features), bucket);
        let float_cp = model.forward(&features) * SCALE as f32;
        let engine_cp = AccumulatorStack::new(&net, &board).evaluate(&net, board.side_to_move());
        worst[bucket] = worst[bucket].max((float_cp - engine_cp as f32).abs());
        for other in (0..BUCKETS).filter(|&b| b != bucket) {
            let other_cp = only_bucket(&model, other).forward(&features) * SCALE as f32;
            other_buckets += (other_cp - engine_cp as f32).abs();
            compared += 1;
        }
    }
    let other_buckets = other_buckets / compared as f32;
    eprintln!("engine vs float, worst per bucket: {worst:.2?} cp; other buckets {other_buckets:.1} cp away on average");
    assert!(worst.iter().all(|&w| w <= 2.0), "{worst:?}");
    assert!(other_buckets > 50.0, "{other_buckets}");
}

/// King-bucketed nets, with a factoriser or without, quantised by the trainer (the factoriser
/// merged into every bucket) and loaded by the engine: along random games, where the kings visit
/// every view of the 4-bucket map (its buckets, mirrored or not), the engine's evaluation from
/// the board equals the float forward pass from the training record, so both read each side's
/// king square and inputs from the same side. (The two share the map itself, which the features'
/// unit tests check against bullet's.)
#[test]
fn the_engine_agrees_with_king_bucketed_float_nets() {
    let shapes = [
        Shape {
            king_buckets: 4,
            buckets: 8,
            factoriser: true,
        },
        Shape {
            king_buckets: 16,
            buckets: 1,
            factoriser: false,
        },
    ];
    for shape in shapes {
        let model = on_quantisation_grid(synthetic::teacher::<HIDDEN>(23, shape));
        let net = Network::from_bytes(&quantise(&model)).unwrap();
        assert_eq!(net.king_buckets.count(), shape.king_buckets);
        let mut views = vec![0; net.king_buckets.view_count()];
        let (mut worst, mut compared) = (0.0f32, 0);
        synthetic::random_walk(3000, 29, |board| {
            for color in [Color::White, Color::Black] {
                let view = net.king_buckets.view(color, board.king_square(color));
                views[view.number()] += 1;
            }
            let features = Features::of(&synthetic::to_record(board), &model.inputs);
            let float_cp = model.forward(&features) * SCALE as f32;
            let engine_cp = AccumulatorStack::new(&net, board).evaluate(&net, board.side_to_move());
            worst = worst.max((float_cp - engine_cp as f32).abs());
            compared += 1;
        });
        assert_eq!(compared, 3000);
        eprintln!("{shape:?}: worst {worst:.2} cp; positions per view {views:?}");
        assert!(
            worst <= 2.0,
            "{shape:?}: the engine is {worst} cp off the float net"
        );
        if shape.king_buckets == 4 {
            assert!(views.iter().all(|&n| n > 0), "views visited {views:?}");
        }
    }
}

fn loss_falls<P: RowFormat>(data: &Dataset) -> Model<HIDDEN> {
    let (model, losses, before, after) = trained::<P>(data, 400, 2);
    let early = losses[..10].iter().sum::<f64>() / 10.0;
    let late = losses[losses.len() - 10..].iter().sum::<f64>() / 10.0;
    assert!(late < 0.3 * early, "training loss {early} → {late}");
    // The held-out positions come from walks never trained on: they generalise less far.
    assert!(after < 0.5 * before, "validation loss {before} → {after}");
    model
}

#[test]
fn same_seed_and_threads_give_identical_weights() {
    identical_weights::<Bf16Rows>();
    identical_weights::<F32Rows>();
}

fn identical_weights<P: RowFormat>() {
    let data = Dataset::from_boards(synthetic::dataset(5_000, 2));
    let (a, ..) = trained::<P>(&data, 15, 2);
    let (b, ..) = trained::<P>(&data, 15, 2);
    assert!(a
        .params
        .iter()
        .zip(&b.params)
        .all(|(x, y)| x.to_bits() == y.to_bits()));
}

#[test]
fn a_nan_loss_is_an_error_not_a_panic() {
    let data = Dataset::from_boards(synthetic::dataset(1_000, 2));
    let mut model = Model::<HIDDEN>::random(0, Shape::plain(1)).unwrap();
    model.params[Model::<HIDDEN>::output_bias(Shape::plain(1))] = f32::NAN;
    let split = Split::new(data.len(), 0, 0).unwrap();
    let mut trainer = Trainer::<HIDDEN, Bf16Rows>::new(model, &data, split, 64, 2).unwrap();
    assert!(matches!(
        trainer.train_batch(0.001, 0.5),
        Err(TrainerError::NonFiniteLoss { step: 0, .. })
    ));
}
