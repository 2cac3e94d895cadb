-- The compression dictionaries the store trained on its own reports and
-- requests (see store/pack.go): each under the id its zstd frames name,
-- and never deleted, so that every blob compressed with one can be read
-- back.

CREATE TABLE pack_dicts (
	id         INTEGER PRIMARY KEY,
	kind       TEXT NOT NULL,
	dict       BLOB NOT NULL,
	created_at TEXT NOT NULL
);
