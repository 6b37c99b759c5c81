//! S/MIME for AS2: unwrapping what a partner sends, wrapping what we send.
//!
//! Inbound, [`unwrap_inbound`] peels the layers in whatever order the partner applied them
//! (enveloped-data, multipart/signed, compressed-data, nested any way), computes the MIC the
//! MDN must return, and checks the partnership's security requirements. Every refusal is
//! an [`InboundRefusal`] carrying the RFC 4130 disposition to put into the error MDN.
//! Each kind of layer may appear once, and [`UnwrapLimits`] bound what decompression may
//! cost a message.
//!
//! Outbound, [`build_secure_message`] is the client side (compress, sign, encrypt), and
//! [`sign_mdn`] / [`read_mdn`] sign our MDNs and verify a partner's.
//!
//! The MIC of a signed message covers the signed MIME entity exactly as it arrived,
//! headers included: the parts are slices of the received buffer, never re-serialised.
//!
//! [`verify_signed_entity`] re-verifies a stored signed entity, for auditors.
//!
//! `inbound` unwraps, `signed_mdn` signs and reads MDNs, and `outbound` builds;
//! `signature` (multipart/signed both ways) and `entity` (a MIME entity's header block
//! and body) are what they share.

mod entity;
mod evidence;
mod inbound;
mod limits;
mod outbound;
mod policy;
mod signature;
mod signed_mdn;

pub use evidence::{
    EntityError, SignatureEvidence, VerifiedEntity, signed_entity_parts, verify_signed_entity,
};
pub use inbound::{InboundRefusal, PartnerSecurity, Unwrapped, unwrap_inbound};
pub use limits::{EXPANSION_FLOOR, UnwrapLimits};
pub use outbound::{SecureMessage, SecureMessageSpec, build_secure_message};
pub use policy::{AlgorithmPolicy, DEFAULT_MIN_RSA_BITS, is_weak_cipher, is_weak_digest};
pub use signed_mdn::{VerifiedMdn, read_mdn, sign_mdn};

#[cfg(test)]
mod tests;
