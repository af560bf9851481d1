//! The search's answers in positions whose value the rules decide: mates, and draws by
//! repetition and by the fifty-move rule reached inside the tree.

use patina::score::{mate_in, mated_in, Score};
use patina::Board;
use patina::Engine;
use patina::{Limits, SearchResult, Silent};

fn search(fen: &str, depth: i32) -> SearchResult {
    let mut engine = Engine::default();
    engine.set_board(Board::from_fen(fen).expect("a legal FEN"));
    engine.search(Limits::depth(depth), &mut Silent)
}

fn best_move(result: &SearchResult) -> String {
    result.best_move.expect("a legal move exists").to_string()
}

/// Draw scores carry a point of noise either way.
fn is_draw_score(score: Score) -> bool {
    score.abs() <= 1
}

#[test]
fn finds_the_shortest_mate() {
    // A rook ladder with a mate in 2 (1. Ra7 Kg8 2. Rb8#, or 1. Rg1 Kh7 2. Rh2#, among others)
    // and no check that mates at once. Pruning can skip the quiet first move at low depths, so
    // how soon the shortest mate shows depends on the net's move order; with depth to spare,
    // the search must prefer it to every longer mate, and its move must be one that mates in 2.
    let fen = "7k/8/8/8/8/8/R7/1R5K w - - 0 1";
    let result = search(fen, 14);
    assert_eq!(result.score, mate_in(3));
    let mut board = Board::from_fen(fen).unwrap();
    board.make_move(result.best_move.expect("a legal move exists"));
    let reply = search(&board.to_fen(), 14);
    assert_eq!(reply.score, mated_in(2), "after {}", best_move(&result));
}

#[test]
fn perpetual_check_saves_a_lost_position() {
    // A queen and a rook down, White checks forever: Qe8+ Kh7 Qh5+ Kg8 Qe8+.
    let result = search("6k1/6p1/8/8/8/8/rq6/4Q2K w - - 0 1", 10);
    assert_eq!(best_move(&result), "e1e8");
    assert!(is_draw_score(result.score), "score {}", result.score);
}

#[test]
fn the_fifty_move_rule_ends_the_game_inside_the_tree() {
    // A queen down with only king moves, which complete the hundredth half-move: a draw at
    // every depth, including the first, where the reply is left to the quiescence search.
    let lost = "7k/8/8/3q4/8/8/8/K7 w - - 0 80";
    assert!(
        search(lost, 4).score < -200,
        "the same position without the rule is lost"
    );
    let drawn = "7k/8/8/3q4/8/8/8/K7 w - - 99 80";
    for depth in [1, 2, 5] {
        let score = search(drawn, depth).score;
        assert!(is_draw_score(score), "depth {depth}: score {score}");
    }
    // Checkmate on the hundredth half-move still counts: Rh8#.
    let result = search("k7/8/1K6/8/8/8/8/7R w - - 99 80", 3);
    assert_eq!(result.score, mate_in(1));
    assert_eq!(best_move(&result), "h1h8");
}

/// Dropping an engine mid-search stops the search and waits for it: an infinite search left
/// behind would never report, and would hold a core for the rest of the process.
#[test]
fn dropping_the_engine_ends_its_search() {
    use std::sync::mpsc::channel;
    use std::time::Duration;

    let (done, finished) = channel();
    let mut engine = Engine::default();
    engine.go(
        Limits {
            infinite: true,
            ..Limits::default()
        },
        Box::new(Silent),
        Box::new(move |result| done.send(result.best_move).unwrap()),
    );
    std::thread::sleep(Duration::from_millis(50));
    drop(engine);
    let best = finished
        .recv_timeout(Duration::ZERO)
        .expect("the search reported before the drop returned");
    assert!(best.is_some());
}
