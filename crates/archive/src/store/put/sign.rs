//! SigV4 for one PutObject, by the SDK's own signer with the settings S3 wants.

use aws_sigv4::http_request::{
    PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SigningError,
    SigningSettings, UriPathNormalizationMode, sign,
};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use std::time::SystemTime;

#[derive(Debug, thiserror::Error)]
pub enum SignError {
    #[error("signing parameters: {0}")]
    Params(#[from] v4::signing_params::BuildError),
    #[error(transparent)]
    Sign(#[from] SigningError),
}

/// The headers that sign a PUT of `body` to `url` with `headers`: `authorization`,
/// `x-amz-date` and `x-amz-content-sha256`. Every header of `headers` is signed, so all
/// of them must be sent as given.
pub(crate) fn signature_headers(
    identity: &Identity,
    region: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    time: SystemTime,
) -> Result<Vec<(&'static str, String)>, SignError> {
    // S3's variant of SigV4: the path is encoded once and not normalised, and the
    // payload's SHA-256 travels in x-amz-content-sha256.
    let mut settings = SigningSettings::default();
    settings.percent_encoding_mode = PercentEncodingMode::Single;
    settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
    settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    let params = v4::SigningParams::builder()
        .identity(identity)
        .region(region)
        .name("s3")
        .time(time)
        .settings(settings)
        .build()?
        .into();
    let request = SignableRequest::new(
        "PUT",
        url,
        headers.iter().copied(),
        SignableBody::Bytes(body),
    )?;
    let (instructions, _signature) = sign(request, &params)?.into_parts();
    let (headers, _params) = instructions.into_parts();
    Ok(headers
        .into_iter()
        .map(|header| (header.name(), header.value().to_owned()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_s3::config::Credentials;
    use sha2::{Digest, Sha256};
    use std::time::Duration;

    #[test]
    fn every_given_header_is_signed_and_the_payload_digest_travels() {
        let identity = Identity::from(Credentials::new("AKID", "secret", None, None, "test"));
        // 2026-12-07T12:00:00Z
        let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_644_800);
        let headers = [
            ("content-type", "application/edifact"),
            ("content-md5", "1B2M2Y8AsgTpgAmY7PhCfg=="),
            ("x-amz-object-lock-mode", "COMPLIANCE"),
            (
                "x-amz-object-lock-retain-until-date",
                "2036-12-07T12:00:00Z",
            ),
        ];
        let signed = signature_headers(
            &identity,
            "eu-west-1",
            "http://127.0.0.1:9000/archive/originals/a.edi",
            &headers,
            b"UNA:+.? '",
            time,
        )
        .unwrap();
        let value = |name: &str| {
            signed
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.as_str())
                .unwrap_or_else(|| panic!("no {name} in {signed:?}"))
        };
        assert_eq!(value("x-amz-date"), "20261207T120000Z");
        assert_eq!(
            value("x-amz-content-sha256"),
            hex::encode(Sha256::digest(b"UNA:+.? '"))
        );
        let authorization = value("authorization");
        assert!(
            authorization.starts_with(
                "AWS4-HMAC-SHA256 Credential=AKID/20261207/eu-west-1/s3/aws4_request, \
                 SignedHeaders=content-md5;content-type;host;x-amz-content-sha256;x-amz-date;\
                 x-amz-object-lock-mode;x-amz-object-lock-retain-until-date, Signature="
            ),
            "{authorization}"
        );
    }
}
