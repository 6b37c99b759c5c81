-- The tamper-evident ledger (issue 14, docs/adr/0006-audit-evidence-and-ledger.md).
-- Owned by crates/ledger.
--
-- One entry per archived message, in one total order without gaps: positions are taken
-- from the head under an advisory lock, never from a sequence.
-- hash = SHA-256(previous entry's hash || canonical), the first entry's previous hash
-- being 32 zero bytes. `canonical` is the exact bytes hashed.
CREATE TABLE ledger_entry (
    seq         bigint      PRIMARY KEY CHECK (seq > 0),
    message_id  uuid        NOT NULL UNIQUE REFERENCES edi_message(id),
    canonical   bytea       NOT NULL,
    hash        bytea       NOT NULL CHECK (length(hash) = 32),
    chained_at  timestamptz NOT NULL,
    -- Set when every object the entry names is in S3 (the archive's commit). Only stored
    -- entries are sealed.
    stored_at   timestamptz
);
CREATE INDEX ledger_entry_unstored ON ledger_entry (seq) WHERE stored_at IS NULL;

-- Sealed segments: consecutive entries [first_seq, last_seq], written to S3 and signed.
CREATE TABLE ledger_segment (
    first_seq        bigint      PRIMARY KEY,
    last_seq         bigint      NOT NULL UNIQUE,
    prev_head        bytea       NOT NULL CHECK (length(prev_head) = 32),
    head             bytea       NOT NULL CHECK (length(head) = 32),
    -- S3 keys, version ids and SHA-256 (hex) of the segment's objects, as JSON:
    -- {"entries": {"key", "version_id", "sha256", "size"}, "manifest": {...},
    --  "signature": {...}, "timestamp": {...} | null}
    objects          jsonb       NOT NULL,
    sealed_at        timestamptz NOT NULL,
    CHECK (last_seq >= first_seq)
);
