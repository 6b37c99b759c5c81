//! The CMS primitives AS2 needs, on bytes: detached signatures, enveloped data and
//! compressed data (RFC 5652, RFC 3274/5402).
//!
//! OpenSSL does signing, verification, encryption and decryption. Compressed data is
//! read and written with RustCrypto's `cms` types and `flate2`, because Debian's OpenSSL is
//! built without zlib and its `CMS_compress`/`CMS_uncompress` fail there.
//!
//! Sans-IO still holds: no file is read (keys and certificates come in as PEM bytes) and
//! the signing time written into a signature is the caller's `now`, not OpenSSL's clock.

use std::io::Read as _;

use der::asn1::OctetString;
use der::{Any, Decode as _, Encode as _};
use openssl::cms::{CMSOptions, CmsContentInfo};
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::stack::Stack;
use openssl::symm::Cipher;
use openssl::x509::X509;
use openssl::x509::store::X509StoreBuilder;

use crate::error::As2Error;
use crate::mic::MicAlg;

/// `id-ct-compressedData` (RFC 3274).
const OID_COMPRESSED_DATA: der::oid::ObjectIdentifier =
    der::oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.1.9");
/// `id-alg-zlibCompress` (RFC 3274): the only compression algorithm defined for CMS.
const OID_ZLIB: der::oid::ObjectIdentifier =
    der::oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.3.8");
/// `id-data`.
const OID_DATA: der::oid::ObjectIdentifier =
    der::oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.1");

/// Our own identity: the certificate partners know us by and its private key. Used to
/// decrypt what partners encrypt to us and to sign MDNs and outgoing messages.
#[derive(Clone)]
pub struct Identity {
    pub certificate: X509,
    pub private_key: PKey<Private>,
}

impl std::fmt::Debug for Identity {
    /// Never prints the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("subject", &subject(&self.certificate))
            .finish_non_exhaustive()
    }
}

impl Identity {
    /// Reads a PEM certificate and an unencrypted PEM private key (PKCS#8 or traditional
    /// RSA).
    pub fn from_pem(certificate_pem: &[u8], private_key_pem: &[u8]) -> Result<Identity, As2Error> {
        Identity::from_pem_with_passphrase(certificate_pem, private_key_pem, None)
    }

    /// Like [`Identity::from_pem`], but an encrypted private key (PKCS#8 `ENCRYPTED
    /// PRIVATE KEY`, or a traditional key with `Proc-Type: 4,ENCRYPTED`) is decrypted
    /// with `passphrase`. An unencrypted key is read as it is, passphrase or not.
    pub fn from_pem_with_passphrase(
        certificate_pem: &[u8],
        private_key_pem: &[u8],
        passphrase: Option<&[u8]>,
    ) -> Result<Identity, As2Error> {
        let certificate = X509::from_pem(certificate_pem)
            .map_err(|e| As2Error::Crypto(format!("certificate: {e}")))?;
        let encrypted = is_encrypted_private_key_pem(private_key_pem);
        let private_key = match (encrypted, passphrase) {
            // Checked here: without a passphrase OpenSSL would ask for one on the
            // terminal.
            (true, None) => {
                return Err(As2Error::Crypto(
                    "private key: it is encrypted and no passphrase was given".into(),
                ));
            }
            (true, Some(passphrase)) => {
                PKey::private_key_from_pem_passphrase(private_key_pem, passphrase).map_err(|e| {
                    As2Error::Crypto(format!("private key: wrong passphrase or damaged: {e}"))
                })?
            }
            (false, _) => PKey::private_key_from_pem(private_key_pem)
                .map_err(|e| As2Error::Crypto(format!("private key: {e}")))?,
        };
        let matches = certificate
            .public_key()
            .map(|public| public.public_eq(&private_key))
            .unwrap_or(false);
        if !matches {
            return Err(As2Error::Crypto(
                "the private key does not belong to the certificate".into(),
            ));
        }
        Ok(Identity {
            certificate,
            private_key,
        })
    }

    /// The private key as PKCS#8 PEM: encrypted under `passphrase` when one is given
    /// (PBES2: PBKDF2 key derivation, AES-256-CBC), in the clear otherwise.
    pub fn private_key_pem(&self, passphrase: Option<&[u8]>) -> Result<Vec<u8>, As2Error> {
        match passphrase {
            Some(passphrase) => self
                .private_key
                .private_key_to_pem_pkcs8_passphrase(Cipher::aes_256_cbc(), passphrase),
            None => self.private_key.private_key_to_pem_pkcs8(),
        }
        .map_err(|e| As2Error::Crypto(format!("private key: {e}")))
    }
}

/// Whether a PEM private key is encrypted (PKCS#8 or traditional OpenSSL encryption).
pub fn is_encrypted_private_key_pem(pem: &[u8]) -> bool {
    let contains = |needle: &[u8]| pem.windows(needle.len()).any(|w| w == needle);
    contains(b"-----BEGIN ENCRYPTED PRIVATE KEY-----") || contains(b"Proc-Type: 4,ENCRYPTED")
}

/// Reads every certificate of a PEM bundle (a partner may have several during a
/// rollover). An empty bundle is an error.
pub fn certificates_from_pem(pem: &[u8]) -> Result<Vec<X509>, As2Error> {
    let certs =
        X509::stack_from_pem(pem).map_err(|e| As2Error::Crypto(format!("certificates: {e}")))?;
    if certs.is_empty() {
        return Err(As2Error::Crypto("no certificate in the PEM data".into()));
    }
    Ok(certs)
}

fn subject(cert: &X509) -> String {
    cert.subject_name()
        .entries()
        .filter_map(|e| e.data().to_string().ok())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Content encryption algorithms. The CBC ones make enveloped-data; the GCM ones make
/// authenticated-enveloped-data (RFC 5083/5084), which fewer AS2 stacks read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encryption {
    TripleDes,
    Aes128Cbc,
    Aes192Cbc,
    Aes256Cbc,
    Aes128Gcm,
    Aes256Gcm,
}

impl Encryption {
    pub const ALL: [Encryption; 6] = [
        Encryption::TripleDes,
        Encryption::Aes128Cbc,
        Encryption::Aes192Cbc,
        Encryption::Aes256Cbc,
        Encryption::Aes128Gcm,
        Encryption::Aes256Gcm,
    ];
    /// The ciphers every AS2 stack reads (enveloped-data).
    pub const CBC: [Encryption; 4] = [
        Encryption::TripleDes,
        Encryption::Aes128Cbc,
        Encryption::Aes192Cbc,
        Encryption::Aes256Cbc,
    ];

    /// Reads `3des`, `aes128`, `aes-128-cbc`, `tripledes_192_cbc` (pyas2lib's spelling) etc.
    pub fn parse(s: &str) -> Option<Encryption> {
        let s: String = s
            .to_ascii_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        match s.as_str() {
            "3des" | "des3" | "desede3cbc" | "tripledes" | "tripledes192cbc" => {
                Some(Encryption::TripleDes)
            }
            "aes128" | "aes128cbc" => Some(Encryption::Aes128Cbc),
            "aes192" | "aes192cbc" => Some(Encryption::Aes192Cbc),
            "aes256" | "aes256cbc" => Some(Encryption::Aes256Cbc),
            "aes128gcm" => Some(Encryption::Aes128Gcm),
            "aes256gcm" => Some(Encryption::Aes256Gcm),
            _ => None,
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Encryption::TripleDes => "3des",
            Encryption::Aes128Cbc => "aes128",
            Encryption::Aes192Cbc => "aes192",
            Encryption::Aes256Cbc => "aes256",
            Encryption::Aes128Gcm => "aes128-gcm",
            Encryption::Aes256Gcm => "aes256-gcm",
        }
    }

    /// The `smime-type` of the result (RFC 8551): `authEnveloped-data` for GCM.
    pub fn smime_type(&self) -> &'static str {
        match self {
            Encryption::Aes128Gcm | Encryption::Aes256Gcm => "authEnveloped-data",
            _ => "enveloped-data",
        }
    }

    fn cipher(&self) -> Cipher {
        match self {
            Encryption::TripleDes => Cipher::des_ede3_cbc(),
            Encryption::Aes128Cbc => Cipher::aes_128_cbc(),
            Encryption::Aes192Cbc => Cipher::aes_192_cbc(),
            Encryption::Aes256Cbc => Cipher::aes_256_cbc(),
            Encryption::Aes128Gcm => Cipher::aes_128_gcm(),
            Encryption::Aes256Gcm => Cipher::aes_256_gcm(),
        }
    }
}

fn message_digest(alg: MicAlg) -> MessageDigest {
    match alg {
        MicAlg::Sha1 => MessageDigest::sha1(),
        MicAlg::Sha224 => MessageDigest::sha224(),
        MicAlg::Sha256 => MessageDigest::sha256(),
        MicAlg::Sha384 => MessageDigest::sha384(),
        MicAlg::Sha512 => MessageDigest::sha512(),
    }
}

/// The CMS calls the `openssl` crate does not wrap: adding a signer with a chosen digest
/// and our own signing time. Declared here against the libcrypto that `openssl-sys`
/// already links.
mod ffi {
    use std::os::raw::{c_int, c_uint, c_void};

    unsafe extern "C" {
        pub fn CMS_add1_signer(
            cms: *mut openssl_sys::CMS_ContentInfo,
            signer: *mut openssl_sys::X509,
            pk: *mut openssl_sys::EVP_PKEY,
            md: *const openssl_sys::EVP_MD,
            flags: c_uint,
        ) -> *mut c_void;
        pub fn CMS_signed_add1_attr_by_NID(
            si: *mut c_void,
            nid: c_int,
            attr_type: c_int,
            bytes: *const c_void,
            len: c_int,
        ) -> c_int;
        pub fn CMS_final(
            cms: *mut openssl_sys::CMS_ContentInfo,
            data: *mut openssl_sys::BIO,
            dcont: *mut openssl_sys::BIO,
            flags: c_uint,
        ) -> c_int;
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
    // The certificates a signature carries are never used (only `certificates` are), and
    // OpenSSL 3.0 spends more reading one than verifying the signature: each embedded
    // public key goes through its provider decoder, about 1.3 million instructions. So
    // OpenSSL is given the signature without them when it is plain DER.
    let stripped = without_certificates(signature_der);
    let signature_der = stripped.as_deref().unwrap_or(signature_der);
    let mut outcome = verify_detached_as_is(signature_der, content, certificates);
    if outcome.is_err() {
        // Only a refused signature is looked at for missing PSS parameters: reading the
        // SignedData again costs a tenth of a verification, and almost every signature
        // verifies as it is.
        for completed in complete_pss_parameters(signature_der, certificates) {
            outcome = verify_detached_as_is(&completed, content, certificates);
            if outcome.is_ok() {
                break;
            }
        }
    }
    outcome
}

fn verify_detached_as_is(
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
fn push_header(out: &mut Vec<u8>, tag: u8, len: usize) {
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

/// A DER `ContentInfo` holding `SignedData`, with the SignedData's `certificates` field
/// left out and every other byte as it was (the signature covers none of them). `None`
/// when there is nothing to remove or the input is not plain DER of that shape: the
/// caller then uses the signature as it came.
fn without_certificates(signature_der: &[u8]) -> Option<Vec<u8>> {
    const SEQUENCE: u8 = 0x30;
    const OID: u8 = 0x06;
    // [0]: the ContentInfo's explicit content, and SignedData's implicit certificates.
    const CONTEXT_0: u8 = 0xa0;
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
    let mut fields = Vec::with_capacity(signed_data.content.len());
    let mut rest = signed_data.content;
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

const OID_SIGNED_DATA: der::oid::ObjectIdentifier =
    der::oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.2");
const OID_RSASSA_PSS: der::oid::ObjectIdentifier =
    der::oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");
const OID_MGF1: der::oid::ObjectIdentifier =
    der::oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.8");

/// Some senders (pyas2lib 1.4.4, through oscrypto) sign with RSASSA-PSS but write the
/// `rsassaPss` algorithm identifier without its parameters, which RFC 4055 requires and
/// OpenSSL insists on. The hash they mean is the signer info's digest, for MGF1 too; the
/// salt is the longest the key allows (oscrypto on OpenSSL 3) or as long as the digest
/// (the RFC 4055 recommendation), so both are offered. Returns the signature with the
/// parameters written in, one variant per salt length, or nothing when there is nothing
/// to complete. The signature algorithm is not covered by the signature, so nothing
/// signed changes and a wrong guess simply fails verification.
fn complete_pss_parameters(signature_der: &[u8], certificates: &[X509]) -> Vec<Vec<u8>> {
    let Some((signed, digest)) = pss_without_parameters(signature_der) else {
        return Vec::new();
    };
    let Some(digest_len) = digest_length(&digest.oid) else {
        return Vec::new();
    };
    let mut salts: Vec<usize> = certificates
        .iter()
        .filter_map(|cert| cert.public_key().ok()?.rsa().ok())
        .map(|rsa| {
            // emLen = ceil((modBits - 1) / 8); the longest salt is emLen - hLen - 2.
            let em_len = (rsa.n().num_bits() as usize - 1).div_ceil(8);
            em_len.saturating_sub(digest_len + 2)
        })
        .collect();
    salts.push(digest_len);
    salts.sort_unstable();
    salts.dedup();
    salts
        .into_iter()
        .filter_map(|salt| with_pss_parameters(&signed, &digest, salt))
        .collect()
}

/// The SignedData and the PSS signer's digest, when a signer info uses RSASSA-PSS with
/// absent (or NULL) parameters.
fn pss_without_parameters(
    signature_der: &[u8],
) -> Option<(cms::signed_data::SignedData, spki::AlgorithmIdentifierOwned)> {
    let info = cms::content_info::ContentInfo::from_der(signature_der).ok()?;
    if info.content_type != OID_SIGNED_DATA {
        return None;
    }
    let signed: cms::signed_data::SignedData = info.content.decode_as().ok()?;
    let digest = signed.signer_infos.0.iter().find_map(|signer| {
        let algorithm = &signer.signature_algorithm;
        let absent = algorithm
            .parameters
            .as_ref()
            .is_none_or(|p| der::Tagged::tag(p) == der::Tag::Null);
        (algorithm.oid == OID_RSASSA_PSS && absent).then(|| signer.digest_alg.clone())
    })?;
    Some((signed, digest))
}

fn with_pss_parameters(
    signed: &cms::signed_data::SignedData,
    digest: &spki::AlgorithmIdentifierOwned,
    salt: usize,
) -> Option<Vec<u8>> {
    let params = Any::from_der(&pss_parameters(digest, salt)?).ok()?;
    let mut signed = signed.clone();
    let mut signers: Vec<cms::signed_data::SignerInfo> =
        signed.signer_infos.0.iter().cloned().collect();
    for signer in &mut signers {
        if signer.signature_algorithm.oid == OID_RSASSA_PSS {
            signer.signature_algorithm.parameters = Some(params.clone());
        }
    }
    signed.signer_infos = cms::signed_data::SignerInfos(signers.try_into().ok()?);
    cms::content_info::ContentInfo {
        content_type: OID_SIGNED_DATA,
        content: Any::encode_from(&signed).ok()?,
    }
    .to_der()
    .ok()
}

fn digest_length(oid: &der::oid::ObjectIdentifier) -> Option<usize> {
    Some(match oid.to_string().as_str() {
        "1.3.14.3.2.26" => 20,
        "2.16.840.1.101.3.4.2.4" => 28,
        "2.16.840.1.101.3.4.2.1" => 32,
        "2.16.840.1.101.3.4.2.2" => 48,
        "2.16.840.1.101.3.4.2.3" => 64,
        _ => return None,
    })
}

/// DER RSASSA-PSS-params: `digest` for the hash and MGF1, a salt of `salt` bytes, the
/// DEFAULT fields (SHA-1, MGF1 with SHA-1, salt 20) left out as DER requires.
fn pss_parameters(digest: &spki::AlgorithmIdentifierOwned, salt: usize) -> Option<Vec<u8>> {
    fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        let len = content.len();
        if len < 0x80 {
            out.push(len as u8);
        } else {
            let bytes = len.to_be_bytes();
            let skip = bytes.iter().take_while(|&&b| b == 0).count();
            out.push(0x80 | (bytes.len() - skip) as u8);
            out.extend_from_slice(&bytes[skip..]);
        }
        out.extend_from_slice(content);
        out
    }
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

/// Encrypts `content` (a MIME entity) to `recipient` as DER enveloped-data, with RSA
/// PKCS#1 v1.5 key transport.
pub fn encrypt(
    recipient: &X509,
    encryption: Encryption,
    content: &[u8],
) -> Result<Vec<u8>, As2Error> {
    let mut stack = Stack::new().map_err(|e| As2Error::Crypto(e.to_string()))?;
    stack
        .push(recipient.clone())
        .map_err(|e| As2Error::Crypto(e.to_string()))?;
    let cms = CmsContentInfo::encrypt(&stack, content, encryption.cipher(), CMSOptions::BINARY)
        .map_err(|e| As2Error::Crypto(format!("encryption failed: {e}")))?;
    cms.to_der()
        .map_err(|e| As2Error::Crypto(format!("encryption failed: {e}")))
}

/// Decrypts DER enveloped-data addressed to `identity`. The error text is for operators;
/// the partner only learns "decryption-failed".
pub fn decrypt(identity: &Identity, enveloped_der: &[u8]) -> Result<Vec<u8>, String> {
    let cms =
        CmsContentInfo::from_der(enveloped_der).map_err(|e| format!("not a CMS structure: {e}"))?;
    cms.decrypt(&identity.private_key, &identity.certificate)
        .map_err(|e| format!("cannot decrypt for our certificate: {e}"))
}

/// Wraps `content` in CMS compressed-data (zlib), DER.
pub fn compress(content: &[u8]) -> Result<Vec<u8>, As2Error> {
    use std::io::Write as _;
    let crypto = |e: &dyn std::fmt::Display| As2Error::Crypto(format!("compression failed: {e}"));
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(content).map_err(|e| crypto(&e))?;
    let deflated = encoder.finish().map_err(|e| crypto(&e))?;
    let econtent = Any::encode_from(&OctetString::new(deflated).map_err(|e| crypto(&e))?)
        .map_err(|e| crypto(&e))?;
    let compressed = cms::compressed_data::CompressedData {
        version: cms::content_info::CmsVersion::V0,
        compression_alg: spki::AlgorithmIdentifierOwned {
            oid: OID_ZLIB,
            parameters: None,
        },
        encap_content_info: cms::signed_data::EncapsulatedContentInfo {
            econtent_type: OID_DATA,
            econtent: Some(econtent),
        },
    };
    let info = cms::content_info::ContentInfo {
        content_type: OID_COMPRESSED_DATA,
        content: Any::encode_from(&compressed).map_err(|e| crypto(&e))?,
    };
    info.to_der().map_err(|e| crypto(&e))
}

/// Why compressed data could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecompressError {
    /// Not compressed-data, not zlib, or corrupt.
    Malformed(String),
    /// Expanding would exceed the caller's limit (a decompression bomb, or simply too big).
    TooLarge { limit: usize },
}

/// Reads CMS compressed-data (DER) and inflates it, refusing to produce more than `limit`
/// bytes.
pub fn decompress(compressed_der: &[u8], limit: usize) -> Result<Vec<u8>, DecompressError> {
    let malformed = |e: &dyn std::fmt::Display| DecompressError::Malformed(e.to_string());
    let info =
        cms::content_info::ContentInfo::from_der(compressed_der).map_err(|e| malformed(&e))?;
    if info.content_type != OID_COMPRESSED_DATA {
        return Err(DecompressError::Malformed(format!(
            "content type {} is not compressed-data",
            info.content_type
        )));
    }
    let compressed: cms::compressed_data::CompressedData =
        info.content.decode_as().map_err(|e| malformed(&e))?;
    if compressed.compression_alg.oid != OID_ZLIB {
        return Err(DecompressError::Malformed(format!(
            "compression algorithm {} is not zlib",
            compressed.compression_alg.oid
        )));
    }
    let econtent = compressed
        .encap_content_info
        .econtent
        .ok_or_else(|| DecompressError::Malformed("no compressed content".into()))?;
    let octets: OctetString = econtent.decode_as().map_err(|e| malformed(&e))?;
    let mut out = Vec::new();
    // One byte past the limit tells "exactly at the limit" from "over it".
    flate2::read::ZlibDecoder::new(octets.as_bytes())
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| malformed(&e))?;
    if out.len() > limit {
        return Err(DecompressError::TooLarge { limit });
    }
    Ok(out)
}

/// Whether `der` is a CMS ContentInfo of type compressed-data (for a pkcs7-mime body
/// that does not say its smime-type).
pub fn is_compressed_data(der: &[u8]) -> bool {
    cms::content_info::ContentInfo::from_der(der)
        .is_ok_and(|info| info.content_type == OID_COMPRESSED_DATA)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn algorithm(oid: &str) -> spki::AlgorithmIdentifierOwned {
        spki::AlgorithmIdentifierOwned {
            oid: der::oid::ObjectIdentifier::new_unwrap(oid),
            parameters: None,
        }
    }

    const HUB_CRT: &[u8] = include_bytes!("../../../fixtures/as2/hub.crt");
    const HUB_KEY: &[u8] = include_bytes!("../../../fixtures/as2/hub.key");
    const A_CRT: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.crt");

    fn signed_data(der: &[u8]) -> cms::signed_data::SignedData {
        let info = cms::content_info::ContentInfo::from_der(der).unwrap();
        info.content.decode_as().unwrap()
    }

    #[test]
    fn certificates_are_cut_out_of_a_signature_and_nothing_else_changes() {
        let hub = Identity::from_pem(HUB_CRT, HUB_KEY).unwrap();
        let signature = sign_detached(&hub, MicAlg::Sha256, b"content\r\n", 1_780_000_000).unwrap();
        let stripped = without_certificates(&signature).unwrap();
        // The hub's certificate is about 800 bytes of DER.
        assert!(stripped.len() + 500 < signature.len());
        let (before, after) = (signed_data(&signature), signed_data(&stripped));
        assert!(before.certificates.is_some());
        assert_eq!(after.certificates, None);
        assert_eq!(after.signer_infos, before.signer_infos);
        assert_eq!(after.encap_content_info, before.encap_content_info);
        assert_eq!(after.digest_algorithms, before.digest_algorithms);
        // Nothing left to cut: the caller keeps what it has.
        assert_eq!(without_certificates(&stripped), None);

        // Verification is unchanged: by the pinned certificate, and not by another.
        let partner = X509::from_pem(A_CRT).unwrap();
        let pinned = [hub.certificate.clone()];
        assert_eq!(verify_detached(&signature, b"content\r\n", &pinned), Ok(()));
        assert_eq!(
            verify_detached_as_is(&stripped, b"content\r\n", &pinned),
            Ok(())
        );
        assert!(matches!(
            verify_detached_as_is(&stripped, b"content\r\n", &[partner]),
            Err(VerifyError::UnknownSigner(_))
        ));
        assert!(matches!(
            verify_detached_as_is(&stripped, b"altered\r\n", &pinned),
            Err(VerifyError::Invalid(_))
        ));
    }

    #[test]
    fn a_real_peers_signature_is_cut_too() {
        // pyas2lib 1.4.4 (oscrypto) signed this one; it carries the signer's certificate.
        let signature = include_bytes!("../../../fixtures/as2/pss-signature.der");
        let stripped = without_certificates(signature).unwrap();
        assert!(signed_data(signature).certificates.is_some());
        assert_eq!(signed_data(&stripped).certificates, None);
        assert_eq!(
            signed_data(&stripped).signer_infos,
            signed_data(signature).signer_infos
        );
    }

    #[test]
    fn signatures_that_are_not_plain_der_are_left_alone() {
        let hub = Identity::from_pem(HUB_CRT, HUB_KEY).unwrap();
        let signature = sign_detached(&hub, MicAlg::Sha256, b"x", 1_780_000_000).unwrap();
        // Every truncation, trailing bytes, and BER's indefinite length.
        for len in 0..signature.len() {
            assert_eq!(without_certificates(&signature[..len]), None, "{len}");
        }
        // Any single corrupted byte: an answer, never a panic (the input is a partner's).
        for at in 0..signature.len() {
            for value in [0x00, 0x7f, 0x80, 0x84, 0xff] {
                let mut corrupt = signature.clone();
                corrupt[at] = value;
                let _ = without_certificates(&corrupt);
            }
        }
        let mut trailing = signature.clone();
        trailing.push(0);
        assert_eq!(without_certificates(&trailing), None);
        assert_eq!(
            without_certificates(&[0x30, 0x80, 0x06, 0x00, 0x00, 0x00]),
            None
        );
        // Long lengths are written the way DER requires.
        let mut header = Vec::new();
        push_header(&mut header, 0x30, 0x7f);
        push_header(&mut header, 0x30, 0x80);
        push_header(&mut header, 0x30, 0x1234);
        assert_eq!(
            header,
            [0x30, 0x7f, 0x30, 0x81, 0x80, 0x30, 0x82, 0x12, 0x34]
        );
    }

    #[test]
    fn pss_parameters_are_der_with_defaults_left_out() {
        let sha1 = algorithm("1.3.14.3.2.26");
        assert_eq!(pss_parameters(&sha1, 20), Some(vec![0x30, 0x00]));
        // Salt 234 (2048-bit key, SHA-1, longest salt): INTEGER 00 EA.
        assert_eq!(
            pss_parameters(&sha1, 234),
            Some(vec![0x30, 0x06, 0xA2, 0x04, 0x02, 0x02, 0x00, 0xEA])
        );
        let sha256 = pss_parameters(&algorithm("2.16.840.1.101.3.4.2.1"), 32).unwrap();
        // SEQUENCE { [0] sha256, [1] mgf1(sha256), [2] 32 }
        assert_eq!(sha256[0], 0x30);
        assert_eq!(usize::from(sha256[1]), sha256.len() - 2);
        assert!(sha256.ends_with(&[0xA2, 0x03, 0x02, 0x01, 0x20]));
        assert_eq!(
            pss_parameters(&algorithm("1.2.3.4"), 20).map(|_| ()),
            Some(())
        );
        assert_eq!(digest_length(&algorithm("1.2.3.4").oid), None);
    }
}
