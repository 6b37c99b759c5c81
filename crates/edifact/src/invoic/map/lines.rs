//! The detail section's values: one invoice line (BG-25) per LIN group, with its
//! allowances and charges.

use super::allowances::{LINE_ALLOWANCE, LINE_CHARGE, allowances_and_charges};
use super::fields::{moa_amount, non_empty_joined, number};
use super::walk::LineDraft;
use super::{Context, indexed_key};
use crate::invoic::Line;

/// The invoice lines, in input order, located under `BG-25[n]`.
pub(super) fn lines(drafts: &[LineDraft], ctx: &mut Context<'_>) -> Vec<Line> {
    let mut lines = Vec::with_capacity(drafts.len());
    for (n, draft) in drafts.iter().enumerate() {
        let mut line = build_line(n, draft, ctx);
        (line.allowances, line.charges) = allowances_and_charges(
            &draft.alcs,
            ctx,
            (&indexed_key("BG-25", n, "BG-27"), &LINE_ALLOWANCE),
            (&indexed_key("BG-25", n, "BG-28"), &LINE_CHARGE),
        );
        lines.push(line);
    }
    lines
}

/// Line `n` without its allowances and charges: LIN, IMD, QTY, MOA+203 and PRI+AAA.
fn build_line(n: usize, draft: &LineDraft, ctx: &mut Context<'_>) -> Line {
    let (segments, mark) = (ctx.segments, ctx.mark);
    let sources = &mut ctx.sources;
    let errors = &mut ctx.errors;
    let lin = &segments[draft.lin];
    let key = |bt: &str| indexed_key("BG-25", n, bt);
    sources.insert(key("BT-126"), lin.position);
    let line_id = lin
        .component(0, 0)
        .map_or_else(|| (n + 1).to_string(), str::to_owned);
    let item_id = lin.component(2, 0).map(str::to_owned);
    if item_id.is_some() {
        sources.insert(key("BT-157"), lin.position);
    }

    let descriptions: Vec<String> = draft
        .imd
        .iter()
        .filter_map(|&i| non_empty_joined(segments[i].element(2).map(|c| c.iter().skip(3)), " "))
        .collect();
    let description = (!descriptions.is_empty()).then(|| descriptions.join("; "));
    if let Some(&i) = draft.imd.first().filter(|_| description.is_some()) {
        sources.insert(key("BT-153"), segments[i].position);
    }

    let (quantity, unit_code) = match draft.qty.map(|i| &segments[i]) {
        Some(qty) => {
            sources.insert(key("BT-129"), qty.position);
            (
                errors.keep(number(qty, 0, 1, mark)),
                qty.component(0, 2).map(str::to_owned),
            )
        }
        None => (None, None),
    };
    let net_amount = match draft.moa.map(|i| &segments[i]) {
        Some(moa) => {
            sources.insert(key("BT-131"), moa.position);
            errors.keep(moa_amount(moa, mark))
        }
        None => None,
    };
    let net_price = match draft.pri.map(|i| &segments[i]) {
        Some(pri) => {
            sources.insert(key("BT-146"), pri.position);
            errors.keep(number(pri, 0, 1, mark))
        }
        None => None,
    };
    Line {
        line_id,
        item_id,
        item_id_type: lin.component(2, 1).map(str::to_owned),
        description,
        quantity,
        unit_code,
        net_amount,
        net_price,
        allowances: Vec::new(),
        charges: Vec::new(),
    }
}
