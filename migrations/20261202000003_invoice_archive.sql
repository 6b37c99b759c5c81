-- Canonical invoices (EN 16931 model), one per INVOIC message of an interchange.
CREATE TABLE canonical_invoice (
    id                uuid PRIMARY KEY,
    message_id        uuid        NOT NULL REFERENCES edi_message(id),
    message_reference text        NOT NULL,        -- UNH 0062
    invoice_number    text        NOT NULL,        -- BT-1
    issue_date        date        NOT NULL,        -- BT-2
    currency          text,                        -- BT-5
    amount_due        numeric,                     -- BT-115
    canonical         jsonb       NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (message_id, message_reference)
);

-- Where each original lies in the object-locked archive, and its digest.
CREATE TABLE archive_record (
    message_id        uuid PRIMARY KEY REFERENCES edi_message(id),
    bucket            text        NOT NULL,
    object_key        text        NOT NULL,
    version_id        text,
    sha256            text        NOT NULL,
    size              bigint      NOT NULL,
    retention_mode    text        NOT NULL,
    retain_until      timestamptz NOT NULL,
    archived_at       timestamptz NOT NULL DEFAULT now()
);
