//! Which algorithms a partnership accepts on inbound messages.

use crate::crypto::Encryption;
use crate::error::As2Error;
use crate::mic::MicAlg;

/// The algorithms a partnership accepts. A message using anything else is refused
/// (insufficient-message-security) before its content is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlgorithmPolicy {
    /// Signatures by an RSA key shorter than this many bits are refused.
    pub min_rsa_bits: u32,
    /// Signature digests accepted.
    pub digests: Vec<MicAlg>,
    /// Content-encryption ciphers accepted.
    pub ciphers: Vec<Encryption>,
}

/// The RSA key size below which signatures are refused unless a partnership lowers it.
pub const DEFAULT_MIN_RSA_BITS: u32 = 2048;

impl Default for AlgorithmPolicy {
    /// RSA of at least 2048 bits, every digest and cipher the crate knows (SHA-1 and
    /// 3DES are accepted with a warning, see [`is_weak_digest`] and [`is_weak_cipher`]).
    fn default() -> Self {
        Self {
            min_rsa_bits: DEFAULT_MIN_RSA_BITS,
            digests: MicAlg::ALL.to_vec(),
            ciphers: Encryption::ALL.to_vec(),
        }
    }
}

impl AlgorithmPolicy {
    /// A policy from its settings: `None` or an empty list means the default.
    pub fn from_names(
        min_rsa_bits: Option<u32>,
        digests: &[String],
        ciphers: &[String],
    ) -> Result<Self, As2Error> {
        let default = Self::default();
        let digests = if digests.is_empty() {
            default.digests
        } else {
            digests
                .iter()
                .map(|name| MicAlg::parse(name).ok_or_else(|| unknown("digest", name)))
                .collect::<Result<_, _>>()?
        };
        let ciphers = if ciphers.is_empty() {
            default.ciphers
        } else {
            ciphers
                .iter()
                .map(|name| Encryption::parse(name).ok_or_else(|| unknown("cipher", name)))
                .collect::<Result<_, _>>()?
        };
        Ok(Self {
            min_rsa_bits: min_rsa_bits.unwrap_or(default.min_rsa_bits),
            digests,
            ciphers,
        })
    }
}

fn unknown(what: &str, name: &str) -> As2Error {
    As2Error::InvalidHeader {
        name: format!("algorithm policy {what}"),
        reason: format!("unknown {what} {name:?}"),
    }
}

/// Digests accepted by default but reported as a warning (SHA-1: collisions are practical).
pub fn is_weak_digest(alg: MicAlg) -> bool {
    alg == MicAlg::Sha1
}

/// Ciphers accepted by default but reported as a warning (3DES: 64-bit blocks, Sweet32).
pub fn is_weak_cipher(cipher: Encryption) -> bool {
    cipher == Encryption::TripleDes
}
