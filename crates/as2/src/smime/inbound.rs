//! Inbound: peeling the security layers off what a partner sends, in whatever order it
//! applied them, and judging the result against the partnership's requirements.

use openssl::x509::X509;

use super::entity::{Entity, inner_entity};
use super::policy::AlgorithmPolicy;
use super::signature::{signed_parts, verify_with_fallback};
use crate::crypto::{self, DecompressError, Identity, VerifyError};
use crate::headers::As2Headers;
use crate::mdn::DispositionError;
use crate::mic::{Mic, MicAlg, mic_for_unsigned};
use crate::mime::{self, ContentType};

/// Layers deeper than this are refused: real messages have at most three.
const MAX_LAYERS: usize = 8;

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

impl PartnerSecurity<'_> {
    /// The certificates valid at `now_unix` (all of them when expired ones are allowed),
    /// and the others.
    fn split_by_validity(&self) -> (Vec<X509>, Vec<X509>) {
        let Ok(now) = openssl::asn1::Asn1Time::from_unix(self.now_unix) else {
            return (self.certificates.to_vec(), Vec::new());
        };
        self.certificates.iter().cloned().partition(|cert| {
            self.allow_expired || (cert.not_before() <= now && cert.not_after() >= now)
        })
    }
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
}

/// Why an inbound message is refused: the disposition for the MDN and a reason for
/// operators (it also goes into the MDN's human text, so it names no secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundRefusal {
    pub disposition: DispositionError,
    pub reason: String,
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
    }
}

/// The shape of one layer.
enum Layer {
    Enveloped,
    Compressed,
    Signed,
    Content,
}

fn classify(ct: &ContentType, body_der: impl FnOnce() -> Option<Vec<u8>>) -> Layer {
    match ct.mime_type.as_str() {
        "multipart/signed" => Layer::Signed,
        "application/pkcs7-mime" | "application/x-pkcs7-mime" => {
            match ct
                .param("smime-type")
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("compressed-data") => Layer::Compressed,
                Some("enveloped-data" | "authenveloped-data") => Layer::Enveloped,
                // No smime-type: look at the CMS content type itself.
                _ => match body_der() {
                    Some(der) if crypto::is_compressed_data(&der) => Layer::Compressed,
                    _ => Layer::Enveloped,
                },
            }
        }
        _ => Layer::Content,
    }
}

/// The DER of a CMS body: base64 when declared (or when it plainly is not DER, as some
/// peers base64 without saying so), binary otherwise.
fn cms_der(transfer_encoding: Option<&str>, body: &[u8]) -> Result<Vec<u8>, String> {
    let declared_base64 =
        transfer_encoding.is_some_and(|e| e.trim().eq_ignore_ascii_case("base64"));
    if !declared_base64 && body.first() == Some(&0x30) {
        return Ok(body.to_vec());
    }
    mime::decode_transfer(Some("base64"), body)
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
/// is our identity (needed only for encrypted messages); `max_decompressed_bytes` caps what
/// compressed data may expand to.
///
/// Dispositions: a message we cannot decrypt is `decryption-failed`; a signature by a
/// certificate that is not the partner's (or a signed message from a partner without
/// certificates) is `authentication-failed`; a signature that does not match the content is
/// `integrity-check-failed`; a message that lacks the signing or encryption the
/// partnership requires is `insufficient-message-security`; anything unreadable otherwise
/// (garbage MIME, corrupt or oversized compressed data) is `unexpected-processing-error`.
pub fn unwrap_inbound(
    headers: &As2Headers,
    content_transfer_encoding: Option<&str>,
    body: &[u8],
    hub: Option<&Identity>,
    partner: &PartnerSecurity<'_>,
    max_decompressed_bytes: usize,
) -> Result<Unwrapped, InboundRefusal> {
    use DispositionError::*;
    let mut current = Entity {
        content_type: headers.content_type.clone(),
        transfer_encoding: content_transfer_encoding.map(str::to_string),
        body: body.to_vec(),
    };
    // The whole innermost entity (headers included), once a layer has been removed.
    let mut entity_bytes: Option<Vec<u8>> = None;
    let mut signed_mic: Option<Mic> = None;
    let (mut encrypted, mut compressed) = (false, false);
    let mut payload = None;

    for _ in 0..MAX_LAYERS {
        let ct = ContentType::parse(&current.content_type)
            .map_err(|e| refusal(UnexpectedProcessingError, format!("Content-Type: {e}")))?;
        let layer = classify(&ct, || {
            cms_der(current.transfer_encoding.as_deref(), &current.body).ok()
        });
        let inner = match layer {
            Layer::Content => {
                let decoded =
                    mime::decode_transfer(current.transfer_encoding.as_deref(), &current.body)
                        .map_err(|e| refusal(UnexpectedProcessingError, e))?;
                payload = Some(decoded);
                break;
            }
            Layer::Enveloped => {
                let plain = decrypted(&current, hub)?;
                encrypted = true;
                plain
            }
            Layer::Compressed => {
                let plain = decompressed(&current, max_decompressed_bytes)?;
                compressed = true;
                plain
            }
            Layer::Signed => {
                let (content, mic) = verify_signed(headers, &ct, &current.body, partner)?;
                // The outermost signature is the one the MIC reports on.
                signed_mic.get_or_insert(mic);
                content
            }
        };
        current = inner_entity(&inner);
        entity_bytes = Some(inner);
    }
    let payload = payload.ok_or_else(|| {
        refusal(
            UnexpectedProcessingError,
            format!("more than {MAX_LAYERS} security layers"),
        )
    })?;

    if partner.require_encryption && !encrypted {
        return Err(refusal(
            InsufficientMessageSecurity,
            "the partnership requires encrypted messages",
        ));
    }
    if partner.require_signature && signed_mic.is_none() {
        return Err(refusal(
            InsufficientMessageSecurity,
            "the partnership requires signed messages",
        ));
    }

    let signed = signed_mic.is_some();
    // RFC 4130 section 7.3.1: signed, over the signed entity; unsigned but wrapped, over the
    // decrypted and decompressed entity with its headers; plain, over the content.
    let mic = match (signed_mic, &entity_bytes) {
        (Some(mic), _) => mic,
        (None, Some(entity)) => Mic::compute(mic_alg(headers, None), entity),
        (None, None) => mic_for_unsigned(headers, &payload),
    };
    Ok(Unwrapped {
        payload,
        content_type: current.content_type,
        signed,
        encrypted,
        compressed,
        mic,
    })
}

/// The content of an enveloped-data layer, decrypted with the hub's key.
fn decrypted(layer: &Entity, hub: Option<&Identity>) -> Result<Vec<u8>, InboundRefusal> {
    use DispositionError::DecryptionFailed;
    let der = cms_der(layer.transfer_encoding.as_deref(), &layer.body)
        .map_err(|e| refusal(DecryptionFailed, format!("enveloped data: {e}")))?;
    let hub = hub.ok_or_else(|| {
        refusal(
            DecryptionFailed,
            "the message is encrypted but the hub has no private key configured",
        )
    })?;
    crypto::decrypt(hub, &der).map_err(|e| refusal(DecryptionFailed, e))
}

/// The content of a compressed-data layer, inflated to at most `limit` bytes.
fn decompressed(layer: &Entity, limit: usize) -> Result<Vec<u8>, InboundRefusal> {
    use DispositionError::UnexpectedProcessingError;
    let der = cms_der(layer.transfer_encoding.as_deref(), &layer.body)
        .map_err(|e| refusal(UnexpectedProcessingError, format!("compressed: {e}")))?;
    crypto::decompress(&der, limit).map_err(|e| match e {
        DecompressError::Malformed(m) => {
            refusal(UnexpectedProcessingError, format!("compressed data: {m}"))
        }
        DecompressError::TooLarge { limit } => refusal(
            UnexpectedProcessingError,
            format!("compressed data expands beyond {limit} bytes"),
        ),
    })
}

/// Checks a multipart/signed body against the partner's certificates; returns the signed
/// entity (headers included) and its MIC.
fn verify_signed(
    headers: &As2Headers,
    ct: &ContentType,
    body: &[u8],
    partner: &PartnerSecurity<'_>,
) -> Result<(Vec<u8>, Mic), InboundRefusal> {
    use DispositionError::*;
    let (content, signature) = signed_parts(ct, body)
        .map_err(|e| refusal(IntegrityCheckFailed, format!("multipart/signed: {e}")))?;
    if partner.certificates.is_empty() {
        return Err(refusal(
            AuthenticationFailed,
            "the message is signed but no certificate is configured for the partner",
        ));
    }
    let (valid, outside_validity) = partner.split_by_validity();
    let content = verify_with_fallback(&signature, content, &valid).map_err(|e| match e {
        VerifyError::UnknownSigner(_)
            if !outside_validity.is_empty()
                && verify_with_fallback(&signature, content, &outside_validity).is_ok() =>
        {
            refusal(
                AuthenticationFailed,
                "signed with a certificate of the partner that is expired or not yet valid",
            )
        }
        VerifyError::UnknownSigner(m) => refusal(
            AuthenticationFailed,
            format!("not signed with the partner's certificate ({m})"),
        ),
        VerifyError::Invalid(m) => refusal(
            IntegrityCheckFailed,
            format!("signature does not verify ({m})"),
        ),
    })?;
    let alg = mic_alg(headers, ct.param("micalg"));
    let mic = Mic::compute(alg, &content);
    Ok((content, mic))
}
