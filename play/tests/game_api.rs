//! A game as the page plays it, through the real server's JSON API: clocks, the score kept
//! right, hints, resignation, ratings, PGN import and analysis, and malformed input refused.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::{ask, Server};

/// A session on a running server.
struct Game<'a> {
    server: &'a Server,
    session: String,
}

impl<'a> Game<'a> {
    /// A new game with these settings (`json!` fields of `/api/new`).
    fn new(server: &'a Server, setup: Value) -> (Self, Value) {
        let (status, view) = ask(server, "POST", "/api/new", &setup.to_string());
        assert_eq!(status, 200, "{view}");
        let session = view["session"].as_str().unwrap().to_string();
        (Self { server, session }, view)
    }

    /// POSTs `path` with the session and `fields`.
    fn post(&self, path: &str, fields: Value) -> (u16, Value) {
        let mut body = fields;
        body["session"] = json!(self.session);
        ask(self.server, "POST", path, &body.to_string())
    }

    fn state(&self) -> Value {
        let (status, view) = ask(
            self.server,
            "GET",
            &format!("/api/state?session={}", self.session),
            "",
        );
        assert_eq!(status, 200, "{view}");
        view
    }

    /// Polls until `done` holds for the state; the state then.
    fn until(&self, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let started = Instant::now();
        loop {
            let view = self.state();
            if done(&view) {
                return view;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "never {what}: {view}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Plays the person's move and waits for Patina's reply.
    fn play(&self, text: &str) -> Value {
        let (status, view) = self.post("/api/move", json!({ "move": text }));
        assert_eq!(status, 200, "{text}: {view}");
        self.until("replied", |view| {
            view["yourMove"] == true || view["end"].is_string()
        })
    }
}

/// The evaluation of the live position.
fn live_evaluation(view: &Value) -> &Value {
    let evaluations = view["evaluations"].as_array().unwrap();
    assert_eq!(
        evaluations.len(),
        view["moves"].as_array().unwrap().len() + 1
    );
    evaluations.last().unwrap()
}

#[test]
fn a_flag_falls_while_the_person_thinks() {
    let server = Server::start();
    let (game, view) = Game::new(&server, json!({ "color": "white", "clock": "0.02+0" }));
    assert_eq!(view["clock"]["running"], "white");
    assert_eq!(view["clock"]["control"], "0.02+0");
    assert!(view["clock"]["white"].as_u64().unwrap() <= 1200);
    let view = game.until("flagged", |view| view["end"].is_string());
    assert_eq!(view["end"], "White ran out of time: Black wins");
    assert_eq!(view["result"], "0-1");
    assert_eq!(view["clock"]["white"], 0);
    assert_eq!(view["clock"]["running"], Value::Null);
    let (status, answer) = game.post("/api/move", json!({ "move": "e4" }));
    assert_eq!(status, 409, "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("the game is over"));
    let (status, _) = game.post("/api/undo", json!({}));
    assert_eq!(status, 409);
}

#[test]
fn patina_spends_its_own_clock() {
    let server = Server::start();
    let (game, _) = Game::new(&server, json!({ "color": "black", "clock": "1+2" }));
    let view = game.until("moved", |view| view["yourMove"] == true);
    let white = view["clock"]["white"].as_u64().unwrap();
    let black = view["clock"]["black"].as_u64().unwrap();
    // Patina spends some of its 60 s, never more than the time manager's hard cap of a
    // quarter of it (an unsettled search may run that long), and gains the 2 s increment;
    // the person's time now runs.
    assert!((47_000..62_000).contains(&white), "{view}");
    assert!((55_000..=60_000).contains(&black), "{view}");
    assert_eq!(view["clock"]["running"], "black");
    thread::sleep(Duration::from_millis(300));
    let later = game.state()["clock"]["black"].as_u64().unwrap();
    assert!(later <= black - 250, "{later} vs {black}");
}

#[test]
fn a_takeback_keeps_the_score() {
    let server = Server::start();
    let (game, _) = Game::new(&server, json!({ "color": "white", "movetime": 100 }));
    let after_reply = game.play("e4");
    let before = live_evaluation(&after_reply).clone();
    assert!(
        before["eval"].is_i64(),
        "no evaluation after Patina's reply: {after_reply}"
    );
    game.play("Nf3");
    let (status, view) = game.post("/api/undo", json!({}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["moves"].as_array().unwrap().len(), 2);
    assert_eq!(live_evaluation(&view), &before, "{view}");
}

#[test]
fn a_rook_up_from_a_fen_shows_an_advantage() {
    let server = Server::start();
    let fen = "1nbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQk - 0 1";
    // The person to move: Patina evaluates the position without playing.
    let (game, _) = Game::new(&server, json!({ "color": "white", "fen": fen }));
    let view = game.until("evaluated", |view| !live_evaluation(view).is_null());
    let evaluation = live_evaluation(&view);
    assert!(evaluation["eval"].as_i64().unwrap() > 200, "{view}");
    assert!(
        evaluation["score"].as_str().unwrap().starts_with('+'),
        "{view}"
    );
    assert_eq!(view["moves"].as_array().unwrap().len(), 0);
    // Patina to move, a rook up: its reply keeps the score.
    let (game, _) = Game::new(
        &server,
        json!({ "color": "black", "fen": fen, "movetime": 100 }),
    );
    let view = game.until("replied", |view| view["yourMove"] == true);
    assert!(
        live_evaluation(&view)["eval"].as_i64().unwrap() > 200,
        "{view}"
    );
}

#[test]
fn mate_shows_as_a_loss() {
    let server = Server::start();
    // Whatever White plays but luft, Black mates with Ra1.
    let fen = "r5k1/5ppp/8/8/1P6/8/5PPP/6K1 w - - 0 1";
    let (game, _) = Game::new(
        &server,
        json!({ "color": "white", "fen": fen, "movetime": 200 }),
    );
    let view = game.play("b5");
    assert_eq!(view["moves"], json!(["b5", "Ra1#"]));
    assert_eq!(view["result"], "0-1");
    assert_eq!(
        live_evaluation(&view),
        &json!({ "depth": null, "score": "0-1", "eval": -10000, "nodes": null, "pv": "" })
    );
}

#[test]
fn hint_and_resign() {
    let server = Server::start();
    let (game, _) = Game::new(&server, json!({ "color": "white", "movetime": 100 }));
    let (status, view) = game.post("/api/hint", json!({}));
    assert_eq!(status, 200, "{view}");
    let hint = &view["hint"];
    let from = hint["from"].as_str().unwrap();
    let to = hint["to"].as_str().unwrap();
    assert!(
        view["dests"][from].as_array().unwrap().contains(&json!(to)),
        "{view}"
    );
    assert!(!hint["san"].as_str().unwrap().is_empty());
    // The hint's search is the evaluation shown.
    assert!(!live_evaluation(&view).is_null());
    let view = game.play(&format!("{from}{to}"));
    assert_eq!(view["moves"].as_array().unwrap().len(), 2);

    let (status, view) = game.post("/api/resign", json!({}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["end"], "White resigns: Black wins");
    assert_eq!(view["result"], "0-1");
    let (status, _) = game.post("/api/hint", json!({}));
    assert_eq!(status, 409);
}

#[test]
fn plays_at_a_chosen_rating_and_hints_at_full_strength() {
    let server = Server::start();
    let (status, ratings) = ask(&server, "GET", "/api/ratings", "");
    assert_eq!(status, 200, "{ratings}");
    let ratings = ratings.as_array().unwrap();
    assert_eq!(ratings[0], json!({ "name": "beginner", "elo": 1320 }));
    assert_eq!(
        ratings.last().unwrap(),
        &json!({ "name": "full", "elo": null })
    );

    let setup = json!({ "color": "black", "movetime": 300, "rating": "beginner" });
    let (game, view) = Game::new(&server, setup);
    assert_eq!(view["rating"], json!({ "name": "beginner", "elo": 1320 }));
    let view = game.until("moved", |view| view["yourMove"] == true);
    // Patina's reply searched its level's few hundred nodes, not 300 ms' worth.
    let reply_nodes = view["evaluations"][0]["nodes"].as_u64().unwrap();
    assert!(reply_nodes < 2_000, "{view}");
    let (status, view) = game.post("/api/hint", json!({}));
    assert_eq!(status, 200, "{view}");
    let hint_nodes = live_evaluation(&view)["nodes"].as_u64().unwrap();
    assert!(
        hint_nodes > 5 * reply_nodes,
        "{hint_nodes} vs {reply_nodes}"
    );

    let (status, answer) = ask(&server, "POST", "/api/new", r#"{"rating":"strong"}"#);
    assert_eq!(status, 400);
    assert!(
        answer["error"].as_str().unwrap().contains("grandmaster"),
        "{answer}"
    );
}

#[test]
fn imports_a_pgn_and_analyses_without_playing() {
    let server = Server::start();
    let pgn = "[Event \"Casual\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 {a comment} Nc6 (2... d6) 3. Bb5 *\n";
    let (game, view) = Game::new(&server, json!({ "color": "white", "pgn": pgn }));
    assert_eq!(view["moves"], json!(["e4", "e5", "Nf3", "Nc6", "Bb5"]));
    assert_eq!(view["analysis"], 5);
    assert_eq!(view["positions"].as_array().unwrap().len(), 6);
    assert_eq!(view["positions"][1]["lastMove"], json!(["e2", "e4"]));
    // The analysis of an earlier position fills in its evaluation; Patina plays nothing.
    let (status, view) = game.post("/api/analyse", json!({ "ply": 2 }));
    assert_eq!(status, 200, "{view}");
    let view = game.until("analysed", |view| {
        view["evaluations"][2]["depth"].as_i64() >= Some(4)
    });
    assert!(!view["evaluations"][2]["pv"].as_str().unwrap().is_empty());
    assert_eq!(view["moves"].as_array().unwrap().len(), 5);
    // In analysis the person moves for either side: here Black.
    let (status, view) = game.post("/api/move", json!({ "move": "a6" }));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["analysis"], 6);
    // Playing on from here: the person is White, to move.
    let (status, view) = game.post("/api/continue", json!({}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(
        (view["human"].clone(), view["yourMove"].clone()),
        (json!("white"), json!(true))
    );
    assert_eq!(view["analysis"], Value::Null);
}

#[test]
fn malformed_input_gets_a_clear_error() {
    let server = Server::start();
    for (setup, error) in [
        (
            json!({ "pgn": "1. e4 e5 2. Ke9 *" }),
            "cannot read the PGN: illegal or unreadable move 'Ke9'",
        ),
        (
            json!({ "pgn": "1. e4 {unclosed" }),
            "cannot read the PGN: unclosed comment",
        ),
        (json!({ "pgn": "" }), "paste a game's PGN"),
        (json!({ "fen": "rnbqkbnr/pppppppp w" }), "bad FEN"),
        (json!({ "clock": "five minutes" }), "minutes+seconds"),
        (json!({ "clock": "5+3", "movetime": 500 }), "not both"),
        (json!({ "movetime": 0 }), "'movetime' must be"),
    ] {
        let (status, answer) = ask(&server, "POST", "/api/new", &setup.to_string());
        assert_eq!(status, 400, "{setup}: {answer}");
        let message = answer["error"].as_str().unwrap();
        assert!(message.contains(error), "{setup}: {message}");
    }
    let (game, _) = Game::new(&server, json!({ "color": "white", "movetime": 100 }));
    for (path, fields, status, error) in [
        (
            "/api/move",
            json!({ "move": "e5" }),
            400,
            "'e5' is not a legal move",
        ),
        ("/api/move", json!({ "move": "" }), 400, "'move' must be"),
        (
            "/api/analyse",
            json!({ "ply": 3 }),
            400,
            "'ply' must be 0 to 0",
        ),
        ("/api/analyse", json!({ "ply": -1 }), 400, "'ply' must be"),
        ("/api/continue", json!({}), 409, "not in analysis"),
        ("/api/undo", json!({}), 409, "no move of yours"),
    ] {
        let (code, answer) = game.post(path, fields.clone());
        assert_eq!(code, status, "{path} {fields}: {answer}");
        let message = answer["error"].as_str().unwrap();
        assert!(message.contains(error), "{path} {fields}: {message}");
    }
}
