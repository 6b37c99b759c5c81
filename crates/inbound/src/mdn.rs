//! The MDN the hub answers a message with (RFC 4130 section 7), built once, stored with
//! the message and sent as stored, so a resend gets the same bytes back.

use edihub_as2::mic::MicAlg;
use edihub_as2::{As2Error, As2Headers, Disposition, MdnReport, Mic};
use edihub_partners::HubIdentity;
use uuid::Uuid;

/// Names the software in each MDN's `Reporting-UA`.
pub const REPORTING_UA: &str = concat!("edihub/", env!("CARGO_PKG_VERSION"));

/// An MDN as the journal stores it and the HTTP response carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mdn {
    /// The MDN's own Message-ID, without angle brackets.
    pub message_id: String,
    pub disposition: Disposition,
    /// The top-level `Content-Type` (multipart/signed when signed).
    pub content_type: String,
    /// The AS2 headers of the MDN, `Content-Type` among them.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// What an MDN for one request is built from.
pub(crate) struct MdnContext<'a> {
    /// The identity the message was addressed to, else the hub's main identity; `None`
    /// when the hub has neither.
    pub answering: Option<&'a HubIdentity>,
    /// Names the hub when `answering` is `None`.
    pub main_as2_id: &'a str,
    pub as2: &'a As2Headers,
    /// Seeds the MDN's Message-ID and its MIME boundaries.
    pub nonce: Uuid,
    pub now_unix: i64,
}

impl MdnContext<'_> {
    /// The MDN, signed when the partner asked for a `pkcs7-signature` receipt and the
    /// answering identity has a key; otherwise unsigned, which RFC 4130 allows the
    /// partner to refuse.
    ///
    /// It comes from `answering`.
    pub fn build(
        &self,
        disposition: Disposition,
        received_content_mic: Option<Mic>,
        human_text: String,
    ) -> Result<Mdn, As2Error> {
        let hub = self.answering;
        let hub_as2_id = hub.map_or(self.main_as2_id, |h| h.as2_id.as_str());
        let report = MdnReport {
            reporting_ua: REPORTING_UA.into(),
            original_recipient: hub_as2_id.to_owned(),
            final_recipient: hub_as2_id.to_owned(),
            original_message_id: self.as2.message_id.clone(),
            received_content_mic,
            disposition,
            human_text,
        };
        let nonce = self.nonce.simple();
        let message_id = format!("{}@edihub", self.nonce);
        let boundary = format!("----=_edihub_{nonce}");
        let mut built = edihub_as2::build_mdn(
            &report,
            hub_as2_id,
            &self.as2.as2_from,
            &message_id,
            &boundary,
        );
        if self.signature_requested() {
            match hub.and_then(|h| h.keys.as_ref()) {
                Some(keys) => {
                    let boundary = format!("----=_edihub_signed_{nonce}");
                    built =
                        edihub_as2::sign_mdn(built, keys, self.micalg(), &boundary, self.now_unix)?;
                }
                None => {
                    tracing::warn!("signed MDN requested but the hub has no key: sent unsigned")
                }
            }
        }
        Ok(Mdn {
            message_id,
            disposition: report.disposition,
            content_type: built.content_type,
            headers: built.headers,
            body: built.body,
        })
    }

    fn signature_requested(&self) -> bool {
        self.as2
            .mdn_options
            .as_ref()
            .and_then(|o| o.signed_receipt_protocol.as_ref())
            .is_some_and(|(_, protocol)| protocol == "pkcs7-signature")
    }

    /// The partner's first `signed-receipt-micalg` choice, else SHA-256.
    fn micalg(&self) -> MicAlg {
        self.as2
            .mdn_options
            .as_ref()
            .and_then(|o| o.micalg.first().copied())
            .unwrap_or(MicAlg::Sha256)
    }
}
