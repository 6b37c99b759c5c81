//! Compressed data (RFC 3274, used by AS2 per RFC 5402), read and written with
//! RustCrypto's `cms` types and `flate2`: Debian's OpenSSL is built without zlib, so its
//! `CMS_compress`/`CMS_uncompress` fail there.

use std::io::Read as _;

use der::asn1::OctetString;
use der::{Any, Decode as _, Encode as _};

use super::oid::{OID_COMPRESSED_DATA, OID_DATA, OID_ZLIB};
use crate::error::As2Error;

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
