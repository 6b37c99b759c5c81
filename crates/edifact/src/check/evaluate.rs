//! The evaluation itself: one streaming walk per interchange, each message mapped by
//! type as it closes, every fault and warning collected.

use super::warning::{charset_warning, warnings};
use super::{Cause, Fault, FaultClass, MessageOutput, MessageSummary, Options, Report, Warning};
use crate::charset::CharsetWarnings;
use crate::generic::GenericMessage;
use crate::invoic::{self, CanonicalInvoice};
use crate::received::{self, ReceivedAcknowledgement};
use crate::{Interchange, InterchangeHeader, Message, ParseErrorKind, SourcePosition};

/// [`evaluate_with`] with the default [`Options`] (tolerant charset policy).
pub fn evaluate(input: &[u8]) -> Report {
    evaluate_with(input, &Options::default())
}

/// Parses, validates and maps one interchange, collecting every fault and warning; the
/// report lists the invoices of the INVOIC messages that mapped.
///
/// When another interchange follows UNZ (concatenated files are a real partner mistake),
/// the "data after UNZ" fault is followed by the faults of the next interchange too, with
/// byte offsets into the whole input and segment numbers counted on from the first one,
/// so that the sender learns everything in one round trip.
pub fn evaluate_with(input: &[u8], options: &Options) -> Report {
    let mut invoices = Vec::new();
    let mut report = evaluate_all(input, options, &mut |_, mapped, _| {
        invoices.extend(mapped.invoice);
    });
    report.invoices = invoices;
    report
}

/// [`evaluate`] with bounded memory: each invoice goes to `on_invoice` as soon as its
/// message is mapped and the report lists none, so a large interchange is never held as
/// segments or invoices all at once (the input itself, one message, and a short summary
/// per message are). The report decides: an invoice handed out belongs to an accepted
/// interchange only if [`Report::must_reject`] is false at the end, so a caller publishes
/// nothing before then (the transform consumer writes them in a transaction it commits
/// or rolls back). Uses the default [`Options`]; messages of other types are checked but
/// not rendered.
pub fn evaluate_each(input: &[u8], on_invoice: &mut dyn FnMut(CanonicalInvoice)) -> Report {
    evaluate_all(input, &Options::default(), &mut |_, mapped, _| {
        if let Some(invoice) = mapped.invoice {
            on_invoice(invoice);
        }
    })
}

/// [`evaluate_each`] for messages of every type: each message goes to `on_message` as
/// soon as its UNT is read, as its generic rendering, with its canonical invoice (INVOIC)
/// or what it acknowledges (CONTRL, APERAK). Positions are in the whole input, as in the
/// report. The same rule holds: nothing handed out counts unless the report accepts.
pub fn evaluate_each_with(
    input: &[u8],
    options: &Options,
    on_message: &mut dyn FnMut(MessageOutput),
) -> Report {
    evaluate_all(input, options, &mut |message, mapped, base| {
        let mut generic = GenericMessage::of(message);
        generic.shift(base);
        on_message(MessageOutput {
            generic,
            invoice: mapped.invoice,
            acknowledgement: mapped.acknowledgement,
            warnings: shifted(mapped.warnings, base),
        });
    })
}

/// What one message mapped to, by type, and the charset warnings that go with it.
#[derive(Default)]
struct Mapped {
    invoice: Option<CanonicalInvoice>,
    acknowledgement: Option<ReceivedAcknowledgement>,
    warnings: Vec<Warning>,
}

/// Each message goes to `on_message` with what it mapped to and where its interchange
/// starts in `input` (positions in the message count from there).
type OnMessage<'a> = dyn FnMut(&Message, Mapped, SourcePosition) + 'a;

/// Every interchange of `input`: the first, and those after a "data after UNZ" fault.
fn evaluate_all(input: &[u8], options: &Options, on_message: &mut OnMessage<'_>) -> Report {
    let base = SourcePosition::default();
    let mut report = evaluate_one(input, options, &mut |m, mapped| on_message(m, mapped, base));
    let mut base = base;
    while let Some(next) = next_interchange(input, &report.faults, base) {
        let rest = evaluate_one(&input[next.offset..], options, &mut |m, mapped| {
            on_message(m, mapped, next)
        });
        append(&mut report, rest, next);
        base = next;
    }
    report
}

/// `p`, counted from the further interchange at `next`, in the whole input.
fn moved(p: SourcePosition, next: SourcePosition) -> SourcePosition {
    SourcePosition {
        segment: p.segment.saturating_add(next.segment.saturating_sub(1)),
        offset: p.offset + next.offset,
    }
}

/// `warnings`, found in the interchange at `base`, with positions in the whole input.
fn shifted(mut warnings: Vec<Warning>, base: SourcePosition) -> Vec<Warning> {
    if base != SourcePosition::default() {
        for w in &mut warnings {
            w.position = w.position.map(|p| moved(p, base));
            w.byte_offset = w.byte_offset.map(|o| o + base.offset);
        }
    }
    warnings
}

/// Adds the report of the further interchange at `next` to `report`, moving its positions
/// (which count from `next`) into the whole input.
fn append(report: &mut Report, rest: Report, next: SourcePosition) {
    let segment = |s: u32| s.saturating_add(next.segment.saturating_sub(1));
    let position = |p: SourcePosition| moved(p, next);
    report.faults.extend(rest.faults.into_iter().map(|mut f| {
        f.position = f.position.map(position);
        f
    }));
    report.warnings.extend(shifted(rest.warnings, next));
    report
        .messages
        .extend(rest.messages.into_iter().map(|mut m| {
            m.header = position(m.header);
            m.trailer_segment = segment(m.trailer_segment);
            m
        }));
    report.groups.extend(rest.groups.into_iter().map(|mut g| {
        g.header = position(g.header);
        g.trailer_segment = segment(g.trailer_segment);
        g
    }));
}

/// Where a further interchange starts, if the last fault is data after UNZ that looks
/// like one (UNA or UNB after stray terminators or blanks).
fn next_interchange(
    input: &[u8],
    faults: &[Fault],
    after: SourcePosition,
) -> Option<SourcePosition> {
    let last = faults.last()?;
    let position = last.position?;
    if last.cause != Cause::Syntax(ParseErrorKind::TrailingData) || position.offset <= after.offset
    {
        return None;
    }
    let skip = input[position.offset..]
        .iter()
        .position(|b| !matches!(b, b'\'' | b' ' | b'\r' | b'\n' | b'\t'))?;
    let start = position.offset + skip;
    matches!(input.get(start..start + 3), Some(b"UNA" | b"UNB")).then_some(SourcePosition {
        segment: position.segment,
        offset: start,
    })
}

fn syntax_fault(e: crate::ParseError) -> Fault {
    Fault {
        class: FaultClass::Syntax,
        message: e.kind.to_string(),
        message_reference: None,
        position: Some(e.position),
        element: e.element,
        cause: Cause::Syntax(e.kind),
    }
}

fn evaluate_one(
    input: &[u8],
    options: &Options,
    on_message: &mut dyn FnMut(&Message, Mapped),
) -> Report {
    let mark = crate::syntax::read_preamble(input)
        .map(|p| p.delimiters.decimal_mark)
        .unwrap_or(b'.');
    // Mapped as each message closes; its segments are dropped right after.
    let mut mapping_faults: Vec<Fault> = Vec::new();
    let mut messages: Vec<MessageSummary> = Vec::new();
    let mut found = CharsetWarnings::default();
    let mut handed_out = 0;
    let walked = Interchange::parse_streaming_with(
        input,
        options.charset,
        &mut found,
        &mut |message, so_far| {
            messages.push(MessageSummary::of(message, messages.last()));
            let mut mapped = map(message, mark, &mut mapping_faults);
            // New since the previous message: this one's, and those of the UNB or UNG
            // before it, so that each warning travels with exactly one message.
            let new = so_far.listed.get(handed_out..).unwrap_or_default();
            mapped.warnings = new.iter().map(|w| charset_warning(w, &messages)).collect();
            handed_out = so_far.listed.len();
            on_message(message, mapped);
        },
    );
    let (interchange, parse_faults) = match walked {
        Ok(walked) => walked,
        // Unreadable past some point: the syntax faults say why. Invoices mapped before
        // it were handed out already; the report rejects, so they go nowhere.
        Err(findings) => {
            return Report {
                header: InterchangeHeader::peek_with(input, options.charset).ok(),
                faults: findings.into_iter().map(syntax_fault).collect(),
                warnings: warnings(&found, &messages),
                invoices: Vec::new(),
                messages: Vec::new(),
                groups: Vec::new(),
            };
        }
    };
    let mut faults: Vec<Fault> = parse_faults.into_iter().map(syntax_fault).collect();
    faults.extend(mapping_faults);
    if messages.is_empty() {
        faults.push(Fault {
            class: FaultClass::Mapping,
            message: "the interchange holds no message".to_owned(),
            message_reference: None,
            position: None,
            element: None,
            cause: Cause::NoMessage,
        });
    }
    faults.sort_by_key(|f| f.position);
    Report {
        warnings: warnings(&found, &messages),
        messages,
        groups: interchange.groups,
        header: Some(interchange.header),
        faults,
        invoices: Vec::new(),
    }
}

/// Maps `message` by its type, adding what cannot be mapped to `faults`: INVOIC to the
/// canonical invoice, CONTRL and APERAK to what they acknowledge; any other type is
/// accepted on its syntax alone.
fn map(message: &Message, mark: u8, faults: &mut Vec<Fault>) -> Mapped {
    let unh = message.segments.first().map(|s| s.position);
    let fault = |class, message_text: String, position, element, cause| Fault {
        class,
        message: message_text,
        message_reference: Some(message.reference.clone()),
        position,
        element,
        cause,
    };
    if message.message_type == "INVOIC" {
        return match invoic::map_message(message, mark) {
            Ok(invoice) => Mapped {
                invoice: Some(invoice),
                ..Mapped::default()
            },
            Err(errors) => {
                faults.extend(errors.into_iter().map(|e| {
                    let position = e.position.or(unh);
                    let text = e.kind.to_string();
                    fault(
                        FaultClass::Mapping,
                        text,
                        position,
                        e.element,
                        Cause::Mapping(e.kind),
                    )
                }));
                Mapped::default()
            }
        };
    }
    match received::read(message) {
        Some(Ok(acknowledgement)) => Mapped {
            acknowledgement: Some(acknowledgement),
            ..Mapped::default()
        },
        Some(Err(e)) => {
            let text = e.kind.to_string();
            let cause = Cause::Acknowledgement(e.kind);
            faults.push(fault(
                FaultClass::Mapping,
                text,
                e.position.or(unh),
                e.element,
                cause,
            ));
            Mapped::default()
        }
        None => Mapped::default(),
    }
}
