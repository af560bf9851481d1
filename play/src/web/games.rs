//! The games in play, one per browser tab, each with its own engine. The engine searches on a
//! background thread, one search per game, and publishes its progress for the page to poll.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{json, Map, Value};

use patina::score::{is_decisive, Score};
use patina::{Board, Color, Engine, Limits, Reporter, SearchInfo, SearchResult};

use super::api::{ApiError, SessionId, Setup, Start};
use crate::game::{color_name, line_san, pgn_date, random_below, End, Game};
use crate::score::score_text;

/// Games held at once; a new tab beyond this takes over the longest-idle game, if any is idle.
const MAX_GAMES: usize = 16;
/// A game untouched this long may be taken over by a new tab.
const IDLE: Duration = Duration::from_secs(10 * 60);

/// Every game in play, by session id. Its methods may wait for a search to stop: call them
/// where blocking is allowed.
#[derive(Default)]
pub struct Games {
    sessions: Mutex<HashMap<SessionId, Arc<Session>>>,
}

/// One tab's game. Lock order: `engine` before `state`; the search thread takes only `state`,
/// so waiting for a search while holding `engine` (but not `state`) cannot deadlock.
struct Session {
    engine: Mutex<Engine>,
    state: Arc<Mutex<State>>,
}

struct State {
    game: Game,
    human: Color,
    move_time: Duration,
    thinking: bool,
    info: Option<Value>,
    last_seen: Instant,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere leaves the game as it was; keep serving it.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Games {
    /// The game as the page draws it.
    pub fn state(&self, id: &SessionId) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let mut state = lock(&session.state);
        state.last_seen = Instant::now();
        Ok(view(id, &state))
    }

    pub fn pgn(&self, id: &SessionId) -> Result<String, ApiError> {
        let session = self.session(id)?;
        let state = lock(&session.state);
        let (white, black) = match state.human {
            Color::White => ("You", "Patina"),
            Color::Black => ("Patina", "You"),
        };
        Ok(state.game.pgn(white, black, &pgn_date()))
    }

    /// Plays the person's move and starts the engine's reply.
    pub fn play(&self, id: &SessionId, text: &str) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let mut engine = lock(&session.engine);
        let mut state = lock(&session.state);
        state.last_seen = Instant::now();
        if state.thinking {
            return Err(ApiError::status(
                StatusCode::CONFLICT,
                "Patina is thinking; wait for its move",
            ));
        }
        if state.game.is_over() || state.game.side_to_move() != state.human {
            return Err(ApiError::status(
                StatusCode::CONFLICT,
                "it is not your move",
            ));
        }
        let mv = state
            .game
            .parse_move(text)
            .map_err(|e| ApiError::bad(e.to_string()))?;
        state
            .game
            .play(mv)
            .map_err(|e| ApiError::bad(e.to_string()))?;
        think(&mut engine, &mut state, &session.state);
        Ok(view(id, &state))
    }

    /// Takes back the person's last move and what followed it.
    pub fn undo(&self, id: &SessionId) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let mut engine = lock(&session.engine);
        // A takeback while the engine thinks: its move is played, then taken back too.
        engine.stop();
        engine.wait();
        let mut state = lock(&session.state);
        state.last_seen = Instant::now();
        let human = state.human;
        let game = &mut state.game;
        let resigned = matches!(game.end(), Some(End::Resignation { .. }));
        if !resigned && !(0..game.moves().len()).any(|i| game.mover(i) == human) {
            return Err(ApiError::status(
                StatusCode::CONFLICT,
                "no move of yours to take back",
            ));
        }
        while game.undo().is_some() && game.side_to_move() != human {}
        // The line shown was searched in a position no longer on the board.
        state.info = None;
        think(&mut engine, &mut state, &session.state);
        Ok(view(id, &state))
    }

    /// Starts a game: in the tab's session if it still has one, else in a new session.
    pub fn new_game(&self, id: Option<SessionId>, setup: Setup) -> Result<Value, ApiError> {
        let game = match setup.start {
            Start::Standard => Game::default(),
            Start::Fen(fen) => {
                Game::from_fen(&fen, false).map_err(|e| ApiError::bad(e.to_string()))?
            }
            Start::Chess960(index) => Game::chess960(index.unwrap_or_else(|| random_below(960))),
        };
        let human = setup.human.unwrap_or(if random_below(2) == 0 {
            Color::White
        } else {
            Color::Black
        });
        let state = State {
            game,
            human,
            move_time: setup.move_time,
            thinking: false,
            info: None,
            last_seen: Instant::now(),
        };
        let (id, session) = match id.and_then(|id| Some((id.clone(), self.session(&id).ok()?))) {
            Some((id, session)) => {
                let mut engine = lock(&session.engine);
                engine.stop();
                engine.wait();
                engine.clear();
                *lock(&session.state) = state;
                drop(engine);
                (id, session)
            }
            None => {
                let session = Arc::new(Session {
                    engine: Mutex::new(Engine::default()),
                    state: Arc::new(Mutex::new(state)),
                });
                let id = self.insert(Arc::clone(&session))?;
                (id, session)
            }
        };
        let mut engine = lock(&session.engine);
        let mut state = lock(&session.state);
        think(&mut engine, &mut state, &session.state);
        Ok(view(&id, &state))
    }

    fn session(&self, id: &SessionId) -> Result<Arc<Session>, ApiError> {
        lock(&self.sessions).get(id).cloned().ok_or_else(|| {
            ApiError::status(
                StatusCode::NOT_FOUND,
                "this game has ended on the server; start a new one",
            )
        })
    }

    /// Adds a game, taking the place of the longest-idle one when all places are taken.
    fn insert(&self, session: Arc<Session>) -> Result<SessionId, ApiError> {
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= MAX_GAMES {
            let idle = sessions
                .iter()
                .filter_map(|(id, s)| {
                    let state = s.state.try_lock().ok()?;
                    (!state.thinking && state.last_seen.elapsed() >= IDLE)
                        .then_some((state.last_seen, id.clone()))
                })
                .min();
            match idle {
                Some((_, id)) => {
                    sessions.remove(&id);
                }
                None => {
                    return Err(ApiError::status(
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!("the server already holds {MAX_GAMES} games; try again later"),
                    ))
                }
            }
        }
        let id = SessionId::random();
        sessions.insert(id.clone(), session);
        Ok(id)
    }
}

/// Starts the engine's search when it is its move.
fn think(engine: &mut Engine, state: &mut State, shared: &Arc<Mutex<State>>) {
    if state.thinking || state.game.is_over() || state.game.side_to_move() == state.human {
        return;
    }
    state.thinking = true;
    state.info = None;
    let board = state.game.board().clone();
    engine.set_chess960(state.game.is_chess960());
    engine.set_board(board.clone());
    let limits = Limits {
        movetime: Some(state.move_time),
        ..Limits::default()
    };
    let reporter = WebReporter {
        state: Arc::clone(shared),
        board,
    };
    let done = Arc::clone(shared);
    engine.go(
        limits,
        Box::new(reporter),
        Box::new(move |result: SearchResult| {
            let mut state = lock(&done);
            state.thinking = false;
            if let Some(mv) = result.best_move {
                // `play` refuses a move the position no longer allows.
                let _ = state.game.play(mv);
            }
        }),
    );
}

/// Publishes the search's progress for the page's eval bar and line.
struct WebReporter {
    state: Arc<Mutex<State>>,
    board: Board,
}

impl Reporter for WebReporter {
    fn report(&mut self, info: &SearchInfo) {
        let value = json!({
            "depth": info.depth,
            "score": score_text(info.score, self.board.side_to_move()),
            "eval": eval_for_bar(info.score, self.board.side_to_move()),
            "nodes": info.nodes,
            "pv": line_san(&self.board, &info.pv),
        });
        lock(&self.state).info = Some(value);
    }
}

/// Normalised centipawns from White's view, mates and tablebase results as ±10000, for the
/// eval bar.
fn eval_for_bar(score: Score, side_to_move: Color) -> i32 {
    let white = if side_to_move == Color::White {
        score
    } else {
        -score
    };
    if is_decisive(white) {
        10_000 * white.signum()
    } else {
        patina::wdl::to_cp(white)
    }
}

fn view(id: &SessionId, state: &State) -> Value {
    let game = &state.game;
    let board = game.board();
    let your_move = !state.thinking && !game.is_over() && board.side_to_move() == state.human;
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
    let last_move = game.last_move().map(|mv| {
        let to = if mv.is_castle() && !game.is_chess960() {
            mv.castling_destinations().0
        } else {
            mv.to()
        };
        json!([mv.from().to_string(), to.to_string()])
    });
    let end = game.end();
    json!({
        "session": id.as_str(),
        "fen": board.to_fen(),
        "turn": color_key(board.side_to_move()),
        "human": color_key(state.human),
        "yourMove": your_move,
        "dests": dests,
        "lastMove": last_move,
        "check": board.in_check(),
        "moves": game.moves().iter().map(|m| m.san.as_str()).collect::<Vec<_>>(),
        "firstMoveNumber": game.start().fullmove_number(),
        "firstTurn": color_key(game.start().side_to_move()),
        "chess960": game.is_chess960(),
        "thinking": state.thinking,
        "info": state.info,
        "end": end.map(|end| end.to_string()),
        "result": end.map_or("*", End::result),
        "movetime": state.move_time.as_millis() as u64,
        "status": status_text(state),
    })
}

fn status_text(state: &State) -> String {
    match state.game.end() {
        Some(end) => format!("{end} ({}).", end.result()),
        None if state.thinking => "Patina is thinking…".to_string(),
        None if state.game.side_to_move() == state.human => format!(
            "Your move ({}).{}",
            color_name(state.human),
            if state.game.board().in_check() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::api::MIN_MOVE_TIME;

    #[test]
    fn games_are_bounded_and_isolated() {
        let games = Games::default();
        let start = |games: &Games| {
            let setup = Setup {
                human: Some(Color::White),
                move_time: MIN_MOVE_TIME,
                start: Start::Standard,
            };
            let view = games.new_game(None, setup)?;
            SessionId::parse(view["session"].as_str().unwrap())
        };
        let first = start(&games).unwrap();
        for _ in 1..MAX_GAMES {
            start(&games).unwrap();
        }
        assert_eq!(start(&games).unwrap_err().status, 503);
        // A game idle long enough gives its place up.
        lock(&games.session(&first).unwrap().state).last_seen -= IDLE;
        let newcomer = start(&games).unwrap();
        assert_eq!(
            games.session(&first).err().map(|e| e.status),
            Some(StatusCode::NOT_FOUND)
        );
        assert!(games.session(&newcomer).is_ok());

        // Moves go to the game they name, and illegal ones are refused with the reason.
        let error = games.play(&newcomer, "e2e5").unwrap_err();
        assert_eq!(error.status, 400);
        assert!(
            error.message.contains("'e2e5' is not a legal move"),
            "{}",
            error.message
        );
        assert!(games.play(&newcomer, "e2e4").is_ok());
        assert_eq!(
            games.play(&newcomer, "d2d4").err().map(|e| e.status),
            Some(StatusCode::CONFLICT)
        );
        let session = games.session(&newcomer).unwrap();
        lock(&session.engine).wait();
        {
            let state = lock(&session.state);
            assert!(!state.thinking);
            assert_eq!(state.game.moves().len(), 2);
            assert_eq!(state.game.moves()[0].san, "e4");
            assert!(state.info.is_some(), "the reply's search reported nothing");
        }

        // A takeback returns both moves and the line searched for the position left behind.
        assert!(games.undo(&newcomer).is_ok());
        let state = lock(&session.state);
        assert!(state.game.moves().is_empty());
        assert_eq!(state.info, None);
    }
}
