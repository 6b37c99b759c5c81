//! What a partner certificate allows: its RSA key size and its key usage, read with
//! OpenSSL (the library that verifies with it, so both read the certificate alike).

use foreign_types::ForeignTypeRef as _;
use openssl::pkey::Id;
use openssl::x509::X509Ref;

/// `digitalSignature` and `nonRepudiation` in OpenSSL's key-usage bits (`KU_*`).
const KU_DIGITAL_SIGNATURE: u32 = 0x0080;
const KU_NON_REPUDIATION: u32 = 0x0040;
/// What `X509_get_key_usage` returns for a certificate without the extension.
const NO_KEY_USAGE_EXTENSION: u32 = u32::MAX;

/// The size in bits of the certificate's RSA key (`None` for another key type, or an
/// unreadable key).
pub fn rsa_bits(certificate: &X509Ref) -> Option<u32> {
    let key = certificate.public_key().ok()?;
    (key.id() == Id::RSA || key.id() == Id::RSA_PSS).then(|| key.bits())
}

/// Whether the certificate may make signatures: it has no keyUsage extension, or one
/// with `digitalSignature` or `nonRepudiation` (RFC 8550 section 4.4.2). A malformed
/// extension allows nothing.
pub fn allows_signing(certificate: &X509Ref) -> bool {
    // SAFETY: the pointer comes from a live certificate borrowed for this call; the
    // function only reads it (it fills OpenSSL's extension cache, under its own lock).
    let usage = unsafe { openssl_sys::X509_get_key_usage(certificate.as_ptr()) };
    usage == NO_KEY_USAGE_EXTENSION || usage & (KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION) != 0
}
