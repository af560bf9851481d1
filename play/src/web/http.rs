//! The HTTP/1.1 server under `patina web`: std's blocking sockets, `httparse` for the request
//! head, a thread per connection. Each connection carries one request (`Connection: close`):
//! the page's requests are few and local, and a connection's whole life is then one bounded
//! read, one answer and a close.
//!
//! Nothing a client does stops the server. A failed `accept` (a peer that reset before it was
//! taken, a process out of file descriptors) is waited out, connections beyond the limit are
//! answered 503 and closed, and a request must arrive whole before its deadline.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

/// Header lines read at most; a browser sends about a dozen.
const MAX_HEADERS: usize = 48;
/// How long the accept loop rests after an error it cannot blame on one peer (no file
/// descriptor or thread left), so that it does not spin while the shortage lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// How long a connection stays open after its answer with nothing coming from the client, for
/// the client to close it first.
const LINGER: Duration = Duration::from_secs(1);
/// The time an answer to a connection beyond the limit may take to write.
const BUSY_WRITE_TIME: Duration = Duration::from_millis(50);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Other,
}

#[derive(Debug)]
pub struct Request {
    pub method: Method,
    /// The request target: the path and the query.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The value of the first header named `name`, matched without regard to case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// A request that could not be read whole, or a connection the server has no room for; the
/// handler answers it with `status`.
#[derive(Debug, PartialEq, Eq)]
pub struct RequestError {
    pub status: u16,
    pub message: &'static str,
}

pub struct Response {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Cow<'static, [u8]>,
}

impl Response {
    pub fn new(status: u16, body: impl Into<Cow<'static, [u8]>>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// Values come from this program, never from a request; a line break in one is a bug.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        let value = value.into();
        assert!(
            !value.contains(['\r', '\n']),
            "header {name} has a line break"
        );
        self.headers.push((name, value));
        self
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once; one more is answered 503 and closed.
    pub connections: usize,
    pub head_bytes: usize,
    pub body_bytes: usize,
    /// Time a client has from connecting to sending the last byte of its request.
    pub request_time: Duration,
}

/// Serves `listener` for ever, answering each request with `handler`.
pub fn serve<H>(listener: TcpListener, limits: Limits, handler: H) -> !
where
    H: Fn(Result<Request, RequestError>) -> Response + Send + Sync + 'static,
{
    let handler = Arc::new(handler);
    let open = Arc::new(AtomicUsize::new(0));
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            // The peer gave up before the connection was taken: nothing to serve.
            Err(e) if e.kind() == ErrorKind::ConnectionAborted => continue,
            Err(e) => {
                eprintln!("patina web: cannot accept a connection: {e}");
                thread::sleep(ACCEPT_BACKOFF);
                continue;
            }
        };
        let Some(slot) = Slot::take(&open, limits.connections) else {
            let busy = RequestError {
                status: 503,
                message: "the server is busy; try again",
            };
            // Answered without lingering, and given up on if it does not fit the socket's
            // buffer at once: the accept loop must not wait on a client.
            let mut stream = stream;
            let deadline = Instant::now() + BUSY_WRITE_TIME;
            answer(&mut stream, Method::Get, &handler(Err(busy)), deadline);
            continue;
        };
        let handler = Arc::clone(&handler);
        let spawned = thread::Builder::new()
            .name("patina-web".into())
            .spawn(move || serve_connection(stream, slot, limits, &*handler));
        // The closure, with the connection and its slot, is dropped: the peer sees a close.
        if let Err(e) = spawned {
            eprintln!("patina web: cannot start a thread for a connection: {e}");
            thread::sleep(ACCEPT_BACKOFF);
        }
    }
}

/// One connection's life on its own thread: its request read by the deadline, answered, and the
/// connection closed once the client has gone or stopped sending; its place is given back then.
fn serve_connection<H>(mut stream: TcpStream, _slot: Slot, limits: Limits, handler: &H)
where
    H: Fn(Result<Request, RequestError>) -> Response,
{
    let deadline = Instant::now() + limits.request_time;
    let (method, response) = match read_request(&mut stream, limits, deadline) {
        Ok(request) => (request.method, handler(Ok(request))),
        Err(ReadFailure::Refused(e)) => (Method::Get, handler(Err(e))),
        Err(ReadFailure::Gone) => return,
    };
    answer(
        &mut stream,
        method,
        &response,
        Instant::now() + limits.request_time,
    );
    linger(&mut stream, Instant::now() + limits.request_time);
}

/// One of the limited connection places, given back when dropped.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(open: &Arc<AtomicUsize>, limit: usize) -> Option<Self> {
        open.fetch_update(Relaxed, Relaxed, |n| (n < limit).then_some(n + 1))
            .ok()
            .map(|_| Self(Arc::clone(open)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

enum ReadFailure {
    /// Answer the client with this error.
    Refused(RequestError),
    /// The client closed, reset or fell silent before sending anything: no one to answer.
    Gone,
}

fn refused(status: u16, message: &'static str) -> ReadFailure {
    ReadFailure::Refused(RequestError { status, message })
}

fn read_request(
    stream: &mut TcpStream,
    limits: Limits,
    deadline: Instant,
) -> Result<Request, ReadFailure> {
    let mut buffer = Vec::with_capacity(1024);
    let (head_len, mut request, http_1_1) = loop {
        let before = buffer.len();
        if read_some(stream, &mut buffer, deadline)? == 0 {
            return Err(ReadFailure::Gone);
        }
        // Parsed again only once the head may have ended (a blank line), so that a client
        // sending a byte at a time does not cost a parse of the whole head for each.
        let fresh = &buffer[before.saturating_sub(3)..];
        let may_end =
            fresh.windows(2).any(|w| w == b"\n\n") || fresh.windows(3).any(|w| w == b"\n\r\n");
        if !may_end && buffer.len() < limits.head_bytes {
            continue;
        }
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut head = httparse::Request::new(&mut headers);
        match head.parse(&buffer) {
            Ok(httparse::Status::Complete(len)) if len <= limits.head_bytes => {
                break (len, to_request(&head)?, head.version == Some(1));
            }
            Ok(httparse::Status::Partial) if buffer.len() < limits.head_bytes => {}
            Ok(_) | Err(httparse::Error::TooManyHeaders) => {
                return Err(refused(431, "the request head is too large"));
            }
            Err(_) => return Err(refused(400, "the request is not HTTP")),
        }
    };
    if request.header("Transfer-Encoding").is_some() {
        return Err(refused(
            501,
            "send the body with a Content-Length, not chunked",
        ));
    }
    let body_len = content_length(&request)?;
    if body_len > limits.body_bytes {
        return Err(refused(413, "the request body is too large"));
    }
    let end = head_len + body_len;
    // A client that waits for leave to send its body (HTTP/1.0 knows no such thing).
    let expects_continue = http_1_1
        && request
            .header("Expect")
            .is_some_and(|value| value.eq_ignore_ascii_case("100-continue"));
    if expects_continue && buffer.len() < end {
        send(stream, b"HTTP/1.1 100 Continue\r\n\r\n", deadline).map_err(|_| ReadFailure::Gone)?;
    }
    while buffer.len() < end {
        if read_some(stream, &mut buffer, deadline)? == 0 {
            return Err(ReadFailure::Gone);
        }
    }
    // Bytes beyond the body would be a second request; one is served per connection.
    request.body = buffer[head_len..end].to_vec();
    Ok(request)
}

/// The parsed head as owned strings; header values must be text.
fn to_request(head: &httparse::Request) -> Result<Request, ReadFailure> {
    let method = match head.method {
        Some("GET") => Method::Get,
        Some("HEAD") => Method::Head,
        Some("POST") => Method::Post,
        _ => Method::Other,
    };
    let mut headers = Vec::with_capacity(head.headers.len());
    for header in head.headers.iter() {
        let value = std::str::from_utf8(header.value)
            .map_err(|_| refused(400, "a header value is not text"))?;
        headers.push((header.name.to_string(), value.trim().to_string()));
    }
    Ok(Request {
        method,
        target: head.path.unwrap_or("/").to_string(),
        headers,
        body: Vec::new(),
    })
}

/// The body's length: 0 without a `Content-Length`; repeated ones must agree.
fn content_length(request: &Request) -> Result<usize, ReadFailure> {
    let mut length = None;
    for (_, value) in request
        .headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("Content-Length"))
    {
        let parsed = value
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| value.parse::<usize>().ok())
            .flatten()
            .ok_or_else(|| refused(400, "the Content-Length is not a number"))?;
        if length.is_some_and(|known| known != parsed) {
            return Err(refused(400, "the Content-Length headers disagree"));
        }
        length = Some(parsed);
    }
    Ok(length.unwrap_or(0))
}

/// Appends what the socket has to `buffer`, waiting no later than `deadline`; `Ok(0)` at the end
/// of the stream.
fn read_some(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
    deadline: Instant,
) -> Result<usize, ReadFailure> {
    let mut chunk = [0; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        // A connection opened and left silent (browsers open spare ones) is closed unanswered.
        let timed_out = || match buffer.is_empty() {
            true => ReadFailure::Gone,
            false => refused(408, "the request took too long to arrive"),
        };
        if left.is_zero() {
            return Err(timed_out());
        }
        stream
            .set_read_timeout(Some(left))
            .map_err(|_| ReadFailure::Gone)?;
        match stream.read(&mut chunk) {
            Ok(n) => {
                buffer.extend_from_slice(&chunk[..n]);
                return Ok(n);
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Err(timed_out());
            }
            Err(_) => return Err(ReadFailure::Gone),
        }
    }
}

/// Writes `response` by `deadline` and ends the connection's sending side; a client that has
/// gone, or reads too slowly, is no one's concern. std writes to sockets without raising
/// SIGPIPE, so a closed connection is an error here, not the end of the process.
fn answer(stream: &mut TcpStream, method: Method, response: &Response, deadline: Instant) {
    if send(stream, &encode(method, response), deadline).is_ok() {
        let _ = stream.shutdown(Shutdown::Write);
    }
}

/// Reads and drops what the client still sends until it closes, for as long as bytes keep
/// coming within `LINGER` of each other and at most until `deadline`. Closing with bytes unread
/// (a refused body) would reset the connection, which can destroy the answer before the client
/// has read it.
fn linger(stream: &mut TcpStream, deadline: Instant) {
    let mut scratch = Vec::new();
    while let Ok(n) = read_some(stream, &mut scratch, deadline.min(Instant::now() + LINGER)) {
        if n == 0 {
            break;
        }
        scratch.clear();
    }
}

fn send(stream: &mut TcpStream, mut bytes: &[u8], deadline: Instant) -> io::Result<()> {
    while !bytes.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ErrorKind::TimedOut.into());
        }
        stream.set_write_timeout(Some(left))?;
        match stream.write(bytes) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The response as sent: HEAD is answered as GET without the body, its length still announced.
fn encode(method: Method, response: &Response) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    );
    for (name, value) in &response.headers {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    let _ = write!(
        head,
        "Date: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        httpdate::fmt_http_date(SystemTime::now()),
        response.body.len()
    );
    let mut bytes = head.into_bytes();
    if method != Method::Head {
        bytes.extend_from_slice(&response.body);
    }
    bytes
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;

    fn echo(request: Result<Request, RequestError>) -> Response {
        match request {
            Ok(request) => {
                let text = format!(
                    "{:?} {} {} {}",
                    request.method,
                    request.target,
                    request.header("x-probe").unwrap_or("-"),
                    String::from_utf8_lossy(&request.body)
                );
                Response::new(200, text.into_bytes()).with_header("Content-Type", "text/plain")
            }
            Err(e) => Response::new(e.status, e.message.as_bytes()),
        }
    }

    fn start(limits: Limits) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        thread::spawn(move || serve(listener, limits, echo));
        address
    }

    const LIMITS: Limits = Limits {
        connections: 8,
        head_bytes: 1024,
        body_bytes: 64,
        request_time: Duration::from_secs(5),
    };

    /// Sends `parts` with a pause between them and reads the answer to the server's close.
    fn exchange(address: SocketAddr, parts: &[&[u8]]) -> String {
        let mut stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                thread::sleep(Duration::from_millis(50));
            }
            stream.write_all(part).unwrap();
        }
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    fn status_and_body(answer: &str) -> (&str, &str) {
        let (head, body) = answer.split_once("\r\n\r\n").expect("a whole head");
        (head.lines().next().unwrap(), body)
    }

    fn status_line(address: SocketAddr, parts: &[&[u8]]) -> String {
        status_and_body(&exchange(address, parts)).0.to_string()
    }

    #[test]
    fn answers_one_request_and_closes() {
        let address = start(LIMITS);
        let answer = exchange(
            address,
            &[b"GET /a?b=1 HTTP/1.1\r\nHost: x\r\nX-PROBE:  seen \r\n\r\n"],
        );
        assert_eq!(
            status_and_body(&answer),
            ("HTTP/1.1 200 OK", "Get /a?b=1 seen ")
        );
        assert!(
            answer.contains("\r\nContent-Type: text/plain\r\n"),
            "{answer}"
        );
        assert!(answer.contains("\r\nContent-Length: 16\r\n"), "{answer}");
        assert!(answer.contains("\r\nConnection: close\r\n"), "{answer}");
        assert!(answer.contains("\r\nDate: "), "{answer}");

        // HEAD: the head alone, with the length of the body the same request by GET would get
        // ("Head /a - " here, as the echo names the method).
        let answer = exchange(address, &[b"HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n"]);
        assert!(answer.contains("\r\nContent-Length: 10\r\n"), "{answer}");
        assert!(answer.ends_with("\r\n\r\n"), "{answer}");

        // A body in pieces, one split inside the head.
        let answer = exchange(
            address,
            &[
                b"POST /p HTTP/1.1\r\nHost: x\r\nContent-",
                b"Length: 11\r\n\r\nhello",
                b" world",
            ],
        );
        assert_eq!(status_and_body(&answer).1, "Post /p - hello world");

        // The blank line that ends the head split across two reads; bare line feeds.
        let answer = exchange(address, &[b"GET /s HTTP/1.1\r\nHost: x\r\n\r", b"\n"]);
        assert_eq!(status_and_body(&answer).1, "Get /s - ");
        let answer = exchange(address, &[b"GET /lf HTTP/1.1\nHost: x\n", b"\n"]);
        assert_eq!(status_and_body(&answer).1, "Get /lf - ");

        // A client that waits for leave to send its body.
        let mut stream = TcpStream::connect(address).unwrap();
        stream
            .write_all(b"POST /p HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
            .unwrap();
        let mut interim = [0; 25];
        stream.read_exact(&mut interim).unwrap();
        assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
        stream.write_all(b"ok").unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert_eq!(
            status_and_body(&answer),
            ("HTTP/1.1 200 OK", "Post /p - ok")
        );
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        // Refused with its body sent: the answer must still arrive, not a reset.
        let large = [
            b"POST / HTTP/1.1\r\nContent-Length: 8000000\r\n\r\n".as_slice(),
            &vec![b'x'; 8_000_000],
        ]
        .concat();
        let long = format!("GET / HTTP/1.1\r\nCookie: {}\r\n\r\n", "c".repeat(2000));
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "A: b\r\n".repeat(MAX_HEADERS + 1)
        );
        let refused: [(&[u8], &str); 8] = [
            (b"NOT HTTP AT ALL\r\n\r\n", "400 Bad Request"),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 65\r\n\r\n",
                "413 Content Too Large",
            ),
            (&large, "413 Content Too Large"),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab",
                "400 Bad Request",
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
                "400 Bad Request",
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
                "501 Not Implemented",
            ),
            (long.as_bytes(), "431 Request Header Fields Too Large"),
            (many.as_bytes(), "431 Request Header Fields Too Large"),
        ];
        let address = start(LIMITS);
        for (request, status) in refused {
            assert_eq!(
                status_line(address, &[request]),
                format!("HTTP/1.1 {status}")
            );
        }

        // A head, or a body, that stops coming; a connection that never says anything is
        // closed without an answer.
        let address = start(Limits {
            request_time: Duration::from_millis(300),
            ..LIMITS
        });
        for request in [
            b"GET / HTTP/1.1\r\nHo".as_slice(),
            b"POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc",
        ] {
            assert_eq!(
                status_line(address, &[request]),
                "HTTP/1.1 408 Request Timeout"
            );
        }
        assert_eq!(exchange(address, &[]), "");
    }

    /// Asks until a place is free, for at most 20 s.
    fn wait_for_a_place(address: SocketAddr) -> String {
        let started = Instant::now();
        loop {
            let answer = exchange(address, &[b"GET /up HTTP/1.1\r\n\r\n"]);
            if answer.starts_with("HTTP/1.1 200") {
                return answer;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "{answer}");
            thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn outlives_clients_that_vanish() {
        let address = start(Limits {
            connections: 4,
            ..LIMITS
        });
        // Clients that leave mid-head, mid-body, or before reading their answer.
        for i in 0..300 {
            let mut stream = TcpStream::connect(address).unwrap();
            let sent: &[u8] = match i % 3 {
                0 => b"GET / HT",
                1 => b"POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nab",
                _ => b"GET / HTTP/1.1\r\n\r\n",
            };
            stream.write_all(sent).unwrap();
        }
        assert!(wait_for_a_place(address).ends_with("Get /up - "));
    }

    #[test]
    fn bounds_the_connections_served_at_once() {
        let address = start(Limits {
            connections: 4,
            ..LIMITS
        });
        // Four clients slow to finish their heads hold the four places.
        let mut slow: Vec<TcpStream> = (0..4)
            .map(|_| {
                let mut stream = TcpStream::connect(address).unwrap();
                stream.write_all(b"GET /slow HTTP/1.1\r\n").unwrap();
                stream
            })
            .collect();
        let answer = exchange(address, &[]);
        assert_eq!(
            status_and_body(&answer),
            (
                "HTTP/1.1 503 Service Unavailable",
                "the server is busy; try again"
            )
        );
        for stream in &mut slow {
            stream.write_all(b"\r\n").unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).unwrap();
            assert!(answer.ends_with("Get /slow - "), "{answer}");
        }
        drop(slow);
        assert!(wait_for_a_place(address).ends_with("Get /up - "));
    }
}
