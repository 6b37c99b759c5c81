//! The walk over one INVOIC message.
//!
//! INVOIC has three sections: header (up to the first LIN), detail (LIN groups) and
//! summary (after UNS). The same tag means different things in each (a MOA+125 in the
//! summary is a document total, inside a summary TAX group it is the taxable amount of
//! one VAT rate), so the walk first records *which segment* plays each role, then builds
//! the canonical values. Recording indices rather than values keeps the source position
//! of everything at hand and lets the unmapped-segment list fall out for free.

use std::collections::BTreeMap;

use super::profile::{self, ProfileTable};
use super::values::{decimal, iso_date};
use super::{
    AllowanceCharge, CanonicalInvoice, Line, MappingError, MappingErrorKind, Party, Totals,
    VatBreakdown,
};
use crate::{Message, Segment, SourcePosition};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Header,
    Detail,
    Summary,
}

/// A header NAD and the RFF+VA of its group (indices into the message's segments).
struct NadDraft {
    nad: usize,
    vat: Option<usize>,
}

#[derive(Default)]
struct LineDraft {
    lin: usize,
    imd: Vec<usize>,
    qty: Option<usize>,
    moa: Option<usize>,
    pri: Option<usize>,
    alcs: Vec<AlcDraft>,
}

/// An ALC segment group: the ALC and the MOA, PCD and TAX segments of the group. MOAs
/// after the group's TAX belong to the TAX (its tax amount) and are not collected.
struct AlcDraft {
    alc: usize,
    moas: Vec<usize>,
    pcds: Vec<usize>,
    tax: Option<usize>,
}

impl AlcDraft {
    fn new(alc: usize) -> Self {
        Self {
            alc,
            moas: Vec::new(),
            pcds: Vec::new(),
            tax: None,
        }
    }

    /// Takes segment `i` (tag `tag`) into the group.
    fn take(&mut self, i: usize, tag: &str) {
        match tag {
            "MOA" if self.tax.is_none() => self.moas.push(i),
            "PCD" => self.pcds.push(i),
            "TAX" if self.tax.is_none() => self.tax = Some(i),
            _ => {}
        }
    }
}

struct VatDraft {
    tax: usize,
    taxable: Option<usize>,
    tax_amount: Option<usize>,
}

/// Segments that may follow NAD inside its segment group (INVOIC SG2..SG5). Any other tag
/// ends the group, so an RFF+VA further down is not attributed to the party.
const NAD_GROUP: &[&str] = &["NAD", "LOC", "FII", "RFF", "DTM", "DOC", "CTA", "COM"];

/// Segments that may follow ALC inside its segment group (ALI, DTM and the QTY, PCD, MOA,
/// RTE and TAX subgroups with their RNG and MOA). Any other tag ends the group.
const ALC_GROUP: &[&str] = &["ALI", "DTM", "QTY", "RNG", "PCD", "MOA", "RTE", "TAX"];

/// The business terms of one allowance or charge, by level and kind: amount, base amount,
/// percentage, VAT category, VAT rate, reason, reason code.
type AlcTerms = [Option<&'static str>; 7];
const DOCUMENT_ALLOWANCE: AlcTerms = [
    Some("BT-92"),
    Some("BT-93"),
    Some("BT-94"),
    Some("BT-95"),
    Some("BT-96"),
    Some("BT-97"),
    Some("BT-98"),
];
const DOCUMENT_CHARGE: AlcTerms = [
    Some("BT-99"),
    Some("BT-100"),
    Some("BT-101"),
    Some("BT-102"),
    Some("BT-103"),
    Some("BT-104"),
    Some("BT-105"),
];
const LINE_ALLOWANCE: AlcTerms = [
    Some("BT-136"),
    Some("BT-137"),
    Some("BT-138"),
    None,
    None,
    Some("BT-139"),
    Some("BT-140"),
];
const LINE_CHARGE: AlcTerms = [
    Some("BT-141"),
    Some("BT-142"),
    Some("BT-143"),
    None,
    None,
    Some("BT-144"),
    Some("BT-145"),
];

/// Mapping errors of one message, collected so that a rejection names all of them.
#[derive(Default)]
struct Errors(Vec<MappingError>);

impl Errors {
    /// The value of `result`, or `None` after recording its error.
    fn keep<T>(&mut self, result: Result<Option<T>, MappingError>) -> Option<T> {
        result.unwrap_or_else(|e| {
            self.0.push(e);
            None
        })
    }
}

/// Maps one INVOIC message; every defect found is returned, in segment order, rather than
/// only the first one.
pub(crate) fn map_message(
    message: &Message,
    mark: u8,
) -> Result<CanonicalInvoice, Vec<MappingError>> {
    let (profile_name, table) = profile::select(message);
    // Views, so that the walk's recorded indices can index them.
    let segments: Vec<Segment<'_>> = message.segments.iter().collect();
    let segments = segments.as_slice();
    let mut used = vec![false; segments.len()];

    let mut section = Section::Header;
    let mut bgm = None;
    let mut issue_date = None;
    let mut currency = None;
    let mut nads: Vec<NadDraft> = Vec::new();
    let mut open_nad: Option<usize> = None;
    let mut lines: Vec<LineDraft> = Vec::new();
    let mut vats: Vec<VatDraft> = Vec::new();
    let mut in_tax_group = false;
    let mut summary_moas: Vec<usize> = Vec::new();
    let mut document_alcs: Vec<AlcDraft> = Vec::new();
    // An ALC group is open (in the header: the last of `document_alcs`; in the detail
    // section: the last ALC of the last line; in the summary: one that is not mapped).
    let mut alc_open = false;

    for (i, segment) in segments.iter().enumerate() {
        let tag = segment.tag;
        let qualifier = segment.qualifier();
        if !NAD_GROUP.contains(&tag) {
            open_nad = None;
        }
        if !ALC_GROUP.contains(&tag) {
            alc_open = false;
        }
        if section == Section::Summary && tag != "MOA" {
            in_tax_group = false;
        }
        match (section, tag) {
            (_, "UNH" | "UNT") => used[i] = true,
            // UNS+D opens the detail section, UNS+S the summary section.
            (_, "UNS") => {
                section = if qualifier == Some("D") {
                    Section::Detail
                } else {
                    Section::Summary
                };
                used[i] = true;
            }
            // A LIN is always a line, even where a sender put UNS+S too early (seen in
            // generated BDEW skeletons): reading it as summary data would lose the line.
            (_, "LIN") => {
                section = Section::Detail;
                lines.push(LineDraft {
                    lin: i,
                    ..LineDraft::default()
                });
                used[i] = true;
            }
            // Header ALC groups are document level allowances and charges.
            (Section::Header, "ALC") => {
                document_alcs.push(AlcDraft::new(i));
                alc_open = true;
            }
            (Section::Header, _) if alc_open => {
                if let Some(alc) = document_alcs.last_mut() {
                    alc.take(i, tag);
                }
            }
            (Section::Header, "BGM") if bgm.is_none() => {
                bgm = Some(i);
                used[i] = true;
            }
            (Section::Header, "DTM") if issue_date.is_none() && qualifier == Some("137") => {
                issue_date = Some(i);
                used[i] = true;
            }
            (Section::Header, "CUX") if currency.is_none() => {
                currency = Some(i);
                used[i] = true;
            }
            (Section::Header, "NAD") => {
                nads.push(NadDraft { nad: i, vat: None });
                open_nad = Some(nads.len() - 1);
            }
            (Section::Header, "RFF") if qualifier == Some("VA") => {
                if let Some(nad) = open_nad.and_then(|n| nads.get_mut(n)) {
                    nad.vat.get_or_insert(i);
                }
            }
            // An ALC inside a LIN group is a line allowance or charge.
            (Section::Detail, "ALC") => {
                if let Some(line) = lines.last_mut() {
                    line.alcs.push(AlcDraft::new(i));
                    alc_open = true;
                }
            }
            (Section::Detail, _) if alc_open => {
                if let Some(alc) = lines.last_mut().and_then(|l| l.alcs.last_mut()) {
                    alc.take(i, tag);
                }
            }
            (Section::Detail, _) => {
                if let Some(line) = lines.last_mut() {
                    let slot = match (tag, qualifier) {
                        ("IMD", _) => {
                            line.imd.push(i);
                            used[i] = true;
                            None
                        }
                        // Prefer the invoiced quantity (47) over any other QTY.
                        ("QTY", Some("47"))
                            if line
                                .qty
                                .is_none_or(|q| segments[q].qualifier() != Some("47")) =>
                        {
                            Some(&mut line.qty)
                        }
                        ("QTY", _) if line.qty.is_none() => Some(&mut line.qty),
                        ("MOA", Some("203")) if line.moa.is_none() => Some(&mut line.moa),
                        ("PRI", Some("AAA")) if line.pri.is_none() => Some(&mut line.pri),
                        _ => None,
                    };
                    if let Some(slot) = slot {
                        if let Some(previous) = slot.replace(i) {
                            used[previous] = false;
                        }
                        used[i] = true;
                    }
                }
            }
            // Summary ALC groups restate allowance and charge amounts per type (EANCOM
            // SG50); their MOAs are not document totals. Left unmapped.
            (Section::Summary, "ALC") => alc_open = true,
            (Section::Summary, _) if alc_open => {}
            (Section::Summary, "TAX") if qualifier == Some("7") => {
                vats.push(VatDraft {
                    tax: i,
                    taxable: None,
                    tax_amount: None,
                });
                in_tax_group = true;
                used[i] = true;
            }
            (Section::Summary, "MOA") => {
                let vat = vats.last_mut().filter(|_| in_tax_group);
                let slot = match (vat, qualifier) {
                    (Some(v), Some("125")) if v.taxable.is_none() => Some(&mut v.taxable),
                    (Some(v), Some("124")) if v.tax_amount.is_none() => Some(&mut v.tax_amount),
                    _ => None,
                };
                match slot {
                    Some(slot) => {
                        *slot = Some(i);
                        used[i] = true;
                    }
                    None => summary_moas.push(i),
                }
            }
            _ => {}
        }
    }

    let unh_position = segments.first().map(|s| s.position);
    let missing = |what| MappingError {
        kind: MappingErrorKind::MissingSegment(what),
        position: unh_position,
        element: None,
    };
    let mut sources = Sources::default();
    let mut errors = Errors::default();

    let (mut invoice_number, mut type_code) = (None, None);
    match bgm.map(|i| &segments[i]) {
        Some(bgm) => {
            invoice_number = errors.keep(
                bgm.component(1, 0)
                    .map(str::to_owned)
                    .ok_or_else(|| error(MappingErrorKind::MissingDocumentNumber, bgm, 1, 0))
                    .map(Some),
            );
            type_code = errors.keep(
                bgm.component(0, 0)
                    .map(str::to_owned)
                    .ok_or_else(|| error(MappingErrorKind::MissingDocumentType, bgm, 0, 0))
                    .map(Some),
            );
            sources.insert("BT-1".to_owned(), bgm.position);
            sources.insert("BT-3".to_owned(), bgm.position);
        }
        None => errors.0.push(missing("BGM")),
    }

    let issue_date = match issue_date.map(|i| &segments[i]) {
        Some(dtm) => {
            sources.insert("BT-2".to_owned(), dtm.position);
            errors.keep(date(dtm).map(Some))
        }
        None => {
            errors.0.push(missing("DTM+137"));
            None
        }
    };

    let currency = currency.map(|i| &segments[i]).and_then(|cux| {
        let code = cux
            .occurrences(0)
            .find_map(|c| c.get(1).filter(|v| !v.is_empty()))?;
        sources.insert("BT-5".to_owned(), cux.position);
        Some(code.to_owned())
    });

    let mut party = |qualifiers: &[&str], keys: [&str; 4]| {
        let Some(draft) = qualifiers.iter().find_map(|q| {
            nads.iter()
                .find(|n| segments[n.nad].qualifier() == Some(*q))
        }) else {
            return Party::default();
        };
        used[draft.nad] = true;
        let nad = &segments[draft.nad];
        let vat = draft.vat.map(|v| &segments[v]);
        if let Some(v) = draft.vat {
            used[v] = true;
        }
        let p = build_party(nad, vat);
        let located = [
            (keys[0], p.id.is_some(), nad.position),
            (keys[1], p.name.is_some(), nad.position),
            (keys[2], p.country.is_some(), nad.position),
        ];
        for (key, present, position) in located {
            if present {
                sources.insert(key.to_owned(), position);
            }
        }
        if let Some(v) = vat.filter(|_| p.vat_id.is_some()) {
            sources.insert(keys[3].to_owned(), v.position);
        }
        p
    };
    let seller = party(table.seller, ["BT-29", "BT-27", "BT-40", "BT-31"]);
    let buyer = party(table.buyer, ["BT-46", "BT-44", "BT-55", "BT-48"]);

    let mut ctx = Context {
        segments,
        mark,
        table,
        sources: &mut sources,
        errors: &mut errors,
        used: &mut used,
    };
    let mut built_lines = Vec::with_capacity(lines.len());
    for (n, draft) in lines.iter().enumerate() {
        let mut line = build_line(n, draft, &mut ctx);
        (line.allowances, line.charges) = allowances_and_charges(
            &draft.alcs,
            &mut ctx,
            (&indexed_key("BG-25", n, "BG-27"), &LINE_ALLOWANCE),
            (&indexed_key("BG-25", n, "BG-28"), &LINE_CHARGE),
        );
        built_lines.push(line);
    }
    let lines = built_lines;
    let (allowances, charges) = allowances_and_charges(
        &document_alcs,
        &mut ctx,
        ("BG-20", &DOCUMENT_ALLOWANCE),
        ("BG-21", &DOCUMENT_CHARGE),
    );

    let mut vat_breakdown = Vec::with_capacity(vats.len());
    for (n, draft) in vats.iter().enumerate() {
        let tax = &segments[draft.tax];
        let key = |bt: &str| indexed_key("BG-23", n, bt);
        let rate = errors.keep(number(tax, 4, 3, mark));
        let taxable_amount = draft
            .taxable
            .and_then(|i| errors.keep(moa_amount(&segments[i], mark)));
        let tax_amount = draft
            .tax_amount
            .and_then(|i| errors.keep(moa_amount(&segments[i], mark)));
        sources.insert(key("BT-118"), tax.position);
        if let Some(i) = draft.taxable {
            sources.insert(key("BT-116"), segments[i].position);
        }
        if let Some(i) = draft.tax_amount {
            sources.insert(key("BT-117"), segments[i].position);
        }
        vat_breakdown.push(VatBreakdown {
            tax_type: tax.component(1, 0).map(str::to_owned),
            category: tax.component(5, 0).map(str::to_owned),
            rate,
            taxable_amount,
            tax_amount,
        });
    }

    let mut charge_total_is_net = false;
    let mut total = |qualifiers: &[&str], key: &str| -> Option<String> {
        let i = qualifiers.iter().find_map(|q| {
            summary_moas
                .iter()
                .copied()
                .find(|&i| segments[i].qualifier() == Some(*q))
        })?;
        used[i] = true;
        if key == "BT-108" {
            charge_total_is_net = segments[i]
                .qualifier()
                .is_some_and(|q| table.net_charge_total.contains(&q));
        }
        sources.insert(key.to_owned(), segments[i].position);
        errors.keep(moa_amount(&segments[i], mark))
    };
    let totals = totals(table, &mut total);

    let mut unmapped_segments: Vec<String> = Vec::new();
    for (segment, _) in segments.iter().zip(&used).filter(|(_, used)| !**used) {
        if !unmapped_segments.iter().any(|t| t == segment.tag) {
            unmapped_segments.push(segment.tag.to_owned());
        }
    }

    errors.0.sort_by_key(|e| e.position);
    let (Some(invoice_number), Some(type_code), Some(issue_date), true) =
        (invoice_number, type_code, issue_date, errors.0.is_empty())
    else {
        return Err(errors.0);
    };
    let mut invoice = CanonicalInvoice {
        message_reference: message.reference.clone(),
        profile: profile_name,
        invoice_number,
        issue_date,
        type_code,
        currency,
        seller,
        buyer,
        lines,
        vat_breakdown,
        allowances,
        charges,
        totals,
        sources: sources.into_map(),
        unmapped_segments,
        warnings: Vec::new(),
    };
    invoice.warnings = super::rules::check(&invoice, charge_total_is_net);
    Ok(invoice)
}

/// Source positions in the order they are found, sorted into the invoice's map once at
/// the end (cheaper than keeping a map sorted while it grows).
#[derive(Default)]
struct Sources(Vec<(String, SourcePosition)>);

impl Sources {
    fn insert(&mut self, key: String, position: SourcePosition) {
        self.0.push((key, position));
    }

    fn into_map(self) -> BTreeMap<String, SourcePosition> {
        // A key found twice keeps its last position, as repeated map inserts would.
        self.0.into_iter().collect()
    }
}

/// `{group}[{n}].{term}`, the key of a term of the n-th group instance.
fn indexed_key(group: &str, n: usize, term: &str) -> String {
    fn push_number(key: &mut String, n: usize) {
        if n >= 10 {
            push_number(key, n / 10);
        }
        key.push(char::from(b'0' + (n % 10) as u8));
    }
    let mut key = String::with_capacity(group.len() + term.len() + 6);
    key.push_str(group);
    key.push('[');
    push_number(&mut key, n);
    key.push_str("].");
    key.push_str(term);
    key
}

/// What building the canonical values needs besides the drafts.
struct Context<'a> {
    segments: &'a [Segment<'a>],
    mark: u8,
    table: &'a ProfileTable,
    sources: &'a mut Sources,
    errors: &'a mut Errors,
    used: &'a mut [bool],
}

/// The allowances and the charges of some ALC groups, with their source positions under
/// `allowance.0` and `charge.0` (e.g. `BG-20[0].BT-92`). Groups whose ALC 5463 is neither
/// `A` nor `C`, and line groups that are an item price discount, are left unmapped.
fn allowances_and_charges(
    drafts: &[AlcDraft],
    ctx: &mut Context<'_>,
    allowance: (&str, &AlcTerms),
    charge: (&str, &AlcTerms),
) -> (Vec<AllowanceCharge>, Vec<AllowanceCharge>) {
    let (mut allowances, mut charges) = (Vec::new(), Vec::new());
    for draft in drafts {
        let segments = ctx.segments;
        let alc = &segments[draft.alc];
        let is_charge = match alc.qualifier() {
            Some("A") => false,
            Some("C") => true,
            _ => continue,
        };
        let pick = |moas: &[usize], qualifiers: &[&str]| {
            qualifiers.iter().find_map(|q| {
                moas.iter()
                    .copied()
                    .find(|&i| segments[i].qualifier() == Some(*q))
            })
        };
        let amount = pick(&draft.moas, ctx.table.alc_amount);
        if amount.is_none() && pick(&draft.moas, ctx.table.price_discount).is_some() {
            continue;
        }
        let base = pick(&draft.moas, ctx.table.alc_base);
        let percentage = pick(&draft.pcds, ctx.table.alc_percentage);
        let (group, terms, list) = if is_charge {
            (charge.0, charge.1, &mut charges)
        } else {
            (allowance.0, allowance.1, &mut allowances)
        };
        let n = list.len();
        let mut locate = |term: Option<&str>, i: usize| {
            ctx.used[i] = true;
            if let Some(bt) = term {
                ctx.sources
                    .insert(indexed_key(group, n, bt), segments[i].position);
            }
        };
        locate(None, draft.alc);
        let mut value = AllowanceCharge::default();
        if let Some(i) = amount {
            locate(terms[0], i);
            value.amount = ctx.errors.keep(moa_amount(&segments[i], ctx.mark));
        }
        if let Some(i) = base {
            locate(terms[1], i);
            value.base_amount = ctx.errors.keep(moa_amount(&segments[i], ctx.mark));
        }
        if let Some(i) = percentage {
            locate(terms[2], i);
            value.percentage = ctx.errors.keep(number(&segments[i], 0, 1, ctx.mark));
        }
        if let Some(i) = draft.tax {
            let tax = &segments[i];
            value.vat_category = tax.component(5, 0).map(str::to_owned);
            value.vat_rate = ctx.errors.keep(number(tax, 4, 3, ctx.mark));
            if value.vat_category.is_some() {
                locate(terms[3], i);
            }
            if value.vat_rate.is_some() {
                locate(terms[4], i);
            }
            locate(None, i);
        }
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
        if value.reason.is_some() {
            locate(terms[5], draft.alc);
        }
        if value.reason_code.is_some() {
            locate(terms[6], draft.alc);
        }
        list.push(value);
    }
    (allowances, charges)
}

type TotalLookup<'a> = dyn FnMut(&[&str], &str) -> Option<String> + 'a;

fn totals(table: &ProfileTable, total: &mut TotalLookup<'_>) -> Totals {
    Totals {
        line_extension: total(table.line_extension, "BT-106"),
        allowance_total: total(table.allowance_total, "BT-107"),
        charge_total: total(table.charge_total, "BT-108"),
        tax_exclusive: total(table.tax_exclusive, "BT-109"),
        tax_total: total(table.tax_total, "BT-110"),
        tax_inclusive: total(table.tax_inclusive, "BT-112"),
        prepaid: total(table.prepaid, "BT-113"),
        rounding: total(table.rounding, "BT-114"),
        amount_due: total(table.amount_due, "BT-115"),
    }
}

/// A mapping error about component `component` of element `element` (0-based).
fn error(
    kind: MappingErrorKind,
    segment: &Segment,
    element: usize,
    component: usize,
) -> MappingError {
    MappingError {
        kind,
        position: Some(segment.position),
        element: Some(crate::ElementPosition::at(element, component)),
    }
}

fn date(dtm: &Segment) -> Result<String, MappingError> {
    let value = dtm.component(0, 1).unwrap_or_default();
    let format = dtm.component(0, 2);
    iso_date(value, format).ok_or_else(|| {
        error(
            MappingErrorKind::InvalidDate {
                value: value.to_owned(),
                format: format.unwrap_or_default().to_owned(),
            },
            dtm,
            0,
            1,
        )
    })
}

/// A numeric component, normalised; `None` if absent, an error if present but malformed.
fn number(
    segment: &Segment,
    element: usize,
    component: usize,
    mark: u8,
) -> Result<Option<String>, MappingError> {
    segment
        .component(element, component)
        .map(|v| {
            decimal(v, mark).ok_or_else(|| {
                error(
                    MappingErrorKind::InvalidAmount(v.to_owned()),
                    segment,
                    element,
                    component,
                )
            })
        })
        .transpose()
}

/// MOA C516 5004.
fn moa_amount(moa: &Segment, mark: u8) -> Result<Option<String>, MappingError> {
    number(moa, 0, 1, mark)
}

fn non_empty_joined<'a>(
    components: Option<impl Iterator<Item = &'a str>>,
    separator: &str,
) -> Option<String> {
    let mut joined: Option<String> = None;
    for part in components.into_iter().flatten().filter(|c| !c.is_empty()) {
        match joined.as_mut() {
            Some(text) => {
                text.push_str(separator);
                text.push_str(part);
            }
            None => joined = Some(part.to_owned()),
        }
    }
    joined
}

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

fn build_line(n: usize, draft: &LineDraft, ctx: &mut Context<'_>) -> Line {
    let (segments, mark) = (ctx.segments, ctx.mark);
    let sources = &mut *ctx.sources;
    let errors = &mut *ctx.errors;
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
