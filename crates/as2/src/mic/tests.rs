use super::*;

/// Expected digests computed independently with
/// `openssl dgst -<alg> -binary micin.bin | base64` on the same bytes.
const INPUT: &[u8] = b"UNA:+.? 'UNB+UNOC:3+SENDER+RECEIVER+240101:1200+1'\r\n";

#[test]
fn mic_of_known_input_matches_openssl() {
    let cases = [
        (MicAlg::Sha1, "KwDpGodThcFKAz7qFR+Zv+GVi40="),
        (MicAlg::Sha224, "w6AhT6j0QQZJ6kOieNpBUsMSNphptf+lMhXepQ=="),
        (
            MicAlg::Sha256,
            "j+FNFguGF7E5JS+3pi1/g7+TexuNuyX5WtBkpE4EwJo=",
        ),
        (
            MicAlg::Sha384,
            "K+t2N3lvhhZJf9jJTcliWJAqSxQrXBKC3Zd6uyZNqk141iucjx16Q6m+Il1hFVf/",
        ),
        (
            MicAlg::Sha512,
            "o9C23ETjtUXkd4/kyb5bNxe9WFezKmtY1Oj018GDCo4m6hyPlUrxXNC8fIERHpqR4nrJjow4ipplcwHiZnjxQw==",
        ),
    ];
    for (alg, expected) in cases {
        assert_eq!(Mic::compute(alg, INPUT).digest_base64, expected, "{alg}");
    }
    assert_eq!(
        Mic::compute(MicAlg::Sha256, b"").digest_base64,
        "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
    );
}

#[test]
fn micalg_spellings() {
    for (s, alg) in [
        ("sha1", MicAlg::Sha1),
        ("sha-1", MicAlg::Sha1),
        ("SHA1", MicAlg::Sha1),
        ("sha224", MicAlg::Sha224),
        ("sha-224", MicAlg::Sha224),
        ("sha256", MicAlg::Sha256),
        ("sha-256", MicAlg::Sha256),
        ("SHA-256", MicAlg::Sha256),
        (" Sha256 ", MicAlg::Sha256),
        ("sha384", MicAlg::Sha384),
        ("sha-384", MicAlg::Sha384),
        ("sha512", MicAlg::Sha512),
        ("SHA-512", MicAlg::Sha512),
    ] {
        assert_eq!(MicAlg::parse(s), Some(alg), "{s}");
    }
    for s in ["md5", "", "sha", "sha-3", "sha--256", "sha_256", "sha-256x"] {
        assert_eq!(MicAlg::parse(s), None, "{s}");
    }
    assert_eq!(MicAlg::Sha256.as_str(), "sha-256");
    assert_eq!(MicAlg::Sha1.as_str(), "sha-1");
    for alg in MicAlg::ALL {
        assert_eq!(MicAlg::parse(alg.as_str()), Some(alg));
        assert_eq!(alg.as_str().parse::<MicAlg>(), Ok(alg));
    }
}

#[test]
fn mic_header_value_round_trips() {
    let mic = Mic::compute(MicAlg::Sha256, INPUT);
    assert_eq!(
        mic.header_value(),
        "j+FNFguGF7E5JS+3pi1/g7+TexuNuyX5WtBkpE4EwJo=, sha-256"
    );
    assert_eq!(Mic::parse(&mic.header_value()), Ok(mic.clone()));
    // Old spelling, no space, no padding, folded whitespace: same MIC.
    assert_eq!(
        Mic::parse("j+FNFguGF7E5JS+3pi1/g7+Tex\r\n uNuyX5WtBkpE4EwJo,SHA256"),
        Ok(mic)
    );
}

#[test]
fn mic_parse_rejects_bad_values() {
    for bad in [
        "",
        "j+FNFguGF7E5JS+3pi1/g7+TexuNuyX5WtBkpE4EwJo=",
        "j+FNFguGF7E5JS+3pi1/g7+TexuNuyX5WtBkpE4EwJo=, md5",
        "not base64!!, sha-256",
        // a sha-1 sized digest labelled sha-256
        "KwDpGodThcFKAz7qFR+Zv+GVi40=, sha-256",
        "ü, sha-256",
    ] {
        assert!(
            matches!(Mic::parse(bad), Err(As2Error::InvalidMic(_))),
            "{bad:?}"
        );
    }
}
