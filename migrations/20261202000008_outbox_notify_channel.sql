-- The NOTIFY names the channel of the rows committed, so that each relay wakes only for
-- its own rows: the gateway's async MDN relay no longer runs a claim for every message
-- the gateway accepts (one Kafka row each). Duplicate notifications within one
-- transaction are folded into one by PostgreSQL.
DROP TRIGGER outbox_notify ON outbox;
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox_pending', channel) FROM (SELECT DISTINCT channel FROM inserted) c;
    RETURN NULL;
END $$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
