//! S/MIME for AS2: unwrapping what a partner sends, wrapping what we send.
//!
//! Inbound, [`unwrap_inbound`] peels the layers in whatever order the partner applied them
//! (enveloped-data, multipart/signed, compressed-data, nested any way), computes the MIC the
//! MDN must return, and checks the partnership's security requirements. Every refusal is
//! an [`InboundRefusal`] carrying the RFC 4130 disposition to put into the error MDN.
//!
//! Outbound, [`build_secure_message`] is the client side (compress, sign, encrypt), and
//! [`sign_mdn`] / [`read_mdn`] sign our MDNs and verify a partner's.
//!
//! The MIC of a signed message covers the signed MIME entity exactly as it arrived,
//! headers included: the parts are slices of the received buffer, never re-serialised.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use openssl::x509::X509;

use crate::crypto::{self, DecompressError, Encryption, Identity, VerifyError};
use crate::error::As2Error;
use crate::headers::As2Headers;
use crate::mdn::{BuiltMdn, DispositionError, MdnReport, parse_mdn};
use crate::message::{OutgoingMessage, PlainMessageSpec, build_plain_message};
use crate::mic::{Mic, MicAlg, mic_for_unsigned};
use crate::mime::{self, ContentType, Part};

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

/// A MIME entity split into its content type, transfer encoding and body.
struct Entity {
    content_type: String,
    transfer_encoding: Option<String>,
    body: Vec<u8>,
}

fn split_entity(bytes: &[u8]) -> Result<Entity, String> {
    let (fields, body_start) = mime::parse_fields(bytes, true)?;
    Ok(Entity {
        content_type: mime::field(&fields, "Content-Type")
            .unwrap_or("text/plain")
            .to_string(),
        transfer_encoding: mime::field(&fields, "Content-Transfer-Encoding").map(str::to_string),
        body: bytes.get(body_start..).unwrap_or_default().to_vec(),
    })
}

/// The MIME entity inside a layer. Some senders encrypt or compress the bare document,
/// without MIME headers: what does not start with a header block naming a Content-Type is
/// taken whole as an opaque payload, rather than read as headers (an EDIFACT line such as
/// `UNA:+.? '` would otherwise parse as a header and leave an empty body).
fn inner_entity(bytes: &[u8]) -> Entity {
    match mime::parse_fields(bytes, true) {
        Ok((fields, _)) if mime::field(&fields, "Content-Type").is_some() => {
            split_entity(bytes).unwrap_or_else(|_| opaque(bytes))
        }
        _ => opaque(bytes),
    }
}

fn opaque(bytes: &[u8]) -> Entity {
    Entity {
        content_type: "application/octet-stream".to_string(),
        transfer_encoding: None,
        body: bytes.to_vec(),
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

/// LF line ends to CRLF (bare CR left alone): the canonical form a sender may have signed
/// when its transport or our partner's software turned CRLF into LF.
fn to_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 16);
    let mut previous = 0u8;
    for &b in bytes {
        if b == b'\n' && previous != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        previous = b;
    }
    out
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
                let der = cms_der(current.transfer_encoding.as_deref(), &current.body)
                    .map_err(|e| refusal(DecryptionFailed, format!("enveloped data: {e}")))?;
                let hub = hub.ok_or_else(|| {
                    refusal(
                        DecryptionFailed,
                        "the message is encrypted but the hub has no private key configured",
                    )
                })?;
                let plain = crypto::decrypt(hub, &der).map_err(|e| refusal(DecryptionFailed, e))?;
                encrypted = true;
                plain
            }
            Layer::Compressed => {
                let der = cms_der(current.transfer_encoding.as_deref(), &current.body)
                    .map_err(|e| refusal(UnexpectedProcessingError, format!("compressed: {e}")))?;
                let plain =
                    crypto::decompress(&der, max_decompressed_bytes).map_err(|e| match e {
                        DecompressError::Malformed(m) => {
                            refusal(UnexpectedProcessingError, format!("compressed data: {m}"))
                        }
                        DecompressError::TooLarge { limit } => refusal(
                            UnexpectedProcessingError,
                            format!("compressed data expands beyond {limit} bytes"),
                        ),
                    })?;
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

/// The signed entity (a slice of `body`) and the decoded signature of a multipart/signed.
fn signed_parts<'a>(ct: &ContentType, body: &'a [u8]) -> Result<(&'a [u8], Vec<u8>), String> {
    let boundary = ct.param("boundary").ok_or("no boundary")?;
    let parts = mime::split_multipart(body, boundary)?;
    let [content, signature, ..] = parts.as_slice() else {
        return Err("expected the content and the signature parts".into());
    };
    let signature = Part::parse(signature)?;
    let kind = signature.content_type.mime_type.as_str();
    if kind != "application/pkcs7-signature" && kind != "application/x-pkcs7-signature" {
        return Err(format!("second part is {kind}, not a pkcs7-signature"));
    }
    Ok((content, signature.body))
}

/// Verifies over the bytes as received, then over their CRLF form (what the sender signed
/// if line ends were changed on the way). Returns the bytes that verified.
fn verify_with_fallback(
    signature: &[u8],
    content: &[u8],
    certificates: &[X509],
) -> Result<Vec<u8>, VerifyError> {
    match crypto::verify_detached(signature, content, certificates) {
        Ok(()) => Ok(content.to_vec()),
        Err(VerifyError::Invalid(first)) => {
            let canonical = to_crlf(content);
            if canonical != content
                && crypto::verify_detached(signature, &canonical, certificates).is_ok()
            {
                return Ok(canonical);
            }
            Err(VerifyError::Invalid(first))
        }
        Err(unknown) => Err(unknown),
    }
}

/// Base64 in 76-character lines, each ended by CRLF.
fn base64_lines(bytes: &[u8]) -> String {
    let encoded = STANDARD.encode(bytes);
    let mut out = String::with_capacity(encoded.len() + encoded.len() / 38 + 2);
    for chunk in encoded.as_bytes().chunks(76) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push_str("\r\n");
    }
    out
}

/// Wraps `entity` (headers and body) in multipart/signed with a detached signature.
/// Returns the Content-Type value and the multipart body.
fn multipart_signed(
    identity: &Identity,
    alg: MicAlg,
    entity: &[u8],
    boundary: &str,
    now_unix: i64,
) -> Result<(String, Vec<u8>), As2Error> {
    let signature = crypto::sign_detached(identity, alg, entity, now_unix)?;
    let content_type = format!(
        "multipart/signed; protocol=\"application/pkcs7-signature\"; micalg={}; boundary=\"{boundary}\"",
        alg.as_str()
    );
    let mut body = Vec::with_capacity(entity.len() + signature.len() * 2 + 400);
    body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
    body.extend_from_slice(entity);
    body.extend_from_slice(format!("\r\n--{boundary}\r\n").as_bytes());
    body.extend_from_slice(
        b"Content-Type: application/pkcs7-signature; name=\"smime.p7s\"\r\n\
          Content-Transfer-Encoding: base64\r\n\
          Content-Disposition: attachment; filename=\"smime.p7s\"\r\n\r\n",
    );
    body.extend_from_slice(base64_lines(&signature).as_bytes());
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok((content_type, body))
}

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

/// How to secure an outgoing message. Layers are applied compress, then sign, then
/// encrypt (the order pyas2lib and most AS2 stacks use).
#[derive(Debug, Clone, Copy)]
pub struct SecureMessageSpec<'a> {
    pub plain: PlainMessageSpec<'a>,
    pub compress: bool,
    /// Our identity and the digest to sign with.
    pub sign: Option<(&'a Identity, MicAlg)>,
    /// The partner's certificate and the content encryption algorithm.
    pub encrypt: Option<(&'a X509, Encryption)>,
    /// Boundary of the multipart/signed (when signing).
    pub boundary: &'a str,
    /// Signing time, seconds since the Unix epoch.
    pub now_unix: i64,
}

/// A built message and the MIC its MDN should report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecureMessage {
    pub message: OutgoingMessage,
    pub expected_mic: Mic,
}

/// Builds an outgoing AS2 message, compressed, signed and/or encrypted.
///
/// The MIC expected back follows the rule [`unwrap_inbound`] applies on receipt (the
/// digest is the signing digest for signed messages and the requested MDN algorithm or
/// sha-256 otherwise).
pub fn build_secure_message(spec: &SecureMessageSpec<'_>) -> Result<SecureMessage, As2Error> {
    let plain = spec.plain;
    let wrapped = spec.compress || spec.sign.is_some() || spec.encrypt.is_some();
    let unsigned_alg = plain.request_signed_mdn.unwrap_or(MicAlg::Sha256);
    if !wrapped {
        return Ok(SecureMessage {
            message: build_plain_message(&plain),
            expected_mic: Mic::compute(unsigned_alg, plain.payload),
        });
    }
    let mut entity = format!(
        "Content-Type: {}\r\nContent-Transfer-Encoding: binary\r\n\r\n",
        plain.content_type.trim()
    )
    .into_bytes();
    entity.extend_from_slice(plain.payload);
    // Unsigned: the MIC covers the uncompressed entity, headers included.
    let unsigned_mic = Mic::compute(unsigned_alg, &entity);

    if spec.compress {
        let der = crypto::compress(&entity)?;
        entity = b"Content-Type: application/pkcs7-mime; smime-type=compressed-data; name=\"smime.p7z\"\r\n\
                   Content-Transfer-Encoding: base64\r\n\
                   Content-Disposition: attachment; filename=\"smime.p7z\"\r\n\r\n"
            .to_vec();
        entity.extend_from_slice(base64_lines(&der).as_bytes());
    }
    let mut expected_mic = None;
    if let Some((identity, alg)) = spec.sign {
        // The MDN reports the MIC with the algorithm asked for in the MDN request, if any.
        let mic_alg = plain.request_signed_mdn.unwrap_or(alg);
        expected_mic = Some(Mic::compute(mic_alg, &entity));
        let (content_type, body) =
            multipart_signed(identity, alg, &entity, spec.boundary, spec.now_unix)?;
        entity = format!("Content-Type: {content_type}\r\n\r\n").into_bytes();
        entity.extend_from_slice(&body);
    }
    let expected_mic = expected_mic.unwrap_or(unsigned_mic);

    let (content_type, body, transfer_encoding) = match spec.encrypt {
        Some((certificate, encryption)) => (
            format!(
                "application/pkcs7-mime; smime-type={}; name=\"smime.p7m\"",
                encryption.smime_type()
            ),
            crypto::encrypt(certificate, encryption, &entity)?,
            "binary",
        ),
        None => {
            let top = split_entity(&entity).map_err(As2Error::Crypto)?;
            let cte = if top.transfer_encoding.is_some() {
                "base64"
            } else {
                "binary"
            };
            (top.content_type, top.body, cte)
        }
    };
    let mut message = build_plain_message(&PlainMessageSpec {
        content_type: &content_type,
        payload: &body,
        ..plain
    });
    for (name, value) in &mut message.headers {
        if name.eq_ignore_ascii_case("Content-Transfer-Encoding") {
            *value = transfer_encoding.to_string();
        }
    }
    Ok(SecureMessage {
        message,
        expected_mic,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdn::{Disposition, build_mdn};

    const HUB_CRT: &[u8] = include_bytes!("../../../fixtures/as2/hub.crt");
    const HUB_KEY: &[u8] = include_bytes!("../../../fixtures/as2/hub.key");
    const A_CRT: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.crt");
    const A_KEY: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.key");
    const B_CRT: &[u8] = include_bytes!("../../../fixtures/as2/partner-b.crt");
    const B_KEY: &[u8] = include_bytes!("../../../fixtures/as2/partner-b.key");
    const PAYLOAD: &[u8] = b"UNA:+.? 'UNB+UNOC:3+A+B+240101:1200+1'\nUNZ+0+1'\n";
    // 2027-01-15, inside the fixture certificates' validity (made 2026-12-02).
    const NOW: i64 = 1_800_000_000;

    fn hub() -> Identity {
        Identity::from_pem(HUB_CRT, HUB_KEY).unwrap()
    }
    fn partner_a() -> Identity {
        Identity::from_pem(A_CRT, A_KEY).unwrap()
    }
    fn partner_b() -> Identity {
        Identity::from_pem(B_CRT, B_KEY).unwrap()
    }

    fn plain(signed_mdn: Option<MicAlg>) -> PlainMessageSpec<'static> {
        PlainMessageSpec {
            as2_from: "PARTNER-A",
            as2_to: "EDIHUB",
            message_id: "m-1@a",
            subject: "test",
            content_type: "application/edifact",
            payload: PAYLOAD,
            request_mdn_to: Some("mailto:a@example.invalid"),
            request_signed_mdn: signed_mdn,
        }
    }

    fn headers_of(m: &OutgoingMessage) -> (As2Headers, Option<String>) {
        let h = As2Headers::from_pairs(m.headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes())))
            .unwrap();
        let cte = m
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("Content-Transfer-Encoding"))
            .map(|(_, v)| v.clone());
        (h, cte)
    }

    fn receive(
        m: &OutgoingMessage,
        certs: &[X509],
        require: (bool, bool),
    ) -> Result<Unwrapped, InboundRefusal> {
        let (h, cte) = headers_of(m);
        unwrap_inbound(
            &h,
            cte.as_deref(),
            &m.body,
            Some(&hub()),
            &PartnerSecurity {
                certificates: certs,
                require_signature: require.0,
                require_encryption: require.1,
                allow_expired: false,
                now_unix: NOW,
            },
            1 << 20,
        )
    }

    #[test]
    fn every_combination_round_trips_with_the_expected_mic() {
        let a = partner_a();
        let hub_cert = hub().certificate;
        let certs = [a.certificate.clone()];
        let signs = [
            None,
            Some(MicAlg::Sha1),
            Some(MicAlg::Sha224),
            Some(MicAlg::Sha256),
            Some(MicAlg::Sha384),
            Some(MicAlg::Sha512),
        ];
        let encryptions = [None]
            .into_iter()
            .chain(Encryption::ALL.map(Some))
            .collect::<Vec<_>>();
        for sign in signs {
            for encryption in &encryptions {
                for compress in [false, true] {
                    for mdn_alg in [None, Some(MicAlg::Sha384)] {
                        let label = format!("{sign:?} {encryption:?} {compress} {mdn_alg:?}");
                        let built = build_secure_message(&SecureMessageSpec {
                            plain: plain(mdn_alg),
                            compress,
                            sign: sign.map(|alg| (&a, alg)),
                            encrypt: encryption.map(|e| (&hub_cert, e)),
                            boundary: "sig-boundary",
                            now_unix: NOW,
                        })
                        .unwrap();
                        let got = receive(&built.message, &certs, (false, false))
                            .unwrap_or_else(|e| panic!("{label}: {e}"));
                        assert_eq!(got.payload, PAYLOAD, "{label}");
                        assert_eq!(got.content_type, "application/edifact", "{label}");
                        assert_eq!(got.signed, sign.is_some(), "{label}");
                        assert_eq!(got.encrypted, encryption.is_some(), "{label}");
                        assert_eq!(got.compressed, compress, "{label}");
                        assert_eq!(got.mic, built.expected_mic, "{label}");
                    }
                }
            }
        }
    }

    #[test]
    fn bare_documents_inside_a_layer_are_kept_whole() {
        let hub = hub();
        for document in [
            &b"UNA:+.? 'UNB+UNOC:3+A+B+240101:1200+1'UNZ+0+1'"[..],
            b"\x00\x01binary",
        ] {
            let der = crypto::encrypt(&hub.certificate, Encryption::Aes128Cbc, document).unwrap();
            let mut message = build_plain_message(&plain(None));
            for (name, value) in &mut message.headers {
                if name.eq_ignore_ascii_case("Content-Type") {
                    *value = "application/pkcs7-mime; smime-type=enveloped-data".into();
                }
            }
            message.body = der;
            let got = receive(&message, &[], (false, true)).unwrap();
            assert_eq!(got.payload, document);
            assert_eq!(got.content_type, "application/octet-stream");
            assert_eq!(got.mic, Mic::compute(MicAlg::Sha256, document));
        }
    }

    /// A signature made by the `openssl cms` CLI with RSASSA-PSS (SHA-256, MGF1-SHA-256,
    /// salt 32; see fixtures/as2/README.md), wrapped in multipart/signed.
    #[test]
    fn rsassa_pss_signatures_verify() {
        let content = include_bytes!("../../../fixtures/as2/pss-content.txt");
        let signature = include_bytes!("../../../fixtures/as2/pss-signature.der");
        let mut body = b"--pss\r\n".to_vec();
        body.extend_from_slice(content);
        body.extend_from_slice(
            b"\r\n--pss\r\nContent-Type: application/pkcs7-signature\r\n\
              Content-Transfer-Encoding: base64\r\n\r\n",
        );
        body.extend_from_slice(base64_lines(signature).as_bytes());
        body.extend_from_slice(b"--pss--\r\n");
        let mut message = build_plain_message(&plain(Some(MicAlg::Sha256)));
        for (name, value) in &mut message.headers {
            if name.eq_ignore_ascii_case("Content-Type") {
                *value = "multipart/signed; protocol=\"application/pkcs7-signature\"; micalg=sha-256; boundary=pss".into();
            }
        }
        message.body = body.clone();
        let a = partner_a();
        let got = receive(
            &message,
            std::slice::from_ref(&a.certificate),
            (true, false),
        )
        .unwrap();
        assert!(got.signed);
        assert_eq!(got.mic, Mic::compute(MicAlg::Sha256, content));
        assert_eq!(got.payload, b"UNB+UNOC:3+A+B+261202:1400+1'UNZ+0+1'");
        // Someone else's certificate does not make it verify.
        let b = partner_b();
        assert_eq!(
            refused(receive(&message, &[b.certificate], (true, false))),
            DispositionError::AuthenticationFailed
        );
    }

    #[test]
    fn gcm_makes_auth_enveloped_data() {
        let hub_cert = hub().certificate;
        let built = build_secure_message(&SecureMessageSpec {
            plain: plain(None),
            compress: false,
            sign: None,
            encrypt: Some((&hub_cert, Encryption::Aes256Gcm)),
            boundary: "b",
            now_unix: NOW,
        })
        .unwrap();
        let (h, _) = headers_of(&built.message);
        assert!(h.content_type.contains("smime-type=authEnveloped-data"));
        // id-ct-authEnvelopedData, 1.2.840.113549.1.9.16.1.23, DER-encoded.
        let oid = [
            0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x17,
        ];
        assert!(built.message.body.windows(oid.len()).any(|w| w == oid));
        let got = receive(&built.message, &[], (false, true)).unwrap();
        assert_eq!(got.payload, PAYLOAD);
    }

    #[test]
    fn signed_mic_covers_the_signed_entity_with_its_headers() {
        let a = partner_a();
        let built = build_secure_message(&SecureMessageSpec {
            plain: plain(Some(MicAlg::Sha256)),
            compress: false,
            sign: Some((&a, MicAlg::Sha256)),
            encrypt: None,
            boundary: "b1",
            now_unix: NOW,
        })
        .unwrap();
        let mut entity =
            b"Content-Type: application/edifact\r\nContent-Transfer-Encoding: binary\r\n\r\n"
                .to_vec();
        entity.extend_from_slice(PAYLOAD);
        assert_eq!(built.expected_mic, Mic::compute(MicAlg::Sha256, &entity));
        let got = receive(
            &built.message,
            std::slice::from_ref(&a.certificate),
            (true, false),
        )
        .unwrap();
        assert_eq!(got.mic, built.expected_mic);
    }

    fn refused(result: Result<Unwrapped, InboundRefusal>) -> DispositionError {
        result.expect_err("must be refused").disposition
    }

    #[test]
    fn refusals_map_to_rfc_dispositions() {
        let a = partner_a();
        let b = partner_b();
        let certs_a = [a.certificate.clone()];
        let signed_by = |who: &Identity| {
            build_secure_message(&SecureMessageSpec {
                plain: plain(None),
                compress: false,
                sign: Some((who, MicAlg::Sha256)),
                encrypt: None,
                boundary: "b2",
                now_unix: NOW,
            })
            .unwrap()
            .message
        };
        // Signed by a stranger.
        assert_eq!(
            refused(receive(&signed_by(&b), &certs_a, (false, false))),
            DispositionError::AuthenticationFailed
        );
        // Signed, but the partner has no certificate configured.
        assert_eq!(
            refused(receive(&signed_by(&a), &[], (false, false))),
            DispositionError::AuthenticationFailed
        );
        // Tampered content.
        let mut tampered = signed_by(&a);
        let at = tampered.body.windows(3).position(|w| w == b"UNB").unwrap();
        tampered.body[at] = b'X';
        assert_eq!(
            refused(receive(&tampered, &certs_a, (false, false))),
            DispositionError::IntegrityCheckFailed
        );
        // Encrypted to someone else.
        let to_b = build_secure_message(&SecureMessageSpec {
            plain: plain(None),
            compress: false,
            sign: None,
            encrypt: Some((&b.certificate, Encryption::Aes128Cbc)),
            boundary: "b3",
            now_unix: NOW,
        })
        .unwrap()
        .message;
        assert_eq!(
            refused(receive(&to_b, &certs_a, (false, false))),
            DispositionError::DecryptionFailed
        );
        // Requirements.
        let unsigned = build_plain_message(&plain(None));
        assert_eq!(
            refused(receive(&unsigned, &certs_a, (true, false))),
            DispositionError::InsufficientMessageSecurity
        );
        assert_eq!(
            refused(receive(&signed_by(&a), &certs_a, (true, true))),
            DispositionError::InsufficientMessageSecurity
        );
        // Garbage where CMS should be.
        let mut garbage = to_b.clone();
        garbage.body = b"\x30\x03\x02\x01\x00".to_vec();
        assert_eq!(
            refused(receive(&garbage, &certs_a, (false, false))),
            DispositionError::DecryptionFailed
        );
    }

    #[test]
    fn rollover_accepts_any_configured_certificate() {
        let a = partner_a();
        let b = partner_b();
        let message = build_secure_message(&SecureMessageSpec {
            plain: plain(None),
            compress: false,
            sign: Some((&b, MicAlg::Sha512)),
            encrypt: None,
            boundary: "b4",
            now_unix: NOW,
        })
        .unwrap()
        .message;
        let both = [a.certificate.clone(), b.certificate.clone()];
        assert!(receive(&message, &both, (true, false)).unwrap().signed);
    }

    #[test]
    fn expired_certificates_are_refused_unless_allowed() {
        let a = partner_a();
        let message = build_secure_message(&SecureMessageSpec {
            plain: plain(None),
            compress: false,
            sign: Some((&a, MicAlg::Sha256)),
            encrypt: None,
            boundary: "b7",
            now_unix: NOW,
        })
        .unwrap()
        .message;
        let (h, cte) = headers_of(&message);
        let certs = [a.certificate.clone()];
        let at = |now_unix: i64, allow_expired: bool| {
            unwrap_inbound(
                &h,
                cte.as_deref(),
                &message.body,
                None,
                &PartnerSecurity {
                    certificates: &certs,
                    require_signature: true,
                    require_encryption: false,
                    allow_expired,
                    now_unix,
                },
                1 << 20,
            )
        };
        // The fixture certificates were made in 2026 for 100 years.
        let year_2200 = 7_258_118_400;
        let year_2000 = 946_684_800;
        for now in [year_2200, year_2000] {
            let refusal = at(now, false).expect_err("outside the validity period");
            assert_eq!(refusal.disposition, DispositionError::AuthenticationFailed);
            assert!(refusal.reason.contains("expired"), "{}", refusal.reason);
            assert!(at(now, true).is_ok());
        }
        assert!(at(NOW, false).is_ok());
    }

    #[test]
    fn lf_only_signed_entity_verifies_in_canonical_form() {
        let a = partner_a();
        let crlf_payload = b"UNB+UNOC:3+A+B+240101:1200+1'\r\nUNZ+0+1'\r\n";
        let built = build_secure_message(&SecureMessageSpec {
            plain: PlainMessageSpec {
                payload: crlf_payload,
                ..plain(None)
            },
            compress: false,
            sign: Some((&a, MicAlg::Sha256)),
            encrypt: None,
            boundary: "b5",
            now_unix: NOW,
        })
        .unwrap();
        // A transport turned every CRLF into LF.
        let mut message = built.message.clone();
        let text = String::from_utf8(message.body.clone()).unwrap();
        message.body = text.replace("\r\n", "\n").into_bytes();
        let got = receive(
            &message,
            std::slice::from_ref(&a.certificate),
            (true, false),
        )
        .unwrap();
        assert_eq!(got.mic, built.expected_mic);
        // The payload is taken from the form that verified: what the sender signed.
        assert_eq!(got.payload, crlf_payload);
    }

    #[test]
    fn decompression_bomb_is_refused() {
        let big = vec![b'A'; 4 << 20];
        let built = build_secure_message(&SecureMessageSpec {
            plain: PlainMessageSpec {
                payload: &big,
                ..plain(None)
            },
            compress: true,
            sign: None,
            encrypt: None,
            boundary: "b6",
            now_unix: NOW,
        })
        .unwrap();
        assert!(built.message.body.len() < 64 * 1024);
        assert_eq!(
            refused(receive(&built.message, &[], (false, false))),
            DispositionError::UnexpectedProcessingError
        );
    }

    #[test]
    fn signed_mdn_round_trips_and_detects_tampering() {
        let hub = hub();
        let report = MdnReport {
            reporting_ua: "edihub".into(),
            original_recipient: "EDIHUB".into(),
            final_recipient: "EDIHUB".into(),
            original_message_id: "m-1@a".into(),
            received_content_mic: Some(Mic::compute(MicAlg::Sha256, b"x")),
            disposition: Disposition::Processed,
            human_text: "ok".into(),
        };
        let unsigned = build_mdn(&report, "EDIHUB", "PARTNER-A", "mdn-1@hub", "r-boundary");
        for alg in MicAlg::ALL {
            let signed = sign_mdn(unsigned.clone(), &hub, alg, "s-boundary", NOW).unwrap();
            assert!(signed.content_type.starts_with("multipart/signed"));
            assert!(
                signed
                    .headers
                    .contains(&("Content-Type".to_string(), signed.content_type.clone()))
            );
            let read = read_mdn(
                &signed.content_type,
                &signed.body,
                std::slice::from_ref(&hub.certificate),
            )
            .unwrap();
            assert!(read.signed);
            assert_eq!(read.report, report);
            // Deterministic for the same inputs (a resend gets the same bytes anyway, from
            // the database, but tests can compare).
            let again = sign_mdn(unsigned.clone(), &hub, alg, "s-boundary", NOW).unwrap();
            assert_eq!(again.body, signed.body);
        }
        let signed = sign_mdn(unsigned.clone(), &hub, MicAlg::Sha256, "s-boundary", NOW).unwrap();
        let forged = String::from_utf8(signed.body.clone()).unwrap().replacen(
            "processed",
            "processed/error: decryption-failed",
            1,
        );
        assert!(matches!(
            read_mdn(
                &signed.content_type,
                forged.as_bytes(),
                std::slice::from_ref(&hub.certificate)
            ),
            Err(As2Error::Signature(_))
        ));
        assert!(matches!(
            read_mdn(
                &signed.content_type,
                &signed.body,
                &[partner_b().certificate]
            ),
            Err(As2Error::Signature(_))
        ));
        // Unsigned MDNs still read, marked unsigned.
        let read = read_mdn(&unsigned.content_type, &unsigned.body, &[]).unwrap();
        assert!(!read.signed);
    }

    #[test]
    fn identity_rejects_mismatched_key() {
        assert!(matches!(
            Identity::from_pem(HUB_CRT, A_KEY),
            Err(As2Error::Crypto(_))
        ));
        assert_eq!(certificates_from_pem_len(), 2);
    }

    fn certificates_from_pem_len() -> usize {
        let bundle = [A_CRT, B_CRT].concat();
        crypto::certificates_from_pem(&bundle).unwrap().len()
    }
}
