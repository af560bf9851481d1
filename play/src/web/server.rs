//! HTTP/1.1 for `patina web`: hyper serves each connection as a task of one tokio thread, so a
//! client that holds connections open costs a socket each and keeps no one else waiting.
//! Deadlines bound how long it can hold one: a request head must arrive whole in time, an idle
//! connection is closed, a request must be read and answered in time, and a connection is closed
//! after a while even if busy (the page's next request opens another).

use std::convert::Infallible;
use std::io::ErrorKind;
use std::pin::pin;
use std::time::Duration;

use axum::http::StatusCode;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower_http::timeout::TimeoutLayer;

/// How long the accept loop rests after an error it cannot blame on one peer (no file
/// descriptor left), so that it does not spin while the shortage lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest request head; a larger one is answered 431.
    pub head_bytes: usize,
    /// Time a client has to send a request head, from the connection's start or the end of the
    /// previous answer: an idle connection is closed after it. The same time bounds reading a
    /// request's body and answering it (408 after).
    pub request_time: Duration,
    /// Time after which a connection is closed once its current request is answered. A client
    /// that never reads its answers holds a connection this long plus `request_time` at most.
    pub connection_time: Duration,
}

/// Serves `app` on `listener` for ever.
pub async fn serve(listener: TcpListener, app: Router, limits: Limits) -> Infallible {
    let app = app.layer(TimeoutLayer::with_status_code(
        StatusCode::REQUEST_TIMEOUT,
        limits.request_time,
    ));
    let service = TowerToHyperService::new(app);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.request_time)
        .max_buf_size(limits.head_bytes);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // The peer gave up before the connection was taken: nothing to serve.
            Err(e) if e.kind() == ErrorKind::ConnectionAborted => continue,
            Err(e) => {
                eprintln!("patina web: cannot accept a connection: {e}");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let connection = http.serve_connection(TokioIo::new(stream), service.clone());
        tokio::spawn(async move {
            let mut connection = pin!(connection);
            let within_time = tokio::time::timeout(limits.connection_time, connection.as_mut());
            if within_time.await.is_err() {
                connection.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(limits.request_time, connection).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Bytes;
    use axum::routing::{get, post};
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpStream};
    use std::time::Instant;

    const LIMITS: Limits = Limits {
        head_bytes: 8192,
        request_time: Duration::from_millis(300),
        connection_time: Duration::from_secs(60),
    };

    /// A server of `/` and `/echo` with `limits`, on a thread of its own.
    fn start(limits: Limits) -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let app = Router::new()
            .route("/", get(|| async { "ok" }))
            .route("/echo", post(|body: Bytes| async move { body }));
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let listener = TcpListener::from_std(listener).unwrap();
                serve(listener, app, limits).await
            });
        });
        address
    }

    fn connect(address: SocketAddr) -> TcpStream {
        let stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
    }

    /// Reads one answer: its head, then as many body bytes as its `content-length` says.
    fn read_answer(stream: &mut TcpStream) -> String {
        let mut bytes = Vec::new();
        let mut byte = [0];
        while !bytes.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte) {
                Ok(1) => bytes.push(byte[0]),
                _ => return String::from_utf8_lossy(&bytes).into_owned(),
            }
        }
        let head = String::from_utf8_lossy(&bytes).to_ascii_lowercase();
        let length = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length: "))
            .map_or(0, |n| n.trim().parse().unwrap());
        let mut body = vec![0; length];
        stream.read_exact(&mut body).unwrap();
        bytes.extend(body);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Waits for the server to close `stream`; how long that took.
    fn time_to_close(stream: &mut TcpStream) -> Duration {
        let started = Instant::now();
        let mut rest = Vec::new();
        // A reset counts as a close.
        let _ = stream.read_to_end(&mut rest);
        started.elapsed()
    }

    #[test]
    fn answers_requests_on_one_connection() {
        let address = start(LIMITS);
        let mut stream = connect(address);
        for _ in 0..3 {
            stream
                .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            let answer = read_answer(&mut stream);
            assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
            assert!(answer.ends_with("\r\n\r\nok"), "{answer}");
        }
        // A body in pieces.
        stream
            .write_all(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello")
            .unwrap();
        std::thread::sleep(Duration::from_millis(50));
        stream.write_all(b" world").unwrap();
        assert!(read_answer(&mut stream).ends_with("\r\n\r\nhello world"));
    }

    #[test]
    fn closes_connections_that_stall() {
        let address = start(LIMITS);
        // Silent from the start, idle after an answer, or sending a head a byte at a time.
        let mut silent = connect(address);
        assert!(time_to_close(&mut silent) < Duration::from_secs(5));
        let mut idle = connect(address);
        idle.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        assert!(read_answer(&mut idle).starts_with("HTTP/1.1 200"));
        assert!(time_to_close(&mut idle) < Duration::from_secs(5));
        let mut trickling = connect(address);
        trickling.write_all(b"GET / HTTP/1.1\r\n").unwrap();
        let started = Instant::now();
        while trickling.write_all(b"X").is_ok() && started.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(started.elapsed() < Duration::from_secs(5), "still open");
        // A body that stops coming is answered 408.
        let mut slow_body = connect(address);
        slow_body
            .write_all(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc")
            .unwrap();
        let answer = read_answer(&mut slow_body);
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    }

    #[test]
    fn refuses_a_head_too_large() {
        let address = start(LIMITS);
        let mut stream = connect(address);
        let cookie = "c".repeat(LIMITS.head_bytes);
        let request = format!("GET / HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\n\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let answer = read_answer(&mut stream);
        assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
    }

    #[test]
    fn closes_a_busy_connection_after_its_time() {
        let address = start(Limits {
            connection_time: Duration::from_millis(500),
            ..LIMITS
        });
        let mut stream = connect(address);
        let started = Instant::now();
        // Closed with an answer that says so, or between two requests.
        loop {
            let sent = stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            let answer = read_answer(&mut stream);
            if sent.is_err() || answer.is_empty() {
                break;
            }
            assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
            if answer
                .to_ascii_lowercase()
                .contains("\r\nconnection: close\r\n")
            {
                assert!(time_to_close(&mut stream) < Duration::from_secs(1));
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(5), "never closed");
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(started.elapsed() >= Duration::from_millis(500));
    }
}
