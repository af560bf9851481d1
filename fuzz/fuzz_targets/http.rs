//! `patina web`'s routes and JSON bodies: a few requests in a row, put to the router of a fresh
//! server (its own games and engines) without a socket. HTTP itself is hyper's to parse.
//!
//! The input is up to eight requests separated by NUL bytes, each written as
//! `METHOD URI`, header lines `Name: value`, an empty line and the body. A request the `http`
//! crate cannot represent (a bad method, URI or header) is one no client could send: skipped.
//! The first byte's low bit says whether the server listens on loopback.
#![no_main]

use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use libfuzzer_sys::fuzz_target;
use tokio::runtime::Runtime;
use tower::ServiceExt;

const MAX_REQUESTS: usize = 8;

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime starts")
    })
}

fn request(text: &[u8]) -> Option<Request<Body>> {
    let split = text.windows(2).position(|w| w == b"\n\n");
    let (head, body) = match split {
        Some(at) => (&text[..at], &text[at + 2..]),
        None => (text, &[][..]),
    };
    let head = std::str::from_utf8(head).ok()?;
    let mut lines = head.lines();
    let (method, uri) = lines.next()?.split_once(' ')?;
    let mut builder = Request::builder().method(method).uri(uri);
    let mut has_host = false;
    for line in lines {
        let (name, value) = line.split_once(':')?;
        has_host |= name.eq_ignore_ascii_case("host");
        builder = builder.header(name, value.trim_start());
    }
    if !has_host {
        builder = builder.header(header::HOST, "127.0.0.1:8080");
    }
    builder.body(Body::from(body.to_vec())).ok()
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, requests)) = data.split_first() else {
        return;
    };
    let app = patina_play::web::app(flags & 1 == 1);
    for text in requests.split(|&b| b == 0).take(MAX_REQUESTS) {
        let Some(request) = request(text) else {
            continue;
        };
        let head = request.method() == Method::HEAD;
        let response = runtime().block_on(async {
            let response = app
                .clone()
                .oneshot(request)
                .await
                .expect("the router answers");
            let (parts, body) = response.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX)
                .await
                .expect("a body reads");
            (parts, body)
        });
        let (parts, body) = response;
        // A task that panicked would be answered 500; with panic = abort it ends the run first.
        assert_ne!(parts.status, StatusCode::INTERNAL_SERVER_ERROR);
        // Every refusal says why, as JSON the page can show.
        if !parts.status.is_success() && !head {
            let value: serde_json::Value =
                serde_json::from_slice(&body).expect("a refusal is JSON");
            assert!(value["error"].is_string(), "{value}");
        }
    }
    // The games' engines stop and join here, with the router.
});
