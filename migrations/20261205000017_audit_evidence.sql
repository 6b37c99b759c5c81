-- Audit evidence (issue 14, docs/adr/0006-audit-evidence-and-ledger.md).
--
-- signed_entity: the multipart/signed MIME entity (headers and body) exactly as it came
-- out of decryption or off the wire, before verification; NULL for an unsigned message.
-- security: what the gateway established about the message's security layers, as JSON:
-- {"signature": null | {"digest": "sha-256", "certificate_der_b64": "...",
--   "certificate_sha256": "<hex>"}, "encryption": null | {"algorithm": "aes256-cbc"},
--  "compressed": bool, "mic": "<base64>, <alg>"}.
-- Rows journaled before this migration have both NULL.
ALTER TABLE edi_message
    ADD COLUMN signed_entity bytea,
    ADD COLUMN security jsonb;

-- Every object the archive consumer stored for a message, one row per kind. Owned by
-- crates/archive. `archive_record` still points to the payload.
CREATE TABLE archive_object (
    message_id   uuid        NOT NULL REFERENCES edi_message(id),
    kind         text        NOT NULL,   -- payload, request-body, request-headers,
                                         -- signed-entity, mdn, evidence
    object_key   text        NOT NULL,
    version_id   text,
    sha256       text        NOT NULL,   -- hex
    size         bigint      NOT NULL,
    retain_until timestamptz NOT NULL,
    PRIMARY KEY (message_id, kind)
);

-- What an auditor searches by, kept with the archive's own record so that search needs
-- neither the journal nor S3. NULL/empty for records archived before this migration.
ALTER TABLE archive_record
    ADD COLUMN as2_from        text,
    ADD COLUMN as2_message_id  text,
    ADD COLUMN unb_reference   text,
    ADD COLUMN received_at     timestamptz,
    ADD COLUMN invoice_numbers text[] NOT NULL DEFAULT '{}';
CREATE INDEX archive_record_received ON archive_record (received_at);
CREATE INDEX archive_record_partner ON archive_record (as2_from, received_at);
CREATE INDEX archive_record_invoice_numbers ON archive_record USING gin (invoice_numbers);
