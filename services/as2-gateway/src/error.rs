//! The one place where the gateway's failures become HTTP answers.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The request is not an AS2 message we can answer with an MDN (no AS2-From,
    /// no Message-ID, ...): the partner's fault, 400.
    #[error("not a valid AS2 request: {0}")]
    BadRequest(String),
    /// The header section is larger than `gateway.max_header_bytes`: 431.
    #[error("request headers of {size} bytes exceed the limit of {limit} bytes")]
    HeadersTooLarge { size: usize, limit: usize },
    /// The partner already has `gateway.max_concurrent_per_partner` requests in
    /// progress: 429 with `Retry-After`, nothing was read or stored.
    #[error("{partner} already has {limit} messages in progress; retry later")]
    TooBusy { partner: String, limit: usize },
    /// Our fault, or the database's: 503 and no MDN, so the partner resends later.
    /// Nothing was committed.
    #[error("message not stored: {0}")]
    Unavailable(String),
}

impl IntoResponse for GatewayError {
    fn into_response(self) -> Response {
        let (status, outcome) = match &self {
            GatewayError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad-request"),
            GatewayError::HeadersTooLarge { .. } => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "headers-too-large",
            ),
            GatewayError::TooBusy { .. } => (StatusCode::TOO_MANY_REQUESTS, "too-busy"),
            GatewayError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
        };
        edihub_metrics::AS2_MESSAGES
            .with_label_values(&[outcome])
            .inc();
        // Logged once, here, where it is handled.
        if status.is_client_error() {
            tracing::warn!(error = %self, "request refused");
        } else {
            tracing::error!(error = %self, "request failed");
        }
        let mut response = (status, format!("{self}\n")).into_response();
        if status == StatusCode::TOO_MANY_REQUESTS {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("5"),
            );
        }
        response
    }
}
