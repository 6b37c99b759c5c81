//! Allowances and charges (ALC groups): document level ones from the header (BG-20,
//! BG-21) and line level ones from a LIN group (BG-27, BG-28).

use super::fields::{moa_amount, non_empty_joined, number};
use super::walk::AlcDraft;
use super::{Context, indexed_key};
use crate::Segment;
use crate::invoic::AllowanceCharge;

/// The business terms of one allowance or charge, by level and kind: amount, base amount,
/// percentage, VAT category, VAT rate, reason, reason code.
pub(super) type AlcTerms = [Option<&'static str>; 7];
pub(super) const DOCUMENT_ALLOWANCE: AlcTerms = [
    Some("BT-92"),
    Some("BT-93"),
    Some("BT-94"),
    Some("BT-95"),
    Some("BT-96"),
    Some("BT-97"),
    Some("BT-98"),
];
pub(super) const DOCUMENT_CHARGE: AlcTerms = [
    Some("BT-99"),
    Some("BT-100"),
    Some("BT-101"),
    Some("BT-102"),
    Some("BT-103"),
    Some("BT-104"),
    Some("BT-105"),
];
pub(super) const LINE_ALLOWANCE: AlcTerms = [
    Some("BT-136"),
    Some("BT-137"),
    Some("BT-138"),
    None,
    None,
    Some("BT-139"),
    Some("BT-140"),
];
pub(super) const LINE_CHARGE: AlcTerms = [
    Some("BT-141"),
    Some("BT-142"),
    Some("BT-143"),
    None,
    None,
    Some("BT-144"),
    Some("BT-145"),
];

/// The allowances and the charges of some ALC groups, with their source positions under
/// `allowance.0` and `charge.0` (e.g. `BG-20[0].BT-92`). Groups whose ALC 5463 is neither
/// `A` nor `C`, and line groups that are an item price discount, are left unmapped.
pub(super) fn allowances_and_charges(
    drafts: &[AlcDraft],
    ctx: &mut Context<'_>,
    allowance: (&str, &AlcTerms),
    charge: (&str, &AlcTerms),
) -> (Vec<AllowanceCharge>, Vec<AllowanceCharge>) {
    let (mut allowances, mut charges) = (Vec::new(), Vec::new());
    for draft in drafts {
        let is_charge = match ctx.segments[draft.alc].qualifier() {
            Some("A") => false,
            Some("C") => true,
            _ => continue,
        };
        let Some(picked) = Picked::of(draft, ctx) else {
            continue;
        };
        let ((group, terms), list) = if is_charge {
            (charge, &mut charges)
        } else {
            (allowance, &mut allowances)
        };
        let at = Located {
            group,
            n: list.len(),
            terms,
        };
        list.push(build(draft, &picked, is_charge, &at, ctx));
    }
    (allowances, charges)
}

/// The MOA and PCD segments of a group that carry its amount, base and percentage.
struct Picked {
    amount: Option<usize>,
    base: Option<usize>,
    percentage: Option<usize>,
}

impl Picked {
    /// `None` for a group without an amount that is an item price discount: that is part
    /// of the net price, not an allowance.
    fn of(draft: &AlcDraft, ctx: &Context<'_>) -> Option<Self> {
        let segments = ctx.segments;
        let pick = |candidates: &[usize], qualifiers: &[&str]| {
            qualifiers.iter().find_map(|q| {
                candidates
                    .iter()
                    .copied()
                    .find(|&i| segments[i].qualifier() == Some(*q))
            })
        };
        let amount = pick(&draft.moas, ctx.table.alc_amount);
        if amount.is_none() && pick(&draft.moas, ctx.table.price_discount).is_some() {
            return None;
        }
        Some(Self {
            amount,
            base: pick(&draft.moas, ctx.table.alc_base),
            percentage: pick(&draft.pcds, ctx.table.alc_percentage),
        })
    }
}

/// Where an allowance or charge is located: the `n`-th of `group`, its terms `terms`.
struct Located<'a> {
    group: &'a str,
    n: usize,
    terms: &'a AlcTerms,
}

impl Located<'_> {
    /// Marks segment `i` mapped and records its position under term `k`, if the level
    /// has that term.
    fn locate(&self, ctx: &mut Context<'_>, k: Option<usize>, i: usize) {
        ctx.used[i] = true;
        if let Some(bt) = k.and_then(|k| self.terms[k]) {
            let position = ctx.segments[i].position;
            ctx.sources
                .insert(indexed_key(self.group, self.n, bt), position);
        }
    }
}

/// One allowance or charge from its group's picked segments.
fn build(
    draft: &AlcDraft,
    picked: &Picked,
    is_charge: bool,
    at: &Located<'_>,
    ctx: &mut Context<'_>,
) -> AllowanceCharge {
    let (segments, mark) = (ctx.segments, ctx.mark);
    at.locate(ctx, None, draft.alc);
    let mut value = AllowanceCharge::default();
    if let Some(i) = picked.amount {
        at.locate(ctx, Some(0), i);
        value.amount = ctx.errors.keep(moa_amount(&segments[i], mark));
    }
    if let Some(i) = picked.base {
        at.locate(ctx, Some(1), i);
        value.base_amount = ctx.errors.keep(moa_amount(&segments[i], mark));
    }
    if let Some(i) = picked.percentage {
        at.locate(ctx, Some(2), i);
        value.percentage = ctx.errors.keep(number(&segments[i], 0, 1, mark));
    }
    if let Some(i) = draft.tax {
        let tax = &segments[i];
        value.vat_category = tax.component(5, 0).map(str::to_owned);
        value.vat_rate = ctx.errors.keep(number(tax, 4, 3, mark));
        if value.vat_category.is_some() {
            at.locate(ctx, Some(3), i);
        }
        if value.vat_rate.is_some() {
            at.locate(ctx, Some(4), i);
        }
        at.locate(ctx, None, i);
    }
    reason(&segments[draft.alc], is_charge, ctx, &mut value);
    if value.reason.is_some() {
        at.locate(ctx, Some(5), draft.alc);
    }
    if value.reason_code.is_some() {
        at.locate(ctx, Some(6), draft.alc);
    }
    value
}

/// The reason text and code of an ALC. A charge prefers its special services code
/// (7161) to the allowance or charge code (5189), an allowance the other way round.
fn reason(alc: &Segment<'_>, is_charge: bool, ctx: &Context<'_>, value: &mut AllowanceCharge) {
    // C214: 7161, 1131, 3055, 7160, 7160. C552: 1230, 5189.
    let c214_text = non_empty_joined(alc.element(4).map(|c| c.iter().skip(3)), " ");
    value.reason = c214_text.or_else(|| {
        alc.component(1, 0)
            .filter(|_| ctx.table.reason_text_in_1230)
            .map(str::to_owned)
    });
    let codes = [
        (alc.component(1, 1), "UNCL5189"),
        (alc.component(4, 0), "UNCL7161"),
    ];
    let preferred = if is_charge { [1, 0] } else { [0, 1] };
    if let Some((code, code_list)) = preferred
        .iter()
        .find_map(|&k| codes[k].0.map(|c| (c, codes[k].1)))
    {
        value.reason_code = Some(code.to_owned());
        value.reason_code_list = Some(code_list.to_owned());
    }
}
