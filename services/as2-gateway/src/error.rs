//! The one place where the gateway's failures become HTTP answers.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The request is not an AS2 message we can answer with an MDN (no AS2-From,
    /// no Message-ID, ...): the partner's fault, 400.
    #[error("not a valid AS2 request: {0}")]
    BadRequest(String),
    /// Our fault, or the database's: 503 and no MDN, so the partner resends later.
    /// Nothing was committed.
    #[error("message not stored: {0}")]
    Unavailable(String),
}

impl IntoResponse for GatewayError {
    fn into_response(self) -> Response {
        let status = match &self {
            GatewayError::BadRequest(_) => StatusCode::BAD_REQUEST,
            GatewayError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        };
        let outcome = match status {
            StatusCode::BAD_REQUEST => "bad-request",
            _ => "unavailable",
        };
        edihub_metrics::AS2_MESSAGES
            .with_label_values(&[outcome])
            .inc();
        // Logged once, here, where it is handled.
        match status {
            StatusCode::BAD_REQUEST => tracing::warn!(error = %self, "request refused"),
            _ => tracing::error!(error = %self, "request failed"),
        }
        (status, format!("{self}\n")).into_response()
    }
}
