//! Message Integrity Check (RFC 4130 section 7.3.1).
//!
//! The MIC is how a sender learns, from the MDN alone, that we received exactly the bytes it
//! sent: it computes the same digest on its side and compares it with the
//! `Received-Content-MIC` we return. What the digest covers depends on the message shape:
//! for an unsigned message it is the content without its MIME headers
//! ([`mic_for_unsigned`]); for a signed message it is the signed MIME entity, headers
//! included, sliced from the received bytes ([`crate::smime::unwrap_inbound`] does that
//! and reuses [`Mic::compute`]); for an encrypted or compressed but unsigned message it is
//! the decrypted, decompressed MIME entity with its headers.

use std::fmt;
use std::str::FromStr;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha1::Digest as _;

use crate::error::As2Error;
use crate::headers::As2Headers;

/// A digest algorithm usable for the MIC.
///
/// Partners spell these both ways (`sha256` from older S/MIME drafts, `sha-256` from
/// RFC 5751), so parsing accepts either; we always write the RFC 5751 spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MicAlg {
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl MicAlg {
    /// Every supported algorithm, strongest last.
    pub const ALL: [MicAlg; 5] = [
        MicAlg::Sha1,
        MicAlg::Sha224,
        MicAlg::Sha256,
        MicAlg::Sha384,
        MicAlg::Sha512,
    ];

    /// Reads an algorithm name, case-insensitively, with or without the hyphen
    /// (`sha256`, `SHA-256`, `sha1`, `sha-1`). Unknown names (`md5`, ...) give `None` so
    /// that callers can skip them in a preference list instead of failing.
    pub fn parse(s: &str) -> Option<MicAlg> {
        let s = s.trim();
        let alg = match s.to_ascii_lowercase().as_str() {
            "sha1" | "sha-1" => MicAlg::Sha1,
            "sha224" | "sha-224" => MicAlg::Sha224,
            "sha256" | "sha-256" => MicAlg::Sha256,
            "sha384" | "sha-384" => MicAlg::Sha384,
            "sha512" | "sha-512" => MicAlg::Sha512,
            _ => return None,
        };
        Some(alg)
    }

    /// The RFC 5751 name (`"sha-256"` etc.), which is what goes on the wire.
    pub fn as_str(&self) -> &'static str {
        match self {
            MicAlg::Sha1 => "sha-1",
            MicAlg::Sha224 => "sha-224",
            MicAlg::Sha256 => "sha-256",
            MicAlg::Sha384 => "sha-384",
            MicAlg::Sha512 => "sha-512",
        }
    }

    /// Length of the raw digest in bytes; used to reject a MIC that decodes but cannot be
    /// a digest of the named algorithm.
    pub fn digest_len(&self) -> usize {
        match self {
            MicAlg::Sha1 => 20,
            MicAlg::Sha224 => 28,
            MicAlg::Sha256 => 32,
            MicAlg::Sha384 => 48,
            MicAlg::Sha512 => 64,
        }
    }

    fn digest(&self, bytes: &[u8]) -> Vec<u8> {
        match self {
            MicAlg::Sha1 => sha1::Sha1::digest(bytes).to_vec(),
            MicAlg::Sha224 => sha2::Sha224::digest(bytes).to_vec(),
            MicAlg::Sha256 => sha2::Sha256::digest(bytes).to_vec(),
            MicAlg::Sha384 => sha2::Sha384::digest(bytes).to_vec(),
            MicAlg::Sha512 => sha2::Sha512::digest(bytes).to_vec(),
        }
    }
}

impl fmt::Display for MicAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MicAlg {
    type Err = As2Error;

    fn from_str(s: &str) -> Result<MicAlg, As2Error> {
        MicAlg::parse(s).ok_or_else(|| As2Error::InvalidMic(format!("unsupported algorithm {s:?}")))
    }
}

/// A computed or received MIC: the algorithm and the base64 of the raw digest.
///
/// `digest_base64` is always in canonical padded standard base64 (what [`Mic::compute`]
/// produces and what [`Mic::parse`] re-encodes to), so two `Mic` values can be compared with
/// `==` regardless of how the partner formatted theirs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Mic {
    pub alg: MicAlg,
    pub digest_base64: String,
}

impl Mic {
    /// Digests `bytes` with `alg`. The caller decides which bytes (see the module docs).
    pub fn compute(alg: MicAlg, bytes: &[u8]) -> Mic {
        Mic {
            alg,
            digest_base64: STANDARD.encode(alg.digest(bytes)),
        }
    }

    /// The `Received-Content-MIC` value: `"<base64>, sha-256"`.
    pub fn header_value(&self) -> String {
        format!("{}, {}", self.digest_base64, self.alg.as_str())
    }

    /// Reads a `Received-Content-MIC` value. The digest must be base64 of exactly the
    /// algorithm's digest length: a MIC that cannot match anything is reported now rather
    /// than surfacing later as a puzzling mismatch.
    pub fn parse(value: &str) -> Result<Mic, As2Error> {
        let (digest, alg) = value.rsplit_once(',').ok_or_else(|| {
            As2Error::InvalidMic(format!("expected \"<base64>, <alg>\", got {value:?}"))
        })?;
        let alg = MicAlg::parse(alg).ok_or_else(|| {
            As2Error::InvalidMic(format!("unsupported algorithm {:?}", alg.trim()))
        })?;
        // Whitespace inside the base64 can come from header folding.
        let compact: Vec<u8> = digest
            .bytes()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        let raw = lenient_base64()
            .decode(&compact)
            .map_err(|e| As2Error::InvalidMic(format!("digest is not base64: {e}")))?;
        if raw.len() != alg.digest_len() {
            return Err(As2Error::InvalidMic(format!(
                "digest is {} bytes, {} needs {}",
                raw.len(),
                alg.as_str(),
                alg.digest_len()
            )));
        }
        Ok(Mic {
            alg,
            digest_base64: STANDARD.encode(raw),
        })
    }
}

/// Standard alphabet, padding optional: some implementations strip the `=`.
pub(crate) fn lenient_base64() -> base64::engine::GeneralPurpose {
    base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    )
}

/// The MIC to return for an unsigned message.
///
/// RFC 4130 section 7.3.1: for an unsigned message the MIC is computed over the content
/// without its MIME headers and without any content-transfer-encoding, so `content` is the
/// decoded payload. The algorithm is the first one in the partner's
/// `signed-receipt-micalg` list that we support; when the partner asked for none (or only
/// for ones we lack) we use sha-256, the algorithm every current AS2 stack can check.
pub fn mic_for_unsigned(headers: &As2Headers, content: &[u8]) -> Mic {
    let alg = headers
        .mdn_options
        .as_ref()
        .and_then(|o| o.micalg.first().copied())
        .unwrap_or(MicAlg::Sha256);
    Mic::compute(alg, content)
}

#[cfg(test)]
mod tests;
