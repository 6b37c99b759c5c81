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
    let mut rules = Rules {
        invoice,
        warnings: Vec::new(),
    };
    sums_of_parts(&mut rules, charge_total_is_net);
    chain_of_totals(&mut rules, charge_total_is_net);
    rules.warnings
}

/// The invoice under check and the warnings found so far.
struct Rules<'a> {
    invoice: &'a CanonicalInvoice,
    warnings: Vec<Warning>,
}

impl Rules<'_> {
    /// Rule `id`: the total `bt` states `stated`, and `how` computes `computed`. Checked
    /// only when both are known.
    fn rule(
        &mut self,
        id: &str,
        stated: Option<Amount>,
        computed: Option<Amount>,
        bt: &str,
        how: &str,
    ) {
        let (Some(stated), Some(computed)) = (stated, computed) else {
            return;
        };
        if stated.same(computed) == Some(false) {
            self.warnings.push(Warning {
                rule: id.to_owned(),
                message: format!("{bt} is {stated} but {how} gives {computed}"),
                position: self.invoice.sources.get(bt).copied(),
            });
        }
    }
}

/// BR-CO-10 to BR-CO-12: the line, allowance and charge totals against their parts.
fn sums_of_parts(rules: &mut Rules<'_>, charge_total_is_net: bool) {
    let invoice = rules.invoice;
    let (lines, totals) = (&invoice.lines, &invoice.totals);

    // BR-CO-10: BT-106 = sum of BT-131. Skipped when a line has no net amount: the sum
    // would then be a guess.
    let line_sum = sum(lines.iter().map(|l| l.net_amount.as_deref())).filter(|_| !lines.is_empty());
    rules.rule(
        "BR-CO-10",
        amount(&totals.line_extension),
        line_sum,
        "BT-106",
        "the sum of the line net amounts (BT-131)",
    );

    // BR-CO-11: BT-107 = sum of BT-92.
    let allowances = sum_of(&invoice.allowances);
    rules.rule(
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
        rules.rule(
            "BR-CO-12",
            amount(&totals.charge_total),
            charges.and_then(|c| c.add(allowances?.neg())),
            "BT-108",
            "the document charges (BT-99) minus the document allowances (BT-92)",
        );
    } else {
        rules.rule(
            "BR-CO-12",
            amount(&totals.charge_total),
            charges,
            "BT-108",
            "the sum of the document charge amounts (BT-99)",
        );
    }
}

/// BR-CO-13 to BR-CO-16: each document total against the totals it is computed from.
fn chain_of_totals(rules: &mut Rules<'_>, charge_total_is_net: bool) {
    let invoice = rules.invoice;
    let totals = &invoice.totals;

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
    rules.rule(
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
    rules.rule(
        "BR-CO-14",
        amount(&totals.tax_total),
        vat_sum,
        "BT-110",
        "the sum of the VAT category tax amounts (BT-117)",
    );

    // BR-CO-15: BT-112 = BT-109 + BT-110.
    let computed = amount(&totals.tax_exclusive).and_then(|e| e.add(amount(&totals.tax_total)?));
    rules.rule(
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
    rules.rule(
        "BR-CO-16",
        amount(&totals.amount_due),
        computed,
        "BT-115",
        "BT-112 - BT-113 + BT-114",
    );
}

#[cfg(test)]
mod tests;
