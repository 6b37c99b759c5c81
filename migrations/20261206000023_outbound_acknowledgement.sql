-- Partners' CONTRL and APERAK matched to the interchanges the hub sent them (issue 16),
-- owned by the edihub-outbound crate. An outbound EDIFACT message keeps what an
-- acknowledgement can name of it: UNB 0020 and S002 (a CONTRL's UCI repeats them) and
-- each message's BGM 1004 (an APERAK's RFF repeats it). Rows queued before this
-- migration have none and match nothing.
ALTER TABLE outbound_message
    ADD COLUMN unb_reference    text,
    ADD COLUMN unb_sender       text,
    ADD COLUMN document_numbers text[] NOT NULL DEFAULT '{}',
    -- The latest acknowledgement's verdict: accepted, rejected, received or
    -- partially-accepted; NULL until one is matched.
    ADD COLUMN acknowledgement  text,
    ADD COLUMN acknowledged_at  timestamptz;

CREATE INDEX outbound_message_unb_reference
    ON outbound_message (partner_as2_id, unb_reference) WHERE unb_reference IS NOT NULL;
CREATE INDEX outbound_message_document_numbers
    ON outbound_message USING gin (document_numbers);

-- Every acknowledgement matched to an outbound message, in the order they came.
CREATE TABLE outbound_acknowledgement (
    id                uuid        PRIMARY KEY,
    outbound_id       uuid        NOT NULL REFERENCES outbound_message (id) ON DELETE CASCADE,
    -- The received interchange (edi_message.id) that carried it, and its UNH 0062.
    message_id        uuid        NOT NULL,
    message_reference text        NOT NULL,
    message_type      text        NOT NULL CHECK (message_type IN ('CONTRL', 'APERAK')),
    action            text        NOT NULL,
    -- The acknowledgement as decoded (docs/schema/received-acknowledgement.json).
    detail            jsonb       NOT NULL,
    received_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (message_id, message_reference, outbound_id)
);

CREATE INDEX outbound_acknowledgement_outbound ON outbound_acknowledgement (outbound_id, received_at);
