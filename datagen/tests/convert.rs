//! Conversions out of and into viriformat: bulletformat splats read back by the bulletformat
//! crate with exactly the positions the filters should keep, and match PGNs imported with
//! their scores.

mod common;

use bulletformat::{ChessBoard, DataLoader};
use clap::Parser;
use common::{play, read_with_viriformat, scratch_dir};
use datagen::gamefile::GameReader;
use datagen::pgn::{self, PgnArgs};
use datagen::record::{from_viri_move, GameResult};
use datagen::splat::{self, SplatArgs};
use datagen::validate;
use patina::score::MATE;
use patina::Color;

#[test]
fn splat_keeps_quiet_positions_and_reads_back() {
    let dir = scratch_dir("convert-splat");
    let games = dir.join("games");
    play(&games, &["--games", "4", "--seed", "17"]);
    let out = dir.join("data.bin");
    let args = SplatArgs::parse_from([
        "splat",
        games.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let summary = splat::run(&args).unwrap();
    assert_eq!(summary.games, 4);

    // The filters, recomputed on our own board: ply ≥ 16, at least 4 pieces (kings included),
    // not in check, quiet best move, score below the bound.
    let mut expected = Vec::new();
    let mut reader = GameReader::open(&games.join("thread-0.vf")).unwrap();
    while let Some(stored) = reader.next_game().unwrap() {
        let result = GameResult::from_wdl(stored.game.outcome());
        let mut board = stored.start.clone();
        for (viri_move, score) in &stored.game.moves {
            let mv = from_viri_move(&board, *viri_move).unwrap();
            let white_score = i32::from(score.get());
            let black = board.side_to_move() == Color::Black;
            let ply = 2 * (usize::from(board.fullmove_number()) - 1) + usize::from(black);
            if ply >= 16
                && board.occupied().count() >= 4
                && !board.in_check()
                && !mv.is_noisy()
                && white_score.abs() < 10_000
            {
                // bulletformat stores the side to move's view, the board flipped for Black.
                let white_wdl = match result {
                    GameResult::WhiteWin => 2,
                    GameResult::Draw => 1,
                    GameResult::BlackWin => 0,
                };
                let occupied = board.occupied().0;
                expected.push(if black {
                    (occupied.swap_bytes(), -white_score as i16, 2 - white_wdl)
                } else {
                    (occupied, white_score as i16, white_wdl)
                });
            }
            board.make_move(mv);
        }
    }
    assert_eq!(summary.written, expected.len() as u64);
    assert!(summary.written > 0);

    let loader = DataLoader::<ChessBoard>::new(&out, 1).unwrap();
    assert_eq!(loader.len(), expected.len());
    let mut records = Vec::new();
    loader.map_batches(64, |batch| records.extend_from_slice(batch));
    assert_eq!(records.len(), expected.len());
    for (record, &(occupied, score, result)) in records.iter().zip(&expected) {
        assert_eq!(record.occ(), occupied);
        assert_eq!(record.score, score);
        assert_eq!(record.result, result);
        assert_eq!(
            record
                .into_iter()
                .filter(|&(piece, _)| piece & 7 == 5)
                .count(),
            2
        );
    }
}

const PGN: &str = r#"[Event "fastchess"]
[White "patina"]
[Black "base"]
[Result "0-1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.35/12 0.123s} Nc6 {-0.50/11 0.1s}
3. Bc4 {+0.20/10 0.1s} Nf6 {+0.10/9} 4. Ng5 {+1.00/12} d5 {-0.80/12}
5. exd5 {+0.90/13} Na5 {+M3/20 0.2s} 0-1

[Event "unfinished"]
[Result "*"]

1. d4 {+0.10/5} d5 {-0.10/5} *

[Event "no scores"]
[Result "1/2-1/2"]

1. c4 c5 1/2-1/2

[Event "after a FEN, mated"]
[FEN "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 30"]
[Result "1-0"]

1. Rd8# {+M1/1 0.001s, White mates} 1-0

[Event "clock beyond a byte"]
[FEN "4k3/8/8/8/8/8/8/R3K3 w - - 300 200"]
[Result "1/2-1/2"]

1. Ra2 {+5.00/3} 1/2-1/2

[Event "broken"]
[Result "1-0"]

1. e4 e5 2. Ke3 {+0.1/1} 1-0
"#;

#[test]
fn pgn_games_become_viriformat_with_their_scores() {
    let dir = scratch_dir("convert-pgn");
    let input = dir.join("match.pgn");
    std::fs::write(&input, PGN).unwrap();
    let out = dir.join("match.vf");
    let args = PgnArgs::parse_from([
        "pgn-to-vf",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--pawn-units",
        "200",
    ]);
    let summary = pgn::run(&args).unwrap();
    assert_eq!(
        (
            summary.games,
            summary.positions,
            summary.unfinished,
            summary.unscored,
            summary.unreadable
        ),
        (2, 9, 1, 1, 2)
    );

    let games = read_with_viriformat(&out);
    let first = &games[0];
    // The two book moves are folded into the start position.
    let start = first.initial_position();
    assert_eq!(start.full_move_number(), 2);
    assert_eq!(
        start.to_string().split(' ').next(),
        Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR")
    );
    let scores: Vec<i16> = first.moves.iter().map(|(_, s)| s.get()).collect();
    let mate_for_black = -(MATE - 5) as i16;
    // Printed centipawns back in network units, 200 to the pawn; the mate as it was.
    assert_eq!(scores, [70, 100, 40, -20, 200, 160, 180, mate_for_black]);
    assert_eq!(GameResult::from_wdl(first.outcome()), GameResult::BlackWin);
    assert_eq!(games[1].initial_position().full_move_number(), 30);
    assert_eq!(
        GameResult::from_wdl(games[1].outcome()),
        GameResult::WhiteWin
    );

    let report = validate::run(&[out]).unwrap();
    assert_eq!(report.errors, 0, "{}", report.report());
    assert_eq!(report.games, 2);
}
