//! The HTTP clients that POST MDNs: one per set of allowed networks, because the set
//! decides which addresses the client's resolver hands over, and a pooled connection
//! must only be reused for deliveries that allow its address.

use crate::DeliveryError;
use crate::resolve::CheckedResolver;
use edihub_config::AsyncMdnSettings;
use ipnet::IpNet;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Past this many distinct network sets (partnerships changed a lot), the cache starts
/// over rather than grow.
const MAX_CLIENTS: usize = 256;

/// The clients, built on first use for each set of networks.
pub struct Clients {
    timeout: Duration,
    proxy: Option<reqwest::Proxy>,
    built: Mutex<HashMap<Vec<IpNet>, reqwest::Client>>,
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

    /// The client for deliveries that allow `networks`.
    pub fn for_networks(&self, networks: &[IpNet]) -> Result<reqwest::Client, DeliveryError> {
        let mut key = networks.to_vec();
        key.sort();
        key.dedup();
        // A poisoned lock only means another delivery panicked: the map is still sound.
        let mut built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = built.get(&key) {
            return Ok(client.clone());
        }
        let client = self.build(key.clone().into())?;
        if built.len() >= MAX_CLIENTS {
            built.clear();
        }
        built.insert(key, client.clone());
        Ok(client)
    }

    /// No redirects (a 3xx is a failed attempt: a redirect would lead to an unchecked
    /// URL), a bounded time per POST, http and https (rustls with the platform's
    /// roots), and no proxy unless the settings name one: reqwest otherwise takes
    /// `HTTP_PROXY` and the like from the environment, and a proxy connects wherever
    /// it resolves the name to.
    fn build(&self, allowed: Arc<[IpNet]>) -> Result<reqwest::Client, DeliveryError> {
        // reqwest is built without a default crypto provider; the S3 client already
        // links aws-lc-rs. Installing fails only when one is installed already: fine.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let builder = reqwest::Client::builder()
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
