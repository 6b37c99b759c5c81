-- Auditor search, access log and legal holds (issue 14, docs/audit.md). Owned by
-- crates/archive.

-- archive_record already keeps the business keys an auditor searches by (migration 17);
-- the ledger position joins them so that a search answers without reading the ledger's
-- entries. Records archived before migration 17 get their keys from the journal and the
-- transform's invoices, once, here.
ALTER TABLE archive_record ADD COLUMN ledger_seq bigint;

UPDATE archive_record r
   SET as2_from = m.as2_from,
       as2_message_id = m.as2_message_id,
       unb_reference = m.unb_reference,
       received_at = m.received_at
  FROM edi_message m
 WHERE m.id = r.message_id AND r.received_at IS NULL;

UPDATE archive_record r
   SET invoice_numbers = i.numbers
  FROM (SELECT message_id, array_agg(invoice_number ORDER BY message_reference) AS numbers
          FROM canonical_invoice GROUP BY message_id) i
 WHERE i.message_id = r.message_id AND r.invoice_numbers = '{}';

UPDATE archive_record r
   SET ledger_seq = e.seq
  FROM ledger_entry e
 WHERE e.message_id = r.message_id AND r.ledger_seq IS NULL;

-- Partner (with the period), the period and the invoice numbers have their indexes
-- since migration 17.
CREATE INDEX archive_record_as2_message_id ON archive_record (as2_message_id);
CREATE INDEX archive_record_unb_reference ON archive_record (unb_reference);

-- Who looked at or acted on the archive, what, and when: one row per `edihub audit
-- fetch|show|search|export|hold`. Written before the command returns any data
-- (outcome 'started'), completed afterwards ('ok' or 'failed'); a row left 'started'
-- is an access that died midway. The hub never updates a completed row nor deletes one.
CREATE TABLE audit_access (
    id          bigserial   PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    auditor     text        NOT NULL,
    command     text        NOT NULL,   -- fetch, show, search, export, hold
    arguments   jsonb       NOT NULL DEFAULT '{}',
    -- The messages the access returned or acted on, once known.
    message_ids uuid[]      NOT NULL DEFAULT '{}',
    messages    integer,
    outcome     text        NOT NULL DEFAULT 'started'
                            CHECK (outcome IN ('started', 'ok', 'failed')),
    -- What the outcome adds: the error of a failed access, the objects a hold changed.
    result      jsonb,
    finished_at timestamptz
);
CREATE INDEX audit_access_at ON audit_access (at);
CREATE INDEX audit_access_auditor ON audit_access (auditor, at);
