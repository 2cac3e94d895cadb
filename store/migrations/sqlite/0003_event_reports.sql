-- An event that carries the report of the verification it was written
-- with (verification:complete) keeps it once: data is stored without the
-- report, report_at is the byte offset where it belongs and report_seq the
-- verification's row; reading the event puts the report back in place.

ALTER TABLE events ADD COLUMN report_at INTEGER;
ALTER TABLE events ADD COLUMN report_seq INTEGER;
