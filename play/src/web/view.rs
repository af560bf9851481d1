//! The game as the page draws it: the position and its legal moves, every position of the game
//! with Patina's evaluation of each, the clocks and a line saying whose move it is.

use std::time::Instant;

use serde_json::{json, Map, Value};

use patina::score::{is_decisive, Score};
use patina::{Board, Color, Move};

use super::api::SessionId;
use super::state::{Evaluation, State, Task, Timing};
use crate::game::{color_name, line_san, End, Game};
use crate::rating::Rating;
use crate::score::score_text;

/// The eval bar's value of a won position: the whole bar.
const BAR_WON: i32 = 10_000;

impl Evaluation {
    fn to_json(&self, board: &Board) -> Value {
        json!({
            "depth": self.depth,
            "score": score_text(self.score, board.side_to_move()),
            "eval": eval_for_bar(self.score, board.side_to_move()),
            "nodes": self.nodes,
            "pv": line_san(board, &self.pv),
        })
    }
}

/// Normalised centipawns from White's view, mates and tablebase results as the whole bar.
fn eval_for_bar(score: Score, side_to_move: Color) -> i32 {
    let white = if side_to_move == Color::White {
        score
    } else {
        -score
    };
    if is_decisive(white) {
        BAR_WON * white.signum()
    } else {
        patina::wdl::to_cp(white)
    }
}

/// The evaluation of a position the game ended in by the rules: its result.
fn final_evaluation(end: End) -> Value {
    let (score, bar) = match end.winner() {
        Some(Color::White) => ("1-0", BAR_WON),
        Some(Color::Black) => ("0-1", -BAR_WON),
        None => ("½-½", 0),
    };
    json!({ "depth": null, "score": score, "eval": bar, "nodes": null, "pv": "" })
}

/// A move's squares as the board marks them: castling as the king's two-square step.
pub(super) fn squares(game: &Game, mv: Move) -> (String, String) {
    let to = if mv.is_castle() && !game.is_chess960() {
        mv.castling_destinations().0
    } else {
        mv.to()
    };
    (mv.from().to_string(), to.to_string())
}

pub(super) fn view(id: &SessionId, state: &State) -> Value {
    let game = &state.game;
    let board = game.board();
    let end = game.end();
    let thinking = state.search == Some(Task::Reply);
    let your_move = !thinking
        && end.is_none()
        && (state.analysed.is_some() || board.side_to_move() == state.human);
    let mut dests: Map<String, Value> = Map::new();
    if your_move {
        for mv in board.legal_moves() {
            let mut targets = vec![mv.to().to_string()];
            if mv.is_castle() && !game.is_chess960() {
                // The king's two-square step, as well as king-onto-rook.
                targets.push(mv.castling_destinations().0.to_string());
            }
            let entry = dests
                .entry(mv.from().to_string())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = entry {
                for target in targets {
                    let target = Value::String(target);
                    if !list.contains(&target) {
                        list.push(target);
                    }
                }
            }
        }
    }
    // Every position of the game, for stepping through it, with Patina's evaluation of each.
    let mut positions = Vec::new();
    let mut evaluations = Vec::new();
    let mut position = game.start().clone();
    for ply in 0..=game.moves().len() {
        if ply > 0 {
            position.make_move(game.moves()[ply - 1].mv);
        }
        let last_move = ply
            .checked_sub(1)
            .map(|i| squares(game, game.moves()[i].mv));
        positions.push(json!({
            "fen": position.to_fen(),
            "lastMove": last_move.map(|(from, to)| [from, to]),
            "check": position.in_check(),
        }));
        let evaluation = match position.outcome().and(end) {
            Some(end) => Some(final_evaluation(end)),
            None => state
                .evaluations
                .get(ply)
                .cloned()
                .flatten()
                .map(|e| e.to_json(&position)),
        };
        evaluations.push(evaluation);
    }
    let now = Instant::now();
    let (move_time, clock) = match &state.timing {
        Timing::MoveTime(time) => (Some(time.as_millis() as u64), None),
        Timing::Clock(clock) => (
            None,
            Some(json!({
                "white": clock.left(Color::White, now).as_millis() as u64,
                "black": clock.left(Color::Black, now).as_millis() as u64,
                "running": clock.running().map(color_key),
                "control": clock.control().to_string(),
            })),
        ),
    };
    let live = &positions[game.moves().len()];
    json!({
        "session": id.as_str(),
        "fen": board.to_fen(),
        "turn": color_key(board.side_to_move()),
        "human": color_key(state.human),
        "yourMove": your_move,
        "dests": dests,
        "lastMove": live["lastMove"],
        "check": board.in_check(),
        "moves": game.moves().iter().map(|m| m.san.as_str()).collect::<Vec<_>>(),
        "positions": positions,
        "evaluations": evaluations,
        "firstMoveNumber": game.start().fullmove_number(),
        "firstTurn": color_key(game.start().side_to_move()),
        "chess960": game.is_chess960(),
        "thinking": thinking,
        "searching": state.search.is_some(),
        "analysis": state.analysed,
        "clock": clock,
        "end": end.map(|end| end.to_string()),
        "result": end.map_or("*", End::result),
        "movetime": move_time,
        "rating": rating_json(state.rating),
        "status": status_text(state),
    })
}

/// A rating as the page names it: `{"name": "club", "elo": 1800}`, `elo` null at full strength.
pub(super) fn rating_json(rating: Rating) -> Value {
    json!({ "name": rating.name, "elo": rating.elo })
}

fn status_text(state: &State) -> String {
    let game = &state.game;
    match game.end() {
        Some(end) => format!("{end} ({}).", end.result()),
        None if state.analysed.is_some() => format!(
            "Analysis: {} to move. Move for either side, or play on from here.",
            color_name(game.side_to_move())
        ),
        None if state.search == Some(Task::Reply) => "Patina is thinking…".to_string(),
        None if game.side_to_move() == state.human => format!(
            "Your move ({}).{}",
            color_name(state.human),
            if game.board().in_check() {
                " Check!"
            } else {
                ""
            }
        ),
        None => "Patina to move.".to_string(),
    }
}

fn color_key(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}
