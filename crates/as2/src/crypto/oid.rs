//! The object identifiers this crate writes or looks for.

use der::oid::ObjectIdentifier;

/// `id-signedData` (RFC 5652 section 5.1).
pub(super) const OID_SIGNED_DATA: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.2");
/// `id-ct-compressedData` (RFC 3274).
pub(super) const OID_COMPRESSED_DATA: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.1.9");
/// `id-alg-zlibCompress` (RFC 3274): the only compression algorithm defined for CMS.
pub(super) const OID_ZLIB: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.3.8");
/// `id-data`.
pub(super) const OID_DATA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.1");
/// `id-RSASSA-PSS` (RFC 4055).
pub(super) const OID_RSASSA_PSS: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");
/// `id-mgf1` (RFC 4055).
pub(super) const OID_MGF1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.8");

/// Whether OpenSSL's default provider can digest with the algorithm whose OID has these
/// DER content bytes: MD5, SHA-1, and the SHA-2 and SHA-3 families.
pub(super) fn is_known_digest(oid: &[u8]) -> bool {
    const MD5: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05];
    const SHA1: &[u8] = &[0x2b, 0x0e, 0x03, 0x02, 0x1a];
    // 2.16.840.1.101.3.4.2.n: n = 1..3 SHA-256/384/512, 4 SHA-224, 5 and 6 SHA-512/224
    // and SHA-512/256, 7..10 SHA3-224/256/384/512.
    const NIST_HASH: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02];
    oid == MD5
        || oid == SHA1
        || oid
            .strip_prefix(NIST_HASH)
            .is_some_and(|n| matches!(n, [1..=10]))
}
/// `id-envelopedData` (RFC 5652 section 6.1).
pub(super) const OID_ENVELOPED_DATA: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.3");
/// `id-ct-authEnvelopedData` (RFC 5083).
pub(super) const OID_AUTH_ENVELOPED_DATA: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.1.23");
