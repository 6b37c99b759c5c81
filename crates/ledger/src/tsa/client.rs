//! The HTTP exchange with a timestamp authority (RFC 3161 section 3.4).

use super::{Granted, TsaError, nonce_content, read_response, request};
use crate::SealError;
use sha2::{Digest, Sha256};
use std::time::Duration;

/// How long one request to the authority may take: a seal waits for it.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Asks `url` for a timestamp over SHA-256(`manifest`) and returns the whole
/// TimeStampResp, once its status is granted and its token names our imprint and nonce.
pub(crate) async fn timestamp(url: &url::Url, manifest: &[u8]) -> Result<Vec<u8>, SealError> {
    let digest: [u8; 32] = Sha256::digest(manifest).into();
    // Random, unpredictable to the authority: a replayed old response would not carry it.
    let nonce = uuid::Uuid::new_v4().into_bytes();
    let response = post(url, request(&digest, &nonce)).await?;
    let granted = read_response(&response).map_err(refused)?;
    check(&granted, &digest, &nonce)?;
    Ok(response)
}

fn check(granted: &Granted, digest: &[u8; 32], nonce: &[u8]) -> Result<(), SealError> {
    if granted.imprint != digest {
        return Err(SealError::Timestamp(
            "the token's imprint is not SHA-256 of segment.json".into(),
        ));
    }
    if granted.nonce.as_deref() != Some(nonce_content(nonce).as_slice()) {
        return Err(SealError::Timestamp(
            "the token does not carry the request's nonce".into(),
        ));
    }
    Ok(())
}

fn refused(error: TsaError) -> SealError {
    SealError::Timestamp(error.to_string())
}

/// No proxy from the environment: the authority is the one configured, reached directly.
fn client() -> Result<reqwest::Client, SealError> {
    let tls = edihub_outbound_tls::client_config(&edihub_outbound_tls::OutboundTls::default())
        .map_err(|e| SealError::Timestamp(format!("TLS configuration: {e}")))?;
    reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .timeout(TIMEOUT)
        .no_proxy()
        .user_agent(concat!("edihub/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(SealError::TimestampHttp)
}

async fn post(url: &url::Url, body: Vec<u8>) -> Result<Vec<u8>, SealError> {
    let response = client()?
        .post(url.clone())
        .header(reqwest::header::CONTENT_TYPE, "application/timestamp-query")
        .body(body)
        .send()
        .await
        .map_err(SealError::TimestampHttp)?;
    let status = response.status();
    if !status.is_success() {
        return Err(SealError::Timestamp(format!("HTTP status {status}")));
    }
    let bytes = response.bytes().await.map_err(SealError::TimestampHttp)?;
    Ok(bytes.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_without_our_nonce_or_imprint_is_refused() {
        let digest = [5u8; 32];
        let ours = read_response(&crate::tsa::fake_response(&digest, &[1, 2])).expect("reads");
        assert!(check(&ours, &digest, &[1, 2]).is_ok());
        let replayed = read_response(&crate::tsa::fake_response(&digest, &[9])).expect("reads");
        let outcome = check(&replayed, &digest, &[1, 2]);
        assert!(matches!(outcome, Err(SealError::Timestamp(t)) if t.contains("nonce")));
        let outcome = check(&ours, &[6; 32], &[1, 2]);
        assert!(matches!(outcome, Err(SealError::Timestamp(t)) if t.contains("imprint")));
    }
}
