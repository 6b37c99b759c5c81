//! Outbound: the client side's compressed, signed and encrypted messages.

use openssl::x509::X509;

use super::entity::split_entity;
use super::signature::{base64_lines, multipart_signed};
use crate::crypto::{self, Encryption, Identity};
use crate::error::As2Error;
use crate::message::{OutgoingMessage, PlainMessageSpec, build_plain_message};
use crate::mic::{Mic, MicAlg};
use crate::receipt::SentMessage;

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

/// A built message, the MIC its MDN should report and what checking that MDN needs
/// ([`SecureMessage::sent_message`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecureMessage {
    pub message: OutgoingMessage,
    pub expected_mic: Mic,
    /// The bytes the receiver's MIC covers (RFC 4130 section 7.3.1, as
    /// [`crate::smime::unwrap_inbound`] computes it): the signed entity, headers
    /// included, when signed; the uncompressed entity with its headers when only
    /// compressed or encrypted; the payload alone when plain.
    pub mic_content: Vec<u8>,
    /// The Message-ID sent, without angle brackets.
    pub message_id: String,
    /// A signed MDN was asked for.
    pub signed_mdn_requested: bool,
    /// The signature's digest, when signed.
    pub signed_with: Option<MicAlg>,
}

impl SecureMessage {
    /// What [`crate::receipt::check_receipt`] needs to judge this message's MDN.
    ///
    /// The MIC algorithms accepted are the one the MDN request asked for (sha-256 when
    /// none) and the signature's digest, which some peers (pyas2lib) use whatever was
    /// asked; callers may change `accepted_mic_algs`.
    pub fn sent_message(&self) -> SentMessage {
        let mut accepted_mic_algs = vec![self.expected_mic.alg];
        if let Some(alg) = self.signed_with.filter(|alg| *alg != self.expected_mic.alg) {
            accepted_mic_algs.push(alg);
        }
        SentMessage {
            message_id: self.message_id.clone(),
            mic_content: self.mic_content.clone(),
            expected_mic: self.expected_mic.clone(),
            signed_mdn_requested: self.signed_mdn_requested,
            message_signed: self.signed_with.is_some(),
            accepted_mic_algs,
        }
    }
}

/// Builds an outgoing AS2 message, compressed, signed and/or encrypted.
///
/// The MIC expected back follows the rule [`unwrap_inbound`] applies on receipt (the
/// digest is the requested MDN algorithm, else the signing digest for signed messages and
/// sha-256 otherwise).
///
/// [`unwrap_inbound`]: crate::smime::unwrap_inbound
pub fn build_secure_message(spec: &SecureMessageSpec<'_>) -> Result<SecureMessage, As2Error> {
    let plain = spec.plain;
    // The micalg goes out only with an MDN request (see `build_plain_message`).
    let asked_alg = plain.request_mdn_to.and(plain.request_signed_mdn);
    let wrapped = spec.compress || spec.sign.is_some() || spec.encrypt.is_some();
    if !wrapped {
        let message = build_plain_message(&plain);
        let mic = Mic::compute(asked_alg.unwrap_or(MicAlg::Sha256), plain.payload);
        return Ok(secure_message(
            message,
            mic,
            plain.payload.to_vec(),
            asked_alg,
            None,
        ));
    }
    let mut entity = format!(
        "Content-Type: {}\r\nContent-Transfer-Encoding: binary\r\n\r\n",
        plain.content_type.trim()
    )
    .into_bytes();
    entity.extend_from_slice(plain.payload);
    // Unsigned: the MIC covers the uncompressed entity, headers included.
    let mut mic_content = entity.clone();
    let mut mic_alg = asked_alg.unwrap_or(MicAlg::Sha256);

    if spec.compress {
        let der = crypto::compress(&entity)?;
        entity = b"Content-Type: application/pkcs7-mime; smime-type=compressed-data; name=\"smime.p7z\"\r\n\
                   Content-Transfer-Encoding: base64\r\n\
                   Content-Disposition: attachment; filename=\"smime.p7z\"\r\n\r\n"
            .to_vec();
        entity.extend_from_slice(base64_lines(&der).as_bytes());
    }
    if let Some((identity, alg)) = spec.sign {
        // Signed: the MIC covers the signed entity, with the algorithm asked for in the
        // MDN request, else the signature's.
        mic_alg = asked_alg.unwrap_or(alg);
        let (content_type, body) =
            multipart_signed(identity, alg, &entity, spec.boundary, spec.now_unix)?;
        mic_content = std::mem::replace(
            &mut entity,
            format!("Content-Type: {content_type}\r\n\r\n").into_bytes(),
        );
        entity.extend_from_slice(&body);
    }
    let mic = Mic::compute(mic_alg, &mic_content);
    let message = secured(spec, &entity)?;
    let signed_with = spec.sign.map(|(_, alg)| alg);
    Ok(secure_message(
        message,
        mic,
        mic_content,
        asked_alg,
        signed_with,
    ))
}

/// The HTTP request carrying `entity`, encrypted when the spec says so.
fn secured(spec: &SecureMessageSpec<'_>, entity: &[u8]) -> Result<OutgoingMessage, As2Error> {
    let (content_type, body, transfer_encoding) = match spec.encrypt {
        Some((certificate, encryption)) => (
            format!(
                "application/pkcs7-mime; smime-type={}; name=\"smime.p7m\"",
                encryption.smime_type()
            ),
            crypto::encrypt(certificate, encryption, entity)?,
            "binary",
        ),
        None => {
            let top = split_entity(entity).map_err(As2Error::Crypto)?;
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
        ..spec.plain
    });
    for (name, value) in &mut message.headers {
        if name.eq_ignore_ascii_case("Content-Transfer-Encoding") {
            *value = transfer_encoding.to_string();
        }
    }
    Ok(message)
}

fn secure_message(
    message: OutgoingMessage,
    expected_mic: Mic,
    mic_content: Vec<u8>,
    asked_alg: Option<MicAlg>,
    signed_with: Option<MicAlg>,
) -> SecureMessage {
    // As sent: `build_plain_message` normalised it into angle brackets.
    let message_id = message
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("Message-ID"))
        .map(|(_, id)| id.trim_start_matches('<').trim_end_matches('>').to_owned())
        .unwrap_or_default();
    SecureMessage {
        message,
        expected_mic,
        mic_content,
        message_id,
        signed_mdn_requested: asked_alg.is_some(),
        signed_with,
    }
}
