//! A limited strength (`UCI_LimitStrength`, `Skill Level`) through the library: its node budget
//! holds whatever the limits, its random choice is legal, varies and repeats with a seed, and at
//! the top of the range the choice is the search's own.

use std::time::{Duration, Instant};

use patina::strength::{MAX_ELO, MIN_ELO};
use patina::{Board, Engine, Limits, Move, Reporter, SearchInfo, Silent, Strength};

/// Middlegames with several reasonable moves, and one with a piece to take.
const POSITIONS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pp2nppp/4p3/2n5/3Np3/2P5/PPBN1PPP/R1BQK2R w KQkq - 0 1",
    "rn1q1rk1/pp2ppbp/2ppbnp1/8/2PP4/2N2NP1/PP2PPBP/R1BQR1K1 w - - 0 1",
    "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQK2R w KQ - 4 6",
    "rnbqkb1r/pppp1ppp/8/4p3/4n3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 1",
];

fn board(fen: &str) -> Board {
    Board::from_fen(fen).expect("a legal FEN")
}

fn limited(elo: u32, seed: u64) -> Engine {
    let mut engine = Engine::default();
    engine.set_strength(Some(Strength::from_elo(elo)));
    engine.set_strength_seed(Some(seed));
    engine
}

/// The last line reported: the one a GUI shows when the move comes.
#[derive(Default)]
struct LastLine(Option<SearchInfo>);

impl Reporter for LastLine {
    fn report(&mut self, info: &SearchInfo) {
        self.0 = Some(info.clone());
    }
}

/// Every position searched `rounds` times in turn, as a game would: the moves played.
fn moves(engine: &mut Engine, rounds: usize) -> Vec<Move> {
    let mut played = Vec::new();
    for _ in 0..rounds {
        for fen in POSITIONS {
            engine.set_board(board(fen));
            let mut last = LastLine::default();
            let result = engine.search(Limits::default(), &mut last);
            let mv = result.best_move.expect("a legal move exists");
            assert!(board(fen).legal_moves().contains(&mv), "{fen}: {mv}");
            // The last line shows the move played, with the score that comes with it.
            let line = last.0.expect("a line was reported");
            assert_eq!(line.pv.first(), Some(&mv), "{fen}");
            assert_eq!(line.score, result.score, "{fen}");
            played.push(mv);
        }
    }
    played
}

#[test]
fn a_low_level_plays_legal_moves_not_always_the_best_and_repeats_with_its_seed() {
    let best: Vec<Move> = POSITIONS
        .iter()
        .map(|fen| {
            let mut engine = Engine::default();
            engine.set_board(board(fen));
            engine
                .search(Limits::depth(10), &mut Silent)
                .best_move
                .unwrap()
        })
        .collect();
    let played = moves(&mut limited(MIN_ELO, 1), 4);
    let other = played
        .iter()
        .zip(best.iter().cycle())
        .filter(|(played, best)| played != best)
        .count();
    assert!(other > 0, "always the best move: {played:?}");
    assert_eq!(moves(&mut limited(MIN_ELO, 1), 4), played);
    assert_ne!(moves(&mut limited(MIN_ELO, 2), 4), played);
    // A new game starts the seed's sequence again.
    let mut engine = limited(MIN_ELO, 1);
    moves(&mut engine, 1);
    engine.clear();
    assert_eq!(moves(&mut engine, 4), played);
}

#[test]
fn the_top_level_plays_what_full_strength_plays_within_its_budget() {
    let top = Strength::from_elo(MAX_ELO);
    for fen in POSITIONS {
        let mut full = Engine::default();
        full.set_board(board(fen));
        let expected = full.search(Limits::depth(7), &mut Silent);
        assert!(expected.nodes < top.nodes(), "{fen}: the budget binds");
        let mut engine = limited(MAX_ELO, 1);
        engine.set_board(board(fen));
        let result = engine.search(Limits::depth(7), &mut Silent);
        assert_eq!(
            (result.best_move, result.nodes, result.score),
            (expected.best_move, expected.nodes, expected.score),
            "{fen}"
        );
    }
}

/// The budget ends a search under any limit a GUI sends, at once on a fast machine, and
/// however many threads: a clock, a move time, a depth, none at all, a smaller `go nodes`.
/// Only the first iteration, which every search completes, may cost more.
#[test]
fn the_node_budget_holds_under_every_limit() {
    let clock = Limits {
        time: [Some(Duration::from_secs(300)); 2],
        increment: [Some(Duration::from_secs(3)); 2],
        ..Limits::default()
    };
    let movetime = Limits {
        movetime: Some(Duration::from_secs(60)),
        ..Limits::default()
    };
    // Not the top: its budget of millions of nodes takes seconds on one core.
    for elo in [MIN_ELO, 1800, 2400] {
        let mut first = limited(elo, 3);
        first.set_board(board(POSITIONS[2]));
        let first = first.search(Limits::depth(1), &mut Silent).nodes;
        let budget = Strength::from_elo(elo).nodes().max(first);
        for threads in [1, 3] {
            for (name, limits, most) in [
                ("no limit", Limits::default(), budget),
                ("clock", clock.clone(), budget),
                ("movetime", movetime.clone(), budget),
                ("depth", Limits::depth(60), budget),
                ("nodes", Limits::nodes(budget / 2), (budget / 2).max(first)),
            ] {
                let mut engine = limited(elo, 3);
                engine.set_threads(threads);
                engine.set_board(board(POSITIONS[2]));
                let start = Instant::now();
                let result = engine.search(limits, &mut Silent);
                assert!(
                    result.nodes <= most + 1,
                    "{elo}, {threads} threads, {name}: {} nodes for a budget of {most}",
                    result.nodes
                );
                assert!(start.elapsed() < Duration::from_secs(5), "{elo}, {name}");
            }
        }
    }
}

/// Without a limited strength nothing changes: the same moves and node counts as an engine
/// that never had one.
#[test]
fn full_strength_again_searches_as_before() {
    let mut engine = limited(MIN_ELO, 1);
    moves(&mut engine, 1);
    engine.set_strength(None);
    for fen in POSITIONS {
        engine.clear();
        engine.set_board(board(fen));
        let mut fresh = Engine::default();
        fresh.set_board(board(fen));
        let a = engine.search(Limits::depth(6), &mut Silent);
        let b = fresh.search(Limits::depth(6), &mut Silent);
        assert_eq!((a.best_move, a.nodes), (b.best_move, b.nodes), "{fen}");
    }
}
