//! Audit evidence of a signature: what the inbound unwrapping keeps of a signed layer,
//! and [`verify_signed_entity`], an auditor's re-verification of a stored signed entity
//! against the partner certificates alone.

use openssl::x509::X509;

use super::entity::split_entity;
use super::signature::{signature_digest, signed_parts, signer_index, verify_with_fallback};
use crate::crypto::VerifyError;
use crate::mic::{Mic, MicAlg};
use crate::mime::ContentType;

/// What a verified signed layer leaves as evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureEvidence {
    /// The `multipart/signed` entity, headers and body, byte for byte as it came out of
    /// the layer around it (or, outermost, the HTTP Content-Type and
    /// Content-Transfer-Encoding headers and the body as received), before verification.
    /// A standard tool re-verifies its two parts ([`signed_entity_parts`]).
    pub entity: Vec<u8>,
    /// DER of the partner certificate whose signature verified.
    pub certificate_der: Vec<u8>,
    /// The signature's digest algorithm.
    pub digest: MicAlg,
}

/// A stored signed entity whose signature verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedEntity {
    /// The signed content (the first part, headers included) as it verified: as stored,
    /// or in its CRLF form when that is what the sender signed. The MIC's input.
    pub content: Vec<u8>,
    /// The signature's digest algorithm.
    pub digest: MicAlg,
    /// The index, in the certificates given, of the one that made the signature.
    pub certificate: usize,
}

impl VerifiedEntity {
    /// The MIC over the signed content, to compare with an MDN's `Received-Content-MIC`.
    pub fn mic(&self, alg: MicAlg) -> Mic {
        Mic::compute(alg, &self.content)
    }
}

/// Why a stored signed entity does not verify.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum EntityError {
    /// Not a readable multipart/signed entity with a pkcs7-signature part.
    #[error("not a signed entity: {0}")]
    Malformed(String),
    /// None of the certificates made the signature.
    #[error("not signed with any of the certificates given: {0}")]
    UnknownSigner(String),
    /// The signer is one of the certificates, but content and signature do not match.
    #[error("signature does not verify: {0}")]
    Invalid(String),
}

/// A stored signed entity's two parts, for standard tools: the signed content (the first
/// part, headers included, byte for byte) and the signature (its second part, DER). With
/// them, `openssl cms -verify -binary -inform DER -in signature -content content` checks
/// what the one-step form cannot: openssl's own S/MIME reader rejoins a part's lines with
/// one kind of line end, and AS2 parts mix CRLF headers with LF content.
pub fn signed_entity_parts(entity: &[u8]) -> Result<(Vec<u8>, Vec<u8>), EntityError> {
    let parsed = split_entity(entity).map_err(EntityError::Malformed)?;
    let ct = ContentType::parse(&parsed.content_type)
        .map_err(|e| EntityError::Malformed(format!("Content-Type: {e}")))?;
    if ct.mime_type != "multipart/signed" {
        return Err(EntityError::Malformed(format!(
            "the entity is {}, not multipart/signed",
            ct.mime_type
        )));
    }
    let (content, signature) = signed_parts(&ct, &parsed.body).map_err(EntityError::Malformed)?;
    Ok((content.to_vec(), signature))
}

/// Verifies a stored multipart/signed entity (headers and body) against exactly
/// `certificates`, by the rules of inbound verification: certificates inside the
/// signature are never trusted and no chain is built, and content whose line ends were
/// changed on the way verifies in its CRLF form.
pub fn verify_signed_entity(
    entity: &[u8],
    certificates: &[X509],
) -> Result<VerifiedEntity, EntityError> {
    let parsed = split_entity(entity).map_err(EntityError::Malformed)?;
    let ct = ContentType::parse(&parsed.content_type)
        .map_err(|e| EntityError::Malformed(format!("Content-Type: {e}")))?;
    if ct.mime_type != "multipart/signed" {
        return Err(EntityError::Malformed(format!(
            "the entity is {}, not multipart/signed",
            ct.mime_type
        )));
    }
    let (content, signature) = signed_parts(&ct, &parsed.body).map_err(EntityError::Malformed)?;
    let digest = signature_digest(&signature)
        .ok_or_else(|| EntityError::Malformed("the signature names no known digest".into()))?;
    let content = verify_with_fallback(&signature, content, certificates).map_err(|e| match e {
        VerifyError::UnknownSigner(m) => EntityError::UnknownSigner(m),
        VerifyError::Invalid(m) => EntityError::Invalid(m),
    })?;
    let certificate = signer_index(&signature, &content, certificates)
        .ok_or_else(|| EntityError::Invalid("no single certificate verifies it".into()))?;
    Ok(VerifiedEntity {
        content,
        digest,
        certificate,
    })
}
