//! `patina web`: the game in a browser, served by this process on a local port. The page
//! (lichess's chessground board plus a small script) is embedded in the binary; the server
//! answers only for those assets and a JSON game API, never for a file path.
//!
//! Each browser tab holds a session id and its own game, clocks and engine; the page polls for
//! the engine's progress. `games` keeps the games in play and runs their searches, `state` is
//! one game as the server keeps it, `api` reads and checks the requests, `view` writes the game
//! as the page draws it, `server` serves HTTP.

mod api;
mod games;
mod server;
mod state;
mod view;

use std::convert::Infallible;
use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, RawQuery, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::Value;
use tower_http::set_header::SetResponseHeaderLayer;

use api::{json_response, ApiError, MAX_BODY};
use games::Games;

use crate::rating::RATINGS;

const LIMITS: server::Limits = server::Limits {
    // A browser's request head is well under 8 KiB, cookies for other local pages included.
    head_bytes: 16 * 1024,
    request_time: Duration::from_secs(10),
    connection_time: Duration::from_secs(60),
};

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

impl Asset {
    fn response(&self) -> Response {
        let content_type = [(header::CONTENT_TYPE, self.content_type)];
        if self.path == "/" {
            // Only this origin's scripts; the piece images are data: URLs.
            let policy = (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
            );
            (content_type, [policy], self.body).into_response()
        } else {
            (content_type, self.body).into_response()
        }
    }
}

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
    let loopback = local.is_some_and(|addr| addr.ip().is_loopback());
    // One thread serves every connection. The engines search on threads of their own, and the
    // game requests, which may wait for a search to stop, run on tokio's blocking threads.
    let served: std::io::Result<Infallible> = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .and_then(|runtime| {
            runtime.block_on(async {
                listener.set_nonblocking(true)?;
                let listener = tokio::net::TcpListener::from_std(listener)?;
                println!("Patina is ready: open {url} in a browser (Ctrl-C to stop).");
                Ok(server::serve(listener, app(loopback), LIMITS).await)
            })
        });
    let Err(e) = served;
    eprintln!("patina web: cannot serve on {address}: {e}");
    ExitCode::FAILURE
}

/// The page's assets and the game API, for a server listening on a loopback address or not.
pub fn app(loopback: bool) -> Router {
    let mut router = Router::new();
    for asset in ASSETS {
        router = router.route(asset.path, get(move || async move { asset.response() }));
    }
    router
        .route("/api/ratings", get(ratings))
        .route("/api/state", get(state))
        .route("/api/pgn", get(pgn))
        .route("/api/new", post(new_game))
        .route("/api/move", post(play_move))
        .route("/api/undo", post(undo))
        .route("/api/hint", post(hint))
        .route("/api/resign", post(resign))
        .route("/api/analyse", post(analyse))
        .route("/api/continue", post(resume))
        .method_not_allowed_fallback(|| async {
            ApiError::status(
                StatusCode::METHOD_NOT_ALLOWED,
                "wrong method for this request",
            )
        })
        .fallback(|| async { ApiError::status(StatusCode::NOT_FOUND, "no such page") })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(Arc::new(Games::default()))
        .layer(middleware::from_fn_with_state(loopback, refuse_early))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
}

/// Refuses, from its headers alone, a request another site's page sent or one whose body is
/// too large.
async fn refuse_early(State(loopback): State<bool>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    match api::check_headers(request.method(), headers, loopback)
        .and_then(|()| api::check_body_length(headers))
    {
        Ok(()) => next.run(request).await,
        Err(e) => e.into_response(),
    }
}

/// Runs `act` on the games where it may block: it may wait for a search to stop.
async fn on_games<T: Send + 'static>(
    games: Arc<Games>,
    act: impl FnOnce(&Games) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(move || act(&games))
        .await
        .unwrap_or_else(|e| {
            Err(ApiError::status(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the request failed: {e}"),
            ))
        })
}

fn game_response(view: Value) -> Response {
    json_response(StatusCode::OK, &view)
}

/// The ratings Patina plays at, weakest first, for the page's choice.
async fn ratings() -> Response {
    let list: Vec<Value> = RATINGS.into_iter().map(view::rating_json).collect();
    json_response(StatusCode::OK, &Value::Array(list))
}

async fn state(
    State(games): State<Arc<Games>>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let id = api::query_session(query.as_deref())?;
    on_games(games, move |games| games.state(&id))
        .await
        .map(game_response)
}

async fn pgn(
    State(games): State<Arc<Games>>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let id = api::query_session(query.as_deref())?;
    let pgn = on_games(games, move |games| games.pgn(&id)).await?;
    let headers = [
        (
            header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8",
        ),
        (
            header::CONTENT_DISPOSITION,
            "attachment; filename=\"patina.pgn\"",
        ),
    ];
    Ok((headers, pgn).into_response())
}

async fn new_game(
    State(games): State<Arc<Games>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (id, setup) = api::parse_new(&body?)?;
    on_games(games, move |games| games.new_game(id, setup))
        .await
        .map(game_response)
}

async fn play_move(
    State(games): State<Arc<Games>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (id, text) = api::parse_move(&body?)?;
    on_games(games, move |games| games.play(&id, &text))
        .await
        .map(game_response)
}

/// A request that names only its session: a takeback, a hint, a resignation, playing on
/// from analysis.
async fn on_session(
    games: Arc<Games>,
    body: Result<Bytes, BytesRejection>,
    act: fn(&Games, &api::SessionId) -> Result<Value, ApiError>,
) -> Result<Response, ApiError> {
    let id = api::parse_session(&body?)?;
    on_games(games, move |games| act(games, &id))
        .await
        .map(game_response)
}

async fn undo(
    State(games): State<Arc<Games>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    on_session(games, body, Games::undo).await
}

async fn hint(
    State(games): State<Arc<Games>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    on_session(games, body, Games::hint).await
}

async fn resign(
    State(games): State<Arc<Games>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    on_session(games, body, Games::resign).await
}

async fn resume(
    State(games): State<Arc<Games>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    on_session(games, body, Games::resume).await
}

async fn analyse(
    State(games): State<Arc<Games>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (id, ply) = api::parse_analyse(&body?)?;
    on_games(games, move |games| games.analyse(&id, ply))
        .await
        .map(game_response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::HeaderMap;
    use tower::ServiceExt;

    /// The router of a server on loopback, asked as a browser on this machine asks it.
    struct Page {
        app: Router,
        runtime: tokio::runtime::Runtime,
    }

    struct Answer {
        status: StatusCode,
        headers: HeaderMap,
        body: String,
    }

    impl Answer {
        fn json(&self) -> serde_json::Value {
            serde_json::from_str(&self.body).unwrap()
        }

        fn header(&self, name: header::HeaderName) -> &str {
            self.headers.get(name).map_or("", |v| v.to_str().unwrap())
        }
    }

    impl Page {
        fn new() -> Self {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            Self {
                app: app(true),
                runtime,
            }
        }

        fn ask(&self, method: &str, uri: &str, headers: &[(&str, &str)], body: &str) -> Answer {
            let mut request = Request::builder()
                .method(method)
                .uri(uri)
                .header("Host", "127.0.0.1:8080");
            for &(name, value) in headers {
                request = request.header(name, value);
            }
            let request = request.body(Body::from(body.to_string())).unwrap();
            self.runtime.block_on(async {
                let response = self.app.clone().oneshot(request).await.unwrap();
                let (parts, body) = response.into_parts();
                let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
                Answer {
                    status: parts.status,
                    headers: parts.headers,
                    body: String::from_utf8(body.to_vec()).unwrap(),
                }
            })
        }

        fn get(&self, uri: &str) -> Answer {
            self.ask("GET", uri, &[], "")
        }

        fn post(&self, uri: &str, body: &str) -> Answer {
            self.ask("POST", uri, &[("Content-Type", "application/json")], body)
        }
    }

    #[test]
    fn serves_only_embedded_assets() {
        let page = Page::new();
        let index = page.get("/");
        assert_eq!(index.status, StatusCode::OK);
        assert_eq!(
            index.header(header::CONTENT_TYPE),
            "text/html; charset=utf-8"
        );
        assert!(index
            .header(header::CONTENT_SECURITY_POLICY)
            .starts_with("default-src 'self'"));
        assert_eq!(index.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        assert!(index.body.contains("<html"), "{}", index.body);
        let script = page.get("/app.js?v=1");
        assert_eq!(script.status, StatusCode::OK);
        assert_eq!(
            script.header(header::CONTENT_TYPE),
            "text/javascript; charset=utf-8"
        );
        for path in [
            "/../Cargo.toml",
            "/etc/passwd",
            "/app.js/..",
            "//app.js",
            "/chessground/",
            "/api",
        ] {
            let answer = page.get(path);
            assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
            assert_eq!(answer.json()["error"], "no such page");
            assert_eq!(answer.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        }
        assert_eq!(page.post("/", "{}").status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(page.get("/api/move").status, StatusCode::METHOD_NOT_ALLOWED);
        let head = page.ask("HEAD", "/", &[], "");
        assert_eq!((head.status, head.body.as_str()), (StatusCode::OK, ""));
    }

    #[test]
    fn plays_a_game_through_the_api() {
        let page = Page::new();
        // Patina thinks long enough for a move out of turn to come while it does.
        let new = page.post("/api/new", r#"{"color":"white","movetime":1000}"#);
        assert_eq!(new.status, StatusCode::OK, "{}", new.body);
        assert_eq!(new.header(header::CACHE_CONTROL), "no-store");
        let session = new.json()["session"].as_str().unwrap().to_string();
        assert_eq!(new.json()["yourMove"], true);

        let body = format!(r#"{{"session":"{session}","move":"e4"}}"#);
        let moved = page.post("/api/move", &body);
        assert_eq!(moved.status, StatusCode::OK, "{}", moved.body);
        assert_eq!(moved.json()["moves"][0], "e4");
        // Built afresh: the session id may itself contain "e4".
        let out_of_turn = page.post(
            "/api/move",
            &format!(r#"{{"session":"{session}","move":"e5"}}"#),
        );
        assert_eq!(out_of_turn.status, StatusCode::CONFLICT);

        let state = page.get(&format!("/api/state?session={session}"));
        assert_eq!(state.status, StatusCode::OK);
        assert_eq!(state.json()["session"], session.as_str());
        let pgn = page.get(&format!("/api/pgn?session={session}"));
        assert_eq!(
            pgn.header(header::CONTENT_TYPE),
            "application/x-chess-pgn; charset=utf-8"
        );
        assert!(pgn
            .header(header::CONTENT_DISPOSITION)
            .starts_with("attachment"));
        assert!(pgn.body.contains("1. e4"), "{}", pgn.body);

        let unknown = page.get("/api/state?session=0123456789abcdef0123456789abcdef");
        assert_eq!(unknown.status, StatusCode::NOT_FOUND);
        assert!(unknown.json()["error"]
            .as_str()
            .unwrap()
            .contains("start a new one"));
    }

    #[test]
    fn refuses_other_sites_and_large_bodies() {
        let page = Page::new();
        let foreign = page.ask(
            "POST",
            "/api/new",
            &[
                ("Origin", "http://evil.example"),
                ("Content-Type", "application/json"),
            ],
            "{}",
        );
        assert_eq!(foreign.status, StatusCode::FORBIDDEN);
        assert_eq!(foreign.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        let form = page.ask("POST", "/api/new", &[("Content-Type", "text/plain")], "{}");
        assert_eq!(form.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let large = page.post("/api/new", &" ".repeat(MAX_BODY + 1));
        assert_eq!(large.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(large.json()["error"].is_string());
    }
}
