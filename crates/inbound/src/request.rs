//! The first checks of a request: how large its header section is, and whether its
//! AS2 headers can be read at all. Both come before the partner's slot is taken and
//! before any work on the body.

use edihub_as2::{As2Error, As2Headers};

/// Why a request is not answered with an MDN: there is no AS2 message to answer.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The header section is larger than the configured limit.
    #[error("request headers of {size} bytes exceed the limit of {limit} bytes")]
    HeadersTooLarge { size: usize, limit: usize },
    /// A required AS2 header is missing or malformed (no AS2-From, no Message-ID, ...).
    #[error("not a valid AS2 request: {0}")]
    NotAs2(#[source] As2Error),
}

/// The request's AS2 headers, from its `(name, value)` pairs as the HTTP server
/// received them, when the header section (each header counted as its name, its value
/// and the four bytes of `": "` and CRLF) is at most `limit` bytes.
pub fn read_headers(pairs: &[(&str, &[u8])], limit: usize) -> Result<As2Headers, RequestError> {
    let size: usize = pairs
        .iter()
        .map(|(name, value)| name.len() + value.len() + 4)
        .sum();
    if size > limit {
        return Err(RequestError::HeadersTooLarge { size, limit });
    }
    As2Headers::from_pairs(pairs.iter().copied()).map_err(RequestError::NotAs2)
}

#[cfg(test)]
mod tests;
