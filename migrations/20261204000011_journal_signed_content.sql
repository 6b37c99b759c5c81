-- Replay detection. The AS2 Message-ID is outside the partner's signature, so a captured
-- signed message sent again under a new Message-ID passed the (AS2-From, AS2-To,
-- Message-ID) deduplication and was journaled, and its invoice booked, twice.
--
-- signed_sha256 is the SHA-256 of the signed entity exactly as the partner signed it;
-- replay_until ends the window in which the same signed content from the same partner
-- counts as a replay. The exclusion constraint makes the check part of the journal's
-- INSERT (ON CONFLICT DO NOTHING), so two copies arriving at the same moment cannot both
-- be accepted. Unsigned messages (signed_sha256 NULL) are not checked: without a
-- signature there is nothing that proves two copies are one message.
CREATE EXTENSION IF NOT EXISTS btree_gist;

ALTER TABLE edi_message
    ADD COLUMN signed_sha256 bytea,
    ADD COLUMN replay_until timestamptz;

ALTER TABLE edi_message
    ADD CONSTRAINT edi_message_signed_content_once
    EXCLUDE USING gist (
        as2_from WITH =,
        signed_sha256 WITH =,
        tstzrange(received_at, replay_until) WITH &&
    ) WHERE (signed_sha256 IS NOT NULL AND replay_until IS NOT NULL);
