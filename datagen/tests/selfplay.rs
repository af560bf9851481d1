//! Self-play runs end to end: what they write reads back whole and replays legally, and a run
//! that was killed or torn resumes without losing, corrupting or repeating games.

mod common;

use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use common::{play, read_with_viriformat, scratch_dir};
use datagen::gamefile::GameReader;
use datagen::play::{self as datagen_play, PlayArgs};
use datagen::recipe::Recipe;
use datagen::spent::Spent;
use datagen::validate::{self, Ending};
use datagen::writer::GameWriter;
use patina::nnue::EMBEDDED_NET_NAME;
use patina::Network;
use sha2::{Digest, Sha256};
use viriformat::dataformat::WDL;

/// The serialised bytes of each game, for comparing runs.
fn game_bytes(path: &std::path::Path) -> Vec<Vec<u8>> {
    read_with_viriformat(path)
        .iter()
        .map(|game| {
            let mut bytes = Vec::new();
            game.serialise_into(&mut bytes).unwrap();
            bytes
        })
        .collect()
}

/// Plays `games` games into `out` from `fen` alone (a book beside `out`), with no random plies
/// and whatever the position's score.
fn play_from(fen: &str, out: &std::path::Path, games: u64, extra: &[&str]) {
    let book = out.with_extension("epd");
    std::fs::write(&book, format!("{fen}\n")).unwrap();
    let games = games.to_string();
    let mut args = vec!["--games", &games, "--book", book.to_str().unwrap()];
    args.extend(["--random-plies", "0", "--max-opening-score", "32000"]);
    args.extend_from_slice(extra);
    play(out, &args);
}

fn assert_valid(dir: &std::path::Path, games: u64) -> validate::Report {
    let report = validate::run(&[dir.to_path_buf()]).unwrap();
    assert_eq!(report.errors, 0, "{}", report.report());
    assert_eq!(report.games, games);
    assert_eq!(report.unexplained_wins, 0, "{}", report.report());
    assert_eq!(report.torn_bytes, 0);
    assert_eq!(report.endings.values().sum::<u64>(), games);
    report
}

#[test]
fn games_read_back_whole_and_replay_legally() {
    let dir = scratch_dir("selfplay-basic");
    let started = Instant::now();
    let summary = play(&dir, &["--games", "6", "--threads", "2", "--seed", "7"]);
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(summary.run.games, 6);
    let files = [dir.join("thread-0.vf"), dir.join("thread-1.vf")];
    let viri_games: Vec<_> = files.iter().flat_map(|f| read_with_viriformat(f)).collect();
    assert_eq!(viri_games.len(), 6);
    let positions: usize = viri_games.iter().map(|g| g.len()).sum();
    assert_eq!(positions as u64, summary.run.positions);
    assert_valid(&dir, 6);
    // The run's time is kept beside its games, two threads' worth of it, within the time the
    // whole call took (the run's clock starts before its progress line's, so not within that).
    let spent = Spent::read(&dir).unwrap();
    assert!(
        spent.wall_seconds > 0.0 && spent.wall_seconds <= wall,
        "{spent:?}"
    );
    assert!(
        (spent.thread_seconds - 2.0 * spent.wall_seconds).abs() < 0.01,
        "{spent:?}"
    );
    assert!(spent.cpu_seconds.is_some_and(|cpu| cpu > 0.0), "{spent:?}");
}

#[test]
fn dfrc_and_book_openings_make_valid_games() {
    let dir = scratch_dir("selfplay-dfrc");
    play(&dir, &["--games", "3", "--dfrc", "--seed", "3"]);
    assert_valid(&dir, 3);

    let dir = scratch_dir("selfplay-book");
    let book = dir.join("book.epd");
    std::fs::write(
        &book,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n",
    )
    .unwrap();
    let out = dir.join("out");
    play(&out, &["--games", "2", "--book", book.to_str().unwrap()]);
    assert_valid(&out, 2);
    // The book position is at move 3 and 2-3 random plies follow: the start keeps the count.
    let stored = GameReader::open(&out.join("thread-0.vf"))
        .unwrap()
        .next_game()
        .unwrap()
        .unwrap();
    assert_eq!(stored.start.fullmove_number(), 4);
}

/// Scores are stored from White's view, for the position before the move, and the result names
/// the side that mated: a mate in one for either colour, from a book with no random plies.
#[test]
fn scores_and_results_are_white_relative() {
    let dir = scratch_dir("selfplay-white-relative");
    for (name, fen, winner) in [
        (
            "white-mates",
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            WDL::Win,
        ),
        (
            "black-mates",
            "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
            WDL::Loss,
        ),
    ] {
        let out = dir.join(name);
        play_from(fen, &out, 1, &[]);
        assert_valid(&out, 1);
        let games = read_with_viriformat(&out.join("thread-0.vf"));
        let [game] = games.as_slice() else {
            panic!("{name}: {} games", games.len())
        };
        assert_eq!(game.outcome(), winner, "{name}");
        let scores: Vec<i16> = game.moves.iter().map(|(_, score)| score.get()).collect();
        let white_view = if winner == WDL::Win { 1 } else { -1 };
        assert!(
            scores.len() == 1 && white_view * i32::from(scores[0]) >= 10_000,
            "{name}: the mating move's stored scores {scores:?}"
        );
    }
}

/// Into a pipe, where no bar shows, a run prints its progress as plain lines (with an interval
/// of 0, at every draw) without a terminal's escape codes.
#[test]
fn piped_output_gets_plain_progress_lines() {
    let dir = scratch_dir("selfplay-progress-lines");
    let output = Command::new(env!("CARGO_BIN_EXE_datagen"))
        .args(["play", "--games", "2", "--nodes", "200", "--out"])
        .arg(dir.join("out"))
        .env("PATINA_PROGRESS_INTERVAL", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|line| line.contains("/2 games |") && line.contains("pos/s")),
        "{stderr}"
    );
    assert!(!stderr.contains('\x1b'), "{stderr}");
}

#[test]
fn a_position_target_stops_once_reached() {
    let dir = scratch_dir("selfplay-positions");
    let summary = play(&dir, &["--positions", "150", "--seed", "11"]);
    assert!(summary.run.positions >= 150);
    let last_game = read_with_viriformat(&dir.join("thread-0.vf"))
        .last()
        .unwrap()
        .len() as u64;
    assert!(summary.run.positions - last_game < 150);
    let again = play(&dir, &["--positions", "150", "--seed", "11"]);
    assert_eq!(again.run.games, 0);
}

#[test]
fn a_directory_refuses_games_of_another_recipe() {
    let dir = scratch_dir("selfplay-recipe");
    play(&dir, &["--games", "2", "--seed", "12"]);
    let recipe = Recipe::read(&dir)
        .unwrap()
        .expect("the run wrote its recipe");
    assert_eq!(recipe.get("nodes"), Some("300"));
    let embedded = recipe.get("net").unwrap();
    assert!(
        embedded.starts_with(&format!("{EMBEDDED_NET_NAME} sha256 ")),
        "{embedded}"
    );
    let before = game_bytes(&dir.join("thread-0.vf"));

    let out = dir.to_str().unwrap();
    let other = [
        "play", "--out", out, "--nodes", "600", "--games", "4", "--seed", "12",
    ];
    let refused = datagen_play::run(&PlayArgs::parse_from(other))
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("holds 2 games played with nodes 300, hard_nodes 3000")
            && refused.contains("would play with nodes 600, hard_nodes 6000"),
        "{refused}"
    );
    assert_eq!(game_bytes(&dir.join("thread-0.vf")), before);

    // Another seed is the same recipe: the directory resumes.
    assert_eq!(play(&dir, &["--games", "4", "--seed", "13"]).run.games, 2);

    // Another net of the same name is another recipe; the net is known by its file's bytes.
    let net_dir = scratch_dir("selfplay-recipe-net");
    let net = net_dir.join(EMBEDDED_NET_NAME);
    std::fs::write(&net, Network::random(3).to_bytes()).unwrap();
    let with_net = [
        "--games",
        "4",
        "--seed",
        "13",
        "--net",
        net.to_str().unwrap(),
    ];
    let refused = datagen_play::run(&PlayArgs::parse_from(
        ["play", "--out", out, "--nodes", "300"]
            .iter()
            .chain(&with_net),
    ))
    .unwrap_err()
    .to_string();
    assert!(refused.contains("played with net"), "{refused}");
    let fresh = scratch_dir("selfplay-recipe-fresh");
    play(&fresh, &with_net);
    let digest: String = Sha256::digest(std::fs::read(&net).unwrap())[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        Recipe::read(&fresh).unwrap().unwrap().get("net"),
        Some(format!("{EMBEDDED_NET_NAME} sha256 {digest}").as_str())
    );
}

#[test]
fn games_end_by_the_rules_or_by_adjudication() {
    let dir = scratch_dir("selfplay-endings");
    // Adjudication off in practice: every game must then end by the rules.
    play(
        &dir,
        &[
            "--games",
            "3",
            "--seed",
            "5",
            "--win-score",
            "32000",
            "--draw-plies",
            "100000",
        ],
    );
    let report = assert_valid(&dir, 3);
    assert!(report
        .endings
        .keys()
        .all(|ending| matches!(ending, Ending::Rules(_))));
}

#[test]
fn syzygy_tables_end_a_game_that_reaches_them() {
    let out = scratch_dir("selfplay-syzygy").join("out");
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/tests/syzygy");
    // The queen takes the rook: KQvK, a win the tables know, though no score says so yet.
    play_from(
        "8/8/8/4k3/8/8/8/KQ1r4 w - - 0 1",
        &out,
        2,
        &["--win-score", "32000", "--syzygy", tables],
    );
    let report = assert_valid(&out, 2);
    assert_eq!(report.endings.get(&Ending::AdjudicatedWin), Some(&2));
    assert_eq!(report.positions, 2, "{}", report.report());
}

#[test]
fn a_broken_table_is_reported_and_the_game_plays_on() {
    let dir = scratch_dir("selfplay-broken-syzygy");
    let book = dir.join("book.epd");
    std::fs::write(&book, "8/8/8/4k3/8/8/8/KQ1r4 w - - 0 1\n").unwrap();
    // Noise of a real table's size under its name: it opens, and every probe of it fails.
    let tables = dir.join("tables");
    std::fs::create_dir(&tables).unwrap();
    let size = std::fs::metadata(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/syzygy/KQvK.rtbw"
    ))
    .unwrap()
    .len() as usize;
    let noise: Vec<u8> = (0..size).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(tables.join("KQvK.rtbw"), noise).unwrap();
    let out = dir.join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_datagen"))
        .args(["play", "--out", out.to_str().unwrap(), "--games", "1"])
        .args(["--nodes", "300", "--random-plies", "0", "--book"])
        .arg(&book)
        .args(["--max-opening-score", "32000", "--win-score", "32000"])
        .arg("--syzygy")
        .arg(&tables)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let warnings = stderr.matches("tablebase probe failed").count();
    assert_eq!(warnings, 1, "{stderr}");
    let report = assert_valid(&out, 1);
    assert_eq!(report.endings.get(&Ending::AdjudicatedWin), None);
    assert!(report.positions > 2, "{}", report.report());
}

#[test]
fn a_folder_without_tables_is_refused() {
    let dir = scratch_dir("selfplay-no-syzygy");
    let tables = dir.join("tables");
    std::fs::create_dir(&tables).unwrap();
    let out = dir.join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_datagen"))
        .args(["play", "--out", out.to_str().unwrap(), "--games", "1"])
        .arg("--syzygy")
        .arg(&tables)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no Syzygy tables"), "{stderr}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn a_torn_game_is_cut_off_and_the_run_resumes_without_repeats() {
    let dir = scratch_dir("selfplay-torn");
    play(&dir, &["--games", "4", "--seed", "9"]);
    let file = dir.join("thread-0.vf");
    let before = game_bytes(&file);
    // A kill in the middle of writing a fifth game leaves part of it behind.
    let mut torn = std::fs::read(&file).unwrap();
    torn.extend_from_slice(&before[0][..before[0].len() - 6]);
    std::fs::write(&file, &torn).unwrap();

    let report = validate::run(std::slice::from_ref(&dir)).unwrap();
    assert_eq!((report.games, report.errors), (4, 0));
    assert_eq!(report.torn_bytes as usize, before[0].len() - 6);

    let summary = play(&dir, &["--games", "7", "--seed", "9"]);
    assert_eq!((summary.before.games, summary.run.games), (4, 3));
    let after = game_bytes(&file);
    assert_eq!(after[..4], before[..]);
    let distinct: HashSet<&Vec<u8>> = after.iter().collect();
    assert_eq!(distinct.len(), 7, "a resumed run replayed a game");
    assert_valid(&dir, 7);
}

#[test]
fn a_zero_tail_is_cut_off_like_a_torn_game() {
    let dir = scratch_dir("selfplay-zeros");
    play(&dir, &["--games", "2", "--seed", "11"]);
    let file = dir.join("thread-0.vf");
    let before = game_bytes(&file);
    // A power loss can leave zeros where unsynced bytes of a game in progress were.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(&[0; 700]);
    std::fs::write(&file, &bytes).unwrap();
    let report = validate::run(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(
        (report.games, report.errors, report.torn_bytes),
        (2, 0, 700)
    );

    let summary = play(&dir, &["--games", "3", "--seed", "11"]);
    assert_eq!((summary.before.games, summary.run.games), (2, 1));
    assert_eq!(game_bytes(&file)[..2], before[..]);
    assert_valid(&dir, 3);

    // Zeros may also start inside the last game: in its header, right after it, or inside a
    // move, where they complete the record into one that is not a legal move. (From the
    // move's second byte on, the record is a real move and the game is kept, cut short.)
    for kept in [20, 32, 33] {
        let mut bytes = std::fs::read(&file).unwrap();
        let whole = bytes.len();
        bytes.extend_from_slice(&before[0][..kept]);
        bytes.extend_from_slice(&[0; 500]);
        std::fs::write(&file, &bytes).unwrap();
        let report = validate::run(std::slice::from_ref(&dir)).unwrap();
        assert_eq!(
            (report.games, report.errors),
            (3, 0),
            "zeros from byte {kept}"
        );
        assert_eq!(report.torn_bytes as usize, kept + 500);
        std::fs::write(&file, &bytes[..whole]).unwrap();
    }

    // Zeros followed by data are damage, not a tail.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(&[0; 40]);
    bytes.push(1);
    std::fs::write(&file, &bytes).unwrap();
    assert!(GameWriter::open(&file).is_err());
}

/// Bytes at the end that begin no game (damage, or a file of something else) are not a torn
/// tail: nothing is cut off, and play refuses to append.
#[test]
fn an_unreadable_end_is_damage_not_a_torn_game() {
    let dir = scratch_dir("selfplay-damaged-end");
    play(&dir, &["--games", "3", "--seed", "19"]);
    let file = dir.join("thread-0.vf");
    let games = game_bytes(&file);
    let whole = std::fs::read(&file).unwrap();
    let text = b"# Patina\n\nPatina is a UCI chess engine written in Rust, not game data.\n";
    // A byte lost inside the first game shifts every record after it out of step.
    let mut shifted = whole.clone();
    shifted.remove(games[0].len() / 2);
    let mut moves_off = whole.clone();
    // The second game's first move becomes a2a6, past an otherwise sound start position.
    let second = games[0].len() + 32;
    moves_off[second..second + 2].copy_from_slice(&(0o10u16 | (0o50 << 6)).to_le_bytes());
    moves_off.truncate(second + 8);
    for (name, bytes) in [
        ("text", text.to_vec()),
        ("a lost byte", shifted),
        ("an illegal move in the tail", moves_off),
    ] {
        std::fs::write(&file, &bytes).unwrap();
        let report = validate::run(std::slice::from_ref(&dir)).unwrap();
        assert!(report.errors > 0, "{name}: {}", report.report());
        assert_eq!(report.torn_bytes, 0, "{name}");
        assert!(GameWriter::open(&file).is_err(), "{name}");
        assert_eq!(
            std::fs::read(&file).unwrap(),
            bytes,
            "{name}: the file changed"
        );
    }
}

/// An illegal move spoils its own game only: validation reports it and reads on.
#[test]
fn an_illegal_game_does_not_hide_the_ones_after_it() {
    let dir = scratch_dir("selfplay-illegal");
    play(&dir, &["--games", "3", "--seed", "17"]);
    let file = dir.join("thread-0.vf");
    let mut bytes = std::fs::read(&file).unwrap();
    // The first move of the first game becomes a2a6, which no start position allows.
    bytes[32..34].copy_from_slice(&(0o10u16 | (0o50 << 6)).to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let report = validate::run(std::slice::from_ref(&dir)).unwrap();
    assert_eq!((report.games, report.errors), (2, 1), "{}", report.report());
    assert!(report.report().contains("move 1 is not legal"));
}

#[test]
fn corrupt_data_is_never_appended_to() {
    let dir = scratch_dir("selfplay-corrupt");
    play(&dir, &["--games", "2", "--seed", "13"]);
    let file = dir.join("thread-0.vf");
    let games = game_bytes(&file);
    let mut bytes = std::fs::read(&file).unwrap();
    // Overwrite the second game's start position: no longer a torn tail but damage.
    bytes[games[0].len()..games[0].len() + 32].fill(0xFF);
    std::fs::write(&file, &bytes).unwrap();
    assert!(GameWriter::open(&file).is_err());
    let report = validate::run(std::slice::from_ref(&dir)).unwrap();
    assert_eq!((report.games, report.errors), (1, 1));
}

#[test]
fn a_killed_run_resumes_cleanly() {
    let dir = scratch_dir("selfplay-killed");
    let out = dir.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_datagen"))
        .args(["play", "--out", out, "--games", "100000", "--nodes", "300"])
        .args(["--threads", "2", "--seed", "21"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let files = [dir.join("thread-0.vf"), dir.join("thread-1.vf")];
    let size = |f: &std::path::PathBuf| std::fs::metadata(f).map_or(0, |m| m.len());
    let deadline = Instant::now() + Duration::from_secs(60);
    while files.iter().map(size).sum::<u64>() < 4000 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let killed = validate::run(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(killed.errors, 0, "{}", killed.report());
    assert!(killed.games >= 2, "the run was killed before writing games");
    let before: Vec<Vec<Vec<u8>>> = files
        .iter()
        .map(|f| {
            let mut reader = GameReader::open(f).unwrap();
            std::iter::from_fn(|| reader.next_game().unwrap())
                .map(|stored| {
                    let mut bytes = Vec::new();
                    stored.game.serialise_into(&mut bytes).unwrap();
                    bytes
                })
                .collect()
        })
        .collect();

    let target = killed.games + 4;
    let status = Command::new(env!("CARGO_BIN_EXE_datagen"))
        .args(["play", "--out", out, "--games", &target.to_string()])
        .args(["--nodes", "300", "--threads", "2", "--seed", "21"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let report = assert_valid(&dir, target);
    assert_eq!(report.games, target);
    let mut all = HashSet::new();
    for (file, kept) in files.iter().zip(&before) {
        let after = game_bytes(file);
        assert_eq!(after[..kept.len()], kept[..]);
        all.extend(after);
    }
    assert_eq!(all.len() as u64, target, "a resumed run replayed a game");
}
