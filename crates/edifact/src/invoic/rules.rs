//! EN 16931 business rules on the document totals, checked in exact decimal arithmetic.
//!
//! Each rule is checked only when the total it states is present: EN 16931 makes some of
//! them optional and many EDIFACT senders leave them out. An absent allowance, charge,
//! paid or rounding amount counts as zero on the computing side, as the standard says. A
//! sum over parts (lines, allowances, VAT breakdowns) is skipped when one part lacks its
//! amount (e.g. an allowance given only as a percentage): the sum would be a guess.

use super::{AllowanceCharge, CanonicalInvoice, Warning};

/// A decimal as an integer count of `10^-scale` units; no floats, no rounding.
#[derive(Debug, Clone, Copy)]
struct Amount {
    units: i128,
    scale: u32,
}

impl Amount {
    /// Reads a canonical amount (`-?digits(.digits)?`, as the mapping produces them).
    /// `None` for anything else or for more digits than an `i128` holds.
    fn parse(value: &str) -> Option<Amount> {
        let (negative, digits) = match value.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, value),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        let scale = u32::try_from(frac.len()).ok()?;
        let mut units: i128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            if !b.is_ascii_digit() {
                return None;
            }
            units = units.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        }
        Some(Amount {
            units: if negative { -units } else { units },
            scale,
        })
    }

    fn zero() -> Amount {
        Amount { units: 0, scale: 0 }
    }

    fn rescale(self, scale: u32) -> Option<i128> {
        self.units
            .checked_mul(10i128.checked_pow(scale - self.scale)?)
    }

    fn add(self, other: Amount) -> Option<Amount> {
        let scale = self.scale.max(other.scale);
        Some(Amount {
            units: self.rescale(scale)?.checked_add(other.rescale(scale)?)?,
            scale,
        })
    }

    fn neg(self) -> Amount {
        Amount {
            units: -self.units,
            scale: self.scale,
        }
    }

    /// Equal in value (`1.50` equals `1.5`); `None` if the comparison overflows.
    fn same(self, other: Amount) -> Option<bool> {
        let scale = self.scale.max(other.scale);
        Some(self.rescale(scale)? == other.rescale(scale)?)
    }
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.units < 0 { "-" } else { "" };
        let abs = self.units.unsigned_abs();
        if self.scale == 0 {
            return write!(f, "{sign}{abs}");
        }
        let pow = 10u128.pow(self.scale);
        write!(
            f,
            "{sign}{}.{:0width$}",
            abs / pow,
            abs % pow,
            width = self.scale as usize
        )
    }
}

fn amount(value: &Option<String>) -> Option<Amount> {
    value.as_deref().and_then(Amount::parse)
}

fn or_zero(value: &Option<String>) -> Option<Amount> {
    match value {
        None => Some(Amount::zero()),
        Some(v) => Amount::parse(v),
    }
}

/// The exact sum of some amounts; `None` if one is absent or unreadable.
fn sum<'a>(amounts: impl IntoIterator<Item = Option<&'a str>>) -> Option<Amount> {
    amounts
        .into_iter()
        .try_fold(Amount::zero(), |sum, a| sum.add(Amount::parse(a?)?))
}

fn sum_of(items: &[AllowanceCharge]) -> Option<Amount> {
    sum(items.iter().map(|a| a.amount.as_deref()))
}

/// The warnings for one invoice's totals, in rule order. `charge_total_is_net` says that
/// BT-108 was read from a qualifier carrying charges net of allowances (EANCOM MOA+131).
pub(crate) fn check(invoice: &CanonicalInvoice, charge_total_is_net: bool) -> Vec<Warning> {
    let (lines, totals, sources) = (&invoice.lines, &invoice.totals, &invoice.sources);
    let mut warnings = Vec::new();
    let mut rule = |id: &str, stated: Option<Amount>, computed: Option<Amount>, bt: &str, how| {
        let (Some(stated), Some(computed)) = (stated, computed) else {
            return;
        };
        if stated.same(computed) == Some(false) {
            warnings.push(Warning {
                rule: id.to_owned(),
                message: format!("{bt} is {stated} but {how} gives {computed}"),
                position: sources.get(bt).copied(),
            });
        }
    };

    // BR-CO-10: BT-106 = sum of BT-131. Skipped when a line has no net amount: the sum
    // would then be a guess.
    let line_sum = sum(lines.iter().map(|l| l.net_amount.as_deref())).filter(|_| !lines.is_empty());
    rule(
        "BR-CO-10",
        amount(&totals.line_extension),
        line_sum,
        "BT-106",
        "the sum of the line net amounts (BT-131)",
    );

    // BR-CO-11: BT-107 = sum of BT-92.
    let allowances = sum_of(&invoice.allowances);
    rule(
        "BR-CO-11",
        amount(&totals.allowance_total),
        allowances,
        "BT-107",
        "the sum of the document allowance amounts (BT-92)",
    );

    // BR-CO-12: BT-108 = sum of BT-99; a net BT-108 is compared with charges minus
    // allowances instead.
    let charges = sum_of(&invoice.charges);
    if charge_total_is_net {
        rule(
            "BR-CO-12",
            amount(&totals.charge_total),
            charges.and_then(|c| c.add(allowances?.neg())),
            "BT-108",
            "the document charges (BT-99) minus the document allowances (BT-92)",
        );
    } else {
        rule(
            "BR-CO-12",
            amount(&totals.charge_total),
            charges,
            "BT-108",
            "the sum of the document charge amounts (BT-99)",
        );
    }

    // BR-CO-13: BT-109 = BT-106 - BT-107 + BT-108 (a net BT-108 already holds BT-107).
    let allowance_total = if charge_total_is_net {
        Some(Amount::zero())
    } else {
        or_zero(&totals.allowance_total)
    };
    let computed = amount(&totals.line_extension).and_then(|l| {
        l.add(allowance_total?.neg())?
            .add(or_zero(&totals.charge_total)?)
    });
    rule(
        "BR-CO-13",
        amount(&totals.tax_exclusive),
        computed,
        "BT-109",
        "BT-106 - BT-107 + BT-108",
    );

    // BR-CO-14: BT-110 = sum of BT-117.
    let breakdown = &invoice.vat_breakdown;
    let vat_sum =
        sum(breakdown.iter().map(|v| v.tax_amount.as_deref())).filter(|_| !breakdown.is_empty());
    rule(
        "BR-CO-14",
        amount(&totals.tax_total),
        vat_sum,
        "BT-110",
        "the sum of the VAT category tax amounts (BT-117)",
    );

    // BR-CO-15: BT-112 = BT-109 + BT-110.
    let computed = amount(&totals.tax_exclusive).and_then(|e| e.add(amount(&totals.tax_total)?));
    rule(
        "BR-CO-15",
        amount(&totals.tax_inclusive),
        computed,
        "BT-112",
        "BT-109 + BT-110",
    );

    // BR-CO-16: BT-115 = BT-112 - BT-113 + BT-114.
    let computed = amount(&totals.tax_inclusive).and_then(|i| {
        i.add(or_zero(&totals.prepaid)?.neg())?
            .add(or_zero(&totals.rounding)?)
    });
    rule(
        "BR-CO-16",
        amount(&totals.amount_due),
        computed,
        "BT-115",
        "BT-112 - BT-113 + BT-114",
    );
    warnings
}

#[cfg(test)]
mod tests {
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
}
