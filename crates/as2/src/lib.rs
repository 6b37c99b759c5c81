//! AS2 (RFC 4130) for edihub, sans-IO: bytes and values in, values and bytes out.
//!
//! This crate opens no sockets, reads no clock and draws no random numbers. Whatever varies
//! per call (the MDN's Message-ID, the MIME boundary) is passed in by the caller, so every
//! function is deterministic and can be tested and fuzzed on bytes alone.
//!
//! Module map, in the order a message meets them:
//! - [`headers`]: the partner's AS2 request headers, normalised ([`As2Headers`]), and the
//!   MDN request options.
//! - [`mic`]: the Message Integrity Check returned in the MDN.
//! - [`mdn`]: building the MDN we answer with, and parsing the MDN a partner answers with.
//! - [`message`]: building an outgoing message (client side).
//!
//! Scope today is plain AS2 (no S/MIME). Signing and encryption slot in between: an
//! `smime` layer unwraps an inbound body before [`mic`] and the payload are computed, and
//! wraps [`BuiltMdn::body`] / [`OutgoingMessage::body`] on the way out; the types here do
//! not change.

pub mod error;
pub mod headers;
pub mod mdn;
pub mod message;
pub mod mic;
mod mime;

pub use error::As2Error;
pub use headers::{As2Headers, Importance, MdnOptions, quote_as2_name};
pub use mdn::{BuiltMdn, Disposition, DispositionError, MdnReport, build_mdn, parse_mdn};
pub use message::{OutgoingMessage, PlainMessageSpec, build_plain_message};
pub use mic::{Mic, MicAlg, mic_for_unsigned};
