//! Telling the layers apart, and the nesting a message may have.

use super::refusal;
use crate::crypto;
use crate::mdn::DispositionError;
use crate::mime::{self, ContentType};
use crate::smime::InboundRefusal;

/// The shape of one layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layer {
    Enveloped,
    Compressed,
    Signed,
    Content,
}

pub(super) fn classify(ct: &ContentType, body_der: impl FnOnce() -> Option<Vec<u8>>) -> Layer {
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
pub(super) fn cms_der(transfer_encoding: Option<&str>, body: &[u8]) -> Result<Vec<u8>, String> {
    let declared_base64 =
        transfer_encoding.is_some_and(|e| e.trim().eq_ignore_ascii_case("base64"));
    if !declared_base64 && body.first() == Some(&0x30) {
        return Ok(body.to_vec());
    }
    mime::decode_transfer(Some("base64"), body)
}

/// The security layers met so far. RFC 4130 and RFC 5402 need each of them at most once
/// (encrypted over signed, compressed inside or outside the signature), so a second one
/// of a kind is refused before it is opened: nesting is what made small bombs expensive.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Seen {
    pub(super) enveloped: bool,
    pub(super) signed: bool,
    pub(super) compressed: bool,
}

impl Seen {
    /// Notes `layer`, or refuses it when one of its kind was already removed.
    pub(super) fn enter(&mut self, layer: Layer) -> Result<(), InboundRefusal> {
        let (seen, name) = match layer {
            Layer::Enveloped => (&mut self.enveloped, "enveloped-data"),
            Layer::Signed => (&mut self.signed, "multipart/signed"),
            Layer::Compressed => (&mut self.compressed, "compressed-data"),
            Layer::Content => return Ok(()),
        };
        if std::mem::replace(seen, true) {
            return Err(refusal(
                DispositionError::UnexpectedProcessingError,
                format!(
                    "the message has a second {name} layer; each security layer may appear once"
                ),
            ));
        }
        Ok(())
    }
}
