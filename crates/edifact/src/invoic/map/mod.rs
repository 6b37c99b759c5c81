//! The mapping of one INVOIC message to the canonical invoice.
//!
//! Two passes. The [`walk`] records *which segment* plays each role (indices per
//! section and segment group); then each section's values are built from those
//! segments: the document and parties ([`header`]), the lines ([`lines`]), the
//! allowances and charges ([`allowances`]), the VAT breakdown and totals
//! ([`summary`]). Recording indices rather than values keeps the source position of
//! everything at hand and lets the unmapped-segment list fall out for free.

mod allowances;
mod fields;
mod header;
mod lines;
mod summary;
mod walk;

use std::collections::BTreeMap;

use super::profile::{self, ProfileTable};
use super::{CanonicalInvoice, MappingError, MappingErrorKind};
use crate::{Message, Segment, SourcePosition};

/// Maps one INVOIC message; every defect found is returned, in segment order, rather than
/// only the first one.
pub(crate) fn map_message(
    message: &Message,
    mark: u8,
) -> Result<CanonicalInvoice, Vec<MappingError>> {
    let (profile_name, table) = profile::select(message);
    // Views, so that the walk's recorded indices can index them.
    let segments: Vec<Segment<'_>> = message.segments.iter().collect();
    let (drafts, used) = walk::walk(&segments);
    let mut ctx = Context {
        segments: &segments,
        mark,
        table,
        sources: Sources::default(),
        errors: Errors::default(),
        used,
    };

    let document = header::document(&drafts, &mut ctx);
    let seller = header::party(&drafts.nads, table.seller, header::SELLER, &mut ctx);
    let buyer = header::party(&drafts.nads, table.buyer, header::BUYER, &mut ctx);
    let lines = lines::lines(&drafts.lines, &mut ctx);
    let (allowances, charges) = allowances::allowances_and_charges(
        &drafts.document_alcs,
        &mut ctx,
        ("BG-20", &allowances::DOCUMENT_ALLOWANCE),
        ("BG-21", &allowances::DOCUMENT_CHARGE),
    );
    let vat_breakdown = summary::vat_breakdown(&drafts.vats, &mut ctx);
    let (totals, charge_total_is_net) = summary::totals(&drafts.summary_moas, &mut ctx);
    let unmapped_segments = ctx.unmapped_segments();

    let Context {
        sources,
        errors: Errors(mut errors),
        ..
    } = ctx;
    errors.sort_by_key(|e| e.position);
    let (Some(invoice_number), Some(type_code), Some(issue_date), true) = (
        document.invoice_number,
        document.type_code,
        document.issue_date,
        errors.is_empty(),
    ) else {
        return Err(errors);
    };
    let mut invoice = CanonicalInvoice {
        message_reference: message.reference.clone(),
        profile: profile_name,
        invoice_number,
        issue_date,
        type_code,
        currency: document.currency,
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

/// What building the canonical values needs besides the drafts, and what it collects.
struct Context<'a> {
    segments: &'a [Segment<'a>],
    mark: u8,
    table: &'a ProfileTable,
    sources: Sources,
    errors: Errors,
    /// Per segment: has it been mapped?
    used: Vec<bool>,
}

impl Context<'_> {
    /// Records that a mandatory segment is missing; the error is located at UNH, since
    /// the mapping does not know where the segment was expected.
    fn missing(&mut self, what: &'static str) {
        self.errors.0.push(MappingError {
            kind: MappingErrorKind::MissingSegment(what),
            position: self.segments.first().map(|s| s.position),
            element: None,
        });
    }

    /// The tags of the segments nothing was mapped from, each once, in input order.
    fn unmapped_segments(&self) -> Vec<String> {
        let mut unmapped: Vec<String> = Vec::new();
        for (segment, _) in self
            .segments
            .iter()
            .zip(&self.used)
            .filter(|(_, used)| !**used)
        {
            if !unmapped.iter().any(|t| t == segment.tag) {
                unmapped.push(segment.tag.to_owned());
            }
        }
        unmapped
    }
}

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
