//! Any bytes: no panic, and every fault position lies inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = edihub_edifact::InterchangeHeader::peek(data);
    let _ = edihub_edifact::segments(data);
    let strict = edihub_edifact::Interchange::parse(data);
    let _ = edihub_edifact::Interchange::parse_tolerant(data);
    let report = edihub_edifact::check::evaluate(data);
    for fault in &report.faults {
        if let Some(p) = fault.position {
            assert!(p.offset <= data.len(), "{fault} lies outside {} bytes", data.len());
        }
    }
    // What the strict reader accepts, the collecting one accepts without syntax faults.
    if strict.is_ok() {
        assert!(
            !report
                .faults
                .iter()
                .any(|f| f.class == edihub_edifact::check::FaultClass::Syntax),
            "{:?}",
            report.faults
        );
    }
});
