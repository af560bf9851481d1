//! Syzygy tablebases: probes against known results (cross-checked with python-chess's reader),
//! the root move choice, scores, broken table files, and endgames converted in self-play.
//! The fixture tables in `tests/syzygy/` are 3- and 4-piece tables from syzygy1/tb.

use std::path::Path;

use patina::score::{Score, MATE_BOUND, TB_WIN_BOUND};
use patina::{Board, Engine, Limits, Outcome, Reporter, SearchInfo, Silent, Wdl};

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");

fn engine_with_tables(path: &str) -> Engine {
    let mut engine = Engine::default();
    let found = engine
        .set_syzygy_path(path)
        .expect("the fixture tables open");
    assert!(found.starts_with("found"), "{found}");
    engine
}

fn board(fen: &str) -> Board {
    Board::from_fen(fen).expect("a valid FEN")
}

fn probe(engine: &mut Engine, board: &Board) -> Option<(Wdl, Option<i32>)> {
    engine.set_board(board.clone());
    engine.probe_tablebases().expect("the probe succeeds")
}

#[derive(Default)]
struct Collect {
    infos: Vec<SearchInfo>,
    warnings: Vec<String>,
}

impl Reporter for Collect {
    fn report(&mut self, info: &SearchInfo) {
        self.infos.push(info.clone());
    }

    fn warn(&mut self, message: &str) {
        self.warnings.push(message.to_owned());
    }
}

#[test]
fn probes_give_the_known_results() {
    let mut engine = engine_with_tables(TABLES);
    // (FEN, WDL, DTZ): python-chess's reader gives the same on each.
    let cases = [
        ("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", Wdl::Win, 17),
        ("8/8/8/4k3/8/8/8/KQ6 b - - 0 1", Wdl::Loss, -18),
        // Qb7 mates at once.
        ("k7/2K5/8/8/8/8/8/1Q6 w - - 0 1", Wdl::Win, 1),
        // Stalemate.
        ("k7/8/1Q6/8/8/8/8/K7 b - - 0 1", Wdl::Draw, 0),
        ("8/8/8/4k3/8/8/8/K7 w - - 0 1", Wdl::Draw, 0),
        ("8/8/8/4k3/8/8/8/KB6 w - - 0 1", Wdl::Draw, 0),
        ("8/8/8/4k3/8/8/8/KN6 b - - 0 1", Wdl::Draw, 0),
        ("8/8/8/4k3/8/8/8/KR6 w - - 0 1", Wdl::Win, 29),
        ("8/8/8/4k3/8/8/8/KBN5 w - - 0 1", Wdl::Win, 58),
        ("8/8/8/4k3/8/8/8/KBN5 b - - 0 1", Wdl::Loss, -59),
        // The king ahead of its pawn on the sixth rank wins whoever moves.
        ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", Wdl::Win, 3),
        ("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1", Wdl::Loss, -4),
        // The defending king ahead of the pawn holds.
        ("8/8/8/8/4k3/8/3KP3/8 w - - 0 1", Wdl::Draw, 0),
        ("8/8/8/4k3/8/8/3r4/KQ6 b - - 0 1", Wdl::Loss, -58),
    ];
    for (fen, wdl, dtz) in cases {
        assert_eq!(
            probe(&mut engine, &board(fen)),
            Some((wdl, Some(dtz))),
            "{fen}"
        );
    }
    // Castling rights and five pieces are beyond the tables.
    assert_eq!(
        probe(&mut engine, &board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")),
        None
    );
    assert_eq!(
        probe(&mut engine, &board("4k3/8/8/8/8/8/2PP4/R3K3 w - - 0 1")),
        None
    );
}

/// The DTZ of the position after `uci` from the root's side: the distance that move leaves.
fn dtz_after(engine: &mut Engine, root: &Board, uci: &str) -> i32 {
    let mut child = root.clone();
    child.make_move(root.parse_uci_move(uci).expect("a legal move"));
    match probe(engine, &child) {
        Some((_, Some(dtz))) => -dtz,
        other => panic!("no DTZ after {uci}: {other:?}"),
    }
}

fn best_move(engine: &mut Engine, root: &Board, limits: Limits) -> (String, Collect) {
    engine.set_board(root.clone());
    let mut collect = Collect::default();
    let result = engine.search(limits, &mut collect);
    let mv = result.best_move.expect("a legal move").to_uci(false);
    (mv, collect)
}

#[test]
fn a_won_root_plays_the_fastest_conversion() {
    let mut engine = engine_with_tables(TABLES);
    for fen in [
        "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KBN5 w - - 0 1",
        "8/8/8/4k3/8/8/3r4/KQ6 w - - 0 1",
    ] {
        let root = board(fen);
        let (mv, collect) = best_move(&mut engine, &root, Limits::depth(8));
        // DTZ-optimal: the move leaves the opponent one ply nearer the zeroing move.
        let (_, root_dtz) = probe(&mut engine, &root).expect("in the tables");
        let root_dtz = root_dtz.expect("a DTZ");
        assert!(root_dtz > 1, "{fen}");
        assert_eq!(
            dtz_after(&mut engine, &root, &mv),
            root_dtz - 1,
            "{fen}: {mv}"
        );
        // A tablebase win shows as centipawns beyond any evaluation, never as a mate.
        let score = collect.infos.last().expect("a report").score;
        assert!(
            (TB_WIN_BOUND..MATE_BOUND).contains(&score),
            "{fen}: {score}"
        );
    }
}

#[test]
fn a_lost_root_takes_the_draw_or_resists_longest() {
    let mut engine = engine_with_tables(TABLES);
    // Only taking the rook draws.
    let (mv, collect) = best_move(
        &mut engine,
        &board("4K3/8/8/8/8/8/1k6/R7 b - - 0 1"),
        Limits::depth(6),
    );
    assert_eq!(mv, "b2a1");
    assert_eq!(collect.infos.last().expect("a report").score, 0);

    // Lost, but near the fifty-move limit the longest defence may be saved by it.
    let root = board("8/8/8/4k3/8/8/3r4/KQ6 b - - 90 60");
    let (mv, _) = best_move(&mut engine, &root, Limits::depth(6));
    let longest = root
        .legal_moves()
        .into_iter()
        .map(|m| dtz_after(&mut engine, &root, &m.to_uci(false)))
        .min()
        .expect("legal moves");
    assert_eq!(dtz_after(&mut engine, &root, &mv), longest, "{mv}");
}

#[test]
fn a_win_the_fifty_move_rule_spoils_is_no_tablebase_win_unless_the_rule_is_off() {
    // KRvK: mate or a capture is 29 plies away; 80 plies into the count, the rule comes first.
    let fresh = board("8/8/8/4k3/8/8/8/KR6 w - - 0 1");
    let late = board("8/8/8/4k3/8/8/8/KR6 w - - 80 70");
    for rule50 in [true, false] {
        let mut engine = engine_with_tables(TABLES);
        engine.set_syzygy_50_move_rule(rule50);
        for root in [&fresh, &late] {
            let (mv, collect) = best_move(&mut engine, root, Limits::depth(6));
            // Still the fastest way on: the win may come if the opponent errs.
            assert_eq!(dtz_after(&mut engine, root, &mv), 28, "{mv}");
            let last = collect.infos.last().expect("a report");
            let spoiled = rule50 && root.halfmove_clock() == 80;
            if spoiled {
                assert!(
                    last.score > 0 && last.score < TB_WIN_BOUND,
                    "rule50 {rule50}: {}",
                    last.score
                );
            } else {
                assert!(
                    last.score >= TB_WIN_BOUND,
                    "rule50 {rule50}: {}",
                    last.score
                );
            }
            // The tables chose among the root moves: a hit each.
            assert_eq!(last.tbhits, root.legal_moves().len() as u64);
        }
    }
}

#[test]
fn multipv_shows_every_move_the_winning_ones_first() {
    let mut engine = engine_with_tables(TABLES);
    // KRvK: Rb3+ and Rb4 give the rook away (a draw); every other move keeps the win.
    let root = board("8/8/8/8/8/2k5/8/KR6 w - - 0 1");
    let legal = root.legal_moves().len();
    engine.set_multipv(legal);
    let (mv, collect) = best_move(&mut engine, &root, Limits::depth(6));
    let depth = collect.infos.last().expect("a report").depth;
    let lines: Vec<&SearchInfo> = collect.infos.iter().filter(|i| i.depth == depth).collect();
    assert_eq!(lines.len(), legal);
    let first_moves: Vec<String> = lines.iter().map(|i| i.pv[0].to_uci(false)).collect();
    assert_eq!(first_moves[0], mv);
    let draws = &first_moves[legal - 2..];
    assert!(
        draws.contains(&"b1b3".into()) && draws.contains(&"b1b4".into()),
        "{first_moves:?}"
    );
    for (line, info) in lines.iter().enumerate() {
        assert_eq!(info.multipv, line + 1);
        let won = line < legal - 2;
        assert_eq!(
            info.score >= TB_WIN_BOUND,
            won,
            "{}: {}",
            first_moves[line],
            info.score
        );
        assert!(
            won || info.score == 0,
            "{}: {}",
            first_moves[line],
            info.score
        );
    }
}

/// Under Lazy SMP the helper threads search the root's moves in the tables' order: the move
/// played keeps the win.
#[test]
fn threads_keep_the_tablebase_win() {
    let mut engine = engine_with_tables(TABLES);
    engine.set_threads(4);
    let root = board("8/8/8/4k3/8/8/3r4/KQ6 w - - 0 1");
    let (mv, collect) = best_move(&mut engine, &root, Limits::depth(10));
    let last = collect.infos.last().expect("a report");
    assert!(last.tablebase && last.score >= TB_WIN_BOUND, "{last:?}");
    let mut after = root.clone();
    after.make_move(root.parse_uci_move(&mv).expect("a legal move"));
    let (wdl, _) = probe(&mut engine, &after).expect("in the tables");
    assert_eq!(wdl, Wdl::Loss, "{mv} gives the win away");
}

/// `SyzygyProbeLimit` bounds the pieces probed, at the root and in the search;
/// `SyzygyProbeDepth` keeps the search from probing positions with that many pieces above it.
#[test]
fn probe_limit_and_depth_bound_the_probes() {
    let search = |limit: usize, depth: i32, fen: &str| {
        let mut engine = engine_with_tables(TABLES);
        engine.set_syzygy_probe_limit(limit);
        engine.set_syzygy_probe_depth(depth);
        let (_, collect) = best_move(&mut engine, &board(fen), Limits::depth(8));
        let first = collect.infos.first().expect("a report").clone();
        (first, collect.infos.last().expect("a report").tbhits)
    };
    // A won KQvKR root: ranked with four pieces allowed, left to the search with three.
    let kqvkr = "8/8/8/4k3/8/8/3r4/KQ6 w - - 0 1";
    let (first, _) = search(4, 1, kqvkr);
    assert!(first.tablebase && first.score >= TB_WIN_BOUND, "{first:?}");
    let (first, _) = search(3, 1, kqvkr);
    assert!(!first.tablebase && first.score < TB_WIN_BOUND, "{first:?}");
    // Five pieces, the queen taking the pawn into KQvKR: no probe at all with the limit at 0;
    // with the four-piece positions kept for a depth the search never reaches, the probes of
    // a limit of three, fewer than at every depth.
    let five = "8/8/8/4k3/8/8/2pr4/KQ6 w - - 0 1";
    assert_eq!(search(0, 1, five).1, 0);
    let (every_depth, high_depth) = (search(4, 1, five).1, search(4, 100, five).1);
    assert_eq!(high_depth, search(3, 1, five).1);
    assert!(
        high_depth < every_depth,
        "{high_depth} probes at depth 100 against {every_depth}"
    );
}

/// Tables without their DTZ files: the root keeps its winning moves by WDL, and the search
/// probes the positions after captures.
#[test]
fn wdl_tables_alone_serve_the_search() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(TABLES).expect("the fixtures") {
        let path = entry.expect("a fixture").path();
        if path.extension().is_some_and(|ext| ext == "rtbw") {
            std::fs::copy(&path, dir.path().join(path.file_name().expect("a name")))
                .expect("a copy");
        }
    }
    let mut engine = engine_with_tables(dir.path().to_str().expect("a UTF-8 path"));
    // Five pieces, so no root probe: the queen wins the pawn into a won KQvKR.
    let root = board("8/8/8/3pk3/8/8/3r4/KQ6 w - - 0 1");
    let (_, collect) = best_move(&mut engine, &root, Limits::depth(8));
    let last = collect.infos.last().expect("a report");
    assert!(last.tbhits > 0, "no probe in {} nodes", last.nodes);

    // Four pieces: the root ranks by WDL, keeping the win.
    let root = board("8/8/8/4k3/8/8/3r4/KQ6 w - - 0 1");
    let (mv, collect) = best_move(&mut engine, &root, Limits::depth(6));
    let mut child = root.clone();
    child.make_move(root.parse_uci_move(&mv).expect("legal"));
    engine.set_board(child);
    let (wdl, dtz) = engine
        .probe_tablebases()
        .expect("a probe")
        .expect("in the tables");
    assert_eq!(wdl, Wdl::Loss, "{mv}");
    assert_eq!(dtz, None);
    let score: Score = collect.infos.last().expect("a report").score;
    assert!(score >= TB_WIN_BOUND, "{score}");

    // Lost KQvKR, but the rook's move back to d8 repeats the position a third time: ranked as
    // the draw it is, played, and shown as one.
    let mut root = board("3r4/8/8/4k3/8/8/8/K1Q5 w - - 0 1");
    for uci in ["c1b1", "d8d7", "b1c1", "d7d8", "c1b1", "d8d7", "b1c1"] {
        root.make_move(root.parse_uci_move(uci).expect("legal"));
    }
    let (mv, collect) = best_move(&mut engine, &root, Limits::depth(6));
    assert_eq!(mv, "d7d8");
    let last = collect.infos.last().expect("a report");
    assert_eq!(last.score, 0);
    assert!(last.tablebase);
}

#[test]
fn broken_table_files_are_reported_and_searched_around() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let fixture = |name: &str| std::fs::read(Path::new(TABLES).join(name)).expect("a fixture");
    // A truncated WDL file, a truncated DTZ file, and noise under a table's name.
    let rtbw = fixture("KRvK.rtbw");
    std::fs::write(dir.path().join("KRvK.rtbw"), &rtbw[..rtbw.len() / 2]).expect("write");
    // Cut by whole 64-byte blocks, so that the file's size looks right.
    let rtbz = fixture("KQvK.rtbz");
    let cut = rtbz.len() - rtbz.len() / 128 * 64;
    std::fs::write(dir.path().join("KQvK.rtbz"), &rtbz[..cut]).expect("write");
    std::fs::write(dir.path().join("KQvK.rtbw"), fixture("KQvK.rtbw")).expect("write");
    let noise: Vec<u8> = (0..fixture("KBNvK.rtbw").len())
        .map(|i| (i * 7919 % 251) as u8)
        .collect();
    std::fs::write(dir.path().join("KBNvK.rtbw"), noise).expect("write");
    // A table of the right size whose header holds and whose body is scrambled.
    let mut scrambled = fixture("KPvK.rtbw");
    for (i, byte) in scrambled.iter_mut().enumerate().skip(64) {
        *byte ^= (i * 131 % 255) as u8 | 1;
    }
    std::fs::write(dir.path().join("KPvK.rtbw"), scrambled).expect("write");

    // A fresh engine on the broken tables: each says a failure once.
    let open = || {
        let mut engine = Engine::default();
        let found = engine
            .set_syzygy_path(dir.path().to_str().expect("a UTF-8 path"))
            .expect("the directory opens");
        (engine, found)
    };
    let (mut engine, found) = open();
    assert!(
        found.contains("left out") && found.contains("KRvK.rtbw"),
        "{found}"
    );

    for fen in [
        "8/8/8/4k3/8/8/8/KBN5 w - - 0 1",
        "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
    ] {
        let root = board(fen);
        engine.set_board(root.clone());
        // Noise, a table cut short, a table left out: each an error of one line.
        let error = engine.probe_tablebases().expect_err(fen);
        assert!(!error.contains('\n'), "{error}");
        let (mv, collect) = best_move(&mut Engine::default(), &root, Limits::depth(6));
        assert!(root.parse_uci_move(&mv).is_some());
        let (mv, with_broken) = best_move(&mut engine, &root, Limits::depth(6));
        assert!(root.parse_uci_move(&mv).is_some(), "{fen}: {mv}");
        assert_eq!(with_broken.infos.len(), collect.infos.len(), "{fen}");
    }
    // The scrambled table fails its checks on a probe, which is said; the search goes on.
    let mut warnings = Vec::new();
    for fen in [
        "8/8/8/4k3/8/8/4P3/K7 w - - 0 1",
        "8/8/3k4/8/8/8/4P3/K7 b - - 0 1",
    ] {
        let root = board(fen);
        let (mv, collect) = best_move(&mut engine, &root, Limits::depth(8));
        assert!(root.parse_uci_move(&mv).is_some(), "{fen}: {mv}");
        warnings.extend(collect.warnings);
    }
    assert!(warnings.iter().any(|w| w.contains("KPvK")), "{warnings:?}");
    // KQvK's DTZ file is cut short but its WDL file is whole: the root is ranked by WDL, so
    // the move played keeps the win, and the DTZ failure is said.
    let (mut engine, _) = open();
    let root = board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1");
    let (mv, collect) = best_move(&mut engine, &root, Limits::depth(6));
    let mut after = root.clone();
    after.make_move(root.parse_uci_move(&mv).expect("a legal move"));
    let (wdl, _) = probe(&mut engine_with_tables(TABLES), &after).expect("in the tables");
    assert_eq!(wdl, Wdl::Loss, "{mv} gives the win away");
    assert!(
        collect.warnings.iter().any(|w| w.contains("KQvK")),
        "{:?}",
        collect.warnings
    );
    // Each failure is said once, as the engine goes on without the table.
    let (mut engine, _) = open();
    let (_, collect) = best_move(
        &mut engine,
        &board("8/8/8/4k3/8/8/8/KBN5 w - - 0 1"),
        Limits::depth(4),
    );
    let warnings = &collect.warnings;
    assert!(warnings.iter().any(|w| w.contains("KBNvK")), "{warnings:?}");
    let unique: std::collections::HashSet<&String> = warnings.iter().collect();
    assert_eq!(unique.len(), warnings.len(), "{warnings:?}");
}

#[test]
fn missing_directories_are_left_out_and_no_path_means_no_tables() {
    let mut engine = Engine::default();
    assert!(engine.set_syzygy_path("/nonexistent/syzygy").is_err());
    let separator = patina::PATH_SEPARATOR;
    let found = engine
        .set_syzygy_path(&format!("{TABLES}{separator}{TABLES}"))
        .expect("both directories open");
    assert!(found.contains("up to 4 pieces"), "{found}");
    // An unmounted drive among several costs its own tables only.
    let found = engine
        .set_syzygy_path(&format!("/nonexistent/syzygy{separator}{TABLES}"))
        .expect("one directory opens");
    assert!(
        found.contains("up to 4 pieces")
            && found.contains("left out directory '/nonexistent/syzygy'"),
        "{found}"
    );
    engine.set_board(board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"));
    assert_eq!(
        engine.probe_tablebases().map(|p| p.map(|(wdl, _)| wdl)),
        Ok(Some(Wdl::Win))
    );
    engine.set_syzygy_path("<empty>").expect("no tables");
    engine.set_board(board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"));
    assert_eq!(engine.probe_tablebases(), Ok(None));
}

/// Plays `fen` out with the engine on both sides at `nodes` per move; returns the outcome and
/// the half-move clock it came at.
fn play_out(engine: &mut Engine, fen: &str, nodes: u64) -> (Outcome, u16) {
    let mut board = board(fen);
    loop {
        if let Some(outcome) = board.outcome() {
            return (outcome, board.halfmove_clock());
        }
        engine.set_board(board.clone());
        let result = engine.search(Limits::nodes(nodes), &mut Silent);
        board.make_move(result.best_move.expect("a legal move"));
    }
}

/// KQvK and KRvK wins from several starts: kings central, cornered or apart, either side to move.
const QUEEN_AND_ROOK_WINS: [&str; 8] = [
    "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
    "k7/8/8/8/8/8/8/6QK w - - 0 1",
    "8/8/3k4/8/8/8/8/1Q2K3 b - - 0 1",
    "8/8/8/8/2K5/8/5k2/7Q w - - 0 1",
    "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
    "7k/8/8/8/3K4/8/8/R7 w - - 0 1",
    "8/8/8/8/8/3k4/8/R3K3 b - - 0 1",
    "8/2k5/8/8/8/8/5K2/7R w - - 0 1",
];

/// KBNvK wins: up to 33 moves to mate, driving the king to a corner of the bishop's colour.
/// The search alone does not reliably convert them: the net hardly tells the mating corners from
/// the others, and 5-piece tables, which every tournament provides, do.
const BISHOP_AND_KNIGHT_WINS: [&str; 4] = [
    "8/8/8/4k3/8/8/8/KBN5 w - - 0 1",
    "8/8/8/4k3/8/8/8/KBN5 b - - 0 1",
    "8/8/3k4/8/8/8/8/1NB1K3 w - - 0 1",
    "7k/8/8/8/8/8/8/1NB1K3 w - - 0 1",
];

/// Plays each start out at `nodes` a move with a fresh engine from `engine` and asserts a mate.
fn assert_mates_from(starts: &[&str], nodes: u64, engine: impl Fn() -> Engine) {
    for fen in starts {
        let (outcome, clock) = play_out(&mut engine(), fen, nodes);
        assert_eq!(outcome, Outcome::Checkmate, "{fen} after {clock} plies");
    }
}

#[test]
fn tables_convert_won_endgames_within_fifty_moves() {
    let starts: Vec<&str> = QUEEN_AND_ROOK_WINS
        .iter()
        .chain(&BISHOP_AND_KNIGHT_WINS)
        .copied()
        .collect();
    assert_mates_from(&starts, 2_000, || engine_with_tables(TABLES));
}

#[test]
fn the_search_alone_converts_queen_and_rook_wins() {
    assert_mates_from(&QUEEN_AND_ROOK_WINS, 20_000, Engine::default);
}
