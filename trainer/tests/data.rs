//! Reading data: bulletformat round trips, viriformat unpacking, and clear errors on bad files.

mod common;

use std::path::{Path, PathBuf};

use bulletformat::ChessBoard;

use common::temp_dir;
use datagen::gamefile::ReadError;
use patina::nnue::InputView;
use patina::Board;
use trainer::error::TrainerError;
use trainer::features::{Features, InputLayout};
use trainer::loader::{read_viriformat, write_bulletformat, Dataset};
use trainer::shuffle::write_shuffled;
use trainer::synthetic;
use viriformat::chess::board::{Board as ViriBoard, GameOutcome, WinType};
use viriformat::dataformat::{Filter, Game};

fn open(path: &PathBuf) -> Result<Dataset, TrainerError> {
    Dataset::open(std::slice::from_ref(path), &[], &Filter::default())
}

/// The first 300 boards as `a.bin` and the rest as `b.bin` in `dir`.
fn write_in_two_files(dir: &Path, boards: &[ChessBoard]) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
    write_bulletformat(&a, &boards[..300]).unwrap();
    write_bulletformat(&b, &boards[300..]).unwrap();
    (a, b)
}

#[test]
fn bulletformat_round_trips() {
    let dir = temp_dir("roundtrip");
    let boards = synthetic::dataset(500, 9);
    let (a, b) = write_in_two_files(&dir, &boards);
    let data = Dataset::open(&[a, b], &[], &Filter::default()).unwrap();
    assert_eq!(data.len(), 500);
    for (i, board) in boards.iter().enumerate() {
        assert_eq!(data.get(i as u64), *board);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pre_shuffle_writes_every_record_once_in_a_seeded_order() {
    let dir = temp_dir("shuffle");
    let (a, b) = write_in_two_files(&dir, &synthetic::dataset(500, 4));
    let data = Dataset::open(&[a.clone(), b.clone()], &[], &Filter::default()).unwrap();
    let records = |path: &PathBuf| -> Vec<Vec<u8>> {
        std::fs::read(path)
            .unwrap()
            .chunks(32)
            .map(<[u8]>::to_vec)
            .collect()
    };
    let mut input = records(&a);
    input.extend(records(&b));

    let shuffled = |seed, name| {
        let out = dir.join(name);
        write_shuffled(&data, seed, &out).unwrap();
        records(&out)
    };
    let first = shuffled(7, "seven.bin");
    assert_eq!(first, shuffled(7, "again.bin"), "same seed, same order");
    assert_ne!(
        first,
        shuffled(8, "eight.bin"),
        "another seed, another order"
    );
    assert_ne!(first, input);
    let in_place = first.iter().zip(&input).filter(|(x, y)| x == y).count();
    assert!(in_place < 10, "{in_place} of 500 records kept their place");
    let (mut sorted_out, mut sorted_in) = (first, input);
    sorted_out.sort();
    sorted_in.sort();
    assert_eq!(sorted_out, sorted_in, "every record exactly once");
    let leftovers = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("partial".as_ref()))
        .count();
    assert_eq!(leftovers, 0, "no temporary file is left behind");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_bulletformat_files_are_errors() {
    let dir = temp_dir("bad");
    let path = dir.join("data.bin");
    write_bulletformat(&path, &synthetic::dataset(10, 1)).unwrap();
    let bytes = std::fs::read(&path).unwrap();

    std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    assert!(matches!(
        open(&path),
        Err(TrainerError::NotBulletformat { len: 315, .. })
    ));

    let mut corrupt = bytes.clone();
    corrupt[3 * 32 + 8] = 0x77; // piece code 7 in record 3
    std::fs::write(&path, &corrupt).unwrap();
    assert!(matches!(
        open(&path),
        Err(TrainerError::BadRecord { index: 3, .. })
    ));

    std::fs::write(&path, []).unwrap();
    assert!(matches!(open(&path), Err(TrainerError::NoPositions(_))));

    assert!(matches!(
        open(&dir.join("missing.bin")),
        Err(TrainerError::Io { .. })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A short game from viriformat's own board, with the FEN of every position.
fn viri_game(plies: usize) -> (Game, Vec<String>) {
    let mut board = ViriBoard::default();
    let mut game = Game::new(&board);
    let mut fens = Vec::new();
    for ply in 0..plies {
        let moves = board.legal_moves();
        let mv = moves[(ply * 7) % moves.len()];
        fens.push(board.to_string());
        game.add_move(mv, (ply as i16 - 3) * 25);
        board.make_move_simple(mv);
    }
    game.set_outcome(GameOutcome::WhiteWin(WinType::Mate));
    (game, fens)
}

#[test]
fn viriformat_games_unpack_to_the_same_positions() {
    let dir = temp_dir("viri");
    let path = dir.join("games.vf");
    let (game, fens) = viri_game(10);
    let mut bytes = Vec::new();
    game.serialise_into(&mut bytes).unwrap();
    game.serialise_into(&mut bytes).unwrap();
    std::fs::write(&path, &bytes).unwrap();

    let records = read_viriformat(&path, &Filter::UNRESTRICTED).unwrap();
    assert_eq!(records.len(), 20);
    for (ply, (record, fen)) in records.iter().zip(&fens).enumerate() {
        let board = Board::from_fen(fen).unwrap();
        let us = board.side_to_move();
        let mut expected: Vec<u16> = board
            .occupied()
            .map(|sq| InputView::default().index(us, board.piece_at(sq).unwrap(), sq) as u16)
            .collect();
        let mut got = Features::of(record, &InputLayout::plain()).stm().to_vec();
        expected.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, expected, "{fen}");
        let white_eval = (ply as i16 - 3) * 25;
        let white_to_move = ply % 2 == 0;
        assert_eq!(
            record.score,
            if white_to_move {
                white_eval
            } else {
                -white_eval
            }
        );
        assert_eq!(
            record.result,
            if white_to_move { 2 } else { 0 },
            "White won"
        );
    }

    // viriformat's default filter drops the first 16 plies: nothing is left.
    let data = Dataset::open(&[], std::slice::from_ref(&path), &Filter::default());
    assert!(matches!(data, Err(TrainerError::NoPositions(_))));

    // A killed datagen leaves a torn last game: the whole ones before it still train.
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let whole = read_viriformat(&path, &Filter::UNRESTRICTED).unwrap();
    assert_eq!(whole, records[..10]);

    let mut bad_result = bytes.clone();
    bad_result[30] = 7;
    std::fs::write(&path, &bad_result).unwrap();
    assert!(matches!(
        read_viriformat(&path, &Filter::UNRESTRICTED),
        Err(TrainerError::Games(ReadError::Corrupt { offset: 0, .. }))
    ));

    let mut illegal = bytes.clone();
    illegal[32..34].copy_from_slice(&(0o10u16 | (0o50 << 6)).to_le_bytes()); // a2a6
    std::fs::write(&path, &illegal).unwrap();
    let err = read_viriformat(&path, &Filter::UNRESTRICTED).unwrap_err();
    assert!(err.to_string().contains("not legal"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Mate scores and runaway evaluations never become training targets, whatever the filter allows.
#[test]
fn mate_scores_are_dropped() {
    let dir = temp_dir("mates");
    let path = dir.join("games.vf");
    let mut board = ViriBoard::default();
    let mut game = Game::new(&board);
    // White's view; ±30 99x are Patina mate scores, 12 000 a runaway evaluation.
    let scores = [12, -30_990, 40, 30_995, -8, 12_000];
    for (ply, &score) in scores.iter().enumerate() {
        let mv = board.legal_moves()[ply];
        game.add_move(mv, score);
        board.make_move_simple(mv);
    }
    game.set_outcome(GameOutcome::WhiteWin(WinType::Mate));
    let mut bytes = Vec::new();
    game.serialise_into(&mut bytes).unwrap();
    std::fs::write(&path, &bytes).unwrap();

    let records = read_viriformat(&path, &Filter::UNRESTRICTED).unwrap();
    let kept: Vec<i16> = records.iter().map(|r| r.score).collect();
    // Side-to-move view: plies 0, 2 and 4 are White's.
    assert_eq!(kept, [12, 40, -8]);
    std::fs::remove_dir_all(dir).unwrap();
}
