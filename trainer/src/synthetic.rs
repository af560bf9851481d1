//! Generated training data for tests and benchmarks: positions reached by random legal moves
//! from the start position, labelled by a fixed random "teacher" network of the same family,
//! so a student can learn the labels exactly and the loss has somewhere to go.

use bulletformat::ChessBoard;
use patina::Board;
use patina::{Color, PieceType};
use rand_xoshiro::{
    rand_core::{RngCore, SeedableRng},
    Xoshiro256PlusPlus,
};

use crate::features::{sigmoid, Features};
use crate::model::{Model, Shape};
use patina::nnue::SCALE;

/// Games end (and a new one starts) after this many random plies at most.
const MAX_PLIES: u64 = 120;

/// A teacher whose evaluations spread over a few hundred centipawns: random weights scaled up
/// from their initial range so the hidden layer uses all of SCReLU's range.
pub fn teacher<const N: usize>(seed: u64, shape: Shape) -> Model<N> {
    let mut teacher = Model::<N>::random(seed, shape).expect("a shape with a bucket map");
    let (features, output) = teacher
        .params
        .split_at_mut(Model::<N>::output_weights(shape));
    features.iter_mut().for_each(|w| *w *= 8.0);
    output.iter_mut().for_each(|w| *w *= 4.0);
    teacher
}

/// Visits `count` positions met along random games, in game order.
pub fn random_walk(count: usize, seed: u64, mut visit: impl FnMut(&Board)) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut board = Board::startpos();
    let mut plies = 0;
    for _ in 0..count {
        loop {
            let moves = board.legal_moves();
            if moves.is_empty() || plies == MAX_PLIES || board.is_draw() {
                board = Board::startpos();
                plies = 0;
                continue;
            }
            board.make_move(moves[(rng.next_u64() % moves.len() as u64) as usize]);
            plies += 1;
            break;
        }
        visit(&board);
    }
}

/// `board` as a bulletformat record with the teacher's score and a result derived from it.
pub fn label(board: &Board, teacher: &Model<64>) -> ChessBoard {
    let mut record = to_record(board);
    let output = teacher.forward(&Features::of(&record, &teacher.inputs));
    let score = (output * SCALE as f32).round().clamp(-4000.0, 4000.0);
    record.score = score as i16;
    let win_probability = sigmoid(score / SCALE as f32);
    record.result = match win_probability {
        p if p > 0.7 => 2,
        p if p < 0.3 => 0,
        _ => 1,
    };
    record
}

/// `count` labelled positions.
pub fn dataset(count: usize, seed: u64) -> Vec<ChessBoard> {
    let teacher = teacher::<64>(seed ^ 0x07EA_C4E5, Shape::plain(1));
    let mut records = Vec::with_capacity(count);
    random_walk(count, seed, |board| records.push(label(board, &teacher)));
    records
}

/// Through bulletformat's own constructor, which flips to the side to move's view.
pub fn to_record(board: &Board) -> ChessBoard {
    let mut bitboards = [0; 8];
    bitboards[0] = board.colored(Color::White).0;
    bitboards[1] = board.colored(Color::Black).0;
    for piece_type in PieceType::ALL {
        bitboards[2 + piece_type.index()] = board.pieces(piece_type).0;
    }
    let black = usize::from(board.side_to_move() == Color::Black);
    ChessBoard::from_raw(bitboards, black, 0, 0.5)
        .expect("every occupied square of a legal board has a piece")
}
