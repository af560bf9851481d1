//! `patina-play web` as a browser and as hostile clients meet it: the real binary, on a free
//! loopback port.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::{body, request, status_line, Server};

#[test]
fn answers_while_200_connections_idle_or_trickle() {
    let server = Server::start();
    // A hundred connections that say nothing, a hundred that send a head a byte at a time.
    let idle: Vec<TcpStream> = (0..100).map(|_| server.connect()).collect();
    let mut trickling: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut stream = server.connect();
            stream.write_all(b"GET / HTTP/1.1\r\nX-Slow: ").unwrap();
            stream
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let trickler = {
        let stop = Arc::clone(&stop);
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for stream in &mut trickling {
                    stream
                        .write_all(b"x")
                        .expect("a trickling connection closed");
                }
                thread::sleep(Duration::from_millis(100));
            }
            trickling
        })
    };

    for _ in 0..3 {
        let started = Instant::now();
        let page = server.exchange(&request("GET", "/", ""));
        let page_time = started.elapsed();
        assert_eq!(status_line(&page), "HTTP/1.1 200 OK");
        assert!(body(&page).contains("<html"), "{page}");

        let started = Instant::now();
        let new = server.exchange(&request("POST", "/api/new", "{}"));
        assert_eq!(status_line(&new), "HTTP/1.1 200 OK", "{new}");
        let session = body(&new)
            .split("\"session\":\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .to_string();
        let state = server.exchange(&request(
            "GET",
            &format!("/api/state?session={session}"),
            "",
        ));
        let game_time = started.elapsed();
        assert_eq!(status_line(&state), "HTTP/1.1 200 OK", "{state}");
        assert!(body(&state).contains("\"fen\":"), "{state}");
        assert!(
            page_time < Duration::from_secs(1) && game_time < Duration::from_secs(1),
            "the page took {page_time:?}, a new game and its state {game_time:?}"
        );
        thread::sleep(Duration::from_millis(300));
    }

    // The held connections were open all along (the server closes them after 10 s).
    stop.store(true, Ordering::Relaxed);
    let trickling = trickler.join().unwrap();
    assert_eq!(idle.len() + trickling.len(), 200);
}

#[test]
fn speaks_http_1_1() {
    let server = Server::start();
    // HEAD: the head alone, with the length of the page GET would get.
    let head = server.exchange(b"HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let page = server.exchange(&request("GET", "/", ""));
    let length = |answer: &str| {
        answer.lines().find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(str::to_string)
        })
    };
    assert_eq!(status_line(&head), "HTTP/1.1 200 OK");
    assert_eq!(body(&head), "");
    assert_eq!(length(&head), Some(body(&page).len().to_string()));

    // Two requests on one connection.
    let mut stream = server.connect();
    let state =
        b"GET /api/state?session=0123456789abcdef0123456789abcdef HTTP/1.1\r\nHost: [::1]\r\n\r\n";
    stream.write_all(state).unwrap();
    stream.write_all(&request("GET", "/style.css", "")).unwrap();
    let mut answers = String::new();
    stream.read_to_string(&mut answers).unwrap();
    assert!(answers.starts_with("HTTP/1.1 404 Not Found"), "{answers}");
    assert!(answers.contains("start a new one"), "{answers}");
    let (_, second) = answers.rsplit_once("HTTP/1.1 ").unwrap();
    assert!(second.starts_with("200 OK\r\n"), "{answers}");

    // A body announced too large is refused before it is sent.
    let large = b"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                  Content-Length: 8000000\r\n\r\n{\"color\":";
    let answer = server.exchange(large);
    assert_eq!(
        status_line(&answer),
        "HTTP/1.1 413 Payload Too Large",
        "{answer}"
    );
    assert!(body(&answer).starts_with("{\"error\":"), "{answer}");
    let answer = server.exchange(b"NOT HTTP AT ALL\r\n\r\n");
    assert!(status_line(&answer).starts_with("HTTP/1.1 400"), "{answer}");
}

#[test]
fn outlives_clients_that_vanish() {
    let server = Server::start();
    // Clients that leave mid-head, mid-body, or before reading their answer.
    for i in 0..300 {
        let mut stream = server.connect();
        let sent: &[u8] = match i % 3 {
            0 => b"GET / HT",
            1 => b"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 9\r\n\r\nab",
            _ => b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        };
        stream.write_all(sent).unwrap();
    }
    let answer = server.exchange(&request("GET", "/", ""));
    assert_eq!(status_line(&answer), "HTTP/1.1 200 OK");
}
