//! Any bytes: no panic, every fault position lies inside the input, and the CONTRL the
//! hub would answer with is itself an interchange the strict reader accepts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = edihub_edifact::InterchangeHeader::peek(data);
    let _ = edihub_edifact::segments(data);
    let strict = edihub_edifact::Interchange::parse(data);
    let _ = edihub_edifact::Interchange::parse_tolerant(data);
    let mut report = edihub_edifact::check::evaluate(data);
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
    if let Some(header) = report.header.as_mut() {
        header.acknowledgement_requested = true;
    }
    let params = edihub_edifact::contrl::ContrlParams {
        interchange_reference: "FUZZ".into(),
        message_reference: "1".into(),
        prepared: edihub_edifact::contrl::Prepared {
            year: 2026,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
        },
    };
    if let Some(contrl) = edihub_edifact::contrl::build(&report, &params) {
        if let Err(e) = edihub_edifact::Interchange::parse(&contrl.bytes) {
            panic!("the CONTRL does not parse: {e}\n{}", contrl.text);
        }
    }
});
