//! Folded request header lines (obs-fold), as mail-based AS2 software writes them:
//! hyper alone answers 400; the gateway unfolds them and reads the folded values.

use edihub_as2::Disposition;
use edihub_tests::{PARTNER, TestApp, fixture, spawn_app_with, with_keys};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// A request whose `Subject` and `Disposition-Notification-Options` are folded (CRLF
/// then a tab or spaces); the second half of the options asks for a SHA-256 signed MDN.
fn folded_request(message_id: &str, payload: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "POST /as2 HTTP/1.1\r\n\
         Host: hub\r\n\
         AS2-Version: 1.2\r\n\
         AS2-From: {PARTNER}\r\n\
         AS2-To: EDIHUB\r\n\
         Message-ID: <{message_id}>\r\n\
         Subject: an invoice whose subject line\r\n\tgot folded by a mail library\r\n\
         Disposition-Notification-To: as2@acme.example\r\n\
         Disposition-Notification-Options: signed-receipt-protocol=optional, pkcs7-signature;\r\n   \
         signed-receipt-micalg=optional, sha256\r\n\
         Content-Type: application/edifact\r\n\
         Content-Length: {}\r\n\r\n",
        payload.len()
    )
    .into_bytes();
    request.extend_from_slice(payload);
    request
}

/// Reads one HTTP/1.1 response (status, headers, Content-Length body) from `stream`.
async fn read_response(stream: &mut TcpStream) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut buffer = Vec::new();
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.expect("read response");
        assert!(n > 0, "connection closed before a response head");
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end..].to_vec();
    while body.len() < length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.expect("read body");
        assert!(n > 0, "connection closed inside the body");
        body.extend_from_slice(&chunk[..n]);
    }
    (status, headers, body)
}

async fn signed_mdn_disposition(headers: &[(String, String)], body: &[u8]) -> Disposition {
    let content_type = headers
        .iter()
        .find(|(n, _)| n == "content-type")
        .map(|(_, v)| v.as_str())
        .unwrap_or_default();
    let hub = edihub_as2::certificates_from_pem(&fixture("as2/hub.crt")).expect("hub cert");
    let mdn = edihub_as2::read_mdn(content_type, body, &hub).expect("an MDN");
    assert!(
        mdn.signed,
        "the folded half of the options asked for a signed MDN"
    );
    mdn.report.disposition
}

async fn subject_of(app: &TestApp, message_id: &str) -> String {
    sqlx::query_scalar("SELECT as2_headers->>'subject' FROM edi_message WHERE as2_message_id = $1")
        .bind(message_id)
        .fetch_one(&app.pool)
        .await
        .expect("journaled")
}

#[tokio::test]
async fn folded_headers_are_unfolded_on_every_request_of_a_kept_alive_connection() {
    let app = spawn_app_with(with_keys(false, false)).await;
    let payload = fixture(INVOIC);
    let mut stream = TcpStream::connect(app.address).await.expect("connect");
    for _ in 0..2 {
        let id = format!("{}@acme", Uuid::new_v4());
        stream
            .write_all(&folded_request(&id, &payload))
            .await
            .expect("write request");
        let (status, headers, body) = read_response(&mut stream).await;
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        assert_eq!(
            signed_mdn_disposition(&headers, &body).await,
            Disposition::Processed
        );
        let subject = subject_of(&app, &id).await;
        assert!(
            subject.starts_with("an invoice whose subject line")
                && subject.ends_with("got folded by a mail library"),
            "{subject}"
        );
    }
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 2);
}
