//! The HTTP clients that POST MDNs: one per partnership endpoint (allowed networks and
//! outbound TLS), because the networks decide which addresses the client's resolver
//! hands over and the TLS what it trusts and presents, and a pooled connection must only
//! be reused for deliveries that allow both.

use crate::DeliveryError;
use crate::resolve::CheckedResolver;
use edihub_config::AsyncMdnSettings;
use edihub_outbound_tls::OutboundTls;
use ipnet::IpNet;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Past this many distinct endpoints (partnerships changed a lot), the cache starts
/// over rather than grow.
const MAX_CLIENTS: usize = 256;

type EndpointKey = (Vec<IpNet>, OutboundTls);

/// The clients, built on first use for each endpoint.
pub struct Clients {
    timeout: Duration,
    proxy: Option<reqwest::Proxy>,
    built: Mutex<HashMap<EndpointKey, reqwest::Client>>,
}

impl Clients {
    /// Fails when `settings.proxy` is not a usable proxy URL.
    pub fn new(settings: &AsyncMdnSettings) -> Result<Self, DeliveryError> {
        let proxy = settings
            .proxy
            .as_deref()
            .map(reqwest::Proxy::all)
            .transpose()
            .map_err(DeliveryError::Proxy)?;
        Ok(Self {
            timeout: Duration::from_millis(settings.timeout_ms),
            proxy,
            built: Mutex::default(),
        })
    }

    /// The client for deliveries that allow `networks` and connect with `tls`. Fails
    /// when the TLS client certificate files cannot be read (they are read here, once
    /// per endpoint, so a fixed file is picked up after the cache starts over or the
    /// relay restarts).
    pub fn for_endpoint(
        &self,
        networks: &[IpNet],
        tls: &OutboundTls,
    ) -> Result<reqwest::Client, DeliveryError> {
        let mut networks = networks.to_vec();
        networks.sort();
        networks.dedup();
        let key = (networks, tls.clone());
        // A poisoned lock only means another delivery panicked: the map is still sound.
        let mut built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = built.get(&key) {
            return Ok(client.clone());
        }
        let client = self.build(key.0.clone().into(), tls)?;
        if built.len() >= MAX_CLIENTS {
            built.clear();
        }
        built.insert(key, client.clone());
        Ok(client)
    }

    /// No redirects (a 3xx is a failed attempt: a redirect would lead to an unchecked
    /// URL), a bounded time per POST, http and https (rustls, trusting and presenting
    /// what `tls` says), and no proxy unless the settings name one: reqwest otherwise
    /// takes `HTTP_PROXY` and the like from the environment, and a proxy connects
    /// wherever it resolves the name to.
    fn build(
        &self,
        allowed: Arc<[IpNet]>,
        tls: &OutboundTls,
    ) -> Result<reqwest::Client, DeliveryError> {
        let tls = edihub_outbound_tls::client_config(tls).map_err(DeliveryError::Tls)?;
        let builder = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.timeout)
            .connect_timeout(self.timeout)
            .user_agent(concat!("edihub/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(CheckedResolver { allowed }));
        let builder = match &self.proxy {
            Some(proxy) => builder.proxy(proxy.clone()),
            None => builder.no_proxy(),
        };
        builder.build().map_err(DeliveryError::Client)
    }
}
