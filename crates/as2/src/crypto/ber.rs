//! A tolerant BER walker: just enough to find an algorithm identifier inside a CMS
//! structure as partners send it, definite or indefinite lengths (BouncyCastle streams
//! enveloped data with indefinite lengths), without decoding or copying anything.
//!
//! `raw_der` is the strict DER counterpart, for rewriting signatures byte for byte.

pub(super) const SEQUENCE: u8 = 0x30;
pub(super) const SET: u8 = 0x31;
pub(super) const OID: u8 = 0x06;
pub(super) const CONTEXT_0: u8 = 0xa0;
pub(super) const CONTEXT_1: u8 = 0xa1;

/// Nesting deeper than this is not CMS as anyone sends it (and bounds the recursion).
const MAX_DEPTH: usize = 32;

/// The tag, the length (`None`: indefinite) and what follows the header.
fn header(bytes: &[u8]) -> Option<(u8, Option<usize>, &[u8])> {
    let (&tag, rest) = bytes.split_first()?;
    if tag & 0x1f == 0x1f {
        return None;
    }
    let (&first, rest) = rest.split_first()?;
    if first == 0x80 {
        // Indefinite lengths exist for constructed elements only.
        return (tag & 0x20 != 0).then_some((tag, None, rest));
    }
    if first < 0x80 {
        return Some((tag, Some(usize::from(first)), rest));
    }
    let count = usize::from(first & 0x7f);
    if count > 4 || rest.len() < count {
        return None;
    }
    let (len_bytes, rest) = rest.split_at(count);
    let len = len_bytes
        .iter()
        .fold(0usize, |len, &byte| (len << 8) | usize::from(byte));
    (rest.len() >= len).then_some((tag, Some(len), rest))
}

/// The tag of the element at the front, if any (an end-of-contents marker is none).
pub(super) fn peek_tag(bytes: &[u8]) -> Option<u8> {
    bytes.first().copied().filter(|&tag| tag != 0)
}

/// The content of the element at the front when its tag is `tag`. For an indefinite
/// length that is everything after the header: its end is not searched for, since the
/// caller reads the children one by one and stops when it has what it wants.
pub(super) fn enter(bytes: &[u8], tag: u8) -> Option<&[u8]> {
    let (found, len, rest) = header(bytes)?;
    if found != tag {
        return None;
    }
    match len {
        Some(len) => rest.get(..len),
        None => Some(rest),
    }
}

/// What follows the element at the front.
pub(super) fn skip(bytes: &[u8]) -> Option<&[u8]> {
    skip_at(bytes, 0)
}

fn skip_at(bytes: &[u8], depth: usize) -> Option<&[u8]> {
    if depth > MAX_DEPTH {
        return None;
    }
    let (_, len, mut rest) = header(bytes)?;
    if let Some(len) = len {
        return rest.get(len..);
    }
    loop {
        if let Some(after) = rest.strip_prefix(&[0, 0]) {
            return Some(after);
        }
        rest = skip_at(rest, depth + 1)?;
    }
}

/// The children of a constructed element's content (as [`enter`] gives it), up to its
/// end or its end-of-contents marker.
pub(super) fn children(mut content: &[u8]) -> Option<Vec<&[u8]>> {
    let mut out = Vec::new();
    while peek_tag(content).is_some() {
        out.push(content);
        content = skip(content)?;
    }
    Some(out)
}

/// The content bytes of the OID at the front and what follows it.
pub(super) fn oid(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    Some((enter(bytes, OID)?, skip(bytes)?))
}

/// The algorithm OID of the AlgorithmIdentifier at the front.
pub(super) fn algorithm(bytes: &[u8]) -> Option<&[u8]> {
    Some(oid(enter(bytes, SEQUENCE)?)?.0)
}
