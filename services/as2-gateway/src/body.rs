//! Reading a request body, once its headers passed and its partner's slot is taken:
//! up to `gateway.max_body_bytes`, and within a deadline that grows with what arrived
//! (`body_read_timeout_ms`, plus a second per `body_min_bytes_per_second`), so a body
//! trickled in cannot hold a slot and its memory for minutes.

use axum::body::{Body, Bytes};
use axum::http::HeaderMap;
use axum::http::header::CONTENT_LENGTH;
use edihub_config::GatewaySettings;
use http_body_util::BodyExt;
use std::time::Duration;
use tokio::time::Instant;

/// Most bytes reserved up front for a declared length: the rest grows as it arrives.
const MAX_RESERVED: usize = 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("the body is larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("the body came too slowly: {received} bytes in {elapsed:?}")]
    TooSlow { received: usize, elapsed: Duration },
    #[error("the body could not be read: {0}")]
    Read(#[source] axum::Error),
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyLimits {
    pub max_bytes: usize,
    pub grace: Duration,
    pub min_bytes_per_second: u64,
}

impl BodyLimits {
    pub fn from_settings(gateway: &GatewaySettings) -> Self {
        Self {
            max_bytes: gateway.max_body_bytes,
            grace: Duration::from_millis(gateway.body_read_timeout_ms),
            min_bytes_per_second: gateway.body_min_bytes_per_second,
        }
    }

    /// How long a body may have taken once `received` bytes of it arrived.
    fn allowed(&self, received: usize) -> Duration {
        let earned_ms = (received as u64)
            .saturating_mul(1000)
            .checked_div(self.min_bytes_per_second)
            .unwrap_or(0);
        self.grace.saturating_add(Duration::from_millis(earned_ms))
    }

    /// Refuses a declared `Content-Length` over the limit before anything is read.
    pub fn check_declared(&self, headers: &HeaderMap) -> Result<Option<usize>, BodyError> {
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        match declared {
            Some(length) if length > self.max_bytes as u64 => Err(BodyError::TooLarge {
                limit: self.max_bytes,
            }),
            Some(length) => Ok(Some(length as usize)),
            None => Ok(None),
        }
    }

    /// The whole body, or why not.
    pub async fn read(&self, mut body: Body, declared: Option<usize>) -> Result<Bytes, BodyError> {
        let started = Instant::now();
        let mut buffer = Vec::with_capacity(declared.unwrap_or(0).min(MAX_RESERVED));
        loop {
            let deadline = started + self.allowed(buffer.len());
            let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
                Err(_) => {
                    return Err(BodyError::TooSlow {
                        received: buffer.len(),
                        elapsed: started.elapsed(),
                    });
                }
                Ok(None) => return Ok(Bytes::from(buffer)),
                Ok(Some(frame)) => frame.map_err(BodyError::Read)?,
            };
            // Trailers carry nothing AS2 reads.
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if buffer.len() + data.len() > self.max_bytes {
                return Err(BodyError::TooLarge {
                    limit: self.max_bytes,
                });
            }
            buffer.extend_from_slice(&data);
        }
    }
}

#[cfg(test)]
mod tests;
