//! The algorithms a partner's CMS structures name, read before any key is used: the
//! content-encryption algorithm of enveloped data (so a forbidden cipher costs no RSA
//! private-key operation) and the digest algorithms of a signature (checked before
//! verification).

use der::oid::ObjectIdentifier;

use super::Encryption;
use super::ber::{self, CONTEXT_0, CONTEXT_1, SEQUENCE, SET};
use super::oid::{OID_AUTH_ENVELOPED_DATA, OID_ENVELOPED_DATA, OID_SIGNED_DATA};
use crate::mic::MicAlg;

/// An algorithm a CMS structure names: one this crate knows, or another, as a dotted OID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Algorithm<T> {
    Known(T),
    Other(String),
}

const CIPHERS: [(&str, Encryption); 6] = [
    ("1.2.840.113549.3.7", Encryption::TripleDes),
    ("2.16.840.1.101.3.4.1.2", Encryption::Aes128Cbc),
    ("2.16.840.1.101.3.4.1.22", Encryption::Aes192Cbc),
    ("2.16.840.1.101.3.4.1.42", Encryption::Aes256Cbc),
    ("2.16.840.1.101.3.4.1.6", Encryption::Aes128Gcm),
    ("2.16.840.1.101.3.4.1.46", Encryption::Aes256Gcm),
];

const DIGESTS: [(&str, MicAlg); 5] = [
    ("1.3.14.3.2.26", MicAlg::Sha1),
    ("2.16.840.1.101.3.4.2.4", MicAlg::Sha224),
    ("2.16.840.1.101.3.4.2.1", MicAlg::Sha256),
    ("2.16.840.1.101.3.4.2.2", MicAlg::Sha384),
    ("2.16.840.1.101.3.4.2.3", MicAlg::Sha512),
];

fn lookup<T: Copy>(table: &[(&str, T)], oid: &[u8]) -> Algorithm<T> {
    let Ok(oid) = ObjectIdentifier::from_bytes(oid) else {
        return Algorithm::Other(format!("(an undecodable OID, {} bytes)", oid.len()));
    };
    let dotted = oid.to_string();
    table
        .iter()
        .find(|(known, _)| *known == dotted)
        .map_or(Algorithm::Other(dotted), |&(_, alg)| Algorithm::Known(alg))
}

/// The fields of the ContentInfo's explicit content when its content type is one of
/// `types`; the content itself is left unread.
fn content_fields<'a>(der: &'a [u8], types: &[ObjectIdentifier]) -> Option<&'a [u8]> {
    let (content_type, rest) = ber::oid(ber::enter(der, SEQUENCE)?)?;
    if !types.iter().any(|t| t.as_bytes() == content_type) {
        return None;
    }
    ber::enter(ber::enter(rest, CONTEXT_0)?, SEQUENCE)
}

/// The content-encryption algorithm of CMS enveloped-data (RFC 5652 section 6.1) or
/// authenticated-enveloped-data (RFC 5083); `None` when the input is neither.
pub fn content_encryption_algorithm(enveloped: &[u8]) -> Option<Algorithm<Encryption>> {
    let fields = content_fields(enveloped, &[OID_ENVELOPED_DATA, OID_AUTH_ENVELOPED_DATA])?;
    let mut rest = ber::skip(fields)?; // version
    if ber::peek_tag(rest) == Some(CONTEXT_0) {
        rest = ber::skip(rest)?; // originatorInfo
    }
    if ber::peek_tag(rest) != Some(SET) {
        return None;
    }
    let rest = ber::skip(rest)?; // recipientInfos
    let (_content_type, rest) = ber::oid(ber::enter(rest, SEQUENCE)?)?;
    Some(lookup(&CIPHERS, ber::algorithm(rest)?))
}

/// Every digest algorithm a CMS signed-data names, in its `digestAlgorithms` and in
/// each signer info (the one a signer actually uses), without repeats; `None` when the
/// input is not signed-data.
pub fn signature_digest_algorithms(signature: &[u8]) -> Option<Vec<Algorithm<MicAlg>>> {
    let fields = content_fields(signature, &[OID_SIGNED_DATA])?;
    let rest = ber::skip(fields)?; // version
    let mut oids: Vec<&[u8]> = Vec::new();
    for identifier in ber::children(ber::enter(rest, SET)?)? {
        oids.push(ber::algorithm(identifier)?);
    }
    let mut rest = ber::skip(ber::skip(rest)?)?; // digestAlgorithms, encapContentInfo
    for optional in [CONTEXT_0, CONTEXT_1] {
        if ber::peek_tag(rest) == Some(optional) {
            rest = ber::skip(rest)?; // certificates, crls
        }
    }
    for signer in ber::children(ber::enter(rest, SET)?)? {
        let signer_fields = ber::enter(signer, SEQUENCE)?;
        let digest = ber::skip(ber::skip(signer_fields)?)?; // version, sid
        oids.push(ber::algorithm(digest)?);
    }
    let mut algorithms: Vec<Algorithm<MicAlg>> = Vec::new();
    for oid in oids {
        let algorithm = lookup(&DIGESTS, oid);
        if !algorithms.contains(&algorithm) {
            algorithms.push(algorithm);
        }
    }
    Some(algorithms)
}

#[cfg(test)]
mod tests;
