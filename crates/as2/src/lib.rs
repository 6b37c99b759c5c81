//! AS2 (RFC 4130) for edihub, sans-IO: bytes and values in, values and bytes out.
//!
//! This crate opens no sockets and reads no clock. Whatever varies
//! per call (the MDN's Message-ID, the MIME boundary, a signature's signing time) is passed
//! in by the caller, so every function except encryption is deterministic and can be tested
//! and fuzzed on bytes alone.
//!
//! Module map, in the order a message meets them:
//! - [`headers`]: the partner's AS2 request headers, normalised ([`As2Headers`]), and the
//!   MDN request options.
//! - [`mic`]: the Message Integrity Check returned in the MDN.
//! - [`mdn`]: building the MDN we answer with, and parsing the MDN a partner answers with.
//! - [`message`]: building an outgoing message (client side).
//! - [`obs_fold`]: unfolding folded header lines in HTTP request heads, which hyper
//!   refuses and some AS2 software sends.
//! - [`receipt_url`]: whether a partner may have its MDN POSTed to the URL it asked for.
//!
//! - [`smime`]: the security layers (decrypt, verify, decompress) of an inbound message,
//!   the MIC over the signed entity, signed MDNs, and secured outgoing messages.
//! - [`crypto`]: the CMS primitives behind [`smime`] (OpenSSL, plus RustCrypto's `cms` and
//!   `flate2` for compressed data, which Debian's OpenSSL cannot handle).
//!
//! Signatures carry the signing time the caller passes (`now_unix`), not OpenSSL's clock.
//! The one source of randomness left is inside OpenSSL: content-encryption keys and RSA
//! padding when we encrypt (signing with RSASSA-PKCS1-v1_5 is deterministic).

pub mod crypto;
pub mod error;
pub mod headers;
pub mod mdn;
pub mod message;
pub mod mic;
mod mime;
pub mod obs_fold;
pub mod receipt;
pub mod receipt_url;
pub mod smime;

pub use crypto::{Encryption, Identity, certificates_from_pem};
pub use error::As2Error;
pub use headers::{As2Headers, Importance, MdnOptions, quote_as2_name};
pub use mdn::{
    BuiltMdn, Disposition, DispositionError, DispositionWarning, MdnReport, build_mdn, parse_mdn,
};
pub use message::{OutgoingMessage, PlainMessageSpec, build_plain_message};
pub use mic::{Mic, MicAlg, mic_for_unsigned};
/// An X.509 certificate (OpenSSL's), as the S/MIME functions take it.
pub use openssl::x509::X509 as Certificate;
pub use smime::{
    AlgorithmPolicy, EntityError, InboundRefusal, PartnerSecurity, SecureMessage,
    SecureMessageSpec, SignatureEvidence, UnwrapLimits, Unwrapped, VerifiedEntity, VerifiedMdn,
    build_secure_message, read_mdn, sign_mdn, unwrap_inbound, verify_signed_entity,
};
