//! Round trips through the builders and the readers, and the refusals, on the fixture
//! keys in `fixtures/as2`.

use openssl::x509::X509;

use super::signature::base64_lines;
use super::*;
use crate::crypto::{self, Encryption, Identity};
use crate::error::As2Error;
use crate::headers::As2Headers;
use crate::mdn::{Disposition, DispositionError, MdnReport, build_mdn};
use crate::message::{OutgoingMessage, PlainMessageSpec, build_plain_message};
use crate::mic::{Mic, MicAlg};

mod algorithms;
mod certs;
mod evidence;
mod limits;
mod refusals;
mod replay;
mod round_trip;
mod signed_mdn;

const HUB_CRT: &[u8] = include_bytes!("../../../../../fixtures/as2/hub.crt");
const HUB_KEY: &[u8] = include_bytes!("../../../../../fixtures/as2/hub.key");
const A_CRT: &[u8] = include_bytes!("../../../../../fixtures/as2/partner-a.crt");
const A_KEY: &[u8] = include_bytes!("../../../../../fixtures/as2/partner-a.key");
const B_CRT: &[u8] = include_bytes!("../../../../../fixtures/as2/partner-b.crt");
const B_KEY: &[u8] = include_bytes!("../../../../../fixtures/as2/partner-b.key");
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
    let h =
        As2Headers::from_pairs(m.headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes()))).unwrap();
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
            algorithms: &crate::AlgorithmPolicy::default(),
            certificates: certs,
            require_signature: require.0,
            require_encryption: require.1,
            allow_expired: false,
            now_unix: NOW,
        },
        UnwrapLimits::default(),
    )
}

/// Receives `m` from a partner with these certificates, requirements, algorithms and
/// limits.
fn receive_with(
    m: &OutgoingMessage,
    certs: &[X509],
    require: (bool, bool),
    algorithms: &crate::AlgorithmPolicy,
    limits: UnwrapLimits,
) -> Result<Unwrapped, InboundRefusal> {
    let (h, cte) = headers_of(m);
    unwrap_inbound(
        &h,
        cte.as_deref(),
        &m.body,
        Some(&hub()),
        &PartnerSecurity {
            algorithms,
            certificates: certs,
            require_signature: require.0,
            require_encryption: require.1,
            allow_expired: false,
            now_unix: NOW,
        },
        limits,
    )
}

/// A message secured as asked, with the fixture payload.
fn secure(
    compress: bool,
    sign: Option<(&Identity, MicAlg)>,
    encrypt: Option<(&X509, Encryption)>,
) -> OutgoingMessage {
    build_secure_message(&SecureMessageSpec {
        plain: plain(None),
        compress,
        sign,
        encrypt,
        boundary: "b-test",
        now_unix: NOW,
    })
    .unwrap()
    .message
}

fn refused(result: Result<Unwrapped, InboundRefusal>) -> DispositionError {
    result.expect_err("must be refused").disposition
}
