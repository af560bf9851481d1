//! The real binary driven over pipes, as a GUI drives it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use patina::Board;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

struct EngineProcess {
    child: Child,
    /// `None` once closed: the engine sees the end of its input.
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl EngineProcess {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_patina"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the engine binary starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("input still open");
        writeln!(stdin, "{line}").expect("the engine reads its input");
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin.write_all(bytes).expect("the engine reads its input");
    }

    fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The process's exit, if it comes within `timeout`.
    fn exits_within(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self
                .child
                .try_wait()
                .expect("the process can be polled")
                .is_some()
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    fn eval(&mut self) -> String {
        self.send("eval");
        self.read_until("NNUE evaluation", 5 * SECOND)
            .pop()
            .unwrap()
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn read_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no '{prefix}' within {timeout:?}; got {seen:?}"),
            }
        }
    }

    /// The first line starting with `prefix` within `timeout`, if one comes; the lines before
    /// it are dropped.
    fn read_for(&mut self, prefix: &str, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return Some(line),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    }

    /// No `bestmove` has come by the time `isready` is answered; `context` names the search.
    fn assert_no_answer_yet(&mut self, context: &str) {
        self.send("isready");
        let early = self.read_until("readyok", 5 * SECOND);
        assert!(
            !early.iter().any(|l| l.starts_with("bestmove")),
            "{context}: {early:?}"
        );
    }

    fn assert_alive(&mut self) {
        self.send("isready");
        self.read_until("readyok", Duration::from_secs(30));
    }

    fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.read_until("Fen:", Duration::from_secs(5));
        lines
            .last()
            .unwrap()
            .trim_start_matches("Fen: ")
            .to_string()
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn handshake_lists_the_options() {
    let mut engine = EngineProcess::start();
    engine.send("uci");
    let lines = engine.read_until("uciok", 5 * SECOND);
    for option in [
        "Hash",
        "Threads",
        "MultiPV",
        "Move Overhead",
        "Ponder",
        "UCI_Chess960",
        "UCI_ShowWDL",
        "UCI_LimitStrength",
        "UCI_Elo",
        "Skill Level",
        "EvalFile",
        "Clear Hash",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "{option} missing"
        );
    }
    let version = env!("CARGO_PKG_VERSION");
    assert!(lines.contains(&format!("id name Patina {version}")));
}

#[test]
fn version_flag_names_the_same_version_as_uci() {
    let output = Command::new(env!("CARGO_BIN_EXE_patina"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(output.status.success());
    let expected = format!("Patina {}\n", env!("CARGO_PKG_VERSION"));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), expected);
}

/// `play` and `web` are `patina-play`'s, looked for beside the binary; without it one line says
/// how to build it.
#[test]
fn play_without_patina_play_says_how_to_build_it() {
    // A hard link, not a copy: a file just written may still be open in a child that another
    // test forked meanwhile, and then cannot be run.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let alone = dir
        .path()
        .join(format!("patina{}", std::env::consts::EXE_SUFFIX));
    std::fs::hard_link(env!("CARGO_BIN_EXE_patina"), &alone).unwrap();
    for command in ["play", "web"] {
        let output = Command::new(&alone)
            .arg(command)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!output.status.success());
        let error = String::from_utf8(output.stderr).unwrap();
        assert!(
            error.contains("needs patina-play beside this binary"),
            "{error}"
        );
        assert!(
            error.contains("`cargo build --release` builds both"),
            "{error}"
        );
        assert_eq!(error.lines().count(), 1, "{error}");
    }
}

#[test]
fn bad_input_is_reported_and_the_last_good_state_kept() {
    let mut engine = EngineProcess::start();
    engine.send("position startpos moves e2e4");
    let good = engine.fen();
    for bad in [
        "position startpos moves e7e5 e1e3",
        "position fen 8/8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e5",
        "position",
        "setoption name Hash value lots",
        "setoption name Hash value 0",
        "setoption name NoSuchOption value 1",
        "setoption name EvalFile value /nonexistent/net.nnue",
        "xyzzy",
    ] {
        engine.send(bad);
        let lines = engine.read_until("info string error", 5 * SECOND);
        assert!(
            lines.last().unwrap().len() > "info string error: ".len(),
            "{bad}"
        );
    }
    assert_eq!(engine.fen(), good);
    // More than any test machine has (the maximum, 1 TiB): refused, and the table keeps its size.
    engine.send("setoption name Hash value 1048576");
    let lines = engine.read_until("info string error", 5 * SECOND);
    assert!(lines.last().unwrap().ends_with("using 16 MiB"), "{lines:?}");
    engine.send("go depth 3");
    let reply = engine.read_until("bestmove", 30 * SECOND);
    let best = reply
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    assert!(
        Board::from_fen(&good)
            .unwrap()
            .parse_uci_move(&best)
            .is_some(),
        "{best}"
    );
}

/// A `go` line with parts it cannot read still searches on the rest and answers, since a GUI
/// waits for `bestmove`; each skipped part is named.
#[test]
fn an_unreadable_go_part_is_reported_and_the_search_still_answers() {
    let mut engine = EngineProcess::start();
    engine.send("position startpos");
    engine.send("go depth 3 frobnicate searchmoves a1a8 d2d4");
    let lines = engine.read_until("bestmove", 30 * SECOND);
    for skipped in ["frobnicate", "a1a8"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string error") && l.contains(skipped)),
            "{skipped}: {lines:?}"
        );
    }
    assert!(
        lines.last().unwrap().starts_with("bestmove d2d4"),
        "{lines:?}"
    );

    // Without its depth the search has no limit: it answers on `stop`.
    engine.send("go depth x");
    engine.read_until("info string error", 5 * SECOND);
    engine.send("stop");
    let best = engine.read_until("bestmove", 5 * SECOND).pop().unwrap();
    let best = best.split_whitespace().nth(1).unwrap();
    assert!(Board::startpos().parse_uci_move(best).is_some(), "{best}");
}

/// What some GUIs write, though UCI does not: an upper-case promotion piece, move number 0, and
/// a line that is not UTF-8 (a file path in a legacy code page).
#[test]
fn lenient_with_harmless_deviations() {
    let mut engine = EngineProcess::start();
    engine.send("position fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 0 moves a7a8Q");
    assert_eq!(engine.fen(), "Q3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    engine.send_bytes(b"setoption name EvalFile value /nonexistent/J\xfcrgen.nnue\n");
    engine.read_until("info string error", 5 * SECOND);
    engine.assert_alive();
}

/// A refused `setoption` leaves the option's earlier value in force.
#[test]
fn a_refused_option_value_keeps_the_old_one() {
    let mut engine = EngineProcess::start();
    engine.send("setoption name MultiPV value 2");
    for bad in ["0", "many", "300"] {
        engine.send(&format!("setoption name MultiPV value {bad}"));
        engine.read_until("info string error", 5 * SECOND);
    }
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", 30 * SECOND);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 3 ") && l.contains(" multipv 2 ")),
        "{lines:?}"
    );
}

#[test]
fn strength_options_refuse_values_out_of_range() {
    let mut engine = EngineProcess::start();
    for (option, bad, error) in [
        (
            "UCI_Elo",
            "1319",
            "1319 is outside 1320..=3000 for option 'UCI_Elo'",
        ),
        (
            "UCI_Elo",
            "3001",
            "3001 is outside 1320..=3000 for option 'UCI_Elo'",
        ),
        (
            "UCI_Elo",
            "strong",
            "'strong' is not a number for option 'UCI_Elo'",
        ),
        (
            "Skill Level",
            "-1",
            "-1 is outside 0..=20 for option 'Skill Level'",
        ),
        (
            "Skill Level",
            "21",
            "21 is outside 0..=20 for option 'Skill Level'",
        ),
        (
            "UCI_LimitStrength",
            "yes",
            "'yes' is not true or false for option 'UCI_LimitStrength'",
        ),
    ] {
        engine.send(&format!("setoption name {option} value {bad}"));
        let lines = engine.read_until("info string error", 5 * SECOND);
        assert_eq!(
            lines.last().unwrap(),
            &format!("info string error: {error}")
        );
    }
    engine.assert_alive();
}

/// A limited strength ends its search at its node budget under any limit, the longest clock
/// included, yet answers `go infinite` only after `stop` and `go ponder` only after
/// `ponderhit`; its last line shows the move played.
#[test]
fn a_limited_strength_answers_soon_and_only_when_allowed() {
    let mut engine = EngineProcess::start();
    engine.send("setoption name UCI_LimitStrength value true");
    engine.send("setoption name UCI_Elo value 1500");
    engine.send("position startpos moves e2e4 e7e5");
    for go in [
        "go movetime 60000",
        "go wtime 3600000 btime 3600000 winc 30000 binc 30000",
        "go depth 60",
        "go",
    ] {
        let start = Instant::now();
        engine.send(go);
        let lines = engine.read_until("bestmove", 10 * SECOND);
        assert!(start.elapsed() < 5 * SECOND, "{go}: {:?}", start.elapsed());
        let played = lines.last().unwrap().split_whitespace().nth(1).unwrap();
        let last_pv = lines
            .iter()
            .rev()
            .find_map(|l| l.split(" pv ").nth(1))
            .unwrap();
        assert_eq!(last_pv.split_whitespace().next(), Some(played), "{go}");
    }
    for (go, release) in [
        ("go infinite", "stop"),
        ("go ponder wtime 10000 btime 10000", "ponderhit"),
    ] {
        engine.send(go);
        std::thread::sleep(Duration::from_millis(300));
        engine.assert_no_answer_yet(go);
        engine.send(release);
        engine.read_until("bestmove", 5 * SECOND);
    }
}

/// `wdl W D L` follows the score only when asked for, per mille and summing to 1000; a mate
/// is a certain win.
#[test]
fn show_wdl_adds_win_draw_loss_to_the_info_lines() {
    let mut engine = EngineProcess::start();
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", 30 * SECOND);
    assert!(lines.iter().all(|l| !l.contains(" wdl ")), "{lines:?}");
    engine.send("setoption name UCI_ShowWDL value true");
    for (position, mate) in [
        ("startpos", false),
        ("fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", true),
    ] {
        engine.send(&format!("position {position}"));
        engine.send("go depth 3");
        let lines = engine.read_until("bestmove", 30 * SECOND);
        let info: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
        assert!(!info.is_empty(), "{lines:?}");
        assert_eq!(
            mate,
            info.last().unwrap().contains(" score mate "),
            "{lines:?}"
        );
        for line in info {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let at = fields.iter().position(|&f| f == "wdl").expect(line);
            let wdl: Vec<u32> = fields[at + 1..at + 4]
                .iter()
                .map(|f| f.parse().expect(line))
                .collect();
            assert_eq!(wdl.iter().sum::<u32>(), 1000, "{line}");
            if mate && line.contains(" mate ") {
                assert_eq!(wdl, [1000, 0, 0], "{line}");
            }
        }
    }
}

#[test]
fn a_wrong_net_file_is_refused() {
    let path = std::env::temp_dir().join(format!("patina-bad-net-{}.nnue", std::process::id()));
    std::fs::write(&path, vec![0u8; 1000]).unwrap();
    let mut engine = EngineProcess::start();
    engine.send(&format!("setoption name EvalFile value {}", path.display()));
    let lines = engine.read_until("info string error", 5 * SECOND);
    assert!(lines.last().unwrap().contains("1000 bytes"));
    engine.send("eval");
    engine.read_until("NNUE evaluation", 5 * SECOND);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn evalfile_embedded_brings_back_the_built_in_net() {
    let path = std::env::temp_dir().join(format!("patina-random-net-{}.nnue", std::process::id()));
    std::fs::write(&path, patina::nnue::Network::random(7).to_bytes()).unwrap();
    let mut engine = EngineProcess::start();
    let built_in = engine.eval();
    engine.send(&format!("setoption name EvalFile value {}", path.display()));
    engine.read_until("info string loaded net", 5 * SECOND);
    assert_ne!(
        engine.eval(),
        built_in,
        "the random net evaluates differently"
    );
    engine.send("setoption name EvalFile value <embedded>");
    assert_eq!(engine.eval(), built_in);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn plays_a_legal_game_against_itself() {
    let mut engine = EngineProcess::start();
    engine.send("ucinewgame");
    let mut board = Board::startpos();
    let mut moves: Vec<String> = Vec::new();
    let mut clocks = [10_000i64, 10_000];
    for ply in 0..80 {
        if board.outcome().is_some() {
            break;
        }
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        let go = match ply % 3 {
            0 => format!("go wtime {} btime {} winc 50 binc 50", clocks[0], clocks[1]),
            1 => "go depth 4".to_string(),
            _ => "go nodes 3000".to_string(),
        };
        let start = Instant::now();
        engine.send(&go);
        let reply = engine.read_until("bestmove", 30 * SECOND);
        clocks[ply % 2] -= start.elapsed().as_millis() as i64 - 50;
        let answer: Vec<&str> = reply.last().unwrap().split_whitespace().collect();
        let best = answer[1].to_string();
        let mv = board
            .parse_uci_move(&best)
            .unwrap_or_else(|| panic!("illegal {best} in {}", board.to_fen()));
        board.make_move(mv);
        // The ponder move, where given, must be legal in the position after the best move.
        if let ["bestmove", _, "ponder", ponder] = answer[..] {
            assert!(
                board.parse_uci_move(ponder).is_some(),
                "illegal ponder move {ponder} in {}",
                board.to_fen()
            );
        }
        moves.push(best);
        assert!(clocks.iter().all(|&c| c > 0), "lost on time");
    }
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    let mut engine = EngineProcess::start();
    engine.send("setoption name Threads value 2");
    engine.send("position startpos");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    engine.assert_alive();
    let start = Instant::now();
    engine.send("stop");
    engine.read_until("bestmove", 5 * SECOND);
    assert!(
        start.elapsed() < Duration::from_millis(500),
        "stop took {:?}",
        start.elapsed()
    );
}

/// A node limit does not end a ponder search: only `ponderhit` (or `stop`) lets it answer.
#[test]
fn a_ponder_search_with_a_node_limit_waits_for_ponderhit() {
    let mut engine = EngineProcess::start();
    engine.send("position startpos moves e2e4 e7e5");
    let go = "go ponder wtime 10000 btime 10000 nodes 5000";
    engine.send(go);
    std::thread::sleep(Duration::from_millis(300));
    engine.assert_no_answer_yet(go);
    engine.send("ponderhit");
    engine.read_until("bestmove", 5 * SECOND);
}

/// `go infinite` answers only after `stop`, even when a node limit ended the search before.
#[test]
fn an_infinite_search_with_a_node_limit_waits_for_stop() {
    let mut engine = EngineProcess::start();
    engine.send("position startpos");
    let go = "go infinite nodes 2000";
    engine.send(go);
    std::thread::sleep(Duration::from_millis(300));
    engine.assert_no_answer_yet(go);
    engine.send("stop");
    engine.read_until("bestmove", 5 * SECOND);
}

/// A stop that comes before the first iteration is over still gets a searched move, with its
/// score: here the knight that takes the queen, not the first move generated.
#[test]
fn an_immediate_stop_still_plays_a_searched_move() {
    let mut engine = EngineProcess::start();
    engine.send("position fen r1b1kbnr/pppp1ppp/2n5/4p3/3qP3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 0 1");
    for go in ["go infinite", "go ponder", "go wtime 60000 btime 60000"] {
        engine.send(go);
        engine.send("stop");
        let lines = engine.read_until("bestmove", 5 * SECOND);
        assert!(
            lines.iter().any(|line| line.starts_with("info depth 1 ")),
            "{go}: {lines:?}"
        );
        let best = lines.last().unwrap().split_whitespace().nth(1);
        assert_eq!(best, Some("f3d4"), "{go}: {lines:?}");
    }
}

/// A GUI that dies mid-analysis must not leave the engine searching forever.
#[test]
fn end_of_input_stops_an_infinite_search() {
    // Black to move: White's clock alone does not limit Black's search.
    for go in [
        "go infinite",
        "go ponder wtime 60000 btime 60000",
        "go wtime 60000",
    ] {
        let mut engine = EngineProcess::start();
        engine.send("position startpos moves e2e4");
        engine.send(go);
        std::thread::sleep(Duration::from_millis(200));
        engine.close_input();
        engine.read_until("bestmove", 5 * SECOND);
        assert!(engine.exits_within(5 * SECOND), "{go}: still running");
    }
}

/// Piped input that ends after `go depth N` still gets the search's answer.
#[test]
fn end_of_input_lets_a_finite_search_answer() {
    let mut engine = EngineProcess::start();
    engine.send("go depth 8");
    engine.close_input();
    engine.read_until("bestmove", 30 * SECOND);
    assert!(engine.exits_within(5 * SECOND));
}

#[test]
fn bench_from_the_command_line_is_deterministic() {
    let run = || {
        let output = Command::new(env!("CARGO_BIN_EXE_patina"))
            .args(["bench", "5"])
            .stdin(Stdio::null())
            .output()
            .expect("the engine binary runs");
        assert!(output.status.success());
        let stdout = String::from_utf8(output.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        let last = lines.last().copied().unwrap_or_default().to_string();
        let sliders = lines.len().checked_sub(2).map(|i| lines[i]);
        assert!(
            matches!(sliders, Some("sliders: pext" | "sliders: magic")),
            "the line before the last: {sliders:?}"
        );
        let words: Vec<&str> = last.split_whitespace().collect();
        assert!(
            matches!(words[..], [nodes, "nodes", nps, "nps"]
                if nodes.parse::<u64>().is_ok_and(|n| n > 0) && nps.parse::<u64>().is_ok()),
            "last line: {last}"
        );
        words[0].to_string()
    };
    assert_eq!(run(), run());
}

/// Runs the binary with these arguments and no input: whether it succeeded, and its output.
fn run_with_args(args: &[&str]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_patina"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the engine binary runs");
    (
        output.status.success(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

/// OpenBench passes one command per argument (`patina "setoption name EvalFile value x" bench`):
/// each runs in turn, and one that fails stops the rest with a failing exit code, since a bench
/// on the wrong net or a perft of the wrong position would be taken for the right one.
#[test]
fn arguments_holding_spaces_are_one_command_each() {
    let nodes = |stdout: &str| stdout.lines().last().unwrap_or_default().to_string();
    let (ok, plain) = run_with_args(&["bench", "4"]);
    assert!(ok && plain.ends_with("nps\n"), "{plain}");
    let (ok, multipv) = run_with_args(&["setoption name MultiPV value 3", "bench 4", "quit"]);
    assert!(ok && multipv.ends_with("nps\n"), "{multipv}");
    assert_ne!(
        nodes(&plain).split_whitespace().next(),
        nodes(&multipv).split_whitespace().next(),
        "the option reached the bench"
    );

    let (ok, refused) = run_with_args(&[
        "setoption name EvalFile value /nonexistent/x.nnue",
        "bench 4",
    ]);
    assert!(!ok);
    assert!(
        refused.contains("error: /nonexistent/x.nnue: "),
        "{refused}"
    );
    assert!(
        !refused.contains("nps"),
        "no bench on the wrong net: {refused}"
    );

    let (ok, perft) = run_with_args(&["perft", "2", "8/8/8", "w", "-", "-"]);
    assert!(!ok);
    assert!(!perft.contains("Nodes searched"), "{perft}");
}

/// `perft N` prints each root move's count, then the total; at depth 0 the one node is the
/// position itself.
#[test]
fn perft_divides_by_root_move() {
    let (ok, two) = run_with_args(&["perft 2"]);
    assert!(ok, "{two}");
    assert_eq!(
        two.lines().filter(|l| l.ends_with(": 20")).count(),
        20,
        "{two}"
    );
    assert!(two.contains("\nNodes searched: 400\n"), "{two}");

    let (ok, zero) = run_with_args(&["perft 0"]);
    assert!(ok && zero.starts_with("\nNodes searched: 1\n"), "{zero}");
}

/// OpenBench's genfens call: every FEN on its own line, each a legal position, all distinct;
/// the position set before it is kept, and the search options do not change the openings.
#[test]
fn genfens_prints_distinct_positions() {
    let (ok, stdout) = run_with_args(&[
        "position startpos moves e2e4",
        "genfens 5 seed 3 book None",
        "d",
        "quit",
    ]);
    assert!(ok, "{stdout}");
    assert!(
        stdout.contains("Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"),
        "{stdout}"
    );
    let fens_in = |out: &str| -> Vec<String> {
        out.lines()
            .filter_map(|line| line.strip_prefix("info string genfens "))
            .map(str::to_owned)
            .collect()
    };
    let fens = fens_in(&stdout);
    assert_eq!(fens.len(), 5, "{stdout}");
    assert!(fens.iter().all(|fen| Board::from_fen(fen).is_ok()));
    assert_eq!(
        fens.iter().collect::<std::collections::HashSet<_>>().len(),
        5
    );

    let (ok, threaded) = run_with_args(&[
        "setoption name Threads value 3",
        "setoption name MultiPV value 4",
        "setoption name Hash value 1",
        "genfens 5 seed 3 book None",
        "quit",
    ]);
    assert!(ok, "{threaded}");
    assert_eq!(fens_in(&threaded), fens);
}

/// genfens searches on an engine of its own: the game's hash survives it, so searching the same
/// position again after it takes fewer nodes (with the hash cleared, a one-thread search would
/// repeat itself node for node).
#[test]
fn genfens_keeps_the_game_hash() {
    let (ok, stdout) = run_with_args(&[
        "go depth 8",
        "genfens 2 seed 1 book None",
        "go depth 8",
        "d",
        "quit",
    ]);
    assert!(ok, "{stdout}");
    let nodes: Vec<u64> = stdout
        .lines()
        .filter(|line| line.starts_with("info depth 8 "))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "nodes").unwrap();
            words[at + 1].parse().unwrap()
        })
        .collect();
    assert_eq!(nodes.len(), 2, "{stdout}");
    assert!(nodes[1] < nodes[0], "{nodes:?}");
}

/// Output closed early (`patina perft 6 | head -1`) ends the engine without a panic.
#[test]
fn closed_output_ends_the_process_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_patina"))
        .args(["perft", "6"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the engine binary runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("a2a3: "), "{first}");
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            output.status.success() || output.status.signal() == Some(libc::SIGPIPE),
            "{:?}",
            output.status
        );
    }
}

/// `go depth 5` answers after its search; a `go` with no limit cannot end by itself, and with
/// no input to follow it is stopped at once.
#[test]
fn go_from_the_command_line_answers() {
    for args in [&["go", "depth", "5"][..], &["go"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_patina"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the engine binary runs");
        let deadline = Instant::now() + 30 * SECOND;
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{args:?} did not end");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut stdout = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
        let best = stdout.lines().last().unwrap_or_default();
        assert!(best.starts_with("bestmove "), "{args:?}: {stdout}");
        assert!(Board::startpos()
            .parse_uci_move(best.split_whitespace().nth(1).unwrap())
            .is_some());
    }
}

#[test]
fn ponderhit_turns_pondering_into_a_timed_search() {
    let mut engine = EngineProcess::start();
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go ponder wtime 2000 btime 2000");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("ponderhit");
    let reply = engine.read_until("bestmove", 10 * SECOND);
    assert!(reply.last().unwrap().split_whitespace().count() >= 2);
}

/// A search whose line ends at the best move (here one of depth 1) still names a reply to
/// ponder on, from the table a deeper search filled, and the reply is legal.
#[test]
fn a_one_move_line_still_names_a_ponder_move() {
    let mut engine = EngineProcess::start();
    engine.send("position startpos moves d2d4 g8f6");
    engine.send("go depth 8");
    engine.read_until("bestmove", 30 * SECOND);
    engine.send("go depth 1");
    let reply = engine.read_until("bestmove", 10 * SECOND);
    let pv = reply
        .iter()
        .rev()
        .find_map(|line| line.split_once(" pv "))
        .expect("an info line with a pv")
        .1;
    assert_eq!(pv.split_whitespace().count(), 1, "{reply:?}");
    let words: Vec<&str> = reply.last().unwrap().split_whitespace().collect();
    let ["bestmove", best, "ponder", ponder] = words[..] else {
        panic!("no ponder move: {reply:?}");
    };
    let mut board = Board::startpos();
    for text in ["d2d4", "g8f6", best] {
        let mv = board.parse_uci_move(text).expect(text);
        board.make_move(mv);
    }
    assert!(
        board.parse_uci_move(ponder).is_some(),
        "{ponder} after {best}"
    );
}

/// MultiPV lines come in score order at every depth, and line 1 is the move played.
#[test]
fn multipv_lines_are_ordered_and_the_first_is_played() {
    let mut engine = EngineProcess::start();
    engine.send("setoption name MultiPV value 4");
    engine.send("position startpos moves e2e4 c7c5 g1f3");
    engine.send("go depth 9");
    let lines = engine.read_until("bestmove", 60 * SECOND);
    let field = |line: &str, key: &str| -> Option<String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|&w| w == key)?;
        words.get(at + 1).map(|w| w.to_string())
    };
    let mut by_depth: std::collections::BTreeMap<u32, Vec<(u32, i32, String)>> = Default::default();
    for line in lines
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" pv "))
    {
        if line.contains("bound") {
            continue;
        }
        let depth: u32 = field(line, "depth").unwrap().parse().unwrap();
        let multipv: u32 = field(line, "multipv").unwrap().parse().unwrap();
        let Ok(cp) = field(line, "cp").unwrap_or_default().parse::<i32>() else {
            continue;
        };
        by_depth
            .entry(depth)
            .or_default()
            .push((multipv, cp, field(line, "pv").unwrap()));
    }
    let (_, last) = by_depth.iter().next_back().expect("info lines with scores");
    for (depth, lines) in &by_depth {
        let scores: Vec<i32> = lines.iter().map(|l| l.1).collect();
        assert!(
            scores.windows(2).all(|w| w[0] >= w[1]),
            "depth {depth}: {scores:?}"
        );
    }
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
    assert_eq!(last[0].0, 1);
    assert_eq!(best, last[0].2);
}

#[test]
fn no_legal_move_answers_0000() {
    let mut engine = EngineProcess::start();
    // Mated, then stalemated: a score for the GUI, as Stockfish gives, and the null move; with
    // UCI_ShowWDL, the certain result too.
    for (show_wdl, mated, stalemated) in [
        (false, "mate 0", "cp 0"),
        (true, "mate 0 wdl 0 0 1000", "cp 0 wdl 0 1000 0"),
    ] {
        engine.send(&format!("setoption name UCI_ShowWDL value {show_wdl}"));
        for (fen, score) in [
            ("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", mated),
            ("k7/8/1Q6/8/8/8/8/6K1 b - - 0 1", stalemated),
        ] {
            engine.send(&format!("position fen {fen}"));
            engine.send("go depth 5");
            let lines = engine.read_until("bestmove", 5 * SECOND);
            assert_eq!(
                lines[lines.len() - 2..],
                [
                    format!("info depth 0 score {score}"),
                    "bestmove 0000".into()
                ],
                "{fen}"
            );
        }
    }
    engine.send("setoption name UCI_ShowWDL value false");
    engine.send("position fen 7k/5QQ1/8/8/8/8/8/K7 b - - 0 1");
    // Even with nothing to search, an infinite or ponder search answers only when released.
    for (go, release) in [
        ("go infinite", "stop"),
        ("go ponder wtime 1000 btime 1000", "ponderhit"),
    ] {
        engine.send(go);
        std::thread::sleep(Duration::from_millis(100));
        engine.assert_no_answer_yet(go);
        engine.send(release);
        assert_eq!(
            engine.read_until("bestmove", 5 * SECOND).last().unwrap(),
            "bestmove 0000"
        );
    }
}

/// A command that needs the engine idle lets a search with a limit finish rather than cut it
/// short; one that only `stop` would end is stopped.
#[test]
fn a_command_during_a_finite_search_waits_for_it() {
    let mut engine = EngineProcess::start();
    engine.send("go depth 9");
    engine.send("d");
    let lines = engine.read_until("bestmove", 30 * SECOND);
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 9 ")),
        "{lines:?}"
    );
    engine.read_until("Fen:", 5 * SECOND);

    engine.send("go infinite");
    engine.send("position startpos moves e2e4");
    engine.read_until("bestmove", 5 * SECOND);
    assert!(engine.fen().contains("4P3"));
}

/// `UCI_Chess960` changes castling notation at once, without a new `position`; a position that
/// only Chess960 can reach keeps king-takes-rook either way.
#[test]
fn chess960_option_switches_castling_notation_at_once() {
    fn castle(engine: &mut EngineProcess, chess960: &str) -> String {
        engine.send(&format!("setoption name UCI_Chess960 value {chess960}"));
        engine.send("go depth 1 searchmoves e1g1");
        engine.read_until("bestmove", 5 * SECOND).pop().unwrap()
    }
    let mut engine = EngineProcess::start();
    engine.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(castle(&mut engine, "true"), "bestmove e1h1");
    assert_eq!(castle(&mut engine, "false"), "bestmove e1g1");

    engine.send("position fen r3k2r/8/8/8/8/8/8/1R2KR2 w KQkq - 0 1");
    assert_eq!(castle(&mut engine, "false"), "bestmove e1f1");
    assert_eq!(castle(&mut engine, "true"), "bestmove e1f1");
}

/// Positions the stream below starts from: ordinary, Chess960, near the end of the game.
const STREAM_FENS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/8/3R2K1 w - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
];

/// A UCI session as a GUI and a careless user might drive it, as a generator of command lines:
/// every command with every option and limit, each line possibly mutated.
struct CommandStream {
    rng: Xoshiro256PlusPlus,
    /// `(name, type, min, max)` of each option the engine listed.
    options: Vec<(String, String, i64, i64)>,
    /// The position the last generated `position` command names, to draw moves from.
    board: Board,
}

impl CommandStream {
    fn below(&mut self, n: u64) -> u64 {
        self.rng.next_u64() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    /// Up to two random legal moves from `board`, in UCI notation.
    fn legal_moves(&mut self, board: &Board, chess960: bool) -> Vec<String> {
        let moves = board.legal_moves();
        (0..self.below(3).min(moves.len() as u64))
            .map(|_| moves[self.below(moves.len() as u64) as usize].to_uci(chess960))
            .collect()
    }

    fn position(&mut self) -> String {
        let fen = self.pick(&STREAM_FENS);
        let mut board = Board::from_fen(fen).unwrap();
        let chess960 = board.is_chess960() || fen.contains("HF");
        board.set_chess960(chess960);
        let mut moves = Vec::new();
        for _ in 0..self.below(12) {
            let legal = board.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[self.below(legal.len() as u64) as usize];
            moves.push(mv.to_uci(chess960));
            board.make_move(mv);
        }
        self.board = board;
        let start = if fen == STREAM_FENS[0] && self.below(2) == 0 {
            "startpos".to_string()
        } else {
            format!("fen {fen}")
        };
        if moves.is_empty() && self.below(2) == 0 {
            format!("position {start}")
        } else {
            format!("position {start} moves {}", moves.join(" "))
        }
    }

    /// A `go` with a random set of limits, each small enough for the search to end soon (or
    /// `infinite` and `ponder`, which the stream stops).
    fn go(&mut self) -> String {
        let mut parts = vec!["go".to_string()];
        for _ in 0..1 + self.below(3) {
            let part = match self.below(10) {
                0 => format!("depth {}", 1 + self.below(4)),
                1 => format!("nodes {}", 1 + self.below(3000)),
                2 => format!("movetime {}", 1 + self.below(10)),
                3 => format!(
                    "wtime {} btime {} winc {} binc {}",
                    self.below(200),
                    self.below(200),
                    self.below(20),
                    self.below(20)
                ),
                4 => format!("movestogo {} wtime 50 btime 50", 1 + self.below(30)),
                5 => format!("mate {} depth 3", 1 + self.below(3)),
                6 => "infinite".to_string(),
                7 => "ponder wtime 100 btime 100".to_string(),
                8 => {
                    let board = self.board.clone();
                    let moves = self.legal_moves(&board, board.is_chess960());
                    format!("searchmoves {} depth 2", moves.join(" "))
                }
                _ => format!("nodes {}", 1 + self.below(300)),
            };
            parts.push(part);
        }
        parts.join(" ")
    }

    fn setoption(&mut self) -> String {
        let at = self.below(self.options.len() as u64) as usize;
        let (name, kind, min, max) = self.options[at].clone();
        let value = match (name.as_str(), kind.as_str()) {
            ("EvalFile", _) => self
                .pick(&["<embedded>", "/nonexistent/net.nnue", ""])
                .to_string(),
            ("SyzygyPath", _) => {
                let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
                self.pick(&[tables, "<empty>", "/nonexistent/syzygy", ""])
                    .to_string()
            }
            // Kept small: a stream of gigabyte tables or dozens of threads probes nothing new.
            ("Hash", _) => (self.below(34) as i64 - 1).to_string(),
            ("Threads", _) => (self.below(5) as i64).to_string(),
            (_, "spin") => {
                let span = (max - min).clamp(1, 1 << 20) as u64;
                (min - 2 + self.below(span + 4) as i64).to_string()
            }
            (_, "check") => self.pick(&["true", "false", "yes", ""]).to_string(),
            (_, "button") => return format!("setoption name {name}"),
            _ => self.pick(&["", "x", "<empty>"]).to_string(),
        };
        format!("setoption name {name} value {value}")
    }

    /// Replaces, inserts or removes a few tokens after the first `keep` of `line`.
    fn mutate(&mut self, line: String, keep: usize) -> String {
        const NOISE: [&str; 16] = [
            "",
            "moves",
            "fen",
            "value",
            "name",
            "-1",
            "0",
            "99999999999999999999",
            "e2e4",
            "a9",
            "\u{00e9}",
            "KQkq",
            "/",
            "go",
            "depth",
            "startpos",
        ];
        let mut tokens: Vec<String> = line.split(' ').map(String::from).collect();
        for _ in 0..self.below(4) {
            let at = keep + self.below((tokens.len() + 1 - keep) as u64) as usize;
            match self.below(3) {
                0 if at < tokens.len() => {
                    tokens.remove(at);
                }
                1 if at < tokens.len() => {
                    let mut chars: Vec<char> = tokens[at].chars().collect();
                    if !chars.is_empty() {
                        let c = self.below(chars.len() as u64) as usize;
                        chars[c] = ['x', '9', '/', ' ', 'k', '-'][self.below(6) as usize];
                    }
                    tokens[at] = chars.into_iter().collect();
                }
                _ => tokens.insert(at, self.pick(&NOISE).to_string()),
            }
        }
        tokens.join(" ")
    }

    /// A command line other than `go`, mutated one time in four.
    fn next_line(&mut self) -> String {
        let line = match self.below(12) {
            0..=3 => self.position(),
            4..=6 => self.setoption(),
            7 => "stop".to_string(),
            8 => "ponderhit".to_string(),
            9 => "ucinewgame".to_string(),
            10 => self
                .pick(&[
                    "eval",
                    "d",
                    "uci",
                    "debug on",
                    "debug off",
                    "register later",
                ])
                .to_string(),
            _ => self
                .pick(&["", "  ", "xyzzy", "position", "setoption", "fen"])
                .to_string(),
        };
        if self.below(4) != 0 {
            return line;
        }
        // A mutation that makes a `go` would start a search outside the stream's bookkeeping.
        let mutated = self.mutate(line.clone(), 0);
        match mutated.split_whitespace().next() {
            Some("go") => line,
            _ => mutated,
        }
    }
}

/// 100 000 lines of commands, many of them mutated, in one session: the engine never crashes or
/// hangs, answers every `isready`, and answers every `go` (its limits possibly mutated) with
/// exactly one `bestmove`, legal in the position it was searching.
#[test]
fn a_long_stream_of_mutated_commands() {
    const LINES: usize = 100_000;
    let mut engine = EngineProcess::start();
    engine.send("uci");
    let options = engine
        .read_until("uciok", 5 * SECOND)
        .iter()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let name_at = words.iter().position(|&w| w == "name")?;
            let type_at = words.iter().position(|&w| w == "type")?;
            let number = |key: &str| {
                let at = words.iter().position(|&w| w == key)?;
                words.get(at + 1)?.parse::<i64>().ok()
            };
            Some((
                words[name_at + 1..type_at].join(" "),
                words[type_at + 1].to_string(),
                number("min").unwrap_or(0),
                number("max").unwrap_or(0),
            ))
        })
        .collect::<Vec<_>>();
    assert!(options.len() >= 10, "{options:?}");
    let mut stream = CommandStream {
        rng: Xoshiro256PlusPlus::seed_from_u64(3),
        options,
        board: Board::startpos(),
    };
    let (mut sent, mut searches) = (0, 0);
    // The lines since the last search, for the message of a failure.
    let mut recent: Vec<String> = Vec::new();
    while sent < LINES {
        if stream.below(10) != 0 {
            let line = stream.next_line();
            engine.send(&line);
            recent.push(line);
            sent += 1;
            continue;
        }
        // A search: the position as the engine holds it (`d`, once the output of the lines
        // before has been read up to `readyok`), then the `go`, then its answer, with `stop` if
        // it does not come by itself, and nothing more after it (`isready`).
        engine.send("isready");
        engine.read_until("readyok", 10 * SECOND);
        let fen = engine.fen();
        let go = stream.go();
        let go = if stream.below(4) == 0 {
            stream.mutate(go, 1)
        } else {
            go
        };
        engine.send(&go);
        let mut reply = engine.read_for("bestmove", Duration::from_millis(20));
        if reply.is_none() {
            if stream.below(3) == 0 {
                engine.send("ponderhit");
            }
            engine.send("stop");
            reply = engine.read_for("bestmove", 10 * SECOND);
        }
        let reply = reply.unwrap_or_else(|| panic!("no bestmove for '{go}' in {fen}"));
        engine.send("isready");
        let after = engine.read_until("readyok", 10 * SECOND);
        assert!(
            !after.iter().any(|line| line.starts_with("bestmove")),
            "a second bestmove for '{go}' in {fen}: {after:?}"
        );
        let best = reply.split_whitespace().nth(1).unwrap_or_default();
        let mut board = Board::from_fen(&fen).unwrap();
        let legal = if best == "0000" {
            board.legal_moves().is_empty()
        } else {
            [false, true].into_iter().any(|chess960| {
                board.set_chess960(chess960);
                board.parse_uci_move(best).is_some()
            })
        };
        assert!(legal, "'{reply}' for '{go}' in {fen} after {recent:#?}");
        recent.clear();
        sent += 6;
        searches += 1;
    }
    engine.send("stop");
    engine.assert_alive();
    assert!(searches > LINES / 20, "{searches} searches");
}

/// The Syzygy options, `tbhits` in `info` and the `probe` command, as a GUI sees them.
#[test]
fn syzygy_options_probes_and_tbhits() {
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
    let separator = if cfg!(windows) { ';' } else { ':' };
    let (ok, stdout) = run_with_args(&[
        "uci",
        &format!("setoption name SyzygyPath value {tables}"),
        "setoption name SyzygyProbeDepth value 1",
        "setoption name SyzygyProbeLimit value 7",
        "setoption name Syzygy50MoveRule value true",
        // Five pieces: the search probes the KQvKR positions after the pawn falls.
        "position fen 8/8/8/3pk3/8/8/3r4/KQ6 w - - 0 1",
        "go depth 8",
        "position fen 8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
        "probe",
        // A second directory that is not there leaves the first one's tables.
        &format!("setoption name SyzygyPath value {tables}{separator}/nonexistent/syzygy"),
        "setoption name UCI_ShowWDL value true",
        "go depth 4",
    ]);
    assert!(ok, "{stdout}");
    for option in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
        "option name Syzygy50MoveRule type check default true",
        "info string found 14 tablebase files, up to 4 pieces",
        "info string tablebase wdl 2 dtz 17",
    ] {
        assert!(
            stdout.lines().any(|line| line == option),
            "{option}: {stdout}"
        );
    }
    assert!(
        stdout.lines().any(|line| line.starts_with(
            "info string found 14 tablebase files, up to 4 pieces; left out directory '/nonexistent/syzygy'"
        )),
        "{stdout}"
    );
    let tbhits = |info: &str| {
        let words: Vec<&str> = info.split_whitespace().collect();
        words
            .iter()
            .position(|&w| w == "tbhits")
            .and_then(|i| words[i + 1].parse::<u64>().ok())
            .expect("tbhits N")
    };
    let infos: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("info depth"))
        .collect();
    let five_pieces = infos
        .iter()
        .rfind(|line| line.starts_with("info depth 8 "))
        .expect("the five-piece search's info");
    assert!(tbhits(five_pieces) > 0, "{five_pieces}");
    // KQvK: the tables rank the root moves, a hit each; the win shows as a score beyond any
    // evaluation, certain.
    let kqvk = infos.last().expect("the KQvK search's info");
    let root_moves = Board::from_fen("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
        .expect("a valid FEN")
        .legal_moves()
        .len();
    assert_eq!(tbhits(kqvk), root_moves as u64, "{kqvk}");
    let cp: i32 = kqvk
        .split_whitespace()
        .skip_while(|&w| w != "cp")
        .nth(1)
        .and_then(|w| w.parse().ok())
        .expect("score cp N");
    assert!(cp >= patina::score::TB_WIN_BOUND, "{kqvk}");
    assert!(kqvk.contains(" wdl 1000 0 0 "), "{kqvk}");
}

/// A `SyzygyPath` that cannot be opened keeps the tables open before; a path naming no directory
/// closes them; a tablebase draw at the root prints as a certain draw.
#[test]
fn a_bad_syzygy_path_keeps_the_tables_and_their_draws_are_certain() {
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
    let separator = if cfg!(windows) { ';' } else { ':' };
    let mut engine = EngineProcess::start();
    let set_path = |engine: &mut EngineProcess, path: &str| {
        engine.send(&format!("setoption name SyzygyPath value {path}"));
        engine
            .read_until("info string", 5 * SECOND)
            .pop()
            .expect("a line")
    };
    // The same directory twice holds the same 14 files.
    assert_eq!(
        set_path(&mut engine, &format!("{tables}{separator}{tables}")),
        "info string found 14 tablebase files, up to 4 pieces"
    );
    let refused = set_path(&mut engine, "/nonexistent/syzygy");
    assert!(
        refused.starts_with("info string error: ") && refused.contains("/nonexistent/syzygy"),
        "{refused}"
    );
    engine.send("setoption name UCI_ShowWDL value true");
    // KPvK, the defending king in front of the pawn: drawn.
    engine.send("position fen 8/8/8/8/8/4k3/4P3/4K3 w - - 0 1");
    let search = |engine: &mut EngineProcess| {
        engine.send("go depth 6");
        let lines = engine.read_until("bestmove", 30 * SECOND);
        lines
            .into_iter()
            .filter(|line| line.starts_with("info depth"))
            .collect::<Vec<_>>()
    };
    // The tables kept: every line is their draw, certain, and never a bound.
    let with_tables = search(&mut engine);
    assert!(!with_tables.is_empty());
    for info in &with_tables {
        assert!(info.contains(" score cp 0 wdl 0 1000 0 "), "{info}");
        assert!(!info.contains("bound"), "{info}");
        assert!(!info.contains(" tbhits 0 "), "{info}");
    }
    assert_eq!(
        set_path(&mut engine, &separator.to_string()),
        "info string no tablebases"
    );
    // Without them: the model's draw, less than certain, and no table used.
    let without = search(&mut engine);
    let last = without.last().expect("an info line");
    assert!(last.contains(" tbhits 0 "), "{last}");
    assert!(!last.contains(" wdl 0 1000 0 "), "{last}");
}
