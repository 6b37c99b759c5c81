//! Inbound: peeling the security layers off what a partner sends, in whatever order it
//! applied them, and judging the result against the partnership's requirements.
//!
//! What the partnership forbids is refused before any work: a missing required layer
//! by the outermost layer's type, a cipher or a digest by the algorithm identifiers in
//! the DER, a repeated layer before it is opened. `layer` tells layers apart, `open`
//! decrypts and decompresses, `signer` verifies.

use openssl::x509::X509;

use super::entity::{Entity, inner_entity};
use super::evidence::SignatureEvidence;
use super::limits::UnwrapLimits;
use super::policy::AlgorithmPolicy;
use crate::crypto::{Encryption, Identity};
use crate::headers::As2Headers;
use crate::mdn::DispositionError;
use crate::mic::{Mic, MicAlg, mic_for_unsigned};
use crate::mime::{self, ContentType};

mod layer;
mod open;
mod signer;

use layer::{Layer, Seen, classify, cms_der};

/// What the hub knows about the sending partner's security.
#[derive(Debug, Clone, Copy)]
pub struct PartnerSecurity<'a> {
    /// Certificates the partner may sign with (several during a rollover). A signature by
    /// any other certificate is refused, whatever CA issued it.
    pub certificates: &'a [X509],
    /// Refuse messages that are not signed (insufficient-message-security).
    pub require_signature: bool,
    /// Refuse messages that are not encrypted (insufficient-message-security).
    pub require_encryption: bool,
    /// Accept signatures by a certificate outside its validity period. Off, a signature
    /// by an expired (or not yet valid) certificate is authentication-failed.
    pub allow_expired: bool,
    /// The time to judge certificate validity at, seconds since the Unix epoch (the
    /// caller's clock: this crate reads none).
    pub now_unix: i64,
    /// The key sizes, digests and ciphers the partnership accepts.
    pub algorithms: &'a AlgorithmPolicy,
}

/// An inbound message with its security layers removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwrapped {
    /// The business document, transfer encoding undone.
    pub payload: Vec<u8>,
    /// The `Content-Type` of the innermost entity (e.g. `application/edifact`).
    pub content_type: String,
    pub signed: bool,
    pub encrypted: bool,
    pub compressed: bool,
    /// The `Received-Content-MIC` to return (RFC 4130 section 7.3.1).
    pub mic: Mic,
    /// SHA-256 of the signed entity (headers included) as it verified, the MIC's input:
    /// the same for a captured message resent under another Message-ID. `None` unsigned.
    pub signed_sha256: Option<[u8; 32]>,
    /// The signature's evidence (the signed entity, the signer, the digest); `None`
    /// unsigned.
    pub signature: Option<SignatureEvidence>,
    /// The content-encryption algorithm; `None` unencrypted.
    pub encryption: Option<Encryption>,
    /// What was accepted but is weak (a SHA-1 digest, a 3DES cipher), in short sentences
    /// for operators.
    pub warnings: Vec<String>,
}

/// Why an inbound message is refused: the disposition for the MDN and a reason for
/// operators (it also goes into the MDN's human text, so it names no secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundRefusal {
    pub disposition: DispositionError,
    pub reason: String,
    /// A signature by one of the partner's pinned certificates verified before the
    /// refusal (also when that certificate is expired, too weak or not meant for
    /// signing): the request comes from the partner, so it may be answered as a resend.
    pub authenticated: bool,
}

impl std::fmt::Display for InboundRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.disposition.as_str(), self.reason)
    }
}

fn refusal(disposition: DispositionError, reason: impl Into<String>) -> InboundRefusal {
    InboundRefusal {
        disposition,
        reason: reason.into(),
        authenticated: false,
    }
}

/// The MIC algorithm: the partner's first supported `signed-receipt-micalg`, else the
/// `micalg` of its multipart/signed, else sha-256.
fn mic_alg(headers: &As2Headers, signed_micalg: Option<&str>) -> MicAlg {
    headers
        .mdn_options
        .as_ref()
        .and_then(|o| o.micalg.first().copied())
        .or_else(|| signed_micalg.and_then(MicAlg::parse))
        .unwrap_or(MicAlg::Sha256)
}

/// Removes the security layers of an inbound AS2 body.
///
/// `content_transfer_encoding` is the HTTP request's header of that name (if any); `hub`
/// is our identity (needed only for encrypted messages); `limits` bound what compressed
/// data may expand to.
///
/// Dispositions: a message we cannot decrypt is `decryption-failed`; a signature by a
/// certificate that is not the partner's (or a signed message from a partner without
/// certificates) is `authentication-failed`, and so is one by a partner certificate that
/// is expired, has an RSA key shorter than the policy's minimum or a key usage without
/// signing; a signature that does not match the content is `integrity-check-failed`; a
/// message that lacks the signing or encryption the partnership requires, or uses a
/// cipher or digest it does not accept, is `insufficient-message-security`; anything
/// unreadable otherwise (garbage MIME, corrupt or oversized compressed data, a security
/// layer repeated) is `unexpected-processing-error`.
pub fn unwrap_inbound(
    headers: &As2Headers,
    content_transfer_encoding: Option<&str>,
    body: &[u8],
    hub: Option<&Identity>,
    partner: &PartnerSecurity<'_>,
    limits: UnwrapLimits,
) -> Result<Unwrapped, InboundRefusal> {
    let mut peeler = Peeler {
        headers,
        hub,
        partner,
        limits,
        seen: Seen::default(),
        decompressed: 0,
        authenticated: false,
        signature: None,
        encryption: None,
        warnings: Vec::new(),
    };
    let outer = Entity {
        content_type: headers.content_type.clone(),
        transfer_encoding: content_transfer_encoding.map(str::to_string),
        body: body.to_vec(),
    };
    peeler.run(outer).map_err(|refused| InboundRefusal {
        authenticated: refused.authenticated || peeler.authenticated,
        ..refused
    })
}

/// One message's unwrapping: the layers met and what they left.
struct Peeler<'a> {
    headers: &'a As2Headers,
    hub: Option<&'a Identity>,
    partner: &'a PartnerSecurity<'a>,
    limits: UnwrapLimits,
    seen: Seen,
    /// Bytes the compressed layers inflated to so far.
    decompressed: usize,
    authenticated: bool,
    /// The signed layer's MIC, SHA-256 and evidence.
    signature: Option<(Mic, [u8; 32], SignatureEvidence)>,
    encryption: Option<Encryption>,
    warnings: Vec<String>,
}

impl Peeler<'_> {
    fn run(&mut self, mut current: Entity) -> Result<Unwrapped, InboundRefusal> {
        use DispositionError::UnexpectedProcessingError;
        // The whole innermost entity (headers included), once a layer has been removed.
        let mut entity_bytes: Option<Vec<u8>> = None;
        let mut outermost = true;
        // Ends: each pass removes a layer, and each kind of layer is removed at most once.
        let payload = loop {
            let ct = ContentType::parse(&current.content_type)
                .map_err(|e| refusal(UnexpectedProcessingError, format!("Content-Type: {e}")))?;
            let layer = classify(&ct, || {
                cms_der(current.transfer_encoding.as_deref(), &current.body).ok()
            });
            if std::mem::take(&mut outermost) {
                self.refuse_forbidden_outermost(layer)?;
            }
            self.seen.enter(layer)?;
            let inner = match layer {
                Layer::Content => {
                    break mime::decode_transfer(
                        current.transfer_encoding.as_deref(),
                        &current.body,
                    )
                    .map_err(|e| refusal(UnexpectedProcessingError, e))?;
                }
                Layer::Enveloped => {
                    let (plain, cipher) = open::decrypted(
                        &current,
                        self.hub,
                        self.partner.algorithms,
                        &mut self.warnings,
                    )?;
                    self.encryption = Some(cipher);
                    plain
                }
                Layer::Compressed => {
                    open::decompressed(&current, &self.limits, &mut self.decompressed)?
                }
                Layer::Signed => {
                    let entity = entity_bytes.take();
                    self.verified(&ct, &current, entity)?
                }
            };
            current = inner_entity(&inner);
            entity_bytes = Some(inner);
        };
        self.check_requirements()?;
        // RFC 4130 section 7.3.1: signed, over the signed entity; unsigned but wrapped,
        // over the decrypted and decompressed entity with its headers; plain, over the
        // content.
        let (mic, signed_sha256, signature) = match (self.signature.take(), &entity_bytes) {
            (Some((mic, sha256, evidence)), _) => (mic, Some(sha256), Some(evidence)),
            (None, Some(entity)) => {
                let mic = Mic::compute(mic_alg(self.headers, None), entity);
                (mic, None, None)
            }
            (None, None) => (mic_for_unsigned(self.headers, &payload), None, None),
        };
        Ok(Unwrapped {
            payload,
            content_type: current.content_type,
            signed: self.seen.signed,
            encrypted: self.seen.enveloped,
            compressed: self.seen.compressed,
            mic,
            signed_sha256,
            signature,
            encryption: self.encryption,
            warnings: std::mem::take(&mut self.warnings),
        })
    }

    /// Refuses, by the outermost layer alone, a message that cannot meet the
    /// partnership's requirements: no decryption, verification or decompression first.
    fn refuse_forbidden_outermost(&self, layer: Layer) -> Result<(), InboundRefusal> {
        if self.partner.require_encryption && layer != Layer::Enveloped {
            return Err(encryption_required());
        }
        if self.partner.require_signature && layer == Layer::Content {
            return Err(signature_required());
        }
        Ok(())
    }

    fn check_requirements(&self) -> Result<(), InboundRefusal> {
        if self.partner.require_encryption && !self.seen.enveloped {
            return Err(encryption_required());
        }
        if self.partner.require_signature && !self.seen.signed {
            return Err(signature_required());
        }
        Ok(())
    }

    /// Verifies the signed layer `layer`. `entity` is the layer's whole entity as the
    /// layer around it produced it; `None` when it is the outermost layer, whose entity
    /// is then rebuilt from the request's headers and body.
    fn verified(
        &mut self,
        ct: &ContentType,
        layer: &Entity,
        entity: Option<Vec<u8>>,
    ) -> Result<Vec<u8>, InboundRefusal> {
        let verified = signer::verify_signed(
            self.headers,
            ct,
            &layer.body,
            self.partner,
            &mut self.warnings,
        )?;
        self.authenticated = true;
        let evidence = SignatureEvidence {
            entity: entity.unwrap_or_else(|| wire_entity(layer)),
            certificate_der: verified.certificate_der,
            digest: verified.digest,
        };
        self.signature = Some((verified.mic, verified.sha256, evidence));
        Ok(verified.content)
    }
}

/// The outermost entity as a MIME entity: its HTTP Content-Type and
/// Content-Transfer-Encoding headers, a blank line, the body as received.
fn wire_entity(layer: &Entity) -> Vec<u8> {
    let mut head = format!("Content-Type: {}\r\n", layer.content_type);
    if let Some(encoding) = &layer.transfer_encoding {
        head.push_str(&format!("Content-Transfer-Encoding: {encoding}\r\n"));
    }
    head.push_str("\r\n");
    let mut entity = Vec::with_capacity(head.len() + layer.body.len());
    entity.extend_from_slice(head.as_bytes());
    entity.extend_from_slice(&layer.body);
    entity
}

fn encryption_required() -> InboundRefusal {
    refusal(
        DispositionError::InsufficientMessageSecurity,
        "the partnership requires encrypted messages",
    )
}

fn signature_required() -> InboundRefusal {
    refusal(
        DispositionError::InsufficientMessageSecurity,
        "the partnership requires signed messages",
    )
}
