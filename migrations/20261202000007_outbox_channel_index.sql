-- Each relay claims only its channel's due rows. Without the channel in the index, the
-- gateway's async MDN relay walked every PENDING Kafka row on each wake-up, which is
-- the whole backlog while Kafka is down (and the ingest benchmark's case).
CREATE INDEX outbox_pending_channel ON outbox (channel, seq) WHERE status = 'PENDING';
