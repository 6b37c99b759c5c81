//! The DER this crate reads on a partner's behalf, on arbitrary bytes: the hand-written
//! certificate cut (`crypto::fuzzing::without_certificates`), a signature's whole
//! verification path (the cut, OpenSSL, then the RSASSA-PSS completion that runs on
//! every refused signature), and compressed-data.
//!
//! No panic, and the cut keeps its promises: when it answers, the result is shorter,
//! has nothing left to cut, and is the same SignedData to the `cms` crate with only
//! `certificates` gone.
//!
//! Run it with leak detection off (`ASAN_OPTIONS=detect_leaks=0 cargo fuzz run
//! signature_der -- -detect_leaks=0`): OpenSSL 3.0's `CMS_verify` leaks a memory BIO
//! when `digestAlgorithms` names a digest it does not know, and LeakSanitizer stops on
//! that (docs/adr/0004-as2-mime-and-der.md).
#![no_main]

use std::sync::LazyLock;

use der::Decode as _;
use edihub_as2::Certificate;
use edihub_as2::crypto::{self, fuzzing::without_certificates};
use libfuzzer_sys::fuzz_target;

static PINNED: LazyLock<Vec<Certificate>> = LazyLock::new(|| {
    crypto::certificates_from_pem(include_bytes!("../../../../fixtures/as2/hub.crt"))
        .expect("the hub's fixture certificate")
});

fn signed_data(der: &[u8]) -> Option<cms::signed_data::SignedData> {
    let info = cms::content_info::ContentInfo::from_der(der).ok()?;
    info.content.decode_as().ok()
}

fuzz_target!(|data: &[u8]| {
    if let Some(cut) = without_certificates(data) {
        assert!(cut.len() < data.len(), "the cut grew the signature");
        assert_eq!(without_certificates(&cut), None, "something left to cut");
        if let Some(mut before) = signed_data(data) {
            let after = signed_data(&cut).expect("the cut SignedData no longer parses");
            assert_eq!(after.certificates, None);
            before.certificates = None;
            assert_eq!(after, before, "the cut changed more than the certificates");
        }
    }
    let _ = crypto::verify_detached(data, b"content\r\n", &PINNED);
    let _ = crypto::is_compressed_data(data);
    let _ = crypto::decompress(data, 1 << 16);
});
