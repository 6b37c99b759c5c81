use super::*;

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn fingerprints_take_colons_and_either_case_and_are_stored_plain() {
    let colons = (0..32).map(|_| "AB").collect::<Vec<_>>().join(":");
    let stored = normalized_fingerprints(&texts(&[&colons])).unwrap();
    assert_eq!(stored, vec!["ab".repeat(32)]);
}

#[test]
fn bad_fingerprints_are_refused_saying_what_is_wrong() {
    let error = normalized_fingerprints(&texts(&["zz"])).unwrap_err();
    assert!(
        matches!(error, OptionError::FingerprintNotHex { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("\"zz\" is not hex"), "{error}");

    let error = normalized_fingerprints(&texts(&[&"ab".repeat(20)])).unwrap_err();
    assert!(
        error.to_string().contains("has 20 bytes, not 32 (SHA-256)"),
        "{error}"
    );
}

#[test]
fn networks_are_cidr_or_addresses_and_are_stored_as_cidr() {
    let stored = normalized_networks(&texts(&["10.20.0.0/16", " 192.0.2.7 ", "fd00::/8"])).unwrap();
    assert_eq!(stored, texts(&["10.20.0.0/16", "192.0.2.7/32", "fd00::/8"]));

    let error = normalized_networks(&texts(&["10.0.0.0/33"])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "async MDN network \"10.0.0.0/33\" is not a network in CIDR notation \
         (10.20.0.0/16, fd00::/8) or an address"
    );
    assert!(normalized_networks(&texts(&["intranet"])).is_err());
}

#[test]
fn algorithm_names_are_stored_in_their_canonical_spelling() {
    assert_eq!(
        normalized_digests(&texts(&["SHA256", "sha-512"])).unwrap(),
        texts(&["sha-256", "sha-512"])
    );
    assert_eq!(
        normalized_ciphers(&texts(&["AES-256-CBC", "aes128gcm"])).unwrap(),
        texts(&["aes256", "aes128-gcm"])
    );
}

#[test]
fn unknown_algorithms_are_refused_listing_the_known_ones() {
    let error = normalized_digests(&texts(&["md5"])).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("unknown digest \"md5\" (known: sha-1, "),
        "{error}"
    );
    let error = normalized_ciphers(&texts(&["rc2"])).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("unknown cipher \"rc2\" (known: 3des, "),
        "{error}"
    );
}

#[test]
fn min_rsa_bits_must_be_a_sane_key_size() {
    assert_eq!(min_rsa_bits(3072).unwrap(), 3072);
    for bits in [0, 512, 1023, 16385, -1] {
        let error = min_rsa_bits(bits).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("min_rsa_bits {bits} is outside 1024 ..= 16384")
        );
    }
}

#[test]
fn retention_years_stay_within_a_century() {
    assert_eq!(retention_years(1).unwrap(), 1);
    assert_eq!(retention_years(100).unwrap(), 100);
    for years in [0, 101, -8, i64::MAX] {
        let error = retention_years(years).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("retention_years {years} is outside 1 ..= 100")
        );
    }
}

#[test]
fn the_policy_defaults_where_nothing_is_given() {
    let policy = algorithms(None, &[], &[]).unwrap();
    assert_eq!(policy, AlgorithmPolicy::default());
    let policy = algorithms(Some(3072), &texts(&["sha-256"]), &texts(&["aes256"])).unwrap();
    assert_eq!(policy.min_rsa_bits, 3072);
    assert_eq!(policy.digests, vec![MicAlg::Sha256]);
    assert_eq!(policy.ciphers, vec![Encryption::Aes256Cbc]);
    assert!(algorithms(Some(100), &[], &[]).is_err());
}

#[test]
fn the_charset_policy_is_tolerant_unless_strict_is_said() {
    use edihub_edifact::charset::CharsetPolicy;
    assert_eq!(charset_policy(None).unwrap(), CharsetPolicy::Tolerant);
    assert_eq!(charset_policy(Some(" ")).unwrap(), CharsetPolicy::Tolerant);
    assert_eq!(
        charset_policy(Some("Strict")).unwrap(),
        CharsetPolicy::Strict
    );
    let error = charset_policy(Some("lenient")).unwrap_err();
    assert!(error.to_string().contains("\"lenient\""), "{error}");
}
