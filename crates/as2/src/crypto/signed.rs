//! Detached signatures (RFC 5652 SignedData without content): ours, made with OpenSSL
//! and the caller's signing time, and the partner's, verified against pinned
//! certificates only.

use openssl::cms::{CMSOptions, CmsContentInfo};
use openssl::hash::MessageDigest;
use openssl::pkey::Private;
use openssl::stack::Stack;
use openssl::x509::X509;
use openssl::x509::store::X509StoreBuilder;

use super::{Identity, ffi, oid, pss, raw_der};
use crate::error::As2Error;
use crate::mic::MicAlg;

fn message_digest(alg: MicAlg) -> MessageDigest {
    match alg {
        MicAlg::Sha1 => MessageDigest::sha1(),
        MicAlg::Sha224 => MessageDigest::sha224(),
        MicAlg::Sha256 => MessageDigest::sha256(),
        MicAlg::Sha384 => MessageDigest::sha384(),
        MicAlg::Sha512 => MessageDigest::sha512(),
    }
}

/// A detached CMS signature (DER SignedData without content) over exactly `content`.
///
/// The digest is `alg`, the signature RSASSA-PKCS1-v1_5, the signer's certificate is
/// included, and the signed attributes carry `now_unix` as the signing time.
pub fn sign_detached(
    identity: &Identity,
    alg: MicAlg,
    content: &[u8],
    now_unix: i64,
) -> Result<Vec<u8>, As2Error> {
    use foreign_types::ForeignType as _;
    let err = |what: &str| As2Error::Crypto(format!("signing failed: {what}"));
    let flags = CMSOptions::PARTIAL | CMSOptions::DETACHED | CMSOptions::BINARY;
    let cms = CmsContentInfo::sign::<Private>(None, None, None, None, flags)
        .map_err(|e| err(&e.to_string()))?;
    let time = openssl::asn1::Asn1Time::from_unix(now_unix).map_err(|e| err(&e.to_string()))?;
    let len = std::os::raw::c_int::try_from(content.len()).map_err(|_| err("content too large"))?;
    // SAFETY: every pointer comes from a live owned openssl value held until the end of
    // this function; CMS_add1_signer takes its own references to the certificate and key
    // (the "1" in its name), the returned SignerInfo is owned by `cms`, and the attribute
    // value is copied by CMS_signed_add1_attr_by_NID.
    unsafe {
        let cms_ptr = cms.as_ptr();
        let si = ffi::CMS_add1_signer(
            cms_ptr,
            identity.certificate.as_ptr(),
            identity.private_key.as_ptr(),
            message_digest(alg).as_ptr(),
            0,
        );
        if si.is_null() {
            return Err(err(&openssl::error::ErrorStack::get().to_string()));
        }
        let asn1_time_ptr = time.as_ptr();
        // NID_pkcs9_signingTime, V_ASN1_UTCTIME (RFC 5652 wants UTCTime before 2050).
        if ffi::CMS_signed_add1_attr_by_NID(si, 52, 23, asn1_time_ptr as *const _, -1) != 1 {
            return Err(err(&openssl::error::ErrorStack::get().to_string()));
        }
        // A read-only memory BIO over `content`, freed right after use.
        let data = openssl_sys::BIO_new_mem_buf(content.as_ptr() as *const _, len);
        if data.is_null() {
            return Err(err(&openssl::error::ErrorStack::get().to_string()));
        }
        let done = ffi::CMS_final(cms_ptr, data, std::ptr::null_mut(), flags.bits());
        openssl_sys::BIO_free_all(data);
        if done != 1 {
            return Err(err(&openssl::error::ErrorStack::get().to_string()));
        }
    }
    cms.to_der().map_err(|e| err(&e.to_string()))
}

/// Why a signature was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// The signature is readable but none of the expected certificates made it: it was
    /// signed by someone else (authentication-failed).
    UnknownSigner(String),
    /// The signer is right but the content or signature does not check out, or the
    /// signature cannot be read (integrity-check-failed).
    Invalid(String),
}

/// Verifies a detached CMS signature over `content` against pinned certificates.
///
/// Only `certificates` are considered as signers (certificates inside the signature are
/// ignored) and no chain to a CA is built: the partner's certificate is trusted because it
/// is configured for that partner, not because someone issued it.
pub fn verify_detached(
    signature_der: &[u8],
    content: &[u8],
    certificates: &[X509],
) -> Result<(), VerifyError> {
    if let Some(digest) = unsupported_digest(signature_der) {
        return Err(VerifyError::Invalid(format!(
            "the signature names digest algorithm {digest}, which is not supported"
        )));
    }
    // The certificates a signature carries are never used (only `certificates` are), and
    // OpenSSL 3.0 spends more reading one than verifying the signature: each embedded
    // public key goes through its provider decoder, about 1.3 million instructions. So
    // OpenSSL is given the signature without them when it is plain DER.
    let stripped = raw_der::without_certificates(signature_der);
    let signature_der = stripped.as_deref().unwrap_or(signature_der);
    let mut outcome = verify_detached_as_is(signature_der, content, certificates);
    if outcome.is_err() {
        // Only a refused signature is looked at for missing PSS parameters: reading the
        // SignedData again costs a tenth of a verification, and almost every signature
        // verifies as it is.
        for completed in pss::complete_pss_parameters(signature_der, certificates) {
            outcome = verify_detached_as_is(&completed, content, certificates);
            if outcome.is_ok() {
                break;
            }
        }
    }
    outcome
}

/// A digest algorithm the signature's `digestAlgorithms` lists that OpenSSL does not
/// know, as a dotted OID. Such a signature never verifies, and OpenSSL 3.0's
/// `CMS_verify` loses memory on it (found by the `signature_der` fuzz target), so it is
/// refused before OpenSSL reads it.
fn unsupported_digest(signature_der: &[u8]) -> Option<String> {
    let unknown = raw_der::digest_algorithms(signature_der)?
        .into_iter()
        .find(|oid| !oid::is_known_digest(oid))?;
    Some(der::oid::ObjectIdentifier::from_bytes(unknown).map_or_else(
        |_| format!("(an undecodable OID, {} bytes)", unknown.len()),
        |oid| oid.to_string(),
    ))
}

pub(super) fn verify_detached_as_is(
    signature_der: &[u8],
    content: &[u8],
    certificates: &[X509],
) -> Result<(), VerifyError> {
    let mut cms = CmsContentInfo::from_der(signature_der)
        .map_err(|e| VerifyError::Invalid(format!("signature is not CMS: {e}")))?;
    let mut stack = Stack::new().map_err(|e| VerifyError::Invalid(e.to_string()))?;
    for cert in certificates {
        stack
            .push(cert.clone())
            .map_err(|e| VerifyError::Invalid(e.to_string()))?;
    }
    let store = X509StoreBuilder::new()
        .map_err(|e| VerifyError::Invalid(e.to_string()))?
        .build();
    let flags = CMSOptions::NOINTERN | CMSOptions::NOVERIFY | CMSOptions::BINARY;
    cms.verify(Some(&stack), Some(&store), Some(content), None, flags)
        .map_err(|e| {
            let text = e.to_string();
            let unknown = e.errors().iter().any(|r| {
                r.reason()
                    .is_some_and(|r| r.contains("signer certificate not found"))
            });
            if unknown {
                VerifyError::UnknownSigner(text)
            } else {
                VerifyError::Invalid(text)
            }
        })
}
