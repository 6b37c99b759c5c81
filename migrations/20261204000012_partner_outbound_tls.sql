-- Outbound HTTPS per partnership (async MDNs): which server certificates the hub trusts
-- and the client certificate it presents. The JSON form of
-- edihub_outbound_tls::OutboundTls, as `edihub partner add|update` checked it:
-- {"server": {"trust": "system" | "extra-ca" (+ "ca_pem") | "pinned" (+ "sha256")},
--  "client": {"certificate": path, "private_key": path}?}. The client key stays a file
-- on the gateway's host (it delivers async MDNs); only its path is stored.
ALTER TABLE partner
    ADD COLUMN outbound_tls jsonb NOT NULL DEFAULT '{}';
