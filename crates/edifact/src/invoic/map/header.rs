//! The header section's values: the document (BGM, DTM+137, CUX) and the seller and
//! buyer parties (NAD groups).

use super::Context;
use super::fields::{date, error, non_empty_joined};
use super::walk::{Drafts, NadDraft};
use crate::Segment;
use crate::invoic::{MappingErrorKind, Party};

/// BT-1, BT-3, BT-2 and BT-5: the values every invoice has, the first three mandatory.
pub(super) struct Document {
    pub(super) invoice_number: Option<String>,
    pub(super) type_code: Option<String>,
    pub(super) issue_date: Option<String>,
    pub(super) currency: Option<String>,
}

/// The document values; a missing BGM or DTM+137 is a mapping error at UNH.
pub(super) fn document(drafts: &Drafts, ctx: &mut Context<'_>) -> Document {
    let segments = ctx.segments;
    let (mut invoice_number, mut type_code) = (None, None);
    match drafts.bgm.map(|i| &segments[i]) {
        Some(bgm) => {
            invoice_number = ctx.errors.keep(
                bgm.component(1, 0)
                    .map(str::to_owned)
                    .ok_or_else(|| error(MappingErrorKind::MissingDocumentNumber, bgm, 1, 0))
                    .map(Some),
            );
            type_code = ctx.errors.keep(
                bgm.component(0, 0)
                    .map(str::to_owned)
                    .ok_or_else(|| error(MappingErrorKind::MissingDocumentType, bgm, 0, 0))
                    .map(Some),
            );
            ctx.sources.insert("BT-1".to_owned(), bgm.position);
            ctx.sources.insert("BT-3".to_owned(), bgm.position);
        }
        None => ctx.missing("BGM"),
    }

    let issue_date = match drafts.issue_date.map(|i| &segments[i]) {
        Some(dtm) => {
            ctx.sources.insert("BT-2".to_owned(), dtm.position);
            ctx.errors.keep(date(dtm).map(Some))
        }
        None => {
            ctx.missing("DTM+137");
            None
        }
    };

    let currency = drafts.currency.map(|i| &segments[i]).and_then(|cux| {
        let code = cux
            .occurrences(0)
            .find_map(|c| c.get(1).filter(|v| !v.is_empty()))?;
        ctx.sources.insert("BT-5".to_owned(), cux.position);
        Some(code.to_owned())
    });
    Document {
        invoice_number,
        type_code,
        issue_date,
        currency,
    }
}

/// The business terms of a party: identifier, name, country and VAT identifier.
pub(super) type PartyKeys = [&'static str; 4];
pub(super) const SELLER: PartyKeys = ["BT-29", "BT-27", "BT-40", "BT-31"];
pub(super) const BUYER: PartyKeys = ["BT-46", "BT-44", "BT-55", "BT-48"];

/// The party of the first NAD group whose qualifier is one of `qualifiers` (tried in
/// order), located under `keys`; an empty party when there is none.
pub(super) fn party(
    nads: &[NadDraft],
    qualifiers: &[&str],
    keys: PartyKeys,
    ctx: &mut Context<'_>,
) -> Party {
    let segments = ctx.segments;
    let Some(draft) = qualifiers.iter().find_map(|q| {
        nads.iter()
            .find(|n| segments[n.nad].qualifier() == Some(*q))
    }) else {
        return Party::default();
    };
    ctx.used[draft.nad] = true;
    let nad = &segments[draft.nad];
    let vat = draft.vat.map(|v| &segments[v]);
    if let Some(v) = draft.vat {
        ctx.used[v] = true;
    }
    let p = build_party(nad, vat);
    let located = [
        (keys[0], p.id.is_some(), nad.position),
        (keys[1], p.name.is_some(), nad.position),
        (keys[2], p.country.is_some(), nad.position),
    ];
    for (key, present, position) in located {
        if present {
            ctx.sources.insert(key.to_owned(), position);
        }
    }
    if let Some(v) = vat.filter(|_| p.vat_id.is_some()) {
        ctx.sources.insert(keys[3].to_owned(), v.position);
    }
    p
}

/// A party from its NAD and the RFF+VA of its group.
fn build_party(nad: &Segment, vat: Option<&Segment>) -> Party {
    // 3055 = 9 is GS1, whose party identifiers are GLNs (ICD 0088). The CEN binding puts
    // the ICD itself in 1131.
    let scheme = match (nad.component(1, 2), nad.component(1, 1)) {
        (Some("9"), _) => Some("0088".to_owned()),
        (_, Some(icd)) if icd.len() == 4 && icd.bytes().all(|b| b.is_ascii_digit()) => {
            Some(icd.to_owned())
        }
        _ => None,
    };
    let name = non_empty_joined(nad.element(3).map(|c| c.iter()), " ").or_else(|| {
        // C058 is name-and-address lines; its first line is the name when C080 is empty.
        nad.element(2)
            .and_then(|lines| lines.iter().find(|l| !l.is_empty()))
            .map(str::to_owned)
    });
    Party {
        id: nad.component(1, 0).map(str::to_owned),
        scheme,
        name,
        vat_id: vat.and_then(|v| v.component(0, 1)).map(str::to_owned),
        country: nad.component(8, 0).map(str::to_owned),
    }
}
