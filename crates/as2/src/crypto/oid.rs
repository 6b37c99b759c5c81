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
