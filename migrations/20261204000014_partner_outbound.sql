-- How the hub sends AS2 messages to a partner (issue 16). NULL: it sends nothing. The
-- JSON form of edihub_config::PartnerOutboundSettings, as `edihub partner add|update`
-- checked and normalised it (every field explicit):
-- {"url": "https://...", "hub_as2_id": null | "...", "sign": "sha-256" | "none",
--  "encrypt": "aes256" | "none", "compress": false, "mdn": "none" | "sync" | "async",
--  "mdn_signed": "sha-256" | "none" | null, "async_mdn_url": null | "https://...",
--  "timeout_ms": 30000, "mdn_timeout_ms": 1200000, "max_attempts": 10,
--  "base_backoff_ms": 30000, "max_backoff_ms": 3600000}.
-- Readers parse it with edihub_partners::outbound::parse, as they do the settings file.
ALTER TABLE partner
    ADD COLUMN outbound jsonb;
