//! What the page may ask, read and checked before anything acts on it: session ids, new-game
//! settings (a start position, a FEN or a PGN, Patina's time and rating), moves and analysed
//! plies from the requests, and the headers that tell another site's page from this one's. Every refusal is an `ApiError`, which the page shows.

use std::hash::{BuildHasher, Hasher};
use std::net::IpAddr;
use std::time::Duration;

use axum::extract::rejection::BytesRejection;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use patina::{Board, Color};

use crate::clock::TimeControl;
use crate::game::Game;
use crate::rating::Rating;

pub const MIN_MOVE_TIME: Duration = Duration::from_millis(50);
pub const MAX_MOVE_TIME: Duration = Duration::from_secs(10);
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);
/// The largest request body read: the PGN of a long game with a comment on every move fits.
pub const MAX_BODY: usize = 64 * 1024;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionId(String);

impl SessionId {
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        if text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Self(text.to_ascii_lowercase()))
        } else {
            Err(ApiError::bad("malformed session id"))
        }
    }

    /// 128 bits from the standard library's randomly keyed hasher: unguessable enough that one
    /// tab cannot play in another's game.
    pub fn random() -> Self {
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

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A new game's settings.
#[derive(Debug, PartialEq)]
pub struct Setup {
    /// The person's colour; `None` for a random one.
    pub human: Option<Color>,
    pub pace: Pace,
    pub start: Start,
    pub rating: Rating,
}

/// How Patina's thinking is bounded: a fixed time per move, or a clock for each side.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Pace {
    MoveTime(Duration),
    Clock(TimeControl),
}

#[derive(Debug, PartialEq)]
pub enum Start {
    Standard,
    /// A validated FEN.
    Fen(String),
    /// A Chess960 start position, random if `None`.
    Chess960(Option<usize>),
    /// A validated PGN: its first game, to step through and analyse.
    Pgn(String),
}

#[derive(Debug, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn bad(message: impl Into<String>) -> Self {
        Self::status(StatusCode::BAD_REQUEST, message)
    }

    /// A request the game's state does not allow now (409).
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::status(StatusCode::CONFLICT, message)
    }

    pub fn status(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_response(self.status, &json!({ "error": self.message }))
    }
}

/// A body that could not be read: too large (413), or cut off.
impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> Self {
        Self::status(rejection.status(), rejection.body_text())
    }
}

pub fn json_response(status: StatusCode, value: &Value) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        value.to_string(),
    )
        .into_response()
}

/// The session a `GET` names in its query (`?session=...`).
pub fn query_session(query: Option<&str>) -> Result<SessionId, ApiError> {
    let value = query
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("session="))
        .ok_or_else(|| ApiError::bad("the session id is missing"))?;
    SessionId::parse(value)
}

/// `/api/new`: the tab's session, if it has one (its game is then replaced), and the settings.
pub fn parse_new(body: &[u8]) -> Result<(Option<SessionId>, Setup), ApiError> {
    let body = json_body(body)?;
    let session = match body.get("session") {
        None | Some(Value::Null) => None,
        Some(_) => Some(body_session(&body)?),
    };
    Ok((session, parse_setup(&body)?))
}

/// `/api/move`: the session and the move as typed or dragged (`e2e4`, `Nf3`).
pub fn parse_move(body: &[u8]) -> Result<(SessionId, String), ApiError> {
    let body = json_body(body)?;
    let session = body_session(&body)?;
    match body.get("move") {
        Some(Value::String(text)) if !text.is_empty() && text.len() <= 16 => {
            Ok((session, text.clone()))
        }
        _ => Err(ApiError::bad("'move' must be a move such as \"e2e4\"")),
    }
}

/// `/api/undo`, `/api/hint`, `/api/resign`, `/api/continue`: the session.
pub fn parse_session(body: &[u8]) -> Result<SessionId, ApiError> {
    body_session(&json_body(body)?)
}

/// `/api/analyse`: the session and the ply whose position to analyse (`None`: the live one).
pub fn parse_analyse(body: &[u8]) -> Result<(SessionId, Option<usize>), ApiError> {
    let body = json_body(body)?;
    let session = body_session(&body)?;
    match body.get("ply") {
        None | Some(Value::Null) => Ok((session, None)),
        Some(value) => match value.as_u64().and_then(|ply| usize::try_from(ply).ok()) {
            Some(ply) => Ok((session, Some(ply))),
            None => Err(ApiError::bad(
                "'ply' must be a number of half-moves played, 0 or more",
            )),
        },
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
pub fn check_headers(method: &Method, headers: &HeaderMap, loopback: bool) -> Result<(), ApiError> {
    let refused = || {
        ApiError::status(
            StatusCode::FORBIDDEN,
            "requests from other sites are refused",
        )
    };
    let text = |name| headers.get(name).and_then(|value| value.to_str().ok());
    let host = text(header::HOST).unwrap_or("");
    // A rebinding page can choose the name its `Host` gives, never a loopback address.
    if loopback {
        let name = host_name(host);
        let loopback_name =
            name == "localhost" || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
        if !loopback_name {
            return Err(refused());
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().map_err(|_| refused())?;
        let origin = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .unwrap_or(origin);
        if origin != host {
            return Err(refused());
        }
    }
    if method == Method::POST
        && !text(header::CONTENT_TYPE).is_some_and(|t| t.starts_with("application/json"))
    {
        return Err(ApiError::status(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the request body as application/json",
        ));
    }
    Ok(())
}

/// Refuses a body announced larger than `MAX_BODY` before it is sent. (One sent without its
/// length is cut off when read.)
pub fn check_body_length(headers: &HeaderMap) -> Result<(), ApiError> {
    let announced = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
    match announced {
        Some(length) if length > MAX_BODY as u64 => Err(ApiError::status(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large",
        )),
        _ => Ok(()),
    }
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
        None | Some(Value::Null) => None,
        Some(value) => match value.as_u64() {
            Some(ms)
                if (MIN_MOVE_TIME.as_millis()..=MAX_MOVE_TIME.as_millis())
                    .contains(&u128::from(ms)) =>
            {
                Some(Duration::from_millis(ms))
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
    let clock = match body.get("clock") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(TimeControl::parse(text).map_err(ApiError::bad)?),
        Some(_) => {
            return Err(ApiError::bad(
                "'clock' must be a time control such as \"5+3\" (minutes+seconds)",
            ))
        }
    };
    let pace = match (move_time, clock) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad("choose 'movetime' or 'clock', not both"));
        }
        (None, Some(control)) => Pace::Clock(control),
        (move_time, None) => Pace::MoveTime(move_time.unwrap_or(DEFAULT_MOVE_TIME)),
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
    let pgn = match body.get("pgn") {
        None | Some(Value::Null) => None,
        Some(Value::String(pgn)) if pgn.trim().is_empty() => {
            return Err(ApiError::bad("paste a game's PGN to import it"))
        }
        Some(Value::String(pgn)) => {
            Game::from_pgn(pgn).map_err(|e| ApiError::bad(format!("cannot read the PGN: {e}")))?;
            Some(pgn.clone())
        }
        Some(_) => return Err(ApiError::bad("'pgn' must be the text of a PGN game")),
    };
    let start = match (fen, chess960, pgn) {
        (None, None, None) => Start::Standard,
        (Some(fen), None, None) => Start::Fen(fen),
        (None, Some(index), None) => Start::Chess960(index),
        (None, None, Some(pgn)) => Start::Pgn(pgn),
        _ => {
            return Err(ApiError::bad(
                "choose one start: a FEN, a Chess960 start or a PGN",
            ));
        }
    };
    let rating = match body.get("rating") {
        None | Some(Value::Null) => Rating::FULL,
        Some(Value::String(name)) => Rating::parse(name).map_err(ApiError::bad)?,
        Some(value) => match value.as_u64().and_then(|elo| u32::try_from(elo).ok()) {
            Some(elo) => Rating::from_elo(elo).map_err(ApiError::bad)?,
            None => {
                return Err(ApiError::bad(
                    "'rating' must be a rating's name or a number such as 1800",
                ))
            }
        },
    };
    Ok(Setup {
        human,
        pace,
        start,
        rating,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef0123456789abcdef";

    fn status<T: std::fmt::Debug>(result: Result<T, ApiError>) -> StatusCode {
        result.map_or_else(|e| e.status, |accepted| panic!("accepted: {accepted:?}"))
    }

    #[test]
    fn refuses_other_sites() {
        let local = "127.0.0.1:8080";
        let json = ("Content-Type", "application/json");
        let check = |method, pairs: &[(&'static str, &str)], loopback| {
            let mut headers = HeaderMap::new();
            for &(name, value) in pairs {
                headers.append(name, value.parse().unwrap());
            }
            check_headers(&method, &headers, loopback).map_err(|e| e.status)
        };
        assert_eq!(check(Method::GET, &[("Host", local)], true), Ok(()));
        // Any loopback address, with or without its port.
        for loopback_host in [
            "localhost:8080",
            "127.0.1.1:8080",
            "[::1]:8080",
            "[::1]",
            "localhost",
        ] {
            assert_eq!(
                check(Method::GET, &[("Host", loopback_host)], true),
                Ok(()),
                "{loopback_host}"
            );
        }
        for other_host in ["[::2]:8080", "192.168.1.2:8080", "evil.example", "[::1", ""] {
            assert_eq!(
                check(Method::GET, &[("Host", other_host)], true),
                Err(StatusCode::FORBIDDEN),
                "{other_host}"
            );
        }
        let same_origin = [("Host", local), ("Origin", "http://127.0.0.1:8080"), json];
        assert_eq!(check(Method::POST, &same_origin, true), Ok(()));
        // Another site's page, a rebound domain, a form post.
        let other = [("Host", local), ("Origin", "http://evil.example"), json];
        assert_eq!(
            check(Method::POST, &other, true),
            Err(StatusCode::FORBIDDEN)
        );
        let rebound = [
            ("Host", "evil.example:8080"),
            ("Origin", "http://evil.example:8080"),
        ];
        assert_eq!(
            check(Method::GET, &rebound, true),
            Err(StatusCode::FORBIDDEN)
        );
        assert_eq!(check(Method::GET, &rebound, false), Ok(()));
        let form = [("Host", local), ("Content-Type", "text/plain")];
        assert_eq!(
            check(Method::POST, &form, true),
            Err(StatusCode::UNSUPPORTED_MEDIA_TYPE)
        );
        assert_eq!(
            check(Method::POST, &[("Host", local)], true),
            Err(StatusCode::UNSUPPORTED_MEDIA_TYPE)
        );
    }

    #[test]
    fn refuses_bodies_announced_too_large() {
        let announcing = |length: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_LENGTH, length.parse().unwrap());
            check_body_length(&headers).map_err(|e| e.status)
        };
        assert_eq!(check_body_length(&HeaderMap::new()), Ok(()));
        assert_eq!(announcing(&MAX_BODY.to_string()), Ok(()));
        assert_eq!(
            announcing(&(MAX_BODY + 1).to_string()),
            Err(StatusCode::PAYLOAD_TOO_LARGE)
        );
    }

    #[test]
    fn validates_sessions() {
        let query = format!("session={ID}");
        assert_eq!(query_session(Some(&query)), Ok(SessionId(ID.into())));
        for query in [
            None,
            Some(""),
            Some("session="),
            Some("session=xyz"),
            Some("session=../../x"),
        ] {
            assert_eq!(status(query_session(query)), 400, "{query:?}");
        }
        assert_eq!(status(parse_session(b"{}")), 400);
        assert_eq!(status(parse_session(br#"{"session": 5}"#)), 400);
        let a = SessionId::random();
        assert_eq!(SessionId::parse(a.as_str()), Ok(a.clone()));
        assert_ne!(a, SessionId::random());
    }

    #[test]
    fn validates_moves_and_bodies() {
        let body = format!(r#"{{"session":"{ID}","move":"e2e4"}}"#);
        assert_eq!(
            parse_move(body.as_bytes()),
            Ok((SessionId(ID.into()), "e2e4".into()))
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
            assert_eq!(status(parse_move(body.as_bytes())), 400, "{body}");
        }
    }

    #[test]
    fn validates_new_games() {
        let new = |body: &str| parse_new(body.as_bytes()).map(|(_, setup)| setup);
        let setup = new("{}").unwrap();
        assert_eq!(setup.human, Some(Color::White));
        assert_eq!(setup.pace, Pace::MoveTime(DEFAULT_MOVE_TIME));
        assert_eq!(setup.start, Start::Standard);
        let setup = new(r#"{"color":"black","movetime":250,"chess960":12}"#).unwrap();
        assert_eq!(
            (setup.human, setup.pace, setup.start),
            (
                Some(Color::Black),
                Pace::MoveTime(Duration::from_millis(250)),
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
        assert_eq!(setup.rating, Rating::FULL);
        let setup = new(r#"{"rating":"Club"}"#).unwrap();
        assert_eq!(setup.rating, Rating::parse("club").unwrap());
        let setup = new(r#"{"rating":2150}"#).unwrap();
        assert_eq!(setup.rating.elo, Some(2150));
        let setup = new(r#"{"clock":"3+2"}"#).unwrap();
        assert_eq!(setup.pace, Pace::Clock(TimeControl::parse("3+2").unwrap()));
        let setup = new(r#"{"pgn":"[Event \"x\"]\n\n1. e4 e5 *"}"#).unwrap();
        assert!(matches!(setup.start, Start::Pgn(_)));
        let (session, _) = parse_new(format!(r#"{{"session":"{ID}"}}"#).as_bytes()).unwrap();
        assert_eq!(session, Some(SessionId(ID.into())));
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
            r#"{"clock":"5"}"#,
            r#"{"clock":"0+0"}"#,
            r#"{"clock":5}"#,
            r#"{"clock":"5+3","movetime":1000}"#,
            r#"{"pgn":"1. e4 e5 2. Ke3 *"}"#,
            r#"{"pgn":"  "}"#,
            r#"{"pgn":"1. e4 *","fen":"7k/P7/8/8/8/8/8/K7 w - - 0 1"}"#,
            r#"{"rating":"strong"}"#,
            r#"{"rating":1000}"#,
            r#"{"rating":4294967296}"#,
            r#"{"rating":1800.5}"#,
            r#"{"rating":true}"#,
        ] {
            assert_eq!(status(new(body)), 400, "{body}");
        }
        let error = new(r#"{"pgn":"1. e4 e5 2. Ke3 *"}"#).unwrap_err().message;
        assert!(
            error.starts_with("cannot read the PGN: illegal or unreadable move 'Ke3'"),
            "{error}"
        );
    }
}
