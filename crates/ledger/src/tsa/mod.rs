//! RFC 3161 time-stamping of a segment's manifest: the request, the reading of the
//! response (status, token, TSTInfo imprint and nonce), the token's signature, and the
//! HTTP exchange with the authority (`client`).

mod client;
pub(crate) mod der;

pub(crate) use client::timestamp;

use der::{DerError, Reader};
use openssl::cms::{CMSOptions, CmsContentInfo};
use openssl::stack::Stack;
use openssl::x509::X509;
use openssl::x509::store::X509StoreBuilder;

/// id-sha256 (2.16.840.1.101.3.4.2.1), content octets.
const SHA256_OID: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01];
/// id-signedData (1.2.840.113549.1.7.2).
const SIGNED_DATA_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02];
/// id-ct-TSTInfo (1.2.840.113549.1.9.16.1.4).
const TST_INFO_OID: &[u8] = &[
    0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x04,
];

/// What is wrong with a timestamp response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TsaError {
    #[error("the response is not a TimeStampResp: {0}")]
    Der(#[from] DerError),
    #[error("the authority refused: PKIStatus {status}")]
    Refused { status: u8 },
    #[error("granted, but the response holds no token")]
    NoToken,
    #[error("the token is not SignedData over a TSTInfo")]
    NotTstInfo,
    #[error("the token's imprint is not SHA-256")]
    ImprintAlgorithm,
}

/// A granted response, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Granted {
    /// The TimeStampToken (ContentInfo), DER.
    pub token: Vec<u8>,
    /// TSTInfo's messageImprint.hashedMessage (SHA-256).
    pub imprint: Vec<u8>,
    /// TSTInfo's nonce, as INTEGER content octets.
    pub nonce: Option<Vec<u8>>,
}

/// A TimeStampReq over a SHA-256 `digest`, with `nonce` and certReq true.
pub(crate) fn request(digest: &[u8; 32], nonce: &[u8]) -> Vec<u8> {
    let mut body = der::tlv(der::INTEGER, &[1]);
    body.extend(message_imprint(digest));
    body.extend(der::unsigned_integer(nonce));
    body.extend(der::tlv(der::BOOLEAN, &[0xff]));
    der::tlv(der::SEQUENCE, &body)
}

fn message_imprint(digest: &[u8; 32]) -> Vec<u8> {
    let mut algorithm = der::tlv(der::OID, SHA256_OID);
    algorithm.extend(der::tlv(der::NULL, &[]));
    let mut imprint = der::tlv(der::SEQUENCE, &algorithm);
    imprint.extend(der::tlv(der::OCTET_STRING, digest));
    der::tlv(der::SEQUENCE, &imprint)
}

/// The content octets of the nonce INTEGER [`request`] writes for `nonce`.
pub(crate) fn nonce_content(nonce: &[u8]) -> Vec<u8> {
    der::single(&der::unsigned_integer(nonce), der::INTEGER, "nonce").unwrap_or_default()
}

/// Reads a TimeStampResp: granted (with or without modifications) and its token's
/// TSTInfo. The token's signature is [`verify_token`]'s business.
pub(crate) fn read_response(bytes: &[u8]) -> Result<Granted, TsaError> {
    let response = der::single(bytes, der::SEQUENCE, "TimeStampResp")?;
    let mut fields = Reader::new(&response);
    let mut status_info = Reader::new(fields.expect(der::SEQUENCE, "PKIStatusInfo")?);
    let status = status_info.expect(der::INTEGER, "PKIStatus")?;
    match status {
        [0] | [1] => {}
        [other] => return Err(TsaError::Refused { status: *other }),
        _ => return Err(TsaError::Refused { status: u8::MAX }),
    }
    let token_tag = fields.peek_tag().ok_or(TsaError::NoToken)?;
    let (_, token_content) = fields.any()?;
    if token_tag != der::SEQUENCE {
        return Err(TsaError::NotTstInfo);
    }
    let token = der::tlv(der::SEQUENCE, token_content);
    let (imprint, nonce) = read_tst_info(&tst_info(token_content)?)?;
    Ok(Granted {
        token,
        imprint,
        nonce,
    })
}

/// The TSTInfo DER inside a token's ContentInfo content.
fn tst_info(content_info: &[u8]) -> Result<Vec<u8>, TsaError> {
    let mut info = Reader::new(content_info);
    if info.expect(der::OID, "contentType")? != SIGNED_DATA_OID {
        return Err(TsaError::NotTstInfo);
    }
    let explicit = info.expect(der::CONTEXT_0, "content")?;
    let signed_data = der::single(explicit, der::SEQUENCE, "SignedData")?;
    let mut signed = Reader::new(&signed_data);
    signed.expect(der::INTEGER, "version")?;
    signed.expect(der::SET, "digestAlgorithms")?;
    let mut encap = Reader::new(signed.expect(der::SEQUENCE, "encapContentInfo")?);
    if encap.expect(der::OID, "eContentType")? != TST_INFO_OID {
        return Err(TsaError::NotTstInfo);
    }
    let econtent = encap.expect(der::CONTEXT_0, "eContent")?;
    Ok(der::single(econtent, der::OCTET_STRING, "eContent")?)
}

/// TSTInfo's imprint and nonce.
fn read_tst_info(bytes: &[u8]) -> Result<(Vec<u8>, Option<Vec<u8>>), TsaError> {
    let tst = der::single(bytes, der::SEQUENCE, "TSTInfo")?;
    let mut fields = Reader::new(&tst);
    fields.expect(der::INTEGER, "version")?;
    fields.expect(der::OID, "policy")?;
    let mut imprint = Reader::new(fields.expect(der::SEQUENCE, "messageImprint")?);
    let mut algorithm = Reader::new(imprint.expect(der::SEQUENCE, "hashAlgorithm")?);
    if algorithm.expect(der::OID, "algorithm")? != SHA256_OID {
        return Err(TsaError::ImprintAlgorithm);
    }
    let hashed = imprint.expect(der::OCTET_STRING, "hashedMessage")?.to_vec();
    fields.expect(der::INTEGER, "serialNumber")?;
    fields.expect(der::GENERALIZED_TIME, "genTime")?;
    fields.optional(der::SEQUENCE)?; // accuracy
    fields.optional(der::BOOLEAN)?; // ordering
    let nonce = fields.optional(der::INTEGER)?.map(<[u8]>::to_vec);
    Ok((hashed, nonce))
}

/// Verifies the token's CMS signature with `tsa_certificate` as the only signer (no
/// chain: the auditor decides whom to trust, as for the sealing certificate).
pub(crate) fn verify_token(token: &[u8], tsa_certificate: &X509) -> Result<(), String> {
    let mut cms = CmsContentInfo::from_der(token).map_err(|e| format!("not CMS: {e}"))?;
    let mut certificates = Stack::new().map_err(|e| e.to_string())?;
    certificates
        .push(tsa_certificate.clone())
        .map_err(|e| e.to_string())?;
    let store = X509StoreBuilder::new().map_err(|e| e.to_string())?.build();
    let flags = CMSOptions::NOINTERN | CMSOptions::NOVERIFY | CMSOptions::BINARY;
    cms.verify(Some(&certificates), Some(&store), None, None, flags)
        .map_err(|e| e.to_string())
}

/// A granted response around an unsigned token: enough to test the reading of
/// responses without an authority.
#[cfg(test)]
pub(crate) fn fake_response(digest: &[u8], nonce: &[u8]) -> Vec<u8> {
    let seq = |parts: &[Vec<u8>]| der::tlv(der::SEQUENCE, &parts.concat());
    let mut algorithm = der::tlv(der::OID, SHA256_OID);
    algorithm.extend(der::tlv(der::NULL, &[]));
    let imprint = seq(&[
        der::tlv(der::SEQUENCE, &algorithm),
        der::tlv(der::OCTET_STRING, digest),
    ]);
    let tst_info = seq(&[
        der::tlv(der::INTEGER, &[1]),
        der::tlv(der::OID, &[0x2a, 0x03]),
        imprint,
        der::tlv(der::INTEGER, &[1]),
        der::tlv(der::GENERALIZED_TIME, b"20261204000000Z"),
        der::unsigned_integer(nonce),
    ]);
    let econtent = der::tlv(der::CONTEXT_0, &der::tlv(der::OCTET_STRING, &tst_info));
    let encap = seq(&[der::tlv(der::OID, TST_INFO_OID), econtent]);
    let signed_data = seq(&[
        der::tlv(der::INTEGER, &[3]),
        der::tlv(der::SET, &[]),
        encap,
        der::tlv(der::SET, &[]),
    ]);
    let token = seq(&[
        der::tlv(der::OID, SIGNED_DATA_OID),
        der::tlv(der::CONTEXT_0, &signed_data),
    ]);
    seq(&[seq(&[der::tlv(der::INTEGER, &[0])]), token])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_the_rfc_3161_structure() {
        let bytes = request(&[9; 32], &[0x80, 1]);
        let body = der::single(&bytes, der::SEQUENCE, "TimeStampReq").expect("sequence");
        let mut fields = Reader::new(&body);
        assert_eq!(
            fields.expect(der::INTEGER, "version").expect("version"),
            [1]
        );
        let imprint = fields.expect(der::SEQUENCE, "imprint").expect("imprint");
        assert!(imprint.ends_with(&[9; 32]));
        assert_eq!(
            fields.expect(der::INTEGER, "nonce").expect("nonce"),
            [0, 0x80, 1]
        );
        assert_eq!(
            fields.expect(der::BOOLEAN, "certReq").expect("certReq"),
            [0xff]
        );
        assert!(fields.is_empty());
    }

    #[test]
    fn a_granted_response_gives_its_imprint_and_nonce() {
        let granted = read_response(&fake_response(&[7; 32], &[0x81, 2])).expect("reads");
        assert_eq!(granted.imprint, [7; 32]);
        assert_eq!(granted.nonce, Some(nonce_content(&[0x81, 2])));
        assert!(CmsContentInfo::from_der(&granted.token).is_ok());
    }

    #[test]
    fn a_refusal_and_a_truncation_are_errors() {
        let refused = der::tlv(
            der::SEQUENCE,
            &der::tlv(der::SEQUENCE, &der::tlv(der::INTEGER, &[2])),
        );
        assert_eq!(
            read_response(&refused),
            Err(TsaError::Refused { status: 2 })
        );
        let whole = fake_response(&[7; 32], &[1]);
        assert!(matches!(
            read_response(&whole[..whole.len() - 1]),
            Err(TsaError::Der(_))
        ));
    }
}
