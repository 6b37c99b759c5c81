-- The journal: every AS2 message the hub accepted, kept byte for byte.
CREATE TABLE edi_message (
    id                uuid PRIMARY KEY,            -- the hub's message id (UUIDv7)
    as2_from          text        NOT NULL,
    as2_to            text        NOT NULL,
    as2_message_id    text        NOT NULL,        -- normalised, without angle brackets
    content_type      text        NOT NULL,
    as2_headers       jsonb       NOT NULL,        -- the AS2/HTTP headers as received
    raw_body          bytea       NOT NULL,        -- the HTTP body as received
    payload           bytea       NOT NULL,        -- the EDI interchange after unwrapping
    payload_sha256    text        NOT NULL,        -- hex
    payload_size      bigint      NOT NULL,
    unb_sender        text,
    unb_recipient     text,
    unb_reference     text,
    received_at       timestamptz NOT NULL,
    -- A resend (same AS2-From, AS2-To, Message-ID) must find the original.
    CONSTRAINT edi_message_as2_identity UNIQUE (as2_from, as2_to, as2_message_id)
);

-- The MDN returned for each accepted message, so a resend gets the same one.
CREATE TABLE mdn (
    message_id        uuid PRIMARY KEY REFERENCES edi_message(id),
    mdn_message_id    text        NOT NULL,
    disposition       text        NOT NULL,
    content_type      text        NOT NULL,
    headers           jsonb       NOT NULL,
    body              bytea       NOT NULL,
    created_at        timestamptz NOT NULL
);

-- Messages the gateway refused (unknown partner, ...): kept for operators, never published.
CREATE TABLE as2_refusal (
    id                uuid PRIMARY KEY,
    as2_from          text,
    as2_to            text,
    as2_message_id    text,
    disposition       text        NOT NULL,
    reason            text        NOT NULL,
    body_size         bigint      NOT NULL,
    refused_at        timestamptz NOT NULL
);
