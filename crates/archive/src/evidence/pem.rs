//! PEM armour of a DER certificate (RFC 7468 section 2): base64 in lines of 64.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;

pub fn certificate_pem(der: &[u8]) -> String {
    let encoded = BASE64.encode(der);
    let mut pem = String::from("-----BEGIN CERTIFICATE-----\n");
    let mut rest = encoded.as_str();
    while !rest.is_empty() {
        let (line, tail) = rest.split_at(rest.len().min(64));
        pem.push_str(line);
        pem.push('\n');
        rest = tail;
    }
    pem.push_str("-----END CERTIFICATE-----\n");
    pem
}

#[cfg(test)]
mod tests;
