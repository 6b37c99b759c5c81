//! Signed MDNs: signing the MDN we answer with, and reading (and verifying) the MDN a
//! partner answers our messages with.

use openssl::x509::X509;

use super::entity::split_entity;
use super::signature::{multipart_signed, signed_parts, verify_with_fallback};
use crate::crypto::Identity;
use crate::error::As2Error;
use crate::mdn::{BuiltMdn, MdnReport, parse_mdn};
use crate::mic::MicAlg;
use crate::mime::{self, ContentType};

/// Signs an MDN built by [`crate::build_mdn`]: the multipart/report becomes the first part
/// of a multipart/signed, signed with `alg` (use the partner's `signed-receipt-micalg`).
/// `boundary` must differ from the report's own boundary.
pub fn sign_mdn(
    mdn: BuiltMdn,
    identity: &Identity,
    alg: MicAlg,
    boundary: &str,
    now_unix: i64,
) -> Result<BuiltMdn, As2Error> {
    let mut entity = format!("Content-Type: {}\r\n\r\n", mdn.content_type).into_bytes();
    entity.extend_from_slice(&mdn.body);
    let (content_type, body) = multipart_signed(identity, alg, &entity, boundary, now_unix)?;
    let headers = mdn
        .headers
        .into_iter()
        .map(|(name, value)| {
            if name.eq_ignore_ascii_case("Content-Type") {
                (name, content_type.clone())
            } else {
                (name, value)
            }
        })
        .collect();
    Ok(BuiltMdn {
        headers,
        content_type,
        body,
    })
}

/// An MDN as a sending client reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedMdn {
    pub report: MdnReport,
    /// Whether the MDN was signed (and its signature verified against the partner).
    pub signed: bool,
}

/// Reads an MDN, verifying its signature against `partner_certificates` when it is
/// signed. A signed MDN whose signature does not verify is [`As2Error::Signature`].
pub fn read_mdn(
    content_type: &str,
    body: &[u8],
    partner_certificates: &[X509],
) -> Result<VerifiedMdn, As2Error> {
    let ct = ContentType::parse(content_type).map_err(As2Error::MalformedMdn)?;
    if ct.mime_type != "multipart/signed" {
        return Ok(VerifiedMdn {
            report: parse_mdn(content_type, body)?,
            signed: false,
        });
    }
    let (content, signature) = signed_parts(&ct, body).map_err(As2Error::MalformedMdn)?;
    let content = verify_with_fallback(&signature, content, partner_certificates)
        .map_err(|e| As2Error::Signature(format!("{e:?}")))?;
    let inner = split_entity(&content).map_err(As2Error::MalformedMdn)?;
    let decoded = mime::decode_transfer(inner.transfer_encoding.as_deref(), &inner.body)
        .map_err(As2Error::MalformedMdn)?;
    Ok(VerifiedMdn {
        report: parse_mdn(&inner.content_type, &decoded)?,
        signed: true,
    })
}
