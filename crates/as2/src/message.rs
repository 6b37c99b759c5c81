//! Outgoing AS2 messages, for the client side (the operator CLI `edihub send` and tests
//! that play a partner).
//!
//! The plain form: the payload is the HTTP body as is, with no MIME wrapping. Signing,
//! encryption and compression ([`crate::smime::build_secure_message`]) produce a different
//! body and `Content-Type` from the same spec; the AS2 headers built here stay the same.

use crate::headers::{Importance, MdnOptions, quote_as2_name};
use crate::mic::MicAlg;

/// An AS2 request ready to POST: header pairs and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// What to send in a plain (unsigned, unencrypted) AS2 message.
#[derive(Debug, Clone, Copy)]
pub struct PlainMessageSpec<'a> {
    pub as2_from: &'a str,
    pub as2_to: &'a str,
    /// With or without angle brackets; sent with them.
    pub message_id: &'a str,
    pub subject: &'a str,
    /// E.g. `application/edifact`.
    pub content_type: &'a str,
    pub payload: &'a [u8],
    /// Where the MDN should go (the `Disposition-Notification-To` value, usually an
    /// address or URL of the sender); `None` sends without requesting an MDN.
    pub request_mdn_to: Option<&'a str>,
    /// Ask for a signed MDN whose MIC uses this algorithm. Only meaningful together with
    /// `request_mdn_to`, and ignored without it.
    pub request_signed_mdn: Option<MicAlg>,
}

/// Builds a plain AS2 message.
///
/// Headers: `AS2-Version: 1.2`, `AS2-From`/`AS2-To` (quoted when the name is not a plain
/// token, e.g. contains a space), `Message-ID` in angle brackets, `Subject`,
/// `Mime-Version`, `Content-Type`, `Content-Transfer-Encoding: binary` (HTTP carries the
/// bytes unchanged, RFC 4130 section 5.2), and `Disposition-Notification-To`/`-Options`
/// when an MDN is requested. The signed-MDN request is `optional`, so a partner that
/// cannot sign still answers with a plain MDN instead of failing. CR/LF and other control
/// characters in the inputs become spaces so that no input can add a header.
pub fn build_plain_message(spec: &PlainMessageSpec<'_>) -> OutgoingMessage {
    let mut headers: Vec<(String, String)> = vec![
        ("AS2-Version".into(), "1.2".into()),
        ("AS2-From".into(), quote_as2_name(&one_line(spec.as2_from))),
        ("AS2-To".into(), quote_as2_name(&one_line(spec.as2_to))),
        ("Message-ID".into(), bracketed(spec.message_id)),
        ("Subject".into(), one_line(spec.subject).trim().to_string()),
        ("Mime-Version".into(), "1.0".into()),
        (
            "Content-Type".into(),
            one_line(spec.content_type).trim().to_string(),
        ),
        ("Content-Transfer-Encoding".into(), "binary".into()),
    ];
    if let Some(to) = spec.request_mdn_to {
        headers.push((
            "Disposition-Notification-To".into(),
            one_line(to).trim().to_string(),
        ));
        if let Some(alg) = spec.request_signed_mdn {
            let options = MdnOptions {
                signed_receipt_protocol: Some((Importance::Optional, "pkcs7-signature".into())),
                micalg: vec![alg],
                micalg_importance: Some(Importance::Optional),
            };
            headers.push((
                "Disposition-Notification-Options".into(),
                options.header_value(),
            ));
        }
    }
    OutgoingMessage {
        headers,
        body: spec.payload.to_vec(),
    }
}

fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn bracketed(id: &str) -> String {
    let id = one_line(id);
    let id = id.trim();
    let id = id.strip_prefix('<').unwrap_or(id);
    let id = id.strip_suffix('>').unwrap_or(id);
    format!("<{}>", id.trim())
}

#[cfg(test)]
mod tests;
