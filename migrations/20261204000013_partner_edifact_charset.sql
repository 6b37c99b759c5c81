-- How strictly a partner's EDIFACT is held to the repertoire its UNB declares (issue 15):
-- 'tolerant' (the default) reads a byte outside it that is printable in ISO 8859-1 as such
-- and warns; 'strict' rejects the interchange, as every partnership did before.
ALTER TABLE partner
    ADD COLUMN edifact_charset text NOT NULL DEFAULT 'tolerant'
        CHECK (edifact_charset IN ('strict', 'tolerant'));
