//! Nothing expensive before authentication, at the transport: the slot is taken before
//! the body is read, a slow body is cut off (408), connections are capped (503) and an
//! idle connection is closed; hyper's own refusals are counted.

use super::{as2_request, closed_within, metric, read_head};
use edihub_tests::{TestApp, spawn_app_with};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use uuid::Uuid;

fn new_id() -> String {
    format!("{}@acme", Uuid::new_v4())
}

#[tokio::test]
async fn a_body_trickled_one_byte_a_second_gets_408_within_the_deadline() {
    let app = spawn_app_with(|gateway| {
        gateway.body_read_timeout_ms = 1_000;
        gateway.body_min_bytes_per_second = 1_000;
    })
    .await;
    // The counter is process-wide: other tests in this process may count 408s too.
    let counted_before = metric(&app, r#"edihub_http_rejections_total{status="408"}"#).await;
    let (head, body) = as2_request(&new_id(), &[]);
    let mut stream = TcpStream::connect(app.address).await.expect("connect");
    stream.write_all(&head).await.expect("head");
    let started = Instant::now();
    let (mut reader, mut writer) = stream.into_split();
    // The partner's side: a byte a second, as long as the gateway takes them.
    let trickle = tokio::spawn(async move {
        for byte in body {
            if writer.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    let answer = read_head(&mut reader, Duration::from_secs(5)).await;
    let elapsed = started.elapsed();
    assert!(answer.starts_with("http/1.1 408"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    // One second of grace, and one more per 1000 bytes: the trickle earned ~1 ms.
    assert!(elapsed < Duration::from_millis(2_500), "{elapsed:?}");
    assert!(
        closed_within(&mut reader, Duration::from_secs(2)).await,
        "the connection is cut off"
    );
    trickle.abort();
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 0);
    let counted = metric(&app, r#"edihub_http_rejections_total{status="408"}"#).await;
    assert!(counted > counted_before, "the 408 is counted");
}

#[tokio::test]
async fn the_partners_slot_is_taken_before_the_body_so_429_comes_before_any_body_is_sent() {
    let app = spawn_app_with(|gateway| gateway.max_concurrent_per_partner = 1).await;
    // `Expect: 100-continue`: the gateway says "100 Continue" when it starts to read
    // the body, which it does only with the slot taken.
    let (head, body) = as2_request(&new_id(), &["Expect: 100-continue"]);
    let mut first = TcpStream::connect(app.address).await.expect("connect");
    first.write_all(&head).await.expect("first head");
    let go_on = read_head(&mut first, Duration::from_secs(5)).await;
    assert!(go_on.starts_with("http/1.1 100"), "{go_on}");

    // A second request's head, and no body: refused at once.
    let (head, _) = as2_request(&new_id(), &[]);
    let mut second = TcpStream::connect(app.address).await.expect("connect");
    second.write_all(&head).await.expect("second head");
    let refused = read_head(&mut second, Duration::from_secs(5)).await;
    assert!(refused.starts_with("http/1.1 429"), "{refused}");
    assert!(refused.contains("retry-after"), "{refused}");

    first.write_all(&body).await.expect("first body");
    let accepted = read_head(&mut first, Duration::from_secs(10)).await;
    assert!(accepted.starts_with("http/1.1 200"), "{accepted}");
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
}

#[tokio::test]
async fn a_declared_body_over_max_body_bytes_gets_413_before_it_is_sent() {
    // The request's body (the INVOIC in MIME) is about 1 KB.
    let app = spawn_app_with(|gateway| gateway.max_body_bytes = 256).await;
    let (head, _) = as2_request(&new_id(), &[]);
    let mut stream = TcpStream::connect(app.address).await.expect("connect");
    stream.write_all(&head).await.expect("head");
    let answer = read_head(&mut stream, Duration::from_secs(5)).await;
    assert!(answer.starts_with("http/1.1 413"), "{answer}");
    assert_eq!(
        metric(&app, r#"edihub_http_rejections_total{status="413"}"#).await,
        1
    );
}

/// Opens `n` connections and waits until the gateway counts them all.
async fn hold_connections(app: &TestApp, n: usize) -> Vec<TcpStream> {
    let mut held = Vec::new();
    for _ in 0..n {
        held.push(TcpStream::connect(app.address).await.expect("connect"));
    }
    edihub_tests::wait_for(
        "the connections counted",
        Duration::from_secs(5),
        || async { (metric(app, "edihub_gateway_connections").await == n as i64).then_some(()) },
    )
    .await;
    held
}

#[tokio::test]
async fn connections_over_max_connections_get_503_with_retry_after_and_are_counted() {
    let app = spawn_app_with(|gateway| gateway.max_connections = 3).await;
    let mut held = hold_connections(&app, 3).await;

    let mut extra = TcpStream::connect(app.address).await.expect("connect");
    extra
        .write_all(b"GET /as2 HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("request");
    let answer = read_head(&mut extra, Duration::from_secs(5)).await;
    assert!(answer.starts_with("http/1.1 503"), "{answer}");
    assert!(answer.contains("retry-after: 1"), "{answer}");
    assert!(closed_within(&mut extra, Duration::from_secs(3)).await);
    let refused = r#"edihub_gateway_connections_refused_total{transport="plain"}"#;
    assert_eq!(metric(&app, refused).await, 1);

    // A closed connection frees its place.
    held.pop();
    edihub_tests::wait_for("a place freed", Duration::from_secs(5), || async {
        (metric(&app, "edihub_gateway_connections").await == 2).then_some(())
    })
    .await;
    let mut next = TcpStream::connect(app.address).await.expect("connect");
    next.write_all(b"GET /as2 HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("request");
    let answer = read_head(&mut next, Duration::from_secs(5)).await;
    assert!(answer.starts_with("http/1.1 405"), "served again: {answer}");
}

#[tokio::test]
async fn a_kept_alive_connection_is_closed_once_idle_for_idle_timeout() {
    let app = spawn_app_with(|gateway| gateway.idle_timeout_ms = 500).await;
    let mut stream = TcpStream::connect(app.address).await.expect("connect");
    stream
        .write_all(b"GET /as2 HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("request");
    let answer = read_head(&mut stream, Duration::from_secs(5)).await;
    assert!(answer.starts_with("http/1.1 405"), "{answer}");
    assert!(
        !answer.contains("connection: close"),
        "kept alive: {answer}"
    );
    let answered = Instant::now();
    // The 405 has no body beyond its Content-Length (0); then the connection is idle.
    assert!(
        closed_within(&mut stream, Duration::from_secs(5)).await,
        "closed when idle"
    );
    let idle = answered.elapsed();
    assert!(
        idle >= Duration::from_millis(400),
        "not before the idle timeout: {idle:?}"
    );

    // A connection that never sends a request is closed the same way.
    let mut silent = TcpStream::connect(app.address).await.expect("connect");
    assert!(closed_within(&mut silent, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn malformed_and_oversized_heads_answered_by_hyper_are_counted() {
    let app = spawn_app_with(|_| {}).await;
    let mut garbage = TcpStream::connect(app.address).await.expect("connect");
    garbage
        .write_all(b"NOT HTTP AT ALL\r\n\r\n")
        .await
        .expect("garbage");
    let answer = read_head(&mut garbage, Duration::from_secs(5)).await;
    assert!(answer.starts_with("http/1.1 400"), "{answer}");

    let mut huge = TcpStream::connect(app.address).await.expect("connect");
    let filler = "a".repeat(1024 * 1024);
    let head = format!("POST /as2 HTTP/1.1\r\nHost: x\r\nX-Filler: {filler}\r\n\r\n");
    // hyper answers once its limit is passed and may stop reading: ignore write errors.
    let _ = huge.write_all(head.as_bytes()).await;
    let mut answer = vec![0u8; 32];
    let n = tokio::time::timeout(Duration::from_secs(5), huge.read(&mut answer))
        .await
        .expect("an answer in time")
        .unwrap_or(0);
    assert!(
        answer[..n].starts_with(b"HTTP/1.1 431"),
        "{:?}",
        String::from_utf8_lossy(&answer[..n])
    );

    edihub_tests::wait_for("both counted", Duration::from_secs(5), || async {
        let bad = metric(&app, r#"edihub_http_rejections_total{status="400"}"#).await;
        let large = metric(&app, r#"edihub_http_rejections_total{status="431"}"#).await;
        (bad == 1 && large == 1).then_some(())
    })
    .await;
}
