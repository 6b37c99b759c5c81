//! EN 16931 business rules on the document totals, checked in exact decimal arithmetic.
//!
//! Each rule is checked only when the totals it relates are present: EN 16931 makes some
//! of them optional and many EDIFACT senders leave them out. An absent allowance, charge,
//! paid or rounding amount counts as zero, as the standard says.

use std::collections::BTreeMap;

use super::{Line, Totals, Warning};
use crate::SourcePosition;

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

/// The warnings for one invoice's totals, in rule order.
pub(crate) fn check(
    lines: &[Line],
    totals: &Totals,
    sources: &BTreeMap<String, SourcePosition>,
) -> Vec<Warning> {
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
    let line_sum = lines.iter().try_fold(Amount::zero(), |sum, line| {
        sum.add(Amount::parse(line.net_amount.as_deref()?)?)
    });
    let line_sum = line_sum.filter(|_| !lines.is_empty());
    rule(
        "BR-CO-10",
        amount(&totals.line_extension),
        line_sum,
        "BT-106",
        "the sum of the line net amounts (BT-131)",
    );

    // BR-CO-13: BT-109 = BT-106 - BT-107 + BT-108.
    let computed = amount(&totals.line_extension).and_then(|l| {
        l.add(or_zero(&totals.allowance_total)?.neg())?
            .add(or_zero(&totals.charge_total)?)
    });
    rule(
        "BR-CO-13",
        amount(&totals.tax_exclusive),
        computed,
        "BT-109",
        "BT-106 - BT-107 + BT-108",
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
    use super::*;

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
        }
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
        assert_eq!(check(&lines, &totals, &BTreeMap::new()), []);
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
        let w = check(&[line("4"), line("5")], &totals, &sources);
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
        assert_eq!(check(&[], &totals, &BTreeMap::new()), []);
        // A line without a net amount makes BR-CO-10 unknowable, not broken.
        let mut no_net = line("1");
        no_net.net_amount = None;
        let totals = Totals {
            line_extension: s("7"),
            ..Totals::default()
        };
        assert_eq!(check(&[line("1"), no_net], &totals, &BTreeMap::new()), []);
    }
}
