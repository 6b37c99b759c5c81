//! Syntax 4 packages (UNO..UNP, ISO 9735-8): an object of declared length between two
//! service segments, read as bytes rather than segments.

use super::Package;
use crate::error::{ParseError, ParseErrorKind};
use crate::segment::{Segment, Segments};
use crate::tokenizer::Tokenizer;

/// Reads the object after a UNO segment and the UNP that must follow it.
///
/// The object length is UNO's last data element (0810, length of object in octets), which
/// UNP repeats in its first element together with the package reference.
pub(super) fn read_package(
    tokenizer: &mut Tokenizer<'_>,
    uno: &Segment<'_>,
    trailer: &mut Segments,
) -> Result<Package, ParseError> {
    let invalid = |why| ParseError::new(ParseErrorKind::InvalidPackage(why), uno.position);
    let reference = uno
        .component(0, 0)
        .ok_or_else(|| invalid("UNO without reference"))?
        .to_owned();
    let length: usize = uno
        .element_count()
        .checked_sub(1)
        .and_then(|last| uno.component(last, 0))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| invalid("UNO without a numeric object length"))?;
    let object = tokenizer.take_object(length)?.to_vec();
    let not_unp = ParseErrorKind::InvalidPackage("object not followed by UNP (length wrong?)");
    trailer.clear();
    let unp = match tokenizer.next_segment(trailer) {
        Some(Ok(())) => trailer
            .last()
            .ok_or_else(|| ParseError::new(ParseErrorKind::Truncated, tokenizer.here()))?,
        // Bytes that do not even form a segment after the object: most likely the
        // declared length is wrong, which is the more useful diagnosis.
        Some(Err(e))
            if matches!(
                e.kind,
                ParseErrorKind::InvalidTag(_) | ParseErrorKind::EmptySegment
            ) =>
        {
            return Err(ParseError::new(not_unp, e.position));
        }
        Some(Err(e)) => return Err(e),
        None => return Err(ParseError::new(ParseErrorKind::Truncated, tokenizer.here())),
    };
    if unp.tag != "UNP" {
        return Err(ParseError::new(not_unp, unp.position));
    }
    let same_length = unp.component(0, 0).and_then(|v| v.parse::<usize>().ok()) == Some(length);
    if !same_length || unp.component(1, 0) != Some(reference.as_str()) {
        return Err(ParseError::new(
            ParseErrorKind::InvalidPackage("UNP does not repeat UNO's length and reference"),
            unp.position,
        ));
    }
    Ok(Package {
        reference,
        object,
        position: uno.position,
    })
}
