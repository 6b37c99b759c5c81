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
    let mut signer = DetachedSigner::new(identity, alg, now_unix)?;
    signer.update(content)?;
    signer.finish()
}

/// A detached signature made over content given piece by piece, as `sign_detached`
/// makes it over the whole: for content too large to hold (an audit bundle's index).
pub struct DetachedSigner {
    cms: CmsContentInfo,
    /// The digest chain OpenSSL reads the content through (CMS_dataInit); owned here and
    /// freed once, by `finish` or on drop.
    content: *mut openssl_sys::BIO,
}

// SAFETY: the CMS structure and its BIO chain are owned by this value alone and never
// shared; OpenSSL objects are not tied to the thread that made them.
unsafe impl Send for DetachedSigner {}

const SIGN_FLAGS: CMSOptions = CMSOptions::PARTIAL
    .union(CMSOptions::DETACHED)
    .union(CMSOptions::BINARY);

fn signing_error(what: &str) -> As2Error {
    As2Error::Crypto(format!("signing failed: {what}"))
}

fn openssl_error() -> As2Error {
    signing_error(&openssl::error::ErrorStack::get().to_string())
}

impl DetachedSigner {
    /// A signer by `identity` with digest `alg`, whose signing time is `now_unix`.
    pub fn new(identity: &Identity, alg: MicAlg, now_unix: i64) -> Result<Self, As2Error> {
        use foreign_types::ForeignType as _;
        let cms = CmsContentInfo::sign::<Private>(None, None, None, None, SIGN_FLAGS)
            .map_err(|e| signing_error(&e.to_string()))?;
        let time = openssl::asn1::Asn1Time::from_unix(now_unix)
            .map_err(|e| signing_error(&e.to_string()))?;
        // SAFETY: every pointer comes from a live owned openssl value held until the end
        // of this function or by the returned signer; CMS_add1_signer takes its own
        // references to the certificate and key (the "1" in its name), the returned
        // SignerInfo is owned by `cms`, and the attribute value is copied by
        // CMS_signed_add1_attr_by_NID.
        unsafe {
            let si = ffi::CMS_add1_signer(
                cms.as_ptr(),
                identity.certificate.as_ptr(),
                identity.private_key.as_ptr(),
                message_digest(alg).as_ptr(),
                0,
            );
            if si.is_null() {
                return Err(openssl_error());
            }
            // NID_pkcs9_signingTime, V_ASN1_UTCTIME (RFC 5652 wants UTCTime before 2050).
            if ffi::CMS_signed_add1_attr_by_NID(si, 52, 23, time.as_ptr() as *const _, -1) != 1 {
                return Err(openssl_error());
            }
            let content = ffi::CMS_dataInit(cms.as_ptr(), std::ptr::null_mut());
            if content.is_null() {
                return Err(openssl_error());
            }
            Ok(DetachedSigner { cms, content })
        }
    }

    /// Adds `bytes` to the content signed.
    pub fn update(&mut self, bytes: &[u8]) -> Result<(), As2Error> {
        for chunk in bytes.chunks(1 << 30) {
            let len = std::os::raw::c_int::try_from(chunk.len())
                .map_err(|_| signing_error("chunk too large"))?;
            // SAFETY: `content` is the live BIO chain made by CMS_dataInit; BIO_write
            // reads `len` bytes of `chunk` and keeps no reference to them.
            let written =
                unsafe { openssl_sys::BIO_write(self.content, chunk.as_ptr() as *const _, len) };
            if written != len {
                return Err(openssl_error());
            }
        }
        Ok(())
    }

    /// The signature (DER) over everything given to `update`.
    pub fn finish(mut self) -> Result<Vec<u8>, As2Error> {
        use foreign_types::ForeignType as _;
        // SAFETY: `content` is the BIO chain of `cms` (CMS_dataInit); CMS_dataFinal reads
        // the digests from it, and it is freed by Drop right after.
        let done = unsafe {
            openssl_sys::BIO_ctrl(
                self.content,
                openssl_sys::BIO_CTRL_FLUSH,
                0,
                std::ptr::null_mut(),
            );
            ffi::CMS_dataFinal(self.cms.as_ptr(), self.content)
        };
        self.free_content();
        if done != 1 {
            return Err(openssl_error());
        }
        self.cms.to_der().map_err(|e| signing_error(&e.to_string()))
    }

    fn free_content(&mut self) {
        if !self.content.is_null() {
            // SAFETY: the chain is owned here and freed only once (the pointer is cleared).
            unsafe { openssl_sys::BIO_free_all(self.content) };
            self.content = std::ptr::null_mut();
        }
    }
}

impl Drop for DetachedSigner {
    fn drop(&mut self) {
        self.free_content();
    }
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
