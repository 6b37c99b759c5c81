//! `parse_mdn` on arbitrary bytes: the first line is the Content-Type, the rest the body.
//! It must return (Ok or Err), never panic; whatever it accepts is also rebuilt with
//! build_mdn and parsed again, which must not panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let content_type = String::from_utf8_lossy(&data[..split]);
    let body = data.get(split + 1..).unwrap_or_default();
    if let Ok(report) = edihub_as2::parse_mdn(&content_type, body) {
        let built = edihub_as2::build_mdn(&report, "us", "them", "id@us", "fuzz-boundary");
        let _ = edihub_as2::parse_mdn(&built.content_type, &built.body);
    }
});
