//! The games in play, one per browser tab, each with its own engine. One search runs per game
//! at a time, on the engine's background thread: Patina's reply, or a look at a position that
//! plays nothing (the evaluation of the position a person is to move in, or analysis). Each
//! position's latest evaluation is kept, so the score stays right after a takeback and while
//! stepping through the moves; the page polls for the search's progress, drawn by `view`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{json, Value};

use patina::{Color, Engine, Limits, Reporter, SearchInfo, SearchResult};

use super::api::{ApiError, Pace, SessionId, Setup, Start};
use super::state::{Evaluation, State, Task, Timing};
use super::view::{squares, view};
use crate::clock::Clock;
use crate::game::{pgn_date, random_below, End, Game};

/// Games held at once; a new tab beyond this takes over the longest-idle game, if any is idle.
const MAX_GAMES: usize = 16;
/// A game untouched this long may be taken over by a new tab.
const IDLE: Duration = Duration::from_secs(10 * 60);
/// Patina's look at a position the person is to move in, for the eval bar: short, so that it
/// costs the person's moves nothing.
const EVALUATION_TIME: Duration = Duration::from_millis(300);
/// Analysis of one position ends after this long, so a forgotten tab does not search for ever.
const ANALYSIS_TIME: Duration = Duration::from_secs(60);
/// The longest Patina thinks for a hint.
const HINT_TIME: Duration = Duration::from_secs(1);

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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere leaves the game as it was; keep serving it.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    /// The engine with no search running, and the game: for a change a search must not race.
    /// Patina's reply is stopped (its move is played first) or, unless `stop_reply`, refused.
    fn halted(
        &self,
        stop_reply: bool,
    ) -> Result<(MutexGuard<'_, Engine>, MutexGuard<'_, State>), ApiError> {
        let mut engine = lock(&self.engine);
        if !stop_reply && lock(&self.state).search == Some(Task::Reply) {
            return Err(ApiError::conflict("Patina is thinking; wait for its move"));
        }
        engine.stop();
        engine.wait();
        let mut state = lock(&self.state);
        state.touch();
        Ok((engine, state))
    }
}

impl Games {
    /// The game as the page draws it.
    pub fn state(&self, id: &SessionId) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let mut state = lock(&session.state);
        state.touch();
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

    /// Plays the person's move and starts Patina's reply (in analysis, the analysis of the
    /// position after it).
    pub fn play(&self, id: &SessionId, text: &str) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let (mut engine, mut state) = session.halted(false)?;
        state.check_may_move()?;
        let mv = state
            .game
            .parse_move(text)
            .map_err(|e| ApiError::bad(e.to_string()))?;
        let now = Instant::now();
        if let Some(Err(flagged)) = state.clock_mut().map(|clock| clock.press(now)) {
            state.game.flag(flagged);
        } else {
            state
                .game
                .play(mv)
                .map_err(|e| ApiError::bad(e.to_string()))?;
            state.after_move(now);
        }
        schedule(&mut engine, &mut state, &session.state);
        Ok(view(id, &state))
    }

    /// Takes back the person's last move and what followed it; in analysis, the last move.
    pub fn undo(&self, id: &SessionId) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let (mut engine, mut state) = session.halted(true)?;
        if let Some(End::Timeout { .. }) = state.game.end() {
            return Err(ApiError::conflict(
                "the game ended on time; start a new one",
            ));
        }
        let human = state.human;
        let analysing = state.analysed.is_some();
        let game = &mut state.game;
        let resigned = matches!(game.end(), Some(End::Resignation { .. }));
        let has_own_move = (0..game.moves().len()).any(|i| analysing || game.mover(i) == human);
        if !resigned && !has_own_move {
            return Err(ApiError::conflict("no move of yours to take back"));
        }
        if analysing || resigned {
            game.undo();
        } else {
            while game.undo().is_some() && game.side_to_move() != human {}
        }
        let plies = state.game.moves().len();
        state.evaluations.truncate(plies + 1);
        if analysing {
            state.analysed = Some(plies);
        } else {
            state.start_clock(Instant::now());
        }
        schedule(&mut engine, &mut state, &session.state);
        Ok(view(id, &state))
    }

    /// Patina's suggestion for the side the person is to move for: the game's view with a
    /// `hint` added (the move in SAN and its squares).
    pub fn hint(&self, id: &SessionId) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let (mut engine, state) = session.halted(false)?;
        state.check_may_move()?;
        let board = state.game.board().clone();
        let ply = state.game.moves().len();
        let time = match state.timing {
            Timing::MoveTime(time) => time.min(HINT_TIME),
            Timing::Clock(_) => HINT_TIME,
        };
        let limits = Limits {
            movetime: Some(time),
            ..Limits::default()
        };
        // The search reports into the state: let it take the lock.
        drop(state);
        engine.set_chess960(board.is_chess960());
        engine.set_board(board.clone());
        engine.set_strength(None);
        let mut reporter = WebReporter {
            state: Arc::clone(&session.state),
            ply,
        };
        let best = engine.search(limits, &mut reporter).best_move;
        let mut state = lock(&session.state);
        schedule(&mut engine, &mut state, &session.state);
        let mut answer = view(id, &state);
        if let Some(mv) = best.filter(|_| state.game.moves().len() == ply) {
            let (from, to) = squares(&state.game, mv);
            answer["hint"] = json!({ "san": board.san(mv), "from": from, "to": to });
        }
        Ok(answer)
    }

    /// The person gives up the game.
    pub fn resign(&self, id: &SessionId) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let (_engine, mut state) = session.halted(true)?;
        if state.analysed.is_some() {
            return Err(ApiError::conflict(
                "in analysis nobody plays; 'Play from here' first",
            ));
        }
        if state.game.is_over() {
            return Err(ApiError::conflict("the game is already over"));
        }
        let human = state.human;
        state.game.resign(human);
        state.after_move(Instant::now());
        Ok(view(id, &state))
    }

    /// Analysis of the position after `ply` moves (the live one if `None`): Patina stops playing
    /// and the clocks stop.
    pub fn analyse(&self, id: &SessionId, ply: Option<usize>) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let (mut engine, mut state) = session.halted(true)?;
        let plies = state.game.moves().len();
        let ply = ply.unwrap_or(plies);
        if ply > plies {
            return Err(ApiError::bad(format!(
                "'ply' must be 0 to {plies}: the game has {plies} half-moves"
            )));
        }
        if let Some(clock) = state.clock_mut() {
            clock.stop(Instant::now());
        }
        state.analysed = Some(ply);
        schedule(&mut engine, &mut state, &session.state);
        Ok(view(id, &state))
    }

    /// Ends analysis: the game goes on from its live position, the person playing the side to
    /// move, with the clocks (if any) running again.
    pub fn resume(&self, id: &SessionId) -> Result<Value, ApiError> {
        let session = self.session(id)?;
        let (mut engine, mut state) = session.halted(true)?;
        if state.analysed.take().is_none() {
            return Err(ApiError::conflict("the game is not in analysis"));
        }
        state.human = state.game.side_to_move();
        state.start_clock(Instant::now());
        schedule(&mut engine, &mut state, &session.state);
        Ok(view(id, &state))
    }

    /// Starts a game: in the tab's session if it still has one, else in a new session.
    pub fn new_game(&self, id: Option<SessionId>, setup: Setup) -> Result<Value, ApiError> {
        let mut analysed = None;
        let game = match setup.start {
            Start::Standard => Game::default(),
            Start::Fen(fen) => {
                Game::from_fen(&fen, false).map_err(|e| ApiError::bad(e.to_string()))?
            }
            Start::Chess960(index) => Game::chess960(index.unwrap_or_else(|| random_below(960))),
            Start::Pgn(pgn) => {
                let game = Game::from_pgn(&pgn).map_err(ApiError::bad)?;
                // An imported game opens in analysis at its last position.
                analysed = Some(game.moves().len());
                game
            }
        };
        let human = setup.human.unwrap_or(if random_below(2) == 0 {
            Color::White
        } else {
            Color::Black
        });
        let timing = match setup.pace {
            Pace::MoveTime(time) => Timing::MoveTime(time),
            Pace::Clock(control) => Timing::Clock(Clock::new(control)),
        };
        let mut state = State {
            game,
            human,
            timing,
            rating: setup.rating,
            analysed,
            search: None,
            evaluations: Vec::new(),
            last_seen: Instant::now(),
        };
        if analysed.is_none() {
            state.start_clock(Instant::now());
        }
        let (id, session) = match id.and_then(|id| Some((id.clone(), self.session(&id).ok()?))) {
            Some((id, session)) => {
                {
                    let (mut engine, mut old) = session.halted(true)?;
                    engine.clear();
                    *old = state;
                }
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
        schedule(&mut engine, &mut state, &session.state);
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
                    (state.search.is_none() && state.last_seen.elapsed() >= IDLE)
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

/// Starts the search the game calls for, if any: analysis of the position analysed, Patina's
/// reply on its move, or else an evaluation of the person's position when none is known.
fn schedule(engine: &mut Engine, state: &mut State, shared: &Arc<Mutex<State>>) {
    let plies = state.game.moves().len();
    let (task, ply, limits) = if let Some(ply) = state.analysed {
        let limits = Limits {
            movetime: Some(ANALYSIS_TIME),
            ..Limits::default()
        };
        (Task::Evaluate, ply, limits)
    } else if state.game.is_over() {
        return;
    } else if state.game.side_to_move() != state.human {
        let limits = match &state.timing {
            Timing::Clock(clock) => clock.limits(Instant::now()),
            Timing::MoveTime(time) => Limits {
                movetime: Some(*time),
                ..Limits::default()
            },
        };
        (Task::Reply, plies, limits)
    } else if state.evaluations.get(plies).is_none_or(Option::is_none) {
        let limits = Limits {
            movetime: Some(EVALUATION_TIME),
            ..Limits::default()
        };
        (Task::Evaluate, plies, limits)
    } else {
        return;
    };
    let board = state.game.board_at(ply);
    // A finished position's evaluation is its result.
    if board.outcome().is_some() {
        return;
    }
    state.search = Some(task);
    engine.set_chess960(state.game.is_chess960());
    engine.set_board(board);
    engine.set_strength(state.rating.strength().filter(|_| task == Task::Reply));
    let reporter = WebReporter {
        state: Arc::clone(shared),
        ply,
    };
    let done = Arc::clone(shared);
    engine.go(
        limits,
        Box::new(reporter),
        Box::new(move |result: SearchResult| {
            let mut state = lock(&done);
            state.search = None;
            if task == Task::Reply {
                state.reply(ply, result.best_move);
            }
        }),
    );
}

/// Keeps the search's progress as the evaluation of the position it searches.
struct WebReporter {
    state: Arc<Mutex<State>>,
    /// The position searched: the one after this many moves.
    ply: usize,
}

impl Reporter for WebReporter {
    fn report(&mut self, info: &SearchInfo) {
        let evaluation = Evaluation {
            depth: info.depth,
            score: info.score,
            nodes: info.nodes,
            pv: info.pv.clone(),
        };
        lock(&self.state).set_evaluation(self.ply, Some(evaluation));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::Rating;
    use crate::web::api::MIN_MOVE_TIME;

    fn setup(start: Start) -> Setup {
        Setup {
            human: Some(Color::White),
            pace: Pace::MoveTime(MIN_MOVE_TIME),
            start,
            rating: Rating::FULL,
        }
    }

    #[test]
    fn games_are_bounded_and_isolated() {
        let games = Games::default();
        let start = |games: &Games| {
            let view = games.new_game(None, setup(Start::Standard))?;
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
            assert_eq!(state.search, None);
            assert_eq!(state.game.moves().len(), 2);
            assert_eq!(state.game.moves()[0].san, "e4");
            // The reply's line evaluates the position after it.
            assert!(
                state.evaluations[2].is_some(),
                "the reply's search reported nothing"
            );
        }

        // A takeback returns both moves; no reply starts, since it is the person's move.
        assert!(games.undo(&newcomer).is_ok());
        let state = lock(&session.state);
        assert!(state.game.moves().is_empty());
        assert_ne!(state.search, Some(Task::Reply));
        assert!(state.evaluations.len() <= 1);
    }

    #[test]
    fn analysis_plays_no_move() {
        let games = Games::default();
        let pgn = "1. e4 e5 2. Nf3 *".to_string();
        let view = games.new_game(None, setup(Start::Pgn(pgn))).unwrap();
        let id = SessionId::parse(view["session"].as_str().unwrap()).unwrap();
        assert_eq!(view["analysis"], 3);
        assert_eq!(view["moves"].as_array().unwrap().len(), 3);
        assert_eq!(view["positions"].as_array().unwrap().len(), 4);
        // Black's move, played by the person; then analysis of an earlier position.
        let view = games.play(&id, "Nc6").unwrap();
        assert_eq!(view["analysis"], 4);
        let view = games.analyse(&id, Some(1)).unwrap();
        assert_eq!(
            (view["analysis"].clone(), view["searching"].clone()),
            (json!(1), json!(true))
        );
        assert_eq!(games.analyse(&id, Some(9)).unwrap_err().status, 400);
        let session = games.session(&id).unwrap();
        lock(&session.engine).stop();
        lock(&session.engine).wait();
        {
            let state = lock(&session.state);
            assert_eq!(state.game.moves().len(), 4);
            assert!(state.evaluations[1].is_some());
        }
        // Playing on: the person takes the side to move (White), Patina the other.
        let view = games.resume(&id).unwrap();
        assert_eq!(
            (view["human"].as_str(), view["yourMove"].as_bool()),
            (Some("white"), Some(true))
        );
        assert_eq!(games.resume(&id).unwrap_err().status, 409);
    }
}
