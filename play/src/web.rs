//! `patina web`: the game in a browser, served by this process on a local port. The page
//! (lichess's chessground board plus a small script) is embedded in the binary; the server
//! answers only for those assets and a JSON game API, never for a file path.
//!
//! Each browser tab holds a session id and its own game and engine. The engine searches on a
//! background thread, one search per game; the page polls for its progress.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::net::{IpAddr, TcpListener};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use patina::score::{is_decisive, Score};
use patina::{Board, Color, Engine, Limits, Reporter, SearchInfo, SearchResult};

use crate::game::{color_name, line_san, pgn_date, random_below, End, Game};
use crate::score::score_text;
use http::{Method, Request, RequestError, Response};

mod http;

/// Games held at once; a new tab beyond this takes over the longest-idle game, if any is idle.
const MAX_GAMES: usize = 16;
/// A game untouched this long may be taken over by a new tab.
const IDLE: Duration = Duration::from_secs(10 * 60);
const MIN_MOVE_TIME: Duration = Duration::from_millis(50);
const MAX_MOVE_TIME: Duration = Duration::from_secs(10);
const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);
/// The largest request body read: a FEN and a few fields fit many times over.
const MAX_BODY: usize = 4096;
/// Connections served at once, each on its own thread.
const MAX_CONNECTIONS: usize = 64;
/// A browser's request head is well under 8 KiB, cookies for other local pages included.
const MAX_HEAD: usize = 16 * 1024;
/// Time a client has to send a whole request.
const REQUEST_TIME: Duration = Duration::from_secs(10);

struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const ASSETS: &[Asset] = &[
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../page/index.html"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../page/app.js"),
    },
    Asset {
        path: "/style.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../page/style.css"),
    },
    Asset {
        path: "/chessground/chessground.min.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../page/chessground/chessground.min.js"),
    },
    Asset {
        path: "/chessground/chessground.base.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../page/chessground/chessground.base.css"),
    },
    Asset {
        path: "/chessground/chessground.brown.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../page/chessground/chessground.brown.css"),
    },
    Asset {
        path: "/chessground/chessground.cburnett.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../page/chessground/chessground.cburnett.css"),
    },
];

const USAGE: &str = "usage: patina web [--port PORT] [--host HOST]

Serves a page to play Patina in a browser, on http://127.0.0.1:8080/ by default.
Bind another host (--host 0.0.0.0) only on a network you trust: anyone who reaches
the port can start games, which use this machine's CPU.";

#[derive(Debug, PartialEq, Eq)]
struct Options {
    host: String,
    port: u16,
}

fn parse_options(args: &[String]) -> Result<Option<Options>, String> {
    let mut options = Options {
        host: "127.0.0.1".to_string(),
        port: 8080,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--port" => {
                let value = args.next().ok_or("--port needs a number")?;
                options.port = value
                    .parse()
                    .map_err(|_| format!("--port takes 0 to 65535, not '{value}'"))?;
            }
            "--host" => {
                let value = args.next().ok_or("--host needs an address")?;
                options.host = value.clone();
            }
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Ok(Some(options))
}

pub fn main(args: &[String]) -> ExitCode {
    let options = match parse_options(args) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("patina web: {e}\n\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    let address = format!("{}:{}", options.host, options.port);
    let listener = match TcpListener::bind(&address) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("patina web: cannot listen on {address}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Port 0 asks the system for a free port; print the one it gave.
    let local = listener.local_addr().ok();
    let url = match local {
        Some(addr) if addr.ip().is_ipv6() => format!("http://[{}]:{}/", addr.ip(), addr.port()),
        Some(addr) => format!("http://{}:{}/", addr.ip(), addr.port()),
        None => format!("http://{address}/"),
    };
    println!("Patina is ready: open {url} in a browser (Ctrl-C to stop).");
    let games = Games {
        loopback: local.is_some_and(|addr| addr.ip().is_loopback()),
        ..Games::default()
    };
    let limits = http::Limits {
        connections: MAX_CONNECTIONS,
        head_bytes: MAX_HEAD,
        body_bytes: MAX_BODY,
        request_time: REQUEST_TIME,
    };
    http::serve(listener, limits, move |request| games.serve(request))
}

/// A request after validation: everything the handlers act on has been checked here.
#[derive(Debug, PartialEq)]
enum Api {
    Asset(&'static str),
    State(SessionId),
    New(Option<SessionId>, Setup),
    Move(SessionId, String),
    Undo(SessionId),
    Pgn(SessionId),
}

#[derive(Debug, PartialEq)]
struct Setup {
    /// The person's colour; `None` for a random one.
    human: Option<Color>,
    move_time: Duration,
    start: Start,
}

#[derive(Debug, PartialEq)]
enum Start {
    Standard,
    /// A validated FEN.
    Fen(String),
    /// A Chess960 start position, random if `None`.
    Chess960(Option<usize>),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct SessionId(String);

impl SessionId {
    fn parse(text: &str) -> Result<Self, ApiError> {
        if text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Self(text.to_ascii_lowercase()))
        } else {
            Err(ApiError::bad("malformed session id"))
        }
    }

    /// 128 bits from the standard library's randomly keyed hasher: unguessable enough that one
    /// tab cannot play in another's game.
    fn random() -> Self {
        let mut hex = String::with_capacity(32);
        for _ in 0..2 {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            hex.push_str(&format!("{:016x}", hasher.finish()));
        }
        Self(hex)
    }
}

#[derive(Debug, PartialEq, Eq)]
struct ApiError {
    status: u16,
    message: String,
}

impl ApiError {
    fn bad(message: impl Into<String>) -> Self {
        Self {
            status: 400,
            message: message.into(),
        }
    }

    fn status(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }
}

/// Reads a request: its method, its URL (path and query) and its body. HEAD is answered as GET
/// (the server then sends the headers alone), as HTTP requires of a server that serves GET.
fn parse_request(method: Method, url: &str, body: &[u8]) -> Result<Api, ApiError> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let method = match method {
        Method::Head => Method::Get,
        other => other,
    };
    if let Some(asset) = ASSETS.iter().find(|asset| asset.path == path) {
        return match method {
            Method::Get => Ok(Api::Asset(asset.path)),
            _ => Err(ApiError::status(405, "only GET serves the page")),
        };
    }
    match (method, path) {
        (Method::Get, "/api/state") => Ok(Api::State(query_session(query)?)),
        (Method::Get, "/api/pgn") => Ok(Api::Pgn(query_session(query)?)),
        (Method::Post, "/api/new" | "/api/move" | "/api/undo") => {
            let body = json_body(body)?;
            match path {
                "/api/new" => {
                    let session = match body.get("session") {
                        None | Some(Value::Null) => None,
                        Some(_) => Some(body_session(&body)?),
                    };
                    Ok(Api::New(session, parse_setup(&body)?))
                }
                "/api/move" => {
                    let session = body_session(&body)?;
                    let text = match body.get("move") {
                        Some(Value::String(text)) if !text.is_empty() && text.len() <= 16 => text,
                        _ => return Err(ApiError::bad("'move' must be a move such as \"e2e4\"")),
                    };
                    Ok(Api::Move(session, text.clone()))
                }
                _ => Ok(Api::Undo(body_session(&body)?)),
            }
        }
        (_, "/api/state" | "/api/pgn" | "/api/new" | "/api/move" | "/api/undo") => {
            Err(ApiError::status(405, "wrong method for this request"))
        }
        _ => Err(ApiError::status(404, "no such page")),
    }
}

/// The name or address a `Host` header gives, without its port: `[::1]:8080` gives `::1`.
fn host_name(host: &str) -> &str {
    match host.strip_prefix('[') {
        Some(bracketed) => bracketed
            .split_once(']')
            .map_or(host, |(address, _)| address),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    }
}

/// Refuses what only another site's page would send. A page elsewhere may make the browser
/// request this server: its `Origin` then names another host, or (DNS rebinding) its `Host`
/// names a domain although the server listens on loopback; and a cross-site form may POST without
/// the browser asking first, but never as `application/json`.
fn check_headers(request: &Request, loopback: bool) -> Result<(), ApiError> {
    let refused = || ApiError::status(403, "requests from other sites are refused");
    let host = request.header("Host").unwrap_or("");
    // A rebinding page can choose the name its `Host` gives, never a loopback address.
    if loopback {
        let name = host_name(host);
        let loopback_name =
            name == "localhost" || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
        if !loopback_name {
            return Err(refused());
        }
    }
    if let Some(origin) = request.header("Origin") {
        let origin = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .unwrap_or(origin);
        if origin != host {
            return Err(refused());
        }
    }
    if request.method == Method::Post
        && !request
            .header("Content-Type")
            .is_some_and(|t| t.starts_with("application/json"))
    {
        return Err(ApiError::status(
            415,
            "send the request body as application/json",
        ));
    }
    Ok(())
}

fn query_session(query: &str) -> Result<SessionId, ApiError> {
    let value = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("session="))
        .ok_or_else(|| ApiError::bad("the session id is missing"))?;
    SessionId::parse(value)
}

fn json_body(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_slice(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::bad("the request body must be a JSON object")),
        Err(e) => Err(ApiError::bad(format!("the request body is not JSON: {e}"))),
    }
}

fn body_session(body: &Map<String, Value>) -> Result<SessionId, ApiError> {
    match body.get("session") {
        Some(Value::String(text)) => SessionId::parse(text),
        _ => Err(ApiError::bad("the session id is missing")),
    }
}

fn parse_setup(body: &Map<String, Value>) -> Result<Setup, ApiError> {
    let human = match body.get("color").and_then(Value::as_str) {
        None if body.get("color").is_none_or(Value::is_null) => Some(Color::White),
        Some("white") => Some(Color::White),
        Some("black") => Some(Color::Black),
        Some("random") => None,
        _ => {
            return Err(ApiError::bad(
                "'color' must be \"white\", \"black\" or \"random\"",
            ))
        }
    };
    let move_time = match body.get("movetime") {
        None | Some(Value::Null) => DEFAULT_MOVE_TIME,
        Some(value) => match value.as_u64() {
            Some(ms)
                if (MIN_MOVE_TIME.as_millis()..=MAX_MOVE_TIME.as_millis())
                    .contains(&u128::from(ms)) =>
            {
                Duration::from_millis(ms)
            }
            _ => {
                return Err(ApiError::bad(format!(
                    "'movetime' must be {} to {} milliseconds",
                    MIN_MOVE_TIME.as_millis(),
                    MAX_MOVE_TIME.as_millis()
                )))
            }
        },
    };
    let fen = match body.get("fen") {
        None | Some(Value::Null) => None,
        Some(Value::String(fen)) if fen.trim().is_empty() => None,
        Some(Value::String(fen)) if fen.len() <= 120 => {
            Board::from_fen(fen).map_err(|e| ApiError::bad(format!("bad FEN: {e}")))?;
            Some(fen.trim().to_string())
        }
        Some(_) => {
            return Err(ApiError::bad(
                "'fen' must be a FEN of at most 120 characters",
            ))
        }
    };
    let chess960 = match body.get("chess960") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some(None),
        Some(value) => match value.as_u64() {
            Some(index) if index < 960 => Some(Some(index as usize)),
            _ => {
                return Err(ApiError::bad(
                    "'chess960' must be true, false or a start position number 0 to 959",
                ))
            }
        },
    };
    let start = match (fen, chess960) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad("choose a FEN or a Chess960 start, not both"));
        }
        (Some(fen), None) => Start::Fen(fen),
        (None, Some(index)) => Start::Chess960(index),
        (None, None) => Start::Standard,
    };
    Ok(Setup {
        human,
        move_time,
        start,
    })
}

/// Every game in play, by session id.
#[derive(Default)]
struct Games {
    sessions: Mutex<HashMap<SessionId, Arc<Session>>>,
    /// Listening on a loopback address: only requests naming a loopback host are served.
    loopback: bool,
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

enum Reply {
    Json(Value),
    Asset(&'static Asset),
    Pgn(String),
}

impl Games {
    fn serve(&self, request: Result<Request, RequestError>) -> Response {
        let reply = match &request {
            Err(e) => Err(ApiError::status(e.status, e.message)),
            Ok(request) => check_headers(request, self.loopback)
                .and_then(|()| parse_request(request.method, &request.target, &request.body))
                .and_then(|api| self.handle(api)),
        };
        let response = match reply {
            Ok(Reply::Asset(asset)) => {
                let response =
                    Response::new(200, asset.body).with_header("Content-Type", asset.content_type);
                if asset.path == "/" {
                    // Only this origin's scripts; the piece images are data: URLs.
                    response.with_header(
                        "Content-Security-Policy",
                        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
                    )
                } else {
                    response
                }
            }
            Ok(Reply::Json(value)) => json_response(200, &value),
            Ok(Reply::Pgn(pgn)) => Response::new(200, pgn.into_bytes())
                .with_header("Content-Type", "application/x-chess-pgn; charset=utf-8")
                .with_header("Content-Disposition", "attachment; filename=\"patina.pgn\""),
            Err(e) => json_response(e.status, &json!({ "error": e.message })),
        };
        response.with_header("X-Content-Type-Options", "nosniff")
    }

    fn handle(&self, api: Api) -> Result<Reply, ApiError> {
        match api {
            Api::Asset(path) => ASSETS
                .iter()
                .find(|asset| asset.path == path)
                .map(Reply::Asset)
                .ok_or_else(|| ApiError::status(404, "no such page")),
            Api::State(id) => {
                let session = self.session(&id)?;
                let mut state = lock(&session.state);
                state.last_seen = Instant::now();
                Ok(Reply::Json(view(&id, &state)))
            }
            Api::Pgn(id) => {
                let session = self.session(&id)?;
                let state = lock(&session.state);
                let (white, black) = match state.human {
                    Color::White => ("You", "Patina"),
                    Color::Black => ("Patina", "You"),
                };
                Ok(Reply::Pgn(state.game.pgn(white, black, &pgn_date())))
            }
            Api::New(id, setup) => self.new_game(id, setup),
            Api::Move(id, text) => {
                let session = self.session(&id)?;
                let mut engine = lock(&session.engine);
                let mut state = lock(&session.state);
                state.last_seen = Instant::now();
                if state.thinking {
                    return Err(ApiError::status(
                        409,
                        "Patina is thinking; wait for its move",
                    ));
                }
                if state.game.is_over() || state.game.side_to_move() != state.human {
                    return Err(ApiError::status(409, "it is not your move"));
                }
                let mv = state
                    .game
                    .parse_move(&text)
                    .map_err(|e| ApiError::bad(e.to_string()))?;
                state
                    .game
                    .play(mv)
                    .map_err(|e| ApiError::bad(e.to_string()))?;
                think(&mut engine, &mut state, &session.state);
                Ok(Reply::Json(view(&id, &state)))
            }
            Api::Undo(id) => {
                let session = self.session(&id)?;
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
                    return Err(ApiError::status(409, "no move of yours to take back"));
                }
                while game.undo().is_some() && game.side_to_move() != human {}
                // The line shown was searched in a position no longer on the board.
                state.info = None;
                think(&mut engine, &mut state, &session.state);
                Ok(Reply::Json(view(&id, &state)))
            }
        }
    }

    fn session(&self, id: &SessionId) -> Result<Arc<Session>, ApiError> {
        lock(&self.sessions).get(id).cloned().ok_or_else(|| {
            ApiError::status(404, "this game has ended on the server; start a new one")
        })
    }

    fn new_game(&self, id: Option<SessionId>, setup: Setup) -> Result<Reply, ApiError> {
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
        Ok(Reply::Json(view(&id, &state)))
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
                        503,
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
        "session": id.0,
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

fn json_response(status: u16, value: &Value) -> Response {
    Response::new(status, value.to_string().into_bytes())
        .with_header("Content-Type", "application/json")
        .with_header("Cache-Control", "no-store")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef0123456789abcdef";

    fn post(path: &str, body: &str) -> Result<Api, ApiError> {
        parse_request(Method::Post, path, body.as_bytes())
    }

    fn status(result: Result<Api, ApiError>) -> u16 {
        result.map_or_else(|e| e.status, |api| panic!("accepted: {api:?}"))
    }

    #[test]
    fn serves_only_embedded_assets() {
        assert_eq!(parse_request(Method::Get, "/", b""), Ok(Api::Asset("/")));
        assert_eq!(
            parse_request(Method::Get, "/app.js?v=1", b""),
            Ok(Api::Asset("/app.js"))
        );
        for path in [
            "/../Cargo.toml",
            "/etc/passwd",
            "/app.js/..",
            "//app.js",
            "/chessground/",
            "/api",
        ] {
            assert_eq!(status(parse_request(Method::Get, path, b"")), 404, "{path}");
        }
        assert_eq!(status(parse_request(Method::Post, "/", b"")), 405);
        assert_eq!(parse_request(Method::Head, "/", b""), Ok(Api::Asset("/")));
        assert_eq!(status(parse_request(Method::Get, "/api/move", b"")), 405);
    }

    #[test]
    fn refuses_other_sites() {
        let local = "127.0.0.1:8080";
        let json = ("Content-Type", "application/json");
        let check = |method, pairs: &[(&str, &str)], loopback| {
            let request = Request {
                method,
                target: "/".into(),
                headers: pairs
                    .iter()
                    .map(|(name, value)| (name.to_string(), value.to_string()))
                    .collect(),
                body: Vec::new(),
            };
            check_headers(&request, loopback).map_err(|e| e.status)
        };
        assert_eq!(check(Method::Get, &[("Host", local)], true), Ok(()));
        // Any loopback address, with or without its port.
        for loopback_host in [
            "localhost:8080",
            "127.0.1.1:8080",
            "[::1]:8080",
            "[::1]",
            "localhost",
        ] {
            assert_eq!(
                check(Method::Get, &[("Host", loopback_host)], true),
                Ok(()),
                "{loopback_host}"
            );
        }
        for other_host in ["[::2]:8080", "192.168.1.2:8080", "evil.example", "[::1", ""] {
            assert_eq!(
                check(Method::Get, &[("Host", other_host)], true),
                Err(403),
                "{other_host}"
            );
        }
        let same_origin = [("Host", local), ("Origin", "http://127.0.0.1:8080"), json];
        assert_eq!(check(Method::Post, &same_origin, true), Ok(()));
        // Another site's page, a rebound domain, a form post.
        let other = [("Host", local), ("Origin", "http://evil.example"), json];
        assert_eq!(check(Method::Post, &other, true), Err(403));
        let rebound = [
            ("Host", "evil.example:8080"),
            ("Origin", "http://evil.example:8080"),
        ];
        assert_eq!(check(Method::Get, &rebound, true), Err(403));
        assert_eq!(check(Method::Get, &rebound, false), Ok(()));
        let form = [("Host", local), ("Content-Type", "text/plain")];
        assert_eq!(check(Method::Post, &form, true), Err(415));
        assert_eq!(check(Method::Post, &[("Host", local)], true), Err(415));
    }

    #[test]
    fn validates_sessions() {
        let url = format!("/api/state?session={ID}");
        assert_eq!(
            parse_request(Method::Get, &url, b""),
            Ok(Api::State(SessionId(ID.into())))
        );
        for url in [
            "/api/state",
            "/api/state?session=",
            "/api/state?session=xyz",
            "/api/pgn?session=../../x",
        ] {
            assert_eq!(status(parse_request(Method::Get, url, b"")), 400, "{url}");
        }
        assert_eq!(status(post("/api/undo", "{}")), 400);
        assert_eq!(status(post("/api/undo", r#"{"session": 5}"#)), 400);
        let a = SessionId::random();
        assert_eq!(SessionId::parse(&a.0), Ok(a.clone()));
        assert_ne!(a, SessionId::random());
    }

    #[test]
    fn validates_moves_and_bodies() {
        let body = format!(r#"{{"session":"{ID}","move":"e2e4"}}"#);
        assert_eq!(
            post("/api/move", &body),
            Ok(Api::Move(SessionId(ID.into()), "e2e4".into()))
        );
        for body in [
            "".to_string(),
            "not json".into(),
            "[1,2]".into(),
            format!(r#"{{"session":"{ID}"}}"#),
            format!(r#"{{"session":"{ID}","move":""}}"#),
            format!(r#"{{"session":"{ID}","move":7}}"#),
            format!(r#"{{"session":"{ID}","move":"{}"}}"#, "e".repeat(100)),
        ] {
            assert_eq!(status(post("/api/move", &body)), 400, "{body}");
        }
    }

    #[test]
    fn validates_new_games() {
        let new = |body: &str| match post("/api/new", body) {
            Ok(Api::New(_, setup)) => Ok(setup),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.status),
        };
        let setup = new("{}").unwrap();
        assert_eq!(setup.human, Some(Color::White));
        assert_eq!(setup.move_time, DEFAULT_MOVE_TIME);
        assert_eq!(setup.start, Start::Standard);
        let setup = new(r#"{"color":"black","movetime":250,"chess960":12}"#).unwrap();
        assert_eq!(
            (setup.human, setup.move_time, setup.start),
            (
                Some(Color::Black),
                Duration::from_millis(250),
                Start::Chess960(Some(12))
            )
        );
        assert_eq!(
            new(r#"{"color":"random","chess960":true}"#).unwrap().human,
            None
        );
        let setup = new(r#"{"fen":"7k/P7/8/8/8/8/8/K7 w - - 0 1"}"#).unwrap();
        assert_eq!(
            setup.start,
            Start::Fen("7k/P7/8/8/8/8/8/K7 w - - 0 1".into())
        );
        for body in [
            r#"{"color":"green"}"#,
            r#"{"movetime":10001}"#,
            r#"{"movetime":10}"#,
            r#"{"movetime":-5}"#,
            r#"{"movetime":"fast"}"#,
            r#"{"chess960":960}"#,
            r#"{"fen":"not a fen"}"#,
            r#"{"fen":"8/8/8/8/8/8/8/8 w - - 0 1"}"#,
            r#"{"fen":"7k/P7/8/8/8/8/8/K7 w - - 0 1","chess960":true}"#,
            r#"{"session":"nope"}"#,
        ] {
            assert_eq!(new(body).unwrap_err(), 400, "{body}");
        }
    }

    #[test]
    fn games_are_bounded_and_isolated() {
        let games = Games::default();
        let start = |games: &Games| match games.handle(Api::New(
            None,
            Setup {
                human: Some(Color::White),
                move_time: MIN_MOVE_TIME,
                start: Start::Standard,
            },
        )) {
            Ok(Reply::Json(value)) => Ok(SessionId(value["session"].as_str().unwrap().into())),
            Ok(_) => panic!("not JSON"),
            Err(e) => Err(e),
        };
        let first = start(&games).unwrap();
        for _ in 1..MAX_GAMES {
            start(&games).unwrap();
        }
        assert_eq!(start(&games).unwrap_err().status, 503);
        // A game idle long enough gives its place up.
        lock(&games.session(&first).unwrap().state).last_seen -= IDLE;
        let newcomer = start(&games).unwrap();
        assert_eq!(games.session(&first).err().map(|e| e.status), Some(404));
        assert!(games.session(&newcomer).is_ok());

        // Moves go to the game they name, and illegal ones are refused with the reason.
        let reply = games.handle(Api::Move(newcomer.clone(), "e2e5".into()));
        let error = reply.err().unwrap();
        assert_eq!(error.status, 400);
        assert!(
            error.message.contains("'e2e5' is not a legal move"),
            "{}",
            error.message
        );
        assert!(games
            .handle(Api::Move(newcomer.clone(), "e2e4".into()))
            .is_ok());
        assert_eq!(
            games
                .handle(Api::Move(newcomer.clone(), "d2d4".into()))
                .err()
                .map(|e| e.status),
            Some(409)
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
        assert!(games.handle(Api::Undo(newcomer.clone())).is_ok());
        let state = lock(&session.state);
        assert!(state.game.moves().is_empty());
        assert_eq!(state.info, None);
    }
}
