//! The POST of one built message to the partner's URL, over a client of
//! `edihub_mdn_delivery::Clients`: the partnership's allowed networks decide which
//! addresses a host name may resolve to (checked in the resolver, so a second lookup
//! cannot undo it), its outbound TLS what is trusted and presented; no redirects, no
//! proxy unless configured.

use edihub_as2::OutgoingMessage;
use edihub_mdn_delivery::checks::{self, SendFailure, UrlRefused};
use edihub_mdn_delivery::{AddressRefused, Clients, DeliveryError};
use edihub_partners::Partnership;
use std::net::IpAddr;
use std::time::Duration;
use url::Url;

/// Why a POST got no answer; its text becomes the message's `last_error`.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    #[error("POST {url} not attempted: not a URL ({source})")]
    BadUrl {
        url: String,
        #[source]
        source: url::ParseError,
    },
    #[error(
        "POST {url} not attempted: {address} is a {range} address, outside the \
         partnership's allowed networks"
    )]
    Address {
        url: String,
        address: IpAddr,
        range: &'static str,
    },
    #[error("POST {url} not attempted: {source}")]
    Refused {
        url: String,
        #[source]
        source: AddressRefused,
    },
    #[error("POST {url}: {source}")]
    Client {
        url: String,
        #[source]
        source: DeliveryError,
    },
    /// `cause` is the innermost error's text: reqwest's own says only that sending
    /// failed.
    #[error("POST {url}: {cause}")]
    Send {
        url: String,
        cause: String,
        #[source]
        source: reqwest::Error,
    },
}

impl PostError {
    /// Whether no retry can make the POST happen: the URL is not one, or names or
    /// resolves only to addresses the hub does not connect to, or the TLS settings are
    /// unusable. A failed lookup or connection, or a timeout, may pass.
    pub fn is_permanent(&self) -> bool {
        !matches!(self, PostError::Send { .. })
    }
}

/// The partner's answer.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

/// POSTs `message` to `url` as `partnership` allows, within `timeout`.
pub(crate) async fn post(
    clients: &Clients,
    partnership: &Partnership,
    url: &str,
    message: OutgoingMessage,
    timeout: Duration,
) -> Result<Response, PostError> {
    let parsed = checked_url(url, partnership)?;
    let client = clients
        .for_endpoint(
            &partnership.async_mdn_allowed_networks,
            &partnership.outbound_tls,
        )
        .map_err(|source| PostError::Client {
            url: url.to_owned(),
            source,
        })?;
    let mut request = client.post(parsed).timeout(timeout);
    for (name, value) in &message.headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let send_error = |source| send_error(url, source);
    let response = request
        .body(message.body)
        .send()
        .await
        .map_err(send_error)?;
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = response.bytes().await.map_err(send_error)?.to_vec();
    Ok(Response {
        status,
        content_type,
        body,
    })
}

/// `url`, when the hub may connect to it. The resolver never sees an IP-literal host,
/// so that is checked here.
fn checked_url(url: &str, partnership: &Partnership) -> Result<Url, PostError> {
    checks::checked_url(url, &partnership.async_mdn_allowed_networks).map_err(|refused| {
        let url = url.to_owned();
        match refused {
            UrlRefused::NotAUrl(source) => PostError::BadUrl { url, source },
            UrlRefused::Address { address, range } => PostError::Address {
                url,
                address,
                range,
            },
        }
    })
}

fn send_error(url: &str, source: reqwest::Error) -> PostError {
    let url = url.to_owned();
    match checks::send_failure(&source) {
        SendFailure::Refused(source) => PostError::Refused { url, source },
        SendFailure::Other { cause } => PostError::Send { url, cause, source },
    }
}
