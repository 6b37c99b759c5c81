//! Partner identities made on the spot: a key size or a key usage the fixtures lack.

use openssl::asn1::Asn1Time;
use openssl::bn::BigNum;
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;
use openssl::x509::extension::KeyUsage;
use openssl::x509::{X509Builder, X509NameBuilder};

use super::NOW;
use crate::crypto::Identity;

/// A self-signed RSA identity of `bits`, valid around `NOW`, with the keyUsage
/// extension `key_usage` builds (none when `None`).
pub(super) fn rsa_identity(bits: u32, key_usage: Option<&mut KeyUsage>) -> Identity {
    let key = PKey::from_rsa(Rsa::generate(bits).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "made-in-test").unwrap();
    let name = name.build();
    let mut builder = X509Builder::new().unwrap();
    builder.set_version(2).unwrap();
    let serial = BigNum::from_u32(7).unwrap().to_asn1_integer().unwrap();
    builder.set_serial_number(&serial).unwrap();
    builder.set_subject_name(&name).unwrap();
    builder.set_issuer_name(&name).unwrap();
    builder.set_pubkey(&key).unwrap();
    builder
        .set_not_before(&Asn1Time::from_unix(NOW - 86_400).unwrap())
        .unwrap();
    builder
        .set_not_after(&Asn1Time::from_unix(NOW + 86_400 * 365).unwrap())
        .unwrap();
    if let Some(usage) = key_usage {
        builder.append_extension(usage.build().unwrap()).unwrap();
    }
    builder.sign(&key, MessageDigest::sha256()).unwrap();
    Identity {
        certificate: builder.build(),
        private_key: key,
    }
}
