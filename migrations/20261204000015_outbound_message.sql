-- Outbound AS2 (issue 16): each message the hub sends to a partner, owned by the
-- edihub-outbound crate. A row is delivered by the outbox channel 'as2-outbound' (one
-- delivery row per send, aggregate `outbound:<id>`); each change of `state` writes an
-- OutboundStatusChanged event (aggregate: the id) in the same transaction.
CREATE TABLE outbound_message (
    id              uuid        PRIMARY KEY,
    partner_as2_id  text        NOT NULL,
    hub_as2_id      text        NOT NULL,
    -- Our Message-ID, without angle brackets: kept across resends, so the partner can
    -- recognise a resend of what it already has.
    as2_message_id  text        NOT NULL UNIQUE,
    content_type    text        NOT NULL,
    payload         bytea       NOT NULL,
    sha256          text        NOT NULL,
    filename        text,
    state           text        NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'sent', 'delivered', 'failed', 'cancelled')),
    -- POSTs made since the last queueing.
    attempts        integer     NOT NULL DEFAULT 0,
    last_error      text,
    -- The MIC we computed (`<base64>, <alg>`) and the one the partner's MDN reported.
    mic_expected    text,
    mic_reported    text,
    -- The MDN as received (content type and body), for the record.
    mdn_content_type text,
    mdn             bytea,
    source          text        NOT NULL DEFAULT 'cli',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX outbound_message_partner_created ON outbound_message (partner_as2_id, created_at);
CREATE INDEX outbound_message_state_created ON outbound_message (state, created_at);

ALTER TABLE outbox DROP CONSTRAINT outbox_channel_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_channel_check
    CHECK (channel IN ('kafka', 'as2-mdn', 'as2-outbound'));
