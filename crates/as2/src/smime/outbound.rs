//! Outbound: the client side's compressed, signed and encrypted messages.

use openssl::x509::X509;

use super::entity::split_entity;
use super::signature::{base64_lines, multipart_signed};
use crate::crypto::{self, Encryption, Identity};
use crate::error::As2Error;
use crate::message::{OutgoingMessage, PlainMessageSpec, build_plain_message};
use crate::mic::{Mic, MicAlg};

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
