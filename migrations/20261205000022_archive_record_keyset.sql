-- `edihub audit export` reads a period's records a page at a time, in (received_at,
-- message_id) order after the last one read: these indexes serve each page directly,
-- and every query the narrower ones served before.
CREATE INDEX archive_record_received_id ON archive_record (received_at, message_id);
DROP INDEX archive_record_received;
CREATE INDEX archive_record_partner_received_id
    ON archive_record (as2_from, received_at, message_id);
DROP INDEX archive_record_partner;
