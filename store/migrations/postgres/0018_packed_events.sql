-- An event's data compressed by vouch, as reports and requests are (see
-- store/pack.go and 0013): the data of most events is the same few keys
-- around a report kept in the log, and a dictionary trained on the
-- store's own events shrinks it about threefold. The column becomes
-- bytes; an event written before holds its JSON as it is, and reads tell
-- the two apart. The ALTER rewrites the events once, under a lock that
-- holds their writes back while it runs.

ALTER TABLE events ALTER COLUMN data TYPE BYTEA USING convert_to(data, 'UTF8');
