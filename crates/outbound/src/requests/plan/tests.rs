use super::*;
use edihub_config::{GatewaySettings, PartnerOutboundSettings, PartnerSettings};
use serde_json::json;
use std::path::PathBuf;

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/as2/")).join(name)
}

/// The hub `EDIHUB`; `PARTNER` with outbound settings, `INBOUND-ONLY` without.
fn directory() -> Directory {
    let partner = |as2_id: &str, outbound: bool| PartnerSettings {
        as2_id: as2_id.into(),
        certificates: vec![fixture_path("partner-a.crt")],
        outbound: outbound.then(|| PartnerOutboundSettings {
            url: "https://partner.example/as2".into(),
            sign: Some("none".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let settings = GatewaySettings {
        hub_as2_id: "EDIHUB".into(),
        partners: vec![partner("PARTNER", true), partner("INBOUND-ONLY", false)],
        ..Default::default()
    };
    Directory::from_settings(&settings).expect("directory")
}

fn planned(request: serde_json::Value) -> Result<(Plan, Document), Rejection> {
    let directory = directory();
    let rules = Rules {
        directory: &directory,
        main_hub: "EDIHUB",
        claim_check_bucket: Some("outgoing"),
        max_document_bytes: 1000,
    };
    plan(request.to_string().as_bytes(), &rules)
}

fn reason(request: serde_json::Value) -> String {
    planned(request).expect_err("rejected").reason
}

#[test]
fn an_inline_document_is_decoded_and_sent_by_the_partnerships_identity() {
    let (plan, document) =
        planned(json!({ "partner": "PARTNER", "document_base64": "VU5BOisuPyAn" })).expect("plan");
    assert_eq!(document, Document::Inline(b"UNA:+.? '".to_vec()));
    assert_eq!(plan.hub_as2_id, "EDIHUB");
    assert_eq!(plan.content_type, DEFAULT_CONTENT_TYPE);
    assert_eq!(plan.filename, None);
}

#[test]
fn a_claim_check_must_point_into_the_claim_check_bucket() {
    let claim = |reference: &str| {
        json!({ "partner": "PARTNER", "claim_check": {
            "reference": reference, "sha256": "AB".repeat(32), "size": 10 } })
    };
    let (_, document) = planned(claim("s3://outgoing/2026/invoice.edi")).expect("plan");
    assert_eq!(
        document,
        Document::Claimed {
            key: "2026/invoice.edi".into(),
            sha256: "ab".repeat(32),
            size: 10
        }
    );
    for elsewhere in [
        "s3://edihub-archive/2026/x.edi",
        "s3://outgoing-other/x",
        "s3://outgoing/",
        "edihub:edi_message:0190",
    ] {
        assert!(
            reason(claim(elsewhere)).contains("is not s3://outgoing/KEY"),
            "{elsewhere}"
        );
    }
}

#[test]
fn each_fault_of_a_request_is_named() {
    let cases = [
        (
            json!({ "partner": "NOBODY", "document_base64": "" }),
            "no partnership NOBODY",
        ),
        (
            json!({ "partner": "INBOUND-ONLY", "document_base64": "" }),
            "partnership INBOUND-ONLY has no outbound settings",
        ),
        (
            json!({ "partner": "PARTNER", "hub_as2_id": "SOMEONE", "document_base64": "" }),
            "SOMEONE is not one of the hub's AS2 identities",
        ),
        (
            json!({ "partner": "PARTNER" }),
            "the request has no document",
        ),
        (
            json!({ "partner": "PARTNER", "document_base64": "",
                    "claim_check": { "reference": "s3://outgoing/k", "sha256": "", "size": 0 } }),
            "both document_base64 and claim_check",
        ),
        (
            json!({ "partner": "PARTNER", "document_base64": "not base64!" }),
            "is not base64",
        ),
        (
            json!({ "partner": "PARTNER", "document_base64": "A".repeat(1400) }),
            "1050 bytes, over the limit of 1000",
        ),
        (
            json!({ "partner": "PARTNER", "document_base64": "",
                    "content_type": "text/plain\r\nX-Injected: 1" }),
            "is not a MIME type",
        ),
        (
            json!({ "partner": "PARTNER", "document_base64": "", "filename": "../etc/passwd" }),
            "has a path separator",
        ),
        (
            json!({ "partner": "PARTNER", "claim_check": {
                "reference": "s3://outgoing/k", "sha256": "xyz", "size": 1 } }),
            "claim_check.sha256 is not 64 hex digits",
        ),
    ];
    for (request, expected) in cases {
        let got = reason(request.clone());
        assert!(got.contains(expected), "{request}: {got}");
    }
}

#[test]
fn json_that_is_not_a_request_is_rejected_with_its_position() {
    let directory = directory();
    let rules = Rules {
        directory: &directory,
        main_hub: "EDIHUB",
        claim_check_bucket: None,
        max_document_bytes: 1000,
    };
    let rejection =
        plan(b"{\"partner\": \"PARTNER\",\n \"document\": 1}", &rules).expect_err("unknown field");
    assert_eq!(rejection.partner, None);
    assert!(
        rejection.reason.contains("unknown field `document`"),
        "{}",
        rejection.reason
    );
    assert!(rejection.reason.contains("line 2"), "{}", rejection.reason);
    let claim = json!({ "partner": "PARTNER", "claim_check": {
        "reference": "s3://outgoing/k", "sha256": "ab".repeat(32), "size": 1 } });
    let rejection = plan(claim.to_string().as_bytes(), &rules).expect_err("no bucket");
    assert!(rejection.reason.contains("takes no claim checks"));
}

#[test]
fn a_claimed_object_must_have_the_size_and_digest_the_request_gave() {
    let bytes = b"UNA:+.? '";
    let digest = hex::encode(Sha256::digest(bytes));
    assert_eq!(check_claimed(bytes, &digest, 9), Ok(()));
    assert!(
        check_claimed(bytes, &digest, 8)
            .unwrap_err()
            .contains("has 9 bytes")
    );
    assert!(
        check_claimed(bytes, &"00".repeat(32), 9)
            .unwrap_err()
            .contains("SHA-256 is")
    );
}

#[test]
fn mime_types_and_filenames_that_fit_a_header() {
    for good in [
        "application/EDIFACT",
        "application/edi-x12",
        "text/plain; charset=utf-8",
    ] {
        assert!(is_content_type(good), "{good}");
    }
    for bad in ["EDIFACT", "/x", "a/", "a/b\nc", "a b/c"] {
        assert!(!is_content_type(bad), "{bad}");
    }
    assert!(is_filename("INVOIC 2026-0001.edi"));
    assert!(!is_filename("") && !is_filename("a\\b") && !is_filename("a\u{7}"));
}
