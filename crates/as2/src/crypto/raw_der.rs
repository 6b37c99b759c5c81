//! Hand-written DER, just what rewriting a signature needs: read one element, write a
//! tag and length, cut the certificates out of a SignedData, and encode RSASSA-PSS
//! parameters.
//!
//! The cut works on the bytes rather than decoding and re-encoding with the `der`/`cms`
//! crates so that every byte it keeps reaches OpenSSL exactly as the partner wrote it.
//! Anything that is not the plain DER expected gives `None`, and the caller then uses
//! the signature as it came. `docs/adr/0004-as2-mime-and-der.md` records the choice.

use super::oid::{OID_MGF1, OID_SIGNED_DATA};
use der::Encode as _;

/// One definite-length DER element at the front of `bytes`, and what follows it.
struct Element<'a> {
    tag: u8,
    /// Tag, length and content.
    whole: &'a [u8],
    content: &'a [u8],
}

/// Reads one DER element; `None` for a multi-byte tag, an indefinite (BER) or oversized
/// length, or truncated input.
fn read_element(bytes: &[u8]) -> Option<(Element<'_>, &[u8])> {
    let (&tag, rest) = bytes.split_first()?;
    if tag & 0x1f == 0x1f {
        return None;
    }
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        // 0x80 alone is BER's indefinite length; more than 4 length bytes is no signature.
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let (len_bytes, rest) = rest.split_at(count);
        let len = len_bytes
            .iter()
            .fold(0usize, |len, &byte| (len << 8) | usize::from(byte));
        (len, rest)
    };
    if rest.len() < len {
        return None;
    }
    let header = bytes.len() - rest.len();
    let element = Element {
        tag,
        whole: &bytes[..header + len],
        content: &rest[..len],
    };
    Some((element, &rest[len..]))
}

/// Appends a DER tag and definite length.
pub(super) fn push_header(out: &mut Vec<u8>, tag: u8, len: usize) {
    out.push(tag);
    if len < 0x80 {
        out.push(len as u8);
        return;
    }
    let bytes = len.to_be_bytes();
    let significant = &bytes[bytes.iter().take_while(|&&b| b == 0).count()..];
    out.push(0x80 | significant.len() as u8);
    out.extend_from_slice(significant);
}

const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;
const OID: u8 = 0x06;
// [0]: the ContentInfo's explicit content, and SignedData's implicit certificates.
const CONTEXT_0: u8 = 0xa0;

/// The `contentType` element and the SignedData's fields of a DER `ContentInfo` holding
/// `SignedData`; `None` when the input is not plain DER of that shape.
fn signed_data(signature_der: &[u8]) -> Option<(Element<'_>, &[u8])> {
    let (content_info, trailing) = read_element(signature_der)?;
    if content_info.tag != SEQUENCE || !trailing.is_empty() {
        return None;
    }
    let (content_type, rest) = read_element(content_info.content)?;
    if content_type.tag != OID || content_type.content != OID_SIGNED_DATA.as_bytes() {
        return None;
    }
    let (explicit, rest) = read_element(rest)?;
    if explicit.tag != CONTEXT_0 || !rest.is_empty() {
        return None;
    }
    let (signed_data, rest) = read_element(explicit.content)?;
    if signed_data.tag != SEQUENCE || !rest.is_empty() {
        return None;
    }
    Some((content_type, signed_data.content))
}

/// A DER `ContentInfo` holding `SignedData`, with the SignedData's `certificates` field
/// left out and every other byte as it was (the signature covers none of them). `None`
/// when there is nothing to remove or the input is not plain DER of that shape: the
/// caller then uses the signature as it came.
pub fn without_certificates(signature_der: &[u8]) -> Option<Vec<u8>> {
    let (content_type, mut rest) = signed_data(signature_der)?;
    let mut fields = Vec::with_capacity(rest.len());
    let mut removed = false;
    while !rest.is_empty() {
        let (field, next) = read_element(rest)?;
        if field.tag == CONTEXT_0 {
            removed = true;
        } else {
            fields.extend_from_slice(field.whole);
        }
        rest = next;
    }
    if !removed {
        return None;
    }
    let mut signed_data = Vec::with_capacity(fields.len() + 6);
    push_header(&mut signed_data, SEQUENCE, fields.len());
    signed_data.extend_from_slice(&fields);
    let mut body = Vec::with_capacity(signed_data.len() + content_type.whole.len() + 6);
    body.extend_from_slice(content_type.whole);
    push_header(&mut body, CONTEXT_0, signed_data.len());
    body.extend_from_slice(&signed_data);
    let mut out = Vec::with_capacity(body.len() + 6);
    push_header(&mut out, SEQUENCE, body.len());
    out.extend_from_slice(&body);
    Some(out)
}

/// The algorithm OIDs (each as its DER content bytes) of the SignedData's
/// `digestAlgorithms` set; `None` when the input is not plain DER of that shape.
pub(super) fn digest_algorithms(signature_der: &[u8]) -> Option<Vec<&[u8]>> {
    let (_, fields) = signed_data(signature_der)?;
    let (_version, rest) = read_element(fields)?;
    let (set, _) = read_element(rest)?;
    if set.tag != SET {
        return None;
    }
    let mut oids = Vec::new();
    let mut rest = set.content;
    while !rest.is_empty() {
        let (identifier, next) = read_element(rest)?;
        let (oid, _parameters) = read_element(identifier.content)?;
        if identifier.tag != SEQUENCE || oid.tag != OID {
            return None;
        }
        oids.push(oid.content);
        rest = next;
    }
    Some(oids)
}

/// One DER element: `tag`, the definite length of `content`, then `content`.
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 6);
    push_header(&mut out, tag, content.len());
    out.extend_from_slice(content);
    out
}

/// DER RSASSA-PSS-params: `digest` for the hash and MGF1, a salt of `salt` bytes, the
/// DEFAULT fields (SHA-1, MGF1 with SHA-1, salt 20) left out as DER requires.
pub(super) fn pss_parameters(
    digest: &spki::AlgorithmIdentifierOwned,
    salt: usize,
) -> Option<Vec<u8>> {
    let mut fields = Vec::new();
    if digest.oid.to_string() != "1.3.14.3.2.26" {
        let hash = spki::AlgorithmIdentifierOwned {
            oid: digest.oid,
            parameters: None,
        }
        .to_der()
        .ok()?;
        let mut mgf = OID_MGF1.to_der().ok()?;
        mgf.extend_from_slice(&hash);
        fields.extend(tlv(0xA0, &hash));
        fields.extend(tlv(0xA1, &tlv(0x30, &mgf)));
    }
    if salt != 20 {
        // A positive INTEGER: big-endian, minimal, with a 0 byte before a high bit.
        let bytes = (salt as u32).to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count().min(3);
        let mut integer = bytes[skip..].to_vec();
        if integer[0] & 0x80 != 0 {
            integer.insert(0, 0);
        }
        fields.extend(tlv(0xA2, &tlv(0x02, &integer)));
    }
    Some(tlv(0x30, &fields))
}
