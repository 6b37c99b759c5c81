//! PutObject with Object Lock, signed by the SDK's SigV4 signer and sent over one kept
//! HTTP client, outside the SDK's request pipeline: that pipeline was most of the archive
//! consumer's CPU for the six small PUTs of each message (ADR 0008). Everything else the
//! archive asks of S3 still goes through the SDK.

use aws_sdk_s3::config::Credentials;
use aws_smithy_runtime_api::client::identity::Identity;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use bytes::Bytes;
use chrono::{DateTime, SecondsFormat, Utc};
use edihub_config::S3Settings;
use md5::{Digest, Md5};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

mod address;
mod rejection;
mod sign;

use address::Address;
pub use address::AddressError;
pub use rejection::Rejection;
pub use sign::SignError;

/// Attempts of one PUT, as the SDK's standard retry mode makes.
const ATTEMPTS: u32 = 3;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Between two reads of the answer, so a stalled server cannot hold a consumer forever.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum PutError {
    #[error("{0}")]
    Setup(#[source] Arc<PutSetupError>),
    #[error("cannot sign the request: {0}")]
    Sign(#[source] SignError),
    #[error("HTTP exchange failed: {}", chain(.0))]
    Http(#[source] reqwest::Error),
    #[error("S3 refused it: {0}")]
    Rejected(#[source] Rejection),
}

impl PutError {
    /// A lost connection, a timeout or a server fault: the same PUT may pass next time.
    fn is_transient(&self) -> bool {
        match self {
            PutError::Http(error) => !error.is_builder(),
            PutError::Rejected(rejection) => rejection.is_transient(),
            PutError::Setup(_) | PutError::Sign(_) => false,
        }
    }
}

/// The client side of locked PUTs to one bucket. Built lazily, so tools that only read
/// the archive never load the platform's roots.
#[derive(Debug)]
pub(crate) struct LockedPut {
    endpoint: Option<String>,
    region: String,
    bucket: String,
    path_style: bool,
    identity: Identity,
    ready: OnceLock<Result<Ready, Arc<PutSetupError>>>,
}

#[derive(Debug)]
struct Ready {
    address: Address,
    client: reqwest::Client,
}

/// Settings or a TLS set-up the PUTs cannot start with; told at the first PUT.
#[derive(Debug, thiserror::Error)]
pub enum PutSetupError {
    #[error(transparent)]
    Address(#[from] AddressError),
    #[error("TLS configuration: {0}")]
    Tls(#[from] edihub_outbound_tls::TlsConfigError),
    #[error("HTTP client: {0}")]
    Client(#[from] reqwest::Error),
}

impl LockedPut {
    pub(crate) fn new(settings: &S3Settings, credentials: Credentials) -> Self {
        Self {
            endpoint: settings.endpoint.clone(),
            region: settings.region.clone(),
            bucket: settings.bucket.clone(),
            path_style: settings.force_path_style,
            identity: Identity::from(credentials),
            ready: OnceLock::new(),
        }
    }

    /// Stores `bytes` under `key`, locked in COMPLIANCE mode until `retain_until`, with
    /// Content-MD5 (Object Lock requires an integrity header). Returns the version id.
    pub(crate) async fn put(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        retain_until: DateTime<Utc>,
    ) -> Result<Option<String>, PutError> {
        let ready = self.ready()?;
        let url = ready.address.object_url(key);
        let md5 = BASE64.encode(Md5::digest(&bytes));
        let retain_until = retain_until.to_rfc3339_opts(SecondsFormat::Secs, true);
        let headers = [
            ("content-type", content_type),
            ("content-md5", md5.as_str()),
            ("x-amz-object-lock-mode", "COMPLIANCE"),
            ("x-amz-object-lock-retain-until-date", retain_until.as_str()),
        ];
        let body = Bytes::from(bytes);
        let mut attempt = 1;
        loop {
            match self.attempt(&ready.client, &url, &headers, &body).await {
                Err(error) if error.is_transient() && attempt < ATTEMPTS => {
                    tracing::debug!(key, attempt, error = %error, "S3 PutObject failed; trying again");
                    tokio::time::sleep(backoff(attempt)).await;
                    attempt += 1;
                }
                outcome => return outcome,
            }
        }
    }

    fn ready(&self) -> Result<&Ready, PutError> {
        let ready = self.ready.get_or_init(|| self.build().map_err(Arc::new));
        ready
            .as_ref()
            .map_err(|error| PutError::Setup(Arc::clone(error)))
    }

    fn build(&self) -> Result<Ready, PutSetupError> {
        let address = Address::new(
            self.endpoint.as_deref(),
            &self.region,
            &self.bucket,
            self.path_style,
        )?;
        let tls = edihub_outbound_tls::client_config(&Default::default())?;
        // As the SDK: no proxy from the environment, the endpoint is the one configured;
        // no redirect followed, S3's (a bucket in another region) is an error to read.
        let client = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!("edihub/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Ready { address, client })
    }

    async fn attempt(
        &self,
        client: &reqwest::Client,
        url: &str,
        headers: &[(&str, &str)],
        body: &Bytes,
    ) -> Result<Option<String>, PutError> {
        let signature = sign::signature_headers(
            &self.identity,
            &self.region,
            url,
            headers,
            body,
            SystemTime::now(),
        )
        .map_err(PutError::Sign)?;
        let mut request = client.put(url).body(body.clone());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        for (name, value) in signature {
            request = request.header(name, value);
        }
        let response = request.send().await.map_err(PutError::Http)?;
        let status = response.status();
        if status.is_success() {
            return Ok(response
                .headers()
                .get("x-amz-version-id")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned));
        }
        let answer = response.bytes().await.map_err(PutError::Http)?;
        Err(PutError::Rejected(Rejection::read(
            status.as_u16(),
            &answer,
        )))
    }
}

/// An error and its sources, as one line: reqwest's own says only "error sending request".
fn chain(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        line.push_str(": ");
        line.push_str(&cause.to_string());
        source = cause.source();
    }
    line
}

/// 100 ms, then 400 ms.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(100 << (2 * attempt.saturating_sub(1).min(4)))
}
