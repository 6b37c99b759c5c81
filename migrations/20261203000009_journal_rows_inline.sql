-- Keep a journaled message and its MDN in their heap rows up to about 8 kB.
--
-- With the default target (about 2 kB) every signed and encrypted message (a 3.8 kB body
-- for an 837-byte INVOIC) and every signed MDN (3.3 kB) went through TOAST: a compression
-- attempt, which an encrypted body never passes, then chunks and index entries in the
-- TOAST table. On the rows as2_ingest writes, inserting 3000 messages and their MDNs took
-- about half the time inline (EXPLAIN ANALYZE: about 525 ms -> 250 ms), and PostgreSQL's
-- CPU over a whole 3000-message run fell from 1.61 s to 1.34 s (mean of 3 interleaved
-- runs each). The cost is disk: these rows are stored uncompressed. Larger rows are
-- toasted as before.
ALTER TABLE edi_message SET (toast_tuple_target = 8160);
ALTER TABLE mdn SET (toast_tuple_target = 8160);
