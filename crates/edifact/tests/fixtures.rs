//! Every project-made fixture in fixtures/edifact, run through `check::evaluate_each_with`
//! in both charset policies with its expected outcome: the sound invoices (one per
//! profile and directory) map with the given values and no fault, the `warn-*` files map
//! with the given business-rule warnings, the `charset-*` files are accepted with charset
//! warnings when tolerant, messages of other types are accepted and rendered, and each
//! `fault-*` file is rejected with exactly the given faults. `EXPECTED` is the tolerant
//! outcome; a file behaves the same when strict unless `STRICT` says otherwise. A file
//! without a row here fails the test, and so does a row without a file.

use std::path::PathBuf;

use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{
    FaultClass, Options, Report, WarningKind, evaluate, evaluate_each_with,
};

use FaultClass::{Mapping, Syntax};

enum Expect {
    /// No fault. The invoices' profiles in order, values found at JSON pointers into the
    /// first invoice's canonical JSON, and the warned rules of the first invoice.
    Accepted {
        profiles: &'static [&'static str],
        values: &'static [(&'static str, &'static str)],
        warnings: &'static [&'static str],
    },
    /// No fault, one INVOIC with this profile, and exactly these charset warnings, in
    /// order: segment number, element:component and a part of the message.
    Tolerated {
        profile: &'static str,
        charset: &'static [(u32, (u32, u32), &'static str)],
    },
    /// No fault, no invoice, no warning: messages of these types handed out as generic
    /// renderings, `true` where an acknowledgement was read from it.
    Rendered(&'static [(&'static str, bool)]),
    /// Rejected with exactly these faults, in order: class and a part of the message.
    Rejected(&'static [(FaultClass, &'static str)]),
}

use Expect::{Accepted, Rejected, Rendered, Tolerated};

const EXPECTED: &[(&str, Expect)] = &[
    // ---- sound invoices, one per profile and directory --------------------------
    (
        "invoic-eancom-d96a.edi",
        Accepted {
            profiles: &["EANCOM-D96A"],
            values: &[("/totals/amount_due", "267.75")],
            warnings: &[],
        },
    ),
    (
        "invoic-eancom-d96a-alc.edi",
        Accepted {
            profiles: &["EANCOM-D96A"],
            values: &[
                ("/buyer/name", "Kontor AG"),
                ("/allowances/0/amount", "22.00"),
                ("/allowances/0/base_amount", "220.00"),
                ("/allowances/0/percentage", "10"),
                ("/allowances/0/reason", "Volume discount"),
                ("/allowances/0/reason_code", "DI"),
                ("/allowances/0/reason_code_list", "UNCL7161"),
                ("/allowances/0/vat_category", "S"),
                ("/allowances/0/vat_rate", "19"),
                ("/charges/0/amount", "15.00"),
                ("/charges/0/reason_code", "FC"),
                ("/lines/0/allowances/0/amount", "20.00"),
                ("/lines/0/allowances/0/percentage", "10"),
                ("/totals/line_extension", "220.00"),
                ("/totals/charge_total", "-7.00"),
                ("/totals/tax_exclusive", "213.00"),
                ("/totals/amount_due", "253.47"),
            ],
            warnings: &[],
        },
    ),
    (
        "invoic-eancom-d01b.edi",
        Accepted {
            profiles: &["EANCOM-D01B"],
            values: &[
                ("/charges/0/amount", "5.00"),
                ("/charges/0/reason_code", "FC"),
                ("/totals/charge_total", "5.00"),
                ("/totals/tax_inclusive", "65.45"),
                ("/totals/amount_due", "65.45"),
            ],
            warnings: &[],
        },
    ),
    (
        "invoic-un-d96a.edi",
        Accepted {
            profiles: &["UN-D96A"],
            values: &[
                ("/seller/name", "NORDWARE GMBH"),
                ("/totals/tax_inclusive", "53.55"),
            ],
            warnings: &[],
        },
    ),
    (
        "invoic-un-d97a.edi",
        Accepted {
            profiles: &["UN-D97A"],
            values: &[("/type_code", "381"), ("/totals/amount_due", "53.55")],
            warnings: &[],
        },
    ),
    (
        "invoic-un-d00a.edi",
        Accepted {
            profiles: &["UN-D00A"],
            values: &[
                ("/seller/name", "Nordware GmbH"),
                ("/allowances/0/amount", "10.00"),
                ("/allowances/0/reason", "Early order"),
                ("/allowances/0/reason_code", "100"),
                ("/allowances/0/reason_code_list", "UNCL5189"),
                ("/lines/0/charges/0/amount", "10.00"),
                ("/lines/0/charges/0/reason", "Packing"),
                ("/lines/0/charges/0/reason_code", "PC"),
                ("/totals/allowance_total", "10.00"),
                ("/totals/tax_exclusive", "100.00"),
                ("/totals/amount_due", "119.00"),
            ],
            warnings: &[],
        },
    ),
    (
        "invoic-un-d03b.edi",
        Accepted {
            profiles: &["UN-D03B"],
            values: &[("/totals/amount_due", "53.55")],
            warnings: &[],
        },
    ),
    (
        "invoic-cen-d14b-16b.edi",
        Accepted {
            profiles: &["UN-D16B"],
            values: &[
                ("/buyer/scheme", "0088"),
                ("/buyer/name", "Kontor AG"),
                ("/allowances/0/amount", "30.00"),
                ("/allowances/0/base_amount", "300.00"),
                ("/allowances/0/percentage", "10"),
                ("/allowances/0/reason", "Volume discount"),
                ("/allowances/0/reason_code", "95"),
                ("/allowances/0/reason_code_list", "UNCL5189"),
                ("/charges/0/amount", "12.00"),
                ("/charges/0/reason", "Freight service"),
                ("/charges/0/reason_code", "FC"),
                ("/charges/0/reason_code_list", "UNCL7161"),
                ("/lines/1/allowances/0/amount", "5.00"),
                ("/lines/1/allowances/0/reason", "Damaged box"),
                ("/totals/allowance_total", "30.00"),
                ("/totals/charge_total", "12.00"),
                ("/totals/tax_exclusive", "282.00"),
                ("/totals/prepaid", "100.00"),
                ("/totals/amount_due", "235.58"),
            ],
            warnings: &[],
        },
    ),
    (
        "invoic-cen-d16b.edi",
        Accepted {
            profiles: &["UN-D16B"],
            values: &[
                ("/totals/rounding", "0.34"),
                ("/totals/amount_due", "30.00"),
            ],
            warnings: &[],
        },
    ),
    (
        "invoic-cen-d14b.edi",
        Accepted {
            profiles: &["UN-D14B"],
            values: &[
                ("/seller/id", "5412345000013"),
                ("/totals/tax_exclusive", "45.00"),
                ("/totals/tax_inclusive", "53.55"),
            ],
            warnings: &[],
        },
    ),
    // ---- business-rule warnings: published, not rejected --------------------------
    (
        "warn-amount-due.edi",
        Accepted {
            profiles: &["EANCOM-D96A"],
            values: &[("/totals/amount_due", "55.53")],
            warnings: &["BR-CO-16"],
        },
    ),
    (
        "warn-allowance-total.edi",
        Accepted {
            profiles: &["UN-D16B"],
            values: &[("/totals/allowance_total", "12.00")],
            warnings: &["BR-CO-11"],
        },
    ),
    // ---- one file per fault the checker reports -----------------------------------
    (
        "fault-missing-unb.edi",
        Rejected(&[(Syntax, "does not start with UNB")]),
    ),
    ("fault-truncated.edi", Rejected(&[(Syntax, "truncated")])),
    (
        "fault-release-at-end.edi",
        Rejected(&[(Syntax, "truncated")]),
    ),
    (
        "fault-unt-count.edi",
        Rejected(&[(Syntax, "UNT declares 30 segments but the message has 23")]),
    ),
    (
        "fault-unt-reference.edi",
        Rejected(&[(
            Syntax,
            "UNT reference \"2\" does not match UNH reference \"1\"",
        )]),
    ),
    (
        "fault-unz-count.edi",
        Rejected(&[(Syntax, "UNZ declares 2 but the envelope holds 1")]),
    ),
    (
        "fault-unz-reference.edi",
        Rejected(&[(Syntax, "UNZ reference \"EH999999\" does not match UNB")]),
    ),
    (
        "fault-duplicate-message-reference.edi",
        Rejected(&[(Syntax, "message reference \"7\" is used twice")]),
    ),
    (
        "fault-control-count-not-a-number.edi",
        Rejected(&[(Syntax, "control count \"2X\" is not a number")]),
    ),
    (
        "fault-unbalanced-envelope.edi",
        Rejected(&[(Syntax, "unbalanced envelope")]),
    ),
    (
        "fault-empty-segment.edi",
        Rejected(&[(Syntax, "empty segment")]),
    ),
    (
        "fault-invalid-tag.edi",
        // The segment is skipped, so UNT's count no longer matches either.
        Rejected(&[
            (Syntax, "invalid segment tag \"imd\""),
            (Syntax, "UNT declares 23 segments but the message has 22"),
        ]),
    ),
    (
        "fault-invalid-una.edi",
        Rejected(&[(Syntax, "invalid UNA service string advice")]),
    ),
    (
        "fault-unsupported-syntax-identifier.edi",
        Rejected(&[(Syntax, "unsupported syntax identifier \"UNOZ\"")]),
    ),
    (
        "fault-charset-control-character.edi",
        // Control characters are faults in both policies: a TAB (C0) and a NEL (C1).
        Rejected(&[
            (Syntax, "byte 0x85 is not allowed by syntax identifier UNOA"),
            (Syntax, "byte 0x09 is not allowed by syntax identifier UNOA"),
        ]),
    ),
    (
        "fault-contrl-without-uci.edi",
        Rejected(&[(Mapping, "no UCI segment")]),
    ),
    (
        "fault-invalid-utf8.edi",
        Rejected(&[(Syntax, "not valid UTF-8")]),
    ),
    (
        "fault-missing-service-element.edi",
        Rejected(&[(Syntax, "missing mandatory service element")]),
    ),
    (
        "fault-data-after-unz.edi",
        Rejected(&[(Syntax, "data after UNZ")]),
    ),
    (
        "fault-missing-bgm.edi",
        Rejected(&[(Mapping, "missing segment BGM")]),
    ),
    (
        "fault-missing-issue-date.edi",
        Rejected(&[(Mapping, "missing segment DTM+137")]),
    ),
    (
        "fault-missing-document-number.edi",
        Rejected(&[(Mapping, "BGM has no document number")]),
    ),
    (
        "fault-invalid-date.edi",
        Rejected(&[(Mapping, "invalid date \"20260230\"")]),
    ),
    (
        "fault-invalid-amount.edi",
        Rejected(&[(Mapping, "invalid number \"45,00\"")]),
    ),
    (
        "fault-no-message.edi",
        Rejected(&[(Mapping, "holds no message")]),
    ),
    // ---- charset: tolerant reads ISO 8859-1, strict rejects (see STRICT) -----------
    (
        "charset-unoa-lower-case.edi",
        Tolerated {
            profile: "UN-D96A",
            charset: &[(
                11,
                (3, 4),
                "byte 0x6F 'o' is not allowed by syntax identifier UNOA",
            )],
        },
    ),
    (
        "charset-unob-latin1.edi",
        Tolerated {
            profile: "UN-D97A",
            charset: &[
                (
                    5,
                    (5, 1),
                    "byte 0xDF 'ß' is not allowed by syntax identifier UNOB",
                ),
                (7, (5, 1), "byte 0xE9 'é'"),
                (7, (6, 1), "byte 0xFC 'ü'"),
                (
                    11,
                    (3, 4),
                    "byte 0xF6 'ö' is not allowed by syntax identifier UNOB (2 bytes",
                ),
            ],
        },
    ),
    // ---- other message types: accepted on syntax, rendered, not mapped --------------
    ("desadv-eancom-d96a.edi", Rendered(&[("DESADV", false)])),
    ("orders-eancom-d96a.edi", Rendered(&[("ORDERS", false)])),
    ("contrl-accepting.edi", Rendered(&[("CONTRL", true)])),
    ("contrl-rejecting.edi", Rendered(&[("CONTRL", true)])),
];

/// The strict outcome of the files whose tolerant one differs.
const STRICT: &[(&str, Expect)] = &[
    (
        "charset-unoa-lower-case.edi",
        Rejected(&[(Syntax, "byte 0x6F is not allowed by syntax identifier UNOA")]),
    ),
    (
        "charset-unob-latin1.edi",
        Rejected(&[
            (Syntax, "byte 0xDF is not allowed by syntax identifier UNOB"),
            (Syntax, "byte 0xE9 is not allowed by syntax identifier UNOB"),
            (Syntax, "byte 0xF6 is not allowed by syntax identifier UNOB"),
        ]),
    ),
];

fn fixtures_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/edifact"
    ))
}

/// The interchange files of the folder (a README or notes file is not one).
fn fixture_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures/edifact exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".edi"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_fixture_has_an_expectation_and_every_expectation_a_fixture() {
    let files = fixture_files();
    let without: Vec<_> = files
        .iter()
        .filter(|f| !EXPECTED.iter().any(|(name, _)| name == f))
        .collect();
    assert!(
        without.is_empty(),
        "fixtures without expectations: {without:?}"
    );
    let missing: Vec<_> = EXPECTED
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !files.iter().any(|f| f == name))
        .collect();
    assert!(
        missing.is_empty(),
        "expectations without fixtures: {missing:?}"
    );
    let stray: Vec<_> = STRICT
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !EXPECTED.iter().any(|(n, _)| n == name))
        .collect();
    assert!(
        stray.is_empty(),
        "STRICT rows without an EXPECTED row: {stray:?}"
    );
}

#[test]
fn every_fixture_has_its_expected_outcome_in_both_policies() {
    let mut wrong = Vec::new();
    for (name, tolerant) in EXPECTED {
        let Ok(bytes) = std::fs::read(fixtures_dir().join(name)) else {
            continue; // reported by the test above
        };
        let strict = STRICT
            .iter()
            .find(|(n, _)| n == name)
            .map_or(tolerant, |(_, e)| e);
        for (policy, expect) in [
            (CharsetPolicy::Tolerant, tolerant),
            (CharsetPolicy::Strict, strict),
        ] {
            let options = Options { charset: policy };
            let (mut rendered, mut invoices) = (Vec::new(), Vec::new());
            let mut report = evaluate_each_with(&bytes, &options, &mut |m| {
                let kind = (
                    m.generic.message_type().to_owned(),
                    m.acknowledgement.is_some(),
                );
                rendered.push(kind);
                invoices.extend(m.invoice);
            });
            report.invoices = invoices;
            for problem in check(&report, &rendered, expect) {
                wrong.push(format!("{name} ({policy}): {problem}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// What is wrong with `report` (and the messages rendered) against `expect`.
fn check(report: &Report, rendered: &[(String, bool)], expect: &Expect) -> Vec<String> {
    let mut wrong = Vec::new();
    let faults: Vec<(FaultClass, String)> = report
        .faults
        .iter()
        .map(|f| (f.class, f.message.clone()))
        .collect();
    if !matches!(expect, Rejected(_)) && !faults.is_empty() {
        return vec![format!("expected no fault, got {faults:?}")];
    }
    if !matches!(expect, Tolerated { .. }) && !report.warnings.is_empty() {
        wrong.push(format!("unexpected warnings {:?}", report.warnings));
    }
    match expect {
        Accepted {
            profiles,
            values,
            warnings,
        } => {
            let found: Vec<&str> = report.invoices.iter().map(|i| i.profile.as_str()).collect();
            if found != *profiles {
                return vec![format!("profiles {found:?}, expected {profiles:?}")];
            }
            let invoice = &report.invoices[0];
            let json = serde_json::to_value(invoice).unwrap();
            for (pointer, value) in *values {
                let got = json.pointer(pointer).and_then(|v| v.as_str());
                if got != Some(value) {
                    wrong.push(format!("{pointer} is {got:?}, expected {value:?}"));
                }
            }
            let warned: Vec<&str> = invoice.warnings.iter().map(|w| w.rule.as_str()).collect();
            if warned != *warnings {
                wrong.push(format!(
                    "warnings {:?}, expected {warnings:?}",
                    invoice.warnings
                ));
            }
        }
        Tolerated { profile, charset } => {
            let found: Vec<&str> = report.invoices.iter().map(|i| i.profile.as_str()).collect();
            if found != [*profile] {
                wrong.push(format!("profiles {found:?}, expected {profile:?}"));
            }
            let matches = report.warnings.len() == charset.len()
                && report
                    .warnings
                    .iter()
                    .zip(*charset)
                    .all(|(w, (segment, (e, c), part))| {
                        w.kind == WarningKind::Charset
                            && w.position.map(|p| p.segment) == Some(*segment)
                            && w.element.map(|p| (p.element, p.component)) == Some((*e, *c))
                            && w.message.contains(part)
                            && w.message_reference.as_deref() == Some("1")
                    });
            if !matches {
                let shown: Vec<String> = report.warnings.iter().map(|w| w.to_string()).collect();
                wrong.push(format!("charset warnings {shown:#?}, expected {charset:?}"));
            }
        }
        Rendered(types) => {
            let want: Vec<(String, bool)> =
                types.iter().map(|(t, a)| ((*t).to_owned(), *a)).collect();
            if rendered != want || !report.invoices.is_empty() {
                wrong.push(format!("rendered {rendered:?}, expected {want:?}"));
            }
        }
        Rejected(expected) => {
            let matches = faults.len() == expected.len()
                && faults
                    .iter()
                    .zip(*expected)
                    .all(|((class, message), (want, part))| {
                        class == want && message.contains(part)
                    });
            if !matches {
                wrong.push(format!("faults {faults:?}, expected {expected:?}"));
            }
            // Every fault names where it is, except "no message at all".
            for fault in &report.faults {
                if fault.position.is_none() && !fault.message.contains("no message") {
                    wrong.push(format!("fault without position: {fault}"));
                }
            }
        }
    }
    wrong
}

/// Allowances and charges keep the position of the segment each value came from, and a
/// line ALC that is an item price discount (MOA+509) is left in the unmapped list.
#[test]
fn allowance_and_charge_sources_point_at_their_segments() {
    let bytes = std::fs::read(fixtures_dir().join("invoic-cen-d14b-16b.edi")).unwrap();
    let report = evaluate(&bytes);
    let invoice = &report.invoices[0];
    for (term, text) in [
        ("BG-20[0].BT-92", "MOA+204:30.00"),
        ("BG-20[0].BT-93", "MOA+25:300.00"),
        ("BG-20[0].BT-94", "PCD+1:10"),
        ("BG-20[0].BT-95", "TAX+7+VAT+++:::19+S"),
        ("BG-20[0].BT-98", "ALC+A+Volume discount:95"),
        ("BG-21[0].BT-99", "MOA+23:12.00"),
        ("BG-21[0].BT-105", "ALC+C+Freight service"),
        ("BG-25[1].BG-27[0].BT-136", "MOA+204:5.00"),
        ("BG-25[1].BG-27[0].BT-139", "ALC+A+Damaged box"),
        ("BT-107", "MOA+260:30.00"),
        ("BT-108", "MOA+259:12.00"),
    ] {
        let offset = invoice.sources[term].offset;
        assert!(
            bytes[offset..].starts_with(text.as_bytes()),
            "{term} points at {:?}",
            String::from_utf8_lossy(&bytes[offset..(offset + 24).min(bytes.len())])
        );
    }
    assert_eq!(invoice.lines[0].allowances, []);
    assert!(invoice.unmapped_segments.contains(&"ALC".to_owned()));
}
