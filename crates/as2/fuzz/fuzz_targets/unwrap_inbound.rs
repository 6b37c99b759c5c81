//! The inbound S/MIME path on arbitrary bytes: `unwrap_inbound` (MIME structure,
//! decryption with the hub's fixture key, signature verification against partner A's
//! fixture certificate, decompression) and `read_mdn` (a partner's possibly signed MDN).
//!
//! Input: one byte of choices (what the partnership requires, whether the hub has its
//! key), the Content-Type value, a newline, the Content-Transfer-Encoding value (empty
//! for none), a newline, then the body. No panic, and what is accepted meets the
//! requirements it was judged by.
#![no_main]

use std::sync::LazyLock;

use edihub_as2::{
    AlgorithmPolicy, As2Headers, Certificate, Identity, PartnerSecurity, UnwrapLimits, read_mdn,
    unwrap_inbound,
};
use libfuzzer_sys::fuzz_target;

static HUB: LazyLock<Identity> = LazyLock::new(|| {
    Identity::from_pem(
        include_bytes!("../../../../fixtures/as2/hub.crt"),
        include_bytes!("../../../../fixtures/as2/hub.key"),
    )
    .expect("the hub's fixture identity")
});
static PARTNER: LazyLock<Vec<Certificate>> = LazyLock::new(|| {
    edihub_as2::certificates_from_pem(include_bytes!("../../../../fixtures/as2/partner-a.crt"))
        .expect("partner A's fixture certificate")
});
static POLICY: LazyLock<AlgorithmPolicy> = LazyLock::new(AlgorithmPolicy::default);
/// Inside the fixture certificates' validity.
const NOW: i64 = 1_800_000_000;

fn line(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[]),
    }
}

fuzz_target!(|data: &[u8]| {
    let [choice, data @ ..] = data else {
        return;
    };
    let (content_type, rest) = line(data);
    let (transfer_encoding, body) = line(rest);
    let pairs: [(&str, &[u8]); 5] = [
        ("AS2-From", b"PARTNER-A"),
        ("AS2-To", b"EDIHUB"),
        ("Message-ID", b"<fuzz@partner-a>"),
        ("Content-Type", content_type),
        (
            "Disposition-Notification-Options",
            b"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
        ),
    ];
    let Ok(headers) = As2Headers::from_pairs(pairs) else {
        return;
    };
    let cte = std::str::from_utf8(transfer_encoding)
        .ok()
        .filter(|s| !s.is_empty());
    let partner = PartnerSecurity {
        certificates: &PARTNER,
        require_signature: choice & 1 != 0,
        require_encryption: choice & 2 != 0,
        allow_expired: choice & 4 != 0,
        now_unix: NOW,
        algorithms: &POLICY,
    };
    let limits = UnwrapLimits {
        max_decompressed_bytes: 1 << 20,
        max_expansion_ratio: 100,
    };
    let hub = (choice & 8 == 0).then_some(&*HUB);
    if let Ok(unwrapped) = unwrap_inbound(&headers, cte, body, hub, &partner, limits) {
        assert!(unwrapped.signed || !partner.require_signature);
        assert!(unwrapped.encrypted || !partner.require_encryption);
        assert_eq!(unwrapped.signed, unwrapped.signed_sha256.is_some());
        assert_eq!(unwrapped.signed, unwrapped.signature.is_some());
        assert_eq!(unwrapped.encrypted, unwrapped.encryption.is_some());
    }
    let _ = read_mdn(&headers.content_type, body, &PARTNER);
});
