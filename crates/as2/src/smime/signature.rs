//! multipart/signed (RFC 1847, RFC 8551 section 3.5) both ways: splitting a received one
//! into the signed entity and its signature and verifying it, and wrapping an entity of
//! ours in one. Shared by inbound messages, MDNs and outgoing messages.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use openssl::x509::X509;

use crate::crypto::{self, Identity, VerifyError};
use crate::error::As2Error;
use crate::mic::MicAlg;
use crate::mime::{self, ContentType, Part};

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

/// The signed entity (a slice of `body`) and the decoded signature of a multipart/signed.
pub(super) fn signed_parts<'a>(
    ct: &ContentType,
    body: &'a [u8],
) -> Result<(&'a [u8], Vec<u8>), String> {
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
pub(super) fn verify_with_fallback(
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

/// Which of `certificates` made `signature` over `content` (bytes that verified): the
/// only one when there is one, else the first that verifies alone (a rollover).
pub(super) fn signer_index(
    signature: &[u8],
    content: &[u8],
    certificates: &[X509],
) -> Option<usize> {
    if certificates.len() == 1 {
        return Some(0);
    }
    certificates.iter().position(|cert| {
        crypto::verify_detached(signature, content, std::slice::from_ref(cert)).is_ok()
    })
}

/// The digest the signature names, as AS2 names it; of several, the last named (usually
/// a signer info's own). `None` when it names none this crate knows.
pub(super) fn signature_digest(signature: &[u8]) -> Option<MicAlg> {
    crypto::signature_digest_algorithms(signature)?
        .into_iter()
        .filter_map(|alg| match alg {
            crypto::Algorithm::Known(alg) => Some(alg),
            crypto::Algorithm::Other(_) => None,
        })
        .next_back()
}

/// Base64 in 76-character lines, each ended by CRLF.
pub(super) fn base64_lines(bytes: &[u8]) -> String {
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
pub(super) fn multipart_signed(
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
