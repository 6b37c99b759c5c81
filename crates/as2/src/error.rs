//! The one error type of this crate.
//!
//! Every variant describes bytes that came from outside (a partner's request, a partner's
//! MDN): none of them is "our bug". Mapping an error to an HTTP status or to an MDN
//! disposition is deliberately left to the caller (the gateway does it in one place), because
//! the same parse failure can mean different things there: a bad `AS2-To` is answered
//! differently from a bad `Disposition-Notification-Options`.

/// Why AS2 input was rejected.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum As2Error {
    /// A header that RFC 4130 (or this hub) requires is absent. The name is the canonical
    /// spelling, e.g. `"AS2-From"`.
    #[error("missing required header {0}")]
    MissingHeader(&'static str),

    /// A header is present but unusable: not UTF-8, repeated, empty, or not in the grammar.
    #[error("invalid {name} header: {reason}")]
    InvalidHeader { name: String, reason: String },

    /// A MIC value (`<base64>, <alg>`) could not be read or names an algorithm we do not
    /// implement.
    #[error("invalid MIC: {0}")]
    InvalidMic(String),

    /// An MDN did not have the multipart/report structure or the fields RFC 4130 requires.
    #[error("malformed MDN: {0}")]
    MalformedMdn(String),

    /// A key, certificate or CMS operation failed on our side (unreadable PEM, a key that
    /// does not match its certificate, a signing or encryption failure).
    #[error("crypto: {0}")]
    Crypto(String),

    /// A signed MDN whose signature does not verify against the partner's certificates.
    #[error("bad signature: {0}")]
    Signature(String),

    /// Well-formed input that needs a feature this crate does not have yet (for instance a
    /// transfer encoding we do not know).
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl As2Error {
    pub(crate) fn invalid_header(name: &str, reason: impl Into<String>) -> As2Error {
        As2Error::InvalidHeader {
            name: name.to_string(),
            reason: reason.into(),
        }
    }
}
