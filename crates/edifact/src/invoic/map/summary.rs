//! The summary section's values: the VAT breakdown (BG-23) and the document totals
//! (BG-22).

use super::fields::{moa_amount, number};
use super::walk::VatDraft;
use super::{Context, indexed_key};
use crate::invoic::{Totals, VatBreakdown};

/// One VAT breakdown per summary TAX+7 group, located under `BG-23[n]`.
pub(super) fn vat_breakdown(drafts: &[VatDraft], ctx: &mut Context<'_>) -> Vec<VatBreakdown> {
    let (segments, mark) = (ctx.segments, ctx.mark);
    let mut breakdown = Vec::with_capacity(drafts.len());
    for (n, draft) in drafts.iter().enumerate() {
        let tax = &segments[draft.tax];
        let key = |bt: &str| indexed_key("BG-23", n, bt);
        let rate = ctx.errors.keep(number(tax, 4, 3, mark));
        let taxable_amount = draft
            .taxable
            .and_then(|i| ctx.errors.keep(moa_amount(&segments[i], mark)));
        let tax_amount = draft
            .tax_amount
            .and_then(|i| ctx.errors.keep(moa_amount(&segments[i], mark)));
        ctx.sources.insert(key("BT-118"), tax.position);
        if let Some(i) = draft.taxable {
            ctx.sources.insert(key("BT-116"), segments[i].position);
        }
        if let Some(i) = draft.tax_amount {
            ctx.sources.insert(key("BT-117"), segments[i].position);
        }
        breakdown.push(VatBreakdown {
            tax_type: tax.component(1, 0).map(str::to_owned),
            category: tax.component(5, 0).map(str::to_owned),
            rate,
            taxable_amount,
            tax_amount,
        });
    }
    breakdown
}

/// The document totals from the summary MOAs, each the first MOA whose qualifier is the
/// profile's choice for it. Also says whether the charge total found is charges net of
/// allowances (a `net_charge_total` qualifier), which changes what BR-CO checks compare.
pub(super) fn totals(summary_moas: &[usize], ctx: &mut Context<'_>) -> (Totals, bool) {
    let table = ctx.table;
    let mut charge_total_is_net = false;
    let mut total = |qualifiers: &[&str], key: &str| -> Option<String> {
        let segments = ctx.segments;
        let i = qualifiers.iter().find_map(|q| {
            summary_moas
                .iter()
                .copied()
                .find(|&i| segments[i].qualifier() == Some(*q))
        })?;
        ctx.used[i] = true;
        if key == "BT-108" {
            charge_total_is_net = segments[i]
                .qualifier()
                .is_some_and(|q| table.net_charge_total.contains(&q));
        }
        ctx.sources.insert(key.to_owned(), segments[i].position);
        ctx.errors.keep(moa_amount(&segments[i], ctx.mark))
    };
    let totals = Totals {
        line_extension: total(table.line_extension, "BT-106"),
        allowance_total: total(table.allowance_total, "BT-107"),
        charge_total: total(table.charge_total, "BT-108"),
        tax_exclusive: total(table.tax_exclusive, "BT-109"),
        tax_total: total(table.tax_total, "BT-110"),
        tax_inclusive: total(table.tax_inclusive, "BT-112"),
        prepaid: total(table.prepaid, "BT-113"),
        rounding: total(table.rounding, "BT-114"),
        amount_due: total(table.amount_due, "BT-115"),
    };
    (totals, charge_total_is_net)
}
