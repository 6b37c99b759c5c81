//! Unit tests of `rules`.

use std::collections::BTreeMap;

use super::super::{Line, Totals, VatBreakdown};
use super::*;
use crate::SourcePosition;

fn line(net: &str) -> Line {
    Line {
        line_id: "1".into(),
        item_id: None,
        item_id_type: None,
        description: None,
        quantity: None,
        unit_code: None,
        net_amount: Some(net.into()),
        net_price: None,
        allowances: Vec::new(),
        charges: Vec::new(),
    }
}

fn invoice(
    lines: &[Line],
    totals: &Totals,
    sources: &BTreeMap<String, SourcePosition>,
) -> CanonicalInvoice {
    CanonicalInvoice {
        message_reference: "1".into(),
        profile: "UN-D16B".into(),
        invoice_number: "1".into(),
        issue_date: "2026-01-01".into(),
        type_code: "380".into(),
        currency: None,
        seller: Default::default(),
        buyer: Default::default(),
        lines: lines.to_vec(),
        vat_breakdown: Vec::new(),
        allowances: Vec::new(),
        charges: Vec::new(),
        totals: totals.clone(),
        sources: sources.clone(),
        unmapped_segments: Vec::new(),
        warnings: Vec::new(),
    }
}

fn check_totals(
    lines: &[Line],
    totals: &Totals,
    sources: &BTreeMap<String, SourcePosition>,
) -> Vec<Warning> {
    check(&invoice(lines, totals, sources), false)
}

fn amount_of(value: &str) -> AllowanceCharge {
    AllowanceCharge {
        amount: s(value),
        ..AllowanceCharge::default()
    }
}

fn rules(warnings: &[Warning]) -> Vec<&str> {
    warnings.iter().map(|w| w.rule.as_str()).collect()
}

#[test]
fn allowance_charge_and_vat_sums() {
    let totals = Totals {
        line_extension: s("100"),
        allowance_total: s("10"),
        charge_total: s("5.50"),
        tax_exclusive: s("95.5"),
        tax_total: s("19.10"),
        ..Totals::default()
    };
    let mut inv = invoice(&[line("100")], &totals, &BTreeMap::new());
    inv.allowances = vec![amount_of("4"), amount_of("6.00")];
    inv.charges = vec![amount_of("5.5")];
    inv.vat_breakdown = vec![VatBreakdown {
        tax_type: None,
        category: s("S"),
        rate: s("20"),
        taxable_amount: s("95.5"),
        tax_amount: s("19.10"),
    }];
    assert_eq!(check(&inv, false), []);

    inv.allowances.pop();
    inv.charges.push(amount_of("1"));
    inv.vat_breakdown[0].tax_amount = s("19.11");
    let w = check(&inv, false);
    assert_eq!(rules(&w), ["BR-CO-11", "BR-CO-12", "BR-CO-14"]);
    assert_eq!(
        w[0].message,
        "BT-107 is 10 but the sum of the document allowance amounts (BT-92) gives 4"
    );

    // A percentage-only allowance makes the sum unknowable: BR-CO-11 is skipped.
    inv.allowances = vec![AllowanceCharge {
        percentage: s("10"),
        ..AllowanceCharge::default()
    }];
    assert!(!rules(&check(&inv, false)).contains(&"BR-CO-11"));
}

#[test]
fn a_net_charge_total_is_charges_minus_allowances() {
    // EANCOM: MOA+131 = 120 - 20, no MOA+260.
    let totals = Totals {
        line_extension: s("1000"),
        charge_total: s("100"),
        tax_exclusive: s("1100"),
        ..Totals::default()
    };
    let mut inv = invoice(&[line("1000")], &totals, &BTreeMap::new());
    inv.allowances = vec![amount_of("20")];
    inv.charges = vec![amount_of("120")];
    assert_eq!(check(&inv, true), []);
    // Read as a plain charge total, the same figures break BR-CO-12.
    assert_eq!(rules(&check(&inv, false)), ["BR-CO-12"]);
}

fn s(v: &str) -> Option<String> {
    Some(v.to_owned())
}

#[test]
fn amounts_are_exact() {
    let a = Amount::parse("19.9").unwrap();
    let b = Amount::parse("-109.98").unwrap();
    assert_eq!(a.add(b).unwrap().to_string(), "-90.08");
    assert!(
        Amount::parse("1.50")
            .unwrap()
            .same(Amount::parse("1.5").unwrap())
            .unwrap()
    );
    assert_eq!(Amount::parse("-0.05").unwrap().to_string(), "-0.05");
    assert!(Amount::parse("1e5").is_none());
    assert!(Amount::parse(&"9".repeat(60)).is_none());
}

#[test]
fn consistent_totals_give_no_warning() {
    let totals = Totals {
        line_extension: s("1436.5"),
        allowance_total: s("100"),
        charge_total: s("100"),
        tax_exclusive: s("1436.50"),
        tax_total: s("365.28"),
        tax_inclusive: s("1801.78"),
        prepaid: s("1000"),
        rounding: None,
        amount_due: s("801.78"),
    };
    let lines = [line("1273"), line("-3.96"), line("4.96"), line("162.5")];
    let mut inv = invoice(&lines, &totals, &BTreeMap::new());
    inv.allowances = vec![amount_of("100")];
    inv.charges = vec![amount_of("100.00")];
    assert_eq!(check(&inv, false), []);
}

#[test]
fn each_rule_reports_with_the_position_of_the_stated_total() {
    let at = |segment| SourcePosition {
        segment,
        offset: segment as usize * 10,
    };
    let sources: BTreeMap<String, SourcePosition> = [
        ("BT-106", at(1)),
        ("BT-109", at(2)),
        ("BT-112", at(3)),
        ("BT-115", at(4)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let totals = Totals {
        line_extension: s("10.00"),
        tax_exclusive: s("11"),
        tax_total: s("2"),
        tax_inclusive: s("12"),
        prepaid: s("1"),
        rounding: s("0.01"),
        amount_due: s("12"),
        ..Totals::default()
    };
    let w = check_totals(&[line("4"), line("5")], &totals, &sources);
    let rules: Vec<_> = w.iter().map(|w| (w.rule.as_str(), w.position)).collect();
    assert_eq!(
        rules,
        [
            ("BR-CO-10", Some(at(1))),
            ("BR-CO-13", Some(at(2))),
            ("BR-CO-15", Some(at(3))),
            ("BR-CO-16", Some(at(4))),
        ]
    );
    assert_eq!(
        w[3].message,
        "BT-115 is 12 but BT-112 - BT-113 + BT-114 gives 11.01"
    );
}

#[test]
fn rules_without_their_totals_are_skipped() {
    let totals = Totals {
        amount_due: s("5"),
        ..Totals::default()
    };
    assert_eq!(check_totals(&[], &totals, &BTreeMap::new()), []);
    // A line without a net amount makes BR-CO-10 unknowable, not broken.
    let mut no_net = line("1");
    no_net.net_amount = None;
    let totals = Totals {
        line_extension: s("7"),
        ..Totals::default()
    };
    assert_eq!(
        check_totals(&[line("1"), no_net], &totals, &BTreeMap::new()),
        []
    );
}
