//! The DER subset RFC 3161 needs here: definite lengths, single-byte tags. Hand-written
//! rather than a dependency: the request is five fixed fields and the response is walked
//! along one path (status, token, TSTInfo), so a small reader is easier to audit than
//! a generic ASN.1 stack, and it builds no extra crates.

pub(crate) const BOOLEAN: u8 = 0x01;
pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const NULL: u8 = 0x05;
pub(crate) const OID: u8 = 0x06;
pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const SET: u8 = 0x31;
pub(crate) const GENERALIZED_TIME: u8 = 0x18;
/// `[0]`, constructed (EXPLICIT tagging).
pub(crate) const CONTEXT_0: u8 = 0xa0;

/// Why bytes are not the DER expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DerError {
    #[error("truncated DER")]
    Truncated,
    #[error("DER length form not supported")]
    Length,
    #[error("expected {what} (tag {expected:#04x}), found tag {found:#04x}")]
    Unexpected {
        what: &'static str,
        expected: u8,
        found: u8,
    },
    #[error("{0} bytes left over after the DER value")]
    Trailing(usize),
}

/// Writes one TLV.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

/// A non-negative INTEGER from big-endian magnitude bytes, minimally encoded.
pub(crate) fn unsigned_integer(magnitude: &[u8]) -> Vec<u8> {
    let skip = magnitude.iter().take_while(|b| **b == 0).count();
    let trimmed = &magnitude[skip..];
    let mut content = Vec::with_capacity(trimmed.len() + 1);
    if trimmed.first().is_none_or(|b| b & 0x80 != 0) {
        content.push(0);
    }
    content.extend_from_slice(trimmed);
    tlv(INTEGER, &content)
}

/// Reads consecutive TLVs out of a value's content.
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { rest: bytes }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    pub(crate) fn peek_tag(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// The next TLV: its tag and content.
    pub(crate) fn any(&mut self) -> Result<(u8, &'a [u8]), DerError> {
        let (&tag, after) = self.rest.split_first().ok_or(DerError::Truncated)?;
        let (&first, after) = after.split_first().ok_or(DerError::Truncated)?;
        let (len, after) = if first < 0x80 {
            (usize::from(first), after)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || after.len() < n {
                return Err(DerError::Length);
            }
            let len = after[..n]
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            (len, &after[n..])
        };
        if after.len() < len {
            return Err(DerError::Truncated);
        }
        self.rest = &after[len..];
        Ok((tag, &after[..len]))
    }

    /// The next TLV's content, which must have `tag`.
    pub(crate) fn expect(&mut self, tag: u8, what: &'static str) -> Result<&'a [u8], DerError> {
        let (found, content) = self.any()?;
        if found != tag {
            return Err(DerError::Unexpected {
                what,
                expected: tag,
                found,
            });
        }
        Ok(content)
    }

    /// The next TLV's content when it has `tag`; nothing consumed otherwise.
    pub(crate) fn optional(&mut self, tag: u8) -> Result<Option<&'a [u8]>, DerError> {
        if self.peek_tag() == Some(tag) {
            return self.any().map(|(_, content)| Some(content));
        }
        Ok(None)
    }
}

/// The content of the single value `bytes` holds, which must have `tag`.
pub(crate) fn single(bytes: &[u8], tag: u8, what: &'static str) -> Result<Vec<u8>, DerError> {
    let mut reader = Reader::new(bytes);
    let content = reader.expect(tag, what)?;
    if !reader.is_empty() {
        return Err(DerError::Trailing(reader.rest.len()));
    }
    Ok(content.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_round_trip_short_and_long() {
        for len in [0usize, 1, 127, 128, 255, 256, 70_000] {
            let content = vec![7u8; len];
            let bytes = tlv(OCTET_STRING, &content);
            assert_eq!(single(&bytes, OCTET_STRING, "x").expect("reads"), content);
        }
    }

    #[test]
    fn integers_are_minimal_and_positive() {
        assert_eq!(unsigned_integer(&[0, 0, 5]), vec![INTEGER, 1, 5]);
        assert_eq!(unsigned_integer(&[0x80]), vec![INTEGER, 2, 0, 0x80]);
        assert_eq!(unsigned_integer(&[]), vec![INTEGER, 1, 0]);
    }

    #[test]
    fn truncation_and_wrong_tags_are_errors() {
        let bytes = tlv(SEQUENCE, &[1, 2, 3]);
        assert_eq!(single(&bytes[..4], SEQUENCE, "x"), Err(DerError::Truncated));
        assert!(matches!(
            single(&bytes, SET, "x"),
            Err(DerError::Unexpected {
                found: SEQUENCE,
                ..
            })
        ));
    }
}
