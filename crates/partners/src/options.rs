//! The partnership options written as text in the settings file and the database
//! (fingerprints, networks, algorithm names), read into the values a [`crate::Partnership`]
//! holds. One reader for both sources, so they accept exactly the same spellings.

use edihub_as2::AlgorithmPolicy;
use ipnet::IpNet;

/// A SHA-256 certificate fingerprint: 64 hex digits, colons and case ignored.
pub fn fingerprint(text: &str) -> Result<[u8; 32], String> {
    let digits: String = text.chars().filter(|c| *c != ':').collect();
    let bytes =
        hex::decode(digits.trim()).map_err(|e| format!("fingerprint {text:?} is not hex: {e}"))?;
    bytes.try_into().map_err(|b: Vec<u8>| {
        format!(
            "fingerprint {text:?} has {} bytes, not 32 (SHA-256)",
            b.len()
        )
    })
}

pub fn fingerprints(texts: &[String]) -> Result<Vec<[u8; 32]>, String> {
    texts.iter().map(|t| fingerprint(t)).collect()
}

/// Networks in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is one host.
pub fn networks(texts: &[String]) -> Result<Vec<IpNet>, String> {
    texts
        .iter()
        .map(|text| {
            let text = text.trim();
            text.parse::<IpNet>()
                .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
                .map_err(|_| format!("{text:?} is not a network (CIDR) or an address"))
        })
        .collect()
}

/// The algorithm policy from its settings (see `PartnerSettings::min_rsa_bits`).
pub fn algorithms(
    min_rsa_bits: Option<u32>,
    digests: &[String],
    ciphers: &[String],
) -> Result<AlgorithmPolicy, String> {
    AlgorithmPolicy::from_names(min_rsa_bits, digests, ciphers).map_err(|e| e.to_string())
}
