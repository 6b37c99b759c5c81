//! Enveloped data (RFC 5652 section 6) and authenticated-enveloped data (RFC 5083): what
//! a partner encrypts to us, and what we encrypt to a partner. OpenSSL does both.

use openssl::cms::{CMSOptions, CmsContentInfo};
use openssl::stack::Stack;
use openssl::symm::Cipher;
use openssl::x509::X509;

use super::Identity;
use crate::error::As2Error;

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
