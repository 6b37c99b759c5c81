//! The gateway's transport under attack and in ordinary use, over real sockets with
//! real clients: HTTPS (rustls and `openssl s_client`), certificate reload, client
//! certificates pinned per partnership, the body deadline, the slot taken before the
//! body, the connection cap, the idle timeout, and the operations port.
//!
//! Metric values are read from the gateway's `/metrics`; nextest runs each test in its
//! own process, so the counters are this test's own.

mod limits;
mod ops;
mod tls;

use edihub_tests::{HUB, PARTNER, TestApp, fixture};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// A plain AS2 request from [`PARTNER`] as raw HTTP/1.1: its head (ending in the blank
/// line) and its body. `extra` headers go into the head as given.
fn as2_request(message_id: &str, extra: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let payload = fixture(INVOIC);
    let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
        as2_from: PARTNER,
        as2_to: HUB,
        message_id,
        subject: "transport test",
        content_type: "application/edifact",
        payload: &payload,
        request_mdn_to: Some("test@example.invalid"),
        request_signed_mdn: None,
    });
    let mut head = String::from("POST /as2 HTTP/1.1\r\nHost: localhost\r\n");
    for (name, value) in &message.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n", message.body.len()));
    for header in extra {
        head.push_str(&format!("{header}\r\n"));
    }
    head.push_str("\r\n");
    (head.into_bytes(), message.body)
}

/// Reads a response head (through the blank line), within `timeout`.
async fn read_head(stream: &mut (impl AsyncRead + Unpin), timeout: Duration) -> String {
    let read = async {
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            let n = stream.read(&mut byte).await.expect("read response head");
            assert!(
                n > 0,
                "closed before a response head: {:?}",
                String::from_utf8_lossy(&head)
            );
            head.push(byte[0]);
        }
        String::from_utf8_lossy(&head).to_ascii_lowercase()
    };
    tokio::time::timeout(timeout, read)
        .await
        .expect("a response head in time")
}

/// Whether the server closed `stream` within `timeout` (anything it still sends first
/// is skipped).
async fn closed_within(stream: &mut (impl AsyncRead + Unpin), timeout: Duration) -> bool {
    let drained = async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(timeout, drained).await.is_ok()
}

/// The value of the metric series `series` (name and labels as rendered), 0 if absent.
async fn metric(app: &TestApp, series: &str) -> i64 {
    app.metrics()
        .await
        .lines()
        .find_map(|line| {
            line.strip_prefix(series)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}
