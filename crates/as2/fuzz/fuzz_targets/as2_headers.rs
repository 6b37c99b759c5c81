//! `As2Headers::from_pairs`, `MdnOptions::parse` and `Mic::parse` on arbitrary bytes:
//! input is split on NUL into header values for the known names.
#![no_main]

use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 9] = [
    "AS2-From",
    "AS2-To",
    "Message-ID",
    "Content-Type",
    "AS2-Version",
    "Subject",
    "Disposition-Notification-To",
    "Disposition-Notification-Options",
    "Receipt-Delivery-Option",
];

fuzz_target!(|data: &[u8]| {
    let pairs: Vec<(&str, &[u8])> = NAMES.iter().copied().zip(data.split(|&b| b == 0)).collect();
    let _ = edihub_as2::As2Headers::from_pairs(pairs);
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = edihub_as2::MdnOptions::parse(s);
        let _ = edihub_as2::Mic::parse(s);
    }
});
