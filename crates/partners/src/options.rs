//! The partnership options written as text in the settings file and the database
//! (fingerprints, networks, algorithm names), read into the values a [`crate::Partnership`]
//! holds. One reader for both sources, so they accept exactly the same spellings; the
//! `normalized_*` functions give the spelling the database stores.

use edihub_as2::{AlgorithmPolicy, Encryption, MicAlg};
use edihub_edifact::charset::{CharsetPolicy, UnknownCharsetPolicy};
use edihub_outbound_tls::{
    ClientCertificate, FingerprintError, OutboundTls, ServerTrust, TlsConfigError,
};
use ipnet::IpNet;
use std::path::PathBuf;

/// The smallest and largest `min_rsa_bits` a partnership may set: below 1024 bits RSA is
/// broken, above 16384 no partner's key could pass.
pub const MIN_RSA_BITS_RANGE: std::ops::RangeInclusive<u32> = 1024..=16384;

/// The archive retention a partnership may set, in years (the `partner` column's CHECK
/// constraint): a lock of a century is already beyond any statutory period.
pub const RETENTION_YEARS_RANGE: std::ops::RangeInclusive<u32> = 1..=100;

/// A partnership option that cannot be used, naming the option and the value.
#[derive(Debug, thiserror::Error)]
pub enum OptionError {
    #[error("TLS client certificate fingerprint {text:?} is not hex: {source}")]
    FingerprintNotHex {
        text: String,
        #[source]
        source: hex::FromHexError,
    },
    #[error("TLS client certificate fingerprint {text:?} has {bytes} bytes, not 32 (SHA-256)")]
    FingerprintLength { text: String, bytes: usize },
    #[error(
        "async MDN network {text:?} is not a network in CIDR notation (10.20.0.0/16, fd00::/8) \
         or an address"
    )]
    Network { text: String },
    #[error("min_rsa_bits {bits} is outside 1024 ..= 16384")]
    MinRsaBits { bits: i64 },
    #[error("retention_years {years} is outside 1 ..= 100")]
    RetentionYears { years: i64 },
    #[error("unknown digest {name:?} (known: {})", known_digests())]
    UnknownDigest { name: String },
    #[error("unknown cipher {name:?} (known: {})", known_ciphers())]
    UnknownCipher { name: String },
    #[error("outbound TLS: {0}")]
    OutboundTls(#[from] TlsConfigError),
    #[error("outbound TLS: {0}")]
    OutboundTlsConflict(#[from] edihub_outbound_tls::ServerTrustConflict),
    #[error("outbound TLS: a client certificate needs its key, and a key its certificate")]
    ClientCertificateHalf,
    #[error("edifact_charset: {0}")]
    CharsetPolicy(#[from] UnknownCharsetPolicy),
    #[error("outbound settings need a url (the partner's AS2 URL)")]
    OutboundNoUrl,
    #[error("outbound {option} {url:?}: {problem}")]
    OutboundUrl {
        option: &'static str,
        /// Redacted: without a password it may hold.
        url: String,
        problem: &'static str,
    },
    #[error(
        "outbound {option} {name:?}: unknown digest (known: {}, or none)",
        known_digests()
    )]
    OutboundDigest { option: &'static str, name: String },
    #[error(
        "outbound encrypt {name:?}: unknown cipher (known: {}, or none)",
        known_ciphers()
    )]
    OutboundCipher { name: String },
    #[error("outbound mdn {name:?}: not none, sync or async")]
    OutboundMdn { name: String },
    #[error("outbound mdn = async needs async_mdn_url (where the partner is to POST the MDN)")]
    OutboundAsyncMdnUrlMissing,
    #[error("outbound async_mdn_url is only for mdn = async (mdn is {mdn})")]
    OutboundAsyncMdnUrlUnused { mdn: &'static str },
    #[error("outbound mdn_signed is only for an MDN (mdn is none)")]
    OutboundMdnSignedUnused,
    #[error("outbound {option} 0: must be at least 1")]
    OutboundZero { option: &'static str },
    #[error("outbound base_backoff_ms {base} is more than max_backoff_ms {max}")]
    OutboundBackoff { base: u64, max: u64 },
    #[error(
        "outbound hub_as2_id {id:?}: 1 to 128 printable ASCII characters, no surrounding spaces"
    )]
    OutboundHubId { id: String },
    #[error(
        "outbound encrypt {cipher}: the partnership has no certificate to encrypt to \
         (add one, or encrypt = none)"
    )]
    OutboundNoCertificate { cipher: &'static str },
}

fn known_digests() -> String {
    MicAlg::ALL.map(|a| a.as_str()).join(", ")
}

fn known_ciphers() -> String {
    Encryption::ALL.map(|c| c.as_str()).join(", ")
}

/// A SHA-256 certificate fingerprint: 64 hex digits, colons and case ignored.
pub fn fingerprint(text: &str) -> Result<[u8; 32], OptionError> {
    let text = text.to_owned();
    edihub_outbound_tls::sha256_fingerprint(&text).map_err(|error| match error {
        FingerprintError::NotHex(source) => OptionError::FingerprintNotHex { text, source },
        FingerprintError::Length(bytes) => OptionError::FingerprintLength { text, bytes },
    })
}

pub fn fingerprints(texts: &[String]) -> Result<Vec<[u8; 32]>, OptionError> {
    texts.iter().map(|t| fingerprint(t)).collect()
}

/// Networks in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is one host.
pub fn networks(texts: &[String]) -> Result<Vec<IpNet>, OptionError> {
    texts
        .iter()
        .map(|text| {
            let trimmed = text.trim();
            trimmed
                .parse::<IpNet>()
                .or_else(|_| trimmed.parse::<std::net::IpAddr>().map(IpNet::from))
                .map_err(|_| OptionError::Network {
                    text: text.to_owned(),
                })
        })
        .collect()
}

/// A `min_rsa_bits` within [`MIN_RSA_BITS_RANGE`].
pub fn min_rsa_bits(bits: i64) -> Result<u32, OptionError> {
    u32::try_from(bits)
        .ok()
        .filter(|b| MIN_RSA_BITS_RANGE.contains(b))
        .ok_or(OptionError::MinRsaBits { bits })
}

/// A `retention_years` within [`RETENTION_YEARS_RANGE`].
pub fn retention_years(years: i64) -> Result<u32, OptionError> {
    u32::try_from(years)
        .ok()
        .filter(|y| RETENTION_YEARS_RANGE.contains(y))
        .ok_or(OptionError::RetentionYears { years })
}

fn digests(names: &[String]) -> Result<Vec<MicAlg>, OptionError> {
    names
        .iter()
        .map(|name| {
            MicAlg::parse(name).ok_or_else(|| OptionError::UnknownDigest { name: name.clone() })
        })
        .collect()
}

fn ciphers(names: &[String]) -> Result<Vec<Encryption>, OptionError> {
    names
        .iter()
        .map(|name| {
            Encryption::parse(name).ok_or_else(|| OptionError::UnknownCipher { name: name.clone() })
        })
        .collect()
}

/// The algorithm policy from its settings (see `PartnerSettings::min_rsa_bits`): `None`
/// or an empty list means the default.
pub fn algorithms(
    bits: Option<u32>,
    digest_names: &[String],
    cipher_names: &[String],
) -> Result<AlgorithmPolicy, OptionError> {
    let default = AlgorithmPolicy::default();
    Ok(AlgorithmPolicy {
        min_rsa_bits: match bits {
            Some(bits) => min_rsa_bits(bits.into())?,
            None => default.min_rsa_bits,
        },
        digests: if digest_names.is_empty() {
            default.digests
        } else {
            digests(digest_names)?
        },
        ciphers: if cipher_names.is_empty() {
            default.ciphers
        } else {
            ciphers(cipher_names)?
        },
    })
}

/// Fingerprints as stored: 64 lower-case hex digits, no colons.
pub fn normalized_fingerprints(texts: &[String]) -> Result<Vec<String>, OptionError> {
    Ok(fingerprints(texts)?.iter().map(hex::encode).collect())
}

/// Networks as stored: `address/prefix` (a bare address becomes `/32` or `/128`).
pub fn normalized_networks(texts: &[String]) -> Result<Vec<String>, OptionError> {
    Ok(networks(texts)?.iter().map(IpNet::to_string).collect())
}

/// Digests as stored: their RFC 5751 names (`sha-256`).
pub fn normalized_digests(names: &[String]) -> Result<Vec<String>, OptionError> {
    Ok(digests(names)?
        .iter()
        .map(|a| a.as_str().to_owned())
        .collect())
}

/// Ciphers as stored: edihub's names (`aes256`, `aes128-gcm`, `3des`).
pub fn normalized_ciphers(names: &[String]) -> Result<Vec<String>, OptionError> {
    Ok(ciphers(names)?
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect())
}

#[cfg(test)]
mod tests;

/// A partnership's outbound TLS from its parts: an extra CA (PEM text) or pinned server
/// fingerprints or neither, and a client certificate with its key or neither. The
/// server trust is checked and its fingerprints normalised; the client files are only
/// named here (the process that connects reads them).
pub fn outbound_tls(
    ca_pem: Option<String>,
    fingerprints: &[String],
    client_certificate: Option<PathBuf>,
    client_key: Option<PathBuf>,
) -> Result<OutboundTls, OptionError> {
    let server = ServerTrust::from_parts(ca_pem, fingerprints)?.validated()?;
    let client = match (client_certificate, client_key) {
        (None, None) => None,
        (Some(certificate), Some(private_key)) => Some(ClientCertificate {
            certificate,
            private_key,
        }),
        _ => return Err(OptionError::ClientCertificateHalf),
    };
    Ok(OutboundTls { server, client })
}

/// Whether `text` can be an AS2 name (RFC 4130 6.2: 1 to 128 printable ASCII
/// characters; edihub also refuses surrounding spaces).
pub fn is_as2_id(text: &str) -> bool {
    let printable = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    !text.is_empty() && text.len() <= 128 && printable && text.trim() == text
}

/// `strict` or `tolerant` (case and surrounding blanks ignored); none or blank: tolerant.
pub fn charset_policy(text: Option<&str>) -> Result<CharsetPolicy, OptionError> {
    match text.map(str::trim) {
        None | Some("") => Ok(CharsetPolicy::default()),
        Some(text) => Ok(text.to_ascii_lowercase().parse()?),
    }
}
