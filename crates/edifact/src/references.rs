//! What a partner's acknowledgement can name of an interchange the hub sends: UNB's
//! control reference and sender (a CONTRL's UCI repeats them) and each message's
//! document number, BGM 1004 (an APERAK's RFF repeats it: EANCOM APERAK, segment
//! group 1, "the same number as in the BGM segment of the message being acknowledged").

use crate::envelope::segments;
use crate::segment::Segment;

/// The references of one interchange, read by [`read`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterchangeReferences {
    /// UNB 0020.
    pub control_reference: String,
    /// UNB S002/0004.
    pub sender_id: String,
    /// BGM 1004 of every message that has one, in order, without repeats.
    pub document_numbers: Vec<String>,
}

/// The references of `input`, or `None` when it is not an EDIFACT interchange the
/// tokenizer reads to the end (another format, a syntax 4 package, a broken file): an
/// acknowledgement cannot name what the hub could not read either.
pub fn read(input: &[u8]) -> Option<InterchangeReferences> {
    let (_, segments) = segments(input).ok()?;
    let unb = segments.iter().find(|segment| segment.tag == "UNB")?;
    let mut references = InterchangeReferences {
        control_reference: unb.component(4, 0)?.to_owned(),
        sender_id: unb.component(1, 0)?.to_owned(),
        document_numbers: Vec::new(),
    };
    for number in segments
        .iter()
        .filter_map(|segment| document_number(&segment))
    {
        if !references.document_numbers.iter().any(|n| n == number) {
            references.document_numbers.push(number.to_owned());
        }
    }
    Some(references)
}

/// BGM 1004: a simple element up to D.96A, C106/1004 after; its first component either
/// way.
fn document_number<'a>(segment: &Segment<'a>) -> Option<&'a str> {
    (segment.tag == "BGM")
        .then(|| segment.component(1, 0))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    const INVOIC: &[u8] = include_bytes!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

    #[test]
    fn an_invoic_names_its_unb_reference_sender_and_invoice_number() {
        let references = read(INVOIC).expect("an interchange");
        let header = crate::InterchangeHeader::peek(INVOIC).unwrap();
        assert_eq!(references.control_reference, header.control_reference);
        assert_eq!(references.sender_id, header.sender_id);
        let report = crate::check::evaluate(INVOIC);
        let numbers: Vec<&str> = report
            .invoices
            .iter()
            .map(|i| i.invoice_number.as_str())
            .collect();
        assert_eq!(references.document_numbers, numbers);
    }

    #[test]
    fn repeated_numbers_are_listed_once_and_messages_without_bgm_add_none() {
        let input = b"UNA:+.? 'UNB+UNOC:3+S+R+200101:1200+REF1'\
UNH+1+ORDERS:D:96A:UN'BGM+220+PO1+9'UNT+3+1'\
UNH+2+ORDERS:D:96A:UN'BGM+220+PO1+9'UNT+3+2'\
UNH+3+ORDERS:D:01B:UN'BGM+220:::Order+PO2::1+9'UNT+3+3'\
UNH+4+CONTRL:D:3:UN'UCI+X+S+R+7'UNT+3+4'UNZ+4+REF1'";
        let references = read(input).expect("an interchange");
        assert_eq!(references.control_reference, "REF1");
        assert_eq!(references.sender_id, "S");
        assert_eq!(references.document_numbers, ["PO1", "PO2"]);
    }

    #[test]
    fn what_is_not_an_interchange_names_nothing() {
        assert_eq!(read(b"<Invoice/>"), None);
        assert_eq!(read(b""), None);
        assert_eq!(read(b"UNA:+.? 'UNH+1+INVOIC:D:96A:UN'UNT+2+1'"), None);
    }
}
