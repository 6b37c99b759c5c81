-- `edihub journal purge` (issue 14): the journal stops growing forever. Once a message's
-- evidence is archived and sealed in the ledger, its bytes (the HTTP body, the payload,
-- the signed entity) may be removed from PostgreSQL; the row, its identities, digests and
-- MDN stay, and its claim check resolves from the archive instead.
ALTER TABLE edi_message
    ALTER COLUMN raw_body DROP NOT NULL,
    ALTER COLUMN payload DROP NOT NULL,
    ADD COLUMN purged_at timestamptz,
    -- Bytes are absent only from a purged row, and a purged row keeps none.
    ADD CONSTRAINT edi_message_bytes_kept_until_purged CHECK (
        (purged_at IS NULL AND raw_body IS NOT NULL AND payload IS NOT NULL)
        OR (purged_at IS NOT NULL AND raw_body IS NULL AND payload IS NULL
            AND signed_entity IS NULL)
    );

-- The purge walks the rows it has not purged yet, oldest first.
CREATE INDEX edi_message_unpurged ON edi_message (received_at, id) WHERE purged_at IS NULL;
