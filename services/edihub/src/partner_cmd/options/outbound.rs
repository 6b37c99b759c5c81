//! The `--outbound-*` flags: how the hub sends AS2 messages to the partner.

use clap::Args;
use edihub_config::PartnerOutboundSettings;
use edihub_partners::outbound::OutboundChanges;
use edihub_partners::store::OutboundUpdate;

#[derive(Args)]
pub struct OutboundOptions {
    /// Send to the partner at this AS2 URL (http or https, no user info). With
    /// `update`, the other `--outbound-*` flags change an existing outbound setting;
    /// without one they need this flag. Not given (with `add`): the hub sends nothing.
    #[arg(long, value_name = "URL")]
    outbound_url: Option<String>,
    /// Send as this hub identity (AS2-From, signing key); "" or not given: the main one
    /// (`gateway.hub_as2_id`).
    #[arg(long, value_name = "AS2_ID")]
    outbound_hub_id: Option<String>,
    /// Sign with this digest (`sha256`, `sha-512`, ...) or `none`. Default sha-256.
    #[arg(long, value_name = "DIGEST|none")]
    outbound_sign: Option<String>,
    /// Encrypt to the partner's first certificate with this cipher (`aes256`,
    /// `aes128-gcm`, `3des`, ...) or `none`. Default aes256.
    #[arg(long, value_name = "CIPHER|none")]
    outbound_encrypt: Option<String>,
    /// Compress (RFC 5402) before signing. Default false.
    #[arg(long, value_name = "BOOL")]
    outbound_compress: Option<bool>,
    /// The MDN to ask for: `none`, `sync` (the default) or `async` (needs
    /// `--outbound-async-mdn-url`).
    #[arg(long, value_name = "none|sync|async")]
    outbound_mdn: Option<String>,
    /// The MDN's signature to ask for: a digest (its micalg; default sha-256) or `none`.
    #[arg(long, value_name = "DIGEST|none")]
    outbound_mdn_signed: Option<String>,
    /// Where the partner is to POST asynchronous MDNs (the gateway's `/as2` as the
    /// partner reaches it).
    #[arg(long, value_name = "URL")]
    outbound_async_mdn_url: Option<String>,
    /// Time allowed for one POST, in milliseconds (default 30000).
    #[arg(long, value_name = "MS")]
    outbound_timeout_ms: Option<u64>,
    /// How long an asynchronous MDN may take before the message is sent again, in
    /// milliseconds (default 20 minutes).
    #[arg(long, value_name = "MS")]
    outbound_mdn_timeout_ms: Option<u64>,
    /// Attempts in all before a message is FAILED (default 10).
    #[arg(long, value_name = "N")]
    outbound_max_attempts: Option<u32>,
    /// The wait before the first retry, doubling after each, in milliseconds (default
    /// 30000).
    #[arg(long, value_name = "MS")]
    outbound_base_backoff_ms: Option<u64>,
    /// The longest wait between retries, in milliseconds (default one hour).
    #[arg(long, value_name = "MS")]
    outbound_max_backoff_ms: Option<u64>,
    /// With `update`: remove the outbound setting (the hub sends the partner nothing).
    #[arg(long, conflicts_with_all = [
        "outbound_url", "outbound_hub_id", "outbound_sign", "outbound_encrypt",
        "outbound_compress", "outbound_mdn", "outbound_mdn_signed", "outbound_async_mdn_url",
        "outbound_timeout_ms", "outbound_mdn_timeout_ms", "outbound_max_attempts",
        "outbound_base_backoff_ms", "outbound_max_backoff_ms",
    ])]
    no_outbound: bool,
}

impl OutboundOptions {
    fn changes(&self) -> OutboundChanges {
        OutboundChanges {
            url: self.outbound_url.clone(),
            hub_as2_id: self.outbound_hub_id.clone(),
            sign: self.outbound_sign.clone(),
            encrypt: self.outbound_encrypt.clone(),
            compress: self.outbound_compress,
            mdn: self.outbound_mdn.clone(),
            mdn_signed: self.outbound_mdn_signed.clone(),
            async_mdn_url: self.outbound_async_mdn_url.clone(),
            timeout_ms: self.outbound_timeout_ms,
            mdn_timeout_ms: self.outbound_mdn_timeout_ms,
            max_attempts: self.outbound_max_attempts,
            base_backoff_ms: self.outbound_base_backoff_ms,
            max_backoff_ms: self.outbound_max_backoff_ms,
        }
    }

    /// A new partnership's outbound setting: none unless a flag is given.
    pub fn into_new(self) -> anyhow::Result<Option<PartnerOutboundSettings>> {
        if self.no_outbound {
            anyhow::bail!("--no-outbound is for `partner update` (`add` sets none by default)");
        }
        let changes = self.changes();
        if changes.is_empty() {
            return Ok(None);
        }
        Ok(Some(changes.apply(None)?))
    }

    /// The change `update` makes: none unless a flag is given.
    pub fn into_update(self) -> Option<OutboundUpdate> {
        let changes = self.changes();
        if self.no_outbound {
            Some(OutboundUpdate::Remove)
        } else if changes.is_empty() {
            None
        } else {
            Some(OutboundUpdate::Change(Box::new(changes)))
        }
    }
}
