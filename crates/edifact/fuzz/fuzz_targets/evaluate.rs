//! Any bytes, in both charset policies: no panic, every fault and warning position lies
//! inside the input, tolerant rejects no more than strict, every message's generic
//! rendering round-trips through JSON and points inside the input, and the CONTRL the
//! hub would answer with is itself an interchange the strict reader accepts.
#![no_main]

use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{Options, Report, evaluate_each_with};
use edihub_edifact::generic::GenericMessage;
use libfuzzer_sys::fuzz_target;

/// Evaluates under `charset`, checking each rendered message on the way.
fn evaluate(data: &[u8], charset: CharsetPolicy) -> Report {
    let report = evaluate_each_with(data, &Options { charset }, &mut |m| {
        for s in &m.generic.segments {
            assert!(
                s.position.offset < data.len(),
                "{s:?} lies outside the input"
            );
            assert!(
                data[s.position.offset..].starts_with(s.tag.as_bytes()),
                "{s:?}"
            );
        }
        let json = serde_json::to_string(&m.generic).expect("a rendering serialises");
        let back: GenericMessage = serde_json::from_str(&json).expect("and reads back");
        assert_eq!(back, m.generic);
    });
    for w in &report.warnings {
        if let Some(offset) = w.byte_offset {
            assert!(offset < data.len(), "{w} lies outside {} bytes", data.len());
        }
    }
    report
}

fuzz_target!(|data: &[u8]| {
    let _ = edihub_edifact::InterchangeHeader::peek(data);
    let _ = edihub_edifact::segments(data);
    let strict = edihub_edifact::Interchange::parse(data);
    let _ = edihub_edifact::Interchange::parse_tolerant(data);
    let strict_report = evaluate(data, CharsetPolicy::Strict);
    assert!(strict_report.warnings.is_empty());
    let mut report = evaluate(data, CharsetPolicy::Tolerant);
    // What strict accepts, tolerant accepts the same way.
    if !strict_report.must_reject() {
        assert!(
            !report.must_reject() && report.warnings.is_empty(),
            "{:?}",
            report.faults
        );
    }
    for fault in &report.faults {
        if let Some(p) = fault.position {
            assert!(
                p.offset <= data.len(),
                "{fault} lies outside {} bytes",
                data.len()
            );
        }
    }
    // What the strict reader accepts, the collecting one accepts without syntax faults
    // and without charset warnings.
    if strict.is_ok() {
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
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
