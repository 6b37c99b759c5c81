//! The one place where the gateway's failures become HTTP answers.

use crate::body::BodyError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use edihub_inbound::{DecideError, RequestError};
use edihub_journal::JournalError;

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// Not an AS2 message we can answer with an MDN: headers over
    /// `gateway.max_header_bytes` (431) or AS2 headers missing or malformed (400). The
    /// partner's fault.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// The partner already has `gateway.max_concurrent_per_partner` requests in
    /// progress: 429 with `Retry-After`, nothing was read or stored.
    #[error("{partner} already has {limit} messages in progress; retry later")]
    TooBusy { partner: String, limit: usize },
    /// The body is over `gateway.max_body_bytes` (413), came too slowly (408) or broke
    /// off (400); the connection is closed. The partner's fault.
    #[error(transparent)]
    Body(#[from] BodyError),
    // Everything below is our fault, or the database's: 503 and no MDN, so the partner
    // resends later. Nothing was committed.
    #[error("message not stored: {0}")]
    Decide(#[from] DecideError),
    #[error("message not stored: the decision task ended abnormally: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("message not stored: {0}")]
    Journal(#[source] JournalError),
    #[error("message not stored: the event cannot be serialised: {0}")]
    Event(#[from] serde_json::Error),
    #[error("message not stored: cannot look for an earlier copy: {0}")]
    Lookup(#[source] sqlx::Error),
    #[error("message not stored: the MDN cannot be queued again: {0}")]
    Redelivery(#[source] sqlx::Error),
    #[error("message not stored: duplicate message without a stored MDN")]
    OriginalMdnMissing,
}

impl GatewayError {
    /// The HTTP status, and the outcome label counted in `edihub_as2_messages_total`.
    fn status(&self) -> (StatusCode, &'static str) {
        match self {
            GatewayError::Request(RequestError::NotAs2(_)) => {
                (StatusCode::BAD_REQUEST, "bad-request")
            }
            GatewayError::Request(RequestError::HeadersTooLarge { .. }) => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "headers-too-large",
            ),
            GatewayError::TooBusy { .. } => (StatusCode::TOO_MANY_REQUESTS, "too-busy"),
            GatewayError::Body(BodyError::TooLarge { .. }) => {
                (StatusCode::PAYLOAD_TOO_LARGE, "too-large")
            }
            GatewayError::Body(BodyError::TooSlow { .. }) => {
                (StatusCode::REQUEST_TIMEOUT, "too-slow")
            }
            GatewayError::Body(BodyError::Read(_)) => (StatusCode::BAD_REQUEST, "bad-request"),
            _ => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
        }
    }
}

impl IntoResponse for GatewayError {
    fn into_response(self) -> Response {
        let (status, outcome) = self.status();
        edihub_metrics::AS2_MESSAGES
            .with_label_values(&[outcome])
            .inc();
        // Logged once, here, where it is handled.
        if status.is_client_error() {
            tracing::warn!(error = %self, "request refused");
        } else {
            tracing::error!(error = %self, "request failed");
        }
        if matches!(status.as_u16(), 400 | 408 | 413 | 431) {
            edihub_metrics::HTTP_REJECTIONS
                .with_label_values(&[status.as_str()])
                .inc();
        }
        let mut response = (status, format!("{self}\n")).into_response();
        if matches!(self, GatewayError::Body(_)) {
            // The rest of the body is not worth reading: the connection ends here.
            response.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("5"),
            );
        }
        response
    }
}
